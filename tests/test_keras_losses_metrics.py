"""Keras 3's losses, metrics, initializers and activations on tapers, compared with Keras 3 itself.

Reference values come from tests/data/make_keras_losses_reference.py (TensorFlow 2.21 / Keras 3,
run once in a scratch venv) and live in tests/data/keras_losses_reference.json; the fixture also
holds the inputs Keras saw. Gradients are further checked with float64 finite differences.
"""

from __future__ import annotations

import gc
import json
import math
from pathlib import Path

import numpy as np
import pytest

import tapers as tf
from conftest import check_gradients
from tapers.keras import activations, initializers, losses, metrics

REF = json.loads((Path(__file__).parent / "data" / "keras_losses_reference.json").read_text())


def _array(x: object, dtype: str | None = None) -> np.ndarray:
    a = np.asarray(x)
    if dtype is not None:
        return a.astype(dtype)
    return a.astype(np.float32) if a.dtype == np.float64 else a.astype(np.int32)


def _close(actual: object, expected: object, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64), rtol, atol)


# --------------------------------------------------------------------------- losses against Keras


# Constructor arguments Keras 3 leaves out of get_config (so its configs do not round-trip); tapers keeps them.
FORGOTTEN_BY_KERAS = {"SparseCategoricalCrossentropy": {"axis"}, "CosineSimilarity": {"axis"}, "Huber": {"delta"}}


def _check_config(cls: type, kwargs: dict, keras_config: dict) -> None:
    config = cls(**kwargs).get_config()
    extra = set(config) - set(keras_config)
    assert extra <= FORGOTTEN_BY_KERAS.get(cls.__name__, set())
    assert {k: config[k] for k in keras_config} == keras_config
    for k in extra:
        assert config[k] == kwargs.get(k, config[k])
    assert cls.from_config(config).get_config() == config


def _run_loss(case: dict) -> tuple[tf.Tensor, tf.Tensor]:
    y_true = tf.constant(np.asarray(case["y_true"], dtype=case["y_true_dtype"]))
    y_pred = tf.constant(np.asarray(case["y_pred"], dtype=np.float32))
    with tf.GradientTape() as tape:
        tape.watch(y_pred)
        if case["fn"]:
            out = getattr(losses, case["fn"])(y_true, y_pred, **case["fn_kwargs"])
        else:
            sw = case["sample_weight"]
            sw = None if sw is None else np.asarray(sw, dtype=np.float32)
            out = getattr(losses, case["cls"])(**case["kwargs"])(y_true, y_pred, sample_weight=sw)
        total = tf.reduce_sum(out)
    return out, tape.gradient(total, y_pred)


@pytest.mark.parametrize("case", REF["losses"], ids=[c["name"] for c in REF["losses"]])
def test_loss_matches_keras(case):
    if "error" in case:
        # Keras raises InvalidArgumentError (weights that do not broadcast); tapers raises its own class of that name.
        with pytest.raises(getattr(tf.errors, case["error"])):
            _run_loss(case)
        return
    out, grad = _run_loss(case)
    assert list(out.shape) == case["shape"]
    assert out.dtype == tf.float32
    _close(out.numpy(), case["value"])
    _close(grad.numpy(), case["grad"])
    if case["cls"]:
        _check_config(getattr(losses, case["cls"]), case["kwargs"], case["config"])


@pytest.mark.parametrize("case", REF["activation_logits"], ids=lambda c: c["cls"])
def test_crossentropy_on_activation_output_uses_its_logits(case):
    z = tf.constant(np.asarray(case["z"], dtype=np.float32))
    y_true = np.asarray(case["y_true"])
    with tf.GradientTape() as tape:
        tape.watch(z)
        probs = getattr(activations, case["activation"])(z)
        out = getattr(losses, case["cls"])()(y_true, probs)
    _close(float(out), case["value"])
    _close(tape.gradient(out, z).numpy(), case["grad"])
    # The same probabilities as a plain tensor: clipped probabilities, a different (saturated) value.
    plain = getattr(losses, case["cls"])()(y_true, tf.constant(probs.numpy()))
    _close(float(plain), case["value_from_plain_probabilities"])
    assert abs(float(plain) - float(out)) > 1.0


def test_remembered_logits_are_forgotten_with_the_output():
    from tapers.keras.activations import _logits, _logits_of

    before = len(_logits)
    p = activations.sigmoid(tf.constant([1.0, 2.0]))
    assert _logits_of(p, "sigmoid") is not None
    assert _logits_of(p, "softmax") is None
    assert _logits_of(tf.identity(p), "sigmoid") is None
    del p
    gc.collect()
    assert len(_logits) == before


def test_remembered_logits_under_threads():
    import threading

    errors = []

    def work(seed):
        rng = np.random.default_rng(seed)
        for _ in range(100):
            z = tf.constant(rng.normal(size=(4, 3)).astype(np.float32) * 30)
            y = (rng.uniform(size=(4, 3)) > 0.5).astype(np.float32)
            via_sigmoid = float(losses.BinaryCrossentropy()(y, activations.sigmoid(z)))
            direct = float(losses.BinaryCrossentropy(from_logits=True)(y, z))
            if via_sigmoid != direct:
                errors.append((via_sigmoid, direct))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


@pytest.mark.parametrize("identifier", sorted(REF["loss_get"]))
def test_losses_get_matches_keras(identifier):
    expected = REF["loss_get"][identifier]
    obj = losses.get(identifier)
    if expected["kind"] == "instance":
        assert isinstance(obj, losses.Loss)
        assert type(obj).__name__ == expected["class"]
        assert obj.name == expected["name"]
    else:
        assert callable(obj) and not isinstance(obj, losses.Loss)
        assert obj.__name__ == expected["name"]


def test_losses_get_other_identifiers():
    assert losses.get(None) is None
    assert isinstance(losses.get(losses.BinaryCrossentropy), losses.BinaryCrossentropy)
    inst = losses.CategoricalCrossentropy(from_logits=True)
    assert losses.get(inst) is inst
    fn = losses.get(losses.serialize(inst))
    assert isinstance(fn, losses.CategoricalCrossentropy) and fn.from_logits
    assert losses.get(losses.serialize(losses.mean_squared_error)) is losses.mean_squared_error
    with pytest.raises(ValueError, match="Could not interpret loss identifier: nope"):
        losses.get("nope")
    with pytest.raises(ValueError, match="Could not interpret loss identifier"):
        losses.get(3)


def test_loss_class_round_trips_its_config():
    loss = losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=3, reduction="sum", name="x")
    again = losses.SparseCategoricalCrossentropy.from_config(loss.get_config())
    assert again.get_config() == loss.get_config() == {
        "name": "x", "reduction": "sum", "from_logits": True, "ignore_class": 3, "axis": -1,
    }  # fmt: skip
    huber = losses.get(losses.serialize(losses.Huber(delta=0.25)))
    assert isinstance(huber, losses.Huber) and huber.delta == 0.25
    wrapper = losses.LossFunctionWrapper(losses.binary_crossentropy, reduction="none", name="w", from_logits=True)
    cfg = wrapper.get_config()
    assert cfg == {"name": "w", "reduction": "none", "fn": "binary_crossentropy", "from_logits": True}
    assert losses.LossFunctionWrapper.from_config(cfg).fn is losses.binary_crossentropy


def test_custom_loss_subclass_and_its_automatic_name():
    class MyHuberish(losses.Loss):
        def call(self, y_true, y_pred):
            return tf.reduce_mean(tf.abs(y_pred - y_true) ** 3, axis=-1)

    a, b = MyHuberish(), MyHuberish()
    assert a.name.startswith("my_huberish") and a.name != b.name
    value = a(np.array([[1.0, 2.0]]), np.array([[2.0, 4.0]]), sample_weight=[2.0])
    _close(float(value), 2.0 * (1 + 8) / 2)
    with pytest.raises(NotImplementedError):
        losses.Loss()(1.0, 1.0)


# --------------------------------------------------------------------------- dtypes, errors


def test_loss_object_casts_to_its_dtype():
    y_true = np.array([[0.0, 1.0]])
    y_pred = tf.constant([[0.3, 0.6]], dtype=tf.float64)
    assert losses.BinaryCrossentropy()(y_true, y_pred).dtype == tf.float32
    assert losses.BinaryCrossentropy(dtype="float64")(y_true, y_pred).dtype == tf.float64
    assert losses.BinaryCrossentropy(dtype=tf.float64).dtype == "float64"
    # The function form keeps the prediction's dtype and casts the targets to it.
    assert losses.binary_crossentropy(y_true, y_pred).dtype == tf.float64


def test_loss_of_variables_differentiates_to_the_variables():
    w = tf.Variable([[0.5, -0.3], [0.2, 0.9]])
    x = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        loss = losses.SparseCategoricalCrossentropy(from_logits=True)(np.array([1]), tf.matmul(x, w))
    (g,) = tape.gradient(loss, [w])
    assert g is not None and g.shape == (2, 2)
    assert np.all(np.isfinite(g.numpy())) and np.any(g.numpy() != 0)


def test_reduction_is_checked():
    with pytest.raises(ValueError, match="Invalid value for argument `reduction`.*Received: reduction='avg'"):
        losses.MeanSquaredError(reduction="avg")


def test_shape_mismatch_names_the_shapes():
    with pytest.raises(ValueError, match=r"target.shape=\(2, 3\), output.shape=\(2, 4\)"):
        losses.categorical_crossentropy(np.zeros((2, 3)), np.ones((2, 4)) / 4)
    with pytest.raises(ValueError, match=r"same shape.*target.shape=\(2,\), output.shape=\(3,\)"):
        losses.binary_crossentropy(np.zeros(2), np.full(3, 0.5))
    with pytest.raises(ValueError, match=r"up until the last dimension.*target.shape=\(3,\), output.shape=\(2, 3\)"):
        losses.sparse_categorical_crossentropy(np.array([0, 1, 2]), np.ones((2, 3)) / 3)
    with pytest.raises(ValueError, match="Only axis=-1 is currently supported"):
        losses.sparse_categorical_crossentropy(np.array([0, 1]), np.ones((2, 3)) / 3, axis=0)
    with pytest.raises(ValueError, match="`axis` must be of type `int`"):
        losses.categorical_crossentropy(np.zeros((2, 3)), np.ones((2, 3)), axis=True)


def test_bad_labels_and_dtypes():
    with pytest.raises(tf.errors.InvalidArgumentError, match="label value of 5"):
        losses.sparse_categorical_crossentropy(np.array([5]), np.ones((1, 3)) / 3)
    with pytest.raises(TypeError, match=r"floating point, got dtype int32 \(shape \(2,\)\)"):
        losses.binary_crossentropy(np.array([0, 1], np.int32), np.array([0, 1], np.int32))


def test_empty_batch_reduces_to_the_empty_values():
    out = losses.MeanSquaredError()(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32))
    assert out.shape == (0,)


# --------------------------------------------------------------------------- float64 finite differences

RNG = np.random.default_rng(7)
Y_PROB = RNG.uniform(0.05, 0.95, size=(3, 4))
Y_BIN = (RNG.uniform(size=(3, 4)) > 0.5).astype(np.float64)
Y_ONEHOT = np.eye(4)[[1, 3, 0]]
Y_SPARSE = np.array([1, 3, 0])
LOGITS = RNG.normal(size=(3, 4)) * 3


@pytest.mark.parametrize(
    "name, fn, x",
    [
        ("mse", lambda p: losses.mean_squared_error(Y_BIN, p), Y_PROB),
        ("mae", lambda p: losses.mean_absolute_error(Y_BIN, p), Y_PROB),
        ("bce", lambda p: losses.binary_crossentropy(Y_BIN, p, label_smoothing=0.1), Y_PROB),
        ("bce_logits", lambda z: losses.binary_crossentropy(Y_BIN, z, from_logits=True), LOGITS),
        ("cce", lambda p: losses.categorical_crossentropy(Y_ONEHOT, p, label_smoothing=0.2), Y_PROB),
        ("cce_axis0", lambda p: losses.categorical_crossentropy(Y_PROB.T, p.__rtruediv__(1.0), axis=0), Y_PROB.T),
        ("cce_logits", lambda z: losses.categorical_crossentropy(Y_ONEHOT, z, from_logits=True), LOGITS),
        ("scce", lambda p: losses.sparse_categorical_crossentropy(Y_SPARSE, p), Y_PROB),
        ("scce_logits", lambda z: losses.sparse_categorical_crossentropy(Y_SPARSE, z, from_logits=True), LOGITS),
        ("bce_sigmoid", lambda z: losses.binary_crossentropy(Y_BIN, activations.sigmoid(z)), LOGITS),
        ("cce_softmax", lambda z: losses.categorical_crossentropy(Y_ONEHOT, activations.softmax(z)), LOGITS),
        ("mape", lambda p: losses.mean_absolute_percentage_error(Y_BIN + 0.5, p), Y_PROB),
        ("msle", lambda p: losses.mean_squared_logarithmic_error(Y_BIN, p), Y_PROB),
        ("cosine", lambda z: losses.cosine_similarity(Y_PROB, z), LOGITS),
        ("cosine_axis0", lambda z: losses.cosine_similarity(Y_PROB, z, axis=0), LOGITS),
        ("huber", lambda z: losses.huber(Y_BIN, z, delta=1.5), LOGITS),
        ("log_cosh", lambda z: losses.log_cosh(Y_BIN, z), LOGITS),
        ("kl_divergence", lambda p: losses.kl_divergence(Y_PROB / Y_PROB.sum(-1, keepdims=True), p), Y_PROB),
        ("poisson", lambda p: losses.poisson(Y_BIN * 2, p), Y_PROB),
        ("hinge", lambda z: losses.hinge(Y_BIN, z), LOGITS),
        ("squared_hinge", lambda z: losses.squared_hinge(2 * Y_BIN - 1, z), LOGITS),
        ("categorical_hinge", lambda z: losses.categorical_hinge(Y_ONEHOT, z / 5), LOGITS),
    ],
)
def test_loss_function_gradients_float64(name, fn, x):
    check_gradients(fn, x, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "none", "mean_with_sample_weight"])
@pytest.mark.parametrize(
    "cls, kwargs, y_true, x",
    [
        (losses.MeanSquaredError, {}, Y_BIN, Y_PROB),
        (losses.BinaryCrossentropy, {"from_logits": True}, Y_BIN, LOGITS),
        (losses.CategoricalCrossentropy, {}, Y_ONEHOT, Y_PROB),
        (losses.SparseCategoricalCrossentropy, {"from_logits": True, "ignore_class": 3}, Y_SPARSE, LOGITS),
    ],
)
def test_loss_class_gradients_float64(reduction, cls, kwargs, y_true, x):
    loss = cls(reduction=reduction, dtype="float64", **kwargs)
    sw = np.array([0.5, 2.0, 1.0])
    check_gradients(lambda p: loss(y_true, p, sample_weight=sw), x, rtol=1e-5, atol=1e-8)


def test_clipped_probabilities_have_zero_gradient():
    p = tf.constant([[0.0, 1.0, 0.5]], dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(p)
        loss = losses.binary_crossentropy(tf.constant([[1.0, 0.0, 1.0]], dtype=tf.float64), p)
    g = tape.gradient(loss, p).numpy()
    assert g[0, 0] == 0.0 and g[0, 1] == 0.0 and g[0, 2] != 0.0
    assert math.isclose(float(loss), (-math.log(1e-7) * 2 - math.log(0.5)) / 3, rel_tol=1e-6)


# --------------------------------------------------------------------------- metrics


def _batches(data: str) -> list:
    return [
        (_array(yt), _array(yp), None if sw is None else _array(sw, "float32"))
        for yt, yp, sw in REF["metric_batches"][data]
    ]


@pytest.mark.parametrize("case", REF["metrics"], ids=lambda c: c["cls"] + json.dumps(c["kwargs"]))
def test_metric_matches_keras(case):
    m = getattr(metrics, case["cls"])(**case["kwargs"])
    results = []
    for yt, yp, sw in _batches(case["data"]):
        assert m.update_state(yt, yp, sample_weight=sw) is None
        results.append(float(m.result()))
    _close(results, case["results"], rtol=1e-6)
    m.reset_state()
    assert float(m.result()) == case["after_reset"]
    assert m.name == case["name"]
    assert [v.name.split(":")[0] for v in m.variables] == case["variables"]
    assert all(isinstance(v, tf.Variable) and not v.trainable for v in m.variables)
    _check_config(getattr(metrics, case["cls"]), case["kwargs"], case["config"])
    assert metrics.deserialize(metrics.serialize(m)).get_config() == m.get_config()


@pytest.mark.parametrize("case", REF["value_metrics"], ids=lambda c: c["cls"])
def test_mean_and_sum_match_keras(case):
    m = getattr(metrics, case["cls"])()
    results = []
    for values, sw in REF["value_batches"]:
        m.update_state(_array(values), sample_weight=None if sw is None else _array(sw, "float32"))
        results.append(float(m.result()))
    _close(results, case["results"], rtol=1e-6)
    assert m.name == case["name"]
    assert [v.name.split(":")[0] for v in m.variables] == case["variables"]


def test_metric_call_updates_and_returns_the_result():
    m = metrics.Mean(name="loss_avg")
    assert float(m.result()) == 0.0
    assert float(m([1.0, 3.0])) == 2.0
    assert float(m(6.0)) == pytest.approx(10.0 / 3, rel=1e-7)
    assert repr(m) == "<Mean name=loss_avg>"
    m.reset_state()
    assert [float(v.numpy()) for v in m.variables] == [0.0, 0.0]


def test_metric_of_float64_keeps_its_dtype():
    m = metrics.MeanSquaredError(dtype="float64")
    m.update_state(np.array([[1.0, 2.0]]), np.array([[1.5, 2.0]]))
    assert m.result().dtype == tf.float64 and m.variables[0].dtype == tf.float64
    assert float(m.result()) == 0.125


def test_sparse_crossentropy_metric_masks_the_ignored_class():
    m = metrics.SparseCategoricalCrossentropy(ignore_class=2)
    yp = np.array([[0.7, 0.2, 0.1], [0.2, 0.2, 0.6], [0.1, 0.8, 0.1]], np.float32)
    m.update_state(np.array([0, 2, 1]), yp, sample_weight=np.ones(3, np.float32))
    _close(float(m.result()), (-math.log(0.7) - math.log(0.8)) / 2)


def test_custom_metric_subclass():
    class Positives(metrics.Metric):
        def __init__(self, name="positives", **kwargs):
            super().__init__(name=name, **kwargs)
            self.count = self.add_variable(shape=(), initializer="zeros", name="count")

        def update_state(self, values):
            self.count.assign_add(tf.reduce_sum(tf.cast(tf.constant(values) > 0, "float32")))

        def result(self):
            return tf.identity(self.count)

    m = Positives()
    m.update_state([1.0, -1.0, 2.0])
    assert float(m.result()) == 2.0 and len(m.variables) == 1
    m.reset_state()
    assert float(m.result()) == 0.0

    class Forgot(metrics.Metric):
        def __init__(self):
            self.x = self.add_variable((), "zeros")

    with pytest.raises(RuntimeError, match="super\\(\\).__init__"):
        Forgot()


@pytest.mark.parametrize("case", REF["accuracy_resolution"], ids=lambda c: f"{c['y_true_shape']}-{c['y_pred_shape']}")
def test_accuracy_resolution_matches_compile(case):
    m = metrics.get_metric(
        case["identifier"], np.zeros(case["y_true_shape"], np.float32), np.zeros(case["y_pred_shape"], np.float32)
    )
    assert type(m).__name__ == case["class"]
    assert m.name == case["name"]


def test_get_metric_other_identifiers():
    m = metrics.get_metric("mse", np.zeros((2, 1)), np.zeros((2, 1)))
    assert isinstance(m, metrics.MeanSquaredError) and m.name == "mse"
    m = metrics.get_metric(losses.mean_absolute_error, np.zeros((2, 1)), np.zeros((2, 1)))
    assert isinstance(m, metrics.MeanMetricWrapper) and m.name == "mean_absolute_error"
    m.update_state(np.array([[1.0], [2.0]]), np.array([[0.0], [0.0]]))
    assert float(m.result()) == 1.5
    with pytest.raises(ValueError, match="Expected metric, received `None`"):
        metrics.get_metric(None, np.zeros(1), np.zeros(1))


@pytest.mark.parametrize("identifier", sorted(REF["metric_get"]))
def test_metrics_get_matches_keras(identifier):
    expected = REF["metric_get"][identifier]
    obj = metrics.get(identifier)
    assert isinstance(obj, metrics.Metric)
    assert type(obj).__name__ == expected["class"]
    assert obj.name == expected["name"]


def test_metrics_get_errors():
    assert metrics.get(None) is None
    with pytest.raises(ValueError, match="Could not interpret metric identifier: f1"):
        metrics.get("f1")


# --------------------------------------------------------------------------- initializers


@pytest.mark.parametrize("case", REF["initializers"], ids=lambda c: f"{c['cls']}{c['shape']}")
def test_initializer_matches_keras_distribution(case):
    init = getattr(initializers, case["cls"])(seed=1, **case["kwargs"])
    assert initializers.compute_fans(case["shape"]) == (case["fan_in"], case["fan_out"])
    assert init.get_config() == case["config"]
    x = init(case["shape"])
    assert x.dtype == tf.float32 and list(x.shape) == case["shape"]
    values = x.numpy().astype(np.float64)
    assert np.array_equal(values, init(case["shape"]).numpy()) == case["same_values_on_second_call"]
    if isinstance(init, initializers.VarianceScaling):
        params = init.parameters(case["shape"])
        if "limit" in params:  # uniform: Keras' draw reaches its limit, tapers' stays inside it
            assert np.abs(values).max() <= params["limit"]
            if case["size"] > 1000:
                _close(params["limit"], max(abs(case["min"]), abs(case["max"])), rtol=2e-3)
        elif init.distribution == "truncated_normal":  # truncated at two untruncated standard deviations
            assert np.abs(values).max() <= 2 * params["stddev"] * (1 + 1e-6)
            if case["size"] > 1000:
                _close(2 * params["stddev"], max(abs(case["min"]), abs(case["max"])), rtol=1e-2)
    n = case["size"]
    if n > 1:
        # The streams differ, so compare the sample statistics within their sampling error.
        tol = 6 / math.sqrt(2 * n)
        assert abs(values.std() - case["std"]) <= tol * case["std"]
        assert abs(values.mean() - case["mean"]) <= 6 * case["std"] / math.sqrt(n)


def test_glorot_uniform_limit_formula():
    init = initializers.GlorotUniform()
    assert init.parameters((3, 3, 32, 64)) == {"limit": math.sqrt(6.0 / (288 + 576))}
    assert initializers.HeNormal().parameters((500,)) == {"stddev": math.sqrt(2 / 500) / 0.87962566103423978}
    assert initializers.compute_fans((4, 6, 5), input_axes=[0, 1], output_axes=[2]) == (24, 5)


def test_initializer_seeds():
    a, b = initializers.GlorotUniform(), initializers.GlorotUniform()
    x = a((20, 30)).numpy()
    assert np.array_equal(x, a((20, 30)).numpy())  # an instance repeats itself, as in Keras 3
    assert not np.array_equal(x, b((20, 30)).numpy())  # two unseeded instances differ
    assert a.get_config()["seed"] is None
    tf.random.set_seed(11)
    first = initializers.HeNormal()((10,)).numpy()
    tf.random.set_seed(11)
    assert np.array_equal(first, initializers.HeNormal()((10,)).numpy())  # set_seed makes programs reproducible
    # Creating an initializer (e.g. to read its config) leaves the random streams alone.
    tf.random.set_seed(3)
    expected = tf.random.normal([4]).numpy()
    tf.random.set_seed(3)
    initializers.get("glorot_uniform").get_config()
    assert np.array_equal(tf.random.normal([4]).numpy(), expected)
    tf.random.set_seed(None)
    gen = tf.random.Generator.from_seed(5)
    streaming = initializers.RandomNormal(seed=gen)
    assert not np.array_equal(streaming((5,)).numpy(), streaming((5,)).numpy())
    with pytest.raises(ValueError, match="`seed` argument should be"):
        initializers.RandomNormal(seed="x")


def test_initializer_dtypes_and_errors():
    assert initializers.GlorotNormal(seed=3)((4, 4), dtype="float64").dtype == tf.float64
    assert initializers.Zeros()((2,), dtype=tf.float64).dtype == tf.float64
    with pytest.raises(ValueError, match="Argument `scale` must be positive float"):
        initializers.VarianceScaling(scale=0)
    with pytest.raises(ValueError, match="Invalid `mode` argument: fan_max"):
        initializers.VarianceScaling(mode="fan_max")
    with pytest.raises(ValueError, match="Invalid `distribution` argument: cauchy"):
        initializers.VarianceScaling(distribution="cauchy")
    with pytest.raises(ValueError, match=r"only be used for 2D matrices. Received: shape=\(2, 2, 2\)"):
        initializers.Identity()((2, 2, 2))
    with pytest.raises(ValueError, match="at least two-dimensional"):
        initializers.Orthogonal()((3,))


def test_orthogonal_is_orthogonal():
    q = initializers.Orthogonal(gain=2.0, seed=4)((3, 3, 8)).numpy().reshape(9, 8).astype(np.float64)
    np.testing.assert_allclose(q.T @ q, 4 * np.eye(8), atol=1e-5)
    q = initializers.Orthogonal(seed=4)((3, 7)).numpy().astype(np.float64)
    np.testing.assert_allclose(q @ q.T, np.eye(3), atol=1e-5)


@pytest.mark.parametrize("case", REF["constant_initializers"], ids=lambda c: c["cls"] + str(c["shape"]))
def test_constant_initializers_match_keras(case):
    init = getattr(initializers, case["cls"])(**case["kwargs"])
    out = init(case["shape"], dtype=case["dtype"])
    assert out.dtype == case["dtype"]
    np.testing.assert_array_equal(out.numpy(), case["value"])
    # Keras' Identity forgets its gain in get_config; tapers keeps it, Keras' keys are a subset.
    assert case["config"].items() <= init.get_config().items()
    assert init.clone()(case["shape"], dtype=case["dtype"]).numpy().tolist() == case["value"]


@pytest.mark.parametrize("identifier", sorted(REF["initializer_get"]))
def test_initializers_get_matches_keras(identifier):
    assert type(initializers.get(identifier)).__name__ == REF["initializer_get"][identifier]


def test_initializers_get_other_identifiers():
    assert initializers.get(None) is None
    assert isinstance(initializers.get(initializers.HeUniform), initializers.HeUniform)
    cfg = initializers.serialize(initializers.RandomUniform(-1.0, 2.0, seed=3))
    again = initializers.get(cfg)
    assert isinstance(again, initializers.RandomUniform) and again.get_config() == {
        "seed": 3, "minval": -1.0, "maxval": 2.0,
    }  # fmt: skip
    fixed = initializers.get(np.arange(6.0).reshape(2, 3))
    assert fixed((2, 3)).numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError, match=r"Expected `shape` to be \(2, 3\)"):
        fixed((3, 2))
    fn = lambda shape, dtype=None: tf.ones(shape)  # noqa: E731
    assert initializers.get(fn) is fn
    with pytest.raises(ValueError, match="Could not interpret initializer identifier: glorot"):
        initializers.get("glorot")


# --------------------------------------------------------------------------- activations


@pytest.mark.parametrize(
    "case", REF["activations"], ids=lambda c: f"{c['name']}{json.dumps(c['kwargs'])}-{c['dtype']}-{len(c['x'])}"
)
def test_activation_matches_keras(case):
    dtype = case["dtype"]
    x = tf.constant(np.asarray(case["x"], dtype=dtype))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = activations.get(case["name"])(x, **case["kwargs"])
        # Weights of y's shape (glu halves an axis), as the fixture script.
        w = tf.constant(np.linspace(0.5, 1.5, int(np.prod(y.shape))).reshape(y.shape).astype(dtype))
        s = tf.reduce_sum(y * w)
    g = tape.gradient(s, x)
    assert y.dtype == dtype
    if dtype == "float32":
        rtol, atol = 1e-5, 1e-6
    elif case["name"] == "gelu":
        # TensorFlow's float64 gelu is only float32-accurate (up to 2e-7 off the exact value); tapers' is within
        # 1e-9 of it (test_gelu_float64_is_accurate).
        rtol, atol = 1e-6, 1e-12
    else:
        rtol, atol = 1e-12, 1e-14
    np.testing.assert_allclose(y.numpy(), case["value"], rtol=rtol, atol=atol)
    np.testing.assert_allclose(g.numpy(), case["grad"], rtol=rtol, atol=atol)


def test_glu_needs_an_even_axis_and_threshold_needs_its_values():
    with pytest.raises(ValueError, match=r"axis size must be divisible by 2. Received: x.shape=\(2, 3\) with axis=-1"):
        activations.glu(tf.ones([2, 3]))
    assert activations.glu(tf.ones([3, 2]), axis=-1).shape == (3, 1)
    with pytest.raises(TypeError):
        activations.threshold(tf.ones([2]))  # type: ignore[call-arg]


def test_gelu_float64_is_accurate():
    xs = [-20.0, -6.0, -3.0, -1.0, -0.5, 0.5, 1.0, 3.0, 6.0]
    y = activations.gelu(tf.constant(xs, dtype=tf.float64)).numpy()
    exact = [0.5 * x * math.erfc(-x / math.sqrt(2.0)) for x in xs]
    np.testing.assert_allclose(y, exact, rtol=1e-9, atol=1e-20)


SMOOTH_POINTS = np.array([-7.5, -3.2, -1.3, -0.4, 0.3, 1.1, 2.7, 8.2])


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("relu", {"negative_slope": 0.1, "max_value": 4.0, "threshold": 0.5}), ("sigmoid", {}), ("tanh", {}),
        ("elu", {"alpha": 0.5}), ("selu", {}), ("gelu", {}), ("gelu", {"approximate": True}), ("silu", {}),
        ("softplus", {}), ("softsign", {}), ("exponential", {}), ("leaky_relu", {}), ("hard_sigmoid", {}),
        ("hard_silu", {}), ("mish", {}), ("log_sigmoid", {}), ("celu", {"alpha": 2.0}), ("relu6", {}),
        ("softmax", {}), ("log_softmax", {}), ("softmax", {"axis": None}), ("hard_shrink", {}), ("hard_tanh", {}),
        ("soft_shrink", {"threshold": 1.0}), ("sparse_plus", {}), ("sparse_sigmoid", {}), ("squareplus", {"b": 2.0}),
        ("tanh_shrink", {}), ("threshold", {"threshold": 0.5, "default_value": -2.0}), ("glu", {}),
        ("sparsemax", {}), ("sparsemax", {"axis": 0}),
    ],
)  # fmt: skip
def test_activation_gradients_float64(name, kwargs):
    fn = activations.get(name)
    check_gradients(lambda x: fn(x, **kwargs), SMOOTH_POINTS.reshape(2, 4), rtol=1e-5, atol=1e-6)


def test_activation_lookup_and_serialization():
    for name, expected in REF["activation_serialize"].items():
        assert activations.serialize(activations.get(name)) == expected
    assert activations.serialize(activations.get(None)) == REF["activation_get_none"]
    assert activations.get(None)(5) == 5
    assert activations.deserialize("swish") is activations.silu
    assert activations.get({"class_name": "function", "config": "tanh"}) is activations.tanh
    custom = lambda x: x  # noqa: E731
    assert activations.get(custom) is custom
    with pytest.raises(ValueError, match="Could not interpret activation function identifier: tanhh"):
        activations.get("tanhh")
    with pytest.raises(ValueError, match="cannot be serialized"):
        activations.serialize(custom)


@pytest.mark.parametrize("module", [losses, metrics], ids=lambda m: m.__name__)
def test_short_names_are_the_functions_tf_keras_names(module):
    names = REF["short_names"][module.__name__.rsplit(".", 1)[-1]]
    assert len(names) == 12
    for alias, target in names.items():
        fn = getattr(module, alias)
        assert fn is getattr(module, target) and fn.__name__ == target, alias
        assert alias in module.__all__


def test_initializers_other_names_are_the_classes():
    # Every other name tf.keras.initializers has, except those of STFT (not in tapers).
    names = {n: c for n, c in REF["initializer_names"].items() if c != "STFT"}
    assert len(names) == 17
    for name, cls in names.items():
        assert getattr(initializers, name) is getattr(initializers, cls), name
        assert name in initializers.__all__
    assert isinstance(initializers.glorot_uniform(seed=1), initializers.GlorotUniform)


@pytest.mark.parametrize("module", [activations, initializers, losses, metrics], ids=lambda m: m.__name__)
def test_public_names_exist(module):
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert not missing
    assert metrics.binary_crossentropy is losses.binary_crossentropy
