"""A sum of every element is the same bits whatever the input's memory layout.

Full reductions add fixed-size chunks of the elements in row-major order;
a transposed view or the result of a gather along an inner axis is summed in
that order too (not in memory order), so eager execution with or without a
tape, and a replay, give the same bits.
"""

import numpy as np
import pytest

import tapers as tf

R = np.random.default_rng(5)


def same_bits(a, b):
    assert np.asarray(a).tobytes() == np.asarray(b).tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_transposed_view_sums_as_its_contiguous_copy(dtype):
    x = (R.normal(size=(300, 700)) * 10).astype(dtype)
    t = tf.transpose(tf.constant(x))
    copy = tf.constant(np.ascontiguousarray(x.T))
    same_bits(tf.reduce_sum(t).numpy(), tf.reduce_sum(copy).numpy())
    same_bits(tf.reduce_mean(t).numpy(), tf.reduce_mean(copy).numpy())
    same_bits(tf.reduce_sum(t, keepdims=True).numpy(), tf.reduce_sum(copy, keepdims=True).numpy())


def test_a_gather_along_an_inner_axis_sums_the_same_with_and_without_a_tape():
    x = tf.constant(R.normal(size=(3, 40)))
    for _ in range(20):
        ids = tf.constant(R.integers(0, 40, size=24))
        plain = tf.reduce_sum(tf.gather(x, ids, axis=1) ** 3)
        with tf.GradientTape() as t:
            t.watch(x)
            taped = tf.reduce_sum(tf.gather(x, ids, axis=1) ** 3)
        same_bits(plain.numpy(), taped.numpy())
        copy = tf.constant(np.ascontiguousarray(tf.gather(x, ids, axis=1).numpy()))
        same_bits(plain.numpy(), tf.reduce_sum(copy**3).numpy())
