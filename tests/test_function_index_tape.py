"""Index ops under a tape inside `tapers.function` read each call's indices.

`gather_nd`, `gather` with batch dims, `boolean_mask`, `tf.where` feeding a
gather, the segment reductions written in Rust, `scatter_nd` and
`tensor_scatter_nd_add/update` record gradient pieces that hold positions read from an index tensor or a
mask. Those pieces now read positions the replay computes from that call's
indices, so a training step traces once and replays with new indices, with
eager's bits, instead of guarding on the indices, tracing again at every call
and ending eager after five.
"""

import warnings

import numpy as np
import pytest

import tapers as tf

R = np.random.default_rng(5)


def bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a.reshape(-1).view(np.uint8), b.reshape(-1).view(np.uint8))


def dense(g):
    return tf.convert_to_tensor(g).numpy()


def _ids(shape, high):
    return lambda: tf.constant(R.integers(0, high, size=shape).astype(np.int32))


def _mask():
    m = np.zeros(6, bool)
    m[R.permutation(6)[:3]] = True
    return tf.constant(m)


def _sorted_ids():
    # Every segment present, so the count of segments stays 3.
    return tf.constant(np.sort(np.r_[0, 1, 2, R.integers(0, 3, 3)]).astype(np.int32))


CASES = {
    "gather_nd": (lambda x, a: tf.gather_nd(x, a), _ids((5, 2), 4)),
    "gather_nd_rows": (lambda x, a: tf.gather_nd(x, a), _ids((3, 1), 6)),
    "gather_nd_batch_dims": (lambda x, a: tf.gather_nd(x, a, batch_dims=1), _ids((6, 2, 1), 4)),
    "gather_batch_dims": (lambda x, a: tf.gather(x, a, axis=1, batch_dims=1), _ids((6, 3), 4)),
    "boolean_mask": (lambda x, a: tf.boolean_mask(x, a), _mask),
    "where_then_gather": (lambda x, a: tf.gather(x, tf.where(a)[:, 0]), _mask),
    "unsorted_segment_sum": (lambda x, a: tf.math.unsorted_segment_sum(x, a, 3), _ids(6, 3)),
    "unsorted_segment_mean": (lambda x, a: tf.math.unsorted_segment_mean(x, a, 3), _ids(6, 3)),
    "unsorted_segment_max": (lambda x, a: tf.math.unsorted_segment_max(x, a, 3), _ids(6, 3)),
    "segment_sum": (lambda x, a: tf.math.segment_sum(x, a), _sorted_ids),
    "scatter_nd": (lambda x, a: tf.scatter_nd(a, x, [8, 4]), _ids((6, 1), 8)),
    "tensor_scatter_nd_add": (lambda x, a: tf.tensor_scatter_nd_add(tf.zeros([8, 4]), a, x * 2.0), _ids((6, 1), 8)),
    # Six distinct rows of eight: the same count of winning updates each call.
    "tensor_scatter_nd_update": (
        lambda x, a: tf.tensor_scatter_nd_update(tf.ones([8, 4]), a, x * 2.0),
        lambda: tf.constant(R.permutation(8)[:6, None].astype(np.int32)),
    ),
    "tensor_scatter_nd_update_into_x": (
        lambda x, a: tf.tensor_scatter_nd_update(x, a, tf.ones([2, 4])),
        lambda: tf.constant(R.permutation(6)[:2, None].astype(np.int32)),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_training_step_traces_once_and_matches_eager(name):
    body, make = CASES[name]
    init = R.normal(size=(6, 4)).astype(np.float32)

    def make_step():
        x = tf.Variable(init)
        opt = tf.keras.optimizers.Adam(0.05)

        def step(a):
            with tf.GradientTape() as t:
                y = body(x, a)
                loss = tf.reduce_sum(tf.tanh(y) * y)
            g = t.gradient(loss, x)
            opt.apply_gradients([(g, x)])
            return loss, tf.convert_to_tensor(g)

        return step, x

    eager_step, ex = make_step()
    compiled_step, cx = make_step()
    f = tf.function(compiled_step)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a retracing or fallback warning fails
        for _ in range(7):
            a = make()
            for u, v in zip(eager_step(a), f(a)):
                bits(u.numpy(), v.numpy())
    bits(ex.numpy(), cx.numpy())
    assert f.experimental_get_tracing_count() == 1


def test_a_mask_with_another_count_traces_again_and_stays_right():
    x = tf.Variable(R.normal(size=(6, 3)))

    def step(m):
        with tf.GradientTape() as t:
            y = tf.reduce_mean(tf.boolean_mask(x, m) ** 2)
        return y, t.gradient(y, x)

    f = tf.function(step)
    masks = [[1, 0, 1, 0, 0, 0], [0, 1, 1, 0, 0, 0], [1, 1, 1, 0, 0, 1], [0, 0, 0, 1, 1, 1]]
    for m in masks:
        m = tf.constant(np.array(m, bool))
        for u, v in zip(step(m), f(m)):
            bits(u.numpy(), v.numpy())
    # Counts 2, 2, 4, 3: the second mask replays, each new count traces.
    assert f.experimental_get_tracing_count() == 3


def test_dropped_segment_ids_appearing_later_trace_again_and_stay_right():
    x = tf.Variable(R.normal(size=(6, 2)))

    def step(ids):
        with tf.GradientTape() as t:
            y = tf.reduce_sum(tf.math.unsorted_segment_sum(x, ids, 3) ** 2)
        return y, t.gradient(y, x)

    f = tf.function(step)
    for ids in [[0, 1, 2, 0, 1, 2], [2, 1, 0, 0, 1, 2], [0, -1, 2, 0, 1, 2], [1, -1, 2, 0, 1, 1]]:
        i = tf.constant(ids)
        for u, v in zip(step(i), f(i)):
            bits(u.numpy(), v.numpy())
    # One dropped row changes the rows kept: traced again once, then replayed.
    assert f.experimental_get_tracing_count() == 2


@pytest.mark.parametrize(
    ("body", "bad", "message"),
    [
        (lambda x, a: tf.gather_nd(x, a), [[0], [9]], r"indices\[1\] = \[9\] does not index into param shape \[6,4\]"),
        (lambda x, a: tf.scatter_nd(a, x[:2], [6, 4]), [[0], [9]], r"indices\[1\] = \[9\] does not index into shape"),
        (
            lambda x, a: tf.math.unsorted_segment_sum(x[:2], a[:, 0], 6),
            [[0], [9]],
            r"segment_ids\[1\] = 9 is out of range \[0, 6\)",
        ),
    ],
)
def test_out_of_range_indices_at_replay_raise_and_leave_the_variable_unchanged(body, bad, message):
    x = tf.Variable(np.ones((6, 4), np.float32))
    opt = tf.keras.optimizers.SGD(0.1)

    @tf.function
    def step(a):
        with tf.GradientTape() as t:
            y = tf.reduce_sum(body(x, a) ** 2)
        opt.apply_gradients([(t.gradient(y, x), x)])
        return y

    step(tf.constant([[0], [1]]))
    before = x.numpy().copy()
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        step(tf.constant(bad))
    np.testing.assert_array_equal(x.numpy(), before)
    assert step.experimental_get_tracing_count() == 1


def test_gather_nd_with_empty_index_rows_takes_the_whole_tensor():
    x = tf.constant(np.arange(6.0).reshape(2, 3))
    out = tf.gather_nd(x, tf.zeros([3, 0], tf.int32))
    assert out.shape == (3, 2, 3)
    np.testing.assert_array_equal(out.numpy(), np.broadcast_to(x.numpy(), (3, 2, 3)))
