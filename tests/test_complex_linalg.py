"""Linear algebra on complex64/complex128 (issue 20) against TensorFlow 2.21: values, gradients of a real
loss with respect to complex inputs (TF's convention: ``dL/dx + i dL/dy``), TF's errors, float64
finite-difference checks of the complex gradients, and a traced ``tapers.function`` against eager.
The fixture comes from tests/data/make_complex_linalg_reference.py (cases in complex_linalg_programs.py)."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import numpy as np
import pytest

import tapers as tf

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
from complex_linalg_programs import NO_GRADIENT, case, errors, loss, weights  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "data", "complex_linalg_reference.json")) as f:
    REF = json.load(f)

RTOL = {"complex64": 1e-4, "complex128": 1e-10}


def dec(r: dict[str, Any]) -> np.ndarray:
    """An array from the fixture's dtype, shape and real/imaginary parts."""
    re = np.array(r["re"], np.float64)
    x = re
    if "im" in r:  # parts set, not added: inf + 1j * nan would make the real part nan
        x = np.empty(re.shape, np.complex128)
        x.real, x.imag = re, np.array(r["im"], np.float64)
    return x.astype(r["dtype"]).reshape(r["shape"])


INPUTS = {k: dec(v) for k, v in REF["inputs"].items()}


def close(want: np.ndarray, got: np.ndarray, rtol: float) -> bool:
    """Within ``rtol`` of the larger entries' scale (entries near zero compared absolutely); infinities
    and NaNs (compared part by part) in the same places."""
    w = np.stack([np.real(want), np.imag(want)]).astype(np.float64)
    g = np.stack([np.real(got), np.imag(got)]).astype(np.float64)
    finite = np.isfinite(w)
    if any(not np.array_equal(f(w), f(g)) for f in (np.isnan, np.isposinf, np.isneginf)):
        return False
    scale = max(float(np.max(np.abs(want[np.isfinite(want)]))), 1.0) if np.any(np.isfinite(want)) else 1.0
    return bool(np.allclose(g[finite], w[finite], rtol=rtol, atol=rtol * scale))


def run_tapers(name: str, dtype: str, mats: dict[str, np.ndarray]) -> tuple[list[Any], Any, list[Any]]:
    """Outputs, loss and gradients of case ``name`` under tapers."""
    names, fwd, modes = case(tf, name)
    xs = [tf.constant(mats[n].astype(dtype)) for n in names]
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        outs = fwd(*xs)
        ws = [weights(tuple(o.shape), o.dtype.is_complex, k) for k, o in enumerate(outs)]
        y = None if name in NO_GRADIENT else loss(tf, outs, modes, ws)
    grads = tape.gradient(y, xs) if y is not None else []
    return outs, y, grads


@pytest.mark.parametrize("c", REF["cases"], ids=[f"{c['name']}-{c['dtype']}" for c in REF["cases"]])
def test_matches_tensorflow(c: dict[str, Any]) -> None:
    if "error" in c:
        with pytest.raises(Exception) as e:
            run_tapers(c["name"], c["dtype"], INPUTS)
        assert type(e.value).__name__ == c["error"], f"TF: {c['error']}: {c['message']}; tapers: {e.value!r}"
        return
    outs, y, grads = run_tapers(c["name"], c["dtype"], INPUTS)
    _, _, modes = case(tf, c["name"])
    rtol = RTOL[c["dtype"]]
    for k, (o, want, mode) in enumerate(zip(outs, c["outputs"], modes)):
        w = dec(want)
        got = o.numpy()
        assert (str(got.dtype), list(got.shape)) == (want["dtype"], want["shape"]), f"output {k}"
        if mode == "abs2":  # defined up to a phase per column/row: compare moduli
            w, got = np.abs(w), np.abs(got)
        assert close(w, got, rtol), f"output {k}: TF {w}, tapers {got}"
    if "loss" in c:
        assert abs(float(y.numpy()) - c["loss"]) <= rtol * max(1.0, abs(c["loss"]))
        for k, (g, want) in enumerate(zip(grads, c["grads"])):
            w = dec(want)
            got = g.numpy()
            assert (str(got.dtype), list(got.shape)) == (want["dtype"], want["shape"]), f"gradient {k}"
            assert close(w, got, rtol), f"gradient {k}: TF {w}, tapers {got}"


@pytest.mark.parametrize("key", list(REF["errors"]))
def test_errors_match_tensorflow(key: str) -> None:
    want = REF["errors"][key]
    with pytest.raises(Exception) as e:
        errors(tf)[key]()
    assert type(e.value).__name__ == want["class"], f"TF: {want}; tapers: {e.value!r}"
    # The message names what TF's names (the op, or the shapes/dtypes).
    tail = want["message"].split("}}")[-1].strip()
    if "[Op:" in tail or key == "pinv_complex":
        assert tail.split(" [Op:")[0][:40] in str(e.value), f"TF: {tail}; tapers: {e.value}"


FD_CASES = [c["name"] for c in REF["cases"] if c["dtype"] == "complex128" and "loss" in c]
# Ops defined on Hermitian matrices: differentiated along Hermitian directions only (their gradients
# are TF's, lower-triangular for eigh, Hermitian for cholesky; both give the same directional
# derivatives inside that domain).
HERMITIAN = ("cholesky", "eigh", "eigvalsh", "logdet")


def directions(shape: tuple[int, ...], hermitian: bool) -> list[np.ndarray]:
    """Unit perturbations: each entry's real and imaginary part, or a basis of Hermitian matrices."""
    out = []
    for idx in np.ndindex(shape):
        *b, i, j = idx
        for unit in (1.0, 1j):
            e = np.zeros(shape, np.complex128)
            if not hermitian:
                e[idx] = unit
            elif i > j:
                e[idx] = unit
                e[tuple(b) + (j, i)] = np.conj(unit)
            elif i == j and unit == 1.0:
                e[idx] = 1.0
            else:
                continue
            out.append(e)
    return out


@pytest.mark.parametrize("name", FD_CASES)
def test_complex_gradient_matches_finite_differences(name: str) -> None:
    """Directional derivatives by central differences (complex128) against ``Re(sum(conj(g) * e))``,
    the derivative the gradient ``g = dL/dRe(a) + i dL/dIm(a)`` predicts along ``e``. Where tapers keeps
    TF's rule though it is not this convention's gradient, the check says how: det's rule is
    ``g * det * inv(a)^H`` (no conjugate on det), checked after multiplying by ``conj(det) / det``;
    slogdet's passes no gradient through the sign (which for complex matrices does depend on ``a``)
    and treats log|det| as the analytic log(det), so its finite-difference loss leaves the sign out
    and weighs log|det| by real weights."""
    names, fwd, modes = case(tf, name)
    mats = {n: INPUTS[n].astype(np.complex128) for n in names}
    outs, _, grads = run_tapers(name, "complex128", mats)
    ws = [weights(tuple(o.shape), o.dtype.is_complex, k) for k, o in enumerate(outs)]
    if name == "slogdet":
        ws = [np.zeros_like(ws[0]), np.real(ws[1]) + 0j]
        _, _, grads = _slogdet_real_weights(mats["sq_batch"], ws[1])

    def f(vals: list[np.ndarray]) -> float:
        return float(loss(tf, fwd(*[tf.constant(v) for v in vals]), modes, ws).numpy())

    h = 1e-6
    for i, n in enumerate(names):
        got = grads[i].numpy()
        if name.startswith("det"):
            d = outs[0].numpy()[..., None, None]
            got = got * np.conj(d) / d
        base = [mats[m] for m in names]
        hermitian = name.startswith(HERMITIAN)
        fd, predicted = [], []
        for e in directions(base[i].shape, hermitian):
            plus = [b + h * e if k == i else b for k, b in enumerate(base)]
            minus = [b - h * e if k == i else b for k, b in enumerate(base)]
            fd.append((f(plus) - f(minus)) / (2 * h))
            predicted.append(float(np.sum(np.real(np.conj(got) * e))))
        assert close(np.array(fd), np.array(predicted), 1e-6), f"{name} input {n}: {fd} vs {predicted}"


def _slogdet_real_weights(a: np.ndarray, w: np.ndarray) -> tuple[Any, Any, list[Any]]:
    x = tf.constant(a)
    with tf.GradientTape() as t:
        t.watch(x)
        _, logabs = tf.linalg.slogdet(x)
        y = tf.math.real(tf.reduce_sum(logabs * tf.constant(np.conj(w))))
    return None, y, [t.gradient(y, x)]


def test_det_gradient_is_tensorflows_not_the_conjugate_convention() -> None:
    """TF's complex det gradient differs from the finite-difference one (it misses conj(det)); tapers
    returns TF's, so the two differ here (a guard that the quirk is kept on purpose)."""
    a = tf.constant(INPUTS["sq"].astype(np.complex128))
    with tf.GradientTape() as t:
        t.watch(a)
        y = tf.math.real(tf.linalg.det(a))
    g = t.gradient(y, a).numpy()
    d = tf.linalg.det(a).numpy()
    want_tf = d * np.linalg.inv(INPUTS["sq"]).conj().T
    assert np.allclose(g, want_tf, rtol=1e-12)
    assert not np.allclose(g, np.conj(d) * np.linalg.inv(INPUTS["sq"]).conj().T, rtol=1e-3)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_traced_det_and_solve_match_eager(dtype: str) -> None:
    a = tf.constant(INPUTS["sq_batch"].astype(dtype))
    b = tf.constant(INPUTS["rhs_batch"].astype(dtype))

    def step(a: Any, b: Any) -> Any:
        with tf.GradientTape() as t:
            t.watch(a)
            t.watch(b)
            d = tf.linalg.det(a)
            x = tf.linalg.solve(a, b, adjoint=True)
            y = tf.math.real(tf.reduce_sum(x * tf.math.conj(x))) + tf.math.imag(tf.reduce_sum(d))
        ga, gb = t.gradient(y, [a, b])
        return d, x, ga, gb

    eager = step(a, b)
    traced_fn = tf.function(step)
    for _ in range(2):  # the trace, then a replay
        traced = traced_fn(a, b)
        for e, t in zip(eager, traced):
            assert e.dtype == t.dtype and e.shape == t.shape
            np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_slogdet_of_singular_complex_matrix() -> None:
    """A singular complex matrix: sign 0 and log|det| -inf (as for real dtypes and in TF)."""
    z = tf.constant(np.array([[1 + 1j, 2 + 2j], [1 + 1j, 2 + 2j]], np.complex128))
    sign, logabs = tf.linalg.slogdet(z)
    assert sign.numpy() == 0 and np.isneginf(logabs.numpy().real) and logabs.dtype == tf.complex128
    assert tf.linalg.det(z).numpy() == 0


def test_complex_outputs_keep_dtypes() -> None:
    """svd's singular values are real (float32 for complex64); eigh's eigenvalues stay complex with zero
    imaginary parts; logdet is real, as TF returns them."""
    a = tf.constant(INPUTS["hpd"].astype(np.complex64))
    assert tf.linalg.svd(a, compute_uv=False).dtype == tf.float32
    e = tf.linalg.eigvalsh(a)
    assert e.dtype == tf.complex64 and np.all(e.numpy().imag == 0)
    assert tf.linalg.logdet(a).dtype == tf.float32


@pytest.mark.parametrize("op", ["inv", "cholesky", "svd"])
def test_second_derivatives_by_finite_differences(op: str) -> None:
    """The rules are written with recorded ops, so an outer tape differentiates the gradient: the
    gradient of ``real(sum(g(a) * conj(w)))``, ``g`` the first gradient, against finite differences."""
    a0 = INPUTS["hpd" if op == "cholesky" else "sq"].astype(np.complex128)
    w1 = weights(a0.shape, True, 7)
    w2 = weights(a0.shape, True, 8)

    def first(a: Any) -> Any:
        if op == "svd":
            return tf.linalg.svd(a, compute_uv=False)
        return {"inv": tf.linalg.inv, "cholesky": tf.linalg.cholesky}[op](a)

    def second_loss(a: Any) -> tuple[Any, Any]:
        with tf.GradientTape() as outer:
            outer.watch(a)
            with tf.GradientTape() as inner:
                inner.watch(a)
                y = first(a)
                w = np.real(w1[:, 0]) if op == "svd" else np.conj(w1)  # svd's values are real
                y = tf.math.real(tf.reduce_sum(y * tf.cast(tf.constant(w), y.dtype)))
            g = inner.gradient(y, a)
            z = tf.math.real(tf.reduce_sum(g * tf.constant(np.conj(w2))))
        return z, outer.gradient(z, a)

    _, gg = second_loss(tf.constant(a0))
    h = 1e-6
    hermitian = op == "cholesky"
    for e in directions(a0.shape, hermitian):
        fd = (
            float(second_loss(tf.constant(a0 + h * e))[0].numpy())
            - float(second_loss(tf.constant(a0 - h * e))[0].numpy())
        ) / (2 * h)
        predicted = float(np.sum(np.real(np.conj(gg.numpy()) * e)))
        assert abs(fd - predicted) <= 1e-5 * max(1.0, abs(fd)), f"{op} along {e}: {fd} vs {predicted}"
