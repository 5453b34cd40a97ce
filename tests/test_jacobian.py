"""GradientTape.jacobian and batch_jacobian, with TF's shapes and semantics."""

import numpy as np
import pytest

import tapers as tf


def test_jacobian_of_elementwise_product():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    w = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch([x, w])
        y = x * w
    jx = t.jacobian(y, x)
    assert jx.shape == (2, 2, 2, 2)
    np.testing.assert_array_equal(jx.numpy().reshape(4, 4), np.diag([1.0, 2.0, 1.0, 2.0]))
    jw = t.jacobian(y, [x, w])[1]
    assert jw.shape == (2, 2, 2)
    np.testing.assert_array_equal(jw.numpy(), [[[1, 0], [0, 2]], [[3, 0], [0, 4]]])


def test_jacobian_unconnected_none_or_zeros():
    x, unc = tf.constant([1.0, 2.0]), tf.constant([5.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch([x, unc])
        y = x * 2
    assert t.jacobian(y, unc) is None
    z = t.jacobian(y, unc, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert z.shape == (2, 1) and not z.numpy().any()


def test_jacobian_matches_finite_differences():
    rng = np.random.default_rng(0)
    W = rng.normal(size=(5, 4))
    xv = rng.normal(size=4)
    x = tf.constant(xv)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.tanh(tf.linalg.matmul(W, tf.reshape(x, [4, 1])))
    j = t.jacobian(y, x).numpy().reshape(5, 4)
    expected = (1 - np.tanh(W @ xv) ** 2)[:, None] * W
    np.testing.assert_allclose(j, expected, rtol=1e-12)


def test_jacobian_parallel_and_sequential_agree_bitwise():
    rng = np.random.default_rng(1)
    x = tf.constant(rng.normal(size=(6,)).astype(np.float32))
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tf.nn.softmax(x * 3.0) * tf.reduce_sum(tf.exp(x))
    a = t.jacobian(y, x).numpy()
    b = t.jacobian(y, x, parallel_iterations=1).numpy()
    assert a.tobytes() == b.tobytes()


def test_non_persistent_tape_gives_one_jacobian():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * 2
    assert t.jacobian(y, x).shape == (2, 2, 2, 2)
    with pytest.raises(RuntimeError, match="non-persistent GradientTape"):
        t.jacobian(y, x)


def test_nested_tapes_give_the_hessian():
    x = tf.constant([1.0, 2.0], dtype=tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(x * x * x) + x[0] * x[1]
        g = inner.gradient(y, x)
    h = outer.jacobian(g, x)
    np.testing.assert_allclose(h.numpy(), [[6.0, 1.0], [1.0, 12.0]])


def test_batch_jacobian():
    rng = np.random.default_rng(2)
    x = tf.constant(rng.normal(size=(3, 4)))
    W = tf.constant(rng.normal(size=(4, 2)))
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tf.tanh(x @ W)
    bj = t.batch_jacobian(y, x)
    assert bj.shape == (3, 2, 4)
    full = t.jacobian(y, x).numpy()  # [3, 2, 3, 4]
    for b in range(3):
        np.testing.assert_allclose(bj.numpy()[b], full[b, :, b, :], rtol=1e-12)
    # An unconnected source gives zeros (unlike jacobian).
    other = tf.constant(np.ones((3, 5)))
    z = t.batch_jacobian(y, other)
    assert z.shape == (3, 2, 5) and not z.numpy().any()


def test_batch_jacobian_shape_errors():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * 2
        z = tf.reduce_sum(x, axis=1)
    with pytest.raises(ValueError, match=r"Shape \(2,\) must have rank at least 2"):
        t.batch_jacobian(z, x)
    with pytest.raises(ValueError, match="Need first dimension of target shape"):
        t.batch_jacobian(y, tf.ones([3, 2]))


def test_jacobian_accepts_tf_arguments():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
    j = t.jacobian(y, {"x": x}, parallel_iterations=4, experimental_use_pfor=False)
    np.testing.assert_array_equal(j["x"].numpy(), [[2.0, 0.0], [0.0, 4.0]])
