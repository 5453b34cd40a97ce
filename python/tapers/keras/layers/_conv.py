"""Keras 3's ``Conv2D``, ``MaxPooling2D`` and ``AveragePooling2D`` on tapers' NHWC ops."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import _core, nn
from .. import constraints, regularizers
from ._base import Layer, _serialized
from ._core_layers import _activation, _activation_name, _initializer_config

__all__ = ["AveragePooling2D", "Conv2D", "MaxPooling2D"]

Tensor = _core.Tensor


def _pair(value: int | Sequence[int], name: str) -> tuple[int, int]:
    if isinstance(value, int):
        return (value, value)
    value = tuple(int(v) for v in value)
    if len(value) != 2:
        raise ValueError(f"The `{name}` argument must be a tuple of 2 integers. Received {name}={value}")
    return value  # type: ignore[return-value]


def _padding(padding: str) -> str:
    p = str(padding).lower()
    if p not in ("valid", "same"):
        raise ValueError(f"The `padding` argument must be one of 'valid', 'same'. Received: padding={padding}")
    return p


def _channels_last(data_format: str | None) -> str:
    if data_format not in (None, "channels_last"):
        raise NotImplementedError("tapers.keras layers support data_format='channels_last' (NHWC) only")
    return "channels_last"


def _out_len(n: int | None, k: int, s: int, d: int, padding: str) -> int | None:
    if n is None:
        return None
    if padding == "same":
        return (n + s - 1) // s
    eff = (k - 1) * d + 1
    return (n - eff) // s + 1


class Conv2D(Layer):
    """2-D convolution over NHWC images (``keras.layers.Conv2D``).

    Weights: ``kernel`` of shape ``(kh, kw, in_channels, filters)`` and ``bias`` of shape ``(filters,)``.

    Parameters
    ----------
    filters : int
        Output channels.
    kernel_size : int or pair of int
        Window size.
    strides, dilation_rate : int or pair of int
        Default 1 (not both above 1).
    padding : {"valid", "same"}
        As Keras.
    activation : str or callable, optional
        Applied to the result.
    use_bias : bool
        Whether to add ``bias``.
    kernel_initializer, bias_initializer : str or initializer
        Keras' defaults ``"glorot_uniform"`` and ``"zeros"``.
    """

    def __init__(
        self,
        filters: int,
        kernel_size: int | Sequence[int],
        strides: int | Sequence[int] = (1, 1),
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: int | Sequence[int] = (1, 1),
        groups: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if groups != 1:
            raise NotImplementedError("tapers.keras: grouped convolutions (groups > 1) are not implemented")
        if int(filters) <= 0:
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly positive value. "
                             f"Received filters={filters}.")  # fmt: skip
        self.filters = int(filters)
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.strides = _pair(strides, "strides")
        self.padding = _padding(padding)
        self.data_format = _channels_last(data_format)
        self.dilation_rate = _pair(dilation_rate, "dilation_rate")
        if self.dilation_rate != (1, 1) and self.strides != (1, 1):
            raise ValueError("`strides > 1` not supported in conjunction with `dilation_rate > 1`.")
        self.groups = groups
        self.activation = _activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def build(self, input_shape: Any = None) -> None:
        """Creates ``kernel`` and ``bias`` for the input's channels."""
        if len(input_shape) != 4:
            raise ValueError(f"Input 0 of layer \"{self.name}\" is incompatible with the layer: expected ndim=4, "
                             f"found ndim={len(input_shape)}. Full shape received: {tuple(input_shape)}")  # fmt: skip
        channels = input_shape[-1]
        self.kernel = self.add_weight(
            name="kernel",
            shape=(*self.kernel_size, channels, self.filters),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.bias = (
            self.add_weight(
                name="bias",
                shape=(self.filters,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
            if self.use_bias
            else None
        )
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """``conv2d``, bias, activation."""
        if len(inputs.shape) != 4 or inputs.shape[-1] != self.kernel.shape[2]:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected ndim=4 and axis -1 '
                f"of input shape to have value {self.kernel.shape[2]}, but received input with shape "
                f"{tuple(inputs.shape)}"
            )
        y = nn.conv2d(
            inputs,
            self.kernel,
            strides=list(self.strides),
            padding=self.padding.upper(),
            dilations=list(self.dilation_rate),
        )
        if self.bias is not None:
            y = y + self.bias
        return self.activation(y) if self.activation is not None else y

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """``(batch, out_h, out_w, filters)``."""
        b, h, w, _ = input_shape
        kh, kw = self.kernel_size
        sh, sw = self.strides
        dh, dw = self.dilation_rate
        return (
            b,
            _out_len(h, kh, sh, dh, self.padding),
            _out_len(w, kw, sw, dw, self.padding),
            self.filters,
        )

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for Conv2D."""
        return {
            **super().get_config(),
            "filters": self.filters,
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "groups": self.groups,
            "activation": _activation_name(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": _initializer_config(self.kernel_initializer),
            "bias_initializer": _initializer_config(self.bias_initializer),
            "kernel_regularizer": _serialized(self.kernel_regularizer),
            "bias_regularizer": _serialized(self.bias_regularizer),
            "activity_regularizer": _serialized(self.activity_regularizer),
            "kernel_constraint": _serialized(self.kernel_constraint),
            "bias_constraint": _serialized(self.bias_constraint),
        }


class _Pooling2D(Layer):
    """A 2-D pooling layer over NHWC images.

    Parameters
    ----------
    pool_size : int or pair of int
        Window, default ``(2, 2)``.
    strides : int or pair of int, optional
        Default: ``pool_size``.
    padding : {"valid", "same"}
        As Keras.
    data_format : str, optional
        ``"channels_last"`` only.
    """

    def __init__(
        self,
        pool_size: int | Sequence[int] = (2, 2),
        strides: int | Sequence[int] | None = None,
        padding: str = "valid",
        data_format: str | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, **kwargs)
        self.pool_size = _pair(pool_size, "pool_size")
        self.strides = self.pool_size if strides is None else _pair(strides, "strides")
        self.padding = _padding(padding)
        self.data_format = _channels_last(data_format)
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """The pooling op over NHWC windows."""
        return self._pool(inputs, list(self.pool_size), list(self.strides), self.padding.upper())

    def _pool(self, x: Any, ksize: list[int], strides: list[int], padding: str) -> Tensor:
        raise NotImplementedError

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """``(batch, out_h, out_w, channels)``."""
        b, h, w, c = input_shape
        return (
            b,
            _out_len(h, self.pool_size[0], self.strides[0], 1, self.padding),
            _out_len(w, self.pool_size[1], self.strides[1], 1, self.padding),
            c,
        )

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for pooling layers."""
        return {
            **super().get_config(),
            "pool_size": self.pool_size,
            "padding": self.padding,
            "strides": self.strides,
            "data_format": self.data_format,
        }


class MaxPooling2D(_Pooling2D):
    """Maximum over ``pool_size`` windows of NHWC images (``keras.layers.MaxPooling2D``).

    Parameters
    ----------
    pool_size : int or pair of int
        Window, default ``(2, 2)``.
    strides : int or pair of int, optional
        Default: ``pool_size``.
    padding : {"valid", "same"}
        As Keras.
    data_format : str, optional
        ``"channels_last"`` only.
    """

    def _pool(self, x: Any, ksize: list[int], strides: list[int], padding: str) -> Tensor:
        return nn.max_pool2d(x, ksize, strides, padding)


class AveragePooling2D(_Pooling2D):
    """Mean over ``pool_size`` windows of NHWC images (``keras.layers.AveragePooling2D``);
    with ``"same"`` padding the mean is over the window's part inside the image.

    Parameters
    ----------
    pool_size : int or pair of int
        Window, default ``(2, 2)``.
    strides : int or pair of int, optional
        Default: ``pool_size``.
    padding : {"valid", "same"}
        As Keras.
    data_format : str, optional
        ``"channels_last"`` only.
    """

    def _pool(self, x: Any, ksize: list[int], strides: list[int], padding: str) -> Tensor:
        return nn.avg_pool2d(x, ksize, strides, padding)
