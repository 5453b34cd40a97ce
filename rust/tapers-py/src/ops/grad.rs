//! Ops that only steer gradients (the core's `ops/grad.rs`).

use pyo3::prelude::*;

use tapers::ops;

use super::{export, name_doc, Exports};
use crate::args::{Name, TensorArg};
use crate::call::{call, Work};

/// A tensor equal to ``input`` through which no gradient flows (``tf.stop_gradient``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     The values (shared, not copied).
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     ``GradientTape.explain`` reports paths cut here.
#[pyfunction]
#[pyo3(signature = (input, name=None))]
pub fn stop_gradient(py: Python<'_>, input: TensorArg, name: Option<Name>) -> PyResult<Py<PyAny>> {
    call(py, name, Work::SMALL, || Ok(ops::stop_gradient(&input.0)))
}

/// A new tensor equal to ``input``, through which gradients pass (``tf.identity``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     The values (shared, not copied).
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     A distinct tensor for the tapes: watching it watches the new tensor only.
#[pyfunction]
#[pyo3(signature = (input, name=None))]
pub fn identity(py: Python<'_>, input: TensorArg, name: Option<Name>) -> PyResult<Py<PyAny>> {
    call(py, name, Work::SMALL, || Ok(ops::identity(&input.0)))
}

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    export!(ex, [Tf]: stop_gradient, identity);
    Ok(())
}
