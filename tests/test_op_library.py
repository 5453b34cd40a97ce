"""The op library beyond the elementwise table (tests/data/op_table.json,
test_op_table.py): reductions, shape, indexing, linear algebra, losses,
convolutions; values against numpy references and gradients against finite
differences (float64)."""

import math

import numpy as np
import pytest

import tapers as tf
from conftest import check_gradients
from tapers.errors import InvalidArgumentError

R = np.random.default_rng(11)


def u(*shape, lo=-2.0, hi=2.0):
    return R.uniform(lo, hi, size=shape)


def erf_np(x):
    return np.vectorize(math.erf)(x)


REDUCTIONS = [
    ("max", tf.reduce_max, np.max),
    ("min", tf.reduce_min, np.min),
    ("prod", tf.reduce_prod, np.prod),
    (
        "logsumexp",
        tf.reduce_logsumexp,
        lambda x, axis, keepdims: np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims)),
    ),
    ("std", tf.math.reduce_std, np.std),
    ("variance", tf.math.reduce_variance, np.var),
]


@pytest.mark.parametrize("name, op, ref", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
@pytest.mark.parametrize("axis", [None, 0, -1, [0, 2]])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(name, op, ref, axis, keepdims):
    x = u(2, 3, 4)
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    np.testing.assert_allclose(
        op(x, axis=axis, keepdims=keepdims).numpy(), ref(x, axis=np_axis, keepdims=keepdims), rtol=1e-10
    )
    check_gradients(lambda t: op(t, axis=axis, keepdims=keepdims), x)


def test_reduce_max_splits_ties_and_prod_handles_zeros():
    x = tf.constant([1.0, 3.0, 3.0])
    with tf.GradientTape() as t:
        t.watch(x)
        m = tf.reduce_max(x)
    assert t.gradient(m, x).numpy().tolist() == [0.0, 0.5, 0.5]
    x = tf.constant([1.0, 0.0, 3.0])
    with tf.GradientTape() as t:
        t.watch(x)
        p = tf.reduce_prod(x)
    assert t.gradient(p, x).numpy().tolist() == [0.0, 3.0, 0.0]


def test_logsumexp_is_stable():
    assert tf.reduce_logsumexp([1000.0, 1000.0]).numpy() == pytest.approx(1000.6931471805599)
    assert tf.reduce_logsumexp([-np.inf, -np.inf]).numpy() == -np.inf


def test_boolean_reductions_and_args():
    b = tf.constant([[True, False], [True, True]])
    assert tf.reduce_any(b, axis=1).numpy().tolist() == [True, True]
    assert tf.reduce_all(b, axis=1).numpy().tolist() == [False, True]
    x = tf.constant([[1.0, 5.0], [3.0, 2.0]])
    a = tf.argmax(x, axis=1)
    assert a.dtype == tf.int64 and a.numpy().tolist() == [1, 0]
    assert tf.argmax(x).numpy().tolist() == [1, 0]
    assert tf.argmin(x, axis=1, output_type=tf.int32).dtype == tf.int32
    assert tf.argmax([1, 3, 3]).numpy() == 1  # first of ties
    with pytest.raises(InvalidArgumentError, match="bool"):
        tf.reduce_any(x)


def test_logical_and_predicates():
    a, b = tf.constant([True, False]), tf.constant([True, True])
    assert tf.logical_and(a, b).numpy().tolist() == [True, False]
    assert tf.logical_or(a, b).numpy().tolist() == [True, True]
    assert tf.logical_not(a).numpy().tolist() == [False, True]
    assert tf.math.logical_xor(a, b).numpy().tolist() == [False, True]
    assert tf.math.is_nan([np.nan, 1.0]).numpy().tolist() == [True, False]
    assert tf.math.is_finite([np.inf, 1.0]).numpy().tolist() == [False, True]


def test_shape_ops_values_and_gradients():
    x = u(2, 1, 3)
    assert tf.expand_dims([1, 2], -1).shape == (2, 1)
    assert tf.squeeze(tf.ones([1, 2, 1])).shape == (2,)
    assert tf.squeeze(tf.ones([1, 2, 1]), axis=[0]).shape == (2, 1)
    with pytest.raises(InvalidArgumentError, match="Can not squeeze dim"):
        tf.squeeze(tf.ones([1, 2]), axis=1)
    check_gradients(lambda t: tf.expand_dims(tf.squeeze(t, 1), 0), x)
    a, b = u(2, 3), u(4, 3)
    np.testing.assert_array_equal(tf.concat([a, b], 0).numpy(), np.concatenate([a, b], 0))
    check_gradients(lambda p, q: tf.concat([p, q * 2], 0), a, b)
    check_gradients(lambda p, q: tf.stack([p, q], axis=1), a, a + 1)
    np.testing.assert_array_equal(tf.stack([a, a], axis=-1).numpy(), np.stack([a, a], -1))
    parts = tf.unstack(tf.constant(a), axis=1)
    assert len(parts) == 3 and parts[0].numpy().tolist() == a[:, 0].tolist()
    check_gradients(lambda t: tf.unstack(t, axis=1)[1] * tf.unstack(t)[0][:2], a)
    s = tf.split(tf.range(6), 3)
    assert [p.numpy().tolist() for p in s] == [[0, 1], [2, 3], [4, 5]]
    s = tf.split(tf.range(6), [1, -1])
    assert [p.numpy().tolist() for p in s] == [[0], [1, 2, 3, 4, 5]]
    check_gradients(lambda t: tf.split(t, [1, 2], axis=1)[1], a)
    with pytest.raises(InvalidArgumentError, match="evenly divide"):
        tf.split(tf.range(5), 2)
    np.testing.assert_array_equal(tf.tile([[1, 2]], [2, 2]).numpy(), [[1, 2, 1, 2], [1, 2, 1, 2]])
    check_gradients(lambda t: tf.tile(t, [2, 3]), a)
    np.testing.assert_array_equal(tf.pad([[1.0, 2.0]], [[1, 0], [0, 2]]).numpy(), [[0, 0, 0, 0], [1, 2, 0, 0]])
    check_gradients(lambda t: tf.pad(t, [[1, 2], [0, 1]], constant_values=3.0), a)
    with pytest.raises(InvalidArgumentError, match="ConcatOp"):
        tf.concat([tf.ones([2, 3]), tf.ones([2, 4])], 0)
    with pytest.raises(InvalidArgumentError, match="double tensor"):
        tf.concat([tf.ones([2]), tf.ones([2], dtype=tf.float64)], 0)


def test_slicing_matches_numpy_and_differentiates():
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    t = tf.constant(x)
    keys = [
        (Ellipsis, slice(1, None)),
        (slice(None), slice(None, None, -1)),
        (None, 1, slice(None, None, 2)),
        (slice(None), slice(5, None)),
        (1, 1),
        (-1, slice(-2, None), slice(3, 0, -2)),
        (Ellipsis, None, 0),
        (slice(None, None, 2), Ellipsis),
    ]
    for k in keys:
        np.testing.assert_array_equal(t[k].numpy(), x[k], err_msg=str(k))
        check_gradients(lambda v, k=k: v[k] * 2, x + 0.5)
    assert t[tf.constant(1)].shape == (3, 4)
    with pytest.raises(InvalidArgumentError, match="out of bounds"):
        t[2]
    with pytest.raises(TypeError, match="valid indices"):
        t[[0, 1]]
    with pytest.raises(InvalidArgumentError, match="step cannot be zero"):
        t[::0]
    assert tf.newaxis is None


def test_gather_family():
    x = u(3, 4)
    np.testing.assert_array_equal(tf.gather(x, [2, 0], axis=1).numpy(), x[:, [2, 0]])
    np.testing.assert_array_equal(tf.gather(x, [[0, 0], [2, 1]]).numpy(), x[[[0, 0], [2, 1]]])
    check_gradients(lambda t: tf.gather(t, [2, 0, 2], axis=1), x)  # repeated indices accumulate
    check_gradients(lambda t: tf.gather(t, [[1], [0], [3]], axis=1, batch_dims=1), x)
    assert tf.gather(tf.constant([[1, 2], [3, 4]]), [[1], [0]], batch_dims=1).numpy().tolist() == [[2], [3]]
    np.testing.assert_array_equal(tf.gather_nd(x, [[0, 1], [2, 3]]).numpy(), x[[0, 2], [1, 3]])
    check_gradients(lambda t: tf.gather_nd(t, [[0], [2], [0]]), x)
    with pytest.raises(InvalidArgumentError, match=r"indices\[0\] = 5 is not in \[0, 3\)"):
        tf.gather(x, [5])
    with pytest.raises(InvalidArgumentError, match="does not index into param shape"):
        tf.gather_nd(x, [[3, 0]])
    oh = tf.one_hot([0, 2, -1], 3)
    assert oh.dtype == tf.float32 and oh.numpy().tolist() == [[1, 0, 0], [0, 0, 1], [0, 0, 0]]
    assert tf.one_hot([1], 2, axis=0).numpy().tolist() == [[0.0], [1.0]]


def test_creation_ops():
    assert tf.range(5).dtype == tf.int32 and tf.range(5).numpy().tolist() == [0, 1, 2, 3, 4]
    assert tf.range(1.0, 2.0, 0.25).numpy().tolist() == [1.0, 1.25, 1.5, 1.75]
    assert tf.range(5, 0, -2).numpy().tolist() == [5, 3, 1]
    assert tf.linspace(0.0, 1.0, 5).numpy().tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert tf.eye(2).numpy().tolist() == [[1, 0], [0, 1]]
    assert tf.eye(2, 3, batch_shape=[2]).shape == (2, 2, 3)
    assert tf.fill([2], 3.0).numpy().tolist() == [3.0, 3.0]
    x = tf.ones([2, 3])
    assert tf.shape(x).numpy().tolist() == [2, 3] and tf.shape(x).dtype == tf.int32
    assert tf.size(x).numpy() == 6 and tf.rank(x).numpy() == 2


def test_linear_algebra():
    a, b = u(2, 3), u(3, 4)
    np.testing.assert_allclose(tf.tensordot(a, b, axes=1).numpy(), a @ b, rtol=1e-12)
    c = u(2, 3, 4)
    assert tf.tensordot(c, u(4, 3), axes=[[1, 2], [1, 0]]).shape == (2,)
    check_gradients(lambda p, q: tf.tensordot(p, q, axes=[[1, 2], [1, 0]]), c, u(4, 3))
    forms = [
        ("ij,jk->ik", (u(2, 3), u(3, 4))),
        ("bij,bjk->bik", (u(2, 2, 3), u(2, 3, 4))),
        ("ij->ji", (u(2, 3),)),
        ("ii->i", (u(3, 3),)),
        ("ij->", (u(2, 3),)),
        ("i,i->", (u(3), u(3))),
        ("i,j->ij", (u(3), u(2))),
        ("bhqd,bhkd->bhqk", (u(1, 2, 3, 4), u(1, 2, 5, 4))),
        ("ij,jk", (u(2, 3), u(3, 4))),
        ("abc,cd->abd", (u(2, 3, 4), u(4, 2))),
    ]
    for eq, ops in forms:
        np.testing.assert_allclose(tf.einsum(eq, *ops).numpy(), np.einsum(eq, *ops), rtol=1e-10, err_msg=eq)
        check_gradients(lambda *t, eq=eq: tf.einsum(eq, *t), *ops)
    x = u(3, 4)
    np.testing.assert_allclose(tf.norm(x).numpy(), np.linalg.norm(x), rtol=1e-12)
    np.testing.assert_allclose(tf.linalg.norm(x, ord=1, axis=1).numpy(), np.abs(x).sum(1), rtol=1e-12)
    np.testing.assert_allclose(tf.norm(x, ord=np.inf, axis=0).numpy(), np.abs(x).max(0), rtol=1e-12)
    check_gradients(lambda t: tf.norm(t, axis=1), x)
    check_gradients(lambda t: tf.norm(t, ord=3, axis=0), x)
    np.testing.assert_allclose(tf.linalg.trace(u(2, 3, 3) * 0 + 1).numpy(), [3.0, 3.0])
    check_gradients(tf.linalg.trace, u(2, 3, 3))
    with pytest.raises(InvalidArgumentError, match="einsum"):
        tf.einsum("ij,jk->ik", tf.ones([2, 3]), tf.ones([4, 2]))


def test_sparse_softmax_cross_entropy_and_loss_errors():
    # The dense and sigmoid cross-entropies are rows of tests/data/op_table.json.
    logits = u(4, 5)
    sparse = np.array([0, 4, 2, 1])
    np.testing.assert_allclose(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=sparse, logits=logits).numpy(),
        -(logits[np.arange(4), sparse] - np.log(np.exp(logits).sum(-1))),
        rtol=1e-12,
    )
    check_gradients(lambda lg: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=sparse, logits=lg), logits)
    with pytest.raises(InvalidArgumentError, match="Received a label value of 3"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[3], logits=[[1.0, 2.0]])
    with pytest.raises(ValueError, match="named arguments"):
        tf.nn.softmax_cross_entropy_with_logits([[1.0]])


def test_bias_add_errors_and_dropout():
    v, b = u(2, 3), u(3)
    with pytest.raises(InvalidArgumentError, match=r"as many biases .*: \[2\] vs. \[2,3\]"):
        tf.nn.bias_add(v, u(2))
    with pytest.raises(InvalidArgumentError, match=r"at least 2D: \[3\]"):
        tf.nn.bias_add(b, b)
    with pytest.raises(InvalidArgumentError, match=r"Biases must be 1D: \[2,3\]"):
        tf.nn.bias_add(v, v)
    x = tf.ones([1000])
    y = tf.nn.dropout(x, 0.5, seed=3)
    vals = set(y.numpy().tolist())
    assert vals <= {0.0, 2.0} and 300 < int((y.numpy() == 2.0).sum()) < 700
    with tf.GradientTape() as t:
        t.watch(x)
        z = tf.reduce_sum(tf.nn.dropout(x, 0.25, seed=5) * 1.0)
    g = t.gradient(z, x).numpy()
    assert np.all(np.isclose(g, 0.0) | np.isclose(g, 1 / 0.75))
    assert tf.nn.dropout(x, 0.0) is not x and tf.nn.dropout(x, 0.0).numpy().tolist() == x.numpy().tolist()
    with pytest.raises(ValueError, match="rate"):
        tf.nn.dropout(x, 1.0)


def _conv_ref(x, w, stride, padding, dilation=1):
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    ekh, ekw = (kh - 1) * dilation + 1, (kw - 1) * dilation + 1
    if padding == "SAME":
        oh, ow = -(-h // stride), -(-wd // stride)
        ph = max((oh - 1) * stride + ekh - h, 0)
        pw = max((ow - 1) * stride + ekw - wd, 0)
        x = np.pad(x, ((0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)))
    else:
        oh, ow = (h - ekh) // stride + 1, (wd - ekw) // stride + 1
    out = np.zeros((n, oh, ow, o))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride : i * stride + ekh : dilation, j * stride : j * stride + ekw : dilation, :]
            out[:, i, j, :] = np.tensordot(patch, w, axes=([1, 2, 3], [0, 1, 2]))
    return out


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("stride, dilation", [(1, 1), (2, 1), (1, 2)])
def test_conv2d(padding, stride, dilation):
    x, w = u(2, 6, 5, 3), u(3, 2, 3, 4)
    got = tf.nn.conv2d(x, w, strides=stride, padding=padding, dilations=dilation).numpy()
    np.testing.assert_allclose(got, _conv_ref(x, w, stride, padding, dilation), rtol=1e-10, atol=1e-12)
    check_gradients(
        lambda a, b: tf.nn.conv2d(a, b, strides=[1, stride, stride, 1], padding=padding, dilations=dilation), x, w
    )


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_pooling(padding):
    x = u(2, 5, 4, 3)
    mp = tf.nn.max_pool2d(x, ksize=2, strides=2, padding=padding).numpy()
    ap = tf.nn.avg_pool2d(x, ksize=2, strides=2, padding=padding).numpy()
    if padding == "VALID":
        ref = x[:, :4, :4, :].reshape(2, 2, 2, 2, 2, 3)
        np.testing.assert_allclose(mp, ref.max(axis=(2, 4)))
        np.testing.assert_allclose(ap, ref.mean(axis=(2, 4)))
    else:
        assert mp.shape == (2, 3, 2, 3)
        np.testing.assert_allclose(mp[:, 2, :, :], np.maximum(x[:, 4, 0::2, :], x[:, 4, 1::2, :]))
        np.testing.assert_allclose(ap[:, 2, :, :], (x[:, 4, 0::2, :] + x[:, 4, 1::2, :]) / 2)  # padding not counted
    check_gradients(lambda t: tf.nn.max_pool2d(t, 2, 2, padding), x)
    check_gradients(lambda t: tf.nn.avg_pool2d(t, [2, 3], [1, 2], padding), x)


def test_max_pool_gradient_goes_to_the_first_maximum():
    x = tf.constant(np.ones((1, 2, 2, 1)))
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(tf.nn.max_pool2d(x, 2, 2, "VALID"))
    assert t.gradient(y, x).numpy().ravel().tolist() == [1.0, 0.0, 0.0, 0.0]


def test_conv_errors():
    with pytest.raises(InvalidArgumentError, match="filter"):
        tf.nn.conv2d(tf.ones([1, 4, 4, 3]), tf.ones([2, 2, 2, 1]), 1, "SAME")
    with pytest.raises(ValueError, match="padding"):
        tf.nn.conv2d(tf.ones([1, 4, 4, 3]), tf.ones([2, 2, 3, 1]), 1, "FULL")
    with pytest.raises(ValueError, match="NHWC"):
        tf.nn.conv2d(tf.ones([1, 4, 4, 3]), tf.ones([2, 2, 3, 1]), 1, "SAME", data_format="NCHW")


def test_second_derivatives_through_library_ops():
    x = tf.constant(np.array([0.3, -0.7, 1.1]))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.nn.softplus(x) * tf.math.erf(x))
        g = inner.gradient(y, x)
    h = outer.gradient(g, x).numpy()

    def f(v):
        return np.log1p(np.exp(v)) * erf_np(v)

    eps = 1e-4
    xv = x.numpy()
    num = (f(xv + eps) - 2 * f(xv) + f(xv - eps)) / eps**2
    np.testing.assert_allclose(h, num, rtol=1e-4)


def test_second_derivative_through_relu():
    x = tf.constant([-1.0, 0.0, 2.0], dtype=tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.nn.relu(x) * tf.nn.relu(x) * x)  # x^3 where x > 0
        g = inner.gradient(y, x)
    assert g.numpy().tolist() == [0.0, 0.0, 12.0]
    assert outer.gradient(g, x).numpy().tolist() == [0.0, 0.0, 12.0]


def test_index_dtype_arguments_and_unsupported_matrix_norms_are_refused():
    # A float `out_type`/`output_type` used to be accepted and returned float indices.
    for call in (
        lambda: tf.shape([1, 2], out_type=tf.float32),
        lambda: tf.size([1, 2], out_type=tf.float32),
        lambda: tf.argmax([1.0, 2.0], output_type=tf.float32),
        lambda: tf.argmin([1.0, 2.0], output_type=tf.float64),
    ):
        with pytest.raises(TypeError, match="int32 or int64, got float"):
            call()
    assert tf.shape([1, 2], out_type=tf.int64).dtype == tf.int64
    assert tf.argmax([1.0, 2.0], output_type=tf.int32).dtype == tf.int32
    m = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    # TensorFlow reads ord=1/2/inf over two axes as matrix norms (2 is spectral,
    # 5.465 here); tapers used to return the flattened vector norm (5.477).
    for o in (1, 2, np.inf):
        with pytest.raises(ValueError, match=f"matrix norm ord={o}"):
            tf.norm(m, ord=o, axis=[0, 1])
    np.testing.assert_allclose(tf.norm(m, ord="fro", axis=[0, 1]).numpy(), np.sqrt(30.0), rtol=1e-6)
    np.testing.assert_allclose(tf.norm(m, ord=1, axis=1).numpy(), [3.0, 7.0])


@pytest.mark.parametrize("n", [3, 70_000])  # small, and above the parallel threshold
def test_transposes_and_broadcasts_copy_exactly(n):
    # Permuted and broadcast views are copied by the row-major Zip path, in
    # parallel above 65,536 elements: values must match numpy's, bit for bit.
    a = R.normal(size=(2, n, 3)).astype(np.float32)
    for perm in ([0, 2, 1], [2, 1, 0], [1, 0, 2], [2, 0, 1]):
        np.testing.assert_array_equal(tf.transpose(a, perm).numpy(), a.transpose(perm))
    col = R.normal(size=(n, 1)).astype(np.float32)
    np.testing.assert_array_equal(tf.broadcast_to(col, [n, 3]).numpy(), np.broadcast_to(col, (n, 3)))
    row = R.normal(size=(1, 3)).astype(np.float32)
    np.testing.assert_array_equal(tf.broadcast_to(row, [n, 3]).numpy(), np.broadcast_to(row, (n, 3)))
    np.testing.assert_array_equal(tf.broadcast_to(tf.constant(2.5), [n]).numpy(), np.full(n, 2.5, np.float32))
    m = R.normal(size=(n, 4)).astype(np.float32)
    w = R.normal(size=(n, 5)).astype(np.float32)
    np.testing.assert_allclose(tf.matmul(m, w, transpose_a=True).numpy(), m.T @ w, rtol=1e-4, atol=1e-3)


def test_float32_exp_tanh_sigmoid_are_accurate_across_the_range():
    # float32 exp/tanh/sigmoid run vectorized polynomial kernels (runtime SIMD
    # dispatch): check them against float64 references, edges included.
    x = np.concatenate([np.linspace(-110, 100, 200_001), [0.0, -0.0, np.inf, -np.inf, np.nan]]).astype(np.float32)
    x64 = x.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        want_exp = np.exp(x64).astype(np.float32)
        want_sig = (1.0 / (1.0 + np.exp(-x64))).astype(np.float32)
    got_exp = tf.exp(x).numpy()
    ulps = np.abs(got_exp.view(np.int32).astype(np.int64) - want_exp.view(np.int32).astype(np.int64))
    finite = np.isfinite(x)
    assert ulps[finite].max() <= 1
    assert got_exp[-3] == np.inf and got_exp[-2] == 0.0 and np.isnan(got_exp[-1])
    got_sig = tf.sigmoid(x).numpy()
    np.testing.assert_allclose(got_sig[finite], want_sig[finite], rtol=3e-7, atol=1e-45)
    assert got_sig[-3] == 1.0 and got_sig[-2] == 0.0 and np.isnan(got_sig[-1])
    np.testing.assert_allclose(tf.tanh(x).numpy()[finite], np.tanh(x64)[finite], atol=4e-7)


@pytest.mark.parametrize("n", [1, 4095, 4096, 4097, 16383, 16385, (1 << 16) - 1, 1 << 16, (1 << 16) + 4097, 300_001])
def test_vectorized_unary_kernels_write_every_element_at_chunk_edges(n):
    # Large outputs are built chunk by chunk (4,096 elements, in parallel above
    # 2^16) without a zero-filled buffer first: every element must be the
    # same value a one-element call gives, whatever the size, the split or
    # the layout (a strided view runs the plain per-element loop).
    x = np.linspace(-9.0, 9.0, n).astype(np.float32)
    for fn in (tf.exp, tf.tanh):
        got = fn(tf.constant(x)).numpy()
        assert got.shape == (n,)
        for k in {0, n // 2, n - 1, min(4096, n - 1)}:
            assert got[k] == fn(tf.constant(x[k])).numpy()
        strided = fn(tf.constant(np.stack([x, x], 1))[:, 0]).numpy() if n > 1 else got
        assert strided.tobytes() == got.tobytes()
        assert np.isfinite(got).all()


@pytest.mark.parametrize("n", [(1 << 16) + 1, (1 << 19) - 1, 1 << 19, (1 << 19) + 4097])
def test_memory_bound_kernels_agree_with_numpy_on_both_sides_of_their_split(n):
    # Memory-bound passes (arithmetic, comparisons, selects, relu) go to the
    # pool only from 2^19 elements (compute-bound ones from 2^16): every
    # element is the same bits on either side of the split.
    rng = np.random.default_rng(n)
    a = rng.normal(size=n).astype(np.float32)
    b = rng.normal(size=n).astype(np.float32)
    ta, tb = tf.constant(a), tf.constant(b)
    c = np.float32(0.01)
    assert (tf.constant(c) * ta).numpy().tobytes() == (c * a).tobytes()
    assert (ta + tb).numpy().tobytes() == (a + b).tobytes()
    assert (ta - tb).numpy().tobytes() == (a - b).tobytes()
    assert tf.maximum(ta, 0.0).numpy().tobytes() == np.maximum(a, np.float32(0)).tobytes()
    assert tf.nn.relu(ta).numpy().tobytes() == np.maximum(a, np.float32(0)).tobytes()
    assert (ta >= tb).numpy().tobytes() == (a >= b).tobytes()
    assert tf.where(ta >= tb, ta, tb).numpy().tobytes() == np.where(a >= b, a, b).tobytes()
    assert tf.add_n([ta, tb, ta]).numpy().tobytes() == ((a + b) + a).tobytes()
    assert (-ta).numpy().tobytes() == (-a).tobytes()


@pytest.mark.parametrize(
    "shape, axis",
    [((128, 256), 0), ((5, 3, 4), 0), ((7, 1), 0), ((0, 3), 0), ((3, 0), 0), ((4, 3), []), ((2, 3, 4), [0, 1])],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduce_sum_over_the_leading_axis_adds_rows_in_order(shape, axis, dtype, keepdims):
    # A bias gradient's reduction: rows added one after another from zero,
    # bit for bit what an in-order loop gives (and integers wrap, as in TF).
    rng = np.random.default_rng(3)
    if np.issubdtype(dtype, np.integer):
        x = rng.integers(np.iinfo(dtype).min // 2, np.iinfo(dtype).max // 2, size=shape, dtype=dtype)
    else:
        x = (rng.normal(size=shape) * 10.0 ** rng.integers(-3, 4, size=shape)).astype(dtype)
    got = tf.reduce_sum(tf.constant(x), axis=axis, keepdims=keepdims).numpy()
    axes = [axis] if isinstance(axis, int) else axis
    want = x
    with np.errstate(over="ignore"):
        for ax in sorted(axes, reverse=True):
            acc = np.zeros(want.shape[:ax] + want.shape[ax + 1 :], dtype)
            for i in range(want.shape[ax]):
                acc = acc + np.take(want, i, axis=ax)
            want = acc
    if keepdims:
        want = want.reshape([1 if i in axes else d for i, d in enumerate(shape)])
    assert got.dtype == dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("n", [3, 1 << 17])
def test_maximum_minimum_gradients_select_as_tf(n):
    # TF's MaximumGrad: g where x >= y (ties to x), else to y; a NaN x fails
    # the test, so y gets g. A select, not a product: an infinite g where a
    # side is not taken gives that side 0, not NaN. Small tensors take the
    # op's own rule, large ones (2^17) the fused backward's chunk kernel.
    base = np.array([np.nan, 1.0, 2.0, -1.0, 3.0], np.float32)
    x = tf.constant(np.resize(base, n))
    y = tf.constant(np.resize(np.array([0.0, 1.0, 5.0, -2.0, 3.0], np.float32), n))
    g = tf.constant(np.resize(np.array([1.0, np.inf, 2.0, 3.0, -np.inf], np.float32), n))
    for fn, want_x in ((tf.maximum, [0.0, np.inf, 0.0, 3.0, -np.inf]), (tf.minimum, [0.0, np.inf, 2.0, 0.0, -np.inf])):
        with tf.GradientTape() as t:
            t.watch([x, y])
            z = fn(x, y) * 1.0
        gx, gy = t.gradient(z, [x, y], output_gradients=g)
        want_x = np.resize(np.array(want_x, np.float32), n)
        want_y = np.where(want_x == 0.0, np.resize(g.numpy(), n), np.float32(0.0))
        np.testing.assert_array_equal(gx.numpy(), want_x)
        np.testing.assert_array_equal(gy.numpy(), want_y)


def test_maximum_against_a_python_float_sums_the_scalars_gradient():
    x = tf.constant([[-1.0, 2.0], [0.5, -3.0]], dtype=tf.float64)
    c = tf.constant(0.0, dtype=tf.float64)
    with tf.GradientTape() as t:
        t.watch([x, c])
        y = tf.reduce_sum(tf.maximum(x, c) * tf.constant([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float64))
    gx, gc = t.gradient(y, [x, c])
    np.testing.assert_array_equal(gx.numpy(), [[0.0, 2.0], [3.0, 0.0]])
    assert gc.shape == () and float(gc) == 1.0 + 4.0
