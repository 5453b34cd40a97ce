"""Property-based checks (hypothesis): random shapes, broadcasting pairs and
dtypes against numpy, and gradients of random op sequences against finite
differences. Invalid combinations must raise tapers' documented errors."""

import os

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tapers as tf
from tapers.errors import InvalidArgumentError

# Derandomized: CI sees the same examples every run (no flaky failures).
# scripts/soak.sh draws many more, randomized (TAPERS_HYPOTHESIS_EXAMPLES).
_SOAK = os.environ.get("TAPERS_HYPOTHESIS_EXAMPLES")
SETTINGS = settings(
    max_examples=int(_SOAK or 60),
    deadline=None,
    derandomize=_SOAK is None,
    suppress_health_check=[HealthCheck.too_slow],
)

dims = st.integers(min_value=1, max_value=4)
shapes = st.lists(dims, min_size=0, max_size=3)


@st.composite
def broadcast_pair(draw):
    out = draw(shapes)
    a = [d if draw(st.booleans()) else 1 for d in out]
    b = [d if draw(st.booleans()) else 1 for d in out]
    a = a[draw(st.integers(0, len(a))) :]
    b = b[draw(st.integers(0, len(b))) :]
    return a, b


def arr(draw, shape, dtype=np.float64):
    return draw(st.just(np.random.default_rng(draw(st.integers(0, 2**31))).uniform(-2, 2, size=shape).astype(dtype)))


@SETTINGS
@given(st.data())
def test_binary_ops_broadcast_like_numpy(data):
    sa, sb = data.draw(broadcast_pair())
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    a, b = arr(data.draw, sa, dtype), arr(data.draw, sb, dtype)
    for op, ref in [(tf.add, np.add), (tf.subtract, np.subtract), (tf.multiply, np.multiply), (tf.maximum, np.maximum)]:
        got = op(a, b).numpy()
        assert got.shape == np.broadcast_shapes(a.shape, b.shape)
        np.testing.assert_allclose(got, ref(a, b), rtol=1e-6)


@SETTINGS
@given(st.data())
def test_incompatible_shapes_raise_invalid_argument(data):
    n = data.draw(st.integers(2, 4))
    m = data.draw(st.integers(2, 4).filter(lambda v: v != n))
    try:
        tf.add(np.ones(n), np.ones(m))
    except InvalidArgumentError as e:
        assert f"[{n}] vs. [{m}]" in str(e)
    else:
        raise AssertionError("no error")


@SETTINGS
@given(st.data())
def test_reductions_match_numpy(data):
    shape = data.draw(st.lists(dims, min_size=1, max_size=3))
    x = arr(data.draw, shape)
    axis = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    keep = data.draw(st.booleans())
    for op, ref in [
        (tf.reduce_sum, np.sum),
        (tf.reduce_mean, np.mean),
        (tf.reduce_max, np.max),
        (tf.reduce_prod, np.prod),
    ]:
        np.testing.assert_allclose(
            op(x, axis=axis, keepdims=keep).numpy(), ref(x, axis=axis, keepdims=keep), rtol=1e-10
        )


# Bounded-growth ops, so random compositions stay where finite differences are accurate.
UNARY = [tf.tanh, tf.sin, tf.sigmoid, lambda t: tf.math.log1p(t * t), tf.nn.softplus, lambda t: tf.exp(-t * t)]
BINARY = [tf.add, tf.multiply, tf.subtract, lambda a, b: a / (1.5 + b * b)]


@SETTINGS
@given(st.data())
def test_random_op_sequences_have_correct_gradients(data):
    shape = data.draw(st.lists(dims, min_size=0, max_size=2))
    x0 = arr(data.draw, shape)
    steps = data.draw(
        st.lists(st.tuples(st.integers(0, len(UNARY) - 1), st.integers(0, len(BINARY) - 1)), min_size=1, max_size=4)
    )

    def f(x):
        y = x
        for u, b in steps:
            y = BINARY[b](UNARY[u](y), x)
        return tf.reduce_sum(y)

    x = tf.constant(x0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    g = t.gradient(y, x).numpy()
    eps = 1e-6
    num = np.zeros_like(x0)
    for idx in np.ndindex(*x0.shape):
        p, m = x0.copy(), x0.copy()
        p[idx] += eps
        m[idx] -= eps
        num[idx] = (f(tf.constant(p)).numpy() - f(tf.constant(m)).numpy()) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-4, atol=1e-6)


@SETTINGS
@given(st.data())
def test_mixed_dtypes_are_rejected_without_promotion(data):
    a_dt, b_dt = data.draw(
        st.sampled_from(
            [(tf.float32, tf.float64), (tf.float64, tf.float32), (tf.int32, tf.float32), (tf.int64, tf.int32)]
        )
    )
    a, b = tf.ones([2], dtype=a_dt), tf.ones([2], dtype=b_dt)
    try:
        _ = a * b
    except InvalidArgumentError as e:
        assert "expected to be a" in str(e)
    else:
        raise AssertionError("mixed dtypes were accepted")


@SETTINGS
@given(st.data())
def test_reshape_and_transpose_round_trip(data):
    shape = data.draw(st.lists(dims, min_size=1, max_size=4))
    x = arr(data.draw, shape)
    perm = data.draw(st.permutations(list(range(len(shape)))))
    t = tf.transpose(x, perm=perm)
    np.testing.assert_array_equal(t.numpy(), np.transpose(x, perm))
    flat = tf.reshape(t, [-1])
    assert flat.shape == (x.size,)
