"""Keras 3's recurrent layers: cells, RNN, SimpleRNN, LSTM, GRU, Bidirectional.

The time loop is a Python loop over the steps (``unstack`` along the time axis,
``stack`` for the sequence), so it runs eagerly under ``GradientTape`` and is
traced (unrolled) inside ``tapers.function``. Weights are named and shaped as in
Keras 3 (``lstm/lstm_cell/kernel`` of shape ``(input_dim, 4 * units)``...), with
Keras' gate orders (i, f, c, o for LSTM; z, r, h for GRU), so Keras weights load
as they are.

``dropout`` / ``recurrent_dropout`` follow Keras: while training, one mask per
call of the RNN layer (shared by all time steps) multiplies the step inputs /
the previous output; the masks come from tapers' random streams. Not
implemented (a clear error is raised): ``stateful=True``. A ``mask`` (given, or
attached by ``Embedding(mask_zero=True)`` / ``Masking``) makes masked steps keep the
previous states and output, as Keras 3's TensorFlow backend.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ... import _core
from .. import constraints, regularizers
from ._base import KerasTensor, Layer, Wrapper, _serialized, flatten
from ._core_layers import _activation, _activation_name, _initializer_config

__all__ = [
    "GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "SimpleRNN", "SimpleRNNCell", "StackedRNNCells", "Bidirectional",
]  # fmt: skip

Tensor = _core.Tensor


def _initializer(identifier: Any) -> Any:
    from .. import initializers

    return initializers.get(identifier)


def _check_units(units: Any) -> int:
    if not isinstance(units, (int, np.integer)) or isinstance(units, bool) or units <= 0:
        raise ValueError(f"Received an invalid value for argument `units`, expected a positive integer, got {units}.")
    return int(units)


def _clip_rate(rate: float) -> float:
    """Keras clips the dropout rates to [0, 1]."""
    return min(1.0, max(0.0, float(rate)))


def _as_tensor(x: Any, dtype: str) -> Tensor:
    if isinstance(x, _core.Variable):
        x = x.value()
    t = _core.convert_to_tensor(x)
    if t.dtype.name != dtype:
        t = _core.cast(t, dtype)
    return t


def _is_nested(x: Any) -> bool:
    return isinstance(x, (list, tuple))


# ----------------------------------------------------------------------------- cells


class _Cell(Layer):
    """What the three Keras cells share: units, activations, initializers, regularizers, constraints."""

    state_size: Any
    bias: Any

    def __init__(
        self,
        units: int,
        activation: Any,
        use_bias: bool,
        kernel_initializer: Any,
        recurrent_initializer: Any,
        bias_initializer: Any,
        kernel_regularizer: Any,
        recurrent_regularizer: Any,
        bias_regularizer: Any,
        kernel_constraint: Any,
        recurrent_constraint: Any,
        bias_constraint: Any,
        dropout: float,
        recurrent_dropout: float,
        seed: int | None,
        **kwargs: Any,
    ) -> None:
        units = _check_units(units)
        # Keras' `implementation`: 1 computes each gate with its own matmul (and its own dropout
        # masks); 2 (default) fuses them. Keras forces 1 when recurrent_dropout is set.
        implementation = int(kwargs.pop("implementation", 2))
        super().__init__(**kwargs)
        self.units = units
        self.activation = _activation(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = _initializer(kernel_initializer)
        self.recurrent_initializer = _initializer(recurrent_initializer)
        self.bias_initializer = _initializer(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = _clip_rate(dropout)
        self.recurrent_dropout = _clip_rate(recurrent_dropout)
        self.seed = seed
        self.output_size = units
        # How many masks per dropout (Keras' `dropout_mask_count`): None for one shared mask.
        self.implementation = 1 if self.recurrent_dropout != 0.0 else implementation
        self.dropout_mask_count: int | None = None
        self._dropout_mask: Any = None
        self._recurrent_dropout_mask: Any = None

    # -- dropout masks (Keras' DropoutRNNCell): made once, reused at every step until reset -----------

    def _create_dropout_mask(self, step_input: Tensor, rate: float) -> Any:
        from ... import nn

        ones = _core.ones_like(step_input)
        if self.dropout_mask_count is None:
            return nn.dropout(ones, rate, seed=self.seed)
        return [nn.dropout(ones, rate, seed=self.seed) for _ in range(self.dropout_mask_count)]

    def get_dropout_mask(self, step_input: Tensor) -> Any:
        """The inputs' dropout mask (a list of masks, one per gate, when ``dropout_mask_count`` is set),
        ``1 / (1 - dropout)`` where kept and 0 where dropped; created on the first call and kept
        until :meth:`reset_dropout_mask` (the RNN layer resets it around each call)."""
        if self._dropout_mask is None and self.dropout > 0:
            self._dropout_mask = self._create_dropout_mask(step_input, self.dropout)
        return self._dropout_mask

    def get_recurrent_dropout_mask(self, step_input: Tensor) -> Any:
        """The previous output's dropout mask, as :meth:`get_dropout_mask` with ``recurrent_dropout``."""
        if self._recurrent_dropout_mask is None and self.recurrent_dropout > 0:
            self._recurrent_dropout_mask = self._create_dropout_mask(step_input, self.recurrent_dropout)
        return self._recurrent_dropout_mask

    def reset_dropout_mask(self) -> None:
        """Forgets the inputs' dropout mask (a new one is drawn at the next training call)."""
        self._dropout_mask = None

    def reset_recurrent_dropout_mask(self) -> None:
        """Forgets the recurrent dropout mask."""
        self._recurrent_dropout_mask = None

    def _masks(self, training: bool, x: Tensor, h: Tensor) -> tuple[Any, Any]:
        """The dropout masks to apply at this step (None when not training or the rate is 0 or 1, as Keras)."""
        dp = self.get_dropout_mask(x) if training and 0.0 < self.dropout < 1.0 else None
        rdp = self.get_recurrent_dropout_mask(h) if training and 0.0 < self.recurrent_dropout < 1.0 else None
        return dp, rdp

    def _build_kernels(self, input_shape: Any, gates: int) -> None:
        input_dim = tuple(input_shape)[-1] if input_shape is not None and len(tuple(input_shape)) else None
        if input_dim is None:
            raise ValueError(
                f"The last dimension of the inputs to `{type(self).__name__}` should be defined. "
                f"Received: input_shape={input_shape}"
            )
        self.kernel = self.add_weight(
            shape=(input_dim, gates * self.units),
            name="kernel",
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, gates * self.units),
            name="recurrent_kernel",
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
        )

    def _add_bias(self, shape: tuple[int, ...], initializer: Any) -> None:
        self.bias = self.add_weight(
            shape=shape,
            name="bias",
            initializer=initializer,
            regularizer=self.bias_regularizer,
            constraint=self.bias_constraint,
        )

    def _step_input(self, inputs: Any) -> Tensor:
        x = _as_tensor(inputs, self.compute_dtype)
        if len(x.shape) != 2 or x.shape[-1] != self.kernel.shape[0]:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected a step input of shape '
                f"(batch, {self.kernel.shape[0]}), but received input with shape {tuple(x.shape)}"
            )
        return x

    def _states(self, states: Any, count: int) -> list[Tensor]:
        states = list(states) if _is_nested(states) else [states]
        if len(states) != count:
            raise ValueError(f"{type(self).__name__} expects {count} state tensor(s), received {len(states)}.")
        out = [_as_tensor(s, self.compute_dtype) for s in states]
        for s in out:
            if len(s.shape) != 2 or s.shape[-1] != self.units:
                raise ValueError(
                    f'State of layer "{self.name}" is incompatible: expected shape (batch, {self.units}), '
                    f"received {tuple(s.shape)}"
                )
        return out

    def get_initial_state(self, batch_size: int | None = None) -> list[Tensor]:
        """Zero states, one ``(batch_size, size)`` tensor per entry of ``state_size``."""
        sizes = self.state_size if _is_nested(self.state_size) else [self.state_size]
        return [_core.zeros([batch_size, d], dtype=self.compute_dtype) for d in sizes]

    def _common_config(self) -> dict[str, Any]:
        return {
            "units": self.units,
            "activation": _activation_name(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": _initializer_config(self.kernel_initializer),
            "recurrent_initializer": _initializer_config(self.recurrent_initializer),
            "bias_initializer": _initializer_config(self.bias_initializer),
            "kernel_regularizer": _serialized(self.kernel_regularizer),
            "recurrent_regularizer": _serialized(self.recurrent_regularizer),
            "bias_regularizer": _serialized(self.bias_regularizer),
            "kernel_constraint": _serialized(self.kernel_constraint),
            "recurrent_constraint": _serialized(self.recurrent_constraint),
            "bias_constraint": _serialized(self.bias_constraint),
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrent_dropout,
            "seed": self.seed,
        }


class SimpleRNNCell(_Cell):
    """One step of a fully connected RNN: ``h = activation(x @ kernel + h_prev @ recurrent_kernel + bias)``
    (``keras.layers.SimpleRNNCell``).

    Weights: ``kernel`` ``(input_dim, units)`` (Glorot uniform), ``recurrent_kernel``
    ``(units, units)`` (orthogonal) and ``bias`` ``(units,)`` (zeros). Called as
    ``cell(inputs, states)`` with ``inputs`` of shape ``(batch, input_dim)`` and
    ``states`` a list of one ``(batch, units)`` tensor; returns ``(h, [h])``.

    Parameters
    ----------
    units : int
        Size of the output and state.
    activation : str or callable
        Default ``"tanh"``; ``None`` for linear.
    use_bias : bool
        Whether to add ``bias``.
    kernel_initializer, recurrent_initializer, bias_initializer : str or initializer
        Keras' defaults ``"glorot_uniform"``, ``"orthogonal"``, ``"zeros"``.
    kernel_regularizer, recurrent_regularizer, bias_regularizer : regularizer, optional
        Penalties added to ``losses``.
    kernel_constraint, recurrent_constraint, bias_constraint : constraint, optional
        Applied after optimizer updates.
    dropout, recurrent_dropout : float
        Fractions of the inputs / of the previous output dropped while training (one mask per
        sequence, shared by the time steps).
    seed : int, optional
        Op-level seed of the dropout masks.
    """

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            units, activation, use_bias, kernel_initializer, recurrent_initializer, bias_initializer,
            kernel_regularizer, recurrent_regularizer, bias_regularizer, kernel_constraint, recurrent_constraint,
            bias_constraint, dropout, recurrent_dropout, seed, **kwargs,
        )  # fmt: skip
        self.state_size = self.units

    def build(self, input_shape: Any = None) -> None:
        """Creates ``kernel``, ``recurrent_kernel`` (and ``bias``) for the step input's last dimension."""
        self._build_kernels(input_shape, 1)
        self.bias = None
        if self.use_bias:
            self._add_bias((self.units,), self.bias_initializer)
        self.built = True

    def call(self, sequence: Any, states: Any, training: bool = False) -> tuple[Tensor, Any]:
        """One step: the new output, which is also the new state."""
        x = self._step_input(sequence)
        (prev,) = self._states(states, 1)
        dp, rdp = self._masks(training, x, prev)
        if dp is not None:
            x = x * dp
        if rdp is not None:
            prev = prev * rdp
        h = _core.matmul(x, self.kernel)
        if self.bias is not None:
            h = h + self.bias
        output = h + _core.matmul(prev, self.recurrent_kernel)
        if self.activation is not None:
            output = self.activation(output)
        return output, ([output] if _is_nested(states) else output)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), **self._common_config()}


class LSTMCell(_Cell):
    """One step of a long short-term memory unit (``keras.layers.LSTMCell``, Hochreiter 1997).

    With ``z = x @ kernel + h @ recurrent_kernel + bias`` split in four along the
    last axis in Keras' gate order ``i, f, c, o``::

        i, f, o = recurrent_activation(z_i), recurrent_activation(z_f), recurrent_activation(z_o)
        c_new = f * c + i * activation(z_c)
        h_new = o * activation(c_new)

    Weights: ``kernel`` ``(input_dim, 4 * units)``, ``recurrent_kernel``
    ``(units, 4 * units)``, ``bias`` ``(4 * units,)``. Called as
    ``cell(inputs, [h, c])``; returns ``(h_new, [h_new, c_new])``.

    Parameters
    ----------
    units : int
        Size of the output and of both states.
    activation : str or callable
        Default ``"tanh"``.
    recurrent_activation : str or callable
        The gates' activation, default ``"sigmoid"``.
    use_bias : bool
        Whether to add ``bias``.
    kernel_initializer, recurrent_initializer, bias_initializer : str or initializer
        Keras' defaults ``"glorot_uniform"``, ``"orthogonal"``, ``"zeros"``.
    unit_forget_bias : bool
        Start the forget gate's bias at 1 (Jozefowicz et al. 2015), as Keras does by default.
    kernel_regularizer, recurrent_regularizer, bias_regularizer : regularizer, optional
        Penalties added to ``losses``.
    kernel_constraint, recurrent_constraint, bias_constraint : constraint, optional
        Applied after optimizer updates.
    dropout, recurrent_dropout : float
        Fractions of the inputs / of the previous output dropped while training (one mask per
        sequence, shared by the time steps).
    seed : int, optional
        Op-level seed of the dropout masks.
    """

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        unit_forget_bias: bool = True,
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            units, activation, use_bias, kernel_initializer, recurrent_initializer, bias_initializer,
            kernel_regularizer, recurrent_regularizer, bias_regularizer, kernel_constraint, recurrent_constraint,
            bias_constraint, dropout, recurrent_dropout, seed, **kwargs,
        )  # fmt: skip
        self.recurrent_activation = _activation(recurrent_activation)
        self.unit_forget_bias = bool(unit_forget_bias)
        self.state_size = [self.units, self.units]
        if self.implementation == 1:  # per-gate dropout masks, as Keras
            self.dropout_mask_count = 4

    def build(self, input_shape: Any = None) -> None:
        """Creates ``kernel``, ``recurrent_kernel`` (and ``bias``, forget part at 1 with ``unit_forget_bias``)."""
        self._build_kernels(input_shape, 4)
        self.bias = None
        if self.use_bias:
            initializer = self.bias_initializer
            if self.unit_forget_bias:
                units, base = self.units, self.bias_initializer

                def initializer(shape: Any, dtype: Any = None) -> Tensor:
                    del shape
                    parts = [base((units,), dtype=dtype), _core.ones([units], dtype=dtype), base((2 * units,),
                                                                                                 dtype=dtype)]
                    return _core.concat([_core.convert_to_tensor(p) for p in parts], 0)

            self._add_bias((4 * self.units,), initializer)
        self.built = True

    def call(self, inputs: Any, states: Any, training: bool = False) -> tuple[Tensor, list[Tensor]]:
        """One step: ``h_new, [h_new, c_new]``."""
        x = self._step_input(inputs)
        h_prev, c_prev = self._states(states, 2)
        dp, rdp = self._masks(training, x, h_prev)
        if self.implementation == 1:
            xs = [x * m for m in dp] if dp is not None else [x] * 4
            hs = [h_prev * m for m in rdp] if rdp is not None else [h_prev] * 4
            kernels = _core.split(self.kernel, 4, axis=1)
            recurrent = _core.split(self.recurrent_kernel, 4, axis=1)
            biases = _core.split(self.bias, 4, axis=0) if self.bias is not None else [None] * 4
            zs = []
            for xg, hg, k, rk, b in zip(xs, hs, kernels, recurrent, biases):
                zg = _core.matmul(xg, k) + _core.matmul(hg, rk)
                zs.append(zg + b if b is not None else zg)
            z_i, z_f, z_c, z_o = zs
        else:
            if dp is not None:
                x = x * dp
            z = _core.matmul(x, self.kernel) + _core.matmul(h_prev, self.recurrent_kernel)
            if self.bias is not None:
                z = z + self.bias
            z_i, z_f, z_c, z_o = _core.split(z, 4, axis=1)
        i = self.recurrent_activation(z_i)
        f = self.recurrent_activation(z_f)
        c = f * c_prev + i * self.activation(z_c)
        o = self.recurrent_activation(z_o)
        h = o * self.activation(c)
        return h, [h, c]

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {
            **super().get_config(),
            **self._common_config(),
            "recurrent_activation": _activation_name(self.recurrent_activation),
            "unit_forget_bias": self.unit_forget_bias,
        }


class GRUCell(_Cell):
    """One step of a gated recurrent unit (``keras.layers.GRUCell``, Cho et al. 2014).

    Gates in Keras' order ``z, r, h``; with ``reset_after=True`` (Keras 3's
    default, cuDNN-compatible) the reset gate multiplies the recurrent
    projection after the matrix product and the bias has shape
    ``(2, 3 * units)`` (input bias, recurrent bias)::

        z = recurrent_activation(x W_z + b_z + h U_z + rb_z)
        r = recurrent_activation(x W_r + b_r + h U_r + rb_r)
        hh = activation(x W_h + b_h + r * (h U_h + rb_h))
        h_new = z * h + (1 - z) * hh

    With ``reset_after=False`` the bias is ``(3 * units,)`` and
    ``hh = activation(x W_h + b_h + (r * h) U_h)``.

    Parameters
    ----------
    units : int
        Size of the output and state.
    activation : str or callable
        Default ``"tanh"``.
    recurrent_activation : str or callable
        The gates' activation, default ``"sigmoid"``.
    use_bias : bool
        Whether to add ``bias``.
    kernel_initializer, recurrent_initializer, bias_initializer : str or initializer
        Keras' defaults ``"glorot_uniform"``, ``"orthogonal"``, ``"zeros"``.
    kernel_regularizer, recurrent_regularizer, bias_regularizer : regularizer, optional
        Penalties added to ``losses``.
    kernel_constraint, recurrent_constraint, bias_constraint : constraint, optional
        Applied after optimizer updates.
    dropout, recurrent_dropout : float
        Fractions of the inputs / of the previous output dropped while training (one mask per
        sequence, shared by the time steps).
    reset_after : bool
        Where the reset gate applies (see above); default True.
    seed : int, optional
        Op-level seed of the dropout masks.
    """

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        reset_after: bool = True,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            units, activation, use_bias, kernel_initializer, recurrent_initializer, bias_initializer,
            kernel_regularizer, recurrent_regularizer, bias_regularizer, kernel_constraint, recurrent_constraint,
            bias_constraint, dropout, recurrent_dropout, seed, **kwargs,
        )  # fmt: skip
        self.recurrent_activation = _activation(recurrent_activation)
        self.reset_after = bool(reset_after)
        self.state_size = self.units
        if self.implementation == 1:  # per-gate dropout masks, as Keras
            self.dropout_mask_count = 3

    def build(self, input_shape: Any = None) -> None:
        """Creates ``kernel``, ``recurrent_kernel`` (and ``bias``: ``(2, 3 * units)`` with ``reset_after``)."""
        self._build_kernels(input_shape, 3)
        self.bias = None
        if self.use_bias:
            shape = (2, 3 * self.units) if self.reset_after else (3 * self.units,)
            self._add_bias(shape, self.bias_initializer)
        self.built = True

    def call(self, inputs: Any, states: Any, training: bool = False) -> tuple[Tensor, Any]:
        """One step: the new output, which is also the new state."""
        x = self._step_input(inputs)
        (h_prev,) = self._states(states, 1)
        dp, rdp = self._masks(training, x, h_prev)
        input_bias = recurrent_bias = None
        if self.bias is not None:
            if self.reset_after:
                input_bias, recurrent_bias = _core.unstack(self.bias, axis=0)
            else:
                input_bias = self.bias
        kernels = _core.split(self.kernel, 3, axis=1)
        recurrent = _core.split(self.recurrent_kernel, 3, axis=1)
        if self.implementation == 1:
            # Per-gate masks (Keras' implementation 1, used with recurrent_dropout).
            xs = [x * m for m in dp] if dp is not None else [x] * 3
            hs = [h_prev * m for m in rdp] if rdp is not None else [h_prev] * 3
            x_z, x_r, x_h = (_core.matmul(xg, k) for xg, k in zip(xs, kernels))
        else:
            if dp is not None:
                x = x * dp
            hs = [h_prev] * 3
            x_z, x_r, x_h = _core.split(_core.matmul(x, self.kernel), 3, axis=1)
        if input_bias is not None:
            b_z, b_r, b_h = _core.split(input_bias, 3, axis=0)
            x_z, x_r, x_h = x_z + b_z, x_r + b_r, x_h + b_h
        rec_z = _core.matmul(hs[0], recurrent[0])
        rec_r = _core.matmul(hs[1], recurrent[1])
        if self.reset_after and recurrent_bias is not None:
            rb_z, rb_r, rb_h = _core.split(recurrent_bias, 3, axis=0)
            rec_z, rec_r = rec_z + rb_z, rec_r + rb_r
        z = self.recurrent_activation(x_z + rec_z)
        r = self.recurrent_activation(x_r + rec_r)
        if self.reset_after:
            rec_h = _core.matmul(hs[2], recurrent[2])
            if recurrent_bias is not None:
                rec_h = rec_h + rb_h
            rec_h = r * rec_h
        else:
            rec_h = _core.matmul(r * hs[2], recurrent[2])
        hh = self.activation(x_h + rec_h)
        h = z * h_prev + (1 - z) * hh
        return h, ([h] if _is_nested(states) else h)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {
            **super().get_config(),
            **self._common_config(),
            "recurrent_activation": _activation_name(self.recurrent_activation),
            "reset_after": self.reset_after,
        }


class StackedRNNCells(Layer):
    """Cells applied one after the other at each step, as one cell (``keras.layers.StackedRNNCells``);
    ``RNN([cell1, cell2])`` builds one.

    Its state is the list of the cells' states; its output is the last cell's output.

    Parameters
    ----------
    cells : list of cells
        Each has ``call(inputs, states)`` and ``state_size``.
    """

    def __init__(self, cells: Sequence[Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        for cell in cells:
            if not callable(getattr(cell, "call", None)):
                raise ValueError(f"All cells must have a `call` method. Received cell without a `call` method: {cell}")
            if not hasattr(cell, "state_size"):
                raise ValueError(
                    f"All cells must have a `state_size` attribute. Received cell without a `state_size`: {cell}"
                )
        self.cells = list(cells)

    @property
    def state_size(self) -> list[Any]:
        """The cells' ``state_size``\\ s."""
        return [c.state_size for c in self.cells]

    @property
    def output_size(self) -> int:
        """The last cell's output size."""
        return _output_size(self.cells[-1])

    def get_initial_state(self, batch_size: int | None = None) -> list[Any]:
        """Each cell's initial state."""
        return [_cell_initial_state(c, batch_size, self.compute_dtype) for c in self.cells]

    def build(self, input_shape: Any = None) -> None:
        """Builds each cell on the previous one's output size."""
        shape = tuple(input_shape)
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                with cell._scope():
                    cell.build(shape)
                cell.built = True
            shape = (shape[0], _output_size(cell))
        self.built = True

    def call(self, inputs: Any, states: Any, training: bool = False) -> tuple[Tensor, list[Any]]:
        """One step of each cell, in order."""
        new_states = []
        for cell, cell_states in zip(self.cells, states):
            was_list = _is_nested(cell_states)
            cell_states = list(cell_states) if was_list else [cell_states]
            inputs, out_states = _call_cell(cell, inputs, cell_states, training)
            out_states = list(out_states) if _is_nested(out_states) else [out_states]
            new_states.append(out_states[0] if len(out_states) == 1 and not was_list else out_states)
        return inputs, new_states

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: the serialized cells."""
        return {**super().get_config(), "cells": [_serialize_layer(c) for c in self.cells]}

    @classmethod
    def from_config(cls, config: Mapping[str, Any], custom_objects: Mapping[str, Any] | None = None) -> Layer:
        """Recreates the cells from their configs."""
        config = dict(config)
        cells = [_deserialize_layer(c, custom_objects) for c in config.pop("cells")]
        return cls(cells, **config)


def _output_size(cell: Any) -> int:
    size = getattr(cell, "output_size", None)
    if size is not None:
        return int(size)
    state_size = cell.state_size
    return int(state_size[0] if _is_nested(state_size) else state_size)


def _cell_initial_state(cell: Any, batch_size: int | None, dtype: str) -> Any:
    fn = getattr(cell, "get_initial_state", None)
    if fn is not None:
        return fn(batch_size=batch_size)
    # Without get_initial_state: zeros, a bare tensor for an int state_size (as Keras' StackedRNNCells).
    sizes = cell.state_size
    if _is_nested(sizes):
        return [_core.zeros([batch_size, d], dtype=dtype) for d in sizes]
    return _core.zeros([batch_size, sizes], dtype=dtype)


def _reset_dropout_masks(cell: Any) -> None:
    for c in cell.cells if isinstance(cell, StackedRNNCells) else [cell]:
        if isinstance(c, _Cell):
            c.reset_dropout_mask()
            c.reset_recurrent_dropout_mask()


def _call_cell(cell: Any, inputs: Any, states: Any, training: bool) -> tuple[Any, Any]:
    """A built Layer cell's ``call`` directly (no per-step name scope or input conversion); else ``cell(...)``."""
    if isinstance(cell, Layer):
        if cell._call_has_training_arg:
            return cell.call(inputs, states, training=training)
        return cell.call(inputs, states)
    return cell.call(inputs, states) if hasattr(cell, "call") else cell(inputs, states)


# ----------------------------------------------------------------------------- (de)serialization


def _serialize_layer(layer: Any) -> dict[str, Any]:
    from ._serialization import serialize

    return serialize(layer)


def _deserialize_layer(config: Any, custom_objects: Mapping[str, Any] | None = None) -> Any:
    if isinstance(config, Layer) or not isinstance(config, Mapping):
        return config
    from ..utils import _visible_custom_objects

    name = config.get("registered_name") or config["class_name"]
    known: dict[str, Any] = {c.__name__: c for c in _SERIALIZABLE}
    known.update(_visible_custom_objects(dict(custom_objects or {})))
    if name not in known:
        name = config["class_name"]
    if name not in known:
        raise ValueError(f"Unknown layer {name!r}: pass it in custom_objects to deserialize it.")
    cls = known[name]
    inner = dict(config["config"])
    try:
        takes_custom = "custom_objects" in inspect.signature(cls.from_config).parameters
    except (TypeError, ValueError):
        takes_custom = False
    if takes_custom:
        return cls.from_config(inner, custom_objects=custom_objects)
    return cls.from_config(inner)


# ----------------------------------------------------------------------------- RNN


class RNN(Layer):
    """Runs a cell over the time axis of ``(batch, timesteps, features)`` inputs (``keras.layers.RNN``).

    The loop is a Python loop over the time steps, so the layer works under
    ``GradientTape`` and inside ``tapers.function`` (where it is unrolled; the
    number of steps must be known when tracing).

    Parameters
    ----------
    cell : cell or list of cells
        An object with ``call(inputs, states)`` returning ``(output, new_states)`` and
        ``state_size`` (an int or a list of ints); a list becomes a ``StackedRNNCells``.
    return_sequences : bool
        Return the outputs at every step ``(batch, timesteps, units)`` rather than the last one.
    return_state : bool
        Also return the final states: ``[output, *states]``.
    go_backwards : bool
        Process the sequence backwards (and, with ``return_sequences``, return the outputs in that
        reversed order, as Keras does).
    stateful : bool
        Only False is implemented.
    unroll : bool
        Accepted; the loop is always unrolled in Python.
    zero_output_for_mask : bool
        Whether masked steps output zeros (else the previous step's output is repeated).

    Call arguments
    --------------
    sequences : tensor
        ``(batch, timesteps, features)``.
    initial_state : tensor or list of tensors, optional
        The cell's first states (zeros by default).
    mask : bool tensor, optional
        ``(batch, timesteps)``: False steps are skipped (states and output carried over). Taken from
        the input's Keras mask when not given (and ``initial_state`` is not given, as Keras).
    training : bool
        Passed to the cell.
    """

    def __init__(
        self,
        cell: Any,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        zero_output_for_mask: bool = False,
        **kwargs: Any,
    ) -> None:
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not callable(getattr(cell, "call", None)):
            raise ValueError(f"Argument `cell` should have a `call` method. Received: cell={cell}")
        if not hasattr(cell, "state_size"):
            raise ValueError(
                "The RNN cell should have a `state_size` attribute (single integer or list of integers, one "
                f"integer per RNN state). Received: cell={cell}"
            )
        if stateful:
            raise NotImplementedError("tapers.keras: stateful=True recurrent layers are not implemented")
        super().__init__(**kwargs)
        self.supports_masking = True
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = False
        self.unroll = bool(unroll)
        state_size = cell.state_size
        if not isinstance(state_size, (list, tuple, int)):
            raise ValueError("state_size must be an integer, or a list/tuple of integers (one for each state tensor).")
        self.state_size: list[Any] = [state_size] if isinstance(state_size, int) else list(state_size)
        self.single_state = isinstance(state_size, int)

    def build(self, sequences_shape: Any = None, initial_state_shape: Any = None) -> None:
        """Builds the cell for one step's input shape ``(batch, features)``."""
        shape = tuple(sequences_shape)
        if len(shape) != 3:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected ndim=3, found '
                f"ndim={len(shape)}. Full shape received: {shape}"
            )
        if isinstance(self.cell, Layer) and not self.cell.built:
            with self.cell._scope():
                self.cell.build((shape[0], *shape[2:]))
            self.cell.built = True
        self.built = True

    def get_initial_state(self, batch_size: int | None) -> list[Any]:
        """The cell's initial states (zeros): a list with one entry per state."""
        init = _cell_initial_state(self.cell, batch_size, self.compute_dtype)
        return list(init) if _is_nested(init) else [init]

    def _pack_states(self, initial_state: Any) -> list[Any]:
        """User-given initial states as the cell expects them (a flat list is regrouped per stacked cell)."""
        states = list(initial_state) if _is_nested(initial_state) else [initial_state]
        dtype = self.cell.compute_dtype if isinstance(self.cell, Layer) else self.compute_dtype
        if isinstance(self.cell, StackedRNNCells) and len(states) != len(self.state_size):
            flat = states
            need = len(flatten(self.state_size))
            if len(flat) != need:
                raise ValueError(
                    f'Layer "{self.name}" expects {need} initial state tensors, received {len(flat)}.'
                )
            states, i = [], 0
            for size in self.state_size:
                if _is_nested(size):
                    states.append(flat[i : i + len(size)])
                    i += len(size)
                else:
                    states.append([flat[i]])
                    i += 1
        elif not isinstance(self.cell, StackedRNNCells) and len(states) != len(self.state_size):
            raise ValueError(
                f'Layer "{self.name}" expects {len(self.state_size)} initial state tensor(s), received '
                f"{len(states)}."
            )

        def convert(s: Any) -> Any:
            return [convert(v) for v in s] if _is_nested(s) else _as_tensor(s, dtype)

        return [convert(s) for s in states]

    def call(self, sequences: Any, initial_state: Any = None, mask: Any = None, training: bool = False) -> Any:
        """The loop over time steps; returns the last output (or all of them), then the states if asked."""
        x = sequences
        if len(x.shape) != 3:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected ndim=3, found '
                f"ndim={len(x.shape)}. Full shape received: {tuple(x.shape)}"
            )
        if x.shape[1] == 0:
            raise ValueError(f'Layer "{self.name}" received a sequence with no time steps: shape {tuple(x.shape)}')
        step_masks = _step_masks(self.name, mask, tuple(x.shape))
        if initial_state is None:
            states = self.get_initial_state(x.shape[0])
        else:
            states = self._pack_states(initial_state)
        steps = _core.unstack(x, axis=1)
        if self.go_backwards:
            steps = steps[::-1]
            if step_masks is not None:
                step_masks = step_masks[::-1]
        outputs = []
        prev_output: Any = None
        _reset_dropout_masks(self.cell)  # fresh masks for this sequence, shared by its steps
        try:
            for i, step in enumerate(steps):
                output, new_states = _call_cell(self.cell, step, states, bool(training))
                new_states = list(new_states) if _is_nested(new_states) else [new_states]
                if step_masks is not None:
                    # Keras' TF backend: masked steps keep the states, and output zeros
                    # (zero_output_for_mask) or the previous (masked) output.
                    keep = step_masks[i]
                    if self.zero_output_for_mask or prev_output is None:
                        fallback = _core.zeros_like(output)
                    else:
                        fallback = prev_output
                    output = _select(keep, output, fallback)
                    new_states = _select_nest(keep, new_states, states)
                states = new_states
                prev_output = output
                if self.return_sequences:
                    outputs.append(output)
        finally:
            _reset_dropout_masks(self.cell)
        out = _core.stack(outputs, axis=1) if self.return_sequences else prev_output
        if self.return_state:
            return (out, *states)
        return out

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The input's mask for the outputs of ``return_sequences`` (None otherwise, and for the states).

        Parameters
        ----------
        inputs : Tensor
            The sequences.
        mask : Tensor or list, optional
            The sequences' mask (the first entry of a list).

        Returns
        -------
        Tensor, list or None
            The output's mask, then None per state with ``return_state``.
        """
        del inputs
        if isinstance(mask, (list, tuple)):
            mask = flatten(mask)[0] if mask else None
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None for _ in self.state_size]
        return output_mask

    def compute_output_shape(self, sequences_shape: Any, initial_state_shape: Any = None) -> Any:
        """``(batch, units)`` or ``(batch, timesteps, units)``, then the states' shapes with ``return_state``."""
        batch, length = sequences_shape[0], sequences_shape[1]
        states_shape: list[Any] = []
        for size in self.state_size:
            if _is_nested(size):
                states_shape.append([(batch, s) for s in size])
            else:
                states_shape.append((batch, size))
        output_size = getattr(self.cell, "output_size", None)
        if output_size is None:
            output_size = self.state_size[0]
        out = (batch, length, output_size) if self.return_sequences else (batch, output_size)
        return (out, *states_shape) if self.return_state else out

    def compute_output_spec(self, *args: Any, **kwargs: Any) -> Any:
        """KerasTensors with the shapes of :meth:`compute_output_shape`."""
        shape = self.compute_output_shape(tuple(args[0].shape))
        return _specs(shape, self.compute_dtype)

    def _base_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "go_backwards": self.go_backwards,
            "stateful": self.stateful,
            "unroll": self.unroll,
            "zero_output_for_mask": self.zero_output_for_mask,
        }

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys, with the serialized ``cell``."""
        return {**self._base_config(), "cell": _serialize_layer(self.cell)}

    @classmethod
    def from_config(cls, config: Mapping[str, Any], custom_objects: Mapping[str, Any] | None = None) -> Layer:
        """Recreates the layer and its cell."""
        config = dict(config)
        cell = _deserialize_layer(config.pop("cell"), custom_objects)
        return cls(cell, **config)


def _step_masks(name: str, mask: Any, shape: tuple[Any, ...]) -> list[Tensor] | None:
    """The mask as one ``(batch, 1)`` boolean tensor per step (Keras takes ``(batch, steps)`` or
    ``(batch, steps, 1)``)."""
    if isinstance(mask, (list, tuple)):
        mask = flatten(mask)[0] if mask else None
    if mask is None:
        return None
    m = _core.convert_to_tensor(mask)
    mshape = tuple(m.shape)
    if len(mshape) == 3 and mshape[2] == 1:
        m = _core.squeeze(m, axis=2)
        mshape = mshape[:2]
    if len(mshape) != 2 or any(a is not None and b is not None and a != b for a, b in zip(mshape, shape[:2])):
        raise ValueError(
            f'Layer "{name}": the mask must have shape (batch, timesteps) = {shape[:2]} for sequences of shape '
            f"{shape}; received a mask of shape {mshape} (dtype {m.dtype.name})"
        )
    if m.dtype.name != "bool":
        m = _core.cast(m, "bool")
    return [_core.expand_dims(t, -1) for t in _core.unstack(m, axis=1)]


def _select(keep: Tensor, new: Tensor, old: Tensor) -> Tensor:
    """``where(keep, new, old)`` with ``keep`` of shape ``(batch, 1)`` broadcast over ``new``."""
    return _core.where(_core.broadcast_to(keep, _core.shape(new)), new, old)


def _select_nest(keep: Tensor, new: Any, old: Any) -> Any:
    if isinstance(new, (list, tuple)):
        return [_select_nest(keep, n, o) for n, o in zip(new, old)]
    return _select(keep, new, old)


def _specs(shape: Any, dtype: str) -> Any:
    if isinstance(shape, tuple) and all(d is None or isinstance(d, int) for d in shape):
        return KerasTensor(shape, dtype)
    return type(shape)(_specs(s, dtype) for s in shape)


class _CellLayer(RNN):
    """SimpleRNN / LSTM / GRU: an RNN over its own cell, with the cell's arguments as its own."""

    _cell_class: type[_Cell]
    _cell_name: str

    def __init__(self, cell_kwargs: dict[str, Any], rnn_kwargs: dict[str, Any], **kwargs: Any) -> None:
        use_cudnn = kwargs.pop("use_cudnn", "auto")
        if use_cudnn not in ("auto", True, False):
            raise ValueError(
                "Invalid valid received for argument `use_cudnn`. Expected one of {'auto', True, False}. "
                f"Received: use_cudnn={use_cudnn}"
            )
        cell = self._cell_class(
            **cell_kwargs,
            dtype=kwargs.get("dtype"),
            trainable=kwargs.get("trainable", True),
            name=self._cell_name,
            implementation=kwargs.pop("implementation", 2),
        )
        super().__init__(cell, **rnn_kwargs, **kwargs)
        self.use_cudnn = use_cudnn

    def call(self, sequences: Any, initial_state: Any = None, mask: Any = None, training: bool = False) -> Any:
        """The loop over time steps (see :class:`RNN`)."""
        return super().call(sequences, initial_state=initial_state, mask=mask, training=training)

    def __getattr__(self, name: str) -> Any:
        # The cell's hyper-parameters read through the layer (layer.units, layer.activation...), as in Keras.
        if name in _CELL_ATTRS and "cell" in self.__dict__:
            return getattr(self.__dict__["cell"], name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: the cell's arguments and the RNN's options (no ``cell``)."""
        cell_config = self.cell.get_config()
        for key in ("name", "trainable", "dtype"):
            cell_config.pop(key, None)
        config = {**self._base_config(), **cell_config, "activity_regularizer": _serialized(self.activity_regularizer)}
        return config

    @classmethod
    def from_config(cls, config: Mapping[str, Any], custom_objects: Mapping[str, Any] | None = None) -> Layer:
        """``cls(**config)``."""
        return cls(**config)


_CELL_ATTRS = frozenset((
    "units", "activation", "recurrent_activation", "use_bias", "unit_forget_bias", "kernel_initializer",
    "recurrent_initializer", "bias_initializer", "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
    "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout", "reset_after",
    "seed",
))  # fmt: skip


def _split_kwargs(local: dict[str, Any], cell_keys: Sequence[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    cell = {k: local[k] for k in cell_keys}
    rnn = {k: local[k] for k in ("return_sequences", "return_state", "go_backwards", "stateful", "unroll")}
    return cell, rnn


_COMMON_CELL_KEYS = (
    "units", "activation", "use_bias", "kernel_initializer", "recurrent_initializer", "bias_initializer",
    "kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "kernel_constraint", "recurrent_constraint",
    "bias_constraint", "dropout", "recurrent_dropout", "seed",
)  # fmt: skip


class SimpleRNN(_CellLayer):
    """A fully connected RNN whose output is fed back as its state (``keras.layers.SimpleRNN``):
    an :class:`RNN` over a :class:`SimpleRNNCell` named ``simple_rnn_cell``.

    Parameters
    ----------
    units : int
        Output size.
    activation, use_bias, kernel_initializer, recurrent_initializer, bias_initializer,
    kernel_regularizer, recurrent_regularizer, bias_regularizer, kernel_constraint,
    recurrent_constraint, bias_constraint, dropout, recurrent_dropout, seed
        As for :class:`SimpleRNNCell`.
    activity_regularizer : regularizer, optional
        Penalty on the output.
    return_sequences, return_state, go_backwards, stateful, unroll
        As for :class:`RNN`.
    """

    _cell_class = SimpleRNNCell
    _cell_name = "simple_rnn_cell"

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        cell_kwargs, rnn_kwargs = _split_kwargs(locals(), _COMMON_CELL_KEYS)
        super().__init__(cell_kwargs, rnn_kwargs, activity_regularizer=activity_regularizer, **kwargs)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys (Keras 3 leaves ``seed`` out of SimpleRNN's config)."""
        config = super().get_config()
        config.pop("seed", None)
        return config


class LSTM(_CellLayer):
    """Long short-term memory layer (``keras.layers.LSTM``): an :class:`RNN` over an
    :class:`LSTMCell` named ``lstm_cell``; its states are ``[h, c]``.

    Parameters
    ----------
    units : int
        Output size.
    activation, recurrent_activation, use_bias, kernel_initializer, recurrent_initializer,
    bias_initializer, unit_forget_bias, kernel_regularizer, recurrent_regularizer,
    bias_regularizer, kernel_constraint, recurrent_constraint, bias_constraint, dropout,
    recurrent_dropout, seed
        As for :class:`LSTMCell`.
    activity_regularizer : regularizer, optional
        Penalty on the output.
    return_sequences, return_state, go_backwards, stateful, unroll
        As for :class:`RNN`.
    use_cudnn : bool or "auto"
        Accepted and ignored (tapers has one implementation).
    """

    _cell_class = LSTMCell
    _cell_name = "lstm_cell"

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        unit_forget_bias: bool = True,
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: int | None = None,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        use_cudnn: Any = "auto",
        **kwargs: Any,
    ) -> None:
        cell_kwargs, rnn_kwargs = _split_kwargs(
            locals(), (*_COMMON_CELL_KEYS, "recurrent_activation", "unit_forget_bias")
        )
        super().__init__(
            cell_kwargs, rnn_kwargs, activity_regularizer=activity_regularizer, use_cudnn=use_cudnn, **kwargs
        )


class GRU(_CellLayer):
    """Gated recurrent unit layer (``keras.layers.GRU``): an :class:`RNN` over a
    :class:`GRUCell` named ``gru_cell`` (``reset_after=True`` by default, as Keras 3).

    Parameters
    ----------
    units : int
        Output size.
    activation, recurrent_activation, use_bias, kernel_initializer, recurrent_initializer,
    bias_initializer, kernel_regularizer, recurrent_regularizer, bias_regularizer,
    kernel_constraint, recurrent_constraint, bias_constraint, dropout, recurrent_dropout,
    reset_after, seed
        As for :class:`GRUCell`.
    activity_regularizer : regularizer, optional
        Penalty on the output.
    return_sequences, return_state, go_backwards, stateful, unroll
        As for :class:`RNN`.
    use_cudnn : bool or "auto"
        Accepted and ignored (tapers has one implementation).
    """

    _cell_class = GRUCell
    _cell_name = "gru_cell"

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: int | None = None,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        reset_after: bool = True,
        use_cudnn: Any = "auto",
        **kwargs: Any,
    ) -> None:
        cell_kwargs, rnn_kwargs = _split_kwargs(locals(), (*_COMMON_CELL_KEYS, "recurrent_activation", "reset_after"))
        super().__init__(
            cell_kwargs, rnn_kwargs, activity_regularizer=activity_regularizer, use_cudnn=use_cudnn, **kwargs
        )


# ----------------------------------------------------------------------------- Bidirectional


def _remove_prefix(name: str, prefix: str) -> str:
    return name[len(prefix) :] if name.startswith(prefix) else name


class Bidirectional(Wrapper):
    """Runs a recurrent layer forwards and a copy of it backwards and merges their outputs
    (``keras.layers.Bidirectional``).

    The forward layer is a copy of ``layer`` named ``forward_<name>``; the backward
    one a copy with ``go_backwards`` flipped named ``backward_<name>`` (or
    ``backward_layer``). With ``return_sequences`` the backward outputs are
    reversed back to the input's time order before merging.

    Parameters
    ----------
    layer : RNN
        A recurrent layer (``LSTM``, ``GRU``, ``SimpleRNN``, ``RNN``).
    merge_mode : {"concat", "sum", "mul", "ave", None}
        How the two outputs combine; ``None`` returns both.
    weights : list of arrays, optional
        Initial weights: the forward layer's, then the backward layer's.
    backward_layer : RNN, optional
        The backward layer, instead of a copy of ``layer``.

    Call arguments
    --------------
    sequences : tensor
        ``(batch, timesteps, features)``.
    initial_state : list of tensors, optional
        The forward layer's states, then the backward layer's.
    mask : bool tensor, optional
        ``(batch, timesteps)``, passed to both layers (whose ``zero_output_for_mask`` is set to
        ``return_sequences``, as Keras).
    """

    def __init__(
        self,
        layer: Any,
        merge_mode: str | None = "concat",
        weights: Sequence[Any] | None = None,
        backward_layer: Any = None,
        **kwargs: Any,
    ) -> None:
        if not isinstance(layer, Layer):
            raise ValueError(
                f"Please initialize `Bidirectional` layer with a `keras.layers.Layer` instance. Received: {layer}"
            )
        if backward_layer is not None and not isinstance(backward_layer, Layer):
            raise ValueError(f"`backward_layer` need to be a `keras.layers.Layer` instance. Received: {backward_layer}")
        if merge_mode not in ("sum", "mul", "ave", "concat", None):
            raise ValueError(
                f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one of "
                '{"sum", "mul", "ave", "concat", None}'
            )
        super().__init__(layer, **kwargs)
        self.forward_layer: Any = self._copy(layer, f"forward_{_remove_prefix(layer.name, 'forward_')}", None)
        if backward_layer is None:
            backward_layer = self._copy(layer, f"backward_{_remove_prefix(layer.name, 'backward_')}", True)
        self.backward_layer: Any = backward_layer
        for attr in ("go_backwards", "stateful", "return_sequences", "return_state"):
            if not hasattr(self.forward_layer, attr) or not hasattr(self.backward_layer, attr):
                raise ValueError(f"Bidirectional needs recurrent layers (with `{attr}`), got {layer}")
        fwd: Any = self.forward_layer
        bwd: Any = self.backward_layer
        forward_back, backward_back = fwd.go_backwards, bwd.go_backwards
        if forward_back == backward_back:
            raise ValueError(
                "Forward layer and backward layer should have different `go_backwards` value. Received: "
                f"forward_layer.go_backwards {forward_back}, backward_layer.go_backwards={backward_back}"
            )
        for a in ("stateful", "return_sequences", "return_state"):
            fv, bv = getattr(self.forward_layer, a), getattr(self.backward_layer, a)
            if fv != bv:
                raise ValueError(
                    f'Forward layer and backward layer are expected to have the same value for attribute "{a}", '
                    f'got "{fv}" for forward layer and "{bv}" for backward layer'
                )
        for sub in (fwd, bwd):  # Keras forces zero outputs at masked steps when returning sequences
            if getattr(sub, "zero_output_for_mask", None) is not None:
                sub.zero_output_for_mask = sub.return_sequences
        self.supports_masking = True
        self.merge_mode = merge_mode
        self._initial_weights = list(weights) if weights else None
        self.stateful = bool(fwd.stateful)
        self.return_sequences = bool(fwd.return_sequences)
        self.return_state = bool(fwd.return_state)

    @staticmethod
    def _copy(layer: Layer, name: str, go_backwards: bool | None) -> Layer:
        config = dict(layer.get_config())
        config["name"] = name
        if go_backwards:
            config["go_backwards"] = not config.get("go_backwards", False)
        return type(layer).from_config(config)

    def build(self, sequences_shape: Any = None, initial_state_shape: Any = None) -> None:
        """Builds both layers (weights ``<name>/forward_<layer>/...`` then ``<name>/backward_<layer>/...``)."""
        for sub in (self.forward_layer, self.backward_layer):
            if not sub.built:
                with sub._scope():
                    sub.build(sequences_shape)
                sub.built = True
        self.built = True
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)
            self._initial_weights = None

    def call(self, sequences: Any, initial_state: Any = None, mask: Any = None, training: bool | None = None) -> Any:
        """Both directions, then the merge."""
        kwargs: dict[str, Any] = {}
        if training is not None:
            kwargs["training"] = training
        if mask is not None:
            if not getattr(self.forward_layer, "_call_has_mask_arg", False):
                raise ValueError(f'Layer "{self.name}": its wrapped layer takes no `mask` argument')
            kwargs["mask"] = mask
        forward_state = backward_state = None
        if initial_state is not None:
            initial_state = list(initial_state)
            half = len(initial_state) // 2
            forward_state, backward_state = initial_state[:half], initial_state[half:]
        y = self.forward_layer(sequences, initial_state=forward_state, **kwargs)
        y_rev = self.backward_layer(sequences, initial_state=backward_state, **kwargs)
        states: tuple[Any, ...] = ()
        if self.return_state:
            states = (*y[1:], *y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = _core.reverse(y_rev, [1])
        if self.merge_mode == "concat":
            output: Any = _core.concat([y, y_rev], axis=-1)
        elif self.merge_mode == "sum":
            output = y + y_rev
        elif self.merge_mode == "ave":
            output = (y + y_rev) / 2
        elif self.merge_mode == "mul":
            output = y * y_rev
        else:
            output = (y, y_rev)
        if self.return_state:
            return (*output, *states) if self.merge_mode is None else (output, *states)
        return output

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The input's mask for ``return_sequences`` outputs (one per output with ``merge_mode=None``).

        Parameters
        ----------
        inputs : Tensor
            The sequences.
        mask : Tensor or list, optional
            The sequences' mask.

        Returns
        -------
        Tensor, tuple or None
            The output mask(s).
        """
        del inputs
        if isinstance(mask, list):
            mask = mask[0] if mask else None
        if self.return_sequences:
            return (mask, mask) if not self.merge_mode else mask
        return (None, None) if not self.merge_mode else None

    def compute_output_shape(self, sequences_shape: Any, initial_state_shape: Any = None) -> Any:
        """The forward layer's shapes, merged (last dimension doubled by ``"concat"``)."""
        output_shape = self.forward_layer.compute_output_shape(tuple(sequences_shape))
        state_shape: tuple[Any, ...] = ()
        if self.return_state:
            output_shape, state_shape = output_shape[0], tuple(output_shape[1:])
        if self.merge_mode == "concat":
            output_shape = (*output_shape[:-1], output_shape[-1] * 2)
            outputs: tuple[Any, ...] = (output_shape,)
        elif self.merge_mode is None:
            outputs = (output_shape, output_shape)
        else:
            outputs = (output_shape,)
        if self.return_state:
            return (*outputs, *state_shape, *state_shape)
        return outputs[0] if len(outputs) == 1 else outputs

    def compute_output_spec(self, *args: Any, **kwargs: Any) -> Any:
        """KerasTensors with the shapes of :meth:`compute_output_shape`."""
        return _specs(self.compute_output_shape(tuple(args[0].shape)), self.compute_dtype)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: ``merge_mode``, and the two serialized layers."""
        return {
            **super().get_config(),
            "merge_mode": self.merge_mode,
            "layer": _serialize_layer(self.forward_layer),
            "backward_layer": _serialize_layer(self.backward_layer),
        }

    @classmethod
    def from_config(cls, config: Mapping[str, Any], custom_objects: Mapping[str, Any] | None = None) -> Layer:
        """Recreates the wrapper and its layers."""
        config = dict(config)
        config["layer"] = _deserialize_layer(config["layer"], custom_objects)
        backward = config.pop("backward_layer", None)
        if backward is not None:
            config["backward_layer"] = _deserialize_layer(backward, custom_objects)
        return cls(**config)


_SERIALIZABLE = (SimpleRNNCell, LSTMCell, GRUCell, StackedRNNCells, RNN, SimpleRNN, LSTM, GRU, Bidirectional)
