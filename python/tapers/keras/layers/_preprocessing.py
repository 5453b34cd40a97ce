"""Keras 3's preprocessing and wrapper layers: ``Normalization``, ``CategoryEncoding``,
``Discretization``, ``TimeDistributed`` and ``GroupNormalization``.

They compute with tapers ops only, so they run eagerly, inside ``tapers.function``
and under ``GradientTape``. ``adapt`` (of ``Normalization``) reads the data once,
outside any graph, as Keras does.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ... import _core
from ..._module import _current_scope
from .. import backend, constraints, regularizers
from ._base import Layer, Wrapper, _dtype_name, _serialized
from ._core_layers import _initializer_config
from ._normalization import _moments

__all__ = ["CategoryEncoding", "Discretization", "GroupNormalization", "Normalization", "TimeDistributed"]

Tensor = _core.Tensor
Variable = _core.Variable


def _tf() -> Any:
    import tapers

    return tapers


def _is_tensor(x: Any) -> bool:
    return isinstance(x, (Tensor, Variable))


# ----------------------------------------------------------------------------- Normalization


class Normalization(Layer):
    """Shifts and scales inputs to mean 0 and variance 1 per feature
    (``keras.layers.Normalization``): ``(x - mean) / max(sqrt(variance), 1e-7)``.

    The statistics are given (``mean`` and ``variance``, broadcast over the kept
    axes) or learned with :meth:`adapt`, which stores them in the non-trainable
    weights ``mean``, ``variance`` (and ``count``, left at 0 as Keras 3 does).
    With ``invert=True`` the layer undoes a normalization:
    ``mean + x * max(sqrt(variance), 1e-7)``.

    Parameters
    ----------
    axis : int, sequence of int or None
        The axes that keep their own statistics (default the last); ``None``
        for one mean and variance over everything.
    mean, variance : float or array-like, optional
        Given statistics (both or neither); their rank is at most ``len(axis)``.
    invert : bool
        Apply the inverse transformation.
    """

    def __init__(
        self,
        axis: int | Sequence[int] | None = -1,
        mean: Any = None,
        variance: Any = None,
        invert: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if axis is None:
            self.axis: tuple[int, ...] = ()
        elif isinstance(axis, int):
            self.axis = (int(axis),)
        else:
            self.axis = tuple(int(a) for a in axis)
        self.input_mean = mean
        self.input_variance = variance
        self.invert = bool(invert)
        self.supports_masking = True
        self._build_input_shape: tuple[int | None, ...] | None = None
        self.mean: Any = None
        self.variance: Any = None
        if (mean is not None) != (variance is not None):
            raise ValueError(
                "When setting values directly, both `mean` and `variance` must be set. "
                f"Received: mean={mean} and variance={variance}"
            )
        if mean is not None:
            if np.shape(mean) != np.shape(variance):
                raise ValueError(
                    "When setting values directly, `mean` and `variance` must have the same shape. "
                    f"Received: mean shape {np.shape(mean)} and variance shape {np.shape(variance)}"
                )
            if len(np.shape(mean)) > len(self.axis):
                raise ValueError(
                    f"The rank of `mean` must be less than or equal to the number of axes ({len(self.axis)}). "
                    f"Received: mean rank {len(np.shape(mean))}"
                )

    def build(self, input_shape: Any = None) -> None:
        """Checks ``axis`` against the input's rank and creates ``mean``, ``variance`` and ``count``
        (adapted layers) or broadcasts the given statistics."""
        if input_shape is None:
            return
        input_shape = tuple(input_shape)
        ndim = len(input_shape)
        self._build_input_shape = input_shape
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError(
                "All `axis` values must be in the range [-ndim, ndim). "
                f"Received inputs with ndim={ndim}, while axis={self.axis}"
            )
        self._keep_axis = tuple(sorted(a % ndim for a in self.axis))
        for d in self._keep_axis:
            if input_shape[d] is None:
                raise ValueError(
                    f"All `axis` values to be kept must have a known shape. Received axis={self.axis}, "
                    f"inputs.shape={input_shape}, with unknown axis at index {d}"
                )
        self._reduce_axis = tuple(d for d in range(ndim) if d not in self._keep_axis)
        self._broadcast_shape = [int(input_shape[d]) if d in self._keep_axis else 1 for d in range(ndim)]
        self._mean_and_var_shape = tuple(int(input_shape[d]) for d in self._keep_axis)
        dtype = self.compute_dtype
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(
                name="mean", shape=self._mean_and_var_shape, initializer="zeros", trainable=False
            )
            self.adapt_variance = self.add_weight(
                name="variance", shape=self._mean_and_var_shape, initializer="ones", trainable=False
            )
            self.count = self.add_weight(name="count", shape=(), dtype="int64", initializer="zeros", trainable=False)
            self.built = True
            self.finalize_state()
        else:
            mean = np.asarray(self.input_mean, dtype=np.float64)
            variance = np.asarray(self.input_variance, dtype=np.float64)
            if mean.ndim > 0:
                expanded = [1] * ndim
                for i in range(1, mean.ndim + 1):
                    expanded[self._keep_axis[-i]] = mean.shape[-i]
                try:
                    mean = np.broadcast_to(mean.reshape(expanded), self._broadcast_shape)
                    variance = np.broadcast_to(variance.reshape(expanded), self._broadcast_shape)
                except ValueError as e:
                    raise ValueError(
                        f"Normalization: `mean` of shape {np.shape(self.input_mean)} does not broadcast to the "
                        f"kept axes {self._keep_axis} of inputs with shape {input_shape}"
                    ) from e
            else:
                mean = np.broadcast_to(mean, self._broadcast_shape)
                variance = np.broadcast_to(variance, self._broadcast_shape)
            self.mean = _core.convert_to_tensor(np.ascontiguousarray(mean).astype(dtype))
            self.variance = _core.convert_to_tensor(np.ascontiguousarray(variance).astype(dtype))
            self.built = True

    def adapt(self, data: Any) -> None:
        """Learns the mean and variance of ``data`` over the axes not in ``axis``.

        Parameters
        ----------
        data : numpy array, tensor, tapers.data.Dataset or iterable of batches
            A dataset or iterable must yield batches (a dataset of rank-1
            elements is batched by 128, as in Keras); ``(x, y)`` elements use ``x``.

        Returns
        -------
        None
        """
        from ...data import Dataset

        batches: Any = None
        if isinstance(data, np.ndarray) or _is_tensor(data):
            input_shape = tuple(data.shape)
        elif isinstance(data, Dataset):
            spec = data.element_spec
            spec = spec[0] if isinstance(spec, tuple) else spec
            input_shape = tuple(spec.shape)
            if len(input_shape) == 1:
                data = data.batch(128)
                spec = data.element_spec
                spec = spec[0] if isinstance(spec, tuple) else spec
                input_shape = tuple(spec.shape)
            batches = data
        elif hasattr(data, "__iter__"):
            items = [b[0] if isinstance(b, tuple) else b for b in data]
            if not items:
                raise ValueError("adapt() received an empty iterable (no batches). Expected at least one batch.")
            if not hasattr(items[0], "shape"):
                raise TypeError(
                    "adapt() expects an iterable that yields arrays or tensors with a `.shape` attribute. "
                    f"Got an element of type {type(items[0]).__name__}."
                )
            input_shape = tuple(items[0].shape)
            batches = items
        else:
            raise TypeError(
                f"Unsupported data type: {type(data)}. `adapt` supports `np.ndarray`, tensors, "
                "`tapers.data.Dataset` and iterables of batches."
            )
        if not self.built:
            self.build(input_shape)
        else:
            self._check_shape(input_shape, "adapt() is being called with data")
        if self.input_mean is not None:
            raise ValueError("Normalization: adapt() cannot be used on a layer constructed with `mean` and `variance`.")
        tf = _tf()
        axes = list(self._reduce_axis)
        if isinstance(data, np.ndarray):
            total_mean = np.mean(data, axis=tuple(axes))
            total_var = np.var(data, axis=tuple(axes))
        elif batches is None:
            x = _core.cast(data, self.compute_dtype)
            total_mean = _core.reduce_mean(x, axis=axes)
            total_var = tf.math.reduce_variance(x, axis=axes)
        else:
            total_mean = _core.zeros(self._mean_and_var_shape, dtype=self.compute_dtype)
            total_var = _core.zeros(self._mean_and_var_shape, dtype=self.compute_dtype)
            total_count = 0
            for batch in batches:
                batch = batch[0] if isinstance(batch, tuple) else batch
                batch = _core.cast(_core.convert_to_tensor(batch), self.compute_dtype)
                self._check_shape(tuple(batch.shape), "adapt() yielded a batch")
                batch_mean = _core.reduce_mean(batch, axis=axes)
                batch_var = tf.math.reduce_variance(batch, axis=axes)
                batch_count = math.prod(int(batch.shape[d]) for d in axes) if axes else 1
                total_count += batch_count
                w = float(batch_count) / total_count
                new_mean = total_mean * (1.0 - w) + batch_mean * w
                total_var = (total_var + _core.square(total_mean - new_mean)) * (1.0 - w) + (
                    batch_var + _core.square(batch_mean - new_mean)
                ) * w
                total_mean = new_mean
        self.adapt_mean.assign(_core.cast(total_mean, self.adapt_mean.dtype))
        self.adapt_variance.assign(_core.cast(total_var, self.adapt_variance.dtype))
        self.finalize_state()

    def _check_shape(self, shape: tuple[Any, ...], what: str) -> None:
        built = self._build_input_shape
        assert built is not None
        if len(shape) != len(built) or any(shape[d] is not None and shape[d] != built[d] for d in self._keep_axis):
            raise ValueError(
                f"The layer was built with input_shape={built}, but {what} with an incompatible shape, "
                f"shape={shape} (axis={self.axis} must match)."
            )

    def finalize_state(self) -> None:
        """Sets ``mean`` and ``variance`` (broadcastable tensors) from the adapted weights."""
        if self.input_mean is not None or not self.built:
            return
        self.mean = _core.reshape(self.adapt_mean, self._broadcast_shape)
        self.variance = _core.reshape(self.adapt_variance, self._broadcast_shape)

    def _stats(self) -> tuple[Any, Any]:
        if self.input_mean is None:  # read the weights, so assignments show and tapers.function sees them
            return (
                _core.reshape(self.adapt_mean, self._broadcast_shape),
                _core.reshape(self.adapt_variance, self._broadcast_shape),
            )
        return self.mean, self.variance

    def call(self, inputs: Any) -> Tensor:
        """``(x - mean) / max(sqrt(variance), 1e-7)``, or the inverse with ``invert``."""
        if not self.built or self._build_input_shape is None:
            raise ValueError("You must call `.build(input_shape)` on the layer before using it.")
        x = _core.cast(_core.convert_to_tensor(inputs), self.compute_dtype)
        self._check_shape(tuple(x.shape), "it is called on inputs")
        mean, variance = self._stats()
        scale = _core.maximum(_core.sqrt(variance), backend.epsilon())
        if self.invert:
            return mean + x * scale
        return (x - mean) / scale

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape."""
        return tuple(input_shape)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: ``axis``, ``invert``, ``mean``, ``variance``."""
        return {
            **super().get_config(),
            "axis": self.axis,
            "invert": self.invert,
            "mean": np.array(self.input_mean).tolist(),
            "variance": np.array(self.input_variance).tolist(),
        }


# ----------------------------------------------------------------------------- CategoryEncoding

_MODES = ("one_hot", "multi_hot", "count")


def _encode(x: Any, mode: str, depth: int, dtype: str, count_weights: Any = None) -> Tensor:
    """Keras' ``encode_categorical_inputs`` for ``one_hot``, ``multi_hot`` and ``count``."""
    if mode == "int":
        return _core.cast(x, dtype)
    rank = len(x.shape)
    if rank == 0:
        x = _core.reshape(x, [1])
        rank = 1
    if mode == "one_hot":
        if rank > 1 and x.shape[-1] == 1:
            x = _core.squeeze(x, axis=[-1])
        return _tf().one_hot(x, depth, dtype=dtype)
    hot = _tf().one_hot(x, depth, dtype=dtype)
    if mode == "multi_hot":
        return _core.reduce_max(hot, axis=-2)
    if count_weights is not None:
        hot = hot * _core.expand_dims(_core.cast(count_weights, dtype), -1)
    return _core.reduce_sum(hot, axis=-2)


def _check_ids(x: Any, depth: int) -> Any:
    """Integer ids in ``[0, depth)``: Keras' error for others (an InvalidArgumentError)."""
    tf = _tf()
    if x.dtype.is_floating:
        x = _core.cast(x, "int32")
    elif not x.dtype.is_integer:
        raise ValueError(f"CategoryEncoding/Discretization expects integer ids, got dtype {x.dtype.name}")
    message = f"Input values must be in the range 0 <= values < num_tokens with num_tokens={depth}"
    tf.debugging.assert_non_negative(x, message=message)
    tf.debugging.assert_less(x, _core.cast(depth, x.dtype), message=message)
    return x


class CategoryEncoding(Layer):
    """Encodes integer ids in ``[0, num_tokens)`` as dense one-hot, multi-hot or count vectors
    (``keras.layers.CategoryEncoding``).

    ``one_hot`` adds a ``num_tokens`` axis (replacing a trailing axis of size 1);
    ``multi_hot`` and ``count`` reduce the last axis (a rank-1 input is one
    sample) to ``num_tokens`` flags or counts, optionally weighted by
    ``count_weights`` (``count`` only). Ids out of range raise ``InvalidArgumentError``.

    Parameters
    ----------
    num_tokens : int
        The number of ids (the output's last dimension).
    output_mode : str
        ``"multi_hot"`` (default), ``"one_hot"`` or ``"count"``.
    sparse : bool
        Must be False: tapers has no sparse tensors.
    """

    def __init__(self, num_tokens: int | None = None, output_mode: str = "multi_hot", sparse: bool = False,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(**kwargs)
        if num_tokens is None:
            raise ValueError("num_tokens must be set to use this layer. If the number of tokens is not known "
                             "beforehand, use the IntegerLookup layer instead.")  # fmt: skip
        if int(num_tokens) < 1:
            raise ValueError(f"`num_tokens` must be >= 1. Received: num_tokens={num_tokens}.")
        if output_mode not in _MODES:
            raise ValueError(f"Unknown arg for output_mode: {output_mode}. Expected one of {list(_MODES)}.")
        if sparse:
            raise ValueError("tapers.keras: CategoryEncoding(sparse=True) is not supported (no sparse tensors).")
        self.num_tokens = int(num_tokens)
        self.output_mode = output_mode
        self.sparse = False
        self._allow_non_tensor_positional_args = True
        self._convert_input_args = False

    def call(self, inputs: Any, count_weights: Any = None) -> Tensor:
        """The encoded ids, in the layer's dtype."""
        if count_weights is not None and self.output_mode != "count":
            raise ValueError(
                "`count_weights` is not used when `output_mode` is not `'count'`. "
                f"Received `count_weights={count_weights}`."
            )
        x = _check_ids(_core.convert_to_tensor(inputs), self.num_tokens)
        if count_weights is not None:
            count_weights = _core.convert_to_tensor(count_weights)
            if tuple(count_weights.shape) != tuple(x.shape):
                raise ValueError(
                    f"`count_weights` must have the inputs' shape {tuple(x.shape)}, got {tuple(count_weights.shape)}"
                )
        return _encode(x, self.output_mode, self.num_tokens, self.compute_dtype, count_weights)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """``input_shape`` with its last axis replaced by (or, for ``one_hot``, extended with) ``num_tokens``."""
        input_shape = tuple(input_shape)
        if len(input_shape) == 0:
            return (self.num_tokens,)
        if self.output_mode == "one_hot":
            if input_shape[-1] != 1 or len(input_shape) == 1:
                return input_shape + (self.num_tokens,)
            return input_shape[:-1] + (self.num_tokens,)
        return input_shape[:-1] + (self.num_tokens,)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: ``num_tokens``, ``output_mode``."""
        return {**super().get_config(), "num_tokens": self.num_tokens, "output_mode": self.output_mode}


# ----------------------------------------------------------------------------- Discretization


def _summarize(values: np.ndarray, epsilon: float) -> np.ndarray:
    """Keras' quantile summary of a batch: every ``step``-th sorted value with weight ``step``
    (``step = max(size * epsilon, 1)``); row 0 the values, row 1 the weights."""
    values = np.sort(np.reshape(values, [-1]))
    step = max(np.size(values) * epsilon, 1)
    picked = values[int(step - 1) :: int(step)]
    return np.stack([picked, np.ones_like(picked) * step])


def _compress_summary(summary: np.ndarray, epsilon: float) -> np.ndarray:
    """Re-samples a summary at cumulative-weight fractions ``epsilon, 2 epsilon, ..., 1`` (kept as is
    when it is already that small)."""
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cum = summary[1].cumsum()
    frac = cum / cum[-1]
    bins = np.interp(percents, frac, summary[0])
    new_cum = np.interp(percents, frac, cum)
    weights = new_cum - np.concatenate((np.array([0]), new_cum[:-1]))
    return np.stack((bins, weights)).astype("float32")


def _merge_summaries(a: np.ndarray, b: np.ndarray, epsilon: float) -> np.ndarray:
    """Two summaries merged by value, then compressed to ``epsilon``."""
    merged = np.concatenate((a, b), axis=1)
    return _compress_summary(np.take(merged, np.argsort(merged[0]), axis=1), epsilon)


class Discretization(Layer):
    """Buckets continuous values (``keras.layers.Discretization``): bucket ``i``
    holds ``boundaries[i-1] <= x < boundaries[i]``, so there are
    ``len(bin_boundaries) + 1`` buckets.

    The boundaries are given (``bin_boundaries``) or learned by :meth:`adapt`
    as ``num_bins`` approximate quantiles, with Keras' weighted quantile
    summary of relative precision ``epsilon`` (the same numbers as Keras).
    ``output_mode="int"`` returns the bucket ids (int32); ``"one_hot"``,
    ``"multi_hot"`` and ``"count"`` encode them as :class:`CategoryEncoding` does.

    Parameters
    ----------
    bin_boundaries : sequence of float, optional
        Sorted boundaries.
    num_bins : int, optional
        The number of buckets ``adapt`` learns (instead of ``bin_boundaries``).
    epsilon : float
        The quantile summary's error tolerance (default 0.01).
    output_mode : str
        ``"int"`` (default), ``"one_hot"``, ``"multi_hot"`` or ``"count"``.
    sparse : bool
        Must be False.
    """

    def __init__(
        self,
        bin_boundaries: Sequence[float] | None = None,
        num_bins: int | None = None,
        epsilon: float = 0.01,
        output_mode: str = "int",
        sparse: bool = False,
        dtype: Any = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        if output_mode not in ("int", *_MODES):
            raise ValueError(f"Unknown arg for output_mode: {output_mode}. Expected one of {['int', *_MODES]}.")
        if sparse:
            raise ValueError("tapers.keras: Discretization(sparse=True) is not supported (no sparse tensors).")
        if num_bins is not None and num_bins < 0:
            raise ValueError(f"`num_bins` must be greater than or equal to 0. Received: `num_bins={num_bins}`")
        if num_bins is not None and bin_boundaries is not None:
            raise ValueError(
                "Both `num_bins` and `bin_boundaries` should not be set. "
                f"Received: `num_bins={num_bins}` and `bin_boundaries={bin_boundaries}`"
            )
        if num_bins is None and bin_boundaries is None:
            raise ValueError("You need to set either `num_bins` or `bin_boundaries`.")
        self.bin_boundaries: list[float] | None = None
        if bin_boundaries is not None:
            boundaries = [float(b) for b in bin_boundaries]
            if any(b > a for b, a in zip(boundaries, boundaries[1:])):
                raise ValueError(f"`bin_boundaries` must be sorted, got {boundaries}")
            self.bin_boundaries = boundaries
        self.num_bins = num_bins
        self.epsilon = float(epsilon)
        self.output_mode = output_mode
        self.sparse = False
        self.output_dtype = "int32" if output_mode == "int" else _dtype_name(dtype)
        self._summary = np.zeros((2, 0), np.float32)

    def adapt(self, data: Any, steps: int | None = None) -> None:
        """Learns ``num_bins - 1`` boundaries: approximate quantiles of all the values in ``data``.

        Parameters
        ----------
        data : numpy array, tensor, tapers.data.Dataset or iterable of batches
            The values (any shape; all are pooled).
        steps : int, optional
            The number of batches of a dataset or iterable to read.

        Returns
        -------
        None
        """
        if self.num_bins is None:
            raise ValueError(
                "Cannot adapt a Discretization layer that has been initialized with `bin_boundaries`, "
                "use `num_bins` instead."
            )
        if isinstance(data, np.ndarray) or _is_tensor(data) or not hasattr(data, "__iter__"):
            batches: Any = [data]
        else:
            batches = data
        summary = np.zeros((2, 0), np.float32)
        for i, batch in enumerate(batches):
            if steps is not None and i >= steps:
                break
            batch = batch[0] if isinstance(batch, tuple) else batch
            values = np.asarray(batch.numpy() if _is_tensor(batch) else batch).astype("float32")
            summary = _merge_summaries(_summarize(values, self.epsilon), summary, self.epsilon)
        self._summary = summary
        self.bin_boundaries = _compress_summary(summary, 1.0 / self.num_bins)[0, :-1].tolist()

    def call(self, inputs: Any) -> Tensor:
        """The bucket ids, encoded as ``output_mode`` asks."""
        if self.bin_boundaries is None:
            raise ValueError(
                "You need to either pass the `bin_boundaries` argument at construction time or call "
                "`adapt(dataset)` before you can start using the `Discretization` layer."
            )
        x = _core.convert_to_tensor(inputs)
        if not (x.dtype.is_floating or x.dtype.is_integer):
            raise ValueError(f"Discretization expects numeric inputs, got dtype {x.dtype.name}")
        x = _core.cast(x, "float64")
        edges = _core.convert_to_tensor(np.asarray(self.bin_boundaries, dtype=np.float64))
        flat = _core.reshape(x, [-1])
        ids = _tf().searchsorted(edges, flat, side="right", out_type="int32")
        ids = _core.reshape(ids, _core.shape(x)) if len(x.shape) else _core.reshape(ids, [])
        return _encode(ids, self.output_mode, len(self.bin_boundaries) + 1, self.output_dtype)

    def compute_output_spec(self, *args: Any, **kwargs: Any) -> Any:
        """A KerasTensor of :meth:`compute_output_shape` and the output dtype."""
        from ._base import KerasTensor

        return KerasTensor(self.compute_output_shape(args[0].shape), self.output_dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Keras' output shape for ``output_mode``."""
        input_shape = tuple(input_shape)
        depth = len(self.bin_boundaries) + 1 if self.bin_boundaries is not None else int(self.num_bins or 0)
        if self.output_mode == "int":
            return input_shape
        if self.output_mode == "one_hot":
            if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
                return input_shape[:-1] + (depth,)
            return input_shape + (depth,)
        if len(input_shape) >= 2:
            return (input_shape[0],) + input_shape[2:] + (depth,)
        return (depth,)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys (Discretization has no ``trainable``)."""
        config = super().get_config()
        config.pop("trainable", None)
        return {
            **config,
            "bin_boundaries": self.bin_boundaries,
            "num_bins": self.num_bins,
            "epsilon": self.epsilon,
            "output_mode": self.output_mode,
            "sparse": self.sparse,
        }


# ----------------------------------------------------------------------------- TimeDistributed


class TimeDistributed(Wrapper):
    """Applies ``layer`` to every time slice of a ``(batch, time, ...)`` input
    (``keras.layers.TimeDistributed``).

    The time axis is folded into the batch: the wrapped layer runs once on a
    ``(batch * time, ...)`` tensor and its output is unfolded to
    ``(batch, time, ...)``. The wrapped layer's weights are shared by all time
    steps and named ``<time_distributed>/<layer>/<weight>``, as in Keras.

    Parameters
    ----------
    layer : Layer
        The layer applied to each slice.
    """

    def __init__(self, layer: Any, **kwargs: Any) -> None:
        if not isinstance(layer, Layer):
            raise ValueError(
                f"Please initialize `TimeDistributed` layer with a `keras.layers.Layer` instance. Received: {layer}"
            )
        super().__init__(layer, **kwargs)
        self.supports_masking = True

    @staticmethod
    def _child_shape(input_shape: Any) -> tuple[Any, ...]:
        shape = tuple(input_shape)
        if len(shape) < 3:
            raise ValueError(
                "`TimeDistributed` Layer should be passed an `input_shape` with at least 3 dimensions, "
                f"received: {shape}"
            )
        return (shape[0],) + shape[2:]

    def build(self, input_shape: Any = None) -> None:
        """Builds the wrapped layer for one time slice ``(batch, ...)``."""
        child = self._child_shape(input_shape)
        if not self.layer.built:
            self.layer._build_shapes = child
            if _current_scope().endswith(self._scope_name):
                self.layer.build(child)
            else:  # a direct build() call: the weights still go under this layer's name, as in Keras
                with self._scope():
                    self.layer.build(child)
            self.layer.built = True
        self.built = True

    def call(self, inputs: Any, training: bool | None = None, mask: Any = None) -> Any:
        """The wrapped layer on ``(batch * time, ...)``, reshaped back to ``(batch, time, ...)``."""
        x = _core.convert_to_tensor(inputs)
        self._child_shape(x.shape)
        dyn = _core.shape(x)
        b = x.shape[0] if x.shape[0] is not None else dyn[0]
        t = x.shape[1] if x.shape[1] is not None else dyn[1]
        rest = [d if d is not None else dyn[i + 2] for i, d in enumerate(x.shape[2:])]
        folded = _core.reshape(x, [-1, *rest])
        kwargs: dict[str, Any] = {}
        params = inspect.signature(self.layer.call).parameters
        if training is not None and ("training" in params):
            kwargs["training"] = training
        if mask is not None and "mask" in params:
            m = _core.convert_to_tensor(mask)
            if len(m.shape) < 2 or (m.shape[0], m.shape[1]) != (x.shape[0], x.shape[1]):
                raise ValueError(
                    f"The `mask` passed to the `TimeDistributed` layer has a shape {tuple(m.shape)} that is "
                    f"incompatible with the input shape {tuple(x.shape)}."
                )
            kwargs["mask"] = _core.reshape(m, [-1, *m.shape[2:]])
        y = self.layer(folded, **kwargs)
        return _core.reshape(y, [b, t, *y.shape[1:]])

    def compute_output_shape(self, input_shape: Any) -> Any:
        """``(batch, time) + layer.compute_output_shape((batch,) + input_shape[2:])[1:]``."""
        shape = tuple(input_shape)
        child = self.layer.compute_output_shape(self._child_shape(shape))
        return (shape[0], shape[1], *tuple(child)[1:])

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: the wrapped ``layer`` serialized."""
        from ._serialization import serialize

        return {**Layer.get_config(self), "layer": serialize(self.layer)}

    @classmethod
    def from_config(cls, config: Mapping[str, Any], custom_objects: Mapping[str, Any] | None = None) -> Layer:
        """Recreates the wrapped layer from its serialized config, then the wrapper.

        Parameters
        ----------
        config : dict
            From :meth:`get_config`.
        custom_objects : dict, optional
            Custom layer classes by name.

        Returns
        -------
        TimeDistributed
        """
        from ._serialization import deserialize

        config = dict(config)
        inner = config.pop("layer")
        if isinstance(inner, Mapping):
            inner = deserialize(inner, custom_objects=custom_objects)
        return cls(inner, **config)


# ----------------------------------------------------------------------------- GroupNormalization


class GroupNormalization(Layer):
    """Normalizes each example over groups of channels (``keras.layers.GroupNormalization``).

    The ``axis`` channels are split into ``groups`` groups; each group of each
    example is normalized with its own mean and variance (over its channels and
    all other non-batch axes), then scaled by ``gamma`` and shifted by ``beta``
    per channel. ``groups=-1`` is instance normalization, ``groups=1`` layer
    normalization over all non-batch axes.

    Parameters
    ----------
    groups : int
        The number of groups (divides the number of channels; default 32).
    axis : int
        The channels axis (default the last).
    epsilon : float
        Added to the variance (default 1e-3).
    center, scale : bool
        Whether to use ``beta`` and ``gamma``.
    """

    def __init__(
        self,
        groups: int = 32,
        axis: int = -1,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.groups = int(groups)
        self.axis = int(axis)
        self.epsilon = float(epsilon)
        self.center = center
        self.scale = scale
        self.beta_initializer = beta_initializer
        self.gamma_initializer = gamma_initializer
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)

    def build(self, input_shape: Any = None) -> None:
        """Checks ``groups`` against the channels and creates ``gamma`` and ``beta`` of shape ``(channels,)``."""
        shape = tuple(input_shape)
        if not -len(shape) <= self.axis < len(shape) or self.axis % len(shape) == 0:
            raise ValueError(f"Invalid axis {self.axis} for GroupNormalization of inputs with shape {shape}")
        dim = shape[self.axis]
        if dim is None:
            raise ValueError(
                f"Axis {self.axis} of input tensor should have a defined dimension but the layer received "
                f"an input with shape {shape}."
            )
        if self.groups == -1:
            self.groups = dim
        if dim < self.groups:
            raise ValueError(f"Number of groups ({self.groups}) cannot be more than the number of channels ({dim}).")
        if dim % self.groups != 0:
            raise ValueError(f"Number of groups ({self.groups}) must be a multiple of the number of channels ({dim}).")
        self._build_rank = len(shape)
        self._channels = dim
        self.gamma = (
            self.add_weight(shape=(dim,), name="gamma", initializer=self.gamma_initializer,
                            regularizer=self.gamma_regularizer, constraint=self.gamma_constraint)
            if self.scale
            else None
        )  # fmt: skip
        self.beta = (
            self.add_weight(shape=(dim,), name="beta", initializer=self.beta_initializer,
                            regularizer=self.beta_regularizer, constraint=self.beta_constraint)
            if self.center
            else None
        )  # fmt: skip
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """``(x - mean_g) / sqrt(var_g + epsilon) * gamma + beta`` per example and group."""
        x = _core.convert_to_tensor(inputs)
        rank = len(x.shape)
        if rank != self._build_rank or x.shape[self.axis] != self._channels:
            raise ValueError(
                f"Input 0 of layer {self.name} is incompatible with the layer: expected ndim={self._build_rank} "
                f"and axis {self.axis} of size {self._channels}, found shape={tuple(x.shape)}"
            )
        axis = self.axis % rank
        dyn = _core.shape(x)
        dims: list[Any] = [d if d is not None else dyn[i] for i, d in enumerate(x.shape)]
        group_shape = list(dims)
        group_shape[0] = -1
        group_shape[axis] = self._channels // self.groups
        group_shape.insert(axis, self.groups)
        g = _core.reshape(x, group_shape)
        reduce_axes = [a for a in range(1, rank + 1) if a != axis]
        mean, var = _moments(g, reduce_axes)
        bshape = [1] * (rank + 1)
        bshape[axis] = self.groups
        bshape[axis + 1] = self._channels // self.groups
        inv = _core.math.rsqrt(var + self.epsilon)
        if self.gamma is not None:
            inv = inv * _core.cast(_core.reshape(self.gamma, bshape), g.dtype)
        res = -mean * inv
        if self.beta is not None:
            res = res + _core.cast(_core.reshape(self.beta, bshape), g.dtype)
        return _core.reshape(g * inv + res, dims)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape."""
        return tuple(input_shape)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for GroupNormalization."""
        return {
            **super().get_config(),
            "groups": self.groups,
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "beta_initializer": _initializer_config(self.beta_initializer),
            "gamma_initializer": _initializer_config(self.gamma_initializer),
            "beta_regularizer": _serialized(self.beta_regularizer),
            "gamma_regularizer": _serialized(self.gamma_regularizer),
            "beta_constraint": _serialized(self.beta_constraint),
            "gamma_constraint": _serialized(self.gamma_constraint),
        }
