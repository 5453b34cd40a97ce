//! Activations, normalization and losses (the core's `ops/nn.rs`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use tapers::{ops, Tensor};

use super::{export, name_doc, unary, Exports, Ns};
use crate::args::{Axes, ChannelsLast, Name, TensorArg};
use crate::call::{call, Work};
use crate::convert::{binary_operands, to_tensor, Want};

unary!(
    exports_unary;
    features;
    [Nn] elu => ops::elu, "Exponential linear unit: x if x > 0 else e**x - 1.";
    [Nn] selu => ops::selu, "Scaled exponential linear unit (Klambauer et al., 2017).";
);

/// Softmax along an axis (``tf.nn.softmax``).
///
/// Parameters
/// ----------
/// logits : Tensor-like
///     Floating values.
/// axis : int, default -1
///     The axis that sums to one.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Same shape and dtype. Computed stably (the maximum is subtracted
///     first). Differentiable.
#[pyfunction]
#[pyo3(signature = (logits, axis=None, name=None))]
pub fn softmax(
    py: Python<'_>,
    logits: TensorArg,
    axis: Option<isize>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = logits.0;
    call(py, name, Work::of(&[&t]), || {
        ops::softmax(&t, axis.unwrap_or(-1))
    })
}

/// Logarithm of the softmax along an axis (``tf.nn.log_softmax``).
///
/// Parameters
/// ----------
/// logits : Tensor-like
///     Floating values.
/// axis : int, default -1
///     The normalized axis.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     ``logits - logsumexp(logits, axis)``, computed stably. Differentiable.
#[pyfunction]
#[pyo3(signature = (logits, axis=None, name=None))]
pub fn log_softmax(
    py: Python<'_>,
    logits: TensorArg,
    axis: Option<isize>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = logits.0;
    call(py, name, Work::of(&[&t]), || {
        ops::log_softmax(&t, axis.unwrap_or(-1))
    })
}

/// ``x`` where positive, ``alpha * x`` elsewhere (``tf.nn.leaky_relu``).
///
/// Parameters
/// ----------
/// features : Tensor-like
///     Floating values.
/// alpha : float, default 0.2
///     The slope for negative inputs.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Differentiable; the derivative at 0 is ``alpha``, as in TensorFlow.
#[pyfunction]
#[pyo3(signature = (features, alpha=0.2, name=None))]
pub fn leaky_relu(
    py: Python<'_>,
    features: TensorArg,
    alpha: f64,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = features.0;
    call(py, name, Work::of(&[&t]), || {
        // TF's leaky_relu casts integer features to float32 first.
        let t = if t.dtype().is_integer() {
            ops::cast(&t, tapers::DType::F32)?
        } else {
            t.clone()
        };
        ops::leaky_relu(&t, alpha)
    })
}

/// Gaussian error linear unit (``tf.nn.gelu``).
///
/// Parameters
/// ----------
/// features : Tensor-like
///     Floating values.
/// approximate : bool, default False
///     Use the tanh approximation instead of the exact ``x * Phi(x)``.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Differentiable (also twice: the gradient is built from recorded ops).
#[pyfunction]
#[pyo3(signature = (features, approximate=false, name=None))]
pub fn gelu(
    py: Python<'_>,
    features: TensorArg,
    approximate: bool,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = features.0;
    if !t.dtype().is_floating() {
        // TF checks in Python, before any op runs.
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "`features.dtype` must be a floating point tensor.Received:features.dtype=<dtype: '{}'>",
            t.dtype().name()
        )));
    }
    call(py, name, Work::of(&[&t]), || ops::gelu(&t, approximate))
}

/// ``x * sigmoid(beta * x)`` (``tf.nn.silu``, also ``tf.nn.swish``).
///
/// Parameters
/// ----------
/// features : Tensor-like
///     Floating values.
/// beta : float, default 1.0
///     The sigmoid's scale.
///
/// Returns
/// -------
/// Tensor
///     Differentiable. (TensorFlow's ``silu`` takes no ``name``; neither does this.)
#[pyfunction]
#[pyo3(signature = (features, beta=1.0))]
pub fn silu(py: Python<'_>, features: TensorArg, beta: f64) -> PyResult<Py<PyAny>> {
    let t = features.0;
    call(py, None, Work::of(&[&t]), || ops::silu(&t, beta))
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
#[doc = name_doc!()]
/// dim : int, optional
///     TensorFlow's deprecated alias of ``axis``.
///
/// Returns
/// -------
/// Tensor
///     Same shape and dtype. Differentiable.
#[pyfunction]
#[pyo3(signature = (x, axis=None, epsilon=1e-12, name=None, dim=None))]
pub fn l2_normalize(
    py: Python<'_>,
    x: TensorArg,
    axis: Option<Axes>,
    epsilon: f64,
    name: Option<Name>,
    dim: Option<Axes>,
) -> PyResult<Py<PyAny>> {
    let t = x.0;
    let axes = axis.or(dim).map(|a| a.0);
    call(py, name, Work::of(&[&t]), || {
        ops::l2_normalize(&t, axes.as_deref(), epsilon)
    })
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
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Differentiable; the bias's gradient sums over every axis but the last.
#[pyfunction]
#[pyo3(signature = (value, bias, data_format=None, name=None))]
pub fn bias_add(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    bias: &Bound<'_, PyAny>,
    data_format: Option<ChannelsLast>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    // Channels last is all there is; the converter refused anything else.
    let _ = data_format;
    let (v, b) = binary_operands(value, bias)?;
    call(py, name, Work::of(&[&v]), || ops::bias_add(&v, &b))
}

/// The `labels` and `logits` of a cross-entropy, which TensorFlow takes by
/// keyword only; `labels` converts with the dtype of `logits` when it can.
fn labels_logits(
    labels: Option<&Bound<'_, PyAny>>,
    logits: Option<&Bound<'_, PyAny>>,
    what: &str,
    labels_like_logits: bool,
) -> PyResult<(Tensor, Tensor)> {
    let (Some(labels), Some(logits)) = (labels, logits) else {
        return Err(PyValueError::new_err(format!(
            "Only call `{what}` with named arguments (labels=..., logits=..., ...)."
        )));
    };
    let lg = to_tensor(logits, Want::Any)?;
    let want = if labels_like_logits {
        Want::Hint(lg.dtype())
    } else {
        Want::Any
    };
    Ok((to_tensor(labels, want)?, lg))
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
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     One loss per row (``axis`` removed), computed stably. Differentiable in
///     both ``logits`` and ``labels``. Like TensorFlow, ``labels`` and ``logits``
///     must be passed by keyword.
#[pyfunction]
#[pyo3(signature = (labels=None, logits=None, axis=-1, name=None))]
pub fn softmax_cross_entropy_with_logits(
    py: Python<'_>,
    labels: Option<&Bound<'_, PyAny>>,
    logits: Option<&Bound<'_, PyAny>>,
    axis: isize,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let (lb, lg) = labels_logits(labels, logits, "softmax_cross_entropy_with_logits", true)?;
    call(py, name, Work::of(&[&lg, &lb]), || {
        ops::softmax_cross_entropy_with_logits(&lb, &lg, axis)
    })
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
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     One loss per row, computed stably. Differentiable in ``logits``. Like
///     TensorFlow, ``labels`` and ``logits`` must be passed by keyword.
#[pyfunction]
#[pyo3(signature = (labels=None, logits=None, name=None))]
pub fn sparse_softmax_cross_entropy_with_logits(
    py: Python<'_>,
    labels: Option<&Bound<'_, PyAny>>,
    logits: Option<&Bound<'_, PyAny>>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let (lb, lg) = labels_logits(
        labels,
        logits,
        "sparse_softmax_cross_entropy_with_logits",
        false,
    )?;
    call(py, name, Work::of(&[&lg]), || {
        ops::sparse_softmax_cross_entropy_with_logits(&lb, &lg)
    })
}

/// Element-wise logistic loss (``tf.nn.sigmoid_cross_entropy_with_logits``).
///
/// Parameters
/// ----------
/// labels : Tensor-like
///     Targets in ``[0, 1]``, the shape of ``logits``.
/// logits : Tensor-like
///     Unnormalized log-odds (float).
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     ``max(x, 0) - x * z + log(1 + exp(-abs(x)))``: stable for large
///     ``|logits|``. Differentiable in both. Like TensorFlow, ``labels`` and
///     ``logits`` must be passed by keyword.
#[pyfunction]
#[pyo3(signature = (labels=None, logits=None, name=None))]
pub fn sigmoid_cross_entropy_with_logits(
    py: Python<'_>,
    labels: Option<&Bound<'_, PyAny>>,
    logits: Option<&Bound<'_, PyAny>>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let (lb, lg) = labels_logits(labels, logits, "sigmoid_cross_entropy_with_logits", true)?;
    call(py, name, Work::broadcast(&[&lg, &lb]), || {
        ops::sigmoid_cross_entropy_with_logits(&lb, &lg)
    })
}

/// Inverted dropout with a precomputed keep mask (``tapers.nn.dropout``
/// draws the mask from ``tapers.random`` and calls this).
///
/// Parameters
/// ----------
/// x : Tensor-like
///     Floating values.
/// keep : Tensor-like of bool
///     True where ``x`` is kept; the shape of ``x``.
/// rate : float
///     The drop probability: kept values are scaled by ``1 / (1 - rate)``.
///
/// Returns
/// -------
/// Tensor
///     Differentiable in ``x`` (the same mask and scale).
#[pyfunction(name = "_dropout_with_mask")]
pub fn dropout_with_mask(
    py: Python<'_>,
    x: TensorArg,
    keep: TensorArg,
    rate: f64,
) -> PyResult<Py<PyAny>> {
    let (t, k) = (x.0, keep.0);
    call(py, None, Work::of(&[&t]), || {
        ops::dropout_with_mask(&t, &k, rate)
    })
}

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    exports_unary(ex)?;
    export!(ex, [Nn]: softmax, log_softmax, leaky_relu, gelu, silu, l2_normalize);
    export!(ex, [Nn]: bias_add, softmax_cross_entropy_with_logits);
    export!(ex, [Nn]: sparse_softmax_cross_entropy_with_logits, sigmoid_cross_entropy_with_logits);
    let nn = ex.module(Ns::Nn);
    ex.internal(
        Ns::Nn,
        "_dropout_with_mask",
        wrap_pyfunction!(dropout_with_mask, nn)?.as_any(),
    )
}
