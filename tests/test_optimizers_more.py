"""Adafactor, Lamb, Muon, ScheduleFreeAdamW and LossScaleOptimizer against Keras 3.15's
trajectories (fixture from ``tests/data/make_keras_optimizers_more_reference.py``), eager
and under ``tapers.function``, plus configs, IndexedSlices gradients, errors and
``keras.mixed_precision``'s policies."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tapers as tf
from tapers import keras

REF = json.loads((Path(__file__).parent / "data" / "keras_optimizers_more_reference.json").read_text())
SHAPES = {k: tuple(v) for k, v in REF["shapes"].items()}
SHAPES["token_embedding"] = (4, 3)  # only in the Muon embedding case
TOL = dict(rtol=1e-5, atol=1e-6)


def _initial(name, zero=()):
    # The generator's formulas (checked against the recorded values below).
    if name in zero:
        return np.zeros(SHAPES[name], np.float32)
    shape = SHAPES[name]
    return np.random.default_rng(len(name) * 7 + len(shape)).uniform(-1.0, 1.0, size=shape).astype(np.float32)


def _grad(step, name, shape=None):
    shape = SHAPES[name] if shape is None else shape
    rng = np.random.default_rng(1000 + 31 * step + len(name) * 3 + len(shape))
    return rng.normal(0.0, 1.0, size=shape).astype(np.float32)


def test_inputs_are_the_generators():
    for name in REF["initial"]:
        np.testing.assert_array_equal(_initial(name).reshape(-1), np.array(REF["initial"][name], np.float32))
        for s in range(REF["steps"]):
            np.testing.assert_array_equal(_grad(s, name).reshape(-1), np.array(REF["grads"][s][name], np.float32))


def _run(make, names, steps=5, compiled=False, zero=()):
    variables = [tf.Variable(_initial(n, zero), name=n) for n in names]
    opt = make()

    def step(grads):
        opt.apply_gradients(zip(grads, variables))

    if compiled:
        step = tf.function(step)
    out = []
    for s in range(steps):
        step([tf.constant(_grad(s, n)) for n in names])
        out.append({n: v.numpy() for n, v in zip(names, variables)})
    return out, step, opt


def _check(got, expected, names):
    assert len(got) == len(expected)
    for s, (g, e) in enumerate(zip(got, expected)):
        for n in names:
            np.testing.assert_allclose(g[n].reshape(-1), np.array(e[n]), **TOL, err_msg=f"step {s}, {n}")


def _make(cls, kwargs):
    kwargs = dict(kwargs)
    return lambda: getattr(keras.optimizers, cls)(**kwargs)


@pytest.mark.parametrize("key", sorted(REF["cases"]))
def test_trajectories_match_keras(key):
    case = REF["cases"][key]
    got, _, _ = _run(_make(case["cls"], case["kwargs"]), case["names"])
    _check(got, case["traj"], case["names"])


@pytest.mark.parametrize("key", ["adafactor_clip", "lamb_wd", "muon_lr", "sfadamw_warmup", "adafactor_default"])
def test_function_is_bitwise_eager_and_traces_once(key):
    case = REF["cases"][key]
    eager, _, _ = _run(_make(case["cls"], case["kwargs"]), case["names"])
    compiled, step, opt = _run(_make(case["cls"], case["kwargs"]), case["names"], compiled=True)
    for e, c in zip(eager, compiled):
        for n in case["names"]:
            assert e[n].tobytes() == c[n].tobytes(), (key, n)
    assert step.experimental_get_tracing_count() == 1
    assert int(opt.iterations.numpy()) == 5


def test_lamb_zero_variable_uses_trust_ratio_one():
    got, _, _ = _run(lambda: keras.optimizers.Lamb(learning_rate=0.1), ["kernel", "bias"], zero=("kernel",))
    _check(got, REF["lamb_zero"], ["kernel", "bias"])


@pytest.mark.parametrize("cls", sorted(REF["schedule"]))
def test_learning_rate_schedule(cls):
    def make():
        sched = keras.optimizers.schedules.ExponentialDecay(0.05, decay_steps=2, decay_rate=0.5)
        return getattr(keras.optimizers, cls)(learning_rate=sched)

    names = ["kernel", "tall", "bias", "cube", "scalar"]
    got, _, _ = _run(make, names)
    _check(got, REF["schedule"][cls], names)
    compiled, step, _ = _run(make, names, compiled=True)
    _check(compiled, REF["schedule"][cls], names)
    assert step.experimental_get_tracing_count() == 1


def test_muon_embedding_takes_adamw_step():
    names = ["token_embedding", "kernel"]
    got, _, opt = _run(lambda: keras.optimizers.Muon(learning_rate=0.01), names)
    _check(got, REF["muon_embedding"], names)
    # Adam-stepped variables get a velocity slot, Muon-stepped ones only a momentum.
    assert len(opt.variables()) == 1 + 2 + 1


@pytest.mark.parametrize("key", sorted(REF["indexed_slices"]))
@pytest.mark.parametrize("compiled", [False, True])
def test_indexed_slices_gradients(key, compiled):
    case = REF["indexed_slices"][key]
    assert "traj" in case, case  # Keras accepts them
    var = tf.Variable(_initial("tall"), name=case["name"])
    opt = getattr(keras.optimizers, case["cls"])(**case["kwargs"])

    def step(rows):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.gather(var, [0, 3, 0]) * rows)
        g = tape.gradient(loss, var)
        assert isinstance(g, tf.IndexedSlices)
        opt.apply_gradients([(g, var)])

    if compiled:
        step = tf.function(step)
    for s in range(3):
        step(tf.constant(_grad(s, "rows", (3, 3))))
        np.testing.assert_allclose(var.numpy().reshape(-1), np.array(case["traj"][s]), **TOL, err_msg=f"step {s}")


@pytest.mark.parametrize("key", sorted(REF["configs"]))
def test_get_config_matches_keras_and_round_trips(key):
    expected = dict(REF["configs"][key])
    if key == "lso":
        opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.1), initial_scale=4.0, dynamic_growth_steps=3)
    else:
        case = REF["cases"][key]
        opt = _make(case["cls"], case["kwargs"])()
    cfg = opt.get_config()
    expected.pop("name")
    for k, v in expected.items():
        if isinstance(v, float):
            assert cfg[k] == pytest.approx(v, rel=1e-6), k
        else:
            assert cfg[k] == v, k
    again = type(opt).from_config(cfg)
    assert type(again) is type(opt)
    assert again.get_config() == cfg


def test_loss_scale_optimizer_config_keeps_inner_hyperparameters():
    inner = keras.optimizers.Adam(learning_rate=0.05, beta_1=0.8, amsgrad=True)
    lso = keras.optimizers.LossScaleOptimizer(inner, initial_scale=16.0, dynamic_growth_steps=7)
    cfg = lso.get_config()
    assert cfg["inner_optimizer"]["class_name"] == "Adam"
    assert cfg["inner_optimizer"]["config"]["beta_1"] == pytest.approx(0.8)
    assert cfg["inner_optimizer"]["config"]["amsgrad"] is True
    again = keras.optimizers.LossScaleOptimizer.from_config(cfg)
    assert isinstance(again.inner_optimizer, keras.optimizers.Adam)
    assert again.initial_scale == 16.0 and again.dynamic_growth_steps == 7
    assert again.get_config() == cfg


def _lso_grads(step, name):
    g = _grad(step, name) * 8.0
    bad = {2: np.inf, 5: np.nan}
    if step in bad and name == "kernel":
        g = g.copy()
        g.reshape(-1)[1] = bad[step]
    return g


LSO = {"sgd": ("SGD", {"learning_rate": 0.1}, 8.0, 2), "adam": ("Adam", {"learning_rate": 0.05}, 2.0**15, 3),
       "lamb": ("Lamb", {"learning_rate": 0.05}, 4.0, 1)}  # fmt: skip


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("key", sorted(LSO))
def test_loss_scale_optimizer_dynamic_scale(key, compiled):
    cls, kwargs, initial_scale, growth = LSO[key]
    names = ["kernel", "bias"]
    variables = [tf.Variable(_initial(n), name=n) for n in names]
    opt = keras.mixed_precision.LossScaleOptimizer(
        getattr(keras.optimizers, cls)(**kwargs), initial_scale=initial_scale, dynamic_growth_steps=growth
    )

    def step(grads):
        opt.apply_gradients(zip(grads, variables))

    if compiled:
        step = tf.function(step)
    for s, expected in enumerate(REF["lso"][key]):
        step([tf.constant(_lso_grads(s, n)) for n in names])
        for n, v in zip(names, variables):
            np.testing.assert_allclose(v.numpy().reshape(-1), np.array(expected[n]), **TOL, err_msg=f"{key} {s} {n}")
        assert float(opt.dynamic_scale.numpy()) == expected["scale"]
        assert int(opt.step_counter.numpy()) == expected["counter"]
        assert int(opt.iterations.numpy()) == expected["iterations"]
        assert float(opt.scale_loss(tf.constant(1.5)).numpy()) == expected["scaled_loss"]
    if compiled:
        assert step.experimental_get_tracing_count() == 1


def test_loss_scale_optimizer_skipped_step_keeps_inner_state():
    v = tf.Variable([1.0, 2.0])
    inner = keras.optimizers.Nadam(learning_rate=0.1)
    opt = keras.optimizers.LossScaleOptimizer(inner, initial_scale=4.0)
    opt.apply_gradients([(tf.constant([np.nan, 1.0]), v)])  # first step skipped: state as built
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert all(not np.any(s.numpy()) for s in inner.variables()[2:])
    assert float(inner.variables()[1].numpy()) == 1.0  # Nadam's u_product, untouched
    assert int(opt.iterations.numpy()) == 0 and float(opt.dynamic_scale.numpy()) == 2.0
    ref_v = tf.Variable([1.0, 2.0])
    keras.optimizers.Nadam(learning_rate=0.1).apply_gradients([(tf.constant([0.5, 0.25]), ref_v)])
    opt.apply_gradients([(tf.constant([1.0, 0.5]), v)])  # 2 * (0.5, 0.25) with scale 2
    np.testing.assert_allclose(v.numpy(), ref_v.numpy(), rtol=1e-6)


def test_loss_scale_optimizer_minimize_and_properties():
    v = tf.Variable([1.0, -2.0])
    opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.5), initial_scale=1024.0)
    opt.minimize(lambda: tf.reduce_sum(v * v), [v])
    np.testing.assert_allclose(v.numpy(), [0.0, 0.0])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(3.0 * v + 1.0)
    opt.minimize(loss, [v], tape=tape)
    np.testing.assert_allclose(v.numpy(), [-1.5, -1.5])
    assert opt.learning_rate == 0.5
    opt.learning_rate = 0.25
    assert opt.inner_optimizer.learning_rate == 0.25
    assert opt.iterations is opt.inner_optimizer.iterations
    assert opt.variables()[:2] == [opt.step_counter, opt.dynamic_scale]
    assert keras.mixed_precision.LossScaleOptimizer is keras.optimizers.LossScaleOptimizer
    assert tf.keras.mixed_precision.LossScaleOptimizer is tf.optimizers.LossScaleOptimizer


def test_loss_scale_optimizer_indexed_slices():
    table = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2))
    opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.1), initial_scale=4.0)
    with tf.GradientTape() as tape:
        loss = opt.scale_loss(tf.reduce_sum(tf.gather(table, [2, 2])))
    g = tape.gradient(loss, table)
    assert isinstance(g, tf.IndexedSlices)
    opt.apply_gradients([(g, table)])
    np.testing.assert_allclose(table.numpy(), [[0, 1], [2, 3], [3.8, 4.8]], rtol=1e-6)
    bad = tf.IndexedSlices(tf.constant([[np.inf, 0.0]]), tf.constant([0]), tf.constant([3, 2]))
    opt.apply_gradients([(bad, table)])
    np.testing.assert_allclose(table.numpy(), [[0, 1], [2, 3], [3.8, 4.8]], rtol=1e-6)
    assert float(opt.dynamic_scale.numpy()) == 2.0


def test_loss_scale_optimizer_float16_overflow_halves_the_scale():
    # A float16 computation: 2**15 * (grad 4) overflows float16, 2**14 * 4 does not.
    w = tf.Variable([1.0, 2.0])
    opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.01), initial_scale=2.0**15)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            w16 = tf.cast(w, "float16")
            loss = tf.reduce_sum(tf.square(w16) * tf.constant(1.0, "float16"))
            scaled = opt.scale_loss(loss)
        grad = tf.cast(tape.gradient(scaled, w), "float32")
        opt.apply_gradients([(grad, w)])

    step()  # 2**15 * 4 = 131072 > float16 max: inf, skipped
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])
    assert float(opt.dynamic_scale.numpy()) == 2.0**14 and int(opt.iterations.numpy()) == 0
    step()  # 2**14 * 4 = 65536 overflows too (float16 max 65504)
    assert float(opt.dynamic_scale.numpy()) == 2.0**13
    step()  # finite: unscaled gradient (2, 4) applied
    np.testing.assert_allclose(w.numpy(), [0.98, 1.96], rtol=1e-3)
    assert int(opt.iterations.numpy()) == 1 and int(opt.step_counter.numpy()) == 1
    assert step.experimental_get_tracing_count() == 1


def test_loss_scale_optimizer_bad_arguments():
    sgd = keras.optimizers.SGD()
    with pytest.raises(ValueError, match="dynamic=False"):
        keras.optimizers.LossScaleOptimizer(sgd, dynamic=False)
    with pytest.raises(ValueError, match="does not support `clipnorm`"):
        keras.optimizers.LossScaleOptimizer(sgd, clipnorm=1.0)
    with pytest.raises(ValueError, match="does not support arguments: `foo`"):
        keras.optimizers.LossScaleOptimizer(sgd, foo=1)
    with pytest.raises(TypeError, match="inner_optimizer"):
        keras.optimizers.LossScaleOptimizer("sgd")
    with pytest.raises(ValueError, match="dynamic_growth_steps"):
        keras.optimizers.LossScaleOptimizer(sgd, dynamic_growth_steps=0)
    keras.optimizers.LossScaleOptimizer(sgd, clipnorm=None, use_ema=False)  # Keras' defaults are accepted
    with pytest.raises(TypeError, match="Variable"):
        keras.optimizers.LossScaleOptimizer(sgd).apply_gradients([(tf.constant(1.0), 3.0)])


@pytest.mark.parametrize("cls", ["Adafactor", "Lamb", "Muon", "ScheduleFreeAdamW"])
def test_unsupported_options_and_bad_inputs(cls):
    klass = getattr(keras.optimizers, cls)
    with pytest.raises(NotImplementedError, match="use_ema"):
        klass(use_ema=True)
    with pytest.raises(NotImplementedError, match="gradient_accumulation_steps"):
        klass(gradient_accumulation_steps=2)
    with pytest.raises(ValueError, match="Argument\\(s\\) not recognized: {'bogus': 1}"):
        klass(bogus=1)
    with pytest.raises(ValueError, match="Only one of"):
        klass(clipnorm=1.0, clipvalue=1.0)
    opt = klass(learning_rate=0.01)
    v = tf.Variable(np.ones((2, 3), np.float32))
    with pytest.raises(Exception, match=r"2, 3|3, 2|shape|Incompatible"):
        opt.apply_gradients([(tf.ones((3, 2)), v)])
    with pytest.raises(TypeError, match="Variable"):
        opt.apply_gradients([(tf.ones((2, 3)), np.ones((2, 3)))])


def test_float64_variables():
    for cls in ("Adafactor", "Lamb", "Muon", "ScheduleFreeAdamW"):
        v = tf.Variable(np.full((3, 2), 0.5))
        opt = getattr(keras.optimizers, cls)(learning_rate=0.01)
        opt.apply_gradients([(tf.constant(np.full((3, 2), 0.1)), v)])
        assert v.dtype == tf.float64
        assert np.all(np.isfinite(v.numpy())) and not np.allclose(v.numpy(), 0.5)


def test_gradient_tape_training_reduces_loss():
    x = tf.constant(np.random.default_rng(0).normal(size=(16, 4)).astype(np.float32))
    y = tf.reduce_sum(x, axis=1, keepdims=True)
    for cls in ("Adafactor", "Lamb", "Muon", "ScheduleFreeAdamW"):
        w = tf.Variable(np.zeros((4, 1), np.float32) + 0.1)
        opt = getattr(keras.optimizers, cls)(learning_rate=0.05)

        @tf.function
        def train():
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))  # noqa: B023
            opt.apply_gradients([(tape.gradient(loss, w), w)])  # noqa: B023
            return loss

        first = float(train().numpy())
        for _ in range(30):
            last = float(train().numpy())
        assert last < first, cls


def test_get_by_name_as_keras():
    assert isinstance(keras.optimizers.get("adafactor"), keras.optimizers.Adafactor)
    assert isinstance(keras.optimizers.get("muon"), keras.optimizers.Muon)
    assert isinstance(keras.optimizers.get("schedulefreeadamw"), keras.optimizers.ScheduleFreeAdamW)
    with pytest.raises(ValueError, match="lamb"):  # Keras 3.15's `get` does not know "lamb" either
        keras.optimizers.get("lamb")


def test_scale_loss_without_loss_scaling_is_identity():
    for cls in ("Adafactor", "Lamb", "Muon", "ScheduleFreeAdamW"):
        loss = tf.constant(2.5)
        assert getattr(keras.optimizers, cls)().scale_loss(loss) is loss


def test_names_and_defaults():
    assert keras.optimizers.Adafactor().name.startswith("adafactor")  # Keras numbers later ones: adafactor_1, ...
    assert keras.optimizers.Lamb().learning_rate == 0.001
    assert keras.optimizers.ScheduleFreeAdamW().learning_rate == 0.0025
    assert keras.optimizers.Muon().get_config()["weight_decay"] == 0.004


# keras.mixed_precision's policies.
mp = keras.mixed_precision


def test_mixed_precision_exports_keras_names():
    assert sorted(mp.__all__) == REF["mixed_precision_names"] == REF["tf_mixed_precision_names"]
    for name in mp.__all__:
        assert hasattr(tf.keras.mixed_precision, name)


def test_policy_properties():
    p = mp.Policy("mixed_float16")
    assert (p.name, p.compute_dtype, p.variable_dtype, p.quantization_mode) == (
        "mixed_float16",
        "float16",
        "float32",
        None,
    )
    assert repr(p) == '<DTypePolicy "mixed_float16">'
    assert mp.DTypePolicy.from_config(p.get_config()) == p
    assert mp.DTypePolicy("bfloat16").compute_dtype == "bfloat16"
    assert mp.Policy().name == "float32"
    with pytest.raises(ValueError, match="Cannot convert 'foo'"):
        mp.Policy("foo")


def test_global_policy_float64_is_honoured_and_mixed_refused():
    assert mp.global_policy().name == "float32"
    try:
        mp.set_global_policy("float64")
        assert mp.global_policy() == mp.DTypePolicy("float64")
        assert keras.layers.Dense(2).dtype == "float64" or keras.backend.floatx() == "float64"
        with pytest.raises(NotImplementedError, match="mixed_float16"):
            mp.set_global_policy("mixed_float16")
        with pytest.raises(NotImplementedError, match="bfloat16"):
            mp.set_dtype_policy(mp.Policy("bfloat16"))
        assert mp.dtype_policy().name == "float64"  # a refused policy changes nothing
        with pytest.raises(ValueError, match="Invalid `policy` argument"):
            mp.set_global_policy(3)
    finally:
        mp.set_global_policy("float32")
    assert mp.global_policy().name == "float32" and keras.backend.floatx() == "float32"
