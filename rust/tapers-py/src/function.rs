//! The Rust half of `tapers.function`: trace a Python callable's ops into a
//! core graph (`tapers::graph`), replay the graph with the GIL released.
//!
//! The Python layer (`python/tapers/_function.py`) owns signatures, the
//! cache of graphs, retracing and the eager fallback; this module only
//! starts and finishes traces and runs graphs.

use std::sync::Arc;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use tapers::graph::{Graph, Tracing};
use tapers::{Tensor, Variable};

use crate::errors::IntoPyResult;
use crate::tensor::PyTensor;
use crate::variable::PyVariable;

fn variables(vs: &[Bound<'_, PyVariable>]) -> Vec<Variable> {
    vs.iter().map(|v| v.get().var.clone()).collect()
}

fn tensors(ts: &[Bound<'_, PyTensor>]) -> Vec<Tensor> {
    ts.iter().map(|t| t.get().inner.clone()).collect()
}

/// A trace in progress on the thread that started it.
#[pyclass(module = "tapers._core", name = "_Tracing", unsendable)]
pub struct PyTracing {
    inner: Option<Tracing>,
}

#[pymethods]
impl PyTracing {
    /// Stops tracing; the graph computes `outputs` from the trace's inputs.
    fn finish(&mut self, outputs: Vec<Bound<'_, PyTensor>>) -> PyResult<PyGraph> {
        let t = self
            .inner
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("this trace has already finished"))?;
        Ok(PyGraph {
            graph: Arc::new(t.finish(&tensors(&outputs))),
        })
    }

    /// Stops tracing and discards the trace (the traced call raised).
    fn abandon(&mut self) {
        self.inner = None;
    }
}

/// Starts tracing every op run on this thread; `inputs` (and `variables`)
/// are the values (and variables) a replay is given.
#[pyfunction]
pub fn trace_start(
    inputs: Vec<Bound<'_, PyTensor>>,
    variables: Vec<Bound<'_, PyVariable>>,
) -> PyTracing {
    PyTracing {
        inner: Some(Tracing::start_with(
            &tensors(&inputs),
            &self::variables(&variables),
        )),
    }
}

/// Whether a trace is active on this thread.
#[pyfunction]
pub fn is_tracing() -> bool {
    tapers::graph::is_tracing()
}

/// The most graph replays that ran at once since the last reset (a test of
/// GIL release).
#[pyfunction]
pub fn replays_at_once(reset: bool) -> usize {
    let n = tapers::graph::replays_at_once();
    if reset {
        tapers::graph::reset_replays_at_once();
    }
    n
}

/// A traced graph.
#[pyclass(module = "tapers._core", name = "_Graph", frozen)]
pub struct PyGraph {
    graph: Arc<Graph>,
}

#[pymethods]
impl PyGraph {
    /// Replays the graph on `inputs` and `variables` with the GIL released:
    /// the outputs, or `None` when a value read while tracing differs now
    /// (nothing written).
    fn run(
        &self,
        py: Python<'_>,
        inputs: Vec<Bound<'_, PyTensor>>,
        variables: Vec<Bound<'_, PyVariable>>,
    ) -> PyResult<Option<Vec<Py<PyTensor>>>> {
        let ins = tensors(&inputs);
        let vars = self::variables(&variables);
        let g = self.graph.clone();
        let outs = py.detach(move || g.try_run_with(&ins, &vars)).py()?;
        match outs {
            None => Ok(None),
            Some(outs) => Ok(Some(
                outs.into_iter()
                    .map(|t| PyTensor::wrap(py, t).map(Bound::unbind))
                    .collect::<PyResult<_>>()?,
            )),
        }
    }

    /// The first op recorded that a replay cannot run again, if any.
    #[getter]
    fn unreplayable(&self) -> Option<String> {
        self.graph.unreplayable().map(str::to_string)
    }

    /// The recorded ops, reads and variable writes, in replay order.
    #[getter]
    fn op_names(&self) -> Vec<&'static str> {
        self.graph.op_names()
    }

    /// How many variables the traced call created.
    #[getter]
    fn created_variables(&self) -> usize {
        self.graph.created_variables().len()
    }

    /// How many values the traced call read into Python (guards).
    #[getter]
    fn num_guards(&self) -> usize {
        self.graph.num_guards()
    }

    /// How many constants the graph captured.
    #[getter]
    fn num_constants(&self) -> usize {
        self.graph.num_constants()
    }
}
