"""Large elementwise kernels take a chunked path over contiguous memory (unary maps,
and ``where`` over same-shape or one-element operands) from 2^19 elements on; views
and broadcast rows take the general path. Both must give numpy's values, for every
layout and dtype the chunked path can meet."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import tapers as tf

N = (1 << 19) + 37  # above the memory-bound passes' parallel threshold, not a chunk multiple
RNG = np.random.default_rng(7)

UNARY: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "neg": (lambda x: -x, np.negative),
    "abs": (tf.abs, np.abs),
    "sign": (tf.sign, np.sign),
    "square": (tf.square, np.square),
    "relu": (tf.nn.relu, lambda v: np.maximum(v, 0)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_large_unary_maps_match_numpy(name: str, dtype: Any) -> None:
    ours, ref = UNARY[name]
    v = (RNG.normal(size=N) * 50).astype(dtype)
    got = ours(tf.constant(v)).numpy()
    assert got.dtype == ref(v).dtype and got.shape == v.shape
    np.testing.assert_array_equal(got, ref(v))


def test_large_maps_of_transposed_views_match_numpy() -> None:
    v = RNG.normal(size=(1031, 521)).astype(np.float32)
    t = tf.transpose(tf.constant(v))
    np.testing.assert_array_equal(tf.abs(t).numpy(), np.abs(v.T))
    np.testing.assert_array_equal(tf.sqrt(tf.abs(t)).numpy(), np.sqrt(np.abs(v.T)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("layout", ["all", "scalar_b", "scalar_a", "scalar_cond", "row"])
def test_large_where_matches_numpy(dtype: Any, layout: str) -> None:
    shape = (N // 8, 8)
    a = RNG.normal(size=shape).astype(dtype) * 10
    b = RNG.normal(size=shape).astype(dtype) * 10
    cond = RNG.normal(size=shape) > 0
    if layout == "scalar_b":
        b = np.asarray(-3, dtype=dtype)
    elif layout == "scalar_a":
        a = np.asarray(5, dtype=dtype)
    elif layout == "scalar_cond":
        cond = np.asarray(True)
    elif layout == "row":
        b = b[:1]  # a broadcast row: the general path
    got = tf.where(tf.constant(cond), tf.constant(a), tf.constant(b)).numpy()
    want = np.where(cond, a, b)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_large_where_gradient_is_routed_by_the_condition() -> None:
    x = tf.constant(RNG.normal(size=N).astype(np.float64))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.where(x > 0.0, x * 3.0, 0.5))
    g = tape.gradient(y, x).numpy()
    np.testing.assert_array_equal(g, np.where(x.numpy() > 0, 3.0, 0.0))
