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

pub fn tensor(x: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    to_tensor(x, Want::Any)
}

pub fn heavy(t: &Tensor) -> bool {
    t.numel() >= DETACH_THRESHOLD
}

/// A list of ints from an int, a sequence or a tensor.
pub fn int_list(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<isize>> {
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

// Each op's docstring: a summary, then what every op of the family shares
// (numpy style, with where tapers differs from TensorFlow).
macro_rules! unary {
    ($($name:ident => $f:path, $doc:literal;)*) => {$(
        #[doc = concat!($doc, "

Parameters
----------
x : Tensor-like
    A Tensor, Variable, Python number, nested list or numpy array.
name : str, optional
    Accepted for TensorFlow compatibility and ignored (tapers names no ops).

Returns
-------
Tensor
    Same shape as ``x``. Recorded on active tapes, so it is differentiable
    where TensorFlow's op is.")]
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
    exp => ops::exp, "Elementwise e**x.";
    log => ops::log, "Elementwise natural logarithm (``-inf`` at 0, NaN below).";
    sqrt => ops::sqrt, "Elementwise square root.";
    square => ops::square, "Elementwise x*x (integers wrap on overflow, as in TensorFlow).";
    sin => ops::sin, "Elementwise sine.";
    cos => ops::cos, "Elementwise cosine.";
    tanh => ops::tanh, "Elementwise hyperbolic tangent. float32 uses Eigen's rational approximation, as TensorFlow's CPU kernel does (last-digit differences remain: TensorFlow's build uses FMA).";
    sigmoid => ops::sigmoid, "Elementwise logistic sigmoid 1 / (1 + e**-x), computed without overflow.";
    abs => ops::abs, "Elementwise absolute value.";
    sign => ops::sign, "Elementwise sign: -1, 0 or 1 (NaN for NaN). Its gradient is zero.";
    negative => ops::neg, "Elementwise negation (integers wrap).";
    expm1 => ops::expm1, "Elementwise e**x - 1, accurate near 0.";
    log1p => ops::log1p, "Elementwise log(1 + x), accurate near 0.";
    rsqrt => ops::rsqrt, "Elementwise 1 / sqrt(x).";
    reciprocal => ops::reciprocal, "Elementwise 1 / x.";
    tan => ops::tan, "Elementwise tangent.";
    asin => ops::asin, "Elementwise arcsine.";
    acos => ops::acos, "Elementwise arccosine.";
    atan => ops::atan, "Elementwise arctangent.";
    sinh => ops::sinh, "Elementwise hyperbolic sine.";
    cosh => ops::cosh, "Elementwise hyperbolic cosine.";
    erf => ops::erf, "Elementwise Gauss error function.";
    softplus => ops::softplus, "Elementwise log(1 + e**x), computed without overflow.";
    relu => ops::relu, "Elementwise max(x, 0). The gradient at 0 is 0, as in TensorFlow.";
    relu6 => ops::relu6, "Elementwise min(max(x, 0), 6).";
    is_nan => ops::is_nan, "Elementwise test for NaN (bool result, no gradient).";
    is_finite => ops::is_finite, "Elementwise test for finite values (bool result, no gradient).";
    is_inf => ops::is_inf, "Elementwise test for infinities (bool result, no gradient).";
    logical_not => ops::logical_not, "Elementwise boolean NOT (bool tensors only).";
    elu => ops::elu, "Exponential linear unit: x if x > 0 else e**x - 1.";
    selu => ops::selu, "Scaled exponential linear unit (Klambauer et al., 2017).";
);

macro_rules! binary {
    ($($name:ident => $f:expr, $doc:literal;)*) => {$(
        #[doc = concat!($doc, "

Parameters
----------
x, y : Tensor-like
    Broadcast together with NumPy's rules. A Python number takes the other
    operand's dtype; two tensors of different dtypes are an error
    (``InvalidArgumentError``), as in TensorFlow.
name : str, optional
    Accepted for TensorFlow compatibility and ignored.

Returns
-------
Tensor
    The broadcast shape. Recorded on active tapes where TensorFlow's op is
    differentiable.")]
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
    add => ops::add, "Elementwise x + y (integers wrap on overflow).";
    subtract => ops::sub, "Elementwise x - y (integers wrap on overflow).";
    multiply => ops::mul, "Elementwise x * y (integers wrap on overflow).";
    divide => crate::tensor::truediv, "Elementwise true division x / y; integer inputs give float64, as in TensorFlow.";
    floordiv => ops::floordiv, "Elementwise floor division. Integer division by zero raises ``InvalidArgumentError``.";
    floormod => ops::floormod, "Elementwise remainder with the sign of y (Python's ``%``).";
    pow => ops::pow, "Elementwise x ** y. Negative integer exponents of integers raise ``InvalidArgumentError``.";
    maximum => ops::maximum, "Elementwise maximum. On ties the gradient goes to x, as in TensorFlow.";
    minimum => ops::minimum, "Elementwise minimum. On ties the gradient goes to x, as in TensorFlow.";
    equal => ops::equal, "Elementwise x == y (bool result).";
    not_equal => ops::not_equal, "Elementwise x != y (bool result).";
    less => ops::less, "Elementwise x < y (bool result).";
    less_equal => ops::less_equal, "Elementwise x <= y (bool result).";
    greater => ops::greater, "Elementwise x > y (bool result).";
    greater_equal => ops::greater_equal, "Elementwise x >= y (bool result).";
    logical_and => ops::logical_and, "Elementwise boolean AND (bool tensors only).";
    logical_or => ops::logical_or, "Elementwise boolean OR (bool tensors only).";
    logical_xor => ops::logical_xor, "Elementwise boolean XOR (bool tensors only).";
);

macro_rules! reduction {
    ($($name:ident => $f:path, $doc:literal;)*) => {$(
        #[doc = concat!($doc, "

Parameters
----------
input_tensor : Tensor-like
    The values to reduce.
axis : int or sequence of int, optional
    Axes to reduce (negative counts from the end); all axes when None.
    Duplicates raise ``InvalidArgumentError``.
keepdims : bool, default False
    Keep reduced axes with size 1.
name : str, optional
    Accepted for TensorFlow compatibility and ignored.

Returns
-------
Tensor
    Large reductions run in fixed-size chunks summed in a fixed order, so the
    result does not depend on the thread count.")]
        #[pyfunction]
        #[pyo3(signature = (input_tensor, axis=None, keepdims=false, name=None))]
        #[allow(unused_variables)]
        pub fn $name(
            py: Python<'_>,
            input_tensor: &Bound<'_, PyAny>,
            axis: Option<&Bound<'_, PyAny>>,
            keepdims: bool,
            name: Option<&Bound<'_, PyAny>>,
        ) -> PyResult<Py<PyAny>> {
            let t = tensor(input_tensor)?;
            let axes = axes_arg(axis)?;
            out(py, compute(py, heavy(&t), || $f(&t, axes.as_deref(), keepdims)))
        }
    )*};
}

reduction!(
    reduce_sum => ops::reduce_sum, "Sum over axes.";
    reduce_mean => ops::reduce_mean, "Mean over axes (integer means truncate, as in TensorFlow).";
    reduce_max => ops::reduce_max, "Maximum over axes. The gradient is split evenly among tied maxima, as in TensorFlow.";
    reduce_min => ops::reduce_min, "Minimum over axes. The gradient is split evenly among tied minima.";
    reduce_prod => ops::reduce_prod, "Product over axes (gradient correct with zeros present).";
    reduce_logsumexp => ops::reduce_logsumexp, "log(sum(exp(x))) over axes, computed stably.";
    reduce_std => ops::reduce_std, "Population standard deviation over axes.";
    reduce_variance => ops::reduce_variance, "Population variance over axes.";
    reduce_any => ops::reduce_any, "Logical OR over axes (bool tensors).";
    reduce_all => ops::reduce_all, "Logical AND over axes (bool tensors).";
);

pub fn axes_arg(axis: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<isize>>> {
    match axis {
        None => Ok(None),
        Some(a) if a.is_none() => Ok(None),
        Some(a) => int_list(a, "axis").map(Some),
    }
}

/// Matrix product of the last two axes (``tf.matmul``).
///
/// Parameters
/// ----------
/// a, b : Tensor-like
///     Rank >= 2, same dtype; leading (batch) axes broadcast.
/// transpose_a, transpose_b : bool, default False
///     Transpose the operand's last two axes first.
/// adjoint_a, adjoint_b : bool, default False
///     Same as transpose (tapers has real dtypes only).
/// a_is_sparse, b_is_sparse, output_type, grad_a, grad_b
///     Accepted for TensorFlow compatibility and ignored.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Floats use faer's parallel GEMM (the result does not depend on the
///     thread count); integers wrap on overflow. Differentiable in both
///     operands, batched and broadcast gradients included.
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
    out(py, compute(py, h, || ops::matmul_with(
            &x,
            &y,
            ops::MatmulOptions {
                transpose_a: ta,
                transpose_b: tb,
            },
        )))
}

/// Gives a tensor a new shape with the same elements in row-major order (``tf.reshape``).
///
/// Parameters
/// ----------
/// tensor : Tensor-like
///     The values.
/// shape : sequence of int
///     The new shape; one entry may be -1 (inferred).
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Shares memory with ``tensor`` when it is contiguous; differentiable.
///
/// Raises
/// ------
/// InvalidArgumentError
///     When the element counts differ (the message names both shapes).
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

/// Permutes the axes (``tf.transpose``).
///
/// Parameters
/// ----------
/// a : Tensor-like
///     The values.
/// perm : sequence of int, optional
///     The new order of the axes; reversed when None.
/// conjugate : bool, default False
///     Accepted; no effect on real dtypes.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Differentiable.
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

/// Repeats a tensor along broadcast axes to reach ``shape`` (``tf.broadcast_to``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     The values; its shape must broadcast to ``shape`` (numpy's rules).
/// shape : sequence of int
///     The target shape (non-negative entries).
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Differentiable: the gradient sums over the broadcast axes. An output
///     too large to allocate raises ``ResourceExhaustedError``.
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

/// Converts elements to another dtype (``tf.cast``).
///
/// Parameters
/// ----------
/// x : Tensor-like
///     The values.
/// dtype : DType or str
///     The new element type.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Floats to integers truncate toward zero (out-of-range values
///     saturate, where TensorFlow's result is platform-defined); nonzero is
///     ``True``. Differentiable between float dtypes only: a cast to an
///     integer dtype cuts the gradient (``GradientTape.explain`` says so).
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

/// Picks elements from ``x`` where ``condition`` holds and from ``y`` elsewhere (``tf.where``).
///
/// Parameters
/// ----------
/// condition : Tensor-like of bool
///     The selector; broadcasts with ``x`` and ``y``.
/// x, y : Tensor-like
///     The candidates (one dtype; Python scalars take the other's dtype).
///     TensorFlow's one-argument form (indices of true elements) is not
///     supported and raises ``TypeError``.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     The broadcast shape. Differentiable in ``x`` and ``y``: each receives
///     the gradient where it was chosen and zero elsewhere; as in TensorFlow,
///     an unchosen branch whose own derivative is infinite there (``sqrt``
///     at 0, say) still turns that zero into NaN.
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

/// A tensor equal to ``input`` through which no gradient flows (``tf.stop_gradient``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     The values (shared, not copied).
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     ``GradientTape.explain`` reports paths cut here.
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

/// A new tensor equal to ``input``, through which gradients pass (``tf.identity``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     The values (shared, not copied).
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     A distinct tensor for the tapes: watching it watches the new tensor only.
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

pub fn shape_arg(shape: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
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

pub fn dtype_or(dtype: Option<&Bound<'_, PyAny>>, default: DType) -> PyResult<DType> {
    match dtype {
        Some(d) if !d.is_none() => parse_dtype(d),
        _ => Ok(default),
    }
}

/// An index dtype argument (`output_type`, `out_type`): int32 or int64 only.
fn index_dtype(arg: Option<&Bound<'_, PyAny>>, default: DType, what: &str) -> PyResult<DType> {
    match dtype_or(arg, default)? {
        d @ (DType::I32 | DType::I64) => Ok(d),
        d => Err(PyTypeError::new_err(format!(
            "{what} must be int32 or int64, got {}",
            d.name()
        ))),
    }
}

/// A tensor of zeros (``tf.zeros``).
///
/// Parameters
/// ----------
/// shape : sequence of int
///     The shape.
/// dtype : DType or str, default float32
///     The element type.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     A request too large for memory raises ``ResourceExhaustedError``.
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

/// A tensor of ones (``tf.ones``).
///
/// Parameters
/// ----------
/// shape : sequence of int
///     The shape.
/// dtype : DType or str, default float32
///     The element type.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     A request too large for memory raises ``ResourceExhaustedError``.
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

/// Zeros with the shape (and dtype, unless given) of ``input`` (``tf.zeros_like``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     The template.
/// dtype : DType or str, optional
///     The element type.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     A constant.
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

/// Ones with the shape (and dtype, unless given) of ``input`` (``tf.ones_like``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     The template.
/// dtype : DType or str, optional
///     The element type.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     A constant.
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
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     A new tensor no tape connects to, except that a Tensor ``value`` comes
///     back unchanged (and so stays connected wherever it was).
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
    let t = make_constant(value, d, s)?;
    // Anything else is a new tensor no tape connects to (a Variable's value
    // included, as in TensorFlow).
    out(py, Ok(ops::stop_gradient(&t)))
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
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
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
        expm1,
        log1p,
        rsqrt,
        reciprocal,
        tan,
        asin,
        acos,
        atan,
        sinh,
        cosh,
        erf,
        softplus,
        relu,
        relu6,
        is_nan,
        is_finite,
        is_inf,
        logical_not,
        elu,
        selu,
        logical_and,
        logical_or,
        logical_xor,
        reduce_max,
        reduce_min,
        reduce_prod,
        reduce_logsumexp,
        reduce_std,
        reduce_variance,
        reduce_any,
        reduce_all,
        argmax,
        argmin,
        cumsum,
        cumprod,
        expand_dims,
        squeeze,
        concat,
        stack,
        unstack,
        split,
        tile,
        pad,
        gather,
        gather_nd,
        one_hot,
        fill,
        eye,
        range,
        linspace,
        tensordot,
        einsum,
        norm,
        trace,
        shape_of,
        tensor_size,
        rank_of,
        add_n,
    );
    Ok(())
}

fn single_axis(axis: Option<&Bound<'_, PyAny>>, default: isize) -> PyResult<isize> {
    match axis {
        Some(a) if !a.is_none() => {
            let v = int_list(a, "axis")?;
            if v.len() != 1 {
                return Err(PyTypeError::new_err("axis must be a single integer"));
            }
            Ok(v[0])
        }
        _ => Ok(default),
    }
}

/// Index of the largest value along an axis (``tf.argmax``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     The values (a real dtype).
/// axis : int, optional
///     The axis to search (default 0, as in TensorFlow).
/// output_type : DType, default int64
///     ``int64`` or ``int32``.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Integer indices with ``axis`` removed; the first index wins ties. Not
///     differentiable (an integer output).
#[pyfunction]
#[pyo3(signature = (input, axis=None, output_type=None, name=None))]
#[allow(unused_variables)]
pub fn argmax(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    output_type: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = tensor(input)?;
    let ax = single_axis(axis, 0)?;
    let d = index_dtype(output_type, DType::I64, "output_type")?;
    out(py, ops::argmax(&t, ax).and_then(|r| ops::cast(&r, d)))
}

/// Index of the smallest value along an axis (``tf.argmin``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     The values (a real dtype).
/// axis : int, optional
///     The axis to search (default 0, as in TensorFlow).
/// output_type : DType, default int64
///     ``int64`` or ``int32``.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Integer indices with ``axis`` removed; the first index wins ties. Not
///     differentiable (an integer output).
#[pyfunction]
#[pyo3(signature = (input, axis=None, output_type=None, name=None))]
#[allow(unused_variables)]
pub fn argmin(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    output_type: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = tensor(input)?;
    let ax = single_axis(axis, 0)?;
    let d = index_dtype(output_type, DType::I64, "output_type")?;
    out(py, ops::argmin(&t, ax).and_then(|r| ops::cast(&r, d)))
}

/// Cumulative sum along an axis (``tf.cumsum``).
///
/// Parameters
/// ----------
/// x : Tensor-like
///     The values.
/// axis : int, default 0
///     The axis to scan (negative counts from the end).
/// exclusive : bool, default False
///     Each output excludes its own element (the first is 0).
/// reverse : bool, default False
///     Scan from the end of the axis.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Same shape and dtype as ``x``. Differentiable: the gradient is the
///     cumulative sum in the opposite direction. Integer sums wrap on overflow.
#[pyfunction]
#[pyo3(signature = (x, axis=0, exclusive=false, reverse=false, name=None))]
#[allow(unused_variables)]
pub fn cumsum(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: isize,
    exclusive: bool,
    reverse: bool,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = tensor(x)?;
    out(py, ops::cumsum(&t, axis, exclusive, reverse))
}

/// Cumulative product along an axis (``tf.math.cumprod``).
///
/// Parameters
/// ----------
/// x : Tensor-like
///     The values.
/// axis : int, default 0
///     The axis to scan (negative counts from the end).
/// exclusive : bool, default False
///     Each output excludes its own element (the first is 1).
/// reverse : bool, default False
///     Scan from the end of the axis.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Same shape and dtype as ``x``. Differentiable; as in TensorFlow, the
///     gradient divides by ``x`` and is not finite where ``x`` is 0.
#[pyfunction]
#[pyo3(signature = (x, axis=0, exclusive=false, reverse=false, name=None))]
#[allow(unused_variables)]
pub fn cumprod(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: isize,
    exclusive: bool,
    reverse: bool,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = tensor(x)?;
    out(py, ops::cumprod(&t, axis, exclusive, reverse))
}

/// Inserts an axis of size 1 (``tf.expand_dims``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     The values.
/// axis : int
///     Where the new axis goes (negative counts from the end).
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Differentiable.
#[pyfunction]
#[pyo3(signature = (input, axis, name=None))]
#[allow(unused_variables)]
pub fn expand_dims(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    axis: isize,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    out(py, ops::expand_dims(&tensor(input)?, axis))
}

/// Removes axes of size 1 (``tf.squeeze``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     The values.
/// axis : int or sequence of int, optional
///     The axes to remove (each must have size 1); all size-1 axes when None.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Differentiable.
#[pyfunction]
#[pyo3(signature = (input, axis=None, name=None))]
#[allow(unused_variables)]
pub fn squeeze(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let axes = axes_arg(axis)?;
    out(py, ops::squeeze(&tensor(input)?, axes.as_deref()))
}

/// Converts a list of tensor-likes, giving Python scalars the dtype of the first tensor among them.
fn tensor_list(values: &Bound<'_, PyAny>) -> PyResult<Vec<Tensor>> {
    let items: Vec<Bound<'_, PyAny>> = values.try_iter()?.collect::<PyResult<_>>()?;
    let hint = items
        .iter()
        .find(|v| {
            v.is_instance_of::<PyTensor>() || v.is_instance_of::<crate::variable::PyVariable>()
        })
        .map(|v| to_tensor(v, Want::Any))
        .transpose()?
        .map(|t| t.dtype());
    items
        .iter()
        .map(|v| to_tensor(v, hint.map_or(Want::Any, Want::Hint)))
        .collect()
}

/// Sums a list of tensors of one shape and dtype in one pass (``tf.add_n``).
///
/// Parameters
/// ----------
/// inputs : sequence of Tensor-like
///     At least one tensor; all of the same shape and dtype (no broadcasting,
///     as in TensorFlow).
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Differentiable: each input receives the incoming gradient.
#[pyfunction]
#[pyo3(signature = (inputs, name=None))]
#[allow(unused_variables)]
pub fn add_n(
    py: Python<'_>,
    inputs: &Bound<'_, PyAny>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let ts = tensor_list(inputs)?;
    let h = ts.iter().any(heavy);
    out(py, compute(py, h, || ops::add_n(&ts)))
}

/// Joins tensors along an existing axis (``tf.concat``).
///
/// Parameters
/// ----------
/// values : sequence of Tensor-like
///     Same rank and dtype; equal sizes except along ``axis``.
/// axis : int
///     The axis to join along (negative counts from the end).
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Differentiable: each input gets its slice of the gradient.
#[pyfunction]
#[pyo3(signature = (values, axis, name=None))]
#[allow(unused_variables)]
pub fn concat(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    axis: isize,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let ts = tensor_list(values)?;
    let h = ts.iter().any(heavy);
    out(py, compute(py, h, || ops::concat(&ts, axis)))
}

/// Joins tensors of one shape along a new axis (``tf.stack``).
///
/// Parameters
/// ----------
/// values : sequence of Tensor-like
///     Same shape and dtype.
/// axis : int, default 0
///     Where the new axis goes (negative counts from the end).
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Differentiable.
#[pyfunction]
#[pyo3(signature = (values, axis=0, name=None))]
#[allow(unused_variables)]
pub fn stack(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    axis: isize,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let ts = tensor_list(values)?;
    let h = ts.iter().any(heavy);
    out(py, compute(py, h, || ops::stack(&ts, axis)))
}

fn tensors_out(py: Python<'_>, r: tapers::Result<Vec<Tensor>>) -> PyResult<Py<PyAny>> {
    let items = r
        .py()?
        .into_iter()
        .map(|t| out(py, Ok(t)))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyList::new(py, items)?.into_any().unbind())
}

/// Splits a tensor into its slices along an axis (``tf.unstack``).
///
/// Parameters
/// ----------
/// value : Tensor-like
///     The values.
/// num : int, optional
///     Expected number of slices.
/// axis : int, default 0
///     The axis to unstack.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// list of Tensor
///     Differentiable.
#[pyfunction]
#[pyo3(signature = (value, num=None, axis=0, name=None))]
#[allow(unused_variables)]
pub fn unstack(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    num: Option<usize>,
    axis: isize,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = tensor(value)?;
    if let Some(n) = num {
        let r = t.rank() as isize;
        let a = if axis < 0 { axis + r } else { axis };
        if a >= 0 && a < r && t.shape()[a as usize] != n {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "Cannot infer argument `num` from shape {}: num={n} but the axis has {}",
                tapers::tuple_string(t.shape()),
                t.shape()[a as usize]
            )));
        }
    }
    tensors_out(py, ops::unstack(&t, axis))
}

/// Splits a tensor along an axis (``tf.split``).
///
/// Parameters
/// ----------
/// value : Tensor-like
///     The values.
/// num_or_size_splits : int or sequence of int
///     A number of equal pieces, or the size of each piece (one may be -1).
/// axis : int, default 0
///     The axis to split.
/// num : int, optional
///     Accepted for TensorFlow compatibility.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// list of Tensor
///     Differentiable.
#[pyfunction]
#[pyo3(signature = (value, num_or_size_splits, axis=0, num=None, name=None))]
#[allow(unused_variables)]
pub fn split(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    num_or_size_splits: &Bound<'_, PyAny>,
    axis: isize,
    num: Option<usize>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = tensor(value)?;
    let a = tapers::normalize_axis(axis, t.rank()).py()?;
    let dim = t.shape()[a];
    let sizes: Vec<usize> = if let Ok(n) = num_or_size_splits.extract::<usize>() {
        if n == 0 || dim % n != 0 {
            return Err(crate::errors::to_py(tapers::Error::InvalidArgument(format!(
                "Number of ways to split should evenly divide the split dimension, but got split_dim {axis} (size = {dim}) and num_split {n} [Op:Split]"
            ))));
        }
        vec![dim / n; n]
    } else {
        let raw = int_list(num_or_size_splits, "num_or_size_splits")?;
        let known: isize = raw.iter().filter(|&&v| v >= 0).sum();
        raw.iter()
            .map(|&v| {
                if v < 0 {
                    (dim as isize - known).max(0) as usize
                } else {
                    v as usize
                }
            })
            .collect()
    };
    tensors_out(py, ops::split(&t, &sizes, axis))
}

fn usize_list(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<usize>> {
    int_list(obj, what)?
        .into_iter()
        .map(|v| {
            usize::try_from(v).map_err(|_| {
                pyo3::exceptions::PyValueError::new_err(format!(
                    "{what} must be non-negative, got {v}"
                ))
            })
        })
        .collect()
}

/// Repeats a tensor along each axis (``tf.tile``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     The values.
/// multiples : sequence of int
///     Repetitions per axis (one per axis of ``input``).
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Differentiable (the gradient sums the copies).
#[pyfunction]
#[pyo3(signature = (input, multiples, name=None))]
#[allow(unused_variables)]
pub fn tile(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    multiples: &Bound<'_, PyAny>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = tensor(input)?;
    let m = usize_list(multiples, "multiples")?;
    out(py, ops::tile(&t, &m))
}

/// Pads a tensor with a constant (``tf.pad``).
///
/// Parameters
/// ----------
/// tensor : Tensor-like
///     The values.
/// paddings : sequence of (int, int)
///     Elements to add before and after each axis.
/// mode : str, default "CONSTANT"
///     Only ``CONSTANT`` is supported (TensorFlow also has REFLECT and
///     SYMMETRIC); others raise ``ValueError``.
/// constant_values : float, default 0
///     The fill value.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Differentiable: the gradient is the inner slice.
#[pyfunction]
#[pyo3(signature = (tensor, paddings, mode="CONSTANT", constant_values=0.0, name=None))]
#[allow(unused_variables)]
pub fn pad(
    py: Python<'_>,
    tensor: &Bound<'_, PyAny>,
    paddings: &Bound<'_, PyAny>,
    mode: &str,
    constant_values: f64,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    if !mode.eq_ignore_ascii_case("constant") {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "tapers.pad supports mode='CONSTANT' only, got {mode:?}"
        )));
    }
    let t = self::tensor(tensor)?;
    let p: Vec<Vec<isize>> = if paddings.is_instance_of::<PyTensor>() {
        self::tensor(paddings)?
            .to_vec::<i32>()
            .map(|v| {
                v.chunks(2)
                    .map(|c| c.iter().map(|&x| x as isize).collect())
                    .collect()
            })
            .or_else(|_| {
                ops::cast(&self::tensor(paddings)?, DType::I64)
                    .py()?
                    .to_vec::<i64>()
                    .py()
                    .map(|v| {
                        v.chunks(2)
                            .map(|c| c.iter().map(|&x| x as isize).collect())
                            .collect()
                    })
            })?
    } else {
        paddings.extract()?
    };
    let pairs: Vec<(usize, usize)> = p
        .iter()
        .map(|r| match r.as_slice() {
            [a, b] if *a >= 0 && *b >= 0 => Ok((*a as usize, *b as usize)),
            _ => Err(pyo3::exceptions::PyValueError::new_err(format!(
                "paddings must be [[before, after], ...] of non-negative ints, got {p:?}"
            ))),
        })
        .collect::<PyResult<_>>()?;
    out(py, ops::pad(&t, &pairs, constant_values))
}

/// Gathers slices along an axis by index (``tf.gather``).
///
/// Parameters
/// ----------
/// params : Tensor-like
///     The values.
/// indices : Tensor-like of int32 or int64
///     Positions along ``axis``; out-of-range indices raise
///     ``InvalidArgumentError`` (TensorFlow's CPU behaviour).
/// validate_indices : optional
///     Accepted and ignored (indices are always validated).
/// axis : int, optional
///     The axis to gather from; ``batch_dims`` when None.
/// batch_dims : int, default 0
///     Leading axes shared by ``params`` and ``indices``.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Shape ``params.shape[:axis] + indices.shape[batch_dims:] +
///     params.shape[axis + 1:]``. Differentiable in ``params`` (repeated
///     indices accumulate).
#[pyfunction]
#[pyo3(signature = (params, indices, validate_indices=None, axis=None, batch_dims=0, name=None))]
#[allow(unused_variables)]
pub fn gather(
    py: Python<'_>,
    params: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    validate_indices: Option<&Bound<'_, PyAny>>,
    axis: Option<&Bound<'_, PyAny>>,
    batch_dims: isize,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let p = tensor(params)?;
    let i = tensor(indices)?;
    let ax = single_axis(axis, batch_dims)?;
    out(
        py,
        compute(py, heavy(&p), || ops::gather(&p, &i, ax, batch_dims)),
    )
}

/// Gathers slices addressed by index tuples (``tf.gather_nd``).
///
/// Parameters
/// ----------
/// params : Tensor-like
///     The values.
/// indices : Tensor-like of int32 or int64
///     Its last axis holds index tuples into the leading axes of ``params``;
///     an index out of range raises ``InvalidArgumentError`` (TensorFlow on CPU
///     does too).
/// batch_dims : int, default 0
///     Only 0 is supported; others raise ``ValueError``.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Shape ``indices.shape[:-1] + params.shape[indices.shape[-1]:]``.
///     Differentiable in ``params`` (the gradient scatter-adds).
#[pyfunction]
#[pyo3(signature = (params, indices, batch_dims=0, name=None))]
#[allow(unused_variables)]
pub fn gather_nd(
    py: Python<'_>,
    params: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    batch_dims: usize,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    if batch_dims != 0 {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "tapers.gather_nd supports batch_dims=0 only",
        ));
    }
    out(py, ops::gather_nd(&tensor(params)?, &tensor(indices)?))
}

/// One-hot encoding (``tf.one_hot``).
///
/// Parameters
/// ----------
/// indices : Tensor-like of int32 or int64
///     Positions; out-of-range ones give all-``off_value`` rows, as in TensorFlow.
/// depth : int
///     Length of the new axis.
/// on_value, off_value : float, default 1 and 0
///     The two values.
/// axis : int, default -1
///     Where the new axis goes.
/// dtype : DType or str, default float32
///     The element type.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     A constant (no gradient flows into ``indices``).
#[pyfunction]
#[pyo3(signature = (indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None))]
#[allow(unused_variables, clippy::too_many_arguments)]
pub fn one_hot(
    py: Python<'_>,
    indices: &Bound<'_, PyAny>,
    depth: usize,
    on_value: Option<f64>,
    off_value: Option<f64>,
    axis: Option<isize>,
    dtype: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let i = tensor(indices)?;
    out(
        py,
        ops::one_hot(
            &i,
            depth,
            on_value.unwrap_or(1.0),
            off_value.unwrap_or(0.0),
            axis.unwrap_or(-1),
            dtype_or(dtype, DType::F32)?,
        ),
    )
}

/// A tensor of one value (``tf.fill``).
///
/// Parameters
/// ----------
/// dims : sequence of int
///     The shape.
/// value : Tensor-like
///     A scalar; its dtype is the result's.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Differentiable in ``value`` (the gradient is the sum).
#[pyfunction]
#[pyo3(signature = (dims, value, name=None))]
#[allow(unused_variables)]
pub fn fill(
    py: Python<'_>,
    dims: &Bound<'_, PyAny>,
    value: &Bound<'_, PyAny>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    out(py, ops::fill(&shape_arg(dims)?, &tensor(value)?))
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
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Shape ``batch_shape + [num_rows, num_columns]``.
#[pyfunction]
#[pyo3(signature = (num_rows, num_columns=None, batch_shape=None, dtype=None, name=None))]
#[allow(unused_variables)]
pub fn eye(
    py: Python<'_>,
    num_rows: usize,
    num_columns: Option<usize>,
    batch_shape: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let batch = match batch_shape {
        Some(b) if !b.is_none() => shape_arg(b)?,
        _ => vec![],
    };
    out(
        py,
        ops::eye(
            num_rows,
            num_columns.unwrap_or(num_rows),
            &batch,
            dtype_or(dtype, DType::F32)?,
        ),
    )
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
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     A constant. Counts too large for memory raise ``ResourceExhaustedError``.
#[pyfunction]
#[pyo3(signature = (start, limit=None, delta=None, dtype=None, name=None))]
#[allow(unused_variables)]
pub fn range(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    limit: Option<&Bound<'_, PyAny>>,
    delta: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let (s, l) = match limit {
        Some(l) if !l.is_none() => (start.clone(), l.clone()),
        _ => (0i32.into_pyobject(py)?.into_any(), start.clone()),
    };
    let one = 1i32.into_pyobject(py)?.into_any();
    let d = delta.cloned().unwrap_or(one);
    let vals: Vec<Tensor> = [&s, &l, &d]
        .iter()
        .map(|v| to_tensor(v, Want::Any))
        .collect::<PyResult<_>>()?;
    let inferred = if vals.iter().any(|t| t.dtype() == DType::F64) {
        DType::F64
    } else if vals.iter().any(|t| t.dtype().is_floating()) {
        DType::F32
    } else if vals.iter().any(|t| t.dtype() == DType::I64) {
        DType::I64
    } else {
        DType::I32
    };
    let dt = dtype_or(dtype, inferred)?;
    let f = |t: &Tensor| t.to_f64_scalar().py();
    out(py, ops::range(f(&vals[0])?, f(&vals[1])?, f(&vals[2])?, dt))
}

/// ``num`` evenly spaced values from ``start`` to ``stop`` inclusive (``tf.linspace``).
///
/// Parameters
/// ----------
/// start, stop : number
///     The ends.
/// num : int
///     How many values.
/// axis : int, default 0
///     Accepted for TensorFlow compatibility.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     float32, or float64 when either end is a float64 tensor.
#[pyfunction]
#[pyo3(signature = (start, stop, num, name=None, axis=0))]
#[allow(unused_variables)]
pub fn linspace(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    stop: &Bound<'_, PyAny>,
    num: usize,
    name: Option<&Bound<'_, PyAny>>,
    axis: isize,
) -> PyResult<Py<PyAny>> {
    let a = to_tensor(start, Want::Any)?;
    let b = to_tensor(stop, Want::Any)?;
    let dt = if a.dtype() == DType::F64 || b.dtype() == DType::F64 {
        DType::F64
    } else {
        DType::F32
    };
    out(
        py,
        ops::linspace(a.to_f64_scalar().py()?, b.to_f64_scalar().py()?, num, dt),
    )
}

/// Contracts two tensors over chosen axes (``tf.tensordot``).
///
/// Parameters
/// ----------
/// a, b : Tensor-like
///     The operands (one dtype).
/// axes : int or (sequence of int, sequence of int)
///     An int ``n`` contracts the last ``n`` axes of ``a`` with the first
///     ``n`` of ``b``; a pair lists the axes of each to contract, in order.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     The free axes of ``a`` followed by those of ``b``. Differentiable in
///     both operands (computed as one matmul).
#[pyfunction]
#[pyo3(signature = (a, b, axes, name=None))]
#[allow(unused_variables)]
pub fn tensordot(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    axes: &Bound<'_, PyAny>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let (x, y) = binary_operands(a, b)?;
    let (aa, ba): (Vec<isize>, Vec<isize>) = if let Ok(n) = axes.extract::<usize>() {
        if n > x.rank() || n > y.rank() {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "tensordot: axes={n} exceeds the rank of an input"
            )));
        }
        (
            ((x.rank() - n)..x.rank()).map(|v| v as isize).collect(),
            (0..n).map(|v| v as isize).collect(),
        )
    } else {
        let pair: Vec<Bound<'_, PyAny>> = axes.try_iter()?.collect::<PyResult<_>>()?;
        if pair.len() != 2 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "tensordot: axes must be an int or a pair of lists",
            ));
        }
        (int_list(&pair[0], "axes")?, int_list(&pair[1], "axes")?)
    };
    let h = heavy(&x) || heavy(&y);
    out(py, compute(py, h, || ops::tensordot(&x, &y, &aa, &ba)))
}

/// Einstein summation over one or two operands (``tf.einsum``).
///
/// Parameters
/// ----------
/// equation : str
///     Subscripts such as ``"ij,jk->ik"``, ``"bij,bjk->bik"`` or ``"ii->i"``;
///     an implicit output (no ``->``) follows numpy's rule.
/// *inputs : Tensor-like
///     One or two operands. TensorFlow also takes three or more and ellipses
///     (``...``); tapers raises ``InvalidArgumentError`` for those.
/// **kwargs
///     Accepted for TensorFlow compatibility (``name``) and ignored.
///
/// Returns
/// -------
/// Tensor
///     Differentiable in every operand.
#[pyfunction]
#[pyo3(signature = (equation, *inputs, **kwargs))]
#[allow(unused_variables)]
pub fn einsum(
    py: Python<'_>,
    equation: &str,
    inputs: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, pyo3::types::PyDict>>,
) -> PyResult<Py<PyAny>> {
    let ts = tensor_list(inputs.as_any())?;
    let h = ts.iter().any(heavy);
    out(py, compute(py, h, || ops::einsum(equation, &ts)))
}

/// Vector norm, or Frobenius norm (``tf.norm``, ``tf.linalg.norm``).
///
/// Parameters
/// ----------
/// tensor : Tensor-like
///     The values (float).
/// ord : {"euclidean", "fro", 1, 2, numpy.inf, p > 0}, optional
///     The norm; the default is Euclidean over all elements. Over a pair of
///     axes only the Frobenius norm (``"fro"``/``"euclidean"``) is supported:
///     TensorFlow's matrix norms ``ord=1, 2, inf`` raise ``ValueError``.
/// axis : int or sequence of int, optional
///     The axes the norm runs over; all when None.
/// keepdims : bool, default False
///     Keep reduced axes with size 1.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Differentiable; as in TensorFlow, the Euclidean norm's gradient at 0 is
///     not finite.
#[pyfunction]
#[pyo3(signature = (tensor, ord=None, axis=None, keepdims=None, name=None))]
#[allow(unused_variables)]
pub fn norm(
    py: Python<'_>,
    tensor: &Bound<'_, PyAny>,
    ord: Option<&Bound<'_, PyAny>>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: Option<bool>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = self::tensor(tensor)?;
    let o = match ord {
        None => ops::NormOrd::Euclidean,
        Some(o) if o.is_none() => ops::NormOrd::Euclidean,
        Some(o) => {
            if let Ok(s) = o.extract::<String>() {
                match s.as_str() {
                    "euclidean" | "fro" => ops::NormOrd::Euclidean,
                    _ => {
                        return Err(pyo3::exceptions::PyValueError::new_err(format!(
                            "'ord' must be a supported vector norm, got {s:?}"
                        )))
                    }
                }
            } else {
                let p: f64 = o.extract()?;
                if p == 1.0 {
                    ops::NormOrd::One
                } else if p == 2.0 {
                    ops::NormOrd::Euclidean
                } else if p.is_infinite() && p > 0.0 {
                    ops::NormOrd::Inf
                } else if p > 0.0 {
                    ops::NormOrd::P(p)
                } else {
                    return Err(pyo3::exceptions::PyValueError::new_err(format!(
                        "'ord' must be a supported vector norm, got {p}"
                    )));
                }
            }
        }
    };
    let axes = axes_arg(axis)?;
    // Over a pair of axes TensorFlow reads 1, 2 and inf as matrix norms (max column sum,
    // spectral, max row sum), which are not implemented: refuse rather than return the
    // vector norm of the flattened matrix.
    let numeric_ord = ord.is_some_and(|o| !o.is_none() && o.extract::<String>().is_err());
    if numeric_ord && axes.as_ref().is_some_and(|a| a.len() == 2) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "tapers.norm: matrix norm ord={} over axes {:?} is not supported (only 'fro'/'euclidean')",
            ord.map(|o| o.to_string()).unwrap_or_default(),
            axes.as_deref().unwrap_or(&[])
        )));
    }
    out(
        py,
        ops::norm(&t, o, axes.as_deref(), keepdims.unwrap_or(false)),
    )
}

/// Sum of the main diagonal of the innermost two axes (``tf.linalg.trace``).
///
/// Parameters
/// ----------
/// x : Tensor-like
///     Rank at least 2; leading axes are batch axes.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Shape ``x.shape[:-2]``. Differentiable (the gradient is an identity
///     pattern).
#[pyfunction]
#[pyo3(signature = (x, name=None))]
#[allow(unused_variables)]
pub fn trace(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    out(py, ops::trace(&tensor(x)?))
}

/// The shape of a tensor as a tensor (``tf.shape``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     Any tensor, Variable or value convertible to one.
/// out_type : DType, default int32
///     ``int32`` or ``int64``.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     A vector of length ``rank(input)``. Not differentiable.
#[pyfunction(name = "shape")]
#[pyo3(signature = (input, out_type=None, name=None))]
#[allow(unused_variables)]
pub fn shape_of(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    out_type: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = crate::tensor::value_of(input)?;
    let d = index_dtype(out_type, DType::I32, "out_type")?;
    let v: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
    let n = v.len();
    out(py, Tensor::from_vec(v, &[n]).and_then(|s| ops::cast(&s, d)))
}

/// The number of elements of a tensor, as a scalar tensor (``tf.size``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     Any tensor, Variable or value convertible to one.
/// out_type : DType, default int32
///     ``int32`` or ``int64``.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     A scalar. Not differentiable.
#[pyfunction(name = "size")]
#[pyo3(signature = (input, out_type=None, name=None))]
#[allow(unused_variables)]
pub fn tensor_size(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    out_type: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = crate::tensor::value_of(input)?;
    out(
        py,
        ops::cast(
            &Tensor::scalar(t.numel() as i64),
            index_dtype(out_type, DType::I32, "out_type")?,
        ),
    )
}

/// The number of axes of a tensor, as an int32 scalar tensor (``tf.rank``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     Any tensor, Variable or value convertible to one.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     An int32 scalar. Not differentiable.
#[pyfunction(name = "rank")]
#[pyo3(signature = (input, name=None))]
#[allow(unused_variables)]
pub fn rank_of(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = crate::tensor::value_of(input)?;
    out(py, Ok(Tensor::scalar(t.rank() as i32)))
}
