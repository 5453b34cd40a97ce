"""tapers.keras' extra convolution layers (Conv1D, Conv1DTranspose, Conv2DTranspose, DepthwiseConv1D,
DepthwiseConv2D, SeparableConv1D, SeparableConv2D) against Keras 3 (tests/data/keras_conv_extra_reference.json,
written by make_keras_conv_extra_reference.py): names, weight paths and shapes, config keys, output
shapes (concrete and symbolic), forward values and gradients with the same fixed weights; plus float64
finite-difference gradient checks, tf.function, and clear errors for bad options and inputs."""

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

REF: dict[str, Any] = json.loads((Path(__file__).parent / "data" / "keras_conv_extra_reference.json").read_text())
CASES: dict[str, Any] = REF["cases"]


@pytest.fixture(autouse=True)
def _fresh_names() -> None:
    keras.backend.clear_session()


def _make(case: str) -> tuple[Any, np.ndarray]:
    ref = CASES[case]
    shape, k = ref["input"]
    return eval(ref["src"], {"L": L}), fixed(tuple(shape), k)


def _set_fixed(layer: Any) -> None:
    """The reference script's weights: ``fixed(shape, 1 + i)`` for the i-th weight."""
    for i, w in enumerate(layer.weights):
        w.assign(fixed(tuple(w.shape), 1 + i))


@pytest.mark.parametrize("case", sorted(CASES))
def test_layer_matches_keras(case: str) -> None:
    ref = CASES[case]
    layer, x = _make(case)
    assert not layer.built
    xt = tf.constant(x)
    layer(xt)
    assert layer.built
    _set_fixed(layer)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = layer(xt)
        loss = tf.reduce_sum(y * fixed(tuple(y.shape), 9))
    grads = tape.gradient(loss, [xt, *layer.trainable_weights])
    assert type(layer).__name__ == ref["class"]
    assert layer.name == ref["name"]
    assert [[path(w), list(w.shape), w.trainable] for w in layer.weights] == ref["weights"]
    assert sorted(layer.get_config()) == ref["config_keys"]
    assert list(y.shape) == ref["output_shape"]
    assert list(layer.compute_output_shape((None, *x.shape[1:]))) == ref["symbolic_shape"]
    assert y.dtype == tf.float32
    np.testing.assert_allclose(y.numpy(), ref["output"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grads[0].numpy(), ref["grad_input"], rtol=1e-5, atol=1e-5)
    assert len(grads) - 1 == len(ref["grad_weights"])
    for g, r in zip(grads[1:], ref["grad_weights"]):
        # Weight gradients sum over the batch and every position: a few ulps of the larger sums.
        np.testing.assert_allclose(g.numpy(), r, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", sorted(CASES))
def test_symbolic_input_gives_keras_shape(case: str) -> None:
    layer, x = _make(case)
    out = layer(keras.Input(shape=x.shape[1:]))
    assert list(out.shape) == CASES[case]["symbolic_shape"]
    assert out.dtype == "float32"
    assert [list(w.shape) for w in layer.weights] == [w[1] for w in CASES[case]["weights"]]


def test_functional_model_with_the_layers_trains() -> None:
    inp = keras.Input(shape=(8, 2))
    h = L.Conv1D(4, 3, padding="causal", activation="relu")(inp)
    h = L.SeparableConv1D(3, 2, padding="same")(h)
    h = L.Conv1DTranspose(2, 2, strides=2)(h)
    model = keras.Model(inp, h)
    assert tuple(model.output.shape) == (None, 16, 2)
    x = fixed((4, 8, 2), 3)
    y = fixed((4, 16, 2), 5)
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    hist = model.fit(x, y, epochs=3, batch_size=4, verbose=0, shuffle=False)
    assert hist.history["loss"][-1] < hist.history["loss"][0]


# ------------------------------------------------------------------ float64 finite differences

FD_CASES: dict[str, tuple[Any, tuple[int, ...]]] = {
    "conv1d_causal_groups": (lambda: L.Conv1D(4, 2, padding="causal", dilation_rate=2, groups=2, dtype="float64"),
                             (1, 4, 2)),
    "conv1d_same_strided": (lambda: L.Conv1D(2, 3, strides=2, padding="same", activation="tanh", dtype="float64"),
                            (1, 5, 2)),
    "conv2dt_same_output_padding": (lambda: L.Conv2DTranspose(2, 3, strides=2, padding="same", output_padding=1,
                                                              dtype="float64"), (1, 2, 2, 2)),
    "conv2dt_dilated": (lambda: L.Conv2DTranspose(1, 2, dilation_rate=2, dtype="float64"), (1, 2, 2, 2)),
    "conv1dt_valid_strided": (lambda: L.Conv1DTranspose(2, 3, strides=2, dtype="float64"), (1, 3, 2)),
    "dw2d_dm2_strided": (lambda: L.DepthwiseConv2D(2, strides=2, padding="same", depth_multiplier=2,
                                                   dtype="float64"), (1, 3, 3, 2)),
    "dw1d_dilated": (lambda: L.DepthwiseConv1D(2, dilation_rate=2, dtype="float64"), (1, 5, 2)),
    "sep2d_same": (lambda: L.SeparableConv2D(2, 2, padding="same", depth_multiplier=2, dtype="float64"),
                   (1, 3, 3, 2)),
    "sep1d_strided": (lambda: L.SeparableConv1D(2, 2, strides=2, dtype="float64"), (1, 5, 2)),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(FD_CASES))
def test_gradients_match_finite_differences(case: str) -> None:
    make, shape = FD_CASES[case]
    layer = make()
    x = fixed(shape, 2).astype(np.float64)
    layer(tf.constant(x))
    for i, w in enumerate(layer.weights):
        w.assign(fixed(tuple(w.shape), 3 + i).astype(np.float64))
    y0 = layer(tf.constant(x))
    assert y0.dtype == tf.float64
    weight = fixed(tuple(y0.shape), 7).astype(np.float64)

    def loss_at() -> Any:
        return tf.reduce_sum(layer(xt) * weight)

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


@pytest.mark.parametrize(
    "case",
    ["conv1d_causal_dilated", "conv1d_groups", "conv2dt_valid_output_padding", "conv1dt_output_padding",
     "dw2d_same_strided_dm2", "dw1d_same_strided_dm2", "sep2d_same_strided_dm2", "sep1d_same_dilated_dm2"],
)  # fmt: skip
def test_channels_first_is_channels_last_transposed(case: str) -> None:
    # TensorFlow's CPU kernels reject channels_first, so Keras gives no reference on CPU; the layer
    # must compute exactly the channels-last numbers on transposed tensors, with the same weights.
    ref = CASES[case]
    src = ref["src"][:-1] + ", data_format='channels_first')"
    layer = eval(src, {"L": L})
    assert layer.get_config()["data_format"] == "channels_first"
    x_last = fixed(tuple(ref["input"][0]), ref["input"][1])
    rank = x_last.ndim - 2
    to_first = [0, rank + 1, *range(1, rank + 1)]
    xt = tf.constant(np.transpose(x_last, to_first))
    layer(xt)
    assert [w[1] for w in ref["weights"]] == [list(w.shape) for w in layer.weights]
    _set_fixed(layer)
    out_last = np.asarray(ref["output"], np.float32)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = layer(xt)
        loss = tf.reduce_sum(y * np.transpose(fixed(out_last.shape, 9), to_first))
    grads = tape.gradient(loss, [xt, *layer.trainable_weights])
    np.testing.assert_allclose(y.numpy(), np.transpose(out_last, to_first), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grads[0].numpy(), np.transpose(np.asarray(ref["grad_input"]), to_first), rtol=1e-5,
                               atol=1e-5)  # fmt: skip
    for g, r in zip(grads[1:], ref["grad_weights"]):
        np.testing.assert_allclose(g.numpy(), r, rtol=1e-5, atol=1e-5)
    sym_last = ref["symbolic_shape"]
    sym_first = [sym_last[0], sym_last[-1], *sym_last[1:-1]]
    assert list(layer.compute_output_shape((None, *xt.shape[1:]))) == sym_first
    keras.backend.clear_session()
    assert list(eval(src, {"L": L})(keras.Input(shape=tuple(xt.shape[1:]))).shape) == sym_first
    bad = (xt.shape[0], xt.shape[1] + 1, *xt.shape[2:])
    with pytest.raises(ValueError, match="axis 1 of input shape"):
        layer(fixed(bad, 0))


def test_conv_transpose_is_the_adjoint_of_conv() -> None:
    # TensorFlow's CPU kernels reject dilated transposed convolutions, so dilation is checked by the
    # definition instead: <conv_transpose(y), x> == <y, conv(x)> with the same kernel.
    for layer, xshape in (
        (L.Conv2DTranspose(3, (2, 3), dilation_rate=(2, 1), padding="same", use_bias=False), (2, 4, 5, 2)),
        (L.Conv2DTranspose(2, 3, dilation_rate=2, use_bias=False), (1, 3, 3, 2)),
        (L.Conv1DTranspose(2, 2, dilation_rate=3, padding="same", use_bias=False), (2, 5, 3)),
    ):
        y = tf.constant(fixed(xshape, 1))
        out = layer(y)
        _set_fixed(layer)
        out = layer(y)
        x = tf.constant(fixed(tuple(out.shape), 4))
        k = layer.kernel
        if layer.rank == 1:
            fwd = tf.nn.conv1d(x, k, stride=1, padding=layer.padding.upper(), dilations=layer.dilation_rate[0])
        else:
            fwd = tf.nn.conv2d(x, k, strides=1, padding=layer.padding.upper(), dilations=list(layer.dilation_rate))
        assert fwd.shape == y.shape
        np.testing.assert_allclose(float(tf.reduce_sum(out * x)), float(tf.reduce_sum(y * fwd)), rtol=1e-5)
        assert list(layer.compute_output_shape((None, *xshape[1:]))) == [None, *out.shape[1:]]


def test_causal_output_never_sees_the_future() -> None:
    layer = L.Conv1D(2, 3, padding="causal", dilation_rate=2)
    x = tf.constant(fixed((1, 9, 2), 3))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
        loss = tf.reduce_sum(y[:, 4])
    g = tape.gradient(loss, x).numpy()
    assert y.shape == (1, 9, 2)
    assert np.all(g[:, 5:] == 0) and np.any(g[:, :5] != 0)


@pytest.mark.parametrize("case", ["conv1d_groups", "conv2dt_valid_output_padding", "conv1dt_same_strided",
                                  "dw2d_same_strided_dm2", "sep1d_same_dilated_dm2"])  # fmt: skip
def test_inside_function_matches_eager(case: str) -> None:
    layer, x = _make(case)
    layer(x)
    _set_fixed(layer)

    @tf.function
    def f(v: Any) -> Any:
        with tf.GradientTape() as tape:
            tape.watch(v)
            y = layer(v)
            loss = tf.reduce_sum(y * y)
        return y, tape.gradient(loss, layer.trainable_weights[0])

    y, g = f(tf.constant(x))
    np.testing.assert_allclose(y.numpy(), CASES[case]["output"], rtol=1e-5, atol=1e-6)
    with tf.GradientTape() as tape:
        ye = layer(tf.constant(x))
        loss = tf.reduce_sum(ye * ye)
    np.testing.assert_allclose(g.numpy(), tape.gradient(loss, layer.trainable_weights[0]).numpy(), rtol=1e-5,
                               atol=1e-6)  # fmt: skip
    # No dropout or statistics here: training=True computes the same thing.
    np.testing.assert_allclose(layer(x, training=True).numpy(), ye.numpy())


def test_regularizers_constraints_and_config_values() -> None:
    layer = L.SeparableConv2D(2, 2, depthwise_regularizer=keras.regularizers.L2(0.1),
                              pointwise_regularizer=keras.regularizers.L1(0.01), bias_constraint="non_neg",
                              depthwise_initializer="ones", pointwise_initializer="zeros")  # fmt: skip
    layer(fixed((1, 3, 3, 2), 0))
    np.testing.assert_allclose(layer.depthwise_kernel.numpy(), np.ones((2, 2, 2, 1)))
    np.testing.assert_allclose(layer.pointwise_kernel.numpy(), np.zeros((1, 1, 2, 2)))
    assert len(layer.losses) == 2
    np.testing.assert_allclose(float(layer.losses[0]), 0.1 * 8, rtol=1e-6)
    assert layer.bias_constraint is not None
    cfg = L.Conv1D(3, 2, strides=2, padding="CAUSAL", groups=1).get_config()
    assert (cfg["filters"], cfg["kernel_size"], cfg["strides"], cfg["padding"], cfg["dilation_rate"]) == (
        3, (2,), (2,), "causal", (1,))  # fmt: skip
    cfg = L.Conv2DTranspose(2, 3, strides=2, output_padding=1).get_config()
    assert cfg["output_padding"] == (1, 1) and cfg["kernel_size"] == (3, 3)
    assert L.DepthwiseConv2D(3, depth_multiplier=2).get_config()["depth_multiplier"] == 2
    rebuilt = L.Conv1D.from_config(L.Conv1D(3, 2, padding="same", name="c").get_config())
    assert rebuilt.padding == "same" and rebuilt.name == "c"
    reg = L.Conv1D(2, 2, kernel_regularizer=keras.regularizers.L2(0.5), activity_regularizer="l2")
    reg(fixed((1, 4, 2), 1))
    assert len(reg.losses) == 2


def test_bad_options_raise_value_error() -> None:
    with pytest.raises(ValueError, match="strides > 1"):
        L.Conv1D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="strides > 1"):
        L.DepthwiseConv2D(3, strides=(1, 2), dilation_rate=(2, 1))
    with pytest.raises(ValueError, match="output_padding"):
        L.Conv2DTranspose(2, 3, strides=2, output_padding=2)
    with pytest.raises(ValueError, match="padding"):
        L.Conv2DTranspose(2, 3, padding="causal")
    with pytest.raises(ValueError, match="padding"):
        L.SeparableConv1D(2, 3, padding="full")
    with pytest.raises(ValueError, match="filters"):
        L.Conv1D(0, 3)
    with pytest.raises(ValueError, match="depth_multiplier"):
        L.DepthwiseConv2D(3, depth_multiplier=0)
    with pytest.raises(ValueError, match="kernel_size"):
        L.Conv1D(2, (3, 3))
    with pytest.raises(ValueError, match="kernel_size"):
        L.SeparableConv2D(2, 0)
    with pytest.raises(ValueError, match="groups"):
        L.Conv1D(3, 2, groups=2)
    with pytest.raises(ValueError, match="groups=2, but the input has 3 channels"):
        L.Conv1D(4, 2, groups=2)(fixed((1, 4, 3), 0))
    with pytest.raises(ValueError, match="data_format"):
        L.Conv1D(2, 3, data_format="NCW")


def test_bad_inputs_raise_value_error_naming_the_shapes() -> None:
    conv = L.Conv1D(2, 3)
    with pytest.raises(ValueError, match=r"expected ndim=3, found ndim=4"):
        conv(fixed((1, 4, 4, 2), 0))
    conv(fixed((1, 5, 2), 0))
    with pytest.raises(ValueError, match=r"axis -1 of input shape to have value 2.*\(1, 5, 3\)"):
        conv(fixed((1, 5, 3), 0))
    for layer, good, bad in (
        (L.Conv2DTranspose(2, 3), (1, 3, 3, 2), (1, 3, 3, 4)),
        (L.DepthwiseConv2D(2), (1, 3, 3, 2), (1, 3, 3)),
        (L.SeparableConv2D(2, 2), (1, 3, 3, 2), (1, 3, 3, 1)),
        (L.Conv1DTranspose(2, 2), (1, 3, 2), (1, 3, 5)),
        (L.DepthwiseConv1D(2), (1, 3, 2), (1, 3, 2, 2)),
    ):
        layer(fixed(good, 0))
        with pytest.raises(ValueError, match=r"incompatible with the layer"):
            layer(fixed(bad, 0))
    with pytest.raises(ValueError, match="expected ndim=4"):
        L.SeparableConv2D(2, 2)(keras.Input(shape=(5, 2)))


@pytest.mark.parametrize("case", ["conv1d_causal_strided", "conv1d_groups", "conv2dt_same_output_padding",
                                  "conv1dt_output_padding", "dw2d_dilated", "dw1d_valid", "sep2d_dilated_nobias",
                                  "sep1d_valid"])  # fmt: skip
def test_from_config_rebuilds_the_same_layer(case: str) -> None:
    layer, x = _make(case)
    layer(x)
    _set_fixed(layer)
    config = layer.get_config()
    keras.backend.clear_session()
    clone = type(layer).from_config(config)
    assert clone.get_config() == config
    clone(x)
    clone.set_weights(layer.get_weights())
    np.testing.assert_allclose(clone(x).numpy(), CASES[case]["output"], rtol=1e-5, atol=1e-6)


def test_unknown_spatial_sizes_stay_unknown() -> None:
    assert L.Conv1D(2, 3, strides=2, padding="causal")(keras.Input(shape=(None, 3))).shape == (None, None, 2)
    assert L.Conv2DTranspose(2, 3, strides=2)(keras.Input(shape=(None, 4, 3))).shape == (None, None, 9, 2)
    assert L.SeparableConv1D(4, 3, data_format="channels_first")(keras.Input(shape=(3, None))).shape == (
        None, 4, None)  # fmt: skip
    conv = L.Conv1D(2, 3, padding="same")
    assert conv(fixed((1, 5, 3), 0)).shape == (1, 5, 2)
    assert conv(fixed((2, 9, 3), 0)).shape == (2, 9, 2)
