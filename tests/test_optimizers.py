"""Optimizers reproduce Keras 3's trajectories (reference values computed by
Keras: tests/data/make_keras_reference.py)."""

import json
from pathlib import Path

import numpy as np
import pytest

import tapers as tf

REF = json.loads((Path(__file__).parent / "data" / "keras_optimizer_trajectories.json").read_text())

CONFIGS = {
    "sgd": lambda: tf.optimizers.SGD(0.1),
    "sgd_momentum": lambda: tf.optimizers.SGD(0.1, momentum=0.9),
    "sgd_nesterov": lambda: tf.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    "adam": lambda: tf.optimizers.Adam(0.1),
    "adam_amsgrad": lambda: tf.optimizers.Adam(0.1, amsgrad=True),
    "adamw": lambda: tf.optimizers.AdamW(0.1, weight_decay=0.05),
    "rmsprop": lambda: tf.optimizers.RMSprop(0.1),
    "rmsprop_centered_momentum": lambda: tf.optimizers.RMSprop(0.05, momentum=0.5, centered=True),
    "sgd_exp_decay": lambda: tf.optimizers.SGD(tf.optimizers.schedules.ExponentialDecay(0.1, 3, 0.5)),
    "adam_cosine": lambda: tf.optimizers.Adam(tf.optimizers.schedules.CosineDecay(0.1, 8, alpha=0.1)),
    "sgd_clipnorm": lambda: tf.optimizers.SGD(0.1, clipnorm=1.0),
    "sgd_global_clipnorm": lambda: tf.optimizers.SGD(0.1, global_clipnorm=1.0),
    "sgd_clipvalue": lambda: tf.optimizers.SGD(0.1, clipvalue=0.5),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_trajectory_matches_keras(name):
    opt = CONFIGS[name]()
    c = tf.constant([1.0, 2.0, 3.0])
    v = tf.Variable([1.0, -2.0, 3.0])
    w = tf.Variable([[0.5, -0.25]])
    for step, expected in enumerate(REF[name]):
        with tf.GradientTape() as t:
            loss = tf.reduce_sum(v * v * c) + tf.reduce_sum(tf.sin(w) * 3)
        gv, gw = t.gradient(loss, [v, w])
        opt.apply_gradients(zip([gv, gw], [v, w]))
        got = v.numpy().tolist() + w.numpy().ravel().tolist()
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6, err_msg=f"{name} step {step + 1}")
    assert int(opt.iterations.numpy()) == 10


def test_minimize_with_callable_and_tape():
    v = tf.Variable(3.0)
    opt = tf.optimizers.SGD(0.25)
    opt.minimize(lambda: v * v, [v])
    assert v.numpy() == pytest.approx(1.5)
    with tf.GradientTape() as tape:
        loss = v * v
    opt.minimize(loss, [v], tape=tape)
    assert v.numpy() == pytest.approx(0.75)
    with pytest.raises(ValueError, match="`tape` is required"):
        opt.minimize(v * v, [v])


def test_none_gradients_are_skipped_with_a_warning():
    v, u = tf.Variable(1.0), tf.Variable(2.0)
    opt = tf.optimizers.SGD(0.1)
    with pytest.warns(UserWarning, match="Gradients do not exist"):
        opt.apply_gradients([(tf.constant(1.0), v), (None, u)])
    assert v.numpy() == pytest.approx(0.9) and u.numpy() == 2.0


def test_mismatched_gradient_is_a_clear_error_and_changes_nothing():
    v = tf.Variable([1.0, 2.0])
    opt = tf.optimizers.Adam(0.1)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"gradient of shape \[3\].*shape \[2\]"):
        opt.apply_gradients([(tf.constant([1.0, 2.0, 3.0]), v)])
    assert v.numpy().tolist() == [1.0, 2.0]


def test_updates_are_in_place_when_unshared():
    v = tf.Variable(np.ones(1000, dtype=np.float32))
    opt = tf.optimizers.SGD(0.5)
    g = tf.ones([1000])
    opt.apply_gradients([(g, v)])
    view = v.numpy()  # shares the buffer: the next update must copy, not write under it
    opt.apply_gradients([(g, v)])
    assert view[0] == 0.5 and v.numpy()[0] == 0.0


def test_schedules():
    s = tf.optimizers.schedules.ExponentialDecay(1.0, 10, 0.5, staircase=True)
    assert [float(s(k)) for k in (0, 9, 10, 25)] == [1.0, 1.0, 0.5, 0.25]
    c = tf.optimizers.schedules.CosineDecay(1.0, 10, alpha=0.0, warmup_target=2.0, warmup_steps=4)
    assert float(c(0)) == 1.0 and float(c(2)) == 1.5 and float(c(4)) == 2.0
    assert float(c(14)) == pytest.approx(0.0, abs=1e-7)
    # Keras 3 computes schedules with float32 tensor ops on the step tensor.
    r = c(tf.Variable(3, dtype=tf.int64))
    assert (r.dtype, r.shape) == (tf.float32, ())
    assert float(c(1000)) == float(c(14))  # clamped at the end of the decay


@pytest.mark.parametrize("name", ["sgd_exp_decay", "adam_cosine"])
def test_scheduled_step_compiles_and_matches_eager_bits(name):
    # Inside tapers.function the rate is computed in the graph from the counter
    # each replay reads: one trace, no fallback, eager's values bit for bit.
    def make():
        opt = CONFIGS[name]()
        v = tf.Variable([1.0, -2.0, 3.0])

        def step():
            with tf.GradientTape() as t:
                loss = tf.reduce_sum(v * v * tf.constant([1.0, 2.0, 3.0]))
            opt.apply_gradients([(t.gradient(loss, v), v)])
            return loss

        return opt, v, step

    (opt_e, v_e, eager), (opt_c, v_c, step) = make(), make()
    compiled = tf.function(step)
    for k in range(10):
        eager()
        compiled()
        assert v_e.numpy().tobytes() == v_c.numpy().tobytes(), f"step {k + 1}"
        assert float(opt_e.learning_rate) == float(opt_c.learning_rate)
    assert compiled.experimental_get_tracing_count() == 1
    assert int(opt_c.iterations.numpy()) == 10
    assert float(opt_c.learning_rate) != float(CONFIGS[name]().learning_rate)  # the rate moved


def test_learning_rate_tensor_must_be_a_real_scalar():
    v = tf.Variable([1.0, 2.0])
    opt = tf.optimizers.SGD(lambda: tf.constant([0.1, 0.2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"learning rate must be a scalar.*\[2\]"):
        opt.apply_gradients([(tf.constant([1.0, 1.0]), v)])
    assert v.numpy().tolist() == [1.0, 2.0]


def test_clipping_helpers():
    np.testing.assert_allclose(tf.clip_by_norm([3.0, 4.0], 1.0).numpy(), [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(tf.clip_by_norm([0.3, 0.4], 1.0).numpy(), [0.3, 0.4], rtol=1e-6)
    clipped, norm = tf.clip_by_global_norm([[3.0], None, [4.0]], 1.0)
    assert norm.numpy() == pytest.approx(5.0)
    assert clipped[1] is None
    np.testing.assert_allclose([clipped[0].numpy()[0], clipped[2].numpy()[0]], [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(tf.clip_by_value([1.0, 5.0], 2.0, 4.0).numpy(), [2.0, 4.0])
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(tf.clip_by_value(x, 2.0, 2.5))
    assert t.gradient(y, x).numpy().tolist() == [0.0, 1.0, 0.0]


def test_only_one_clipping_option():
    with pytest.raises(ValueError, match="Only one of"):
        tf.optimizers.SGD(0.1, clipnorm=1.0, clipvalue=1.0)
