"""Keras 3's threshold metrics (``TruePositives``, ``FalsePositives``, ``TrueNegatives``,
``FalseNegatives``, ``Precision``, ``Recall``) and top-k accuracies, re-exported by
``tapers.keras.metrics``.

The confusion counts are Keras' ``update_confusion_matrix_variables``: each prediction
is positive at a threshold when it is strictly above it; ``top_k`` keeps the k largest
predictions of each row (others become -1e10), ``class_id`` picks one column; sample
weights weigh the counts. Written with tapers' ops, so the metrics run inside
``tapers.function`` too.
"""

from __future__ import annotations

from typing import Any

from .. import _core
from .._core import Tensor
from .._math_extra import in_top_k
from . import losses as _losses
from .backend import floatx
from .metrics import MeanMetricWrapper, Metric  # (imported at the end of metrics.py)

NEG_INF = -1e10


def _thresholds(thresholds: Any, default: float) -> list[float]:
    if thresholds is not None:
        values = list(thresholds) if isinstance(thresholds, (list, tuple)) else [thresholds]
        invalid = [t for t in values if t is None or t < 0 or t > 1]
        if invalid:
            raise ValueError(f"Threshold values must be in [0, 1]. Received: {invalid}")
    if thresholds is None:
        return [default]
    return list(thresholds) if isinstance(thresholds, (list, tuple)) else [thresholds]


def _filter_top_k(x: Tensor, k: int) -> Tensor:
    _, idx = _core.math.top_k(x, k)
    depth = int(x.shape[-1])
    mask = _core.reduce_sum(_core.one_hot(idx, depth, dtype=x.dtype), axis=-2)
    return x * mask + NEG_INF * (1 - mask)


def update_confusion_counts(
    counts: dict[str, Any],
    y_true: Any,
    y_pred: Any,
    thresholds: list[float],
    top_k: int | None = None,
    class_id: int | None = None,
    sample_weight: Any = None,
) -> None:
    """Adds a batch's weighted counts per threshold to ``counts`` (keys ``"tp"``, ``"fp"``,
    ``"tn"``, ``"fn"``; Variables of shape ``(len(thresholds),)``)."""
    dtype = next(iter(counts.values())).dtype
    y_true = _core.cast(_core.convert_to_tensor(y_true), dtype)
    y_pred = _core.cast(_core.convert_to_tensor(y_pred), dtype)
    y_pred, y_true = _losses.squeeze_or_expand_to_same_rank(y_pred, y_true)
    if sample_weight is not None:
        sample_weight = _core.expand_dims(_core.cast(_core.convert_to_tensor(sample_weight), dtype), -1)
        _, sample_weight = _losses.squeeze_or_expand_to_same_rank(y_true, sample_weight, expand_rank_1=False)
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        if len(y_pred.shape) == 1:
            raise ValueError(
                "When class_id is provided, y_pred must be a 2D array with shape (num_samples, num_classes), "
                f"found shape: {tuple(y_pred.shape)}"
            )
        y_true = y_true[..., class_id : class_id + 1]
        y_pred = y_pred[..., class_id : class_id + 1]
    thr = _core.reshape(_core.constant(thresholds, dtype=dtype), [-1, 1])
    preds = _core.reshape(y_pred, [1, -1])
    labels = _core.reshape(_core.cast(y_true, "bool"), [1, -1])
    pred_pos = _core.greater(preds, thr)  # (thresholds, elements)
    weights = None
    if sample_weight is not None:
        weights = _core.reshape(_core.broadcast_to(sample_weight, _core.shape(y_pred)), [1, -1])
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


class _ConfusionCount(Metric):
    _key = ""

    def __init__(self, thresholds: Any = None, name: str | None = None, dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = _thresholds(thresholds, 0.5)
        self.accumulator = self.add_variable(shape=(len(self.thresholds),), initializer="zeros", name="accumulator")

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the batch's (weighted) count at each threshold."""
        update_confusion_counts({self._key: self.accumulator}, y_true, y_pred, self.thresholds,
                                sample_weight=sample_weight)  # fmt: skip

    def result(self) -> Tensor:
        """The counts (a scalar for one threshold)."""
        acc = _core.identity(self.accumulator)
        return acc[0] if len(self.thresholds) == 1 else acc

    def get_config(self) -> dict[str, Any]:
        """``name``, ``dtype`` and ``thresholds`` as given."""
        return {**super().get_config(), "thresholds": self.init_thresholds}


_COUNT_DOC = """Counts the {what} at each threshold (``keras.metrics.{cls}``).

    A prediction is positive at a threshold when it is strictly above it.

    Parameters
    ----------
    thresholds : float or list of float, optional
        In [0, 1]; default 0.5. The result has one count per threshold (a scalar for one).
    name : str, optional
        The metric's name.
    dtype : dtype-like, optional
        The counts' dtype (float32 by default).
    """


class TruePositives(_ConfusionCount):
    __doc__ = _COUNT_DOC.format(what="true positives", cls="TruePositives")
    _key = "tp"


class FalsePositives(_ConfusionCount):
    __doc__ = _COUNT_DOC.format(what="false positives", cls="FalsePositives")
    _key = "fp"


class TrueNegatives(_ConfusionCount):
    __doc__ = _COUNT_DOC.format(what="true negatives", cls="TrueNegatives")
    _key = "tn"


class FalseNegatives(_ConfusionCount):
    __doc__ = _COUNT_DOC.format(what="false negatives", cls="FalseNegatives")
    _key = "fn"


class _Ratio(Metric):
    _other = ""
    _direction = "up"

    def __init__(
        self,
        thresholds: Any = None,
        top_k: int | None = None,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        self.thresholds = _thresholds(thresholds, 0.5 if top_k is None else NEG_INF)
        n = len(self.thresholds)
        self.true_positives = self.add_variable(shape=(n,), initializer="zeros", name="true_positives")
        other = "false_positives" if self._other == "fp" else "false_negatives"
        setattr(self, other, self.add_variable(shape=(n,), initializer="zeros", name=other))
        self._other_var = getattr(self, other)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the batch's (weighted) counts at each threshold."""
        update_confusion_counts(
            {"tp": self.true_positives, self._other: self._other_var},
            y_true,
            y_pred,
            self.thresholds,
            top_k=self.top_k,
            class_id=self.class_id,
            sample_weight=sample_weight,
        )

    def result(self) -> Tensor:
        """``tp / (tp + other)`` (0 where both are 0), a scalar for one threshold."""
        tp = _core.identity(self.true_positives)
        r = _core.math.divide_no_nan(tp, tp + self._other_var)
        return r[0] if len(self.thresholds) == 1 else r

    def get_config(self) -> dict[str, Any]:
        """``name``, ``dtype``, ``thresholds``, ``top_k``, ``class_id``."""
        return {**super().get_config(), "thresholds": self.init_thresholds, "top_k": self.top_k,
                "class_id": self.class_id}  # fmt: skip


_RATIO_DOC = """{what} (``keras.metrics.{cls}``): ``tp / (tp + {other})`` at each threshold.

    Parameters
    ----------
    thresholds : float or list of float, optional
        In [0, 1]; default 0.5 (with ``top_k``: every kept prediction counts as positive).
    top_k : int, optional
        Only each row's k largest predictions can be positive.
    class_id : int, optional
        Only this column of 2-D predictions counts.
    name : str, optional
        The metric's name.
    dtype : dtype-like, optional
        The state's dtype (float32 by default).
    """


class Precision(_Ratio):
    __doc__ = _RATIO_DOC.format(what="Precision", cls="Precision", other="fp")
    _other = "fp"


class Recall(_Ratio):
    __doc__ = _RATIO_DOC.format(what="Recall", cls="Recall", other="fn")
    _other = "fn"


def top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> Tensor:
    """1.0 where the one-hot label's class is among the k largest predictions, else 0.0.

    Parameters
    ----------
    y_true : Tensor-like
        One-hot labels.
    y_pred : Tensor-like
        Scores, classes on the last axis.
    k : int, default 5
        How many of the largest scores count.

    Returns
    -------
    Tensor
        float32, one value per sample.
    """
    y_pred = _core.convert_to_tensor(y_pred)
    labels = _core.argmax(_core.cast(_core.convert_to_tensor(y_true), y_pred.dtype), axis=-1)
    return _in_top_k(labels, y_pred, k)


def sparse_top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5, from_sorted_ids: bool = False) -> Tensor:
    """1.0 where the integer label is among the k largest predictions (or, with
    ``from_sorted_ids``, among the first k ids of ``y_pred``), else 0.0.

    Parameters
    ----------
    y_true : Tensor-like
        Integer labels.
    y_pred : Tensor-like
        Scores, classes on the last axis (or ids sorted by score).
    k : int, default 5
        How many of the largest scores count.
    from_sorted_ids : bool, default False
        ``y_pred`` holds class ids, best first.

    Returns
    -------
    Tensor
        float32, one value per sample.
    """
    y_pred = _core.convert_to_tensor(y_pred)
    labels = _core.cast(_core.convert_to_tensor(y_true), y_pred.dtype if from_sorted_ids else "int32")
    if from_sorted_ids:
        shape = list(labels.shape)
        flat = _core.reshape(labels, [-1, 1])
        ids = _core.reshape(y_pred, [-1, int(y_pred.shape[-1])])[:, :k]
        hits = _core.cast(_core.reduce_any(_core.equal(flat, ids), axis=1), floatx())
        return _core.reshape(hits, shape) if len(shape) > 1 else hits
    return _in_top_k(labels, y_pred, k)


def _in_top_k(labels: Tensor, y_pred: Tensor, k: int) -> Tensor:
    shape = list(labels.shape)
    preds = _core.reshape(y_pred, [-1, int(y_pred.shape[-1])]) if len(y_pred.shape) > 2 else y_pred
    flat = _core.reshape(labels, [-1]) if len(shape) > 1 else labels
    hits = _core.cast(in_top_k(_core.cast(flat, "int32"), preds, k), floatx())
    return _core.reshape(hits, shape) if len(shape) > 1 else hits


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the one-hot label's class is among the k largest predictions
    (``keras.metrics.TopKCategoricalAccuracy``).

    Parameters
    ----------
    k : int, default 5
        How many of the largest scores count.
    name : str, default "top_k_categorical_accuracy"
        The metric's name.
    dtype : dtype-like, optional
        The state's dtype.
    """

    _direction = "up"

    def __init__(self, k: int = 5, name: str = "top_k_categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(top_k_categorical_accuracy, name=name, dtype=dtype, k=k)
        self.k = k

    def get_config(self) -> dict[str, Any]:
        """``name``, ``dtype``, ``k``."""
        return {"name": self.name, "dtype": self.dtype, "k": self.k}


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the integer label is among the k largest predictions
    (``keras.metrics.SparseTopKCategoricalAccuracy``).

    Parameters
    ----------
    k : int, default 5
        How many of the largest scores count.
    name : str, default "sparse_top_k_categorical_accuracy"
        The metric's name.
    dtype : dtype-like, optional
        The state's dtype.
    from_sorted_ids : bool, default False
        ``y_pred`` holds class ids, best first.
    """

    _direction = "up"

    def __init__(
        self, k: int = 5, name: str = "sparse_top_k_categorical_accuracy", dtype: Any = None,
        from_sorted_ids: bool = False,
    ) -> None:  # fmt: skip
        super().__init__(sparse_top_k_categorical_accuracy, name=name, dtype=dtype, k=k,
                         from_sorted_ids=from_sorted_ids)  # fmt: skip
        self.k = k
        self.from_sorted_ids = from_sorted_ids

    def get_config(self) -> dict[str, Any]:
        """``name``, ``dtype``, ``k`` and ``from_sorted_ids``."""
        config: dict[str, Any] = {"name": self.name, "dtype": self.dtype, "k": self.k}
        if self.from_sorted_ids:
            config["from_sorted_ids"] = True
        return config
