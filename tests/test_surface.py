"""Issue 20, "the rest of TensorFlow's numeric surface": the non-elementwise names of
``tf``, ``tf.math``, ``tf.nn``, ``tf.linalg`` and ``tf.random`` added in python/tapers/_math_extra.py,
_array_extra.py and _nn_extra.py.

TensorFlow parity comes from tests/data/surface_reference.json, written by
tests/data/make_surface_reference.py under TensorFlow 2.21: each case is Python source run here
unchanged with ``tf = tapers`` (values, dtypes, shapes, exception classes and messages, first and
second derivatives, tie splits). Float64 finite differences check the gradients at other points,
and the stateless random ops are checked for their determinism-by-seed contract (tapers does not
reproduce TensorFlow's Philox bits)."""

from __future__ import annotations

import builtins
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tapers as tf
from conftest import check_gradients

REF = json.loads((Path(__file__).parent / "data" / "surface_reference.json").read_text())

# Every TF name this issue added, by module: a later rename or removal fails here.
ADDED = {
    "": [
        "control_dependencies", "dynamic_partition", "dynamic_stitch", "executing_eagerly", "foldl", "foldr",
        "get_static_value", "group", "histogram_fixed_width", "identity_n", "init_scope", "is_tensor", "no_op",
        "reverse_sequence", "saturate_cast", "scalar_mul", "scan", "sequence_mask", "shape_n", "slice",
        "strided_slice", "tensor_scatter_nd_max", "tensor_scatter_nd_min", "tensor_scatter_nd_sub",
        "unique_with_counts", "unravel_index", "batch_to_space", "space_to_batch", "space_to_batch_nd",
        "broadcast_dynamic_shape", "broadcast_static_shape", "ensure_shape", "get_current_name_scope",
        "grad_pass_through", "parallel_stack", "tuple", "histogram_fixed_width_bins",
        "required_space_to_batch_paddings",
    ],
    "math": [
        "accumulate_n", "confusion_matrix", "count_nonzero", "in_top_k", "invert_permutation", "is_non_decreasing",
        "is_strictly_increasing", "l2_normalize", "log_softmax", "polyval", "reduce_euclidean_norm", "scalar_mul",
        "segment_max", "segment_mean", "segment_min", "segment_prod", "softmax", "unsorted_segment_min",
        "unsorted_segment_prod", "unsorted_segment_sqrt_n", "zero_fraction", "approx_max_k", "approx_min_k",
    ],
    "nn": [
        "avg_pool1d", "compute_average_loss", "crelu", "depth_to_space", "in_top_k", "l2_loss", "log_poisson_loss",
        "max_pool1d", "normalize_moments", "space_to_depth", "sufficient_statistics",
        "weighted_cross_entropy_with_logits", "weighted_moments", "zero_fraction", "space_to_batch", "atrous_conv2d",
        "batch_norm_with_global_normalization", "conv1d_transpose", "scale_regularization_loss", "separable_conv2d",
        "approx_max_k", "approx_min_k", "convolution", "local_response_normalization", "lrn", "pool",
        "atrous_conv2d_transpose", "conv_transpose",
    ],
    "linalg": [
        "cross", "expm", "l2_normalize", "matrix_rank", "set_diag", "tensor_diag", "tensor_diag_part",
        "tridiagonal_matmul", "tridiagonal_solve",
    ],
    "random": [
        "categorical", "stateless_categorical", "stateless_normal", "stateless_truncated_normal", "stateless_uniform",
        "fold_in", "split",
    ],
}  # fmt: skip


@pytest.mark.parametrize("module", sorted(ADDED))
def test_added_names_exist(module: str) -> None:
    mod = getattr(tf, module) if module else tf
    missing = [n for n in ADDED[module] if not callable(getattr(mod, n, None))]
    assert not missing, f"tapers{'.' + module if module else ''} lacks {missing}"
    # Exported too, so `from tapers.X import *` sees them; but not the names that would shadow builtins.
    builtin_names = {"slice", "tuple"}
    assert not [n for n in ADDED[module] if n not in mod.__all__ and n not in builtin_names]
    assert not builtin_names & set(mod.__all__)


def decode(v: Any) -> Any:
    if isinstance(v, list):
        return [decode(x) for x in v]
    if isinstance(v, str):
        return float(v)
    return v


def items(r: Any) -> list[Any]:
    if isinstance(r, (tuple, list)):
        return [t for x in r for t in items(x)]
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
    got = items(eval(case["expr"]))
    want = case["result"]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if "py" in w:
            assert g == w["py"] and type(g) is type(w["py"])
            continue
        if "numpy" in w:
            assert isinstance(g, np.ndarray) and str(g.dtype) == w["dtype"]
            np.testing.assert_array_equal(g, np.array(w["numpy"], dtype=w["dtype"]))
            continue
        assert isinstance(g, tf.Tensor)
        assert g.dtype.name == w["dtype"]
        assert list(g.shape) == w["shape"]
        if g.dtype.is_complex:
            parts = np.array(decode(w["value"]), dtype=np.float64).reshape([*w["shape"], 2])
            np.testing.assert_allclose(g.numpy().real, parts[..., 0], rtol=1e-6)
            np.testing.assert_allclose(g.numpy().imag, parts[..., 1], rtol=1e-6)
            continue
        expect = np.array(decode(w["value"]), dtype=g.dtype.as_numpy_dtype).reshape(w["shape"])
        if g.dtype.is_floating:
            rtol = 1e-6 if g.dtype == tf.float32 else 1e-12
            np.testing.assert_allclose(g.numpy(), expect, rtol=rtol, atol=1e-30)
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
            loss = tf.reduce_sum(tf.cast(y, tf.float64) * tf.constant(weights(y.shape, 1.0, 0.25)))
        grads = inner.gradient(loss, xs)
        second_obj = None
        if grads[0] is not None:
            second_obj = tf.reduce_sum(grads[0] * tf.constant(weights(grads[0].shape, 0.5, 0.125)))
    # float64 everywhere, except cases run through a float32-only op (their "rtol").
    rtol = case.get("rtol", 1e-12)
    np.testing.assert_allclose(y.numpy(), decode(case["value"]), rtol=rtol)
    for g, want in zip(grads, case["grads"]):
        if want is None:
            assert g is None
        else:
            assert g is not None
            np.testing.assert_allclose(g.numpy(), decode(want), rtol=rtol, atol=1e-15 if rtol < 1e-9 else 1e-7)
    if "second" in case:
        g2 = outer.gradient(second_obj, xs[0])
        if case["second"] is None:
            assert g2 is None or not np.any(g2.numpy())
        else:
            want2 = np.array(decode(case["second"]))
            got2 = np.zeros_like(want2) if g2 is None else g2.numpy()
            np.testing.assert_allclose(got2, want2, rtol=1e-10, atol=1e-12)


def distinct(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Values far apart (no ties), so max/min/sort-like ops are smooth there."""
    n = int(np.prod(shape))
    return ((rng.permutation(n) * 0.37 + rng.uniform(0, 0.1, n)) - n * 0.15).reshape(shape)


FD_CASES: list[tuple[str, Any, list[tuple[int, ...]]]] = [
    ("reduce_euclidean_norm", lambda x: tf.math.reduce_euclidean_norm(x, axis=0), [(3, 2)]),
    ("segment_max", lambda x: tf.math.segment_max(x, [0, 0, 1, 1, 3]), [(5, 2)]),
    ("segment_min", lambda x: tf.math.segment_min(x, [0, 1, 1]), [(3, 2)]),
    ("segment_mean", lambda x: tf.math.segment_mean(x, [0, 0, 2]), [(3, 2)]),
    ("segment_prod", lambda x: tf.math.segment_prod(x, [0, 0, 0, 1]), [(4,)]),
    ("unsorted_segment_min", lambda x: tf.math.unsorted_segment_min(x, [[1, -1], [0, 1]], 2), [(2, 2, 3)]),
    ("unsorted_segment_prod", lambda x: tf.math.unsorted_segment_prod(x, [2, 0, 2, 2], 3), [(4, 2)]),
    ("unsorted_segment_sqrt_n", lambda x: tf.math.unsorted_segment_sqrt_n(x, [2, 0, 2, 2], 3), [(4, 2)]),
    ("polyval", lambda a, b, x: tf.math.polyval([a, b, a], x), [(3,), (3,), (3,)]),
    ("strided_slice", lambda x: tf.strided_slice(x, [0, 3, 0], [0, 0, 0], [1, -2, 1], 1, 4, 0, 0, 4), [(2, 4, 3)]),
    ("reverse_sequence", lambda x: tf.reverse_sequence(x, [2, 3, 0, 1], seq_axis=0, batch_axis=1), [(3, 4)]),
    ("tensor_scatter_nd_min", lambda t, u: tf.tensor_scatter_nd_min(t, [[0, 1], [2, 0]], u), [(3, 2), (2,)]),
    ("dynamic_stitch", lambda a, b: tf.dynamic_stitch([[2, 0], [1]], [a, b]), [(2, 3), (1, 3)]),
    ("weighted_moments_mean", lambda x, w: tf.nn.weighted_moments(x, [1], w)[0], [(2, 3), (2, 3)]),
    ("log_poisson_loss", lambda c: tf.nn.log_poisson_loss(tf.constant([0.5, 2.0, 4.0], tf.float64), c), [(3,)]),
    ("max_pool1d", lambda x: tf.nn.max_pool1d(x, 3, 1, "VALID"), [(2, 5, 2)]),
    ("space_to_depth", lambda x: tf.nn.space_to_depth(x, 2), [(1, 4, 2, 3)]),
    ("cross", lambda a, b: tf.linalg.cross(a, b), [(2, 3), (2, 3)]),
    ("set_diag_rect", lambda x, d: tf.linalg.set_diag(x, d), [(2, 3, 2), (2, 2)]),
    ("tensor_diag_part", lambda x: tf.linalg.tensor_diag_part(x), [(3, 2, 3, 2)]),
    ("foldl", lambda x: tf.foldl(lambda a, v: a * v - 1.0, x), [(4,)]),
    ("space_to_batch_nd", lambda x: tf.space_to_batch_nd(x, [2, 3], [[1, 0], [0, 2]]), [(2, 3, 4, 2)]),
    ("batch_to_space", lambda x: tf.batch_to_space(x, [2, 2], [[0, 1], [1, 0]]), [(4, 2, 2, 2)]),
    ("conv1d_transpose", lambda x, f: tf.nn.conv1d_transpose(x, f, [2, 5, 3], 2, "VALID"), [(2, 2, 2), (3, 3, 2)]),
    ("expm", lambda a: tf.linalg.expm(a / 8.0), [(2, 3, 3)]),
]


@pytest.mark.parametrize("name,fn,shapes", FD_CASES, ids=[c[0] for c in FD_CASES])
def test_finite_difference_gradients(name: str, fn: Any, shapes: list[tuple[int, ...]]) -> None:
    rng = np.random.default_rng(len(name))
    arrays = [distinct(rng, s) for s in shapes]
    if name in ("reduce_euclidean_norm", "segment_prod", "unsorted_segment_prod"):
        arrays = [a / 4 + np.sign(a) * 0.5 for a in arrays]
    check_gradients(fn, *arrays, rtol=1e-5, atol=1e-7)


def test_dtypes_follow_inputs() -> None:
    x = tf.constant([1.0, 0.0, 2.0], dtype=tf.float64)
    assert tf.math.reduce_euclidean_norm(x).dtype == tf.float64
    assert tf.math.count_nonzero(x).dtype == tf.int64
    assert tf.math.zero_fraction(x).dtype == tf.float32
    assert tf.math.segment_prod(tf.constant([2, 3], dtype=tf.int64), [0, 0]).dtype == tf.int64
    assert tf.nn.l2_loss(tf.constant([1.0, 2.0], dtype=tf.float16)).dtype == tf.float16
    assert tf.saturate_cast(x, tf.uint8).dtype == tf.uint8


def test_stateless_random_is_a_function_of_seed_and_shape() -> None:
    for op in (tf.random.stateless_uniform, tf.random.stateless_normal, tf.random.stateless_truncated_normal):
        a = op([3, 4], seed=[1, 2])
        tf.random.uniform([5])  # other draws in between change nothing
        b = op([3, 4], seed=tf.constant([1, 2]))
        c = op([3, 4], seed=[2, 1])
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert not np.array_equal(a.numpy(), c.numpy())
        assert a.dtype == tf.float32 and list(a.shape) == [3, 4]
    t = tf.random.stateless_truncated_normal([2000], seed=[3, 4], dtype=tf.float64)
    assert t.dtype == tf.float64 and float(tf.reduce_max(tf.abs(t))) <= 2.0
    u = tf.random.stateless_uniform([1000], seed=[5, 6], minval=2, maxval=7, dtype=tf.int32)
    assert u.dtype == tf.int32 and 2 <= int(tf.reduce_min(u)) and int(tf.reduce_max(u)) < 7
    with pytest.raises(ValueError):
        tf.random.stateless_uniform([2], seed=[1, 2, 3])


def test_split_and_fold_in_derive_seeds_deterministically() -> None:
    a = tf.random.split([1, 2], num=3)
    assert a.dtype == tf.int64 and list(a.shape) == [3, 2]
    np.testing.assert_array_equal(a.numpy(), tf.random.split(tf.constant([1, 2]), num=3).numpy())
    assert len({tuple(r) for r in a.numpy().tolist()}) == 3
    f = tf.random.fold_in([1, 2], 7)
    assert f.dtype == tf.int64 and list(f.shape) == [2]
    np.testing.assert_array_equal(f.numpy(), tf.random.fold_in([1, 2], 7).numpy())
    assert not np.array_equal(f.numpy(), tf.random.fold_in([1, 2], 8).numpy())
    # the derived seeds drive the stateless ops
    x = tf.random.stateless_normal([4], seed=a[0])
    np.testing.assert_array_equal(x.numpy(), tf.random.stateless_normal([4], seed=a[0]).numpy())
    assert not np.array_equal(x.numpy(), tf.random.stateless_normal([4], seed=a[1]).numpy())


def test_categorical_follows_logits_and_seed() -> None:
    logits = tf.math.log(tf.constant([[0.1, 0.0, 0.9], [1.0, 0.0, 0.0]]))
    a = tf.random.categorical(logits, 2000, seed=7)
    assert a.dtype == tf.int64 and list(a.shape) == [2, 2000]
    counts = np.bincount(a.numpy()[0], minlength=3)
    assert counts[1] == 0 and 0.85 < counts[2] / 2000 < 0.95
    assert np.all(a.numpy()[1] == 0)
    tf.random.set_seed(3)
    b = tf.random.categorical(logits, 5, dtype=tf.int32, seed=1)
    tf.random.set_seed(3)
    c = tf.random.categorical(logits, 5, dtype=tf.int32, seed=1)
    assert b.dtype == tf.int32
    np.testing.assert_array_equal(b.numpy(), c.numpy())
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.random.categorical(tf.constant([1.0, 2.0]), 3)


def test_stateless_categorical_is_a_function_of_seed() -> None:
    logits = tf.math.log(tf.constant([[0.5, 0.5, 0.0], [0.1, 0.2, 0.7]]))
    a = tf.random.stateless_categorical(logits, 500, seed=[4, 2])
    tf.random.uniform([3])
    b = tf.random.stateless_categorical(logits, 500, seed=[4, 2])
    c = tf.random.stateless_categorical(logits, 500, seed=[2, 4], dtype=tf.int32)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert a.dtype == tf.int64 and c.dtype == tf.int32 and list(a.shape) == [2, 500]
    assert not np.array_equal(a.numpy(), c.numpy().astype(np.int64))
    assert not np.any(a.numpy()[0] == 2)


def test_parallel_stack_stacks_in_traced_code() -> None:
    @tf.function
    def f(a: tf.Tensor, b: tf.Tensor) -> tf.Tensor:
        return tf.parallel_stack([a, b])

    np.testing.assert_array_equal(f(tf.constant([1.0]), tf.constant([2.0])).numpy(), [[1.0], [2.0]])


def test_space_to_batch_round_trips() -> None:
    x = tf.reshape(tf.range(2 * 5 * 6 * 3, dtype=tf.float64), [2, 5, 6, 3])
    pads = [[1, 2], [0, 2]]
    y = tf.space_to_batch_nd(x, [4, 2], pads)
    assert list(y.shape) == [16, 2, 4, 3]
    np.testing.assert_array_equal(tf.batch_to_space(y, [4, 2], pads).numpy(), x.numpy())


def test_approx_min_k_is_exact() -> None:
    # TF 2.21 has no CPU kernel for approx_min_k (NotFoundError); tapers' is exact, checked with numpy.
    x = np.random.default_rng(0).permutation(24).reshape(2, 3, 4).astype(np.float32)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        got = tf.math.approx_min_k(xt, 2, reduction_dimension=1)
    order = np.argsort(x, axis=1, kind="stable")[:, :2, :]
    np.testing.assert_array_equal(got.indices.numpy(), order)
    np.testing.assert_array_equal(got.values.numpy(), np.take_along_axis(x, order, axis=1))
    assert got.indices.dtype == tf.int32
    mask = np.zeros_like(x)
    np.put_along_axis(mask, order, 1.0, axis=1)
    np.testing.assert_array_equal(tape.gradient(got.values, xt).numpy(), mask)


def test_unsupported_ranks_say_so() -> None:
    with pytest.raises(NotImplementedError):
        tf.nn.convolution(tf.zeros([1, 2, 2, 2, 1]), tf.zeros([1, 1, 1, 1, 1]))
    with pytest.raises(NotImplementedError):
        tf.nn.pool(tf.zeros([1, 4, 4, 1]), [2, 2], "MAX", dilations=[2, 2])


def test_control_helpers_in_eager_and_traced_code() -> None:
    with tf.control_dependencies([tf.constant(1.0)]), tf.init_scope():
        y = tf.constant(2.0) * 3.0
    assert float(y) == 6.0
    seen: list[bool] = []

    @tf.function
    def f(x: tf.Tensor) -> tf.Tensor:
        seen.append(tf.executing_eagerly())
        return x * 2.0

    f(tf.constant(1.0))
    assert seen == [False] and tf.executing_eagerly()
    assert tf.is_tensor(tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0]), tf.constant([1, 1])))


def test_edge_cases() -> None:
    # Empty segments: sorted ops give 0 (prod 1); unsorted min gives the dtype's largest value.
    np.testing.assert_array_equal(tf.math.segment_max(tf.constant([1.0]), [2]).numpy(), [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(tf.math.segment_prod(tf.constant([2.0]), [1]).numpy(), [1.0, 2.0])
    out = tf.math.unsorted_segment_min(tf.constant([1, 2]), [0, 0], 2).numpy()
    assert out.tolist() == [1, np.iinfo(np.int32).max]
    assert tf.math.segment_sum(tf.zeros([0]), tf.zeros([0], tf.int32)).shape == [0]
    assert list(tf.math.segment_max(tf.zeros([0, 2]), tf.zeros([0], tf.int32)).shape) == [0, 2]
    assert list(tf.scan(lambda a, x: a + x, tf.zeros([0]), initializer=tf.constant(0.0)).shape) == [0]
    assert list(tf.sequence_mask(tf.zeros([0], tf.int32), 3).shape) == [0, 3]
    with pytest.raises(TypeError):
        tf.sequence_mask(tf.constant([1.0]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.dynamic_stitch([[0, 2]], [tf.constant([1.0, 2.0])])  # index 1 is missing
    with pytest.raises(NotImplementedError):
        tf.linalg.set_diag(tf.zeros([2, 2]), tf.zeros([1]), k=1)
