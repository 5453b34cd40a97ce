"""`x ** 2` as TF users write squared errors: the correctly rounded square.

libm's `powf(x, 2)` misses the correctly rounded `x * x` in about one
element in a thousand; exponents 2 and 1 are computed exactly (a scalar 2
runs the square kernel), the same bits at every broadcast form and under
`tapers.function`.
"""

import numpy as np
import pytest

import tapers as tf

R = np.random.default_rng(7)
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, 3e38, -3e38, 1e-45, 1e-20, 2e19, 2.232176, 0.2840814]


def values(dtype):
    # Values whose float32 squares lie on a rounding tie (1 + k 2^-12), where
    # an approximate pow rounds either way.
    ties = 1 + np.arange(1, 2049, dtype=np.float64) * 2.0**-12
    x = np.concatenate([R.normal(size=20_000), R.normal(size=2_000) * 1e18, ties, -3 * ties, SPECIAL])
    return x.astype(dtype)


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    both_nan = np.isnan(a) & np.isnan(b)
    bad = ~((a == b) & (np.signbit(a) == np.signbit(b)) | both_nan)
    assert not bad.any(), (np.flatnonzero(bad)[:5], a[bad][:5], b[bad][:5])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "form",
    [
        lambda x: x**2,
        lambda x: x**2.0,
        lambda x: tf.pow(x, 2.0),
        lambda x: tf.math.pow(x, tf.constant([2.0], x.dtype)),
        # A tensor of twos: every element takes the kernel's own exponent-2 case.
        lambda x: tf.pow(x, tf.fill(tf.shape(x), tf.constant(2.0, x.dtype))),
    ],
)
def test_a_square_is_the_correctly_rounded_product(dtype, form):
    x = values(dtype)
    with np.errstate(over="ignore", under="ignore"):
        want = x * x
    same_bits(form(tf.constant(x)).numpy(), want)


def test_squares_libm_rounded_wrong():
    # libm's powf gave 4.98261, 0.08070225 and 1.8653834 for these (one ulp
    # above the correctly rounded squares): the exact case must be taken.
    x = np.array([2.232176, 0.2840814, 1.3657904], np.float32)
    want = np.array([4.9826097, 0.08070224, 1.8653833], np.float32)
    same_bits(x * x, want)
    same_bits((tf.constant(x) ** 2.0).numpy(), want)
    same_bits(tf.pow(tf.constant(x), tf.constant([2.0, 2.0, 2.0])).numpy(), want)


def test_exponent_one_is_the_value_itself():
    x = values(np.float32)
    same_bits(tf.pow(tf.constant(x), tf.ones_like(tf.constant(x))).numpy(), x)
    same_bits((tf.constant(x) ** 1.0).numpy(), x)


def test_broadcast_shapes_and_a_higher_rank_exponent():
    x = tf.constant(R.normal(size=(3, 4)).astype(np.float32))
    assert (x ** tf.constant([[2.0]])).shape == (3, 4)
    v = tf.constant(R.normal(size=5).astype(np.float32))
    y = v ** tf.constant([[2.0]])
    assert y.shape == (1, 5)
    same_bits(y.numpy()[0], v.numpy() * v.numpy())
    # Integers keep their own kernel.
    i = tf.constant([3, -4, 5])
    assert (i**2).numpy().tolist() == [9, 16, 25]
    assert (i**2).dtype == tf.int32


def test_gradient_is_two_x_and_matches_finite_differences():
    xv = R.normal(size=7)
    x = tf.constant(xv)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(x**2.0)
    g = t.gradient(y, x).numpy()
    same_bits(g, 2.0 * xv)
    eps = 1e-6
    fd = np.array([(np.sum((xv + eps * e) ** 2) - np.sum((xv - eps * e) ** 2)) / (2 * eps) for e in np.eye(7)])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


def test_a_compiled_squared_error_gives_eager_bits():
    w = tf.Variable(R.normal(size=(8, 1)).astype(np.float32))
    xs = tf.constant(R.normal(size=(64, 8)).astype(np.float32))
    ys = tf.constant(R.normal(size=(64, 1)).astype(np.float32))

    def step():
        with tf.GradientTape() as t:
            loss = tf.reduce_mean((xs @ w - ys) ** 2)
        return loss, t.gradient(loss, w)

    eager = step()
    f = tf.function(step)
    f()
    compiled = f()
    for a, b in zip(eager, compiled):
        same_bits(a.numpy(), b.numpy())
