"""More Keras 3 layers: ``RMSNormalization``, ``SpectralNormalization``, the adaptive pooling layers
(``AdaptiveAveragePooling1D/2D/3D``, ``AdaptiveMaxPooling1D/2D/3D``), ``GroupQueryAttention`` and
``ReversibleEmbedding``.

All computations use tapers ops, so gradients flow through ``GradientTape`` and the layers run
inside ``tapers.function``; numpy is used only on shapes and configuration.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _core, nn
from ..._module import _current_scope
from .. import constraints, initializers, regularizers
from ._attention import EinsumDense, _causal_mask
from ._base import KerasTensor, Layer, Wrapper, _serialized
from ._core_layers import Embedding, _initializer_config

__all__ = [
    "AdaptiveAveragePooling1D",
    "AdaptiveAveragePooling2D",
    "AdaptiveAveragePooling3D",
    "AdaptiveMaxPooling1D",
    "AdaptiveMaxPooling2D",
    "AdaptiveMaxPooling3D",
    "GroupQueryAttention",
    "GroupedQueryAttention",
    "IntegerLookup",
    "RMSNormalization",
    "ReversibleEmbedding",
    "SpectralNormalization",
]

Tensor = _core.Tensor


def _as_tensor(x: Any, dtype: str) -> Tensor:
    """``x`` as a tensor; floats are cast to ``dtype`` (Keras' autocast)."""
    t = _core.convert_to_tensor(x)
    if t.dtype.is_floating and t.dtype.name != dtype:
        t = _core.cast(t, dtype)
    return t


# ----------------------------------------------------------------------------- RMSNormalization


class RMSNormalization(Layer):
    """Root-mean-square normalization (``keras.layers.RMSNormalization``, Zhang & Sennrich 2019).

    ``x * rsqrt(mean(square(x), axis) + epsilon) * scale``: unlike
    LayerNormalization, the mean is not subtracted and there is no bias, which
    makes it cheaper and is what recent transformer blocks use. ``scale``
    (initialized to ones) has the shape of the normalized axes.

    As in Keras, ``scale`` multiplies the result by plain broadcasting against
    the trailing axes, so the normalized axes should be the last ones (the
    default ``axis=-1``); after ``build``, ``axis`` is a sorted list, as Keras
    stores it.

    Parameters
    ----------
    axis : int or list of int
        The axis or axes normalized over (default the last).
    epsilon : float
        Added to the mean square (default 1e-6).
    **kwargs
        ``Layer``'s arguments (``name``, ``dtype``, ...).
    """

    def __init__(self, axis: int | Sequence[int] = -1, epsilon: float = 1e-6, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis: Any = axis if isinstance(axis, int) else list(axis)
        self.epsilon = epsilon

    def _check_axes(self, input_shape: Any) -> list[int]:
        axes = [self.axis] if isinstance(self.axis, int) else list(self.axis)
        rank = len(input_shape)
        for a in axes:
            if a >= rank or a < -rank:
                raise ValueError(
                    f"Axis {a} is out of bounds for input shape {tuple(input_shape)}. Received: axis={self.axis}"
                )
        return axes

    def build(self, input_shape: Any = None) -> None:
        """Creates ``scale`` with the shape of the normalized axes (ones)."""
        self._check_axes(input_shape)
        if isinstance(self.axis, (list, tuple)):
            self.axis = sorted(self.axis)
            shape = tuple(input_shape[d] for d in self.axis)
        else:
            shape = (input_shape[self.axis],)
            self.axis = [self.axis]
        if any(d is None for d in shape):
            raise ValueError(
                f"RMSNormalization needs the normalized axes {self.axis} of the input to be known; "
                f"received input_shape={tuple(input_shape)}"
            )
        self.scale = self.add_weight(name="scale", shape=shape, initializer="ones")
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """``inputs * rsqrt(mean(square(inputs)) + epsilon) * scale``."""
        x = inputs
        axes = self._check_axes(x.shape)
        ms = _core.reduce_mean(_core.square(x), axis=axes, keepdims=True)
        y = x * _core.math.rsqrt(ms + _core.constant(self.epsilon, dtype=x.dtype))
        return y * _core.cast(self.scale, x.dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape (after checking ``axis`` against its rank)."""
        self._check_axes(input_shape)
        return tuple(input_shape)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: ``axis`` and ``epsilon``."""
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon}


# ----------------------------------------------------------------------------- SpectralNormalization


class SpectralNormalization(Wrapper):
    """Divides a wrapped layer's kernel by its spectral norm (``keras.layers.SpectralNormalization``,
    Miyato et al. 2018), which bounds the layer's Lipschitz constant (GAN discriminators).

    The wrapped layer must have a ``kernel`` (``Dense``, ``Conv2D``, ...) or
    ``embeddings`` (``Embedding``). The wrapper keeps the power iteration's
    left vector as the non-trainable weight ``vector_u`` of shape
    ``(1, kernel.shape[-1])`` (truncated normal, stddev 0.02). In a training
    call it runs ``power_iterations`` steps on the kernel reshaped to
    ``(-1, kernel.shape[-1])``, estimates ``sigma = v W u^T`` and assigns
    ``kernel / sigma`` to the kernel and the new ``u`` to ``vector_u`` (an all
    zero kernel is left as is), then calls the wrapped layer; in inference
    it only calls the wrapped layer. As in Keras, the weights are listed
    kernel, ``vector_u``, then the wrapped layer's other weights.

    Parameters
    ----------
    layer : Layer
        The layer whose kernel is normalized.
    power_iterations : int
        Power-iteration steps per training call (default 1, must be > 0).
    **kwargs
        ``Layer``'s arguments.
    """

    def __init__(self, layer: Any, power_iterations: int = 1, **kwargs: Any) -> None:
        super().__init__(layer, **kwargs)
        if power_iterations <= 0:
            raise ValueError(
                f"`power_iterations` should be greater than zero. Received: `power_iterations={power_iterations}`"
            )
        self.power_iterations = int(power_iterations)

    def build(self, input_shape: Any = None) -> None:
        """Builds the wrapped layer, finds its kernel and creates ``vector_u``."""
        if not self.layer.built:
            inside = _current_scope().endswith(self._scope_name)
            with contextlib.nullcontext() if inside else self._scope():
                self.layer._build_shapes = input_shape
                self.layer.build(input_shape)
            self.layer.built = True
        if hasattr(self.layer, "kernel"):
            self.kernel = self.layer.kernel
        elif hasattr(self.layer, "embeddings"):
            self.kernel = self.layer.embeddings
        else:
            raise ValueError(f"{type(self.layer).__name__} object has no attribute 'kernel' nor 'embeddings'")
        self.kernel_shape = tuple(self.kernel.shape)
        self.vector_u = self.add_weight(
            shape=(1, self.kernel_shape[-1]),
            initializer=initializers.TruncatedNormal(stddev=0.02),
            trainable=False,
            name="vector_u",
            dtype=self.kernel.dtype.name,
        )
        self.built = True

    def _own_variables(self) -> list[Any]:
        # Keras lists the wrapped kernel (an attribute of the wrapper) before vector_u.
        own = super()._own_variables()
        kernel = self.__dict__.get("kernel")
        if kernel is None:
            return own
        return [kernel, *[v for v in own if v is not kernel]]

    def normalized_weights(self) -> tuple[Tensor, Tensor]:
        """The power iteration: ``(new vector_u, kernel / sigma)``, as Keras computes them.

        Returns
        -------
        tuple of Tensor
            The updated ``vector_u`` and the spectrally normalized kernel.
        """
        kernel = _core.convert_to_tensor(self.kernel)
        weights = _core.reshape(kernel, [-1, self.kernel_shape[-1]])
        u = _core.convert_to_tensor(self.vector_u)
        eps = 1e-7  # keras.backend.epsilon(): the bound of normalize's inverse norm

        def normalize(t: Tensor) -> Tensor:
            inv = _core.math.rsqrt(_core.reduce_sum(_core.square(t)))
            return t * _core.minimum(inv, _core.constant(1.0 / eps, dtype=t.dtype))

        v = u
        for _ in range(self.power_iterations):
            v = normalize(_core.matmul(u, weights, transpose_b=True))
            u = normalize(_core.matmul(v, weights))
        u = _core.stop_gradient(u)
        v = _core.stop_gradient(v)
        sigma = _core.matmul(_core.matmul(v, weights), u, transpose_b=True)
        new_kernel = _core.reshape(kernel / sigma, list(self.kernel_shape))
        return u, new_kernel

    def call(self, inputs: Any, training: bool = False) -> Any:
        """In training, normalizes the kernel and updates ``vector_u``; then the wrapped layer."""
        if training:
            kernel = _core.convert_to_tensor(self.kernel)
            all_zero = _core.reduce_all(_core.equal(kernel, _core.zeros_like(kernel)))
            new_u, new_kernel = self.normalized_weights()
            self.vector_u.assign(_core.where(all_zero, _core.convert_to_tensor(self.vector_u), new_u))
            self.kernel.assign(_core.where(all_zero, kernel, new_kernel))
        output = self.layer(inputs)
        x = _core.convert_to_tensor(inputs)
        # Keras casts the output to the input's dtype; tapers only does so for float inputs, so an
        # Embedding's output is not truncated to the integer ids' dtype.
        if x.dtype.is_floating and output.dtype != x.dtype:
            output = _core.cast(output, x.dtype)
        return output

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The wrapped layer's output shape."""
        return self.layer.compute_output_shape(input_shape)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: the serialized ``layer`` and ``power_iterations``."""
        return {**super().get_config(), "power_iterations": self.power_iterations}


# ----------------------------------------------------------------------------- adaptive pooling


def _bins(length: int, out: int) -> list[tuple[int, int]]:
    """Keras 3's adaptive bins: ``[floor(i * L / O), ceil((i + 1) * L / O))`` for ``i < O``."""
    edges = []
    for i in range(out):
        start = min((i * length) // out, length - 1)
        end = min(-((-(i + 1) * length) // out), length)
        edges.append((start, end))
    return edges


def _output_size(output_size: Any, n: int) -> tuple[int, ...]:
    if isinstance(output_size, (int, np.integer)) and not isinstance(output_size, bool):
        return (int(output_size),) * n
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != n:
            raise ValueError(f"For {n}D input, `output_size` tuple must have length {n}. Received: {output_size}")
        out = tuple(int(d) for d in output_size)
        if any(d <= 0 for d in out):
            raise ValueError(f"`output_size` must be positive. Received: {output_size}")
        return out
    raise TypeError(
        f"`output_size` must be an integer or tuple of {n} integers. Received: {output_size} of type "
        f"{type(output_size)}"
    )


class _AdaptivePooling(Layer):
    """Pools each spatial axis into ``output_size`` bins, whatever its length (Keras 3.15 semantics)."""

    _rank = 1
    _reduce = "mean"

    def __init__(self, output_size: Any, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.output_size = _output_size(output_size, self._rank)
        data_format = "channels_last" if data_format is None else str(data_format)
        if data_format not in ("channels_first", "channels_last"):
            raise ValueError(f"Invalid data_format: {data_format}. Expected 'channels_first' or 'channels_last'.")
        self.data_format = data_format

    def _spatial_axes(self, input_shape: Any) -> list[int]:
        shape = tuple(input_shape)
        if len(shape) != self._rank + 2:
            raise ValueError(
                f"{type(self).__name__} expects an input of rank {self._rank + 2} (batch, "
                f"{'spatial..., channels' if self.data_format == 'channels_last' else 'channels, spatial...'}); "
                f"received input_shape={shape}"
            )
        first = 1 if self.data_format == "channels_last" else 2
        return list(range(first, first + self._rank))

    def call(self, inputs: Any) -> Tensor:
        """Pools bin ``i`` of each spatial axis over ``[floor(i L / O), ceil((i + 1) L / O))``."""
        x = inputs
        shape = tuple(x.shape)
        axes = self._spatial_axes(shape)
        reduce = _core.reduce_mean if self._reduce == "mean" else _core.reduce_max
        for axis, out in zip(axes, self.output_size):
            length = shape[axis]
            if length is None or length == 0:
                raise ValueError(
                    f"{type(self).__name__} needs known, non-empty spatial dimensions; received input shape {shape}"
                )
            parts = []
            for start, end in _bins(int(length), out):
                index: list[Any] = [slice(None)] * len(shape)
                index[axis] = slice(start, end)
                parts.append(reduce(x[tuple(index)], axis=axis, keepdims=True))
            x = parts[0] if len(parts) == 1 else _core.concat(parts, axis=axis)
        return x

    def compute_output_shape(self, input_shape: Any) -> Any:
        """``(batch, *output_size, channels)`` (or channels first)."""
        shape = tuple(input_shape)
        self._spatial_axes(shape)
        if self.data_format == "channels_last":
            return (shape[0], *self.output_size, shape[-1])
        return (shape[0], shape[1], *self.output_size)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: ``output_size`` (a tuple) and ``data_format``."""
        return {**super().get_config(), "output_size": self.output_size, "data_format": self.data_format}


class AdaptiveAveragePooling1D(_AdaptivePooling):
    """Averages a ``(batch, steps, channels)`` input into ``output_size`` steps
    (``keras.layers.AdaptiveAveragePooling1D``), for a fixed output length whatever the input's.

    Bin ``i`` covers steps ``floor(i L / O)`` to ``ceil((i + 1) L / O)`` (end
    excluded), so bins may overlap and, when ``O > L``, repeat steps, exactly
    as Keras 3.15 computes them.

    Parameters
    ----------
    output_size : int or tuple of 1 int
        The number of output steps.
    data_format : str, optional
        ``"channels_last"`` (default) or ``"channels_first"`` (``(batch, channels, steps)``).
    **kwargs
        ``Layer``'s arguments.
    """

    _rank = 1
    _reduce = "mean"


class AdaptiveAveragePooling2D(_AdaptivePooling):
    """Averages a ``(batch, height, width, channels)`` input into ``output_size`` bins
    (``keras.layers.AdaptiveAveragePooling2D``), for a fixed output size whatever the input's.

    Each spatial axis is split into bins ``[floor(i L / O), ceil((i + 1) L / O))``, as Keras 3.15 does.

    Parameters
    ----------
    output_size : int or tuple of 2 int
        The output's ``(height, width)`` (an int for both).
    data_format : str, optional
        ``"channels_last"`` (default) or ``"channels_first"``.
    **kwargs
        ``Layer``'s arguments.
    """

    _rank = 2
    _reduce = "mean"


class AdaptiveAveragePooling3D(_AdaptivePooling):
    """Averages a ``(batch, depth, height, width, channels)`` input into ``output_size`` bins
    (``keras.layers.AdaptiveAveragePooling3D``), for a fixed output size whatever the input's.

    Each spatial axis is split into bins ``[floor(i L / O), ceil((i + 1) L / O))``, as Keras 3.15 does.

    Parameters
    ----------
    output_size : int or tuple of 3 int
        The output's ``(depth, height, width)`` (an int for all three).
    data_format : str, optional
        ``"channels_last"`` (default) or ``"channels_first"``.
    **kwargs
        ``Layer``'s arguments.
    """

    _rank = 3
    _reduce = "mean"


class AdaptiveMaxPooling1D(_AdaptivePooling):
    """Takes the maximum of a ``(batch, steps, channels)`` input over ``output_size`` bins
    (``keras.layers.AdaptiveMaxPooling1D``), for a fixed output length whatever the input's.

    Bin ``i`` covers steps ``floor(i L / O)`` to ``ceil((i + 1) L / O)`` (end excluded), as Keras 3.15.

    Parameters
    ----------
    output_size : int or tuple of 1 int
        The number of output steps.
    data_format : str, optional
        ``"channels_last"`` (default) or ``"channels_first"``.
    **kwargs
        ``Layer``'s arguments.
    """

    _rank = 1
    _reduce = "max"


class AdaptiveMaxPooling2D(_AdaptivePooling):
    """Takes the maximum of a ``(batch, height, width, channels)`` input over ``output_size`` bins
    (``keras.layers.AdaptiveMaxPooling2D``), for a fixed output size whatever the input's.

    Each spatial axis is split into bins ``[floor(i L / O), ceil((i + 1) L / O))``, as Keras 3.15 does.

    Parameters
    ----------
    output_size : int or tuple of 2 int
        The output's ``(height, width)`` (an int for both).
    data_format : str, optional
        ``"channels_last"`` (default) or ``"channels_first"``.
    **kwargs
        ``Layer``'s arguments.
    """

    _rank = 2
    _reduce = "max"


class AdaptiveMaxPooling3D(_AdaptivePooling):
    """Takes the maximum of a ``(batch, depth, height, width, channels)`` input over ``output_size``
    bins (``keras.layers.AdaptiveMaxPooling3D``), for a fixed output size whatever the input's.

    Each spatial axis is split into bins ``[floor(i L / O), ceil((i + 1) L / O))``, as Keras 3.15 does.

    Parameters
    ----------
    output_size : int or tuple of 3 int
        The output's ``(depth, height, width)`` (an int for all three).
    data_format : str, optional
        ``"channels_last"`` (default) or ``"channels_first"``.
    **kwargs
        ``Layer``'s arguments.
    """

    _rank = 3
    _reduce = "max"


# ----------------------------------------------------------------------------- GroupQueryAttention


class GroupedQueryAttention(Layer):
    """Grouped-query attention (``keras.layers.GroupQueryAttention``, Ainslie et al. 2023).

    Queries have ``num_query_heads`` heads while keys and values have only
    ``num_key_value_heads`` (each shared by ``num_query_heads //
    num_key_value_heads`` query heads), which shrinks the key/value cache of
    decoders; ``num_key_value_heads=1`` is multi-query attention and
    ``num_key_value_heads=num_query_heads`` is multi-head attention.

    Sublayers (:class:`EinsumDense`, created on the first call) and their
    weights, in Keras' order: ``query`` (kernel ``(dim, num_query_heads,
    head_dim)``), ``key``, ``gate`` (with ``use_gate``), ``value`` (kernels
    ``(dim, num_key_value_heads, head_dim)``) and ``attention_output``
    (kernel ``(num_query_heads, head_dim, query_dim)``); biases when
    ``use_bias``. Scores are ``softmax(q k^T / sqrt(head_dim))`` with masked
    positions excluded; ``dropout`` is applied to the scores in training.

    Parameters
    ----------
    head_dim : int
        Size of each head.
    num_query_heads : int
        Number of query heads.
    num_key_value_heads : int
        Number of key/value heads; must divide ``num_query_heads``.
    dropout : float
        Dropout rate on the attention scores, in training only.
    use_bias : bool
        Whether the projections have biases.
    sliding_window : int, optional
        Each query position attends only to keys less than ``sliding_window``
        positions away (a symmetric band, combined with the causal mask when asked).
    flash_attention : bool, optional
        Only None/False: tapers has no flash attention (True raises ValueError).
    kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, kernel_constraint, bias_constraint
        Passed to the projections.
    activity_regularizer : regularizer, optional
        Applied to the layer's output and, as in Keras, to each projection's output.
    use_gate : bool
        Gated attention: the attention output is multiplied by
        ``sigmoid(gate(query))`` before the output projection.
    seed : int, optional
        Seed of the dropout.
    **kwargs
        ``Layer``'s arguments.

    Notes
    -----
    ``call(query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
    attention_mask=None, return_attention_scores=False, training=None, use_causal_mask=False)``
    returns ``(batch, target_len, query_dim)`` and, with ``return_attention_scores``,
    the scores ``(batch, num_query_heads, target_len, source_len)``.
    ``attention_mask`` is boolean ``(batch, target_len, source_len)`` (True: attend).
    """

    def __init__(
        self,
        head_dim: int,
        num_query_heads: int,
        num_key_value_heads: int,
        dropout: float = 0.0,
        use_bias: bool = True,
        sliding_window: int | None = None,
        flash_attention: bool | None = None,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        use_gate: bool = False,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        for arg, val in (("head_dim", head_dim), ("num_query_heads", num_query_heads),
                         ("num_key_value_heads", num_key_value_heads)):  # fmt: skip
            if not isinstance(val, (int, np.integer)) or isinstance(val, bool) or val <= 0:
                raise ValueError(f"`{arg}` must be a positive integer. Received: {arg}={val}")
        self.supports_masking = True
        self.head_dim = int(head_dim)
        self.num_query_heads = int(num_query_heads)
        self.num_key_value_heads = int(num_key_value_heads)
        if self.num_query_heads % self.num_key_value_heads != 0:
            raise ValueError("`num_query_heads` must be divisible by `num_key_value_heads`.")
        self.num_repeats = self.num_query_heads // self.num_key_value_heads
        if not 0.0 <= float(dropout) <= 1.0:
            raise ValueError(f"`dropout` must be in [0, 1]. Received: dropout={dropout}")
        self.dropout = dropout
        self.use_bias = use_bias
        self.use_gate = use_gate
        if sliding_window is not None and (
            not isinstance(sliding_window, (int, np.integer)) or isinstance(sliding_window, bool) or sliding_window <= 0
        ):
            raise ValueError(
                f"`sliding_window` must be `None` or a positive integer. Received: sliding_window={sliding_window}"
            )
        self.sliding_window = None if sliding_window is None else int(sliding_window)
        if flash_attention:
            raise ValueError("tapers.keras: GroupQueryAttention(flash_attention=True) is not supported (no flash "
                             "attention kernels); use flash_attention=None or False.")  # fmt: skip
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        # As in Keras, the activity regularizer applies to this layer's output and to each projection's.
        self._projection_activity_regularizer = regularizers.get(activity_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.seed = seed
        self._inverse_sqrt_head_dim = 1.0 / math.sqrt(float(self.head_dim))
        self._projections_built = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Calls the layer; ``query`` (and ``value``) may be given by keyword, as in Keras.

        Parameters
        ----------
        *args, **kwargs
            ``call``'s arguments.

        Returns
        -------
        Tensor or tuple of Tensor
            The attention output (and the scores with ``return_attention_scores``).
        """
        if not args and "query" in kwargs:
            args = (kwargs.pop("query"),)
        if len(args) == 1 and "value" in kwargs:
            args = (args[0], kwargs.pop("value"))
        return super().__call__(*args, **kwargs)

    def _dense(self, equation: str, output_shape: Any, bias_axes: str, name: str, activation: Any = None) -> Any:
        return EinsumDense(
            equation,
            output_shape=output_shape,
            bias_axes=bias_axes if self.use_bias else None,
            activation=activation,
            name=name,
            kernel_initializer=self.kernel_initializer,
            bias_initializer=self.bias_initializer,
            kernel_regularizer=self.kernel_regularizer,
            bias_regularizer=self.bias_regularizer,
            activity_regularizer=self._projection_activity_regularizer,
            kernel_constraint=self.kernel_constraint,
            bias_constraint=self.bias_constraint,
            dtype=self.dtype,
        )

    @staticmethod
    def _check_shapes(query_shape: Any, value_shape: Any, key_shape: Any) -> None:
        for arg, shape in (("query", query_shape), ("value", value_shape), ("key", key_shape)):
            if len(shape) != 3:
                raise ValueError(
                    f"GroupQueryAttention expects `{arg}` of rank 3 (batch, sequence, features); received "
                    f"{arg}_shape={tuple(shape)}"
                )
        if tuple(value_shape[1:-1]) != tuple(key_shape[1:-1]):
            raise ValueError(
                "All dimensions of `value` and `key`, except the last one, must be equal. Received: "
                f"value_shape={tuple(value_shape)} and key_shape={tuple(key_shape)}"
            )

    def build(self, query_shape: Any = None, value_shape: Any = None, key_shape: Any = None) -> None:
        """Creates the ``query``, ``key``, (``gate``,) ``value`` and ``attention_output`` projections.

        ``Layer.__call__`` passes only the query's shape; the projections are
        then created on the first call, once the value's shape is known.
        """
        if value_shape is None:
            return
        key_shape = value_shape if key_shape is None else key_shape
        query_shape, value_shape, key_shape = tuple(query_shape), tuple(value_shape), tuple(key_shape)
        self._check_shapes(query_shape, value_shape, key_shape)
        self.feature_dim = query_shape[-1]
        inside = _current_scope().endswith(self._scope_name)
        with contextlib.nullcontext() if inside else self._scope():
            self._query_dense = self._dense("bqm,muh->bquh", (None, self.num_query_heads, self.head_dim), "uh",
                                            "query")  # fmt: skip
            self._query_dense.build(query_shape)
            self._query_dense.built = True
            self._key_dense = self._dense("bkm,mvh->bkvh", (None, self.num_key_value_heads, self.head_dim), "vh",
                                          "key")  # fmt: skip
            self._key_dense.build(key_shape)
            self._key_dense.built = True
            if self.use_gate:
                self._gate_dense = self._dense("bqm,muh->bquh", (None, self.num_query_heads, self.head_dim), "uh",
                                               "gate", activation="sigmoid")  # fmt: skip
                self._gate_dense.build(query_shape)
                self._gate_dense.built = True
            self._value_dense = self._dense("bkm,mvh->bkvh", (None, self.num_key_value_heads, self.head_dim), "vh",
                                            "value")  # fmt: skip
            self._value_dense.build(value_shape)
            self._value_dense.built = True
            self._output_dense = self._dense("bquh,uhm->bqm", (None, self.feature_dim), "m", "attention_output")
            self._output_dense.build((None, None, self.num_query_heads, self.head_dim))
            self._output_dense.built = True
        self._projections_built = True
        self.built = True

    def _compute_attention_mask(
        self,
        query: Tensor,
        value: Tensor,
        query_mask: Any,
        value_mask: Any,
        key_mask: Any,
        attention_mask: Any,
        use_causal_mask: bool,
    ) -> Tensor | None:
        def as_bool(m: Any) -> Tensor:
            t = _core.convert_to_tensor(m)
            return t if t.dtype.name == "bool" else _core.cast(t, "bool")

        auto = None
        if query_mask is not None:
            auto = _core.expand_dims(as_bool(query_mask), -1)
        for m in (value_mask, key_mask):
            if m is not None:
                m = _core.expand_dims(as_bool(m), -2)
                auto = m if auto is None else _core.logical_and(auto, m)
        tq, tv = query.shape[1], value.shape[1]
        if use_causal_mask:
            m = _causal_mask(tq, tv)
            auto = m if auto is None else _core.logical_and(auto, m)
        if self.sliding_window is not None:
            row = _core.reshape(_core.range(tq), (1, tq, 1))
            col = _core.reshape(_core.range(tv), (1, 1, tv))
            m = _core.less(_core.abs(row - col), self.sliding_window)
            auto = m if auto is None else _core.logical_and(auto, m)
        if attention_mask is not None:
            attention_mask = as_bool(attention_mask)
        if auto is not None:
            attention_mask = auto if attention_mask is None else _core.logical_and(attention_mask, auto)
        return attention_mask

    def call(
        self,
        query: Any,
        value: Any,
        key: Any = None,
        query_mask: Any = None,
        value_mask: Any = None,
        key_mask: Any = None,
        attention_mask: Any = None,
        return_attention_scores: bool = False,
        training: Any = None,
        use_causal_mask: bool = False,
    ) -> Any:
        """Grouped attention of ``query`` over ``value`` (keys ``key``, default ``value``)."""
        dtype = self.compute_dtype
        query = _as_tensor(query, dtype)
        value = _as_tensor(value, dtype)
        key = value if key is None else _as_tensor(key, dtype)
        if not self._projections_built:
            self.build(tuple(query.shape), tuple(value.shape), tuple(key.shape))
        else:
            self._check_shapes(query.shape, value.shape, key.shape)
        mask = self._compute_attention_mask(
            query, value, query_mask, value_mask, key_mask, attention_mask, use_causal_mask
        )
        gate = self._gate_dense(query) if self.use_gate else None
        q = self._query_dense(query)
        k = self._key_dense(key)
        v = self._value_dense(value)
        if self.num_repeats > 1:
            k = _core.repeat(k, self.num_repeats, axis=2)
            v = _core.repeat(v, self.num_repeats, axis=2)
        q = q * _core.constant(self._inverse_sqrt_head_dim, dtype=q.dtype)
        scores = _core.einsum("bquh,bkuh->buqk", q, k)
        if mask is not None:
            for _ in range(len(scores.shape) - len(mask.shape)):
                mask = _core.expand_dims(mask, axis=-3)
            scores = _core.where(mask, scores, _core.constant(-1e9, dtype=scores.dtype))
        probs = nn.softmax(scores, axis=-1)
        # Keras zeroes fully masked rows only on its explicit-scores path (dropout > 0 or
        # return_attention_scores); its fused dot_product_attention path keeps the uniform softmax.
        if mask is not None and (self.dropout > 0 or return_attention_scores):
            probs = _core.where(mask, probs, _core.zeros_like(probs))
        final = probs
        if training and self.dropout > 0:
            if self.dropout >= 1:
                final = _core.zeros_like(probs)
            else:
                final = nn.dropout(probs, self.dropout, seed=self.seed)
        out = _core.einsum("buqk,bkuh->bquh", final, v)
        if gate is not None:
            out = out * gate
        out = self._output_dense(out)
        if return_attention_scores:
            return out, probs
        return out

    def compute_output_shape(self, query_shape: Any, value_shape: Any = None, key_shape: Any = None) -> Any:
        """The query's shape (Keras checks that query and value have the same last dimension)."""
        query_shape = tuple(query_shape)
        if value_shape is not None:
            value_shape = tuple(value_shape)
            key_shape = value_shape if key_shape is None else tuple(key_shape)
            if query_shape[-1] != value_shape[-1]:
                raise ValueError(
                    "The last dimension of `query_shape` and `value_shape` must be equal, but are "
                    f"{query_shape[-1]}, {value_shape[-1]}. Received: query_shape={query_shape}, "
                    f"value_shape={value_shape}"
                )
            if value_shape[1:-1] != key_shape[1:-1]:
                raise ValueError(
                    "All dimensions of `value` and `key`, except the last one, must be equal. Received: "
                    f"value_shape={value_shape} and key_shape={key_shape}"
                )
        return query_shape

    def compute_output_spec(self, query: Any, value: Any, key: Any = None, **kwargs: Any) -> Any:
        """KerasTensor(s) for symbolic inputs: the output and, with ``return_attention_scores``,
        the scores ``(batch, num_query_heads, target_len, source_len)``."""
        shape = self.compute_output_shape(query.shape, value.shape, None if key is None else key.shape)
        if not self._projections_built:
            self.build(query.shape, value.shape, None if key is None else key.shape)
        out = KerasTensor(shape, self.compute_dtype)
        if not kwargs.get("return_attention_scores"):
            return out
        kv_len = value.shape[1] if key is None else key.shape[1]
        scores = (query.shape[0], self.num_query_heads, query.shape[1], kv_len)
        return out, KerasTensor(scores, self.compute_dtype)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for GroupQueryAttention."""
        return {
            **super().get_config(),
            "head_dim": self.head_dim,
            "num_query_heads": self.num_query_heads,
            "num_key_value_heads": self.num_key_value_heads,
            "use_bias": self.use_bias,
            "use_gate": self.use_gate,
            "sliding_window": self.sliding_window,
            "dropout": self.dropout,
            "kernel_initializer": _initializer_config(self.kernel_initializer),
            "bias_initializer": _initializer_config(self.bias_initializer),
            "kernel_regularizer": _serialized(self.kernel_regularizer),
            "bias_regularizer": _serialized(self.bias_regularizer),
            "activity_regularizer": _serialized(self._projection_activity_regularizer),
            "kernel_constraint": _serialized(self.kernel_constraint),
            "bias_constraint": _serialized(self.bias_constraint),
            "seed": self.seed,
        }


GroupQueryAttention = GroupedQueryAttention


# ----------------------------------------------------------------------------- ReversibleEmbedding


class ReversibleEmbedding(Embedding):
    """An embedding that can also project vectors back to vocabulary logits
    (``keras.layers.ReversibleEmbedding``): the tied input/output embedding of language models.

    ``layer(ids)`` looks up rows of ``embeddings`` ``(input_dim, output_dim)``;
    ``layer(x, reverse=True)`` returns ``x @ embeddings^T`` (``tie_weights``,
    the default) or ``x @ reverse_embeddings`` (a separate trainable
    ``(output_dim, input_dim)`` weight when ``tie_weights=False``), optionally
    soft-capped as ``tanh(logits / cap) * cap``.

    Parameters
    ----------
    input_dim : int
        Vocabulary size.
    output_dim : int
        Embedding size.
    tie_weights : bool
        Whether the reverse projection reuses ``embeddings`` (default True).
    embeddings_initializer : str or initializer
        Default ``"uniform"``; also used for ``reverse_embeddings``.
    embeddings_regularizer, embeddings_constraint : optional
        For ``embeddings``.
    mask_zero : bool
        Only False (tapers has no Keras masks).
    reverse_dtype : str, optional
        The dtype the reverse projection is computed in (inputs and kernel are cast to it).
    logit_soft_cap : float, optional
        Caps the reverse logits to ``(-cap, cap)`` with ``tanh``.
    **kwargs
        ``Layer``'s arguments.
    """

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        tie_weights: bool = True,
        embeddings_initializer: Any = "uniform",
        embeddings_regularizer: Any = None,
        embeddings_constraint: Any = None,
        mask_zero: bool = False,
        reverse_dtype: Any = None,
        logit_soft_cap: float | None = None,
        **kwargs: Any,
    ) -> None:
        self.tie_weights = bool(tie_weights)
        super().__init__(
            input_dim,
            output_dim,
            embeddings_initializer=embeddings_initializer,
            embeddings_regularizer=embeddings_regularizer,
            embeddings_constraint=embeddings_constraint,
            mask_zero=mask_zero,
            **kwargs,
        )
        self.tie_weights = bool(tie_weights)
        self.reverse_dtype = reverse_dtype
        self.logit_soft_cap = logit_soft_cap

    def build(self, input_shape: Any = None) -> None:
        """Creates ``embeddings`` and, when ``tie_weights`` is False, ``reverse_embeddings``."""
        if self.built:
            return
        super().build(input_shape)
        if not self.tie_weights:
            self.reverse_embeddings = self.add_weight(
                shape=(self.output_dim, self.input_dim),
                initializer=self.embeddings_initializer,
                name="reverse_embeddings",
                trainable=True,
            )
        self.built = True

    def call(self, inputs: Any, reverse: bool = False) -> Tensor:
        """The lookup, or with ``reverse=True`` the logits ``inputs @ kernel`` (soft-capped)."""
        if not reverse:
            return super().call(inputs)
        x = inputs
        if x.shape[-1] != self.output_dim:
            raise ValueError(
                f"ReversibleEmbedding(reverse=True) expects inputs whose last dimension is output_dim="
                f"{self.output_dim}; received input shape {tuple(x.shape)}"
            )
        kernel = (
            _core.transpose(self.embeddings) if self.tie_weights else _core.convert_to_tensor(self.reverse_embeddings)
        )
        if self.reverse_dtype is not None:
            x = _core.cast(x, self.reverse_dtype)
            kernel = _core.cast(kernel, self.reverse_dtype)
        elif kernel.dtype != x.dtype:
            kernel = _core.cast(kernel, x.dtype)
        logits = _core.tensordot(x, kernel, axes=1) if len(x.shape) > 2 else _core.matmul(x, kernel)
        if self.logit_soft_cap is not None:
            cap = _core.constant(self.logit_soft_cap, dtype=logits.dtype)
            logits = _core.tanh(logits / cap) * cap
        return logits

    def compute_output_shape(self, input_shape: Any, reverse: bool = False) -> Any:
        """``input_shape + (output_dim,)``, or with ``reverse`` the last dimension replaced by ``input_dim``."""
        shape = list(input_shape)
        if reverse:
            shape[-1] = self.input_dim
        else:
            shape.append(self.output_dim)
        return tuple(shape)

    def compute_output_spec(self, inputs: Any, reverse: bool = False, **kwargs: Any) -> Any:
        """The KerasTensor of a symbolic call (``reverse`` as in ``call``)."""
        return KerasTensor(self.compute_output_shape(inputs.shape, reverse=reverse), self.compute_dtype)

    def get_config(self) -> dict[str, Any]:
        """Embedding's keys plus ``tie_weights``, ``reverse_dtype`` and ``logit_soft_cap``."""
        return {
            **super().get_config(),
            "tie_weights": self.tie_weights,
            "reverse_dtype": self.reverse_dtype,
            "logit_soft_cap": self.logit_soft_cap,
        }


# ----------------------------------------------------------------------------- IntegerLookup

_LOOKUP_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")


class IntegerLookup(Layer):
    """Maps integer tokens to contiguous indices, or encodes them (``keras.layers.IntegerLookup``).

    The index space is, in order: the mask token (index 0, only when
    ``mask_token`` is set and ``output_mode="int"``), ``num_oov_indices``
    out-of-vocabulary indices, then the vocabulary. The vocabulary comes from
    ``vocabulary=`` / :meth:`set_vocabulary` or from :meth:`adapt` (tokens by
    decreasing frequency, ties by decreasing value, at most ``max_tokens``
    indices in all). An unknown token goes to the OOV index (``token %
    num_oov_indices`` among several, Keras' ``"floormod"``); with
    ``num_oov_indices=0`` it raises ``InvalidArgumentError``. The mask token
    gives 0 in ``"int"`` mode and is dropped by the other modes.

    ``output_mode`` (outputs are int64 except for ``"tf_idf"``, float32, as in Keras 3; a
    symbolic call reports float32 for every encoding, as Keras' ``compute_output_spec`` does):
    ``"int"`` (indices, the input's shape),
    ``"one_hot"`` (a ``vocabulary_size`` axis added, or replacing a trailing
    axis of size 1), ``"multi_hot"`` / ``"count"`` (the last axis reduced to
    presence / counts; a rank-1 input is one sample) and ``"tf_idf"`` (counts
    times ``idf_weights``; after ``adapt`` these are ``log(1 + documents / (1
    + documents containing the token))``, the special indices getting their
    mean). With ``invert=True`` the layer maps indices back to tokens (unknown
    indices give ``oov_token``). Lookups use tapers ops (a sorted search), so
    the layer works inside ``tapers.function``; ``adapt`` reads its data's
    values, as Keras' does.

    Parameters
    ----------
    max_tokens : int, optional
        The largest vocabulary size, special indices included (> 1).
    num_oov_indices : int
        Number of OOV indices (default 1).
    mask_token : int, optional
        The token that stands for masked positions (none by default).
    oov_token : int
        Returned for unknown indices when ``invert`` (default -1).
    vocabulary : sequence of int or array, optional
        The vocabulary, with or without the special tokens at its start.
    vocabulary_dtype : str
        Only ``"int64"``.
    idf_weights : sequence of float, optional
        Required with a ``vocabulary`` in ``"tf_idf"`` mode.
    invert : bool
        Map indices to tokens instead (``output_mode="int"`` only).
    output_mode : str
        ``"int"``, ``"one_hot"``, ``"multi_hot"``, ``"count"`` or ``"tf_idf"``.
    sparse : bool
        Only False (tapers has no sparse tensors).
    pad_to_max_tokens : bool
        Encoded outputs get ``max_tokens`` columns instead of the vocabulary size.
    oov_method : str
        Only ``"floormod"`` (``"farmhash"`` hashes strings of the tokens; not implemented).
    salt : optional
        Only with ``"farmhash"``.
    name : str, optional
        The layer's name.
    **kwargs
        ``Layer``'s arguments.
    """

    def __init__(
        self,
        max_tokens: int | None = None,
        num_oov_indices: int = 1,
        mask_token: int | None = None,
        oov_token: int = -1,
        vocabulary: Any = None,
        vocabulary_dtype: str = "int64",
        idf_weights: Any = None,
        invert: bool = False,
        output_mode: str = "int",
        sparse: bool = False,
        pad_to_max_tokens: bool = False,
        oov_method: str = "floormod",
        salt: Any = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(
                f"If `max_tokens` is set for `IntegerLookup`, it must be greater than 1. Received: "
                f"max_tokens={max_tokens}"
            )
        if num_oov_indices < 0:
            raise ValueError(
                f"The value of `num_oov_indices` argument for `IntegerLookup` must >= 0. Received: "
                f"num_oov_indices={num_oov_indices}"
            )
        if vocabulary_dtype != "int64":
            raise ValueError(
                f"Only `vocabulary_dtype='int64'` is supported at this time. Received: "
                f"vocabulary_dtype={vocabulary_dtype}"
            )
        if sparse:
            raise ValueError("tapers.keras: IntegerLookup(sparse=True) is not supported (no sparse tensors).")
        if oov_method not in ("floormod", "farmhash"):
            raise ValueError(f"`oov_method` must be 'floormod' or 'farmhash'. Received: oov_method={oov_method}")
        if oov_method == "farmhash":
            raise ValueError("tapers.keras: IntegerLookup(oov_method='farmhash') is not supported; use 'floormod'.")
        if salt is not None:
            raise ValueError(f"`salt` can only be used when `oov_method='farmhash'`. Received: oov_method={oov_method}")
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        if output_mode not in _LOOKUP_MODES:
            raise ValueError(
                f"Unknown value for `output_mode`. Expected one of {list(_LOOKUP_MODES)}. Received: "
                f"output_mode={output_mode}"
            )
        if invert and output_mode != "int":
            raise ValueError(
                f"`output_mode` must be `'int'` when `invert` is true. Received: output_mode={output_mode}"
            )
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError(
                f"`idf_weights` should only be set if `output_mode` is `'tf_idf'`. Received: "
                f"idf_weights={idf_weights} and output_mode={output_mode}"
            )
        if output_mode == "tf_idf" and vocabulary is not None and idf_weights is None:
            raise ValueError(
                "When specifying the `vocabulary` argument, in TF-IDF output mode, the `idf_weights` argument "
                "must also be provided."
            )
        if pad_to_max_tokens and output_mode != "int" and max_tokens is None:
            raise ValueError("`pad_to_max_tokens=True` needs `max_tokens`.")
        kwargs.pop("dtype", None)
        kwargs.pop("has_input_vocabulary", None)
        super().__init__(name=name, **kwargs)
        self.invert = bool(invert)
        self.max_tokens = max_tokens
        self.num_oov_indices = int(num_oov_indices)
        self.mask_token = None if mask_token is None else int(mask_token)
        self.oov_token = None if oov_token is None else int(oov_token)
        self.output_mode = output_mode
        self.sparse = False
        self.pad_to_max_tokens = bool(pad_to_max_tokens)
        self.vocabulary_dtype = vocabulary_dtype
        self.oov_method = oov_method
        self.salt = None
        self._has_input_vocabulary = vocabulary is not None
        self.input_vocabulary = vocabulary
        self.input_idf_weights = idf_weights
        self._tokens = np.zeros((0,), np.int64)
        self._idf: np.ndarray | None = None
        self._frozen_vocab_size: int | None = None
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)
        self.built = True

    # -- vocabulary -----------------------------------------------------------

    def _oov_start_index(self) -> int:
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    def _token_start_index(self) -> int:
        return self._oov_start_index() + self.num_oov_indices

    def vocabulary_size(self) -> int:
        """The number of indices: special ones (mask, OOV) plus the vocabulary.

        Returns
        -------
        int
        """
        return int(self._tokens.size) + self._token_start_index()

    def get_vocabulary(self, include_special_tokens: bool = True) -> list[int]:
        """The vocabulary in index order.

        Parameters
        ----------
        include_special_tokens : bool
            Include the mask and OOV tokens at their indices (default True).

        Returns
        -------
        list of int
        """
        specials: list[Any] = [self.oov_token] * self._token_start_index()
        if self.mask_token is not None and self.output_mode == "int":
            specials[0] = self.mask_token
        vocab = [int(t) for t in self._tokens]
        return specials + vocab if include_special_tokens else vocab

    def set_vocabulary(self, vocabulary: Any, idf_weights: Any = None) -> None:
        """Sets the vocabulary (and, in ``"tf_idf"`` mode, the IDF weights).

        Parameters
        ----------
        vocabulary : sequence of int, array or tensor
            The tokens, optionally preceded by exactly the special tokens (mask, OOV).
        idf_weights : sequence of float, optional
            One weight per vocabulary entry; required in ``"tf_idf"`` mode only.

        Returns
        -------
        None
        """
        if self.output_mode == "tf_idf":
            if idf_weights is None:
                raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'.")
        elif idf_weights is not None:
            raise ValueError(
                f"`idf_weights` should only be set if output_mode is `'tf_idf'`. Received: "
                f"output_mode={self.output_mode} and idf_weights={idf_weights}"
            )
        if isinstance(vocabulary, str):
            raise ValueError("tapers.keras: IntegerLookup does not load vocabulary files; pass the tokens.")
        vocab = np.asarray(vocabulary.numpy() if hasattr(vocabulary, "numpy") else vocabulary)
        if vocab.size == 0:
            raise ValueError(f"Cannot set an empty vocabulary. Received: vocabulary={vocabulary}")
        if vocab.ndim != 1 or not np.issubdtype(vocab.dtype, np.integer):
            raise ValueError(f"IntegerLookup needs a 1-D integer vocabulary. Received: {vocabulary!r}")
        vocab = vocab.astype(np.int64)
        token_start = self._token_start_index()
        special: list[Any] = [self.mask_token] * self._oov_start_index() + [self.oov_token] * self.num_oov_indices
        found_special = len(vocab) >= token_start and np.array_equal(special, vocab[:token_start])
        tokens = vocab[token_start:] if found_special else vocab
        uniq, counts = np.unique(tokens, return_counts=True)
        if np.any(counts > 1):
            raise ValueError(
                "The passed vocabulary has at least one repeated term. Please uniquify your dataset. The repeated "
                f"terms are: {sorted(int(t) for t in uniq[counts > 1])}"
            )
        if self.mask_token is not None and self.mask_token in tokens:
            raise ValueError(
                "Found reserved mask token at unexpected location in `vocabulary`. Either remove all mask and OOV "
                f"tokens, or include them only at the start of the vocabulary in precisely this order: {special}. "
                f"Received: mask_token={self.mask_token}"
            )
        if self.oov_token is not None and self.invert and self.oov_token in tokens:
            raise ValueError(
                "Found reserved OOV token at unexpected location in `vocabulary`. Either remove all mask and OOV "
                f"tokens, or include them only at the start of the vocabulary in precisely this order: {special}. "
                f"Received: oov_token={self.oov_token}"
            )
        if self.max_tokens is not None and token_start + len(tokens) > self.max_tokens:
            raise ValueError(
                "Attempted to set a vocabulary larger than the maximum vocab size. Received vocabulary size is "
                f"{token_start + len(tokens)}; `max_tokens` is {self.max_tokens}."
            )
        self._tokens = tokens
        if self.output_mode == "tf_idf" and idf_weights is not None:
            w = np.asarray(idf_weights.numpy() if hasattr(idf_weights, "numpy") else idf_weights, np.float64)
            if w.ndim != 1:
                raise ValueError(f"TF-IDF data must be a 1-index array. Received: idf_weights={idf_weights}")
            if len(w) != len(vocab):
                raise ValueError(
                    f"`idf_weights` must be the same length as vocabulary. len(idf_weights) is {len(w)}; "
                    f"len(vocabulary) is {len(vocab)}"
                )
            front = 0 if found_special else token_start
            w = np.concatenate([np.full(front, np.mean(w)), w])
            self._idf = self._pad_idf(w)
        self._frozen_vocab_size = self.vocabulary_size()

    def _pad_idf(self, w: np.ndarray) -> np.ndarray:
        if self.pad_to_max_tokens and self.max_tokens is not None:
            w = np.concatenate([w, np.zeros(self.max_tokens - len(w))])
        return w.astype(np.float32)

    def adapt(self, data: Any, steps: int | None = None) -> None:
        """Learns the vocabulary (and IDF weights) from ``data``: an array/tensor, or an iterable of batches.

        Tokens are ranked by decreasing count, ties by decreasing value (Keras'
        order); the mask and OOV tokens are left out.

        Parameters
        ----------
        data : array, tensor or iterable of them
            Integer tokens; a rank-1 array is a batch of one-token documents.
        steps : int, optional
            How many batches of an iterable to read.

        Returns
        -------
        None
        """
        if self._has_input_vocabulary:
            raise ValueError(
                f"Cannot adapt layer '{self.name}' after setting a static vocabulary via `vocabulary` argument or "
                "`set_vocabulary()` method."
            )

        def as_array(x: Any) -> np.ndarray:
            return np.asarray(x.numpy() if hasattr(x, "numpy") else x)

        if isinstance(data, (list, tuple, np.ndarray)) or hasattr(data, "numpy"):
            arr = as_array(data)
            batches = [arr[:, None] if arr.ndim == 1 else arr]
        else:
            batches = []
            for i, batch in enumerate(data):
                if steps is not None and i >= steps:
                    break
                arr = as_array(batch)
                batches.append(arr.reshape(1, -1) if arr.ndim <= 1 else arr)
        counts: dict[int, int] = {}
        doc_counts: dict[int, int] = {}
        num_docs = 0
        for arr in batches:
            if not np.issubdtype(arr.dtype, np.integer):
                raise ValueError(f"IntegerLookup.adapt needs integer data. Received dtype {arr.dtype}")
            for t, c in zip(*np.unique(arr.astype(np.int64), return_counts=True)):
                counts[int(t)] = counts.get(int(t), 0) + int(c)
            for doc in arr.reshape(arr.shape[0], -1):
                for t in np.unique(doc.astype(np.int64)):
                    doc_counts[int(t)] = doc_counts.get(int(t), 0) + 1
            num_docs += arr.shape[0]
        for special in (self.mask_token, self.oov_token):
            if special is not None:
                counts.pop(special, None)
        if not counts:
            self._frozen_vocab_size = self.vocabulary_size()
            return
        toks = np.array(list(counts), np.int64)
        cnts = np.array([counts[int(t)] for t in toks], np.int64)
        order = np.lexsort((toks, cnts))[::-1]
        if self.max_tokens:
            order = order[: self.max_tokens - self._token_start_index()]
        self._tokens = toks[order]
        if self.output_mode == "tf_idf":
            dc = np.array([doc_counts.get(int(t), 0) for t in self._tokens], np.float64)
            idf = np.log(1 + num_docs / (1 + dc)).astype(np.float32).astype(np.float64)
            idf = np.concatenate([np.full(self._token_start_index(), np.mean(idf)), idf])
            self._idf = self._pad_idf(idf)
        self._frozen_vocab_size = self.vocabulary_size()

    @property
    def idf_weights(self) -> Any:
        """The IDF weights of the ``"tf_idf"`` mode (special indices included), or None."""
        return None if self._idf is None else _core.constant(self._idf)

    # -- calling --------------------------------------------------------------

    def _depth(self) -> int:
        if self.pad_to_max_tokens and self.max_tokens is not None:
            return int(self.max_tokens)
        if self._frozen_vocab_size is None:
            raise RuntimeError(
                f"When using `output_mode={self.output_mode}` and `pad_to_max_tokens=False`, you must set the "
                "layer's vocabulary before calling it. Either pass a `vocabulary` argument to the layer, or call "
                "`adapt` with some sample data."
            )
        return self._frozen_vocab_size

    def _lookup(self, x: Tensor) -> Tensor:
        """Token -> index (int64); masked positions -> 0 ("int") or -1 (dropped by the encodings)."""
        flat = _core.reshape(x, [1, -1])
        n = int(self._tokens.size)
        start = self._token_start_index()
        if n:
            order = np.argsort(self._tokens, kind="stable")
            sorted_tokens = _core.constant(self._tokens[order].reshape(1, -1))
            pos = _core.minimum(_core.searchsorted(sorted_tokens, flat), n - 1)
            pos = _core.reshape(pos, [-1])
            found = _core.equal(_core.gather(_core.reshape(sorted_tokens, [-1]), pos), _core.reshape(flat, [-1]))
            idx = _core.gather(_core.constant(order.astype(np.int64) + start), pos)
        else:
            found = _core.zeros_like(_core.reshape(flat, [-1])) > 0
            idx = _core.zeros_like(_core.reshape(flat, [-1]))
        values = _core.reshape(flat, [-1])
        if self.num_oov_indices == 0:
            oov = None
            n_oov = _core.reduce_sum(_core.cast(_core.logical_not(found), "int64"))
            if self.mask_token is not None:
                not_mask = _core.cast(_core.not_equal(values, self.mask_token), "int64")
                n_oov = _core.reduce_sum(_core.cast(_core.logical_not(found), "int64") * not_mask)
            from ... import debugging

            debugging.assert_equal(
                n_oov,
                _core.constant(0, dtype="int64"),
                message="When `num_oov_indices=0` all inputs should be in vocabulary, found OOV values; consider "
                "setting `num_oov_indices=1`.",
            )
            oov = _core.fill(_core.shape(values), _core.constant(-1, dtype="int64"))
        elif self.num_oov_indices == 1:
            oov = _core.fill(_core.shape(values), _core.constant(self._oov_start_index(), dtype="int64"))
        else:
            oov = _core.math.floormod(values, self.num_oov_indices) + self._oov_start_index()
        out = _core.where(found, idx, oov)
        if self.mask_token is not None:
            masked = 0 if self.output_mode == "int" else -1
            out = _core.where(
                _core.equal(values, self.mask_token), _core.fill(_core.shape(values), np.int64(masked)), out
            )
        return _core.reshape(out, _core.shape(x))

    def _invert(self, x: Tensor) -> Tensor:
        vocab = np.asarray(self.get_vocabulary(), np.int64)
        size = len(vocab)
        xi = _core.cast(x, "int64")
        ok = _core.logical_and(_core.greater_equal(xi, 0), _core.less(xi, size))
        safe = _core.where(ok, xi, _core.zeros_like(xi))
        tokens = _core.gather(_core.constant(vocab), safe)
        oov = -1 if self.oov_token is None else self.oov_token
        out = _core.where(ok, tokens, _core.fill(_core.shape(xi), np.int64(oov)))
        if self.mask_token is not None:
            out = _core.where(_core.equal(xi, 0), _core.fill(_core.shape(xi), np.int64(self.mask_token)), out)
        return out

    def call(self, inputs: Any) -> Tensor:
        """Looks the tokens up (or, with ``invert``, the indices) and encodes them per ``output_mode``."""
        x = _core.convert_to_tensor(inputs)
        if x.dtype.is_floating or x.dtype.name == "bool":
            raise ValueError(f"IntegerLookup expects integer inputs; received dtype {x.dtype.name}")
        if x.dtype.name != "int64":
            x = _core.cast(x, "int64")
        if self.invert:
            return self._invert(x)
        if self.output_mode == "int":
            return self._lookup(x)
        depth = self._depth()
        rank = len(x.shape)
        if rank == 0:
            x = _core.reshape(x, [1])
            rank = 1
        if self.output_mode != "one_hot" and rank > 2:
            raise ValueError(
                f"IntegerLookup(output_mode={self.output_mode!r}) takes inputs of rank 1 or 2; received input "
                f"shape {tuple(x.shape)}"
            )
        idx = self._lookup(x)
        if self.output_mode == "one_hot":
            if rank > 1 and x.shape[-1] == 1:
                idx = _core.reshape(idx, [-1 if d is None else d for d in x.shape[:-1]])
            return _core.cast(_core.one_hot(idx, depth, dtype="float32"), "int64")
        hot = _core.one_hot(idx, depth, dtype="float32")
        if self.output_mode == "multi_hot":
            return _core.cast(_core.reduce_max(hot, axis=-2), "int64")
        counts = _core.reduce_sum(hot, axis=-2)
        if self.output_mode == "tf_idf":
            if self._idf is None:
                raise ValueError("When `output_mode` is `'tf_idf'`, `idf_weights` must be provided.")
            return counts * _core.constant(self._idf)
        return _core.cast(counts, "int64")

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape (``"int"``), or with a trailing axis of the vocabulary size (encodings)."""
        shape = tuple(input_shape)
        if self.output_mode == "int":
            return shape
        depth = self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size
        if self.output_mode == "one_hot":
            if len(shape) > 1 and shape[-1] == 1:
                return shape[:-1] + (depth,)
            return shape + (depth,)
        return shape[:-1] + (depth,)

    def compute_output_spec(self, inputs: Any, **kwargs: Any) -> Any:
        """A KerasTensor: int64 for ``"int"`` (and ``invert``), float32 for the encodings (Keras' spec)."""
        dtype = "int64" if self.output_mode == "int" else "float32"
        return KerasTensor(self.compute_output_shape(inputs.shape), dtype)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for IntegerLookup."""

        def listify(v: Any) -> Any:
            if v is None:
                return None
            if hasattr(v, "numpy"):
                v = v.numpy()
            return np.asarray(v).tolist() if isinstance(v, (np.ndarray, list, tuple)) else v

        config = super().get_config()
        return {
            **config,
            "invert": self.invert,
            "max_tokens": self.max_tokens,
            "num_oov_indices": self.num_oov_indices,
            "oov_token": self.oov_token,
            "mask_token": self.mask_token,
            "output_mode": self.output_mode,
            "sparse": self.sparse,
            "pad_to_max_tokens": self.pad_to_max_tokens,
            "vocabulary_dtype": self.vocabulary_dtype,
            "idf_weights": listify(self.input_idf_weights),
            "vocabulary": listify(self.input_vocabulary),
            "vocabulary_size": self._frozen_vocab_size,
            "oov_method": self.oov_method,
            "salt": self.salt,
        }

    @classmethod
    def from_config(cls, config: Any) -> IntegerLookup:
        """Recreates the layer (``vocabulary_size`` is recomputed).

        Parameters
        ----------
        config : dict
            From :meth:`get_config`.

        Returns
        -------
        IntegerLookup
        """
        config = dict(config)
        config.pop("vocabulary_size", None)
        return cls(**config)
