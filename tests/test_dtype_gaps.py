"""Issue 20's dtype gaps against TensorFlow 2.21 / Keras 3: optimizer steps on float16, bfloat16,
complex64 and complex128 variables (each Keras op rounds to the variable's dtype, as tapers' fused kernel
does, so float16/bfloat16 trajectories match bit for bit), Keras' failures on complex (AMSGrad's
``Maximum``, complex128 Adam), and ``UnimplementedError`` where an op's kernel refuses a dtype.
The fixture comes from tests/data/make_dtype_gaps_reference.py."""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

import numpy as np
import pytest

import tapers as tf

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
from dtype_gaps_programs import run  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "data", "dtype_gaps_reference.json")) as f:
    PROGRAMS = json.load(f)["programs"]


# Programs where tapers does not yet do what TF does (issue 20 items left): pattern -> what differs.
# Strict xfails: one that starts passing fails the suite until it is removed from here.
KNOWN_GAPS: list[tuple[str, str]] = []


def _gap(expr: str) -> str | None:
    for pattern, why in KNOWN_GAPS:
        if re.search(pattern, expr):
            return why
    return None


def _values(r: dict[str, Any]) -> np.ndarray:
    return np.frombuffer(bytes.fromhex(r["hex"]), np.dtype(tf.as_dtype(r["dtype"]).as_numpy_dtype))


def _close(want: dict[str, Any], got: dict[str, Any], exact: bool, train: bool = False) -> bool:
    """Bitwise equal; or, where rounding may differ (complex square roots and powers are computed by
    different libraries), within a few units in the last place of the dtype."""
    if want["hex"] == got["hex"]:
        return True
    if exact:
        return False
    a, b = _values(want), _values(got)
    # complex128: Keras 3's optimizer steps come out at float32 precision (its update passes through
    # complex64), tapers' are complex128 throughout: compared at float32's precision.
    # float32/float64: real results of complex linear algebra (svd's values, |qr's r|): other libraries'
    # roundings.
    rtol = {"complex64": 1e-5, "complex128": 1e-12 if not train else 1e-6, "float32": 1e-5, "float64": 1e-12}[
        want["dtype"]
    ]
    return bool(np.allclose(a, b, rtol=rtol, atol=rtol * float(np.max(np.abs(a)))))


@pytest.mark.parametrize(
    "p",
    [
        pytest.param(p, marks=pytest.mark.xfail(strict=True, reason=_gap(p["expr"]))) if _gap(p["expr"]) else p
        for p in PROGRAMS
    ],
    ids=[p["expr"][:90] for p in PROGRAMS],
)
def test_matches_tensorflow(p: dict[str, Any]) -> None:
    want, got = p["tf"], run(p["expr"], tf, tf.optimizers)
    assert got["t"] == want["t"], f"TF gave {want}, tapers {got}"
    if want["t"] == "error":
        assert got["class"] == want["class"], f"TF: {want['class']}: {want['message'][:300]}; tapers: {got}"
        return
    assert (got["dtype"], got["shape"]) == (want["dtype"], want["shape"])
    assert _close(want, got, p["exact"], p["expr"].startswith("train(")), f"TF {_values(want)}, tapers {_values(got)}"


def test_unimplemented_error_is_tf_class() -> None:
    """An op whose kernel refuses the dtype raises ``tapers.errors.UnimplementedError`` (an ``OpError``
    and a ``NotImplementedError``, as TF's), naming the op and the dtype."""
    with pytest.raises(tf.errors.UnimplementedError, match=r"(?s)uint16.*Tile") as e:
        tf.tile(tf.constant([[1, 2]], tf.uint16), [2, 1])
    assert isinstance(e.value, tf.errors.OpError) and isinstance(e.value, NotImplementedError)


def test_complex_amsgrad_and_integer_variables_refused_unchanged() -> None:
    """A refused step names the op and dtype and leaves the variable and its slots as they were."""
    v = tf.Variable(tf.constant([1 + 1j, 2 - 1j], tf.complex64))
    opt = tf.optimizers.Adam(0.1, amsgrad=True)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"(?s)complex64.*Maximum"):
        opt.apply_gradients([(tf.constant([1j, 1.0], tf.complex64), v)])
    np.testing.assert_array_equal(v.numpy(), [1 + 1j, 2 - 1j])
    w = tf.Variable(tf.constant([1, 2], tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"(?s)int32.*ApplyGradients"):
        tf.optimizers.SGD(0.1).apply_gradients([(tf.constant([1, 1], tf.int32), w)])
    np.testing.assert_array_equal(w.numpy(), [1, 2])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "complex64"])
def test_traced_step_matches_eager(dtype: str) -> None:
    """Inside ``tapers.function`` the replayed update (in place on the variables' buffers) gives the eager
    step's bits for the new dtypes."""
    init = tf.cast(tf.constant([1.0, -2.0, 0.5]), dtype)
    g = tf.cast(tf.constant([0.3, -0.1, 0.7]), dtype)
    eager_v, traced_v = tf.Variable(init), tf.Variable(init)
    eager_opt, traced_opt = tf.optimizers.Adam(0.01), tf.optimizers.Adam(0.01)

    @tf.function
    def step() -> None:
        traced_opt.apply_gradients([(g, traced_v)])

    for _ in range(3):
        eager_opt.apply_gradients([(g, eager_v)])
        step()
    assert traced_v.dtype == tf.as_dtype(dtype)
    assert eager_v.numpy().tobytes() == traced_v.numpy().tobytes()


def _complex_fd(f: Any, z: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """Central differences of a real function of a complex128 array: dL/dx + i dL/dy (TF's convention)."""
    out = np.zeros_like(z)
    for k in np.ndindex(z.shape):
        for unit in (1.0, 1j):
            e = np.zeros_like(z)
            e[k] = unit * h
            d = (f(z + e) - f(z - e)) / (2 * h)
            out[k] += d * unit
    return out


@pytest.mark.parametrize(
    "name",
    ["adjoint_matmul", "conj_transpose", "norm", "segment_sum"],
)
def test_complex128_gradients_match_finite_differences(name: str) -> None:
    """Gradients through the conjugating ops, the complex norm and the complex segment sum."""
    rng = np.random.default_rng(7)
    z0 = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))
    w = tf.constant(rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3)))

    def f(x: Any) -> Any:
        if name == "adjoint_matmul":
            y = tf.matmul(x, w, adjoint_a=True)
        elif name == "conj_transpose":
            y = tf.linalg.adjoint(x) * w + tf.transpose(x, conjugate=True)
        elif name == "norm":
            return tf.math.real(tf.norm(x)) + tf.math.imag(tf.norm(x * w))
        else:
            y = tf.math.segment_sum(x, tf.constant([0, 0, 1])) * w[:2]
        return tf.math.real(tf.reduce_sum(y * tf.math.conj(w[: y.shape[0]]) + y * y))

    x = tf.constant(z0)
    with tf.GradientTape() as t:
        t.watch(x)
        loss = f(x)
    g = t.gradient(loss, x)
    assert g.dtype == tf.complex128
    want = _complex_fd(lambda z: float(f(tf.constant(z)).numpy()), z0)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_traced_half_conv_and_pool_match_eager(dtype: str) -> None:
    """Convolution and pooling on the half types run in float32 in the core, so a ``tapers.function``
    graph computes the eager bits, values and gradients (the eager ones are TF's, checked above)."""
    x = tf.cast(tf.reshape(tf.range(32, dtype=tf.float32) / 8.0 - 2.0, [1, 4, 4, 2]), dtype)
    w = tf.cast(tf.reshape(tf.range(24, dtype=tf.float32) / 8.0 - 1.5, [2, 2, 2, 3]), dtype)

    def f(x: Any) -> Any:
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.nn.conv2d(x, w, 1, "SAME")
            loss = tf.reduce_sum(y**2) + tf.reduce_sum(tf.nn.max_pool2d(x, 2, 2, "VALID"))
            loss = loss + tf.reduce_sum(tf.nn.avg_pool2d(x, 2, 1, "SAME"))
        return y, t.gradient(loss, x)

    (ye, ge), (yt, gt) = f(x), tf.function(f)(x)
    assert ye.dtype == yt.dtype == ge.dtype == gt.dtype == tf.as_dtype(dtype)
    assert ye.numpy().tobytes() == yt.numpy().tobytes()
    assert ge.numpy().tobytes() == gt.numpy().tobytes()
