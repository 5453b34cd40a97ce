"""Everyday calls leave no reference cycles behind.

A cycle that reaches a step's tensors keeps them alive until CPython's cycle
collector next runs (every few hundred container allocations): with 16 MB
outputs, a compiled step's memory grew by one output per call for about 30
calls, and each call wrote to freshly mapped pages. These tests run a workload
with the collector off and count what the next collection finds.
"""

import gc
from collections import namedtuple

import numpy as np
import pytest

import tapers as tf
from tapers import keras

Pair = namedtuple("Pair", "a b")
rng = np.random.default_rng(0)
X = tf.constant(rng.normal(size=(8, 4)).astype(np.float32))
LABELS = tf.constant(rng.integers(0, 3, size=8))


def cycles_left_by(workload, repeat: int = 3) -> int:
    workload()  # first calls trace, build layers, fill caches
    workload()
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeat):
            workload()
        return gc.collect()
    finally:
        gc.enable()


def eager_gradient():
    v = tf.Variable(np.ones(4, np.float32))
    with tf.GradientTape() as t:
        t.watch(X)
        y = tf.reduce_sum(tf.tanh(X * v))
    t.gradient(y, {"x": X, "v": [v]})


@tf.function
def structured(a):
    return {"sum": tf.reduce_sum(a), "parts": [a * 2.0, (a, Pair(a, a + 1.0))]}


@tf.function
def compiled_gradient(a):
    with tf.GradientTape() as t:
        t.watch(a)
        y = tf.reduce_sum(tf.exp(-a * a))
    return y, t.gradient(y, a)


def data_pipeline():
    ds = tf.data.Dataset.from_tensor_slices({"x": X, "y": (LABELS, LABELS)}).map(lambda d: (d["x"], d["y"])).batch(3)
    for _ in ds:
        pass


def branches():
    for i in range(3):
        tf.switch_case(tf.constant(i), [lambda: X, lambda: X * 2.0])
        tf.case([(tf.constant(i == 1), lambda: X)], default=lambda: -X)


@tf.function
def compiled_branches(i):
    return tf.switch_case(i, [lambda: X, lambda: X * 2.0, lambda: X * 3.0])


def keras_step():
    model = keras_step.model
    with tf.GradientTape() as t:
        loss = keras_step.loss(LABELS, model(X))
    grads = t.gradient(loss, model.trainable_variables)
    keras_step.opt.apply_gradients(zip(grads, model.trainable_variables))


keras_step.model = keras.Sequential([keras.layers.Dense(5, activation="relu"), keras.layers.Dense(3)])
keras_step.loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
keras_step.opt = keras.optimizers.Adam(0.01)

WORKLOADS = {
    "eager_gradient": eager_gradient,
    "compiled_structured_outputs": lambda: structured(X),
    "compiled_gradient": lambda: compiled_gradient(X),
    "data_pipeline": data_pipeline,
    "switch_case_and_case": branches,
    "compiled_switch_case": lambda: compiled_branches(tf.constant(1)),
    "keras_step": keras_step,
    "compiled_keras_step": tf.function(keras_step),
}


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_no_reference_cycles(name):
    assert cycles_left_by(WORKLOADS[name]) == 0


def test_the_count_sees_a_cycle():
    def leaky():
        a = [X]
        a.append(a)

    assert cycles_left_by(leaky) == 3
