"""Optimizers' get_config/from_config, default names and scale_loss, against Keras 3
(tests/data/make_keras_optimizer_config_reference.py)."""

import json
import pathlib

import numpy as np
import pytest

import tapers as tf

REF = json.loads((pathlib.Path(__file__).parent / "data" / "keras_optimizer_config_reference.json").read_text())


OPTIMIZERS = sorted(k for k, v in REF.items() if isinstance(v, dict) and "kwargs" in v)


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_get_config_is_keras(name):
    ref = REF[name]
    opt = getattr(tf.keras.optimizers, name)(**ref["kwargs"])
    cfg = opt.get_config()
    want = dict(ref["config"])
    assert sorted(cfg) == sorted(want)
    # Keras' default names are numbered per session (sgd, sgd_1, ...): compare the stem.
    assert cfg.pop("name").startswith(want.pop("name"))
    for key, value in want.items():
        if isinstance(value, float):
            assert cfg[key] == pytest.approx(value, rel=1e-7), key
        else:
            assert cfg[key] == value, key
    again = type(opt).from_config(opt.get_config())
    assert type(again) is type(opt) and again.get_config() == opt.get_config()
    assert int(again.iterations.numpy()) == 0


def test_from_config_trains_like_the_original():
    a = tf.keras.optimizers.RMSprop(0.01, momentum=0.5, centered=True)
    b = tf.keras.optimizers.RMSprop.from_config(a.get_config())
    va, vb = tf.Variable([1.0, -2.0]), tf.Variable([1.0, -2.0])
    for _ in range(3):
        a.apply_gradients([(tf.constant([0.3, 0.1]), va)])
        b.apply_gradients([(tf.constant([0.3, 0.1]), vb)])
    assert va.numpy().tobytes() == vb.numpy().tobytes()


def test_unimplemented_keras_options_are_refused():
    cfg = tf.keras.optimizers.Adam().get_config()
    assert tf.keras.optimizers.Adam.from_config(cfg) is not None
    with pytest.raises(NotImplementedError, match="use_ema"):
        tf.keras.optimizers.Adam.from_config({**cfg, "use_ema": True})


def test_default_names_are_numbered_like_keras():
    tf.keras.backend.clear_session()
    names = [tf.keras.optimizers.SGD().name, tf.keras.optimizers.SGD().name, tf.keras.optimizers.AdamW().name,
             tf.keras.optimizers.RMSprop().name, tf.keras.optimizers.SGD(name="mine").name]
    assert names == ["sgd", "sgd_1", "adam_w", "rm_sprop", "mine"]
    tf.keras.backend.clear_session()


def test_scale_loss_is_identity_and_fit_scales_through_it():
    opt = tf.keras.optimizers.SGD(0.1)
    loss = tf.constant(2.5)
    assert opt.scale_loss(loss) is loss
    # fit takes gradients of optimizer.scale_loss(loss): with a LossScaleOptimizer the update is
    # the inner optimizer's (the scale cancels), as in Keras.
    x = np.linspace(-1, 1, 8, dtype="float32").reshape(8, 1)
    y = 3 * x

    def trained(opt):
        m = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(1, use_bias=False)])
        m.set_weights([np.array([[0.5]], "float32")])
        m.compile(optimizer=opt, loss="mse")
        m.fit(x, y, batch_size=8, epochs=3, verbose=0)
        return m.get_weights()[0]

    plain = trained(tf.keras.optimizers.SGD(0.1))
    scaled = trained(tf.keras.optimizers.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1)))
    np.testing.assert_allclose(scaled, plain, rtol=1e-6)
    assert abs(float(plain[0, 0]) - 0.5) > 0.1  # it trained


@pytest.mark.parametrize("key", sorted(REF["schedules"]))
def test_schedules_match_keras(key):
    ref = REF["schedules"][key]
    cls = getattr(tf.keras.optimizers.schedules, ref["class"])
    sched = cls(**ref["kwargs"])
    got = [float(sched(s)) for s in REF["schedule_steps"]]
    np.testing.assert_allclose(got, ref["values"], rtol=2e-6, atol=1e-9)
    assert sched.get_config() == ref["config"]
    ser = tf.keras.optimizers.schedules.serialize(sched)
    assert ser == ref["serialized"]
    again = tf.keras.optimizers.schedules.deserialize(ser)
    assert type(again) is cls and again.get_config() == sched.get_config()
    # A schedule's rate inside a compiled step follows the optimizer's iterations.
    step = tf.Variable(0, dtype=tf.int64)
    f = tf.function(lambda: sched(step))
    for s in (3, 17):
        step.assign(s)
        np.testing.assert_allclose(float(f()), float(sched(s)), rtol=1e-7)


def test_optimizer_config_serializes_its_schedule_as_keras():
    S = tf.keras.optimizers.schedules
    opt = tf.keras.optimizers.SGD(learning_rate=S.ExponentialDecay(0.1, 7, 0.5))
    cfg = opt.get_config()
    assert cfg["learning_rate"] == REF["optimizer_with_schedule"]
    again = tf.keras.optimizers.SGD.from_config(cfg)
    assert isinstance(again._learning_rate, S.ExponentialDecay)
    assert float(again.learning_rate) == float(opt.learning_rate)
    with pytest.raises(ValueError, match="Could not interpret learning rate schedule"):
        S.deserialize({"class_name": "Nope", "config": {}})
    with pytest.raises(ValueError, match="boundaries should be 1 less"):
        S.PiecewiseConstantDecay([1, 2], [1.0])
    with pytest.raises(ValueError, match="decay_steps` must be > 0"):
        S.PolynomialDecay(0.1, 0)
