//! Segment reductions (`segment_sum`, `unsorted_segment_sum/mean/max`) and
//! log-space scans (`cumulative_logsumexp`, `log_sigmoid`).
//!
//! Sums are a `scatter_add` of the data's rows (its gradient is the `take`
//! back); the mean divides by the segment sizes; the max is an op of its own
//! whose rule is TF's (`_UnsortedSegmentMinOrMaxGrad`: the gradient goes to
//! the entries equal to their segment's max, shared equally among ties),
//! written with the public ops.

use std::sync::Arc;

use ndarray::{ArcArray, Axis, IxDyn};

use super::{describe_attr_op, record, rule};
use crate::dims::ShapeDisplay;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops;
use crate::shape::normalize_axis;
use crate::tensor::{Storage, Tensor};

/// The segment ids as i64 (row-major), checked to be a prefix of `data`'s shape.
fn segment_ids(data: &Tensor, ids: &Tensor, op: &'static str) -> Result<Vec<i64>> {
    let vals = id_values(ids, op)?;
    if ids.rank() > data.rank() || data.shape()[..ids.rank()] != *ids.shape() {
        return Err(Error::invalid(format!(
            "data.shape = {} does not start with segment_ids.shape = {} [Op:{op}]",
            ShapeDisplay::of(data.shape()),
            ShapeDisplay::of(ids.shape())
        )));
    }
    Ok(vals)
}

/// The segment ids as i64 (row-major).
fn id_values(ids: &Tensor, op: &'static str) -> Result<Vec<i64>> {
    Ok(match ids.storage() {
        Storage::I32(a) => a.iter().map(|&v| v as i64).collect(),
        Storage::I64(a) => a.iter().copied().collect(),
        _ => {
            return Err(Error::UnsupportedDType {
                op,
                dtype: ids.dtype(),
                allowed: "int32, int64 (segment_ids)",
            })
        }
    })
}

/// Checks `num_segments` and every id below it (negative ids are dropped, as
/// in TF).
fn check_range(vals: &[i64], num_segments: i64, op: &'static str) -> Result<usize> {
    if num_segments < 0 {
        return Err(Error::invalid(format!(
            "Input num_segments == {num_segments} must not be negative. [Op:{op}]"
        )));
    }
    if let Some((i, v)) = vals.iter().enumerate().find(|(_, &v)| v >= num_segments) {
        return Err(Error::invalid(format!(
            "segment_ids[{i}] = {v} is out of range [0, {num_segments}) [Op:{op}]"
        )));
    }
    Ok(num_segments as usize)
}

/// `data` with the segment-id dims flattened into one leading axis.
fn rows_of(data: &Tensor, id_rank: usize) -> Result<Tensor> {
    let shape: Vec<isize> = [-1]
        .into_iter()
        .chain(data.shape()[id_rank..].iter().map(|&d| d as isize))
        .collect();
    ops::reshape(data, &shape)
}

/// The sums of `data`'s rows by their ids `vals` (read from `ids`; negative
/// ones dropped) into `num` segments. The recorded pieces read the rows kept
/// and their segments from tensors a trace computes from `ids`
/// ([`super::traced_positions`]), so a traced step needs no guard on them.
fn segment_sum_of(
    data: &Tensor,
    ids: &Tensor,
    vals: &[i64],
    num: usize,
    op: &'static str,
) -> Result<Tensor> {
    let rows = rows_of(data, ids.rank())?;
    fn kept(vals: &[i64]) -> Vec<usize> {
        (0..vals.len()).filter(|&i| vals[i] >= 0).collect()
    }
    fn segments(vals: &[i64]) -> Vec<usize> {
        vals.iter()
            .filter(|&&v| v >= 0)
            .map(|&v| v as usize)
            .collect()
    }
    let keep = kept(vals);
    let rows = if keep.len() == vals.len() {
        rows
    } else {
        let from =
            super::traced_positions(op, &[ids], &keep, move |i| Ok(kept(&id_values(&i[0], op)?)));
        ops::take_from(&rows, 0, Arc::new(keep), from.as_ref())?
    };
    let idx = segments(vals);
    let from = super::traced_positions(op, &[ids], &idx, move |i| {
        Ok(segments(&id_values(&i[0], op)?))
    });
    ops::scatter_add_with(&rows, 0, Arc::new(idx), num, from.as_ref())
}

/// `tf.math.unsorted_segment_sum(data, segment_ids, num_segments)`: row `i`
/// of the result sums the entries of `data` whose id is `i` (`segment_ids`'
/// shape is a prefix of `data`'s; negative ids are dropped).
pub fn unsorted_segment_sum(data: &Tensor, ids: &Tensor, num_segments: i64) -> Result<Tensor> {
    let out = unsorted_segment_sum_eager(data, ids, num_segments)?;
    // The recorded pieces read positions computed from `ids`
    // (`segment_sum_of`): no guard while a tape records.
    super::trace_only("UnsortedSegmentSum", &[data, ids], &out, move |i| {
        unsorted_segment_sum(&i[0], &i[1], num_segments)
    });
    Ok(out)
}

fn unsorted_segment_sum_eager(data: &Tensor, ids: &Tensor, num_segments: i64) -> Result<Tensor> {
    let op = "UnsortedSegmentSum";
    let vals = segment_ids(data, ids, op)?;
    let num = check_range(&vals, num_segments, op)?;
    segment_sum_of(data, ids, &vals, num, op)
}

/// `tf.math.segment_sum(data, segment_ids)`: ids are sorted and
/// non-negative, one per row of `data`; there are `last id + 1` segments.
pub fn segment_sum(data: &Tensor, ids: &Tensor) -> Result<Tensor> {
    let out = segment_sum_eager(data, ids)?;
    // As `unsorted_segment_sum`; the count of segments is the last id's.
    super::trace_only_sized_by_values("SegmentSum", &[data, ids], &out, move |i| {
        segment_sum(&i[0], &i[1])
    });
    Ok(out)
}

fn segment_sum_eager(data: &Tensor, ids: &Tensor) -> Result<Tensor> {
    let op = "SegmentSum";
    if ids.rank() != 1 {
        return Err(Error::invalid(format!(
            "segment_ids should be a vector, got shape {} [Op:{op}]",
            ShapeDisplay::of(ids.shape())
        )));
    }
    if data.rank() == 0 || data.shape()[0] != ids.shape()[0] {
        return Err(Error::invalid(format!(
            "segment_ids should be the same size as dimension 0 of input. [Op:{op}]"
        )));
    }
    let vals = segment_ids(data, ids, op)?;
    let num = vals.last().map_or(0, |&v| v + 1);
    if let Some(&v) = vals.iter().find(|&&v| v < 0) {
        return Err(Error::invalid(format!(
            "Segment id {v} out of range [0, {num}), possibly because 'segment_ids' input is not sorted. [Op:{op}]"
        )));
    }
    if vals.windows(2).any(|w| w[1] < w[0]) {
        return Err(Error::invalid(format!(
            "segment ids are not increasing [Op:{op}]"
        )));
    }
    segment_sum_of(data, ids, &vals, num as usize, op)
}

/// The number of ids of each segment (`shape`: the segments, then ones) as
/// float64, counted as TF counts in `dtype` (a narrow integer count wraps)
/// and clipped at 1. `vals` are below `shape[0]` ([`check_range`]).
fn segment_sizes(vals: &[i64], shape: &[usize], dtype: DType) -> Result<Tensor> {
    let mut count = vec![0i64; shape[0]];
    for &v in vals.iter().filter(|&&v| v >= 0) {
        count[v as usize] += 1;
    }
    let narrow = |c: i64| -> f64 {
        match dtype {
            DType::U8 => c as u8 as f64,
            DType::I8 => c as i8 as f64,
            DType::I16 => c as i16 as f64,
            DType::U16 => c as u16 as f64,
            _ => c as f64,
        }
    };
    Tensor::from_vec(
        count.into_iter().map(|c| narrow(c).max(1.0)).collect(),
        shape,
    )
}

/// `tf.math.unsorted_segment_mean`: the sum over the segment's size (0 for
/// an empty segment). Integer data gives float64, as TF's true division does.
pub fn unsorted_segment_mean(data: &Tensor, ids: &Tensor, num_segments: i64) -> Result<Tensor> {
    let out = unsorted_segment_mean_eager(data, ids, num_segments)?;
    // The recorded pieces read positions and counts computed from `ids`: no
    // guard while a tape records.
    super::trace_only("UnsortedSegmentMean", &[data, ids], &out, move |i| {
        unsorted_segment_mean(&i[0], &i[1], num_segments)
    });
    Ok(out)
}

fn unsorted_segment_mean_eager(data: &Tensor, ids: &Tensor, num_segments: i64) -> Result<Tensor> {
    let op = "UnsortedSegmentSum";
    if data.dtype().is_complex() {
        // TF's composite clips the counts with `Maximum` in the data's dtype,
        // which has no complex kernel.
        return Err(Error::UnsupportedDType {
            op: "Maximum",
            dtype: data.dtype(),
            allowed: "bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, \
                      int64, uint64",
        });
    }
    let vals = segment_ids(data, ids, op)?;
    let num = check_range(&vals, num_segments, op)?;
    let sum = segment_sum_of(data, ids, &vals, num, op)?;
    let mut shape = vec![num];
    shape.extend(std::iter::repeat_n(1, data.rank() - ids.rank()));
    let dtype = data.dtype();
    let n = segment_sizes(&vals, &shape, dtype)?;
    // What the division's recorded pieces read: computed again from `ids`.
    super::trace_only(op, &[ids], &n, move |i| {
        let vals = id_values(&i[0], op)?;
        check_range(&vals, shape[0] as i64, op)?;
        segment_sizes(&vals, &shape, dtype)
    });
    if data.dtype().is_integer() {
        // TF's true division of integers: float32 for 8- and 16-bit ones,
        // float64 for the rest.
        let wide = if matches!(
            data.dtype(),
            DType::U8 | DType::I8 | DType::I16 | DType::U16
        ) {
            DType::F32
        } else {
            DType::F64
        };
        return ops::div(&ops::cast(&sum, wide)?, &ops::cast(&n, wide)?);
    }
    ops::div(&sum, &ops::cast(&n, data.dtype())?)
}

describe_attr_op!(
    UnsortedSegmentMax {
        ids: Tensor,
        num: i64
    },
    "UnsortedSegmentMax",
    |op, [data]| unsorted_segment_max(data, &op.ids, op.num)
);

/// `tf.math.unsorted_segment_max`: the largest entry of each segment (the
/// dtype's lowest value for an empty segment; a NaN wins unless a number
/// follows it: TF's fold, `cur > x ? cur : x`).
/// Differentiable: TF's rule, shared equally among an segment's maxima.
pub fn unsorted_segment_max(data: &Tensor, ids: &Tensor, num_segments: i64) -> Result<Tensor> {
    let out = unsorted_segment_max_eager(data, ids, num_segments)?;
    // The gradient rule computes its positions from `ids` with ops: no
    // guard while a tape records.
    super::trace_only("UnsortedSegmentMax", &[data, ids], &out, move |i| {
        unsorted_segment_max(&i[0], &i[1], num_segments)
    });
    Ok(out)
}

fn unsorted_segment_max_eager(data: &Tensor, ids: &Tensor, num_segments: i64) -> Result<Tensor> {
    let op = "UnsortedSegmentMax";
    let vals = segment_ids(data, ids, op)?;
    let num = check_range(&vals, num_segments, op)?;
    let rows = rows_of(data, ids.rank())?;
    let mut shape = rows.shape().to_vec();
    shape[0] = num;
    crate::tensor::check_alloc(&shape, data.dtype())?;
    #[allow(clippy::neg_cmp_op_on_partial_ord)] // TF's NaN handling, spelled out
    fn fold<T: Copy + PartialOrd>(
        a: &ArcArray<T, IxDyn>,
        shape: &[usize],
        vals: &[i64],
        lowest: T,
    ) -> ArcArray<T, IxDyn> {
        let mut out = ndarray::ArrayD::from_elem(IxDyn(shape), lowest);
        for (i, &v) in vals.iter().enumerate() {
            if v < 0 {
                continue;
            }
            let mut dst = out.index_axis_mut(Axis(0), v as usize);
            dst.zip_mut_with(&a.index_axis(Axis(0), i), |d, &x| {
                // TF's `cur > x ? cur : x`: a NaN entry replaces the max, and
                // a later number replaces a NaN.
                if !(*d > x) {
                    *d = x;
                }
            });
        }
        out.into_shared()
    }
    let out = Tensor::from_storage(match rows.storage() {
        Storage::F32(a) => Storage::F32(fold(a, &shape, &vals, f32::MIN)),
        Storage::F64(a) => Storage::F64(fold(a, &shape, &vals, f64::MIN)),
        Storage::I32(a) => Storage::I32(fold(a, &shape, &vals, i32::MIN)),
        Storage::I64(a) => Storage::I64(fold(a, &shape, &vals, i64::MIN)),
        Storage::U8(a) => Storage::U8(fold(a, &shape, &vals, u8::MIN)),
        Storage::I8(a) => Storage::I8(fold(a, &shape, &vals, i8::MIN)),
        Storage::I16(a) => Storage::I16(fold(a, &shape, &vals, i16::MIN)),
        Storage::U16(a) => Storage::U16(fold(a, &shape, &vals, u16::MIN)),
        Storage::U32(a) => Storage::U32(fold(a, &shape, &vals, u32::MIN)),
        Storage::U64(a) => Storage::U64(fold(a, &shape, &vals, u64::MIN)),
        Storage::F16(a) => Storage::F16(fold(a, &shape, &vals, crate::dtype::f16::MIN)),
        Storage::BF16(a) => Storage::BF16(fold(a, &shape, &vals, crate::dtype::bf16::MIN)),
        _ => {
            return Err(Error::UnsupportedDType {
                op,
                dtype: rows.dtype(),
                allowed: "bfloat16, half, float, double, int8, uint8, int16, uint16, int32, \
                          uint32, int64, uint64",
            })
        }
    });
    let desc = UnsortedSegmentMax {
        ids: ids.clone(),
        num: num_segments,
    };
    record(desc, &[data], &[&out], || {
        let (x, y, ids) = (data.clone(), out.clone(), ids.clone());
        let clipped: Vec<usize> = vals.iter().map(|&v| v.max(0) as usize).collect();
        rule(move |g, _| {
            // TF's _UnsortedSegmentMinOrMaxGrad with _GatherDropNegatives,
            // the positions computed from `ids` with ops (so a trace reads
            // each call's ids): `clipped` are `clipped_ids`' values.
            let zero = Tensor::scalar_of(ids.dtype(), 0.0);
            let clipped_ids = ops::maximum(&ids, &zero)?;
            let shape: Vec<isize> = x.shape().iter().map(|&d| d as isize).collect();
            let gather = |t: &Tensor| -> Result<Tensor> {
                let idx = Arc::new(clipped.clone());
                let taken = ops::take_traced(t, 0, idx, Some(&clipped_ids))?;
                ops::reshape(&taken, &shape)
            };
            // `ids >= 0` with a one for each slice dim: broadcasts onto `x`.
            let ones = std::iter::repeat_n(1, x.rank() - ids.rank());
            let kept: Vec<isize> = ids
                .shape()
                .iter()
                .map(|&d| d as isize)
                .chain(ones)
                .collect();
            let positive = ops::reshape(&ops::greater_equal(&ids, &zero)?, &kept)?;
            let selected = ops::logical_and(&ops::equal(&x, &gather(&y)?)?, &positive)?;
            let count =
                unsorted_segment_sum(&ops::cast(&selected, g[0].dtype())?, &ids, num as i64)?;
            let weighted = ops::div(&g[0], &count)?;
            let spread = gather(&weighted)?;
            Ok(vec![Some(ops::where_(
                &selected,
                &spread,
                &ops::zeros_like(&spread)?,
            )?)])
        })
    });
    Ok(out)
}

describe_attr_op!(
    CumulativeLogsumexp {
        axis: usize,
        exclusive: bool,
        reverse: bool
    },
    "CumulativeLogsumexp",
    |op, [x]| cumulative_logsumexp(x, op.axis as isize, op.exclusive, op.reverse)
);

/// `log(exp(a) + exp(b))` without overflow.
fn log_add_exp(a: f64, b: f64) -> f64 {
    if a == f64::NEG_INFINITY {
        return b;
    }
    if b == f64::NEG_INFINITY {
        return a;
    }
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    if hi == f64::INFINITY {
        return hi + lo; // inf, or NaN with a NaN
    }
    hi + (lo - hi).exp().ln_1p()
}

/// `tf.math.cumulative_logsumexp(x, axis, exclusive, reverse)`: the log of
/// the cumulative sum of `exp(x)` along `axis`, computed pairwise in log
/// space so it neither overflows nor underflows. Differentiable (TF's rule,
/// which splits the upstream gradient by sign and runs the scan backwards).
pub fn cumulative_logsumexp(
    x: &Tensor,
    axis: isize,
    exclusive: bool,
    reverse: bool,
) -> Result<Tensor> {
    let op = "CumulativeLogsumexp";
    let rank = x.rank();
    let ax = normalize_axis(axis, rank.max(1)).map_err(|_| {
        Error::invalid(format!(
            "ScanOp: Expected scan axis in the range [{}, {}), but got {axis} [Op:{op}]",
            -(rank as isize),
            rank
        ))
    })?;
    fn scan<T: Copy>(
        a: &ArcArray<T, IxDyn>,
        ax: usize,
        exclusive: bool,
        reverse: bool,
        to: impl Fn(T) -> f64,
        from: impl Fn(f64) -> T,
    ) -> ArcArray<T, IxDyn> {
        let mut out = a.to_owned();
        if out.ndim() == 0 {
            if exclusive {
                out.fill(from(f64::NEG_INFINITY));
            }
            return out.into_shared();
        }
        for mut lane in out.lanes_mut(Axis(ax)) {
            let n = lane.len();
            let mut acc = f64::NEG_INFINITY;
            for j in 0..n {
                let i = if reverse { n - 1 - j } else { j };
                let v = to(lane[i]);
                if exclusive {
                    lane[i] = from(acc);
                    acc = log_add_exp(acc, v);
                } else {
                    acc = log_add_exp(acc, v);
                    lane[i] = from(acc);
                }
            }
        }
        out.into_shared()
    }
    let out = Tensor::from_storage(match x.storage() {
        Storage::F32(a) => {
            Storage::F32(scan(a, ax, exclusive, reverse, |v| v as f64, |v| v as f32))
        }
        Storage::F64(a) => Storage::F64(scan(a, ax, exclusive, reverse, |v| v, |v| v)),
        _ => {
            return Err(Error::UnsupportedDType {
                op,
                dtype: x.dtype(),
                allowed: "float, double",
            })
        }
    });
    let desc = CumulativeLogsumexp {
        axis: ax,
        exclusive,
        reverse,
    };
    record(desc, &[x], &[&out], || {
        let (x, y) = (x.clone(), out.clone());
        rule(move |g, _| {
            // TF's _CumulativeLogsumexpGrad.
            let g = &g[0];
            let lowest = Tensor::scalar_of(
                g.dtype(),
                if g.dtype() == DType::F32 {
                    f32::MIN as f64
                } else {
                    f64::MIN
                },
            );
            let zero = Tensor::scalar_of(g.dtype(), 0.0);
            let log_pos = ops::where_(&ops::greater(g, &zero)?, &ops::log(g)?, &lowest)?;
            let log_neg = ops::where_(&ops::less(g, &zero)?, &ops::log(&ops::neg(g)?)?, &lowest)?;
            let part = |l: &Tensor| -> Result<Tensor> {
                let s = cumulative_logsumexp(&ops::sub(l, &y)?, ax as isize, exclusive, !reverse)?;
                ops::exp(&ops::add(&s, &x)?)
            };
            Ok(vec![Some(ops::sub(&part(&log_pos)?, &part(&log_neg)?)?)])
        })
    });
    Ok(out)
}

/// `tf.math.log_sigmoid(x)`: `-softplus(-x)`, as TF computes it (no overflow
/// for large `|x|`). Differentiable through its parts.
pub fn log_sigmoid(x: &Tensor) -> Result<Tensor> {
    ops::neg(&ops::softplus(&ops::neg(x)?)?)
}
