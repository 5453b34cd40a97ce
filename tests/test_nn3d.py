"""tapers' 3-D ops (``tf.nn.conv3d``/``max_pool3d``/``avg_pool3d``) and Keras 3-D layers against
TensorFlow 2.21 / Keras 3 (tests/data/nn3d_reference.json, written by
tests/data/make_nn3d_reference.py), plus float64 finite-difference gradients, ``tf.function``
tracing, training behaviour and bad inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tapers as tf

REF: dict[str, Any] = json.loads((Path(__file__).parent / "data" / "nn3d_reference.json").read_text())
RTOL, ATOL = 1e-5, 1e-5  # float32 sums of up to 3*3*3*3 = 81 products, summed in a different order than TF


def fixed(shape: tuple[int, ...], k: int = 0) -> np.ndarray:
    n = int(np.prod(shape)) if len(shape) else 1
    return (0.5 * np.sin(np.arange(n, dtype=np.float64) * 0.7 + k)).reshape(shape).astype(np.float32)


def close(a: Any, b: Any) -> None:
    np.testing.assert_allclose(np.asarray(a), np.asarray(b, dtype=np.float32), rtol=RTOL, atol=ATOL)


def run_op(rec: dict[str, Any], x: Any, f: Any = None) -> Any:
    kw = dict(rec["kwargs"])
    if rec["op"] == "conv3d":
        kw.pop("k")
        return tf.nn.conv3d(x, f, **kw)
    if rec["op"] == "conv3d_transpose":
        kw.pop("k")
        return tf.nn.conv3d_transpose(x, f, [2, 5, 6, 7, 3], **kw)
    return getattr(tf.nn, rec["op"])(x, **kw)


@pytest.mark.parametrize("i", range(len(REF["ops"])))
def test_op_matches_tensorflow(i: int) -> None:
    rec = REF["ops"][i]
    x = tf.constant(fixed(tuple(rec.get("input_shape", (2, 5, 6, 7, 3))), 1))
    f = tf.constant(fixed((*rec["kwargs"]["k"], 3, 4), 2)) if rec["op"].startswith("conv3d") else None
    with tf.GradientTape() as tape:
        tape.watch(x)
        if f is not None:
            tape.watch(f)
        out = run_op(rec, x, f)
        loss = tf.reduce_sum(out * fixed(tuple(out.shape), 7))
    assert list(out.shape) == rec["shape"]
    close(out.numpy(), rec["out"])
    grads = tape.gradient(loss, [x] if f is None else [x, f])
    close(grads[0].numpy(), rec["grad_input"])
    if f is not None:
        close(grads[1].numpy(), rec["grad_filters"])


def make_layer(rec: dict[str, Any]) -> Any:
    return getattr(tf.keras.layers, rec["cls"])(**rec["kwargs"])


@pytest.mark.parametrize("i", range(len(REF["layers"])))
def test_layer_matches_keras(i: int) -> None:
    rec = REF["layers"][i]
    shape = tuple(rec["input_shape"])
    layer = make_layer(rec)
    layer.build(shape)
    assert [(w.name.split(":")[0].split("/")[-1], list(w.shape)) for w in layer.weights] == [
        (p.split("/")[-1], s) for p, s in rec["weights"]
    ]
    for j, w in enumerate(layer.weights):
        w.assign(fixed(tuple(w.shape), 10 + j))
    x = tf.constant(fixed(shape, 1))
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = layer(x, training=False)
        loss = tf.reduce_sum(out * fixed(tuple(out.shape), 7))
    assert list(out.shape) == rec["shape"]
    close(out.numpy(), rec["out"])
    grads = tape.gradient(loss, [x, *layer.trainable_weights])
    close(grads[0].numpy(), rec["grad_input"])
    assert len(grads) - 1 == len(rec["grad_weights"])
    for g, want in zip(grads[1:], rec["grad_weights"]):
        close(g.numpy(), want)
    assert sorted(layer.get_config()) == rec["config_keys"]
    assert tuple(layer.compute_output_shape(shape)) == tuple(rec["shape"])
    sym = make_layer(rec)(tf.keras.Input(shape[1:]))
    assert list(sym.shape) == rec["symbolic_shape"]


def test_layer_aliases_and_nn_exports() -> None:
    assert tf.keras.layers.MaxPool3D is tf.keras.layers.MaxPooling3D
    assert tf.keras.layers.AvgPool3D is tf.keras.layers.AveragePooling3D
    for name in ("conv3d", "conv3d_transpose", "max_pool3d", "avg_pool3d"):
        assert name in tf.nn.__all__


# ----------------------------------------------------------------------------- finite differences


def numeric_grad(fn: Any, x: np.ndarray, w: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    g = np.zeros_like(x)
    flat, gflat = x.reshape(-1), g.reshape(-1)
    for j in range(flat.size):
        old = flat[j]
        flat[j] = old + eps
        up = float(np.sum(fn(tf.constant(x)).numpy() * w))
        flat[j] = old - eps
        down = float(np.sum(fn(tf.constant(x)).numpy() * w))
        flat[j] = old
        gflat[j] = (up - down) / (2 * eps)
    return g


def check_fd(fn: Any, x: np.ndarray) -> None:
    out = fn(tf.constant(x))
    w = np.cos(np.arange(int(np.prod(out.shape)), dtype=np.float64)).reshape(tuple(out.shape))
    t = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(t)
        loss = tf.reduce_sum(fn(t) * w)
    np.testing.assert_allclose(tape.gradient(loss, t).numpy(), numeric_grad(fn, x.copy(), w), rtol=1e-6, atol=1e-7)


X64 = np.sin(np.arange(2 * 4 * 3 * 4 * 2, dtype=np.float64) * 1.3).reshape(2, 4, 3, 4, 2)
F64 = np.cos(np.arange(2 * 2 * 3 * 2 * 3, dtype=np.float64) * 0.9).reshape(2, 2, 3, 2, 3)


@pytest.mark.parametrize("padding,strides,dil", [("VALID", 1, 1), ("SAME", [2, 1, 2], 1), ("SAME", 1, [2, 1, 1])])
def test_conv3d_finite_differences(padding: str, strides: Any, dil: Any) -> None:
    check_fd(lambda x: tf.nn.conv3d(x, tf.constant(F64), strides, padding, dilations=dil), X64)
    check_fd(lambda f: tf.nn.conv3d(tf.constant(X64), f, strides, padding, dilations=dil), F64.copy())


def test_conv3d_transpose_finite_differences() -> None:
    dy = np.sin(np.arange(2 * 2 * 3 * 2 * 3, dtype=np.float64)).reshape(2, 2, 3, 2, 3)
    check_fd(lambda t: tf.nn.conv3d_transpose(t, tf.constant(F64), [2, 4, 3, 4, 2], [2, 1, 2], "SAME"), dy)
    check_fd(lambda f: tf.nn.conv3d_transpose(tf.constant(dy), f, [2, 4, 3, 4, 2], [2, 1, 2], "SAME"), F64.copy())
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2, 2, 3, 2, 3\]"):
        tf.nn.conv3d_transpose(tf.constant(dy), tf.constant(F64), [2, 4, 3, 4, 2], 1, "SAME")


@pytest.mark.parametrize("op", ["max_pool3d", "avg_pool3d"])
@pytest.mark.parametrize("padding,ksize,strides", [("VALID", 2, 1), ("SAME", [3, 2, 3], [2, 2, 1])])
def test_pool3d_finite_differences(op: str, padding: str, ksize: Any, strides: Any) -> None:
    check_fd(lambda x: getattr(tf.nn, op)(x, ksize, strides, padding), X64)


def test_layers_finite_differences() -> None:
    # dtype="float64": a layer's default float32 policy would cast the input and spoil the differences.
    for layer in (tf.keras.layers.ZeroPadding3D(((1, 0), (0, 1), (1, 1)), dtype="float64"),
                  tf.keras.layers.UpSampling3D((1, 2, 2), dtype="float64"),
                  tf.keras.layers.Cropping3D(((1, 0), (0, 1), (1, 1)), dtype="float64"),
                  tf.keras.layers.MaxPooling3D(2, strides=1, padding="same", dtype="float64"),
                  tf.keras.layers.AveragePooling3D(2, strides=1, padding="same", dtype="float64")):  # fmt: skip
        check_fd(layer, X64)
    conv = tf.keras.layers.Conv3D(2, 2, padding="same", dtype="float64")
    conv.build(X64.shape)
    check_fd(conv, X64)


# ----------------------------------------------------------------------------- tf.function, training


def test_inside_tf_function() -> None:
    x = tf.constant(fixed((2, 5, 6, 7, 3), 1))
    conv = tf.keras.layers.Conv3D(4, [2, 3, 2], strides=[2, 1, 1], padding="same")
    pool = tf.keras.layers.MaxPooling3D(2, padding="same")
    avg = tf.keras.layers.AveragePooling3D(2, strides=1)
    up = tf.keras.layers.UpSampling3D(2)

    def model(t: Any) -> Any:
        return up(avg(pool(conv(t))))

    eager = model(x)
    traced = tf.function(model)(x)
    np.testing.assert_allclose(traced.numpy(), eager.numpy(), rtol=1e-6, atol=1e-7)

    @tf.function
    def grad(t: Any) -> Any:
        with tf.GradientTape() as tape:
            tape.watch(t)
            loss = tf.reduce_sum(tf.nn.avg_pool3d(tf.nn.conv3d(t, tf.ones([2, 2, 2, 3, 2]), 1, "SAME"), 2, 2, "SAME"))
        return tape.gradient(loss, t)

    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(tf.nn.avg_pool3d(tf.nn.conv3d(x, tf.ones([2, 2, 2, 3, 2]), 1, "SAME"), 2, 2, "SAME"))
    np.testing.assert_allclose(grad(x).numpy(), tape.gradient(loss, x).numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_spatial_dropout3d_training(data_format: str) -> None:
    x = tf.ones([4, 3, 3, 3, 8]) if data_format == "channels_last" else tf.ones([4, 8, 3, 3, 3])
    layer = tf.keras.layers.SpatialDropout3D(0.5, data_format=data_format, seed=3)
    np.testing.assert_array_equal(layer(x, training=False).numpy(), x.numpy())
    y = layer(x, training=True).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0}
    per_channel = y.transpose(0, 4, 1, 2, 3) if data_format == "channels_last" else y
    flat = per_channel.reshape(4, 8, -1)
    assert np.all(flat.min(axis=2) == flat.max(axis=2))  # whole channels dropped together
    assert 0 < (flat[:, :, 0] == 0).sum() < 32
    np.testing.assert_array_equal(tf.keras.layers.SpatialDropout3D(1.0)(x, training=True).numpy(), 0 * x.numpy())


# ----------------------------------------------------------------------------- bad inputs


def test_bad_inputs_raise_naming_shapes() -> None:
    x = tf.zeros([1, 4, 4, 4, 2])
    f = tf.zeros([2, 2, 2, 2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[4, 4, 4, 2\]"):
        tf.nn.conv3d(x[0], f, 1, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[5, 2, 2, 2, 3\]|\[1, 4, 4, 4, 2\]"):
        tf.nn.conv3d(x, tf.zeros([5, 2, 2, 2, 3]), 1, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[3, 2, 2, 3, 3\]"):
        tf.nn.conv3d(tf.zeros([1, 4, 4, 4, 3]), tf.zeros([3, 2, 2, 3, 3]), 1, "VALID", dilations=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="in_channels"):
        tf.nn.conv3d(x, tf.zeros([2, 2, 2, 5, 3]), 1, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[1, 4, 4, 4, 2\]"):
        tf.nn.max_pool3d(x, 5, 1, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[1, 4, 4, 4, 2\]"):
        tf.nn.avg_pool3d(x, [1, 1, 6], 1, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match="padding"):
        tf.nn.max_pool3d(x, 2, 1, "FULL")
    with pytest.raises(ValueError, match="NDHWC"):
        tf.nn.avg_pool3d(x, 2, 1, "VALID", data_format="NCDHW")
    with pytest.raises(ValueError, match=r"ndim=5.*\(1, 4, 4, 2\)"):
        tf.keras.layers.Conv3D(2, 2)(tf.zeros([1, 4, 4, 2]))
    with pytest.raises(ValueError, match=r"\(1, 4, 4, 4, 2\)"):
        tf.keras.layers.Conv3D(2, 5)(x)
    with pytest.raises(ValueError, match=r"\(1, 4, 4, 4, 2\)"):
        tf.keras.layers.MaxPooling3D(5)(x)
    for layer in (tf.keras.layers.ZeroPadding3D(), tf.keras.layers.UpSampling3D(), tf.keras.layers.Cropping3D(),
                  tf.keras.layers.SpatialDropout3D(0.1), tf.keras.layers.AveragePooling3D(2)):  # fmt: skip
        with pytest.raises(ValueError, match=r"ndim=5"):
            layer(tf.zeros([1, 4, 4, 2]))
    with pytest.raises(ValueError, match="cropping"):
        tf.keras.layers.Cropping3D(2)(x)
    with pytest.raises(ValueError):
        tf.keras.layers.ZeroPadding3D((1, 2))
    with pytest.raises(NotImplementedError):
        tf.keras.layers.Conv3D(2, 2, groups=2)


def test_max_pool3d_ties_send_gradient_to_first_maximum() -> None:
    # Documented divergence: TF's CPU MaxPool3DGrad gives the whole gradient to every tied maximum;
    # tapers gives it to the first in (depth, height, width) order, as its max_pool2d does.
    x = tf.ones([1, 2, 2, 2, 1])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.max_pool3d(x, 2, 1, "VALID")
    np.testing.assert_array_equal(tape.gradient(y, x).numpy().ravel(), [1, 0, 0, 0, 0, 0, 0, 0])
