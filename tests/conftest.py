"""Shared helpers: finite-difference gradient checks in float64."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import pytest

import tapers as tf


def numeric_gradients(f: Callable[..., float], arrays: Sequence[np.ndarray], eps: float = 1e-6) -> list[np.ndarray]:
    """Central differences of the scalar function ``f(*arrays)``."""
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros_like(a)
        it = np.nditer(a, flags=["multi_index"])
        for _ in it:
            idx = it.multi_index
            plus = [x.copy() for x in arrays]
            minus = [x.copy() for x in arrays]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            g[idx] = (f(*plus) - f(*minus)) / (2 * eps)
        grads.append(g)
    return grads


def check_gradients(
    op: Callable[..., tf.Tensor],
    *arrays: np.ndarray,
    rtol: float = 1e-5,
    atol: float = 1e-7,
    seed: int = 0,
) -> list[np.ndarray]:
    """Checks the tape gradient of ``sum(op(*xs) * w)`` (random fixed ``w``) against
    finite differences, in float64. Returns the analytic gradients."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    rng = np.random.default_rng(seed)
    out_shape = np.shape(op(*[tf.constant(a) for a in arrays]).numpy())
    w = rng.uniform(0.5, 1.5, size=out_shape)

    def scalar(*xs: np.ndarray) -> float:
        return float(np.sum(op(*[tf.constant(x) for x in xs]).numpy() * w))

    xs = [tf.constant(a) for a in arrays]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = tf.reduce_sum(op(*xs) * tf.constant(w))
    analytic = tape.gradient(y, xs)
    numeric = numeric_gradients(scalar, arrays)
    out = []
    for a, g, n in zip(arrays, analytic, numeric):
        assert g is not None, "gradient is unexpectedly None"
        assert g.shape == a.shape, f"gradient shape {g.shape} != input shape {a.shape}"
        assert g.dtype == tf.float64
        np.testing.assert_allclose(g.numpy(), n, rtol=rtol, atol=atol)
        out.append(g.numpy())
    return out


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1234)
