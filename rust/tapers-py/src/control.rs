//! The Rust half of `tapers.cond` and `tapers.while_loop` inside a trace:
//! trace a Python callable into a branch (`tapers::graph::trace_branch`),
//! then run the control op over branches. The Python layer
//! (`python/tapers/_control.py`) flattens structures and runs plain Python
//! control flow when nothing traces.

use pyo3::prelude::*;

use tapers::graph::{self, Branch};
use tapers::Tensor;

use crate::errors::IntoPyResult;
use crate::tensor::PyTensor;

/// A traced branch, loop condition or loop body.
#[pyclass(module = "tapers._core", name = "_Branch", frozen)]
pub struct PyBranch {
    branch: Branch,
}

fn tensors(ts: &[Bound<'_, PyTensor>]) -> Vec<Tensor> {
    ts.iter().map(|t| t.get().inner.clone()).collect()
}

fn wrap(py: Python<'_>, ts: Vec<Tensor>) -> PyResult<Vec<Py<PyTensor>>> {
    ts.into_iter()
        .map(|t| PyTensor::wrap(py, t).map(Bound::unbind))
        .collect()
}

/// Traces `fn(*args)` (which returns a list of tensors) into a branch;
/// returns the branch and the values this run computed.
#[pyfunction]
pub fn trace_branch(
    py: Python<'_>,
    func: Bound<'_, PyAny>,
    args: Vec<Bound<'_, PyTensor>>,
) -> PyResult<(PyBranch, Vec<Py<PyTensor>>)> {
    let ins = tensors(&args);
    let r = graph::trace_branch(&ins, |a| {
        let call = || -> PyResult<Vec<Tensor>> {
            let wrapped = wrap(py, a.to_vec())?;
            let out = func.call1((wrapped,))?;
            let out: Vec<Bound<'_, PyTensor>> = out.extract()?;
            Ok(tensors(&out))
        };
        call().map_err(crate::errors::from_callback)
    })
    .py()?;
    Ok((PyBranch { branch: r.0 }, wrap(py, r.1)?))
}

/// `cond` over two traced branches.
#[pyfunction]
pub fn cond(
    py: Python<'_>,
    pred: Bound<'_, PyTensor>,
    true_branch: Bound<'_, PyBranch>,
    false_branch: Bound<'_, PyBranch>,
) -> PyResult<Vec<Py<PyTensor>>> {
    let p = pred.get().inner.clone();
    let outs = graph::cond(&p, &true_branch.get().branch, &false_branch.get().branch).py()?;
    wrap(py, outs)
}

/// `while_loop` over a traced condition and body.
#[pyfunction]
#[pyo3(signature = (cond, body, loop_vars, maximum_iterations=None))]
pub fn while_loop(
    py: Python<'_>,
    cond: Bound<'_, PyBranch>,
    body: Bound<'_, PyBranch>,
    loop_vars: Vec<Bound<'_, PyTensor>>,
    maximum_iterations: Option<usize>,
) -> PyResult<Vec<Py<PyTensor>>> {
    let vars = tensors(&loop_vars);
    let outs = graph::while_loop(
        &cond.get().branch,
        &body.get().branch,
        &vars,
        maximum_iterations,
    )
    .py()?;
    wrap(py, outs)
}
