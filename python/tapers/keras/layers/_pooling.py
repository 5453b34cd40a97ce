"""Pooling layers of Keras 3 beyond 2-D: global pooling, 1-D pooling.

Global poolings reduce every spatial axis with a mean or a maximum
(``GlobalAveragePooling1D/2D/3D``, ``GlobalMaxPooling1D/2D/3D``); the 1-D
window poolings (``MaxPooling1D``, ``AveragePooling1D``) run tapers'
``nn.max_pool1d``/``nn.avg_pool1d`` on ``(batch, steps, features)``. Both
take Keras' ``data_format``: ``"channels_last"`` (the default) or
``"channels_first"`` (the features before the spatial axes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import _core, nn
from ._base import Layer

__all__ = [
    "AveragePooling1D", "AvgPool1D", "GlobalAveragePooling1D", "GlobalAveragePooling2D", "GlobalAveragePooling3D",
    "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D",
    "GlobalMaxPooling1D", "GlobalMaxPooling2D", "GlobalMaxPooling3D", "MaxPool1D", "MaxPooling1D",
]  # fmt: skip

Tensor = _core.Tensor


def standardize_data_format(data_format: str | None) -> str:
    """Keras' ``backend.standardize_data_format``: None is ``"channels_last"`` (tapers has no
    ``keras.json``), otherwise one of ``"channels_first"``/``"channels_last"`` (any case)."""
    if data_format is None:
        return "channels_last"
    value = str(data_format).lower()
    if value not in ("channels_first", "channels_last"):
        raise ValueError(
            "The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
            f"Received: data_format={data_format}"
        )
    return value


def standardize_tuple(value: Any, n: int, name: str, allow_zero: bool = False) -> tuple[int, ...]:
    """Keras' ``argument_validation.standardize_tuple``: an int or ``n`` ints, all positive
    (or non-negative with ``allow_zero``)."""
    error = f"The `{name}` argument must be a tuple of {n} integers. Received {name}={value}"
    if isinstance(value, int) and not isinstance(value, bool):
        values: tuple[int, ...] = (value,) * n
    else:
        try:
            raw = tuple(value)
        except TypeError:
            raise ValueError(error) from None
        if len(raw) != n:
            raise ValueError(error)
        try:
            values = tuple(int(v) for v in raw)
        except (TypeError, ValueError):
            raise ValueError(error) from None
    bad = {v for v in values if (v < 0 if allow_zero else v <= 0)}
    if bad:
        requirement = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{error}, including values {bad} that do not satisfy `value {requirement}`")
    return values


def check_ndim(layer: Layer, shape: Sequence[int | None], ndim: int) -> None:
    """Keras' ``InputSpec(ndim=...)`` check, with its message."""
    if len(shape) != ndim:
        raise ValueError(
            f'Input 0 of layer "{layer.name}" is incompatible with the layer: expected ndim={ndim}, '
            f"found ndim={len(shape)}. Full shape received: {tuple(shape)}"
        )


# ----------------------------------------------------------------------------- global pooling


class _GlobalPooling(Layer):
    """Reduces the spatial axes of a ``(batch, *spatial, channels)`` (or channels-first) input."""

    _pool_dims = 1

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format)
        self.keepdims = bool(keepdims)
        self.built = True

    def _axes(self) -> list[int]:
        start = 1 if self.data_format == "channels_last" else 2
        return list(range(start, start + self._pool_dims))

    def _reduce(self, x: Any, axes: list[int]) -> Tensor:
        raise NotImplementedError

    def call(self, inputs: Any) -> Tensor:
        """The reduction over the spatial axes."""
        check_ndim(self, inputs.shape, self._pool_dims + 2)
        return self._reduce(inputs, self._axes())

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """``(batch, channels)``, or with ``keepdims`` the spatial axes as 1."""
        shape = tuple(input_shape)
        check_ndim(self, shape, self._pool_dims + 2)
        ones = (1,) * self._pool_dims
        if self.data_format == "channels_last":
            return (shape[0], *ones, shape[-1]) if self.keepdims else (shape[0], shape[-1])
        return (shape[0], shape[1], *ones) if self.keepdims else (shape[0], shape[1])

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: ``data_format`` and ``keepdims``."""
        return {**super().get_config(), "data_format": self.data_format, "keepdims": self.keepdims}


class _GlobalAverage(_GlobalPooling):
    def _reduce(self, x: Any, axes: list[int]) -> Tensor:
        return _core.reduce_mean(x, axis=axes, keepdims=self.keepdims)


class _GlobalMax(_GlobalPooling):
    def _reduce(self, x: Any, axes: list[int]) -> Tensor:
        return _core.reduce_max(x, axis=axes, keepdims=self.keepdims)


class GlobalAveragePooling1D(_GlobalAverage):
    """Mean over the steps of ``(batch, steps, features)`` sequences (``keras.layers.GlobalAveragePooling1D``).

    ``call(inputs, mask=None)`` takes Keras' optional ``mask`` of shape ``(batch, steps)``:
    masked-out steps are left out of the mean (an example with every step masked gives NaN, as Keras).

    Parameters
    ----------
    data_format : {"channels_last", "channels_first"}, optional
        ``"channels_first"`` reads ``(batch, features, steps)``.
    keepdims : bool
        Keep the steps axis with length 1.
    """

    _pool_dims = 1

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, keepdims=keepdims, **kwargs)
        self.supports_masking = True

    def call(self, inputs: Any, mask: Any = None) -> Tensor:
        """The mean over the steps, or over the unmasked steps when ``mask`` is given."""
        check_ndim(self, inputs.shape, 3)
        steps_axis = 1 if self.data_format == "channels_last" else 2
        if mask is None:
            return _core.reduce_mean(inputs, axis=steps_axis, keepdims=self.keepdims)
        mask = _core.convert_to_tensor(mask)
        b, steps = (inputs.shape[0], inputs.shape[steps_axis])
        if tuple(mask.shape) != (b, steps):
            raise ValueError(
                f"GlobalAveragePooling1D's mask must have shape (batch, steps) = {(b, steps)} for inputs of "
                f"shape {tuple(inputs.shape)}; received mask of shape {tuple(mask.shape)}"
            )
        keep = _core.expand_dims(_core.cast(mask, "bool"), 2 if self.data_format == "channels_last" else 1)
        total = _core.reduce_sum(_core.where(keep, inputs, _core.zeros_like(inputs)), axis=steps_axis,
                                 keepdims=self.keepdims)  # fmt: skip
        count = _core.reduce_sum(_core.cast(keep, inputs.dtype), axis=steps_axis, keepdims=self.keepdims)
        return total / count

    def compute_mask(self, inputs: Any, mask: Any = None) -> None:
        """The output carries no mask (Keras)."""
        return None


class GlobalAveragePooling2D(_GlobalAverage):
    """Mean over the height and width of images (``keras.layers.GlobalAveragePooling2D``).

    Parameters
    ----------
    data_format : {"channels_last", "channels_first"}, optional
        ``(batch, h, w, c)`` or ``(batch, c, h, w)``.
    keepdims : bool
        Keep the spatial axes with length 1.
    """

    _pool_dims = 2


class GlobalAveragePooling3D(_GlobalAverage):
    """Mean over the three spatial axes of volumes (``keras.layers.GlobalAveragePooling3D``).

    Parameters
    ----------
    data_format : {"channels_last", "channels_first"}, optional
        ``(batch, d1, d2, d3, c)`` or ``(batch, c, d1, d2, d3)``.
    keepdims : bool
        Keep the spatial axes with length 1.
    """

    _pool_dims = 3


class GlobalMaxPooling1D(_GlobalMax):
    """Maximum over the steps of ``(batch, steps, features)`` sequences (``keras.layers.GlobalMaxPooling1D``).

    Parameters
    ----------
    data_format : {"channels_last", "channels_first"}, optional
        ``"channels_first"`` reads ``(batch, features, steps)``.
    keepdims : bool
        Keep the steps axis with length 1.
    """

    _pool_dims = 1


class GlobalMaxPooling2D(_GlobalMax):
    """Maximum over the height and width of images (``keras.layers.GlobalMaxPooling2D``).

    Parameters
    ----------
    data_format : {"channels_last", "channels_first"}, optional
        ``(batch, h, w, c)`` or ``(batch, c, h, w)``.
    keepdims : bool
        Keep the spatial axes with length 1.
    """

    _pool_dims = 2


class GlobalMaxPooling3D(_GlobalMax):
    """Maximum over the three spatial axes of volumes (``keras.layers.GlobalMaxPooling3D``).

    Parameters
    ----------
    data_format : {"channels_last", "channels_first"}, optional
        ``(batch, d1, d2, d3, c)`` or ``(batch, c, d1, d2, d3)``.
    keepdims : bool
        Keep the spatial axes with length 1.
    """

    _pool_dims = 3


# ----------------------------------------------------------------------------- 1-D pooling


def _pooled_len(n: int | None, k: int, s: int, padding: str) -> int | None:
    if n is None:
        return None
    if padding == "same":
        return (n + s - 1) // s
    return (n - k) // s + 1


class _Pooling1D(Layer):
    """A window pooling over the steps of ``(batch, steps, features)`` sequences."""

    def __init__(
        self,
        pool_size: int | Sequence[int],
        strides: int | Sequence[int] | None = None,
        padding: str = "valid",
        data_format: str | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, **kwargs)
        self.pool_size = standardize_tuple(pool_size, 1, "pool_size")
        self.strides = standardize_tuple(pool_size if strides is None else strides, 1, "strides")
        if str(padding).lower() not in ("valid", "same"):
            raise ValueError(f"The `padding` argument must be one of 'valid', 'same'. Received: padding={padding}")
        self.padding = padding
        self.data_format = standardize_data_format(data_format)
        self.built = True

    def _pool(self, x: Any, ksize: int, stride: int, padding: str) -> Tensor:
        raise NotImplementedError

    def call(self, inputs: Any) -> Tensor:
        """The pooling op (channels-first inputs are transposed to NWC and back)."""
        check_ndim(self, inputs.shape, 3)
        x = inputs if self.data_format == "channels_last" else _core.transpose(inputs, [0, 2, 1])
        if self.padding.lower() == "valid" and x.shape[1] < self.pool_size[0]:
            raise ValueError(
                f"{type(self).__name__}: the input's steps ({x.shape[1]}) are fewer than pool_size "
                f"{self.pool_size[0]} with padding='valid'; input shape {tuple(inputs.shape)}"
            )
        y = self._pool(x, self.pool_size[0], self.strides[0], self.padding.upper())
        return y if self.data_format == "channels_last" else _core.transpose(y, [0, 2, 1])

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """The steps become ``(steps - pool_size) // strides + 1`` ("valid") or ``ceil(steps / strides)``."""
        shape = tuple(input_shape)
        check_ndim(self, shape, 3)
        axis = 1 if self.data_format == "channels_last" else 2
        out = list(shape)
        out[axis] = _pooled_len(shape[axis], self.pool_size[0], self.strides[0], self.padding.lower())
        if out[axis] is not None and out[axis] <= 0:
            raise ValueError(
                f"Computed output size would be negative. Received: inputs.shape={shape}, "
                f"pool_size={self.pool_size}, strides={self.strides}, padding={self.padding}"
            )
        return tuple(out)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for pooling layers."""
        return {
            **super().get_config(),
            "pool_size": self.pool_size,
            "padding": self.padding,
            "strides": self.strides,
            "data_format": self.data_format,
        }


class MaxPooling1D(_Pooling1D):
    """Maximum over windows of ``pool_size`` steps (``keras.layers.MaxPooling1D``).

    Parameters
    ----------
    pool_size : int
        Window length, default 2.
    strides : int, optional
        Step between windows; default ``pool_size``.
    padding : {"valid", "same"}
        "same" pads so the output has ``ceil(steps / strides)`` steps.
    data_format : {"channels_last", "channels_first"}, optional
        ``(batch, steps, features)`` or ``(batch, features, steps)``.
    """

    def __init__(
        self,
        pool_size: int | Sequence[int] = 2,
        strides: int | Sequence[int] | None = None,
        padding: str = "valid",
        data_format: str | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(pool_size, strides, padding=padding, data_format=data_format, name=name, **kwargs)

    def _pool(self, x: Any, ksize: int, stride: int, padding: str) -> Tensor:
        return nn.max_pool1d(x, ksize, stride, padding)


class AveragePooling1D(_Pooling1D):
    """Mean over windows of ``pool_size`` steps (``keras.layers.AveragePooling1D``); with
    ``"same"`` padding the mean is over the window's part inside the sequence (as TensorFlow).

    Parameters
    ----------
    pool_size : int
        Window length (required, as in Keras).
    strides : int, optional
        Step between windows; default ``pool_size``.
    padding : {"valid", "same"}
        "same" pads so the output has ``ceil(steps / strides)`` steps.
    data_format : {"channels_last", "channels_first"}, optional
        ``(batch, steps, features)`` or ``(batch, features, steps)``.
    """

    def _pool(self, x: Any, ksize: int, stride: int, padding: str) -> Tensor:
        return nn.avg_pool1d(x, ksize, stride, padding)


GlobalAvgPool1D = GlobalAveragePooling1D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalAvgPool3D = GlobalAveragePooling3D
GlobalMaxPool1D = GlobalMaxPooling1D
GlobalMaxPool2D = GlobalMaxPooling2D
GlobalMaxPool3D = GlobalMaxPooling3D
MaxPool1D = MaxPooling1D
AvgPool1D = AveragePooling1D
