"""Element types, named as in TensorFlow (``tapers.float32``, ...)."""

from __future__ import annotations

import builtins

import numpy as np


class DType:
    """A tensor element type. Compare with ``==``; ``str`` and ``repr`` follow TF.

    Attributes
    ----------
    name : str
        ``float32``, ``float64``, ``int32``, ``int64`` or ``bool``.
    as_numpy_dtype : type
        The numpy scalar type.
    is_floating, is_integer, is_bool : bool
        The kind of element.
    size : int
        Bytes per element.

    Notes
    -----
    tapers has five dtypes; TensorFlow's others (float16, complex, strings,
    ...) are rejected by ``as_dtype`` with a ``TypeError``.
    """

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    @property
    def name(self) -> str:
        """TensorFlow's name: ``float32``, ``float64``, ``int32``, ``int64`` or ``bool``."""
        return self._name

    @property
    def as_numpy_dtype(self) -> type:
        """The numpy scalar type."""
        return np.dtype(self._name).type

    @property
    def is_floating(self) -> builtins.bool:
        return self._name in ("float32", "float64")

    @property
    def is_integer(self) -> builtins.bool:
        return self._name in ("int32", "int64")

    @property
    def is_bool(self) -> builtins.bool:
        return self._name == "bool"

    @property
    def size(self) -> int:
        return int(np.dtype(self._name).itemsize)

    def __eq__(self, other: object) -> builtins.bool:
        if isinstance(other, DType):
            return other._name == self._name
        try:
            return as_dtype(other)._name == self._name  # type: ignore[arg-type]
        except TypeError:
            return False

    def __hash__(self) -> int:
        return hash(self._name)

    def __repr__(self) -> str:
        return f"tapers.{self._name}"

    def __str__(self) -> str:
        return f"<dtype: '{self._name}'>"

    def __reduce__(self) -> tuple:
        return (as_dtype, (self._name,))


float32 = DType("float32")
float64 = DType("float64")
int32 = DType("int32")
int64 = DType("int64")
bool = DType("bool")  # noqa: A001 - TensorFlow's name
double = float64
float = float32  # noqa: A001

_BY_NAME = {d.name: d for d in (float32, float64, int32, int64, bool)}


def as_dtype(type_value: object) -> DType:
    """Converts a name, numpy dtype or ``DType`` to a ``DType``.

    Parameters
    ----------
    type_value : DType, str, numpy dtype or Python type
        ``"float32"``, ``np.float64``, ``float``, ...

    Returns
    -------
    DType

    Raises
    ------
    TypeError
        For types tapers has no dtype for (TensorFlow's message).
    """
    if isinstance(type_value, DType):
        return type_value
    try:
        name = type_value if isinstance(type_value, str) else np.dtype(type_value).name  # type: ignore[call-overload]
    except TypeError:
        name = None
    if name in ("double",):
        name = "float64"
    if name in ("float",):
        name = "float32"
    if name not in _BY_NAME:
        raise TypeError(f"Cannot convert {type_value!r} to a tapers dtype (supported: {', '.join(_BY_NAME)})")
    return _BY_NAME[name]
