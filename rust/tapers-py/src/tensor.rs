//! `tapers.Tensor`: a frozen Python wrapper around a core tensor.

use numpy::PyArray;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple};

use tapers::{ops, tuple_string, DType, Tensor};

use crate::call::{call, Work};
use crate::convert::{binary_operands, dtype_object, to_tensor, Want};
use crate::errors::IntoPyResult;

pub use crate::call::DETACH_THRESHOLD;

/// An immutable n-dimensional array with a dtype (``tf.Tensor``).
///
/// Made by ``tapers.constant``, ``convert_to_tensor`` and every op; not
/// constructed directly. Its values never change, so ops and tapes share
/// buffers instead of copying them. Prints as TensorFlow does
/// (``tapers.Tensor(6.0, shape=(), dtype=float32)``) and supports Python's
/// arithmetic, comparison and indexing operators, ``len``, iteration over the
/// first axis, and ``bool``/``int``/``float`` of one-element tensors.
///
/// Attributes
/// ----------
/// shape : TensorShape
///     The dimensions.
/// dtype : DType
///     The element type.
/// ndim : int
///     The number of axes.
///
/// Notes
/// -----
/// ``numpy()`` and ``np.asarray(t)`` return a read-only view of the tensor's
/// buffer without copying; ``__dlpack__`` exports it the same way. Unlike
/// TensorFlow there is no ``device`` placement: every tensor lives on the CPU.
#[pyclass(module = "tapers", name = "Tensor", frozen, weakref)]
pub struct PyTensor {
    pub inner: Tensor,
}

impl PyTensor {
    pub fn wrap(py: Python<'_>, t: Tensor) -> PyResult<Bound<'_, PyTensor>> {
        Bound::new(py, PyTensor { inner: t })
    }
}

/// Wraps a core result as a new Python tensor.
pub fn out(py: Python<'_>, r: tapers::Result<Tensor>) -> PyResult<Py<PyAny>> {
    Ok(PyTensor::wrap(py, r.py()?)?.into_any().unbind())
}

fn tensor_shape<'py>(py: Python<'py>, shape: &[usize]) -> PyResult<Bound<'py, PyAny>> {
    static CLS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let cls = CLS.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("tapers._shape")?.getattr("TensorShape")?.unbind())
    })?;
    cls.bind(py).call1((PyTuple::new(py, shape)?,))
}

/// A read-only numpy array sharing the tensor's memory.
///
/// `owner` must be the Python object that owns `t` (a `Tensor`), which keeps
/// the memory alive for as long as the numpy array references it.
pub fn to_numpy<'py>(t: &Tensor, owner: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: `borrow_from_array` requires that the memory stays valid and is not
    // reallocated while `owner` is alive. `owner` is a frozen `PyTensor` (or
    // `PyVariable` snapshot holder) whose `Tensor` keeps the `ArcArray` buffer
    // alive through its `Arc`, and tensors are immutable: no code path writes to
    // or reallocates a buffer that a `Tensor` shares (copy-on-write would copy
    // first). The array is made read-only below, so numpy cannot write either.
    // Exercised by tests/test_numpy.py::test_numpy_is_zero_copy_and_readonly.
    if t.dtype() == tapers::DType::BF16 {
        crate::convert::need_ml_dtypes(owner.py())?;
    }
    let arr = unsafe {
        tapers::with_storage!(t.storage(), a => PyArray::borrow_from_array(a, owner).into_any())
    };
    let kw = PyDict::new(arr.py());
    kw.set_item("write", false)?;
    arr.call_method("setflags", (), Some(&kw))?;
    Ok(arr)
}

/// The numpy value as TensorFlow's `.numpy()` returns it: a numpy scalar for
/// rank 0, an array otherwise.
pub fn numpy_value<'py>(t: &Tensor, owner: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let arr = to_numpy(t, owner)?;
    if t.rank() == 0 {
        arr.get_item(PyTuple::empty(arr.py()))
    } else {
        Ok(arr)
    }
}

/// The one element of a one-element tensor, exactly.
pub fn scalar_num(t: &Tensor) -> PyResult<tapers::Num> {
    use tapers::Scalar;
    tapers::with_storage!(t.storage(), a => a.iter().next().map(|v| v.to_num())).ok_or_else(|| {
        pyo3::exceptions::PyValueError::new_err("an empty tensor has no scalar value")
    })
}

/// TensorFlow's `numpy_text`.
pub fn numpy_text(value: &Bound<'_, PyAny>, rank: usize, is_repr: bool) -> PyResult<String> {
    let text = if is_repr {
        if rank == 0 {
            value.call_method0("item")?.repr()?.to_string()
        } else {
            value.repr()?.to_string()
        }
    } else {
        value.str()?.to_string()
    };
    Ok(if text.contains('\n') {
        format!("\n{text}")
    } else {
        text
    })
}

/// Implements the Python number protocol for a class whose `tensor()` gives
/// the value to compute with (a tensor, or a variable's read).
macro_rules! number_protocol {
    ($cls:ty) => {
        #[pymethods]
        impl $cls {
            fn __add__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                $crate::tensor::binop_add(slf.as_any(), o)
            }
            fn __radd__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                $crate::tensor::binop(slf.as_any(), o, true, tapers::ops::add)
            }
            fn __sub__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                $crate::tensor::binop(slf.as_any(), o, false, tapers::ops::sub)
            }
            fn __rsub__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                $crate::tensor::binop(slf.as_any(), o, true, tapers::ops::sub)
            }
            fn __mul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                $crate::tensor::binop(slf.as_any(), o, false, tapers::ops::mul)
            }
            fn __rmul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                $crate::tensor::binop(slf.as_any(), o, true, tapers::ops::mul)
            }
            fn __truediv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                $crate::tensor::binop_checked(slf.as_any(), o, false, $crate::tensor::truediv_dtypes, $crate::tensor::truediv)
            }
            fn __rtruediv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                $crate::tensor::binop_checked(slf.as_any(), o, true, $crate::tensor::truediv_dtypes, $crate::tensor::truediv)
            }
            fn __floordiv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                $crate::tensor::binop(slf.as_any(), o, false, tapers::ops::floordiv)
            }
            fn __rfloordiv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                $crate::tensor::binop(slf.as_any(), o, true, tapers::ops::floordiv)
            }
            fn __mod__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                $crate::tensor::binop(slf.as_any(), o, false, tapers::ops::floormod)
            }
            fn __rmod__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                $crate::tensor::binop(slf.as_any(), o, true, tapers::ops::floormod)
            }
            fn __pow__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>, _m: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                $crate::tensor::binop(slf.as_any(), o, false, tapers::ops::pow)
            }
            fn __rpow__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>, _m: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                $crate::tensor::binop(slf.as_any(), o, true, tapers::ops::pow)
            }
            fn __matmul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                $crate::tensor::binop(slf.as_any(), o, false, |a, b| tapers::ops::matmul(a, b))
            }
            fn __rmatmul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                $crate::tensor::binop(slf.as_any(), o, true, |a, b| tapers::ops::matmul(a, b))
            }
            fn __neg__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
                let t = $crate::convert::to_tensor(slf.as_any(), $crate::convert::Want::Any)?;
                $crate::call::call(slf.py(), None, $crate::call::Work::of(&[&t]), || tapers::ops::neg(&t))
            }
            fn __pos__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
                let t = $crate::convert::to_tensor(slf.as_any(), $crate::convert::Want::Any)?;
                $crate::tensor::out(slf.py(), Ok(t))
            }
            fn __abs__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
                let t = $crate::convert::to_tensor(slf.as_any(), $crate::convert::Want::Any)?;
                $crate::call::call(slf.py(), None, $crate::call::Work::of(&[&t]), || tapers::ops::abs(&t))
            }
            fn __richcmp__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
                $crate::tensor::richcmp(slf.as_any(), o, op)
            }
            fn __hash__(&self) -> PyResult<isize> {
                Err(PyTypeError::new_err(concat!(
                    stringify!($cls),
                    " is unhashable. Instead, use tensor.ref() as the key."
                ).replace("PyTensor", "Tensor").replace("PyVariable", "Variable")))
            }
            fn __float__(slf: &Bound<'_, Self>) -> PyResult<f64> {
                let t = $crate::tensor::read_out(slf.as_any())?;
                $crate::tensor::scalar_check(&t)?;
                t.to_f64_scalar().py()
            }
            fn __int__(slf: &Bound<'_, Self>) -> PyResult<i128> {
                let t = $crate::tensor::read_out(slf.as_any())?;
                $crate::tensor::scalar_check(&t)?;
                // Integers exactly (uint64 and int64 beyond 2^53 included).
                match $crate::tensor::scalar_num(&t)? {
                    tapers::Num::Int(i) => Ok(i),
                    n => {
                        let v = n.re();
                        if !v.is_finite() {
                            return Err(pyo3::exceptions::PyValueError::new_err(format!("cannot convert float {v} to integer")));
                        }
                        Ok(v.trunc() as i128)
                    }
                }
            }
            fn __complex__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
                let t = $crate::tensor::read_out(slf.as_any())?;
                $crate::tensor::scalar_check(&t)?;
                let (re, im) = match $crate::tensor::scalar_num(&t)? {
                    tapers::Num::Complex(re, im) => (re, im),
                    n => (n.re(), 0.0),
                };
                Ok(pyo3::types::PyComplex::from_doubles(slf.py(), re, im).into_any().unbind())
            }
            fn __index__(slf: &Bound<'_, Self>) -> PyResult<i64> {
                let t = $crate::tensor::read_out(slf.as_any())?;
                if !t.dtype().is_integer() || t.rank() != 0 {
                    return Err(PyTypeError::new_err("only integer scalar tensors can be converted to a scalar index"));
                }
                match $crate::tensor::scalar_num(&t)? {
                    tapers::Num::Int(i) => Ok(i as i64),
                    n => Ok(n.re() as i64),
                }
            }
            fn __bool__(slf: &Bound<'_, Self>) -> PyResult<bool> {
                let t = $crate::tensor::read_out(slf.as_any())?;
                if t.numel() != 1 {
                    return Err(pyo3::exceptions::PyValueError::new_err(
                        "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()",
                    ));
                }
                Ok(t.to_f64_scalar().py()? != 0.0)
            }
            fn __len__(slf: &Bound<'_, Self>) -> PyResult<usize> {
                let t = $crate::tensor::value_of(slf.as_any())?;
                match t.shape().first() {
                    Some(&n) => Ok(n),
                    None => Err(PyTypeError::new_err("Scalar tensor has no `len()`")),
                }
            }
            #[classattr]
            fn __array_priority__() -> i32 {
                100
            }
        }
    };
}
pub(crate) use number_protocol;

/// The current value of a tensor or variable, without recording a read.
/// The value Python reads out of `obj` (a Tensor or Variable) into a
/// Python value. Inside a trace (`tapers.function`) the read is a guard: the
/// graph stays valid only while this value is the same (a Variable's value
/// is read as a traced read).
pub fn read_out(obj: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    if tapers::graph::is_tracing() {
        let t = match obj.cast::<crate::variable::PyVariable>() {
            Ok(v) => v.get().var.read(),
            Err(_) => value_of(obj)?,
        };
        tapers::graph::guard(&t);
        return Ok(t);
    }
    value_of(obj)
}

pub fn value_of(obj: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Ok(t.get().inner.clone());
    }
    if let Ok(v) = obj.cast::<crate::variable::PyVariable>() {
        return Ok(v.get().var.value());
    }
    to_tensor(obj, Want::Any)
}

pub fn scalar_check(t: &Tensor) -> PyResult<()> {
    if t.rank() != 0 && t.numel() != 1 {
        return Err(PyTypeError::new_err(
            "only 0-dimensional arrays can be converted to Python scalars",
        ));
    }
    Ok(())
}

/// `a / b` as TensorFlow's `__truediv__`: integers divide as float32 (8- and
/// 16-bit ones) or float64 (32- and 64-bit ones).
pub fn truediv(a: &Tensor, b: &Tensor) -> tapers::Result<Tensor> {
    truediv_with(a, b, ops::div)
}

/// `div(a, b)` after TensorFlow's true-division casts: two integer operands
/// of one dtype become float32 (8- and 16-bit) or float64 (wider) first.
pub fn truediv_with(
    a: &Tensor,
    b: &Tensor,
    div: fn(&Tensor, &Tensor) -> tapers::Result<Tensor>,
) -> tapers::Result<Tensor> {
    if a.dtype().is_integer() && a.dtype() == b.dtype() {
        let wide = if a.dtype().size_of() <= 2 {
            DType::F32
        } else {
            DType::F64
        };
        return div(&ops::cast(a, wide)?, &ops::cast(b, wide)?);
    }
    div(a, b)
}

/// TensorFlow's `__truediv__` (and `tf.divide`) check: operands of two
/// dtypes are a `TypeError`, before any op runs.
pub fn truediv_dtypes(a: &Tensor, b: &Tensor) -> PyResult<()> {
    if a.dtype() != b.dtype() {
        return Err(PyTypeError::new_err(format!(
            "`x` and `y` must have the same dtype, got tapers.{} != tapers.{}.",
            a.dtype().name(),
            b.dtype().name()
        )));
    }
    Ok(())
}

/// A binary operator between `slf` (a tensor or variable) and anything convertible.
/// Returns `NotImplemented` for operands that cannot be converted.
pub fn binop(
    slf: &Bound<'_, PyAny>,
    other: &Bound<'_, PyAny>,
    reflected: bool,
    f: impl Fn(&Tensor, &Tensor) -> tapers::Result<Tensor> + Send + Sync,
) -> PyResult<Py<PyAny>> {
    binop_checked(slf, other, reflected, |_, _| Ok(()), f)
}

/// `slf + other`: TensorFlow's `__add__` converts a Python float beside an
/// integer tensor to float32 and lets the op refuse the pair
/// (`InvalidArgumentError`), where its other operators raise `TypeError`.
pub fn binop_add(slf: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let py = slf.py();
    if other.is_exact_instance_of::<pyo3::types::PyFloat>()
        || other.is_instance_of::<pyo3::types::PyList>()
    {
        let (a, b) = crate::convert::binary_operands_lenient(slf, other)?;
        return call(py, None, Work::broadcast(&[&a, &b]), || ops::add(&a, &b));
    }
    binop(slf, other, false, ops::add)
}

/// [`binop`] with a check of the converted operands before the op runs.
/// A Python number or list that cannot take the tensor's dtype raises
/// TensorFlow's `TypeError` ("Cannot convert 0.5 to EagerTensor of dtype
/// int32"); other unconvertible operands give `NotImplemented`, so that
/// their reflected operator is tried.
pub fn binop_checked(
    slf: &Bound<'_, PyAny>,
    other: &Bound<'_, PyAny>,
    reflected: bool,
    check: impl Fn(&Tensor, &Tensor) -> PyResult<()>,
    f: impl Fn(&Tensor, &Tensor) -> tapers::Result<Tensor> + Send + Sync,
) -> PyResult<Py<PyAny>> {
    let py = slf.py();
    // Fast path: two tensors, as in `x * x`.
    if let (Ok(a), Ok(b)) = (slf.cast::<PyTensor>(), other.cast::<PyTensor>()) {
        let (a, b) = (&a.get().inner, &b.get().inner);
        let (a, b) = if reflected { (b, a) } else { (a, b) };
        check(a, b)?;
        return call(py, None, Work::broadcast(&[a, b]), || f(a, b));
    }
    let pair = if reflected {
        binary_operands(other, slf)
    } else {
        binary_operands(slf, other)
    };
    let (a, b) = match pair {
        Ok(p) => p,
        Err(e) if e.is_instance_of::<PyTypeError>(py) => {
            let plain = other.is_instance_of::<pyo3::types::PyFloat>()
                || other.is_instance_of::<pyo3::types::PyInt>()
                || other.is_instance_of::<pyo3::types::PyList>()
                || other.is_instance_of::<pyo3::types::PyTuple>();
            return if plain {
                Err(e)
            } else {
                Ok(py.NotImplemented())
            };
        }
        Err(e) => return Err(e),
    };
    check(&a, &b)?;
    call(py, None, Work::broadcast(&[&a, &b]), || f(&a, &b))
}

/// Rich comparison: elementwise, bool tensors. `==`/`!=` against something that
/// cannot be converted or broadcast give `False`/`True`, as TensorFlow's.
pub fn richcmp(
    slf: &Bound<'_, PyAny>,
    other: &Bound<'_, PyAny>,
    op: CompareOp,
) -> PyResult<Py<PyAny>> {
    let py = slf.py();
    let eq_ne = matches!(op, CompareOp::Eq | CompareOp::Ne);
    // TF: `t == None` is plain False, `t != None` plain True.
    if eq_ne && other.is_none() {
        return Ok(matches!(op, CompareOp::Ne)
            .into_pyobject(py)?
            .to_owned()
            .into_any()
            .unbind());
    }
    let (a, b) = match binary_operands(slf, other) {
        Ok(p) => p,
        Err(e)
            if !eq_ne
                && e.is_instance_of::<PyTypeError>(py)
                && !other.is_instance_of::<pyo3::types::PyString>() =>
        {
            return Ok(py.NotImplemented())
        }
        Err(e) => return Err(e),
    };
    let f = match op {
        CompareOp::Lt => ops::less,
        CompareOp::Le => ops::less_equal,
        CompareOp::Gt => ops::greater,
        CompareOp::Ge => ops::greater_equal,
        CompareOp::Eq => ops::equal,
        CompareOp::Ne => ops::not_equal,
    };
    call(py, None, Work::broadcast(&[&a, &b]), || match f(&a, &b) {
        // TF compares with incompatible_shape_error=False: unbroadcastable
        // shapes are simply "not equal", as a scalar bool tensor.
        Err(tapers::Error::IncompatibleShapes { .. }) if eq_ne => {
            Ok(Tensor::scalar(matches!(op, CompareOp::Ne)))
        }
        r => r,
    })
}

number_protocol!(PyTensor);

#[pymethods]
impl PyTensor {
    /// The shape, as a `TensorShape`.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        tensor_shape(py, self.inner.shape())
    }

    /// The dtype, as a `tapers.DType`.
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        dtype_object(py, self.inner.dtype())
    }

    /// The number of dimensions.
    #[getter]
    fn ndim(&self) -> usize {
        self.inner.rank()
    }

    /// The process-unique id tapes track this tensor by.
    #[getter]
    fn _id(&self) -> u64 {
        self.inner.id().as_u64()
    }

    /// DLPack export: zero-copy and read-only (see `tapers.experimental.dlpack`).
    #[pyo3(signature = (*, stream=None, max_version=None, dl_device=None, copy=None))]
    fn __dlpack__<'py>(
        slf: &Bound<'py, Self>,
        stream: Option<Bound<'py, PyAny>>,
        max_version: Option<Bound<'py, PyAny>>,
        dl_device: Option<Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let arr = to_numpy(&slf.get().inner, slf.clone().into_any())?;
        py.import("tapers.experimental.dlpack")?
            .getattr("_export")?
            .call1((arr, stream, max_version, dl_device, copy))
    }

    /// `copy.copy`: tensors are immutable, so the copy is the tensor itself (as TensorFlow's).
    fn __copy__(slf: &Bound<'_, Self>) -> Py<PyAny> {
        slf.clone().into_any().unbind()
    }

    /// `copy.deepcopy`: the tensor itself, as `__copy__` (TensorFlow's too).
    fn __deepcopy__(slf: &Bound<'_, Self>, _memo: &Bound<'_, PyAny>) -> Py<PyAny> {
        slf.clone().into_any().unbind()
    }

    /// `pickle`: rebuilt by `convert_to_tensor` from a numpy copy of the values, as TensorFlow's.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyAny>,))> {
        let arr = to_numpy(&slf.get().inner, slf.clone().into_any())?.call_method0("copy")?;
        let rebuild = slf
            .py()
            .import("tapers._core")?
            .getattr("convert_to_tensor")?;
        Ok((rebuild, (arr,)))
    }

    /// `(kDLCPU, 0)`: tensors live in host memory.
    fn __dlpack_device__(&self) -> (i32, i32) {
        (1, 0)
    }

    /// The value as numpy (a numpy scalar for rank 0), sharing memory, read-only.
    fn numpy<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        tapers::graph::guard(&slf.get().inner);
        numpy_value(&slf.get().inner, slf.clone().into_any())
    }

    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__<'py>(
        slf: &Bound<'py, Self>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        tapers::graph::guard(&slf.get().inner);
        let arr = to_numpy(&slf.get().inner, slf.clone().into_any())?;
        let arr = match dtype {
            Some(d) => arr.call_method1("astype", (d,))?,
            None if copy == Some(true) => arr.call_method0("copy")?,
            None => arr,
        };
        Ok(arr)
    }

    fn __getitem__(slf: &Bound<'_, Self>, index: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let items = slice_items(index)?;
        out(slf.py(), ops::strided_slice(&slf.get().inner, &items))
    }

    fn __iter__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let t = &slf.get().inner;
        let n = *t
            .shape()
            .first()
            .ok_or_else(|| PyTypeError::new_err("Cannot iterate over a scalar tensor."))?;
        let items = (0..n)
            .map(|i| out(slf.py(), ops::index_first(t, i as isize)))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(pyo3::types::PyList::new(slf.py(), items)?
            .call_method0("__iter__")?
            .unbind())
    }

    fn __str__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let t = &slf.get().inner;
        let v = numpy_value(t, slf.clone().into_any())?;
        Ok(format!(
            "tapers.Tensor({}, shape={}, dtype={})",
            numpy_text(&v, t.rank(), false)?,
            tuple_string(t.shape()),
            t.dtype().name()
        ))
    }

    /// `format(t, spec)` and f-strings format the NumPy value, as TensorFlow's
    /// `EagerTensor.__format__` does: `f"{t:0.2f}"` is `"1.23"`, `f"{t}"` of a
    /// scalar is the bare number, of an array NumPy's `str`.
    fn __format__<'py>(slf: &Bound<'py, Self>, format_spec: &str) -> PyResult<Bound<'py, PyAny>> {
        let t = &slf.get().inner;
        let v = numpy_value(t, slf.clone().into_any())?;
        v.call_method1(pyo3::intern!(slf.py(), "__format__"), (format_spec,))
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let t = &slf.get().inner;
        let v = numpy_value(t, slf.clone().into_any())?;
        Ok(format!(
            "<tapers.Tensor: shape={}, dtype={}, numpy={}>",
            tuple_string(t.shape()),
            t.dtype().name(),
            numpy_text(&v, t.rank(), true)?
        ))
    }
}

fn index_int(obj: &Bound<'_, PyAny>) -> PyResult<Option<isize>> {
    if obj.is_none() {
        return Ok(None);
    }
    if let Ok(t) = obj.cast::<PyTensor>() {
        let t = &t.get().inner;
        if t.rank() == 0 && t.dtype().is_integer() {
            tapers::graph::guard(t);
            return Ok(Some(t.to_f64_scalar().py()? as isize));
        }
    }
    obj.extract::<isize>()
        .map(Some)
        .map_err(|_| invalid_index(obj))
}

fn invalid_index(obj: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!(
        "Only integers, slices (`:`), ellipsis (`...`), tapers.newaxis (`None`) and scalar int32/int64 tensors are valid indices, got {}",
        obj.repr().map(|r| r.to_string()).unwrap_or_default()
    ))
}

/// Parses a Python index expression into core slice items.
pub fn slice_items(index: &Bound<'_, PyAny>) -> PyResult<Vec<ops::SliceItem>> {
    let parts: Vec<Bound<'_, PyAny>> = match index.cast::<PyTuple>() {
        Ok(t) => t.iter().collect(),
        Err(_) => vec![index.clone()],
    };
    parts
        .iter()
        .map(|p| {
            if p.is_none() {
                Ok(ops::SliceItem::NewAxis)
            } else if p.is(p.py().Ellipsis()) {
                Ok(ops::SliceItem::Ellipsis)
            } else if let Ok(s) = p.cast::<pyo3::types::PySlice>() {
                let start = index_int(&s.getattr("start")?)?;
                let stop = index_int(&s.getattr("stop")?)?;
                let step = index_int(&s.getattr("step")?)?.unwrap_or(1);
                Ok(ops::SliceItem::Range { start, stop, step })
            } else {
                index_int(p)?
                    .map(ops::SliceItem::Index)
                    .ok_or_else(|| invalid_index(p))
            }
        })
        .collect()
}
