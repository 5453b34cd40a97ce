"""Computations on uint8, int8, int16, uint16, uint32, uint64, float16 and bfloat16: arithmetic,
comparisons, math, reductions, matmul, array ops, Python scalars, wrap-around and gradients of float16
and bfloat16, each compared with TensorFlow 2.21's outcome (fixture: tests/data/dtype_ops_reference.json,
written by tests/data/make_dtype_ops_reference.py from the programs in tests/data/dtype_ops_programs.py).

Where TF has no kernel for a dtype, tapers raises TF's error class naming the op and the dtype.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import numpy as np
import pytest

import tapers as tf

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
from dtype_ops_programs import run  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "data", "dtype_ops_reference.json")) as f:
    PROGRAMS = json.load(f)["programs"]

# Programs whose TF outcome is a TF bug, not a behaviour: expression -> why they are not compared.
SKIP: dict[str, str] = {
    "tf.constant([[7, 3], [100, 0]], tf.uint64) + -1": "TF raises SystemError (a Python error escaping its C code)",
}

# Errors tapers raises under another class: expression -> (tapers' class, why).
# (Tile on uint16 raises tapers.errors.UnimplementedError, TF's class, since issue 20.)
OTHER_CLASS: dict[str, tuple[str, str]] = {}


def _values(r: dict[str, Any]) -> np.ndarray:
    return np.frombuffer(bytes.fromhex(r["hex"]), np.dtype(tf.as_dtype(r["dtype"]).as_numpy_dtype))


def _close(want: dict[str, Any], got: dict[str, Any], exact: bool) -> bool:
    """Bitwise equal (NaNs as NaNs); or, for a float16/bfloat16 result that may round differently, within
    a few units in the last place (relative 2^-8 for float16, 2^-5 for bfloat16)."""
    if want["hex"] == got["hex"]:
        return True
    a, b = _values(want).astype(np.float64), _values(got).astype(np.float64)
    if a.shape != b.shape or want["dtype"] not in ("float16", "bfloat16", "float32", "float64"):
        return False
    if exact:
        return bool(np.array_equal(a, b, equal_nan=True))
    rtol = 2.0**-8 if want["dtype"] == "float16" else 2.0**-5
    scale = max(float(np.max(np.abs(a[np.isfinite(a)]), initial=0.0)), 1e-3)
    return bool(np.allclose(a, b, rtol=rtol, atol=rtol * scale, equal_nan=True))


@pytest.mark.parametrize("p", PROGRAMS, ids=[p["expr"][:100] for p in PROGRAMS])
def test_matches_tensorflow(p: dict[str, Any]) -> None:
    if p["expr"] in SKIP:
        pytest.skip(SKIP[p["expr"]])
    want, got = p["tf"], run(p["expr"], tf)
    assert got["t"] == want["t"], f"TF gave {want}, tapers {got}"
    if want["t"] == "error":
        if p["expr"] in OTHER_CLASS:
            assert got["class"] == OTHER_CLASS[p["expr"]][0], got
            assert "uint16" in got["message"] and "Tile" in got["message"]
            return
        assert got["class"] == want["class"], f"TF: {want['class']}: {want['message'][:300]}; tapers: {got}"
        return
    if want["t"] == "value":
        assert got["repr"] == want["repr"]
        return
    assert (got["dtype"], got["shape"]) == (want["dtype"], want["shape"])
    assert _close(want, got, p["exact"]), f"TF {_values(want)}, tapers {_values(got)}"


def test_errors_name_the_op_and_the_dtype() -> None:
    """Where TF has no kernel, the message says which op and which dtype."""
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"(?s)uint8.*Exp|Exp.*uint8"):
        tf.exp(tf.constant([1, 2], tf.uint8))
    with pytest.raises(tf.errors.NotFoundError, match=r"(?s)MatMul.*uint16|uint16.*MatMul"):
        tf.matmul(tf.ones([2, 2], tf.uint16), tf.ones([2, 2], tf.uint16))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"(?s)int8.*MatMul|MatMul.*int8"):
        tf.matmul(tf.ones([2, 2], tf.int8), tf.ones([2, 2], tf.int8))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"(?s)uint32.*Neg|Neg.*uint32"):
        -tf.constant([1], tf.uint32)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_gradients_are_the_float32_gradients_rounded(dtype: str) -> None:
    """A float16/bfloat16 gradient is close to the float32 one at the same (rounded) point, and has the
    source's dtype; the float32 gradient itself is checked by finite differences in float64 elsewhere."""
    x = tf.constant([[0.5, -1.25], [2.0, 0.75]], dtype)
    x32 = tf.cast(x, tf.float32)

    def f(v: Any) -> Any:
        return tf.reduce_sum(tf.tanh(v) * v + tf.matmul(v, v) / 4.0 + tf.nn.softmax(v))

    grads = []
    for v in (x, x32):
        with tf.GradientTape() as t:
            t.watch(v)
            y = f(v)
        grads.append(t.gradient(y, v))
    assert grads[0].dtype == tf.as_dtype(dtype)
    want = tf.cast(tf.cast(grads[1], dtype), tf.float64).numpy()
    got = tf.cast(grads[0], tf.float64).numpy()
    np.testing.assert_allclose(got, want, rtol=2.0**-6 if dtype == "float16" else 2.0**-4, atol=1e-2)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_variables_train(dtype: str) -> None:
    """A float16/bfloat16 variable takes gradients and an optimizer step in its own dtype."""
    v = tf.Variable(tf.constant([1.0, -2.0], dtype))
    with tf.GradientTape() as t:
        loss = tf.reduce_sum(v * v)
    g = t.gradient(loss, v)
    assert g.dtype == tf.as_dtype(dtype)
    np.testing.assert_array_equal(tf.cast(g, tf.float32).numpy(), [2.0, -4.0])
