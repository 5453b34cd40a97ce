"""The common ops of issue 20 (sort, argsort, top_k, roll, reverse, repeat, boolean_mask,
log_sigmoid, cumulative_logsumexp, segment sums/means/maxima, scatter_nd and the tensor
scatters, unique, searchsorted, bincount, moments, batch_normalization).

TensorFlow parity comes from tests/data/ops_common_reference.json, written by
tests/data/make_ops_common_reference.py under TensorFlow 2.21: each case is Python source run
here unchanged with ``tf = tapers`` (values, dtypes, shapes, exception classes and messages,
first and second derivatives, tie orders). The rest checks against numpy and float64 finite
differences: random shapes and dtypes, empty inputs, ties."""

from __future__ import annotations

import builtins
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tapers as tf
from conftest import check_gradients

REF = json.loads((Path(__file__).parent / "data" / "ops_common_reference.json").read_text())


def decode(v: Any) -> Any:
    if isinstance(v, list):
        return [decode(x) for x in v]
    if isinstance(v, str):
        return float(v)
    return v


def tensors(r: Any) -> list[Any]:
    if isinstance(r, (tuple, list)):
        return [t for x in r for t in tensors(x)]
    return [r]


def error_class(name: str) -> type[BaseException]:
    cls = getattr(tf.errors, name, None) or getattr(builtins, name)
    assert isinstance(cls, type)
    return cls


def message_of(e: BaseException) -> str:
    msg = str(getattr(e, "message", None) or e)
    return msg.rsplit(" name: ", 1)[0].strip()


def weights(shape: Any, start: float, step: float) -> np.ndarray:
    n = int(np.prod(shape))
    return (start + step * np.arange(n, dtype=np.float64)).reshape(shape)


@pytest.mark.parametrize("case", REF["values"], ids=[c["id"] for c in REF["values"]])
def test_matches_tensorflow(case: dict) -> None:
    if "error" in case:
        cls = error_class(case["error"]["class"])
        with pytest.raises(cls) as info:
            eval(case["expr"])
        if case.get("msg", True):
            assert message_of(info.value) == case["error"]["message"]
        return
    got = tensors(eval(case["expr"]))
    want = case["result"]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype.name == w["dtype"]
        assert list(g.shape) == w["shape"]
        expect = np.array(decode(w["value"]), dtype=g.dtype.as_numpy_dtype).reshape(w["shape"])
        if g.dtype.is_floating:
            rtol = 1e-6 if g.dtype == tf.float32 else 1e-12
            np.testing.assert_allclose(g.numpy(), expect, rtol=rtol, atol=1e-30)
            # -0.0 and 0.0 are told apart (unique keeps the first one seen).
            np.testing.assert_array_equal(np.signbit(g.numpy()), np.signbit(expect))
        else:
            np.testing.assert_array_equal(g.numpy(), expect)


@pytest.mark.parametrize("case", REF["grads"], ids=[c["id"] for c in REF["grads"]])
def test_gradients_match_tensorflow(case: dict) -> None:
    fn = eval(case["fn"])
    xs = [tf.constant(np.array(a, dtype=np.float64)) for a in case["inputs"]]
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(xs)
        with tf.GradientTape() as inner:
            inner.watch(xs)
            y = fn(*xs)
            loss = tf.reduce_sum(y * tf.constant(weights(y.shape, 1.0, 0.25)))
        grads = inner.gradient(loss, xs)
        second_obj = tf.reduce_sum(grads[0] * tf.constant(weights(grads[0].shape, 0.5, 0.125)))
    np.testing.assert_allclose(y.numpy(), decode(case["value"]), rtol=1e-12)
    for g, want in zip(grads, case["grads"]):
        if want is None:
            assert g is None
        else:
            np.testing.assert_allclose(g.numpy(), decode(want), rtol=1e-12, atol=1e-15)
    if "second" in case:
        g2 = outer.gradient(second_obj, xs[0])
        if case["second"] is None:
            # TF: None (the gradient does not depend on x); tapers may give None or zeros.
            assert g2 is None or not np.any(g2.numpy())
        else:
            want2 = np.array(decode(case["second"]))
            got2 = np.zeros_like(want2) if g2 is None else g2.numpy()
            np.testing.assert_allclose(got2, want2, rtol=1e-10, atol=1e-12)


# Float64 finite-difference gradients at points without ties (where the ops are smooth).
def distinct(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.37 + rng.uniform(0, 0.1, n)).reshape(shape) - n * 0.15


FD_CASES: list[tuple[str, Any, list[tuple[int, ...]]]] = [
    ("sort_last", lambda x: tf.sort(x), [(3, 5)]),
    ("sort_axis0_desc", lambda x: tf.sort(x, axis=0, direction="DESCENDING"), [(4, 3)]),
    ("top_k", lambda x: tf.math.top_k(x, k=2).values, [(3, 4)]),
    ("roll", lambda x: tf.roll(x, shift=[2, -1], axis=[1, 0]), [(3, 4)]),
    ("reverse", lambda x: tf.reverse(x, axis=[0, 2]), [(2, 3, 2)]),
    ("repeat", lambda x: tf.repeat(x, [1, 3, 0], axis=0), [(3, 2)]),
    ("repeat_flat", lambda x: tf.repeat(x, 2), [(2, 2)]),
    ("boolean_mask", lambda x: tf.boolean_mask(x, [[True, False, True], [False, True, True]], axis=1), [(2, 2, 3)]),
    ("log_sigmoid", lambda x: tf.math.log_sigmoid(x), [(5,)]),
    ("cumulative_logsumexp", lambda x: tf.math.cumulative_logsumexp(x, axis=1), [(2, 4)]),
    (
        # exp(): the exclusive scan starts at -inf, which a weighted sum cannot difference.
        "cumulative_logsumexp_ex_rev",
        lambda x: tf.exp(tf.math.cumulative_logsumexp(x, exclusive=True, reverse=True)),
        [(4, 2)],
    ),
    ("segment_sum", lambda x: tf.math.segment_sum(x, [0, 1, 1, 3]), [(4, 2)]),
    ("unsorted_segment_sum", lambda x: tf.math.unsorted_segment_sum(x, [[1, -1], [0, 1]], 3), [(2, 2, 3)]),
    ("unsorted_segment_mean", lambda x: tf.math.unsorted_segment_mean(x, [1, 0, 1, 1], 3), [(4, 2)]),
    ("unsorted_segment_max", lambda x: tf.math.unsorted_segment_max(x, [1, 0, 1, 2, 1], 3), [(5, 2)]),
    ("scatter_nd", lambda u: tf.scatter_nd([[0, 1], [2, 0], [0, 1]], u, [3, 2, 2]), [(3, 2)]),
    ("tensor_scatter_nd_update", lambda t, u: tf.tensor_scatter_nd_update(t, [[1], [0]], u), [(3, 2), (2, 2)]),
    ("tensor_scatter_nd_add", lambda t, u: tf.tensor_scatter_nd_add(t, [[1], [1]], u), [(3, 2), (2, 2)]),
    ("moments_mean", lambda x: tf.nn.moments(x, axes=[1])[0], [(3, 4)]),
    ("moments_variance", lambda x: tf.nn.moments(x, axes=[0], keepdims=True)[1], [(3, 4)]),
    (
        "batch_normalization",
        lambda x, m, v, o, s: tf.nn.batch_normalization(x, m, v + 3.0, o, s, 1e-3),
        [(3, 2), (2,), (2,), (2,), (2,)],
    ),
    ("pad_reflect", lambda x: tf.pad(x, [[1, 2], [2, 1]], mode="REFLECT"), [(4, 3)]),
    ("pad_symmetric", lambda x: tf.pad(x, [[3, 0], [1, 2]], mode="SYMMETRIC"), [(3, 2)]),
    ("conv1d", lambda x, f: tf.nn.conv1d(x, f, 1, "SAME"), [(2, 5, 2), (3, 2, 3)]),
    ("depthwise_conv2d", lambda x, f: tf.nn.depthwise_conv2d(x, f, [1, 2, 2, 1], "SAME"), [(1, 4, 4, 2), (2, 2, 2, 2)]),
    (
        "conv2d_transpose",
        lambda x, f: tf.nn.conv2d_transpose(x, f, [1, 4, 4, 2], 2, "SAME"),
        [(1, 2, 2, 3), (3, 3, 2, 3)],
    ),
    ("einsum_four", lambda a, b, c, d: tf.einsum("ij,jk,kl,l->i", a, b, c, d), [(2, 3), (3, 2), (2, 4), (4,)]),
    ("einsum_ellipsis_broadcast", lambda a, b: tf.einsum("...ij,...jk->...ik", a, b), [(2, 1, 2, 3), (4, 3, 2)]),
]


@pytest.mark.parametrize("fn,shapes", [(f, s) for _, f, s in FD_CASES], ids=[c[0] for c in FD_CASES])
def test_finite_difference_gradients(fn: Any, shapes: list[tuple[int, ...]], rng: np.random.Generator) -> None:
    check_gradients(fn, *[distinct(rng, s) for s in shapes], rtol=1e-5, atol=1e-7)


# numpy references over dtypes, with many ties (small integers).
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_sort_and_argsort_against_numpy(dtype: str, axis: int, rng: np.random.Generator) -> None:
    x = rng.integers(-3, 4, size=(5, 7)).astype(dtype)
    np.testing.assert_array_equal(tf.sort(x, axis=axis).numpy(), np.sort(x, axis=axis))
    desc = tf.sort(x, axis=axis, direction="DESCENDING").numpy()
    np.testing.assert_array_equal(desc, -np.sort(-x, axis=axis))
    # Stable: equal values keep their order in both directions (TF's top_k order).
    idx = tf.argsort(x, axis=axis)
    assert idx.dtype == tf.int32
    np.testing.assert_array_equal(idx.numpy(), np.argsort(x, axis=axis, kind="stable"))
    np.testing.assert_array_equal(
        tf.argsort(x, axis=axis, direction="DESCENDING").numpy(), np.argsort(-x, axis=axis, kind="stable")
    )
    assert tf.sort(x, axis=axis).dtype.name == dtype


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_top_k_against_numpy(dtype: str, rng: np.random.Generator) -> None:
    x = rng.integers(-2, 3, size=(4, 6)).astype(dtype)
    for k in [0, 1, 3, 6]:
        r = tf.math.top_k(x, k=k)
        order = np.argsort(-x.astype(np.float64), axis=-1, kind="stable")[:, :k]
        np.testing.assert_array_equal(r.indices.numpy(), order)
        np.testing.assert_array_equal(r.values.numpy(), np.take_along_axis(x, order, axis=-1))
        assert r.values.dtype.name == dtype and r.indices.dtype == tf.int32
    values, indices = tf.math.top_k(x, k=2, sorted=False)
    assert values.shape == (4, 2) and indices.shape == (4, 2)


def test_top_k_and_unique_are_named_tuples() -> None:
    r = tf.math.top_k([1.0, 4.0, 2.0], k=2)
    assert type(r).__name__ == "TopKV2" and r._fields == ("values", "indices")
    u = tf.unique([3, 1, 3])
    assert type(u).__name__ == "Unique" and u._fields == ("y", "idx")
    np.testing.assert_array_equal(u.y.numpy(), [3, 1])
    np.testing.assert_array_equal(u.idx.numpy(), [0, 1, 0])


def test_empty_inputs() -> None:
    assert tf.sort(tf.zeros([3, 0])).shape == (3, 0)
    assert tf.argsort(tf.zeros([0])).shape == (0,)
    assert tf.math.top_k(tf.zeros([2, 0]), k=0).values.shape == (2, 0)
    y, idx = tf.unique(tf.constant([], dtype=tf.int64))
    assert y.shape == (0,) and idx.shape == (0,) and y.dtype == tf.int64
    assert tf.roll(tf.zeros([0, 3]), shift=[1, 2], axis=[0, 1]).shape == (0, 3)
    assert tf.reverse(tf.zeros([2, 0]), axis=[1]).shape == (2, 0)
    assert tf.repeat(tf.zeros([2, 3]), 0, axis=1).shape == (2, 0)
    assert tf.boolean_mask(tf.zeros([2, 3]), [False, False]).shape == (0, 3)
    assert tf.math.segment_sum(tf.zeros([0, 2]), tf.constant([], dtype=tf.int32)).shape == (0, 2)
    s = tf.math.unsorted_segment_sum(tf.zeros([0, 2]), tf.constant([], dtype=tf.int32), 3)
    np.testing.assert_array_equal(s.numpy(), np.zeros((3, 2)))
    m = tf.math.unsorted_segment_max(tf.zeros([0]), tf.constant([], dtype=tf.int32), 2)
    np.testing.assert_array_equal(m.numpy(), np.full(2, np.finfo(np.float32).min))
    e = tf.scatter_nd(tf.zeros([0, 1], dtype=tf.int32), tf.zeros([0, 2]), [3, 2])
    np.testing.assert_array_equal(e.numpy(), np.zeros((3, 2)))
    assert tf.searchsorted(tf.zeros([0]), tf.zeros([2])).numpy().tolist() == [0, 0]
    assert tf.math.cumulative_logsumexp(tf.zeros([0, 2])).shape == (0, 2)
    assert tf.math.bincount(tf.constant([], dtype=tf.int32), minlength=2).numpy().tolist() == [0, 0]


def test_empty_gradients() -> None:
    x = tf.zeros([0, 3], dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.sort(x)) + tf.reduce_sum(tf.math.cumulative_logsumexp(x))
    g = tape.gradient(y, x)
    assert g is not None and g.shape == (0, 3)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool"])
def test_rearrangements_keep_dtype(dtype: str, rng: np.random.Generator) -> None:
    x = rng.integers(0, 5, size=(3, 4)).astype(dtype)
    np.testing.assert_array_equal(tf.roll(x, shift=[1, 3], axis=[0, 1]).numpy(), np.roll(x, (1, 3), axis=(0, 1)))
    np.testing.assert_array_equal(tf.reverse(x, axis=[1]).numpy(), x[:, ::-1])
    np.testing.assert_array_equal(tf.repeat(x, [1, 0, 2], axis=0).numpy(), np.repeat(x, [1, 0, 2], axis=0))
    mask = rng.integers(0, 2, size=(3, 4)).astype(bool)
    np.testing.assert_array_equal(tf.boolean_mask(x, mask).numpy(), x[mask])
    y, idx = tf.unique(x.reshape(-1))
    np.testing.assert_array_equal(y.numpy()[idx.numpy()], x.reshape(-1))


def test_unsorted_segment_ops_against_numpy(rng: np.random.Generator) -> None:
    data = rng.normal(size=(6, 3))
    ids = np.array([2, 0, -1, 2, 2, 0])
    num = 4
    want_sum = np.zeros((num, 3))
    want_max = np.full((num, 3), np.finfo(np.float64).min)
    counts = np.zeros(num)
    for i, s in enumerate(ids):
        if s >= 0:
            want_sum[s] += data[i]
            want_max[s] = np.maximum(want_max[s], data[i])
            counts[s] += 1
    np.testing.assert_allclose(tf.math.unsorted_segment_sum(data, ids, num).numpy(), want_sum, rtol=1e-14)
    np.testing.assert_allclose(
        tf.math.unsorted_segment_mean(data, ids, num).numpy(), want_sum / np.maximum(counts, 1)[:, None], rtol=1e-14
    )
    np.testing.assert_array_equal(tf.math.unsorted_segment_max(data, ids, num).numpy(), want_max)
    ints = tf.math.unsorted_segment_sum(np.arange(6, dtype=np.int64), ids, num)
    assert ints.dtype == tf.int64
    np.testing.assert_array_equal(ints.numpy(), [1 + 5, 0, 0 + 3 + 4, 0])


def test_searchsorted_and_bincount_against_numpy(rng: np.random.Generator) -> None:
    seq = np.sort(rng.integers(0, 6, size=(3, 8)), axis=1).astype(np.float64)
    vals = rng.integers(-1, 7, size=(3, 5)).astype(np.float64)
    for side in ["left", "right"]:
        got = tf.searchsorted(seq, vals, side=side).numpy()
        want = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq, vals)])
        np.testing.assert_array_equal(got, want)
    arr = rng.integers(0, 5, size=20)
    np.testing.assert_array_equal(tf.math.bincount(arr.astype(np.int32)).numpy(), np.bincount(arr))
    w = rng.normal(size=20)
    np.testing.assert_allclose(tf.math.bincount(arr.astype(np.int32), weights=w).numpy(), np.bincount(arr, w))


def test_sort_is_differentiable_twice_and_through_a_jacobian() -> None:
    x = tf.constant([0.3, -1.2, 2.0], dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.sort(x) * tf.constant([1.0, 2.0, 3.0], dtype=tf.float64)
    jac = tape.jacobian(y, x).numpy()
    np.testing.assert_array_equal(jac, [[0, 1, 0], [2, 0, 0], [0, 0, 3]])


def test_not_differentiable_ops_give_none() -> None:
    x = tf.constant([2.0, 1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        u = tf.unique(x).y
        s = tf.cast(tf.argsort(x), tf.float32)
    assert tape.gradient(u, x) is None
    assert tape.gradient(s, x) is None


def test_argument_errors() -> None:
    with pytest.raises(TypeError):
        tf.math.top_k([1.0, 2.0], k=1, index_type=tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of bool"):
        tf.math.unsorted_segment_max([True], [0], 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="segment_ids"):
        tf.math.unsorted_segment_sum([1.0, 2.0], tf.constant([0.0, 1.0]), 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="indices"):
        tf.scatter_nd(tf.constant([[0.5]]), [1.0], [2])
    with pytest.raises(ValueError, match="Unsupported axis"):
        tf.math.bincount([1, 2], axis=1)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.tensor_scatter_nd_add(tf.zeros([2]), [[0]], tf.constant([1], dtype=tf.int32))


@pytest.mark.parametrize(
    "eq,shapes",
    [
        ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
        ("...ij,...jk->...ik", [(3, 1, 2, 4), (5, 4, 2)]),
        ("i...j->j...i", [(2, 3, 4, 5)]),
        ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
        ("ij,jk,kl,lm,mi->", [(2, 3), (3, 2), (2, 2), (2, 4), (4, 2)]),
        ("i,i,i", [(3,), (3,), (3,)]),
        ("a...,...b->...ab", [(2, 3), (3, 4)]),
        ("...ii->...i", [(2, 3, 3)]),
    ],
)
def test_einsum_general_against_numpy(eq: str, shapes: list[tuple[int, ...]], rng: np.random.Generator) -> None:
    ops = [rng.normal(size=s) for s in shapes]
    np.testing.assert_allclose(tf.einsum(eq, *ops).numpy(), np.einsum(eq, *ops), rtol=1e-10, atol=1e-12)


def test_einsum_errors() -> None:
    with pytest.raises(tf.errors.InvalidArgumentError, match="einsum"):
        tf.einsum("...ij,...jk->...ik", tf.ones([2, 2, 3]), tf.ones([3, 3, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="einsum"):
        tf.einsum("ij,jk,kl->il", tf.ones([2, 3]), tf.ones([3, 4]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="einsum"):
        tf.einsum("i....j->ij", tf.ones([2, 3]))
    # TF (unlike numpy): an output without "..." cannot sum the ellipsis dims away.
    with pytest.raises(tf.errors.InvalidArgumentError, match="no ellipsis"):
        tf.einsum("a...,...b->ab", tf.ones([2, 3]), tf.ones([3, 4]))
