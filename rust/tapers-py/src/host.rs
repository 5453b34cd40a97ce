//! Host effects of traced graphs: `tapers.print` and the checks of
//! `tapers.debugging` inside `tapers.function`.
//!
//! A check (`assert_equal`, `check_numerics`, ...) records an
//! [`AssertEffect`] reading its condition and the values its message shows
//! (`trace_assert`); a replay runs it at its place and, when the condition
//! does not hold, calls back into Python for the message, whose exception
//! ends the replay before any variable is written.
//!
//! While a trace is active, `tapers.print` records a [`PrintEffect`] reading
//! the tensors it prints (`trace_print`). A replay runs the effect at its
//! place: in the step, in the branch a `cond` takes, at each iteration of a
//! `while_loop`. Running it queues the values with the Python callback that
//! formats and writes them; the queue is printed when the replay is back in
//! Python with the GIL ([`collect`]), and dropped when a guard failed (the
//! call traces again, and that trace prints). Without a queue on the thread
//! (a graph run from elsewhere), the effect prints at once, taking the GIL.

use std::cell::RefCell;
use std::sync::Arc;

use pyo3::prelude::*;

use tapers::{Effect, Tensor, Variable};

use crate::errors::IntoPyResult;
use crate::tensor::PyTensor;

/// Values waiting to be printed, with the callback that prints them.
struct Queued {
    emit: Arc<Py<PyAny>>,
    values: Vec<Tensor>,
}

thread_local! {
    /// A stack of queues: each replay (and each trace) started from Python
    /// on this thread pushes one.
    static QUEUES: RefCell<Vec<Vec<Queued>>> = const { RefCell::new(Vec::new()) };
}

/// Calls `emit(values)` for each queued print, in order; the first error is
/// returned after all have run.
fn emit_all(py: Python<'_>, queued: Vec<Queued>) -> PyResult<()> {
    let mut first = Ok(());
    for q in queued {
        let values: PyResult<Vec<Bound<'_, PyTensor>>> = q
            .values
            .into_iter()
            .map(|t| PyTensor::wrap(py, t))
            .collect();
        let r = values.and_then(|v| q.emit.bind(py).call1((v,)).map(drop));
        if first.is_ok() {
            first = r;
        }
    }
    first
}

/// The print a trace recorded: `emit` is the Python callable that prints
/// a call's values of the traced tensors.
struct PrintEffect {
    emit: Arc<Py<PyAny>>,
}

impl Effect for PrintEffect {
    fn name(&self) -> &'static str {
        "PrintV2"
    }

    fn variables(&self) -> &[Variable] {
        &[]
    }

    fn apply(&self, _current: &[Tensor], inputs: &[Tensor]) -> tapers::Result<Vec<Tensor>> {
        let queued = Queued {
            emit: self.emit.clone(),
            values: inputs.to_vec(),
        };
        let left = QUEUES.with_borrow_mut(|qs| match qs.last_mut() {
            Some(q) => {
                q.push(queued);
                None
            }
            None => Some(queued),
        });
        match left {
            None => Ok(Vec::new()),
            Some(q) => Python::attach(|py| emit_all(py, vec![q]))
                .map(|()| Vec::new())
                .map_err(crate::errors::from_callback),
        }
    }
}

/// The queue a call pushed: popped (printed or dropped) once, or dropped
/// with the guard (an error path that never reached `finish`).
pub(crate) struct Queue {
    depth: usize,
    done: bool,
}

impl Queue {
    /// Starts queueing this thread's prints.
    pub(crate) fn start() -> Queue {
        let depth = QUEUES.with_borrow_mut(|qs| {
            qs.push(Vec::new());
            qs.len()
        });
        Queue { depth, done: false }
    }

    /// Stops queueing; prints what was queued when `print`, else drops it.
    pub(crate) fn finish(&mut self, py: Python<'_>, print: bool) -> PyResult<()> {
        let queued = self.pop();
        match (print, queued) {
            (true, Some(q)) => emit_all(py, q),
            _ => Ok(()),
        }
    }

    fn pop(&mut self) -> Option<Vec<Queued>> {
        if self.done {
            return None;
        }
        self.done = true;
        // Queues pushed after this one and never finished go with it.
        QUEUES.with_borrow_mut(|qs| {
            let q = (qs.len() >= self.depth).then(|| qs.swap_remove(self.depth - 1));
            qs.truncate(self.depth - 1);
            q
        })
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        // Values only (no Python objects are dropped here without the GIL:
        // `Arc<Py<_>>` defers the decref when it is the last holder).
        drop(self.pop());
    }
}

/// Runs a replay (`f`) with this thread's prints queued: printed after it
/// returns outputs or fails, dropped when a guard failed (`Ok(None)`).
pub(crate) fn collect<R>(
    py: Python<'_>,
    f: impl FnOnce() -> PyResult<Option<R>>,
) -> PyResult<Option<R>> {
    let mut queue = Queue::start();
    let r = f();
    let printed = queue.finish(py, !matches!(r, Ok(None)));
    match (r, printed) {
        (Ok(out), Ok(())) => Ok(out),
        (Ok(_), Err(e)) => Err(e),
        (Err(e), _) => Err(e),
    }
}

/// Records a print of `values` in the active trace (its replays print them
/// with `emit`); with `now`, this call's values are queued too (a print in
/// the traced function itself; one in a `cond` branch or loop body prints
/// where the control op runs it).
#[pyfunction]
pub fn trace_print(emit: Py<PyAny>, values: Vec<Bound<'_, PyTensor>>, now: bool) {
    let values: Vec<Tensor> = values.iter().map(|t| t.get().inner.clone()).collect();
    let emit = Arc::new(emit);
    let refs: Vec<&Tensor> = values.iter().collect();
    tapers::graph::effect(Arc::new(PrintEffect { emit: emit.clone() }), &refs);
    if now {
        QUEUES.with_borrow_mut(|qs| {
            if let Some(q) = qs.last_mut() {
                q.push(Queued { emit, values });
            }
        });
    }
}

/// A check a trace recorded: inputs `[condition, data...]`; when some
/// element of the condition is false, `fail(data)` raises the check's
/// exception.
struct AssertEffect {
    fail: Arc<Py<PyAny>>,
}

/// Whether every element of a boolean (or numeric) tensor holds.
fn holds(t: &Tensor) -> tapers::Result<bool> {
    Ok(match t.to_vec::<bool>() {
        Ok(v) => v.into_iter().all(|b| b),
        Err(_) => t
            .to_vec::<f64>()
            .or_else(|_| tapers::ops::cast(t, tapers::DType::F64)?.to_vec::<f64>())?
            .into_iter()
            .all(|v| v != 0.0),
    })
}

/// Calls `fail(values)`: its exception, or a `RuntimeError` if it returned.
fn failed(py: Python<'_>, fail: &Py<PyAny>, values: &[Tensor]) -> PyErr {
    let args: PyResult<Vec<Bound<'_, PyTensor>>> = values
        .iter()
        .map(|t| PyTensor::wrap(py, t.clone()))
        .collect();
    match args.and_then(|a| fail.bind(py).call1((a,))) {
        Err(e) => e,
        Ok(_) => pyo3::exceptions::PyRuntimeError::new_err("a failed check did not raise"),
    }
}

impl Effect for AssertEffect {
    fn name(&self) -> &'static str {
        "Assert"
    }

    fn variables(&self) -> &[Variable] {
        &[]
    }

    fn apply(&self, _current: &[Tensor], inputs: &[Tensor]) -> tapers::Result<Vec<Tensor>> {
        if holds(&inputs[0])? {
            return Ok(Vec::new());
        }
        let e = Python::attach(|py| failed(py, &self.fail, &inputs[1..]));
        Err(crate::errors::from_callback(e))
    }
}

/// Records a check of `condition` in the active trace (each replay checks
/// it, calling `fail(data)` when it does not hold); with `now`, checks this
/// call's values too (a check in the traced function itself; one in a
/// `cond` branch or loop body is checked where the control op runs it).
#[pyfunction]
pub fn trace_assert(
    py: Python<'_>,
    condition: Bound<'_, PyTensor>,
    data: Vec<Bound<'_, PyTensor>>,
    fail: Py<PyAny>,
    now: bool,
) -> PyResult<()> {
    let cond = condition.get().inner.clone();
    let values: Vec<Tensor> = data.iter().map(|t| t.get().inner.clone()).collect();
    let fail = Arc::new(fail);
    let mut refs: Vec<&Tensor> = vec![&cond];
    refs.extend(values.iter());
    tapers::graph::effect(Arc::new(AssertEffect { fail: fail.clone() }), &refs);
    if now && !holds(&cond).py()? {
        return Err(failed(py, &fail, &values));
    }
    Ok(())
}
