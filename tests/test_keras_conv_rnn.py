"""tapers.keras' Conv3DTranspose and convolutional LSTM layers (ConvLSTM1D, ConvLSTM2D, ConvLSTM3D) against
Keras 3 (tests/data/keras_conv_rnn_reference.json, written by make_keras_conv_rnn_reference.py): names, weight
paths and shapes, config keys, output shapes (concrete and symbolic), forward values and gradients with the same
fixed weights (also with an initial state, and with dropout in training mode under fixed masks); plus float64
finite-difference gradient checks, tf.function, channels_first as channels_last transposed, training vs
inference, and clear errors for bad options and inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _keras_fixtures import fixed, path

import tapers as tf

keras = tf.keras
L = keras.layers

REF: dict[str, Any] = json.loads((Path(__file__).parent / "data" / "keras_conv_rnn_reference.json").read_text())
CASES: dict[str, Any] = REF["cases"]


@pytest.fixture(autouse=True)
def _fresh_names() -> None:
    keras.backend.clear_session()


def fixed_masks(shape: tuple[int, ...], k: int, rate: float) -> list[np.ndarray]:
    """The reference script's four fixed dropout masks."""
    return [((fixed(shape, k + g) > 0.5 * rate - 0.25) / (1.0 - rate)).astype(np.float32) for g in range(4)]


def _outs(y: Any) -> list[Any]:
    return list(y) if isinstance(y, (list, tuple)) else [y]


def _set_fixed(layer: Any, k: int = 1) -> None:
    """The reference script's weights: ``fixed(shape, k + i)`` for the i-th weight."""
    for i, w in enumerate(layer.weights):
        w.assign(fixed(tuple(w.shape), k + i))


def _run(case: str) -> tuple[Any, list[Any], list[Any]]:
    """Builds the case's layer with the reference weights and returns (layer, outputs, gradients)."""
    ref = CASES[case]
    shape, k = ref["input"]
    options = ref["options"]
    layer = eval(ref["src"], {"L": L})
    assert not layer.built
    xt = tf.constant(fixed(tuple(shape), k))
    layer(xt)
    assert layer.built
    _set_fixed(layer)
    kwargs: dict[str, Any] = {}
    sources = [xt]
    if options.get("initial_state"):
        state_shape = tuple(_outs(layer(xt))[-1].shape)
        states = [tf.constant(fixed(state_shape, 5 + i)) for i in range(2)]
        kwargs["initial_state"] = states
        sources += states
    if options.get("dropout_masks"):
        cell = layer.cell
        step = (shape[0], *shape[2:])
        state_shape = tuple(_outs(layer(xt))[0].shape)
        cell.get_dropout_mask = lambda _: [tf.constant(m) for m in fixed_masks(step, 20, cell.dropout)]
        cell.get_recurrent_dropout_mask = lambda _: [
            tf.constant(m) for m in fixed_masks(state_shape, 30, cell.recurrent_dropout)
        ]
        kwargs["training"] = True
    with tf.GradientTape() as tape:
        for s in sources:
            tape.watch(s)
        ys = _outs(layer(xt, **kwargs))
        loss = tf.add_n([tf.reduce_sum(y * fixed(tuple(y.shape), 9 + j)) for j, y in enumerate(ys)])
    grads = tape.gradient(loss, [*sources, *layer.trainable_weights])
    return layer, ys, grads


@pytest.mark.parametrize("case", sorted(CASES))
def test_layer_matches_keras(case: str) -> None:
    ref = CASES[case]
    layer, ys, grads = _run(case)
    assert type(layer).__name__ == ref["class"]
    assert layer.name == ref["name"]
    assert [[path(w), list(w.shape), w.trainable] for w in layer.weights] == ref["weights"]
    assert sorted(layer.get_config()) == ref["config_keys"]
    assert [list(y.shape) for y in ys] == ref["output_shapes"]
    for y, r in zip(ys, ref["outputs"]):
        assert y.dtype == tf.float32
        np.testing.assert_allclose(y.numpy(), r, rtol=1e-5, atol=1e-6)
    n = len(ref["grad_sources"])
    assert len(grads) == n + len(ref["grad_weights"])
    for g, r in zip(grads[:n], ref["grad_sources"]):
        np.testing.assert_allclose(g.numpy(), r, rtol=1e-5, atol=1e-5)
    for g, r in zip(grads[n:], ref["grad_weights"]):
        # Weight gradients sum over the batch, the positions and (recurrent layers) the time steps:
        # a few ulps of the larger sums, hence atol 1e-5.
        np.testing.assert_allclose(g.numpy(), r, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", sorted(CASES))
def test_symbolic_input_gives_keras_shape(case: str) -> None:
    ref = CASES[case]
    shape = ref["input"][0]
    layer = eval(ref["src"], {"L": L})
    out = _outs(layer(keras.Input(shape=tuple(shape[1:]))))
    assert [list(o.shape) for o in out] == ref["symbolic_shapes"]
    assert all(o.dtype == "float32" for o in out)
    assert [list(w.shape) for w in layer.weights] == [w[1] for w in ref["weights"]]
    expected = ref["symbolic_shapes"]
    got = layer.compute_output_shape((None, *shape[1:]))
    got = list(got) if isinstance(got[0], tuple) else [got]  # return_state gives one shape per output
    assert [list(s) for s in got] == expected
    if "symbolic_shapes_no_time" in ref:
        keras.backend.clear_session()
        out = _outs(eval(ref["src"], {"L": L})(keras.Input(shape=(None, *shape[2:]))))
        assert [list(o.shape) for o in out] == ref["symbolic_shapes_no_time"]


@pytest.mark.parametrize(
    "case", ["ct3_valid_output_padding", "ct3_same_strided", "cl1_dilated_backwards_seq", "cl2_initial_state",
             "cl2_strided_seq_state_backwards", "cl3_same_strided_seq"],
)  # fmt: skip
def test_channels_first_is_channels_last_transposed(case: str) -> None:
    # TensorFlow's CPU kernels reject channels_first convolutions, so Keras gives no reference on CPU;
    # the layer must compute exactly the channels-last numbers on transposed tensors, same weights.
    ref = CASES[case]
    src = ref["src"][:-1] + ", data_format='channels_first')"
    layer = eval(src, {"L": L})
    assert layer.get_config()["data_format"] == "channels_first"
    shape, k = ref["input"]
    x_last = fixed(tuple(shape), k)
    recurrent = case.startswith("cl")
    lead = 2 if recurrent else 1  # (batch, time) or (batch,) before the frame axes

    def to_first(a: np.ndarray) -> np.ndarray:
        return np.transpose(a, [*range(lead), a.ndim - 1, *range(lead, a.ndim - 1)])

    def state_first(a: np.ndarray) -> np.ndarray:
        return np.transpose(a, [0, a.ndim - 1, *range(1, a.ndim - 1)])

    xt = tf.constant(to_first(x_last))
    layer(xt)
    assert [w[1] for w in ref["weights"]] == [list(w.shape) for w in layer.weights]
    _set_fixed(layer)
    outs_last = [np.asarray(o, np.float32) for o in ref["outputs"]]
    # the first output has the layer's leading axes; states (return_state) are (batch, *frame).
    conv = [to_first if j == 0 else state_first for j in range(len(outs_last))]
    kwargs: dict[str, Any] = {}
    sources = [xt]
    if ref["options"].get("initial_state"):
        states = [tf.constant(state_first(fixed(tuple(outs_last[-1].shape), 5 + i))) for i in range(2)]
        kwargs["initial_state"] = states
        sources += states
    with tf.GradientTape() as tape:
        for s in sources:
            tape.watch(s)
        ys = _outs(layer(xt, **kwargs))
        loss = tf.add_n([tf.reduce_sum(y * c(fixed(o.shape, 9 + j))) for j, (y, o, c) in
                         enumerate(zip(ys, outs_last, conv))])  # fmt: skip
    grads = tape.gradient(loss, [*sources, *layer.trainable_weights])
    for y, o, c in zip(ys, outs_last, conv):
        np.testing.assert_allclose(y.numpy(), c(o), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grads[0].numpy(), to_first(np.asarray(ref["grad_sources"][0])), rtol=1e-5, atol=1e-5)
    for g, r in zip(grads[1 : len(sources)], ref["grad_sources"][1:]):
        np.testing.assert_allclose(g.numpy(), state_first(np.asarray(r)), rtol=1e-5, atol=1e-5)
    for g, r in zip(grads[len(sources) :], ref["grad_weights"]):
        np.testing.assert_allclose(g.numpy(), r, rtol=1e-5, atol=1e-5)
    sym_first = [list(c(np.zeros([1 if d is None else d for d in s])).shape) for s, c in
                 zip(ref["symbolic_shapes"], conv)]  # fmt: skip
    for s in sym_first:
        s[0] = None
    if recurrent and len(sym_first[0]) == len(shape):
        sym_first[0][1] = ref["symbolic_shapes"][0][1]
    keras.backend.clear_session()
    out = _outs(eval(src, {"L": L})(keras.Input(shape=tuple(xt.shape[1:]))))
    assert [list(o.shape) for o in out] == sym_first


# ------------------------------------------------------------------ tf.function and models


@pytest.mark.parametrize("case", ["ct3_same_output_padding", "cl1_state_backwards", "cl2_strided_seq_state_backwards",
                                  "cl3_valid"])  # fmt: skip
def test_tf_function_matches_eager(case: str) -> None:
    ref = CASES[case]
    layer, ys, _ = _run(case)
    x = tf.constant(fixed(tuple(ref["input"][0]), ref["input"][1]))

    @tf.function
    def step(inp: Any) -> Any:
        with tf.GradientTape() as tape:
            tape.watch(inp)
            outs = _outs(layer(inp))
            loss = tf.add_n([tf.reduce_sum(o * o) for o in outs])
        return outs, tape.gradient(loss, [inp, *layer.trainable_weights])

    outs, grads = step(x)
    for o, y in zip(outs, ys):
        np.testing.assert_allclose(o.numpy(), y.numpy(), rtol=1e-6, atol=1e-7)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.add_n([tf.reduce_sum(o * o) for o in _outs(layer(x))])
    eager = tape.gradient(loss, [x, *layer.trainable_weights])
    for g, e in zip(grads, eager):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-5, atol=1e-6)


def test_functional_model_with_conv_lstm_trains() -> None:
    inp = keras.Input(shape=(3, 4, 4, 1))
    h = L.ConvLSTM2D(2, 3, padding="same", return_sequences=True)(inp)
    h = L.ConvLSTM2D(2, 3, padding="same")(h)
    out = L.Conv2D(1, 1)(h)
    model = keras.Model(inp, out)
    assert tuple(model.output.shape) == (None, 4, 4, 1)
    for i, w in enumerate(model.weights):  # deterministic start (initializers are random)
        w.assign(0.5 * fixed(tuple(w.shape), i))
    x = fixed((4, 3, 4, 4, 1), 3)
    y = fixed((4, 4, 4, 1), 5)
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    hist = model.fit(x, y, epochs=3, batch_size=4, verbose=0, shuffle=False)
    assert hist.history["loss"][-1] < hist.history["loss"][0]


def test_sequential_conv3d_transpose_upsamples() -> None:
    model = keras.Sequential([keras.Input(shape=(2, 2, 2, 3)), L.Conv3DTranspose(2, 2, strides=2)])
    assert tuple(model.layers[-1].output.shape) == (None, 4, 4, 4, 2)
    assert model.predict(fixed((3, 2, 2, 2, 3), 1), verbose=0).shape == (3, 4, 4, 4, 2)


# ------------------------------------------------------------------ float64 finite differences

FD_CASES: dict[str, tuple[Any, tuple[int, ...]]] = {
    "ct3_same_output_padding": (lambda: L.Conv3DTranspose(1, 2, strides=2, padding="same", output_padding=1,
                                                          dtype="float64"), (1, 2, 2, 1, 2)),
    "ct3_dilated_channels_first": (lambda: L.Conv3DTranspose(2, 2, dilation_rate=(2, 1, 1),
                                                             data_format="channels_first", dtype="float64"),
                                   (1, 1, 2, 2, 1)),
    "cl1_strided_backwards_seq": (lambda: L.ConvLSTM1D(1, 2, strides=2, padding="same", go_backwards=True,
                                                       return_sequences=True, dtype="float64"), (1, 2, 3, 2)),
    "cl2_state": (lambda: L.ConvLSTM2D(1, 2, padding="same", return_state=True, dtype="float64"), (1, 2, 2, 2, 1)),
    "cl2_dilated_channels_first": (lambda: L.ConvLSTM2D(1, 2, dilation_rate=2, data_format="channels_first",
                                                        dtype="float64"), (1, 2, 1, 3, 3)),
    "cl3_valid": (lambda: L.ConvLSTM3D(1, 2, dtype="float64"), (1, 2, 2, 2, 2, 1)),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(FD_CASES))
def test_gradients_match_finite_differences(case: str) -> None:
    make, shape = FD_CASES[case]
    layer = make()
    x = fixed(shape, 2).astype(np.float64)
    layer(tf.constant(x))
    for i, w in enumerate(layer.weights):
        w.assign(fixed(tuple(w.shape), 3 + i).astype(np.float64))
    y0 = _outs(layer(tf.constant(x)))
    assert all(y.dtype == tf.float64 for y in y0)
    weights = [fixed(tuple(y.shape), 7 + j).astype(np.float64) for j, y in enumerate(y0)]

    def loss_at() -> Any:
        return tf.add_n([tf.reduce_sum(y * w) for y, w in zip(_outs(layer(xt)), weights)])

    xt = tf.Variable(x)
    with tf.GradientTape() as tape:
        loss = loss_at()
    params = [xt, *layer.trainable_weights]
    grads = tape.gradient(loss, params)
    eps = 1e-6
    for p, g in zip(params, grads):
        base = p.numpy().copy()
        num = np.zeros_like(base)
        for idx in np.ndindex(*base.shape):
            plus, minus = base.copy(), base.copy()
            plus[idx] += eps
            minus[idx] -= eps
            p.assign(plus)
            fp = float(loss_at())
            p.assign(minus)
            fm = float(loss_at())
            num[idx] = (fp - fm) / (2 * eps)
        p.assign(base)
        assert g is not None and np.any(num != 0), path(p)
        np.testing.assert_allclose(g.numpy(), num, rtol=1e-6, atol=1e-8, err_msg=path(p))


def test_conv3d_transpose_is_the_adjoint_of_conv3d() -> None:
    # <conv3d_transpose(y), x> == <y, conv3d(x)> with the same kernel, dilated and strided, both paddings.
    for kwargs, xshape in (
        (dict(kernel_size=(2, 3, 2), dilation_rate=(2, 1, 2), padding="same"), (2, 4, 5, 4, 2)),
        (dict(kernel_size=3, strides=(2, 1, 2)), (1, 5, 3, 5, 2)),
    ):
        conv = L.Conv3D(3, use_bias=False, **kwargs)
        x = tf.constant(fixed(xshape, 1))
        conv.build(xshape)
        conv.kernel.assign(fixed(tuple(conv.kernel.shape), 3))
        y = conv(x)
        tconv = L.Conv3DTranspose(2, use_bias=False, **kwargs)
        ydata = tf.constant(fixed(tuple(y.shape), 2))
        tconv.build(tuple(y.shape))
        tconv.kernel.assign(conv.kernel.numpy())
        back = tconv(ydata)
        assert tuple(back.shape) == xshape
        lhs = float(tf.reduce_sum(back * x))
        rhs = float(tf.reduce_sum(ydata * y))
        scale = float(tf.reduce_sum(tf.abs(ydata * y)))  # float32 sums: relative to the terms' size
        np.testing.assert_allclose(lhs, rhs, rtol=0, atol=1e-5 * scale)


# ------------------------------------------------------------------ training vs inference


def test_dropout_only_in_training() -> None:
    x = tf.constant(fixed((2, 3, 4, 4, 2), 1))
    plain = L.ConvLSTM2D(2, 3, padding="same")
    drop = L.ConvLSTM2D(2, 3, padding="same", dropout=0.4, recurrent_dropout=0.3, seed=3)
    plain(x)
    drop(x)
    _set_fixed(plain)
    _set_fixed(drop)
    ref = plain(x).numpy()
    np.testing.assert_allclose(drop(x).numpy(), ref, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(drop(x, training=False).numpy(), ref, rtol=1e-6, atol=1e-7)
    trained = drop(x, training=True).numpy()
    assert trained.shape == ref.shape and not np.allclose(trained, ref)
    # masks are reset after each call
    assert drop.cell._dropout_mask is None and drop.cell._recurrent_dropout_mask is None
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(drop(x, training=True))
    grads = tape.gradient(loss, drop.trainable_weights)
    assert all(g is not None and np.all(np.isfinite(g.numpy())) for g in grads)


def test_dropout_masks_are_shared_by_the_steps_and_per_gate() -> None:
    layer = L.ConvLSTM1D(2, 2, dropout=0.5, recurrent_dropout=0.5)
    x = tf.constant(fixed((2, 4, 5, 3), 1))
    layer(x)
    seen: list[Any] = []
    original = layer.cell.get_dropout_mask

    def spy(step: Any) -> Any:
        masks = original(step)
        seen.append(masks)
        return masks

    layer.cell.get_dropout_mask = spy
    layer(x, training=True)
    assert len(seen) == 4  # one lookup per step ...
    assert all(m is seen[0] for m in seen)  # ... of the same masks
    assert len(seen[0]) == 4 and tuple(seen[0][0].shape) == (2, 5, 3)
    values = np.unique(np.concatenate([m.numpy().ravel() for m in seen[0]]))
    np.testing.assert_allclose(values, [0.0, 2.0])


def test_rate_one_means_no_dropout_as_keras() -> None:
    x = tf.constant(fixed((1, 2, 4, 2), 1))
    a = L.ConvLSTM1D(2, 2, dropout=1.0)
    b = L.ConvLSTM1D(2, 2)
    a(x)
    b(x)
    _set_fixed(a)
    _set_fixed(b)
    np.testing.assert_allclose(a(x, training=True).numpy(), b(x).numpy(), rtol=1e-6)


# ------------------------------------------------------------------ weights, config, initializers


def test_conv_lstm_weights_config_and_round_trip() -> None:
    layer = L.ConvLSTM2D(3, (3, 2), strides=(1, 2), padding="same", unit_forget_bias=True, return_sequences=True,
                         kernel_regularizer="l2", seed=4)  # fmt: skip
    x = tf.constant(fixed((2, 2, 4, 6, 1), 0))
    y = layer(x)
    assert tuple(y.shape) == (2, 2, 4, 3, 3)
    assert layer.filters == 3 and layer.kernel_size == (3, 2) and layer.strides == (1, 2)
    assert layer.padding == "same" and layer.data_format == "channels_last" and layer.seed == 4
    np.testing.assert_array_equal(layer.cell.bias.numpy(), [0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    assert [path(w) for w in layer.trainable_weights] == [
        "conv_lstm2d/conv_lstm_cell/kernel", "conv_lstm2d/conv_lstm_cell/recurrent_kernel",
        "conv_lstm2d/conv_lstm_cell/bias",
    ]  # fmt: skip
    assert len(layer.losses) == 1
    config = layer.get_config()
    assert config["kernel_size"] == (3, 2) and config["return_sequences"] is True
    clone = L.ConvLSTM2D.from_config(config)
    clone(x)
    clone.set_weights(layer.get_weights())
    np.testing.assert_allclose(clone(x).numpy(), y.numpy(), rtol=1e-6)
    assert isinstance(layer, L.RNN)
    no_forget = L.ConvLSTM1D(2, 2, unit_forget_bias=False)
    no_forget(tf.constant(fixed((1, 2, 3, 1), 0)))
    np.testing.assert_array_equal(no_forget.cell.bias.numpy(), np.zeros(8))
    nobias = L.ConvLSTM3D(2, 1, use_bias=False)
    nobias(tf.constant(fixed((1, 2, 2, 2, 2, 1), 0)))
    assert [path(w).split("/")[-1] for w in nobias.weights] == ["kernel", "recurrent_kernel"]


def test_conv3d_transpose_config_round_trip() -> None:
    layer = L.Conv3DTranspose(2, (2, 3, 2), strides=(2, 1, 2), output_padding=(1, 0, 0), activation="relu")
    x = tf.constant(fixed((1, 2, 3, 2, 3), 0))
    y = layer(x)
    assert tuple(y.shape) == (1, 5, 5, 4, 2)
    assert tuple(layer.kernel.shape) == (2, 3, 2, 2, 3)
    clone = L.Conv3DTranspose.from_config(layer.get_config())
    clone(x)
    clone.set_weights(layer.get_weights())
    np.testing.assert_allclose(clone(x).numpy(), y.numpy(), rtol=1e-6)


# ------------------------------------------------------------------ bad options and inputs


def test_bad_options_raise() -> None:
    with pytest.raises(ValueError, match="filters"):
        L.ConvLSTM2D(0, 3)
    with pytest.raises(ValueError, match="strides > 1"):
        L.ConvLSTM2D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="padding"):
        L.ConvLSTM1D(2, 3, padding="causal")
    with pytest.raises(ValueError, match="kernel_size"):
        L.ConvLSTM3D(2, (3, 3))
    with pytest.raises(ValueError, match="data_format"):
        L.ConvLSTM2D(2, 3, data_format="nhwc")
    with pytest.raises(NotImplementedError, match="stateful"):
        L.ConvLSTM2D(2, 3, stateful=True)
    with pytest.raises(ValueError, match="output_padding"):
        L.Conv3DTranspose(2, 3, strides=2, output_padding=2)
    with pytest.raises(ValueError, match="filters"):
        L.Conv3DTranspose(0, 3)


def test_bad_inputs_raise_clear_errors() -> None:
    layer = L.ConvLSTM2D(2, 3)
    with pytest.raises(ValueError, match=r"expected ndim=5.*\(2, 5, 6, 2\)"):
        layer(fixed((2, 5, 6, 2), 0))
    with pytest.raises(ValueError, match="zero or negative"):
        L.ConvLSTM2D(2, 3)(fixed((1, 2, 2, 5, 1), 0))
    layer(fixed((1, 2, 5, 5, 2), 0))
    with pytest.raises(ValueError, match=r"\(None, 5, 5, 2\).*\(1, 5, 5, 3\)"):
        layer(fixed((1, 2, 5, 5, 3), 0))
    with pytest.raises(ValueError, match=r"\(None, 5, 5, 2\).*\(1, 6, 5, 2\)"):
        layer(fixed((1, 2, 6, 5, 2), 0))
    with pytest.raises(ValueError, match="2 initial state"):
        layer(fixed((1, 2, 5, 5, 2), 0), initial_state=[tf.zeros([1, 3, 3, 2])])
    with pytest.raises(ValueError, match=r"expected shape \(None, 3, 3, 2\), received \(1, 3, 4, 2\)"):
        layer(fixed((1, 2, 5, 5, 2), 0), initial_state=[tf.zeros([1, 3, 4, 2])] * 2)
    with pytest.raises(ValueError, match="no time steps"):
        layer(np.zeros((1, 0, 5, 5, 2), np.float32))
    with pytest.raises(ValueError, match="static input shapes"):
        L.ConvLSTM1D(2, 2)(keras.Input(shape=(3, None, 2)))
    with pytest.raises(NotImplementedError, match="mask"):
        layer(fixed((1, 2, 5, 5, 2), 0), mask=np.ones((1, 2), bool))
    tconv = L.Conv3DTranspose(2, 3)
    tconv(fixed((1, 2, 2, 2, 3), 0))
    with pytest.raises(ValueError, match=r"expected ndim=5.*\(1, 2, 2, 3\)"):
        tconv(fixed((1, 2, 2, 3), 0))
    with pytest.raises(ValueError, match=r"axis -1 of input shape to have value 3.*\(1, 2, 2, 2, 4\)"):
        tconv(fixed((1, 2, 2, 2, 4), 0))
