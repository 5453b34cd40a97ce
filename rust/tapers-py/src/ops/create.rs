//! Tensors made from Python values, shapes and ranges: `constant`,
//! `convert_to_tensor`, `zeros`, `ones`, `fill`, `eye`, `range`, `linspace`
//! (the constructors of the core's `Tensor` and its `ops/array.rs`).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use tapers::{ops, DType, Tensor};

use super::{export, name_doc, Exports};
use crate::args::{dtype_or, DTypeArg, Name, NewShape, Shape, Size, TensorArg};
use crate::call::{call, Work};
use crate::convert::{constant as make_constant, to_tensor, Want};
use crate::errors::IntoPyResult;
use crate::tensor::PyTensor;

/// A tensor of zeros (``tf.zeros``).
///
/// Parameters
/// ----------
/// shape : sequence of int
///     The shape.
/// dtype : DType or str, default float32
///     The element type.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     A request too large for memory raises ``ResourceExhaustedError``.
#[pyfunction]
#[pyo3(signature = (shape, dtype=None, name=None))]
pub fn zeros(
    py: Python<'_>,
    shape: Shape,
    dtype: Option<DTypeArg>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let d = dtype_or(dtype, DType::F32);
    call(py, name, Work::shape(&shape.0), || {
        Tensor::zeros(&shape.0, d)
    })
}

/// A tensor of ones (``tf.ones``).
///
/// Parameters
/// ----------
/// shape : sequence of int
///     The shape.
/// dtype : DType or str, default float32
///     The element type.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     A request too large for memory raises ``ResourceExhaustedError``.
#[pyfunction]
#[pyo3(signature = (shape, dtype=None, name=None))]
pub fn ones(
    py: Python<'_>,
    shape: Shape,
    dtype: Option<DTypeArg>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let d = dtype_or(dtype, DType::F32);
    call(py, name, Work::shape(&shape.0), || {
        Tensor::ones(&shape.0, d)
    })
}

/// Zeros with the shape (and dtype, unless given) of ``input`` (``tf.zeros_like``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     The template.
/// dtype : DType or str, optional
///     The element type.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     A constant.
#[pyfunction]
#[pyo3(signature = (input, dtype=None, name=None))]
pub fn zeros_like(
    py: Python<'_>,
    input: TensorArg,
    dtype: Option<DTypeArg>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = input.0;
    let d = dtype_or(dtype, t.dtype());
    call(py, name, Work::of(&[&t]), || Tensor::zeros(t.shape(), d))
}

/// Ones with the shape (and dtype, unless given) of ``input`` (``tf.ones_like``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     The template.
/// dtype : DType or str, optional
///     The element type.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     A constant.
#[pyfunction]
#[pyo3(signature = (input, dtype=None, name=None))]
pub fn ones_like(
    py: Python<'_>,
    input: TensorArg,
    dtype: Option<DTypeArg>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = input.0;
    let d = dtype_or(dtype, t.dtype());
    call(py, name, Work::of(&[&t]), || Tensor::ones(t.shape(), d))
}

/// Creates a constant tensor (``tf.constant``).
///
/// Parameters
/// ----------
/// value : Tensor-like
///     A Python number or nested list, a numpy array (its dtype is kept), a
///     Variable (its current value), or a Tensor, which is returned as is
///     (the same object, as in TensorFlow) unless ``shape`` reshapes it.
/// dtype : DType or str, optional
///     The element type; numpy arrays and Python values are converted to it;
///     a Tensor of another dtype raises ``TypeError``, as in TensorFlow.
///     Python floats default to float32 and ints to int32.
/// shape : sequence of int, optional
///     Reshape the value to it, or fill it with a scalar value.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     A new tensor no tape connects to, except that a Tensor ``value`` comes
///     back unchanged (and so stays connected wherever it was).
#[pyfunction]
#[pyo3(signature = (value, dtype=None, shape=None, name=None))]
pub fn constant(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    dtype: Option<DTypeArg>,
    shape: Option<NewShape>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let d = dtype.map(|d| d.0);
    let s = shape.map(|s| s.0);
    if let Ok(pt) = value.cast::<PyTensor>() {
        // TensorFlow hands an eager tensor back as is (the same object, so a
        // tape watching it still connects through it) and refuses to cast it.
        let inner = &pt.get().inner;
        if let Some(d) = d.filter(|&d| d != inner.dtype()) {
            return Err(PyTypeError::new_err(format!(
                "Expected tensor {} with dtype tapers.{}, but got dtype tapers.{}.",
                value.call_method0("numpy")?.str()?,
                d.name(),
                inner.dtype().name()
            )));
        }
        let same_shape = s.as_ref().is_none_or(|s| {
            s.len() == inner.rank() && s.iter().zip(inner.shape()).all(|(&a, &b)| a == b as isize)
        });
        if same_shape {
            return Ok(value.clone().unbind());
        }
    }
    // Converting Python values needs the GIL throughout, so `make_constant`
    // runs before the call. Anything but a Tensor is a new tensor no tape
    // connects to (a Variable's value included, as in TensorFlow).
    let t = make_constant(value, d, s)?;
    call(py, name, Work::SMALL, || Ok(ops::stop_gradient(&t)))
}

/// Converts a value to a tensor (``tf.convert_to_tensor``).
///
/// Parameters
/// ----------
/// value : Tensor-like
///     A Tensor is returned as is (still connected to tapes); a Variable is
///     read; Python values and numpy arrays are converted.
/// dtype : DType or str, optional
///     Required dtype: a value of another dtype raises ``ValueError``
///     (TensorFlow's message); Python numbers convert to it.
/// dtype_hint : DType or str, optional
///     Preferred dtype for Python numbers when ``dtype`` is not given.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
#[pyfunction]
#[pyo3(signature = (value, dtype=None, dtype_hint=None, name=None))]
pub fn convert_to_tensor(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    dtype: Option<DTypeArg>,
    dtype_hint: Option<DTypeArg>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let want = match (dtype, dtype_hint) {
        (Some(d), _) => Want::Exact(d.0),
        (_, Some(h)) => Want::Hint(h.0),
        _ => Want::Any,
    };
    if want == Want::Any {
        if let Ok(t) = value.cast::<PyTensor>() {
            return Ok(t.clone().into_any().unbind());
        }
    }
    // The conversion itself needs the GIL (it reads Python and numpy values).
    let t = to_tensor(value, want)?;
    call(py, name, Work::SMALL, || Ok(t))
}

/// A tensor of one value (``tf.fill``).
///
/// Parameters
/// ----------
/// dims : sequence of int
///     The shape.
/// value : Tensor-like
///     A scalar; its dtype is the result's.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Differentiable in ``value`` (the gradient is the sum).
#[pyfunction]
#[pyo3(signature = (dims, value, name=None))]
pub fn fill(
    py: Python<'_>,
    dims: Shape,
    value: TensorArg,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let v = value.0;
    call(py, name, Work::shape(&dims.0), || ops::fill(&dims.0, &v))
}

/// Identity matrices (``tf.eye``).
///
/// Parameters
/// ----------
/// num_rows : int
///     Rows.
/// num_columns : int, optional
///     Columns; ``num_rows`` when None.
/// batch_shape : sequence of int, optional
///     Leading batch axes.
/// dtype : DType or str, default float32
///     The element type.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Shape ``batch_shape + [num_rows, num_columns]``.
#[pyfunction]
#[pyo3(signature = (num_rows, num_columns=None, batch_shape=None, dtype=None, name=None))]
pub fn eye(
    py: Python<'_>,
    num_rows: Size,
    num_columns: Option<Size>,
    batch_shape: Option<Shape>,
    dtype: Option<DTypeArg>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let dim = |d: isize| format!("Dimension {d} must be >= 0 [Op:Fill]");
    let num_rows = num_rows.at_least(0, dim)?;
    let cols = match num_columns {
        Some(c) => c.at_least(0, dim)?,
        None => num_rows,
    };
    let batch = batch_shape.map_or_else(Vec::new, |b| b.0);
    let d = dtype_or(dtype, DType::F32);
    let work = Work::shape(&[&batch[..], &[num_rows, cols]].concat());
    call(py, name, work, || ops::eye(num_rows, cols, &batch, d))
}

/// ``[start, start + delta, ...)`` up to ``limit`` (``tf.range``).
///
/// Parameters
/// ----------
/// start : number
///     The first value, or the limit when ``limit`` is None.
/// limit : number, optional
///     The end (exclusive).
/// delta : number, default 1
///     The step (nonzero).
/// dtype : DType or str, optional
///     int32 unless a float is given (then float32), as in TensorFlow.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     A constant. Counts too large for memory raise ``ResourceExhaustedError``.
#[pyfunction]
#[pyo3(signature = (start, limit=None, delta=None, dtype=None, name=None))]
pub fn range(
    py: Python<'_>,
    start: TensorArg,
    limit: Option<TensorArg>,
    delta: Option<TensorArg>,
    dtype: Option<DTypeArg>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let (s, l) = match limit {
        Some(l) => (start.0, l.0),
        None => (Tensor::scalar(0i32), start.0),
    };
    let d = delta.map_or_else(|| Tensor::scalar(1i32), |d| d.0);
    let vals = [&s, &l, &d];
    let inferred = if vals.iter().any(|t| t.dtype() == DType::F64) {
        DType::F64
    } else if vals.iter().any(|t| t.dtype().is_floating()) {
        DType::F32
    } else if vals.iter().any(|t| t.dtype() == DType::I64) {
        DType::I64
    } else {
        DType::I32
    };
    let dt = dtype_or(dtype, inferred);
    if dt.is_integer() {
        // TF converts each argument to the integer dtype: a float is a TypeError.
        if let Some(f) = vals.iter().find(|t| t.dtype().is_floating()) {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "Cannot convert {:?} to EagerTensor of dtype {}",
                f.to_f64_scalar().py()?,
                dt.name()
            )));
        }
    }
    // Values read into attributes: guards inside `tapers.function`.
    for t in vals {
        tapers::graph::guard(t);
    }
    let (s, l, d) = (
        s.to_f64_scalar().py()?,
        l.to_f64_scalar().py()?,
        d.to_f64_scalar().py()?,
    );
    // The count the core will make (a zero or NaN step it refuses).
    let count = if d != 0.0 {
        ((l - s) / d).ceil().max(0.0)
    } else {
        0.0
    };
    call(py, name, Work::elems(count as usize), || {
        ops::range(s, l, d, dt)
    })
}

/// ``num`` evenly spaced values from ``start`` to ``stop`` inclusive (``tf.linspace``).
///
/// Parameters
/// ----------
/// start, stop : number
///     The ends.
/// num : int
///     How many values.
#[doc = name_doc!()]
/// axis : int, default 0
///     Accepted for TensorFlow compatibility.
///
/// Returns
/// -------
/// Tensor
///     float32, or float64 when either end is a float64 tensor.
#[pyfunction]
#[pyo3(signature = (start, stop, num, name=None, axis=0))]
pub fn linspace(
    py: Python<'_>,
    start: TensorArg,
    stop: TensorArg,
    num: Size,
    name: Option<Name>,
    axis: isize,
) -> PyResult<Py<PyAny>> {
    // TF's linspace builds range(1, num) first, and reports a negative num as that range's error.
    let num = num.at_least(0, |n| {
        format!("Requires start <= limit when delta > 0: 1/{n} [Op:Range]")
    })?;
    let (a, b) = (start.0, stop.0);
    let dt = if a.dtype() == DType::F64 || b.dtype() == DType::F64 {
        DType::F64
    } else {
        DType::F32
    };
    // TensorFlow's `axis` places the values along an axis of batched ends;
    // with scalar ends (all tapers takes) every axis gives the same vector.
    let _ = axis;
    tapers::graph::guard(&a);
    tapers::graph::guard(&b);
    call(py, name, Work::elems(num), || {
        ops::linspace(a.to_f64_scalar()?, b.to_f64_scalar()?, num, dt)
    })
}

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    export!(ex, [Tf]: constant, convert_to_tensor, zeros, ones, zeros_like, ones_like, fill);
    export!(ex, [Tf]: range, linspace);
    export!(ex, [Linalg, Tf]: eye);
    Ok(())
}
