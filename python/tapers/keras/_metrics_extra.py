"""Keras 3's curve, F-score, R², IoU and correlation metrics (``AUC``,
``PrecisionAtRecall``, ``RecallAtPrecision``, ``SensitivityAtSpecificity``,
``SpecificityAtSensitivity``, ``FBetaScore``, ``F1Score``, ``R2Score``, ``IoU``,
``MeanIoU``, ``BinaryIoU``, ``OneHotIoU``, ``OneHotMeanIoU``, ``PearsonCorrelation``,
``ConcordanceCorrelation``), re-exported by ``tapers.keras.metrics``.

The state updates follow Keras 3 step by step (``metrics_utils.update_confusion_matrix_variables``
with its bucketed path for evenly spaced thresholds, the IoU confusion matrix, the F-score and R²
accumulators) and use tapers ops only, so the metrics also run inside ``tapers.function``.
Numpy is used on thresholds and configuration only.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import _core
from .._core import Tensor, Variable
from . import backend
from . import losses as _losses
from .backend import floatx
from .metrics import MeanMetricWrapper, Metric  # (imported at the end of metrics.py)


def epsilon() -> float:
    """Keras' fuzz factor (``keras.config.epsilon()``), read at each call."""
    return backend.epsilon()


_CURVES = {"pr": "PR", "PR": "PR", "roc": "ROC", "ROC": "ROC", "prgain": "PRGAIN", "PRGAIN": "PRGAIN"}
_SUMMATIONS = {
    "interpolation": "interpolation", "Interpolation": "interpolation",
    "majoring": "majoring", "Majoring": "majoring",
    "minoring": "minoring", "Minoring": "minoring",
}  # fmt: skip


def _as(x: Any, dtype: Any) -> Tensor:
    """``x`` as a tensor of ``dtype``: tensors are cast; Python and numpy values are converted at that
    dtype directly (so a list of Python floats keeps float64 precision, as ``ops.convert_to_tensor`` does)."""
    dtype = str(getattr(dtype, "name", dtype))
    if isinstance(x, Tensor) and x.dtype.name == dtype:
        return x
    if isinstance(x, (Tensor, Variable)):
        return _core.cast(x, dtype)
    return _core.convert_to_tensor(np.asarray(x, dtype=np.dtype(dtype)))


def _accumulate(var: Variable, delta: Tensor) -> None:
    # ``var.assign(var + delta)`` with Keras' promotion: a float32 state plus a float64 batch sum is added in
    # float64, then stored back as float32.
    if delta.dtype == var.dtype:
        var.assign(var + delta)
    else:
        var.assign(_core.cast(_core.cast(var, delta.dtype) + delta, var.dtype))


def _value(x: Any) -> str:
    # Keras also accepts its enums (``metrics_utils.AUCCurve.PR``); their ``.value`` is the string.
    return str(getattr(x, "value", x))


def _evenly_distributed(thresholds: list[float]) -> bool:
    """Keras' ``is_evenly_distributed_thresholds`` (on Python floats: configuration, not tensor values)."""
    n = len(thresholds)
    if n < 3:
        return False
    even = np.arange(n, dtype=np.float32) / (n - 1)
    return bool(np.allclose(thresholds, even, atol=epsilon()))


def _reverse_cumsum(x: Tensor, axis: int) -> Tensor:
    return _core.cumsum(x, axis=axis, reverse=True)


def update_curve_counts(
    counts: dict[str, Any],
    y_true: Any,
    y_pred: Any,
    thresholds: list[float],
    thresholds_distributed_evenly: bool = False,
    class_id: int | None = None,
    sample_weight: Any = None,
    multi_label: bool = False,
    label_weights: Any = None,
) -> None:
    """Adds a batch's weighted confusion counts per threshold to ``counts`` (keys ``tp``, ``fp``, ``tn``, ``fn``).

    Keras' ``update_confusion_matrix_variables`` with ``multi_label`` (the counts keep a label axis,
    shape ``(thresholds, labels)``), ``label_weights`` and the bucketed update Keras uses for evenly
    spaced thresholds (each prediction, clipped to [0, 1], lands in bucket ``ceil(p * (n - 1)) - 1``;
    the counts are reversed cumulative sums of the buckets). Other thresholds compare every
    prediction with every threshold (positive when strictly above).
    """
    dtype = next(iter(counts.values())).dtype
    y_true = _as(y_true, dtype)
    y_pred = _as(y_pred, dtype)
    y_pred, y_true = _losses.squeeze_or_expand_to_same_rank(y_pred, y_true)
    if sample_weight is not None:
        sample_weight = _core.expand_dims(_as(sample_weight, dtype), -1)
        _, sample_weight = _losses.squeeze_or_expand_to_same_rank(y_true, sample_weight, expand_rank_1=False)
    if class_id is not None:
        if len(y_pred.shape) == 1:
            raise ValueError(
                "When class_id is provided, y_pred must be a 2D array with shape (num_samples, num_classes), "
                f"found shape: {tuple(y_pred.shape)}"
            )
        y_true = y_true[..., class_id : class_id + 1]
        y_pred = y_pred[..., class_id : class_id + 1]
    pred_shape = _core.shape(y_pred)
    if sample_weight is not None:
        sample_weight = _core.broadcast_to(sample_weight, pred_shape)
    if label_weights is not None:
        label_weights = _core.broadcast_to(_core.expand_dims(_as(label_weights, dtype), 0), pred_shape)
    if thresholds_distributed_evenly:
        _bucketed_update(counts, y_true, y_pred, thresholds, multi_label, sample_weight, label_weights)
        return
    weights = sample_weight
    if label_weights is not None and not multi_label:
        weights = label_weights if weights is None else weights * label_weights
    thr = _core.constant(thresholds, dtype=dtype)
    labels = _core.cast(y_true, "bool")
    if multi_label:
        thr = _core.reshape(thr, [-1, 1, 1])
        preds, labels = _core.expand_dims(y_pred, 0), _core.expand_dims(labels, 0)
        weights = None if weights is None else _core.expand_dims(weights, 0)
    else:
        thr = _core.reshape(thr, [-1, 1])
        preds, labels = _core.reshape(y_pred, [1, -1]), _core.reshape(labels, [1, -1])
        weights = None if weights is None else _core.reshape(weights, [1, -1])
    pred_pos = _core.greater(preds, thr)  # (thresholds, elements) or (thresholds, samples, labels)
    labels = _core.broadcast_to(labels, _core.shape(pred_pos))
    cases = {
        "tp": (labels, pred_pos),
        "fn": (labels, _core.logical_not(pred_pos)),
        "fp": (_core.logical_not(labels), pred_pos),
        "tn": (_core.logical_not(labels), _core.logical_not(pred_pos)),
    }
    for key, var in counts.items():
        label, pred = cases[key]
        both = _core.logical_and(label, pred)
        if weights is not None:
            w = _core.broadcast_to(weights, _core.shape(both))
            added = _core.where(both, w, _core.zeros_like(w))
        else:
            added = _core.cast(both, dtype)
        var.assign(var + _core.reduce_sum(added, axis=1))


def _bucketed_update(
    counts: dict[str, Any],
    y_true: Tensor,
    y_pred: Tensor,
    thresholds: list[float],
    multi_label: bool,
    sample_weight: Tensor | None,
    label_weights: Tensor | None,
) -> None:
    # Keras' ``_update_confusion_matrix_variables_optimized``.
    n = len(thresholds)
    with_epsilon = thresholds[0] < 0.0 or thresholds[-1] > 1.0
    dtype = y_pred.dtype
    weights: Any = _core.constant(1.0, dtype=dtype)
    if sample_weight is not None:
        weights = weights * sample_weight
    if label_weights is not None:
        weights = weights * label_weights
    y_pred = _core.minimum(_core.maximum(y_pred, _core.constant(0.0, dtype)), _core.constant(1.0, dtype))
    y_true = _core.cast(_core.cast(y_true, "bool"), dtype)
    if not multi_label:
        y_true = _core.reshape(y_true, [-1])
        y_pred = _core.reshape(y_pred, [-1])
        if sample_weight is not None or label_weights is not None:
            weights = _core.reshape(weights, [-1])
    true_labels = y_true * weights
    false_labels = (1.0 - y_true) * weights
    buckets = _core.math.ceil(y_pred * float(n - 1)) - 1.0
    if with_epsilon:
        buckets = _core.maximum(buckets, _core.constant(0.0, dtype))
    buckets = _core.cast(buckets, "int32")
    if multi_label:
        num_labels = int(y_pred.shape[-1])
        # One segment sum for all labels: label l's buckets are segments l*n .. l*n+n-1.
        offsets = _core.reshape(_core.range(num_labels) * n, [1, -1])
        ids = _core.reshape(_core.where(buckets >= 0, buckets + offsets, -_core.ones_like(buckets)), [-1])

        def per_label(values: Tensor) -> Tensor:
            summed = _core.math.unsorted_segment_sum(_core.reshape(values, [-1]), ids, n * num_labels)
            return _core.transpose(_reverse_cumsum(_core.reshape(summed, [num_labels, n]), 1))

        tp, fp = per_label(true_labels), per_label(false_labels)
        total_true = _core.reduce_sum(true_labels, axis=0)
        total_false = _core.reduce_sum(false_labels, axis=0)
    else:
        tp = _reverse_cumsum(_core.math.unsorted_segment_sum(true_labels, buckets, n), 0)
        fp = _reverse_cumsum(_core.math.unsorted_segment_sum(false_labels, buckets, n), 0)
        total_true = _core.reduce_sum(true_labels)
        total_false = _core.reduce_sum(false_labels)
    added = {"tp": tp, "fp": fp, "tn": total_false - fp, "fn": total_true - tp}
    for key, var in counts.items():
        var.assign(var + added[key])


# --------------------------------------------------------------------------- AUC


class AUC(Metric):
    """Area under the ROC or precision-recall curve (``keras.metrics.AUC``).

    Confusion counts are accumulated at ``num_thresholds`` thresholds (Riemann sum of the curve
    through those points), so the value approximates the exact AUC; Keras' numbers are reproduced.

    Parameters
    ----------
    num_thresholds : int, default 200
        Number of thresholds (evenly spaced in [0, 1], with endpoints just outside it); must be > 1.
    curve : {"ROC", "PR", "PRGAIN"}, default "ROC"
        Which curve to integrate.
    summation_method : {"interpolation", "minoring", "majoring"}, default "interpolation"
        Mid-point sums (for PR, Davis & Goadrich's interpolation), lower or upper sums.
    name : str, optional
        The metric's name.
    dtype : dtype-like, optional
        The state's dtype (float32 by default).
    thresholds : list of float, optional
        Thresholds in [0, 1] to use instead of ``num_thresholds`` evenly spaced ones.
    multi_label : bool, default False
        Keep one curve per label (column of 2-D data) and average the AUCs; otherwise every
        element counts as one binary prediction.
    num_labels : int, optional
        With ``multi_label``, the number of labels (else taken from the first batch).
    label_weights : list of float, optional
        Per-label weights: of each label's AUC with ``multi_label``, of the counts otherwise.
    from_logits : bool, default False
        Apply a sigmoid to the predictions first.
    """

    _direction = "up"

    def __init__(
        self,
        num_thresholds: int = 200,
        curve: Any = "ROC",
        summation_method: Any = "interpolation",
        name: str | None = None,
        dtype: Any = None,
        thresholds: Any = None,
        multi_label: bool = False,
        num_labels: int | None = None,
        label_weights: Any = None,
        from_logits: bool = False,
    ) -> None:
        self._init_from_thresholds = thresholds is not None
        if thresholds is not None:
            self.num_thresholds = len(thresholds) + 2
            thresholds = sorted(thresholds)
            self._thresholds_distributed_evenly = _evenly_distributed([0.0, *thresholds, 1.0])
        else:
            if num_thresholds <= 1:
                raise ValueError(
                    f"Argument `num_thresholds` must be an integer > 1. Received: num_thresholds={num_thresholds}"
                )
            self.num_thresholds = num_thresholds
            thresholds = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self._thresholds_distributed_evenly = True
        self._thresholds = [0.0 - epsilon(), *thresholds, 1.0 + epsilon()]
        if _value(curve) not in _CURVES:
            raise ValueError(f'Invalid AUC curve value: "{curve}". Expected values are ["PR", "ROC", "PRGAIN"]')
        if _value(summation_method) not in _SUMMATIONS:
            raise ValueError(
                f'Invalid AUC summation method value: "{summation_method}". '
                'Expected values are ["interpolation", "majoring", "minoring"]'
            )
        self.curve = _CURVES[_value(curve)]
        self.summation_method = _SUMMATIONS[_value(summation_method)]
        super().__init__(name=name, dtype=dtype)
        self.multi_label = multi_label
        self.num_labels = num_labels
        self.label_weights = None if label_weights is None else [float(w) for w in label_weights]
        self._from_logits = from_logits
        self._built = False
        if multi_label:
            if num_labels:
                self._build([None, num_labels])
        else:
            if num_labels:
                raise ValueError("`num_labels` is needed only when `multi_label` is True.")
            self._build(None)

    @property
    def thresholds(self) -> list[float]:
        """The thresholds, with the endpoints just below 0 and above 1."""
        return list(self._thresholds)

    def _build(self, shape: Any) -> None:
        if self.multi_label:
            if len(shape) != 2:
                raise ValueError(
                    f"`y_pred` must have rank 2 when `multi_label=True`. Found rank {len(shape)}. "
                    f"Full shape received for `y_pred`: {tuple(shape)}"
                )
            self._num_labels = int(shape[1])
            var_shape: list[int] = [self.num_thresholds, self._num_labels]
        else:
            var_shape = [self.num_thresholds]
        self.true_positives = self.add_variable(
            shape=var_shape, initializer="zeros", dtype=floatx(), name="true_positives"
        )
        self.false_positives = self.add_variable(
            shape=var_shape, initializer="zeros", dtype=floatx(), name="false_positives"
        )
        self.true_negatives = self.add_variable(
            shape=var_shape, initializer="zeros", dtype=floatx(), name="true_negatives"
        )
        self.false_negatives = self.add_variable(
            shape=var_shape, initializer="zeros", dtype=floatx(), name="false_negatives"
        )
        self._built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the batch's (weighted) confusion counts at every threshold."""
        y_pred = _as(y_pred, self.dtype)
        if not self._built:
            self._build(tuple(y_pred.shape))
        elif self.multi_label and int(y_pred.shape[-1]) != self._num_labels:
            raise ValueError(
                f"AUC(multi_label=True) was built for {self._num_labels} labels; got y_pred of shape "
                f"{tuple(y_pred.shape)}"
            )
        if self._from_logits:
            y_pred = _core.sigmoid(y_pred)
        update_curve_counts(
            {"tp": self.true_positives, "tn": self.true_negatives, "fp": self.false_positives,
             "fn": self.false_negatives},
            y_true,
            y_pred,
            self._thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            sample_weight=sample_weight,
            multi_label=self.multi_label,
            label_weights=None if self.multi_label else self.label_weights,
        )  # fmt: skip

    def _average(self, per_threshold: Tensor) -> Tensor:
        if self.multi_label:
            by_label = _core.reduce_sum(per_threshold, axis=0)
            if self.label_weights is None:
                return _core.reduce_mean(by_label)
            lw = _core.constant(self.label_weights, dtype=by_label.dtype)
            return _core.math.divide_no_nan(_core.reduce_sum(by_label * lw), _core.reduce_sum(lw))
        return _core.reduce_sum(per_threshold)

    def _interpolate_pr_auc(self) -> Tensor:
        n = self.num_thresholds
        tp = _core.identity(self.true_positives)
        fp = _core.identity(self.false_positives)
        fn = _core.identity(self.false_negatives)
        dtp = tp[: n - 1] - tp[1:]
        p = tp + fp
        dp = p[: n - 1] - p[1:]
        zero = _core.zeros_like(dp)
        prec_slope = _core.math.divide_no_nan(dtp, _core.maximum(dp, zero))
        intercept = tp[1:] - prec_slope * p[1:]
        both = _core.logical_and(p[: n - 1] > 0, p[1:] > 0)
        safe_ratio = _core.where(both, _core.math.divide_no_nan(p[: n - 1], _core.maximum(p[1:], zero)),
                                 _core.ones_like(p[1:]))  # fmt: skip
        increment = _core.math.divide_no_nan(
            prec_slope * (dtp + intercept * _core.math.log(safe_ratio)), _core.maximum(tp[1:] + fn[1:], zero)
        )
        return self._average(increment)

    def result(self) -> Tensor:
        """The area under the curve (averaged over labels with ``multi_label``)."""
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._interpolate_pr_auc()
        n = self.num_thresholds
        tp = _core.identity(self.true_positives)
        fp = _core.identity(self.false_positives)
        tn = _core.identity(self.true_negatives)
        fn = _core.identity(self.false_negatives)
        div = _core.math.divide_no_nan
        recall = div(tp, tp + fn)
        if self.curve == "ROC":
            x, y = div(fp, fp + tn), recall
        elif self.curve == "PR":
            x, y = recall, div(tp, tp + fp)
        else:  # PRGAIN
            scale = div(tp + fn, tn + fp)
            recall_gain = 1.0 - scale * div(fn, tp)
            precision_gain = 1.0 - scale * div(fp, tp)
            no_tp = _core.equal(tp, _core.zeros_like(tp))
            recall_gain = _core.where(no_tp, _core.zeros_like(tp), recall_gain)
            precision_gain = _core.where(no_tp, _core.ones_like(tp), precision_gain)
            x, y = _core.maximum(recall_gain, _core.zeros_like(tp)), precision_gain
        if self.summation_method == "interpolation":
            heights = (y[: n - 1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = _core.minimum(y[: n - 1], y[1:])
        else:
            heights = _core.maximum(y[: n - 1], y[1:])
        return self._average((x[: n - 1] - x[1:]) * heights)

    def reset_state(self) -> None:
        """Zeroes the counts (nothing to do before the first batch built them)."""
        if self._built:
            super().reset_state()

    def get_config(self) -> dict[str, Any]:
        """Keras' keys; ``thresholds`` (without the endpoints) only when they were given."""
        config = {
            **super().get_config(),
            "num_thresholds": self.num_thresholds,
            "curve": self.curve,
            "summation_method": self.summation_method,
            "multi_label": self.multi_label,
            "num_labels": self.num_labels,
            "label_weights": self.label_weights,
            "from_logits": self._from_logits,
        }
        if self._init_from_thresholds:
            config["thresholds"] = self.thresholds[1:-1]
        return config


# --------------------------------------------------------------------------- X at Y


class _SensitivitySpecificityBase(Metric):
    # Keras' SensitivitySpecificityBase: the four counts at num_thresholds evenly spaced thresholds in [0, 1].
    _direction = "up"
    _value_name = ""

    def __init__(
        self, value: float, num_thresholds: int = 200, class_id: int | None = None, name: str | None = None,
        dtype: Any = None,
    ) -> None:  # fmt: skip
        if value < 0 or value > 1:
            raise ValueError(
                f"Argument `{self._value_name}` must be in the range [0, 1]. Received: {self._value_name}={value}"
            )
        super().__init__(name=name, dtype=dtype)
        if num_thresholds <= 0:
            raise ValueError(
                f"Argument `num_thresholds` must be an integer > 0. Received: num_thresholds={num_thresholds}"
            )
        self.value = value
        self.num_thresholds = num_thresholds
        self.class_id = class_id
        setattr(self, self._value_name, value)
        if num_thresholds == 1:
            self.thresholds = [0.5]
            self._thresholds_distributed_evenly = False
        else:
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self.thresholds = [0.0, *inner, 1.0]
            self._thresholds_distributed_evenly = True
        n = len(self.thresholds)
        self.true_positives = self.add_variable(shape=(n,), initializer="zeros", dtype=floatx(), name="true_positives")
        self.false_positives = self.add_variable(
            shape=(n,), initializer="zeros", dtype=floatx(), name="false_positives"
        )
        self.true_negatives = self.add_variable(shape=(n,), initializer="zeros", dtype=floatx(), name="true_negatives")
        self.false_negatives = self.add_variable(
            shape=(n,), initializer="zeros", dtype=floatx(), name="false_negatives"
        )

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the batch's (weighted) confusion counts at every threshold."""
        update_curve_counts(
            {"tp": self.true_positives, "tn": self.true_negatives, "fp": self.false_positives,
             "fn": self.false_negatives},
            y_true,
            y_pred,
            self.thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            class_id=self.class_id,
            sample_weight=sample_weight,
        )  # fmt: skip

    def _rates(self) -> dict[str, Tensor]:
        tp = _core.identity(self.true_positives)
        fp = _core.identity(self.false_positives)
        tn = _core.identity(self.true_negatives)
        fn = _core.identity(self.false_negatives)
        div = _core.math.divide_no_nan
        return {"recall": div(tp, tp + fn), "precision": div(tp, tp + fp), "specificity": div(tn, tn + fp)}

    def _max_under_constraint(self, constrained: Tensor, dependent: Tensor) -> Tensor:
        # max(dependent where constrained >= value), 0 when no threshold qualifies.
        feasible = _core.greater_equal(constrained, _core.constant(self.value, dtype=constrained.dtype))
        masked = _core.where(feasible, dependent, _core.zeros_like(dependent))
        return _core.maximum(_core.reduce_max(masked), _core.constant(0.0, dtype=dependent.dtype))

    def get_config(self) -> dict[str, Any]:
        """``name``, ``dtype``, ``class_id``, ``num_thresholds`` and the target value."""
        return {**super().get_config(), "class_id": self.class_id, "num_thresholds": self.num_thresholds,
                self._value_name: self.value}  # fmt: skip


_AT_DOC = """The best {what} among the thresholds where {constraint} >= ``{arg}`` (``keras.metrics.{cls}``).

    Confusion counts are kept at ``num_thresholds`` evenly spaced thresholds in [0, 1]; the result
    is 0 when no threshold reaches the constraint.

    Parameters
    ----------
    {arg} : float
        The constraint's value, in [0, 1].
    num_thresholds : int, default 200
        Number of thresholds (one threshold is 0.5).
    class_id : int, optional
        Only this column of 2-D predictions counts.
    name : str, optional
        The metric's name.
    dtype : dtype-like, optional
        The state's dtype (float32 by default).
    """


class SensitivityAtSpecificity(_SensitivitySpecificityBase):
    __doc__ = _AT_DOC.format(what="sensitivity (recall)", constraint="specificity", arg="specificity",
                             cls="SensitivityAtSpecificity")  # fmt: skip
    _value_name = "specificity"

    def __init__(self, specificity: float, num_thresholds: int = 200, class_id: int | None = None,
                 name: str | None = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__(specificity, num_thresholds=num_thresholds, class_id=class_id, name=name, dtype=dtype)

    def result(self) -> Tensor:
        """The best sensitivity meeting the specificity."""
        r = self._rates()
        return self._max_under_constraint(r["specificity"], r["recall"])


class SpecificityAtSensitivity(_SensitivitySpecificityBase):
    __doc__ = _AT_DOC.format(what="specificity", constraint="sensitivity (recall)", arg="sensitivity",
                             cls="SpecificityAtSensitivity")  # fmt: skip
    _value_name = "sensitivity"

    def __init__(self, sensitivity: float, num_thresholds: int = 200, class_id: int | None = None,
                 name: str | None = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__(sensitivity, num_thresholds=num_thresholds, class_id=class_id, name=name, dtype=dtype)

    def result(self) -> Tensor:
        """The best specificity meeting the sensitivity."""
        r = self._rates()
        return self._max_under_constraint(r["recall"], r["specificity"])


class PrecisionAtRecall(_SensitivitySpecificityBase):
    __doc__ = _AT_DOC.format(what="precision", constraint="recall", arg="recall", cls="PrecisionAtRecall")
    _value_name = "recall"

    def __init__(self, recall: float, num_thresholds: int = 200, class_id: int | None = None,
                 name: str | None = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__(recall, num_thresholds=num_thresholds, class_id=class_id, name=name, dtype=dtype)

    def result(self) -> Tensor:
        """The best precision meeting the recall."""
        r = self._rates()
        return self._max_under_constraint(r["recall"], r["precision"])


class RecallAtPrecision(_SensitivitySpecificityBase):
    __doc__ = _AT_DOC.format(what="recall", constraint="precision", arg="precision", cls="RecallAtPrecision")
    _value_name = "precision"

    def __init__(self, precision: float, num_thresholds: int = 200, class_id: int | None = None,
                 name: str | None = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__(precision, num_thresholds=num_thresholds, class_id=class_id, name=name, dtype=dtype)

    def result(self) -> Tensor:
        """The best recall meeting the precision."""
        r = self._rates()
        return self._max_under_constraint(r["precision"], r["recall"])


# --------------------------------------------------------------------------- F-scores


class FBetaScore(Metric):
    """The F-beta score of multi-label / multi-class predictions (``keras.metrics.FBetaScore``).

    ``(1 + beta²) * precision * recall / (beta² * precision + recall)`` per class, from weighted
    true/false positive and false negative sums kept per class (or in total for ``"micro"``).

    Parameters
    ----------
    average : {None, "micro", "macro", "weighted"}, optional
        None: one score per class; "micro": from the pooled counts; "macro": the mean of the class
        scores; "weighted": their mean weighted by each class's (weighted) number of true labels.
    beta : float, default 1.0
        Weight of recall against precision (a Python float > 0).
    threshold : float, optional
        Predictions above it are positive (0 < threshold <= 1); by default each row's largest
        (non-zero) predictions are.
    name : str, default "fbeta_score"
        The metric's name.
    dtype : dtype-like, optional
        The state's dtype (float32 by default).

    Inputs are 2-D ``(batch, classes)``; the state is built from the first batch's shape.
    """

    _direction = "up"

    def __init__(
        self, average: str | None = None, beta: float = 1.0, threshold: float | None = None,
        name: str = "fbeta_score", dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__(name=name, dtype=dtype)
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError(
                "Invalid `average` argument value. Expected one of: {None, 'micro', 'macro', 'weighted'}. "
                f"Received: average={average}"
            )
        if not isinstance(beta, float):
            raise ValueError(
                f"Invalid `beta` argument value. It should be a Python float. Received: beta={beta} of type "
                f"'{type(beta)}'"
            )
        if beta <= 0.0:
            raise ValueError(f"Invalid `beta` argument value. It should be > 0. Received: beta={beta}")
        if threshold is not None:
            if not isinstance(threshold, float):
                raise ValueError(
                    "Invalid `threshold` argument value. It should be a Python float. "
                    f"Received: threshold={threshold} of type '{type(threshold)}'"
                )
            if threshold > 1.0 or threshold <= 0.0:
                raise ValueError(
                    f"Invalid `threshold` argument value. It should verify 0 < threshold <= 1. Received: "
                    f"threshold={threshold}"
                )
        self.average = average
        self.beta = beta
        self.threshold = threshold
        self.axis = None if average == "micro" else 0
        self._built = False

    def _build(self, y_true_shape: tuple[int, ...], y_pred_shape: tuple[int, ...]) -> None:
        if len(y_pred_shape) != 2 or len(y_true_shape) != 2:
            raise ValueError(
                "FBetaScore expects 2D inputs with shape (batch_size, output_dim). Received input "
                f"shapes: y_pred.shape={y_pred_shape} and y_true.shape={y_true_shape}."
            )
        shape = () if self.average == "micro" else (int(y_pred_shape[-1]),)
        self.true_positives = self.add_variable(shape=shape, initializer="zeros", name="true_positives")
        self.false_positives = self.add_variable(shape=shape, initializer="zeros", name="false_positives")
        self.false_negatives = self.add_variable(shape=shape, initializer="zeros", name="false_negatives")
        self.intermediate_weights = self.add_variable(shape=shape, initializer="zeros", name="intermediate_weights")
        self._built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the batch's weighted per-class counts."""
        y_true = _as(y_true, self.dtype)
        y_pred = _as(y_pred, self.dtype)
        yt_shape, yp_shape = tuple(y_true.shape), tuple(y_pred.shape)
        if not self._built:
            self._build(yt_shape, yp_shape)
        if len(yt_shape) != 2 or len(yp_shape) != 2 or yt_shape[-1] != yp_shape[-1]:
            raise ValueError(
                f"{type(self).__name__} expects 2D inputs of the same shape (batch_size, output_dim). Received "
                f"input shapes: y_pred.shape={yp_shape} and y_true.shape={yt_shape}."
            )
        if self.threshold is None:
            top = _core.reduce_max(y_pred, axis=-1, keepdims=True)
            pos = _core.logical_and(_core.greater_equal(y_pred, top),
                                    _core.greater(_core.abs(y_pred), _core.constant(1e-9, self.dtype)))  # fmt: skip
        else:
            pos = _core.greater(y_pred, _core.constant(self.threshold, self.dtype))
        y_pred = _core.cast(pos, self.dtype)
        if sample_weight is not None:
            sample_weight = _as(sample_weight, self.dtype)

        def weighted_sum(val: Tensor) -> Tensor:
            if sample_weight is not None:
                val = val * _core.expand_dims(sample_weight, 1)
            return _core.reduce_sum(val, axis=self.axis)

        self.true_positives.assign(self.true_positives + weighted_sum(y_pred * y_true))
        self.false_positives.assign(self.false_positives + weighted_sum(y_pred * (1.0 - y_true)))
        self.false_negatives.assign(self.false_negatives + weighted_sum((1.0 - y_pred) * y_true))
        self.intermediate_weights.assign(self.intermediate_weights + weighted_sum(y_true))

    def result(self) -> Tensor:
        """The score: per class (``average=None``) or one number."""
        eps = epsilon()
        tp = _core.identity(self.true_positives)
        precision = tp / (tp + self.false_positives + eps)
        recall = tp / (tp + self.false_negatives + eps)
        b2 = self.beta**2
        f = precision * recall / (b2 * precision + recall + eps) * (1.0 + b2)
        if self.average == "weighted":
            iw = _core.identity(self.intermediate_weights)
            return _core.reduce_sum(f * (iw / (_core.reduce_sum(iw) + eps)))
        if self.average is not None:
            return _core.reduce_mean(f)
        return f

    def reset_state(self) -> None:
        """Zeroes the counts (nothing to do before the first batch built them)."""
        if self._built:
            super().reset_state()

    def get_config(self) -> dict[str, Any]:
        """``name``, ``dtype``, ``average``, ``beta``, ``threshold``."""
        return {**super().get_config(), "average": self.average, "beta": self.beta, "threshold": self.threshold}


class F1Score(FBetaScore):
    """The F1 score (``keras.metrics.F1Score``): :class:`FBetaScore` with ``beta=1``.

    Parameters
    ----------
    average : {None, "micro", "macro", "weighted"}, optional
        How the class scores are combined (see :class:`FBetaScore`).
    threshold : float, optional
        Predictions above it are positive; by default each row's largest ones are.
    name : str, default "f1_score"
        The metric's name.
    dtype : dtype-like, optional
        The state's dtype (float32 by default).
    """

    def __init__(self, average: str | None = None, threshold: float | None = None, name: str = "f1_score",
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name``, ``dtype``, ``average``, ``threshold``."""
        config = super().get_config()
        del config["beta"]
        return config


# --------------------------------------------------------------------------- R2


class R2Score(Metric):
    """The coefficient of determination R² (``keras.metrics.R2Score``), per output column.

    Keeps weighted sums of ``y``, ``y²`` and the squared residuals per column; R² is
    ``1 - residual / total`` (0 where the total variance is 0 and the residual is not).

    Parameters
    ----------
    class_aggregation : {"uniform_average", "variance_weighted_average", None}
        How the columns' scores are combined (None: one per column).
    num_regressors : int, default 0
        For the adjusted R² (0: plain R²). Falls back to plain R² (with a warning, when eager)
        if there are not more samples than ``num_regressors + 1``.
    name : str, default "r2_score"
        The metric's name.
    dtype : dtype-like, optional
        The state's dtype (float32 by default).

    Inputs are 2-D ``(batch, outputs)``; the state is built from the first batch's shape.
    """

    _direction = "up"

    def __init__(
        self, class_aggregation: str | None = "uniform_average", num_regressors: int = 0, name: str = "r2_score",
        dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__(name=name, dtype=dtype)
        valid = (None, "uniform_average", "variance_weighted_average")
        if class_aggregation not in valid:
            raise ValueError(
                f"Invalid value for argument `class_aggregation`. Expected one of {valid}. "
                f"Received: class_aggregation={class_aggregation}"
            )
        if num_regressors < 0:
            raise ValueError(
                f"Invalid value for argument `num_regressors`. Expected a value >= 0. Received: "
                f"num_regressors={num_regressors}"
            )
        self.class_aggregation = class_aggregation
        self.num_regressors = num_regressors
        self.num_samples = self.add_variable(shape=(), initializer="zeros", dtype=floatx(), name="num_samples")
        self._built = False

    def _build(self, y_true_shape: tuple[int, ...], y_pred_shape: tuple[int, ...]) -> None:
        if len(y_pred_shape) != 2 or len(y_true_shape) != 2:
            raise ValueError(
                "R2Score expects 2D inputs with shape (batch_size, output_dim). Received input "
                f"shapes: y_pred.shape={y_pred_shape} and y_true.shape={y_true_shape}."
            )
        n = int(y_pred_shape[-1])
        self.squared_sum = self.add_variable(shape=(n,), initializer="zeros", dtype=floatx(), name="squared_sum")
        self.sum = self.add_variable(shape=(n,), initializer="zeros", dtype=floatx(), name="sum")
        self.total_mse = self.add_variable(shape=(n,), initializer="zeros", dtype=floatx(), name="residual")
        self.count = self.add_variable(shape=(n,), initializer="zeros", dtype=floatx(), name="count")
        self._built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the batch's weighted sums per column."""
        y_true = _as(y_true, self.dtype)
        y_pred = _as(y_pred, self.dtype)
        y_true, y_pred = _losses.squeeze_or_expand_to_same_rank(y_true, y_pred)
        yt_shape, yp_shape = tuple(y_true.shape), tuple(y_pred.shape)
        if not self._built:
            self._build(yt_shape, yp_shape)
        if yt_shape != yp_shape or len(yt_shape) != 2:
            raise ValueError(
                "R2Score expects 2D inputs of the same shape (batch_size, output_dim). Received input "
                f"shapes: y_pred.shape={yp_shape} and y_true.shape={yt_shape}."
            )
        sw = _core.constant(1.0, self.dtype) if sample_weight is None else sample_weight
        sw = _as(sw, self.dtype)
        if len(sw.shape) == 1:
            sw = _core.expand_dims(sw, 1)
        sw = _core.broadcast_to(sw, _core.shape(y_true))
        weighted = y_true * sw
        _accumulate(self.sum, _core.reduce_sum(weighted, axis=0))
        _accumulate(self.squared_sum, _core.reduce_sum(y_true * weighted, axis=0))
        _accumulate(self.total_mse, _core.reduce_sum(_core.square(y_true - y_pred) * sw, axis=0))
        _accumulate(self.count, _core.reduce_sum(sw, axis=0))
        self.num_samples.assign(self.num_samples + _core.cast(_core.size(y_true), self.num_samples.dtype))

    def result(self) -> Tensor:
        """R² (aggregated per ``class_aggregation``; adjusted when ``num_regressors`` > 0)."""
        total_sum = _core.identity(self.sum)
        mean = total_sum / self.count
        total = self.squared_sum - total_sum * mean
        raw = 1.0 - self.total_mse / total
        raw = _core.where(_core.math.is_inf(raw), _core.zeros_like(raw), raw)
        if self.class_aggregation == "uniform_average":
            r2 = _core.reduce_mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            r2 = _core.reduce_sum(total * raw) / _core.reduce_sum(total)
        else:
            r2 = raw
        if self.num_regressors != 0:
            n = _core.identity(self.num_samples)
            p = float(self.num_regressors)
            if not _core._is_tracing() and p >= float(n.numpy()) - 1:
                warnings.warn(
                    "More independent predictors than datapoints in adjusted R2 score. Falling back to "
                    "standard R2 score." if p > float(n.numpy()) - 1 else
                    "Division by zero in Adjusted R2 score. Falling back to standard R2 score.",
                    stacklevel=2,
                )  # fmt: skip
            adjusted = 1.0 - (1.0 - r2) * (n - 1.0) / (n - p - 1.0)
            r2 = _core.where(_core.less(_core.constant(p, n.dtype), n - 1.0), adjusted, r2)
        return r2

    def reset_state(self) -> None:
        """Zeroes the sums."""
        super().reset_state()

    def get_config(self) -> dict[str, Any]:
        """``name``, ``dtype``, ``class_aggregation``, ``num_regressors``."""
        return {**super().get_config(), "class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors}  # fmt: skip


# --------------------------------------------------------------------------- IoU


class _IoUBase(Metric):
    _direction = "up"

    def __init__(
        self, num_classes: int, name: str | None = None, dtype: Any = None, ignore_class: int | None = None,
        sparse_y_true: bool = True, sparse_y_pred: bool = True, axis: int = -1,
    ) -> None:  # fmt: skip
        # Keras (TensorFlow backend) defaults to an int64 confusion matrix.
        super().__init__(name=name, dtype=dtype or "int64")
        self.num_classes = num_classes
        self.ignore_class = ignore_class
        self.sparse_y_true = sparse_y_true
        self.sparse_y_pred = sparse_y_pred
        self.axis = axis
        self.total_cm = self.add_variable(shape=(num_classes, num_classes), initializer="zeros",
                                          name="total_confusion_matrix")  # fmt: skip

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the batch's (weighted) confusion matrix; labels outside [0, num_classes) and
        ``ignore_class`` are left out."""
        if not self.sparse_y_true:
            y_true = _core.argmax(_core.convert_to_tensor(y_true), axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = _core.argmax(_core.convert_to_tensor(y_pred), axis=self.axis)
        dtype = self.dtype
        y_true = _as(y_true, dtype)
        y_pred = _as(y_pred, dtype)
        y_pred = _core.reshape(y_pred, [-1])
        y_true = _core.reshape(y_true, [-1])
        n_true, n_pred = y_true.shape[0], y_pred.shape[0]
        if n_true is not None and n_pred is not None and int(n_true) != int(n_pred):
            raise ValueError(
                f"{type(self).__name__}: y_true and y_pred must hold the same number of labels; got "
                f"{int(n_true)} and {int(n_pred)}"
            )
        if sample_weight is None:
            sample_weight = _core.ones_like(y_true)
        else:
            if hasattr(sample_weight, "dtype") and "float" in str(sample_weight.dtype) and "int" in dtype:
                warnings.warn(
                    "You are passing weight as `float`, but dtype is `int`. This may result in an incorrect "
                    "weight due to type casting Consider using integer weights.",
                    stacklevel=2,
                )
            sample_weight = _as(sample_weight, dtype)
            sample_weight = _core.broadcast_to(_core.reshape(sample_weight, [-1]) if len(sample_weight.shape) > 1
                                               else sample_weight, _core.shape(y_true))  # fmt: skip
        zero = _core.zeros_like(y_true)
        n = _core.constant(self.num_classes, dtype=dtype)
        in_bounds = _core.logical_and(
            _core.logical_and(_core.greater_equal(y_true, zero), _core.less(y_true, n)),
            _core.logical_and(_core.greater_equal(y_pred, zero), _core.less(y_pred, n)),
        )
        if self.ignore_class is not None:
            ignore = _core.constant(self.ignore_class, dtype=dtype)
            in_bounds = _core.logical_and(in_bounds, _core.not_equal(y_true, ignore))
        y_true = _core.where(in_bounds, y_true, zero)
        y_pred = _core.where(in_bounds, y_pred, zero)
        sample_weight = _core.where(in_bounds, sample_weight, _core.zeros_like(sample_weight))
        ids = _core.cast(y_true * self.num_classes + y_pred, "int32")
        cm = _core.math.unsorted_segment_sum(sample_weight, ids, self.num_classes * self.num_classes)
        self.total_cm.assign(self.total_cm + _core.reshape(cm, [self.num_classes, self.num_classes]))


class IoU(_IoUBase):
    """Intersection-over-union of the target classes (``keras.metrics.IoU``).

    For each class, ``tp / (tp + fp + fn)`` from the accumulated (weighted) confusion matrix; the
    result is the mean over ``target_class_ids`` that occur (classes absent from both the labels and
    the predictions are left out).

    Parameters
    ----------
    num_classes : int
        Number of classes (labels are integers in [0, num_classes); others are ignored).
    target_class_ids : list of int
        The classes averaged.
    name : str, optional
        The metric's name.
    dtype : dtype-like, optional
        The confusion matrix's dtype (int64 by default, so float weights are truncated, as in Keras).
    ignore_class : int, optional
        A label whose samples are left out.
    sparse_y_true, sparse_y_pred : bool, default True
        Whether labels / predictions are class ids (else scores, argmax over ``axis``).
    axis : int, default -1
        The class axis of non-sparse inputs.
    """

    def __init__(
        self, num_classes: int, target_class_ids: Any, name: str | None = None, dtype: Any = None,
        ignore_class: int | None = None, sparse_y_true: bool = True, sparse_y_pred: bool = True, axis: int = -1,
    ) -> None:  # fmt: skip
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class, sparse_y_true=sparse_y_true,
                         sparse_y_pred=sparse_y_pred, axis=axis)  # fmt: skip
        if max(target_class_ids) >= num_classes:
            raise ValueError(f"Target class id {max(target_class_ids)} is out of range, which is [0, {num_classes}).")
        self.target_class_ids = list(target_class_ids)

    def result(self) -> Tensor:
        """The mean IoU over the target classes present (float32)."""
        cm = _core.cast(_core.identity(self.total_cm), "float32")
        over_rows = _core.reduce_sum(cm, axis=0)
        over_cols = _core.reduce_sum(cm, axis=1)
        tp = _core.linalg.diag_part(cm)
        denominator = over_rows + over_cols - tp
        ids = _core.constant(self.target_class_ids, dtype="int32")
        tp = _core.gather(tp, ids)
        denominator = _core.gather(denominator, ids)
        valid = _core.greater(denominator, _core.constant(1e-9, "float32"))
        iou = _core.where(valid, tp / (denominator + epsilon()), _core.zeros_like(tp))
        return _core.reduce_sum(iou) / (_core.reduce_sum(_core.cast(valid, "float32")) + epsilon())

    def get_config(self) -> dict[str, Any]:
        """Keras' keys."""
        return {**super().get_config(), "num_classes": self.num_classes, "target_class_ids": self.target_class_ids,
                "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}  # fmt: skip


class BinaryIoU(IoU):
    """IoU of binary predictions (``keras.metrics.BinaryIoU``): predictions ``>= threshold`` are class 1.

    Parameters
    ----------
    target_class_ids : sequence of int, default (0, 1)
        The classes averaged (0, 1 or both).
    threshold : float, default 0.5
        Predictions at or above it are 1.
    name : str, optional
        The metric's name.
    dtype : dtype-like, optional
        The confusion matrix's dtype (int64 by default).
    """

    def __init__(self, target_class_ids: Any = (0, 1), threshold: float = 0.5, name: str | None = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__(num_classes=2, target_class_ids=target_class_ids, name=name, dtype=dtype)
        self.threshold = threshold

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Thresholds the predictions, then adds the confusion matrix."""
        y_true = _as(y_true, self.dtype)
        y_pred = _as(y_pred, "float32")
        y_pred = _core.cast(_core.greater_equal(y_pred, _core.constant(self.threshold, "float32")), self.dtype)
        super().update_state(y_true, y_pred, sample_weight)

    def get_config(self) -> dict[str, Any]:
        """``target_class_ids``, ``threshold``, ``name``, ``dtype``."""
        return {"target_class_ids": self.target_class_ids, "threshold": self.threshold, "name": self.name,
                "dtype": self.dtype}  # fmt: skip


class MeanIoU(IoU):
    """The mean IoU over all classes (``keras.metrics.MeanIoU``).

    Parameters
    ----------
    num_classes : int
        Number of classes.
    name : str, optional
        The metric's name.
    dtype : dtype-like, optional
        The confusion matrix's dtype (int64 by default).
    ignore_class : int, optional
        A label whose samples are left out.
    sparse_y_true, sparse_y_pred : bool, default True
        Whether labels / predictions are class ids (else scores, argmax over ``axis``).
    axis : int, default -1
        The class axis of non-sparse inputs.
    """

    def __init__(
        self, num_classes: int, name: str | None = None, dtype: Any = None, ignore_class: int | None = None,
        sparse_y_true: bool = True, sparse_y_pred: bool = True, axis: int = -1,
    ) -> None:  # fmt: skip
        super().__init__(num_classes, list(range(num_classes)), name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=sparse_y_true, sparse_y_pred=sparse_y_pred, axis=axis)  # fmt: skip

    def get_config(self) -> dict[str, Any]:
        """Keras' keys (no ``target_class_ids``)."""
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self.dtype,
                "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}  # fmt: skip


class OneHotIoU(IoU):
    """:class:`IoU` with one-hot labels (``keras.metrics.OneHotIoU``).

    Parameters
    ----------
    num_classes : int
        Number of classes.
    target_class_ids : list of int
        The classes averaged.
    name : str, optional
        The metric's name.
    dtype : dtype-like, optional
        The confusion matrix's dtype (int64 by default).
    ignore_class : int, optional
        A label whose samples are left out.
    sparse_y_pred : bool, default False
        Whether predictions are class ids (else scores).
    axis : int, default -1
        The class axis.
    """

    def __init__(
        self, num_classes: int, target_class_ids: Any, name: str | None = None, dtype: Any = None,
        ignore_class: int | None = None, sparse_y_pred: bool = False, axis: int = -1,
    ) -> None:  # fmt: skip
        super().__init__(num_classes, target_class_ids, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)  # fmt: skip

    def get_config(self) -> dict[str, Any]:
        """Keras' keys (no ``sparse_y_true``)."""
        return {"num_classes": self.num_classes, "target_class_ids": self.target_class_ids, "name": self.name,
                "dtype": self.dtype, "ignore_class": self.ignore_class, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}  # fmt: skip


class OneHotMeanIoU(MeanIoU):
    """:class:`MeanIoU` with one-hot labels (``keras.metrics.OneHotMeanIoU``).

    Parameters
    ----------
    num_classes : int
        Number of classes.
    name : str, optional
        The metric's name.
    dtype : dtype-like, optional
        The confusion matrix's dtype (int64 by default).
    ignore_class : int, optional
        A label whose samples are left out.
    sparse_y_pred : bool, default False
        Whether predictions are class ids (else scores).
    axis : int, default -1
        The class axis.
    """

    def __init__(
        self, num_classes: int, name: str | None = None, dtype: Any = None, ignore_class: int | None = None,
        sparse_y_pred: bool = False, axis: int = -1,
    ) -> None:  # fmt: skip
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class, sparse_y_true=False,
                         sparse_y_pred=sparse_y_pred, axis=axis)  # fmt: skip

    def get_config(self) -> dict[str, Any]:
        """Keras' keys (no ``sparse_y_true``)."""
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self.dtype,
                "ignore_class": self.ignore_class, "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}  # fmt: skip


# --------------------------------------------------------------------------- correlations


def pearson_correlation(y_true: Any, y_pred: Any, axis: int = -1) -> Tensor:
    """Pearson correlation of ``y_true`` and ``y_pred`` along ``axis`` (``keras.metrics.pearson_correlation``).

    Parameters
    ----------
    y_true, y_pred : Tensor-like
        Targets and predictions.
    axis : int, default -1
        The axis the correlation is computed along.

    Returns
    -------
    Tensor
        One value per sample.
    """
    y_pred = _core.convert_to_tensor(y_pred)
    y_true = _as(y_true, y_pred.dtype)
    y_true, y_pred = _losses.squeeze_or_expand_to_same_rank(y_true, y_pred)
    t = y_true - _core.reduce_mean(y_true, axis=axis, keepdims=True)
    p = y_pred - _core.reduce_mean(y_pred, axis=axis, keepdims=True)
    t = t / _core.math.reduce_std(t, axis=axis, keepdims=True)
    p = p / _core.math.reduce_std(p, axis=axis, keepdims=True)
    return _core.reduce_mean(t * p, axis=axis)


def concordance_correlation(y_true: Any, y_pred: Any, axis: int = -1) -> Tensor:
    """Lin's concordance correlation along ``axis`` as Keras computes it (``keras.metrics.concordance_correlation``).

    Keras' covariance term is ``(y_true - mean(y_pred)) * (y_pred - mean(y_pred))``; kept for parity.

    Parameters
    ----------
    y_true, y_pred : Tensor-like
        Targets and predictions.
    axis : int, default -1
        The axis the correlation is computed along.

    Returns
    -------
    Tensor
        One value per sample.
    """
    y_pred = _core.convert_to_tensor(y_pred)
    y_true = _as(y_true, y_pred.dtype)
    y_true, y_pred = _losses.squeeze_or_expand_to_same_rank(y_true, y_pred)
    t_mean = _core.reduce_mean(y_true, axis=axis, keepdims=True)
    p_mean = _core.reduce_mean(y_pred, axis=axis, keepdims=True)
    t_var = _core.math.reduce_variance(y_true - t_mean, axis=axis, keepdims=True)
    p_var = _core.math.reduce_variance(y_pred - p_mean, axis=axis, keepdims=True)
    covar = (y_true - p_mean) * (y_pred - p_mean)
    norm = t_var + p_var + _core.square(t_mean - p_mean)
    return _core.reduce_mean(2.0 * covar / (norm + epsilon()), axis=axis)


class PearsonCorrelation(MeanMetricWrapper):
    """The mean (over samples) Pearson correlation along ``axis`` (``keras.metrics.PearsonCorrelation``).

    Parameters
    ----------
    name : str, default "pearson_correlation"
        The metric's name.
    dtype : dtype-like, optional
        The state's dtype.
    axis : int, default -1
        The axis the correlation is computed along.
    """

    _direction = "up"

    def __init__(self, name: str = "pearson_correlation", dtype: Any = None, axis: int = -1) -> None:
        super().__init__(pearson_correlation, name=name, dtype=dtype, axis=axis)
        self.axis = axis

    def get_config(self) -> dict[str, Any]:
        """``name``, ``dtype``, ``axis``."""
        return {"name": self.name, "dtype": self.dtype, "axis": self.axis}


class ConcordanceCorrelation(MeanMetricWrapper):
    """The mean (over samples) concordance correlation along ``axis`` (``keras.metrics.ConcordanceCorrelation``).

    Parameters
    ----------
    name : str, default "concordance_correlation"
        The metric's name.
    dtype : dtype-like, optional
        The state's dtype.
    axis : int, default -1
        The axis the correlation is computed along.
    """

    _direction = "up"

    def __init__(self, name: str = "concordance_correlation", dtype: Any = None, axis: int = -1) -> None:
        super().__init__(concordance_correlation, name=name, dtype=dtype, axis=axis)
        self.axis = axis

    def get_config(self) -> dict[str, Any]:
        """``name``, ``dtype``, ``axis``."""
        return {"name": self.name, "dtype": self.dtype, "axis": self.axis}
