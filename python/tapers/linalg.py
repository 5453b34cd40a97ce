"""``tapers.linalg``: linear algebra, as ``tf.linalg``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._core.linalg import *  # noqa: F403

# The binding's names (listed for the type checker; tests/test_linalg_solve.py checks none is missing) and solve.
__all__ = ["einsum", "eye", "matmul", "norm", "solve", "tensordot", "trace"]  # noqa: F405


def solve(matrix: Any, rhs: Any, adjoint: bool = False, name: str | None = None) -> Any:
    """Solves ``matrix @ x = rhs`` for ``x`` (``tf.linalg.solve``), batched over leading dims.

    ``matrix`` is ``[..., M, M]``, ``rhs`` is ``[..., M, K]`` of the same floating dtype; ``adjoint=True``
    solves with the (conjugate) transpose of ``matrix``. The forward pass is LAPACK's LU solve (through
    NumPy); the gradient is TensorFlow's: ``grad_rhs = solve(matrix, dy, adjoint=not adjoint)`` and
    ``grad_matrix = -grad_rhs @ x^T`` (transposed for ``adjoint``). The gradient is built from ops, but
    ``x`` enters it as a constant, so a second derivative misses the terms through ``x``.

    Parameters
    ----------
    matrix : Tensor-like
        ``[..., M, M]``, float32 or float64.
    rhs : Tensor-like
        ``[..., M, K]``, converted to ``matrix``'s dtype.
    adjoint : bool, default False
        Solve with the transpose of ``matrix``.
    name : str, optional
        Accepted for TensorFlow compatibility; unused.

    Returns
    -------
    Tensor
        ``x`` of shape ``[..., M, K]``.

    Raises
    ------
    InvalidArgumentError
        For a singular matrix ("Input matrix is not invertible.", TensorFlow's message).
    ValueError
        For a non-square matrix or an ``rhs`` whose rows do not match.
    TypeError
        For a dtype other than float32/float64.
    """
    from . import _core
    from ._custom import custom_gradient
    from .errors import InvalidArgumentError

    a = _core.convert_to_tensor(matrix)
    b = _core.convert_to_tensor(rhs, dtype=a.dtype)
    if a.dtype.name not in ("float32", "float64"):
        raise TypeError(f"tf.linalg.solve supports float32 and float64 matrices, got {a.dtype.name}")
    if a.shape.rank is not None and (a.shape.rank < 2 or a.shape[-1] != a.shape[-2]):
        raise ValueError(f"Input matrix must be square: shape {a.shape}")
    if b.shape.rank is None or b.shape.rank < 2 or b.shape[-2] != a.shape[-1]:
        raise ValueError(
            f"Incompatible shapes: matrix {a.shape} and rhs {b.shape} (rhs must be [..., {a.shape[-1]}, K])"
        )

    def _t(x: Any) -> Any:
        perm = list(range(x.shape.rank - 2)) + [x.shape.rank - 1, x.shape.rank - 2]
        return _core.transpose(x, perm)

    @custom_gradient
    def _solve(a: Any, b: Any) -> Any:
        an = a.numpy()
        if adjoint:
            an = np.swapaxes(an, -1, -2)
        try:
            xn = np.linalg.solve(an, b.numpy())
        except np.linalg.LinAlgError:
            raise InvalidArgumentError(None, None, "Input matrix is not invertible.") from None
        x = _core.convert_to_tensor(xn.astype(an.dtype, copy=False))

        def grad(dy: Any) -> Any:
            gb = solve(a, dy, adjoint=not adjoint)
            if adjoint:
                ga = -_core.matmul(x, _t(gb))
            else:
                ga = -_core.matmul(gb, _t(x))
            return ga, gb

        return x, grad

    return _solve(a, b)
