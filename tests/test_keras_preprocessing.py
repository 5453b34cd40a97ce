"""Keras 3 parity of Normalization, CategoryEncoding, Discretization, TimeDistributed and
GroupNormalization, against tests/data/keras_preprocessing_reference.json (written by
tests/data/make_keras_preprocessing_reference.py with TensorFlow 2.21 / Keras 3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _keras_fixtures import fixed, path

import tapers as tf

REF: dict[str, Any] = json.loads((Path(__file__).parent / "data" / "keras_preprocessing_reference.json").read_text())[
    "cases"
]
L = tf.keras.layers
RTOL, ATOL = 1e-5, 1e-6


def set_fixed(layer: Any, k: int = 0) -> None:
    """As the reference script: trainable weights from ``fixed`` (gamma around 1)."""
    for i, w in enumerate(layer.weights):
        if not w.trainable:
            continue
        if path(w).endswith("gamma"):
            w.assign(1.0 + 0.1 * fixed(tuple(w.shape), k + i))
        else:
            w.assign(fixed(tuple(w.shape), k + i))


def _strip(p: str) -> str:
    """A weight path without the numbered layer names (``normalization_8`` -> ``normalization``)."""
    parts = p.split("/")
    return "/".join(part.rsplit("_", 1)[0] if part.rsplit("_", 1)[-1].isdigit() else part for part in parts)


def check(layer: Any, x: Any, ref: dict[str, Any], kwargs: dict[str, Any] | None = None) -> None:
    kwargs = kwargs or {}
    xt = tf.convert_to_tensor(x)
    if "grad_input" in ref:
        with tf.GradientTape() as tape:
            tape.watch(xt)
            y = layer(xt, **kwargs)
            loss = tf.reduce_sum(y * fixed(tuple(y.shape), 5))
        grads = tape.gradient(loss, [xt, *layer.trainable_weights])
        np.testing.assert_allclose(grads[0].numpy(), ref["grad_input"], rtol=RTOL, atol=1e-5)
        assert len(grads) - 1 == len(ref["grad_weights"])
        for g, r in zip(grads[1:], ref["grad_weights"]):
            np.testing.assert_allclose(g.numpy(), r, rtol=RTOL, atol=1e-5)
    else:
        y = layer(xt, **kwargs)
    np.testing.assert_allclose(y.numpy(), ref["output"], rtol=RTOL, atol=ATOL)
    assert list(y.shape) == ref["output_shape"]
    assert y.dtype.name == ref["output_dtype"]
    got = [[_strip(path(w)), list(w.shape), w.dtype.name, bool(w.trainable)] for w in layer.weights]
    assert got == [[_strip(p), s, d, t] for p, s, d, t in ref["weights"]]
    for w, r in zip(layer.weights, ref["weight_values"]):
        np.testing.assert_allclose(w.numpy(), r, rtol=RTOL, atol=ATOL)
    assert sorted(layer.get_config()) == ref["config_keys"]
    if "symbolic_shape" in ref:
        clone = type(layer).from_config({k: v for k, v in layer.get_config().items() if k != "name"})
        s = clone(tf.keras.Input(shape=tuple(np.shape(x)[1:]), dtype=xt.dtype.name))
        assert list(s.shape) == ref["symbolic_shape"]


# ----------------------------------------------------------------------------- Normalization

X43 = fixed((4, 3), 1) * 3 + 1
X532 = fixed((5, 3, 2), 2) * 2 - 0.5


@pytest.mark.parametrize(
    "case,layer_fn,x",
    [
        ("norm_given", lambda: L.Normalization(mean=[1.0, 2.0, 3.0], variance=[4.0, 5.0, 6.0]), X43),
        ("norm_given_scalar_axis_none", lambda: L.Normalization(axis=None, mean=2.0, variance=3.0), X43),
        ("norm_given_invert",
         lambda: L.Normalization(mean=[1.0, 2.0, 3.0], variance=[4.0, 0.0, 6.0], invert=True), X43),
        ("norm_given_axis_1_2", lambda: L.Normalization(axis=(1, 2), mean=[0.5, -0.5], variance=[2.0, 3.0]), X532),
    ],
)  # fmt: skip
def test_normalization_with_given_statistics_matches_keras(case: str, layer_fn: Any, x: np.ndarray) -> None:
    check(layer_fn(), x, REF[case])


@pytest.mark.parametrize(
    "case",
    ["norm_adapt_last", "norm_adapt_axis_1_2", "norm_adapt_axis_none", "norm_adapt_axis_1_tensor",
     "norm_adapt_dataset"],
)  # fmt: skip
def test_normalization_adapt_matches_keras(case: str) -> None:
    ref = REF[case]
    shape = tuple(ref["data_shape"])
    axis = ref["axis"] if ref["axis"] is None or isinstance(ref["axis"], int) else tuple(ref["axis"])
    data = fixed(shape, 3) * 3 + 1
    layer = L.Normalization(axis=axis)
    if ref["kind"] == "numpy":
        layer.adapt(data)
    elif ref["kind"] == "tensor":
        layer.adapt(tf.constant(data))
    else:
        layer.adapt(tf.data.Dataset.from_tensor_slices(data).batch(4))
    check(layer, fixed(shape, 4) * 2, ref)


def test_normalization_adapt_from_iterable_and_readapt() -> None:
    data = fixed((10, 3), 3) * 3 + 1
    layer = L.Normalization()
    layer.adapt([data[:4], data[4:8], data[8:]])
    np.testing.assert_allclose(layer.adapt_mean.numpy(), data.mean(0), rtol=1e-5)
    np.testing.assert_allclose(layer.adapt_variance.numpy(), data.var(0), rtol=1e-4)
    layer.adapt(data * 2)  # a second adapt replaces the statistics, and calls see them
    np.testing.assert_allclose(layer(data).numpy(), (data - data.mean(0) * 2) / (data.std(0) * 2),
                               rtol=1e-4, atol=1e-5)  # fmt: skip


def test_normalization_in_function_and_errors() -> None:
    layer = L.Normalization()
    layer.adapt(X43)
    f = tf.function(lambda x: layer(x))
    np.testing.assert_allclose(f(tf.constant(X43)).numpy(), layer(X43).numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="incompatible shape"):
        layer(np.zeros((2, 5), np.float32))
    with pytest.raises(ValueError, match="incompatible shape"):
        layer.adapt(np.zeros((2, 5), np.float32))
    with pytest.raises(ValueError, match="both `mean` and `variance`"):
        L.Normalization(mean=1.0)
    with pytest.raises(ValueError, match="same shape"):
        L.Normalization(mean=[1.0, 2.0], variance=[1.0])
    with pytest.raises(ValueError, match="axis"):
        L.Normalization(axis=3)(np.zeros((2, 3), np.float32))


# ----------------------------------------------------------------------------- CategoryEncoding

IDS1 = np.array([3, 2, 0, 1], np.int32)
IDS2 = np.array([[0, 1], [0, 0], [1, 2], [3, 1]], np.int32)


@pytest.mark.parametrize("mode", ["one_hot", "multi_hot", "count"])
def test_category_encoding_matches_keras(mode: str) -> None:
    check(L.CategoryEncoding(num_tokens=4, output_mode=mode), IDS1, REF[f"cat_{mode}_rank1"])
    check(L.CategoryEncoding(num_tokens=5, output_mode=mode), IDS2, REF[f"cat_{mode}_rank2"])


def test_category_encoding_one_hot_trailing_axis_and_count_weights() -> None:
    check(L.CategoryEncoding(num_tokens=4, output_mode="one_hot"), IDS1.reshape(4, 1), REF["cat_one_hot_last1"])
    check(L.CategoryEncoding(num_tokens=5, output_mode="count"), IDS2, REF["cat_count_weights"],
          kwargs={"count_weights": fixed((4, 2), 6)})  # fmt: skip


def test_category_encoding_function_and_errors() -> None:
    layer = L.CategoryEncoding(num_tokens=5, output_mode="count")
    f = tf.function(lambda x: layer(x))
    np.testing.assert_array_equal(f(tf.constant(IDS2)).numpy(), layer(IDS2).numpy())
    with pytest.raises(tf.errors.InvalidArgumentError, match="0 <= values < num_tokens"):
        layer(np.array([[0, 5]], np.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="0 <= values < num_tokens"):
        layer(np.array([[0, -1]], np.int32))
    with pytest.raises(ValueError, match="num_tokens must be set"):
        L.CategoryEncoding()
    with pytest.raises(ValueError, match="output_mode"):
        L.CategoryEncoding(3, output_mode="tf_idf")
    with pytest.raises(ValueError, match="sparse"):
        L.CategoryEncoding(3, sparse=True)
    with pytest.raises(ValueError, match="count_weights"):
        L.CategoryEncoding(3, output_mode="one_hot")(np.array([1]), count_weights=np.array([1.0]))


# ----------------------------------------------------------------------------- Discretization

XD = fixed((3, 4), 7) * 4


@pytest.mark.parametrize("mode", ["int", "one_hot", "multi_hot", "count"])
def test_discretization_matches_keras(mode: str) -> None:
    layer = L.Discretization(bin_boundaries=[-1.0, 0.0, 0.5, 1.0], output_mode=mode)
    check(layer, XD[:, :1] if mode == "one_hot" else XD, REF[f"disc_{mode}"])
    f = tf.function(lambda x: layer(x))
    np.testing.assert_array_equal(f(tf.constant(XD)).numpy(), layer(XD).numpy())


def test_discretization_adapt_matches_keras() -> None:
    ref = REF["disc_adapt"]
    layer = L.Discretization(num_bins=4, epsilon=0.01)
    layer.adapt(fixed((40,), 8) * 3)
    np.testing.assert_allclose(layer.bin_boundaries, ref["bin_boundaries"], rtol=1e-6, atol=1e-7)
    check(layer, XD, ref)
    batched = L.Discretization(num_bins=4, epsilon=0.01)  # batches of a dataset merge into one summary
    batched.adapt(tf.data.Dataset.from_tensor_slices(fixed((40,), 8) * 3).batch(40))
    np.testing.assert_allclose(batched.bin_boundaries, ref["bin_boundaries"], rtol=1e-6, atol=1e-7)


def test_discretization_errors() -> None:
    with pytest.raises(ValueError, match="either `num_bins` or `bin_boundaries`"):
        L.Discretization()
    with pytest.raises(ValueError, match="Both `num_bins` and `bin_boundaries`"):
        L.Discretization(bin_boundaries=[0.0], num_bins=3)
    with pytest.raises(ValueError, match="call `adapt"):
        L.Discretization(num_bins=3)(np.zeros((2, 2), np.float32))
    with pytest.raises(ValueError, match="Cannot adapt"):
        L.Discretization(bin_boundaries=[0.0]).adapt(np.zeros(3))
    with pytest.raises(ValueError, match="sorted"):
        L.Discretization(bin_boundaries=[1.0, 0.0])
    with pytest.raises(ValueError, match="output_mode"):
        L.Discretization(bin_boundaries=[0.0], output_mode="tf_idf")


# ----------------------------------------------------------------------------- TimeDistributed


def test_time_distributed_dense_and_conv_match_keras() -> None:
    td = L.TimeDistributed(L.Dense(3))
    td.build((2, 4, 5))
    set_fixed(td, 1)
    check(td, fixed((2, 4, 5), 2), REF["td_dense"])
    td = L.TimeDistributed(L.Conv2D(2, 3, padding="same"))
    td.build((2, 3, 5, 5, 1))
    set_fixed(td, 2)
    check(td, fixed((2, 3, 5, 5, 1), 3), REF["td_conv2d"])


def test_time_distributed_training_flag_function_and_errors() -> None:
    td = L.TimeDistributed(L.Dropout(0.5))
    x = np.ones((2, 3, 4), np.float32)
    np.testing.assert_array_equal(td(x).numpy(), x)  # inference: identity
    y = td(x, training=True).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and (y == 0).any()
    dense = L.TimeDistributed(L.Dense(2))
    f = tf.function(lambda v: dense(v))
    xs = fixed((2, 3, 4), 1)
    np.testing.assert_allclose(f(tf.constant(xs)).numpy(), dense(xs).numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="at least 3 dimensions"):
        L.TimeDistributed(L.Dense(2))(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="keras.layers.Layer"):
        L.TimeDistributed(lambda v: v)


def test_time_distributed_dense_gradients_match_finite_differences() -> None:
    td = L.TimeDistributed(L.Dense(2, activation="tanh", dtype="float64"), dtype="float64")
    x = tf.constant(fixed((2, 3, 3), 4).astype(np.float64))
    td(x)
    _fd_check(td, x)


# ----------------------------------------------------------------------------- GroupNormalization


@pytest.mark.parametrize("case", ["gn_groups2", "gn_instance", "gn_layer", "gn_axis1", "gn_no_center", "gn_no_scale"])
def test_group_normalization_matches_keras(case: str) -> None:
    ref = REF[case]
    shape = tuple(np.shape(ref["output"]))
    gn = L.GroupNormalization(**ref["kwargs"])
    gn.build(shape)
    set_fixed(gn, 3)
    check(gn, fixed(shape, 4) * 2 + 0.3, ref)


def test_group_normalization_function_and_errors() -> None:
    gn = L.GroupNormalization(groups=2)
    x = fixed((2, 3, 4), 1)
    f = tf.function(lambda v: gn(v))
    np.testing.assert_allclose(f(tf.constant(x)).numpy(), gn(x).numpy(), rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="multiple"):
        L.GroupNormalization(groups=3)(np.zeros((2, 4), np.float32))
    with pytest.raises(ValueError, match="cannot be more"):
        L.GroupNormalization(groups=8)(np.zeros((2, 4), np.float32))
    with pytest.raises(ValueError, match="incompatible"):
        gn(np.zeros((2, 3, 6), np.float32))


def test_group_normalization_gradients_match_finite_differences() -> None:
    gn = L.GroupNormalization(groups=2, dtype="float64")
    x = tf.constant(fixed((2, 3, 4), 4).astype(np.float64) * 2 + 0.3)
    gn(x)
    set_fixed(gn, 3)
    _fd_check(gn, x)


def _fd_check(layer: Any, x: Any, eps: float = 1e-6) -> None:
    """tape.gradient of sum(layer(x) * w) against central differences, for x and every weight."""
    w = tf.constant(fixed(tuple(layer(x).shape), 5).astype(np.float64))

    def loss() -> Any:
        return tf.reduce_sum(layer(x) * w)

    with tf.GradientTape() as tape:
        tape.watch(x)
        value = loss()
    grads = tape.gradient(value, [x, *layer.trainable_weights])
    x0 = x.numpy()
    num = np.zeros_like(x0)
    for i in np.ndindex(x0.shape):
        for sign in (1, -1):
            xp = x0.copy()
            xp[i] += sign * eps
            num[i] += sign * float(tf.reduce_sum(layer(tf.constant(xp)) * w).numpy()) / (2 * eps)
    np.testing.assert_allclose(grads[0].numpy(), num, rtol=1e-5, atol=1e-7)
    for v, g in zip(layer.trainable_weights, grads[1:]):
        v0 = v.numpy()
        numw = np.zeros_like(v0)
        for i in np.ndindex(v0.shape):
            for sign in (1, -1):
                vp = v0.copy()
                vp[i] += sign * eps
                v.assign(vp)
                numw[i] += sign * float(loss().numpy()) / (2 * eps)
            v.assign(v0)
        np.testing.assert_allclose(g.numpy(), numw, rtol=1e-5, atol=1e-7)
