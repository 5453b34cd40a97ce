//! The Rust half of `tapers.function`: trace a Python callable's ops into a
//! core graph (`tapers::graph`), replay the graph with the GIL released.
//!
//! The Python layer (`python/tapers/_function.py`) owns signatures, the
//! cache of graphs, retracing and the eager fallback; this module only
//! starts and finishes traces and runs graphs.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use pyo3::exceptions::PyRuntimeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use tapers::graph::{Graph, Tracing};
use tapers::{Tensor, Variable};

use crate::errors::IntoPyResult;
use crate::host::{self, Queue};
use crate::tensor::PyTensor;
use crate::variable::PyVariable;

fn variables(vs: &[Bound<'_, PyVariable>]) -> Vec<Variable> {
    vs.iter().map(|v| v.get().var.clone()).collect()
}

fn tensors(ts: &[Bound<'_, PyTensor>]) -> Vec<Tensor> {
    ts.iter().map(|t| t.get().inner.clone()).collect()
}

/// Replays `g` with the GIL released, except for a graph that runs on
/// numbers (`Graph::is_scalar`), where the release costs more than the work.
fn replay(
    py: Python<'_>,
    g: &Graph,
    ins: &[Tensor],
    vars: &[Variable],
) -> PyResult<Option<Vec<Tensor>>> {
    if g.is_scalar() {
        g.try_run_with(ins, vars)
    } else {
        py.detach(|| g.try_run_with(ins, vars))
    }
    .py()
}

/// A trace in progress on the thread that started it, with the queue of
/// the prints its call makes (`print.rs`).
#[pyclass(module = "tapers._core", name = "_Tracing", unsendable)]
pub struct PyTracing {
    inner: Option<Tracing>,
    prints: Option<Queue>,
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

    /// Stops tracing and discards the trace and its prints (the traced
    /// call raised).
    fn abandon(&mut self) {
        self.inner = None;
        self.prints = None;
    }

    /// After `finish`: prints what the traced call printed (`print`: the
    /// trace was a call of the function), or drops it.
    fn flush_prints(&mut self, py: Python<'_>, print: bool) -> PyResult<()> {
        match self.prints.take() {
            Some(mut q) => q.finish(py, print),
            None => Ok(()),
        }
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
        prints: Some(Queue::start()),
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

/// `tapers.config.run_functions_eagerly`: every `Function` call runs its
/// Python function (the slow path does), none replays a graph.
static RUN_EAGERLY: AtomicBool = AtomicBool::new(false);

/// Sets `tapers.config.run_functions_eagerly`.
#[pyfunction]
pub fn set_run_functions_eagerly(on: bool) {
    RUN_EAGERLY.store(on, Ordering::Relaxed);
}

/// `tapers.config.functions_run_eagerly()`.
#[pyfunction]
pub fn run_functions_eagerly() -> bool {
    RUN_EAGERLY.load(Ordering::Relaxed)
}

/// The intra-op thread count set through `tapers.config.threading` (0: not
/// set, the pool's default).
static INTRA_OP: AtomicUsize = AtomicUsize::new(0);

/// `tf.config.threading.set_intra_op_parallelism_threads`: sizes the
/// kernels' pool if it has not run yet; afterwards only its current size is
/// accepted (TensorFlow's `RuntimeError` otherwise).
#[pyfunction]
pub fn set_intra_op_threads(n: usize) -> PyResult<()> {
    if n == INTRA_OP.load(Ordering::Relaxed)
        || tapers::kernels::set_pool_threads(n)
        || n == tapers::kernels::pool_threads()
    {
        INTRA_OP.store(n, Ordering::Relaxed);
        return Ok(());
    }
    Err(PyRuntimeError::new_err(
        "Intra op parallelism cannot be modified after initialization.",
    ))
}

/// `tf.config.threading.get_intra_op_parallelism_threads` (0 until set).
#[pyfunction]
pub fn intra_op_threads() -> usize {
    INTRA_OP.load(Ordering::Relaxed)
}

/// The base class of the Python `Function`: its calls' fast path. A call
/// of tensors alone (no keywords) first tries the graph of the latest such
/// call (`_fast`, the Python layer's `_Entry`) without entering Python;
/// every other call, and one the graph refuses (other shapes, a failed
/// guard, a trace active), goes to the subclass's `_call_slow`.
#[pyclass(module = "tapers._core", name = "_FunctionBase", frozen, subclass)]
pub struct PyFunctionBase {
    fast: Mutex<Option<Fast>>,
    /// Fast calls since the slow path last told the retracing detector.
    untraced: AtomicUsize,
}

/// The fast path's entry: its graph, and whether the graph's one output is
/// the call's result (otherwise the entry's `rebuild` makes it).
struct Fast {
    entry: Py<PyAny>,
    graph: Py<PyGraph>,
    single: bool,
}

impl PyFunctionBase {
    /// The fast path's slot (a panic elsewhere cannot leave it half-written:
    /// it is only ever replaced whole).
    fn slot(&self) -> MutexGuard<'_, Option<Fast>> {
        self.fast.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[pymethods]
impl PyFunctionBase {
    /// Accepts any arguments: the subclass's `__init__` takes them.
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> Self {
        PyFunctionBase {
            fast: Mutex::new(None),
            untraced: AtomicUsize::new(0),
        }
    }

    #[pyo3(signature = (*args, **kwargs))]
    fn __call__(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        if kwargs.is_none_or(|k| k.is_empty()) && !RUN_EAGERLY.load(Ordering::Relaxed) {
            // The lock is held only to take references (no Python code runs
            // under it); the replay runs without it.
            let fast = slf.get().slot().as_ref().map(|f| {
                (
                    f.graph.clone_ref(py),
                    f.single,
                    (!f.single).then(|| f.entry.clone_ref(py)),
                )
            });
            if let Some((graph, single, entry)) = fast {
                if let Some(out) = graph.get().run_args(py, args, single)? {
                    slf.get().untraced.fetch_add(1, Ordering::Relaxed);
                    return match entry {
                        None => Ok(out),
                        Some(e) => Ok(e
                            .bind(py)
                            .call_method1(intern!(py, "rebuild"), (out,))?
                            .unbind()),
                    };
                }
            }
        }
        Ok(slf
            .call_method(intern!(py, "_call_slow"), args.clone(), kwargs)?
            .unbind())
    }

    /// The fast path's entry (an object with `graph` and `single`), or `None`.
    #[getter(_fast)]
    fn fast(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.slot().as_ref().map(|f| f.entry.clone_ref(py))
    }

    #[setter(_fast)]
    fn set_fast(&self, entry: Option<Bound<'_, PyAny>>) -> PyResult<()> {
        let fast = match entry {
            None => None,
            Some(e) => {
                let py = e.py();
                let graph = e
                    .getattr(intern!(py, "graph"))?
                    .cast_into::<PyGraph>()?
                    .unbind();
                let single = e.getattr(intern!(py, "single"))?.extract::<bool>()?;
                Some(Fast {
                    entry: e.unbind(),
                    graph,
                    single,
                })
            }
        };
        // The old entry is dropped after the lock is released.
        let old = std::mem::replace(&mut *self.slot(), fast);
        drop(old);
        Ok(())
    }

    #[getter(_untraced_fast_calls)]
    fn untraced_fast_calls(&self) -> usize {
        self.untraced.load(Ordering::Relaxed)
    }

    #[setter(_untraced_fast_calls)]
    fn set_untraced_fast_calls(&self, n: usize) {
        self.untraced.store(n, Ordering::Relaxed);
    }
}

/// A traced graph.
#[pyclass(module = "tapers._core", name = "_Graph", frozen)]
pub struct PyGraph {
    graph: Arc<Graph>,
}

#[pymethods]
impl PyGraph {
    /// Replays the graph on `inputs` and `variables` with the GIL released
    /// (held for a graph of one-element values, `Graph::is_scalar`):
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
        let outs = host::collect(py, || replay(py, &self.graph, &ins, &vars))?;
        match outs {
            None => Ok(None),
            Some(outs) => Ok(Some(
                outs.into_iter()
                    .map(|t| PyTensor::wrap(py, t).map(Bound::unbind))
                    .collect::<PyResult<_>>()?,
            )),
        }
    }

    /// A call's fast path: when `args` are tensors matching the traced
    /// inputs one to one (shape and dtype) and no trace is active, replays
    /// with the GIL released (held for a one-element graph) and returns the
    /// single output itself (`single`)
    /// or the list of outputs; `None` when the arguments do not match or a
    /// guard failed (nothing written: the caller takes the general path).
    /// Only for graphs of signatures made of tensor arguments alone.
    fn run_args(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        single: bool,
    ) -> PyResult<Option<Py<PyAny>>> {
        let specs = self.graph.inputs();
        if args.len() != specs.len() || tapers::graph::is_tracing() {
            return Ok(None);
        }
        let mut ins = Vec::with_capacity(specs.len());
        for (a, spec) in args.iter().zip(specs) {
            let Ok(t) = a.cast::<PyTensor>() else {
                return Ok(None);
            };
            let t = &t.get().inner;
            if t.dtype() != spec.dtype || t.shape() != spec.shape.as_slice() {
                return Ok(None);
            }
            ins.push(t.clone());
        }
        let outs = host::collect(py, || replay(py, &self.graph, &ins, &[]))?;
        let Some(outs) = outs else { return Ok(None) };
        if single && outs.len() == 1 {
            let t = outs.into_iter().next().expect("one output");
            return Ok(Some(PyTensor::wrap(py, t)?.into_any().unbind()));
        }
        let list = PyList::empty(py);
        for t in outs {
            list.append(PyTensor::wrap(py, t)?)?;
        }
        Ok(Some(list.into_any().unbind()))
    }

    /// What the graph's execution plan does on each replay: nodes, fused
    /// backward regions, pointwise gradient passes, products run with the
    /// elementwise ops that read them (`product_chains`), values released early,
    /// the most values alive at once, values computed; and how many ops on
    /// constants were computed once when the graph was built (`folded`);
    /// variable updates run with their gradient products (`product_updates`).
    #[getter]
    fn plan_stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.graph.plan_stats();
        let d = PyDict::new(py);
        d.set_item("nodes", s.nodes)?;
        d.set_item("fused_regions", s.fused_regions)?;
        d.set_item("pointwise_grads", s.pointwise_grads)?;
        d.set_item("product_chains", s.product_chains)?;
        d.set_item("released_early", s.released_early)?;
        d.set_item("peak_live", s.peak_live)?;
        d.set_item("computed", s.computed)?;
        d.set_item("scalar", self.graph.is_scalar())?;
        d.set_item("folded", self.graph.folded_constants())?;
        d.set_item("product_updates", self.graph.product_updates())?;
        Ok(d)
    }

    /// How the last replay applied the variable updates it deferred to its
    /// end: `in_place` (on the variable's own buffer) and `copied` (another
    /// holder shared the old buffer, which keeps its value); of those,
    /// `with_products`: updates that computed their gradient product as they
    /// wrote (`plan_stats["product_updates"]`).
    #[getter]
    fn update_stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.graph.update_stats();
        let d = PyDict::new(py);
        d.set_item("in_place", s.in_place)?;
        d.set_item("copied", s.copied)?;
        d.set_item("with_products", s.with_products)?;
        Ok(d)
    }

    /// What the fusion pass made of the graph's elementwise ops: fused
    /// loops, the nodes they replaced, sums and backward regions computed
    /// inside them, values they never write to memory, loops whose outputs
    /// are written with non-temporal stores.
    #[getter]
    fn fusion_stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.graph.fusion_stats();
        let d = PyDict::new(py);
        d.set_item("loops", s.loops)?;
        d.set_item("ops", s.ops)?;
        d.set_item("sums", s.sums)?;
        d.set_item("joined_backward", s.joined_backward)?;
        d.set_item("not_materialized", s.not_materialized)?;
        d.set_item("streamed", s.streamed)?;
        Ok(d)
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
