//! `tapers._core.GradientTape`: the core tape and the hot half of `GradientTape`
//! (its Python subclass adds nested structures and the rest of the API).

use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyUserWarning, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use tapers::{Gradient, GradientTape, PendingSpend, Source, Tensor, Unconnected};

use crate::convert::{to_tensor, Want};
use crate::errors::IntoPyResult;
use crate::tensor::{out, PyTensor, DETACH_THRESHOLD};
use crate::variable::PyVariable;

/// The base of `tapers.GradientTape`: the methods of a training loop's every
/// iteration (`__enter__`, `__exit__`, `watch` and `gradient` of single
/// tensors) run here without a Python frame; nested structures and the rest
/// of TensorFlow's API are the Python subclass's (`_tape.py`), reached
/// through its `_watch_nested`, `_gradient_args` and `_gradient_pack`.
#[pyclass(module = "tapers._core", name = "GradientTape", frozen, subclass)]
pub struct PyTape {
    pub(crate) tape: GradientTape,
}

fn source_of(obj: &Bound<'_, PyAny>) -> PyResult<Source> {
    if let Some(s) = single_source(obj) {
        return Ok(s);
    }
    Err(PyTypeError::new_err(format!(
        "GradientTape.gradient sources must be Tensors or Variables, got {} of type {}",
        obj.repr()?,
        obj.get_type().name()?
    )))
}

/// A lone target tensor or variable (the common case, with no structure
/// around it); a variable is read (recorded on active tapes).
fn single_tensor(obj: &Bound<'_, PyAny>) -> Option<Tensor> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Some(t.get().inner.clone());
    }
    obj.cast::<PyVariable>().ok().map(|v| v.get().var.read())
}

/// The Variable a target is, if it is one (see [`seed_variable_targets`]).
fn variable_of(obj: &Bound<'_, PyAny>) -> Option<tapers::Variable> {
    obj.cast::<PyVariable>().ok().map(|v| v.get().var.clone())
}

/// TensorFlow identifies a Variable target with the same Variable given as
/// a source (`tape.gradient(v, [v, w])` is `[1.0, None]`, whether or not
/// `v` was read on the tape, and `max()` of Variables differentiates to the
/// winner): that target's output gradient (ones by default) is added to the
/// source's gradient.
fn seed_variable_targets(
    target_vars: &[Option<tapers::Variable>],
    targets: &[Tensor],
    sources: &[Source],
    og: Option<&[Tensor]>,
    grads: &mut [Option<Gradient>],
) -> PyResult<()> {
    for (j, tv) in target_vars.iter().enumerate() {
        let Some(tv) = tv else { continue };
        for (k, s) in sources.iter().enumerate() {
            let Source::Variable(sv) = s else { continue };
            if !sv.same_as(tv) {
                continue;
            }
            let seed = match og {
                Some(og) => og[j].clone(),
                None => Tensor::ones(targets[j].shape(), targets[j].dtype()).py()?,
            };
            // A sparse gradient meeting the dense seed becomes dense, as in TF.
            grads[k] = Some(Gradient::Dense(match grads[k].take() {
                Some(g) => tapers::ops::add(&g.into_dense().py()?, &seed).py()?,
                None => seed,
            }));
        }
    }
    Ok(())
}

fn single_source(obj: &Bound<'_, PyAny>) -> Option<Source> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Some(Source::Tensor(t.get().inner.clone()));
    }
    obj.cast::<PyVariable>()
        .ok()
        .map(|v| Source::Variable(v.get().var.clone()))
}

impl PyTape {
    /// A gradient target: a tensor as is; a Variable's value, read without
    /// this tape recording it. TensorFlow differentiates a Variable target
    /// through its handle, which is connected to nothing but the same
    /// Variable given as a source ([`seed_variable_targets`]).
    fn target_of(&self, obj: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        if let Ok(v) = obj.cast::<PyVariable>() {
            let _paused = if self.tape.is_recording() {
                self.tape.stop_recording().ok()
            } else {
                None
            };
            return Ok(v.get().var.read());
        }
        target_tensor(obj)
    }

    /// Gradients of flat targets w.r.t. flat sources. The tape is not spent
    /// yet: the caller settles the returned spend (`interrupt::settle`) once
    /// the result is ready to be returned, so that a Ctrl-C that lands after
    /// the pass's last rule still leaves the tape usable.
    fn flat_gradient(
        &self,
        py: Python<'_>,
        targets: &[Tensor],
        sources: &[Source],
        og: Option<&[Tensor]>,
        zero: bool,
    ) -> PyResult<(Vec<Option<Gradient>>, PendingSpend)> {
        let unconnected = if zero {
            Unconnected::Zero
        } else {
            Unconnected::None
        };
        let tape = &self.tape;
        let stats = tape.stats();
        // Tiny tapes are differentiated inline: releasing the GIL would cost
        // more (at most 16 ops, all on small tensors).
        let small = stats.ops <= 16 && stats.output_elements < 1 << 14;
        // A pass that may take tens of milliseconds or more is made
        // interruptible by Ctrl-C.
        let long = stats.ops >= 4096 || stats.output_elements >= 1 << 22;
        let big = !small || targets.iter().any(|t| t.numel() >= DETACH_THRESHOLD);
        if big {
            crate::interrupt::run(py, long, |cancel| {
                tape.gradient_pending_sparse(targets, sources, og, unconnected, cancel)
            })
        } else {
            tape.gradient_pending_sparse(targets, sources, og, unconnected, None)
                .py()
        }
    }

    /// [`flat_gradient`](Self::flat_gradient) of the lists `_gradient_args`
    /// made of a structure: `None` output gradients are ones.
    fn list_gradient(
        &self,
        py: Python<'_>,
        targets: &Bound<'_, PyList>,
        sources: &Bound<'_, PyList>,
        output_gradients: Option<&Bound<'_, PyList>>,
        zero: bool,
    ) -> PyResult<(Vec<Option<Gradient>>, PendingSpend)> {
        let target_vars: Vec<Option<tapers::Variable>> =
            targets.iter().map(|t| variable_of(&t)).collect();
        let targets: Vec<Tensor> = targets
            .iter()
            .map(|t| self.target_of(&t))
            .collect::<PyResult<_>>()?;
        let sources: Vec<Source> = sources
            .iter()
            .map(|s| source_of(&s))
            .collect::<PyResult<_>>()?;
        // One output gradient per target, paired in order as TensorFlow
        // pairs them (extra entries are ignored: a plain list of numbers for
        // one target is flattened, and its first number is that target's
        // gradient, broadcast to the target's shape).
        let og: Option<Vec<Tensor>> = match output_gradients {
            None => None,
            Some(l) => Some(
                l.iter()
                    .zip(&targets)
                    .map(|(g, t)| {
                        if g.is_none() {
                            return Tensor::ones(t.shape(), t.dtype()).py();
                        }
                        let g = to_tensor(&g, Want::Hint(t.dtype()))?;
                        if g.shape() != t.shape() && g.rank() == 0 {
                            return tapers::ops::broadcast_to(&g, t.shape()).py();
                        }
                        Ok(g)
                    })
                    .collect::<PyResult<_>>()?,
            ),
        };
        if let Some(og) = &og {
            if og.len() < targets.len() {
                return Err(PyValueError::new_err(format!(
                    "output_gradients has {} entries but target has {}",
                    og.len(),
                    targets.len()
                )));
            }
        }
        let (mut grads, spend) = self.flat_gradient(py, &targets, &sources, og.as_deref(), zero)?;
        if target_vars.iter().any(Option::is_some) {
            seed_variable_targets(&target_vars, &targets, &sources, og.as_deref(), &mut grads)?;
        }
        Ok((grads, spend))
    }
}

/// A gradient as Python sees it: a Tensor, or for a sparse one TensorFlow's
/// `tapers.IndexedSlices` (built by the Python class, which owns its API).
fn grad_out(py: Python<'_>, g: Option<Gradient>) -> PyResult<Py<PyAny>> {
    match g {
        None => Ok(py.None()),
        Some(Gradient::Dense(t)) => out(py, Ok(t)),
        Some(Gradient::Sparse(s)) => {
            let values = out(py, Ok(s.values.clone()))?;
            let indices = out(py, s.indices_tensor())?;
            // int32, as TensorFlow's shape ops give, unless a dim needs 64 bits.
            let n = s.dense_shape.len();
            let small: Option<Vec<i32>> = s
                .dense_shape
                .iter()
                .map(|&d| i32::try_from(d).ok())
                .collect();
            let dense_shape = match small {
                Some(dims) => out(py, Tensor::from_vec(dims, &[n]))?,
                None => {
                    let dims: Vec<i64> = s.dense_shape.iter().map(|&d| d as i64).collect();
                    out(py, Tensor::from_vec(dims, &[n]))?
                }
            };
            let cls = py
                .import(intern!(py, "tapers._indexed_slices"))?
                .getattr(intern!(py, "IndexedSlices"))?;
            Ok(cls.call1((values, indices, dense_shape))?.unbind())
        }
    }
}

fn to_py_list<'py>(py: Python<'py>, grads: Vec<Option<Gradient>>) -> PyResult<Bound<'py, PyList>> {
    let items = grads
        .into_iter()
        .map(|g| grad_out(py, g))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
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

    /// Everything happens in `__new__`; this accepts its arguments so that
    /// subclasses may call `super().__init__(...)`.
    #[pyo3(signature = (persistent=false, watch_accessed_variables=true))]
    fn __init__(&self, persistent: bool, watch_accessed_variables: bool) {
        let _ = (persistent, watch_accessed_variables);
    }

    fn __enter__(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        slf.get().tape.push().py()?;
        Ok(slf)
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, PyTuple>) -> PyResult<()> {
        if self.tape.is_recording() {
            self.tape.pop().py()?;
        }
        Ok(())
    }

    fn _push(&self) -> PyResult<()> {
        self.tape.push().py()
    }

    /// Pauses recording (TF's `stop_recording` entry).
    fn _pause(&self) -> PyResult<()> {
        self.tape.pause().py()
    }

    /// Clears everything recorded; recording continues on a fresh tape.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     If called outside the tape's ``with`` block.
    fn reset(&self) -> PyResult<()> {
        self.tape.reset().py()
    }

    /// Whether ``gradient`` may be called more than once.
    #[getter]
    fn persistent(&self) -> bool {
        self.tape.persistent()
    }

    /// How many ops the tape holds (not ``__len__``: a tape is always truthy).
    fn _num_ops(&self) -> usize {
        self.tape.len()
    }

    /// Bytes of the recording itself (beyond the tensors it keeps).
    fn _memory_bytes(&self) -> usize {
        self.tape.memory_bytes()
    }

    /// Why the gradient of `targets` w.r.t. `source` is, or is not, None.
    fn _explain(&self, targets: &Bound<'_, PyList>, source: &Bound<'_, PyAny>) -> PyResult<String> {
        let targets: Vec<Tensor> = targets
            .iter()
            .map(|t| self.target_of(&t))
            .collect::<PyResult<_>>()?;
        Ok(self.tape.explain(&targets, &source_of(source)?).to_string())
    }

    /// The recording as text: one line per op with its inputs, outputs,
    /// dtypes and shapes; the watched tensors and variables; and where no
    /// gradient flows (``stop_gradient``, integer casts).
    ///
    /// Tensors are named ``t<N>`` by a process-wide counter. Not in
    /// TensorFlow: a debugging aid of tapers.
    ///
    /// Returns
    /// -------
    /// str
    ///     One line per op, then the watched tensors and variables.
    fn describe(&self) -> String {
        self.tape.describe()
    }

    /// The recording as a Graphviz DOT digraph (``dot -Tsvg``): boxes for
    /// ops, ellipses for tensors (watched ones filled), dashed red edges where
    /// no gradient flows. Not in TensorFlow: a debugging aid of tapers.
    ///
    /// Returns
    /// -------
    /// str
    ///     The DOT source.
    fn to_dot(&self) -> String {
        self.tape.to_dot()
    }

    /// Watches one tensor or variable; returns whether it is now watched.
    fn _watch_one(&self, obj: &Bound<'_, PyAny>) -> PyResult<bool> {
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

    /// Ensures ``tensor`` is traced by this tape.
    ///
    /// Parameters
    /// ----------
    /// tensor : Tensor, Variable, or a nested structure of them
    ///     What to watch. Non-floating tensors are not watched (their
    ///     gradients are always None), with TensorFlow's warning.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     For objects that are not tensors or variables (TensorFlow's message).
    fn watch(slf: &Bound<'_, Self>, tensor: &Bound<'_, PyAny>) -> PyResult<()> {
        let tape = &slf.get().tape;
        let (watched, floating) = if let Ok(t) = tensor.cast::<PyTensor>() {
            let t = &t.get().inner;
            (tape.watch(t), t.dtype().is_differentiable())
        } else if let Ok(v) = tensor.cast::<PyVariable>() {
            let v = &v.get().var;
            (tape.watch_variable(v), v.dtype().is_differentiable())
        } else {
            slf.call_method1("_watch_nested", (tensor,))?;
            return Ok(());
        };
        if !watched && !floating {
            warn_not_floating(slf.py(), &tensor.getattr("dtype")?)?;
        }
        Ok(())
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

    /// Gradients of ``target`` with respect to ``sources``.
    ///
    /// Parameters
    /// ----------
    /// target : Tensor or nested structure of Tensors
    ///     What to differentiate; lists and non-scalar tensors count as
    ///     their sum.
    /// sources : Tensor, Variable, or nested structure of them
    ///     What to differentiate with respect to.
    /// output_gradients : Tensor or nested structure, optional
    ///     One per target, the seed instead of ones (shape and dtype of its target).
    /// unconnected_gradients : UnconnectedGradients, default NONE
    ///     What an unconnected source gets: None, or zeros (``ZERO``).
    ///
    /// Returns
    /// -------
    /// Tensor, None, or a structure of them
    ///     In the structure of ``sources``. ``tape.explain(target, source)``
    ///     says why a gradient is None.
    ///
    /// Raises
    /// ------
    /// RuntimeError
    ///     When a non-persistent tape is used a second time (TensorFlow's message).
    /// InvalidArgumentError
    ///     When ``output_gradients`` do not match their targets.
    /// KeyboardInterrupt
    ///     On Ctrl-C during the call (a long pass stops at its next rule);
    ///     the tape keeps its recording and can be differentiated again.
    ///
    /// Notes
    /// -----
    /// Called inside a persistent tape's ``with`` block it warns, as
    /// TensorFlow does, and records the gradient ops (for higher derivatives).
    #[pyo3(signature = (target, sources, output_gradients=None, unconnected_gradients=None))]
    fn gradient<'py>(
        slf: &Bound<'py, Self>,
        target: &Bound<'py, PyAny>,
        sources: &Bound<'py, PyAny>,
        output_gradients: Option<&Bound<'py, PyAny>>,
        unconnected_gradients: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let this = slf.get();
        if this.tape.persistent() && this.tape.is_recording() {
            let category = py.get_type::<PyUserWarning>();
            PyErr::warn(py, &category, PERSISTENT_INSIDE, 1)?;
        }
        if output_gradients.is_none() && unconnected_gradients.is_none() {
            let target_var = target.cast::<PyVariable>().ok();
            let t = if target_var.is_some() {
                Some(this.target_of(target)?)
            } else {
                single_tensor(target)
            };
            if let (Some(t), Some(s)) = (t, single_source(sources)) {
                let (mut g, spend) = this.flat_gradient(
                    py,
                    std::slice::from_ref(&t),
                    std::slice::from_ref(&s),
                    None,
                    false,
                )?;
                if let Some(tv) = target_var {
                    let tv = Some(tv.get().var.clone());
                    seed_variable_targets(&[tv], &[t], &[s], None, &mut g)?;
                }
                let g = grad_out(py, g.into_iter().next().flatten())?;
                crate::interrupt::settle(py, spend)?;
                return Ok(g);
            }
        }
        // Structures: Python flattens them and packs the result. The tape is
        // spent only after the packing, whose bytecode may raise a pending
        // KeyboardInterrupt.
        let args = slf.call_method1(
            intern!(py, "_gradient_args"),
            (target, sources, output_gradients, unconnected_gradients),
        )?;
        type Args<'py> = (
            Bound<'py, PyList>,
            Bound<'py, PyList>,
            Option<Bound<'py, PyList>>,
            bool,
        );
        let (targets, flat_sources, og, zero): Args<'py> = args.extract()?;
        let (grads, spend) = this.list_gradient(py, &targets, &flat_sources, og.as_ref(), zero)?;
        let packed = slf.call_method1(
            intern!(py, "_gradient_pack"),
            (sources, to_py_list(py, grads)?),
        )?;
        crate::interrupt::settle(py, spend)?;
        Ok(packed.unbind())
    }
}

/// TensorFlow's warning for `gradient` inside a persistent tape's context.
const PERSISTENT_INSIDE: &std::ffi::CStr = c"Calling GradientTape.gradient on a persistent tape inside its context is significantly less efficient than calling it outside the context (it causes the gradient ops to be recorded on the tape, leading to increased CPU and memory usage). Only call GradientTape.gradient inside the context if you actually want to trace the gradient in order to compute higher order derivatives.";

/// TensorFlow's warning for watching a tensor that cannot have a gradient.
fn warn_not_floating(py: Python<'_>, dtype: &Bound<'_, PyAny>) -> PyResult<()> {
    let msg = format!(
        "The dtype of the watched tensor must be floating (e.g. tapers.float32), got {}",
        dtype.repr()?
    );
    let msg = std::ffi::CString::new(msg).map_err(|e| PyValueError::new_err(e.to_string()))?;
    PyErr::warn(py, &py.get_type::<PyUserWarning>(), &msg, 1)
}

#[pymethods]
impl PyTape {
    /// Flat Jacobian: one tensor (or None) per source.
    #[pyo3(signature = (target, sources, zero=false, parallel_iterations=None))]
    fn _jacobian<'py>(
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
        to_py_list(py, js.into_iter().map(|j| j.map(Gradient::Dense)).collect())
    }

    /// Per-example Jacobian of `target` with respect to `source`.
    #[pyo3(signature = (target, source, parallel_iterations=None))]
    fn _batch_jacobian(
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
    if let Some(t) = single_tensor(t) {
        Ok(t)
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
            call().map_err(crate::errors::from_callback)
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

/// `tapers.init_scope()`: while entered, nothing records on this thread: no
/// tape and no trace (`tapers.function`) sees the ops run, as TensorFlow
/// lifts them out of the graph being built and pauses its tapes. Exiting
/// restores what recorded before. Unsendable: entered and exited on one
/// thread, as a `with` block is.
#[pyclass(module = "tapers._core", name = "_InitScope", unsendable)]
#[derive(Default)]
pub struct PyInitScope {
    previous: Option<tapers::RecordingContext>,
}

#[pymethods]
impl PyInitScope {
    #[new]
    fn new() -> Self {
        Self::default()
    }

    fn __enter__(&mut self) -> PyResult<()> {
        if self.previous.is_some() {
            return Err(PyValueError::new_err("this init_scope is already entered"));
        }
        self.previous = Some(tapers::RecordingContext::default().install());
        Ok(())
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&mut self, _exc: &Bound<'_, PyTuple>) {
        if let Some(previous) = self.previous.take() {
            previous.install();
        }
    }
}
