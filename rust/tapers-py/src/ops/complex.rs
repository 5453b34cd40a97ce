//! Complex numbers (the core's `ops/complex.rs`): binding internals that
//! `tapers._complex` wraps with TensorFlow's Python-side dtype checks
//! (`tf.complex`, `tf.math.real`, `imag`, `conj`, `angle`).

use pyo3::prelude::*;

use tapers::ops;

use super::{Exports, Ns};
use crate::args::TensorArg;
use crate::call::{call, Work};

/// `real + i imag` with broadcasting (both float32 or both float64). Taped.
#[pyfunction(name = "_complex")]
fn complex(
    py: Python<'_>,
    real: &Bound<'_, PyAny>,
    imag: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let (a, b) = crate::convert::binary_operands(real, imag)?;
    call(py, None, Work::broadcast(&[&a, &b]), || {
        ops::complex(&a, &b)
    })
}

/// The real part (a real tensor as it is). Taped.
#[pyfunction(name = "_real")]
fn real(py: Python<'_>, x: TensorArg) -> PyResult<Py<PyAny>> {
    let t = x.0;
    call(py, None, Work::of(&[&t]), || ops::real(&t))
}

/// The imaginary part (zeros for a real tensor). Taped.
#[pyfunction(name = "_imag")]
fn imag(py: Python<'_>, x: TensorArg) -> PyResult<Py<PyAny>> {
    let t = x.0;
    call(py, None, Work::of(&[&t]), || ops::imag(&t))
}

/// The complex conjugate (a real tensor as it is). Taped.
#[pyfunction(name = "_conj")]
fn conj(py: Python<'_>, x: TensorArg) -> PyResult<Py<PyAny>> {
    let t = x.0;
    call(py, None, Work::of(&[&t]), || ops::conj(&t))
}

/// The argument `atan2(imag, real)` (real floats: pi below 0, else 0). Taped.
#[pyfunction(name = "_angle")]
fn angle(py: Python<'_>, x: TensorArg) -> PyResult<Py<PyAny>> {
    let t = x.0;
    call(py, None, Work::of(&[&t]), || ops::angle(&t))
}

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    let m = ex.module(Ns::Math).clone();
    ex.internal(
        Ns::Math,
        "_complex",
        wrap_pyfunction!(complex, &m)?.as_any(),
    )?;
    ex.internal(Ns::Math, "_real", wrap_pyfunction!(real, &m)?.as_any())?;
    ex.internal(Ns::Math, "_imag", wrap_pyfunction!(imag, &m)?.as_any())?;
    ex.internal(Ns::Math, "_conj", wrap_pyfunction!(conj, &m)?.as_any())?;
    ex.internal(Ns::Math, "_angle", wrap_pyfunction!(angle, &m)?.as_any())
}
