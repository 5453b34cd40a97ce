"""Keras 3's convolutional LSTM layers: ConvLSTM1D, ConvLSTM2D, ConvLSTM3D.

A ConvLSTM (Shi et al. 2015) is an LSTM whose input and recurrent transformations are
convolutions, so its states keep the spatial layout of the frames: it reads sequences of
``(batch, time, *spatial, channels)`` (or ``(batch, time, channels, *spatial)`` with
``data_format="channels_first"``) and its states are feature maps ``(batch, *out_spatial,
filters)``. The layers are :class:`RNN` subclasses running a private convolutional LSTM cell
(named ``conv_lstm_cell``, as Keras) with a Python loop over the time steps, so they work under
``GradientTape`` and inside ``tapers.function`` (unrolled). Weights have Keras 3's names,
shapes and gate order (i, f, c, o along the last axis), so Keras weights load as they are.

The input convolution takes the layer's ``strides``, ``padding`` and ``dilation_rate``; the
recurrent one is always stride 1, ``"same"``, undilated (as Keras), so the state keeps the
input convolution's output size. Convolutions run channels-last on tapers' ``conv2d`` /
``conv3d`` (a 1-D layer runs ``conv2d`` on height 1); channels-first steps are transposed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import _core, nn
from ._base import Layer, _serialized
from ._conv_extra import _conv_len, _data_format, _padding, _tuple
from ._core_layers import _activation, _activation_name, _initializer_config
from ._rnn import RNN, _as_tensor, _call_cell, _Cell, _is_nested, _reset_dropout_masks, _specs

__all__ = ["ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"]

Tensor = _core.Tensor


def _filters(filters: Any) -> int:
    if isinstance(filters, bool) or not isinstance(filters, int) or filters <= 0:
        raise ValueError(
            f"Invalid value for argument `filters`. Expected a strictly positive integer. Received filters={filters}."
        )
    return int(filters)


class _ConvLSTMCell(_Cell):
    """One step of a convolutional LSTM (Keras 3's ``ConvLSTMCell``), of rank 1, 2 or 3.

    With ``*`` a convolution, the gates in Keras' order ``i, f, c, o``::

        i = recurrent_activation(x * W_i + b_i + h * U_i)      (f, o likewise)
        c_new = f . c + i . activation(x * W_c + b_c + h * U_c)
        h_new = o . activation(c_new)

    Weights: ``kernel`` ``(*kernel_size, in_channels, 4 * filters)``, ``recurrent_kernel``
    ``(*kernel_size, filters, 4 * filters)``, ``bias`` ``(4 * filters,)``. Called as
    ``cell(inputs, [h, c])`` with a step input ``(batch, *spatial, channels)``; returns
    ``(h_new, [h_new, c_new])``.

    Parameters
    ----------
    rank : int
        1, 2 or 3 spatial axes.
    filters : int
        Channels of the output and of both states.
    kernel_size, strides, dilation_rate : int or tuple of ``rank`` ints
        Of the input convolution (strides and dilation not both above 1).
    padding : {"valid", "same"}
        Of the input convolution.
    data_format : {"channels_last", "channels_first"}, optional
        Layout of the step inputs and states.
    activation, recurrent_activation : str or callable
        Defaults ``"tanh"`` and ``"sigmoid"``.
    use_bias, unit_forget_bias : bool
        Whether to add ``bias``; whether its forget part starts at 1.
    kernel_initializer, recurrent_initializer, bias_initializer : str or initializer
        Keras' defaults ``"glorot_uniform"``, ``"orthogonal"``, ``"zeros"``.
    kernel_regularizer, recurrent_regularizer, bias_regularizer, kernel_constraint, \
recurrent_constraint, bias_constraint : optional
        As for ``LSTMCell``.
    dropout, recurrent_dropout : float
        Fractions of the inputs / previous output dropped while training (one mask per gate and
        per sequence, shared by the time steps, as Keras).
    seed : int, optional
        Op-level seed of the dropout masks.
    """

    def __init__(
        self,
        rank: int,
        filters: int,
        kernel_size: int | Sequence[int],
        strides: int | Sequence[int] = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: int | Sequence[int] = 1,
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
        if rank not in (1, 2, 3):
            raise ValueError(f"Rank {rank} convolutions are not currently implemented. Received: rank={rank}")
        filters = _filters(filters)
        super().__init__(
            filters, activation, use_bias, kernel_initializer, recurrent_initializer, bias_initializer,
            kernel_regularizer, recurrent_regularizer, bias_regularizer, kernel_constraint, recurrent_constraint,
            bias_constraint, dropout, recurrent_dropout, seed, **kwargs,
        )  # fmt: skip
        self.rank = rank
        self.filters = filters
        self.kernel_size = _tuple(kernel_size, rank, "kernel_size")
        self.strides = _tuple(strides, rank, "strides")
        self.padding = _padding(padding, ("valid", "same"))
        self.data_format = _data_format(data_format)
        self.dilation_rate = _tuple(dilation_rate, rank, "dilation_rate")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                "Specifying `strides > 1` is not compatible with `dilation_rate > 1`. Please provide `strides=1` "
                f"or `dilation_rate=1`. Received: strides={self.strides} and dilation_rate={self.dilation_rate}"
            )
        self.recurrent_activation = _activation(recurrent_activation)
        self.unit_forget_bias = bool(unit_forget_bias)
        self.state_size = -1  # as Keras: the states' shapes come from the input's (see get_initial_state)
        self.dropout_mask_count = 4  # one mask per gate, as Keras
        self.spatial_dims: tuple[int, ...] = ()
        self.input_dim = 0

    # -- layout helpers ------------------------------------------------------------------------

    def _split_shape(self, shape: Sequence[Any]) -> tuple[Any, tuple[Any, ...], Any]:
        """``(batch, spatial, channels)`` of a step shape in the cell's layout."""
        s = tuple(shape)
        if self.data_format == "channels_last":
            return s[0], s[1:-1], s[-1]
        return s[0], s[2:], s[1]

    def _join_shape(self, batch: Any, spatial: Sequence[Any], channels: Any) -> tuple[Any, ...]:
        if self.data_format == "channels_last":
            return (batch, *spatial, channels)
        return (batch, channels, *spatial)

    def _to_last(self, x: Tensor) -> Tensor:
        if self.data_format == "channels_last":
            return x
        return _core.transpose(x, [0, *range(2, self.rank + 2), 1])

    def _from_last(self, x: Tensor) -> Tensor:
        if self.data_format == "channels_last":
            return x
        return _core.transpose(x, [0, self.rank + 1, *range(1, self.rank + 1)])

    def _out_spatial(self, spatial: Sequence[int | None]) -> tuple[int | None, ...]:
        return tuple(
            _conv_len(n, k, s, d, self.padding)
            for n, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate)
        )

    def _conv(self, x: Tensor, kernel: Any, recurrent: bool) -> Tensor:
        """A channels-last convolution: the input one (strides, padding, dilation) or the recurrent one."""
        strides = (1,) * self.rank if recurrent else self.strides
        dilations = (1,) * self.rank if recurrent else self.dilation_rate
        padding = "SAME" if recurrent else self.padding.upper()
        if self.rank == 1:
            y = nn.conv2d(_core.expand_dims(x, 1), _core.expand_dims(kernel, 0), strides=[1, *strides],
                          padding=padding, dilations=[1, *dilations])  # fmt: skip
            return _core.squeeze(y, [1])
        if self.rank == 2:
            return nn.conv2d(x, kernel, strides=list(strides), padding=padding, dilations=list(dilations))
        return nn.conv3d(x, kernel, list(strides), padding, dilations=list(dilations))

    # -- building ------------------------------------------------------------------------------

    def build(self, input_shape: Any = None) -> None:
        """Creates ``kernel``, ``recurrent_kernel`` (and ``bias``) for a step input ``(batch, *spatial, channels)``."""
        shape = tuple(input_shape)
        if len(shape) != self.rank + 2:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected ndim={self.rank + 2}, '
                f"found ndim={len(shape)}. Full shape received: {shape}"
            )
        _, spatial, channels = self._split_shape(shape)
        if None in spatial:
            raise ValueError(
                "ConvLSTM layers only support static input shapes for the spatial dimension. "
                f"Received invalid input shape: input_shape={shape}"
            )
        if channels is None:
            raise ValueError(
                "The channel dimension of the inputs should be defined. Found None. Full input shape received: "
                f"input_shape={shape}"
            )
        out = self._out_spatial(spatial)
        if any(o is not None and o <= 0 for o in out):
            raise ValueError(
                f"Computed output size would be zero or negative. Received input shape {shape}, "
                f"kernel_size={self.kernel_size}, strides={self.strides}, dilation_rate={self.dilation_rate}, "
                f"padding={self.padding!r}"
            )
        self.spatial_dims = tuple(int(n) for n in spatial)
        self.input_dim = int(channels)
        self.kernel = self.add_weight(
            shape=(*self.kernel_size, self.input_dim, 4 * self.filters),
            name="kernel",
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.recurrent_kernel = self.add_weight(
            shape=(*self.kernel_size, self.filters, 4 * self.filters),
            name="recurrent_kernel",
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
        )
        self.bias = None
        if self.use_bias:
            initializer = self.bias_initializer
            if self.unit_forget_bias:
                filters, base = self.filters, self.bias_initializer

                def initializer(shape: Any, dtype: Any = None) -> Tensor:
                    del shape
                    parts = [base((filters,), dtype=dtype), _core.ones([filters], dtype=dtype),
                             base((2 * filters,), dtype=dtype)]  # fmt: skip
                    return _core.concat([_core.convert_to_tensor(p) for p in parts], 0)

            self._add_bias((4 * self.filters,), initializer)
        self.built = True

    # -- states --------------------------------------------------------------------------------

    def state_shape(self, batch_size: int | None) -> tuple[int | None, ...]:
        """The shape of ``h`` and ``c``: the input convolution's output, in the cell's layout."""
        return self._join_shape(batch_size, self._out_spatial(self.spatial_dims), self.filters)

    def get_initial_state(self, batch_size: int | None = None) -> list[Tensor]:
        """Zero ``[h, c]`` of shape :meth:`state_shape`."""
        shape = list(self.state_shape(batch_size))
        return [_core.zeros(shape, dtype=self.compute_dtype) for _ in range(2)]

    def _step_input(self, inputs: Any) -> Tensor:
        x = _as_tensor(inputs, self.compute_dtype)
        expected = self._join_shape(None, self.spatial_dims, self.input_dim)
        shape = tuple(x.shape)
        if len(shape) != len(expected) or any(e is not None and e != d for e, d in zip(expected, shape)):
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected a step input of shape '
                f"{expected}, but received input with shape {shape}"
            )
        return x

    def _states(self, states: Any, count: int) -> list[Tensor]:
        states = list(states) if _is_nested(states) else [states]
        if len(states) != count:
            raise ValueError(f"ConvLSTM cell expects {count} state tensors [h, c], received {len(states)}.")
        out = [_as_tensor(s, self.compute_dtype) for s in states]
        expected = self.state_shape(None)
        for s in out:
            shape = tuple(s.shape)
            if len(shape) != len(expected) or any(e is not None and e != d for e, d in zip(expected, shape)):
                raise ValueError(
                    f'State of layer "{self.name}" is incompatible: expected shape {expected}, received {shape}'
                )
        return out

    # -- the step ------------------------------------------------------------------------------

    def call(self, inputs: Any, states: Any, training: bool = False) -> tuple[Tensor, list[Tensor]]:
        """One step: ``h_new, [h_new, c_new]``."""
        x = self._step_input(inputs)
        h_prev, c_prev = self._states(states, 2)
        if h_prev.shape[0] != x.shape[0]:
            raise ValueError(
                f'Layer "{self.name}": the states have batch size {h_prev.shape[0]} but the input has '
                f"{x.shape[0]} (input shape {tuple(x.shape)}, state shape {tuple(h_prev.shape)})"
            )
        dp, rdp = self._masks(training, x, h_prev)
        if dp is None and rdp is None:
            # No per-gate masks: one convolution for the four gates (the same numbers as four,
            # since each output channel only reads its own slice of the kernel).
            z = self._conv(self._to_last(x), self.kernel, False)
            if self.bias is not None:
                z = z + self.bias
            z = z + self._conv(self._to_last(h_prev), self.recurrent_kernel, True)
            z_i, z_f, z_c, z_o = _core.split(z, 4, axis=self.rank + 1)
        else:
            xs = [x * m for m in dp] if dp is not None else [x] * 4
            hs = [h_prev * m for m in rdp] if rdp is not None else [h_prev] * 4
            kernels = _core.split(self.kernel, 4, axis=self.rank + 1)
            recurrent = _core.split(self.recurrent_kernel, 4, axis=self.rank + 1)
            biases = _core.split(self.bias, 4, axis=0) if self.bias is not None else [None] * 4
            zs = []
            for xg, hg, k, rk, b in zip(xs, hs, kernels, recurrent, biases):
                zg = self._conv(self._to_last(xg), k, False)
                if b is not None:
                    zg = zg + b
                zs.append(zg + self._conv(self._to_last(hg), rk, True))
            z_i, z_f, z_c, z_o = zs
        i = self.recurrent_activation(z_i)
        f = self.recurrent_activation(z_f)
        c = f * self._to_last(c_prev) + i * self.activation(z_c)
        o = self.recurrent_activation(z_o)
        h = o * self.activation(c)
        h, c = self._from_last(h), self._from_last(c)
        return h, [h, c]

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """The step output's shape (also each state's)."""
        batch, spatial, _ = self._split_shape(input_shape)
        return self._join_shape(batch, self._out_spatial(spatial), self.filters)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for ``ConvLSTMCell`` (plus ``rank``, so that ``from_config`` works)."""
        return {**super().get_config(), "rank": self.rank, **_conv_config(self)}


def _conv_config(cell: _ConvLSTMCell) -> dict[str, Any]:
    return {
        "filters": cell.filters,
        "kernel_size": cell.kernel_size,
        "strides": cell.strides,
        "padding": cell.padding,
        "data_format": cell.data_format,
        "dilation_rate": cell.dilation_rate,
        "activation": _activation_name(cell.activation),
        "recurrent_activation": _activation_name(cell.recurrent_activation),
        "use_bias": cell.use_bias,
        "kernel_initializer": _initializer_config(cell.kernel_initializer),
        "recurrent_initializer": _initializer_config(cell.recurrent_initializer),
        "bias_initializer": _initializer_config(cell.bias_initializer),
        "unit_forget_bias": cell.unit_forget_bias,
        "kernel_regularizer": _serialized(cell.kernel_regularizer),
        "recurrent_regularizer": _serialized(cell.recurrent_regularizer),
        "bias_regularizer": _serialized(cell.bias_regularizer),
        "kernel_constraint": _serialized(cell.kernel_constraint),
        "recurrent_constraint": _serialized(cell.recurrent_constraint),
        "bias_constraint": _serialized(cell.bias_constraint),
        "dropout": cell.dropout,
        "recurrent_dropout": cell.recurrent_dropout,
        "seed": cell.seed,
    }


_CELL_ATTRS = frozenset((
    "filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate", "activation",
    "recurrent_activation", "use_bias", "kernel_initializer", "recurrent_initializer", "bias_initializer",
    "unit_forget_bias", "kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "kernel_constraint",
    "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout", "seed",
))  # fmt: skip


class _ConvLSTM(RNN):
    """The rank-generic ConvLSTM layer (Keras 3's ``ConvLSTM``): an :class:`RNN` over a convolutional
    LSTM cell; subclasses fix the rank."""

    _rank: int = 2

    def __init__(
        self,
        filters: int,
        kernel_size: int | Sequence[int],
        strides: int | Sequence[int] = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: int | Sequence[int] = 1,
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
        **kwargs: Any,
    ) -> None:
        cell = _ConvLSTMCell(
            self._rank, filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
            dilation_rate=dilation_rate, activation=activation, recurrent_activation=recurrent_activation,
            use_bias=use_bias, kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer, unit_forget_bias=unit_forget_bias,
            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint, dropout=dropout,
            recurrent_dropout=recurrent_dropout, seed=seed, name="conv_lstm_cell", dtype=kwargs.get("dtype"),
            trainable=kwargs.get("trainable", True),
        )  # fmt: skip
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, activity_regularizer=activity_regularizer,
                         **kwargs)  # fmt: skip

    def __getattr__(self, name: str) -> Any:
        # The cell's hyper-parameters read through the layer (layer.filters, layer.padding...), as in Keras.
        if name in _CELL_ATTRS and "cell" in self.__dict__:
            return getattr(self.__dict__["cell"], name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _check_sequences(self, shape: Sequence[Any]) -> tuple[Any, ...]:
        shape = tuple(shape)
        if len(shape) != self._rank + 3:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected ndim={self._rank + 3} '
                f"(batch, time, {'channels first, ' if self.cell.data_format == 'channels_first' else ''}"
                f"{self._rank} spatial axes{', channels' if self.cell.data_format == 'channels_last' else ''}), "
                f"found ndim={len(shape)}. Full shape received: {shape}"
            )
        return shape

    def build(self, sequences_shape: Any = None, initial_state_shape: Any = None) -> None:
        """Builds the cell for one step's input shape ``(batch, *spatial, channels)``."""
        shape = self._check_sequences(sequences_shape)
        if not self.cell.built:
            with self.cell._scope():
                self.cell.build((shape[0], *shape[2:]))
            self.cell.built = True
        self.built = True

    def call(self, sequences: Any, initial_state: Any = None, mask: Any = None, training: bool = False) -> Any:
        """The loop over time steps; returns the last output (or all of them), then ``h, c`` with
        ``return_state``."""
        if mask is not None:
            raise NotImplementedError("tapers.keras: masks (mask=...) are not implemented for recurrent layers")
        x = _as_tensor(sequences, self.compute_dtype)
        shape = self._check_sequences(x.shape)
        if shape[1] == 0:
            raise ValueError(f'Layer "{self.name}" received a sequence with no time steps: shape {shape}')
        if initial_state is None:
            states = self.cell.get_initial_state(shape[0])
        else:
            states = list(initial_state) if _is_nested(initial_state) else [initial_state]
            if len(states) != 2:
                raise ValueError(f'Layer "{self.name}" expects 2 initial state tensors [h, c], received {len(states)}.')
        steps = _core.unstack(x, axis=1)
        if self.go_backwards:
            steps = steps[::-1]
        outputs = []
        _reset_dropout_masks(self.cell)  # fresh masks for this sequence, shared by its steps
        try:
            for step in steps:
                output, states = _call_cell(self.cell, step, states, bool(training))
                if self.return_sequences:
                    outputs.append(output)
        finally:
            _reset_dropout_masks(self.cell)
        out = _core.stack(outputs, axis=1) if self.return_sequences else output
        if self.return_state:
            return (out, *states)
        return out

    def compute_output_shape(self, sequences_shape: Any, initial_state_shape: Any = None) -> Any:
        """``(batch, *state)`` or ``(batch, time, *state)``, then the two states' shapes with ``return_state``."""
        shape = self._check_sequences(sequences_shape)
        batch, steps = shape[0], shape[1]
        state = self.cell.compute_output_shape((batch, *shape[2:]))
        out = (batch, steps, *state[1:]) if self.return_sequences else state
        return (out, state, state) if self.return_state else out

    def compute_output_spec(self, *args: Any, **kwargs: Any) -> Any:
        """KerasTensors with the shapes of :meth:`compute_output_shape`."""
        return _specs(self.compute_output_shape(tuple(args[0].shape)), self.compute_dtype)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: the RNN options and the cell's arguments (no ``cell``)."""
        return {
            **self._base_config(),
            **_conv_config(self.cell),
            "activity_regularizer": _serialized(self.activity_regularizer),
        }

    @classmethod
    def from_config(cls, config: Any, custom_objects: Any = None) -> Layer:
        """``cls(**config)``."""
        return cls(**config)


_DOC = """{rank}-D convolutional LSTM (``keras.layers.ConvLSTM{rank}D``): an LSTM whose input and
    recurrent transformations are {rank}-D convolutions, over sequences of {what}.

    Input ``(batch, time, {spatial}, channels)`` (``(batch, time, channels, {spatial})`` with
    ``channels_first``; the spatial sizes must be known). Output ``(batch, {out})`` (the last
    step), ``(batch, time, {out})`` with ``return_sequences`` (``filters`` first in each frame with
    ``channels_first``), followed by the final ``h`` and ``c`` (each frame-shaped, as the last
    output) with ``return_state``; the spatial output sizes are those of the input convolution
    (``padding``, ``strides``, ``dilation_rate``). Weights ``conv_lstm{rank}d/conv_lstm_cell/kernel``
    ``({ks}, channels, 4 * filters)``, ``recurrent_kernel`` ``({ks}, filters, 4 * filters)`` and
    ``bias`` ``(4 * filters,)``, gates in Keras' order i, f, c, o. ``stateful=True`` and ``mask=``
    raise ``NotImplementedError``.

    Parameters
    ----------
    filters : int
        Channels of the output and of the states.
    kernel_size : int or tuple of {rank} ints
        Window of both convolutions.
    strides, dilation_rate : int or tuple of {rank} ints
        Of the input convolution (not both above 1); the recurrent one is stride 1, undilated.
    padding : {{"valid", "same"}}
        Of the input convolution; the recurrent one is always ``"same"``.
    data_format : {{"channels_last", "channels_first"}}, optional
        Layout of each frame; default ``"channels_last"``.
    activation, recurrent_activation : str or callable
        Defaults ``"tanh"`` and ``"sigmoid"`` (the gates').
    use_bias : bool
        Whether to add ``bias``.
    kernel_initializer, recurrent_initializer, bias_initializer : str or initializer
        Keras' defaults ``"glorot_uniform"``, ``"orthogonal"``, ``"zeros"``.
    unit_forget_bias : bool
        Start the forget gate's bias at 1 (Jozefowicz et al. 2015), Keras' default.
    kernel_regularizer, recurrent_regularizer, bias_regularizer, activity_regularizer : optional
        Penalties added to ``losses``.
    kernel_constraint, recurrent_constraint, bias_constraint : optional
        Projections applied after optimizer updates.
    dropout, recurrent_dropout : float
        Fractions of the inputs / of the previous output dropped while training: one mask per
        gate, drawn once per call and shared by all time steps (as Keras); no effect in inference
        or when the rate is 0 or 1.
    seed : int, optional
        Op-level seed of the dropout masks.
    return_sequences : bool
        Return the output of every step rather than the last one.
    return_state : bool
        Also return the final states: ``[output, h, c]``.
    go_backwards : bool
        Process the sequence backwards (with ``return_sequences``, the outputs come in that
        reversed order, as Keras).
    stateful : bool
        Only False is implemented.

    Returns
    -------
    Tensor or tuple of Tensor
        What calling the layer on ``(sequences, initial_state=None, training=False)`` gives:
        the output, then ``h`` and ``c`` with ``return_state``.
    """


class ConvLSTM1D(_ConvLSTM):
    __doc__ = _DOC.format(rank=1, what="1-D signals", spatial="steps", out="out_steps, filters", ks="k")
    _rank = 1


class ConvLSTM2D(_ConvLSTM):
    __doc__ = _DOC.format(rank=2, what="images (video frames)", spatial="rows, cols",
                          out="out_rows, out_cols, filters", ks="kh, kw")  # fmt: skip
    _rank = 2


class ConvLSTM3D(_ConvLSTM):
    __doc__ = _DOC.format(rank=3, what="volumes", spatial="d1, d2, d3", out="out_d1, out_d2, out_d3, filters",
                          ks="kd, kh, kw")  # fmt: skip
    _rank = 3
