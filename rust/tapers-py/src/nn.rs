//! `tapers.nn` functions that need more than the generic wrappers.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use tapers::{ops, Tensor};

use crate::convert::{binary_operands, to_tensor, Want};
use crate::ops::{axes_arg, heavy, int_list, tensor};
use crate::tensor::{compute, out};

type Name<'a, 'py> = Option<&'a Bound<'py, PyAny>>;

/// Softmax along an axis (``tf.nn.softmax``).
///
/// Parameters
/// ----------
/// logits : Tensor-like
///     Floating values.
/// axis : int, default -1
///     The axis that sums to one.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Same shape and dtype. Computed stably (the maximum is subtracted
///     first). Differentiable.
#[pyfunction]
#[pyo3(signature = (logits, axis=None, name=None))]
#[allow(unused_variables)]
pub fn softmax(
    py: Python<'_>,
    logits: &Bound<'_, PyAny>,
    axis: Option<isize>,
    name: Name,
) -> PyResult<Py<PyAny>> {
    let t = tensor(logits)?;
    out(
        py,
        compute(py, heavy(&t), || ops::softmax(&t, axis.unwrap_or(-1))),
    )
}

/// Logarithm of the softmax along an axis (``tf.nn.log_softmax``).
///
/// Parameters
/// ----------
/// logits : Tensor-like
///     Floating values.
/// axis : int, default -1
///     The normalized axis.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     ``logits - logsumexp(logits, axis)``, computed stably. Differentiable.
#[pyfunction]
#[pyo3(signature = (logits, axis=None, name=None))]
#[allow(unused_variables)]
pub fn log_softmax(
    py: Python<'_>,
    logits: &Bound<'_, PyAny>,
    axis: Option<isize>,
    name: Name,
) -> PyResult<Py<PyAny>> {
    let t = tensor(logits)?;
    out(
        py,
        compute(py, heavy(&t), || ops::log_softmax(&t, axis.unwrap_or(-1))),
    )
}

/// ``x`` where positive, ``alpha * x`` elsewhere (``tf.nn.leaky_relu``).
///
/// Parameters
/// ----------
/// features : Tensor-like
///     Floating values.
/// alpha : float, default 0.2
///     The slope for negative inputs.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Differentiable; the derivative at 0 is ``alpha``, as in TensorFlow.
#[pyfunction]
#[pyo3(signature = (features, alpha=0.2, name=None))]
#[allow(unused_variables)]
pub fn leaky_relu(
    py: Python<'_>,
    features: &Bound<'_, PyAny>,
    alpha: f64,
    name: Name,
) -> PyResult<Py<PyAny>> {
    let t = tensor(features)?;
    out(py, compute(py, heavy(&t), || ops::leaky_relu(&t, alpha)))
}

/// Gaussian error linear unit (``tf.nn.gelu``).
///
/// Parameters
/// ----------
/// features : Tensor-like
///     Floating values.
/// approximate : bool, default False
///     Use the tanh approximation instead of the exact ``x * Phi(x)``.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Differentiable (also twice: the gradient is built from recorded ops).
#[pyfunction]
#[pyo3(signature = (features, approximate=false, name=None))]
#[allow(unused_variables)]
pub fn gelu(
    py: Python<'_>,
    features: &Bound<'_, PyAny>,
    approximate: bool,
    name: Name,
) -> PyResult<Py<PyAny>> {
    let t = tensor(features)?;
    out(py, compute(py, heavy(&t), || ops::gelu(&t, approximate)))
}

/// ``x * sigmoid(beta * x)`` (``tf.nn.silu``, also ``tf.nn.swish``).
///
/// Parameters
/// ----------
/// features : Tensor-like
///     Floating values.
/// beta : float, default 1.0
///     The sigmoid's scale.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Differentiable.
#[pyfunction]
#[pyo3(signature = (features, beta=1.0, name=None))]
#[allow(unused_variables)]
pub fn silu(
    py: Python<'_>,
    features: &Bound<'_, PyAny>,
    beta: f64,
    name: Name,
) -> PyResult<Py<PyAny>> {
    let t = tensor(features)?;
    out(py, compute(py, heavy(&t), || ops::silu(&t, beta)))
}

/// Scales ``x`` to unit Euclidean norm along axes (``tf.nn.l2_normalize``).
///
/// Parameters
/// ----------
/// x : Tensor-like
///     Floating values.
/// axis : int or sequence of int, optional
///     The axes the norm runs over; all when None.
/// epsilon : float, default 1e-12
///     Lower bound for the squared norm: ``x / sqrt(max(sum(x**2), epsilon))``,
///     so zero vectors stay zero.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
/// dim : int, optional
///     TensorFlow's deprecated alias of ``axis``.
///
/// Returns
/// -------
/// Tensor
///     Same shape and dtype. Differentiable.
#[pyfunction]
#[pyo3(signature = (x, axis=None, epsilon=1e-12, name=None, dim=None))]
#[allow(unused_variables)]
pub fn l2_normalize(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    epsilon: f64,
    name: Name,
    dim: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let t = tensor(x)?;
    let axes = axes_arg(axis.or(dim))?;
    out(py, ops::l2_normalize(&t, axes.as_deref(), epsilon))
}

/// Adds a bias vector along the last axis (``tf.nn.bias_add``).
///
/// Parameters
/// ----------
/// value : Tensor-like
///     Rank at least 2, channels last.
/// bias : Tensor-like
///     A vector with ``value.shape[-1]`` elements, same dtype.
/// data_format : str, optional
///     ``"NHWC"`` or ``"N...C"`` only; TensorFlow's channels-first ``"NCHW"``
///     raises ``ValueError``.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Differentiable; the bias's gradient sums over every axis but the last.
#[pyfunction]
#[pyo3(signature = (value, bias, data_format=None, name=None))]
#[allow(unused_variables)]
pub fn bias_add(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    bias: &Bound<'_, PyAny>,
    data_format: Option<&str>,
    name: Name,
) -> PyResult<Py<PyAny>> {
    if let Some(f) = data_format {
        if f != "NHWC" && f != "N...C" {
            return Err(PyValueError::new_err(format!(
                "tapers.nn.bias_add supports channels-last data only, got {f:?}"
            )));
        }
    }
    let (v, b) = binary_operands(value, bias)?;
    out(py, compute(py, heavy(&v), || ops::bias_add(&v, &b)))
}

fn labels_logits<'py>(
    labels: Option<&Bound<'py, PyAny>>,
    logits: Option<&Bound<'py, PyAny>>,
    what: &str,
) -> PyResult<(Tensor, Tensor)> {
    let (Some(labels), Some(logits)) = (labels, logits) else {
        return Err(PyValueError::new_err(format!(
            "Only call `{what}` with named arguments (labels=..., logits=..., ...)."
        )));
    };
    let lg = to_tensor(logits, Want::Any)?;
    let lb = to_tensor(labels, Want::Hint(lg.dtype()))?;
    Ok((lb, lg))
}

/// Cross-entropy between a label distribution and ``softmax(logits)`` (``tf.nn.softmax_cross_entropy_with_logits``).
///
/// Parameters
/// ----------
/// labels : Tensor-like
///     Probabilities with the shape of ``logits`` (each row should sum to one).
/// logits : Tensor-like
///     Unnormalized log-probabilities (float).
/// axis : int, default -1
///     The class axis.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     One loss per row (``axis`` removed), computed stably. Differentiable in
///     both ``logits`` and ``labels``. Like TensorFlow, ``labels`` and ``logits``
///     must be passed by keyword.
#[pyfunction]
#[pyo3(signature = (labels=None, logits=None, axis=-1, name=None))]
#[allow(unused_variables)]
pub fn softmax_cross_entropy_with_logits(
    py: Python<'_>,
    labels: Option<&Bound<'_, PyAny>>,
    logits: Option<&Bound<'_, PyAny>>,
    axis: isize,
    name: Name,
) -> PyResult<Py<PyAny>> {
    let (lb, lg) = labels_logits(labels, logits, "softmax_cross_entropy_with_logits")?;
    out(
        py,
        compute(py, heavy(&lg), || {
            ops::softmax_cross_entropy_with_logits(&lb, &lg, axis)
        }),
    )
}

/// Cross-entropy of integer class labels against ``softmax(logits)`` (``tf.nn.sparse_softmax_cross_entropy_with_logits``).
///
/// Parameters
/// ----------
/// labels : Tensor-like of int32 or int64
///     Class indices, shape ``logits.shape[:-1]``; an index outside
///     ``[0, classes)`` raises ``InvalidArgumentError`` (TensorFlow on CPU too).
/// logits : Tensor-like
///     Unnormalized log-probabilities (float), classes on the last axis.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     One loss per row, computed stably. Differentiable in ``logits``. Like
///     TensorFlow, ``labels`` and ``logits`` must be passed by keyword.
#[pyfunction]
#[pyo3(signature = (labels=None, logits=None, name=None))]
#[allow(unused_variables)]
pub fn sparse_softmax_cross_entropy_with_logits(
    py: Python<'_>,
    labels: Option<&Bound<'_, PyAny>>,
    logits: Option<&Bound<'_, PyAny>>,
    name: Name,
) -> PyResult<Py<PyAny>> {
    let (Some(labels), Some(logits)) = (labels, logits) else {
        return Err(PyValueError::new_err("Only call `sparse_softmax_cross_entropy_with_logits` with named arguments (labels=..., logits=..., ...)."));
    };
    let lg = to_tensor(logits, Want::Any)?;
    let lb = to_tensor(labels, Want::Any)?;
    out(
        py,
        compute(py, heavy(&lg), || {
            ops::sparse_softmax_cross_entropy_with_logits(&lb, &lg)
        }),
    )
}

/// Element-wise logistic loss (``tf.nn.sigmoid_cross_entropy_with_logits``).
///
/// Parameters
/// ----------
/// labels : Tensor-like
///     Targets in ``[0, 1]``, the shape of ``logits``.
/// logits : Tensor-like
///     Unnormalized log-odds (float).
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     ``max(x, 0) - x * z + log(1 + exp(-abs(x)))``: stable for large
///     ``|logits|``. Differentiable in both. Like TensorFlow, ``labels`` and
///     ``logits`` must be passed by keyword.
#[pyfunction]
#[pyo3(signature = (labels=None, logits=None, name=None))]
#[allow(unused_variables)]
pub fn sigmoid_cross_entropy_with_logits(
    py: Python<'_>,
    labels: Option<&Bound<'_, PyAny>>,
    logits: Option<&Bound<'_, PyAny>>,
    name: Name,
) -> PyResult<Py<PyAny>> {
    let (lb, lg) = labels_logits(labels, logits, "sigmoid_cross_entropy_with_logits")?;
    out(
        py,
        compute(py, heavy(&lg), || {
            ops::sigmoid_cross_entropy_with_logits(&lb, &lg)
        }),
    )
}

fn pair(
    obj: Option<&Bound<'_, PyAny>>,
    default: usize,
    what: &str,
    rank4_ok: bool,
) -> PyResult<[usize; 2]> {
    let Some(o) = obj.filter(|o| !o.is_none()) else {
        return Ok([default, default]);
    };
    let v = int_list(o, what)?;
    let u = |x: isize| {
        usize::try_from(x)
            .map_err(|_| PyValueError::new_err(format!("{what} must be positive, got {v:?}")))
    };
    match v.as_slice() {
        [a] => Ok([u(*a)?, u(*a)?]),
        [a, b] => Ok([u(*a)?, u(*b)?]),
        [1, a, b, 1] if rank4_ok => Ok([u(*a)?, u(*b)?]),
        _ => Err(PyValueError::new_err(format!(
            "{what} must be an int, a pair, or [1, h, w, 1]; got {v:?}"
        ))),
    }
}

fn padding_arg(p: &str) -> PyResult<ops::Padding> {
    match p.to_ascii_uppercase().as_str() {
        "SAME" => Ok(ops::Padding::Same),
        "VALID" => Ok(ops::Padding::Valid),
        _ => Err(PyValueError::new_err(format!(
            "padding must be 'SAME' or 'VALID', got {p:?}"
        ))),
    }
}

fn nhwc(data_format: Option<&str>) -> PyResult<()> {
    match data_format {
        None | Some("NHWC") => Ok(()),
        Some(f) => Err(PyValueError::new_err(format!(
            "tapers supports data_format='NHWC' only, got {f:?}"
        ))),
    }
}

/// 2-D convolution of NHWC images with HWIO filters (``tf.nn.conv2d``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     Shape ``(batch, height, width, in_channels)``, float.
/// filters : Tensor-like
///     Shape ``(filter_height, filter_width, in_channels, out_channels)``.
/// strides : int or sequence of int
///     An int, a pair, or ``[1, sh, sw, 1]``.
/// padding : {"SAME", "VALID"}
///     TensorFlow's explicit padding lists are not supported.
/// data_format : str, optional
///     ``"NHWC"`` only; TensorFlow's ``"NCHW"`` raises ``ValueError``.
/// dilations : int or sequence of int, optional
///     As ``strides``; default 1.
/// name : str, optional
///     Accepted for TensorFlow compatibility and ignored.
///
/// Returns
/// -------
/// Tensor
///     Shape ``(batch, out_height, out_width, out_channels)``. Differentiable in
///     ``input`` and ``filters`` (im2col and a matmul, with the GIL released).
#[pyfunction]
#[pyo3(signature = (input, filters, strides, padding, data_format=None, dilations=None, name=None))]
#[allow(unused_variables, clippy::too_many_arguments)]
pub fn conv2d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    filters: &Bound<'_, PyAny>,
    strides: &Bound<'_, PyAny>,
    padding: &str,
    data_format: Option<&str>,
    dilations: Option<&Bound<'_, PyAny>>,
    name: Name,
) -> PyResult<Py<PyAny>> {
    nhwc(data_format)?;
    let (x, f) = binary_operands(input, filters)?;
    let s = pair(Some(strides), 1, "strides", true)?;
    let d = pair(dilations, 1, "dilations", true)?;
    let p = padding_arg(padding)?;
    out(py, compute(py, true, || ops::conv2d(&x, &f, s, p, d)))
}

/// A pooling function; its docstring is `$summary`, then the shared
/// parameters with `$same` on SAME padding, then `$grad` on the gradient.
macro_rules! pool {
    ($name:ident, $f:path, $summary:literal, $same:literal, $grad:literal) => {
        #[doc = concat!(
            $summary,
            "\n\nParameters\n----------\n",
            "input : Tensor-like\n    Shape ``(batch, height, width, channels)``, float.\n",
            "ksize : int or sequence of int\n    The window: an int, a pair, or ``[1, kh, kw, 1]``.\n",
            "strides : int or sequence of int\n    As ``ksize``.\n",
            "padding : {\"SAME\", \"VALID\"}\n    With ``SAME``, ", $same, ".\n",
            "data_format : str, optional\n    ``\"NHWC\"`` only; TensorFlow's ``\"NCHW\"`` raises ``ValueError``.\n",
            "name : str, optional\n    Accepted for TensorFlow compatibility and ignored.\n",
            "\nReturns\n-------\nTensor\n",
            "    Shape ``(batch, out_height, out_width, channels)``. Differentiable: ", $grad, "."
        )]
        #[pyfunction]
        #[pyo3(signature = (input, ksize, strides, padding, data_format=None, name=None))]
        #[allow(unused_variables)]
        pub fn $name(
            py: Python<'_>,
            input: &Bound<'_, PyAny>,
            ksize: &Bound<'_, PyAny>,
            strides: &Bound<'_, PyAny>,
            padding: &str,
            data_format: Option<&str>,
            name: Name,
        ) -> PyResult<Py<PyAny>> {
            nhwc(data_format)?;
            let x = tensor(input)?;
            let k = pair(Some(ksize), 1, "ksize", true)?;
            let s = pair(Some(strides), 1, "strides", true)?;
            let p = padding_arg(padding)?;
            out(py, compute(py, true, || $f(&x, k, s, p)))
        }
    };
}
pool!(
    max_pool2d,
    ops::max_pool2d,
    "Maximum over NHWC windows (``tf.nn.max_pool``, also ``tf.nn.max_pool2d``).",
    "padding never wins the max",
    "the gradient goes to the first maximum of each window (TensorFlow's MaxPoolGrad rule)"
);
pool!(
    avg_pool2d,
    ops::avg_pool2d,
    "Mean over NHWC windows (``tf.nn.avg_pool``, also ``tf.nn.avg_pool2d``).",
    "the average counts only the window's elements inside the input, as in TensorFlow",
    "the gradient is spread evenly over each window"
);

/// Inverted dropout with a precomputed keep mask (the mask comes from `tapers.random`).
#[pyfunction]
pub fn dropout_with_mask(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    keep: &Bound<'_, PyAny>,
    rate: f64,
) -> PyResult<Py<PyAny>> {
    let t = tensor(x)?;
    let k = tensor(keep)?;
    out(py, ops::dropout_with_mask(&t, &k, rate))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    macro_rules! add {
        ($($f:ident),* $(,)?) => {$( m.add_function(wrap_pyfunction!($f, m)?)?; )*};
    }
    add!(
        softmax,
        log_softmax,
        leaky_relu,
        gelu,
        silu,
        l2_normalize,
        bias_add,
        softmax_cross_entropy_with_logits,
        sparse_softmax_cross_entropy_with_logits,
        sigmoid_cross_entropy_with_logits,
        conv2d,
        max_pool2d,
        avg_pool2d,
        dropout_with_mask,
    );
    Ok(())
}
