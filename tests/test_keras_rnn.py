"""tapers.keras recurrent layers against Keras 3 (tests/data/keras_rnn_reference.json, written by
make_keras_rnn_reference.py): names, weight paths and shapes, config keys, forward values, output and
symbolic shapes, and gradients w.r.t. inputs, initial states and every weight, with weights set to the
same fixed values; plus float64 finite differences, tf.function, bad inputs and a small training run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _keras_fixtures import fixed, path

import tapers as tf

keras = tf.keras
L = keras.layers  # the reference's constructor sources are evaluated with this name
REF: dict[str, Any] = json.loads((Path(__file__).parent / "data" / "keras_rnn_reference.json").read_text())
RTOL, ATOL = 1e-5, 1e-6


@pytest.fixture(autouse=True)
def _fresh_names() -> None:
    keras.backend.clear_session()


def _initial(kind: str | None) -> list[Any] | None:
    if kind is None:
        return None
    return [tf.constant(fixed((2, 4), 20 + i)) for i in range(len(kind))]


def _flat(y: Any) -> list[Any]:
    return tf.nest.flatten(y)


def _set_fixed(layer: Any) -> None:
    for i, w in enumerate(layer.weights):
        w.assign(fixed(tuple(w.shape), 1 + i))


def _close(actual: Any, expected: Any) -> None:
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("case", sorted(REF["layers"]))
def test_layer_matches_keras(case: str) -> None:
    ref = REF["layers"][case]
    layer = eval(ref["src"])
    assert not layer.built
    x = tf.constant(fixed((2, 5, 3), 3))
    layer(x, initial_state=_initial(ref["initial_state"])) if ref["initial_state"] else layer(x)
    assert layer.built
    _set_fixed(layer)
    states = _initial(ref["initial_state"])
    watched = [x] + (states or [])
    with tf.GradientTape(persistent=True) as tape:
        for t in watched:
            tape.watch(t)
        y = layer(x, initial_state=states) if states is not None else layer(x)
        outs = _flat(y)
        loss = tf.add_n([tf.reduce_sum(o * fixed(tuple(o.shape), 10 + i)) for i, o in enumerate(outs)])
    assert type(layer).__name__ == ref["class"]
    assert layer.name == ref["name"]
    assert [[path(w), list(w.shape), w.trainable] for w in layer.weights] == ref["weights"]
    assert sorted(layer.get_config()) == ref["config_keys"]
    assert [list(o.shape) for o in outs] == ref["output_shapes"]
    for o, e in zip(outs, ref["outputs"]):
        assert o.dtype == tf.float32
        _close(o.numpy(), e)
    for g, e in zip(tape.gradient(loss, watched), ref["grad_inputs"]):
        _close(g.numpy(), e)
    grads = tape.gradient(loss, layer.weights)
    assert len(grads) == len(ref["grad_weights"])
    for g, e in zip(grads, ref["grad_weights"]):
        _close(g.numpy(), e)


@pytest.mark.parametrize("case", sorted(REF["layers"]))
def test_symbolic_call_gives_keras_shapes(case: str) -> None:
    ref = REF["layers"][case]
    for time, key in ((5, "symbolic_shapes"), (None, "symbolic_shapes_no_time")):
        keras.backend.clear_session()
        layer = eval(ref["src"])
        out = layer(keras.Input(shape=(time, 3)))
        assert [list(t.shape) for t in _flat(out)] == ref[key], (case, time)
        if not isinstance(out, (list, tuple)):
            assert list(layer.compute_output_shape((None, time, 3))) == ref[key][0]


@pytest.mark.parametrize("case", sorted(REF["cells"]))
def test_cell_matches_keras(case: str) -> None:
    ref = REF["cells"][case]
    cell = eval(ref["src"])
    x = tf.constant(fixed((2, 3), 5))
    cell(x, _initial(ref["initial_state"]))
    _set_fixed(cell)
    states = _initial(ref["initial_state"])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        for s in states:
            tape.watch(s)
        y, new_states = cell(x, states)
        outs = [y, *_flat(new_states)]
        loss = tf.add_n([tf.reduce_sum(o * fixed(tuple(o.shape), 10 + i)) for i, o in enumerate(outs)])
    assert type(cell).__name__ == ref["class"]
    assert cell.name == ref["name"]
    assert [[path(w), list(w.shape), w.trainable] for w in cell.weights] == ref["weights"]
    assert sorted(cell.get_config()) == ref["config_keys"]
    assert cell.state_size == ref["state_size"]
    assert cell.output_size == ref["output_size"]
    for o, e in zip(outs, ref["outputs"]):
        _close(o.numpy(), e)
    for g, e in zip(tape.gradient(loss, [x, *states]), ref["grad_inputs"]):
        _close(g.numpy(), e)
    for g, e in zip(tape.gradient(loss, cell.weights), ref["grad_weights"]):
        _close(g.numpy(), e)


def _finite_difference_check(layer: Any, x: np.ndarray, eps: float = 1e-6) -> None:
    """Central differences of loss = sum(out * fixed) w.r.t. the input and every weight, in float64."""
    xt = tf.constant(x)
    layer(xt)
    for i, w in enumerate(layer.weights):
        w.assign(fixed(tuple(w.shape), 1 + i).astype(np.float64))
    probe = None

    def loss_of(inp: Any) -> Any:
        nonlocal probe
        outs = _flat(layer(inp))
        if probe is None:
            probe = [fixed(tuple(o.shape), 10 + i).astype(np.float64) for i, o in enumerate(outs)]
        return tf.add_n([tf.reduce_sum(o * p) for o, p in zip(outs, probe)])

    with tf.GradientTape() as tape:
        tape.watch(xt)
        loss = loss_of(xt)
    g_x, *g_w = tape.gradient(loss, [xt, *layer.weights])
    assert loss.dtype == tf.float64
    num = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[idx] = eps
        num[idx] = (float(loss_of(tf.constant(x + d))) - float(loss_of(tf.constant(x - d)))) / (2 * eps)
    np.testing.assert_allclose(g_x.numpy(), num, rtol=1e-6, atol=1e-8)
    for w, g in zip(layer.weights, g_w):
        base = w.numpy()
        num = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            d = np.zeros_like(base)
            d[idx] = eps
            w.assign(base + d)
            up = float(loss_of(xt))
            w.assign(base - d)
            down = float(loss_of(xt))
            num[idx] = (up - down) / (2 * eps)
        w.assign(base)
        np.testing.assert_allclose(g.numpy(), num, rtol=1e-6, atol=1e-8, err_msg=path(w))


@pytest.mark.parametrize(
    "make",
    [
        lambda: L.LSTM(2, return_sequences=True, return_state=True, dtype="float64"),
        lambda: L.GRU(2, return_state=True, go_backwards=True, dtype="float64"),
        lambda: L.GRU(2, reset_after=False, return_sequences=True, dtype="float64"),
        lambda: L.SimpleRNN(2, return_sequences=True, dtype="float64"),
    ],
    ids=["lstm", "gru", "gru_reset_before", "simple_rnn"],
)
def test_float64_finite_differences(make: Any) -> None:
    _finite_difference_check(make(), fixed((2, 3, 2), 4).astype(np.float64))


@pytest.mark.parametrize("src", [
    "L.LSTM(4, return_sequences=True, return_state=True)",
    "L.GRU(4, go_backwards=True)",
    "L.Bidirectional(L.LSTM(4, return_sequences=True))",
    "L.RNN([L.GRUCell(3), L.LSTMCell(2)], return_state=True)",
])  # fmt: skip
def test_tf_function_matches_eager_and_trains(src: str) -> None:
    layer = eval(src)
    x = tf.constant(fixed((2, 5, 3), 3))
    eager = _flat(layer(x))

    @tf.function
    def step(inp: Any) -> Any:
        with tf.GradientTape() as tape:
            outs = _flat(layer(inp))
            loss = tf.add_n([tf.reduce_sum(o * o) for o in outs])
        return outs, tape.gradient(loss, layer.trainable_weights)

    traced, grads = step(x)
    for a, b in zip(traced, eager):
        _close(a.numpy(), b.numpy())
    with tf.GradientTape() as tape:
        loss = tf.add_n([tf.reduce_sum(o * o) for o in _flat(layer(x))])
    for a, b in zip(grads, tape.gradient(loss, layer.trainable_weights)):
        _close(a.numpy(), b.numpy())


def test_training_flag_without_dropout_does_not_change_outputs() -> None:
    layer = L.LSTM(3, return_sequences=True)
    x = fixed((2, 4, 3), 1)
    _close(layer(x, training=True).numpy(), layer(x, training=False).numpy())


@pytest.mark.parametrize(("src", "plain_src"), [
    ("L.LSTM(4, dropout=0.5, return_sequences=True)", "L.LSTM(4, return_sequences=True)"),
    ("L.LSTM(4, dropout=0.4, recurrent_dropout=0.3, return_sequences=True)", "L.LSTM(4, return_sequences=True)"),
    ("L.GRU(4, dropout=0.5, recurrent_dropout=0.5, return_sequences=True)", "L.GRU(4, return_sequences=True)"),
    ("L.GRU(4, recurrent_dropout=0.5, reset_after=False, return_sequences=True)",
     "L.GRU(4, reset_after=False, return_sequences=True)"),
    ("L.SimpleRNN(4, dropout=0.5, recurrent_dropout=0.5, return_sequences=True)",
     "L.SimpleRNN(4, return_sequences=True)"),
    ("L.Bidirectional(L.GRU(4, dropout=0.5, return_sequences=True))",
     "L.Bidirectional(L.GRU(4, return_sequences=True))"),
])  # fmt: skip
def test_dropout_only_while_training(src: str, plain_src: str) -> None:
    # Inference equals the same layer without dropout (also for LSTM/GRU's per-gate path that Keras
    # uses with recurrent_dropout); training differs, and gradients flow, also in tf.function.
    layer, plain = eval(src), eval(plain_src)
    x = fixed((3, 5, 3), 3)
    y = layer(x)
    plain(x)
    plain.set_weights(layer.get_weights())
    _close(y.numpy(), plain(x).numpy())
    _close(layer(x, training=False).numpy(), y.numpy())
    with tf.GradientTape() as tape:
        train = layer(x, training=True)
        loss = tf.reduce_sum(train * train)
    assert not np.allclose(train.numpy(), y.numpy())
    grads = tape.gradient(loss, layer.trainable_weights)
    assert all(g is not None and np.isfinite(g.numpy()).all() for g in grads)
    traced = tf.function(lambda inp: layer(inp, training=True))(tf.constant(x))
    assert traced.shape == y.shape and not np.allclose(traced.numpy(), y.numpy())


def test_dropout_masks_are_shared_by_the_time_steps() -> None:
    # kernel = I, recurrent_kernel = 0, linear: each output is the input step times the input mask.
    layer = L.SimpleRNN(6, dropout=0.5, activation=None, use_bias=False, return_sequences=True)
    x = np.ones((4, 3, 6), np.float32)
    layer(x)
    layer.set_weights([np.eye(6, dtype=np.float32), np.zeros((6, 6), np.float32)])
    y = layer(x, training=True).numpy()
    assert set(np.unique(y)) == {0.0, 2.0}
    _close(y[:, 1], y[:, 0])
    _close(y[:, 2], y[:, 0])
    # kernel = 0, recurrent_kernel = I, h0 = 1: h_t = mask ** t for the recurrent mask.
    layer = L.SimpleRNN(6, recurrent_dropout=0.5, activation=None, use_bias=False, return_sequences=True)
    layer(x)
    layer.set_weights([np.zeros((6, 6), np.float32), np.eye(6, dtype=np.float32)])
    y = layer(x, initial_state=np.ones((4, 6), np.float32), training=True).numpy()
    assert set(np.unique(y[:, 0])) == {0.0, 2.0}
    _close(y[:, 1], y[:, 0] ** 2)
    # A new call draws new masks.
    draws = {layer(x, initial_state=np.ones((4, 6), np.float32), training=True).numpy().tobytes() for _ in range(4)}
    assert len(draws) > 1


def test_initial_state_changes_the_result_and_defaults_to_zeros() -> None:
    layer = L.GRU(4)
    x = fixed((2, 5, 3), 3)
    zeros = layer(x, initial_state=[np.zeros((2, 4), np.float32)])
    _close(layer(x).numpy(), zeros.numpy())
    assert not np.allclose(layer(x, initial_state=fixed((2, 4), 1)).numpy(), zeros.numpy())


def test_unit_forget_bias_and_initial_weights() -> None:
    layer = L.LSTM(3)
    layer(fixed((1, 2, 4)))
    bias = layer.cell.bias.numpy()
    np.testing.assert_array_equal(bias, np.r_[np.zeros(3), np.ones(3), np.zeros(6)])
    assert layer.units == 3 and layer.cell.recurrent_kernel.shape == (3, 12)
    rk = layer.cell.recurrent_kernel.numpy()
    np.testing.assert_allclose(rk @ rk.T, np.eye(3), atol=1e-5)  # orthogonal rows (3 x 12)
    assert L.GRU(2, use_bias=True)(fixed((1, 2, 4))) is not None


def test_config_round_trip() -> None:
    x = fixed((2, 5, 3), 3)
    for layer in (
        L.LSTM(4, return_sequences=True, activation="relu"),
        L.GRU(3, reset_after=False, go_backwards=True),
        L.SimpleRNN(2, return_state=True),
        L.RNN([L.GRUCell(3), L.LSTMCell(2)]),
        L.Bidirectional(L.GRU(3, return_sequences=True), merge_mode="ave"),
    ):
        y = _flat(layer(x))
        clone = type(layer).from_config(layer.get_config())
        _flat(clone(x))
        clone.set_weights(layer.get_weights())
        for a, b in zip(_flat(clone(x)), y):
            _close(a.numpy(), b.numpy())


def test_bidirectional_weights_argument_and_backward_layer() -> None:
    x = fixed((2, 5, 3), 3)
    ref = L.Bidirectional(L.SimpleRNN(2))
    y = ref(x)
    again = L.Bidirectional(L.SimpleRNN(2), weights=ref.get_weights())
    _close(again(x).numpy(), y.numpy())
    custom = L.Bidirectional(L.LSTM(2), backward_layer=L.GRU(3, go_backwards=True))
    assert custom(x).shape == (2, 5)
    with pytest.raises(ValueError, match="go_backwards"):
        L.Bidirectional(L.LSTM(2), backward_layer=L.LSTM(2))
    with pytest.raises(ValueError, match="merge mode"):
        L.Bidirectional(L.LSTM(2), merge_mode="max")


def test_bad_inputs_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match="expected ndim=3"):
        L.LSTM(2)(fixed((2, 3)))
    layer = L.GRU(2)
    layer(fixed((2, 4, 3)))
    with pytest.raises(ValueError, match=r"\(batch, 3\).*\(2, 5\)"):
        layer(fixed((2, 4, 5)))
    with pytest.raises(ValueError, match="initial state"):
        L.LSTM(2)(fixed((2, 4, 3)), initial_state=[fixed((2, 2))])
    with pytest.raises(ValueError, match=r"expected shape \(batch, 2\)"):
        L.LSTM(2)(fixed((2, 4, 3)), initial_state=[fixed((2, 3)), fixed((2, 3))])
    with pytest.raises(ValueError, match="units"):
        L.LSTM(0)
    with pytest.raises(NotImplementedError, match="stateful"):
        L.SimpleRNN(2, stateful=True)
    L.LSTM(2)(fixed((2, 4, 3)), mask=np.ones((2, 4), bool))  # masks are supported (test_keras_masking.py)
    with pytest.raises(ValueError, match="mask"):
        L.LSTM(2)(fixed((2, 4, 3)), mask=np.ones((2, 5), bool))


def test_sequential_embedding_lstm_dense_trains() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(1, 10, size=(32, 6)).astype(np.int32)
    y = (x[:, :3].sum(axis=1) > x[:, 3:].sum(axis=1)).astype(np.float32)[:, None]
    model = keras.Sequential([L.Embedding(10, 4), L.LSTM(8), L.Dense(1, activation="sigmoid")])
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="binary_crossentropy")
    history = model.fit(x, y, epochs=8, batch_size=16, verbose=0, shuffle=False)
    losses = history.history["loss"]
    assert losses[-1] < 0.8 * losses[0], losses
    assert model.predict(x[:2], verbose=0).shape == (2, 1)


def test_functional_encoder_decoder_with_initial_state() -> None:
    # The seq2seq pattern: the encoder's final states start the decoder (time dimension unknown).
    enc_in = keras.Input(shape=(None, 3))
    _, h, c = L.LSTM(4, return_state=True)(enc_in)
    dec_in = keras.Input(shape=(None, 2))
    dec = L.LSTM(4, return_sequences=True)(dec_in, initial_state=[h, c])
    model = keras.Model([enc_in, dec_in], L.Dense(2)(dec))
    assert list(model.output.shape) == [None, None, 2]
    enc_x, dec_x = fixed((2, 5, 3), 1), fixed((2, 7, 2), 2)
    y = model([enc_x, dec_x])
    assert y.shape == (2, 7, 2)
    encoder, decoder, dense = model.layers[2], model.layers[3], model.layers[4]
    _, h0, c0 = encoder(enc_x)
    _close(y.numpy(), dense(decoder(dec_x, initial_state=[h0, c0])).numpy())


class MinimalRNNCell(L.Layer):
    """Keras' documented custom cell: ``h = x @ kernel + h_prev @ recurrent_kernel``.

    Parameters
    ----------
    units : int
        State size.
    """

    def __init__(self, units: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape: Any) -> None:
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), initializer="uniform", name="kernel")
        self.recurrent_kernel = self.add_weight(shape=(self.units, self.units), initializer="uniform",
                                                name="recurrent_kernel")  # fmt: skip

    def call(self, inputs: Any, states: Any) -> Any:
        output = tf.matmul(inputs, self.kernel) + tf.matmul(states[0], self.recurrent_kernel)
        return output, [output]


def test_rnn_over_a_custom_cell() -> None:
    layer = L.RNN(MinimalRNNCell(3), return_sequences=True)
    assert list(layer(keras.Input((None, 2))).shape) == [None, None, 3]
    assert [path(w) for w in layer.weights] == ["rnn/minimal_rnn_cell/kernel", "rnn/minimal_rnn_cell/recurrent_kernel"]
    k, rk = fixed((2, 3), 1), fixed((3, 3), 2)
    layer.set_weights([k, rk])
    x = fixed((2, 4, 2), 3)
    h = np.zeros((2, 3), np.float32)
    expected = []
    for t in range(4):
        h = x[:, t] @ k + h @ rk
        expected.append(h)
    x_t = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x_t)
        y = layer(x_t)
        loss = tf.reduce_sum(y)
    _close(y.numpy(), np.stack(expected, 1))
    assert tape.gradient(loss, x_t).shape == (2, 4, 2)
    stacked = L.RNN([MinimalRNNCell(3), L.LSTMCell(2)], return_state=True)
    out, s1, (h2, c2) = stacked(x)
    assert out.shape == h2.shape == c2.shape == (2, 2) and s1.shape == (2, 3)
    # A flat list of initial states is regrouped per cell.
    again = stacked(x, initial_state=[s1, h2, c2])
    assert again[0].shape == (2, 2)
