"""Element types, named as in TensorFlow (``tapers.float32``, ...)."""

from __future__ import annotations

import builtins

import numpy as np

_FLOATS = ("float16", "bfloat16", "float32", "float64")
_UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
_INTS = ("int8", "int16", "int32", "int64", *_UNSIGNED)
_COMPLEX = ("complex64", "complex128")


def _np_dtype(name: str) -> np.dtype:
    if name == "bfloat16":
        # numpy's bfloat16 comes from ml_dtypes, as in TensorFlow. Imported at
        # first use: its extension takes most of `import tapers`'s time.
        try:
            import ml_dtypes
        except ImportError:  # pragma: no cover - ml_dtypes is a dependency
            raise ImportError("bfloat16 needs the ml_dtypes package (pip install ml_dtypes)") from None
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


class DType:
    """A tensor element type. Compare with ``==``; ``str`` and ``repr`` follow TF.

    Attributes
    ----------
    name : str
        TensorFlow's name: ``float16``, ``bfloat16``, ``float32``, ``float64``,
        ``int8`` ... ``int64``, ``uint8`` ... ``uint64``, ``complex64``,
        ``complex128`` or ``bool``.
    as_numpy_dtype : type
        The numpy scalar type (``ml_dtypes.bfloat16`` for bfloat16, as in TF).
    is_floating, is_integer, is_complex, is_unsigned, is_bool : bool
        The kind of element.
    min, max
        The smallest and largest value (TypeError for complex and bool, as in TF).
    real_dtype : DType
        float32 for complex64, float64 for complex128, the dtype itself otherwise.
    size : int
        Bytes per element.

    Notes
    -----
    Strings, resources and quantized types are rejected by ``as_dtype`` with a
    ``TypeError``.
    """

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    @property
    def name(self) -> str:
        """TensorFlow's name, e.g. ``float32`` or ``uint8``."""
        return self._name

    @property
    def as_numpy_dtype(self) -> type:
        """The numpy scalar type."""
        return _np_dtype(self._name).type

    @property
    def is_floating(self) -> builtins.bool:
        """Whether this is a real floating-point type (complex is not, as in TF)."""
        return self._name in _FLOATS

    @property
    def is_integer(self) -> builtins.bool:
        """Whether this is a signed or unsigned integer type (bool is not)."""
        return self._name in _INTS

    @property
    def is_complex(self) -> builtins.bool:
        """Whether this is complex64 or complex128."""
        return self._name in _COMPLEX

    @property
    def is_unsigned(self) -> builtins.bool:
        """Whether this is an unsigned integer type."""
        return self._name in _UNSIGNED

    @property
    def is_bool(self) -> builtins.bool:
        """Whether this is bool."""
        return self._name == "bool"

    @property
    def is_numpy_compatible(self) -> builtins.bool:
        """Whether numpy has this dtype (always, with ml_dtypes for bfloat16)."""
        return True

    @property
    def real_dtype(self) -> DType:
        """The dtype of the real part: float32/float64 for complex64/complex128, else itself."""
        return {"complex64": float32, "complex128": float64}.get(self._name, self)

    @property
    def base_dtype(self) -> DType:
        """The dtype itself (tapers has no reference dtypes)."""
        return self

    def _limit(self, which: str) -> object:
        if self.is_floating:
            return getattr(np.finfo(_np_dtype(self._name)), which)
        if self.is_integer:
            return int(getattr(np.iinfo(_np_dtype(self._name)), which))
        raise TypeError(f"Cannot find {'minimum' if which == 'min' else 'maximum'} value of {self} with type {self}.")

    @property
    def min(self) -> object:
        """The smallest value: a numpy scalar for floats, a Python int for integers."""
        return self._limit("min")

    @property
    def max(self) -> object:
        """The largest value: a numpy scalar for floats, a Python int for integers."""
        return self._limit("max")

    @property
    def size(self) -> int:
        """Bytes per element."""
        return int(_np_dtype(self._name).itemsize)

    def __eq__(self, other: object) -> builtins.bool:
        if isinstance(other, DType):
            return other._name == self._name
        try:
            return as_dtype(other)._name == self._name
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


float16 = DType("float16")
bfloat16 = DType("bfloat16")
float32 = DType("float32")
float64 = DType("float64")
int8 = DType("int8")
int16 = DType("int16")
int32 = DType("int32")
int64 = DType("int64")
uint8 = DType("uint8")
uint16 = DType("uint16")
uint32 = DType("uint32")
uint64 = DType("uint64")
complex64 = DType("complex64")
complex128 = DType("complex128")
bool = DType("bool")  # noqa: A001 - TensorFlow's name
double = float64
float = float32  # noqa: A001
half = float16

_ALL = (
    float32,
    float64,
    int32,
    int64,
    bool,
    uint8,
    int8,
    int16,
    uint16,
    uint32,
    uint64,
    float16,
    bfloat16,
    complex64,
    complex128,
)
_BY_NAME = {d.name: d for d in _ALL}
_ALIASES = {"double": "float64", "float": "float32", "half": "float16"}


def as_dtype(type_value: object) -> DType:
    """Converts a name, numpy dtype or ``DType`` to a ``DType``.

    Parameters
    ----------
    type_value : DType, str, numpy dtype or Python type
        ``"float32"``, ``"half"``, ``np.uint8``, ``ml_dtypes.bfloat16``, ``complex``, ...

    Returns
    -------
    DType

    Raises
    ------
    TypeError
        For types tapers has no dtype for (strings, quantized types, ...).
    """
    if isinstance(type_value, DType):
        return type_value
    if type_value is complex:  # TensorFlow maps no Python complex type to a dtype
        raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a tapers DType.")
    name: str | None
    try:
        name = type_value if isinstance(type_value, str) else np.dtype(type_value).name  # type: ignore[call-overload]
    except TypeError:
        name = None
    name = _ALIASES.get(name, name)  # type: ignore[arg-type]
    if name not in _BY_NAME:
        raise TypeError(
            f"Cannot convert the argument `type_value`: {type_value!r} to a tapers DType "
            f"(supported: {', '.join(_BY_NAME)})"
        )
    return _BY_NAME[name]
