"""Keras 3's convolution layers beyond Conv2D: 1-D, transposed, depthwise, separable.

Every layer here computes in NHWC on tapers' 2-D ops (``nn.conv2d``, ``nn.conv2d_transpose``,
``nn.depthwise_conv2d``): a 1-D layer views its ``(batch, steps, channels)`` input as an image of
height 1 and its kernel as a kernel of height 1, so both ranks share one code path and the same
gradients. Weights have Keras 3's names, shapes and order, so fixed weights give Keras' numbers.
``data_format="channels_first"`` inputs are transposed to channels-last and the result back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import _core, nn
from .. import constraints, regularizers
from ._base import Layer, _serialized
from ._core_layers import _activation, _activation_name, _initializer_config

__all__ = [
    "Conv1D",
    "Conv1DTranspose",
    "Conv2DTranspose",
    "DepthwiseConv1D",
    "DepthwiseConv2D",
    "SeparableConv1D",
    "SeparableConv2D",
]

Tensor = _core.Tensor


def _tuple(value: int | Sequence[int], rank: int, name: str, allow_zero: bool = False) -> tuple[int, ...]:
    """Keras' ``standardize_tuple``: an int or ``rank`` ints, all positive (or >= 0 with ``allow_zero``)."""
    if isinstance(value, int):
        out: tuple[int, ...] = (value,) * rank
    else:
        try:
            out = tuple(int(v) for v in value)
        except TypeError:
            raise ValueError(
                f"The `{name}` argument must be a tuple of {rank} integers. Received {name}={value}"
            ) from None
        if len(out) != rank:
            raise ValueError(f"The `{name}` argument must be a tuple of {rank} integers. Received {name}={value}")
    low = 0 if allow_zero else 1
    if any(v < low for v in out):
        cond = ">= 0" if allow_zero else "> 0"
        raise ValueError(
            f"The `{name}` argument must be a tuple of {rank} integers. Received {name}={value}, "
            f"including values {[v for v in out if v < low]} that do not satisfy `value {cond}`"
        )
    return out


def _padding(padding: str, allowed: tuple[str, ...]) -> str:
    p = str(padding).lower()
    if p not in allowed:
        raise ValueError(f"The `padding` argument must be one of {', '.join(repr(a) for a in allowed)}. "
                         f"Received: padding={padding}")  # fmt: skip
    return p


def _data_format(data_format: str | None) -> str:
    """Keras' ``standardize_data_format``; the default is ``"channels_last"``."""
    if data_format is None:
        return "channels_last"
    df = str(data_format).lower()
    if df not in ("channels_first", "channels_last"):
        raise ValueError(
            "The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
            f"Received: data_format={data_format}"
        )
    return df


def _conv_len(n: int | None, k: int, s: int, d: int, padding: str) -> int | None:
    """Output length of a convolution (``causal`` pads ``(k - 1) * d`` on the left, then is ``valid``)."""
    if n is None:
        return None
    if padding == "same":
        return (n + s - 1) // s
    eff = (k - 1) * d + 1
    if padding == "causal":
        n = n + eff - 1
    return (n - eff) // s + 1


def _transpose_len(n: int | None, k: int, s: int, d: int, padding: str, output_padding: int | None) -> int | None:
    """Keras 3's ``compute_conv_transpose_output_shape`` for one spatial axis."""
    if n is None:
        return None
    eff = (k - 1) * d + 1
    if padding == "valid":
        extra = max(eff, s) - eff if output_padding is None else output_padding
        return (n - 1) * s + eff + extra
    if output_padding is None:
        return n * s
    return (n - 1) * s + eff % 2 + output_padding


class _BaseConv(Layer):
    """Options and checks shared by every convolution layer here.

    ``rank`` is 1 or 2. Subclasses set ``_paddings`` (the padding names they accept) and write
    ``build``, ``_forward`` (NHWC input to NHWC output, before bias) and the output shape.
    """

    _paddings: tuple[str, ...] = ("valid", "same")
    _in_channels: int = 0  # set by build

    def __init__(
        self,
        rank: int,
        kernel_size: int | Sequence[int],
        strides: int | Sequence[int],
        padding: str,
        data_format: str | None,
        dilation_rate: int | Sequence[int],
        activation: Any,
        use_bias: bool,
        bias_initializer: Any,
        bias_regularizer: Any,
        activity_regularizer: Any,
        bias_constraint: Any,
        **kwargs: Any,
    ) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.rank = rank
        self.kernel_size = _tuple(kernel_size, rank, "kernel_size")
        self.strides = _tuple(strides, rank, "strides")
        self.padding = _padding(padding, self._paddings)
        self.data_format = _data_format(data_format)
        self.dilation_rate = _tuple(dilation_rate, rank, "dilation_rate")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                "`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                f"Received: strides={self.strides} and dilation_rate={self.dilation_rate}"
            )
        self.activation = _activation(activation)
        self.use_bias = bool(use_bias)
        self.bias_initializer = bias_initializer
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.bias_constraint = constraints.get(bias_constraint)
        self.bias: Any = None

    # -- helpers -----------------------------------------------------------------------------

    def _check_ndim(self, input_shape: Any) -> None:
        if len(input_shape) != self.rank + 2:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected ndim={self.rank + 2}, '
                f"found ndim={len(input_shape)}. Full shape received: {tuple(input_shape)}"
            )

    @property
    def _channel_axis(self) -> int:
        return -1 if self.data_format == "channels_last" else 1

    def _channels(self, input_shape: Any) -> int:
        """Checks the input rank and records (and returns) its channel count, which must be known."""
        self._check_ndim(input_shape)
        channels = input_shape[self._channel_axis]
        if channels is None:
            raise ValueError(
                f'Layer "{self.name}" needs a known channel dimension; got input shape {tuple(input_shape)}'
            )
        self._in_channels = int(channels)
        return self._in_channels

    def _check_input(self, inputs: Any, channels: int) -> None:
        shape = tuple(inputs.shape)
        if len(shape) != self.rank + 2 or shape[self._channel_axis] != channels:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected ndim={self.rank + 2} '
                f"and axis {self._channel_axis} of input shape to have value {channels}, but received input "
                f"with shape {shape}"
            )

    def _to_last(self, shape: Sequence[Any]) -> list[Any]:
        shape = list(shape)
        return shape if self.data_format == "channels_last" else [shape[0], *shape[2:], shape[1]]

    def _from_last(self, shape: Sequence[Any]) -> tuple[Any, ...]:
        shape = list(shape)
        return tuple(shape if self.data_format == "channels_last" else [shape[0], shape[-1], *shape[1:-1]])

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """The output shape in the layer's ``data_format`` (spatial sizes by the layer's formula)."""
        return self._from_last(self._shape_last(self._to_last(input_shape)))

    def _shape_last(self, input_shape: Any) -> tuple[int | None, ...]:
        raise NotImplementedError

    def _add_bias(self, size: int) -> None:
        self.bias = (
            self.add_weight(
                name="bias",
                shape=(size,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
            if self.use_bias
            else None
        )

    def _as_2d(self, values: tuple[int, ...]) -> list[int]:
        """A per-axis option for the NHWC op: 1-D layers run on height 1."""
        return [1, *values] if self.rank == 1 else list(values)

    def _image(self, x: Any) -> Any:
        return _core.expand_dims(x, 1) if self.rank == 1 else x

    def _kernel2d(self, k: Any) -> Any:
        return _core.expand_dims(_core.convert_to_tensor(k), 0) if self.rank == 1 else k

    def call(self, inputs: Any) -> Tensor:
        """The convolution (on an NHWC view), then ``bias`` and ``activation``."""
        x = _core.convert_to_tensor(inputs)
        self._check_input(x, self._in_channels)
        first = self.data_format == "channels_first"
        if first:  # computed channels-last, as TensorFlow's CPU kernels require
            x = _core.transpose(x, [0, *range(2, self.rank + 2), 1])
        y = self._forward(self._image(x))
        if self.rank == 1:
            y = _core.squeeze(y, [1])
        if self.bias is not None:
            y = y + self.bias
        if self.activation is not None:
            y = self.activation(y)
        return _core.transpose(y, [0, self.rank + 1, *range(1, self.rank + 1)]) if first else y

    def _forward(self, x: Any) -> Tensor:
        raise NotImplementedError

    def _base_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "activation": _activation_name(self.activation),
            "use_bias": self.use_bias,
            "bias_initializer": _initializer_config(self.bias_initializer),
            "bias_regularizer": _serialized(self.bias_regularizer),
            "activity_regularizer": _serialized(self.activity_regularizer),
            "bias_constraint": _serialized(self.bias_constraint),
        }


def _filters(filters: Any) -> int:
    if filters is None or int(filters) <= 0:
        raise ValueError(
            f"Invalid value for argument `filters`. Expected a strictly positive value. Received filters={filters}."
        )
    return int(filters)


class _Conv(_BaseConv):
    """A plain (optionally grouped) convolution of rank 1 or 2 with a ``kernel`` of shape
    ``(*kernel_size, in_channels // groups, filters)``."""

    def __init__(
        self,
        rank: int,
        filters: int,
        kernel_size: int | Sequence[int],
        strides: int | Sequence[int] = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: int | Sequence[int] = 1,
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
        super().__init__(rank, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
                         bias_initializer, bias_regularizer, activity_regularizer, bias_constraint,
                         **kwargs)  # fmt: skip
        self.filters = _filters(filters)
        self.groups = int(groups)
        if self.groups <= 0:
            raise ValueError(f"The number of groups must be a positive integer. Received: groups={groups}.")
        if self.filters % self.groups != 0:
            raise ValueError(
                "The number of filters must be evenly divisible by the number of groups. "
                f"Received: groups={self.groups}, filters={self.filters}."
            )
        self.kernel_initializer = kernel_initializer
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)

    def build(self, input_shape: Any = None) -> None:
        """Creates ``kernel`` ``(*kernel_size, in_channels // groups, filters)`` and ``bias`` ``(filters,)``."""
        channels = self._channels(input_shape)
        if channels % self.groups != 0:
            raise ValueError(
                "The number of input channels must be evenly divisible by the number of groups. Received "
                f"groups={self.groups}, but the input has {channels} channels (full input shape is "
                f"{tuple(input_shape)})."
            )
        self.kernel = self.add_weight(
            name="kernel",
            shape=(*self.kernel_size, channels // self.groups, self.filters),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self._add_bias(self.filters)
        self.built = True

    def _forward(self, x: Any) -> Tensor:
        padding = self.padding
        if padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            x = _core.pad(x, [[0, 0], [0, 0], [left, 0], [0, 0]])
            padding = "valid"
        k = self._kernel2d(self.kernel)
        strides, dilations = self._as_2d(self.strides), self._as_2d(self.dilation_rate)
        if self.groups == 1:
            return nn.conv2d(x, k, strides=strides, padding=padding.upper(), dilations=dilations)
        cin = self._in_channels // self.groups
        fout = self.filters // self.groups
        outs = [
            nn.conv2d(
                x[..., g * cin : (g + 1) * cin],
                k[..., g * fout : (g + 1) * fout],
                strides=strides,
                padding=padding.upper(),
                dilations=dilations,
            )  # fmt: skip
            for g in range(self.groups)
        ]
        return _core.concat(outs, axis=3)

    def _shape_last(self, input_shape: Any) -> tuple[int | None, ...]:
        """``(batch, *spatial_out, filters)``."""
        spatial = tuple(input_shape[1:-1])
        return (
            input_shape[0],
            *(_conv_len(n, k, s, d, self.padding)
              for n, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate)),
            self.filters,
        )  # fmt: skip

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for ``Conv1D``."""
        return {
            **self._base_config(),
            "filters": self.filters,
            "groups": self.groups,
            "kernel_initializer": _initializer_config(self.kernel_initializer),
            "kernel_regularizer": _serialized(self.kernel_regularizer),
            "kernel_constraint": _serialized(self.kernel_constraint),
        }


class Conv1D(_Conv):
    """1-D convolution over ``(batch, steps, channels)`` sequences (``keras.layers.Conv1D``).

    Weights: ``kernel`` of shape ``(kernel_size, in_channels // groups, filters)`` and ``bias`` of
    shape ``(filters,)``.

    Parameters
    ----------
    filters : int
        Output channels.
    kernel_size : int or tuple of 1 int
        Window length.
    strides, dilation_rate : int or tuple of 1 int
        Default 1 (not both above 1, as Keras).
    padding : {"valid", "same", "causal"}
        ``"causal"`` pads ``dilation_rate * (kernel_size - 1)`` zeros on the left so that output
        ``t`` never sees inputs after ``t`` (WaveNet-style), then convolves ``"valid"``.
    data_format : {"channels_last", "channels_first"}, optional
        Default ``"channels_last"``; ``"channels_first"`` is computed by transposing to channels-last
        and back (TensorFlow's CPU kernels reject it). Weight shapes do not depend on it.
    groups : int
        Splits input channels and filters into this many independent convolutions.
    activation : str or callable, optional
        Applied to the result.
    use_bias : bool
        Whether to add ``bias``.
    kernel_initializer, bias_initializer : str or initializer
        Keras' defaults ``"glorot_uniform"`` and ``"zeros"``.
    kernel_regularizer, bias_regularizer, activity_regularizer : optional
        Penalties added to ``losses``.
    kernel_constraint, bias_constraint : optional
        Projections applied after optimizer updates.
    """

    _paddings = ("valid", "same", "causal")

    def __init__(self, filters: int, kernel_size: int | Sequence[int], strides: int | Sequence[int] = 1,
                 padding: str = "valid", data_format: str | None = None, dilation_rate: int | Sequence[int] = 1,
                 groups: int = 1, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(1, filters, kernel_size, strides, padding, data_format, dilation_rate, groups, **kwargs)


class _ConvTranspose(_BaseConv):
    """A transposed convolution of rank 1 or 2 with a ``kernel`` of shape
    ``(*kernel_size, filters, in_channels)`` (the forward convolution's kernel it transposes)."""

    def __init__(
        self,
        rank: int,
        filters: int,
        kernel_size: int | Sequence[int],
        strides: int | Sequence[int] = 1,
        padding: str = "valid",
        output_padding: int | Sequence[int] | None = None,
        data_format: str | None = None,
        dilation_rate: int | Sequence[int] = 1,
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
        super().__init__(rank, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
                         bias_initializer, bias_regularizer, activity_regularizer, bias_constraint,
                         **kwargs)  # fmt: skip
        self.filters = _filters(filters)
        self.output_padding = (
            None if output_padding is None else _tuple(output_padding, rank, "output_padding", allow_zero=True)
        )
        if self.output_padding is not None:
            for i, (op, s) in enumerate(zip(self.output_padding, self.strides)):
                if op >= s:
                    raise ValueError(
                        "`output_padding` must be strictly less than `strides` for all dimensions. At dimension "
                        f"{i}, `output_padding` is {op} but `strides` is {s}. Received: "
                        f"output_padding={self.output_padding}, strides={self.strides}"
                    )
        self.kernel_initializer = kernel_initializer
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)

    def build(self, input_shape: Any = None) -> None:
        """Creates ``kernel`` ``(*kernel_size, filters, in_channels)`` and ``bias`` ``(filters,)``."""
        channels = self._channels(input_shape)
        self.kernel = self.add_weight(
            name="kernel",
            shape=(*self.kernel_size, self.filters, channels),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self._add_bias(self.filters)
        self.built = True

    def _spatial_out(self, spatial: Sequence[int | None]) -> list[int | None]:
        ops = self.output_padding if self.output_padding is not None else (None,) * self.rank
        return [
            _transpose_len(n, k, s, d, self.padding, op)
            for n, k, s, d, op in zip(spatial, self.kernel_size, self.strides, self.dilation_rate, ops)
        ]

    def _forward(self, x: Any) -> Tensor:
        spatial = self._spatial_out(list(x.shape[1:3])[2 - self.rank :])
        out_shape = [int(x.shape[0]), *self._as_2d(tuple(spatial)), self.filters]  # type: ignore[arg-type]
        return nn.conv2d_transpose(
            x,
            self._kernel2d(self.kernel),
            out_shape,
            strides=self._as_2d(self.strides),
            padding=self.padding.upper(),
            dilations=self._as_2d(self.dilation_rate),
        )

    def _shape_last(self, input_shape: Any) -> tuple[int | None, ...]:
        """``(batch, *spatial_out, filters)`` by Keras 3's transposed-convolution formula."""
        return (input_shape[0], *self._spatial_out(tuple(input_shape[1:-1])), self.filters)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for transposed convolutions."""
        return {
            **self._base_config(),
            "filters": self.filters,
            "output_padding": self.output_padding,
            "kernel_initializer": _initializer_config(self.kernel_initializer),
            "kernel_regularizer": _serialized(self.kernel_regularizer),
            "kernel_constraint": _serialized(self.kernel_constraint),
        }


_TRANSPOSE_DOC = """Transposed convolution ("deconvolution") over {what} (``keras.layers.{cls}``): the gradient of
    a {rank}-D convolution with respect to its input, used to upsample.

    Weights: ``kernel`` of shape ``({ks}, filters, in_channels)`` (note the order, as Keras) and
    ``bias`` of shape ``(filters,)``.

    Parameters
    ----------
    filters : int
        Output channels.
    kernel_size, strides, dilation_rate : int or tuple of {rank} int
        As Keras (strides and dilation not both above 1).
    padding : {{"valid", "same"}}
        Each output length is ``(n - 1) * s + k_eff + extra`` for ``"valid"`` (``extra =
        max(k_eff, s) - k_eff`` unless ``output_padding`` is given) and ``n * s`` for ``"same"``
        (``(n - 1) * s + k_eff % 2 + output_padding`` with ``output_padding``), Keras 3's formula.
    output_padding : int or tuple of {rank} int, optional
        Extra length on the far side of each axis; each must be below its stride.
    data_format : {{"channels_last", "channels_first"}}, optional
        Default ``"channels_last"``; ``"channels_first"`` is computed by transposing to channels-last
        and back (TensorFlow's CPU kernels reject it). Weight shapes do not depend on it.
    activation : str or callable, optional
        Applied to the result.
    use_bias : bool
        Whether to add ``bias``.
    kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer, \
kernel_constraint, bias_constraint : optional
        As for ``Conv2D``.
    """


class Conv2DTranspose(_ConvTranspose):
    __doc__ = _TRANSPOSE_DOC.format(what="NHWC images", cls="Conv2DTranspose", rank=2, ks="kh, kw")

    def __init__(self, filters: int, kernel_size: int | Sequence[int], strides: int | Sequence[int] = (1, 1),
                 padding: str = "valid", output_padding: int | Sequence[int] | None = None,
                 data_format: str | None = None, dilation_rate: int | Sequence[int] = (1, 1),
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(2, filters, kernel_size, strides, padding, output_padding, data_format, dilation_rate,
                         **kwargs)  # fmt: skip


class Conv1DTranspose(_ConvTranspose):
    __doc__ = _TRANSPOSE_DOC.format(what="``(batch, steps, channels)`` sequences", cls="Conv1DTranspose", rank=1,
                                    ks="k")  # fmt: skip

    def __init__(self, filters: int, kernel_size: int | Sequence[int], strides: int | Sequence[int] = 1,
                 padding: str = "valid", output_padding: int | Sequence[int] | None = None,
                 data_format: str | None = None, dilation_rate: int | Sequence[int] = 1,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(1, filters, kernel_size, strides, padding, output_padding, data_format, dilation_rate,
                         **kwargs)  # fmt: skip


class _DepthwiseMixin(_BaseConv):
    """The depthwise part shared by depthwise and separable layers: a ``(*kernel_size, in_channels,
    depth_multiplier)`` filter applied to each input channel on its own."""

    def _init_depthwise(self, depth_multiplier: int, initializer: Any, regularizer: Any, constraint: Any) -> None:
        if depth_multiplier is None or int(depth_multiplier) <= 0:
            raise ValueError("Invalid value for argument `depth_multiplier`. Expected a strictly positive value. "
                             f"Received depth_multiplier={depth_multiplier}.")  # fmt: skip
        self.depth_multiplier = int(depth_multiplier)
        self.depthwise_initializer = initializer
        self.depthwise_regularizer = regularizers.get(regularizer)
        self.depthwise_constraint = constraints.get(constraint)

    def _make_depthwise(self, input_shape: Any, name: str) -> Any:
        channels = self._channels(input_shape)
        return self.add_weight(
            name=name,
            shape=(*self.kernel_size, channels, self.depth_multiplier),
            initializer=self.depthwise_initializer,
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
        )

    def _depthwise(self, x: Any, kernel: Any) -> Tensor:
        return nn.depthwise_conv2d(
            x,
            self._kernel2d(kernel),
            strides=[1, *self._as_2d(self.strides), 1],
            padding=self.padding.upper(),
            dilations=self._as_2d(self.dilation_rate),
        )

    def _spatial_out(self, input_shape: Any) -> list[int | None]:
        return [
            _conv_len(n, k, s, d, self.padding)
            for n, k, s, d in zip(tuple(input_shape[1:-1]), self.kernel_size, self.strides, self.dilation_rate)
        ]

    def _depthwise_config(self) -> dict[str, Any]:
        return {
            **self._base_config(),
            "depth_multiplier": self.depth_multiplier,
            "depthwise_initializer": _initializer_config(self.depthwise_initializer),
            "depthwise_regularizer": _serialized(self.depthwise_regularizer),
            "depthwise_constraint": _serialized(self.depthwise_constraint),
        }


class _DepthwiseConv(_DepthwiseMixin):
    def __init__(
        self,
        rank: int,
        kernel_size: int | Sequence[int],
        strides: int | Sequence[int] = 1,
        padding: str = "valid",
        depth_multiplier: int = 1,
        data_format: str | None = None,
        dilation_rate: int | Sequence[int] = 1,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        depthwise_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        depthwise_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(rank, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
                         bias_initializer, bias_regularizer, activity_regularizer, bias_constraint,
                         **kwargs)  # fmt: skip
        self._init_depthwise(depth_multiplier, depthwise_initializer, depthwise_regularizer, depthwise_constraint)

    def build(self, input_shape: Any = None) -> None:
        """Creates ``kernel`` ``(*kernel_size, in_channels, depth_multiplier)`` and ``bias``
        ``(in_channels * depth_multiplier,)``."""
        self.kernel = self._make_depthwise(input_shape, "kernel")
        self._add_bias(self._in_channels * self.depth_multiplier)
        self.built = True

    def _forward(self, x: Any) -> Tensor:
        return self._depthwise(x, self.kernel)

    def _shape_last(self, input_shape: Any) -> tuple[int | None, ...]:
        """``(batch, *spatial_out, in_channels * depth_multiplier)``."""
        c = input_shape[-1]
        return (input_shape[0], *self._spatial_out(input_shape), None if c is None else c * self.depth_multiplier)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for depthwise convolutions."""
        return self._depthwise_config()


_DEPTHWISE_DOC = """Depthwise convolution over {what} (``keras.layers.{cls}``): each input channel is
    convolved with its own ``depth_multiplier`` filters; output channel ``c * depth_multiplier + m``
    comes from input channel ``c`` and filter ``m``.

    Weights: ``kernel`` of shape ``({ks}, in_channels, depth_multiplier)`` and ``bias`` of shape
    ``(in_channels * depth_multiplier,)``.

    Parameters
    ----------
    kernel_size, strides, dilation_rate : int or tuple of {rank} int
        As Keras (strides and dilation not both above 1).
    padding : {{"valid", "same"}}
        As Keras.
    depth_multiplier : int
        Filters per input channel, default 1.
    data_format : {{"channels_last", "channels_first"}}, optional
        Default ``"channels_last"``; ``"channels_first"`` is computed by transposing to channels-last
        and back (TensorFlow's CPU kernels reject it). Weight shapes do not depend on it.
    activation : str or callable, optional
        Applied to the result.
    use_bias : bool
        Whether to add ``bias``.
    depthwise_initializer, bias_initializer : str or initializer
        Keras' defaults ``"glorot_uniform"`` and ``"zeros"``.
    depthwise_regularizer, bias_regularizer, activity_regularizer, depthwise_constraint, \
bias_constraint : optional
        As for ``Conv2D``'s kernel and bias options.
    """


class DepthwiseConv2D(_DepthwiseConv):
    __doc__ = _DEPTHWISE_DOC.format(what="NHWC images", cls="DepthwiseConv2D", rank=2, ks="kh, kw")

    def __init__(self, kernel_size: int | Sequence[int], strides: int | Sequence[int] = (1, 1),
                 padding: str = "valid", depth_multiplier: int = 1, data_format: str | None = None,
                 dilation_rate: int | Sequence[int] = (1, 1), **kwargs: Any) -> None:  # fmt: skip
        super().__init__(2, kernel_size, strides, padding, depth_multiplier, data_format, dilation_rate, **kwargs)


class DepthwiseConv1D(_DepthwiseConv):
    __doc__ = _DEPTHWISE_DOC.format(what="``(batch, steps, channels)`` sequences", cls="DepthwiseConv1D", rank=1,
                                    ks="k")  # fmt: skip

    def __init__(self, kernel_size: int | Sequence[int], strides: int | Sequence[int] = 1,
                 padding: str = "valid", depth_multiplier: int = 1, data_format: str | None = None,
                 dilation_rate: int | Sequence[int] = 1, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(1, kernel_size, strides, padding, depth_multiplier, data_format, dilation_rate, **kwargs)


class _SeparableConv(_DepthwiseMixin):
    def __init__(
        self,
        rank: int,
        filters: int,
        kernel_size: int | Sequence[int],
        strides: int | Sequence[int] = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: int | Sequence[int] = 1,
        depth_multiplier: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        pointwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        depthwise_regularizer: Any = None,
        pointwise_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        depthwise_constraint: Any = None,
        pointwise_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(rank, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
                         bias_initializer, bias_regularizer, activity_regularizer, bias_constraint,
                         **kwargs)  # fmt: skip
        self.filters = _filters(filters)
        self._init_depthwise(depth_multiplier, depthwise_initializer, depthwise_regularizer, depthwise_constraint)
        self.pointwise_initializer = pointwise_initializer
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.pointwise_constraint = constraints.get(pointwise_constraint)

    def build(self, input_shape: Any = None) -> None:
        """Creates ``depthwise_kernel``, ``pointwise_kernel`` ``(*ones, in_channels * depth_multiplier,
        filters)`` and ``bias`` ``(filters,)``, in Keras' order."""
        self.depthwise_kernel = self._make_depthwise(input_shape, "depthwise_kernel")
        self.pointwise_kernel = self.add_weight(
            name="pointwise_kernel",
            shape=(*(1,) * self.rank, self._in_channels * self.depth_multiplier, self.filters),
            initializer=self.pointwise_initializer,
            regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint,
        )
        self._add_bias(self.filters)
        self.built = True

    def _forward(self, x: Any) -> Tensor:
        y = self._depthwise(x, self.depthwise_kernel)
        return nn.conv2d(y, self._kernel2d(self.pointwise_kernel), strides=[1, 1], padding="VALID")

    def _shape_last(self, input_shape: Any) -> tuple[int | None, ...]:
        """``(batch, *spatial_out, filters)``."""
        return (input_shape[0], *self._spatial_out(input_shape), self.filters)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for separable convolutions."""
        return {
            **self._depthwise_config(),
            "filters": self.filters,
            "pointwise_initializer": _initializer_config(self.pointwise_initializer),
            "pointwise_regularizer": _serialized(self.pointwise_regularizer),
            "pointwise_constraint": _serialized(self.pointwise_constraint),
        }


_SEPARABLE_DOC = """Depthwise-separable convolution over {what} (``keras.layers.{cls}``): a depthwise
    convolution (each input channel by its own ``depth_multiplier`` filters) followed by a pointwise
    (1x1) convolution mixing the channels; far fewer weights than a full convolution.

    Weights, in order: ``depthwise_kernel`` ``({ks}, in_channels, depth_multiplier)``,
    ``pointwise_kernel`` ``({ones}, in_channels * depth_multiplier, filters)`` and ``bias``
    ``(filters,)``.

    Parameters
    ----------
    filters : int
        Output channels.
    kernel_size, strides, dilation_rate : int or tuple of {rank} int
        Of the depthwise step (strides and dilation not both above 1).
    padding : {{"valid", "same"}}
        As Keras.
    depth_multiplier : int
        Depthwise filters per input channel, default 1.
    data_format : {{"channels_last", "channels_first"}}, optional
        Default ``"channels_last"``; ``"channels_first"`` is computed by transposing to channels-last
        and back (TensorFlow's CPU kernels reject it). Weight shapes do not depend on it.
    activation : str or callable, optional
        Applied to the result.
    use_bias : bool
        Whether to add ``bias``.
    depthwise_initializer, pointwise_initializer, bias_initializer : str or initializer
        Keras' defaults ``"glorot_uniform"``, ``"glorot_uniform"``, ``"zeros"``.
    depthwise_regularizer, pointwise_regularizer, bias_regularizer, activity_regularizer, \
depthwise_constraint, pointwise_constraint, bias_constraint : optional
        As for ``Conv2D``'s kernel and bias options.
    """


class SeparableConv2D(_SeparableConv):
    __doc__ = _SEPARABLE_DOC.format(what="NHWC images", cls="SeparableConv2D", rank=2, ks="kh, kw", ones="1, 1")

    def __init__(self, filters: int, kernel_size: int | Sequence[int], strides: int | Sequence[int] = (1, 1),
                 padding: str = "valid", data_format: str | None = None,
                 dilation_rate: int | Sequence[int] = (1, 1), depth_multiplier: int = 1,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(2, filters, kernel_size, strides, padding, data_format, dilation_rate, depth_multiplier,
                         **kwargs)  # fmt: skip


class SeparableConv1D(_SeparableConv):
    __doc__ = _SEPARABLE_DOC.format(what="``(batch, steps, channels)`` sequences", cls="SeparableConv1D", rank=1,
                                    ks="k", ones="1")  # fmt: skip

    def __init__(self, filters: int, kernel_size: int | Sequence[int], strides: int | Sequence[int] = 1,
                 padding: str = "valid", data_format: str | None = None, dilation_rate: int | Sequence[int] = 1,
                 depth_multiplier: int = 1, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(1, filters, kernel_size, strides, padding, data_format, dilation_rate, depth_multiplier,
                         **kwargs)  # fmt: skip
