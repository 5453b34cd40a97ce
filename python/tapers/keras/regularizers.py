"""``keras.regularizers``: penalties on weights and activations, added to a model's loss.

A layer given ``kernel_regularizer=L2(1e-4)`` (or ``"l2"``) lists the penalty
of its current kernel in ``layer.losses`` (computed each time ``losses`` is
read, as Keras 3), and ``Model.fit`` adds ``model.losses`` to the compiled
loss; an ``activity_regularizer`` adds the penalty of the layer's output,
divided by the batch size, at each call. Formulas and messages are Keras 3's
(checked against Keras in ``tests/test_keras_regularizers.py``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _core
from .._core import Tensor
from . import backend
from ._lookup import from_table, resolve, to_config

__all__ = [
    "L1", "L1L2", "L2", "OrthogonalRegularizer", "Regularizer", "deserialize", "get", "l1", "l1_l2", "l2",
    "orthogonal_regularizer", "serialize",
]  # fmt: skip


def _validate_float_arg(value: Any, name: str) -> float:
    if (
        not isinstance(value, (float, int))
        or math.isinf(value)
        or math.isnan(value)
        or value < 0
    ):
        raise ValueError(
            f"Invalid value for argument {name}: expected a non-negative float.Received: {name}={value}"
        )
    return float(value)


class Regularizer:
    """Base class of the regularizers: a callable from a tensor to a scalar penalty.

    Subclasses implement ``__call__(x)`` and ``get_config()``; any function
    ``f(weights) -> scalar`` serves as a regularizer too.

    Methods
    -------
    __call__(x)
        The penalty of ``x`` (the base class's is 0.0).
    get_config()
        The arguments that rebuild the regularizer.
    """

    def __call__(self, x: Any) -> Any:
        """The penalty of ``x`` (the base class's is 0.0)."""
        return 0.0

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Regularizer:
        """A regularizer from :meth:`get_config`'s dict."""
        return cls(**config)

    def get_config(self) -> dict[str, Any]:
        """The arguments that rebuild this regularizer."""
        raise NotImplementedError(f"{self} does not implement get_config()")


class L1L2(Regularizer):
    """``l1 * sum(abs(x)) + l2 * sum(square(x))``.

    Parameters
    ----------
    l1, l2 : float, default 0.0
        Non-negative factors.
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1 = _validate_float_arg(0.0 if l1 is None else l1, name="l1")
        self.l2 = _validate_float_arg(0.0 if l2 is None else l2, name="l2")

    def __call__(self, x: Any) -> Tensor:
        x = _core.convert_to_tensor(x)
        penalty = _core.constant(0.0, dtype=x.dtype)
        if self.l1 != 0.0:
            penalty += _core.cast(self.l1, x.dtype) * _core.reduce_sum(_core.abs(x))
        if self.l2 != 0.0:
            penalty += _core.cast(self.l2, x.dtype) * _core.reduce_sum(_core.square(x))
        return penalty

    def get_config(self) -> dict[str, Any]:
        return {"l1": self.l1, "l2": self.l2}


class L1(Regularizer):
    """``l1 * sum(abs(x))``.

    Parameters
    ----------
    l1 : float, default 0.01
        A non-negative factor.
    """

    def __init__(self, l1: float = 0.01) -> None:
        # Keras keeps this factor as a float32 tensor: the float32 value is what it applies
        # (also to float64 inputs) and what get_config returns.
        self.l1 = float(np.float32(_validate_float_arg(0.01 if l1 is None else l1, name="l1")))

    def __call__(self, x: Any) -> Tensor:
        x = _core.convert_to_tensor(x)
        return _core.cast(self.l1, x.dtype) * _core.reduce_sum(_core.abs(x))

    def get_config(self) -> dict[str, Any]:
        return {"l1": self.l1}


class L2(Regularizer):
    """``l2 * sum(square(x))``.

    Parameters
    ----------
    l2 : float, default 0.01
        A non-negative factor.
    """

    def __init__(self, l2: float = 0.01) -> None:
        self.l2 = _validate_float_arg(0.01 if l2 is None else l2, name="l2")

    def __call__(self, x: Any) -> Tensor:
        x = _core.convert_to_tensor(x)
        return _core.cast(self.l2, x.dtype) * _core.reduce_sum(_core.square(x))

    def get_config(self) -> dict[str, Any]:
        return {"l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """Pushes the rows (or columns) of a matrix towards orthogonality.

    The penalty is ``factor * 0.5 * sum(|P - diag(P)|) / (n (n - 1) / 2)``,
    where ``P`` is the matrix of dot products of the L2-normalized rows
    (``mode="rows"``) or columns and ``n`` their number.

    Parameters
    ----------
    factor : float, default 0.01
        A non-negative factor.
    mode : {"rows", "columns"}, default "rows"
        Which vectors to decorrelate.
    """

    def __init__(self, factor: float = 0.01, mode: str = "rows") -> None:
        self.factor = float(np.float32(_validate_float_arg(factor, name="factor")))  # float32, as L1's
        if mode not in {"rows", "columns"}:
            raise ValueError(
                f'Invalid value for argument `mode`. Expected one of {{"rows", "columns"}}. Received: mode={mode}'
            )
        self.mode = mode

    def __call__(self, inputs: Any) -> Tensor:
        x = _core.convert_to_tensor(inputs)
        if len(x.shape) != 2:
            raise ValueError(f"Inputs to OrthogonalRegularizer must have rank 2. Received: inputs.shape={x.shape}")
        axis = 1 if self.mode == "rows" else 0
        # Keras' `normalize`: x * min(rsqrt(sum(x^2)), 1 / epsilon).
        inv_norm = _core.minimum(
            _core.math.rsqrt(_core.reduce_sum(_core.square(x), axis=axis, keepdims=True)),
            _core.cast(1.0 / backend.epsilon(), x.dtype),
        )
        x = x * inv_norm
        if self.mode == "rows":
            product = _core.matmul(x, x, transpose_b=True)
            size = int(x.shape[0])
        else:
            product = _core.matmul(x, x, transpose_a=True)
            size = int(x.shape[1])
        off_diagonal = product * (1.0 - _core.eye(size, dtype=x.dtype))
        num_pairs = size * (size - 1.0) / 2.0
        factor = _core.cast(self.factor, x.dtype)
        return factor * 0.5 * _core.reduce_sum(_core.abs(off_diagonal)) / num_pairs

    def get_config(self) -> dict[str, Any]:
        return {"factor": self.factor, "mode": self.mode}


l1_l2 = L1L2
l1 = L1
l2 = L2
orthogonal_regularizer = OrthogonalRegularizer

_BY_NAME: dict[str, Any] = {
    "Regularizer": Regularizer,
    "L1": L1,
    "L2": L2,
    "L1L2": L1L2,
    "OrthogonalRegularizer": OrthogonalRegularizer,
    "regularizer": Regularizer,
    "l1": L1,
    "l2": L2,
    "l1l2": L1L2,
    "orthogonal_regularizer": OrthogonalRegularizer,
}


def serialize(regularizer: Any) -> dict[str, Any]:
    """``{"class_name", "config"}`` of a regularizer.

    Parameters
    ----------
    regularizer : Regularizer
        An instance with ``get_config``.

    Returns
    -------
    dict
        ``{"class_name": ..., "config": ...}``.
    """
    return to_config(regularizer)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """Inverse of :func:`serialize`; a bare name gives the class.

    Parameters
    ----------
    config : str or dict
        A serialized form.
    custom_objects : dict, optional
        Extra names to resolve.

    Returns
    -------
    object
        A new regularizer (or the class named).
    """
    return from_table(config, _BY_NAME, custom_objects, "regularizer")


def get(identifier: Any) -> Any:
    """Resolves a regularizer (``keras.regularizers.get``).

    Parameters
    ----------
    identifier : None, str, dict, class or callable
        A name (``"l2"``, ``"L1L2"``), a serialized dict, a class (instantiated), an
        instance or any callable.

    Returns
    -------
    callable or None
        None for None.

    Raises
    ------
    ValueError
        ``Could not interpret regularizer identifier: ...``.
    """
    if identifier is None:
        return None
    return resolve(identifier, _BY_NAME, "regularizer", deserialize)
