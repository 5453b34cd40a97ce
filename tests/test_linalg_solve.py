"""``tapers.linalg.solve`` (``tf.linalg.solve``, used by TF's advanced_autodiff guide for a Newton step)."""

from __future__ import annotations

import numpy as np
import pytest

import tapers as tf


def _fd(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:  # type: ignore[no-untyped-def]
    g = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[idx] = eps
        g[idx] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


@pytest.mark.parametrize("adjoint", [False, True])
@pytest.mark.parametrize("batch", [(), (2,)])
def test_solve_values_and_float64_gradients(adjoint: bool, batch: tuple[int, ...]) -> None:
    rng = np.random.default_rng(3)
    a = rng.normal(size=(*batch, 4, 4)) + 4 * np.eye(4)
    b = rng.normal(size=(*batch, 4, 2))
    w = rng.normal(size=(*batch, 4, 2))

    def ref(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.linalg.solve(np.swapaxes(a, -1, -2) if adjoint else a, b)

    av, bv = tf.Variable(a), tf.Variable(b)
    with tf.GradientTape() as t:
        x = tf.linalg.solve(av, bv, adjoint=adjoint)
        loss = tf.reduce_sum(x * w)
    assert x.dtype == tf.float64 and x.shape == (*batch, 4, 2)
    np.testing.assert_allclose(x.numpy(), ref(a, b), rtol=1e-12)
    ga, gb = t.gradient(loss, [av, bv])
    np.testing.assert_allclose(ga.numpy(), _fd(lambda z: (ref(z, b) * w).sum(), a), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gb.numpy(), _fd(lambda z: (ref(a, z) * w).sum(), b), rtol=1e-6, atol=1e-8)


def test_solve_float32_and_errors() -> None:
    x = tf.linalg.solve(tf.constant([[2.0, 0.0], [0.0, 4.0]]), tf.constant([[2.0], [2.0]]))
    assert x.dtype == tf.float32
    np.testing.assert_array_equal(x.numpy(), [[1.0], [0.5]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="not invertible"):
        tf.linalg.solve(tf.zeros((2, 2)), tf.ones((2, 1)))
    with pytest.raises(ValueError, match="square"):
        tf.linalg.solve(tf.zeros((2, 3)), tf.ones((2, 1)))
    with pytest.raises(ValueError, match=r"rhs must be \[\.\.\., 2, K\]"):
        tf.linalg.solve(tf.eye(2), tf.ones((3, 1)))
    with pytest.raises(TypeError, match="int32"):
        tf.linalg.solve(tf.constant([[1, 0], [0, 1]]), tf.constant([[1], [1]]))


def test_linalg_reexports_every_binding_name() -> None:
    from tapers._core import linalg as core_linalg

    assert set(core_linalg.__all__) | {"solve"} == set(tf.linalg.__all__)
    assert all(getattr(tf.linalg, n) is getattr(core_linalg, n) for n in core_linalg.__all__)
