"""tapers.keras activation, noise and regularization layers against Keras 3
(tests/data/keras_activation_layers_reference.json, written by make_keras_activation_layers_reference.py):
names, weight paths and shapes, config keys and values, forward values with weights set from the same
fixed values, symbolic output shapes, losses and gradients; plus float64 finite-difference gradients,
tf.function against eager, the training behaviour of the random layers (checked statistically: their
samples come from tapers' own random streams) and clear errors for bad inputs."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _keras_fixtures import fixed, path

import tapers as tf

keras = tf.keras
L = keras.layers
REF: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "keras_activation_layers_reference.json").read_text()
)["cases"]
RTOL, ATOL = 1e-5, 1e-6


@pytest.fixture(autouse=True)
def _fresh_names() -> None:
    keras.backend.clear_session()


def _input(ref: dict[str, Any]) -> np.ndarray:
    shape = tuple(ref["shape"])
    if ref["dtype"] == "int32":
        return np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape) * 37 % 256
    return fixed(shape, ref["k"])


def _make(expr: str) -> Any:
    return eval(expr, {"L": L})  # noqa: S307 - the reference's fixed constructor expressions


def _close(actual: Any, expected: Any, rtol: float = RTOL, atol: float = ATOL) -> None:
    np.testing.assert_allclose(np.asarray(actual, np.float64), np.asarray(expected, np.float64), rtol=rtol, atol=atol)


# ----------------------------------------------------------------------------- parity with Keras


@pytest.mark.parametrize("case", sorted(REF))
def test_layer_matches_keras(case: str) -> None:
    ref = REF[case]
    layer = _make(ref["expr"])
    x = _input(ref)
    kwargs = {} if ref["mask"] is None else {"mask": tf.constant(np.asarray(ref["mask"]))}
    layer(x, **kwargs)
    for i, w in enumerate(layer.weights):
        w.assign(fixed(tuple(w.shape), 1 + i))
    xt = tf.constant(x)
    float_input = ref["dtype"] != "int32"
    with tf.GradientTape() as tape:
        if float_input:
            tape.watch(xt)
        y = layer(xt, **kwargs)
        loss = tf.reduce_sum(y * fixed(tuple(y.shape), 5))
    assert type(layer).__name__ == ref["class"]
    assert layer.name == ref["name"]
    assert [[path(w), list(w.shape), w.trainable] for w in layer.weights] == ref["weights"]
    config = layer.get_config()
    assert sorted(config) == ref["config_keys"]
    for key, value in ref["config"].items():
        got = list(config[key]) if isinstance(config[key], tuple) else config[key]
        assert got == value, (key, got, value)
    assert y.dtype.name == ref["output_dtype"]
    _close(y.numpy(), ref["output"])
    _close([float(v) for v in layer.losses], ref["losses"])
    sources = ([xt] if float_input else []) + list(layer.trainable_weights)
    grads = tape.gradient(loss, sources)
    if float_input:
        _close(grads[0].numpy(), ref["grad_x"])
    assert len(grads) - int(float_input) == len(ref["grad_w"])
    for g, expected in zip(grads[int(float_input) :], ref["grad_w"]):
        _close(g.numpy(), expected)
    # A functional call on keras.Input with an unknown batch dimension.
    keras.backend.clear_session()
    sym = _make(ref["expr"])
    out = sym(keras.Input(shape=tuple(ref["shape"][1:]), dtype=ref["dtype"]))
    assert list(out.shape) == ref["symbolic_shape"]


def test_exported() -> None:
    names = ["ActivityRegularization", "AlphaDropout", "ELU", "GaussianDropout", "GaussianNoise", "Lambda",
             "LeakyReLU", "PReLU", "Rescaling", "Softmax", "SpatialDropout1D", "SpatialDropout2D",
             "UnitNormalization"]  # fmt: skip
    for name in names:
        assert name in L.__all__
        assert getattr(tf.keras.layers, name).__name__ == name


# ----------------------------------------------------------------------------- gradients


def _numeric_grad(f: Any, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    g = np.zeros_like(x)
    flat, gflat = x.reshape(-1), g.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + h
        up = f(x)
        flat[i] = old - h
        down = f(x)
        flat[i] = old
        gflat[i] = (up - down) / (2 * h)
    return g


FD_CASES = {
    "leaky": (lambda: L.LeakyReLU(negative_slope=0.2, dtype="float64"), (2, 4), {}),
    "elu": (lambda: L.ELU(alpha=0.7, dtype="float64"), (2, 4), {}),
    "prelu": (lambda: L.PReLU(dtype="float64"), (2, 3, 2), {}),
    "prelu_shared": (lambda: L.PReLU(shared_axes=[1], dtype="float64"), (2, 3, 2), {}),
    "softmax": (lambda: L.Softmax(axis=1, dtype="float64"), (2, 3, 2), {}),
    "softmax_axes": (lambda: L.Softmax(axis=[1, 2], dtype="float64"), (2, 3, 2), {}),
    "softmax_mask": (lambda: L.Softmax(dtype="float64"), (2, 4), {"mask": np.array([[True, False, True, True]])}),
    "rescaling": (lambda: L.Rescaling([0.5, -2.0], offset=0.3, dtype="float64"), (3, 2), {}),
    "unitnorm": (lambda: L.UnitNormalization(dtype="float64"), (2, 4), {}),
    "unitnorm_axes": (lambda: L.UnitNormalization(axis=[1, 2], dtype="float64"), (2, 2, 3), {}),
    "lambda": (lambda: L.Lambda(lambda t: t * t + 1.0, dtype="float64"), (2, 3), {}),
}


@pytest.mark.parametrize("case", sorted(FD_CASES))
def test_finite_difference_gradients(case: str) -> None:
    make, shape, kwargs = FD_CASES[case]
    layer = make()
    x0 = fixed(shape, 1).astype(np.float64) * 2.0 + 0.05  # away from ReLU kinks (no exact zeros)
    layer(x0, **kwargs)
    for i, w in enumerate(layer.weights):
        w.assign(fixed(tuple(w.shape), 2 + i).astype(np.float64))
    weight = fixed(shape, 7).astype(np.float64)

    def f(x: np.ndarray) -> float:
        return float(tf.reduce_sum(layer(tf.constant(x), **kwargs) * weight).numpy())

    xt = tf.constant(x0)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        loss = tf.reduce_sum(layer(xt, **kwargs) * weight)
    grads = tape.gradient(loss, [xt, *layer.trainable_weights])
    _close(grads[0].numpy(), _numeric_grad(f, x0.copy()), rtol=1e-6, atol=1e-8)
    for w, g in zip(layer.trainable_weights, grads[1:]):
        w0 = w.numpy().copy()

        def fw(v: np.ndarray, w: Any = w) -> float:
            w.assign(v)
            return f(x0)

        numeric = _numeric_grad(fw, w0.copy())
        w.assign(w0)
        _close(g.numpy(), numeric, rtol=1e-6, atol=1e-8)


def test_activity_regularization_gradient_float64() -> None:
    layer = L.ActivityRegularization(l1=0.01, l2=0.3, dtype="float64")
    x0 = fixed((2, 3), 1).astype(np.float64) + 0.05

    def f(x: np.ndarray) -> float:
        layer(tf.constant(x))
        return float(layer.losses[0].numpy())

    xt = tf.constant(x0)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        layer(xt)
        loss = layer.losses[0]
    _close(loss.numpy(), (0.01 * np.abs(x0).sum() + 0.3 * np.square(x0).sum()) / 2, rtol=1e-12)
    _close(tape.gradient(loss, xt).numpy(), _numeric_grad(f, x0.copy()), rtol=1e-6, atol=1e-8)


# ----------------------------------------------------------------------------- tf.function


@pytest.mark.parametrize(
    "case", ["prelu_shared", "softmax_axes", "softmax_mask_float_bcast", "unitnorm_axes", "rescaling_channels",
             "leaky_slope", "elu_alpha", "activity_reg", "lambda_arguments", "spatial2d_inference"]
)  # fmt: skip
def test_tf_function_matches_eager(case: str) -> None:
    ref = REF[case]
    layer = _make(ref["expr"])
    x = tf.constant(_input(ref))
    kwargs = {} if ref["mask"] is None else {"mask": tf.constant(np.asarray(ref["mask"]))}
    layer(x, **kwargs)
    for i, w in enumerate(layer.weights):
        w.assign(fixed(tuple(w.shape), 1 + i))
    eager = layer(x, **kwargs).numpy()
    eager_losses = [v.numpy() for v in layer.losses]
    graph = tf.function(lambda t: layer(t, **kwargs))(x)
    _close(graph.numpy(), eager, rtol=1e-6, atol=1e-7)
    _close([v.numpy() for v in layer.losses], eager_losses, rtol=1e-6)
    _close(eager, ref["output"])


def test_random_layers_train_in_tf_function() -> None:
    layer = L.SpatialDropout1D(0.5, seed=4)
    x = tf.constant(np.ones((4, 5, 16), np.float32))

    @tf.function
    def step(t: Any) -> Any:
        with tf.GradientTape() as tape:
            tape.watch(t)
            y = layer(t, training=True)
            loss = tf.reduce_sum(y)
        return y, tape.gradient(loss, t)

    y, g = step(x)
    y = y.numpy()
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert (y == y[:, :1, :]).all()
    np.testing.assert_array_equal(g.numpy(), y)


# ----------------------------------------------------------------------------- training behaviour


def test_noise_layers_are_identity_in_inference() -> None:
    x = fixed((4, 3, 3, 2), 3)
    for layer in [L.GaussianNoise(0.5), L.GaussianDropout(0.5), L.AlphaDropout(0.5), L.SpatialDropout2D(0.5),
                  L.SpatialDropout2D(0.5, data_format="channels_first")]:  # fmt: skip
        np.testing.assert_array_equal(layer(x).numpy(), x)
        np.testing.assert_array_equal(layer(x, training=False).numpy(), x)
    np.testing.assert_array_equal(L.SpatialDropout1D(0.5)(x[:, 0], training=False).numpy(), x[:, 0])


def test_gaussian_noise_statistics() -> None:
    tf.random.set_seed(7)
    layer = L.GaussianNoise(0.2, seed=11)
    x = tf.constant(np.full((200, 500), 3.0, np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x, training=True)
    noise = y.numpy() - 3.0
    assert abs(noise.mean()) < 0.003
    assert abs(noise.std() - 0.2) < 0.003
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), np.ones((200, 500), np.float32))
    # Each training call draws new noise; stddev 0 is the identity.
    assert not np.array_equal(layer(x, training=True).numpy(), y.numpy())
    np.testing.assert_array_equal(L.GaussianNoise(0.0)(x, training=True).numpy(), x.numpy())


def test_gaussian_dropout_statistics() -> None:
    tf.random.set_seed(7)
    rate = 0.3
    layer = L.GaussianDropout(rate, seed=5)
    x = tf.constant(np.full((200, 500), 2.0, np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x, training=True)
    noise = y.numpy() / 2.0
    assert abs(noise.mean() - 1.0) < 0.005
    assert abs(noise.std() - math.sqrt(rate / (1 - rate))) < 0.005
    _close(tape.gradient(y, x).numpy(), noise, rtol=1e-6)
    np.testing.assert_array_equal(L.GaussianDropout(1.0)(x, training=True).numpy(), np.zeros((200, 500)))


@pytest.mark.parametrize(
    ("make", "shape", "channel_axis"),
    [
        (lambda: L.SpatialDropout1D(0.4, seed=2), (16, 6, 40), 2),
        (lambda: L.SpatialDropout2D(0.4, seed=2), (16, 3, 4, 40), 3),
        (lambda: L.SpatialDropout2D(0.4, data_format="channels_first", seed=2), (16, 40, 3, 4), 1),
    ],
)
def test_spatial_dropout_drops_whole_channels(make: Any, shape: tuple[int, ...], channel_axis: int) -> None:
    tf.random.set_seed(3)
    layer = make()
    x0 = np.abs(fixed(shape, 1)) + 0.5  # no zeros, so zeros in the output are dropped entries
    x = tf.constant(x0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y_t = layer(x, training=True)
    y = y_t.numpy()
    kept = y != 0
    spatial = tuple(a for a in range(1, len(shape)) if a != channel_axis)
    # Every (example, channel) is either kept at every position or dropped at every position.
    assert (kept.all(axis=spatial) | (~kept).all(axis=spatial)).all()
    _close(y[kept], x0[kept] / 0.6, rtol=1e-6)
    dropped = 1.0 - kept.all(axis=spatial).mean()
    assert abs(dropped - 0.4) < 0.08, dropped  # 640 channels
    _close(tape.gradient(y_t, x).numpy(), np.where(kept, 1 / 0.6, 0.0), rtol=1e-6)


def test_alpha_dropout_statistics() -> None:
    tf.random.set_seed(9)
    rate = 0.2
    layer = L.AlphaDropout(rate, seed=1)
    x0 = np.random.default_rng(0).standard_normal((200, 500)).astype(np.float32)
    x = tf.constant(x0)
    y = layer(x, training=True).numpy()
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = ((1 - rate) * (1 + rate * alpha_p**2)) ** -0.5
    b = -a * alpha_p * rate
    dropped = np.isclose(y, a * alpha_p + b, rtol=0, atol=1e-6)
    _close(y[~dropped], a * x0[~dropped] + b, rtol=1e-5, atol=1e-5)
    assert abs(dropped.mean() - rate) < 0.01
    assert abs(y.mean() - x0.mean()) < 0.01 and abs(y.std() - x0.std()) < 0.02  # mean and variance kept
    # noise_shape shares the mask along size-1 axes.
    y3 = L.AlphaDropout(0.5, noise_shape=(None, 1, 8))(np.ones((4, 6, 8), np.float32), training=True).numpy()
    assert (y3 == y3[:, :1, :]).all()


def test_alpha_dropout_gradient() -> None:
    layer = L.AlphaDropout(0.3, seed=2)
    x = tf.constant(fixed((20, 30), 1))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x, training=True)
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = ((1 - 0.3) * (1 + 0.3 * alpha_p**2)) ** -0.5
    b = -a * alpha_p * 0.3
    dropped = np.isclose(y.numpy(), a * alpha_p + b, rtol=0, atol=1e-6)
    _close(tape.gradient(y, x).numpy(), np.where(dropped, 0.0, a), rtol=1e-6)


def test_training_flag_from_model_fit_path() -> None:
    # The outer call's training flag reaches the noise layer inside a model.
    inputs = keras.Input(shape=(50,))
    model = keras.Model(inputs, L.GaussianNoise(0.5, seed=1)(L.Rescaling(1.0)(inputs)))
    x = np.zeros((40, 50), np.float32)
    np.testing.assert_array_equal(model(x).numpy(), x)
    assert np.std(model(x, training=True).numpy()) > 0.4


def test_activity_regularization_losses_and_fit() -> None:
    layer = L.ActivityRegularization(l1=0.1)
    x = fixed((4, 3), 2)
    layer(x)
    _close(layer.losses[0].numpy(), 0.1 * np.abs(x).sum() / 4)
    layer(x[:2])
    assert len(layer.losses) == 1  # losses are reset at each call
    _close(layer.losses[0].numpy(), 0.1 * np.abs(x[:2]).sum() / 2)
    inputs = keras.Input(shape=(3,))
    model = keras.Model(inputs, L.ActivityRegularization(l2=1.0)(L.Dense(2)(inputs)))
    model(x)
    assert len(model.losses) == 1


# ----------------------------------------------------------------------------- config round trips


def test_config_round_trips() -> None:
    layers = [L.LeakyReLU(0.2), L.ELU(0.4), L.PReLU(shared_axes=[1, 2]), L.Softmax(axis=[1, 2]),
              L.Rescaling([1.0, 2.0], offset=0.5), L.UnitNormalization(axis=[1]), L.GaussianNoise(0.1, seed=2),
              L.GaussianDropout(0.2), L.AlphaDropout(0.1, noise_shape=(None, 1)), L.SpatialDropout1D(0.3),
              L.SpatialDropout2D(0.3, data_format="channels_first"), L.ActivityRegularization(0.1, 0.2)]  # fmt: skip
    for layer in layers:
        config = layer.get_config()
        clone = type(layer).from_config(config)
        assert clone.get_config() == config
    assert L.ELU(0.4).get_config()["alpha"] == 0.4
    assert L.LeakyReLU(alpha=0.25).negative_slope == 0.25


def square_plus_one(t: Any) -> Any:
    return t * t + 1.0


def test_lambda_config() -> None:
    x = fixed((2, 3), 1)
    layer = L.Lambda(lambda t, k=2.0: t * k, output_shape=(3,))
    config = layer.get_config()
    assert config["function"]["class_name"] == "__lambda__"
    assert config["output_shape"] == (3,)
    with pytest.raises(ValueError, match="safe_mode"):
        L.Lambda.from_config(config)
    clone = L.Lambda.from_config(config, safe_mode=False)
    _close(clone(x).numpy(), x * 2.0)
    named = L.Lambda(square_plus_one, arguments={})
    config = named.get_config()
    assert config["function"]["config"] == "square_plus_one"
    clone = L.Lambda.from_config(config, custom_objects={"square_plus_one": square_plus_one})
    _close(clone(x).numpy(), x * x + 1.0)
    # A function taking `training` receives the flag.
    seen = []
    flag = L.Lambda(lambda t, training=None: seen.append(training) or t)
    flag(x, training=True)
    flag(x)
    assert seen == [True, None]
    # A callable output_shape gets the input shape with its batch dimension.
    sym = L.Lambda(lambda t: t[:, :1], output_shape=lambda s: (s[0], 1))(keras.Input(shape=(3,)))
    assert sym.shape == (None, 1)


# ----------------------------------------------------------------------------- bad inputs


def test_bad_arguments_raise() -> None:
    with pytest.raises(ValueError, match="negative_slope"):
        L.LeakyReLU(negative_slope=-0.1)
    with pytest.raises(ValueError, match="stddev"):
        L.GaussianNoise(1.5)
    for cls in (L.GaussianDropout, L.AlphaDropout, L.SpatialDropout1D, L.SpatialDropout2D):
        with pytest.raises(ValueError, match="rate"):
            cls(-0.1)
    with pytest.raises(ValueError, match="data_format"):
        L.SpatialDropout2D(0.5, data_format="channels_middle")
    with pytest.raises(TypeError, match="axis"):
        L.UnitNormalization(axis="last")
    with pytest.raises(ValueError, match="callable"):
        L.Lambda(3)


def test_bad_inputs_raise() -> None:
    x = fixed((2, 3, 4), 1)
    prelu = L.PReLU()
    prelu(x)
    with pytest.raises(ValueError, match=r"\(3, 4\).*\(2, 5, 4\)"):
        prelu(fixed((2, 5, 4), 1))
    with pytest.raises(ValueError, match="shared axis"):
        L.PReLU(shared_axes=[3])(x)
    with pytest.raises(ValueError, match=r"mask.shape=\(2, 5\)"):
        L.Softmax()(fixed((2, 4), 1), mask=np.ones((2, 5), bool))
    with pytest.raises(ValueError, match="out of bounds"):
        L.UnitNormalization(axis=3)(fixed((2, 4), 1))
    with pytest.raises(ValueError, match="expected ndim=3, found ndim=4"):
        L.SpatialDropout1D(0.5)(fixed((2, 3, 4, 1), 1), training=True)
    with pytest.raises(ValueError, match="expected ndim=4, found ndim=3"):
        L.SpatialDropout2D(0.5)(keras.Input(shape=(3, 4)))
    with pytest.raises(ValueError, match="noise_shape"):
        L.AlphaDropout(0.5, noise_shape=(None, 1))(x, training=True)
