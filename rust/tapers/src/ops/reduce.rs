//! Reductions over axes: sum and mean.

use ndarray::{ArcArray, Axis, IxDyn};

use super::{record, rule};
use crate::error::{Error, Result};
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

fn sum_axes<T>(a: &ArcArray<T, IxDyn>, axes: &[usize], keepdims: bool) -> ArcArray<T, IxDyn>
where
    T: Clone + num_traits::Zero + std::ops::Add<Output = T>,
{
    let mut r = a.to_owned();
    // Descending, so earlier axis numbers stay valid.
    for &ax in axes.iter().rev() {
        r = r.sum_axis(Axis(ax));
    }
    if keepdims {
        let shape = kept_shape(a.shape(), axes);
        r = r
            .into_shape_with_order(IxDyn(&shape))
            .expect("same element count");
    }
    r.into_shared()
}

/// Sum over `axes` (all if `None`), optionally keeping reduced dims as size 1.
pub fn reduce_sum(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    let ax = reduction_axes("Sum", x.rank(), axes)?;
    let out = Tensor::from_storage(match x.storage() {
        Storage::F32(a) => Storage::F32(sum_axes(a, &ax, keepdims)),
        Storage::F64(a) => Storage::F64(sum_axes(a, &ax, keepdims)),
        Storage::I32(a) => Storage::I32(sum_axes(a, &ax, keepdims)),
        Storage::I64(a) => Storage::I64(sum_axes(a, &ax, keepdims)),
        Storage::Bool(_) => {
            return Err(Error::UnsupportedDType {
                op: "Sum",
                dtype: x.dtype(),
                allowed: "float32, float64, int32, int64",
            })
        }
    });
    record("Sum", &[x], &out, || {
        let shape = x.shape().to_vec();
        let kept: Vec<isize> = kept_shape(&shape, &ax)
            .into_iter()
            .map(|d| d as isize)
            .collect();
        rule(move |g, _| {
            let g = ops::reshape(&g[0], &kept)?;
            Ok(vec![Some(ops::broadcast_to(&g, &shape)?)])
        })
    });
    Ok(out)
}

/// Mean over `axes` (all if `None`). Integer means truncate, as in TF.
pub fn reduce_mean(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    let ax = reduction_axes("Mean", x.rank(), axes)?;
    let count: usize = ax.iter().map(|&a| x.shape()[a]).product();
    let s = reduce_sum(x, axes, keepdims)?;
    // count == 0 gives NaN for floats (0/0), as numpy and TF do.
    ops::div(&s, &Tensor::scalar_of(x.dtype(), count as f64))
}
