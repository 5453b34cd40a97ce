//! Shapes, layouts and dtypes (the core's `ops/array.rs`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use tapers::{ops, DType, Tensor};

use super::{export, name_doc, Exports};
use crate::args::{
    dtype_or, Axes, DTypeArg, Multiples, Name, NewShape, OutType, Perm, Shape, Size, Splits,
    TensorArg, Tensors,
};
use crate::call::{call, Work};
use crate::convert::{binary_operands, to_tensor, Want};
use crate::errors::IntoPyResult;
use crate::tensor::value_of;

/// Gives a tensor a new shape with the same elements in row-major order (``tf.reshape``).
///
/// Parameters
/// ----------
/// tensor : Tensor-like
///     The values.
/// shape : sequence of int
///     The new shape; one entry may be -1 (inferred).
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Shares memory with ``tensor`` when it is contiguous; differentiable.
///
/// Raises
/// ------
/// InvalidArgumentError
///     When the element counts differ (the message names both shapes).
#[pyfunction]
#[pyo3(signature = (tensor, shape, name=None))]
pub fn reshape(
    py: Python<'_>,
    tensor: TensorArg,
    shape: NewShape,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = tensor.0;
    call(py, name, Work::of(&[&t]), || ops::reshape(&t, &shape.0))
}

/// Permutes the axes (``tf.transpose``).
///
/// Parameters
/// ----------
/// a : Tensor-like
///     The values.
/// perm : sequence of int, optional
///     The new order of the axes; reversed when None.
/// conjugate : bool, default False
///     Conjugate complex elements too (no effect on real dtypes).
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Differentiable.
#[pyfunction]
#[pyo3(signature = (a, perm=None, conjugate=false, name=None))]
pub fn transpose(
    py: Python<'_>,
    a: TensorArg,
    perm: Option<Perm>,
    conjugate: bool,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = a.0;
    let perm = perm.map(|p| p.resolve(t.rank())).transpose()?;
    call(py, name, Work::of(&[&t]), || {
        let out = ops::transpose(&t, perm.as_deref())?;
        // `conj` returns a real tensor as it is.
        if conjugate {
            ops::conj(&out)
        } else {
            Ok(out)
        }
    })
}

/// Repeats a tensor along broadcast axes to reach ``shape`` (``tf.broadcast_to``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     The values; its shape must broadcast to ``shape`` (numpy's rules).
/// shape : sequence of int
///     The target shape (non-negative entries).
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Differentiable: the gradient sums over the broadcast axes. An output
///     too large to allocate raises ``ResourceExhaustedError``.
#[pyfunction]
#[pyo3(signature = (input, shape, name=None))]
pub fn broadcast_to(
    py: Python<'_>,
    input: TensorArg,
    shape: Shape,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = input.0;
    let work = Work::of(&[&t]).max(Work::shape(&shape.0));
    call(py, name, work, || ops::broadcast_to(&t, &shape.0))
}

/// Converts elements to another dtype (``tf.cast``).
///
/// Parameters
/// ----------
/// x : Tensor-like
///     The values.
/// dtype : DType or str
///     The new element type.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Floats to integers truncate toward zero (out-of-range values
///     saturate, where TensorFlow's result is platform-defined); nonzero is
///     ``True``. Differentiable between float dtypes only: a cast to an
///     integer dtype cuts the gradient (``GradientTape.explain`` says so).
#[pyfunction]
#[pyo3(signature = (x, dtype, name=None))]
pub fn cast(
    py: Python<'_>,
    x: TensorArg,
    dtype: DTypeArg,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = x.0;
    call(py, name, Work::of(&[&t]), || ops::cast(&t, dtype.0))
}

/// Picks elements from ``x`` where ``condition`` holds and from ``y`` elsewhere (``tf.where``).
///
/// Parameters
/// ----------
/// condition : Tensor-like of bool
///     The selector; broadcasts with ``x`` and ``y``.
/// x, y : Tensor-like, optional
///     The candidates (one dtype; Python scalars take the other's dtype).
///     Without both, the result is the coordinates of ``condition``'s true
///     (for numbers, nonzero) elements: an int64 tensor of shape
///     ``[count, rank]`` in row-major order.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     The broadcast shape. Differentiable in ``x`` and ``y``: each receives
///     the gradient where it was chosen and zero elsewhere; as in TensorFlow,
///     an unchosen branch whose own derivative is infinite there (``sqrt``
///     at 0, say) still turns that zero into NaN.
#[pyfunction(name = "where")]
#[pyo3(signature = (condition, x=None, y=None, name=None))]
pub fn where_(
    py: Python<'_>,
    condition: &Bound<'_, PyAny>,
    x: Option<&Bound<'_, PyAny>>,
    y: Option<&Bound<'_, PyAny>>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let (x, y) = match (x, y) {
        (Some(x), Some(y)) => (x, y),
        (None, None) => {
            let c = to_tensor(condition, Want::Any)?;
            return call(py, name, Work::of(&[&c]), || ops::where_indices(&c));
        }
        _ => {
            return Err(PyValueError::new_err(
                "x and y must both be non-None or both be None.",
            ))
        }
    };
    let c = to_tensor(condition, Want::Exact(DType::Bool))?;
    let (a, b) = binary_operands(x, y)?;
    call(py, name, Work::broadcast(&[&c, &a, &b]), || {
        ops::where_(&c, &a, &b)
    })
}

/// Inserts an axis of size 1 (``tf.expand_dims``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     The values.
/// axis : int
///     Where the new axis goes (negative counts from the end).
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Differentiable.
#[pyfunction]
#[pyo3(signature = (input, axis, name=None))]
pub fn expand_dims(
    py: Python<'_>,
    input: TensorArg,
    axis: isize,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = input.0;
    call(py, name, Work::of(&[&t]), || ops::expand_dims(&t, axis))
}

/// Removes axes of size 1 (``tf.squeeze``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     The values.
/// axis : int or sequence of int, optional
///     The axes to remove (each must have size 1); all size-1 axes when None.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Differentiable.
#[pyfunction]
#[pyo3(signature = (input, axis=None, name=None))]
pub fn squeeze(
    py: Python<'_>,
    input: TensorArg,
    axis: Option<Axes>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = input.0;
    let axes = axis.map(|a| a.0);
    call(py, name, Work::of(&[&t]), || {
        ops::squeeze(&t, axes.as_deref())
    })
}

/// Joins tensors along an existing axis (``tf.concat``).
///
/// Parameters
/// ----------
/// values : sequence of Tensor-like
///     Same rank and dtype; equal sizes except along ``axis``.
/// axis : int
///     The axis to join along (negative counts from the end).
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Differentiable: each input gets its slice of the gradient.
#[pyfunction]
#[pyo3(signature = (values, axis, name=None))]
pub fn concat(
    py: Python<'_>,
    values: Tensors,
    axis: isize,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let ts = values.0;
    call(py, name, Work::total(&ts), || ops::concat(&ts, axis))
}

/// Joins tensors of one shape along a new axis (``tf.stack``).
///
/// Parameters
/// ----------
/// values : sequence of Tensor-like
///     Same shape and dtype.
/// axis : int, default 0
///     Where the new axis goes (negative counts from the end).
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Differentiable.
#[pyfunction]
#[pyo3(signature = (values, axis=0, name=None))]
pub fn stack(
    py: Python<'_>,
    values: Tensors,
    axis: isize,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let ts = values.0;
    call(py, name, Work::total(&ts), || ops::stack(&ts, axis))
}

/// Splits a tensor into its slices along an axis (``tf.unstack``).
///
/// Parameters
/// ----------
/// value : Tensor-like
///     The values.
/// num : int, optional
///     Expected number of slices.
/// axis : int, default 0
///     The axis to unstack.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// list of Tensor
///     Differentiable.
#[pyfunction]
#[pyo3(signature = (value, num=None, axis=0, name=None))]
pub fn unstack(
    py: Python<'_>,
    value: TensorArg,
    num: Option<Size>,
    axis: isize,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = value.0;
    let num = num
        .map(|n| {
            n.at_least(0, |n| {
                format!("Value for attr 'num' of {n} must be at least minimum 0")
            })
        })
        .transpose()?;
    if let Some(n) = num {
        let r = t.rank() as isize;
        let a = if axis < 0 { axis + r } else { axis };
        if a >= 0 && a < r && t.shape()[a as usize] != n {
            return Err(PyValueError::new_err(format!(
                "Cannot infer argument `num` from shape {}: num={n} but the axis has {}",
                tapers::tuple_string(t.shape()),
                t.shape()[a as usize]
            )));
        }
    }
    call(py, name, Work::of(&[&t]), || ops::unstack(&t, axis))
}

/// Splits a tensor along an axis (``tf.split``).
///
/// Parameters
/// ----------
/// value : Tensor-like
///     The values.
/// num_or_size_splits : int or sequence of int
///     A number of equal pieces, or the size of each piece (one may be -1).
/// axis : int, default 0
///     The axis to split.
/// num : int, optional
///     Accepted for TensorFlow compatibility.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// list of Tensor
///     Differentiable.
#[pyfunction]
#[pyo3(signature = (value, num_or_size_splits, axis=0, num=None, name=None))]
pub fn split(
    py: Python<'_>,
    value: TensorArg,
    num_or_size_splits: Splits,
    axis: isize,
    num: Option<isize>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = value.0;
    // TensorFlow needs `num` only when the sizes are a tensor of unknown
    // length, which eager tensors never are.
    let _ = num;
    let a = tapers::normalize_axis(axis, t.rank()).py()?;
    let dim = t.shape()[a];
    let sizes: Vec<usize> = match num_or_size_splits {
        Splits::Count(n) => {
            if n == 0 || dim % n != 0 {
                return Err(crate::errors::to_py(tapers::Error::InvalidArgument(format!(
                    "Number of ways to split should evenly divide the split dimension, but got split_dim {axis} (size = {dim}) and num_split {n} [Op:Split]"
                ))));
            }
            vec![dim / n; n]
        }
        Splits::Sizes(raw) => {
            let known: isize = raw.iter().filter(|&&v| v >= 0).sum();
            raw.iter()
                .map(|&v| {
                    if v < 0 {
                        (dim as isize - known).max(0) as usize
                    } else {
                        v as usize
                    }
                })
                .collect()
        }
    };
    call(py, name, Work::of(&[&t]), || ops::split(&t, &sizes, axis))
}

/// Repeats a tensor along each axis (``tf.tile``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     The values.
/// multiples : sequence of int
///     Repetitions per axis (one per axis of ``input``).
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Differentiable (the gradient sums the copies).
#[pyfunction]
#[pyo3(signature = (input, multiples, name=None))]
pub fn tile(
    py: Python<'_>,
    input: TensorArg,
    multiples: Multiples,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = input.0;
    let m = multiples.0;
    let out = Work::elems(t.numel()).max(Work::elems(
        m.iter().fold(t.numel(), |n, &k| n.saturating_mul(k)),
    ));
    call(py, name, out, || ops::tile(&t, &m))
}

/// One-hot encoding (``tf.one_hot``).
///
/// Parameters
/// ----------
/// indices : Tensor-like of int32 or int64
///     Positions; out-of-range ones give all-``off_value`` rows, as in TensorFlow.
/// depth : int
///     Length of the new axis.
/// on_value, off_value : float, default 1 and 0
///     The two values.
/// axis : int, default -1
///     Where the new axis goes.
/// dtype : DType or str, default float32
///     The element type.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     A constant (no gradient flows into ``indices``).
#[pyfunction]
#[pyo3(signature = (indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None))]
#[allow(clippy::too_many_arguments)]
pub fn one_hot(
    py: Python<'_>,
    indices: TensorArg,
    depth: Size,
    on_value: Option<f64>,
    off_value: Option<f64>,
    axis: Option<isize>,
    dtype: Option<DTypeArg>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let i = indices.0;
    let depth = depth.at_least(0, |d| {
        format!("depth must be non-negative, got: {d} [Op:OneHot]")
    })?;
    let d = dtype_or(dtype, DType::F32);
    let work = Work::elems(i.numel().saturating_mul(depth));
    call(py, name, work, || {
        ops::one_hot(
            &i,
            depth,
            on_value.unwrap_or(1.0),
            off_value.unwrap_or(0.0),
            axis.unwrap_or(-1),
            d,
        )
    })
}

/// The shape of a tensor as a tensor (``tf.shape``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     Any tensor, Variable or value convertible to one.
/// out_type : DType, default int32
///     ``int32`` or ``int64``.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     A vector of length ``rank(input)``. Not differentiable.
#[pyfunction(name = "shape")]
#[pyo3(signature = (input, out_type=None, name=None))]
pub fn shape_of(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    out_type: Option<OutType>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = value_of(input)?;
    let d = out_type.map_or(DType::I32, |d| d.0);
    let v: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
    call(py, name, Work::SMALL, || {
        let n = v.len();
        ops::cast(&Tensor::from_vec(v, &[n])?, d)
    })
}

/// The number of elements of a tensor, as a scalar tensor (``tf.size``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     Any tensor, Variable or value convertible to one.
/// out_type : DType, default int32
///     ``int32`` or ``int64``.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     A scalar. Not differentiable.
#[pyfunction(name = "size")]
#[pyo3(signature = (input, out_type=None, name=None))]
pub fn tensor_size(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    out_type: Option<OutType>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let n = value_of(input)?.numel() as i64;
    let d = out_type.map_or(DType::I32, |d| d.0);
    call(py, name, Work::SMALL, || ops::cast(&Tensor::scalar(n), d))
}

/// The number of axes of a tensor, as an int32 scalar tensor (``tf.rank``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     Any tensor, Variable or value convertible to one.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     An int32 scalar. Not differentiable.
#[pyfunction(name = "rank")]
#[pyo3(signature = (input, name=None))]
pub fn rank_of(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let r = value_of(input)?.rank() as i32;
    call(py, name, Work::SMALL, || Ok(Tensor::scalar(r)))
}

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    export!(ex, [Tf]: reshape, transpose, broadcast_to, cast, where_, expand_dims, squeeze);
    export!(ex, [Tf]: concat, stack, unstack, split, tile, one_hot, shape_of, tensor_size, rank_of);
    Ok(())
}
