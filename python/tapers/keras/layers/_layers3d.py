"""Keras 3's 3-D layers: Conv3D, Conv3DTranspose, 3-D pooling, padding, cropping, up-sampling, spatial dropout.

All run on tapers' NDHWC ops (``nn.conv3d``, ``nn.conv3d_transpose``, ``nn.max_pool3d``,
``nn.avg_pool3d``, built from the 2-D kernels in ``tapers._nn3d``) and on
``pad``/slicing/``repeat``, so they are differentiable with respect to their
inputs and weights and trace inside ``tapers.function``. Each takes Keras'
``data_format``: ``"channels_last"`` (``(batch, d1, d2, d3, channels)``, the
default) or ``"channels_first"``, which is transposed to NDHWC and back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import _core, nn
from .. import constraints, regularizers
from ._activation_layers import _SpatialDropout
from ._base import Layer, _serialized
from ._conv import _out_len
from ._conv_extra import _TRANSPOSE_DOC, _ConvTranspose
from ._core_layers import _activation, _activation_name, _initializer_config
from ._pooling import check_ndim, standardize_data_format, standardize_tuple
from ._reshaping import _crop, _cropped, _spatial_axes

__all__ = [
    "AveragePooling3D", "AvgPool3D", "Conv3D", "Conv3DTranspose", "Cropping3D", "MaxPool3D", "MaxPooling3D",
    "SpatialDropout3D", "UpSampling3D", "ZeroPadding3D",
]  # fmt: skip

Tensor = _core.Tensor

_TO_LAST = [0, 2, 3, 4, 1]
_TO_FIRST = [0, 4, 1, 2, 3]


def _padding(padding: str) -> str:
    p = str(padding).lower()
    if p not in ("valid", "same"):
        raise ValueError(f"The `padding` argument must be one of 'valid', 'same'. Received: padding={padding}")
    return p


def _to_last(x: Any, data_format: str) -> Any:
    return x if data_format == "channels_last" else _core.transpose(x, _TO_LAST)


def _from_last(y: Any, data_format: str) -> Any:
    return y if data_format == "channels_last" else _core.transpose(y, _TO_FIRST)


def _spatial(shape: Sequence[int | None], data_format: str) -> tuple[Any, list[Any], Any]:
    """``(batch, [d1, d2, d3], channels)`` of a 5-D shape in either layout."""
    s = tuple(shape)
    if data_format == "channels_last":
        return s[0], list(s[1:4]), s[4]
    return s[0], list(s[2:5]), s[1]


def _assemble(batch: Any, spatial: list[Any], channels: Any, data_format: str) -> tuple[Any, ...]:
    if data_format == "channels_last":
        return (batch, *spatial, channels)
    return (batch, channels, *spatial)


class Conv3D(Layer):
    """3-D convolution over volumes (``keras.layers.Conv3D``).

    Weights: ``kernel`` of shape ``(kd, kh, kw, in_channels, filters)`` and ``bias`` of shape
    ``(filters,)``. Grouped convolution (``groups > 1``) is not implemented and raises
    ``NotImplementedError``.

    Parameters
    ----------
    filters : int
        Output channels.
    kernel_size : int or 3 ints
        Window size.
    strides, dilation_rate : int or 3 ints
        Default 1 (not both above 1, as Keras).
    padding : {"valid", "same"}
        As Keras.
    data_format : {"channels_last", "channels_first"}, optional
        ``(batch, d1, d2, d3, c)`` or ``(batch, c, d1, d2, d3)``.
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
        strides: int | Sequence[int] = (1, 1, 1),
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: int | Sequence[int] = (1, 1, 1),
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
        self.kernel_size = standardize_tuple(kernel_size, 3, "kernel_size")
        self.strides = standardize_tuple(strides, 3, "strides")
        self.padding = _padding(padding)
        self.data_format = standardize_data_format(data_format)
        self.dilation_rate = standardize_tuple(dilation_rate, 3, "dilation_rate")
        if self.dilation_rate != (1, 1, 1) and self.strides != (1, 1, 1):
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
        check_ndim(self, tuple(input_shape), 5)
        channels = _spatial(input_shape, self.data_format)[2]
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
        """``conv3d``, bias, activation."""
        check_ndim(self, inputs.shape, 5)
        channels = _spatial(inputs.shape, self.data_format)[2]
        if channels != self.kernel.shape[3]:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected the channels axis '
                f"of input shape to have value {self.kernel.shape[3]}, but received input with shape "
                f"{tuple(inputs.shape)}"
            )
        if self.padding == "valid":
            _, spatial, _ = _spatial(inputs.shape, self.data_format)
            eff = [(k - 1) * d + 1 for k, d in zip(self.kernel_size, self.dilation_rate)]
            if any(n < e for n, e in zip(spatial, eff)):
                raise ValueError(
                    f'Layer "{self.name}": the kernel {self.kernel_size} (dilated to {tuple(eff)}) is larger '
                    f"than the input's spatial dimensions {tuple(spatial)} with padding='valid'; "
                    f"input shape {tuple(inputs.shape)}"
                )
        x = _to_last(inputs, self.data_format)
        y = nn.conv3d(x, self.kernel, list(self.strides), self.padding.upper(), dilations=list(self.dilation_rate))
        if self.bias is not None:
            y = y + self.bias
        y = _from_last(y, self.data_format)
        return self.activation(y) if self.activation is not None else y

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """``(batch, out_d1, out_d2, out_d3, filters)`` (or channels first)."""
        check_ndim(self, tuple(input_shape), 5)
        b, spatial, _ = _spatial(input_shape, self.data_format)
        out = [
            _out_len(n, k, s, d, self.padding)
            for n, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate)
        ]
        return _assemble(b, out, self.filters, self.data_format)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for Conv3D."""
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


class Conv3DTranspose(_ConvTranspose):
    __doc__ = _TRANSPOSE_DOC.format(what="volumes ``(batch, d1, d2, d3, channels)``", cls="Conv3DTranspose", rank=3,
                                    ks="kd, kh, kw")  # fmt: skip

    def __init__(self, filters: int, kernel_size: int | Sequence[int], strides: int | Sequence[int] = (1, 1, 1),
                 padding: str = "valid", output_padding: int | Sequence[int] | None = None,
                 data_format: str | None = None, dilation_rate: int | Sequence[int] = (1, 1, 1),
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(3, filters, kernel_size, strides, padding, output_padding, data_format, dilation_rate,
                         **kwargs)  # fmt: skip

    def _forward(self, x: Any) -> Tensor:
        """``nn.conv3d_transpose`` of the NDHWC input to the size given by Keras 3's formula."""
        spatial = self._spatial_out([int(n) for n in x.shape[1:4]])
        if any(n is not None and n <= 0 for n in spatial):
            raise ValueError(
                f'Layer "{self.name}": the transposed convolution of input shape {tuple(x.shape)} would have '
                f"non-positive output size {tuple(spatial)}"
            )
        out_shape = [int(x.shape[0]), *spatial, self.filters]
        return nn.conv3d_transpose(
            x,
            self.kernel,
            out_shape,
            strides=list(self.strides),
            padding=self.padding.upper(),
            dilations=list(self.dilation_rate),
        )


class _Pooling3D(Layer):
    """A window pooling over the three spatial axes of volumes."""

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
        self.pool_size = standardize_tuple(pool_size, 3, "pool_size")
        self.strides = standardize_tuple(pool_size if strides is None else strides, 3, "strides")
        self.padding = _padding(padding)
        self.data_format = standardize_data_format(data_format)
        self.built = True

    def _pool(self, x: Any) -> Tensor:
        raise NotImplementedError

    def call(self, inputs: Any) -> Tensor:
        """The pooling op on NDHWC (channels-first inputs are transposed and back)."""
        self.compute_output_shape(inputs.shape)
        return _from_last(self._pool(_to_last(inputs, self.data_format)), self.data_format)

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """Each spatial size becomes ``(n - pool) // stride + 1`` ("valid") or ``ceil(n / stride)``."""
        shape = tuple(input_shape)
        check_ndim(self, shape, 5)
        b, spatial, c = _spatial(shape, self.data_format)
        out = [_out_len(n, k, s, 1, self.padding) for n, k, s in zip(spatial, self.pool_size, self.strides)]
        if any(o is not None and o <= 0 for o in out):
            raise ValueError(
                f"Computed output size would be negative. Received: inputs.shape={shape}, "
                f"pool_size={self.pool_size}, strides={self.strides}, padding={self.padding}"
            )
        return _assemble(b, out, c, self.data_format)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for pooling layers."""
        return {
            **super().get_config(),
            "pool_size": self.pool_size,
            "padding": self.padding,
            "strides": self.strides,
            "data_format": self.data_format,
        }


class MaxPooling3D(_Pooling3D):
    """Maximum over 3-D windows (``keras.layers.MaxPooling3D``).

    Parameters
    ----------
    pool_size : int or 3 ints
        Window size; default ``(2, 2, 2)``.
    strides : int or 3 ints, optional
        Step between windows; default ``pool_size``.
    padding : {"valid", "same"}
        "same" pads so each output size is ``ceil(n / strides)``; padding never wins the maximum.
    data_format : {"channels_last", "channels_first"}, optional
        ``(batch, d1, d2, d3, c)`` or ``(batch, c, d1, d2, d3)``.
    """

    def __init__(
        self,
        pool_size: int | Sequence[int] = (2, 2, 2),
        strides: int | Sequence[int] | None = None,
        padding: str = "valid",
        data_format: str | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(pool_size, strides, padding=padding, data_format=data_format, name=name, **kwargs)

    def _pool(self, x: Any) -> Tensor:
        return nn.max_pool3d(x, list(self.pool_size), list(self.strides), self.padding.upper())


class AveragePooling3D(_Pooling3D):
    """Mean over 3-D windows (``keras.layers.AveragePooling3D``); with ``"same"`` padding the
    mean is over the window's part inside the volume (as TensorFlow).

    Parameters
    ----------
    pool_size : int or 3 ints
        Window size (required, as in Keras).
    strides : int or 3 ints, optional
        Step between windows; default ``pool_size``.
    padding : {"valid", "same"}
        "same" pads so each output size is ``ceil(n / strides)``.
    data_format : {"channels_last", "channels_first"}, optional
        ``(batch, d1, d2, d3, c)`` or ``(batch, c, d1, d2, d3)``.
    """

    def _pool(self, x: Any) -> Tensor:
        return nn.avg_pool3d(x, list(self.pool_size), list(self.strides), self.padding.upper())


def _triple_pairs(value: Any, name: str) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
    """ZeroPadding3D's ``padding`` / Cropping3D's ``cropping``: an int, three ints (symmetric per
    axis) or three pairs."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"`{name}` cannot be negative. Received: {name}={value}.")
        return ((value, value), (value, value), (value, value))
    if hasattr(value, "__len__"):
        if len(value) != 3:
            raise ValueError(f"`{name}` should have 3 elements. Received: {name}={value}.")
        pairs = [standardize_tuple(v, 2, f"entry {i} of {name}", allow_zero=True) for i, v in enumerate(value)]
        return ((pairs[0][0], pairs[0][1]), (pairs[1][0], pairs[1][1]), (pairs[2][0], pairs[2][1]))
    raise ValueError(
        f"`{name}` should be either an int, a tuple of 3 ints (symmetric_dim1_pad, symmetric_dim2_pad, "
        f"symmetric_dim3_pad), or a tuple of 3 tuples of 2 ints. Received: {name}={value}."
    )


class ZeroPadding3D(Layer):
    """Adds zeros around the three spatial axes of volumes (``keras.layers.ZeroPadding3D``).

    Parameters
    ----------
    padding : int, 3 ints, or 3 pairs
        An int pads every side; ``(a, b, c)`` pads each axis symmetrically; three pairs give
        ``(before, after)`` per axis. Default ``((1, 1), (1, 1), (1, 1))``.
    data_format : {"channels_last", "channels_first"}, optional
        ``(batch, d1, d2, d3, c)`` or ``(batch, c, d1, d2, d3)``.
    """

    def __init__(self, padding: Any = ((1, 1), (1, 1), (1, 1)), data_format: str | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format)
        self.padding = _triple_pairs(padding, "padding")
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """``tapers.pad`` with zeros along the spatial axes."""
        check_ndim(self, inputs.shape, 5)
        pads = [[0, 0] for _ in range(5)]
        for axis, pair in zip(_spatial_axes(self.data_format, 3), self.padding):
            pads[axis] = list(pair)
        return _core.pad(inputs, pads)

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """Each spatial size grows by its two paddings."""
        out = list(input_shape)
        check_ndim(self, out, 5)
        for axis, pair in zip(_spatial_axes(self.data_format, 3), self.padding):
            if out[axis] is not None:
                out[axis] += sum(pair)
        return tuple(out)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: ``padding``, ``data_format``."""
        return {**super().get_config(), "padding": self.padding, "data_format": self.data_format}


class Cropping3D(Layer):
    """Removes borders along the three spatial axes of volumes (``keras.layers.Cropping3D``).

    Parameters
    ----------
    cropping : int, 3 ints, or 3 pairs
        As ZeroPadding3D's ``padding``. Default ``((1, 1), (1, 1), (1, 1))``.
    data_format : {"channels_last", "channels_first"}, optional
        ``(batch, d1, d2, d3, c)`` or ``(batch, c, d1, d2, d3)``.
    """

    def __init__(self, cropping: Any = ((1, 1), (1, 1), (1, 1)), data_format: str | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format)
        self.cropping = _triple_pairs(cropping, "cropping")
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """The slice of the spatial axes."""
        check_ndim(self, inputs.shape, 5)
        axes = _spatial_axes(self.data_format, 3)
        _cropped(self, inputs.shape, axes, self.cropping)
        return _crop(inputs, axes, self.cropping)

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """Each spatial size shrinks by its two croppings (which must be smaller than it)."""
        check_ndim(self, tuple(input_shape), 5)
        return tuple(_cropped(self, tuple(input_shape), _spatial_axes(self.data_format, 3), self.cropping))

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: ``cropping``, ``data_format``."""
        return {**super().get_config(), "cropping": self.cropping, "data_format": self.data_format}


class UpSampling3D(Layer):
    """Repeats each element along the three spatial axes (``keras.layers.UpSampling3D``).

    Parameters
    ----------
    size : int or 3 ints
        Repetitions per spatial axis; default ``(2, 2, 2)``.
    data_format : {"channels_last", "channels_first"}, optional
        ``(batch, d1, d2, d3, c)`` or ``(batch, c, d1, d2, d3)``.
    """

    def __init__(self, size: int | Sequence[int] = (2, 2, 2), data_format: str | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format)
        self.size = standardize_tuple(size, 3, "size")
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """``tapers.repeat`` along each spatial axis."""
        check_ndim(self, inputs.shape, 5)
        x = inputs
        for axis, factor in zip(_spatial_axes(self.data_format, 3), self.size):
            x = _core.repeat(x, factor, axis=axis)
        return x

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """Each spatial size times its factor."""
        out = list(input_shape)
        check_ndim(self, out, 5)
        for axis, factor in zip(_spatial_axes(self.data_format, 3), self.size):
            if out[axis] is not None:
                out[axis] *= factor
        return tuple(out)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: ``size``, ``data_format``."""
        return {**super().get_config(), "size": self.size, "data_format": self.data_format}


class SpatialDropout3D(_SpatialDropout):
    """Dropout of whole 3D feature maps (``keras.layers.SpatialDropout3D``): each example's channel
    is zeroed over the whole volume with probability ``rate`` while training, kept channels scaled
    by ``1 / (1 - rate)``; the identity in inference.

    Parameters
    ----------
    rate : float
        Fraction of channels dropped, in [0, 1].
    data_format : {"channels_last", "channels_first"}, optional
        ``(batch, d1, d2, d3, c)`` or ``(batch, c, d1, d2, d3)``.
    seed : int, optional
        Op-level seed of tapers' random stream.
    """

    _ndim = 5

    def __init__(self, rate: float, data_format: str | None = None, seed: int | None = None,
                 name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(rate, seed=seed, name=name, dtype=dtype, **kwargs)
        self.data_format = standardize_data_format(data_format)

    def _noise_shape(self, shape: list[int]) -> list[int]:
        if self.data_format == "channels_last":
            return [shape[0], 1, 1, 1, shape[4]]
        return [shape[0], shape[1], 1, 1, 1]

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys (``rate``, ``seed``, ``name``, ``dtype``, ``data_format``)."""
        return {**super().get_config(), "data_format": self.data_format}


MaxPool3D = MaxPooling3D
AvgPool3D = AveragePooling3D
