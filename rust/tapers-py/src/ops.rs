//! Module-level op functions (`tapers.exp`, `tapers.matmul`, ...). Each converts
//! its arguments, runs the core op (without the GIL when the tensors are big)
//! and wraps the result.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use tapers::{ops, DType, Tensor};

use crate::convert::{binary_operands, constant as make_constant, parse_dtype, to_tensor, Want};
use crate::errors::IntoPyResult;
use crate::tensor::{compute, out, PyTensor, DETACH_THRESHOLD};

fn tensor(x: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    to_tensor(x, Want::Any)
}

fn heavy(t: &Tensor) -> bool {
    t.numel() >= DETACH_THRESHOLD
}

/// A list of ints from an int, a sequence or a tensor.
fn int_list(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<isize>> {
    if let Ok(v) = obj.extract::<isize>() {
        return Ok(vec![v]);
    }
    if obj.is_instance_of::<PyTensor>() {
        let t = tensor(obj)?;
        if !t.dtype().is_integer() {
            return Err(PyTypeError::new_err(format!(
                "{what} must be integers, got a {} tensor",
                t.dtype()
            )));
        }
        let t = ops::cast(&t, DType::I64).py()?;
        return Ok(t
            .to_vec::<i64>()
            .py()?
            .into_iter()
            .map(|v| v as isize)
            .collect());
    }
    obj.extract::<Vec<isize>>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what} must be an int or a list of ints, got {}",
            obj.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    })
}

macro_rules! unary {
    ($($name:ident => $f:path),* $(,)?) => {$(
        #[pyfunction]
        #[pyo3(signature = (x, name=None))]
        #[allow(unused_variables)]
        pub fn $name(py: Python<'_>, x: &Bound<'_, PyAny>, name: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
            let t = tensor(x)?;
            out(py, compute(py, heavy(&t), || $f(&t)))
        }
    )*};
}

unary!(
    exp => ops::exp, log => ops::log, sqrt => ops::sqrt, square => ops::square,
    sin => ops::sin, cos => ops::cos, tanh => ops::tanh, sigmoid => ops::sigmoid,
    abs => ops::abs, sign => ops::sign, negative => ops::neg,
);

macro_rules! binary {
    ($($name:ident => $f:expr),* $(,)?) => {$(
        #[pyfunction]
        #[pyo3(signature = (x, y, name=None))]
        #[allow(unused_variables)]
        pub fn $name(py: Python<'_>, x: &Bound<'_, PyAny>, y: &Bound<'_, PyAny>, name: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
            let (a, b) = binary_operands(x, y)?;
            let h = heavy(&a) || heavy(&b);
            out(py, compute(py, h, || $f(&a, &b)))
        }
    )*};
}

binary!(
    add => ops::add, subtract => ops::sub, multiply => ops::mul, divide => crate::tensor::truediv,
    floordiv => ops::floordiv, floormod => ops::floormod, pow => ops::pow,
    maximum => ops::maximum, minimum => ops::minimum,
    equal => ops::equal, not_equal => ops::not_equal, less => ops::less,
    less_equal => ops::less_equal, greater => ops::greater, greater_equal => ops::greater_equal,
);

fn axes_arg(axis: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<isize>>> {
    match axis {
        None => Ok(None),
        Some(a) if a.is_none() => Ok(None),
        Some(a) => int_list(a, "axis").map(Some),
    }
}

/// `tf.reduce_sum`.
#[pyfunction]
#[pyo3(signature = (input_tensor, axis=None, keepdims=false, name=None))]
#[allow(unused_variables)]
pub fn reduce_sum(
    py: Python<'_>,
    input_tensor: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = tensor(input_tensor)?;
    let axes = axes_arg(axis)?;
    out(
        py,
        compute(py, heavy(&t), || {
            ops::reduce_sum(&t, axes.as_deref(), keepdims)
        }),
    )
}

/// `tf.reduce_mean`.
#[pyfunction]
#[pyo3(signature = (input_tensor, axis=None, keepdims=false, name=None))]
#[allow(unused_variables)]
pub fn reduce_mean(
    py: Python<'_>,
    input_tensor: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = tensor(input_tensor)?;
    let axes = axes_arg(axis)?;
    out(
        py,
        compute(py, heavy(&t), || {
            ops::reduce_mean(&t, axes.as_deref(), keepdims)
        }),
    )
}

/// `tf.matmul` (adjoint equals transpose for real dtypes).
#[pyfunction]
#[pyo3(signature = (a, b, transpose_a=false, transpose_b=false, adjoint_a=false, adjoint_b=false, a_is_sparse=false, b_is_sparse=false, output_type=None, grad_a=false, grad_b=false, name=None))]
#[allow(clippy::too_many_arguments, unused_variables)]
pub fn matmul(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    transpose_a: bool,
    transpose_b: bool,
    adjoint_a: bool,
    adjoint_b: bool,
    a_is_sparse: bool,
    b_is_sparse: bool,
    output_type: Option<&Bound<'_, PyAny>>,
    grad_a: bool,
    grad_b: bool,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let (x, y) = binary_operands(a, b)?;
    let (ta, tb) = (transpose_a || adjoint_a, transpose_b || adjoint_b);
    let h = x.numel().max(y.numel()) >= 4096;
    out(py, compute(py, h, || ops::matmul(&x, &y, ta, tb)))
}

/// `tf.reshape`.
#[pyfunction]
#[pyo3(signature = (tensor, shape, name=None))]
#[allow(unused_variables)]
pub fn reshape(
    py: Python<'_>,
    tensor: &Bound<'_, PyAny>,
    shape: &Bound<'_, PyAny>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = self::tensor(tensor)?;
    let s = if shape.is_instance_of::<PyList>()
        || shape.is_instance_of::<PyTuple>()
        || shape.is_instance_of::<PyTensor>()
        || shape.hasattr("as_list")?
    {
        if shape.hasattr("as_list")? {
            shape.call_method0("as_list")?.extract()?
        } else {
            int_list(shape, "shape")?
        }
    } else {
        int_list(shape, "shape")?
    };
    out(py, compute(py, heavy(&t), || ops::reshape(&t, &s)))
}

/// `tf.transpose`.
#[pyfunction]
#[pyo3(signature = (a, perm=None, conjugate=false, name=None))]
#[allow(unused_variables)]
pub fn transpose(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    perm: Option<&Bound<'_, PyAny>>,
    conjugate: bool,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = tensor(a)?;
    let perm: Option<Vec<usize>> = match axes_arg(perm)? {
        None => None,
        Some(p) => Some(
            p.into_iter()
                .map(|v| {
                    let r = t.rank() as isize;
                    let v = if v < 0 { v + r } else { v };
                    usize::try_from(v)
                        .map_err(|_| PyTypeError::new_err("perm entries must be valid axes"))
                })
                .collect::<PyResult<_>>()?,
        ),
    };
    out(
        py,
        compute(py, heavy(&t), || ops::transpose(&t, perm.as_deref())),
    )
}

/// `tf.broadcast_to`.
#[pyfunction]
#[pyo3(signature = (input, shape, name=None))]
#[allow(unused_variables)]
pub fn broadcast_to(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    shape: &Bound<'_, PyAny>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = tensor(input)?;
    let s: Vec<usize> = int_list(shape, "shape")?
        .into_iter()
        .map(|d| {
            usize::try_from(d)
                .map_err(|_| PyTypeError::new_err("shape entries must be non-negative"))
        })
        .collect::<PyResult<_>>()?;
    out(py, ops::broadcast_to(&t, &s))
}

/// `tf.cast`.
#[pyfunction]
#[pyo3(signature = (x, dtype, name=None))]
#[allow(unused_variables)]
pub fn cast(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    dtype: &Bound<'_, PyAny>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = tensor(x)?;
    let d = parse_dtype(dtype)?;
    out(py, compute(py, heavy(&t), || ops::cast(&t, d)))
}

/// `tf.where(condition, x, y)`.
#[pyfunction(name = "where")]
#[pyo3(signature = (condition, x=None, y=None, name=None))]
#[allow(unused_variables)]
pub fn where_(
    py: Python<'_>,
    condition: &Bound<'_, PyAny>,
    x: Option<&Bound<'_, PyAny>>,
    y: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let (Some(x), Some(y)) = (x, y) else {
        return Err(PyTypeError::new_err(
            "tapers.where needs both x and y (the one-argument form is not supported yet)",
        ));
    };
    let c = to_tensor(condition, Want::Exact(DType::Bool))?;
    let (a, b) = binary_operands(x, y)?;
    out(py, ops::where_(&c, &a, &b))
}

/// `tf.stop_gradient`.
#[pyfunction]
#[pyo3(signature = (input, name=None))]
#[allow(unused_variables)]
pub fn stop_gradient(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    out(py, Ok(ops::stop_gradient(&tensor(input)?)))
}

/// `tf.identity`.
#[pyfunction]
#[pyo3(signature = (input, name=None))]
#[allow(unused_variables)]
pub fn identity(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    out(py, Ok(ops::identity(&tensor(input)?)))
}

fn shape_arg(shape: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    let s = if shape.hasattr("as_list")? {
        shape.call_method0("as_list")?.extract()?
    } else {
        int_list(shape, "shape")?
    };
    s.into_iter()
        .map(|d| {
            usize::try_from(d).map_err(|_| {
                pyo3::exceptions::PyValueError::new_err(format!(
                    "Dimension -1 must be >= 0 in shape {:?}",
                    d
                ))
            })
        })
        .collect()
}

fn dtype_or(dtype: Option<&Bound<'_, PyAny>>, default: DType) -> PyResult<DType> {
    match dtype {
        Some(d) if !d.is_none() => parse_dtype(d),
        _ => Ok(default),
    }
}

/// `tf.zeros`.
#[pyfunction]
#[pyo3(signature = (shape, dtype=None, name=None))]
#[allow(unused_variables)]
pub fn zeros(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    out(
        py,
        Tensor::zeros(&shape_arg(shape)?, dtype_or(dtype, DType::F32)?),
    )
}

/// `tf.ones`.
#[pyfunction]
#[pyo3(signature = (shape, dtype=None, name=None))]
#[allow(unused_variables)]
pub fn ones(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    out(
        py,
        Tensor::ones(&shape_arg(shape)?, dtype_or(dtype, DType::F32)?),
    )
}

/// `tf.zeros_like`.
#[pyfunction]
#[pyo3(signature = (input, dtype=None, name=None))]
#[allow(unused_variables)]
pub fn zeros_like(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = tensor(input)?;
    out(py, Tensor::zeros(t.shape(), dtype_or(dtype, t.dtype())?))
}

/// `tf.ones_like`.
#[pyfunction]
#[pyo3(signature = (input, dtype=None, name=None))]
#[allow(unused_variables)]
pub fn ones_like(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = tensor(input)?;
    out(py, Tensor::ones(t.shape(), dtype_or(dtype, t.dtype())?))
}

/// `tf.constant`.
#[pyfunction]
#[pyo3(signature = (value, dtype=None, shape=None, name=None))]
#[allow(unused_variables)]
pub fn constant(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    shape: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let d = match dtype {
        Some(d) if !d.is_none() => Some(parse_dtype(d)?),
        _ => None,
    };
    let s = match shape {
        Some(s) if !s.is_none() => Some(int_list(s, "shape")?),
        _ => None,
    };
    let t = make_constant(value, d, s)?;
    // A constant is a new tensor even when built from one.
    out(py, Ok(ops::stop_gradient(&t)))
}

/// `tf.convert_to_tensor`.
#[pyfunction]
#[pyo3(signature = (value, dtype=None, dtype_hint=None, name=None))]
#[allow(unused_variables)]
pub fn convert_to_tensor(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    dtype_hint: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let want = match (dtype, dtype_hint) {
        (Some(d), _) if !d.is_none() => Want::Exact(parse_dtype(d)?),
        (_, Some(h)) if !h.is_none() => Want::Hint(parse_dtype(h)?),
        _ => Want::Any,
    };
    if want == Want::Any {
        if let Ok(t) = value.cast::<PyTensor>() {
            return Ok(t.clone().into_any().unbind());
        }
    }
    out(py, Ok(to_tensor(value, want)?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    macro_rules! add {
        ($($f:ident),* $(,)?) => {$( m.add_function(wrap_pyfunction!($f, m)?)?; )*};
    }
    add!(
        exp,
        log,
        sqrt,
        square,
        sin,
        cos,
        tanh,
        sigmoid,
        abs,
        sign,
        negative,
        add,
        subtract,
        multiply,
        divide,
        floordiv,
        floormod,
        pow,
        maximum,
        minimum,
        equal,
        not_equal,
        less,
        less_equal,
        greater,
        greater_equal,
        reduce_sum,
        reduce_mean,
        matmul,
        reshape,
        transpose,
        broadcast_to,
        cast,
        where_,
        stop_gradient,
        identity,
        zeros,
        ones,
        zeros_like,
        ones_like,
        constant,
        convert_to_tensor,
    );
    Ok(())
}
