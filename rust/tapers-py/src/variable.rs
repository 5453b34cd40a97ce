//! `tapers.Variable`: shared mutable state with atomic assignment.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PyDict, PyTuple, PyWeakrefMethods, PyWeakrefReference};

use tapers::{ops, tuple_string, Tensor, Variable};

use crate::args::Name;
use crate::call::{run, Work};
use crate::convert::{dtype_object, parse_dtype, to_tensor, Want};
use crate::errors::IntoPyResult;
use crate::tensor::{number_protocol, numpy_text, numpy_value, out, to_numpy, PyTensor};

/// A named, mutable slot holding a tensor (``tf.Variable``).
///
/// Parameters
/// ----------
/// initial_value : Tensor-like or callable
///     The first value, or a function returning it.
/// trainable : bool, default True
///     Whether tapes watch the variable automatically when an op reads it
///     (with ``watch_accessed_variables=True``) and optimizers may update it.
/// validate_shape : bool, default True
///     Accepted for TensorFlow compatibility; assignments must always keep the
///     shape.
/// name : str, optional
///     The name, shown as ``name:0`` (default ``Variable``).
/// dtype : DType or str, optional
///     Converts ``initial_value`` to this dtype.
/// constraint : callable, optional
///     A projection ``fn(value) -> value`` that optimizers apply after each
///     update of the variable (TensorFlow's and Keras' ``constraint``); kept
///     as ``constraint``.
/// caching_device, variable_def, import_scope, synchronization, aggregation, shape, experimental_enable_variable_lifting
///     Accepted for TensorFlow compatibility and ignored.
///
/// Attributes
/// ----------
/// name : str
///     ``name:0``.
/// trainable : bool
///     As given.
/// shape : TensorShape
///     The value's shape (fixed for the variable's life).
/// dtype : DType
///     The value's dtype (fixed).
///
/// Notes
/// -----
/// ``assign``, ``assign_add`` and ``assign_sub`` swap in a new value atomically:
/// a reader on another thread sees the old value or the new one, never a mix,
/// and a tensor read earlier keeps its values.
#[pyclass(module = "tapers", name = "Variable", frozen, weakref)]
pub struct PyVariable {
    pub var: Variable,
    /// The `constraint` given at construction; a deep copy keeps it, the
    /// wrapper made for a core variable whose Python object is gone has none.
    constraint: Option<Py<PyAny>>,
}

struct WeakHandle(Py<PyWeakrefReference>);

impl PyVariable {
    /// The Python object for a core variable: the one that created it, if
    /// still alive, so `watched_variables()` returns the user's own objects.
    pub fn object_for(py: Python<'_>, var: &Variable) -> PyResult<Py<PyAny>> {
        if let Some(h) = var
            .binding_slot()
            .get()
            .and_then(|b| b.downcast_ref::<WeakHandle>())
        {
            if let Some(obj) = h.0.bind(py).upgrade() {
                return Ok(obj.unbind());
            }
        }
        let obj = Bound::new(
            py,
            PyVariable {
                var: var.clone(),
                constraint: None,
            },
        )?;
        register(&obj)?;
        Ok(obj.into_any().unbind())
    }

    fn value_holder<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTensor>> {
        PyTensor::wrap(py, self.var.value())
    }

    /// `value_holder` for a read into Python: inside a trace, a traced read
    /// and a guard on its value.
    fn read_holder<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTensor>> {
        if tapers::graph::is_tracing() {
            let t = self.var.read();
            tapers::graph::guard(&t);
            return PyTensor::wrap(py, t);
        }
        self.value_holder(py)
    }

    fn convert(&self, value: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        to_tensor(value, Want::Exact(self.var.dtype()))
    }
}

/// Converts `value` to the variable's dtype and applies one of the core's
/// updates (without the GIL for big values). Returns the variable, as TF does.
fn update<'py>(
    slf: &Bound<'py, PyVariable>,
    value: &Bound<'py, PyAny>,
    name: Option<Name>,
    f: fn(&Variable, &Tensor) -> tapers::Result<()>,
) -> PyResult<Bound<'py, PyVariable>> {
    let v = slf.get();
    let t = v.convert(value)?;
    run(slf.py(), name, Work::of(&[&t]), || f(&v.var, &t))?;
    Ok(slf.clone())
}

fn register(obj: &Bound<'_, PyVariable>) -> PyResult<()> {
    let weak = PyWeakrefReference::new(obj)?;
    let _ = obj
        .get()
        .var
        .binding_slot()
        .set(Box::new(WeakHandle(weak.unbind())));
    Ok(())
}

number_protocol!(PyVariable);

thread_local! {
    /// The calling thread's name scope (`tapers.name_scope`), `""` or ending
    /// in `/`: a new Variable's name is this prefix and its own name, as in
    /// TensorFlow (`dense/w:0`).
    static NAME_SCOPE: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

fn scoped_name(name: &str) -> String {
    NAME_SCOPE.with(|s| format!("{}{name}", s.borrow()))
}

/// Sets this thread's name scope (`""` or a prefix ending in `/`) and returns
/// the previous one; `tapers.name_scope` enters and leaves through it.
#[pyfunction]
pub fn set_name_scope(scope: String) -> PyResult<String> {
    if !scope.is_empty() && !scope.ends_with('/') {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "a name scope prefix is empty or ends with '/', got {scope:?}"
        )));
    }
    Ok(NAME_SCOPE.with(|s| std::mem::replace(&mut *s.borrow_mut(), scope)))
}

/// This thread's name scope: `""` or a prefix ending in `/`.
#[pyfunction]
pub fn get_name_scope() -> String {
    NAME_SCOPE.with(|s| s.borrow().clone())
}

#[pymethods]
impl PyVariable {
    #[new]
    #[pyo3(signature = (initial_value=None, trainable=None, validate_shape=true, caching_device=None, name=None, variable_def=None, dtype=None, import_scope=None, constraint=None, synchronization=None, aggregation=None, shape=None, experimental_enable_variable_lifting=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        initial_value: Option<&Bound<'_, PyAny>>,
        trainable: Option<bool>,
        validate_shape: bool,
        caching_device: Option<&Bound<'_, PyAny>>,
        name: Option<String>,
        variable_def: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        import_scope: Option<&Bound<'_, PyAny>>,
        constraint: Option<&Bound<'_, PyAny>>,
        synchronization: Option<&Bound<'_, PyAny>>,
        aggregation: Option<&Bound<'_, PyAny>>,
        shape: Option<&Bound<'_, PyAny>>,
        experimental_enable_variable_lifting: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        // Placement, graph import, constraints and distribution settings mean
        // nothing to an eager CPU variable; assignments always keep the shape.
        let _ = (validate_shape, caching_device, variable_def, import_scope);
        let constraint = match constraint {
            Some(c) if c.is_none() => None,
            Some(c) if !c.is_callable() => {
                return Err(PyTypeError::new_err(format!(
                    "The `constraint` argument must be a callable, got {}",
                    c.get_type().name()?
                )))
            }
            other => other.map(|c| c.clone().unbind()),
        };
        let _ = (
            synchronization,
            aggregation,
            shape,
            experimental_enable_variable_lifting,
        );
        let init = initial_value
            .ok_or_else(|| PyTypeError::new_err("initial_value must be specified."))?;
        let init = if init.is_callable() && !init.is_instance_of::<PyTensor>() {
            init.call0()?
        } else {
            init.clone()
        };
        let want = match dtype {
            Some(d) => Want::Exact(parse_dtype(d)?),
            None => Want::Any,
        };
        let value = to_tensor(&init, want).map_err(|e| {
            pyo3::exceptions::PyValueError::new_err(format!("initial_value: {}", e.value(py)))
        })?;
        // The stored value must not be a tensor any tape tracks: reads alias it.
        let value = ops::stop_gradient(&value);
        Ok(PyVariable {
            var: Variable::new(value)
                .with_name(scoped_name(name.as_deref().unwrap_or("Variable")))
                .trainable(trainable.unwrap_or(true)),
            constraint,
        })
    }

    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        if let Some(c) = &self.constraint {
            visit.call(c)?;
        }
        Ok(())
    }

    /// The projection optimizers apply after updating the variable, or None.
    #[getter]
    fn constraint(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.constraint.as_ref().map(|c| c.clone_ref(py))
    }

    #[pyo3(signature = (*_args, **_kwargs))]
    fn __init__(
        slf: &Bound<'_, Self>,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        register(slf)
    }

    /// `name:0`, as TensorFlow names variables.
    #[getter]
    fn name(&self) -> String {
        format!("{}:0", self.var.name())
    }

    #[getter]
    fn trainable(&self) -> bool {
        self.var.is_trainable()
    }

    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let holder = self.value_holder(py)?;
        holder.getattr("shape")
    }

    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        dtype_object(py, self.var.dtype())
    }

    #[getter]
    fn ndim(&self) -> usize {
        self.var.shape().len()
    }

    #[getter]
    fn _id(&self) -> u64 {
        self.var.handle_id().as_u64()
    }

    /// Reads the value (recorded on active tapes).
    fn read_value(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        out(slf.py(), Ok(slf.get().var.read()))
    }

    /// Reads the value (recorded on active tapes).
    fn value(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        out(slf.py(), Ok(slf.get().var.read()))
    }

    fn numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let holder = self.read_holder(py)?;
        numpy_value(&holder.get().inner, holder.clone().into_any())
    }

    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__<'py>(
        &self,
        py: Python<'py>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let holder = self.read_holder(py)?;
        let arr = to_numpy(&holder.get().inner, holder.clone().into_any())?;
        match dtype {
            Some(d) => arr.call_method1("astype", (d,)),
            None if copy == Some(true) => arr.call_method0("copy"),
            None => Ok(arr),
        }
    }

    /// Replaces the value; shape and dtype must match. Returns the variable.
    #[pyo3(signature = (value, use_locking=None, name=None, read_value=true))]
    fn assign<'py>(
        slf: &Bound<'py, Self>,
        value: &Bound<'py, PyAny>,
        use_locking: Option<bool>,
        name: Option<Name>,
        read_value: bool,
    ) -> PyResult<Bound<'py, Self>> {
        // Updates are always atomic, and the variable is returned either way.
        let _ = (use_locking, read_value);
        update(slf, value, name, Variable::assign)
    }

    /// Adds to the value atomically. Returns the variable.
    #[pyo3(signature = (delta, use_locking=None, name=None, read_value=true))]
    fn assign_add<'py>(
        slf: &Bound<'py, Self>,
        delta: &Bound<'py, PyAny>,
        use_locking: Option<bool>,
        name: Option<Name>,
        read_value: bool,
    ) -> PyResult<Bound<'py, Self>> {
        // Updates are always atomic, and the variable is returned either way.
        let _ = (use_locking, read_value);
        update(slf, delta, name, Variable::assign_add)
    }

    /// Subtracts from the value atomically. Returns the variable.
    #[pyo3(signature = (delta, use_locking=None, name=None, read_value=true))]
    fn assign_sub<'py>(
        slf: &Bound<'py, Self>,
        delta: &Bound<'py, PyAny>,
        use_locking: Option<bool>,
        name: Option<Name>,
        read_value: bool,
    ) -> PyResult<Bound<'py, Self>> {
        // Updates are always atomic, and the variable is returned either way.
        let _ = (use_locking, read_value);
        update(slf, delta, name, Variable::assign_sub)
    }

    /// `copy.copy`: the same variable (a handle to shared state), as TensorFlow's.
    fn __copy__(slf: &Bound<'_, Self>) -> Py<PyAny> {
        slf.clone().into_any().unbind()
    }

    /// `copy.deepcopy`: a new variable with the current value, name and trainability, as
    /// TensorFlow's; later assignments to either do not reach the other.
    fn __deepcopy__<'py>(
        slf: &Bound<'py, Self>,
        _memo: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, Self>> {
        let var = &slf.get().var;
        let copy = Variable::new(var.value())
            .with_name(var.name().to_string())
            .trainable(var.is_trainable());
        let constraint = slf.get().constraint.as_ref().map(|c| c.clone_ref(slf.py()));
        let obj = Bound::new(
            slf.py(),
            PyVariable {
                var: copy,
                constraint,
            },
        )?;
        register(&obj)?;
        Ok(obj)
    }

    /// `pickle`: rebuilt as `Variable(value, trainable, name=name)` from a numpy copy of the
    /// current value, as TensorFlow's.
    #[allow(clippy::type_complexity)]
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(
        Bound<'py, PyAny>,
        (Bound<'py, PyAny>, bool, bool, Option<Py<PyAny>>, String),
    )> {
        let py = slf.py();
        let v = slf.get();
        let holder = v.value_holder(py)?;
        let arr = to_numpy(&holder.get().inner, holder.clone().into_any())?.call_method0("copy")?;
        let cls = py.get_type::<PyVariable>().into_any();
        Ok((
            cls,
            (
                arr,
                v.var.is_trainable(),
                true,
                None,
                v.var.name().to_string(),
            ),
        ))
    }

    fn __getitem__(slf: &Bound<'_, Self>, index: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let t = PyTensor::wrap(slf.py(), slf.get().var.read())?;
        Ok(t.get_item(index)?.unbind())
    }

    fn __iter__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let t = PyTensor::wrap(slf.py(), slf.get().var.read())?;
        Ok(t.try_iter()?.into_any().unbind())
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let holder = self.value_holder(py)?;
        let t = &holder.get().inner;
        let v = numpy_value(t, holder.clone().into_any())?;
        Ok(format!(
            "<tapers.Variable '{}' shape={} dtype={}, numpy={}>",
            self.name(),
            tuple_string(t.shape()),
            t.dtype().name(),
            numpy_text(&v, t.rank(), true)?
        ))
    }

    fn __str__(&self, py: Python<'_>) -> PyResult<String> {
        self.__repr__(py)
    }
}
