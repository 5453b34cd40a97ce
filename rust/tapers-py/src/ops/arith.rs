//! Arithmetic (the core's `ops/arith.rs`).

use pyo3::prelude::*;

use tapers::ops;

use super::{binary, export, name_doc, unary, Exports};
use crate::args::{Name, Tensors};
use crate::call::{call, Work};

unary!(
    exports_unary;
    [Math, Tf] negative => ops::neg, "Elementwise negation (integers wrap).";
);

binary!(
    exports_binary;
    [Math, Tf] subtract(x, y) => ops::sub, "Elementwise x - y (integers wrap on overflow).";
    [Math, Tf] multiply(x, y) => ops::mul, "Elementwise x * y (integers wrap on overflow).";
    [Math, Tf] floordiv(x, y) => ops::floordiv, "Elementwise floor division. Integer division by zero raises ``InvalidArgumentError``.";
    [Math, Tf] floormod(x, y) => ops::floormod, "Elementwise remainder with the sign of y (Python's ``%``).";
    [Math, Tf] pow(x, y) => ops::pow, "Elementwise x ** y. Negative integer exponents of integers raise ``InvalidArgumentError``.";
    [Math, Tf] maximum(x, y) => ops::maximum, "Elementwise maximum. On ties the gradient goes to x, as in TensorFlow.";
    [Math, Tf] minimum(x, y) => ops::minimum, "Elementwise minimum. On ties the gradient goes to x, as in TensorFlow.";
);

/// Sums a list of tensors of one shape and dtype in one pass (``tf.add_n``).
///
/// Parameters
/// ----------
/// inputs : sequence of Tensor-like
///     At least one tensor; all of the same shape and dtype (no broadcasting,
///     as in TensorFlow).
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Differentiable: each input receives the incoming gradient.
#[pyfunction]
#[pyo3(signature = (inputs, name=None))]
pub fn add_n(py: Python<'_>, inputs: Tensors, name: Option<Name>) -> PyResult<Py<PyAny>> {
    let ts = inputs.0;
    call(py, name, Work::total(&ts), || ops::add_n(&ts))
}

/// Elementwise x + y (integers wrap on overflow).
///
/// Parameters
/// ----------
/// x, y : Tensor-like
///     Broadcast together with NumPy's rules. A Python number takes the other
///     operand's dtype where it can (a Python float beside an integer tensor
///     is left a float, and the pair is refused with ``InvalidArgumentError``,
///     as TensorFlow's ``add`` does); two tensors of different dtypes are an
///     error (``InvalidArgumentError``).
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     The broadcast shape; differentiable for floats.
#[pyfunction]
#[pyo3(signature = (x, y, name=None))]
pub fn add(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: &Bound<'_, PyAny>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let (a, b) = crate::convert::binary_operands_lenient(x, y)?;
    call(py, name, Work::broadcast(&[&a, &b]), || ops::add(&a, &b))
}

/// Elementwise true division x / y; integer inputs give float64, as in TensorFlow.
///
/// Parameters
/// ----------
/// x, y : Tensor-like
///     Broadcast together with NumPy's rules. A Python number takes the other
///     operand's dtype; two tensors of different dtypes are a ``TypeError``,
///     as in TensorFlow's ``divide``.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     The broadcast shape; differentiable for floats.
#[pyfunction]
#[pyo3(signature = (x, y, name=None))]
pub fn divide(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: &Bound<'_, PyAny>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let (a, b) = crate::convert::binary_operands(x, y)?;
    crate::tensor::truediv_dtypes(&a, &b)?;
    call(py, name, Work::broadcast(&[&a, &b]), || {
        crate::tensor::truediv(&a, &b)
    })
}

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    exports_unary(ex)?;
    exports_binary(ex)?;
    export!(ex, [Math, Tf]: add, add_n, divide);
    Ok(())
}
