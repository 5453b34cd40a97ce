//! Python values <-> core tensors and dtypes.
//!
//! Conversions follow `tf.constant` / `tf.convert_to_tensor`: Python floats are
//! float32, Python ints int32 (int64 when too large), numpy arrays keep their
//! dtype. Data coming from numpy is copied: a numpy array can be mutated behind
//! our back, so sharing it would break tensor immutability. Data going to numpy
//! is shared, read-only (see `tensor.rs`).

use numpy::{
    PyArrayDescr, PyArrayDescrMethods, PyReadonlyArrayDyn, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt, PyList, PyString, PyTuple};

use tapers::Num;
use tapers::{ops, DType, Tensor};

use crate::errors::IntoPyResult;
use crate::tensor::PyTensor;
use crate::variable::PyVariable;

use DType as D;

fn index_of(d: DType) -> usize {
    D::ALL
        .iter()
        .position(|&x| x == d)
        .expect("all dtypes listed")
}

/// The error for a dtype tapers does not have (strings, quantized types, ...).
pub fn unsupported_dtype(what: &str) -> PyErr {
    let names: Vec<&str> = D::ALL.iter().map(|d| d.name()).collect();
    PyTypeError::new_err(format!(
        "tapers supports dtypes {}; got {what}",
        names.join(", ")
    ))
}

/// Imports `ml_dtypes`, which gives numpy its `bfloat16` (as TensorFlow does).
pub fn need_ml_dtypes(py: Python<'_>) -> PyResult<()> {
    static DONE: PyOnceLock<()> = PyOnceLock::new();
    DONE.get_or_try_init(py, || {
        py.import("ml_dtypes").map(|_| ()).map_err(|_| {
            pyo3::exceptions::PyImportError::new_err(
                "bfloat16 tensors need the ml_dtypes package for numpy interop (pip install ml_dtypes)",
            )
        })
    })
    .map(|_| ())
}

/// The `tapers.float32`-style object for a dtype.
pub fn dtype_object(py: Python<'_>, d: DType) -> PyResult<Bound<'_, PyAny>> {
    static OBJS: PyOnceLock<Vec<Py<PyAny>>> = PyOnceLock::new();
    let objs = OBJS.get_or_try_init(py, || {
        let m = py.import("tapers.dtypes")?;
        D::ALL
            .iter()
            .map(|d| Ok(m.getattr(d.name())?.unbind()))
            .collect::<PyResult<Vec<_>>>()
    })?;
    Ok(objs[index_of(d)].bind(py).clone())
}

fn numpy(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    static NP: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    NP.get_or_try_init(py, || Ok::<_, PyErr>(py.import("numpy")?.unbind()))
        .map(|m| m.bind(py))
}

/// Parses a dtype argument: a `tapers` dtype, a name, or anything numpy accepts.
pub fn parse_dtype(obj: &Bound<'_, PyAny>) -> PyResult<DType> {
    let name: String = if let Ok(s) = obj.cast::<PyString>() {
        s.to_string()
    } else if let Ok(n) = obj.getattr("name") {
        n.extract::<String>()?
    } else {
        numpy(obj.py())?
            .getattr("dtype")?
            .call1((obj,))?
            .getattr("name")?
            .extract()?
    };
    DType::from_name(&name).ok_or_else(|| unsupported_dtype(&name))
}

/// How strictly a requested dtype applies.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// Default conversion.
    Any,
    /// Must produce this dtype (`dtype=` argument).
    Exact(DType),
    /// Prefer this dtype (`dtype_hint=`); fall back to default.
    Hint(DType),
    /// The other operand of a binary op has this dtype: as `Hint`, except that
    /// a Python float (or list of floats) beside an integer tensor is TF's
    /// `TypeError` ("Cannot convert 0.5 to EagerTensor of dtype int32").
    Operand(DType),
}

fn cannot_convert(obj: &Bound<'_, PyAny>, d: DType) -> PyErr {
    let r = obj
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "value".into());
    // TF names the dtype as its kernels do ("float", "half", ...).
    PyTypeError::new_err(format!(
        "Cannot convert {r} to EagerTensor of dtype {}",
        d.kernel_name()
    ))
}

/// A Python float as float32: a finite value beyond float32's range is
/// TensorFlow's `ValueError`, not a silent infinity.
fn to_f32(v: f64) -> PyResult<f32> {
    let f = v as f32;
    if v.is_finite() && !f.is_finite() {
        return Err(PyValueError::new_err(
            "Can't convert Python sequence with a value out of range for a double-precision float.",
        ));
    }
    Ok(f)
}

fn scalar_exact(obj: &Bound<'_, PyAny>, d: DType) -> PyResult<Tensor> {
    // TF's conversion takes a Python bool as 0/1 for these dtypes only, and
    // refuses it for the others ("Cannot convert True to EagerTensor of
    // dtype uint8").
    let takes_bool = matches!(
        d,
        D::F32 | D::F64 | D::I32 | D::I64 | D::Bool | D::U64 | D::F16 | D::C128
    );
    if obj.is_instance_of::<PyBool>() {
        if !takes_bool {
            return Err(cannot_convert(obj, d));
        }
        return Ok(Tensor::scalar_of(d, obj.extract::<bool>()? as u8 as f64));
    }
    if obj.is_instance_of::<PyInt>() {
        return match d {
            D::F32 => Ok(Tensor::scalar(obj.extract::<f64>()? as f32)),
            D::I32 => obj
                .extract::<i32>()
                .map(Tensor::scalar)
                .map_err(|_| cannot_convert(obj, d)),
            D::I64 => obj
                .extract::<i64>()
                .map(Tensor::scalar)
                .map_err(|_| cannot_convert(obj, d)),
            D::Bool => Err(cannot_convert(obj, d)),
            // TF wraps a Python int into the smaller integer types
            // (`tf.constant(300, dtype=tf.uint8)` is 44).
            d if d.is_integer() => {
                let v: i128 = if d == D::U64 {
                    obj.extract::<u64>().map_err(|_| cannot_convert(obj, d))? as i128
                } else {
                    obj.extract::<i128>().map_err(|_| cannot_convert(obj, d))?
                };
                Ok(Tensor::scalar_num(d, Num::Int(v)))
            }
            d => Ok(Tensor::scalar_num(d, Num::Float(obj.extract::<f64>()?))),
        };
    }
    if obj.is_instance_of::<PyComplex>() {
        let c = obj.cast::<PyComplex>()?;
        return if d.is_complex() {
            Ok(Tensor::scalar_num(d, Num::Complex(c.real(), c.imag())))
        } else {
            Err(cannot_convert(obj, d))
        };
    }
    let v: f64 = obj.extract()?;
    match d {
        D::F32 => Ok(Tensor::scalar(to_f32(v)?)),
        d if d.is_float() || d.is_complex() => Ok(Tensor::scalar_num(d, Num::Float(v))),
        _ => Err(cannot_convert(obj, d)),
    }
}

fn scalar_default(obj: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    if obj.is_instance_of::<PyBool>() {
        return Ok(Tensor::scalar(obj.extract::<bool>()?));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(v) = obj.extract::<i32>() {
            return Ok(Tensor::scalar(v));
        }
        return obj.extract::<i64>().map(Tensor::scalar).map_err(|_| {
            PyValueError::new_err(format!(
                "Can't convert Python int {} to a tensor: out of int64 range",
                obj
            ))
        });
    }
    if let Ok(c) = obj.cast::<PyComplex>() {
        return Ok(Tensor::scalar_num(
            D::C128,
            Num::Complex(c.real(), c.imag()),
        ));
    }
    Ok(Tensor::scalar(to_f32(obj.extract::<f64>()?)?))
}

fn copy_array<T: tapers::Element + numpy::Element>(arr: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    let r: PyReadonlyArrayDyn<'_, T> = arr.extract()?;
    Ok(Tensor::from_array(r.as_array().to_owned()))
}

/// The dtype of a numpy dtype of a builtin kind, from its kind and size
/// (fields of the C struct; `dtype.name` is a Python property that costs
/// microseconds per conversion); `None` for any other (ml_dtypes'
/// `bfloat16`, a void kind that only its name tells apart).
fn builtin_dtype(descr: &Bound<'_, PyArrayDescr>) -> Option<DType> {
    Some(match (descr.kind(), descr.itemsize()) {
        (b'f', 2) => D::F16,
        (b'f', 4) => D::F32,
        (b'f', 8) => D::F64,
        (b'i', 1) => D::I8,
        (b'i', 2) => D::I16,
        (b'i', 4) => D::I32,
        (b'i', 8) => D::I64,
        (b'u', 1) => D::U8,
        (b'u', 2) => D::U16,
        (b'u', 4) => D::U32,
        (b'u', 8) => D::U64,
        (b'b', 1) => D::Bool,
        (b'c', 8) => D::C64,
        (b'c', 16) => D::C128,
        _ => return None,
    })
}

/// Copies a numpy array of a supported dtype into a tensor.
fn from_ndarray(arr: &Bound<'_, PyUntypedArray>) -> PyResult<Tensor> {
    let descr = arr.dtype();
    let d = match builtin_dtype(&descr) {
        Some(d) => d,
        None => {
            let np_name: String = descr.getattr("name")?.extract()?;
            DType::from_name(&np_name)
                .ok_or_else(|| unsupported_dtype(&format!("a numpy array of dtype {np_name}")))?
        }
    };
    // A byte-swapped array (`>f4` on a little-endian machine): its values in
    // this machine's order first.
    let native;
    let a = if descr.is_native_byteorder() == Some(false) {
        native = cast_ndarray(arr, d)?;
        native.as_any()
    } else {
        arr.as_any()
    };
    tapers::with_dtype!(d, T => copy_array::<T>(a))
}

fn as_ndarray<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
    let np = numpy(obj.py())?;
    let arr = np.getattr("asarray")?.call1((obj,)).map_err(|e| {
        if e.is_instance_of::<PyValueError>(obj.py()) {
            PyValueError::new_err("Can't convert non-rectangular Python sequence to Tensor.")
        } else {
            e
        }
    })?;
    let arr = arr.cast_into::<PyUntypedArray>()?;
    let kind: String = arr.dtype().getattr("kind")?.extract()?;
    if kind == "O" {
        return Err(PyValueError::new_err(
            "Can't convert non-rectangular Python sequence to Tensor.",
        ));
    }
    Ok(arr)
}

fn cast_ndarray<'py>(
    arr: &Bound<'py, PyUntypedArray>,
    d: DType,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    Ok(arr
        .call_method1("astype", (d.name(),))?
        .cast_into::<PyUntypedArray>()?)
}

fn is_numpy_value(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let np = numpy(obj.py())?;
    Ok(obj.is_instance(&np.getattr("ndarray")?)? || obj.is_instance(&np.getattr("generic")?)?)
}

/// Converts any supported Python value to a tensor.
pub fn to_tensor(obj: &Bound<'_, PyAny>, want: Want) -> PyResult<Tensor> {
    // Fast paths first: tensors and Python scalars.
    if let Ok(t) = obj.cast::<PyTensor>() {
        let t = t.get().inner.clone();
        return match want {
            Want::Exact(d) if d != t.dtype() => Err(PyValueError::new_err(format!(
                "Tensor conversion requested dtype {} for Tensor with dtype {}: {}",
                d.name(),
                t.dtype().name(),
                obj.repr()?
            ))),
            _ => Ok(t),
        };
    }
    if let Ok(v) = obj.cast::<PyVariable>() {
        let t = v.get().var.read();
        return match want {
            Want::Exact(d) if d != t.dtype() => Err(PyValueError::new_err(format!(
                "Tensor conversion requested dtype {} for Tensor with dtype {}",
                d.name(),
                t.dtype().name()
            ))),
            _ => Ok(t),
        };
    }
    // Exact types only: numpy scalars subclass float but keep their own dtype.
    if obj.is_exact_instance_of::<PyFloat>()
        || obj.is_exact_instance_of::<PyInt>()
        || obj.is_exact_instance_of::<PyBool>()
        || obj.is_exact_instance_of::<PyComplex>()
    {
        return match want {
            Want::Any => scalar_default(obj),
            Want::Exact(d) => scalar_exact(obj, d),
            // A Python float beside an integer tensor is TF's TypeError
            // ("Cannot convert 0.5 to EagerTensor of dtype int32"), not a
            // float operand for the op to refuse.
            Want::Operand(d) if d.is_integer() && obj.is_exact_instance_of::<PyFloat>() => {
                Err(cannot_convert(obj, d))
            }
            Want::Hint(d) | Want::Operand(d) => {
                scalar_exact(obj, d).or_else(|_| scalar_default(obj))
            }
        };
    }
    let from_numpy = is_numpy_value(obj)?;
    // Objects that convert themselves (`tapers.IndexedSlices`, densified as
    // TensorFlow's registered conversion does, recorded on active tapes).
    if !from_numpy {
        if let Ok(f) = obj.getattr(pyo3::intern!(obj.py(), "__tapers_tensor__")) {
            let t = f.call0()?;
            if t.cast::<PyTensor>().is_err() {
                return Err(PyTypeError::new_err(format!(
                    "__tapers_tensor__ of {} returned {}, not a tapers.Tensor",
                    obj.get_type().name()?,
                    t.get_type().name()?
                )));
            }
            return to_tensor(&t, want);
        }
    }
    let sequence_like = from_numpy
        || obj.is_instance_of::<PyList>()
        || obj.is_instance_of::<PyTuple>()
        || obj.hasattr("__array__")?;
    if !sequence_like {
        return Err(PyTypeError::new_err(format!(
            "Cannot convert {} of type {} to a tapers.Tensor",
            obj.repr()?,
            obj.get_type().name()?
        )));
    }
    let arr = as_ndarray(obj)?;
    let kind: String = arr.dtype().getattr("kind")?.extract()?;
    // Default dtype of a Python sequence: float32 / int32 (int64 if needed) / bool.
    let default = |arr: &Bound<'_, PyUntypedArray>| -> PyResult<Tensor> {
        if from_numpy {
            return from_ndarray(arr);
        }
        match kind.as_str() {
            "f" => from_ndarray(&cast_ndarray(arr, DType::F32)?),
            "i" | "u" => {
                let fits = arr.len() == 0
                    || (arr
                        .call_method0("min")?
                        .extract::<i64>()
                        .is_ok_and(|v| v >= i32::MIN as i64)
                        && arr
                            .call_method0("max")?
                            .extract::<i64>()
                            .is_ok_and(|v| v <= i32::MAX as i64));
                from_ndarray(&cast_ndarray(
                    arr,
                    if fits { DType::I32 } else { DType::I64 },
                )?)
            }
            _ => from_ndarray(arr),
        }
    };
    match want {
        Want::Any => default(&arr),
        Want::Exact(d) | Want::Hint(d) | Want::Operand(d) => {
            // Python floats never convert to an integer dtype, integral or
            // not (TF: "Cannot convert [1.0, 2.0] to EagerTensor of dtype
            // int32"); an empty list converts to anything.
            let nonempty = arr.len() > 0;
            let lossy = (kind == "f" && d.is_integer() || kind == "c" && !d.is_complex())
                && !from_numpy
                && nonempty;
            if d == D::BF16 {
                need_ml_dtypes(obj.py())?;
            }
            let bad_bool = (d == DType::Bool) != (kind == "b") && !from_numpy && nonempty;
            if lossy || bad_bool {
                return match want {
                    Want::Exact(_) => Err(cannot_convert(obj, d)),
                    // Beside an integer tensor, TF's TypeError too.
                    Want::Operand(_) if lossy => Err(cannot_convert(obj, d)),
                    _ => default(&arr),
                };
            }
            from_ndarray(&cast_ndarray(&arr, d)?)
        }
    }
}

/// `tf.constant(value, dtype, shape)`.
pub fn constant(
    obj: &Bound<'_, PyAny>,
    dtype: Option<DType>,
    shape: Option<Vec<isize>>,
) -> PyResult<Tensor> {
    let want = dtype.map_or(Want::Any, Want::Exact);
    // Numpy arrays and Python values convert to `dtype`; a Variable's value is
    // cast to it (TensorFlow: tf.constant(v, dtype=...)). A Tensor of another
    // dtype never gets here: tapers.constant refuses it, as TensorFlow does.
    let t = match want {
        Want::Exact(d) if obj.is_instance_of::<PyVariable>() => {
            ops::cast(&to_tensor(obj, Want::Any)?, d).py()?
        }
        _ => to_tensor(obj, want)?,
    };
    match shape {
        None => Ok(t),
        Some(s) => {
            let n: isize = s.iter().product();
            if t.numel() == 1 && n != 1 {
                let dims: Vec<usize> = s.iter().map(|&d| d.max(0) as usize).collect();
                let scalar = ops::reshape(&t, &[]).py()?;
                ops::broadcast_to(&scalar, &dims).py()
            } else {
                ops::reshape(&t, &s).py()
            }
        }
    }
}

/// [`binary_operands`] as TensorFlow's `add` and `+` convert them: a Python
/// float beside an integer tensor falls back to its own dtype (the op then
/// refuses the pair with `InvalidArgumentError`), where the other operators
/// raise `TypeError`.
pub fn binary_operands_lenient(
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<(Tensor, Tensor)> {
    match binary_operands(a, b) {
        Err(e) if e.is_instance_of::<PyTypeError>(a.py()) => {
            let (ta, tb) = (to_tensor(a, Want::Any), to_tensor(b, Want::Any));
            match (ta, tb) {
                (Ok(ta), Ok(tb)) => Ok((ta, tb)),
                _ => Err(e),
            }
        }
        r => r,
    }
}

/// Converts the two operands of a binary op: a tensor-like side fixes the
/// dtype the other side's Python scalars convert to.
pub fn binary_operands(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<(Tensor, Tensor)> {
    let a_is_tensor = a.is_instance_of::<PyTensor>() || a.is_instance_of::<PyVariable>();
    if a_is_tensor || !(b.is_instance_of::<PyTensor>() || b.is_instance_of::<PyVariable>()) {
        let ta = to_tensor(a, Want::Any)?;
        let tb = to_tensor(b, Want::Operand(ta.dtype()))?;
        Ok((ta, tb))
    } else {
        let tb = to_tensor(b, Want::Any)?;
        let ta = to_tensor(a, Want::Operand(tb.dtype()))?;
        Ok((ta, tb))
    }
}
