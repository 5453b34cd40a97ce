//! The one way an op wrapper runs its core call.
//!
//! `call` applies the GIL policy (release it when the op reads or builds many
//! elements, keep it for small ops, where releasing costs more than the op)
//! and turns core errors into exceptions labelled with the op's `name=`, as
//! TensorFlow's eager errors are.

use pyo3::prelude::*;
use pyo3::types::PyList;

use tapers::Tensor;

use crate::args::Name;
use crate::errors::to_py_named;
use crate::tensor::PyTensor;

/// Ops that read or write at least this many elements run with the GIL released.
pub const DETACH_THRESHOLD: usize = 1 << 14;

/// How much an op touches: the elements it reads or writes (multiply-adds
/// for products). An estimate from the arguments, made before the op runs,
/// so it must not itself cost much.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub struct Work(usize);

impl Work {
    /// Nothing worth releasing the GIL for: metadata, views, scalars.
    pub const SMALL: Work = Work(0);

    /// `n` elements.
    pub fn elems(n: usize) -> Work {
        Work(n)
    }

    /// The largest of these inputs (the op's output is no bigger).
    pub fn of(ts: &[&Tensor]) -> Work {
        Work(ts.iter().map(|t| t.numel()).max().unwrap_or(0))
    }

    /// All of these inputs together (ops that join or sum a list).
    pub fn total(ts: &[Tensor]) -> Work {
        Work(ts.iter().fold(0usize, |n, t| n.saturating_add(t.numel())))
    }

    /// A result of this shape (ops that build big outputs from small inputs).
    pub fn shape(dims: &[usize]) -> Work {
        Work(dims.iter().fold(1usize, |n, &d| n.saturating_mul(d)))
    }

    /// Elementwise ops on broadcast operands: the inputs, and the broadcast
    /// result, which may be far bigger (`[n, 1] + [1, n]`).
    pub fn broadcast(ts: &[&Tensor]) -> Work {
        // Operands of one shape (scalars in a loop, most often): no broadcast.
        // Compared element by element: a slice `==` calls `memcmp`, which
        // costs more than these few dims.
        if let Some((first, rest)) = ts.split_first() {
            let shape = first.shape();
            let same = |t: &&Tensor| {
                let s = t.shape();
                s.len() == shape.len() && s.iter().zip(shape).all(|(p, q)| p == q)
            };
            if rest.iter().all(same) {
                return Work(shape.iter().product());
            }
        }
        let rank = ts.iter().map(|t| t.rank()).max().unwrap_or(0);
        // Dimension `i` of the result, counted from the end of each shape.
        let out = (1..=rank).fold(1usize, |n, i| {
            let d = ts
                .iter()
                .filter_map(|t| t.shape().iter().nth_back(i - 1))
                .max();
            n.saturating_mul(d.copied().unwrap_or(1))
        });
        Work::of(ts).max(Work(out))
    }

    /// A contraction of two operands (`tensordot`, `einsum`, convolutions):
    /// at most one multiply-add per pair of their elements.
    pub fn product(a: &Tensor, b: &Tensor) -> Work {
        Work(a.numel().saturating_mul(b.numel()))
    }

    /// The larger of two estimates.
    pub fn max(self, other: Work) -> Work {
        Work(self.0.max(other.0))
    }

    fn is_big(self) -> bool {
        self.0 >= DETACH_THRESHOLD
    }
}

/// Runs `f`, without the GIL when `work` is big, and maps a core error to its
/// exception (naming the op when `name` is given).
pub fn run<T: Send>(
    py: Python<'_>,
    name: Option<Name>,
    work: Work,
    f: impl FnOnce() -> tapers::Result<T> + Send,
) -> PyResult<T> {
    let r = if work.is_big() { py.detach(f) } else { f() };
    r.map_err(|e| to_py_named(e, name.as_ref().map(|n| n.0.as_str())))
}

/// `run`, then the result as a Python object: a Tensor, or a list of them.
pub fn call<R: Output>(
    py: Python<'_>,
    name: Option<Name>,
    work: Work,
    f: impl FnOnce() -> tapers::Result<R> + Send,
) -> PyResult<Py<PyAny>> {
    run(py, name, work, f)?.into_python(py)
}

/// What an op returns to Python.
pub trait Output: Send {
    fn into_python(self, py: Python<'_>) -> PyResult<Py<PyAny>>;
}

impl Output for Tensor {
    fn into_python(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(PyTensor::wrap(py, self)?.into_any().unbind())
    }
}

impl Output for Vec<Tensor> {
    fn into_python(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let items = self
            .into_iter()
            .map(|t| PyTensor::wrap(py, t))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(py, items)?.into_any().unbind())
    }
}
