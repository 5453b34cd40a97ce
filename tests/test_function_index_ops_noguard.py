"""Index ops written over guard-free ops: TensorFlow's answers eagerly, one trace inside `tapers.function`.

`segment_max/min/prod/mean`, `unsorted_segment_min/prod/sqrt_n`, `tensor_scatter_nd_max/min/sub`,
`dynamic_partition` and `dynamic_stitch` never read their indices into Python: they are compositions
of `unsorted_segment_max/sum`, `segment_sum`, `scatter_nd`, `gather`, `boolean_mask` and elementwise
ops, with value checks recorded as assertion nodes. A training step calling them with new indices of
the same shapes traces once and replays with eager's bits; bad indices raise TensorFlow's message at
replay too, leaving Variables as they were. Values are compared with TensorFlow 2.21's answers in
tests/data/index_ops_noguard_reference.json (made by tests/data/make_index_ops_noguard_reference.py).
"""

import json
import pathlib
import re
import warnings

import numpy as np
import pytest

import tapers as tf
from tapers import _math_extra

REF = json.loads((pathlib.Path(__file__).parent / "data" / "index_ops_noguard_reference.json").read_text())
R = np.random.default_rng(11)


def decode(values, dtype):
    if dtype.startswith("complex"):
        return np.array([complex(float(a), float(b)) for a, b in values], dtype=dtype)
    return np.array([float(v) if isinstance(v, str) else v for v in values], dtype=dtype)


def check_tensor(got, want):
    assert got.dtype.name == want["dtype"]
    assert list(got.shape) == want["shape"]
    a = np.asarray(got.numpy()).reshape(-1)
    b = decode(want["values"], want["dtype"])
    if a.dtype.kind == "f":
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        # Signed zeros and infinities (a NaN's sign bit is not specified).
        np.testing.assert_array_equal(np.signbit(a) & ~np.isnan(a), np.signbit(b) & ~np.isnan(b))
        # float32: TF's kernels and tapers' may round a product or mean differently in the last bit.
        np.testing.assert_allclose(a, b, rtol=1e-6 if a.dtype != np.float16 else 1e-3)
    elif a.dtype.kind == "c":
        np.testing.assert_allclose(a, b, rtol=1e-6)
    else:
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", sorted(REF["values"]))
def test_values_and_errors_match_tensorflow(name):
    case = REF["values"][name]
    if "error" in case:
        err = getattr(tf.errors, case["error"]["type"], None) or getattr(__builtins__, case["error"]["type"], None)
        with pytest.raises(err or Exception) as info:
            eval(case["src"])
        assert type(info.value).__name__ == case["error"]["type"]
        if case["msg"]:
            assert str(info.value) == case["error"]["message"]
        return
    got = eval(case["src"])
    want = case["result"]
    if isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            check_tensor(g, w)
    else:
        check_tensor(got, want)


@pytest.mark.parametrize("name", sorted(REF["grads"]))
def test_gradients_match_tensorflow(name):
    case = REF["grads"][name]
    fn = eval(case["src"])
    xs = [tf.constant(np.array(v, np.float64)) for v in case["inputs"]]
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = fn(*xs)
        w = tf.constant(1 + 0.25 * np.arange(int(np.prod(y.shape))).reshape(list(y.shape)))
        obj = tf.reduce_sum(y * w)
    grads = tape.gradient(obj, xs)
    np.testing.assert_allclose(y.numpy().reshape(-1), decode(case["output"], "float64"), rtol=1e-12)
    for g, want in zip(grads, case["grads"]):
        np.testing.assert_allclose(tf.convert_to_tensor(g).numpy().reshape(-1), decode(want, "float64"), rtol=1e-12)


# ---------------------------------------------------------------------------------------------- tapers.function


def bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a.reshape(-1).view(np.uint8), b.reshape(-1).view(np.uint8))


def _ids(shape, low, high):
    return lambda: tf.constant(R.integers(low, high, size=shape).astype(np.int32))


def _sorted_ids():
    # Every segment of 0..3 present, so the count of segments stays 4.
    return tf.constant(np.sort(np.r_[0, 1, 2, 3, R.integers(0, 4, 2)]).astype(np.int32))


def _partitions():
    # Two rows in each of three partitions: the outputs' shapes stay the same.
    return tf.constant(R.permutation([0, 0, 1, 1, 2, 2]).astype(np.int32))


def _stitch():
    # A permutation of 0..5 split in two, with a repeated index overwriting a row each call.
    p = R.permutation(6)
    return tf.constant(np.r_[p[:3], p[0]].astype(np.int32)), tf.constant(p[3:].astype(np.int32))


def _rows(n, high):
    return lambda: tf.constant(R.integers(0, high, size=(n, 1)).astype(np.int32))


def _cells():
    return tf.constant(np.stack([R.integers(0, 6, 5), R.integers(0, 4, 5)], 1).astype(np.int32))


CASES = {
    "unsorted_segment_min": (lambda x, a: tf.math.unsorted_segment_min(x, a, 4), _ids(6, -1, 4)),
    "unsorted_segment_prod": (lambda x, a: tf.math.unsorted_segment_prod(x, a, 4), _ids(6, -1, 4)),
    "unsorted_segment_sqrt_n": (lambda x, a: tf.math.unsorted_segment_sqrt_n(x, a, 4), _ids(6, -1, 4)),
    "unsorted_segment_min_2d_ids": (
        lambda x, a: tf.math.unsorted_segment_min(tf.reshape(x, [3, 2, 4]), a, 3),
        _ids((3, 2), -1, 3),
    ),
    "segment_max": (lambda x, a: tf.math.segment_max(x, a), _sorted_ids),
    "segment_min": (lambda x, a: tf.math.segment_min(x, a), _sorted_ids),
    "segment_prod": (lambda x, a: tf.math.segment_prod(x, a), _sorted_ids),
    "segment_mean": (lambda x, a: tf.math.segment_mean(x, a), _sorted_ids),
    "tensor_scatter_nd_max": (lambda x, a: tf.tensor_scatter_nd_max(x, a, tf.fill([5, 4], 0.5)), _rows(5, 6)),
    "tensor_scatter_nd_min_cells": (lambda x, a: tf.tensor_scatter_nd_min(x, a, tf.fill([5], -0.25)), _cells),
    "tensor_scatter_nd_max_into_zeros": (
        lambda x, a: tf.tensor_scatter_nd_max(tf.zeros([6, 4]), a, x[:5] * 2.0),
        _rows(5, 6),
    ),
    "tensor_scatter_nd_sub": (lambda x, a: tf.tensor_scatter_nd_sub(x, a, x[:5] * 0.5), _rows(5, 6)),
    # IGNORE: rows outside the tensor (here -2..-1 and 6..8) are skipped, whichever they are each call.
    "tensor_scatter_nd_max_ignore": (
        lambda x, a: tf.tensor_scatter_nd_max(x, a - 2, x[1:] * 1.5, bad_indices_policy="IGNORE"),
        _rows(5, 11),
    ),
    "tensor_scatter_nd_sub_ignore": (
        lambda x, a: tf.tensor_scatter_nd_sub(x, a - 2, x[1:] * 1.5, bad_indices_policy="IGNORE"),
        _rows(5, 11),
    ),
    "dynamic_partition": (lambda x, a: tf.concat(tf.dynamic_partition(x, a, 3)[::-1], 0) * 1.5, _partitions),
    "dynamic_stitch": (lambda x, a: tf.dynamic_stitch([a[0], a[1]], [x[:4] * 2.0, x[3:] - 1.0]), _stitch),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_training_step_traces_once_and_matches_eager(name):
    body, make = CASES[name]
    init = R.normal(size=(6, 4)).astype(np.float32)
    # Ties within segments and with the scattered constants, so the gradient's split is exercised.
    init[1] = init[0]
    init[2, :2] = 0.5

    def make_step():
        x = tf.Variable(init)
        opt = tf.keras.optimizers.Adam(0.05)

        def step(a):
            with tf.GradientTape() as t:
                y = body(x, a)
                loss = tf.reduce_sum(tf.tanh(y) * y)
            g = t.gradient(loss, x)
            opt.apply_gradients([(g, x)])
            return loss, tf.convert_to_tensor(g), y

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


def _seg_ids(a):
    return tf.constant(np.array(a, np.int32))


BAD = [
    (
        lambda x, a: tf.math.unsorted_segment_min(x, a, 4),
        [0, 1, 2, 3, 9, 0],
        r"^segment_ids\[4\] = 9 is out of range \[0, 4\) \[Op:UnsortedSegmentMin\]$",
    ),
    (
        lambda x, a: tf.math.unsorted_segment_prod(x, a, 4),
        [0, 1, 2, 4, 0, 0],
        r"^segment_ids\[3\] = 4 is out of range \[0, 4\) \[Op:UnsortedSegmentProd\]$",
    ),
    (
        lambda x, a: tf.math.unsorted_segment_sqrt_n(x, a, 4),
        [0, 1, 2, 7, 0, 0],
        r"^segment_ids\[3\] = 7 is out of range \[0, 4\) \[Op:UnsortedSegmentSum\]$",
    ),
    (lambda x, a: tf.math.segment_max(x, a), [0, 0, 1, 3, 2, 3], r"^segment ids are not increasing \[Op:SegmentMax\]$"),
    (
        lambda x, a: tf.math.segment_prod(x, a),
        [-1, 0, 1, 1, 2, 3],
        r"^Segment id -1 out of range \[0, 4\), possibly because 'segment_ids' input is not sorted\. "
        r"\[Op:SegmentProd\]$",
    ),
    (
        lambda x, a: tf.tensor_scatter_nd_max(x, tf.reshape(a[:2], [2, 1]), tf.ones([2, 4])),
        [0, 6, 0, 0, 0, 0],
        r"^indices\[1\] = \[6\] does not index into shape \[6,4\] \[Op:TensorScatterMax\]$",
    ),
    (
        lambda x, a: tf.tensor_scatter_nd_min(x, tf.reshape(a[:2], [2, 1]), tf.ones([2, 4])),
        [-3, 1, 0, 0, 0, 0],
        r"^indices\[0\] = \[-3\] does not index into shape \[6,4\] \[Op:TensorScatterMin\]$",
    ),
    (
        lambda x, a: tf.tensor_scatter_nd_sub(x, tf.reshape(a[:3], [3, 1]), tf.ones([3, 4])),
        [0, 1, 8, 0, 0, 0],
        r"^indices\[2\] = \[8\] does not index into shape \[6,4\] \[Op:TensorScatterSub\]$",
    ),
    (
        lambda x, a: tf.concat(tf.dynamic_partition(x, a, 4), 0),
        [0, 1, 2, 3, 5, 0],
        r"^partitions\[4\] = 5 is not in \[0, 4\) \[Op:DynamicPartition\]$",
    ),
    (
        lambda x, a: tf.dynamic_stitch([a[:3], a[3:]], [x[:3], x[3:]]),
        [0, 1, 2, 3, -4, 5],
        r"^indices\[1\] is out of range \[Op:DynamicStitch\]$",
    ),
]


@pytest.mark.parametrize(("body", "bad", "message"), BAD, ids=[m[1:30] for _, _, m in BAD])
def test_bad_indices_at_replay_raise_and_leave_the_variable_unchanged(body, bad, message):
    x = tf.Variable(np.linspace(0.5, 2.0, 24).reshape(6, 4).astype(np.float32))
    opt = tf.keras.optimizers.SGD(0.1)

    @tf.function
    def step(a):
        with tf.GradientTape() as t:
            y = tf.reduce_sum(body(x, a) ** 2)
        opt.apply_gradients([(t.gradient(y, x), x)])
        return y

    # Valid for every op: sorted, each id of 0..3 present, in range, and covering 0..5 when stitched.
    step(_seg_ids([0, 1, 2, 3, 3, 3] if "DynamicStitch" not in message else [0, 1, 2, 3, 4, 5]))
    before = x.numpy().copy()
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        step(_seg_ids(bad))
    np.testing.assert_array_equal(x.numpy(), before)
    assert step.experimental_get_tracing_count() == 1
    # The same message eagerly.
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        body(x, _seg_ids(bad))


def test_sorted_segments_trace_again_only_for_another_segment_count():
    x = tf.Variable(R.normal(size=(5, 2)))

    def step(ids):
        with tf.GradientTape() as t:
            y = tf.reduce_sum(tf.math.segment_max(x, ids) ** 2) + tf.reduce_sum(tf.math.segment_prod(x, ids))
        return y, t.gradient(y, x)

    f = tf.function(step)
    for ids in [[0, 0, 1, 2, 2], [0, 1, 1, 1, 2], [0, 0, 0, 0, 4], [0, 2, 3, 3, 4], [1, 1, 1, 2, 2]]:
        i = _seg_ids(ids)
        for u, v in zip(step(i), f(i)):
            bits(u.numpy(), v.numpy())
    # Segment counts 3, 3, 5, 5, 3: each change of the count traces again, then replays.
    assert f.experimental_get_tracing_count() == 3


def test_a_product_too_wide_for_the_padded_block_guards_on_the_longest_segment(monkeypatch):
    monkeypatch.setattr(_math_extra, "_PROD_BLOCK_LIMIT", 0)
    x = tf.Variable(R.uniform(0.5, 1.5, size=(6, 3)))

    def step(ids):
        with tf.GradientTape() as t:
            y = tf.reduce_sum(tf.math.unsorted_segment_prod(x, ids, 3))
        return y, t.gradient(y, x)

    f = tf.function(step)
    for ids in [[0, 1, 2, 0, 1, 2], [2, 1, 0, 0, 1, 2], [0, 0, 0, 1, 2, -1], [1, 1, 1, 0, 2, 2], [0, 1, 2, 1, 0, 2]]:
        i = _seg_ids(ids)
        for u, v in zip(step(i), f(i)):
            bits(u.numpy(), v.numpy())
    # Longest segments 2, 2, 3, 3, 2: the width is guarded, so each change of it traces again.
    assert f.experimental_get_tracing_count() == 3


def test_products_multiply_in_row_order():
    # TensorFlow's kernels multiply each segment's rows in order from 1: the same float32 bits.
    data = R.uniform(0.3, 3.0, size=40).astype(np.float32)
    ids = R.integers(-1, 3, size=40).astype(np.int32)
    want = np.ones(3, np.float32)
    for v, i in zip(data, ids):
        if i >= 0:
            want[i] = np.float32(want[i] * v)
    bits(tf.math.unsorted_segment_prod(data, ids, 3).numpy(), want)
    order = np.argsort(ids[ids >= 0], kind="stable")
    sdata, sids = data[ids >= 0][order], ids[ids >= 0][order]
    bits(tf.math.segment_prod(sdata, sids).numpy(), want)


def test_integer_min_does_not_overflow_and_max_minus_lowest_is_exact():
    for dt in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
        info = np.iinfo(dt)
        data = np.array([info.min, info.max, info.min + 1, info.max], dt)
        got = tf.math.unsorted_segment_min(data, [0, 1, 1, -1], 3).numpy()
        np.testing.assert_array_equal(got, np.array([info.min, info.min + 1, info.max], dt))
        got = tf.math.segment_min(data, [0, 0, 2, 2]).numpy()
        np.testing.assert_array_equal(got, np.array([info.min, 0, info.min + 1], dt))


def test_bad_dtypes_and_shapes_say_so():
    with pytest.raises(tf.errors.InvalidArgumentError, match="bool"):
        tf.math.unsorted_segment_min(tf.constant([True, False]), [0, 0], 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="complex64"):
        tf.math.segment_max(tf.constant([1 + 1j], tf.complex64), [0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="bool"):
        tf.math.unsorted_segment_prod(tf.constant([True, False]), [0, 0], 1)
    with pytest.raises(TypeError, match="float32"):
        tf.math.unsorted_segment_min(tf.constant([1.0]), tf.constant([0.0]), 1)
    with pytest.raises(TypeError, match="float32"):
        tf.math.segment_mean(tf.constant([1.0]), tf.constant([0.0]))
    with pytest.raises(TypeError, match="float32"):
        tf.tensor_scatter_nd_max(tf.zeros([2]), tf.constant([[0.0]]), tf.ones([1]))
    with pytest.raises(TypeError, match="float32"):
        tf.dynamic_partition(tf.zeros([2]), tf.constant([0.0, 1.0]), 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"data.shape must start with partitions.shape"):
        tf.dynamic_partition(tf.zeros([2, 3]), [[0, 1]], 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"data\[1\].shape = \[2, 2\]"):
        tf.dynamic_stitch([[0], [1, 2]], [tf.zeros([1, 3]), tf.zeros([2, 2])])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Requested rank: 0"):
        tf.tensor_scatter_nd_max(tf.zeros([2]), tf.zeros([0, 0], tf.int32), tf.zeros([0, 2]))


def test_empty_inputs():
    assert tf.dynamic_stitch([tf.zeros([0], tf.int32)], [tf.zeros([0, 2])]).shape == [0, 2]
    out = tf.tensor_scatter_nd_min(tf.ones([2, 3]), tf.zeros([0, 1], tf.int32), tf.zeros([0, 3]))
    np.testing.assert_array_equal(out.numpy(), np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(tf.math.unsorted_segment_prod(tf.zeros([0, 2]), tf.zeros([0], tf.int32), 2), 1.0)
    parts = tf.dynamic_partition(tf.zeros([0, 2]), tf.zeros([0], tf.int32), 2)
    assert [list(p.shape) for p in parts] == [[0, 2], [0, 2]]


def test_a_missing_stitch_index_raises_where_tensorflow_fills_zeros():
    # TF 2.21's CPU kernel leaves a missing row as zeros (its documentation calls the input invalid);
    # tapers raises, eagerly and at replay.
    x = tf.Variable([1.0, 2.0])

    @tf.function
    def f(i):
        return tf.dynamic_stitch([i], [x * 1.0])

    f(tf.constant([1, 0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape("Missing indices in [0, 3): index 1")):
        f(tf.constant([0, 2]))
