//! Orderings: `sort`, `argsort`, `top_k`, `unique`, `searchsorted`,
//! `bincount`.
//!
//! The orders are computed as TensorFlow computes them: `top_k` keeps larger
//! values first and, among equal values, the lower index first; `sort` and
//! `argsort` are `top_k` over the whole axis (ascending: over the negated
//! values, `!x` for integers, so ties keep their order there too). Index
//! results are integers and not differentiable; sorted values are a `gather`
//! of the input at those indices, so their gradient scatters back (TF's
//! `TopKV2` gradient) and derivatives of any order work.
//!
//! Positions found by comparing values are data: a traced graph records
//! each computation of them as an op of its own ([`super::trace_only`]), and
//! the gather takes them as a tensor input, so a replay on new values
//! orders the new values (not the traced positions).

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::dims::ShapeDisplay;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops;
use crate::shape::normalize_axis;
use crate::tensor::{Storage, Tensor};

/// Sort keys of a tensor's elements in row-major order: floats widened to
/// f64 (with -0 made +0, so the two tie), integers widened to i64.
enum Keys {
    F(Vec<f64>),
    I(Vec<i64>),
}

impl Keys {
    /// The keys of `x`, negated when `negate` (TF's ascending order; `!v`
    /// for integers, which reverses their order without overflow);
    /// `op` names the op in the error for a dtype without an order.
    fn of(x: &Tensor, negate: bool, op: &'static str) -> Result<Keys> {
        let f = |v: f64| {
            let v = if negate { -v } else { v };
            if v == 0.0 {
                0.0
            } else {
                v
            }
        };
        let int = |v: i64| if negate { !v } else { v };
        Ok(match x.storage() {
            Storage::F32(a) => Keys::F(a.iter().map(|&v| f(v as f64)).collect()),
            Storage::F64(a) => Keys::F(a.iter().map(|&v| f(v)).collect()),
            Storage::I32(a) => Keys::I(
                a.iter()
                    .map(|&v| if negate { !v } else { v } as i64)
                    .collect(),
            ),
            Storage::I64(a) => Keys::I(a.iter().map(|&v| if negate { !v } else { v }).collect()),
            Storage::U8(a) => Keys::I(a.iter().map(|&v| int(v as i64)).collect()),
            Storage::I8(a) => Keys::I(a.iter().map(|&v| int(v as i64)).collect()),
            Storage::I16(a) => Keys::I(a.iter().map(|&v| int(v as i64)).collect()),
            Storage::U16(a) => Keys::I(a.iter().map(|&v| int(v as i64)).collect()),
            Storage::U32(a) => Keys::I(a.iter().map(|&v| int(v as i64)).collect()),
            // Flipping the top bit maps uint64's order onto int64's.
            Storage::U64(a) => Keys::I(a.iter().map(|&v| int((v ^ (1 << 63)) as i64)).collect()),
            Storage::F16(a) => Keys::F(a.iter().map(|&v| f(v.to_f64())).collect()),
            Storage::BF16(a) => Keys::F(a.iter().map(|&v| f(v.to_f64())).collect()),
            _ => {
                return Err(Error::UnsupportedDType {
                    op,
                    dtype: x.dtype(),
                    allowed: "float, double, int32, int64",
                })
            }
        })
    }

    /// For each row of `n` keys, the positions of its `k` largest keys,
    /// larger first and equal keys in index order (a stable sort; NaN, which
    /// TF orders arbitrarily, sorts as larger than every number here).
    fn top(&self, n: usize, k: usize) -> Vec<usize> {
        fn rows<T: Copy>(
            keys: &[T],
            n: usize,
            k: usize,
            cmp: impl Fn(T, T) -> Ordering,
        ) -> Vec<usize> {
            let rows = keys.len().checked_div(n).unwrap_or(0);
            let mut out = Vec::with_capacity(rows * k);
            let mut idx: Vec<usize> = Vec::with_capacity(n);
            for row in keys.chunks(n.max(1)).take(rows) {
                idx.clear();
                idx.extend(0..n);
                idx.sort_by(|&a, &b| cmp(row[b], row[a]));
                out.extend_from_slice(&idx[..k]);
            }
            out
        }
        match self {
            Keys::F(v) => rows(v, n, k, |a: f64, b: f64| a.total_cmp(&b)),
            Keys::I(v) => rows(v, n, k, |a: i64, b: i64| a.cmp(&b)),
        }
    }
}

/// `x` with `axis` moved last, and the permutation that moves it back.
fn axis_last(x: &Tensor, axis: usize) -> Result<(Tensor, Option<Vec<usize>>)> {
    let r = x.rank();
    if axis + 1 == r {
        return Ok((x.clone(), None));
    }
    let perm: Vec<usize> = (0..r).filter(|&a| a != axis).chain([axis]).collect();
    let mut back = vec![0; r];
    for (i, &p) in perm.iter().enumerate() {
        back[p] = i;
    }
    Ok((ops::transpose(x, Some(&perm))?, Some(back)))
}

/// The elements of `x` (last axis `n` long) at `pos`, `k` per row: a
/// differentiable `take` of the flattened tensor.
/// The positions `pos` (`k` picks in each row of `n`) in `x` flattened, as
/// an int64 tensor.
fn flat_positions(pos: &[usize], n: usize, k: usize) -> Result<Tensor> {
    let flat: Vec<i64> = pos
        .chunks(k.max(1))
        .enumerate()
        .flat_map(|(r, c)| c.iter().map(move |&p| (r * n + p) as i64))
        .collect();
    let len = flat.len();
    Tensor::from_vec(flat, &[len])
}

/// The `k` picks of each row of `x` (its last axis) at `pos`, the positions
/// `pick(x)` gives: a traced graph replays `pick` on the new `x` (the gather
/// takes the positions as an input).
fn take_rows(
    x: &Tensor,
    pos: &[usize],
    k: usize,
    name: &'static str,
    pick: impl Fn(&Tensor) -> Result<Vec<usize>> + Send + Sync + 'static,
) -> Result<Tensor> {
    let n = *x.shape().last().unwrap_or(&0);
    let flat_pos = flat_positions(pos, n, k)?;
    super::trace_only(name, &[x], &flat_pos, move |i| {
        let n = *i[0].shape().last().unwrap_or(&0);
        flat_positions(&pick(&i[0])?, n, k)
    });
    let flat = ops::reshape(x, &[-1])?;
    let taken = ops::gather(&flat, &flat_pos, 0, 0)?;
    let mut shape: Vec<isize> = x.shape().iter().map(|&d| d as isize).collect();
    if let Some(last) = shape.last_mut() {
        *last = k as isize;
    }
    ops::reshape(&taken, &shape)
}

fn index_tensor(pos: &[usize], shape: &[usize], dtype: DType) -> Result<Tensor> {
    match dtype {
        DType::I64 => Tensor::from_vec(pos.iter().map(|&p| p as i64).collect(), shape),
        _ => Tensor::from_vec(pos.iter().map(|&p| p as i32).collect(), shape),
    }
}

fn sort_axis(x: &Tensor, axis: isize, op: &'static str) -> Result<usize> {
    normalize_axis(axis, x.rank()).map_err(|_| {
        Error::invalid(format!(
            "{op}: axis {axis} is out of range for a tensor of shape {} [Op:{op}]",
            ShapeDisplay::of(x.shape())
        ))
    })
}

/// The full order along `axis` (`descending`, else ascending), as positions
/// into the last axis of `moved` (`x` with `axis` last).
fn order(
    x: &Tensor,
    axis: isize,
    descending: bool,
    op: &'static str,
) -> Result<(Tensor, Option<Vec<usize>>, Vec<usize>)> {
    let ax = sort_axis(x, axis, op)?;
    let (moved, back) = axis_last(x, ax)?;
    let keys = Keys::of(&moved, !descending, op)?;
    let n = x.shape()[ax];
    let pos = keys.top(n, n);
    Ok((moved, back, pos))
}

/// `tf.sort(values, axis, direction)`: differentiable (the gradient scatters
/// back to where each value came from).
pub fn sort(x: &Tensor, axis: isize, descending: bool) -> Result<Tensor> {
    let ax = sort_axis(x, axis, "Sort")?;
    let (moved, back) = axis_last(x, ax)?;
    let n = *moved.shape().last().unwrap_or(&0);
    let pick = move |m: &Tensor| {
        let n = *m.shape().last().unwrap_or(&0);
        Ok(Keys::of(m, !descending, "Sort")?.top(n, n))
    };
    let sorted = take_rows(&moved, &pick(&moved)?, n, "SortPositions", pick)?;
    match back {
        Some(p) => ops::transpose(&sorted, Some(&p)),
        None => Ok(sorted),
    }
}

/// `tf.argsort(values, axis, direction, stable)`: the int32 positions that
/// sort `x` along `axis`. Always stable (equal values keep their order), as
/// TF's is whatever `stable` says.
pub fn argsort(x: &Tensor, axis: isize, descending: bool) -> Result<Tensor> {
    let (moved, back, pos) = order(x, axis, descending, "Argsort")?;
    let idx = index_tensor(&pos, moved.shape(), DType::I32)?;
    super::trace_only("Argsort", &[&moved], &idx, move |i| {
        let n = *i[0].shape().last().unwrap_or(&0);
        index_tensor(
            &Keys::of(&i[0], !descending, "Argsort")?.top(n, n),
            i[0].shape(),
            DType::I32,
        )
    });
    match back {
        Some(p) => ops::transpose(&idx, Some(&p)),
        None => Ok(idx),
    }
}

/// `tf.math.top_k(input, k, sorted)`: the `k` largest entries along the last
/// axis and their int32 indices, larger first, equal values in index order
/// (TF's order; `sorted=false` lets TF return any order, and this returns
/// the sorted one). The values are differentiable.
pub fn top_k(x: &Tensor, k: isize, sorted: bool) -> Result<(Tensor, Tensor)> {
    let _ = sorted;
    if k < 0 {
        return Err(Error::invalid(format!("Need k >= 0, got {k} [Op:TopKV2]")));
    }
    let k = k as usize;
    let Some(&n) = x.shape().last() else {
        return Err(Error::invalid(format!(
            "input must be >= 1-D, got shape {} [Op:TopKV2]",
            ShapeDisplay::of(x.shape())
        )));
    };
    if k > n {
        return Err(Error::invalid(format!(
            "input must have at least k columns. Had {n}, needed {k} [Op:TopKV2]"
        )));
    }
    let pos = Keys::of(x, false, "TopKV2")?.top(n, k);
    let values = take_rows(x, &pos, k, "TopKV2Positions", move |x| {
        let n = *x.shape().last().unwrap_or(&0);
        Ok(Keys::of(x, false, "TopKV2")?.top(n, k))
    })?;
    let indices = index_tensor(&pos, values.shape(), DType::I32)?;
    super::trace_only("TopKV2Indices", &[x], &indices, move |i| {
        let n = *i[0].shape().last().unwrap_or(&0);
        let mut shape = i[0].shape().to_vec();
        if let Some(last) = shape.last_mut() {
            *last = k;
        }
        index_tensor(
            &Keys::of(&i[0], false, "TopKV2")?.top(n, k),
            &shape,
            DType::I32,
        )
    });
    Ok((values, indices))
}

/// A key under which equal values of `unique` meet: the value's bits (-0 as
/// +0); `None` for NaN, which equals nothing (TF gives each NaN its own entry).
fn unique_keys(x: &Tensor) -> Vec<Option<u64>> {
    let f = |v: f64| (!v.is_nan()).then(|| if v == 0.0 { 0u64 } else { v.to_bits() });
    use crate::dtype::{Num, Scalar};
    crate::with_real_storage!(x.storage(), a => a.iter().map(|&v| match v.to_num() {
        Num::Int(i) => Some(i as u64),
        n => f(n.re()),
    }).collect(), _ => unreachable!("unique refuses complex tensors first"))
}

/// `tf.unique(x, out_idx)`: the distinct values of a 1-D tensor in order of
/// first appearance, and for each element the position of its value there.
/// Not differentiable (TF registers no gradient for it).
pub fn unique(x: &Tensor, out_idx: DType) -> Result<(Tensor, Tensor)> {
    let (first, idx) = unique_positions(x, out_idx)?;
    let trace = |name, out: &Tensor, second: bool| {
        super::trace_only_sized_by_values(name, &[x], out, move |i| {
            let (first, idx) = unique_positions(&i[0], out_idx)?;
            Ok(if second { idx } else { first })
        })
    };
    trace("UniqueFirst", &first, false);
    trace("Unique", &idx, true);
    let y = ops::stop_gradient(&ops::gather(x, &first, 0, 0)?);
    Ok((y, idx))
}

/// Where each distinct value of `x` first appears (int64), and for each
/// element the position of its value among them (`out_idx`).
fn unique_positions(x: &Tensor, out_idx: DType) -> Result<(Tensor, Tensor)> {
    if x.rank() != 1 {
        return Err(Error::invalid("unique expects a 1D vector. [Op:Unique]"));
    }
    if !matches!(out_idx, DType::I32 | DType::I64) {
        return Err(Error::UnsupportedDType {
            op: "Unique",
            dtype: out_idx,
            allowed: "int32, int64 (out_idx)",
        });
    }
    if x.dtype().is_complex() {
        return Err(Error::UnsupportedDType {
            op: "Unique",
            dtype: x.dtype(),
            allowed: "real numbers and bool",
        });
    }
    let mut seen: HashMap<u64, usize> = HashMap::new();
    let mut first: Vec<usize> = Vec::new();
    let mut idx: Vec<usize> = Vec::with_capacity(x.numel());
    for (i, key) in unique_keys(x).into_iter().enumerate() {
        let slot = match key {
            Some(k) => *seen.entry(k).or_insert_with(|| {
                first.push(i);
                first.len() - 1
            }),
            None => {
                first.push(i);
                first.len() - 1
            }
        };
        idx.push(slot);
    }
    let first = index_tensor(&first, &[first.len()], DType::I64)?;
    let idx = index_tensor(&idx, &[x.numel()], out_idx)?;
    Ok((first, idx))
}

/// `tf.searchsorted(sorted_sequence, values, side, out_type)`: for each value,
/// the position in its row of `sorted_sequence` where it would be inserted
/// (`right`: after equal entries). Rows are the leading dims, which must
/// agree. Not differentiable.
pub fn searchsorted(seq: &Tensor, values: &Tensor, right: bool, out_type: DType) -> Result<Tensor> {
    let out = search_positions(seq, values, right, out_type)?;
    let op = if right { "UpperBound" } else { "LowerBound" };
    super::trace_only(op, &[seq, values], &out, move |i| {
        search_positions(&i[0], &i[1], right, out_type)
    });
    Ok(out)
}

fn search_positions(seq: &Tensor, values: &Tensor, right: bool, out_type: DType) -> Result<Tensor> {
    let op = if right { "UpperBound" } else { "LowerBound" };
    if seq.dtype() != values.dtype() {
        return Err(Error::DTypeMismatch {
            op,
            index: 1,
            expected: seq.dtype(),
            actual: values.dtype(),
        });
    }
    if seq.rank() == 0 || values.rank() == 0 {
        return Err(Error::invalid(format!(
            "Input sorted_sequence and values must be at least 1-D, got shapes {} and {} [Op:{op}]",
            ShapeDisplay::of(seq.shape()),
            ShapeDisplay::of(values.shape())
        )));
    }
    if seq.shape()[..seq.rank() - 1] != values.shape()[..values.rank() - 1] {
        return Err(Error::invalid(format!(
            "Leading dim_size of both tensors must match. [Op:{op}]"
        )));
    }
    if !matches!(out_type, DType::I32 | DType::I64) {
        return Err(Error::UnsupportedDType {
            op,
            dtype: out_type,
            allowed: "int32, int64 (out_type)",
        });
    }
    let m = *seq.shape().last().unwrap_or(&0);
    let k = *values.shape().last().unwrap_or(&0);
    #[allow(clippy::neg_cmp_op_on_partial_ord)] // std::upper_bound's `!(x < e)`
    fn search<T: Copy + PartialOrd>(
        s: &[T],
        v: &[T],
        m: usize,
        k: usize,
        right: bool,
    ) -> Vec<usize> {
        let rows = v.len().checked_div(k).unwrap_or(0);
        let mut out = Vec::with_capacity(v.len());
        for r in 0..rows {
            let row = &s[r * m..(r + 1) * m];
            for &x in &v[r * k..(r + 1) * k] {
                out.push(if right {
                    row.partition_point(|&e| !(x < e))
                } else {
                    row.partition_point(|&e| e < x)
                });
            }
        }
        out
    }
    let (ks, kv) = (Keys::of(seq, false, op)?, Keys::of(values, false, op)?);
    let pos = match (&ks, &kv) {
        (Keys::F(s), Keys::F(v)) => search(s, v, m, k, right),
        (Keys::I(s), Keys::I(v)) => search(s, v, m, k, right),
        _ => unreachable!("one dtype"),
    };
    index_tensor(&pos, values.shape(), out_type)
}

/// What `tf.math.bincount` counts with.
pub struct Bincount<'a> {
    /// Per-element weights (the shape of `arr`), summed instead of counting 1.
    pub weights: Option<&'a Tensor>,
    /// At least this many bins.
    pub minlength: Option<usize>,
    /// At most this many bins (values beyond are dropped).
    pub maxlength: Option<usize>,
    /// The result's dtype without weights.
    pub dtype: DType,
    /// Count each row of a 2-D `arr` separately (`axis=-1`).
    pub per_row: bool,
    /// 1 where a bin has any entry (`binary_output`).
    pub binary: bool,
}

/// `tf.math.bincount`: how often each non-negative integer occurs in `arr`
/// (or the sum of its weights). Not differentiable (TF registers no gradient).
pub fn bincount(arr: &Tensor, opts: &Bincount<'_>) -> Result<Tensor> {
    let out = count_bins(arr, opts)?;
    let (minlength, maxlength, dtype) = (opts.minlength, opts.maxlength, opts.dtype);
    let (per_row, binary) = (opts.per_row, opts.binary);
    let mut inputs = vec![arr];
    inputs.extend(opts.weights);
    super::trace_only_sized_by_values("DenseBincount", &inputs, &out, move |i| {
        let opts = Bincount {
            weights: i.get(1),
            minlength,
            maxlength,
            dtype,
            per_row,
            binary,
        };
        count_bins(&i[0], &opts)
    });
    Ok(out)
}

fn count_bins(arr: &Tensor, opts: &Bincount<'_>) -> Result<Tensor> {
    let vals: Vec<i64> = ops::cast(arr, DType::I64)?.to_vec()?;
    if vals.iter().any(|&v| v < 0) {
        return Err(Error::invalid(
            "Input arr must be non-negative! [Op:DenseBincount]",
        ));
    }
    if let Some(w) = opts.weights {
        if w.shape() != arr.shape() {
            return Err(Error::invalid(format!(
                "Incompatible shapes: weights {} vs. arr {} [Op:DenseBincount]",
                ShapeDisplay::of(w.shape()),
                ShapeDisplay::of(arr.shape())
            )));
        }
    }
    if opts.per_row && arr.rank() != 2 {
        return Err(Error::invalid(format!(
            "bincount with axis=-1 needs a 2-D arr, got shape {} [Op:DenseBincount]",
            ShapeDisplay::of(arr.shape())
        )));
    }
    let top = vals.iter().map(|&v| v as usize + 1).max().unwrap_or(0);
    let mut bins = top.max(opts.minlength.unwrap_or(0));
    if let Some(m) = opts.maxlength {
        bins = bins.min(m);
    }
    let rows = if opts.per_row { arr.shape()[0] } else { 1 };
    let per = vals.len().checked_div(rows).unwrap_or(0);
    let w: Option<Vec<f64>> = opts
        .weights
        .map(|w| ops::cast(w, DType::F64)?.to_vec())
        .transpose()?;
    let mut acc = vec![0f64; rows * bins];
    for (i, &v) in vals.iter().enumerate() {
        let v = v as usize;
        if v < bins {
            let cell = &mut acc[(i / per.max(1)) * bins + v];
            if opts.binary {
                *cell = 1.0;
            } else {
                *cell += w.as_ref().map_or(1.0, |w| w[i]);
            }
        }
    }
    let shape: Vec<usize> = if opts.per_row {
        vec![rows, bins]
    } else {
        vec![bins]
    };
    let dtype = match opts.weights {
        Some(w) if !opts.binary => w.dtype(),
        _ => opts.dtype,
    };
    if dtype == DType::Bool {
        return Err(Error::UnsupportedDType {
            op: "DenseBincount",
            dtype,
            allowed: "int32, int64, float, double",
        });
    }
    ops::cast(&Tensor::from_vec(acc, &shape)?, dtype)
}
