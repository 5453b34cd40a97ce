"""tapers.keras global/1-D pooling and reshaping layers against Keras 3
(tests/data/keras_pooling_reference.json, written by make_keras_pooling_reference.py): names,
configs, forward values, output shapes (eager and symbolic), input gradients; plus finite-difference
gradients in float64, tf.function, functional models and errors on bad inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tapers as tf

keras = tf.keras
L = keras.layers

REF: dict[str, Any] = json.loads((Path(__file__).parent / "data" / "keras_pooling_reference.json").read_text())
CASES = REF["cases"]


def fixed(shape: tuple[int, ...], k: int = 0) -> np.ndarray:
    """The reference script's deterministic inputs: a scaled sine of the flat index."""
    n = int(np.prod(shape)) if len(shape) else 1
    return (0.5 * np.sin(np.arange(n, dtype=np.float64) * 0.7 + k)).reshape(shape).astype(np.float32)


def make(case: str, **extra: Any) -> Any:
    ref = CASES[case]
    return getattr(L, ref["class"])(**ref["kwargs"], **extra)


def call_kwargs(case: str) -> dict[str, Any]:
    mask = CASES[case]["mask"]
    return {} if mask is None else {"mask": tf.constant(np.array(mask, dtype=bool))}


@pytest.fixture(autouse=True)
def _fresh_names() -> None:
    keras.backend.clear_session()


@pytest.mark.parametrize("case", sorted(CASES))
def test_layer_matches_keras(case: str) -> None:
    ref = CASES[case]
    layer = make(case)
    x = tf.constant(fixed(tuple(ref["input_shape"]), ref["k"]))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x, **call_kwargs(case))
        loss = tf.reduce_sum(y * fixed(tuple(y.shape), 9))
    grad = tape.gradient(loss, x)
    assert type(layer).__name__ == ref["class"]
    assert layer.name == ref["name"]
    assert [[w.name, list(w.shape)] for w in layer.weights] == ref["weights"] == []
    assert json.loads(json.dumps(layer.get_config())) == ref["config"]
    assert list(y.shape) == ref["output_shape"]
    assert y.dtype == tf.float32
    np.testing.assert_allclose(y.numpy(), ref["output"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grad.numpy(), ref["input_grad"], rtol=1e-5, atol=1e-6)
    assert list(layer.compute_output_shape((None, *ref["input_shape"][1:]))) == ref["symbolic_shape"]
    # Symbolic calls on keras.Input (unknown batch; then every dimension unknown).
    sym = make(case)(keras.Input(shape=ref["input_shape"][1:]))
    assert list(sym.shape) == ref["symbolic_shape"]
    unknown = make(case)(keras.Input(shape=(None,) * (len(ref["input_shape"]) - 1)))
    assert list(unknown.shape) == ref["symbolic_shape_unknown"]
    # A layer rebuilt from its config computes the same.
    again = type(layer).from_config(layer.get_config())
    np.testing.assert_array_equal(again(x, **call_kwargs(case)).numpy(), y.numpy())


@pytest.mark.parametrize("case", sorted(k for k in REF["ties"] if k != "input"))
def test_gradients_with_tied_maxima_match_tensorflow(case: str) -> None:
    # reduce_max splits the gradient among tied maxima; max_pool gives it to a window's first maximum.
    ref = REF["ties"][case]
    x = tf.constant(np.array(REF["ties"]["input"], np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = getattr(L, ref["class"])(**ref["kwargs"])(x)
        loss = tf.reduce_sum(y)
    np.testing.assert_allclose(y.numpy(), ref["output"], rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), ref["input_grad"], rtol=1e-6)


def test_keras_aliases_name_the_same_classes() -> None:
    for alias, name in REF["aliases"].items():
        assert getattr(L, alias) is getattr(L, name), alias
        assert alias in L.__all__ and name in L.__all__


@pytest.mark.parametrize("case", sorted(CASES))
def test_input_gradient_matches_finite_differences_float64(case: str) -> None:
    ref = CASES[case]
    layer = make(case, dtype="float64")
    x0 = fixed(tuple(ref["input_shape"]), ref["k"]).astype(np.float64)
    kw = call_kwargs(case)
    y0 = layer(tf.constant(x0), **kw)
    assert y0.dtype == tf.float64
    w = fixed(tuple(y0.shape), 9).astype(np.float64)

    def loss_of(xv: np.ndarray) -> float:
        return float(np.sum(layer(tf.constant(xv), **kw).numpy() * w))

    x = tf.constant(x0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(layer(x, **kw) * w)
    grad = tape.gradient(loss, x).numpy()
    eps = 1e-6
    numeric = np.zeros_like(x0)
    flat, nflat = x0.reshape(-1), numeric.reshape(-1)
    for i in range(flat.size):
        plus, minus = flat.copy(), flat.copy()
        plus[i] += eps
        minus[i] -= eps
        nflat[i] = (loss_of(plus.reshape(x0.shape)) - loss_of(minus.reshape(x0.shape))) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(
    "case", ["gap1d_mask", "gap3d_cf_keep", "gmp2d", "maxpool1d_cf", "avgpool1d_same", "zeropad2d_asym",
             "crop2d_int_cf", "upsample2d_bilinear", "upsample1d_3", "permute_4d", "repeatvector", "identity"],
)  # fmt: skip
def test_inside_tf_function_equals_eager(case: str) -> None:
    ref = CASES[case]
    layer = make(case)
    x = tf.constant(fixed(tuple(ref["input_shape"]), ref["k"]))
    kw = call_kwargs(case)
    traced = tf.function(lambda t: layer(t, **kw))
    np.testing.assert_array_equal(traced(x).numpy(), layer(x, **kw).numpy())
    np.testing.assert_allclose(traced(x).numpy(), ref["output"], rtol=1e-5, atol=1e-6)


def test_no_training_dependent_behaviour() -> None:
    # None of these layers behaves differently in training: the flag is accepted and ignored.
    for case in ("gap2d", "maxpool1d", "upsample2d", "crop1d"):
        layer = make(case)
        x = fixed(tuple(CASES[case]["input_shape"]), 3)
        np.testing.assert_array_equal(layer(x, training=True).numpy(), layer(x, training=False).numpy())


def test_masked_average_matches_numpy_and_keras_edge_cases() -> None:
    x = fixed((3, 4, 2), 5)
    mask = np.array([[1, 1, 0, 0], [1, 0, 1, 1], [1, 1, 1, 1]], dtype=np.float32)  # float 0/1 masks work too
    y = L.GlobalAveragePooling1D()(x, mask=mask).numpy()
    expected = (x * mask[:, :, None]).sum(1) / mask.sum(1)[:, None]
    np.testing.assert_allclose(y, expected, rtol=1e-6)
    # All steps masked: 0 / 0, NaN as in Keras.
    assert np.isnan(L.GlobalAveragePooling1D()(x, mask=np.zeros((3, 4), bool)).numpy()).all()
    assert L.GlobalAveragePooling1D().compute_mask(x, mask) is None
    with pytest.raises(ValueError, match=r"mask must have shape"):
        L.GlobalAveragePooling1D()(x, mask=np.ones((3, 5), bool))


def test_functional_model_and_dtypes() -> None:
    inputs = keras.Input(shape=(None, 3))
    h = L.ZeroPadding1D(2)(inputs)
    h = L.MaxPool1D(2)(h)
    h = L.GlobalAvgPool1D()(h)
    h = L.RepeatVector(2)(h)
    outputs = L.Permute((2, 1))(h)
    model = keras.Model(inputs, outputs)
    x = fixed((2, 6, 3), 1)
    y = model(x)
    assert list(y.shape) == [2, 3, 2]
    padded = np.pad(x, ((0, 0), (2, 2), (0, 0)))
    pooled = padded.reshape(2, 5, 2, 3).max(2).mean(1)
    np.testing.assert_allclose(y.numpy(), np.repeat(pooled[:, :, None], 2, axis=2), rtol=1e-6)
    # Identity and Permute keep an integer input's dtype in symbolic calls (as Keras).
    ints = keras.Input(shape=(3,), dtype="int32")
    assert L.Identity()(ints).dtype == "int32"
    assert L.Permute((1,))(ints).dtype == "int32"
    n = tf.constant([[1, 2, 3]])
    assert L.Identity()(n) is n


def test_bad_arguments_and_inputs_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match=r"expected ndim=3, found ndim=2\. Full shape received: \(2, 3\)"):
        L.GlobalAveragePooling1D()(fixed((2, 3)))
    with pytest.raises(ValueError, match=r"expected ndim=4, found ndim=3"):
        L.GlobalMaxPooling2D()(fixed((2, 3, 4)))
    with pytest.raises(ValueError, match=r"expected ndim=5"):
        L.GlobalAveragePooling3D()(keras.Input(shape=(3, 4)))
    with pytest.raises(ValueError, match=r"expected ndim=3"):
        L.MaxPooling1D()(fixed((2, 3, 4, 5)))
    with pytest.raises(ValueError, match=r"data_format"):
        L.GlobalMaxPooling1D(data_format="NHWC")
    with pytest.raises(ValueError, match=r"padding"):
        L.AveragePooling1D(2, padding="full")
    with pytest.raises(ValueError, match=r"pool_size"):
        L.MaxPooling1D(pool_size=0)
    with pytest.raises(TypeError):
        L.AveragePooling1D()  # pool_size is required, as in Keras
    with pytest.raises(ValueError, match=r"fewer than pool_size 4"):
        L.MaxPooling1D(4)(fixed((1, 3, 2)))
    with pytest.raises(ValueError, match=r"Computed output size would be negative"):
        L.AveragePooling1D(4)(keras.Input(shape=(3, 2)))
    with pytest.raises(ValueError, match=r"must be smaller than the input's size along axis 1.*\(2, 4, 3\)"):
        L.Cropping1D((2, 2))(fixed((2, 4, 3)))
    with pytest.raises(ValueError, match=r"must be smaller"):
        L.Cropping2D(((1, 1), (2, 2)))(keras.Input(shape=(5, 4, 3)))
    with pytest.raises(ValueError, match=r"cannot be negative"):
        L.Cropping2D(-1)
    with pytest.raises(ValueError, match=r"two elements"):
        L.ZeroPadding2D((1, 2, 3))
    with pytest.raises(ValueError, match=r"tuple of 2 integers"):
        L.ZeroPadding1D((1, 2, 3))
    with pytest.raises(ValueError, match=r"Invalid permutation"):
        L.Permute((1, 3))
    with pytest.raises(ValueError, match=r"expected ndim=3"):
        L.Permute((2, 1))(fixed((2, 3, 4, 5)))
    with pytest.raises(TypeError, match=r"integer value for `n`"):
        L.RepeatVector(2.0)
    with pytest.raises(ValueError, match=r"positive integer"):
        L.RepeatVector(0)
    with pytest.raises(ValueError, match=r"expected ndim=2"):
        L.RepeatVector(2)(fixed((2, 3, 4)))
    with pytest.raises(TypeError, match=r"integer value for `size`"):
        L.UpSampling1D((2,))
    with pytest.raises(NotImplementedError, match=r"bicubic"):
        L.UpSampling2D(interpolation="bicubic")
    with pytest.raises(ValueError, match=r"interpolation"):
        L.UpSampling2D(interpolation="cubic-ish")
    with pytest.raises(ValueError, match=r"expected ndim=4"):
        L.UpSampling2D()(fixed((2, 3, 4)))
