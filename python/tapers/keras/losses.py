"""``keras.losses``: Keras 3's losses (class and function forms), written with tapers ops.

Each loss follows Keras 3 on TensorFlow formula for formula, so values and
gradients match it:

* probabilities are clipped to ``[epsilon, 1 - epsilon]`` with ``epsilon = 1e-7``
  before their log is taken (``categorical_crossentropy`` also renormalizes
  them to sum to 1 along ``axis``); ``from_logits=True`` uses the fused
  ``tapers.nn.*_cross_entropy_with_logits`` ops;
* a prediction that came out of ``keras.activations.sigmoid``/``softmax`` (so
  out of a ``Dense(..., activation="sigmoid")``) is replaced by the logits that
  activation remembered, as Keras does, even with ``from_logits=False``;
* a ``Loss`` object casts both arguments to its ``dtype`` (``floatx()``,
  float32, unless ``dtype=`` is given), applies ``sample_weight`` after squeezing
  or expanding it to the rank of the per-sample losses, then reduces:
  ``"sum_over_batch_size"`` (default, also ``"mean"``: sum / number of
  elements), ``"sum"``, ``"mean_with_sample_weight"`` (sum / sum of weights),
  ``"none"`` or ``None`` (per-sample values).

Everything is written with tapers ops, so a loss computed under a
``GradientTape`` is differentiable with respect to ``y_pred`` (and to the
variables that produced it).
"""

from __future__ import annotations

import math
import re
import threading
import weakref
from typing import Any, Callable

from .. import _core
from .. import math as _math
from .. import nn as _nn
from .._core import Tensor
from .._ops import clip_by_value
from ._lookup import from_table, resolve, to_config
from .activations import _logits_of
from .backend import epsilon, floatx, unique_name

__all__ = [
    "BinaryCrossentropy", "CategoricalCrossentropy", "CategoricalHinge", "CosineSimilarity", "Hinge", "Huber",
    "KLDivergence", "LogCosh", "Loss", "LossFunctionWrapper", "MeanAbsoluteError", "MeanAbsolutePercentageError",
    "MeanSquaredError", "MeanSquaredLogarithmicError", "Poisson", "SparseCategoricalCrossentropy", "SquaredHinge",
    "binary_crossentropy", "categorical_crossentropy", "categorical_hinge", "cosine_similarity", "deserialize", "get",
    "hinge", "huber", "kl_divergence", "log_cosh", "mae", "mean_absolute_error", "mean_absolute_percentage_error",
    "mean_squared_error", "mean_squared_logarithmic_error", "mse", "poisson", "serialize",
    "sparse_categorical_crossentropy", "squared_hinge", "KLD", "MAE", "MAPE", "MSE", "MSLE", "kld",
    "kullback_leibler_divergence", "logcosh", "mape", "msle",
    "CTC", "BinaryFocalCrossentropy", "CategoricalFocalCrossentropy", "CategoricalGeneralizedCrossEntropy", "Circle",
    "Dice", "Tversky", "binary_focal_crossentropy", "categorical_focal_crossentropy",
    "categorical_generalized_cross_entropy", "circle", "ctc", "dice", "tversky",
]  # fmt: skip


_REDUCTIONS = ("sum_over_batch_size", "sum", None, "none", "mean", "mean_with_sample_weight")

# --------------------------------------------------------------------------- masks
# Keras attaches a mask to the per-sample losses of ``ignore_class``; tapers tensors
# take no attributes, so the mask lives in a side table keyed by the tensor.
_mask_lock = threading.RLock()  # re-entrant: a weakref callback may run (GC) while it is held
_masks: dict[int, tuple[weakref.ref[Tensor], Tensor]] = {}


def _set_mask(values: Tensor, mask: Tensor) -> None:
    key = id(values)

    def _forget(_ref: Any, key: int = key) -> None:
        with _mask_lock:
            entry = _masks.get(key)
            if entry is not None and entry[0] is _ref:
                del _masks[key]

    with _mask_lock:
        _masks[key] = (weakref.ref(values, _forget), mask)


def _get_mask(values: Any) -> Tensor | None:
    with _mask_lock:
        entry = _masks.get(id(values))
    if entry is None or entry[0]() is not values:
        return None
    return entry[1]


# --------------------------------------------------------------------------- helpers


def _tensor(x: Any, dtype: Any = None) -> Tensor:
    """``x`` as a tensor of ``dtype``: the same object when it already is one (so remembered logits survive)."""
    if isinstance(x, Tensor):
        return x if dtype is None or x.dtype == dtype else _core.cast(x, dtype)
    t = _core.convert_to_tensor(x)
    return t if dtype is None or t.dtype == dtype else _core.cast(t, dtype)


def _const(value: float, like: Tensor) -> Tensor:
    return _core.constant(value, dtype=like.dtype)


def _shape(t: Tensor) -> tuple[int, ...]:
    return tuple(int(d) for d in t.shape)


def _divide_no_nan(x: Tensor, y: Tensor) -> Tensor:
    zero = _core.zeros_like(y)
    safe = _core.where(_core.equal(y, zero), _core.ones_like(y), y)
    return _core.where(_core.equal(y, zero), _core.zeros_like(x), x / safe)


def squeeze_or_expand_to_same_rank(x1: Any, x2: Any, expand_rank_1: bool = True) -> tuple[Tensor, Tensor]:
    """Keras' rank alignment: when the ranks differ by one and the longer one ends in a dimension of 1, squeeze it
    (or, when the other is rank 1 and ``expand_rank_1``, expand that one instead)."""
    x1, x2 = _tensor(x1), _tensor(x2)
    r1, r2 = len(x1.shape), len(x2.shape)
    if r1 == r2:
        return x1, x2
    if r1 == r2 + 1 and _shape(x1)[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = _core.expand_dims(x2, -1)
        else:
            x1 = _core.squeeze(x1, axis=-1)
    if r2 == r1 + 1 and _shape(x2)[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = _core.expand_dims(x1, -1)
        else:
            x2 = _core.squeeze(x2, axis=-1)
    return x1, x2


def standardize_reduction(reduction: str | None) -> str | None:
    """Checks ``reduction`` against Keras' allowed values.

    Raises
    ------
    ValueError
        For any other value (Keras' message).
    """
    if reduction not in _REDUCTIONS:
        raise ValueError(
            "Invalid value for argument `reduction`. Expected one of "
            f"{{'sum_over_batch_size', 'sum', None, 'none', 'mean', 'mean_with_sample_weight'}}. "
            f"Received: reduction={reduction!r}"
        )
    return reduction


def reduce_values(
    values: Tensor, sample_weight: Tensor | None = None, reduction: str | None = "sum_over_batch_size"
) -> Tensor:
    """Keras' reduction of (already weighted) per-sample losses to the value a ``Loss`` returns."""
    if reduction is None or reduction == "none" or _shape(values) in ((), (0,)):
        return values
    loss = _core.reduce_sum(values)
    if reduction in ("sum_over_batch_size", "mean", "mean_with_sample_weight"):
        if reduction == "mean_with_sample_weight" and sample_weight is not None:
            divisor = _core.cast(_core.reduce_sum(sample_weight), loss.dtype)
        else:
            n = 1
            for d in _shape(values):
                n *= d
            divisor = _const(float(n), loss)
        loss = _divide_no_nan(loss, divisor)
    return loss


def _apply_mask(sample_weight: Tensor | None, mask: Tensor | None, dtype: Any, reduction: str | None) -> Tensor | None:
    """Folds a mask into the sample weights; for mean reductions valid entries weigh ``total / valid`` (Keras)."""
    if mask is None:
        return sample_weight
    if reduction in ("mean", "sum_over_batch_size"):
        n = 1
        for d in _shape(mask):
            n *= d
        fmask = _core.cast(mask, dtype)
        valid = _core.reduce_sum(fmask)
        weight = _divide_no_nan(_core.constant(float(n), dtype=dtype), valid)
        float_mask = _core.where(_core.cast(mask, "bool"), weight * _core.ones_like(fmask), _core.zeros_like(fmask))
    else:
        float_mask = _core.cast(mask, dtype)
    if sample_weight is not None:
        sample_weight = _core.cast(sample_weight, dtype)
        float_mask, sample_weight = squeeze_or_expand_to_same_rank(float_mask, sample_weight)
        return sample_weight * float_mask
    return float_mask


def reduce_weighted_values(
    values: Any,
    sample_weight: Any = None,
    mask: Any = None,
    reduction: str | None = "sum_over_batch_size",
    dtype: Any = None,
) -> Tensor:
    """Weights per-sample losses by ``sample_weight`` (and ``mask``) and reduces them, as Keras' ``Loss.__call__``.

    Raises
    ------
    tapers.errors.InvalidArgumentError
        When the weights cannot be broadcast against the per-sample losses.
    """
    reduction = standardize_reduction(reduction)
    values = _tensor(values, dtype)
    if sample_weight is not None:
        sample_weight = _tensor(sample_weight, dtype)
    sample_weight = _apply_mask(sample_weight, mask, values.dtype, reduction)
    if sample_weight is not None:
        sample_weight = _core.cast(sample_weight, values.dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        values = values * sample_weight
    return reduce_values(values, sample_weight, reduction)


def _to_snake_case(name: str) -> str:
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def _check_same_shape(target: Tensor, output: Tensor) -> None:
    if len(target.shape) != len(output.shape):
        raise ValueError(
            "Arguments `target` and `output` must have the same rank (ndim). "
            f"Received: target.shape={_shape(target)}, output.shape={_shape(output)}"
        )
    if _shape(target) != _shape(output):
        raise ValueError(
            "Arguments `target` and `output` must have the same shape. "
            f"Received: target.shape={_shape(target)}, output.shape={_shape(output)}"
        )


def _float_dtype_of(t: Tensor) -> Any:
    if t.dtype not in ("float32", "float64", "float16", "bfloat16"):
        raise TypeError(f"Predictions must be floating point, got dtype {t.dtype.name} (shape {_shape(t)})")
    return t.dtype


# --------------------------------------------------------------------------- function forms


def mean_squared_error(y_true: Any, y_pred: Any) -> Tensor:
    """``mean(square(y_true - y_pred), axis=-1)``: one value per sample.

    Parameters
    ----------
    y_true, y_pred : Tensor-like
        Targets and predictions, ``[batch, d0, .. dN]``; ranks that differ by a
        trailing dimension of 1 are aligned as Keras does.

    Returns
    -------
    Tensor
        Shape ``[batch, d0, .. dN-1]``, in ``y_pred``'s dtype.
    """
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return _core.reduce_mean(_core.square(y_true - y_pred), axis=-1)


def mean_absolute_error(y_true: Any, y_pred: Any) -> Tensor:
    """``mean(abs(y_true - y_pred), axis=-1)``: one value per sample (shapes as :func:`mean_squared_error`).

    Parameters
    ----------
    y_true : Tensor-like
        Targets.
    y_pred : Tensor-like
        Predictions.

    Returns
    -------
    Tensor
        Shape ``[batch, d0, .. dN-1]``, in ``y_pred``'s dtype.
    """
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return _core.reduce_mean(_core.abs(y_true - y_pred), axis=-1)


def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> Tensor:
    """``100 * mean(abs((y_true - y_pred) / max(abs(y_true), 1e-7)), axis=-1)``.

    Parameters
    ----------
    y_true : Tensor-like
        Targets.
    y_pred : Tensor-like
        Predictions, same shape as ``y_true`` (a trailing dimension of 1 is aligned as Keras does).

    Returns
    -------
    Tensor
        One value per sample, in ``y_pred``'s dtype; differentiable with respect to ``y_pred``.
    """
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    diff = _core.abs((y_true - y_pred) / _core.maximum(_core.abs(y_true), _const(epsilon(), y_pred)))
    return _const(100.0, y_pred) * _core.reduce_mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> Tensor:
    """``mean(square(log(max(y_pred, 1e-7) + 1) - log(max(y_true, 1e-7) + 1)), axis=-1)``.

    Parameters
    ----------
    y_true : Tensor-like
        Targets.
    y_pred : Tensor-like
        Predictions, same shape as ``y_true`` (a trailing dimension of 1 is aligned as Keras does).

    Returns
    -------
    Tensor
        One value per sample, in ``y_pred``'s dtype; differentiable with respect to ``y_pred``.
    """
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    eps, one = _const(epsilon(), y_pred), _const(1.0, y_pred)
    first = _math.log(_core.maximum(y_pred, eps) + one)
    second = _math.log(_core.maximum(y_true, eps) + one)
    return _core.reduce_mean(_core.square(first - second), axis=-1)


def _l2_normalize(x: Tensor, axis: int) -> Tensor:
    """Keras' ``normalize(x, axis)``: ``x * min(rsqrt(sum(x**2, axis)), 1 / epsilon)``."""
    inv = _math.rsqrt(_core.reduce_sum(_core.square(x), axis, keepdims=True))
    out: Tensor = x * _core.minimum(inv, _const(1.0 / epsilon(), x))
    return out


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Tensor:
    """Negative cosine similarity along ``axis``: ``-sum(l2_normalize(y_true) * l2_normalize(y_pred))``.

    Parameters
    ----------
    y_true : Tensor-like
        Targets.
    y_pred : Tensor-like
        Predictions, same shape as ``y_true`` (a trailing dimension of 1 is aligned as Keras does).
    axis : int
        The axis the similarity is computed along.

    Returns
    -------
    Tensor
        One value per sample, in ``y_pred``'s dtype; differentiable with respect to ``y_pred``.
    """
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return -_core.reduce_sum(_l2_normalize(y_true, axis) * _l2_normalize(y_pred, axis), axis)


def huber(y_true: Any, y_pred: Any, delta: float = 1.0) -> Tensor:
    """Huber loss: ``0.5 * e**2`` where ``|e| <= delta``, else ``delta * |e| - 0.5 * delta**2``; mean over axis -1.

    Parameters
    ----------
    y_true : Tensor-like
        Targets.
    y_pred : Tensor-like
        Predictions, same shape as ``y_true`` (a trailing dimension of 1 is aligned as Keras does).
    delta : float
        Where the loss turns from quadratic to linear.

    Returns
    -------
    Tensor
        One value per sample, in ``y_pred``'s dtype; differentiable with respect to ``y_pred``.
    """
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    d, half = _const(delta, y_pred), _const(0.5, y_pred)
    error = y_pred - y_true
    abs_error = _core.abs(error)
    quadratic = half * _core.square(error)
    linear = d * abs_error - half * _core.square(d)
    return _core.reduce_mean(_core.where(abs_error <= d, quadratic, linear), axis=-1)


def log_cosh(y_true: Any, y_pred: Any) -> Tensor:
    """``mean(log(cosh(y_pred - y_true)), axis=-1)``, computed as ``x + softplus(-2x) - log(2)``.

    Parameters
    ----------
    y_true : Tensor-like
        Targets.
    y_pred : Tensor-like
        Predictions, same shape as ``y_true`` (a trailing dimension of 1 is aligned as Keras does).

    Returns
    -------
    Tensor
        One value per sample, in ``y_pred``'s dtype; differentiable with respect to ``y_pred``.
    """
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    x = y_pred - y_true
    return _core.reduce_mean(x + _math.softplus(x * _const(-2.0, x)) - _const(math.log(2.0), x), axis=-1)


def kl_divergence(y_true: Any, y_pred: Any) -> Tensor:
    """Kullback-Leibler divergence ``sum(y_true * log(y_true / y_pred), axis=-1)``, both clipped to ``[1e-7, 1]``.

    Parameters
    ----------
    y_true : Tensor-like
        Targets.
    y_pred : Tensor-like
        Predictions, same shape as ``y_true`` (a trailing dimension of 1 is aligned as Keras does).

    Returns
    -------
    Tensor
        One value per sample, in ``y_pred``'s dtype; differentiable with respect to ``y_pred``.
    """
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    eps, one = _const(epsilon(), y_pred), _const(1.0, y_pred)
    y_true = clip_by_value(y_true, eps, one)
    y_pred = clip_by_value(y_pred, eps, one)
    return _core.reduce_sum(y_true * _math.log(y_true / y_pred), axis=-1)


def poisson(y_true: Any, y_pred: Any) -> Tensor:
    """``mean(y_pred - y_true * log(y_pred + 1e-7), axis=-1)``.

    Parameters
    ----------
    y_true : Tensor-like
        Targets.
    y_pred : Tensor-like
        Predictions, same shape as ``y_true`` (a trailing dimension of 1 is aligned as Keras does).

    Returns
    -------
    Tensor
        One value per sample, in ``y_pred``'s dtype; differentiable with respect to ``y_pred``.
    """
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    return _core.reduce_mean(y_pred - y_true * _math.log(y_pred + _const(epsilon(), y_pred)), axis=-1)


def _hinge_labels(y_true: Tensor) -> Tensor:
    """Binary 0/1 labels become -1/1 (Keras' ``convert_binary_labels_to_hinge``); other labels are kept."""
    zero, one = _const(0.0, y_true), _const(1.0, y_true)
    binary = _core.reduce_all(_core.logical_or(_core.equal(y_true, zero), _core.equal(y_true, one)))
    if bool(binary.numpy()):
        out: Tensor = _const(2.0, y_true) * y_true - one
        return out
    return y_true


def hinge(y_true: Any, y_pred: Any) -> Tensor:
    """``mean(max(1 - y_true * y_pred, 0), axis=-1)``; 0/1 labels are first mapped to -1/1.

    Parameters
    ----------
    y_true : Tensor-like
        Targets.
    y_pred : Tensor-like
        Predictions, same shape as ``y_true`` (a trailing dimension of 1 is aligned as Keras does).

    Returns
    -------
    Tensor
        One value per sample, in ``y_pred``'s dtype; differentiable with respect to ``y_pred``.
    """
    y_pred = _tensor(y_pred)
    y_true = _hinge_labels(_tensor(y_true, y_pred.dtype))
    zero, one = _const(0.0, y_pred), _const(1.0, y_pred)
    return _core.reduce_mean(_core.maximum(one - y_true * y_pred, zero), axis=-1)


def squared_hinge(y_true: Any, y_pred: Any) -> Tensor:
    """``mean(square(max(1 - y_true * y_pred, 0)), axis=-1)``; 0/1 labels are first mapped to -1/1.

    Parameters
    ----------
    y_true : Tensor-like
        Targets.
    y_pred : Tensor-like
        Predictions, same shape as ``y_true`` (a trailing dimension of 1 is aligned as Keras does).

    Returns
    -------
    Tensor
        One value per sample, in ``y_pred``'s dtype; differentiable with respect to ``y_pred``.
    """
    y_pred = _tensor(y_pred)
    y_true = _hinge_labels(_tensor(y_true, y_pred.dtype))
    zero, one = _const(0.0, y_pred), _const(1.0, y_pred)
    return _core.reduce_mean(_core.square(_core.maximum(one - y_true * y_pred, zero)), axis=-1)


def categorical_hinge(y_true: Any, y_pred: Any) -> Tensor:
    """``max(max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1, 0)`` along the last axis (one-hot ``y_true``).

    Parameters
    ----------
    y_true : Tensor-like
        Targets.
    y_pred : Tensor-like
        Predictions, same shape as ``y_true`` (a trailing dimension of 1 is aligned as Keras does).

    Returns
    -------
    Tensor
        One value per sample, in ``y_pred``'s dtype; differentiable with respect to ``y_pred``.
    """
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    one = _const(1.0, y_pred)
    pos = _core.reduce_sum(y_true * y_pred, axis=-1)
    neg = _core.reduce_max((one - y_true) * y_pred, axis=-1)
    return _core.maximum(neg - pos + one, _const(0.0, y_pred))


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh


def _backend_binary_crossentropy(target: Tensor, output: Tensor, from_logits: bool) -> Tensor:
    _check_same_shape(target, output)
    logits = _logits_of(output, "sigmoid")
    if logits is not None:
        output, from_logits = logits, True
    if from_logits:
        return _nn.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    output = clip_by_value(output, _const(epsilon(), output), _const(1.0 - epsilon(), output))
    one = _const(1.0, output)
    bce = target * _math.log(output)
    bce = bce + (one - target) * _math.log(one - output)
    return -bce


def binary_crossentropy(
    y_true: Any, y_pred: Any, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1
) -> Tensor:
    """Binary cross-entropy, averaged over ``axis``: one value per sample.

    Parameters
    ----------
    y_true : Tensor-like
        Targets in ``[0, 1]``, same shape as ``y_pred``.
    y_pred : Tensor-like
        Probabilities (clipped to ``[1e-7, 1 - 1e-7]``), or logits with
        ``from_logits=True``.
    from_logits : bool
        Whether ``y_pred`` holds logits.
    label_smoothing : float
        In ``[0, 1]``: targets become ``y_true * (1 - s) + 0.5 * s``.
    axis : int
        The axis the mean is taken over.

    Returns
    -------
    Tensor
        ``mean(-(y log p + (1 - y) log(1 - p)), axis)``.

    Raises
    ------
    ValueError
        When ``y_true`` and ``y_pred`` differ in shape.
    """
    y_pred = _tensor(y_pred)
    _float_dtype_of(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    if label_smoothing:
        y_true = y_true * _const(1.0 - label_smoothing, y_true) + _const(0.5 * label_smoothing, y_true)
    return _core.reduce_mean(_backend_binary_crossentropy(y_true, y_pred, from_logits), axis=axis)


def _backend_categorical_crossentropy(target: Tensor, output: Tensor, from_logits: bool, axis: int) -> Tensor:
    if len(target.shape) < 1:
        raise ValueError(
            "Arguments `target` and `output` must be at least rank 1. "
            f"Received: target.shape={_shape(target)}, output.shape={_shape(output)}"
        )
    _check_same_shape(target, output)
    logits = _logits_of(output, "softmax")
    if logits is not None:
        output, from_logits = logits, True
    if from_logits:
        return _nn.softmax_cross_entropy_with_logits(labels=target, logits=output, axis=axis)
    output = output / _core.reduce_sum(output, axis, keepdims=True)
    output = clip_by_value(output, _const(epsilon(), output), _const(1.0 - epsilon(), output))
    return -_core.reduce_sum(target * _math.log(output), axis)


def categorical_crossentropy(
    y_true: Any, y_pred: Any, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1
) -> Tensor:
    """Categorical cross-entropy between one-hot (or soft) targets and predictions, along ``axis``.

    Parameters
    ----------
    y_true : Tensor-like
        Target distributions, same shape as ``y_pred``.
    y_pred : Tensor-like
        Probabilities (renormalized to sum to 1 along ``axis``, then clipped to
        ``[1e-7, 1 - 1e-7]``), or logits with ``from_logits=True``.
    from_logits : bool
        Whether ``y_pred`` holds logits.
    label_smoothing : float
        In ``[0, 1]``: targets become ``y_true * (1 - s) + s / num_classes``
        (``num_classes`` is the size of the last dimension, as in Keras).
    axis : int
        The class axis.

    Returns
    -------
    Tensor
        ``-sum(y_true * log(p), axis)``: one value per sample.

    Raises
    ------
    ValueError
        When ``axis`` is a bool, or the shapes differ or are scalar.
    """
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type {type(axis)}")
    y_pred = _tensor(y_pred)
    _float_dtype_of(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    if label_smoothing:
        num_classes = _shape(y_true)[-1]
        y_true = y_true * _const(1.0 - label_smoothing, y_true) + _const(label_smoothing / num_classes, y_true)
    return _backend_categorical_crossentropy(y_true, y_pred, from_logits, axis)


def _backend_sparse_categorical_crossentropy(target: Tensor, output: Tensor, from_logits: bool, axis: int) -> Tensor:
    if axis != -1 and axis != len(output.shape) - 1:
        raise ValueError(f"Only axis=-1 is currently supported. Received: axis={axis}")
    logits = _logits_of(output, "softmax")
    if logits is not None:
        output, from_logits = logits, True
    target = _core.cast(target, "int64")
    if len(target.shape) == len(output.shape) and _shape(target)[-1] == 1:
        target = _core.squeeze(target, axis=-1)
    if len(output.shape) < 1:
        raise ValueError(f"Argument `output` must be at least rank 1. Received: output.shape={_shape(output)}")
    if len(target.shape) != len(output.shape) - 1:
        raise ValueError(
            "Argument `output` must have rank (ndim) `target.ndim - 1`. "
            f"Received: target.shape={_shape(target)}, output.shape={_shape(output)}"
        )
    if _shape(target) != _shape(output)[:-1]:
        raise ValueError(
            "Arguments `target` and `output` must have the same shape up until the last dimension: "
            f"target.shape={_shape(target)}, output.shape={_shape(output)}"
        )
    if not from_logits:
        output = _math.log(clip_by_value(output, _const(epsilon(), output), _const(1.0 - epsilon(), output)))
    return _nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)


def sparse_categorical_crossentropy(
    y_true: Any, y_pred: Any, from_logits: bool = False, ignore_class: int | None = None, axis: int = -1
) -> Tensor:
    """Categorical cross-entropy with integer class indices as targets.

    Parameters
    ----------
    y_true : Tensor-like
        Class indices, shape ``y_pred.shape[:-1]`` (a trailing dimension of 1
        is squeezed); float labels are truncated to integers.
    y_pred : Tensor-like
        Probabilities (clipped to ``[1e-7, 1 - 1e-7]``, not renormalized), or
        logits with ``from_logits=True``.
    from_logits : bool
        Whether ``y_pred`` holds logits.
    ignore_class : int, optional
        A label whose samples get loss 0 and are left out of a ``Loss``'s mean
        (Keras masks them).
    axis : int
        The class axis; only the last one is supported (as in Keras on TensorFlow).

    Returns
    -------
    Tensor
        One value per sample, shape ``y_pred.shape[:-1]``.

    Raises
    ------
    ValueError
        For an unsupported ``axis`` or mismatched shapes.
    tapers.errors.InvalidArgumentError
        For a label outside ``[0, num_classes)``.
    """
    y_pred = _tensor(y_pred)
    _float_dtype_of(y_pred)
    y_true = _tensor(y_true)
    if len(y_true.shape) == len(y_pred.shape) and _shape(y_true)[axis] == 1:
        y_true = _core.squeeze(y_true, axis=axis)
    valid_mask = None
    if ignore_class is not None:
        rank = len(y_pred.shape)
        class_axis = axis % rank
        res_shape = [d for i, d in enumerate(_shape(y_pred)) if i != class_axis]
        valid_mask = _core.not_equal(y_true, _core.constant(ignore_class, dtype=y_true.dtype))
        y_true = _core.where(valid_mask, y_true, _core.zeros_like(y_true))
        keep = _core.expand_dims(valid_mask, axis)
        keep = _core.cast(_core.broadcast_to(_core.cast(keep, "int32"), list(_shape(y_pred))), "bool")
        y_pred = _core.where(keep, y_pred, _core.zeros_like(y_pred))
    res = _backend_sparse_categorical_crossentropy(y_true, y_pred, from_logits, axis)
    if valid_mask is not None:
        valid_mask = _core.reshape(valid_mask, res_shape)
        res = _core.where(valid_mask, res, _core.zeros_like(res))
        _set_mask(res, valid_mask)
    return res


# --------------------------------------------------------------------------- classes


class Loss:
    """Base class of losses (``keras.losses.Loss``): subclasses implement ``call(y_true, y_pred)``.

    Parameters
    ----------
    name : str, optional
        Defaults to the snake-case class name, made unique (``my_loss``, ``my_loss_1``, ...).
    reduction : str or None
        ``"sum_over_batch_size"`` (default), ``"sum"``, ``"mean"``,
        ``"mean_with_sample_weight"``, ``"none"`` or ``None``.
    dtype : dtype-like, optional
        The dtype both arguments are cast to; ``floatx()`` (float32) by default.
    """

    def __init__(self, name: str | None = None, reduction: str | None = "sum_over_batch_size", dtype: Any = None):
        self.name = name or unique_name(_to_snake_case(type(self).__name__))
        self.reduction = standardize_reduction(reduction)
        self._dtype = str(getattr(dtype, "name", dtype) or floatx())

    @property
    def dtype(self) -> str:
        """The computation dtype's name."""
        return self._dtype

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Tensor:
        """The reduced, weighted loss (differentiable with respect to ``y_pred``).

        As Keras 3's ``Loss.__call__``: a Keras mask on ``y_pred`` (from ``Embedding(mask_zero=True)``,
        ``Masking``, a masked RNN) and the per-sample losses' own mask (``ignore_class``) both weigh
        the reduction, so padded steps count for nothing.
        """
        in_mask = _get_mask(y_pred)
        y_pred = _tensor(y_pred, self.dtype)
        y_true = _tensor(y_true, self.dtype)
        losses = self.call(y_true, y_pred)
        out_mask = _get_mask(losses)
        if in_mask is not None and out_mask is not None:
            mask: Tensor | None = _core.logical_and(_core.cast(in_mask, "bool"), _core.cast(out_mask, "bool"))
        else:
            mask = in_mask if out_mask is None else out_mask
        return reduce_weighted_values(
            losses, sample_weight=sample_weight, mask=mask, reduction=self.reduction, dtype=self.dtype
        )

    def call(self, y_true: Tensor, y_pred: Tensor) -> Tensor:
        """Per-sample losses; subclasses implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement call(y_true, y_pred)")

    def get_config(self) -> dict[str, Any]:
        """Constructor arguments (``name``, ``reduction``), as Keras."""
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Loss:
        """Rebuilds a loss from :meth:`get_config`'s dict."""
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}>"


class LossFunctionWrapper(Loss):
    """A ``Loss`` around a per-sample function ``fn(y_true, y_pred, **kwargs)`` (``keras.losses.LossFunctionWrapper``).

    The two arguments' ranks are aligned (see :func:`squeeze_or_expand_to_same_rank`) before ``fn`` is called.

    Parameters
    ----------
    fn : callable
        The per-sample function ``fn(y_true, y_pred, **kwargs)``.
    reduction : str or None
        How the weighted per-sample losses are reduced (see the module notes).
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    kwargs : keyword arguments
        Passed on to ``fn``.
    """

    def __init__(
        self,
        fn: Callable[..., Tensor],
        reduction: str | None = "sum_over_batch_size",
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ):
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true: Tensor, y_pred: Tensor) -> Tensor:
        """``fn`` on the rank-aligned arguments."""
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict[str, Any]:
        """``name``, ``reduction``, the function's name and its keyword arguments."""
        config = super().get_config()
        config.update({"fn": getattr(self.fn, "__name__", repr(self.fn)), **self._fn_kwargs})
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Loss:
        """Rebuilds the wrapper; ``fn`` may be a built-in loss function's name."""
        config = dict(config)
        if isinstance(config.get("fn"), str):
            config["fn"] = _FUNCTIONS[config["fn"]]
        return cls(**config)

    def __repr__(self) -> str:
        return f"<LossFunctionWrapper({self.fn}, kwargs={self._fn_kwargs})>"


class MeanSquaredError(LossFunctionWrapper):
    """Mean of squared errors (``keras.losses.MeanSquaredError``): ``mean(square(y_true - y_pred))``.

    Parameters
    ----------
    reduction : str or None
        How the weighted per-sample losses are reduced (see the module notes).
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    def __init__(
        self, reduction: str | None = "sum_over_batch_size", name: str = "mean_squared_error", dtype: Any = None
    ):
        super().__init__(mean_squared_error, name=name, reduction=reduction, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``reduction``."""
        return Loss.get_config(self)


class MeanAbsoluteError(LossFunctionWrapper):
    """Mean of absolute errors (``keras.losses.MeanAbsoluteError``): ``mean(abs(y_true - y_pred))``.

    Parameters
    ----------
    reduction : str or None
        How the weighted per-sample losses are reduced (see the module notes).
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    def __init__(
        self, reduction: str | None = "sum_over_batch_size", name: str = "mean_absolute_error", dtype: Any = None
    ):
        super().__init__(mean_absolute_error, name=name, reduction=reduction, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``reduction``."""
        return Loss.get_config(self)


class BinaryCrossentropy(LossFunctionWrapper):
    """Binary cross-entropy (``keras.losses.BinaryCrossentropy``); see :func:`binary_crossentropy`.

    Parameters
    ----------
    from_logits : bool
        Whether ``y_pred`` holds logits rather than probabilities.
    label_smoothing : float
        Label smoothing in ``[0, 1]``.
    axis : int
        The axis the mean is taken over.
    reduction : str or None
        How the weighted per-sample losses are reduced (see the module notes).
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str | None = "sum_over_batch_size",
        name: str = "binary_crossentropy",
        dtype: Any = None,
    ):
        super().__init__(
            binary_crossentropy,
            name=name,
            reduction=reduction,
            dtype=dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis

    def get_config(self) -> dict[str, Any]:
        """``name``, ``reduction``, ``from_logits``, ``label_smoothing``, ``axis``."""
        config = Loss.get_config(self)
        config.update({"from_logits": self.from_logits, "label_smoothing": self.label_smoothing, "axis": self.axis})
        return config


class CategoricalCrossentropy(LossFunctionWrapper):
    """Categorical cross-entropy (``keras.losses.CategoricalCrossentropy``); see :func:`categorical_crossentropy`.

    Parameters
    ----------
    from_logits : bool
        Whether ``y_pred`` holds logits rather than probabilities.
    label_smoothing : float
        Label smoothing in ``[0, 1]``.
    axis : int
        The class axis.
    reduction : str or None
        How the weighted per-sample losses are reduced (see the module notes).
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str | None = "sum_over_batch_size",
        name: str = "categorical_crossentropy",
        dtype: Any = None,
    ):
        super().__init__(
            categorical_crossentropy,
            name=name,
            reduction=reduction,
            dtype=dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis

    def get_config(self) -> dict[str, Any]:
        """``name``, ``reduction``, ``from_logits``, ``label_smoothing``, ``axis``."""
        config = Loss.get_config(self)
        config.update({"from_logits": self.from_logits, "label_smoothing": self.label_smoothing, "axis": self.axis})
        return config


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy with integer targets (``keras.losses.SparseCategoricalCrossentropy``).

    See :func:`sparse_categorical_crossentropy`; with ``ignore_class``, the
    ignored samples are masked out of the mean, as Keras does.

    Parameters
    ----------
    from_logits : bool
        Whether ``y_pred`` holds logits rather than probabilities.
    ignore_class : int, optional
        A label left out of the loss (masked).
    reduction : str or None
        How the weighted per-sample losses are reduced (see the module notes).
    axis : int
        The class axis (only the last one is supported).
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    def __init__(
        self,
        from_logits: bool = False,
        ignore_class: int | None = None,
        reduction: str | None = "sum_over_batch_size",
        axis: int = -1,
        name: str = "sparse_categorical_crossentropy",
        dtype: Any = None,
    ):
        super().__init__(
            sparse_categorical_crossentropy,
            name=name,
            reduction=reduction,
            dtype=dtype,
            from_logits=from_logits,
            ignore_class=ignore_class,
            axis=axis,
        )
        self.from_logits = from_logits
        self.ignore_class = ignore_class
        self.axis = axis

    def get_config(self) -> dict[str, Any]:
        """``name``, ``reduction``, ``from_logits``, ``ignore_class``, ``axis`` (Keras forgets ``axis``)."""
        config = Loss.get_config(self)
        config.update({"from_logits": self.from_logits, "ignore_class": self.ignore_class, "axis": self.axis})
        return config


class MeanAbsolutePercentageError(LossFunctionWrapper):
    """Mean absolute percentage error (``keras.losses.MeanAbsolutePercentageError``).

    See :func:`mean_absolute_percentage_error`.

    Parameters
    ----------
    reduction : str or None
        How the weighted per-sample losses are reduced (see the module notes).
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    def __init__(
        self,
        reduction: str | None = "sum_over_batch_size",
        name: str = "mean_absolute_percentage_error",
        dtype: Any = None,
    ):
        super().__init__(mean_absolute_percentage_error, name=name, reduction=reduction, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``reduction``."""
        return Loss.get_config(self)


class MeanSquaredLogarithmicError(LossFunctionWrapper):
    """Mean squared logarithmic error (``keras.losses.MeanSquaredLogarithmicError``).

    See :func:`mean_squared_logarithmic_error`.

    Parameters
    ----------
    reduction : str or None
        How the weighted per-sample losses are reduced (see the module notes).
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    def __init__(
        self,
        reduction: str | None = "sum_over_batch_size",
        name: str = "mean_squared_logarithmic_error",
        dtype: Any = None,
    ):
        super().__init__(mean_squared_logarithmic_error, name=name, reduction=reduction, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``reduction``."""
        return Loss.get_config(self)


class LogCosh(LossFunctionWrapper):
    """Logarithm of the hyperbolic cosine of the error (``keras.losses.LogCosh``); see :func:`log_cosh`.

    Parameters
    ----------
    reduction : str or None
        How the weighted per-sample losses are reduced (see the module notes).
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    def __init__(self, reduction: str | None = "sum_over_batch_size", name: str = "log_cosh", dtype: Any = None):
        super().__init__(log_cosh, name=name, reduction=reduction, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``reduction``."""
        return Loss.get_config(self)


class KLDivergence(LossFunctionWrapper):
    """Kullback-Leibler divergence (``keras.losses.KLDivergence``); see :func:`kl_divergence`.

    Parameters
    ----------
    reduction : str or None
        How the weighted per-sample losses are reduced (see the module notes).
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    def __init__(self, reduction: str | None = "sum_over_batch_size", name: str = "kl_divergence", dtype: Any = None):
        super().__init__(kl_divergence, name=name, reduction=reduction, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``reduction``."""
        return Loss.get_config(self)


class Poisson(LossFunctionWrapper):
    """Poisson loss (``keras.losses.Poisson``); see :func:`poisson`.

    Parameters
    ----------
    reduction : str or None
        How the weighted per-sample losses are reduced (see the module notes).
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    def __init__(self, reduction: str | None = "sum_over_batch_size", name: str = "poisson", dtype: Any = None):
        super().__init__(poisson, name=name, reduction=reduction, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``reduction``."""
        return Loss.get_config(self)


class Hinge(LossFunctionWrapper):
    """Hinge loss (``keras.losses.Hinge``); see :func:`hinge`.

    Parameters
    ----------
    reduction : str or None
        How the weighted per-sample losses are reduced (see the module notes).
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    def __init__(self, reduction: str | None = "sum_over_batch_size", name: str = "hinge", dtype: Any = None):
        super().__init__(hinge, name=name, reduction=reduction, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``reduction``."""
        return Loss.get_config(self)


class SquaredHinge(LossFunctionWrapper):
    """Squared hinge loss (``keras.losses.SquaredHinge``); see :func:`squared_hinge`.

    Parameters
    ----------
    reduction : str or None
        How the weighted per-sample losses are reduced (see the module notes).
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    def __init__(self, reduction: str | None = "sum_over_batch_size", name: str = "squared_hinge", dtype: Any = None):
        super().__init__(squared_hinge, name=name, reduction=reduction, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``reduction``."""
        return Loss.get_config(self)


class CategoricalHinge(LossFunctionWrapper):
    """Categorical hinge loss (``keras.losses.CategoricalHinge``); see :func:`categorical_hinge`.

    Parameters
    ----------
    reduction : str or None
        How the weighted per-sample losses are reduced (see the module notes).
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    def __init__(
        self, reduction: str | None = "sum_over_batch_size", name: str = "categorical_hinge", dtype: Any = None
    ):
        super().__init__(categorical_hinge, name=name, reduction=reduction, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``reduction``."""
        return Loss.get_config(self)


class CosineSimilarity(LossFunctionWrapper):
    """Negative cosine similarity (``keras.losses.CosineSimilarity``); see :func:`cosine_similarity`.

    Parameters
    ----------
    axis : int
        The axis the similarity is computed along.
    reduction : str or None
        How the weighted per-sample losses are reduced (see the module notes).
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    def __init__(
        self, axis: int = -1, reduction: str | None = "sum_over_batch_size", name: str = "cosine_similarity",
        dtype: Any = None,
    ):  # fmt: skip
        super().__init__(cosine_similarity, name=name, reduction=reduction, dtype=dtype, axis=axis)
        self.axis = axis

    def get_config(self) -> dict[str, Any]:
        """``name``, ``reduction`` and ``axis`` (Keras forgets ``axis``, so its configs do not round-trip)."""
        return {**Loss.get_config(self), "axis": self.axis}


class Huber(LossFunctionWrapper):
    """Huber loss (``keras.losses.Huber``); see :func:`huber`.

    Parameters
    ----------
    delta : float
        Where the loss turns from quadratic to linear.
    reduction : str or None
        How the weighted per-sample losses are reduced (see the module notes).
    name : str
        The object's name (Keras' default is ``"huber_loss"``).
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    def __init__(
        self, delta: float = 1.0, reduction: str | None = "sum_over_batch_size", name: str = "huber_loss",
        dtype: Any = None,
    ):  # fmt: skip
        super().__init__(huber, name=name, reduction=reduction, dtype=dtype, delta=delta)
        self.delta = delta

    def get_config(self) -> dict[str, Any]:
        """``name``, ``reduction`` and ``delta`` (Keras forgets ``delta``, so its configs do not round-trip)."""
        return {**Loss.get_config(self), "delta": self.delta}


# --------------------------------------------------------------------------- lookup

from ._losses_extra import (  # noqa: E402 - they build on the classes above
    CTC,
    BinaryFocalCrossentropy,
    CategoricalFocalCrossentropy,
    CategoricalGeneralizedCrossEntropy,
    Circle,
    Dice,
    Tversky,
    binary_focal_crossentropy,
    categorical_focal_crossentropy,
    categorical_generalized_cross_entropy,
    circle,
    ctc,
    dice,
    tversky,
)

_CLASSES: dict[str, type] = {
    c.__name__: c
    for c in (
        Loss, LossFunctionWrapper, MeanSquaredError, MeanAbsoluteError, BinaryCrossentropy, CategoricalCrossentropy,
        SparseCategoricalCrossentropy, MeanAbsolutePercentageError, MeanSquaredLogarithmicError, CosineSimilarity,
        Huber, LogCosh, KLDivergence, Poisson, Hinge, SquaredHinge, CategoricalHinge, BinaryFocalCrossentropy,
        CategoricalFocalCrossentropy, CategoricalGeneralizedCrossEntropy, Circle, CTC, Dice, Tversky,
    )
}  # fmt: skip
_FUNCTIONS: dict[str, Callable[..., Tensor]] = {
    f.__name__: f
    for f in (
        mean_squared_error, mean_absolute_error, binary_crossentropy, categorical_crossentropy,
        sparse_categorical_crossentropy, mean_absolute_percentage_error, mean_squared_logarithmic_error,
        cosine_similarity, huber, log_cosh, kl_divergence, poisson, hinge, squared_hinge, categorical_hinge,
        binary_focal_crossentropy, categorical_focal_crossentropy, categorical_generalized_cross_entropy, circle, ctc,
        dice, tversky,
    )
}  # fmt: skip
_BY_NAME: dict[str, Any] = {**_CLASSES, **_FUNCTIONS}
_BY_NAME.update(
    {
        "bce": binary_crossentropy,
        "BCE": binary_crossentropy,
        "mae": mean_absolute_error,
        "MAE": mean_absolute_error,
        "mse": mean_squared_error,
        "MSE": mean_squared_error,
        "kld": kl_divergence,
        "KLD": kl_divergence,
        "mape": mean_absolute_percentage_error,
        "MAPE": mean_absolute_percentage_error,
        "msle": mean_squared_logarithmic_error,
        "MSLE": mean_squared_logarithmic_error,
    }
)


def serialize(loss: Any) -> Any:
    """A built-in loss function's name, or ``{"class_name", "config"}`` for a ``Loss`` object.

    Parameters
    ----------
    loss : Loss or callable
        The loss to serialize.

    Returns
    -------
    str or dict
        The function's name, or ``{"class_name": ..., "config": ...}``.
    """
    if isinstance(loss, Loss):
        return to_config(loss)
    name = getattr(loss, "__name__", None)
    if name in _FUNCTIONS and _FUNCTIONS[name] is loss:
        return name
    raise ValueError(f"Cannot serialize loss {loss!r}: not a Loss object nor a built-in loss function")


def deserialize(name: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """Inverse of :func:`serialize` (``custom_objects`` may add names).

    Parameters
    ----------
    name : str or dict
        A built-in loss function's name, or a serialized ``Loss``.
    custom_objects : dict, optional
        Extra names to resolve.

    Returns
    -------
    Loss or callable
        The loss object or function.
    """
    return from_table(name, _BY_NAME, custom_objects, "loss", Loss)


def get(identifier: Any) -> Any:
    """Resolves a loss the way ``compile(loss=...)`` does (``keras.losses.get``).

    A function name (``"mse"``, ``"sparse_categorical_crossentropy"``) gives
    the function; a class name (``"MeanSquaredError"``) or a class gives a new
    instance; a serialized dict is deserialized; a callable is returned as is;
    None gives None.

    Parameters
    ----------
    identifier : None, str, dict, Loss class or callable
        What to resolve.

    Returns
    -------
    Loss, callable or None
        The loss object or function.

    Raises
    ------
    ValueError
        For an unknown name or a non-callable object.
    """
    if identifier is None:
        return None
    return resolve(identifier, _BY_NAME, "loss", deserialize)
