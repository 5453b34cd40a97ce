//! `tapers._core.Tape`: the core tape, driven by the Python `GradientTape`
//! (which adds nested structures, warnings and the context-manager protocol).

use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use tapers::{CallbackError, Error, GradientTape, Source, Tensor, Unconnected};

use crate::convert::{to_tensor, Want};
use crate::errors::IntoPyResult;
use crate::tensor::{out, PyTensor, DETACH_THRESHOLD};
use crate::variable::PyVariable;

#[pyclass(module = "tapers._core", name = "Tape", frozen)]
pub struct PyTape {
    tape: GradientTape,
}

fn source_of(obj: &Bound<'_, PyAny>) -> PyResult<Source> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Ok(Source::Tensor(t.get().inner.clone()));
    }
    if let Ok(v) = obj.cast::<PyVariable>() {
        return Ok(Source::Variable(v.get().var.clone()));
    }
    Err(PyTypeError::new_err(format!(
        "GradientTape.gradient sources must be Tensors or Variables, got {} of type {}",
        obj.repr()?,
        obj.get_type().name()?
    )))
}

#[pymethods]
impl PyTape {
    #[new]
    #[pyo3(signature = (persistent=false, watch_accessed_variables=true))]
    fn new(persistent: bool, watch_accessed_variables: bool) -> Self {
        PyTape {
            tape: GradientTape::with_options(persistent, watch_accessed_variables),
        }
    }

    fn push(&self) -> PyResult<()> {
        self.tape.push().py()
    }

    fn pop(&self) -> PyResult<()> {
        self.tape.pop().py()
    }

    /// Pauses recording (TF's `stop_recording` entry).
    fn pause(&self) -> PyResult<()> {
        self.tape.pause().py()
    }

    fn reset(&self) -> PyResult<()> {
        self.tape.reset().py()
    }

    #[getter]
    fn recording(&self) -> bool {
        self.tape.is_recording()
    }

    #[getter]
    fn persistent(&self) -> bool {
        self.tape.persistent()
    }

    fn __len__(&self) -> usize {
        self.tape.len()
    }

    /// Bytes of the recording itself (beyond the tensors it keeps).
    fn memory_bytes(&self) -> usize {
        self.tape.memory_bytes()
    }

    /// Why the gradient of `targets` w.r.t. `source` is, or is not, None.
    fn explain(&self, targets: &Bound<'_, PyList>, source: &Bound<'_, PyAny>) -> PyResult<String> {
        let targets: Vec<Tensor> = targets
            .iter()
            .map(|t| target_tensor(&t))
            .collect::<PyResult<_>>()?;
        Ok(self.tape.explain(&targets, &source_of(source)?).to_string())
    }

    /// The recording as text.
    fn describe(&self) -> String {
        self.tape.describe()
    }

    /// The recording as Graphviz DOT.
    fn to_dot(&self) -> String {
        self.tape.to_dot()
    }

    /// Watches one tensor or variable; returns whether it is now watched.
    fn watch(&self, obj: &Bound<'_, PyAny>) -> PyResult<bool> {
        if let Ok(t) = obj.cast::<PyTensor>() {
            return Ok(self.tape.watch(&t.get().inner));
        }
        if let Ok(v) = obj.cast::<PyVariable>() {
            return Ok(self.tape.watch_variable(&v.get().var));
        }
        Err(PyValueError::new_err(format!(
            "Passed in object {} of type {:?}, not tf.Tensor or tf.Variable or ExtensionType.",
            obj.repr()?,
            obj.get_type().name()?.to_string()
        )))
    }

    fn watched_variables<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let objs = self
            .tape
            .watched_variables()
            .iter()
            .map(|v| PyVariable::object_for(py, v))
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, objs)
    }

    /// Flat gradient: targets and sources are lists; returns a list with None
    /// for unconnected sources (or zeros when `zero`).
    #[pyo3(signature = (targets, sources, output_gradients=None, zero=false))]
    fn gradient<'py>(
        &self,
        py: Python<'py>,
        targets: &Bound<'py, PyList>,
        sources: &Bound<'py, PyList>,
        output_gradients: Option<&Bound<'py, PyList>>,
        zero: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let targets: Vec<Tensor> = targets
            .iter()
            .map(|t| target_tensor(&t))
            .collect::<PyResult<_>>()?;
        let sources: Vec<Source> = sources
            .iter()
            .map(|s| source_of(&s))
            .collect::<PyResult<_>>()?;
        let og: Option<Vec<Tensor>> = match output_gradients {
            None => None,
            Some(l) => Some(
                l.iter()
                    .zip(&targets)
                    .map(|(g, t)| {
                        if g.is_none() {
                            Tensor::ones(t.shape(), t.dtype()).py()
                        } else {
                            to_tensor(&g, Want::Hint(t.dtype()))
                        }
                    })
                    .collect::<PyResult<_>>()?,
            ),
        };
        if let Some(og) = &og {
            if og.len() != targets.len() {
                return Err(PyValueError::new_err(format!(
                    "output_gradients has {} entries but target has {}",
                    og.len(),
                    targets.len()
                )));
            }
        }
        let unconnected = if zero {
            Unconnected::Zero
        } else {
            Unconnected::None
        };
        let tape = &self.tape;
        // Tiny tapes are differentiated inline: releasing the GIL would cost more.
        let big = !tape.is_small() || targets.iter().any(|t| t.numel() >= DETACH_THRESHOLD);
        let grads = if big {
            crate::interrupt::run(py, tape.is_long(), |cancel| {
                tape.gradient_cancellable(&targets, &sources, og.as_deref(), unconnected, cancel)
            })?
        } else {
            tape.gradient_with(&targets, &sources, og.as_deref(), unconnected)
                .py()?
        };
        let items = grads
            .into_iter()
            .map(|g| match g {
                Some(g) => out(py, Ok(g)),
                None => Ok(py.None()),
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }
}

#[pymethods]
impl PyTape {
    /// Flat Jacobian: one tensor (or None) per source.
    #[pyo3(signature = (target, sources, zero=false, parallel_iterations=None))]
    fn jacobian<'py>(
        &self,
        py: Python<'py>,
        target: &Bound<'py, PyAny>,
        sources: &Bound<'py, PyList>,
        zero: bool,
        parallel_iterations: Option<usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        let t = target_tensor(target)?;
        let sources: Vec<Source> = sources
            .iter()
            .map(|s| source_of(&s))
            .collect::<PyResult<_>>()?;
        let unconnected = if zero {
            Unconnected::Zero
        } else {
            Unconnected::None
        };
        let tape = &self.tape;
        let js = py
            .detach(|| tape.jacobian(&t, &sources, unconnected, parallel_iterations))
            .py()?;
        let items = js
            .into_iter()
            .map(|g| match g {
                Some(g) => out(py, Ok(g)),
                None => Ok(py.None()),
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }

    /// Per-example Jacobian of `target` with respect to `source`.
    #[pyo3(signature = (target, source, parallel_iterations=None))]
    fn batch_jacobian(
        &self,
        py: Python<'_>,
        target: &Bound<'_, PyAny>,
        source: &Bound<'_, PyAny>,
        parallel_iterations: Option<usize>,
    ) -> PyResult<Py<PyAny>> {
        let t = target_tensor(target)?;
        let s = source_of(source)?;
        let tape = &self.tape;
        let j = py.detach(|| tape.batch_jacobian(&t, &s, parallel_iterations));
        out(py, j)
    }
}

fn target_tensor(t: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    if t.is_instance_of::<PyTensor>() || t.is_instance_of::<PyVariable>() {
        to_tensor(t, Want::Any)
    } else {
        Err(PyTypeError::new_err(format!(
            "GradientTape target must be a Tensor or Variable (or a structure of them), got {} of type {}",
            t.repr()?,
            t.get_type().name()?
        )))
    }
}

/// A Python function used as a gradient rule (`tf.custom_gradient`).
struct PyRule {
    func: Py<PyAny>,
    n_inputs: usize,
}

impl tapers::BackwardFn for PyRule {
    fn backward(&self, grads: &[Tensor], _needs: &[bool]) -> tapers::Result<Vec<Option<Tensor>>> {
        // Called from the backward pass with the GIL released: take it only here.
        Python::attach(|py| {
            let call = || -> PyResult<Vec<Option<Tensor>>> {
                let args = grads
                    .iter()
                    .map(|g| PyTensor::wrap(py, g.clone()))
                    .collect::<PyResult<Vec<_>>>()?;
                let res = self.func.bind(py).call1(PyTuple::new(py, args)?)?;
                let res: Vec<Bound<'_, PyAny>> = res.extract()?;
                if res.len() != self.n_inputs {
                    return Err(PyValueError::new_err(format!(
                        "custom_gradient function expected to return {} gradients, but returned {} instead.",
                        self.n_inputs,
                        res.len()
                    )));
                }
                res.iter()
                    .map(|g| {
                        if g.is_none() {
                            Ok(None)
                        } else {
                            to_tensor(g, Want::Any).map(Some)
                        }
                    })
                    .collect()
            };
            call().map_err(|e| {
                Error::Callback(CallbackError {
                    message: e.to_string(),
                    payload: Some(Arc::new(e)),
                })
            })
        })
    }
}

/// Records `outputs = f(inputs)` with `grad_fn` as its gradient rule and
/// returns the recorded outputs. `grad_fn(*output_grads)` must return a
/// sequence with one entry (tensor or None) per input.
#[pyfunction]
pub fn record_custom<'py>(
    py: Python<'py>,
    inputs: Vec<Bound<'py, PyAny>>,
    outputs: Vec<Bound<'py, PyAny>>,
    grad_fn: Py<PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let ins = inputs
        .iter()
        .map(|i| to_tensor(i, Want::Any))
        .collect::<PyResult<Vec<_>>>()?;
    let outs = outputs
        .iter()
        .map(|o| to_tensor(o, Want::Any))
        .collect::<PyResult<Vec<_>>>()?;
    let rule = Arc::new(PyRule {
        func: grad_fn,
        n_inputs: ins.len(),
    });
    let recorded = tapers::ops::custom_op("CustomGradient", &ins, &outs, rule);
    let items = recorded
        .into_iter()
        .map(|t| out(py, Ok(t)))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}
