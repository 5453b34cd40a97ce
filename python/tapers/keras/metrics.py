"""``keras.metrics``: Keras 3's streaming metrics, written with tapers ops.

A metric keeps its state in non-trainable tapers Variables (``total``,
``count``), as Keras does: ``update_state(y_true, y_pred, sample_weight=None)``
accumulates a batch, ``result()`` reads the current value, ``reset_state()``
zeroes the state, and calling the metric does the first two. The per-sample
values and their weighting follow Keras 3 (``reduce_to_samplewise_values``):
values with more dimensions than the weights are averaged over the extra
ones, the mean divides the weighted total by the sum of the weights.

``get_metric`` resolves ``"accuracy"``/``"acc"`` the way ``Model.compile``
does: binary, sparse-categorical or categorical accuracy depending on the
shapes of the targets and predictions.
"""

from __future__ import annotations

from typing import Any, Callable

from .. import _core
from .._core import Tensor, Variable
from . import losses as _losses
from ._lookup import from_table, resolve, to_config
from .backend import floatx, unique_name

__all__ = [
    "Accuracy", "BinaryAccuracy", "BinaryCrossentropy", "CategoricalAccuracy", "CategoricalCrossentropy",
    "CategoricalHinge", "CosineSimilarity", "Hinge", "KLDivergence", "LogCoshError", "Mean", "MeanAbsoluteError",
    "MeanAbsolutePercentageError", "MeanMetricWrapper", "MeanSquaredError", "MeanSquaredLogarithmicError", "Metric",
    "Poisson", "RootMeanSquaredError", "SparseCategoricalAccuracy", "SparseCategoricalCrossentropy", "SquaredHinge",
    "Sum", "accuracy", "binary_accuracy", "binary_crossentropy", "categorical_accuracy", "categorical_crossentropy",
    "categorical_hinge", "cosine_similarity", "deserialize", "get", "get_metric", "hinge", "huber",
    "is_binary_or_sparse_categorical", "kl_divergence", "log_cosh", "mean_absolute_error",
    "mean_absolute_percentage_error", "mean_squared_error", "mean_squared_logarithmic_error", "poisson", "serialize",
    "sparse_categorical_accuracy", "sparse_categorical_crossentropy", "squared_hinge", "KLD", "MAE", "MAPE", "MSE",
    "MSLE", "kld", "kullback_leibler_divergence", "logcosh", "mae", "mape", "mse", "msle", "FalseNegatives",
    "FalsePositives", "Precision", "Recall", "SparseTopKCategoricalAccuracy", "TopKCategoricalAccuracy",
    "TrueNegatives", "TruePositives", "sparse_top_k_categorical_accuracy", "top_k_categorical_accuracy",
    "AUC", "BinaryIoU", "ConcordanceCorrelation", "F1Score", "FBetaScore", "IoU", "MeanIoU", "OneHotIoU",
    "OneHotMeanIoU", "PearsonCorrelation", "PrecisionAtRecall", "R2Score", "RecallAtPrecision",
    "SensitivityAtSpecificity", "SpecificityAtSensitivity", "concordance_correlation", "pearson_correlation",
    "binary_focal_crossentropy", "categorical_focal_crossentropy",
]  # fmt: skip

# The per-sample loss functions are metric functions too (``keras.metrics.mean_squared_error`` etc.).
binary_crossentropy = _losses.binary_crossentropy
categorical_crossentropy = _losses.categorical_crossentropy
sparse_categorical_crossentropy = _losses.sparse_categorical_crossentropy
mean_squared_error = _losses.mean_squared_error
mean_absolute_error = _losses.mean_absolute_error
mean_absolute_percentage_error = _losses.mean_absolute_percentage_error
mean_squared_logarithmic_error = _losses.mean_squared_logarithmic_error
kl_divergence = _losses.kl_divergence
poisson = _losses.poisson
binary_focal_crossentropy = _losses.binary_focal_crossentropy
categorical_focal_crossentropy = _losses.categorical_focal_crossentropy
log_cosh = _losses.log_cosh
huber = _losses.huber
hinge = _losses.hinge
squared_hinge = _losses.squared_hinge
categorical_hinge = _losses.categorical_hinge
# Keras' short names of the same functions.
KLD, MAE, MAPE, MSE, MSLE = _losses.KLD, _losses.MAE, _losses.MAPE, _losses.MSE, _losses.MSLE
kld, kullback_leibler_divergence, logcosh = _losses.kld, _losses.kullback_leibler_divergence, _losses.logcosh
mae, mape, mse, msle = _losses.mae, _losses.mape, _losses.mse, _losses.msle


def _shape(t: Tensor) -> tuple[int, ...]:
    return tuple(int(d) for d in t.shape)


def _tensor(x: Any, dtype: Any = None) -> Tensor:
    return _losses._tensor(x, dtype)


# --------------------------------------------------------------------------- base classes


class Metric:
    """Base class of metrics (``keras.metrics.Metric``).

    Subclasses create their state with :meth:`add_variable` in ``__init__`` and
    implement ``update_state`` and ``result``.

    Parameters
    ----------
    dtype : dtype-like, optional
        The dtype of the state and the result; ``floatx()`` (float32) by default.
    name : str, optional
        Defaults to the snake-case class name, made unique.
    """

    #: "up" or "down": which way is better (Keras' ``_direction``, read by callbacks in mode "auto").
    _direction: str | None = None

    def __init__(self, dtype: Any = None, name: str | None = None):
        self.name = name or unique_name(_losses._to_snake_case(type(self).__name__))
        self._dtype = str(getattr(dtype, "name", dtype) or floatx())
        self._variables: list[Variable] = []
        self._metrics: list[Metric] = []

    @property
    def dtype(self) -> str:
        """The dtype name of the state and result."""
        return self._dtype

    def add_variable(
        self, shape: Any, initializer: Any, dtype: Any = None, aggregation: str = "sum", name: str | None = None
    ) -> Variable:
        """Creates a non-trainable state Variable, tracked in :attr:`variables`.

        ``aggregation`` is accepted for Keras compatibility (tapers has no
        distribution strategies to aggregate across).
        """
        if not hasattr(self, "_variables"):
            raise RuntimeError("You forgot to call `super().__init__()` in the `__init__()` method. Go add it!")
        from . import initializers

        init = initializers.get(initializer)
        shape = [int(d) for d in (shape or ())]
        value = init(shape, dtype=dtype or self.dtype)
        var = Variable(value, trainable=False, name=name)
        self._variables.append(var)
        return var

    def add_weight(
        self, shape: Any = (), initializer: Any = None, dtype: Any = None, name: str | None = None
    ) -> Variable:
        """Same as :meth:`add_variable` (Keras' older name)."""
        return self.add_variable(shape=shape, initializer=initializer or "zeros", dtype=dtype, name=name)

    @property
    def variables(self) -> list[Variable]:
        """The state Variables, this metric's then its sub-metrics'."""
        out = list(self._variables)
        for m in self._metrics:
            out.extend(m.variables)
        return out

    def reset_state(self) -> None:
        """Sets every state Variable back to zeros (called between epochs)."""
        for v in self.variables:
            v.assign(_core.zeros(list(v.shape), dtype=v.dtype))

    def update_state(self, *args: Any, **kwargs: Any) -> None:
        """Accumulates a batch; subclasses implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement update_state")

    def result(self) -> Tensor:
        """The current value; subclasses implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement result")

    def __call__(self, *args: Any, **kwargs: Any) -> Tensor:
        """``update_state(*args, **kwargs)`` then ``result()``."""
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``dtype``."""
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Metric:
        """Rebuilds a metric from :meth:`get_config`'s dict."""
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}>"

    __str__ = __repr__


def reduce_to_samplewise_values(
    values: Any, sample_weight: Any, reduce_fn: Callable[..., Tensor], dtype: Any
) -> tuple[Tensor, Tensor | None]:
    """Keras' weighting of metric values: one value per sample, multiplied by its weight.

    Values with more dimensions than the weights are reduced (``reduce_fn``)
    over the extra ones; the weights are broadcast to the values; values of
    rank above 1 are then reduced to one per sample.
    """
    mask = _losses._get_mask(values) if isinstance(values, Tensor) else None
    values = _core.cast(_tensor(values), dtype)
    if sample_weight is not None:
        sample_weight = _tensor(sample_weight, dtype)
        if mask is not None:
            sample_weight = _losses._apply_mask(sample_weight, mask, dtype, "sum")
        values, sample_weight = _losses.squeeze_or_expand_to_same_rank(values, sample_weight)
        weight_ndim = len(sample_weight.shape)
        values_ndim = len(values.shape)
        if values_ndim > weight_ndim:
            values = reduce_fn(values, axis=list(range(weight_ndim, values_ndim)))
        sample_weight = _core.broadcast_to(sample_weight, list(_shape(values)))
        values = values * sample_weight
        if weight_ndim > 1:
            sample_weight = reduce_fn(sample_weight, axis=list(range(1, weight_ndim)))
    values_ndim = len(values.shape)
    if values_ndim > 1:
        values = reduce_fn(values, axis=list(range(1, values_ndim)))
    return values, sample_weight


class Sum(Metric):
    """The (weighted) sum of the values seen (``keras.metrics.Sum``); state: ``total``.

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    def __init__(self, name: str = "sum", dtype: Any = None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="total")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        """Adds ``sum(values * sample_weight)``."""
        values, _ = reduce_to_samplewise_values(values, sample_weight, _core.reduce_sum, self.dtype)
        self.total.assign_add(_core.reduce_sum(values))

    def reset_state(self) -> None:
        """Zeroes the total."""
        self.total.assign(_core.zeros([], dtype=self.dtype))

    def result(self) -> Tensor:
        """The total."""
        return _core.cast(_core.identity(self.total), self.dtype)


class Mean(Metric):
    """The (weighted) mean of the values seen (``keras.metrics.Mean``); state: ``total`` and ``count``.

    Each sample's value is the mean over its non-batch dimensions; with weights
    the result is ``sum(w * v) / sum(w)`` over all batches.

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    def __init__(self, name: str = "mean", dtype: Any = None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="total")
        self.count = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="count")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        """Adds the batch's weighted values to ``total`` and its weight (or sample count) to ``count``."""
        values, sample_weight = reduce_to_samplewise_values(values, sample_weight, _core.reduce_mean, self.dtype)
        self.total.assign_add(_core.reduce_sum(values))
        if sample_weight is not None:
            num = _core.reduce_sum(sample_weight)
        elif len(values.shape) >= 1:
            num = _core.constant(float(_shape(values)[0]), dtype=self.dtype)
        else:
            num = _core.constant(1.0, dtype=self.dtype)
        self.count.assign_add(_core.cast(num, self.dtype))

    def reset_state(self) -> None:
        """Zeroes total and count."""
        self.total.assign(_core.zeros([], dtype=self.dtype))
        self.count.assign(_core.zeros([], dtype=self.dtype))

    def result(self) -> Tensor:
        """``total / count``, 0 before any update."""
        return _losses._divide_no_nan(_core.identity(self.total), _core.identity(self.count))


class MeanMetricWrapper(Mean):
    """The mean of a per-sample function ``fn(y_true, y_pred, **kwargs)`` (``keras.metrics.MeanMetricWrapper``).

    Parameters
    ----------
    fn : callable
        The per-sample function ``fn(y_true, y_pred, **kwargs)``.
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    kwargs : keyword arguments
        Passed on to ``fn``.
    """

    def __init__(self, fn: Callable[..., Any], name: str | None = None, dtype: Any = None, **kwargs: Any):
        super().__init__(name=name, dtype=dtype)  # type: ignore[arg-type]
        self._fn = fn
        self._fn_kwargs = kwargs
        if self._direction is None and _is_keras_loss(fn):
            self._direction = "down"

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:  # type: ignore[override]
        """Adds ``fn(y_true, y_pred)``'s per-sample values, weighted by ``sample_weight`` and, as Keras 3,
        by ``y_pred``'s Keras mask (padded steps of an ``Embedding(mask_zero=True)`` model count for nothing)."""
        mask = _losses._get_mask(y_pred)
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        sample_weight = _losses._apply_mask(sample_weight, mask, self.dtype, "sum")
        super().update_state(values, sample_weight=sample_weight)

    def get_config(self) -> dict[str, Any]:
        """``name``, ``dtype``, the function's name and its keyword arguments."""
        return {**super().get_config(), "fn": getattr(self._fn, "__name__", repr(self._fn)), **self._fn_kwargs}


# --------------------------------------------------------------------------- accuracy functions


def accuracy(y_true: Any, y_pred: Any) -> Tensor:
    """1.0 where ``y_true == y_pred`` exactly, else 0.0 (after rank alignment).

    Parameters
    ----------
    y_true : Tensor-like
        Targets.
    y_pred : Tensor-like
        Predictions.

    Returns
    -------
    Tensor
        One value per sample (float32).
    """
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    y_true, y_pred = _losses.squeeze_or_expand_to_same_rank(y_true, y_pred)
    return _core.cast(_core.equal(y_true, y_pred), floatx())


def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> Tensor:
    """1.0 where ``(y_pred > threshold) == y_true``, else 0.0.

    Parameters
    ----------
    y_true : Tensor-like
        Targets.
    y_pred : Tensor-like
        Predictions.
    threshold : float
        Predictions above it count as 1.

    Returns
    -------
    Tensor
        One value per sample (float32).
    """
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true)
    y_true, y_pred = _losses.squeeze_or_expand_to_same_rank(y_true, y_pred)
    thr = _core.constant(threshold, dtype=y_pred.dtype)
    y_pred = _core.cast(_core.greater(y_pred, thr), y_true.dtype)
    return _core.cast(_core.equal(y_true, y_pred), floatx())


def categorical_accuracy(y_true: Any, y_pred: Any) -> Tensor:
    """1.0 where ``argmax(y_pred, -1) == argmax(y_true, -1)`` (one-hot targets), else 0.0.

    Parameters
    ----------
    y_true : Tensor-like
        Targets.
    y_pred : Tensor-like
        Predictions.

    Returns
    -------
    Tensor
        One value per sample (float32).
    """
    y_true = _core.argmax(_tensor(y_true), axis=-1)
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    org_shape = list(_shape(y_true))
    reshape = False
    if len(y_true.shape) == len(y_pred.shape):
        y_true = _core.squeeze(y_true, axis=-1)
        reshape = True
    y_pred = _core.cast(_core.argmax(y_pred, axis=-1), y_true.dtype)
    matches = _core.cast(_core.equal(y_true, y_pred), floatx())
    return _core.reshape(matches, org_shape) if reshape else matches


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> Tensor:
    """1.0 where ``argmax(y_pred, -1) == y_true`` (integer targets, a trailing 1 squeezed), else 0.0.

    Parameters
    ----------
    y_true : Tensor-like
        Targets.
    y_pred : Tensor-like
        Predictions.

    Returns
    -------
    Tensor
        One value per sample (float32).
    """
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    org_shape = list(_shape(y_true))
    reshape = False
    if len(y_true.shape) == len(y_pred.shape) and _shape(y_true)[-1] == 1:
        y_true = _core.squeeze(y_true, axis=-1)
        reshape = True
    y_pred = _core.cast(_core.argmax(y_pred, axis=-1), y_true.dtype)
    matches = _core.cast(_core.equal(y_true, y_pred), floatx())
    if reshape:
        matches = _core.reshape(matches, org_shape)
    if len(matches.shape) > 1 and _shape(matches)[-1] == 1:
        matches = _core.squeeze(matches, axis=-1)
    return matches


# --------------------------------------------------------------------------- metric classes


class Accuracy(MeanMetricWrapper):
    """How often ``y_pred`` equals ``y_true`` exactly (``keras.metrics.Accuracy``).

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    _direction = "up"

    def __init__(self, name: str = "accuracy", dtype: Any = None):
        super().__init__(fn=accuracy, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``dtype``."""
        return {"name": self.name, "dtype": self.dtype}


class BinaryAccuracy(MeanMetricWrapper):
    """How often ``y_pred > threshold`` matches binary ``y_true`` (``keras.metrics.BinaryAccuracy``).

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    threshold : float
        Predictions above it count as 1.
    """

    _direction = "up"

    def __init__(self, name: str = "binary_accuracy", dtype: Any = None, threshold: float = 0.5):
        super().__init__(fn=binary_accuracy, name=name, dtype=dtype, threshold=threshold)
        self.threshold = threshold

    def get_config(self) -> dict[str, Any]:
        """``name``, ``dtype``, ``threshold``."""
        return {"name": self.name, "dtype": self.dtype, "threshold": self.threshold}


class CategoricalAccuracy(MeanMetricWrapper):
    """How often the arg-max of ``y_pred`` matches one-hot ``y_true``'s (``keras.metrics.CategoricalAccuracy``).

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    _direction = "up"

    def __init__(self, name: str = "categorical_accuracy", dtype: Any = None):
        super().__init__(fn=categorical_accuracy, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``dtype``."""
        return {"name": self.name, "dtype": self.dtype}


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often the arg-max of ``y_pred`` equals integer ``y_true`` (``keras.metrics.SparseCategoricalAccuracy``).

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    _direction = "up"

    def __init__(self, name: str = "sparse_categorical_accuracy", dtype: Any = None):
        super().__init__(fn=sparse_categorical_accuracy, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``dtype``."""
        return {"name": self.name, "dtype": self.dtype}


class MeanSquaredError(MeanMetricWrapper):
    """The mean of :func:`tapers.keras.losses.mean_squared_error` over all samples seen.

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    _direction = "down"

    def __init__(self, name: str = "mean_squared_error", dtype: Any = None):
        super().__init__(fn=_losses.mean_squared_error, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``dtype``."""
        return {"name": self.name, "dtype": self.dtype}


class MeanAbsoluteError(MeanMetricWrapper):
    """The mean of :func:`tapers.keras.losses.mean_absolute_error` over all samples seen.

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    _direction = "down"

    def __init__(self, name: str = "mean_absolute_error", dtype: Any = None):
        super().__init__(fn=_losses.mean_absolute_error, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``dtype``."""
        return {"name": self.name, "dtype": self.dtype}


class BinaryCrossentropy(MeanMetricWrapper):
    """The mean binary cross-entropy over all samples seen (``keras.metrics.BinaryCrossentropy``).

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    from_logits : bool
        Whether ``y_pred`` holds logits rather than probabilities.
    label_smoothing : float
        Label smoothing in ``[0, 1]``.
    """

    _direction = "down"

    def __init__(
        self,
        name: str = "binary_crossentropy",
        dtype: Any = None,
        from_logits: bool = False,
        label_smoothing: float = 0,
    ):
        super().__init__(
            _losses.binary_crossentropy, name, dtype=dtype, from_logits=from_logits, label_smoothing=label_smoothing
        )
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing

    def get_config(self) -> dict[str, Any]:
        """``name``, ``dtype``, ``from_logits``, ``label_smoothing``."""
        return {
            "name": self.name,
            "dtype": self.dtype,
            "from_logits": self.from_logits,
            "label_smoothing": self.label_smoothing,
        }


class CategoricalCrossentropy(MeanMetricWrapper):
    """The mean categorical cross-entropy over all samples seen (``keras.metrics.CategoricalCrossentropy``).

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    from_logits : bool
        Whether ``y_pred`` holds logits rather than probabilities.
    label_smoothing : float
        Label smoothing in ``[0, 1]``.
    axis : int
        The class axis.
    """

    _direction = "down"

    def __init__(
        self,
        name: str = "categorical_crossentropy",
        dtype: Any = None,
        from_logits: bool = False,
        label_smoothing: float = 0,
        axis: int = -1,
    ):
        super().__init__(
            _losses.categorical_crossentropy,
            name,
            dtype=dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis

    def get_config(self) -> dict[str, Any]:
        """``name``, ``dtype``, ``from_logits``, ``label_smoothing``, ``axis``."""
        return {
            "name": self.name,
            "dtype": self.dtype,
            "from_logits": self.from_logits,
            "label_smoothing": self.label_smoothing,
            "axis": self.axis,
        }


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """The mean sparse categorical cross-entropy over all samples seen.

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    from_logits : bool
        Whether ``y_pred`` holds logits rather than probabilities.
    ignore_class : int, optional
        A label left out of the loss (masked).
    axis : int
        The class axis (only the last one is supported).
    """

    _direction = "down"

    def __init__(
        self,
        name: str = "sparse_categorical_crossentropy",
        dtype: Any = None,
        from_logits: bool = False,
        ignore_class: int | None = None,
        axis: int = -1,
    ):
        super().__init__(
            _losses.sparse_categorical_crossentropy,
            name,
            dtype=dtype,
            from_logits=from_logits,
            ignore_class=ignore_class,
            axis=axis,
        )
        self.from_logits = from_logits
        self.ignore_class = ignore_class
        self.axis = axis

    def get_config(self) -> dict[str, Any]:
        """``name``, ``dtype``, ``from_logits``, ``ignore_class``, ``axis``."""
        return {
            "name": self.name,
            "dtype": self.dtype,
            "from_logits": self.from_logits,
            "ignore_class": self.ignore_class,
            "axis": self.axis,
        }


class MeanAbsolutePercentageError(MeanMetricWrapper):
    """``keras.metrics.MeanAbsolutePercentageError``: the running mean of ``losses.mean_absolute_percentage_error``.

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    _direction = "down"

    def __init__(self, name: str = "mean_absolute_percentage_error", dtype: Any = None):
        super().__init__(fn=_losses.mean_absolute_percentage_error, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``dtype``."""
        return {"name": self.name, "dtype": self.dtype}


class MeanSquaredLogarithmicError(MeanMetricWrapper):
    """``keras.metrics.MeanSquaredLogarithmicError``: the running mean of ``losses.mean_squared_logarithmic_error``.

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    _direction = "down"

    def __init__(self, name: str = "mean_squared_logarithmic_error", dtype: Any = None):
        super().__init__(fn=_losses.mean_squared_logarithmic_error, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``dtype``."""
        return {"name": self.name, "dtype": self.dtype}


class LogCoshError(MeanMetricWrapper):
    """``keras.metrics.LogCoshError``: the running mean of ``losses.log_cosh``.

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    _direction = "down"

    def __init__(self, name: str = "logcosh", dtype: Any = None):
        super().__init__(fn=_losses.log_cosh, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``dtype``."""
        return {"name": self.name, "dtype": self.dtype}


class KLDivergence(MeanMetricWrapper):
    """``keras.metrics.KLDivergence``: the running mean of ``losses.kl_divergence``.

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    _direction = "down"

    def __init__(self, name: str = "kl_divergence", dtype: Any = None):
        super().__init__(fn=_losses.kl_divergence, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``dtype``."""
        return {"name": self.name, "dtype": self.dtype}


class Poisson(MeanMetricWrapper):
    """``keras.metrics.Poisson``: the running mean of ``losses.poisson``.

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    _direction = "down"

    def __init__(self, name: str = "poisson", dtype: Any = None):
        super().__init__(fn=_losses.poisson, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``dtype``."""
        return {"name": self.name, "dtype": self.dtype}


class Hinge(MeanMetricWrapper):
    """``keras.metrics.Hinge``: the running mean of ``losses.hinge``.

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    _direction = "down"

    def __init__(self, name: str = "hinge", dtype: Any = None):
        super().__init__(fn=_losses.hinge, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``dtype``."""
        return {"name": self.name, "dtype": self.dtype}


class SquaredHinge(MeanMetricWrapper):
    """``keras.metrics.SquaredHinge``: the running mean of ``losses.squared_hinge``.

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    _direction = "down"

    def __init__(self, name: str = "squared_hinge", dtype: Any = None):
        super().__init__(fn=_losses.squared_hinge, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``dtype``."""
        return {"name": self.name, "dtype": self.dtype}


class CategoricalHinge(MeanMetricWrapper):
    """``keras.metrics.CategoricalHinge``: the running mean of ``losses.categorical_hinge``.

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    _direction = "down"

    def __init__(self, name: str = "categorical_hinge", dtype: Any = None):
        super().__init__(fn=_losses.categorical_hinge, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``dtype``."""
        return {"name": self.name, "dtype": self.dtype}


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Tensor:
    """Cosine similarity along ``axis`` (positive, unlike the loss of that name).

    Parameters
    ----------
    y_true : Tensor-like
        Targets.
    y_pred : Tensor-like
        Predictions.
    axis : int
        The axis the similarity is computed along.

    Returns
    -------
    Tensor
        ``sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)``: one value per sample.
    """
    out: Tensor = -_losses.cosine_similarity(y_true, y_pred, axis=axis)
    return out


class CosineSimilarity(MeanMetricWrapper):
    """The mean cosine similarity over all samples seen (``keras.metrics.CosineSimilarity``).

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    axis : int
        The axis the similarity is computed along.
    """

    _direction = "up"

    def __init__(self, name: str = "cosine_similarity", dtype: Any = None, axis: int = -1):
        super().__init__(cosine_similarity, name, dtype=dtype, axis=axis)
        self.axis = axis

    def get_config(self) -> dict[str, Any]:
        """``name``, ``dtype`` and ``axis`` (Keras forgets ``axis``, so its configs do not round-trip)."""
        return {"name": self.name, "dtype": self.dtype, "axis": self.axis}


class RootMeanSquaredError(Mean):
    """``sqrt`` of the mean squared error over all samples seen (``keras.metrics.RootMeanSquaredError``).

    Parameters
    ----------
    name : str
        The object's name.
    dtype : dtype-like, optional
        Computation dtype; ``floatx()`` (float32) by default.
    """

    _direction = "down"

    def __init__(self, name: str = "root_mean_squared_error", dtype: Any = None):
        super().__init__(name, dtype=dtype)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:  # type: ignore[override]
        """Adds the batch's squared errors (weighted by ``sample_weight``)."""
        y_true = _tensor(y_true, self.dtype)
        y_pred = _tensor(y_pred, self.dtype)
        y_true, y_pred = _losses.squeeze_or_expand_to_same_rank(y_true, y_pred)
        super().update_state(_core.square(y_pred - y_true), sample_weight=sample_weight)

    def result(self) -> Tensor:
        """``sqrt(total / count)``."""
        return _core.sqrt(super().result())


# The threshold metrics and top-k accuracies subclass the classes above.
from ._confusion import (  # noqa: E402
    FalseNegatives,
    FalsePositives,
    Precision,
    Recall,
    SparseTopKCategoricalAccuracy,
    TopKCategoricalAccuracy,
    TrueNegatives,
    TruePositives,
    sparse_top_k_categorical_accuracy,
    top_k_categorical_accuracy,
)

# AUC, X-at-Y, F-scores, R2, IoU and correlations subclass them too.
from ._metrics_extra import (  # noqa: E402
    AUC,
    BinaryIoU,
    ConcordanceCorrelation,
    F1Score,
    FBetaScore,
    IoU,
    MeanIoU,
    OneHotIoU,
    OneHotMeanIoU,
    PearsonCorrelation,
    PrecisionAtRecall,
    R2Score,
    RecallAtPrecision,
    SensitivityAtSpecificity,
    SpecificityAtSensitivity,
    concordance_correlation,
    pearson_correlation,
)

# --------------------------------------------------------------------------- lookup

_CLASSES: list[type[Metric]] = [
    Metric, Mean, Sum, MeanMetricWrapper, MeanSquaredError, MeanAbsoluteError, BinaryCrossentropy,
    CategoricalCrossentropy, SparseCategoricalCrossentropy, Accuracy, BinaryAccuracy, CategoricalAccuracy,
    SparseCategoricalAccuracy, MeanAbsolutePercentageError, MeanSquaredLogarithmicError, LogCoshError, KLDivergence,
    Poisson, Hinge, SquaredHinge, CategoricalHinge, CosineSimilarity, RootMeanSquaredError, TruePositives,
    FalsePositives, TrueNegatives, FalseNegatives, Precision, Recall, TopKCategoricalAccuracy,
    SparseTopKCategoricalAccuracy, AUC, PrecisionAtRecall, RecallAtPrecision, SensitivityAtSpecificity,
    SpecificityAtSensitivity, FBetaScore, F1Score, R2Score, IoU, MeanIoU, BinaryIoU, OneHotIoU, OneHotMeanIoU,
    PearsonCorrelation, ConcordanceCorrelation,
]  # fmt: skip
_BY_NAME: dict[str, Any] = {c.__name__: c for c in _CLASSES}
_BY_NAME.update({_losses._to_snake_case(c.__name__): c for c in _CLASSES})
_BY_NAME.update({"mse": MeanSquaredError, "MSE": MeanSquaredError, "mae": MeanAbsoluteError, "MAE": MeanAbsoluteError})
_BY_NAME.update({"bce": BinaryCrossentropy, "BCE": BinaryCrossentropy})
_BY_NAME.update({"mape": MeanAbsolutePercentageError, "MAPE": MeanAbsolutePercentageError})
_BY_NAME.update({"msle": MeanSquaredLogarithmicError, "MSLE": MeanSquaredLogarithmicError})


def serialize(metric: Metric) -> dict[str, Any]:
    """``{"class_name", "config"}`` of a metric object.

    Parameters
    ----------
    metric : Metric
        The metric to serialize.

    Returns
    -------
    dict
        ``{"class_name": ..., "config": ...}``.
    """
    return to_config(metric)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """Inverse of :func:`serialize` (``custom_objects`` may add classes).

    Parameters
    ----------
    config : str or dict
        A serialized form.
    custom_objects : dict, optional
        Extra names to resolve.

    Returns
    -------
    Metric or type
        A metric object (from a dict) or the named class.
    """
    return from_table(config, _BY_NAME, custom_objects, "metric", Metric)


def get(identifier: Any) -> Any:
    """Resolves a metric (``keras.metrics.get``): a name or class gives a new instance, a callable is kept.

    ``"accuracy"`` gives :class:`Accuracy` (exact match) here; ``compile``
    resolves it by shape instead, see :func:`get_metric`.

    Parameters
    ----------
    identifier : None, str, dict, Metric class or callable
        What to resolve.

    Returns
    -------
    Metric, callable or None
        A metric object, or the callable given.

    Raises
    ------
    ValueError
        For an unknown name or a non-callable object.
    """
    if identifier is None:
        return None
    return resolve(identifier, _BY_NAME, "metric", deserialize)


def is_binary_or_sparse_categorical(y_true: Any, y_pred: Any) -> tuple[bool, bool]:
    """Keras compile's guess from shapes: binary when ``y_pred`` ends in 1; sparse when ``y_true`` has lower rank,
    or ends in 1 while ``y_pred`` does not.

    Parameters
    ----------
    y_true : Tensor-like
        Targets.
    y_pred : Tensor-like
        Predictions.

    Returns
    -------
    tuple of bool
        ``(is_binary, is_sparse_categorical)``.
    """
    yt = tuple(getattr(y_true, "shape", None) or _shape(_tensor(y_true)))
    yp = tuple(getattr(y_pred, "shape", None) or _shape(_tensor(y_pred)))
    is_binary = yp[-1] == 1
    is_sparse = len(yt) < len(yp) or (yt[-1] == 1 and yp[-1] > 1)
    return is_binary, is_sparse


def get_metric(identifier: Any, y_true: Any, y_pred: Any) -> Metric:
    """The metric object ``compile(metrics=[identifier])`` builds for these targets and predictions.

    ``"accuracy"``/``"acc"`` become :class:`BinaryAccuracy` (``y_pred`` ends in
    1), :class:`SparseCategoricalAccuracy` (integer targets) or
    :class:`CategoricalAccuracy`, named after the identifier; other strings
    go through :func:`get`; a plain function is wrapped in
    :class:`MeanMetricWrapper`. A string identifier becomes the metric's name.

    Parameters
    ----------
    identifier : str, Metric, Metric class or callable
        What ``compile(metrics=...)`` was given.
    y_true : Tensor-like
        Targets.
    y_pred : Tensor-like
        Predictions.

    Returns
    -------
    Metric
        A new metric object (or the one given), named as Keras names it.
    """
    if identifier is None:
        raise ValueError("Expected metric, received `None`")
    if str(identifier).lower() in ("accuracy", "acc"):
        is_binary, is_sparse = is_binary_or_sparse_categorical(y_true, y_pred)
        if is_binary:
            obj: Any = BinaryAccuracy(name=str(identifier))
        elif is_sparse:
            obj = SparseCategoricalAccuracy(name=str(identifier))
        else:
            obj = CategoricalAccuracy(name=str(identifier))
    else:
        obj = get(identifier)
    if isinstance(identifier, str):
        name = identifier
    else:
        name = obj.name if isinstance(obj, Metric) else getattr(obj, "__name__", type(obj).__name__)
    if not isinstance(obj, Metric):
        obj = MeanMetricWrapper(obj)
    obj.name = name
    metric: Metric = obj
    return metric


def _is_keras_loss(fn: Any) -> bool:
    # A function or class of keras.losses (Keras marks the metric's direction "down").
    table = _losses._BY_NAME
    return any(fn is v for v in table.values()) or any(type(fn) is v for v in table.values())
