"""Keras 3's focal, overlap and metric-learning losses: ``BinaryFocalCrossentropy``,
``CategoricalFocalCrossentropy``, ``Dice``, ``Tversky``, ``Circle``, ``CategoricalGeneralizedCrossEntropy``
and ``CTC``, with their functions (imported at the end of ``losses.py``, whose tables list them).

Each per-sample formula is Keras 3's (TensorFlow backend), written with tapers ops so gradients flow
and a compiled step replays it; probabilities are clipped to ``[epsilon, 1 - epsilon]`` with
``keras.config.epsilon()`` read at each call.
"""

from __future__ import annotations

import warnings
from typing import Any

from .. import _core
from .. import math as _math
from .._core import Tensor
from .._ops import clip_by_value
from . import activations
from .backend import epsilon
from .losses import Loss, LossFunctionWrapper, _backend_binary_crossentropy, _const, _set_mask, _tensor

__all__ = [
    "CTC", "BinaryFocalCrossentropy", "CategoricalFocalCrossentropy", "CategoricalGeneralizedCrossEntropy", "Circle",
    "Dice", "Tversky", "binary_focal_crossentropy", "categorical_focal_crossentropy",
    "categorical_generalized_cross_entropy", "circle", "ctc", "dice", "tversky",
]  # fmt: skip


def binary_focal_crossentropy(
    y_true: Any,
    y_pred: Any,
    apply_class_balancing: bool = False,
    alpha: float = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Tensor:
    """Binary cross-entropy scaled by ``(1 - p_t) ** gamma`` (Lin et al.), averaged over ``axis``.

    Parameters
    ----------
    y_true : Tensor-like
        Targets in ``[0, 1]``, ``y_pred``'s shape.
    y_pred : Tensor-like
        Probabilities, or logits with ``from_logits=True``.
    apply_class_balancing : bool
        Whether positives weigh ``alpha`` and negatives ``1 - alpha``.
    alpha : float
        The positives' weight when balancing.
    gamma : float
        The focusing exponent (0 gives binary cross-entropy).
    from_logits : bool
        Whether ``y_pred`` holds logits.
    label_smoothing : float
        Targets become ``y_true * (1 - s) + 0.5 * s``.
    axis : int
        The axis the mean is taken over.

    Returns
    -------
    Tensor
        One value per sample.
    """
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    if label_smoothing:
        y_true = y_true * _const(1.0 - label_smoothing, y_true) + _const(0.5 * label_smoothing, y_true)
    if from_logits:
        y_pred = activations.sigmoid(y_pred)
    bce = _backend_binary_crossentropy(y_true, y_pred, False)
    one = _const(1.0, y_pred)
    p_t = y_true * y_pred + (one - y_true) * (one - y_pred)
    focal = _core.pow(one - p_t, _const(gamma, y_pred)) * bce
    if apply_class_balancing:
        focal = (y_true * _const(alpha, y_pred) + (one - y_true) * _const(1.0 - alpha, y_pred)) * focal
    return _core.reduce_mean(focal, axis=axis)


def categorical_focal_crossentropy(
    y_true: Any,
    y_pred: Any,
    alpha: float = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Tensor:
    """Categorical cross-entropy scaled by ``alpha * (1 - p) ** gamma`` per class, summed over ``axis``.

    Parameters
    ----------
    y_true : Tensor-like
        One-hot (or soft) targets, ``y_pred``'s shape.
    y_pred : Tensor-like
        Probabilities (renormalized to sum to 1, then clipped), or logits with ``from_logits=True``.
    alpha : float
        The weighting factor.
    gamma : float
        The focusing exponent.
    from_logits : bool
        Whether ``y_pred`` holds logits.
    label_smoothing : float
        Targets become ``y_true * (1 - s) + s / num_classes``.
    axis : int
        The class axis.

    Returns
    -------
    Tensor
        One value per sample.
    """
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type {type(axis)}")
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    if y_pred.shape[-1] == 1:
        warnings.warn(
            "In loss categorical_focal_crossentropy, expected y_pred.shape to be (batch_size, num_classes) with "
            f"num_classes > 1. Received: y_pred.shape={tuple(y_pred.shape)}. Consider using 'binary_crossentropy' if "
            "you only have 2 classes.",
            SyntaxWarning,
            stacklevel=2,
        )
    if label_smoothing:
        n = float(y_true.shape[-1])
        y_true = y_true * _const(1.0 - label_smoothing, y_true) + _const(label_smoothing / n, y_true)
    if from_logits:
        y_pred = _core.nn.softmax(y_pred, axis=axis)
    output = y_pred / _core.reduce_sum(y_pred, axis=axis, keepdims=True)
    output = clip_by_value(output, _const(epsilon(), output), _const(1.0 - epsilon(), output))
    cce = -y_true * _math.log(output)
    factor = _core.pow(_const(1.0, output) - output, _const(gamma, output)) * _const(alpha, output)
    return _core.reduce_sum(factor * cce, axis=axis)


def dice(y_true: Any, y_pred: Any, axis: Any = None) -> Tensor:
    """``1 - 2 * sum(y_true * y_pred) / (sum(y_true) + sum(y_pred) + epsilon)`` over ``axis``.

    Parameters
    ----------
    y_true, y_pred : Tensor-like
        Targets and predictions (same shape).
    axis : int, tuple or None
        The axes reduced (None: all, one value for the batch).

    Returns
    -------
    Tensor
    """
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    inter = _core.reduce_sum(y_true * y_pred, axis=axis)
    denom = _core.reduce_sum(y_true, axis=axis) + _core.reduce_sum(y_pred, axis=axis) + _const(epsilon(), y_pred)
    return _const(1.0, y_pred) - (_const(2.0, y_pred) * inter) / denom


def tversky(y_true: Any, y_pred: Any, alpha: float = 0.5, beta: float = 0.5, axis: Any = None) -> Tensor:
    """``1 - TP / (TP + alpha * FP + beta * FN + epsilon)`` over ``axis`` (Dice when ``alpha = beta = 0.5``).

    Parameters
    ----------
    y_true, y_pred : Tensor-like
        Targets and predictions (same shape).
    alpha, beta : float
        The false positives' and false negatives' weights.
    axis : int, tuple or None
        The axes reduced.

    Returns
    -------
    Tensor
    """
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    one = _const(1.0, y_pred)
    tp = _core.reduce_sum(y_true * y_pred, axis=axis)
    fp = _core.reduce_sum((one - y_pred) * y_true, axis=axis)
    fn = _core.reduce_sum(y_pred * (one - y_true), axis=axis)
    return one - tp / (tp + fp * _const(alpha, y_pred) + fn * _const(beta, y_pred) + _const(epsilon(), y_pred))


def categorical_generalized_cross_entropy(y_true: Any, y_pred: Any, q: float) -> Tensor:
    """``(1 - p ** q) / q`` with ``p`` the probability of the true class (integer labels).

    Parameters
    ----------
    y_true : Tensor-like
        Integer class ids, shape ``y_pred.shape[:-1]``.
    y_pred : Tensor-like
        Probabilities.
    q : float
        In ``(0, 1)``: near 0 it approaches cross-entropy, at 1 the mean absolute error.

    Returns
    -------
    Tensor
    """
    y_pred = _tensor(y_pred)
    labels = _core.cast(_tensor(y_true), "int64")
    onehot = _core.one_hot(labels, int(y_pred.shape[-1]), dtype=y_pred.dtype)
    p = _core.reduce_sum(y_pred * onehot, axis=-1)
    return (_const(1.0, y_pred) - _core.pow(p, _const(q, y_pred))) / _const(q, y_pred)


def circle(
    y_true: Any,
    y_pred: Any,
    ref_labels: Any = None,
    ref_embeddings: Any = None,
    remove_diagonal: bool = True,
    gamma: float = 80,
    margin: float = 0.4,
) -> Tensor:
    """Circle loss (Sun et al.) of L2-normalized embeddings against reference embeddings.

    Parameters
    ----------
    y_true : Tensor-like
        Integer labels, shape ``(batch,)``.
    y_pred : Tensor-like
        Embeddings ``(batch, dim)``, expected L2-normalized.
    ref_labels, ref_embeddings : Tensor-like, optional
        The references (default: the batch itself).
    remove_diagonal : bool
        Whether an embedding is not its own positive.
    gamma : float
        The scale.
    margin : float
        The relaxation margin.

    Returns
    -------
    Tensor
        One value per sample; samples whose loss is 0 are masked out of the mean, as in Keras.
    """
    y_pred = _tensor(y_pred)
    labels = _core.cast(_tensor(y_true), "int32")
    ref_e = y_pred if ref_embeddings is None else _tensor(ref_embeddings)
    ref_l = labels if ref_labels is None else _core.cast(_tensor(ref_labels), "int32")
    dists = _const(1.0, y_pred) - _core.matmul(y_pred, ref_e, transpose_b=True)
    dists = _core.maximum(dists, _const(0.0, dists))
    q = _core.reshape(labels, [-1, 1])
    k = _core.reshape(ref_l, [-1, 1])
    pos = _core.equal(q, _core.transpose(k))
    neg = _core.logical_not(pos)
    if remove_diagonal:
        eye = _core.cast(_core.eye(int(q.shape[0]), int(k.shape[0])), "bool")
        pos = _core.logical_and(pos, _core.logical_not(eye))
    pos_f, neg_f = _core.cast(pos, dists.dtype), _core.cast(neg, dists.dtype)
    zero = _const(0.0, dists)
    pos_w = _core.maximum((_const(margin, dists) + dists) * pos_f, zero)
    neg_w = _core.maximum((_const(1.0 + margin, dists) - dists) * neg_f, zero)
    pos_wd = _const(-gamma, dists) * pos_w * (_const(margin, dists) - dists)
    neg_wd = _const(gamma, dists) * neg_w * (_const(1.0 - margin, dists) - dists)
    ninf = _core.fill(dists.shape, _const(float("-inf"), dists))
    p_loss = _core.reduce_logsumexp(_core.where(pos, pos_wd, ninf), axis=1)
    n_loss = _core.reduce_logsumexp(_core.where(neg, neg_wd, ninf), axis=1)
    out = _core.nn.softplus(p_loss + n_loss)
    _set_mask(out, _core.greater(out, _const(0.0, out)))
    return out


def ctc(y_true: Any, y_pred: Any) -> Tensor:
    """Connectionist temporal classification loss (Keras' ``ctc``): ``tf.nn.ctc_loss`` with blank 0.

    Parameters
    ----------
    y_true : Tensor-like
        Integer labels ``(batch, max_label_length)``, padded with 0 (the blank); each row's length is its
        count of non-zero labels.
    y_pred : Tensor-like
        Logits ``(batch, time, num_classes)``; every sequence uses all ``time`` steps.

    Returns
    -------
    Tensor
        The negative log-likelihood of each sample.
    """
    from .. import nn

    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true)
    if len(y_true.shape) != 2:
        raise ValueError(
            "Targets `y_true` are expected to be a tensor of shape `(batch_size, max_length)` in integer format. "
            f"Received: y_true.shape={tuple(y_true.shape)}"
        )
    if len(y_pred.shape) != 3:
        raise ValueError(
            "Logits `y_pred` are expected to be a tensor of shape `(batch_size, max_length, num_classes)`. "
            f"Received: y_pred.shape={tuple(y_pred.shape)}"
        )
    labels = _core.cast(y_true, "int32")
    batch, time = int(y_pred.shape[0]), int(y_pred.shape[1])
    label_length = _core.cast(_core.reduce_sum(_core.cast(_core.not_equal(labels, 0), "int32"), axis=-1), "int32")
    logit_length = _core.fill([batch], _core.constant(time, dtype="int32"))
    return nn.ctc_loss(labels, y_pred, label_length, logit_length, logits_time_major=False, blank_index=0)


class BinaryFocalCrossentropy(LossFunctionWrapper):
    """Binary focal cross-entropy (``keras.losses.BinaryFocalCrossentropy``); see :func:`binary_focal_crossentropy`.

    Parameters
    ----------
    apply_class_balancing : bool
        Whether positives weigh ``alpha`` and negatives ``1 - alpha``.
    alpha : float
        The positives' weight when balancing.
    gamma : float
        The focusing exponent.
    from_logits : bool
        Whether ``y_pred`` holds logits.
    label_smoothing : float
        Label smoothing in ``[0, 1]``.
    axis : int
        The axis the mean is taken over.
    reduction : str or None
        How the weighted per-sample losses are reduced.
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype.
    """

    def __init__(
        self,
        apply_class_balancing: bool = False,
        alpha: float = 0.25,
        gamma: float = 2.0,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str | None = "sum_over_batch_size",
        name: str = "binary_focal_crossentropy",
        dtype: Any = None,
    ):
        super().__init__(
            binary_focal_crossentropy, name=name, reduction=reduction, dtype=dtype,
            apply_class_balancing=apply_class_balancing, alpha=alpha, gamma=gamma, from_logits=from_logits,
            label_smoothing=label_smoothing, axis=axis,
        )  # fmt: skip
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis
        self.apply_class_balancing = apply_class_balancing
        self.alpha = alpha
        self.gamma = gamma

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {
            **Loss.get_config(self), "from_logits": self.from_logits, "label_smoothing": self.label_smoothing,
            "axis": self.axis, "apply_class_balancing": self.apply_class_balancing, "alpha": self.alpha,
            "gamma": self.gamma,
        }  # fmt: skip


class CategoricalFocalCrossentropy(LossFunctionWrapper):
    """Categorical focal cross-entropy (``keras.losses.CategoricalFocalCrossentropy``).

    Parameters
    ----------
    alpha : float
        The weighting factor.
    gamma : float
        The focusing exponent.
    from_logits : bool
        Whether ``y_pred`` holds logits.
    label_smoothing : float
        Label smoothing in ``[0, 1]``.
    axis : int
        The class axis.
    reduction : str or None
        How the weighted per-sample losses are reduced.
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype.
    """

    def __init__(
        self,
        alpha: float = 0.25,
        gamma: float = 2.0,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str | None = "sum_over_batch_size",
        name: str = "categorical_focal_crossentropy",
        dtype: Any = None,
    ):
        super().__init__(
            categorical_focal_crossentropy, name=name, reduction=reduction, dtype=dtype, alpha=alpha, gamma=gamma,
            from_logits=from_logits, label_smoothing=label_smoothing, axis=axis,
        )  # fmt: skip
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis
        self.alpha = alpha
        self.gamma = gamma

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {
            **Loss.get_config(self), "from_logits": self.from_logits, "label_smoothing": self.label_smoothing,
            "axis": self.axis, "alpha": self.alpha, "gamma": self.gamma,
        }  # fmt: skip


class Dice(LossFunctionWrapper):
    """Dice loss (``keras.losses.Dice``); see :func:`dice`.

    Parameters
    ----------
    reduction : str or None
        How the weighted per-sample losses are reduced.
    name : str
        The object's name.
    axis : int, tuple or None
        The axes each value is computed over (None: all).
    dtype : dtype-like, optional
        Computation dtype.
    """

    def __init__(
        self, reduction: str | None = "sum_over_batch_size", name: str = "dice", axis: Any = None, dtype: Any = None
    ):
        super().__init__(dice, name=name, reduction=reduction, dtype=dtype, axis=axis)
        self.axis = axis

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**Loss.get_config(self), "axis": self.axis}


class Tversky(LossFunctionWrapper):
    """Tversky loss (``keras.losses.Tversky``); see :func:`tversky`.

    Parameters
    ----------
    alpha, beta : float
        The false positives' and false negatives' weights.
    reduction : str or None
        How the weighted per-sample losses are reduced.
    name : str
        The object's name.
    axis : int, tuple or None
        The axes each value is computed over.
    dtype : dtype-like, optional
        Computation dtype.
    """

    def __init__(
        self,
        alpha: float = 0.5,
        beta: float = 0.5,
        reduction: str | None = "sum_over_batch_size",
        name: str = "tversky",
        axis: Any = None,
        dtype: Any = None,
    ):
        super().__init__(tversky, name=name, reduction=reduction, dtype=dtype, alpha=alpha, beta=beta, axis=axis)
        self.alpha = alpha
        self.beta = beta
        self.axis = axis

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**Loss.get_config(self), "alpha": self.alpha, "beta": self.beta, "axis": self.axis}


class Circle(LossFunctionWrapper):
    """Circle loss (``keras.losses.Circle``); see :func:`circle`.

    Parameters
    ----------
    gamma : float
        The scale.
    margin : float
        The relaxation margin.
    remove_diagonal : bool
        Whether an embedding is not its own positive.
    reduction : str or None
        How the weighted per-sample losses are reduced (zero losses are masked out).
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype.
    """

    def __init__(
        self,
        gamma: float = 80.0,
        margin: float = 0.4,
        remove_diagonal: bool = True,
        reduction: str | None = "sum_over_batch_size",
        name: str = "circle",
        dtype: Any = None,
    ):
        super().__init__(
            circle, name=name, reduction=reduction, dtype=dtype, gamma=gamma, margin=margin,
            remove_diagonal=remove_diagonal,
        )  # fmt: skip
        self.gamma = gamma
        self.margin = margin
        self.remove_diagonal = remove_diagonal

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {
            **Loss.get_config(self), "gamma": self.gamma, "margin": self.margin,
            "remove_diagonal": self.remove_diagonal,
        }  # fmt: skip


class CategoricalGeneralizedCrossEntropy(LossFunctionWrapper):
    """Generalized cross-entropy for noisy labels (``keras.losses.CategoricalGeneralizedCrossEntropy``).

    Parameters
    ----------
    q : float
        In ``(0, 1)``.
    reduction : str or None
        How the weighted per-sample losses are reduced.
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype.
    """

    def __init__(
        self,
        q: float = 0.5,
        reduction: str | None = "sum_over_batch_size",
        name: str = "categorical_generalized_cross_entropy",
        dtype: Any = None,
    ):
        if not 0 < q < 1:
            raise ValueError("q must be in the interval (0, 1)")
        super().__init__(categorical_generalized_cross_entropy, name=name, reduction=reduction, dtype=dtype, q=q)
        self.q = q

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**Loss.get_config(self), "q": self.q}


class CTC(LossFunctionWrapper):
    """CTC loss (``keras.losses.CTC``); see :func:`ctc`.

    Parameters
    ----------
    reduction : str or None
        How the per-sample losses are reduced.
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype.
    """

    def __init__(self, reduction: str | None = "sum_over_batch_size", name: str = "ctc", dtype: Any = None):
        super().__init__(ctc, name=name, reduction=reduction, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``reduction``."""
        return Loss.get_config(self)
