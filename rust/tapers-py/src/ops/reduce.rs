//! Reductions and scans (the core's `ops/reduce.rs`).

use pyo3::prelude::*;

use tapers::{ops, DType};

use super::{export, name_doc, Exports};
use crate::args::{Axes, Axis, Name, OutputType, TensorArg};
use crate::call::{call, Work};

/// Defines reduction wrappers: `reduction!(reduce_sum => ops::reduce_sum, "Summary.";)`.
macro_rules! reduction {
    ($($name:ident => $f:path, $doc:literal;)*) => {$(
        #[doc = concat!($doc, "

Parameters
----------
input_tensor : Tensor-like
    The values to reduce.
axis : int or sequence of int, optional
    Axes to reduce (negative counts from the end); all axes when None.
    Duplicates raise ``InvalidArgumentError``.
keepdims : bool, default False
    Keep reduced axes with size 1.
", name_doc!(), "

Returns
-------
Tensor
    Large reductions run in fixed-size chunks summed in a fixed order, so the
    result does not depend on the thread count.")]
        #[pyfunction]
        #[pyo3(signature = (input_tensor, axis=None, keepdims=false, name=None))]
        pub fn $name(
            py: Python<'_>,
            input_tensor: TensorArg,
            axis: Option<Axes>,
            keepdims: bool,
            name: Option<Name>,
        ) -> PyResult<Py<PyAny>> {
            let t = input_tensor.0;
            // TF's reduce_std/reduce_variance refuse integers in Python, with a
            // TypeError, after their first mean has checked the axes.
            let rank = t.rank() as isize;
            let axes_ok = axis.as_ref().is_none_or(|a| a.0.iter().all(|&x| -rank <= x && x < rank));
            if matches!(stringify!($name), "reduce_std" | "reduce_variance") && t.dtype().is_integer() && axes_ok {
                return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                    "Input must be either real or complex. Received integer type <dtype: '{}'>.",
                    t.dtype().name()
                )));
            }
            let axes = axis.map(|a| a.0);
            call(py, name, Work::of(&[&t]), || $f(&t, axes.as_deref(), keepdims))
        }
    )*};
}

reduction!(
    reduce_sum => ops::reduce_sum, "Sum over axes.";
    reduce_mean => ops::reduce_mean, "Mean over axes (integer means truncate, as in TensorFlow).";
    reduce_max => ops::reduce_max, "Maximum over axes. The gradient is split evenly among tied maxima, as in TensorFlow.";
    reduce_min => ops::reduce_min, "Minimum over axes. The gradient is split evenly among tied minima.";
    reduce_prod => ops::reduce_prod, "Product over axes (gradient correct with zeros present).";
    reduce_logsumexp => ops::reduce_logsumexp, "log(sum(exp(x))) over axes, computed stably.";
    reduce_std => ops::reduce_std, "Population standard deviation over axes.";
    reduce_variance => ops::reduce_variance, "Population variance over axes.";
    reduce_any => ops::reduce_any, "Logical OR over axes (bool tensors).";
    reduce_all => ops::reduce_all, "Logical AND over axes (bool tensors).";
);

/// Defines `argmax`/`argmin`: `arg_reduction!(argmax => ops::argmax, "largest", "tf.argmax");`.
macro_rules! arg_reduction {
    ($($name:ident => $f:path, $which:literal, $tf:literal;)*) => {$(
        #[doc = concat!("Index of the ", $which, " value along an axis (``", $tf, "``).

Parameters
----------
input : Tensor-like
    The values (a real dtype).
axis : int, optional
    The axis to search (default 0, as in TensorFlow).
output_type : DType, default int64
    ``int64`` or ``int32``.
", name_doc!(), "

Returns
-------
Tensor
    Integer indices with ``axis`` removed; the first index wins ties. Not
    differentiable (an integer output).")]
        #[pyfunction]
        #[pyo3(signature = (input, axis=None, output_type=None, name=None))]
        pub fn $name(
            py: Python<'_>,
            input: TensorArg,
            axis: Option<Axis>,
            output_type: Option<OutputType>,
            name: Option<Name>,
        ) -> PyResult<Py<PyAny>> {
            let t = input.0;
            let ax = axis.map_or(0, |a| a.0);
            let d = output_type.map_or(DType::I64, |d| d.0);
            call(py, name, Work::of(&[&t]), || $f(&t, ax).and_then(|r| ops::cast(&r, d)))
        }
    )*};
}

arg_reduction!(
    argmax => ops::argmax, "largest", "tf.argmax";
    argmin => ops::argmin, "smallest", "tf.argmin";
);

/// Cumulative sum along an axis (``tf.cumsum``).
///
/// Parameters
/// ----------
/// x : Tensor-like
///     The values.
/// axis : int, default 0
///     The axis to scan (negative counts from the end).
/// exclusive : bool, default False
///     Each output excludes its own element (the first is 0).
/// reverse : bool, default False
///     Scan from the end of the axis.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Same shape and dtype as ``x``. Differentiable: the gradient is the
///     cumulative sum in the opposite direction. Integer sums wrap on overflow.
#[pyfunction]
#[pyo3(signature = (x, axis=0, exclusive=false, reverse=false, name=None))]
pub fn cumsum(
    py: Python<'_>,
    x: TensorArg,
    axis: isize,
    exclusive: bool,
    reverse: bool,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = x.0;
    call(py, name, Work::of(&[&t]), || {
        ops::cumsum(&t, axis, exclusive, reverse)
    })
}

/// Cumulative product along an axis (``tf.math.cumprod``).
///
/// Parameters
/// ----------
/// x : Tensor-like
///     The values.
/// axis : int, default 0
///     The axis to scan (negative counts from the end).
/// exclusive : bool, default False
///     Each output excludes its own element (the first is 1).
/// reverse : bool, default False
///     Scan from the end of the axis.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Same shape and dtype as ``x``. Differentiable; as in TensorFlow, the
///     gradient divides by ``x`` and is not finite where ``x`` is 0.
#[pyfunction]
#[pyo3(signature = (x, axis=0, exclusive=false, reverse=false, name=None))]
pub fn cumprod(
    py: Python<'_>,
    x: TensorArg,
    axis: isize,
    exclusive: bool,
    reverse: bool,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = x.0;
    call(py, name, Work::of(&[&t]), || {
        ops::cumprod(&t, axis, exclusive, reverse)
    })
}

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    export!(ex, [Math, Tf]: reduce_sum, reduce_mean, reduce_max, reduce_min, reduce_prod);
    export!(ex, [Math, Tf]: reduce_logsumexp, reduce_any, reduce_all, argmax, argmin, cumsum);
    export!(ex, [Math]: reduce_std, reduce_variance, cumprod);
    Ok(())
}
