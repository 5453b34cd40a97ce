//! `tapers.random.Generator`: seeded random tensors from the core.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use tapers::random::Generator;
use tapers::DType;

use super::Exports;
use crate::args::{dtype_or, DTypeArg, Name, Shape};
use crate::call::{call, Work};

/// A stream of random tensors (``tf.random.Generator``).
///
/// Make one with ``Generator.from_seed(seed)`` (reproducible) or
/// ``Generator.from_non_deterministic_state()``; each call draws the next values
/// from the stream.
///
/// Methods
/// -------
/// normal(shape, mean=0.0, stddev=1.0, dtype=float32)
///     Gaussian values.
/// truncated_normal(shape, mean=0.0, stddev=1.0, dtype=float32)
///     Gaussian values redrawn when more than two standard deviations out.
/// uniform(shape, minval=0, maxval=None, dtype=float32)
///     Values in ``[minval, maxval)``; integer dtypes need ``maxval``.
/// bernoulli(shape, keep)
///     A bool mask, True with probability ``keep`` (a tapers extension).
/// permutation(n)
///     A random permutation of ``range(n)`` as int64 (a tapers extension).
///
/// Notes
/// -----
/// tapers uses its own PCG64 streams, so a seed gives different numbers than in
/// TensorFlow (the distributions are the same). ``alg`` is accepted and
/// ignored.
#[pyclass(module = "tapers.random", name = "Generator", frozen)]
pub struct PyGenerator {
    inner: Generator,
}

#[pymethods]
impl PyGenerator {
    /// A generator whose stream is fixed by `seed`.
    #[staticmethod]
    #[pyo3(signature = (seed, alg=None))]
    fn from_seed(seed: u64, alg: Option<&Bound<'_, PyAny>>) -> Self {
        // TensorFlow's choice of algorithm; tapers has one (PCG64).
        let _ = alg;
        PyGenerator {
            inner: Generator::from_seed(seed),
        }
    }

    /// A generator seeded from the operating system.
    #[staticmethod]
    fn from_non_deterministic_state() -> Self {
        PyGenerator {
            inner: Generator::from_entropy(),
        }
    }

    #[pyo3(signature = (shape, mean=0.0, stddev=1.0, dtype=None, name=None))]
    fn normal(
        &self,
        py: Python<'_>,
        shape: Shape,
        mean: f64,
        stddev: f64,
        dtype: Option<DTypeArg>,
        name: Option<Name>,
    ) -> PyResult<Py<PyAny>> {
        let d = dtype_or(dtype, DType::F32);
        let g = &self.inner;
        call(py, name, Work::shape(&shape.0), || {
            g.normal(&shape.0, mean, stddev, d)
        })
    }

    #[pyo3(signature = (shape, mean=0.0, stddev=1.0, dtype=None, name=None))]
    fn truncated_normal(
        &self,
        py: Python<'_>,
        shape: Shape,
        mean: f64,
        stddev: f64,
        dtype: Option<DTypeArg>,
        name: Option<Name>,
    ) -> PyResult<Py<PyAny>> {
        let d = dtype_or(dtype, DType::F32);
        let g = &self.inner;
        call(py, name, Work::shape(&shape.0), || {
            g.truncated_normal(&shape.0, mean, stddev, d)
        })
    }

    #[pyo3(signature = (shape, minval=0.0, maxval=None, dtype=None, name=None))]
    fn uniform(
        &self,
        py: Python<'_>,
        shape: Shape,
        minval: f64,
        maxval: Option<f64>,
        dtype: Option<DTypeArg>,
        name: Option<Name>,
    ) -> PyResult<Py<PyAny>> {
        let d = dtype_or(dtype, DType::F32);
        let hi = match maxval {
            Some(m) => m,
            None if d.is_floating() => 1.0,
            None => {
                return Err(PyValueError::new_err(
                    "Must specify maxval for integer dtype",
                ))
            }
        };
        let g = &self.inner;
        call(py, name, Work::shape(&shape.0), || {
            g.uniform(&shape.0, minval, hi, d)
        })
    }

    /// A bool mask, `True` with probability `keep`.
    fn bernoulli(&self, py: Python<'_>, shape: Shape, keep: f64) -> PyResult<Py<PyAny>> {
        let g = &self.inner;
        call(py, None, Work::shape(&shape.0), || {
            g.bernoulli(&shape.0, keep)
        })
    }

    /// A random permutation of `range(n)` (int64).
    fn permutation(&self, py: Python<'_>, n: usize) -> PyResult<Py<PyAny>> {
        let g = &self.inner;
        call(py, None, Work::elems(n), || g.permutation(n))
    }
}

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    ex.class::<PyGenerator>(&[super::Ns::Random])
}
