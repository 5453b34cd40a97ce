"""tapers.linalg's decompositions, solves and matrix helpers.

Three kinds of checks:
* parity with TensorFlow: tests/data/linalg_reference.json holds TensorFlow's answers
  (values, gradients of gauge-invariant losses, second derivatives, error classes and
  messages) for the programs in tests/data/make_linalg_reference.py, which runs the
  same programs here with ``tapers`` in place of ``tensorflow``;
* float64 central finite differences of every one of those losses (every
  differentiable op), independent of TensorFlow;
* properties: reconstructions, orthogonality, batches equal to their matrices one by
  one, dtypes, named results and bad input.
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tapers as tf

DATA = Path(__file__).parent / "data"
REF = json.loads((DATA / "linalg_reference.json").read_text())
CASES = REF["cases"]

_spec = importlib.util.spec_from_file_location("make_linalg_reference", DATA / "make_linalg_reference.py")
assert _spec is not None and _spec.loader is not None
maker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(maker)

# Where TensorFlow's message goes on to print the input's values (which tapers does
# not), only the part before is compared.
_CUTS = (" from op input=", " Received `a` =", " Received <class")


def _message_head(msg: str) -> str:
    for cut in _CUTS:
        if cut in msg:
            return msg[: msg.index(cut)]
    return msg


def _tol(case: dict[str, Any]) -> dict[str, float]:
    if case.get("dtype") == "float32":
        return {"rtol": 2e-4, "atol": 2e-5}
    return {"rtol": 1e-7, "atol": 1e-9}


def _same_error(got: list[str], want: list[str]) -> None:
    assert got[0] == want[0], (got, want)
    assert got[1].startswith(_message_head(want[1])), (got[1], want[1])


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_matches_tensorflow(case: dict[str, Any]) -> None:
    want = case["tf"]
    got = maker.run_case(tf, case)
    if "error" in want:
        assert "error" in got, f"TensorFlow raised {want['error']}, tapers returned {got.get('values')}"
        _same_error(got["error"], want["error"])
        return
    assert "error" not in got, got.get("error")
    assert len(got["values"]) == len(want["values"])
    for g, w in zip(got["values"], want["values"]):
        np.testing.assert_allclose(np.array(g, dtype=float), np.array(w, dtype=float), equal_nan=True, **_tol(case))
    if "grad_error" in want:
        assert "grad_error" in got, "TensorFlow's gradient raised; tapers' did not"
        _same_error(got["grad_error"], want["grad_error"])
        return
    assert "grad_error" not in got, got.get("grad_error")
    for key in ("grads", "grads2"):
        if key in want:
            for g, w in zip(got[key], want[key]):
                np.testing.assert_allclose(np.array(g), np.array(w), rtol=1e-6, atol=1e-8, err_msg=key)


# Ops whose input is symmetric by contract and whose TensorFlow gradient is symmetrized
# (Cholesky reads one triangle, but its gradient is spread over both).
SYMMETRIC = {"cholesky": ("x",), "cholesky_solve": ("a",), "logdet": ("x",)}

FD_CASES = [c for c in CASES if "loss" in c and "grads" in c["tf"] and c.get("dtype", "float64") == "float64"]


def _loss(case: dict[str, Any], inputs: dict[str, np.ndarray]) -> float:
    ns: dict[str, Any] = {"tf": tf, "np": np}
    ns.update({k: tf.constant(np.array(v), dtype=tf.float64) for k, v in case.get("weights", {}).items()})
    ns.update({k: tf.constant(v) for k, v in inputs.items()})
    ns["out"] = eval(case["call"], ns)  # noqa: S307 (the fixture's own programs)
    return float(np.asarray(eval(case["loss"], ns)))  # noqa: S307


@pytest.mark.parametrize("case", FD_CASES, ids=[c["name"] for c in FD_CASES])
def test_gradient_matches_finite_differences(case: dict[str, Any]) -> None:
    inputs = {k: np.array(v, dtype=np.float64) for k, v in case["inputs"].items()}
    grads = maker.run_case(tf, case)["grads"]
    names = case.get("wrt", list(inputs))
    # The repeated-value cases' gradients are TensorFlow's broadened formula, not a derivative.
    if "repeated" in case["name"]:
        assert all(np.isfinite(np.array(g)).all() for g in grads)
        return
    h = 1e-6
    symmetric = SYMMETRIC.get(case["name"], ())
    for name, g in zip(names, grads):
        x = inputs[name]
        g = np.array(g)
        fd = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            step = np.zeros_like(x)
            step[idx] = h
            if name in symmetric:
                # TensorFlow's gradient treats the input as symmetric: compare directional
                # derivatives along symmetric perturbations (e_ij + e_ji).
                if idx[-2] > idx[-1]:
                    continue
                step[(*idx[:-2], idx[-1], idx[-2])] = h
            fd[idx] = (_loss(case, {**inputs, name: x + step}) - _loss(case, {**inputs, name: x - step})) / (2 * h)
        if name in symmetric:
            g = np.triu(g + np.swapaxes(g, -1, -2) - g * np.eye(g.shape[-1]))
        np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-6, err_msg=name)


def _rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64])
def test_factorizations_reconstruct_their_input(dtype: Any) -> None:
    tol = 1e-4 if dtype == tf.float32 else 1e-10
    a = tf.constant(_rand(2, 5, 3), dtype=dtype)
    s, u, v = tf.linalg.svd(a)
    assert (s.dtype, u.shape, v.shape) == (dtype, (2, 5, 3), (2, 3, 3))
    np.testing.assert_allclose(tf.matmul(u * s[..., None, :], v, transpose_b=True).numpy(), a.numpy(), atol=tol)
    assert (np.diff(s.numpy(), axis=-1) <= 0).all()
    _, uf, vf = tf.linalg.svd(a, full_matrices=True)
    assert (uf.shape, vf.shape) == ((2, 5, 5), (2, 3, 3))
    np.testing.assert_allclose(
        tf.matmul(uf, uf, transpose_a=True).numpy(), np.broadcast_to(np.eye(5), (2, 5, 5)), atol=tol
    )
    q, r = tf.linalg.qr(a)
    np.testing.assert_allclose(tf.matmul(q, r).numpy(), a.numpy(), atol=tol)
    np.testing.assert_allclose(r.numpy(), np.triu(r.numpy()), atol=0)
    sym = tf.matmul(a, a, transpose_a=True) + tf.eye(3, dtype=dtype)
    e, vec = tf.linalg.eigh(sym)
    np.testing.assert_allclose(
        tf.matmul(vec * e[..., None, :], vec, transpose_b=True).numpy(), sym.numpy(), atol=tol * 10
    )
    chol = tf.linalg.cholesky(sym)
    np.testing.assert_allclose(tf.matmul(chol, chol, transpose_b=True).numpy(), sym.numpy(), atol=tol * 10)
    np.testing.assert_allclose(
        tf.matmul(tf.linalg.inv(sym), sym).numpy(), np.broadcast_to(np.eye(3), (2, 3, 3)), atol=tol * 10
    )
    np.testing.assert_allclose(tf.linalg.det(sym).numpy(), np.linalg.det(sym.numpy()), rtol=tol * 10)


def test_batches_are_their_matrices_one_by_one() -> None:
    a = _rand(2, 3, 4, 4, seed=3) + 4 * np.eye(4)
    spd = a @ np.swapaxes(a, -1, -2)
    for f in (
        lambda x: tf.linalg.svd(x)[0],
        lambda x: tf.abs(tf.linalg.qr(x)[1]),
        lambda x: tf.linalg.eigvalsh(x),
        tf.linalg.cholesky,
        tf.linalg.inv,
        tf.linalg.det,
        tf.linalg.logdet,
        tf.linalg.pinv,
    ):
        whole = f(tf.constant(spd)).numpy()
        for i, j in np.ndindex(2, 3):
            np.testing.assert_allclose(whole[i, j], f(tf.constant(spd[i, j])).numpy(), rtol=1e-10, atol=1e-12)


def test_named_results_and_tuples() -> None:
    a = tf.constant(_rand(3, 3) + 3 * np.eye(3))
    q, r = tf.linalg.qr(a)
    res = tf.linalg.qr(a)
    assert type(res).__name__ == "Qr" and res.q is not None and res.r.shape == (3, 3)
    sd = tf.linalg.slogdet(a)
    assert type(sd).__name__ == "LogMatrixDeterminant"
    np.testing.assert_allclose(float(sd.sign) * math.exp(float(sd.log_abs_determinant)), float(tf.linalg.det(a)))
    assert isinstance(tf.linalg.svd(a), tuple) and len(tf.linalg.svd(a)) == 3
    assert isinstance(tf.linalg.eigh(a), tuple)
    assert tf.linalg.svd(a, compute_uv=False).shape == (3,)


def test_integer_input_is_refused() -> None:
    x = tf.constant([[1, 0], [0, 1]])
    for f in (tf.linalg.cholesky, tf.linalg.svd, tf.linalg.qr, tf.linalg.inv, tf.linalg.det, tf.linalg.eigh):
        with pytest.raises(tf.errors.InvalidArgumentError, match="not in the list of allowed values"):
            f(x)


def test_mixed_dtypes_are_refused() -> None:
    a = tf.eye(2)
    b = tf.ones((2, 1), dtype=tf.float64)
    for f in (tf.linalg.solve, tf.linalg.triangular_solve, tf.linalg.lstsq):
        with pytest.raises(tf.errors.InvalidArgumentError):
            f(a, b)


def test_float32_gradients_flow() -> None:
    a = tf.Variable(_rand(3, 3, seed=5).astype(np.float32) + 3 * np.eye(3, dtype=np.float32))
    with tf.GradientTape() as tape:
        loss = (
            tf.reduce_sum(tf.linalg.svd(a)[0])
            + tf.linalg.det(a)
            + tf.reduce_sum(tf.linalg.inv(a))
            + tf.reduce_sum(tf.linalg.qr(a)[1] ** 2)
        )
    g = tape.gradient(loss, a)
    assert g.dtype == tf.float32 and np.isfinite(g.numpy()).all()


def test_unsupported_diag_options_say_so() -> None:
    with pytest.raises(ValueError, match="main diagonal"):
        tf.linalg.diag([1.0, 2.0], k=1)
    with pytest.raises(ValueError, match="main diagonal"):
        tf.linalg.diag_part(tf.eye(3), k=1)


def test_transpose_alias() -> None:
    x = tf.constant(_rand(2, 3, 4))
    assert tf.linalg.transpose(x).shape == (2, 4, 3)


def test_results_do_not_depend_on_the_thread_count() -> None:
    import os
    import subprocess
    import sys

    code = """
import hashlib, numpy as np, tapers as tf
a = tf.constant(np.random.default_rng(0).standard_normal((300, 200)))
s = tf.constant(np.random.default_rng(1).standard_normal((200, 200)))
spd = tf.matmul(s, s, transpose_b=True) + tf.eye(200, dtype=tf.float64)
outs = [*tf.linalg.svd(a), *tf.linalg.qr(a), *tf.linalg.eigh(spd), tf.linalg.cholesky(spd), tf.linalg.inv(spd),
        tf.linalg.solve(spd, s), tf.linalg.triangular_solve(tf.linalg.cholesky(spd), s), tf.linalg.det(spd)]
print(hashlib.sha256(b"".join(np.asarray(o).tobytes() for o in outs)).hexdigest())
"""
    outs = set()
    for threads in ("1", "2", "4"):
        env = {"RAYON_NUM_THREADS": threads, "PATH": "/usr/bin:/bin"}
        if "PYTHONPATH" in os.environ:
            env["PYTHONPATH"] = os.path.abspath(os.environ["PYTHONPATH"])
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
        outs.add(r.stdout)
    assert len(outs) == 1, outs
