//! Indexing: `t[i]`, strided slicing, gather/gather_nd, and contiguous slices
//! and pads. Each pair here is its partner's gradient (take <-> scatter_add,
//! slice <-> pad), so derivatives of any order work.

use std::sync::Arc;

use ndarray::{ArcArray, ArrayD, Axis, IxDyn, Slice};

use super::{describe_attr_op, record, rule};
use crate::error::{Error, Result};
use crate::map_storage;
use crate::ops;
use crate::shape::{normalize_axis, ShapeDisplay};
use crate::tensor::{Storage, Tensor};

fn check_index(x_shape: &[usize], index: isize) -> Result<usize> {
    let n = *x_shape.first().ok_or_else(|| {
        Error::invalid(
            "Index out of range using input dim 0; input has only 0 dims [Op:StridedSlice]",
        )
    })? as isize;
    let i = if index < 0 { index + n } else { index };
    if i < 0 || i >= n {
        return Err(Error::invalid(format!(
            "slice index {index} of dimension 0 out of bounds. [Op:StridedSlice]"
        )));
    }
    Ok(i as usize)
}

/// `x[index]`: the sub-tensor at `index` along axis 0 (negative counts from the end).
pub fn index_first(x: &Tensor, index: isize) -> Result<Tensor> {
    let i = check_index(x.shape(), index)?;
    let s = slice_ranges(x, &[(i, 1)])?;
    ops::reshape(
        &s,
        &x.shape()[1..]
            .iter()
            .map(|&d| d as isize)
            .collect::<Vec<_>>(),
    )
}

describe_attr_op!(SliceOp { ranges: Vec<(usize, usize)> }, "Slice", |op, [x]| slice_ranges(x, &op.ranges));
describe_attr_op!(Pad { paddings: Vec<(usize, usize)>, value: f64 }, "Pad", |op, [x]| pad(x, &op.paddings, op.value));
/// The description of `GatherV2` with its attributes; `sparse` is the
/// indices' dtype when the gradient stays sparse (`tf.gather` along axis 0).
pub(crate) struct GatherV2 {
    axis: usize,
    idx: Arc<Vec<usize>>,
    n: usize,
    /// The tensor `idx` was read from (see [`take_with`]).
    from: Option<Tensor>,
    /// Whether the gradient stays sparse (`tf.gather` along axis 0).
    sparse: bool,
}

impl crate::op::Op for GatherV2 {
    fn name(&self) -> &'static str {
        "GatherV2"
    }

    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let [x] = super::args("GatherV2", inputs)?;
        Ok(vec![take_with(
            x,
            self.axis,
            self.idx.clone(),
            self.from.as_ref(),
            self.sparse,
        )?])
    }

    fn sparse_rows(&self) -> Option<crate::op::SparseRows> {
        let from = self.from.as_ref()?;
        (self.sparse && self.axis == 0).then(|| crate::op::SparseRows {
            idx: self.idx.clone(),
            n: self.n,
            index_dtype: from.dtype(),
            source: Some(from.clone()),
        })
    }
}
describe_attr_op!(
    ScatterAdd { axis: usize, idx: Arc<Vec<usize>>, n: usize },
    "ScatterAdd",
    |op, [x]| scatter_add(x, op.axis, op.idx.clone(), op.n)
);

/// Contiguous sub-block: along axis `k`, `len` elements from `start`
/// (`ranges` may be shorter than the rank; missing axes are taken whole).
pub fn slice_ranges(x: &Tensor, ranges: &[(usize, usize)]) -> Result<Tensor> {
    if ranges.len() > x.rank() {
        return Err(Error::invalid(format!(
            "slice has {} ranges for a tensor of rank {}",
            ranges.len(),
            x.rank()
        )));
    }
    for (k, &(s, l)) in ranges.iter().enumerate() {
        if s.checked_add(l).is_none_or(|e| e > x.shape()[k]) {
            return Err(Error::invalid(format!(
                "Expected size[{k}] in [0, {}], but got {l} [Op:Slice]",
                x.shape()[k].saturating_sub(s)
            )));
        }
    }
    let out = Tensor::from_storage(map_storage!(x.storage(), a => {
        let mut v = a.view();
        for (k, &(s, l)) in ranges.iter().enumerate() {
            v.slice_axis_inplace(Axis(k), Slice::from(s..s + l));
        }
        v.to_owned().into_shared()
    }));
    let op = SliceOp {
        ranges: ranges.to_vec(),
    };
    record(op, &[x], &[&out], || {
        let shape = x.shape().to_vec();
        let pads: Vec<(usize, usize)> = (0..shape.len())
            .map(|k| match ranges.get(k) {
                Some(&(s, l)) => (s, shape[k] - s - l),
                None => (0, 0),
            })
            .collect();
        rule(move |g, _| Ok(vec![Some(pad(&g[0], &pads, 0.0)?)]))
    });
    Ok(out)
}

/// Pads with `value`: `paddings[k] = (before, after)` for each axis.
pub fn pad(x: &Tensor, paddings: &[(usize, usize)], value: f64) -> Result<Tensor> {
    if paddings.len() != x.rank() {
        return Err(Error::invalid(format!(
            "The first dimension of paddings must be the rank of inputs[{},2] {} [Op:Pad]",
            paddings.len(),
            ShapeDisplay::of(x.shape())
        )));
    }
    let shape: Vec<usize> = x
        .shape()
        .iter()
        .zip(paddings)
        .map(|(&d, &(b, a))| d.saturating_add(b).saturating_add(a))
        .collect();
    crate::tensor::check_alloc(&shape, x.dtype())?;
    fn fill<T: Clone>(
        a: &ArcArray<T, IxDyn>,
        shape: &[usize],
        pads: &[(usize, usize)],
        v: T,
    ) -> ArcArray<T, IxDyn> {
        let mut out = ArrayD::from_elem(IxDyn(shape), v);
        let mut view = out.view_mut();
        for (k, &(b, _)) in pads.iter().enumerate() {
            view.slice_axis_inplace(Axis(k), Slice::from(b..b + a.shape()[k]));
        }
        view.assign(a);
        out.into_shared()
    }
    let v = crate::dtype::Num::Float(value);
    let out = Tensor::from_storage(crate::map_storage!(x.storage(), a => {
        fill(a, &shape, paddings, crate::dtype::Scalar::from_num(v))
    }));
    let op = Pad {
        paddings: paddings.to_vec(),
        value,
    };
    record(op, &[x], &[&out], || {
        let ranges: Vec<(usize, usize)> = paddings
            .iter()
            .zip(x.shape())
            .map(|(&(b, _), &d)| (b, d))
            .collect();
        rule(move |g, _| Ok(vec![Some(slice_ranges(&g[0], &ranges)?)]))
    });
    Ok(out)
}

/// Takes positions `idx` along `axis` (repeats allowed).
pub fn take(x: &Tensor, axis: usize, idx: Arc<Vec<usize>>) -> Result<Tensor> {
    take_with(x, axis, idx, None, false)
}

/// [`take`] of the positions the integer tensor `from` holds, when there is
/// one (`idx` are its values): the gradient's recorded pieces read them from
/// `from`, so a traced step reads each call's positions (a forward piece of
/// an op the trace records whole, e.g. with `ops::traced_positions`).
pub(crate) fn take_from(
    x: &Tensor,
    axis: usize,
    idx: Arc<Vec<usize>>,
    from: Option<&Tensor>,
) -> Result<Tensor> {
    take_with(x, axis, idx, from, false)
}

/// [`take_from`] for a gradient rule: with `from`, a trace records one op
/// reading `from` (so a replay takes that call's positions) instead of the
/// positions this call took.
pub(crate) fn take_traced(
    x: &Tensor,
    axis: usize,
    idx: Arc<Vec<usize>>,
    from: Option<&Tensor>,
) -> Result<Tensor> {
    let out = take_from(x, axis, idx, from)?;
    if let Some(f) = from {
        let n = x.shape()[axis];
        super::trace_data_dependent("GatherV2", &[x, f], &[f], &out, move |i| {
            let idx = index_values(&i[1], n, "GatherV2")?;
            take(&i[0], axis, Arc::new(idx))
        });
    }
    Ok(out)
}

/// [`take_from`]; `sparse`: along axis 0 the backward pass keeps the
/// gradient sparse ([`crate::op::Op::sparse_rows`]: `tf.gather`'s rows of
/// the user's index tensor `from`).
fn take_with(
    x: &Tensor,
    axis: usize,
    idx: Arc<Vec<usize>>,
    from: Option<&Tensor>,
    sparse: bool,
) -> Result<Tensor> {
    if axis >= x.rank() {
        return Err(Error::invalid(format!(
            "take: axis {axis} out of range for rank {}",
            x.rank()
        )));
    }
    let n = x.shape()[axis];
    if let Some(&bad) = idx.iter().find(|&&i| i >= n) {
        return Err(Error::invalid(format!(
            "indices = {bad} is not in [0, {n}) [Op:GatherV2]"
        )));
    }
    let mut shape = x.shape().to_vec();
    shape[axis] = idx.len();
    crate::tensor::check_alloc(&shape, x.dtype())?;
    let out = Tensor::from_storage(
        map_storage!(x.storage(), a => a.select(Axis(axis), &idx).into_shared()),
    );
    let from = from.cloned();
    let op = GatherV2 {
        axis,
        idx: idx.clone(),
        n,
        from: from.clone(),
        sparse,
    };
    record(op, &[x], &[&out], || {
        let idx = idx.clone();
        rule(move |g, _| {
            let back = scatter_add_from(&g[0], axis, idx.clone(), n, from.as_ref())?;
            Ok(vec![Some(back)])
        })
    });
    Ok(out)
}

/// [`scatter_add`] of rows `idx` read from the index tensor `from`, when
/// known: a trace then records one op reading `from` (so a replay scatters
/// that call's rows) instead of the rows this call read.
pub(crate) fn scatter_add_from(
    x: &Tensor,
    axis: usize,
    idx: Arc<Vec<usize>>,
    n: usize,
    from: Option<&Tensor>,
) -> Result<Tensor> {
    let out = scatter_add_with(x, axis, idx, n, from)?;
    if let Some(f) = from {
        super::trace_data_dependent("ScatterAdd", &[x, f], &[f], &out, move |i| {
            let idx = index_values(&i[1], n, "ScatterAdd")?;
            scatter_add(&i[0], axis, Arc::new(idx), n)
        });
    }
    Ok(out)
}

/// The gradient of [`take`]: a tensor with `n` positions along `axis`, where
/// slice `k` of `x` is added at position `idx[k]`.
pub fn scatter_add(x: &Tensor, axis: usize, idx: Arc<Vec<usize>>, n: usize) -> Result<Tensor> {
    scatter_add_with(x, axis, idx, n, None)
}

/// [`scatter_add`] at the positions the integer tensor `from` holds, when
/// there is one (`idx` are its values): the gradient's recorded pieces read
/// them from `from` (as [`take_from`]).
pub(crate) fn scatter_add_with(
    x: &Tensor,
    axis: usize,
    idx: Arc<Vec<usize>>,
    n: usize,
    from: Option<&Tensor>,
) -> Result<Tensor> {
    if axis >= x.rank() || x.shape()[axis] != idx.len() {
        return Err(Error::invalid(format!(
            "scatter_add: {} indices for axis {axis} of shape {}",
            idx.len(),
            ShapeDisplay::of(x.shape())
        )));
    }
    if let Some(&bad) = idx.iter().find(|&&i| i >= n) {
        return Err(Error::invalid(format!(
            "scatter_add: index {bad} is not in [0, {n})"
        )));
    }
    let mut shape = x.shape().to_vec();
    shape[axis] = n;
    // Each add in the element type, in index order: integers wrap, float16/
    // bfloat16 round after every add (as TF's CPU scatter and segment kernels).
    fn scatter<T: Copy + num_traits::Zero>(
        a: &ArcArray<T, IxDyn>,
        shape: &[usize],
        axis: usize,
        idx: &[usize],
        add: impl Fn(T, T) -> T,
    ) -> ArcArray<T, IxDyn> {
        let mut out = ArrayD::<T>::zeros(IxDyn(shape));
        for (k, &i) in idx.iter().enumerate() {
            let mut dst = out.index_axis_mut(Axis(axis), i);
            dst.zip_mut_with(&a.index_axis(Axis(axis), k), |d, &v| *d = add(*d, v));
        }
        out.into_shared()
    }
    use super::arith::Arith;
    macro_rules! arms {
        ($($v:ident),*) => {
            match x.storage() {
                $(Storage::$v(a) => Storage::$v(scatter(a, &shape, axis, &idx, Arith::add)),)*
                Storage::F16(a) => Storage::F16(scatter(a, &shape, axis, &idx, |d, v| d + v)),
                Storage::BF16(a) => Storage::BF16(scatter(a, &shape, axis, &idx, |d, v| d + v)),
                _ => {
                    return Err(Error::UnsupportedDType {
                        op: "ScatterAdd",
                        dtype: x.dtype(),
                        allowed: "numeric",
                    })
                }
            }
        };
    }
    let out = Tensor::from_storage(arms!(
        F32, F64, I32, I64, I8, I16, U8, U16, U32, U64, C64, C128
    ));
    let op = ScatterAdd {
        axis,
        idx: idx.clone(),
        n,
    };
    let from = from.cloned();
    record(op, &[x], &[&out], || {
        let idx = idx.clone();
        rule(move |g, _| {
            let back = take_traced(&g[0], axis, idx.clone(), from.as_ref())?;
            Ok(vec![Some(back)])
        })
    });
    Ok(out)
}

/// Integer index values of a tensor, range-checked against `n` (negative
/// values are errors, as in TF's CPU kernels).
fn index_values(indices: &Tensor, n: usize, op: &'static str) -> Result<Vec<usize>> {
    let vals: Vec<i64> = match indices.storage() {
        Storage::I32(a) => a.iter().map(|&v| v as i64).collect(),
        Storage::I64(a) => a.iter().copied().collect(),
        _ => {
            return Err(Error::UnsupportedDType {
                op,
                dtype: indices.dtype(),
                allowed: "int32, int64 (indices)",
            })
        }
    };
    vals.iter()
        .enumerate()
        .map(|(k, &v)| {
            if v < 0 || v as usize >= n {
                Err(Error::invalid(format!(
                    "indices[{k}] = {v} is not in [0, {n}) [Op:{op}]"
                )))
            } else {
                Ok(v as usize)
            }
        })
        .collect()
}

/// `tf.gather(params, indices, axis, batch_dims)`.
pub fn gather(params: &Tensor, indices: &Tensor, axis: isize, batch_dims: isize) -> Result<Tensor> {
    let out = gather_eager(params, indices, axis, batch_dims)?;
    // The recorded pieces read their rows from `indices` (`take_with`'s
    // `from`), or from positions computed from it, so a trace needs no guard
    // even while a tape records.
    super::trace_only("GatherV2", &[params, indices], &out, move |i| {
        gather(&i[0], &i[1], axis, batch_dims)
    });
    Ok(out)
}

fn gather_eager(
    params: &Tensor,
    indices: &Tensor,
    axis: isize,
    batch_dims: isize,
) -> Result<Tensor> {
    let rank = params.rank();
    let bd = if batch_dims < 0 {
        batch_dims + indices.rank() as isize
    } else {
        batch_dims
    };
    if bd < 0 || bd as usize > indices.rank() || bd as usize > rank {
        return Err(Error::invalid(format!(
            "batch_dims = {batch_dims} is out of range [Op:GatherV2]"
        )));
    }
    let bd = bd as usize;
    let ax = normalize_axis(axis, rank).map_err(|_| {
        Error::invalid(format!(
            "Expected axis in the range [{}, {rank}), but got {axis} [Op:GatherV2]",
            -(rank as isize)
        ))
    })?;
    if ax < bd {
        return Err(Error::invalid(format!(
            "batch_dims ({bd}) must be less than or equal to axis ({ax}) [Op:GatherV2]"
        )));
    }
    if params.shape()[..bd] != indices.shape()[..bd] {
        return Err(Error::IncompatibleShapes {
            op: "GatherV2",
            lhs: ShapeDisplay::of(params.shape()),
            rhs: ShapeDisplay::of(indices.shape()),
        });
    }
    let n = params.shape()[ax];
    let vals = index_values(indices, n, "GatherV2")?;
    let out_shape: Vec<isize> = params.shape()[..ax]
        .iter()
        .chain(&indices.shape()[bd..])
        .chain(&params.shape()[ax + 1..])
        .map(|&d| d as isize)
        .collect();
    if bd == 0 {
        // Along axis 0 the gradient is TensorFlow's IndexedSlices.
        let taken = take_with(params, ax, Arc::new(vals), Some(indices), true)?;
        return ops::reshape(&taken, &out_shape);
    }
    // Batched: fold the batch dims into the gathered axis with offsets.
    let b: usize = params.shape()[..bd].iter().product();
    let mid: usize = params.shape()[bd..ax].iter().product();
    let rest: usize = params.shape()[ax + 1..].iter().product();
    let per_batch = vals.len() / b.max(1);
    // params -> [b, mid, n, rest] -> [mid, b*n, rest] so batch b's rows are b*n..(b+1)*n.
    let p4 = ops::reshape(
        params,
        &[b as isize, mid as isize, n as isize, rest as isize],
    )?;
    let p3 = ops::reshape(
        &ops::transpose(&p4, Some(&[1, 0, 2, 3]))?,
        &[mid as isize, (b * n) as isize, rest as isize],
    )?;
    let batched = move |vals: &[usize]| -> Vec<usize> {
        vals.iter()
            .enumerate()
            .map(|(k, &v)| (k / per_batch.max(1)) * n + v)
            .collect()
    };
    let flat = batched(&vals);
    let from = super::traced_positions("GatherV2", &[indices], &flat, move |i| {
        Ok(batched(&index_values(&i[0], n, "GatherV2")?))
    });
    let g = take_from(&p3, 1, Arc::new(flat), from.as_ref())?; // [mid, b*k, rest]
    let g4 = ops::reshape(
        &g,
        &[mid as isize, b as isize, per_batch as isize, rest as isize],
    )?;
    let g4 = ops::transpose(&g4, Some(&[1, 0, 2, 3]))?; // [b, mid, k, rest]
    ops::reshape(&g4, &out_shape)
}

/// `tf.gather_nd(params, indices)`: the last axis of `indices` indexes the
/// leading axes of `params`.
pub fn gather_nd(params: &Tensor, indices: &Tensor) -> Result<Tensor> {
    let out = gather_nd_eager(params, indices)?;
    // The recorded pieces read their rows from positions computed from
    // `indices`: no guard while a tape records.
    super::trace_only("GatherNd", &[params, indices], &out, move |i| {
        gather_nd(&i[0], &i[1])
    });
    Ok(out)
}

fn gather_nd_eager(params: &Tensor, indices: &Tensor) -> Result<Tensor> {
    let (flat, r) = gather_nd_rows(params.shape(), indices)?;
    let total: usize = params.shape()[..r].iter().product();
    let pshape = params.shape().to_vec();
    let from = super::traced_positions("GatherNd", &[indices], &flat, move |i| {
        Ok(gather_nd_rows(&pshape, &i[0])?.0)
    });
    let mut flat_shape: Vec<isize> = vec![total as isize];
    flat_shape.extend(params.shape()[r..].iter().map(|&d| d as isize));
    let p = ops::reshape(params, &flat_shape)?;
    let taken = take_from(&p, 0, Arc::new(flat), from.as_ref())?;
    let out_shape: Vec<isize> = indices.shape()[..indices.rank() - 1]
        .iter()
        .chain(&params.shape()[r..])
        .map(|&d| d as isize)
        .collect();
    ops::reshape(&taken, &out_shape)
}

/// The rows of `params` (of `shape`, its leading `r` dims folded into one)
/// that `tf.gather_nd`'s index rows address, and `r`.
fn gather_nd_rows(shape: &[usize], indices: &Tensor) -> Result<(Vec<usize>, usize)> {
    let r = *indices
        .shape()
        .last()
        .ok_or_else(|| Error::invalid("indices must have rank >= 1 [Op:GatherNd]"))?;
    if r > shape.len() {
        return Err(Error::invalid(format!(
            "index innermost dimension length must be <= params rank; saw: {r} vs. {} [Op:GatherNd]",
            shape.len()
        )));
    }
    let lead = &shape[..r];
    let raw: Vec<i64> = match indices.storage() {
        Storage::I32(a) => a.iter().map(|&v| v as i64).collect(),
        Storage::I64(a) => a.iter().copied().collect(),
        _ => {
            return Err(Error::UnsupportedDType {
                op: "GatherNd",
                dtype: indices.dtype(),
                allowed: "int32, int64 (indices)",
            })
        }
    };
    // One row per index tuple (an empty tuple addresses the whole tensor).
    let tuples: usize = indices.shape()[..indices.rank() - 1].iter().product();
    let mut flat = Vec::with_capacity(tuples);
    for k in 0..tuples {
        let chunk = &raw[k * r..(k + 1) * r];
        let mut off = 0usize;
        for (j, &v) in chunk.iter().enumerate() {
            if v < 0 || v as usize >= lead[j] {
                return Err(Error::invalid(format!(
                    "indices[{k}] = [{}] does not index into param shape {} [Op:GatherNd]",
                    chunk
                        .iter()
                        .map(|v| v.to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    ShapeDisplay::of(shape)
                )));
            }
            off = off * lead[j] + v as usize;
        }
        flat.push(off);
    }
    Ok((flat, r))
}

/// One item of a NumPy/TF-style index expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SliceItem {
    /// A single position (drops the axis).
    Index(isize),
    /// `start:stop:step` with Python's semantics (step != 0).
    Range {
        /// First position (`None`: from the start, or the end for negative steps).
        start: Option<isize>,
        /// Stop position, exclusive.
        stop: Option<isize>,
        /// Step; negative walks backwards.
        step: isize,
    },
    /// `newaxis`: inserts an axis of size 1.
    NewAxis,
    /// `...`: as many full ranges as needed.
    Ellipsis,
}

/// Python's `slice.indices`: the positions a range selects in an axis of size `n`.
fn range_positions(start: Option<isize>, stop: Option<isize>, step: isize, n: usize) -> Vec<usize> {
    let n = n as isize;
    let clamp = |v: isize, lo: isize, hi: isize| v.max(lo).min(hi);
    let norm = |v: isize| if v < 0 { v + n } else { v };
    let mut out = Vec::new();
    if step > 0 {
        let s = start.map_or(0, |v| clamp(norm(v), 0, n));
        let e = stop.map_or(n, |v| clamp(norm(v), 0, n));
        let mut i = s;
        while i < e {
            out.push(i as usize);
            i += step;
        }
    } else {
        let s = start.map_or(n - 1, |v| clamp(norm(v), -1, n - 1));
        let e = stop.map_or(-1, |v| clamp(norm(v), -1, n - 1));
        let mut i = s;
        while i > e {
            out.push(i as usize);
            i += step;
        }
    }
    out
}

/// `x[items]` with NumPy basic-indexing semantics (ints, slices with steps,
/// `newaxis`, one ellipsis), differentiable.
pub fn strided_slice(x: &Tensor, items: &[SliceItem]) -> Result<Tensor> {
    if items
        .iter()
        .any(|i| matches!(i, SliceItem::Range { step: 0, .. }))
    {
        return Err(Error::invalid(
            "slice step cannot be zero [Op:StridedSlice]",
        ));
    }
    let consumed = items
        .iter()
        .filter(|i| matches!(i, SliceItem::Index(_) | SliceItem::Range { .. }))
        .count();
    let ellipses = items
        .iter()
        .filter(|i| matches!(i, SliceItem::Ellipsis))
        .count();
    if ellipses > 1 {
        return Err(Error::invalid(
            "an index can only have a single ellipsis ('...')",
        ));
    }
    if consumed > x.rank() {
        return Err(Error::invalid(format!(
            "Index out of range using input dim {}; input has only {} dims [Op:StridedSlice]",
            x.rank(),
            x.rank()
        )));
    }
    // Expand the ellipsis (or pad at the end) with full ranges.
    let full = SliceItem::Range {
        start: None,
        stop: None,
        step: 1,
    };
    let mut expanded = Vec::new();
    for it in items {
        if *it == SliceItem::Ellipsis {
            expanded.extend(std::iter::repeat_n(full, x.rank() - consumed));
        } else {
            expanded.push(*it);
        }
    }
    if ellipses == 0 {
        expanded.extend(std::iter::repeat_n(full, x.rank() - consumed));
    }
    let mut t = x.clone();
    let mut axis = 0usize;
    let mut out_shape: Vec<isize> = Vec::new();
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let mut takes: Vec<(usize, Vec<usize>)> = Vec::new();
    for it in &expanded {
        match *it {
            SliceItem::NewAxis => out_shape.push(1),
            SliceItem::Ellipsis => unreachable!("expanded above"),
            SliceItem::Index(i) => {
                let n = x.shape()[axis];
                let j = if i < 0 { i + n as isize } else { i };
                if j < 0 || j >= n as isize {
                    return Err(Error::invalid(format!(
                        "slice index {i} of dimension {axis} out of bounds. [Op:StridedSlice]"
                    )));
                }
                ranges.push((j as usize, 1));
                axis += 1;
            }
            SliceItem::Range { start, stop, step } => {
                let n = x.shape()[axis];
                let pos = range_positions(start, stop, step, n);
                out_shape.push(pos.len() as isize);
                let contiguous = step == 1;
                if contiguous {
                    ranges.push((pos.first().copied().unwrap_or(0), pos.len()));
                } else {
                    ranges.push((0, n));
                    takes.push((axis, pos));
                }
                axis += 1;
            }
        }
    }
    if ranges
        .iter()
        .zip(x.shape())
        .any(|(&(s, l), &d)| s != 0 || l != d)
    {
        t = slice_ranges(&t, &ranges)?;
    }
    for (ax, pos) in takes {
        t = take(&t, ax, Arc::new(pos))?;
    }
    ops::reshape(&t, &out_shape)
}
