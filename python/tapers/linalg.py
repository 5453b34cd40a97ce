"""``tapers.linalg``: linear algebra, as ``tf.linalg``.

The decompositions, solves and matrix helpers come from the binding
(``tapers._core.linalg``); the functions below are TensorFlow's own
compositions of public ops (``matvec``, ``normalize``, ``global_norm``),
so their gradients follow from those ops.
"""

from __future__ import annotations

import math as _math
from collections.abc import Sequence
from typing import Any

from ._core import Tensor
from ._core.linalg import *  # noqa: F403
from ._core.linalg import __all__ as __all__

__all__ = [*__all__, "global_norm", "matvec", "normalize", "transpose"]

transpose = matrix_transpose  # noqa: F405  (tf.linalg.transpose is matrix_transpose)


def matvec(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    adjoint_a: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    name: Any = None,
) -> Tensor:
    """Matrix-vector product ``op(a) @ b`` over the last axes (``tf.linalg.matvec``).

    Parameters
    ----------
    a : Tensor-like
        Matrices ``[..., M, N]``.
    b : Tensor-like
        Vectors ``[..., N]`` (``[..., M]`` with ``transpose_a``); batch axes broadcast.
    transpose_a, adjoint_a : bool, default False
        Use the transpose of ``a`` (the same for tapers' real dtypes).
    a_is_sparse, b_is_sparse : bool
        Accepted for TensorFlow compatibility and ignored.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[..., M]``: TensorFlow's ``squeeze(matmul(a, b[..., None]), -1)``, differentiable in both.
    """
    from . import _core

    del a_is_sparse, b_is_sparse, name
    col = _core.expand_dims(b, -1)
    return _core.squeeze(_core.linalg.matmul(a, col, transpose_a=transpose_a or adjoint_a), axis=-1)


def normalize(tensor: Any, ord: Any = "euclidean", axis: Any = None, name: Any = None) -> tuple[Tensor, Tensor]:
    """Divides a tensor by its norm (``tf.linalg.normalize``).

    Parameters
    ----------
    tensor : Tensor-like
        Float values.
    ord : {"euclidean", "fro", 1, 2, numpy.inf, p > 0}, default "euclidean"
        The norm, as ``tapers.norm`` takes it.
    axis : int or pair of int, optional
        Axes the norm runs over; all when None.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    tuple of Tensor
        ``(tensor / norm, norm)`` with the norm's reduced axes kept (size 1), as TensorFlow returns them.
        Differentiable.

    Raises
    ------
    ValueError
        ``ord`` that is neither a norm name nor a positive number, as in TensorFlow.
    """
    from . import _core

    del name
    is_number = isinstance(ord, (int, float)) and not isinstance(ord, bool)
    # "fro" names a matrix norm: TensorFlow accepts it only over two axes.
    matrix = isinstance(axis, (list, tuple)) and len(axis) == 2
    names = ("euclidean", "fro") if matrix else ("euclidean",)
    if not (ord in names or (is_number and (ord > 0 or _math.isinf(ord) and ord > 0))):
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    norm = _core.linalg.norm(tensor, ord=ord, axis=axis, keepdims=True)
    return _core.divide(tensor, norm), norm


def global_norm(t_list: Sequence[Any], name: Any = None) -> Tensor:
    """The Euclidean norm of all the tensors of a list together (``tf.linalg.global_norm``).

    Parameters
    ----------
    t_list : sequence of Tensor-like, IndexedSlices or None
        The tensors (one float dtype); ``None`` entries are skipped, as TensorFlow skips them; an
        ``IndexedSlices`` counts its ``values`` (repeated rows each once), as in TensorFlow.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        A scalar: ``sqrt(sum of every element squared)``, computed as TensorFlow does (``2 * sum(l2_loss)``).
        Differentiable.

    Raises
    ------
    TypeError
        ``t_list`` is not a sequence (a single tensor, as in TensorFlow).
    """
    from . import _core

    del name
    if not isinstance(t_list, Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    from ._indexed_slices import IndexedSlices

    t_list = [v.values if isinstance(v, IndexedSlices) else v for v in t_list]
    halves = [_core.multiply(_core.reduce_sum(_core.square(v)), 0.5) for v in t_list if v is not None]
    return _core.sqrt(_core.multiply(_core.reduce_sum(_core.stack(halves)), 2.0))


# Issue 20: more of tf.linalg (python/tapers/_nn_extra.py).
from ._core.nn import l2_normalize  # noqa: E402
from ._nn_extra import (  # noqa: E402
    cross,
    expm,
    matrix_rank,
    set_diag,
    tensor_diag,
    tensor_diag_part,
    tridiagonal_matmul,
    tridiagonal_solve,
)

__all__ += ["cross", "expm", "l2_normalize", "matrix_rank", "set_diag", "tensor_diag", "tensor_diag_part"]
__all__ += ["tridiagonal_matmul", "tridiagonal_solve"]
