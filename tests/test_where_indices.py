"""``tapers.where(condition)``: TensorFlow's one-argument form (the ``Where`` op), against
TensorFlow 2.21's answers in data/where_indices_reference.json (made by
data/make_where_indices_reference.py from the cases in data/where_indices_programs.py)."""

from __future__ import annotations

import builtins
import json
import os
import sys

import numpy as np
import pytest

import tapers as tf

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "data"))
from where_indices_programs import CASES, condition  # noqa: E402

with open(os.path.join(HERE, "data", "where_indices_reference.json")) as fh:
    REF = json.load(fh)


@pytest.mark.parametrize("name", CASES)
def test_where_indices_match_tensorflow(name: str) -> None:
    want = REF["cases"][name]
    c = tf.constant(*condition(name))
    if "error" in want:
        with pytest.raises(getattr(tf.errors, want["error"]), match=want["message"]):
            tf.where(c)
        return
    got = tf.where(c)
    assert got.dtype.name == want["dtype"]
    assert list(got.shape) == want["shape"]
    want_value = np.array(want["value"], np.int64).reshape(want["shape"])
    np.testing.assert_array_equal(got.numpy().reshape(want["shape"]), want_value)


def test_one_of_x_and_y_alone_is_tensorflows_value_error() -> None:
    want = REF["one_of_x_y"]
    with pytest.raises(getattr(builtins, want["type"]), match=want["message"]):
        tf.where(tf.constant([True]), x=tf.constant([1.0]))
    with pytest.raises(ValueError, match=want["message"]):
        tf.where(tf.constant([True]), y=tf.constant([1.0]))


def test_compiled_where_indices_follow_each_calls_condition() -> None:
    """A data-dependent op: a replay computes the coordinates of its own call's values.
    Its result's shape depends on them too: a call with another count of true elements
    traces again (the graph was built for the traced shape), one with the same count
    replays (``tests/test_function_value_shapes.py``)."""

    @tf.function
    def f(x):
        return tf.where(x > 0.0)

    rng = np.random.default_rng(5)
    for _ in range(4):
        v = rng.normal(size=(6, 3)).astype(np.float32)
        for w in (v, v[::-1].copy()):  # the same count, other coordinates
            np.testing.assert_array_equal(f(tf.constant(w)).numpy(), np.argwhere(w > 0))
    assert f.experimental_get_tracing_count() == 4


def test_where_indices_gather_the_true_elements_under_a_tape() -> None:
    """The coordinates feed gather_nd; the gradient reaches only the gathered elements."""
    x = tf.constant(np.array([[1.0, -2.0], [3.0, -4.0]]))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.gather_nd(x, tf.where(x > 0.0)) ** 2)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[2.0, 0.0], [6.0, 0.0]])
