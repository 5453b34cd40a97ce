//! Shape and dtype manipulation: reshape, transpose, broadcast_to, cast, where.

use ndarray::IxDyn;

use smallvec::SmallVec;

use super::{describe_attr_op, describe_op, record, rule, unbroadcast};
use crate::dims::Dims;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::zip3_map;
use crate::op::Op;
use crate::shape::{broadcast_shapes, ShapeDisplay};
use crate::tensor::{Storage, Tensor};
use crate::{map_storage, with_dtype, with_storage};

/// Resolves a TF-style shape with at most one `-1` against a number of elements.
fn resolve_shape(numel: usize, shape: &[isize]) -> Result<Vec<usize>> {
    let mut unknown = None;
    let mut known = 1usize;
    for (i, &d) in shape.iter().enumerate() {
        if d == -1 {
            if unknown.is_some() {
                return Err(Error::invalid(
                    "Only one input size may be -1, not both 0 and 1 [Op:Reshape]".to_string(),
                ));
            }
            unknown = Some(i);
        } else if d < 0 {
            return Err(Error::invalid(format!(
                "Size {i} must be non-negative, not {d} [Op:Reshape]"
            )));
        } else {
            known = known
                .checked_mul(d as usize)
                .ok_or_else(|| Error::invalid("reshape: shape too large"))?;
        }
    }
    let mut out: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
    match unknown {
        Some(i) => {
            if known == 0 || numel % known != 0 {
                return Err(Error::invalid(format!(
                    "Input to reshape is a tensor with {numel} values, but the requested shape requires a multiple of {known} [Op:Reshape]"
                )));
            }
            out[i] = numel / known;
        }
        None if known != numel => {
            return Err(Error::invalid(format!(
                "Input to reshape is a tensor with {numel} values, but the requested shape has {known} [Op:Reshape]"
            )))
        }
        None => {}
    }
    Ok(out)
}

impl Tensor {
    /// This tensor in another shape (see [`reshape`]).
    pub fn reshape(&self, shape: &[isize]) -> Result<Tensor> {
        reshape(self, shape)
    }

    /// This tensor with its dims permuted (see [`transpose`]).
    pub fn transpose(&self, perm: Option<&[usize]>) -> Result<Tensor> {
        transpose(self, perm)
    }

    /// This tensor broadcast to `shape` (see [`broadcast_to`]).
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Tensor> {
        broadcast_to(self, shape)
    }

    /// This tensor's elements as another dtype (see [`cast`]).
    pub fn cast(&self, dtype: DType) -> Result<Tensor> {
        cast(self, dtype)
    }
}

describe_attr_op!(
    Reshape { shape: SmallVec<[isize; 4]> },
    "Reshape",
    |op, [x]| reshape(x, &op.shape),
    rows: true
);
describe_attr_op!(
    Transpose { perm: SmallVec<[usize; 4]> },
    "Transpose",
    |op, [x]| transpose(x, Some(&op.perm)),
    rows: true
);
describe_attr_op!(
    BroadcastTo { shape: Dims },
    "BroadcastTo",
    |op, [x]| broadcast_to(x, &op.shape),
    rows: true
);
describe_attr_op!(Cast { dtype: DType }, "Cast", |op, [x]| cast(x, op.dtype), rows: true);
describe_op!(SelectV2, "SelectV2", |[c, a, b]| where_(c, a, b), rows: true);

/// The description of `ConcatV2`: the axis (any number of inputs).
struct ConcatV2 {
    axis: isize,
}

impl Op for ConcatV2 {
    fn name(&self) -> &'static str {
        "ConcatV2"
    }
    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![concat(inputs, self.axis)?])
    }
}

/// Reshapes (row-major); one dimension may be `-1`.
pub fn reshape(x: &Tensor, shape: &[isize]) -> Result<Tensor> {
    let target = resolve_shape(x.numel(), shape)?;
    if target.as_slice() == x.shape() && !crate::record::is_recording() {
        return Ok(x.clone());
    }
    let out = Tensor::from_storage(map_storage!(x.storage(), a => {
        if a.is_standard_layout() {
            a.clone().into_shape_with_order(IxDyn(&target)).expect("element counts match")
        } else {
            crate::kernels::standard_owned(a.view()).into_shared().into_shape_with_order(IxDyn(&target)).expect("element counts match")
        }
    }));
    let rank = out.rank();
    record(
        Reshape {
            shape: shape.iter().copied().collect(),
        },
        &[x],
        &[&out],
        || {
            let back = x.shape().to_vec();
            rule(move |g, _| {
                // Keep the row dims of a vectorized Jacobian pass, if any.
                let full = super::rows_then(&g[0], rank, &back);
                Ok(vec![Some(reshape(&g[0], &full)?)])
            })
        },
    );
    Ok(out)
}

/// Permutes dimensions; `None` reverses them (TF's default).
pub fn transpose(x: &Tensor, perm: Option<&[usize]>) -> Result<Tensor> {
    let rank = x.rank();
    let perm: Vec<usize> = match perm {
        Some(p) => p.to_vec(),
        None => (0..rank).rev().collect(),
    };
    let mut seen = vec![false; rank];
    if perm.len() != rank
        || perm
            .iter()
            .any(|&p| p >= rank || std::mem::replace(&mut seen[p], true))
    {
        return Err(Error::invalid(format!(
            "transpose expects a vector of size {rank}. But input(1) is a vector of size {} (perm {:?} is not a permutation of 0..{rank}) [Op:Transpose]",
            perm.len(),
            perm
        )));
    }
    let out = Tensor::from_storage(map_storage!(x.storage(), a => {
        crate::kernels::standard_owned(a.view().permuted_axes(IxDyn(&perm))).into_shared()
    }));
    record(
        Transpose {
            perm: perm.iter().copied().collect(),
        },
        &[x],
        &[&out],
        || {
            let mut inv = vec![0; perm.len()];
            for (i, &p) in perm.iter().enumerate() {
                inv[p] = i;
            }
            rule(move |g, _| {
                // Row dims of a vectorized Jacobian pass stay in front.
                let lead = super::row_rank(&g[0], inv.len());
                let p: Vec<usize> = (0..lead).chain(inv.iter().map(|&i| i + lead)).collect();
                Ok(vec![Some(transpose(&g[0], Some(&p))?)])
            })
        },
    );
    Ok(out)
}

/// Broadcasts to a shape (NumPy rules); the gradient sums back.
pub fn broadcast_to(x: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let b = broadcast_shapes("BroadcastTo", x.shape(), shape)?;
    if b.as_slice() != shape {
        return Err(Error::IncompatibleShapes {
            op: "BroadcastTo",
            lhs: ShapeDisplay::of(x.shape()),
            rhs: ShapeDisplay::of(shape),
        });
    }
    crate::tensor::check_alloc(shape, x.dtype())?;
    let ones = x.is_all_ones()
        || (x.numel() == 1 && x.dtype() != DType::Bool && x.to_f64_scalar()? == 1.0);
    let out = Tensor::with_hint(
        map_storage!(x.storage(), a => crate::kernels::broadcast_owned(a, shape).into_shared()),
        ones,
    );
    let rank = out.rank();
    record(
        BroadcastTo {
            shape: shape.iter().copied().collect(),
        },
        &[x],
        &[&out],
        || {
            let s = x.shape().to_vec();
            rule(move |g, _| Ok(vec![Some(unbroadcast(&g[0], rank, &s)?)]))
        },
    );
    Ok(out)
}

/// Converts elements to another dtype (floats truncate toward zero into
/// integers; nonzero is `true`). Differentiable between float dtypes only.
pub fn cast(x: &Tensor, dtype: DType) -> Result<Tensor> {
    if x.dtype() == dtype {
        return Ok(x.clone());
    }
    let s = with_storage!(x.storage(), a => {
        with_dtype!(dtype, T => T::wrap(a.map(|&v| T::from_num(v.to_num())).into_shared()))
    });
    let out = Tensor::from_storage(s);
    if x.dtype().is_differentiable() && dtype.is_differentiable() {
        record(Cast { dtype }, &[x], &[&out], || {
            let src = x.dtype();
            rule(move |g, _| Ok(vec![Some(cast(&g[0], src)?)]))
        });
    } else if crate::record::is_recording() {
        super::trace_only("Cast", &[x], &out, move |i| cast(&i[0], dtype));
        crate::record::record_cut(
            "Cast",
            crate::record::CutReason::NonFloat,
            &[x.id()],
            out.id(),
        );
    }
    Ok(out)
}

/// `tf.where(cond)`: the coordinates of `cond`'s true (for numbers,
/// nonzero) elements in row-major order, as an int64 tensor of shape
/// `[count, rank]`. Not differentiable (TensorFlow's `Where`).
pub fn where_indices(cond: &Tensor) -> Result<Tensor> {
    let out = where_indices_eager(cond)?;
    // No tape records the coordinates: a trace recomputes them, with no
    // guard even while a tape records.
    super::trace_only_sized_by_values("Where", &[cond], &out, |i| where_indices_eager(&i[0]));
    Ok(out)
}

fn where_indices_eager(cond: &Tensor) -> Result<Tensor> {
    if cond.rank() == 0 {
        return Err(Error::invalid("WhereOp : Unhandled input dimensions: 0"));
    }
    // Numbers: nonzero is true (a bool tensor casts to itself).
    let truth = cast(cond, DType::Bool)?.to_vec::<bool>()?;
    let shape = cond.shape();
    let rank = shape.len();
    let mut coords: Vec<i64> = Vec::new();
    let mut at = vec![0i64; rank];
    for (flat, &t) in truth.iter().enumerate() {
        if t {
            // Row-major coordinates of `flat`.
            let mut rest = flat;
            for (d, c) in shape.iter().zip(at.iter_mut()).rev() {
                *c = (rest % d) as i64;
                rest /= d;
            }
            coords.extend_from_slice(&at);
        }
    }
    let count = coords.len() / rank;
    Tensor::from_vec(coords, &[count, rank])
}

/// Picks `a` where `cond` is true and `b` elsewhere, with broadcasting.
pub fn where_(cond: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let c = cond.array::<bool>().map_err(|_| Error::UnsupportedDType {
        op: "SelectV2",
        dtype: cond.dtype(),
        allowed: "bool (condition)",
    })?;
    crate::kernels::same_dtype("SelectV2", a, b)?;
    let out = with_storage!(a.storage(), p => {
        let q = crate::Element::unwrap(b.storage()).expect("dtypes checked equal");
        Tensor::from_array(zip3_map("SelectV2", crate::kernels::Pass::Memory, c, p, q, |c, x, y| if c { x } else { y })?)
    });
    let rank = out.rank();
    record(SelectV2, &[cond, a, b], &[&out], || {
        let (cond, sa, sb) = (cond.clone(), a.shape().to_vec(), b.shape().to_vec());
        rule(move |g, needs| {
            let z = zeros_like(&g[0])?;
            Ok(vec![
                None,
                if needs[1] {
                    Some(unbroadcast(&where_(&cond, &g[0], &z)?, rank, &sa)?)
                } else {
                    None
                },
                if needs[2] {
                    Some(unbroadcast(&where_(&cond, &z, &g[0])?, rank, &sb)?)
                } else {
                    None
                },
            ])
        })
    });
    Ok(out)
}

/// Zeros with the shape and dtype of `x` (not recorded: constant).
pub fn zeros_like(x: &Tensor) -> Result<Tensor> {
    Tensor::zeros(x.shape(), x.dtype())
}

/// Ones with the shape and dtype of `x` (not recorded: constant).
pub fn ones_like(x: &Tensor) -> Result<Tensor> {
    Tensor::ones(x.shape(), x.dtype())
}

fn to_isize(shape: &[usize]) -> Vec<isize> {
    shape.iter().map(|&d| d as isize).collect()
}

/// Inserts an axis of size 1 at `axis` (negative counts from the end of the result).
pub fn expand_dims(x: &Tensor, axis: isize) -> Result<Tensor> {
    let r = x.rank() as isize;
    let a = if axis < 0 { axis + r + 1 } else { axis };
    if a < 0 || a > r {
        return Err(Error::invalid(format!(
            "Tried to expand dim index {axis} for tensor with {r} dimensions. [Op:ExpandDims]"
        )));
    }
    let mut shape = to_isize(x.shape());
    shape.insert(a as usize, 1);
    reshape(x, &shape)
}

/// Removes size-1 axes (all of them, or those in `axes`).
pub fn squeeze(x: &Tensor, axes: Option<&[isize]>) -> Result<Tensor> {
    let keep: Vec<isize> = match axes {
        None => x
            .shape()
            .iter()
            .filter(|&&d| d != 1)
            .map(|&d| d as isize)
            .collect(),
        Some(axes) => {
            let norm: Vec<usize> = axes
                .iter()
                .map(|&a| crate::shape::normalize_axis(a, x.rank()))
                .collect::<Result<_>>()?;
            for &a in &norm {
                if x.shape()[a] != 1 {
                    return Err(Error::invalid(format!(
                        "Can not squeeze dim[{a}], expected a dimension of 1, got {} [Op:Squeeze]",
                        x.shape()[a]
                    )));
                }
            }
            x.shape()
                .iter()
                .enumerate()
                .filter(|(i, _)| !norm.contains(i))
                .map(|(_, &d)| d as isize)
                .collect()
        }
    };
    reshape(x, &keep)
}

/// Joins tensors along an existing axis.
pub fn concat(values: &[Tensor], axis: isize) -> Result<Tensor> {
    let first = values
        .first()
        .ok_or_else(|| Error::invalid("concat needs at least one tensor"))?;
    let rank = first.rank();
    if rank == 0 {
        return Err(Error::invalid(
            "Can't concatenate scalars (use tf.stack instead) [Op:ConcatV2]",
        ));
    }
    let ax = crate::shape::normalize_axis(axis, rank)?;
    for (i, v) in values.iter().enumerate().skip(1) {
        crate::kernels::same_dtype("ConcatV2", first, v).map_err(|_| Error::DTypeMismatch {
            op: "ConcatV2",
            index: i,
            expected: first.dtype(),
            actual: v.dtype(),
        })?;
        let ok = v.rank() == rank
            && v.shape()
                .iter()
                .zip(first.shape())
                .enumerate()
                .all(|(k, (a, b))| k == ax || a == b);
        if !ok {
            return Err(Error::invalid(format!(
                "ConcatOp : Dimension {} in both shapes must be equal: shape[0] = {} vs. shape[{i}] = {} [Op:ConcatV2]",
                if v.rank() == rank { (0..rank).find(|&k| k != ax && v.shape()[k] != first.shape()[k]).unwrap_or(0) } else { 0 },
                ShapeDisplay::of(first.shape()),
                ShapeDisplay::of(v.shape())
            )));
        }
    }
    let out = Tensor::from_storage(with_dtype!(first.dtype(), T => {
        let views: Vec<_> = values
            .iter()
            .map(|v| v.array::<T>().map(|a| a.view()))
            .collect::<Result<_>>()?;
        T::wrap(
            ndarray::concatenate(ndarray::Axis(ax), &views)
                .map_err(|e| Error::invalid(e.to_string()))?
                .into_shared(),
        )
    }));
    {
        let sizes: Vec<usize> = values.iter().map(|v| v.shape()[ax]).collect();
        let ins: Vec<&Tensor> = values.iter().collect();
        record(ConcatV2 { axis }, &ins, &[&out], || {
            rule(move |g, _| {
                let mut off = 0;
                sizes
                    .iter()
                    .map(|&n| {
                        let mut ranges = vec![(0usize, 0usize); ax + 1];
                        for (k, r) in ranges.iter_mut().enumerate().take(ax) {
                            *r = (0, g[0].shape()[k]);
                        }
                        ranges[ax] = (off, n);
                        off += n;
                        crate::ops::slice_ranges(&g[0], &ranges).map(Some)
                    })
                    .collect()
            })
        });
    }
    Ok(out)
}

/// Stacks tensors of equal shape along a new axis.
pub fn stack(values: &[Tensor], axis: isize) -> Result<Tensor> {
    let first = values
        .first()
        .ok_or_else(|| Error::invalid("stack needs at least one tensor"))?;
    for (i, v) in values.iter().enumerate() {
        if v.shape() != first.shape() {
            return Err(Error::invalid(format!(
                "Shapes of all inputs must match: values[0].shape = {} != values[{i}].shape = {} [Op:Pack]",
                ShapeDisplay::of(first.shape()),
                ShapeDisplay::of(v.shape())
            )));
        }
    }
    let r = first.rank() as isize;
    let a = if axis < 0 { axis + r + 1 } else { axis };
    if a < 0 || a > r {
        return Err(Error::invalid(format!(
            "Argument `axis` = {axis} not in range [{}, {}) [Op:Pack]",
            -r - 1,
            r + 1
        )));
    }
    let expanded = values
        .iter()
        .map(|v| expand_dims(v, a))
        .collect::<Result<Vec<_>>>()?;
    concat(&expanded, a)
}

/// Splits along `axis` into its slices, removing the axis.
pub fn unstack(x: &Tensor, axis: isize) -> Result<Vec<Tensor>> {
    let ax = crate::shape::normalize_axis(axis, x.rank())?;
    let n = x.shape()[ax];
    split(x, &vec![1; n], ax as isize)?
        .iter()
        .map(|t| squeeze(t, Some(&[ax as isize])))
        .collect()
}

/// Splits along `axis` into pieces of the given sizes (which must add up).
pub fn split(x: &Tensor, sizes: &[usize], axis: isize) -> Result<Vec<Tensor>> {
    let ax = crate::shape::normalize_axis(axis, x.rank())?;
    let total: usize = sizes.iter().sum();
    if total != x.shape()[ax] {
        return Err(Error::invalid(format!(
            "Determined shape must either match input shape along split_dim exactly if fully specified, or be less than the size of the input along split_dim if not fully specified.  Got: {total} vs {} [Op:SplitV]",
            x.shape()[ax]
        )));
    }
    let mut off = 0;
    sizes
        .iter()
        .map(|&n| {
            let mut ranges: Vec<(usize, usize)> = x.shape()[..ax].iter().map(|&d| (0, d)).collect();
            ranges.push((off, n));
            off += n;
            crate::ops::slice_ranges(x, &ranges)
        })
        .collect()
}

/// Repeats the tensor `multiples[k]` times along each axis.
pub fn tile(x: &Tensor, multiples: &[usize]) -> Result<Tensor> {
    if x.dtype() == DType::U16 {
        // TF 2.21 registers Tile for uint16 on CPU but its kernel refuses it.
        return Err(Error::UnimplementedOp(format!(
            "TileOp : The input data type is not supported, DataType : uint16, Dimension : {} [Op:Tile]",
            x.rank()
        )));
    }
    if multiples.len() != x.rank() {
        return Err(Error::invalid(format!(
            "Expected multiples argument to be a vector of length {} but got length {} [Op:Tile]",
            x.rank(),
            multiples.len()
        )));
    }
    // [d0, d1] -> [1, d0, 1, d1] -> broadcast [m0, d0, m1, d1] -> [m0*d0, m1*d1]
    let inter: Vec<isize> = x.shape().iter().flat_map(|&d| [1, d as isize]).collect();
    let big: Vec<usize> = x
        .shape()
        .iter()
        .zip(multiples)
        .flat_map(|(&d, &m)| [m, d])
        .collect();
    let out: Vec<isize> = x
        .shape()
        .iter()
        .zip(multiples)
        .map(|(&d, &m)| (d * m) as isize)
        .collect();
    reshape(&broadcast_to(&reshape(x, &inter)?, &big)?, &out)
}

/// A tensor of `shape` filled with the scalar `value`.
pub fn fill(shape: &[usize], value: &Tensor) -> Result<Tensor> {
    if value.numel() != 1 {
        return Err(Error::invalid(format!(
            "value must be a scalar, got shape {} [Op:Fill]",
            ShapeDisplay::of(value.shape())
        )));
    }
    broadcast_to(&reshape(value, &[])?, shape)
}

/// Identity matrices: `[*batch, rows, cols]` with ones on the diagonal.
pub fn eye(rows: usize, cols: usize, batch: &[usize], dtype: DType) -> Result<Tensor> {
    let mut m = Tensor::zeros(&[rows, cols], DType::F64)?
        .array::<f64>()?
        .to_owned();
    for i in 0..rows.min(cols) {
        m[[i, i]] = 1.0;
    }
    let e = cast(&Tensor::from_array(m), dtype)?;
    if batch.is_empty() {
        return Ok(e);
    }
    let mut shape = batch.to_vec();
    shape.extend([rows, cols]);
    broadcast_to(&e, &shape)
}

/// `[start, start + delta, ...)` up to `limit` (exclusive), as `tf.range`.
pub fn range(start: f64, limit: f64, delta: f64, dtype: DType) -> Result<Tensor> {
    if delta == 0.0 {
        return Err(Error::invalid("Requires delta != 0: 0 [Op:Range]"));
    }
    if (delta > 0.0 && start > limit) || (delta < 0.0 && start < limit) {
        return Err(Error::invalid(format!(
            "Requires start {} limit when delta {} 0: {start}/{limit} [Op:Range]",
            if delta > 0.0 { "<=" } else { ">=" },
            if delta > 0.0 { ">" } else { "<" }
        )));
    }
    let n = ((limit - start) / delta).ceil().max(0.0);
    if n >= usize::MAX as f64 {
        return Err(crate::tensor::too_large(&[usize::MAX], dtype));
    }
    let n = n as usize;
    crate::tensor::check_alloc(&[n], DType::F64)?;
    let v: Vec<f64> = (0..n).map(|i| start + i as f64 * delta).collect();
    cast(&Tensor::from_vec(v, &[n])?, dtype)
}

/// `num` evenly spaced values from `start` to `stop` inclusive.
pub fn linspace(start: f64, stop: f64, num: usize, dtype: DType) -> Result<Tensor> {
    crate::tensor::check_alloc(&[num], DType::F64)?;
    let v: Vec<f64> = match num {
        0 => vec![],
        1 => vec![start],
        _ => (0..num)
            .map(|i| start + (stop - start) * i as f64 / (num - 1) as f64)
            .collect(),
    };
    cast(&Tensor::from_vec(v, &[num])?, dtype)
}

/// One-hot encoding along a new last axis (or `axis`); out-of-range indices
/// give all-`off` rows, as in TF.
pub fn one_hot(
    indices: &Tensor,
    depth: usize,
    on: f64,
    off: f64,
    axis: isize,
    dtype: DType,
) -> Result<Tensor> {
    let idx: Vec<i64> = match indices.storage() {
        Storage::I32(a) => a.iter().map(|&v| v as i64).collect(),
        Storage::I64(a) => a.iter().copied().collect(),
        _ => {
            return Err(Error::UnsupportedDType {
                op: "OneHot",
                dtype: indices.dtype(),
                allowed: "int32, int64 (indices)",
            })
        }
    };
    let mut shape = indices.shape().to_vec();
    shape.push(depth);
    crate::tensor::check_alloc(&shape, DType::F64)?;
    let mut data = vec![off; idx.len() * depth];
    for (k, &i) in idx.iter().enumerate() {
        if i >= 0 && (i as usize) < depth {
            data[k * depth + i as usize] = on;
        }
    }
    let t = cast(&Tensor::from_vec(data, &shape)?, dtype)?;
    let r = indices.rank() as isize;
    let a = if axis < 0 { axis + r + 1 } else { axis };
    if a < 0 || a > r {
        return Err(Error::invalid(format!(
            "Expected axis to be -1 or between [0, {}).  But received: {axis} [Op:OneHot]",
            r + 1
        )));
    }
    let out = if a == r {
        t
    } else {
        let mut perm: Vec<usize> = (0..r as usize).collect();
        perm.insert(a as usize, r as usize);
        transpose(&t, Some(&perm))?
    };
    super::trace_only("OneHot", &[indices], &out, move |i| {
        one_hot(&i[0], depth, on, off, axis, dtype)
    });
    Ok(out)
}
