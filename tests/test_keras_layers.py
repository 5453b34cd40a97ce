"""tapers.keras layers against Keras 3 (tests/data/keras_layers_reference.json, written by
make_keras_layers_reference.py): names, weight paths and shapes, config keys, output shapes
and forward values with weights set to the same fixed values; plus Layer behaviour."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
from _keras_fixtures import REF, fixed, path, set_fixed

import tapers as tf

keras = tf.keras
L = keras.layers

x2 = fixed((3, 4), 2)
x4 = fixed((2, 6, 6, 3), 4)
CASES: dict[str, tuple[Callable[[], Any], np.ndarray]] = {
    "dense": (lambda: L.Dense(5, activation="relu"), x2),
    "dense_nobias": (lambda: L.Dense(3, use_bias=False), x2),
    "dense_3d": (lambda: L.Dense(2), fixed((2, 3, 4), 7)),
    "conv_valid": (lambda: L.Conv2D(4, 3), x4),
    "conv_same_strided": (lambda: L.Conv2D(2, (3, 2), strides=2, padding="same", activation="tanh"), x4),
    "maxpool": (lambda: L.MaxPooling2D(), x4),
    "maxpool_same": (lambda: L.MaxPooling2D(pool_size=3, strides=2, padding="same"), x4),
    "avgpool": (lambda: L.AveragePooling2D(pool_size=(2, 3)), x4),
    "avgpool_same": (lambda: L.AveragePooling2D(pool_size=3, strides=2, padding="same"), x4),
    "flatten": (lambda: L.Flatten(), x4),
    "reshape": (lambda: L.Reshape((-1, 2)), x2),
    "dropout_inference": (lambda: L.Dropout(0.5), x2),
    "batchnorm_inference": (lambda: L.BatchNormalization(), x2),
    "layernorm": (lambda: L.LayerNormalization(), x2),
    "layernorm_4d": (lambda: L.LayerNormalization(axis=[1, 2]), x4),
    "embedding": (lambda: L.Embedding(10, 3), np.array([[1, 2, 9], [0, 0, 4]], dtype=np.int32)),
    "activation_softmax": (lambda: L.Activation("softmax"), x2),
    "relu_options": (lambda: L.ReLU(max_value=0.3, negative_slope=0.1, threshold=0.05), x2),
}


@pytest.fixture(autouse=True)
def _fresh_names() -> None:
    keras.backend.clear_session()


@pytest.mark.parametrize("case", sorted(CASES))
def test_layer_matches_keras(case: str) -> None:
    ref = REF["layers"][case]
    make, x = CASES[case]
    layer = make()
    assert not layer.built or case in ("embedding", "dropout_inference", "maxpool", "maxpool_same", "avgpool",
                                       "avgpool_same")  # fmt: skip
    layer(x)
    assert layer.built
    set_fixed(layer, 1)
    y = layer(x)
    assert type(layer).__name__ == ref["class"]
    assert layer.name == ref["name"]
    assert [[path(w), list(w.shape), w.trainable] for w in layer.weights] == ref["weights"]
    assert sorted(layer.get_config()) == ref["config_keys"]
    assert list(y.shape) == ref["output_shape"]
    assert list(layer.compute_output_shape((None, *x.shape[1:]))) == ref["symbolic_shape"]
    assert y.dtype == tf.float32
    np.testing.assert_allclose(y.numpy(), ref["output"], rtol=2e-5, atol=2e-6)


def test_symbolic_call_gives_keras_shapes() -> None:
    for case in ("dense", "conv_same_strided", "maxpool_same", "flatten", "reshape", "layernorm_4d", "embedding"):
        make, x = CASES[case]
        keras.backend.clear_session()
        dtype = "int32" if case == "embedding" else "float32"
        out = make()(keras.Input(shape=x.shape[1:], dtype=dtype))
        assert list(out.shape) == REF["layers"][case]["symbolic_shape"], case
        assert out.dtype == "float32"


def test_batchnorm_training_updates_moving_statistics_like_keras() -> None:
    ref = REF["batchnorm_training"]
    bn = L.BatchNormalization(momentum=0.9)
    xb = fixed((8, 3), 11) * 3 + 1
    bn(xb)
    set_fixed(bn, 2)
    yt = bn(xb, training=True)
    np.testing.assert_allclose(yt.numpy(), ref["output"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.numpy(), ref["moving_mean"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.numpy(), ref["moving_variance"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn(xb, training=False).numpy(), ref["inference_after"], rtol=1e-5, atol=1e-5)
    assert [path(w) for w in bn.trainable_weights] == ref["trainable"]
    assert [path(w) for w in bn.non_trainable_weights] == ref["non_trainable"]
    # A frozen BatchNormalization runs in inference mode and trains nothing.
    bn.trainable = False
    before = bn.moving_mean.numpy().copy()
    bn(xb, training=True)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), before)
    assert bn.trainable_weights == [] and len(bn.non_trainable_weights) == 4


def test_batchnorm_gradients_match_finite_differences() -> None:
    bn = L.BatchNormalization(dtype="float64")
    x = (fixed((6, 3), 1) * 2).astype(np.float64)
    bn(x)
    bn.gamma.assign([1.0, 1.5, 0.5])
    w = fixed((6, 3), 4).astype(np.float64)

    def f(a: np.ndarray) -> float:
        return float(tf.reduce_sum(bn(tf.constant(a), training=True) * w))

    xt = tf.constant(x)
    with tf.GradientTape() as t:
        t.watch(xt)
        loss = tf.reduce_sum(bn(xt, training=True) * w)
    g = t.gradient(loss, xt).numpy()
    eps = 1e-6
    num = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        p, m = x.copy(), x.copy()
        p[idx] += eps
        m[idx] -= eps
        num[idx] = (f(p) - f(m)) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-7)


def test_dropout_trains_with_a_scaled_mask_and_is_identity_in_inference() -> None:
    d = L.Dropout(0.25)
    x = np.ones((200, 50), np.float32)
    y = d(x, training=True).numpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], 1 / 0.75, rtol=1e-6)
    assert 0.7 < kept.mean() < 0.8
    np.testing.assert_array_equal(d(x).numpy(), x)
    np.testing.assert_array_equal(d(x, training=False).numpy(), x)
    with pytest.raises(ValueError, match="rate"):
        L.Dropout(1.5)


def test_training_flag_propagates_to_inner_layers() -> None:
    seen: list[Any] = []

    class Probe(L.Layer):
        def call(self, x: Any, training: Any = None) -> Any:
            seen.append(training)
            return x

    class Outer(L.Layer):
        def __init__(self) -> None:
            super().__init__()
            self.probe = Probe()

        def call(self, x: Any, training: Any = None) -> Any:
            return self.probe(x)

    outer = Outer()
    outer(x2, training=True)
    outer(x2)
    outer(x2, training=False)
    assert seen == [True, None, False]


def test_custom_layer_build_add_weight_losses_and_config() -> None:
    class Scale(L.Layer):
        def __init__(self, factor: float = 0.01, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.factor = factor

        def build(self, input_shape: Any) -> None:
            self.builds = getattr(self, "builds", 0) + 1
            self.shape_seen = input_shape
            self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")
            self.c = self.add_weight(shape=(), initializer="zeros", trainable=False, name="c")

        def call(self, x: Any) -> Any:
            self.add_loss(self.factor * tf.reduce_sum(tf.square(self.w)))
            return x * self.w

        def get_config(self) -> dict[str, Any]:
            return {**super().get_config(), "factor": self.factor}

    layer = Scale(name="scale")
    assert layer.weights == [] and not layer.built
    layer(x2)
    layer(x2)
    assert layer.builds == 1 and layer.shape_seen == (3, 4)
    assert [w.name for w in layer.weights] == ["scale/w:0", "scale/c:0"]
    assert [w.name for w in layer.trainable_weights] == ["scale/w:0"]
    assert [w.name for w in layer.non_trainable_variables] == ["scale/c:0"]
    assert len(layer.losses) == 1  # the last call's losses only
    np.testing.assert_allclose(float(layer.losses[0]), 0.04, rtol=1e-6)
    assert layer.count_params() == 5
    clone = Scale.from_config(layer.get_config())
    assert clone.factor == 0.01 and clone.name == "scale"
    assert isinstance(layer, tf.Module)
    layer.set_weights([np.full(4, 2.0, np.float32), np.float32(1.0)])
    np.testing.assert_array_equal(layer.get_weights()[0], np.full(4, 2.0, np.float32))
    with pytest.raises(ValueError, match="weight shape"):
        layer.set_weights([np.ones(3, np.float32), np.float32(1.0)])


def test_layers_are_modules_with_tensorflow_naming_and_tape_training() -> None:
    dense = L.Dense(2, name="my_dense")
    x = tf.constant(x2)
    with tf.GradientTape() as t:
        loss = tf.reduce_sum(dense(x))
    grads = t.gradient(loss, dense.trainable_variables)
    assert [w.name for w in dense.trainable_variables] == ["my_dense/kernel:0", "my_dense/bias:0"]
    np.testing.assert_allclose(grads[0].numpy(), np.tile(x2.sum(0)[:, None], (1, 2)), rtol=1e-6)
    np.testing.assert_allclose(grads[1].numpy(), [3.0, 3.0])
    assert L.Dense(2).name == "dense" and L.Dense(2).name == "dense_1"


def test_autocast_and_dtype() -> None:
    d = L.Dense(2)
    assert d(np.ones((1, 3))).dtype == tf.float32  # float64 numpy input is cast to the layer's dtype
    d64 = L.Dense(2, dtype="float64")
    out = d64(np.ones((1, 3)))
    assert out.dtype == tf.float64 and d64.kernel.dtype == tf.float64


def test_bad_inputs_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match="units"):
        L.Dense(0)
    with pytest.raises(ValueError, match="Unrecognized keyword"):
        L.Dense(2, bogus=1)
    with pytest.raises(ValueError, match="padding"):
        L.Conv2D(2, 3, padding="full")
    with pytest.raises(ValueError, match="ndim=4"):
        L.Conv2D(2, 3)(x2)
    with pytest.raises(ValueError, match="total size"):
        L.Reshape((5,))(x2)
    with pytest.raises(NotImplementedError, match="channels_last"):
        L.Conv2D(2, 3, data_format="channels_first")
    with pytest.raises(TypeError, match="KerasTensor"):
        keras.Input(shape=(3,)) + 1
    d = L.Dense(2)
    d(x2)
    with pytest.raises(ValueError, match=r"expected axis -1 of input shape to have value 4.*\(2, 5\)"):
        d(np.ones((2, 5), np.float32))
    conv = L.Conv2D(2, 3)
    conv(fixed((1, 5, 5, 3)))
    with pytest.raises(ValueError, match="incompatible"):
        conv(fixed((1, 5, 5, 2)))


def test_tensorflow_guide_layers_run_unchanged() -> None:
    # intro_to_modules.ipynb, "Keras layers": Variables created in __init__ and in build.
    class MyDense(tf.keras.layers.Layer):
        def __init__(self, in_features: int, out_features: int, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.w = tf.Variable(tf.random.normal([in_features, out_features]), name="w")
            self.b = tf.Variable(tf.zeros([out_features]), name="b")

        def call(self, x: Any) -> Any:
            y = tf.matmul(x, self.w) + self.b
            return tf.nn.relu(y)

    simple_layer = MyDense(name="simple", in_features=3, out_features=3)
    assert simple_layer([[2.0, 2.0, 2.0]]).shape == (1, 3)
    assert [v.name for v in simple_layer.variables] == ["w:0", "b:0"]

    class FlexibleDense(tf.keras.layers.Layer):
        def __init__(self, out_features: int, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.out_features = out_features

        def build(self, input_shape: Any) -> None:
            self.w = tf.Variable(tf.random.normal([input_shape[-1], self.out_features]), name="w")
            self.b = tf.Variable(tf.zeros([self.out_features]), name="b")

        def call(self, inputs: Any) -> Any:
            return tf.matmul(inputs, self.w) + self.b

    flexible_dense = FlexibleDense(out_features=3)
    assert flexible_dense.variables == []
    assert flexible_dense(tf.constant([[2.0, 2.0, 2.0], [3.0, 3.0, 3.0]])).shape == (2, 3)
    assert [v.name for v in flexible_dense.variables] == ["flexible_dense/w:0", "flexible_dense/b:0"]

    class MySequentialModel(tf.keras.Model):
        def __init__(self, name: str | None = None, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.dense_1 = FlexibleDense(out_features=3)
            self.dense_2 = FlexibleDense(out_features=2)

        def call(self, x: Any) -> Any:
            return self.dense_2(self.dense_1(x))

    my_sequential_model = MySequentialModel(name="the_model")
    assert my_sequential_model(tf.constant([[2.0, 2.0, 2.0]])).shape == (1, 2)
    assert len(my_sequential_model.variables) == 4 and len(my_sequential_model.submodules) == 2
    inputs = tf.keras.Input(shape=[3])
    x = FlexibleDense(3)(inputs)
    x = FlexibleDense(2)(x)
    my_functional_model = tf.keras.Model(inputs=inputs, outputs=x)
    assert my_functional_model(tf.constant([[2.0, 2.0, 2.0]])).shape == (1, 2)
    assert list(my_functional_model.outputs[0].shape) == [None, 2]
    # Keras 3 rejects the guide's extension-less path first (its message, in tests/data/guides_reference.json).
    with pytest.raises(ValueError, match="Invalid filepath extension for saving"):
        my_functional_model.save("exname_of_file")
    with pytest.raises(ValueError, match="File format not supported: filepath=exname_of_file"):
        tf.keras.models.load_model("exname_of_file")
    with pytest.raises(NotImplementedError, match="save_weights"):
        my_functional_model.save("model.keras")
    with pytest.raises(NotImplementedError, match="load_weights"):
        tf.keras.models.load_model("model.keras")
