"""Keras 3's attention layers: MultiHeadAttention, Attention, AdditiveAttention, Dot, EinsumDense."""

from __future__ import annotations

import contextlib
import math
import re
import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _core, nn
from ..._module import _current_scope
from .. import backend, constraints, regularizers
from ._base import KerasTensor, Layer, _serialized
from ._core_layers import _activation, _activation_name, _initializer_config

__all__ = ["AdditiveAttention", "Attention", "Dot", "EinsumDense", "MultiHeadAttention", "dot"]

Tensor = _core.Tensor


def _tensor(x: Any, dtype: str) -> Tensor:
    """``x`` as a tensor; floats are cast to the layer's dtype (as Keras' autocast does)."""
    t = _core.convert_to_tensor(x)
    if t.dtype.is_floating and t.dtype.name != dtype:
        t = _core.cast(t, dtype)
    return t


def _bool(mask: Any) -> Tensor:
    t = _core.convert_to_tensor(mask)
    return t if t.dtype.name == "bool" else _core.cast(t, "bool")


# ----------------------------------------------------------------------------- EinsumDense


def _analyze_einsum_string(
    equation: str, bias_axes: str | None, input_shape: Any, output_shape: Any
) -> tuple[list[Any], list[Any] | None, list[Any], list[int], list[int]]:
    """Keras' shape analysis: ``(kernel_shape, bias_shape, full_output_shape, input_axes, output_axes)``."""
    dot_replaced = re.sub(r"\.\.\.", "0", equation)
    left_elided = False
    split = re.match("([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)$", dot_replaced)
    if not split:
        split = re.match("0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)$", dot_replaced)
        left_elided = bool(split)
    if not split:
        split = re.match("([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0$", dot_replaced)
    if not split:
        raise ValueError(
            f"Invalid einsum equation '{equation}'. Equations must be in the form "
            "[X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]...."
        )
    input_spec, weight_spec, output_spec = split.group(1), split.group(2), split.group(3)
    input_shape = list(input_shape)
    elided = len(input_shape) - len(input_spec)
    if elided < 0:
        raise ValueError(
            f"Input of rank {len(input_shape)} (shape {tuple(input_shape)}) is too small for the einsum "
            f"equation '{equation}'"
        )
    output_shape = [output_shape] if isinstance(output_shape, int) else list(output_shape)
    output_shape.insert(0, input_shape[0])
    if elided > 0 and left_elided:
        for i in range(1, elided):
            output_shape.insert(1, input_shape[i])
    elif elided > 0 and not left_elided:
        for i in range(len(input_shape) - elided, len(input_shape)):
            output_shape.append(input_shape[i])
    if left_elided:
        input_dim_map = {dim: (i + elided) - len(input_shape) for i, dim in enumerate(input_spec)}
        output_dim_map = {dim: i + elided for i, dim in enumerate(output_spec)}
    else:
        input_dim_map = {dim: i for i, dim in enumerate(input_spec)}
        output_dim_map = {dim: i for i, dim in enumerate(output_spec)}
    if len(output_shape) != len(output_spec) + max(elided, 0):
        raise ValueError(
            f"The `output_shape` {tuple(output_shape[1:])} does not match the output spec '{output_spec}' "
            f"of the einsum equation '{equation}' for an input of shape {tuple(input_shape)}"
        )
    for dim in input_spec:
        in_dim = input_shape[input_dim_map[dim]]
        if dim in output_dim_map:
            out_dim = output_shape[output_dim_map[dim]]
            if out_dim is not None and out_dim != in_dim:
                raise ValueError(
                    f"Input shape and output shape do not match at shared dimension '{dim}'. "
                    f"Input shape is {in_dim}, and output shape is {out_dim}."
                )
    for dim in output_spec:
        if dim not in input_spec and dim not in weight_spec:
            raise ValueError(
                f"Dimension '{dim}' was specified in the output '{output_spec}' but has no corresponding dim "
                f"in the input spec '{input_spec}' or weight spec '{weight_spec}'"
            )
    weight_shape: list[Any] = []
    input_axes: list[int] = []
    output_axes: list[int] = []
    for i, dim in enumerate(weight_spec):
        if dim in output_dim_map:
            weight_shape.append(output_shape[output_dim_map[dim]])
            output_axes.append(i)
        elif dim in input_dim_map:
            weight_shape.append(input_shape[input_dim_map[dim]])
            input_axes.append(i)
        else:
            raise ValueError(
                f"Weight dimension '{dim}' did not have a match in either the input spec '{input_spec}' or "
                f"the output spec '{output_spec}'. For this layer, the weight must be fully specified."
            )
    bias_shape: list[Any] | None = None
    if bias_axes is not None:
        num_left_elided = elided if left_elided else 0
        idx_map = {char: output_shape[i + num_left_elided] for i, char in enumerate(output_spec)}
        for char in bias_axes:
            if char not in output_spec:
                raise ValueError(f"Bias dimension '{char}' was requested, but is not part of the output spec "
                                 f"'{output_spec}'")  # fmt: skip
        first = min(output_spec.find(char) for char in bias_axes)
        bias_shape = [idx_map[char] if char in bias_axes else 1 for char in output_spec[first:]]
        if not left_elided:
            bias_shape.extend([1] * elided)
    return weight_shape, bias_shape, output_shape, input_axes, output_axes


class EinsumDense(Layer):
    """A dense layer of any rank, written as an einsum (``keras.layers.EinsumDense``).

    ``activation(einsum(equation, inputs, kernel) + bias)``. The kernel's shape
    follows from the equation, the input's shape and ``output_shape``; a
    ``glorot_uniform`` (any variance-scaling) kernel initializer computes its
    fans over the equation's input and output axes, as Keras does.

    Parameters
    ----------
    equation : str
        ``"ab,bc->ac"``, ``"...b,bc->...c"`` or ``"ab...,bc->ac..."``: the
        input, the kernel, then the output.
    output_shape : int or tuple
        The output's shape without the batch dimension (``None`` for a
        dimension taken from the input).
    activation : str or callable, optional
        Applied last.
    bias_axes : str, optional
        Letters of the output to which a bias is added (none by default).
    kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, kernel_constraint, bias_constraint
        As for ``Dense``.
    """

    def __init__(
        self,
        equation: str,
        output_shape: Any,
        activation: Any = None,
        bias_axes: str | None = None,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        lora_rank: int | None = None,
        lora_alpha: Any = None,
        quantization_config: Any = None,
        **kwargs: Any,
    ) -> None:
        del lora_alpha
        super().__init__(**kwargs)
        if lora_rank:
            raise NotImplementedError("tapers.keras: LoRA is not implemented")
        if quantization_config is not None:
            raise NotImplementedError("tapers.keras: quantization is not implemented")
        self.equation = equation
        self.partial_output_shape = (output_shape,) if isinstance(output_shape, int) else tuple(output_shape)
        self.bias_axes = bias_axes
        self.activation = _activation(activation)
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.full_output_shape: tuple[Any, ...] | None = None

    def _kernel_init(self, input_axes: list[int], output_axes: list[int]) -> Any:
        from .. import initializers

        init = initializers.get(self.kernel_initializer)
        if isinstance(init, type):
            init = init()
        if isinstance(init, initializers.VarianceScaling) and (init.input_axes is None or init.output_axes is None):
            config = {**init.get_config(), "input_axes": input_axes, "output_axes": output_axes}
            init = type(init).from_config(config)
        return init

    def build(self, input_shape: Any = None) -> None:
        """Creates ``kernel`` (and ``bias``) with the shapes the equation implies."""
        kernel_shape, bias_shape, full, input_axes, output_axes = _analyze_einsum_string(
            self.equation, self.bias_axes, input_shape, self.partial_output_shape
        )
        if any(d is None for d in kernel_shape) or (bias_shape is not None and any(d is None for d in bias_shape)):
            raise ValueError(
                f"EinsumDense '{self.name}': the kernel shape {tuple(kernel_shape)} is not fully defined for input "
                f"shape {tuple(input_shape)}; give those dimensions in `output_shape`."
            )
        self.full_output_shape = tuple(full)
        self._kernel = self.add_weight(
            name="kernel",
            shape=tuple(kernel_shape),
            initializer=self._kernel_init(input_axes, output_axes),
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.bias = (
            self.add_weight(
                name="bias",
                shape=tuple(bias_shape),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
            if bias_shape is not None
            else None
        )
        self.built = True

    @property
    def kernel(self) -> Any:
        """The kernel Variable."""
        return self._kernel

    def call(self, inputs: Any, training: Any = None) -> Tensor:
        """``activation(einsum(equation, inputs, kernel) + bias)``."""
        del training
        x = _core.einsum(self.equation, inputs, self.kernel)
        if self.bias is not None:
            x = x + self.bias
        return self.activation(x) if self.activation is not None else x

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        """The full output shape for ``input_shape``."""
        return tuple(_analyze_einsum_string(self.equation, self.bias_axes, input_shape, self.partial_output_shape)[2])

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for EinsumDense."""
        return {
            **super().get_config(),
            "output_shape": self.partial_output_shape,
            "equation": self.equation,
            "activation": _activation_name(self.activation),
            "bias_axes": self.bias_axes,
            "kernel_initializer": _initializer_config(self.kernel_initializer),
            "bias_initializer": _initializer_config(self.bias_initializer),
            "kernel_regularizer": _serialized(self.kernel_regularizer),
            "bias_regularizer": _serialized(self.bias_regularizer),
            "activity_regularizer": _serialized(self.activity_regularizer),
            "kernel_constraint": _serialized(self.kernel_constraint),
            "bias_constraint": _serialized(self.bias_constraint),
            "quantization_config": None,
        }


# ----------------------------------------------------------------------------- MultiHeadAttention


def _build_proj_equation(free_dims: int, bound_dims: int, output_dims: int) -> tuple[str, str, int]:
    letters = string.ascii_lowercase
    input_str = letters[:free_dims]
    output_str = input_str
    input_str += letters[free_dims : free_dims + bound_dims]
    kernel_str = letters[free_dims : free_dims + bound_dims]
    tail = letters[free_dims + bound_dims : free_dims + bound_dims + output_dims]
    kernel_str += tail
    output_str += tail
    return f"{input_str},{kernel_str}->{output_str}", tail, len(output_str)


def _get_output_shape(output_rank: int, known_last_dims: Any) -> list[Any]:
    return [None] * (output_rank - len(known_last_dims)) + list(known_last_dims)


def _build_attention_equation(rank: int, attn_axes: tuple[int, ...]) -> tuple[str, str, int]:
    letters = string.ascii_lowercase
    target = letters[:rank]
    batch_dims = tuple(int(i) for i in np.delete(range(rank), (*attn_axes, rank - 1)))
    offset = rank
    source = ""
    for i in range(rank):
        if i in batch_dims or i == rank - 1:
            source += target[i]
        else:
            source += letters[offset]
            offset += 1
    product = "".join([target[i] for i in batch_dims] + [target[i] for i in attn_axes] + [source[i] for i in attn_axes])
    return f"{source},{target}->{product}", f"{product},{source}->{target}", len(product)


def _causal_mask(tq: int, tv: int) -> Tensor:
    """``(1, Tq, Tv)`` boolean lower-triangular mask: row ``i`` may attend to columns ``j <= i``."""
    row = _core.reshape(_core.range(tq), (1, tq, 1))
    col = _core.reshape(_core.range(tv), (1, 1, tv))
    return _core.greater_equal(row, col)


class MultiHeadAttention(Layer):
    """Multi-head scaled dot-product attention (``keras.layers.MultiHeadAttention``).

    Projects ``query``, ``key`` and ``value`` to ``num_heads`` heads with
    :class:`EinsumDense` sublayers named ``query``, ``key``, ``value``
    (kernels ``(dim, num_heads, key_dim)``, biases ``(num_heads, key_dim)``),
    computes ``softmax(q k^T / sqrt(key_dim))`` per head over the attention
    axes (masked positions get ``-1e9`` before, and 0 after, the softmax),
    applies dropout to those scores while training, mixes the values and
    projects back with ``attention_output`` (kernel ``(num_heads, value_dim,
    out_dim)``). Weights are listed in that order, as in Keras.

    Parameters
    ----------
    num_heads : int
        Number of heads.
    key_dim : int
        Size of each head for query and key.
    value_dim : int, optional
        Size of each head for value (default ``key_dim``).
    dropout : float
        Dropout rate on the attention scores, applied in training only.
    use_bias : bool
        Whether the projections have biases.
    output_shape : int or tuple, optional
        The output's last dimension(s); default the query's last dimension.
    attention_axes : int or tuple, optional
        Axes of the (projected) inputs over which attention runs; default all
        axes but the batch, heads and channels ones.
    kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, kernel_constraint, bias_constraint
        Passed to the projections.
    seed : int, optional
        Seed of the dropout.

    Notes
    -----
    ``call(query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
    attention_mask=None, return_attention_scores=False, training=None, use_causal_mask=False)``;
    ``attention_mask`` is boolean ``(B, T, S)`` (True: attend); ``value_mask`` and
    ``key_mask`` are ``(B, S)``; like Keras 3, the ``query_mask`` argument is
    ignored (Keras replaces it with the query tensor's Keras mask). ``use_gate``,
    ``sliding_window`` and ``flash_attention`` are not implemented (a clear error
    is raised when they are asked for).
    """

    def __init__(
        self,
        num_heads: int,
        key_dim: int,
        value_dim: int | None = None,
        dropout: float = 0.0,
        use_bias: bool = True,
        output_shape: Any = None,
        attention_axes: Any = None,
        sliding_window: int | None = None,
        flash_attention: Any = None,
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
        if not isinstance(num_heads, (int, np.integer)) or num_heads <= 0:
            raise ValueError(
                "Received an invalid value for argument `num_heads`, expected a positive integer. "
                f"Received: num_heads={num_heads}"
            )
        if not isinstance(key_dim, (int, np.integer)) or key_dim <= 0:
            raise ValueError(
                f"Received an invalid value for argument `key_dim`, expected a positive integer. Received: "
                f"key_dim={key_dim}"
            )
        if value_dim is not None and (not isinstance(value_dim, (int, np.integer)) or value_dim <= 0):
            raise ValueError(
                "Received an invalid value for argument `value_dim`, expected a positive integer or `None`. "
                f"Received: value_dim={value_dim}"
            )
        if use_gate:
            raise NotImplementedError("tapers.keras: MultiHeadAttention(use_gate=True) is not implemented")
        if sliding_window is not None:
            raise NotImplementedError("tapers.keras: MultiHeadAttention(sliding_window=...) is not implemented")
        if flash_attention:
            raise NotImplementedError("tapers.keras: MultiHeadAttention(flash_attention=True) is not implemented")
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.supports_masking = True
        self._num_heads = int(num_heads)
        self._key_dim = int(key_dim)
        self._value_dim = int(value_dim) if value_dim else int(key_dim)
        self._dropout = dropout
        self._use_bias = use_bias
        if output_shape:
            if isinstance(output_shape, (int, np.integer)):
                output_shape = (int(output_shape),)
            try:
                output_shape = tuple(output_shape)
            except TypeError:
                raise ValueError(
                    f"Invalid `output_shape`: {output_shape}. When specified, the `output_shape` should be of "
                    "type tuple, list, or int."
                ) from None
        self._output_shape = output_shape
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer
        self._kernel_regularizer = regularizers.get(kernel_regularizer)
        self._bias_regularizer = regularizers.get(bias_regularizer)
        self._kernel_constraint = constraints.get(kernel_constraint)
        self._bias_constraint = constraints.get(bias_constraint)
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        elif attention_axes and not isinstance(attention_axes, (list, tuple)):
            raise ValueError(
                f"`attention_axes` must be an int, list, or tuple.Received: attention_axes={attention_axes}"
            )
        self._attention_axes = tuple(attention_axes) if attention_axes else attention_axes
        self.seed = seed
        self._inverse_sqrt_key_dim = 1.0 / math.sqrt(float(self._key_dim))
        self._projections_built = False

    @property
    def num_heads(self) -> int:
        """The number of attention heads."""
        return self._num_heads

    @property
    def key_dim(self) -> int:
        """The size of each head's queries and keys."""
        return self._key_dim

    @property
    def value_dim(self) -> int:
        """The size of each head's values."""
        return self._value_dim

    @property
    def dropout(self) -> float:
        """The dropout rate on the attention scores (in training)."""
        return self._dropout

    @property
    def use_bias(self) -> bool:
        """Whether the projections add biases."""
        return self._use_bias

    @property
    def attention_axes(self) -> Any:
        """The axes attention runs over (None: all but batch, heads and features)."""
        return self._attention_axes

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for MultiHeadAttention."""
        return {
            **super().get_config(),
            "num_heads": self._num_heads,
            "key_dim": self._key_dim,
            "value_dim": self._value_dim,
            "dropout": self._dropout,
            "use_bias": self._use_bias,
            "use_gate": False,
            "output_shape": self._output_shape,
            "attention_axes": self._attention_axes,
            "sliding_window": None,
            "kernel_initializer": _initializer_config(self._kernel_initializer),
            "bias_initializer": _initializer_config(self._bias_initializer),
            "kernel_regularizer": _serialized(self._kernel_regularizer),
            "bias_regularizer": _serialized(self._bias_regularizer),
            "activity_regularizer": _serialized(self.activity_regularizer),
            "kernel_constraint": _serialized(self._kernel_constraint),
            "bias_constraint": _serialized(self._bias_constraint),
            "seed": self.seed,
        }

    def _common_kwargs(self) -> dict[str, Any]:
        return {
            "kernel_initializer": self._kernel_initializer,
            "bias_initializer": self._bias_initializer,
            "kernel_regularizer": self._kernel_regularizer,
            "bias_regularizer": self._bias_regularizer,
            "kernel_constraint": self._kernel_constraint,
            "bias_constraint": self._bias_constraint,
            "dtype": self.dtype,
        }

    def _projection(self, rank: int, bound: int, out_dims: Any, name: str) -> EinsumDense:
        equation, bias_axes, output_rank = _build_proj_equation(rank - 1, bound_dims=bound, output_dims=len(out_dims))
        return EinsumDense(
            equation,
            output_shape=_get_output_shape(output_rank - 1, out_dims),
            bias_axes=bias_axes if self._use_bias else None,
            name=name,
            **self._common_kwargs(),
        )

    def build(self, query_shape: Any = None, value_shape: Any = None, key_shape: Any = None) -> None:
        """Creates the ``query``, ``key``, ``value`` and ``attention_output`` projections.

        Called by ``Layer.__call__`` with the query's shape only; the projections
        are then created on the first call, once ``value``'s shape is known.
        """
        if value_shape is None:
            return
        key_shape = value_shape if key_shape is None else key_shape
        query_shape, value_shape, key_shape = tuple(query_shape), tuple(value_shape), tuple(key_shape)
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError(
                "All dimensions of `value` and `key`, except the last one, must be equal. Received: "
                f"value_shape={value_shape} and key_shape={key_shape}"
            )
        if len(query_shape) < 3 or len(value_shape) < 3:
            raise ValueError(
                "MultiHeadAttention needs `query` and `value` of rank >= 3 (batch, positions..., features). "
                f"Received: query_shape={query_shape}, value_shape={value_shape}"
            )
        if len(query_shape) != len(value_shape):
            raise ValueError(
                "`query` and `value` must have the same rank. "
                f"Received: query_shape={query_shape}, value_shape={value_shape}"
            )
        inside = _current_scope().endswith(self._scope_name)
        with contextlib.nullcontext() if inside else self._scope():
            self._query_dense = self._projection(len(query_shape), 1, [self._num_heads, self._key_dim], "query")
            self._query_dense.build(query_shape)
            self._query_dense.built = True
            self._key_dense = self._projection(len(key_shape), 1, [self._num_heads, self._key_dim], "key")
            self._key_dense.build(key_shape)
            self._key_dense.built = True
            self._value_dense = self._projection(len(value_shape), 1, [self._num_heads, self._value_dim], "value")
            self._value_dense.build(value_shape)
            self._value_dense.built = True
            rank = len(value_shape) + 1
            self._build_attention(rank)
            out = self._output_shape if self._output_shape else [query_shape[-1]]
            self._output_dense = self._projection(len(query_shape), 2, list(out), "attention_output")
            out_in = list(self._query_dense.compute_output_shape(query_shape))
            out_in[-1] = self._value_dim
            self._output_dense.build(tuple(out_in))
            self._output_dense.built = True
        self._projections_built = True
        self.built = True

    def _build_attention(self, rank: int) -> None:
        if self._attention_axes is None:
            self._attention_axes = tuple(range(1, rank - 2))
        else:
            self._attention_axes = tuple(a if a >= 0 else (rank - 1) + a for a in self._attention_axes)
        self._dot_product_equation, self._combine_equation, scores_rank = _build_attention_equation(
            rank, self._attention_axes
        )
        self._norm_axes = tuple(range(scores_rank - len(self._attention_axes), scores_rank))

    @property
    def query_dense(self) -> Any:
        """The query projection (an EinsumDense)."""
        return self._query_dense

    @property
    def key_dense(self) -> Any:
        """The key projection (an EinsumDense)."""
        return self._key_dense

    @property
    def value_dense(self) -> Any:
        """The value projection (an EinsumDense)."""
        return self._value_dense

    @property
    def output_dense(self) -> Any:
        """The output projection (an EinsumDense)."""
        return self._output_dense

    def _masked_softmax(self, scores: Tensor, mask: Tensor | None) -> Tensor:
        if mask is not None:
            axis = -len(self._attention_axes) * 2 - 1
            for _ in range(len(scores.shape) - len(mask.shape)):
                mask = _core.expand_dims(mask, axis=axis)
            scores = _core.where(mask, scores, _core.constant(-1e9, dtype=scores.dtype))
        if len(self._norm_axes) == 1:
            out = nn.softmax(scores, axis=self._norm_axes[0])
        else:
            out = _core.exp(scores - _core.math.reduce_logsumexp(scores, axis=list(self._norm_axes), keepdims=True))
        if mask is not None:
            out = _core.where(mask, out, _core.zeros_like(out))
        return out

    def _compute_attention(
        self, query: Tensor, key: Tensor, value: Tensor, attention_mask: Tensor | None = None, training: Any = None
    ) -> tuple[Tensor, Tensor]:
        """Scaled dot-product attention of the projected ``(B, T, N, H)`` tensors: ``(output, scores)``."""
        query = query * _core.constant(self._inverse_sqrt_key_dim, dtype=query.dtype)
        scores = _core.einsum(self._dot_product_equation, key, query)
        scores = self._masked_softmax(scores, attention_mask)
        final = scores
        if training and self._dropout > 0:
            final = nn.dropout(scores, self._dropout, seed=self.seed) if self._dropout < 1 else _core.zeros_like(scores)
        return _core.einsum(self._combine_equation, final, value), scores

    def _compute_attention_mask(
        self,
        query: Tensor,
        value: Tensor,
        query_mask: Any = None,
        value_mask: Any = None,
        key_mask: Any = None,
        attention_mask: Any = None,
        use_causal_mask: bool = False,
    ) -> Tensor | None:
        auto = None
        if query_mask is not None:
            auto = _core.expand_dims(_bool(query_mask), -1)
        for m in (value_mask, key_mask):
            if m is not None:
                m = _core.expand_dims(_bool(m), -2)
                auto = m if auto is None else _core.logical_and(auto, m)
        if use_causal_mask:
            m = _causal_mask(query.shape[1], value.shape[1])
            auto = m if auto is None else _core.logical_and(auto, m)
        if attention_mask is not None:
            attention_mask = _bool(attention_mask)
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
        """Attention of ``query`` over ``value`` (keys ``key``, default ``value``)."""
        dtype = self.compute_dtype
        # As in Keras 3, the query's mask is the query tensor's Keras mask: the `query_mask`
        # argument itself is overwritten (tapers' tensors carry no Keras mask, so it is ignored).
        query_mask = getattr(query, "_keras_mask", None)
        query = _tensor(query, dtype)
        value = _tensor(value, dtype)
        key = value if key is None else _tensor(key, dtype)
        if not self._projections_built:
            self.build(tuple(query.shape), tuple(value.shape), tuple(key.shape))
        mask = self._compute_attention_mask(
            query, value, query_mask, value_mask, key_mask, attention_mask, use_causal_mask
        )
        q = self._query_dense(query)
        k = self._key_dense(key)
        v = self._value_dense(value)
        out, scores = self._compute_attention(q, k, v, mask, training)
        out = self._output_dense(out)
        if return_attention_scores:
            return out, scores
        return out

    def compute_output_shape(self, query_shape: Any, value_shape: Any = None, key_shape: Any = None) -> Any:
        """The query's shape, its last dimension(s) replaced by ``output_shape`` when given."""
        query_shape = tuple(query_shape)
        if value_shape is not None:
            value_shape = tuple(value_shape)
            key_shape = value_shape if key_shape is None else tuple(key_shape)
            if value_shape[1:-1] != key_shape[1:-1]:
                raise ValueError(
                    "All dimensions of `value` and `key`, except the last one, must be equal. Received: "
                    f"value_shape={value_shape} and key_shape={key_shape}"
                )
        if self._output_shape:
            query_shape = query_shape[:-1] + tuple(self._output_shape)
        return query_shape

    def compute_output_spec(self, query: Any, value: Any, key: Any = None, **kwargs: Any) -> Any:
        """KerasTensor(s) for symbolic inputs; with ``return_attention_scores`` also the scores,
        ``(batch and non-attention axes, num_heads, query attention axes, value attention axes)``."""
        if not self._projections_built:
            self.build(query.shape, value.shape, None if key is None else key.shape)
        shape = self.compute_output_shape(query.shape, value.shape, None if key is None else key.shape)
        out = KerasTensor(shape, self.compute_dtype)
        if not kwargs.get("return_attention_scores"):
            return out
        # Keras 3 gives (B, num_heads, Tq, Tq) whatever the value's length; this is the shape call returns.
        proj_q = (*tuple(query.shape)[:-1], self._num_heads)
        proj_v = (*tuple(value.shape)[:-1], self._num_heads)
        rank = len(proj_q) + 1
        batch = [i for i in range(rank - 1) if i not in self._attention_axes]
        scores = [proj_q[i] for i in batch] + [proj_q[i] for i in self._attention_axes]
        scores += [proj_v[i] for i in self._attention_axes]
        return out, KerasTensor(tuple(scores), self.compute_dtype)


# ----------------------------------------------------------------------------- Attention, AdditiveAttention


class Attention(Layer):
    """Dot-product (Luong-style) attention (``keras.layers.Attention``).

    ``call([query, value])`` or ``call([query, value, key])`` with shapes
    ``(B, Tq, dim)``, ``(B, Tv, dim)``: scores ``query @ key^T`` (times
    ``scale`` when ``use_scale``) or, with ``score_mode="concat"``,
    ``concat_score_weight * sum(tanh(scale * (q + k)))``; masked positions
    are lowered by ``1e9`` before the softmax over ``Tv``; the result is
    ``softmax(scores) @ value``.

    Parameters
    ----------
    use_scale : bool
        Adds a learned scalar ``scale`` (initialised to 1).
    score_mode : {"dot", "concat"}
        How the scores are computed.
    dropout : float
        Dropout rate on the attention distribution, in training only.
    seed : int, optional
        Seed of the dropout.

    Notes
    -----
    ``mask=[query_mask, value_mask]`` (booleans ``(B, Tq)``, ``(B, Tv)``):
    positions where ``value_mask`` is False get no attention; query rows where
    ``query_mask`` is False give zeros.
    """

    def __init__(
        self, use_scale: bool = False, score_mode: str = "dot", dropout: float = 0.0, seed: int | None = None,
        **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(**kwargs)
        self.use_scale = use_scale
        self.score_mode = score_mode
        self.dropout = dropout
        self.seed = seed
        if score_mode not in ("dot", "concat"):
            raise ValueError(
                "Invalid value for argument score_mode. Expected one of {'dot', 'concat'}. "
                f"Received: score_mode={score_mode}"
            )
        self.supports_masking = True
        self.scale: Any = None
        self.concat_score_weight: Any = None

    def _validate_inputs(self, inputs: Any, mask: Any = None) -> None:
        name = type(self).__name__
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(
                f"{name} layer must be called on a list of inputs, namely [query, value] or [query, value, key]. "
                f"Received: inputs={inputs}."
            )
        if len(inputs) < 2 or len(inputs) > 3:
            raise ValueError(
                f"{name} layer accepts inputs list of length 2 or 3, namely [query, value] or "
                f"[query, value, key]. Received length: {len(inputs)}."
            )
        if mask is not None:
            if not isinstance(mask, (list, tuple)):
                raise ValueError(f"{name} layer mask must be a list, namely [query_mask, value_mask]. Received: "
                                 f"mask={mask}.")  # fmt: skip
            if len(mask) < 2 or len(mask) > 3:
                raise ValueError(f"{name} layer accepts mask list of length 2 or 3. Received: mask={mask}.")

    def build(self, input_shape: Any = None) -> None:
        """Creates ``scale`` (``use_scale``) and ``concat_score_weight`` (``score_mode="concat"``)."""
        self._validate_inputs(input_shape)
        if self.use_scale:
            self.scale = self.add_weight(name="scale", shape=(), initializer="ones")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight(name="concat_score_weight", shape=(), initializer="ones")
        self.built = True

    def _calculate_scores(self, query: Tensor, key: Tensor) -> Tensor:
        if self.score_mode == "dot":
            scores = _core.matmul(query, key, transpose_b=True)
            if self.scale is not None:
                scores = scores * self.scale
            return scores
        q = _core.expand_dims(query, axis=-2)
        k = _core.expand_dims(key, axis=-3)
        s = q + k
        if self.scale is not None:
            s = self.scale * s
        return self.concat_score_weight * _core.reduce_sum(_core.tanh(s), axis=-1)

    def _apply_scores(self, scores: Tensor, value: Tensor, scores_mask: Any, training: Any) -> tuple[Tensor, Tensor]:
        if scores_mask is not None:
            padding = _core.logical_not(scores_mask)
            if len(padding.shape) == 2:
                padding = _core.expand_dims(padding, axis=-2)
            scores = _core.where(padding, scores - _core.constant(1e9, dtype=scores.dtype), scores)
        weights = nn.softmax(scores, axis=-1)
        if training and self.dropout > 0:
            weights = (
                nn.dropout(weights, self.dropout, seed=self.seed) if self.dropout < 1 else _core.zeros_like(weights)
            )
        return _core.matmul(weights, value), weights

    def call(
        self,
        inputs: Any,
        mask: Any = None,
        training: Any = False,
        return_attention_scores: bool = False,
        use_causal_mask: bool = False,
    ) -> Any:
        """The attention output (and the scores with ``return_attention_scores``)."""
        self._validate_inputs(inputs, mask)
        q, v = _tensor(inputs[0], self.compute_dtype), _tensor(inputs[1], self.compute_dtype)
        k = _tensor(inputs[2], self.compute_dtype) if len(inputs) > 2 else v
        if q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
            raise ValueError(
                f"{type(self).__name__}: incompatible shapes query {tuple(q.shape)}, value {tuple(v.shape)}, "
                f"key {tuple(k.shape)} (query and key need the same last dimension, key and value the same "
                "number of positions)"
            )
        q_mask = mask[0] if mask else None
        v_mask = _bool(mask[1]) if mask and mask[1] is not None else None
        scores = self._calculate_scores(q, k)
        scores_mask = v_mask
        if use_causal_mask:
            causal = _causal_mask(scores.shape[-2], scores.shape[-1])
            scores_mask = causal if v_mask is None else _core.logical_and(_core.expand_dims(v_mask, -2), causal)
        out, weights = self._apply_scores(scores, v, scores_mask, training)
        if q_mask is not None:
            out = _core.where(_core.expand_dims(_bool(q_mask), -1), out, _core.zeros_like(out))
        if return_attention_scores:
            return out, weights
        return out

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The query's mask, if any."""
        self._validate_inputs(inputs, mask)
        if mask is None or mask[0] is None:
            return None
        return _core.convert_to_tensor(mask[0])

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        """``(*query_shape[:-1], value_shape[-1])``."""
        return (*tuple(input_shape[0])[:-1], tuple(input_shape[1])[-1])

    def compute_output_spec(self, inputs: Any, mask: Any = None, **kwargs: Any) -> Any:
        """KerasTensor(s) for symbolic inputs (the scores ``(*batch, Tq, Tv)`` too when asked)."""
        self._validate_inputs(inputs, mask)
        q, v = inputs[0], inputs[1]
        k = inputs[2] if len(inputs) > 2 else v
        out = KerasTensor(self.compute_output_shape([q.shape, v.shape]), self.compute_dtype)
        if kwargs.get("return_attention_scores"):
            return out, KerasTensor((*q.shape[:-1], k.shape[-2]), self.compute_dtype)
        return out

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for Attention."""
        return {
            **super().get_config(),
            "use_scale": self.use_scale,
            "score_mode": self.score_mode,
            "dropout": self.dropout,
            "seed": self.seed,
        }


class AdditiveAttention(Attention):
    """Additive (Bahdanau-style) attention (``keras.layers.AdditiveAttention``).

    Scores are ``sum(scale * tanh(query[:, :, None] + key[:, None]), -1)``,
    with ``scale`` a learned vector of the feature size (Glorot uniform) when
    ``use_scale`` (the default); the rest is as :class:`Attention`.

    Parameters
    ----------
    use_scale : bool
        Whether to learn ``scale`` (shape ``(dim,)``).
    dropout : float
        Dropout rate on the attention distribution, in training only.
    """

    def __init__(self, use_scale: bool = True, dropout: float = 0.0, **kwargs: Any) -> None:
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape: Any = None) -> None:
        """Creates ``scale`` of shape ``(dim,)`` when ``use_scale``."""
        self._validate_inputs(input_shape)
        if self.use_scale:
            self.scale = self.add_weight(name="scale", shape=(input_shape[0][-1],), initializer="glorot_uniform")
        self.built = True

    def _calculate_scores(self, query: Tensor, key: Tensor) -> Tensor:
        t = _core.tanh(_core.expand_dims(query, axis=-2) + _core.expand_dims(key, axis=-3))
        if self.use_scale:
            t = self.scale * t
        return _core.reduce_sum(t, axis=-1)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys (no ``score_mode``)."""
        config = super().get_config()
        del config["score_mode"]
        return config


# ----------------------------------------------------------------------------- Dot


def _l2_normalize(x: Tensor, axis: int) -> Tensor:
    # Keras' ops.nn.normalize(order=2): x * min(rsqrt(sum(x^2)), 1 / epsilon).
    ss = _core.reduce_sum(x * x, axis=axis, keepdims=True)
    inv = _core.minimum(_core.math.rsqrt(ss), _core.constant(1.0 / backend.epsilon(), dtype=x.dtype))
    return x * inv


def _batch_dot(x: Tensor, y: Tensor, axes: list[int]) -> Tensor:
    """Keras' ``batch_dot``: per-sample contraction of ``x``'s ``axes[0]`` with ``y``'s ``axes[1]``."""
    xs, ys = tuple(x.shape), tuple(y.shape)
    if len(xs) < 2 or len(ys) < 2:
        raise ValueError(f"Cannot do batch_dot on inputs with rank < 2. Received inputs with shapes {xs} and {ys}.")
    if xs[0] != ys[0]:
        raise ValueError(
            f"Cannot do batch_dot on inputs with different batch sizes. Received inputs with shapes {xs} and {ys}."
        )
    a0, a1 = axes
    if a0 == 0 or a1 == 0:
        raise ValueError("Cannot perform batch_dot over axis 0. If your inputs are not batched, add a dummy batch "
                         "dimension to your inputs using keras.ops.expand_dims(x, 0)")  # fmt: skip
    if xs[a0] != ys[a1]:
        raise ValueError(
            f"Cannot do batch_dot on inputs with shapes {xs} and {ys} with axes={axes}. "
            f"x.shape[{a0}] != y.shape[{a1}] ({xs[a0]} != {ys[a1]})."
        )
    letters = string.ascii_letters
    xl = letters[: len(xs)]
    # y's letters: batch 'a', its own axes fresh letters, except axis a1 which shares x's contracted letter.
    y_letters = ["a"] + [letters[len(xs) + i] for i in range(len(ys) - 1)]
    y_letters[a1] = xl[a0]
    out = [c for i, c in enumerate(xl) if i != a0] + [c for i, c in enumerate(y_letters) if i not in (0, a1)]
    result = _core.einsum(f"{xl},{''.join(y_letters)}->{''.join(out)}", x, y)
    if len(result.shape) == 1:
        result = _core.expand_dims(result, 1)
    return result


class Dot(Layer):
    """Per-sample dot product of two tensors along given axes (``keras.layers.Dot``).

    For inputs ``(B, ..., d, ...)`` it contracts ``axes[0]`` of the first with
    ``axes[1]`` of the second; the output keeps the first input's other axes,
    then the second's (without batch); a rank-1 result becomes ``(B, 1)``.

    Parameters
    ----------
    axes : int or (int, int)
        The contracted axis of each input (not 0, the batch axis).
    normalize : bool
        L2-normalises both inputs along those axes first (cosine similarity).
    """

    def __init__(self, axes: Any, normalize: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(axes, int):
            if not isinstance(axes, (list, tuple)):
                raise TypeError(
                    f"Invalid type for argument `axes`: it should be a list or an int. Received: axes={axes}"
                )
            if len(axes) != 2:
                raise ValueError(f"Invalid format for argument `axes`: it should contain two elements. Received: "
                                 f"axes={axes}")  # fmt: skip
            if not isinstance(axes[0], int) or not isinstance(axes[1], int):
                raise ValueError(f"Invalid format for argument `axes`: list elements should be integers. Received: "
                                 f"axes={axes}")  # fmt: skip
        self.axes = axes
        self.normalize = normalize
        self.supports_masking = True

    def _axes(self, r1: int, r2: int) -> list[int]:
        if isinstance(self.axes, int):
            return [self.axes % r1, self.axes % r2] if self.axes < 0 else [self.axes] * 2
        return [a % r if a < 0 else a for a, r in zip(self.axes, (r1, r2))]

    def _check(self, shapes: Any) -> tuple[Any, Any]:
        if not isinstance(shapes, (list, tuple)) or len(shapes) != 2 or not isinstance(shapes[0], (list, tuple)):
            raise ValueError(f"A `Dot` layer should be called on a list of 2 inputs. Received: input_shape={shapes}")
        return tuple(shapes[0]), tuple(shapes[1])

    def build(self, input_shape: Any = None) -> None:
        """Checks that the contracted axes have the same size."""
        s1, s2 = self._check(input_shape)
        a = self._axes(len(s1), len(s2))
        if s1[a[0]] is not None and s2[a[1]] is not None and s1[a[0]] != s2[a[1]]:
            raise ValueError(
                f"Incompatible input shapes: axis values {s1[a[0]]} (at axis {a[0]}) != {s2[a[1]]} (at axis "
                f"{a[1]}). Full input shapes: {s1}, {s2}"
            )
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """The batched dot product."""
        if not isinstance(inputs, (list, tuple)) or len(inputs) != 2:
            raise ValueError(f"A `Dot` layer should be called on exactly 2 inputs. Received: inputs={inputs}")
        x1, x2 = (_tensor(x, self.compute_dtype) for x in inputs)
        a = self._axes(len(x1.shape), len(x2.shape))
        if self.normalize:
            x1 = _l2_normalize(x1, a[0])
            x2 = _l2_normalize(x2, a[1])
        return _batch_dot(x1, x2, a)

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        """The first input's shape without its contracted axis, then the second's without batch and that axis."""
        s1, s2 = (list(s) for s in self._check(input_shape))
        a = self._axes(len(s1), len(s2))
        s1.pop(a[0])
        s2.pop(a[1])
        s2.pop(0)
        out = s1 + s2
        if len(out) == 1:
            out += [1]
        return tuple(out)

    def compute_mask(self, inputs: Any, mask: Any = None) -> None:
        """Dot drops masks."""
        return None

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for Dot."""
        return {**super().get_config(), "axes": self.axes, "normalize": self.normalize}


def dot(inputs: Sequence[Any], axes: Any = -1, **kwargs: Any) -> Any:
    """``Dot(axes, **kwargs)(inputs)`` (``keras.layers.dot``).

    Parameters
    ----------
    inputs : list of two tensors or KerasTensors
        The operands.
    axes : int or (int, int)
        The contracted axis of each input.
    **kwargs
        ``Dot``'s other arguments (``normalize``, ``name``, ...).

    Returns
    -------
    Tensor or KerasTensor
    """
    return Dot(axes=axes, **kwargs)(inputs)
