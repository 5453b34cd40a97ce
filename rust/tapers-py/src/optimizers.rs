//! The optimizer step: Keras update rules, run in Rust without the GIL.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use tapers::optim::{apply_traced, LearningRate, Rule};
use tapers::{Tensor, Variable};

use crate::convert::{to_tensor, Want};
use crate::errors::IntoPyResult;
use crate::tensor::PyTensor;
use crate::variable::PyVariable;

/// A learning rate from Python: a float, or the tensor a schedule computed
/// (read at each replay of a traced step).
fn rate(v: &Bound<'_, PyAny>) -> PyResult<LearningRate> {
    if let Ok(t) = v.cast::<PyTensor>() {
        return Ok(LearningRate::Tensor(t.get().inner.clone()));
    }
    Ok(LearningRate::Fixed(v.extract()?))
}

fn get(h: &Bound<'_, PyDict>, key: &str, default: f64) -> PyResult<f64> {
    match h.get_item(key)? {
        Some(v) if !v.is_none() => v.extract(),
        _ => Ok(default),
    }
}

fn rule(kind: &str, h: &Bound<'_, PyDict>) -> PyResult<Rule> {
    Ok(match kind {
        "sgd" => Rule::Sgd {
            momentum: get(h, "momentum", 0.0)?,
            nesterov: get(h, "nesterov", 0.0)? != 0.0,
        },
        "adam" => Rule::Adam {
            beta_1: get(h, "beta_1", 0.9)?,
            beta_2: get(h, "beta_2", 0.999)?,
            epsilon: get(h, "epsilon", 1e-7)?,
            amsgrad: get(h, "amsgrad", 0.0)? != 0.0,
        },
        "rmsprop" => Rule::RmsProp {
            rho: get(h, "rho", 0.9)?,
            momentum: get(h, "momentum", 0.0)?,
            epsilon: get(h, "epsilon", 1e-7)?,
            centered: get(h, "centered", 0.0)? != 0.0,
        },
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown optimizer rule {kind:?}"
            )))
        }
    })
}

/// The number of slot variables `kind` needs per variable.
#[pyfunction]
pub fn optimizer_slots(kind: &str, hyper: &Bound<'_, PyDict>) -> PyResult<usize> {
    Ok(rule(kind, hyper)?.slots())
}

/// Applies one step to each `(gradient, variable)` with its slots.
#[pyfunction]
#[pyo3(signature = (kind, hyper, grads, variables, slots, learning_rate, step, weight_decay=0.0, counter=None))]
#[allow(clippy::too_many_arguments)]
pub fn optimizer_step(
    py: Python<'_>,
    kind: &str,
    hyper: &Bound<'_, PyDict>,
    grads: Vec<Bound<'_, PyAny>>,
    variables: Vec<Bound<'_, PyVariable>>,
    slots: Vec<Vec<Bound<'_, PyVariable>>>,
    learning_rate: &Bound<'_, PyAny>,
    step: Option<u64>,
    weight_decay: f64,
    counter: Option<Bound<'_, PyVariable>>,
) -> PyResult<()> {
    let r = rule(kind, hyper)?;
    if grads.len() != variables.len() || slots.len() != variables.len() {
        return Err(PyValueError::new_err(
            "grads, variables and slots must have the same length",
        ));
    }
    let vars: Vec<Variable> = variables.iter().map(|v| v.get().var.clone()).collect();
    let gs: Vec<Tensor> = grads
        .iter()
        .zip(&vars)
        .map(|(g, v)| to_tensor(g, Want::Hint(v.dtype())))
        .collect::<PyResult<_>>()?;
    let ss: Vec<Vec<Variable>> = slots
        .iter()
        .map(|s| s.iter().map(|v| v.get().var.clone()).collect())
        .collect();
    let counter: Option<Variable> = counter.map(|c| c.get().var.clone());
    let lr = rate(learning_rate)?;
    py.detach(|| {
        for ((v, g), s) in vars.iter().zip(&gs).zip(&ss) {
            apply_traced(
                &r,
                v,
                g,
                s,
                lr.clone(),
                step,
                counter.as_ref(),
                weight_decay,
            )?;
        }
        Ok::<_, tapers::Error>(())
    })
    .py()
}
