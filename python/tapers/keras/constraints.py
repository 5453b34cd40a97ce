"""``keras.constraints``: projections applied to a weight after each optimizer update.

A layer given ``kernel_constraint=MaxNorm(3)`` creates its kernel with that
``constraint`` (``tapers.Variable(..., constraint=...)``, as TensorFlow), and
every ``tapers`` optimizer assigns ``constraint(variable)`` to the variable
after its update, as Keras 3's optimizers do. Formulas are Keras 3's
(checked against Keras in ``tests/test_keras_regularizers.py``).
"""

from __future__ import annotations

from typing import Any

from .. import _core
from .._core import Tensor
from .._ops import clip_by_value
from . import backend
from ._lookup import from_table, resolve, to_config

__all__ = [
    "Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "deserialize", "get", "max_norm",
    "min_max_norm", "non_neg", "serialize", "unit_norm",
]  # fmt: skip



def _norms(w: Tensor, axis: Any) -> Tensor:
    return _core.sqrt(_core.reduce_sum(_core.square(w), axis=axis, keepdims=True))


class Constraint:
    """Base class of the constraints: a callable from a weight to its projection.

    Methods
    -------
    __call__(w)
        The projected weight (the base class's is ``w``).
    get_config()
        The arguments that rebuild the constraint.
    """

    def __call__(self, w: Any) -> Any:
        return w

    def get_config(self) -> dict[str, Any]:
        """The arguments that rebuild this constraint."""
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Constraint:
        """A constraint from :meth:`get_config`'s dict."""
        return cls(**config)


class MaxNorm(Constraint):
    """Scales the slices along ``axis`` whose L2 norm exceeds ``max_value`` back to it.

    Parameters
    ----------
    max_value : float, default 2
        The largest norm allowed.
    axis : int or list of int, default 0
        The axes the norms are taken over (0 for a ``Dense`` kernel: each
        unit's incoming weights).
    """

    def __init__(self, max_value: float = 2, axis: Any = 0) -> None:
        self.max_value = max_value
        self.axis = axis

    def __call__(self, w: Any) -> Tensor:
        w = _core.convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = clip_by_value(norms, _core.cast(0, norms.dtype), _core.cast(self.max_value, norms.dtype))
        return _core.cast(w, norms.dtype) * (desired / (backend.epsilon() + norms))

    def get_config(self) -> dict[str, Any]:
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Replaces negative weights with zero.

    Methods
    -------
    __call__(w)
        ``maximum(w, 0)``.
    """

    def __call__(self, w: Any) -> Tensor:
        w = _core.convert_to_tensor(w)
        return _core.maximum(w, _core.cast(0, w.dtype))


class UnitNorm(Constraint):
    """Scales the slices along ``axis`` to unit L2 norm.

    Parameters
    ----------
    axis : int or list of int, default 0
        The axes the norms are taken over.
    """

    def __init__(self, axis: Any = 0) -> None:
        self.axis = axis

    def __call__(self, w: Any) -> Tensor:
        w = _core.convert_to_tensor(w)
        norms = _norms(w, self.axis)
        return _core.cast(w, norms.dtype) / (backend.epsilon() + norms)

    def get_config(self) -> dict[str, Any]:
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Moves the L2 norms of the slices along ``axis`` towards ``[min_value, max_value]``.

    The new norm is ``rate * clip(norm, min_value, max_value) + (1 - rate) * norm``.

    Parameters
    ----------
    min_value, max_value : float, default 0.0, 1.0
        The norms' bounds.
    rate : float, default 1.0
        How far to move (1.0: onto the interval).
    axis : int or list of int, default 0
        The axes the norms are taken over.
    """

    def __init__(self, min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0, axis: Any = 0) -> None:
        self.min_value = min_value
        self.max_value = max_value
        self.rate = rate
        self.axis = axis

    def __call__(self, w: Any) -> Tensor:
        w = _core.convert_to_tensor(w)
        norms = _norms(w, self.axis)
        dt = norms.dtype
        clipped = clip_by_value(norms, _core.cast(self.min_value, dt), _core.cast(self.max_value, dt))
        desired = _core.cast(self.rate, dt) * clipped + _core.cast(1 - self.rate, dt) * norms
        return _core.cast(w, dt) * (desired / (backend.epsilon() + norms))

    def get_config(self) -> dict[str, Any]:
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate, "axis": self.axis}


max_norm = MaxNorm
min_max_norm = MinMaxNorm
non_neg = NonNeg
unit_norm = UnitNorm

_BY_NAME: dict[str, Any] = {
    "Constraint": Constraint,
    "MaxNorm": MaxNorm,
    "MinMaxNorm": MinMaxNorm,
    "NonNeg": NonNeg,
    "UnitNorm": UnitNorm,
    "constraint": Constraint,
    "max_norm": MaxNorm,
    "min_max_norm": MinMaxNorm,
    "non_neg": NonNeg,
    "unit_norm": UnitNorm,
}


def serialize(constraint: Any) -> dict[str, Any]:
    """``{"class_name", "config"}`` of a constraint.

    Parameters
    ----------
    constraint : Constraint
        An instance with ``get_config``.

    Returns
    -------
    dict
        ``{"class_name": ..., "config": ...}``.
    """
    return to_config(constraint)


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
        A new constraint (or the class named).
    """
    return from_table(config, _BY_NAME, custom_objects, "constraint")


def get(identifier: Any) -> Any:
    """Resolves a constraint (``keras.constraints.get``).

    Parameters
    ----------
    identifier : None, str, dict, class or callable
        A name (``"max_norm"``, ``"NonNeg"``), a serialized dict, a class (instantiated), an
        instance or any callable.

    Returns
    -------
    callable or None
        None for None.

    Raises
    ------
    ValueError
        ``Could not interpret constraint identifier: ...``.
    """
    if identifier is None:
        return None
    return resolve(identifier, _BY_NAME, "constraint", deserialize)
