"""Gradients of reductions, matmul and shape ops against central finite
differences in float64, plus shape and dtype edge cases. The elementwise ops
(values, gradients, kinks and ties) are driven by tests/data/op_table.json in
test_op_table.py."""

import numpy as np
import pytest

import tapers as tf
from conftest import check_gradients
from tapers.errors import InvalidArgumentError

R = np.random.default_rng(7)


def any_(*shape):
    return R.uniform(-2.0, 2.0, size=shape)


def test_python_scalar_operands_have_gradients():
    check_gradients(lambda x: 3.0 * x - 1 / (x + 4) + x**2, any_(2, 2))


@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 1], (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduce_sum_and_mean(axis, keepdims):
    x = any_(2, 3, 4)
    check_gradients(lambda t: tf.reduce_sum(t, axis=axis, keepdims=keepdims), x)
    check_gradients(lambda t: tf.reduce_mean(t, axis=axis, keepdims=keepdims), x)
    np.testing.assert_allclose(
        tf.reduce_sum(tf.constant(x), axis=axis, keepdims=keepdims).numpy(),
        np.sum(x, axis=tuple(axis) if isinstance(axis, list) else axis, keepdims=keepdims),
    )


def test_reductions_edge_cases():
    assert tf.reduce_sum(tf.constant([[1.0, 2.0], [3.0, 4.0]]), axis=-1).numpy().tolist() == [3.0, 7.0]
    assert tf.reduce_mean(tf.constant([[1, 2], [3, 4]])).numpy() == 2  # integer mean truncates
    assert np.isnan(tf.reduce_mean(tf.zeros([0])).numpy())
    with pytest.raises(InvalidArgumentError, match="Invalid reduction dimension"):
        tf.reduce_sum(tf.constant([[1.0]]), axis=2)
    with pytest.raises(InvalidArgumentError, match="Invalid reduction dimension"):
        tf.reduce_sum(tf.constant(1.0), axis=0)
    with pytest.raises(InvalidArgumentError, match="bool"):
        tf.reduce_sum(tf.constant([True]))


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul_2d(ta, tb):
    a = any_(3, 4) if not ta else any_(4, 3)
    b = any_(4, 5) if not tb else any_(5, 4)
    check_gradients(lambda x, y: tf.matmul(x, y, transpose_a=ta, transpose_b=tb), a, b)
    expected = (a.T if ta else a) @ (b.T if tb else b)
    np.testing.assert_allclose(tf.matmul(a, b, transpose_a=ta, transpose_b=tb).numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize(
    "sa, sb", [((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (4, 5)), ((1, 3, 4), (2, 4, 2)), ((2, 1, 2, 3), (3, 3, 2))]
)
def test_matmul_batched_with_broadcast_batch_dims(sa, sb):
    a, b = any_(*sa), any_(*sb)
    check_gradients(tf.matmul, a, b)
    np.testing.assert_allclose(tf.matmul(a, b).numpy(), np.matmul(a, b), rtol=1e-12)


def test_matmul_errors():
    with pytest.raises(InvalidArgumentError, match="rank >= 2"):
        tf.matmul(tf.ones([3]), tf.ones([3, 4]))
    with pytest.raises(InvalidArgumentError, match=r"Matrix size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[2,3\]"):
        tf.matmul(tf.ones([2, 3]), tf.ones([2, 3]))
    with pytest.raises(InvalidArgumentError, match="double tensor"):
        tf.matmul(tf.ones([2, 2]), tf.ones([2, 2], dtype=tf.float64))
    assert tf.matmul(tf.ones([2, 3]), tf.ones([2, 3]), transpose_b=True).shape == (2, 2)
    assert tf.matmul(tf.ones([0, 3]), tf.ones([3, 2])).shape == (0, 2)


def test_reshape_and_transpose():
    x = any_(2, 3, 4)
    check_gradients(lambda t: tf.reshape(t, [4, -1]), x)
    check_gradients(lambda t: tf.transpose(t), x)
    check_gradients(lambda t: tf.transpose(t, perm=[1, 0, 2]), x)
    check_gradients(lambda t: tf.transpose(t, perm=[2, 0, 1]) * tf.reshape(t, [4, 2, 3]), x)
    assert tf.reshape(tf.constant([1.0, 2.0]), tf.constant([2, 1])).shape == (2, 1)
    np.testing.assert_array_equal(tf.transpose(tf.constant(x), perm=[2, 0, 1]).numpy(), np.transpose(x, (2, 0, 1)))


def test_reshape_and_transpose_errors():
    with pytest.raises(InvalidArgumentError, match="tensor with 3 values, but the requested shape has 4"):
        tf.reshape(tf.constant([1.0, 2.0, 3.0]), [2, 2])
    with pytest.raises(InvalidArgumentError, match="Only one input size may be -1"):
        tf.reshape(tf.constant([1.0, 2.0, 3.0, 4.0]), [-1, -1])
    with pytest.raises(InvalidArgumentError, match="requires a multiple of 2"):
        tf.reshape(tf.constant([1.0, 2.0, 3.0]), [2, -1])
    with pytest.raises(InvalidArgumentError, match="transpose expects a vector of size 3"):
        tf.transpose(tf.ones([2, 3, 4]), perm=[1, 0])
    with pytest.raises(InvalidArgumentError):
        tf.transpose(tf.ones([2, 3]), perm=[0, 0])


def test_broadcast_to_cast_where_and_indexing():
    check_gradients(lambda t: tf.broadcast_to(t, [2, 3, 3]), any_(3, 1))
    x = tf.constant([1.0, 2.0], dtype=tf.float64)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(tf.cast(x, tf.float32) * tf.constant([3.0, 4.0]))
    g = t.gradient(y, x)
    assert g.dtype == tf.float64 and g.numpy().tolist() == [3.0, 4.0]
    cond = tf.constant([True, False, True])
    check_gradients(lambda a, b: tf.where(cond, a, b), any_(3), any_(2, 3))
    check_gradients(lambda t: t[1] * t[0], any_(3, 2))
    check_gradients(lambda t: tf.reshape(t, [6])[-1], any_(3, 2))
    with pytest.raises(InvalidArgumentError, match="Incompatible shapes"):
        tf.broadcast_to(tf.ones([3]), [2, 2])


def test_float_ops_reject_integers():
    with pytest.raises(InvalidArgumentError, match="Value for attr 'T' of int32 is not in the list of allowed values"):
        tf.exp(tf.constant(1))


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("m", [31, 64, 129, 784])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mid_sized_and_weight_gradient_matmuls(m, ta, tb, dtype):
    # MLP-layer and weight-gradient shapes: from 129 rows on, the product is
    # computed as two row halves, one on the calling thread (129: unequal
    # halves); 31 and 64 stay below that size and run as one product.
    rng = np.random.default_rng(m)
    k, n = 128, 256
    a = rng.normal(size=(k, m) if ta else (m, k)).astype(dtype)
    b = rng.normal(size=(n, k) if tb else (k, n)).astype(dtype)
    got = tf.matmul(a, b, transpose_a=ta, transpose_b=tb).numpy()
    want = (a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64)
    assert got.shape == (m, n) and got.dtype == dtype
    np.testing.assert_allclose(
        got, want, rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-3 if dtype == np.float32 else 1e-10
    )
