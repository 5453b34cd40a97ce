"""Ops whose results depend on the values of an index, mask or ordering (gather,
scatter, segments, boolean_mask, sort, top_k, unique, searchsorted, bincount) replayed
by ``tapers.function`` on new values: never the traced call's positions.

Without a tape recording, each such op is one op of the graph computed again from
its inputs (one trace serves every value); inside a ``GradientTape`` the gradient
rule holds the positions too, so the trace is guarded on the index values (a call
with others traces again) and the gradient is that of the call's own indices."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapers as tf

X = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))

CASES = {
    "gather": (lambda i: tf.gather(X, i), [[0, 1], [3, 2], [1, 1]]),
    "gather_axis1": (lambda i: tf.gather(X, i, axis=1), [[0, 1], [2, 2], [1, 0]]),
    "gather_batch": (lambda i: tf.gather(X, i, axis=1, batch_dims=1), [[[0], [1], [2], [0]], [[2], [2], [0], [1]]]),
    "gather_nd": (lambda i: tf.gather_nd(X, i), [[[0, 1]], [[3, 2]], [[2, 0]]]),
    "embedding_lookup": (lambda i: tf.nn.embedding_lookup(X, i), [[0], [3], [2]]),
    "scatter_nd": (lambda i: tf.scatter_nd(i, tf.constant([1.0, 2.0]), [4]), [[[0], [1]], [[3], [2]]]),
    "tensor_scatter_nd_add": (
        lambda i: tf.tensor_scatter_nd_add(tf.zeros([4]), i, tf.constant([1.0, 2.0])),
        [[[0], [1]], [[3], [3]]],
    ),
    "tensor_scatter_nd_update": (
        lambda i: tf.tensor_scatter_nd_update(tf.zeros([4]), i, tf.constant([1.0, 2.0])),
        [[[0], [1]], [[3], [2]]],
    ),
    "unsorted_segment_sum": (lambda i: tf.math.unsorted_segment_sum(tf.constant([1.0, 2.0]), i, 4), [[0, 1], [3, 3]]),
    "unsorted_segment_max": (lambda i: tf.math.unsorted_segment_max(tf.constant([1.0, 2.0]), i, 4), [[0, 1], [2, 2]]),
    "unsorted_segment_mean": (
        lambda i: tf.math.unsorted_segment_mean(tf.constant([1.0, 2.0]), i, 3),
        [[0, 1], [2, 2]],
    ),
    "segment_sum": (lambda i: tf.math.segment_sum(tf.constant([1.0, 2.0, 3.0]), i), [[0, 0, 1], [0, 1, 1]]),
    "reduce_mean_int": (lambda i: tf.reduce_mean(i), [[1, 2], [5, 8], [-3, 0]]),
    "boolean_mask": (
        lambda m: tf.boolean_mask(tf.constant([1.0, 2.0, 3.0]), m),
        [[True, False, True], [False, True, True]],
    ),
}

ORDERINGS = {
    "top_k_values": lambda x: tf.math.top_k(x, 2)[0],
    "top_k_indices": lambda x: tf.math.top_k(x, 2)[1],
    "sort": lambda x: tf.sort(x, direction="DESCENDING"),
    "argsort": lambda x: tf.argsort(x),
    "searchsorted": lambda x: tf.searchsorted(tf.constant([[0.0, 1.5, 2.5]]), x),
    "unique": lambda x: tf.unique(tf.reshape(tf.cast(x, "int32"), [-1]))[0],
    "unique_idx": lambda x: tf.unique(tf.reshape(tf.cast(x, "int32"), [-1]))[1],
    "bincount": lambda x: tf.math.bincount(tf.reshape(tf.cast(x, "int32"), [-1])),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_index_ops_replay_the_calls_own_indices(name):
    fn, values = CASES[name]
    f = tf.function(fn)
    for v in values + values[:1]:
        arg = tf.constant(v)
        np.testing.assert_array_equal(f(arg).numpy(), fn(arg).numpy(), err_msg=str(v))
    assert f.experimental_get_tracing_count() == 1, "one trace serves every index value"


@pytest.mark.parametrize("name", sorted(ORDERINGS))
def test_orderings_replay_on_the_new_values(name):
    fn = ORDERINGS[name]
    f = tf.function(fn)
    for v in [[[1.0, 3.0, 2.0]], [[3.0, 1.0, 2.0]], [[2.0, 2.0, 0.0]], [[1.0, 3.0, 2.0]]]:
        x = tf.constant(v)
        np.testing.assert_array_equal(f(x).numpy(), fn(x).numpy(), err_msg=str(v))
    # `unique` has a data-dependent shape; the others replay with one trace.
    if not name.startswith(("unique", "bincount")):
        assert f.experimental_get_tracing_count() == 1


def test_an_embedding_step_under_a_tape_uses_each_calls_ids():
    table = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2))

    @tf.function
    def step(ids):
        with tf.GradientTape() as t:
            y = tf.reduce_sum(tf.gather(table, ids) * tf.constant([[1.0], [10.0]]))
        return y, tf.convert_to_tensor(t.gradient(y, table))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # retracing warnings
        for ids in [[0, 1], [3, 3], [2, 0], [0, 1]]:
            y, g = step(tf.constant(ids))
            rows = np.arange(8, dtype=np.float32).reshape(4, 2)
            assert float(y) == pytest.approx(rows[ids[0]].sum() + 10 * rows[ids[1]].sum())
            want = np.zeros((4, 2), np.float32)
            want[ids[0]] += 1.0
            want[ids[1]] += 10.0
            np.testing.assert_array_equal(g.numpy(), want)


def test_a_step_with_unchanged_indices_under_a_tape_replays_without_tracing_again():
    table = tf.Variable(np.ones((4, 2), np.float32))
    ids = tf.constant([1, 2])

    @tf.function
    def step():
        with tf.GradientTape() as t:
            y = tf.reduce_sum(tf.gather(table, ids))
        return tf.convert_to_tensor(t.gradient(y, table))

    for _ in range(3):
        g = step()
    np.testing.assert_array_equal(g.numpy(), [[0, 0], [1, 1], [1, 1], [0, 0]])
    assert step.experimental_get_tracing_count() == 1
