//! Arithmetic (the core's `ops/arith.rs`).

use pyo3::prelude::*;

use tapers::ops;

use super::{binary, export, name_doc, unary, Exports};
use crate::args::{Name, Tensors};
use crate::call::{call, Work};

unary!(
    negative => ops::neg, "Elementwise negation (integers wrap).";
);

binary!(
    add => ops::add, "Elementwise x + y (integers wrap on overflow).";
    subtract => ops::sub, "Elementwise x - y (integers wrap on overflow).";
    multiply => ops::mul, "Elementwise x * y (integers wrap on overflow).";
    divide => crate::tensor::truediv, "Elementwise true division x / y; integer inputs give float64, as in TensorFlow.";
    floordiv => ops::floordiv, "Elementwise floor division. Integer division by zero raises ``InvalidArgumentError``.";
    floormod => ops::floormod, "Elementwise remainder with the sign of y (Python's ``%``).";
    pow => ops::pow, "Elementwise x ** y. Negative integer exponents of integers raise ``InvalidArgumentError``.";
    maximum => ops::maximum, "Elementwise maximum. On ties the gradient goes to x, as in TensorFlow.";
    minimum => ops::minimum, "Elementwise minimum. On ties the gradient goes to x, as in TensorFlow.";
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

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    export!(ex, [Math, Tf]: negative, add, subtract, multiply, divide, floordiv, floormod, pow);
    export!(ex, [Math, Tf]: maximum, minimum, add_n);
    Ok(())
}
