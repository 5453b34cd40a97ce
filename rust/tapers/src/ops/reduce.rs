//! Reductions over axes (sum, mean, max, min, prod, logsumexp, variance, any,
//! all), arg-extrema, and scans (cumsum, cumprod).

use ndarray::{ArcArray, Axis, IxDyn};

use super::arith::Arith;
use smallvec::SmallVec;

use super::{record, rule};
use crate::dtype::{c128, c64, DType};
use crate::error::{Error, Result};
use crate::op::Op;
use crate::ops;
use crate::shape::normalize_axis;
use crate::tensor::{Storage, Tensor};

/// Normalizes reduction axes: `None` means all; negatives count from the end;
/// duplicates are an error.
fn reduction_axes(op: &'static str, rank: usize, axes: Option<&[isize]>) -> Result<Vec<usize>> {
    let mut out = match axes {
        None => (0..rank).collect::<Vec<_>>(),
        Some(a) => a
            .iter()
            .map(|&ax| normalize_axis(ax, rank))
            .collect::<Result<Vec<_>>>()?,
    };
    out.sort_unstable();
    let n = out.len();
    out.dedup();
    if out.len() != n {
        return Err(Error::invalid(format!(
            "Duplicate axis in reduction {axes:?} [Op:{op}]"
        )));
    }
    Ok(out)
}

/// The shape of a reduction's result with the reduced axes kept as 1.
fn kept_shape(shape: &[usize], axes: &[usize]) -> Vec<usize> {
    shape
        .iter()
        .enumerate()
        .map(|(i, &d)| if axes.contains(&i) { 1 } else { d })
        .collect()
}

/// Elements per partial sum of a full reduction: each chunk is summed
/// alone (`Arith::sum_slice`), then the partial sums in order from zero. A
/// traced graph's fused loops that end in a sum use the same split.
pub(crate) const SUM_CHUNK: usize = 1 << 15;

fn sum_axes<T>(a: &ArcArray<T, IxDyn>, axes: &[usize], keepdims: bool) -> ArcArray<T, IxDyn>
where
    T: Arith,
{
    if axes.len() == a.ndim() && a.ndim() > 0 {
        // Full reduction, in row-major order whatever the layout (a
        // transposed or gathered view is copied first): the bits never
        // depend on how the input is laid out in memory.
        let standard = a.as_standard_layout();
        let flat = standard.as_slice().expect("standard layout is contiguous");
        // Fixed-size chunks summed in parallel, then the partial sums in
        // order, so the result never depends on threads.
        use rayon::prelude::*;
        const CHUNK: usize = SUM_CHUNK;
        let chunk_sum = T::sum_slice;
        let partial: Vec<T> =
            crate::kernels::parallel(flat.len(), crate::kernels::PAR_THRESHOLD, |par| {
                if par {
                    flat.par_chunks(CHUNK).map(chunk_sum).collect()
                } else {
                    flat.chunks(CHUNK).map(chunk_sum).collect()
                }
            });
        let total = partial.into_iter().fold(T::zero(), Arith::add);
        let shape = if keepdims {
            kept_shape(a.shape(), axes)
        } else {
            vec![]
        };
        return ndarray::ArrayD::from_elem(IxDyn(&shape), total).into_shared();
    }
    if let ([0], Some(flat)) = (axes, a.as_slice()) {
        // Over the leading axis of a row-major array (a bias gradient): the
        // rows added in order into one accumulator row, as the general path
        // below adds them (same sums, bit for bit), without its per-row
        // dynamic-shape iteration. (Rows of one element are left to it: it
        // sums a contiguous lane its own way.)
        let inner: usize = a.shape()[1..].iter().product();
        if inner > 1 && a.shape()[0] > 0 {
            let mut acc = vec![T::zero(); inner];
            // Element by element, so compiled for AVX2 where the CPU has it.
            crate::kernels::simd(|| {
                for row in flat.chunks_exact(inner) {
                    for (s, &v) in acc.iter_mut().zip(row) {
                        *s = Arith::add(*s, v);
                    }
                }
            });
            let shape = if keepdims {
                kept_shape(a.shape(), axes)
            } else {
                a.shape()[1..].to_vec()
            };
            return ndarray::ArrayD::from_shape_vec(IxDyn(&shape), acc)
                .expect("sizes match")
                .into_shared();
        }
    }
    if let (&[ax], Some(flat)) = (axes, a.as_slice()) {
        // Over the last axis of a row-major array (a softmax's
        // denominator): each row summed as `T::sum_axis` sums a contiguous
        // lane (`Arith::sum_lane`: the same bits), without its per-lane
        // dynamic-shape iteration.
        if ax + 1 == a.ndim() && a.shape()[ax] > 1 {
            return by_rows(a.shape(), flat, keepdims, T::sum_lane);
        }
    }
    let Some((&last, rest)) = axes.split_last() else {
        return a.clone(); // no axis: the elements as they are
    };
    // Descending, so earlier axis numbers stay valid.
    let mut r = T::sum_axis(a.view(), Axis(last));
    for &ax in rest.iter().rev() {
        r = T::sum_axis(r.view(), Axis(ax));
    }
    if keepdims {
        let shape = kept_shape(a.shape(), axes);
        r = r
            // A reduction of a transposed input may come back in another
            // layout; into_shape_clone copies only then.
            .into_shape_clone(IxDyn(&shape))
            .expect("same element count");
    }
    r.into_shared()
}

impl Tensor {
    /// The sum over `axes` (see [`reduce_sum`]).
    pub fn sum(&self, axes: &[isize], keepdims: bool) -> Result<Tensor> {
        reduce_sum(self, Some(axes), keepdims)
    }

    /// The sum of every element, as a scalar.
    pub fn sum_all(&self) -> Result<Tensor> {
        reduce_sum(self, None, false)
    }

    /// The mean over `axes` (see [`reduce_mean`]).
    pub fn mean(&self, axes: &[isize], keepdims: bool) -> Result<Tensor> {
        reduce_mean(self, Some(axes), keepdims)
    }

    /// The mean of every element, as a scalar.
    pub fn mean_all(&self) -> Result<Tensor> {
        reduce_mean(self, None, false)
    }
}

/// Which reduction a [`Reduce`] description runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReduceKind {
    Sum,
    Max,
    Min,
    Prod,
}

impl ReduceKind {
    fn name(self) -> &'static str {
        match self {
            ReduceKind::Sum => "Sum",
            ReduceKind::Max => "Max",
            ReduceKind::Min => "Min",
            ReduceKind::Prod => "Prod",
        }
    }
}

/// The description of a reduction: its kind, axes and `keepdims`.
struct Reduce {
    kind: ReduceKind,
    axes: SmallVec<[isize; 4]>,
    keepdims: bool,
}

impl Op for Reduce {
    fn name(&self) -> &'static str {
        self.kind.name()
    }

    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let [x] = super::args(self.name(), inputs)?;
        let (axes, k) = (Some(&self.axes[..]), self.keepdims);
        Ok(vec![match self.kind {
            ReduceKind::Sum => reduce_sum(x, axes, k)?,
            ReduceKind::Max => reduce_max(x, axes, k)?,
            ReduceKind::Min => reduce_min(x, axes, k)?,
            ReduceKind::Prod => reduce_prod(x, axes, k)?,
        }])
    }

    /// Only the sum: its rule reshapes and broadcasts behind the row dims.
    fn carries_rows(&self) -> bool {
        self.kind == ReduceKind::Sum
    }

    fn fusion(&self) -> crate::op::Fusion<'_> {
        match self.kind {
            ReduceKind::Sum => crate::op::Fusion::Sum {
                axes: self.axes.len(),
            },
            _ => crate::op::Fusion::None,
        }
    }
}

/// The description of `Cumsum` / `Cumprod`.
struct Scan {
    product: bool,
    axis: isize,
    exclusive: bool,
    reverse: bool,
}

impl Op for Scan {
    fn name(&self) -> &'static str {
        if self.product {
            "Cumprod"
        } else {
            "Cumsum"
        }
    }

    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let [x] = super::args(self.name(), inputs)?;
        let f = if self.product { cumprod } else { cumsum };
        Ok(vec![f(x, self.axis, self.exclusive, self.reverse)?])
    }
}

/// Sum over `axes` (all if `None`), optionally keeping reduced dims as size 1.
pub fn reduce_sum(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    let again = |i: &[Tensor]| reduce_sum(&i[0], axes, keepdims);
    if let Some(r) = super::half::via_f32("Sum", &[x], again) {
        return r;
    }
    if let Some(r) = super::half::via_i64("Sum", x, |x| reduce_sum(x, axes, keepdims)) {
        return r;
    }
    let ax = reduction_axes("Sum", x.rank(), axes)?;
    let out = Tensor::from_storage(match x.storage() {
        Storage::F32(a) => Storage::F32(sum_axes(a, &ax, keepdims)),
        Storage::F64(a) => Storage::F64(sum_axes(a, &ax, keepdims)),
        Storage::I32(a) => Storage::I32(sum_axes(a, &ax, keepdims)),
        Storage::I64(a) => Storage::I64(sum_axes(a, &ax, keepdims)),
        Storage::C64(a) => Storage::C64(sum_axes(a, &ax, keepdims)),
        Storage::C128(a) => Storage::C128(sum_axes(a, &ax, keepdims)),
        _ => {
            return Err(Error::UnsupportedDType {
                op: "Sum",
                dtype: x.dtype(),
                allowed: "float32, float64, int32, int64",
            })
        }
    });
    if crate::record::is_recording() {
        let out_rank = out.rank();
        let make_rule = || {
            let shape = x.shape().to_vec();
            let kept = kept_shape(&shape, &ax);
            rule(move |g, _| {
                // Row dims of a vectorized Jacobian pass stay in front.
                let lead = super::row_rank(&g[0], out_rank);
                let kept = super::rows_then(&g[0], out_rank, &kept);
                let full: Vec<usize> = g[0].shape()[..lead].iter().chain(&shape).copied().collect();
                let g = ops::reshape(&g[0], &kept)?;
                Ok(vec![Some(ops::broadcast_to(&g, &full)?)])
            })
        };
        // A large sum to one value may head a fused elementwise region, which
        // then never builds the broadcast gradient.
        let fusable = || {
            (out.numel() == 1
                && x.numel() >= super::pointwise::FUSE_MIN
                && matches!(x.dtype(), DType::F32 | DType::F64))
            .then(|| crate::record::Fusable::SumAll(x.shape().into()))
        };
        let op = Reduce {
            kind: ReduceKind::Sum,
            axes: ax.iter().map(|&a| a as isize).collect(),
            keepdims,
        };
        let op = super::op_ref(op);
        crate::record::trace_op(&op, &[x], &[&out]);
        crate::record::record_entry(op, &[(x.id(), x.dtype())], &[&out], make_rule, fusable);
    }
    Ok(out)
}

/// Mean over `axes` (all if `None`). Integer means truncate, as in TF.
pub fn reduce_mean(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    let again = |i: &[Tensor]| reduce_mean(&i[0], axes, keepdims);
    if let Some(r) = super::half::via_f32("Mean", &[x], again) {
        return r;
    }
    let ax = reduction_axes("Mean", x.rank(), axes)?;
    let count: usize = ax.iter().map(|&a| x.shape()[a]).product();
    if x.dtype().is_integer() {
        // TF sums integers without wrapping int32's intermediate sum and
        // divides with truncation; an empty mean is 0.
        let s = reduce_sum(&ops::cast(x, DType::I64)?, axes, keepdims)?;
        let q: Vec<i64> = s
            .to_vec::<i64>()?
            .into_iter()
            .map(|v| if count == 0 { 0 } else { v / count as i64 })
            .collect();
        let out = ops::cast(&Tensor::from_vec(q, s.shape())?, x.dtype())?;
        // Computed from values outside any op: a trace records it as one.
        let axes = axes.map(<[isize]>::to_vec);
        super::trace_only("Mean", &[x], &out, move |i| {
            reduce_mean(&i[0], axes.as_deref(), keepdims)
        });
        return Ok(out);
    }
    let s = reduce_sum(x, axes, keepdims)?;
    // count == 0 gives NaN for floats (0/0), as numpy and TF do.
    ops::div(&s, &Tensor::scalar_of(x.dtype(), count as f64))
}

/// One value per row of the row-major `flat` of `shape` (rows of its last
/// axis, which is not empty): a reduction over that axis alone, its axis
/// kept as 1 when `keepdims`.
fn by_rows<T, R>(
    shape: &[usize],
    flat: &[T],
    keepdims: bool,
    row: impl FnMut(&[T]) -> R,
) -> ArcArray<R, IxDyn> {
    let (&len, outer) = shape.split_last().expect("at least one axis");
    let vals: Vec<R> = flat.chunks_exact(len).map(row).collect();
    let mut out = outer.to_vec();
    if keepdims {
        out.push(1);
    }
    ArcArray::from_shape_vec(IxDyn(&out), vals).expect("one value per row")
}

/// Folds `f` over `axes` (descending, so axis numbers stay valid).
fn fold_axes<T: Clone>(
    a: &ArcArray<T, IxDyn>,
    axes: &[usize],
    keepdims: bool,
    init: T,
    f: impl Fn(&T, &T) -> T + Copy,
) -> ArcArray<T, IxDyn> {
    // The last axis alone of a row-major array (a softmax's max over
    // classes): one fold along each row, index 0 first as `fold_axis` folds
    // (its per-element zips over dynamic-rank views cost several times more).
    if let ([ax], Some(s)) = (axes, a.as_slice()) {
        if *ax + 1 == a.ndim() && a.shape()[*ax] > 0 {
            return by_rows(a.shape(), s, keepdims, |row| {
                row.iter().fold(init.clone(), |acc, x| f(&acc, x))
            });
        }
    }
    let mut r = a.to_owned();
    for &ax in axes.iter().rev() {
        r = r.fold_axis(Axis(ax), init.clone(), |acc, x| f(acc, x));
    }
    if keepdims {
        let shape = kept_shape(a.shape(), axes);
        r = r
            // A reduction of a transposed input may come back in another
            // layout; into_shape_clone copies only then.
            .into_shape_clone(IxDyn(&shape))
            .expect("same element count");
    }
    r.into_shared()
}

/// A reduction's result shape with reduced dims kept, as reshape arguments.
fn kept_isize(shape: &[usize], axes: &[usize]) -> Vec<isize> {
    kept_shape(shape, axes)
        .into_iter()
        .map(|d| d as isize)
        .collect()
}

fn extremum(
    kind: ReduceKind,
    x: &Tensor,
    axes: Option<&[isize]>,
    keepdims: bool,
    max: bool,
) -> Result<Tensor> {
    let name = kind.name();
    let again = |i: &[Tensor]| extremum(kind, &i[0], axes, keepdims, max);
    if let Some(r) = super::half::via_f32(name, &[x], again) {
        return r;
    }
    crate::kernels::registered::check(name, x.dtype())?;
    let ax = reduction_axes(name, x.rank(), axes)?;
    macro_rules! pick {
        ($a:expr, $lo:expr, $hi:expr) => {
            if max {
                fold_axes($a, &ax, keepdims, $lo, |acc, v| {
                    if *v > *acc || v != v {
                        *v
                    } else {
                        *acc
                    }
                })
            } else {
                fold_axes($a, &ax, keepdims, $hi, |acc, v| {
                    if *v < *acc || v != v {
                        *v
                    } else {
                        *acc
                    }
                })
            }
        };
    }
    #[allow(clippy::eq_op)]
    let out = Tensor::from_storage(match x.storage() {
        Storage::F32(a) => Storage::F32(pick!(a, f32::NEG_INFINITY, f32::INFINITY)),
        Storage::F64(a) => Storage::F64(pick!(a, f64::NEG_INFINITY, f64::INFINITY)),
        Storage::I32(a) => Storage::I32(pick!(a, i32::MIN, i32::MAX)),
        Storage::I64(a) => Storage::I64(pick!(a, i64::MIN, i64::MAX)),
        Storage::U8(a) => Storage::U8(pick!(a, u8::MIN, u8::MAX)),
        Storage::I8(a) => Storage::I8(pick!(a, i8::MIN, i8::MAX)),
        Storage::I16(a) => Storage::I16(pick!(a, i16::MIN, i16::MAX)),
        Storage::U16(a) => Storage::U16(pick!(a, u16::MIN, u16::MAX)),
        Storage::U32(a) => Storage::U32(pick!(a, u32::MIN, u32::MAX)),
        Storage::U64(a) => Storage::U64(pick!(a, u64::MIN, u64::MAX)),
        _ => {
            return Err(Error::UnsupportedDType {
                op: name,
                dtype: x.dtype(),
                allowed: "float32, float64, int32, int64",
            })
        }
    });
    let op = Reduce {
        kind,
        axes: ax.iter().map(|&a| a as isize).collect(),
        keepdims,
    };
    record(op, &[x], &[&out], || {
        let (x, y) = (x.clone(), out.clone());
        let kept = kept_isize(x.shape(), &ax);
        let ax_i: Vec<isize> = ax.iter().map(|&a| a as isize).collect();
        rule(move |g, _| {
            // TF's _MinOrMaxGrad: ties share the gradient evenly.
            let yk = ops::reshape(&y, &kept)?;
            let gk = ops::reshape(&g[0], &kept)?;
            let ind = ops::cast(&ops::equal(&yk, &x)?, x.dtype())?;
            let count = reduce_sum(&ind, Some(&ax_i), true)?;
            Ok(vec![Some(ops::mul(&ops::div(&ind, &count)?, &gk)?)])
        })
    });
    Ok(out)
}

/// Maximum over `axes`; the gradient is split evenly between tied maxima (as TF).
pub fn reduce_max(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    extremum(ReduceKind::Max, x, axes, keepdims, true)
}

/// Minimum over `axes`; the gradient is split evenly between tied minima (as TF).
pub fn reduce_min(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    extremum(ReduceKind::Min, x, axes, keepdims, false)
}

/// Product over `axes`. The gradient is the product of the other elements, so
/// zeros are handled exactly (TF's `_ProdGrad`).
pub fn reduce_prod(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    let again = |i: &[Tensor]| reduce_prod(&i[0], axes, keepdims);
    if let Some(r) = super::half::via_f32("Prod", &[x], again) {
        return r;
    }
    if let Some(r) = super::half::via_i64("Prod", x, |x| reduce_prod(x, axes, keepdims)) {
        return r;
    }
    let ax = reduction_axes("Prod", x.rank(), axes)?;
    let out = Tensor::from_storage(match x.storage() {
        Storage::F32(a) => Storage::F32(fold_axes(a, &ax, keepdims, 1.0, |p, v| p * v)),
        Storage::F64(a) => Storage::F64(fold_axes(a, &ax, keepdims, 1.0, |p, v| p * v)),
        Storage::I32(a) => Storage::I32(fold_axes(a, &ax, keepdims, 1, |p, v| p.wrapping_mul(*v))),
        Storage::I64(a) => Storage::I64(fold_axes(a, &ax, keepdims, 1, |p, v| p.wrapping_mul(*v))),
        Storage::C64(a) => Storage::C64(fold_axes(a, &ax, keepdims, c64::new(1.0, 0.0), |p, v| {
            p * v
        })),
        Storage::C128(a) => {
            Storage::C128(fold_axes(a, &ax, keepdims, c128::new(1.0, 0.0), |p, v| {
                p * v
            }))
        }
        _ => {
            return Err(Error::UnsupportedDType {
                op: "Prod",
                dtype: x.dtype(),
                allowed: "float32, float64, int32, int64",
            })
        }
    });
    let op = Reduce {
        kind: ReduceKind::Prod,
        axes: ax.iter().map(|&a| a as isize).collect(),
        keepdims,
    };
    record(op, &[x], &[&out], || {
        let x = x.clone();
        let ax = ax.clone();
        rule(move |g, _| {
            let shape = x.shape().to_vec();
            let rank = shape.len();
            // Reduced axes first, flattened to one; the rest flattened to another.
            let rest: Vec<usize> = (0..rank).filter(|a| !ax.contains(a)).collect();
            let perm: Vec<usize> = ax.iter().chain(rest.iter()).copied().collect();
            let r: usize = ax.iter().map(|&a| shape[a]).product();
            let n: usize = rest.iter().map(|&a| shape[a]).product();
            let xt = ops::reshape(&ops::transpose(&x, Some(&perm))?, &[r as isize, n as isize])?;
            let left = cumprod(&xt, 0, true, false)?;
            let right = cumprod(&xt, 0, true, true)?;
            // Complex: the conjugates (the gradient's conjugate direction, as TF).
            let others = ops::mul(
                &ops::complex::conj_if_complex(&left)?,
                &ops::complex::conj_if_complex(&right)?,
            )?;
            let gk = ops::reshape(&g[0], &[1, n as isize])?;
            let gt = ops::mul(&others, &gk)?;
            let permuted: Vec<isize> = perm.iter().map(|&p| shape[p] as isize).collect();
            let mut inv = vec![0; rank];
            for (i, &p) in perm.iter().enumerate() {
                inv[p] = i;
            }
            let back = ops::transpose(&ops::reshape(&gt, &permuted)?, Some(&inv))?;
            Ok(vec![Some(back)])
        })
    });
    Ok(out)
}

/// `log(sum(exp(x)))` over `axes`, stable for large inputs (as TF).
pub fn reduce_logsumexp(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    let again = |i: &[Tensor]| reduce_logsumexp(&i[0], axes, keepdims);
    if let Some(r) = super::half::via_f32("Exp", &[x], again) {
        return r;
    }
    let ax = reduction_axes("ReduceLogSumExp", x.rank(), axes)?;
    let ax_i: Vec<isize> = ax.iter().map(|&a| a as isize).collect();
    let raw = reduce_max(&ops::stop_gradient(x), Some(&ax_i), true)?;
    let m = ops::where_(&ops::is_finite(&raw)?, &raw, &ops::zeros_like(&raw)?)?;
    let s = reduce_sum(&ops::exp(&ops::sub(x, &m)?)?, Some(&ax_i), true)?;
    let r = ops::add(&ops::log(&s)?, &m)?;
    if keepdims {
        Ok(r)
    } else {
        let shape: Vec<isize> = x
            .shape()
            .iter()
            .enumerate()
            .filter(|(i, _)| !ax.contains(i))
            .map(|(_, &d)| d as isize)
            .collect();
        ops::reshape(&r, &shape)
    }
}

/// Population variance over `axes` (floats; complex gives the real dtype:
/// the mean of `|z - mean|^2`, as TF).
pub fn reduce_variance(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    let again = |i: &[Tensor]| reduce_variance(&i[0], axes, keepdims);
    if let Some(r) = super::half::via_f32("Mean", &[x], again) {
        return r;
    }
    if x.dtype().is_complex() {
        // TF: the mean of real(conj(d) * d) = |z - mean|^2, in the real dtype.
        let mean = reduce_mean(x, axes, true)?;
        let d = ops::sub(x, &mean)?;
        let sq = ops::real(&ops::mul(&ops::conj(&d)?, &d)?)?;
        return reduce_mean(&sq, axes, keepdims);
    }
    if !x.dtype().is_floating() {
        return Err(Error::UnsupportedDType {
            op: "ReduceVariance",
            dtype: x.dtype(),
            allowed: "float32, float64, complex64, complex128",
        });
    }
    let mean = reduce_mean(x, axes, true)?;
    let d = ops::sub(x, &mean)?;
    reduce_mean(&ops::mul(&d, &d)?, axes, keepdims)
}

/// Population standard deviation over `axes` (floats; complex gives the real
/// dtype, as TF).
pub fn reduce_std(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    ops::sqrt(&reduce_variance(x, axes, keepdims)?)
}

fn logical_reduce(
    name: &'static str,
    x: &Tensor,
    axes: Option<&[isize]>,
    keepdims: bool,
    any: bool,
) -> Result<Tensor> {
    let a = x.array::<bool>().map_err(|_| Error::UnsupportedDType {
        op: name,
        dtype: x.dtype(),
        allowed: "bool",
    })?;
    let ax = reduction_axes(name, x.rank(), axes)?;
    let r = if any {
        fold_axes(a, &ax, keepdims, false, |p, v| *p || *v)
    } else {
        fold_axes(a, &ax, keepdims, true, |p, v| *p && *v)
    };
    Ok(Tensor::from_storage(Storage::Bool(r)))
}

/// Logical or over `axes` of a bool tensor.
pub fn reduce_any(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    let out = logical_reduce("Any", x, axes, keepdims, true)?;
    let axes = axes.map(<[isize]>::to_vec);
    super::trace_only("Any", &[x], &out, move |i| {
        reduce_any(&i[0], axes.as_deref(), keepdims)
    });
    Ok(out)
}

/// Logical and over `axes` of a bool tensor.
pub fn reduce_all(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    let out = logical_reduce("All", x, axes, keepdims, false)?;
    let axes = axes.map(<[isize]>::to_vec);
    super::trace_only("All", &[x], &out, move |i| {
        reduce_all(&i[0], axes.as_deref(), keepdims)
    });
    Ok(out)
}

fn arg_extremum(
    name: &'static str,
    x: &Tensor,
    axis: isize,
    max: bool,
    nan_wins: bool,
) -> Result<Tensor> {
    let ax = normalize_axis(axis, x.rank()).map_err(|_| {
        Error::invalid(format!(
            "Expected dimension in the range [{}, {}), but got {axis} [Op:{name}]",
            -(x.rank() as isize),
            x.rank()
        ))
    })?;
    if x.shape()[ax] == 0 {
        return Err(Error::invalid(format!(
            "Reduction axis {axis} is empty in shape {} [Op:{name}]",
            crate::shape::ShapeDisplay::of(x.shape())
        )));
    }
    macro_rules! arg {
        ($a:expr) => {{
            let a = $a;
            Storage::I64(
                a.map_axis(Axis(ax), |lane| {
                    let mut best = 0usize;
                    for (i, v) in lane.iter().enumerate() {
                        let b = &lane[best];
                        #[allow(clippy::eq_op)]
                        let better = if max { *v > *b } else { *v < *b }
                            || if nan_wins {
                                v != v && b == b
                            } else {
                                // TF skips NaN: any number beats a NaN best.
                                b != b && v == v
                            };
                        if better {
                            best = i;
                        }
                    }
                    best as i64
                })
                .into_shared(),
            )
        }};
    }
    Ok(Tensor::from_storage(
        crate::with_real_storage!(x.storage(), a => arg!(a), _ => {
            return Err(Error::UnsupportedDType {
                op: name,
                dtype: x.dtype(),
                allowed: "real numbers and bool",
            })
        }),
    ))
}

/// Index (int64) of the largest element along `axis`; the first on ties.
/// NaN is skipped, as in TF (`argmax([1, nan, 0])` is 0; all NaN gives 0).
pub fn argmax(x: &Tensor, axis: isize) -> Result<Tensor> {
    let out = arg_extremum("ArgMax", x, axis, true, false)?;
    super::trace_only("ArgMax", &[x], &out, move |i| argmax(&i[0], axis));
    Ok(out)
}

/// Index (int64) of the smallest element along `axis`; the first on ties.
/// NaN is skipped, as in TF.
pub fn argmin(x: &Tensor, axis: isize) -> Result<Tensor> {
    let out = arg_extremum("ArgMin", x, axis, false, false)?;
    super::trace_only("ArgMin", &[x], &out, move |i| argmin(&i[0], axis));
    Ok(out)
}

/// [`argmax`] where the first NaN wins: `max_pool2d` picks its window's
/// element with it, so a NaN in a window propagates (as `reduce_max` does).
pub(crate) fn argmax_nan_first(x: &Tensor, axis: isize) -> Result<Tensor> {
    arg_extremum("ArgMax", x, axis, true, true)
}

fn scan<T: Copy + Send + Sync>(
    a: &ArcArray<T, IxDyn>,
    axis: usize,
    exclusive: bool,
    reverse: bool,
    init: T,
    f: impl Fn(T, T) -> T,
) -> ArcArray<T, IxDyn> {
    let mut out = a.to_owned();
    for mut lane in out.lanes_mut(Axis(axis)) {
        let n = lane.len();
        let mut acc = init;
        for k in 0..n {
            let i = if reverse { n - 1 - k } else { k };
            let v = lane[i];
            if exclusive {
                lane[i] = acc;
                acc = f(acc, v);
            } else {
                acc = f(acc, v);
                lane[i] = acc;
            }
        }
    }
    out.into_shared()
}

fn scan_axis(name: &'static str, x: &Tensor, axis: isize) -> Result<usize> {
    normalize_axis(axis, x.rank()).map_err(|_| {
        Error::invalid(format!(
            "{name}: axis {axis} is out of range for a tensor of rank {} [Op:{name}]",
            x.rank()
        ))
    })
}

/// A running sum (or product) along `ax` of any numeric dtype.
fn scan_numeric(
    name: &'static str,
    x: &Tensor,
    ax: usize,
    exclusive: bool,
    reverse: bool,
    product: bool,
) -> Result<Tensor> {
    macro_rules! go {
        ($a:expr, $zero:expr, $one:expr, $add:expr, $mul:expr) => {
            if product {
                scan($a, ax, exclusive, reverse, $one, $mul)
            } else {
                scan($a, ax, exclusive, reverse, $zero, $add)
            }
        };
    }
    Ok(Tensor::from_storage(match x.storage() {
        Storage::F32(a) => Storage::F32(go!(a, 0.0, 1.0, |p, v| p + v, |p, v| p * v)),
        Storage::F64(a) => Storage::F64(go!(a, 0.0, 1.0, |p, v| p + v, |p, v| p * v)),
        Storage::I32(a) => Storage::I32(go!(a, 0, 1, i32::wrapping_add, i32::wrapping_mul)),
        Storage::I64(a) => Storage::I64(go!(a, 0, 1, i64::wrapping_add, i64::wrapping_mul)),
        Storage::C64(a) => Storage::C64(go!(
            a,
            c64::new(0.0, 0.0),
            c64::new(1.0, 0.0),
            |p, v| p + v,
            |p, v| p * v
        )),
        Storage::C128(a) => Storage::C128(go!(
            a,
            c128::new(0.0, 0.0),
            c128::new(1.0, 0.0),
            |p, v| p + v,
            |p, v| p * v
        )),
        _ => {
            return Err(Error::UnsupportedDType {
                op: name,
                dtype: x.dtype(),
                allowed: "float32, float64, int32, int64",
            })
        }
    }))
}

/// `a / b`, and 0 where `b` is 0 (TF's `div_no_nan`), written with `where`
/// so that it is differentiable like TF's (no gradient where `b` is 0).
fn div_no_nan(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let zero = ops::equal(b, &Tensor::scalar_of(b.dtype(), 0.0))?;
    let safe = ops::where_(&zero, &Tensor::scalar_of(b.dtype(), 1.0), b)?;
    let q = ops::div(a, &safe)?;
    ops::where_(&zero, &ops::zeros_like(&q)?, &q)
}

/// Cumulative sum along `axis` (TF's `exclusive` and `reverse` flags).
pub fn cumsum(x: &Tensor, axis: isize, exclusive: bool, reverse: bool) -> Result<Tensor> {
    let again = |i: &[Tensor]| cumsum(&i[0], axis, exclusive, reverse);
    if let Some(r) = super::half::via_f32("Cumsum", &[x], again) {
        return r;
    }
    if let Some(r) = super::half::via_i64("Cumsum", x, |x| cumsum(x, axis, exclusive, reverse)) {
        return r;
    }
    let ax = scan_axis("Cumsum", x, axis)?;
    let out = scan_numeric("Cumsum", x, ax, exclusive, reverse, false)?;
    let op = Scan {
        product: false,
        axis: ax as isize,
        exclusive,
        reverse,
    };
    record(op, &[x], &[&out], || {
        rule(move |g, _| Ok(vec![Some(cumsum(&g[0], ax as isize, exclusive, !reverse)?)]))
    });
    Ok(out)
}

/// Cumulative product along `axis` (TF's `exclusive` and `reverse` flags).
pub fn cumprod(x: &Tensor, axis: isize, exclusive: bool, reverse: bool) -> Result<Tensor> {
    let again = |i: &[Tensor]| cumprod(&i[0], axis, exclusive, reverse);
    if let Some(r) = super::half::via_f32("Cumprod", &[x], again) {
        return r;
    }
    if let Some(r) = super::half::via_i64("Cumprod", x, |x| cumprod(x, axis, exclusive, reverse)) {
        return r;
    }
    let ax = scan_axis("Cumprod", x, axis)?;
    let out = scan_numeric("Cumprod", x, ax, exclusive, reverse, true)?;
    let op = Scan {
        product: true,
        axis: ax as isize,
        exclusive,
        reverse,
    };
    record(op, &[x], &[&out], || {
        let (x, y) = (x.clone(), out.clone());
        // TF's _CumprodGrad: divides by x with div_no_nan (0 where x is 0).
        rule(move |g, _| {
            let s = cumsum(&ops::mul(&y, &g[0])?, ax as isize, exclusive, !reverse)?;
            Ok(vec![Some(div_no_nan(&s, &x)?)])
        })
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The row fold over the last axis gives what `fold_axis` gives (NaNs,
    /// ties of -0.0 and 0.0, empty rows and batches), with and without the
    /// kept dimension.
    #[test]
    fn folding_the_last_axis_by_rows_matches_fold_axis() {
        let max = |acc: &f32, v: &f32| if *v > *acc || v != v { *v } else { *acc };
        let vals = [1.0, -0.0, 0.0, f32::NAN, -3.0, 2.5, f32::INFINITY, -0.0];
        for shape in [vec![7], vec![4, 3], vec![2, 3, 5], vec![0, 3], vec![3, 1]] {
            let n: usize = shape.iter().product();
            let v: Vec<f32> = (0..n).map(|i| vals[(i * 5 + i / 3) % vals.len()]).collect();
            let a = ArcArray::from_shape_vec(IxDyn(&shape), v).unwrap();
            let ax = shape.len() - 1;
            for keepdims in [false, true] {
                let got = fold_axes(&a, &[ax], keepdims, f32::NEG_INFINITY, max);
                let mut want = a.fold_axis(Axis(ax), f32::NEG_INFINITY, |acc, x| max(acc, x));
                if keepdims {
                    want = want.insert_axis(Axis(ax));
                }
                assert_eq!(got.shape(), want.shape(), "{shape:?} keepdims={keepdims}");
                let bits =
                    |t: &ArcArray<f32, IxDyn>| t.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want.into_shared()), "{shape:?}");
            }
        }
    }

    /// Sums over the last axis by rows, and over the first by accumulated
    /// rows, give ndarray's `sum_axis` bits (its eightfold unrolled lanes:
    /// rows shorter than, equal to and longer than eight, with remainders;
    /// values whose sums depend on the order), with and without the kept
    /// dimension.
    #[test]
    fn sums_over_the_first_or_last_axis_are_sum_axis_bits() {
        for shape in [
            vec![128, 10],
            vec![5, 3],
            vec![4, 8],
            vec![3, 37],
            vec![2, 3, 19],
            vec![0, 4],
            vec![6, 2],
        ] {
            let n: usize = shape.iter().product();
            let v: Vec<f32> = (0..n)
                .map(|i| ((i * 7919) % 1013) as f32 * 1e-3 * if i % 3 == 0 { 1e4 } else { -1.0 })
                .collect();
            let a = ArcArray::from_shape_vec(IxDyn(&shape), v).unwrap();
            for ax in [0, shape.len() - 1] {
                for keepdims in [false, true] {
                    let got = sum_axes(&a, &[ax], keepdims);
                    let mut want = a.sum_axis(Axis(ax));
                    if keepdims {
                        want = want.insert_axis(Axis(ax));
                    }
                    assert_eq!(got.shape(), want.shape(), "{shape:?} axis {ax}");
                    let bits = |t: ndarray::ArrayViewD<'_, f32>| {
                        t.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
                    };
                    assert_eq!(bits(got.view()), bits(want.view()), "{shape:?} axis {ax}");
                }
            }
        }
    }
}
