"""Complex arithmetic and gradients (complex64, complex128): every program of tests/data/complex_programs.py
compared with TensorFlow 2.21's outcome (fixture: tests/data/complex_reference.json, written by
tests/data/make_complex_reference.py), and finite-difference checks of the complex gradients in complex128.

TensorFlow's convention, which the checks below encode: for a real loss ``L`` and ``z = x + iy`` the
gradient returned for ``z`` is ``dL/dx + i dL/dy``; a complex target ``y`` with output gradient ``g``
gives the gradient of ``L = sum(real(conj(g) * y))``.
"""

from __future__ import annotations

import json
import math
import os
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tapers as tf

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
from complex_programs import E, programs, run  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "data", "complex_reference.json")) as f:
    FIXTURE = json.load(f)

PROGRAMS = FIXTURE["programs"]

E64 = E.format(d="complex64")

# Documented differences (README, "Complex numbers" and "Known differences"): exact expression -> why
# tapers differs. Each must still differ (a fixed difference fails the test, to be taken off the list).
KNOWN: dict[str, str] = {
    # TF's complex64 log forms |z|^2 and overflows on 1e30+1e30j (NaN real part); tapers' |z| is hypot's.
    f"tf.math.log({E64})": "complex64 log of a large |z|",
    # TF divides the last elements (the tail after its 4-wide complex64 packets) in a scalar loop with
    # other special values than its vectorized loop: 1 / (-0 + 0j) is -inf there, NaN in the packets.
    f"tf.math.reciprocal({E64})": "position-dependent division of a zero",
    f"tf.ones_like({E64}) / {E64}": "position-dependent division of a zero",
    # An op with no complex kernel: tapers raises InvalidArgumentError (TF's lookup: NotFoundError here).
    "tf.math.floordiv(tf.constant([1 + 2j, -0.5 + 0.3j, 3 - 1j, -2 - 2j], tf.complex64), "
    "tf.constant([0.5 - 1j, 2 + 0.25j, -1 + 1j, 0.3 + 0.7j], tf.complex64))": "NotFoundError",
    "tf.math.floordiv(tf.constant([1 + 2j, -0.5 + 0.3j, 3 - 1j, -2 - 2j], tf.complex128), "
    "tf.constant([0.5 - 1j, 2 + 0.25j, -1 + 1j, 0.3 + 0.7j], tf.complex128))": "NotFoundError",
}

# Error messages compared word for word (the Python-side checks); other errors compare their class.
EXACT_MESSAGES = ("components have incorrect types", "to EagerTensor of dtype")


def _close(want: Any, got: Any, dtype: str) -> bool:
    if isinstance(want, str) or isinstance(got, str):  # nan, inf, -inf
        return want == got
    single = dtype in ("complex64", "float32")
    rtol, atol = (2e-5, 1e-6) if single else (1e-10, 1e-12)
    return math.isclose(want, got, rel_tol=rtol, abs_tol=atol)


def differences(want: Any, got: Any, where: str = "") -> list[str]:
    if want is None or got is None:
        return [] if want is got else [f"{where}TF gave {want}, tapers {got}"]
    if want["t"] != got["t"]:
        return [f"{where}TF gave {want}, tapers {got}"]
    if want["t"] == "error":
        if want["class"] != got["class"]:
            return [f"{where}error class: TF {want['class']}, tapers {got['class']} ({got['message']})"]
        if any(m in want["message"] for m in EXACT_MESSAGES) and want["message"] != got["message"]:
            return [f"{where}message: TF {want['message']!r}, tapers {got['message']!r}"]
        return []
    if want["t"] == "list":
        if len(want["items"]) != len(got["items"]):
            return [f"{where}TF gave {len(want['items'])} items, tapers {len(got['items'])}"]
        return [d for i, (a, b) in enumerate(zip(want["items"], got["items"])) for d in differences(a, b, f"[{i}] ")]
    if want["t"] == "value":
        return [] if want["repr"] == got["repr"] else [f"{where}TF {want['repr']!r}, tapers {got['repr']!r}"]
    out = [f"{where}{k}: TF {want[k]}, tapers {got[k]}" for k in ("dtype", "shape") if want[k] != got[k]]
    if out:
        return out
    if "values" in want:
        return (
            [] if want["values"] == got["values"] else [f"{where}values: TF {want['values']}, tapers {got['values']}"]
        )
    for part in ("re", "im"):
        for i, (a, b) in enumerate(zip(want[part], got[part])):
            if not _close(a, b, want["dtype"]):
                out.append(f"{where}{part}[{i}]: TF {a}, tapers {b}")
    return out


def _known(expr: str) -> str | None:
    return KNOWN.get(expr)


@pytest.mark.parametrize("p", PROGRAMS, ids=[p["expr"][:90] for p in PROGRAMS])
def test_matches_tensorflow(p: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = run(p["expr"], tf)
    diff = differences(p["tf"], got)
    why = _known(p["expr"])
    if why is not None:
        assert diff, f"documented difference no longer differs: {why}"
        return
    assert not diff, "\n".join(diff)


def test_fixture_covers_the_programs() -> None:
    exprs = [p["expr"] for p in PROGRAMS]
    assert exprs == programs()
    assert FIXTURE["tensorflow"].startswith("2.21")
    assert set(KNOWN) <= set(exprs), "a documented difference names no program"


# ---- finite differences in complex128 --------------------------------------------------------------

RNG = np.random.default_rng(7)


def _rand(shape: tuple[int, ...], scale: float = 1.0, shift: complex = 0) -> np.ndarray:
    return (RNG.uniform(-1, 1, shape) + 1j * RNG.uniform(-1, 1, shape)) * scale + shift


def _loss(f: Callable[..., Any], xs: list[np.ndarray], g: np.ndarray) -> float:
    y = f(*[tf.constant(x) for x in xs]).numpy()
    return float(np.sum(np.real(np.conj(g) * y)))


def fd_check(f: Callable[..., Any], *xs: np.ndarray, eps: float = 1e-6, tol: float = 1e-6) -> None:
    """tapers' gradients of ``f`` at ``xs`` (complex128) against central differences in each real and
    imaginary part, with a random complex output gradient ``g`` (``dL/dx + i dL/dy`` of
    ``L = sum(real(conj(g) f))``)."""
    ts = [tf.constant(x) for x in xs]
    with tf.GradientTape() as tape:
        for t in ts:
            tape.watch(t)
        y = f(*ts)
    g = _rand(tuple(y.shape)).astype(y.dtype.as_numpy_dtype)
    grads = tape.gradient(y, ts, output_gradients=tf.constant(g))
    for k, x in enumerate(xs):
        want = np.zeros(x.shape, complex)
        for idx in np.ndindex(x.shape):
            for unit in (1, 1j):
                hi = [v.copy() for v in xs]
                lo = [v.copy() for v in xs]
                hi[k][idx] += eps * unit
                lo[k][idx] -= eps * unit
                d = (_loss(f, hi, g) - _loss(f, lo, g)) / (2 * eps)
                want[idx] += d * unit
        got = tf.convert_to_tensor(grads[k]).numpy()  # gather's gradient is IndexedSlices, as in TF
        assert got.dtype == x.dtype
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=f"input {k}")


UNARY_FD: list[tuple[str, Callable[[Any], Any]]] = [
    ("square", tf.square),
    ("sqrt", tf.sqrt),
    ("rsqrt", tf.math.rsqrt),
    ("exp", tf.exp),
    ("log", tf.math.log),
    ("expm1", tf.math.expm1),
    ("log1p", tf.math.log1p),
    ("sin", tf.sin),
    ("cos", tf.cos),
    ("tan", tf.tan),
    ("tanh", tf.tanh),
    ("sinh", tf.sinh),
    ("cosh", tf.cosh),
    ("asin", tf.asin),
    ("acos", tf.acos),
    ("atan", tf.atan),
    ("reciprocal", tf.math.reciprocal),
    ("sigmoid", tf.sigmoid),
    ("neg", tf.negative),
    ("sign", tf.math.sign),
    ("conj", tf.math.conj),
    ("pow3", lambda z: z**3),
    ("sum", tf.reduce_sum),
    ("mean", tf.reduce_mean),
    ("prod", lambda z: tf.reduce_prod(z, axis=1)),
    ("cumsum", lambda z: tf.math.cumsum(z, axis=1)),
    ("transpose", tf.transpose),
    ("gather", lambda z: tf.gather(z, [1, 0, 1])),
]


@pytest.mark.parametrize("name,f", UNARY_FD, ids=[n for n, _ in UNARY_FD])
def test_unary_gradients_match_finite_differences(name: str, f: Callable[[Any], Any]) -> None:
    # Away from branch cuts (the negative real axis for log/sqrt, |re| > 1 on the real axis for asin/acos).
    fd_check(f, _rand((2, 3), 0.6, 0.8 + 0.4j))


REAL_VALUED: list[tuple[str, Callable[[Any], Any]]] = [
    ("abs", tf.abs),
    ("real", tf.math.real),
    ("imag", tf.math.imag),
    ("angle", tf.math.angle),
    ("abs_squared", lambda z: tf.abs(z) ** 2),
    ("real_zz", lambda z: tf.math.real(z * z)),
]


@pytest.mark.parametrize("name,f", REAL_VALUED, ids=[n for n, _ in REAL_VALUED])
def test_real_valued_gradients_match_finite_differences(name: str, f: Callable[[Any], Any]) -> None:
    x = _rand((5,), 1.0, 0.3 - 0.2j)
    t = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(t)
        loss = tf.reduce_sum(f(t) * tf.constant(np.arange(1.0, 6.0)))
    got = tape.gradient(loss, t).numpy()
    eps, want = 1e-6, np.zeros(5, complex)
    for i in range(5):
        for unit in (1, 1j):
            hi, lo = x.copy(), x.copy()
            hi[i] += eps * unit
            lo[i] -= eps * unit
            d = (f(tf.constant(hi)).numpy() - f(tf.constant(lo)).numpy()) @ np.arange(1.0, 6.0) / (2 * eps)
            want[i] += d * unit
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


BINARY_FD: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("add", tf.add),
    ("sub", tf.subtract),
    ("mul", tf.multiply),
    ("div", tf.math.truediv),
    ("pow", tf.pow),
    ("matmul", lambda a, b: tf.matmul(a, tf.transpose(b))),
    ("matmul_tb", lambda a, b: tf.matmul(a, b, transpose_b=True)),
    ("matmul_ta", lambda a, b: tf.matmul(a, b, transpose_a=True)),
    ("where", lambda a, b: tf.where(tf.constant([[True, False, True], [False, True, False]]), a, b)),
    ("add_n", lambda a, b: tf.add_n([a, b, a * b])),
    ("concat", lambda a, b: tf.concat([a, b], 0)),
]


@pytest.mark.parametrize("name,f", BINARY_FD, ids=[n for n, _ in BINARY_FD])
def test_binary_gradients_match_finite_differences(name: str, f: Callable[[Any, Any], Any]) -> None:
    fd_check(f, _rand((2, 3), 0.6, 0.8 + 0.4j), _rand((2, 3), 0.6, 0.5 - 0.3j))


def test_broadcast_gradients_sum_back() -> None:
    fd_check(lambda a, b: a * b / (a + 2), _rand((2, 3), 1.0, 1.0), _rand((3,), 1.0, 0.5j))
    x, y = np.array([[0.3], [-1.2]]), np.array([0.5, 2.0, -0.7])
    tx, ty = tf.constant(x), tf.constant(y)
    with tf.GradientTape() as tape:
        tape.watch([tx, ty])
        loss = tf.reduce_sum(tf.abs(tf.complex(tx, ty)))
    gx, gy = tape.gradient(loss, [tx, ty])
    r = np.hypot(x, y)
    np.testing.assert_allclose(gx.numpy(), np.sum(x / r, axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(gy.numpy(), np.sum(y / r, axis=0), rtol=1e-12)


def test_second_derivative_through_complex_ops() -> None:
    """The rules are written with the public ops, so an outer tape differentiates them: the Hessian-vector
    product of sum(|z|^4) is 8 |z|^2 v + 4 z^2 conj(v) (Wirtinger calculus, TF's convention)."""
    z = tf.constant(np.array([1 + 2j, -0.5 + 0.25j]))
    v = np.array([0.5 - 1j, 2 + 0j])
    with tf.GradientTape() as outer:
        outer.watch(z)
        with tf.GradientTape() as inner:
            inner.watch(z)
            loss = tf.reduce_sum(tf.abs(z) ** 4)
        g = inner.gradient(loss, z)
        gv = tf.reduce_sum(tf.math.real(g * tf.math.conj(tf.constant(v))))
    hv = outer.gradient(gv, z).numpy()
    zz = z.numpy()
    np.testing.assert_allclose(hv, 8 * abs(zz) ** 2 * v + 4 * zz**2 * np.conj(v), rtol=1e-12)


def test_watching_complex_tensors_and_variables() -> None:
    z = tf.constant([1 + 1j], tf.complex64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with tf.GradientTape() as tape:
            tape.watch(z)
            y = z * z
    # A complex target's default output gradient is ones: conj(2z).
    np.testing.assert_allclose(tape.gradient(y, z).numpy(), [2 - 2j])
    v = tf.Variable(tf.constant([1 - 2j], tf.complex128))
    with tf.GradientTape() as tape:
        loss = tf.math.real(v * tf.math.conj(v))
    assert tape.watched_variables() == (v,)
    np.testing.assert_allclose(tape.gradient(loss, v).numpy(), [2 - 4j])


def test_real_and_complex_do_not_mix() -> None:
    z = tf.constant([1 + 1j])
    with pytest.raises(tf.errors.InvalidArgumentError, match="complex128"):
        z * tf.constant([1.0], tf.float64)
    with pytest.raises(TypeError, match="incorrect types: float32 float64"):
        tf.complex(tf.constant(1.0), tf.constant(1.0, tf.float64))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.less(z, z)
