"""``tapers.init_scope``: ops in it are lifted out of a trace and out of tapes (TensorFlow's
``tf.init_scope``): a traced function runs them once, while tracing, reads their values
into Python without guards, and tapes do not record them."""

from __future__ import annotations

import numpy as np
import pytest

import tapers as tf


def test_values_read_in_the_scope_make_no_guard() -> None:
    draws: list[float] = []
    v = tf.Variable(0.0)

    @tf.function
    def f(x: tf.Tensor) -> tf.Tensor:
        with tf.init_scope():
            assert not tf.inside_function()
            draws.append(float(tf.random.uniform([])))  # a new value at every call
        v.assign_add(x)
        return v * 2.0

    assert float(f(tf.constant(1.0))) == 2.0
    assert float(f(tf.constant(1.0))) == 4.0
    assert float(f(tf.constant(2.0))) == 8.0
    # Traced once: the read in the scope guards nothing, and the draw is not replayed.
    assert f.experimental_get_tracing_count() == 1
    assert len(draws) == 1


def test_the_lifted_ops_are_not_replayed() -> None:
    counter = tf.Variable(0)

    @tf.function
    def f(x: tf.Tensor) -> tf.Tensor:
        with tf.init_scope():
            counter.assign_add(1)
        return x + 1.0

    for _ in range(4):
        f(tf.constant(1.0))
    assert int(counter.numpy()) == 1


def test_tapes_pause_in_the_scope_and_resume_after() -> None:
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with tf.init_scope():
            lifted = x * x
        y = x * x
    assert tape.gradient(lifted, x) is None
    assert float(tape.gradient(y, x)) == 6.0


def test_the_scope_restores_recording_after_an_error() -> None:
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(ValueError, match="boom"):
            with tf.init_scope():
                raise ValueError("boom")
        y = x * x * x
    assert float(tape.gradient(y, x)) == 12.0


def test_a_model_built_by_a_compiled_step_traces_once() -> None:
    # Keras layers create their weights in the scope: the unseeded initializers' seeds,
    # read into Python, guard nothing, and the step does not trace again.
    keras = tf.keras
    model = keras.Sequential([keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1)])
    opt = keras.optimizers.SGD(0.1)
    x, y = tf.ones([8, 3]), tf.zeros([8, 1])

    @tf.function
    def step() -> tf.Tensor:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x) - y) ** 2)
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss

    losses = [float(step()) for _ in range(5)]
    assert step.experimental_get_tracing_count() == 1
    assert len(model.weights) == 4
    assert losses[-1] < losses[0]
    assert np.isfinite(losses).all()
