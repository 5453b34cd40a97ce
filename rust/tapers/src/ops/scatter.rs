//! Rearrangements and scatters: `roll`, `reverse`, `repeat`, `boolean_mask`,
//! `scatter_nd`, `tensor_scatter_nd_update/add`.
//!
//! Each is written with the differentiable `slice`/`concat`/`take`/
//! `scatter_add`/`where` ops, so gradients (TF's: the inverse permutation,
//! the sum over repeats, the gathered slices) and higher derivatives come
//! from theirs.

use std::sync::Arc;

use crate::dims::ShapeDisplay;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops;
use crate::shape::normalize_axis;
use crate::tensor::{Storage, Tensor};

fn as_shape(d: &[usize]) -> Vec<isize> {
    d.iter().map(|&v| v as isize).collect()
}

/// `tf.roll(input, shift, axis)`: elements shifted along each axis, wrapping
/// around (shifts of one axis named twice add up).
pub fn roll(x: &Tensor, shift: &[i64], axis: &[isize]) -> Result<Tensor> {
    if shift.len() != axis.len() {
        return Err(Error::invalid(
            "shift and axis must have the same size [Op:Roll]",
        ));
    }
    let rank = x.rank();
    let mut total = vec![0i64; rank];
    for (&s, &a) in shift.iter().zip(axis) {
        let ax = normalize_axis(a, rank)
            .map_err(|_| Error::invalid(format!("axis {a} is out of range [Op:Roll]")))?;
        total[ax] = total[ax].wrapping_add(s);
    }
    // Always a new tensor (TF's Roll is an op even when nothing moves).
    let mut out = ops::identity(x);
    for (ax, &s) in total.iter().enumerate() {
        let n = x.shape()[ax] as i64;
        if n == 0 {
            continue;
        }
        let s = s.rem_euclid(n) as usize;
        if s == 0 {
            continue;
        }
        let n = n as usize;
        let mut head = vec![(0, 0); ax + 1];
        let mut tail = head.clone();
        for (k, d) in x.shape()[..ax].iter().enumerate() {
            head[k] = (0, *d);
            tail[k] = (0, *d);
        }
        head[ax] = (n - s, s);
        tail[ax] = (0, n - s);
        out = ops::concat(
            &[
                ops::slice_ranges(&out, &head)?,
                ops::slice_ranges(&out, &tail)?,
            ],
            ax as isize,
        )?;
    }
    Ok(out)
}

/// `tf.reverse(tensor, axis)`: the order of each listed axis reversed.
pub fn reverse(x: &Tensor, axis: &[isize]) -> Result<Tensor> {
    let rank = x.rank();
    let mut seen = vec![false; rank];
    for (i, &a) in axis.iter().enumerate() {
        let ax = normalize_axis(a, rank).map_err(|_| {
            Error::invalid(format!(
                "'axis'[{i}] = {a} is out of valid range [0, {} [Op:ReverseV2]",
                rank.saturating_sub(1)
            ))
        })?;
        if std::mem::replace(&mut seen[ax], true) {
            return Err(Error::invalid(format!(
                "axis {ax} specified more than once. [Op:ReverseV2]"
            )));
        }
    }
    let mut out = ops::identity(x);
    for (ax, _) in seen.iter().enumerate().filter(|(_, &s)| s) {
        let n = x.shape()[ax];
        if n > 1 {
            out = ops::take(&out, ax, Arc::new((0..n).rev().collect()))?;
        }
    }
    Ok(out)
}

/// `tf.repeat(input, repeats, axis)`: each element (slice along `axis`; of
/// the flattened input when `axis` is None) repeated `repeats[i]` times
/// (one count for all, or one per element).
pub fn repeat(x: &Tensor, repeats: &[i64], axis: Option<isize>) -> Result<Tensor> {
    let (x, ax) = match axis {
        None => (ops::reshape(x, &[-1])?, 0),
        Some(a) => {
            let rank = x.rank();
            let ax = normalize_axis(a, rank).map_err(|_| {
                Error::invalid(format!(
                    "axis={a} out of bounds: expected {}<=axis<{rank}",
                    -(rank as isize)
                ))
            })?;
            (x.clone(), ax)
        }
    };
    let n = x.shape()[ax];
    if repeats.len() != 1 && repeats.len() != n {
        return Err(Error::invalid(format!(
            "Dimensions {n} and {} are not compatible",
            repeats.len()
        )));
    }
    if let Some(&bad) = repeats.iter().find(|&&r| r < 0) {
        return Err(Error::invalid(format!(
            "repeats must be non-negative, got {bad} [Op:Repeat]"
        )));
    }
    let count = |i: usize| repeats[if repeats.len() == 1 { 0 } else { i }] as usize;
    let total = (0..n).try_fold(0usize, |t, i| t.checked_add(count(i)));
    let mut shape = x.shape().to_vec();
    shape[ax] = total.unwrap_or(usize::MAX);
    crate::tensor::check_alloc(&shape, x.dtype())?;
    let idx: Vec<usize> = (0..n)
        .flat_map(|i| std::iter::repeat_n(i, count(i)))
        .collect();
    ops::take(&x, ax, Arc::new(idx))
}

/// `tf.boolean_mask(tensor, mask, axis)`: the entries of `tensor` where the
/// k-D `mask` is true, its dims matching `tensor.shape[axis:axis + k]`,
/// which the result flattens into one.
pub fn boolean_mask(x: &Tensor, mask: &Tensor, axis: isize) -> Result<Tensor> {
    let out = boolean_mask_eager(x, mask, axis)?;
    // The recorded pieces read the kept positions from a tensor computed
    // from `mask`: no guard while a tape records.
    super::trace_only_sized_by_values("BooleanMask", &[x, mask], &out, move |i| {
        boolean_mask(&i[0], &i[1], axis)
    });
    Ok(out)
}

fn boolean_mask_eager(x: &Tensor, mask: &Tensor, axis: isize) -> Result<Tensor> {
    let k = mask.rank();
    if k == 0 {
        return Err(Error::invalid("mask cannot be scalar."));
    }
    let rank = x.rank();
    let ax = if axis < 0 { axis + rank as isize } else { axis };
    if ax < 0 || ax as usize + k > rank {
        return Err(Error::invalid(format!(
            "Shapes {} and {} are incompatible",
            ShapeDisplay::of(&x.shape()[(ax.max(0) as usize).min(rank)..]),
            ShapeDisplay::of(mask.shape())
        )));
    }
    let ax = ax as usize;
    if x.shape()[ax..ax + k] != *mask.shape() {
        return Err(Error::invalid(format!(
            "Shapes {} and {} are incompatible",
            ShapeDisplay::of(&x.shape()[ax..ax + k]),
            ShapeDisplay::of(mask.shape())
        )));
    }
    let keep = mask_positions(mask)?;
    let from = super::traced_positions("BooleanMask", &[mask], &keep, |i| mask_positions(&i[0]));
    let flat: Vec<isize> = x.shape()[..ax]
        .iter()
        .map(|&d| d as isize)
        .chain([-1])
        .chain(x.shape()[ax + k..].iter().map(|&d| d as isize))
        .collect();
    // A zero-sized dim elsewhere makes -1 ambiguous: spell the product out.
    let mut flat = flat;
    flat[ax] = mask.numel() as isize;
    let folded = ops::reshape(x, &flat)?;
    ops::take_from(&folded, ax, Arc::new(keep), from.as_ref())
}

/// The row-major positions of `mask`'s true (for numbers, nonzero) entries.
fn mask_positions(mask: &Tensor) -> Result<Vec<usize>> {
    let true_at = |(i, b): (usize, bool)| b.then_some(i);
    Ok(match mask.storage() {
        Storage::Bool(m) => m.iter().copied().enumerate().filter_map(true_at).collect(),
        _ => ops::cast(mask, DType::Bool)?
            .to_vec::<bool>()?
            .into_iter()
            .enumerate()
            .filter_map(true_at)
            .collect(),
    })
}

/// Row offsets of `indices` (`[..., r]`) into a tensor of `shape`, and the
/// slice shape `shape[r:]` each addresses; `op` names the op in errors.
fn nd_offsets(indices: &Tensor, shape: &[usize], op: &'static str) -> Result<(Vec<usize>, usize)> {
    let raw: Vec<i64> = match indices.storage() {
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
    let r = *indices
        .shape()
        .last()
        .ok_or_else(|| Error::invalid(format!("indices must have rank >= 1 [Op:{op}]")))?;
    if r > shape.len() {
        return Err(Error::invalid(format!(
            "Output must be at least {r} dimensional, got shape {} [Op:{op}]",
            ShapeDisplay::of(shape)
        )));
    }
    let lead = &shape[..r];
    let tuples: usize = indices.shape()[..indices.rank() - 1].iter().product();
    let mut offsets = Vec::with_capacity(tuples);
    for k in 0..tuples {
        let chunk = &raw[k * r..(k + 1) * r];
        let mut off = 0usize;
        for (j, &v) in chunk.iter().enumerate() {
            if v < 0 || v as usize >= lead[j] {
                return Err(Error::invalid(format!(
                    "indices[{k}] = [{}] does not index into shape {} [Op:{op}]",
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
        offsets.push(off);
    }
    Ok((offsets, r))
}

/// [`nd_offsets`] as a tensor a trace computes again from `indices`
/// ([`super::traced_positions`]).
fn traced_offsets(
    indices: &Tensor,
    shape: &[usize],
    op: &'static str,
    offsets: &[usize],
) -> Option<Tensor> {
    let shape = shape.to_vec();
    super::traced_positions(op, &[indices], offsets, move |i| {
        Ok(nd_offsets(&i[0], &shape, op)?.0)
    })
}

/// A shape as TF's kernels print it: `[2,1]`.
fn compact(d: &[usize]) -> String {
    let parts: Vec<String> = d.iter().map(|v| v.to_string()).collect();
    format!("[{}]", parts.join(","))
}

/// Checks `updates`' shape: `indices.shape[:-1] + shape[r:]` (TF's messages).
fn check_updates(
    indices: &Tensor,
    updates: &Tensor,
    shape: &[usize],
    r: usize,
    op: &'static str,
) -> Result<()> {
    let outer = &indices.shape()[..indices.rank() - 1];
    let want: Vec<usize> = outer.iter().chain(&shape[r..]).copied().collect();
    if updates.shape() == want.as_slice() {
        return Ok(());
    }
    let n = outer.len();
    let outer_ok = updates.rank() >= n && updates.shape()[..n] == *outer;
    Err(Error::invalid(if op != "ScatterNd" && !outer_ok {
        format!(
            "Outer dimensions of indices and update must match. Indices shape: {}, updates shape:{} [Op:{op}]",
            compact(indices.shape()),
            compact(updates.shape())
        )
    } else if !outer_ok {
        format!(
            "Dimensions [0,{n}) of indices[shape={}] must match dimensions [0,{n}) of updates[shape={}] [Op:{op}]",
            compact(indices.shape()),
            compact(updates.shape())
        )
    } else {
        format!(
            "updates must have shape {} (indices.shape[:-1] + shape[{r}:]), got {} [Op:{op}]",
            compact(&want),
            compact(updates.shape())
        )
    }))
}

/// `updates` as `[tuples, *slice]` rows, scattered (added) into `shape`;
/// `from`: the offsets as a tensor a trace recomputes
/// ([`super::traced_positions`]), which the recorded pieces read.
fn scatter_rows(
    updates: &Tensor,
    offsets: Vec<usize>,
    shape: &[usize],
    r: usize,
    from: Option<&Tensor>,
) -> Result<Tensor> {
    let rows: usize = shape[..r].iter().product();
    let slice = &shape[r..];
    let mut ushape: Vec<isize> = vec![offsets.len() as isize];
    ushape.extend(as_shape(slice));
    let u = ops::reshape(updates, &ushape)?;
    let s = ops::scatter_add_with(&u, 0, Arc::new(offsets), rows, from)?;
    ops::reshape(&s, &as_shape(shape))
}

/// `tf.scatter_nd(indices, updates, shape)`: a zero tensor of `shape` with
/// `updates` added at `indices` (repeated indices add up). Differentiable in
/// `updates` (the gradient gathers).
pub fn scatter_nd(indices: &Tensor, updates: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let out = scatter_nd_eager(indices, updates, shape)?;
    let shape = shape.to_vec();
    // The recorded pieces read the offsets from a tensor computed from
    // `indices`: no guard while a tape records.
    super::trace_only("ScatterNd", &[indices, updates], &out, move |i| {
        scatter_nd(&i[0], &i[1], &shape)
    });
    Ok(out)
}

fn scatter_nd_eager(indices: &Tensor, updates: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let op = "ScatterNd";
    crate::tensor::check_alloc(shape, updates.dtype())?;
    let (offsets, r) = nd_offsets(indices, shape, op)?;
    check_updates(indices, updates, shape, r, op)?;
    if updates.dtype() == DType::Bool {
        // Bool scatters are a logical OR (TF's ScatterNd on bool).
        let u = ops::cast(updates, DType::I32)?;
        let s = scatter_rows(&u, offsets, shape, r, None)?;
        return ops::not_equal(&s, &Tensor::scalar_of(DType::I32, 0.0));
    }
    let from = traced_offsets(indices, shape, op, &offsets);
    scatter_rows(updates, offsets, shape, r, from.as_ref())
}

/// `tf.tensor_scatter_nd_add(tensor, indices, updates)`: `tensor` with
/// `updates` added at `indices`.
pub fn tensor_scatter_nd_add(x: &Tensor, indices: &Tensor, updates: &Tensor) -> Result<Tensor> {
    let out = tensor_scatter_nd_add_eager(x, indices, updates)?;
    // As `scatter_nd`: no guard while a tape records.
    super::trace_only("TensorScatterAdd", &[x, indices, updates], &out, move |i| {
        tensor_scatter_nd_add(&i[0], &i[1], &i[2])
    });
    Ok(out)
}

fn tensor_scatter_nd_add_eager(x: &Tensor, indices: &Tensor, updates: &Tensor) -> Result<Tensor> {
    let op = "TensorScatterAdd";
    let (offsets, r) = nd_offsets(indices, x.shape(), op)?;
    check_updates(indices, updates, x.shape(), r, op)?;
    if x.dtype() != updates.dtype() {
        return Err(Error::DTypeMismatch {
            op,
            index: 2,
            expected: x.dtype(),
            actual: updates.dtype(),
        });
    }
    let from = traced_offsets(indices, x.shape(), op, &offsets);
    ops::add(
        x,
        &scatter_rows(updates, offsets, x.shape(), r, from.as_ref())?,
    )
}

/// `tf.tensor_scatter_nd_update(tensor, indices, updates)`: `tensor` with the
/// slices at `indices` replaced by `updates` (for a repeated index the last
/// update wins, as on TF's CPU). Differentiable in both: `tensor`'s gradient
/// is zero where it was replaced; each update gets the gradient of the
/// position it landed in (an overwritten duplicate gets 0, where TF gives
/// it that position's gradient too).
pub fn tensor_scatter_nd_update(x: &Tensor, indices: &Tensor, updates: &Tensor) -> Result<Tensor> {
    let out = tensor_scatter_nd_update_eager(x, indices, updates)?;
    // The recorded pieces read positions and the mask computed from
    // `indices`: no guard while a tape records.
    super::trace_only(
        "TensorScatterUpdate",
        &[x, indices, updates],
        &out,
        move |i| tensor_scatter_nd_update(&i[0], &i[1], &i[2]),
    );
    Ok(out)
}

/// Which updates land where: for each of `rows` positions hit by the
/// `offsets`, in position order, the last update to it (TF's CPU order) and
/// the position.
fn last_updates(offsets: &[usize], rows: usize) -> (Vec<usize>, Vec<usize>) {
    let mut last: Vec<Option<usize>> = vec![None; rows];
    for (k, &o) in offsets.iter().enumerate() {
        last[o] = Some(k);
    }
    let winners: Vec<usize> = last.iter().flatten().copied().collect();
    let targets = winners.iter().map(|&k| offsets[k]).collect();
    (winners, targets)
}

/// The elements of `shape` in the rows `targets` (of `shape[..r]`).
fn rows_hit(targets: &[usize], shape: &[usize], r: usize) -> Result<Tensor> {
    let rows: usize = shape[..r].iter().product();
    let per_row: usize = shape[r..].iter().product();
    let mut hit = vec![false; rows * per_row];
    for &t in targets {
        hit[t * per_row..(t + 1) * per_row].fill(true);
    }
    Tensor::from_vec(hit, shape)
}

fn tensor_scatter_nd_update_eager(
    x: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
) -> Result<Tensor> {
    let op = "TensorScatterUpdate";
    let (offsets, r) = nd_offsets(indices, x.shape(), op)?;
    check_updates(indices, updates, x.shape(), r, op)?;
    if x.dtype() != updates.dtype() {
        return Err(Error::DTypeMismatch {
            op,
            index: 2,
            expected: x.dtype(),
            actual: updates.dtype(),
        });
    }
    let rows: usize = x.shape()[..r].iter().product();
    let (winners, targets) = last_updates(&offsets, rows);
    // What the recorded pieces read, computed again from `indices` by a
    // trace (the counts change with the number of distinct positions).
    let shape = x.shape().to_vec();
    let plan = move |i: &[Tensor]| -> Result<(Vec<usize>, Vec<usize>)> {
        Ok(last_updates(&nd_offsets(&i[0], &shape, op)?.0, rows))
    };
    let (p1, p2) = (plan.clone(), plan.clone());
    let from_winners = super::traced_positions(op, &[indices], &winners, move |i| Ok(p1(i)?.0));
    let from_targets = super::traced_positions(op, &[indices], &targets, move |i| Ok(p2(i)?.1));
    let slice: Vec<usize> = x.shape()[r..].to_vec();
    let mut ushape: Vec<isize> = vec![offsets.len() as isize];
    ushape.extend(as_shape(&slice));
    let rows_u = ops::reshape(updates, &ushape)?;
    let u = ops::take_from(&rows_u, 0, Arc::new(winners), from_winners.as_ref())?;
    let placed = if x.dtype() == DType::Bool {
        let s = scatter_rows(
            &ops::cast(&u, DType::I32)?,
            targets.clone(),
            x.shape(),
            r,
            None,
        )?;
        ops::not_equal(&s, &Tensor::scalar_of(DType::I32, 0.0))?
    } else {
        scatter_rows(&u, targets.clone(), x.shape(), r, from_targets.as_ref())?
    };
    let mask = rows_hit(&targets, x.shape(), r)?;
    let shape = x.shape().to_vec();
    super::trace_only(op, &[indices], &mask, move |i| {
        rows_hit(&plan(i)?.1, &shape, r)
    });
    ops::where_(&mask, &placed, x)
}

/// `tf.pad` in `REFLECT` mode (`symmetric` false: the edge is not repeated,
/// each padding below the axis' size) or `SYMMETRIC` mode (the edge is
/// repeated, each padding at most the axis' size). A `take` per axis, so
/// its gradient adds the mirrored gradients back.
pub fn pad_mirror(x: &Tensor, paddings: &[(usize, usize)], symmetric: bool) -> Result<Tensor> {
    if paddings.len() != x.rank() {
        return Err(Error::invalid(format!(
            "The first dimension of paddings must be the rank of inputs[{},2] {} [Op:MirrorPad]",
            paddings.len(),
            ShapeDisplay::of(x.shape())
        )));
    }
    for (&(b, a), &n) in paddings.iter().zip(x.shape()) {
        let limit = if symmetric { n } else { n.saturating_sub(1) };
        if b > limit || a > limit {
            return Err(Error::invalid(if symmetric {
                format!("paddings must be no greater than the dimension size: {b}, {a} greater than {n} [Op:MirrorPad]")
            } else {
                format!("paddings must be less than the dimension size: {b}, {a} not less than {n} [Op:MirrorPad]")
            }));
        }
    }
    let shape: Vec<usize> = x
        .shape()
        .iter()
        .zip(paddings)
        .map(|(&d, &(b, a))| d + b + a)
        .collect();
    crate::tensor::check_alloc(&shape, x.dtype())?;
    let mut out = ops::identity(x);
    for (ax, (&(b, a), &n)) in paddings.iter().zip(x.shape()).enumerate() {
        if b == 0 && a == 0 {
            continue;
        }
        let (n, off) = (n as isize, if symmetric { 1 } else { 0 });
        let idx: Vec<usize> = (-(b as isize)..n + a as isize)
            .map(|i| {
                if i < 0 {
                    (-i - off) as usize
                } else if i >= n {
                    (2 * (n - 1) - i + off) as usize
                } else {
                    i as usize
                }
            })
            .collect();
        out = ops::take(&out, ax, Arc::new(idx))?;
    }
    Ok(out)
}
