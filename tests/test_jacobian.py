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
    # experimental_use_pfor=False needs a persistent tape, as in TF (RuntimeError otherwise).
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
    j = t.jacobian(y, {"x": x}, parallel_iterations=4, experimental_use_pfor=False)
    np.testing.assert_array_equal(j["x"].numpy(), [[2.0, 0.0], [0.0, 4.0]])
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
    with pytest.raises(RuntimeError, match="must be created with persistent=True"):
        t.jacobian(y, x, experimental_use_pfor=False)


def _rows_by_gradient(t, y, sources):
    """Each Jacobian row as its own backward pass (one-hot output gradient)."""
    n = int(np.prod(y.shape))
    rows = []
    for i in range(n):
        seed = np.zeros(n)
        seed[i] = 1.0
        seed = tf.constant(seed.reshape(y.shape), dtype=y.dtype)
        rows.append([g.numpy() for g in t.gradient(y, sources, output_gradients=seed)])
    return [np.stack([r[k] for r in rows]).reshape(tuple(y.shape) + tuple(s.shape)) for k, s in enumerate(sources)]


def test_vectorized_jacobian_matches_one_pass_per_row():
    # Only ops whose rules carry row dims: the Jacobian takes the vectorized
    # pass (one backward pass for all rows), with broadcasting in both
    # directions, batched matmuls against a plain matrix and reshapes.
    rng = np.random.default_rng(5)
    x = tf.constant(rng.normal(size=(2, 3, 4)))
    W = tf.constant(rng.normal(size=(4, 5)))
    b = tf.constant(rng.normal(size=(5,)))
    s = tf.constant(0.7, dtype=tf.float64)
    with tf.GradientTape(persistent=True) as t:
        t.watch([x, W, b, s])
        h = tf.tanh(x @ W + b) * s
        h = tf.reshape(tf.sigmoid(h) - tf.exp(-h * h) / (1.0 + tf.square(h)), [6, 5])
        y = tf.reshape(tf.nn.relu(h @ tf.ones([5, 1], tf.float64)) + h, [2, 15])
    sources = [x, W, b, s]
    js = t.jacobian(y, sources)
    # All 30 rows in one backward pass.
    stats = t.last_pass_stats()
    assert (stats["passes"], stats["row_passes"]) == (1, 1), stats
    for j, want in zip(js, _rows_by_gradient(t, y, sources)):
        assert j.shape == want.shape
        np.testing.assert_allclose(j.numpy(), want, rtol=1e-12, atol=1e-14)


def test_vectorized_jacobian_against_finite_differences():
    rng = np.random.default_rng(6)
    Wv, xv = rng.normal(size=(4, 3)), rng.normal(size=(3,))
    W = tf.constant(Wv)

    def f(v):
        return np.tanh(Wv @ v) * (Wv @ v)

    x = tf.constant(xv)
    with tf.GradientTape() as t:
        t.watch(x)
        z = tf.reshape(W @ tf.reshape(x, [3, 1]), [4])
        y = tf.tanh(z) * z
    j = t.jacobian(y, x).numpy()
    eps = 1e-6
    fd = np.stack([(f(xv + eps * e) - f(xv - eps * e)) / (2 * eps) for e in np.eye(3)], axis=1)
    np.testing.assert_allclose(j, fd, rtol=1e-6, atol=1e-8)


def test_large_jacobian_runs_in_several_vectorized_passes():
    # 2100 rows of 2100 elements exceed one pass's element budget (2^22),
    # so the rows are split over passes and joined again.
    n = 2100
    c = np.linspace(0.5, 1.5, n).astype(np.float32)
    x = tf.constant(np.ones(n, np.float32))
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * tf.constant(c) + 1.0
    j = t.jacobian(y, x).numpy()
    assert j.shape == (n, n)
    stats = t.last_pass_stats()
    assert stats["passes"] == stats["row_passes"] > 1, stats
    np.testing.assert_array_equal(j, np.diag(c))


def test_vectorized_batch_jacobian():
    rng = np.random.default_rng(7)
    xv, Wv = rng.normal(size=(5, 3)), rng.normal(size=(3, 4))
    x, W = tf.constant(xv), tf.constant(Wv)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.tanh(x @ W)
    bj = t.batch_jacobian(y, x).numpy()
    assert bj.shape == (5, 4, 3)
    d = 1 - np.tanh(xv @ Wv) ** 2  # [5, 4]
    np.testing.assert_allclose(bj, d[:, :, None] * Wv.T[None], rtol=1e-12)


@pytest.mark.parametrize("source_is_w", [False, True])
def test_jacobian_through_matmul_with_a_column_vector_is_one_pass(source_is_w):
    # tanh(W @ x) with x of shape (n, 1): the spelling TF users write. One
    # vectorized pass whichever side of the product the source is on.
    rng = np.random.default_rng(8)
    n = 64
    W = tf.constant(rng.normal(size=(n, n)).astype(np.float32))
    x = tf.constant(rng.normal(size=(n, 1)).astype(np.float32))
    src = W if source_is_w else x
    with tf.GradientTape(persistent=True) as t:
        t.watch(src)
        y = tf.tanh(W @ x)
    j = t.jacobian(y, src)
    stats = t.last_pass_stats()
    assert (stats["passes"], stats["row_passes"]) == (1, 1), stats
    assert j.shape == tuple(y.shape) + tuple(src.shape)
    want = _rows_by_gradient(t, y, [src])[0]
    np.testing.assert_allclose(j.numpy(), want, rtol=1e-6, atol=1e-7)
