"""``TensorSpec`` (``tf.TensorSpec``): the shape and dtype a tensor is expected to have.

Dataset element specs use it, and so do signatures (``map_fn``'s
``fn_output_signature``). Its shape may have unknown dimensions (``None``) or an
unknown rank, which tapers tensors themselves never have.
"""

from __future__ import annotations

from typing import Any

from ._shape import TensorShape
from .dtypes import DType, as_dtype, float32


class _PartialShape(TensorShape):
    """A ``TensorShape`` whose dimensions may be ``None`` (unknown), as TensorFlow's partial shapes."""

    __slots__ = ()

    def __new__(cls, dims: Any = ()) -> _PartialShape:
        return tuple.__new__(cls, (None if d is None else int(d) for d in dims))

    def __getitem__(self, key: Any) -> Any:
        r = tuple.__getitem__(self, key)
        return _PartialShape(r) if isinstance(key, slice) else r

    def num_elements(self) -> int | None:  # type: ignore[override]
        if not self.is_fully_defined():
            return None
        return super().num_elements()

    def is_fully_defined(self) -> bool:
        return all(d is not None for d in self)

    def is_compatible_with(self, other: Any) -> bool:
        """Same rank, and every pair of dimensions equal or one of them unknown."""
        other = _as_shape(other)
        if isinstance(other, _UnknownShape):
            return True
        return len(self) == len(other) and all(a is None or b is None or a == b for a, b in zip(self, other))


class _UnknownShape:
    """A shape of unknown rank: prints ``<unknown>``; compatible with every shape."""

    __slots__ = ()
    rank = None
    ndims = None
    dims = None

    def as_list(self) -> list[int]:
        raise ValueError("as_list() is not defined on an unknown TensorShape.")

    def is_fully_defined(self) -> bool:
        return False

    def num_elements(self) -> None:
        return None

    def is_compatible_with(self, other: Any) -> bool:
        return True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _UnknownShape)

    def __hash__(self) -> int:
        return hash(_UnknownShape)

    def __str__(self) -> str:
        return "<unknown>"

    def __repr__(self) -> str:
        return "TensorShape(None)"

    def __reduce__(self) -> tuple:
        return (_UnknownShape, ())


def _as_shape(shape: Any) -> _PartialShape | _UnknownShape:
    if isinstance(shape, (_PartialShape, _UnknownShape)):
        return shape
    if shape is None:
        return _UnknownShape()
    if isinstance(shape, int):
        return _PartialShape((shape,))
    return _PartialShape(tuple(shape))


class TensorSpec:
    """Describes a tensor: its shape (possibly partial), dtype and an optional name (``tf.TensorSpec``).

    Parameters
    ----------
    shape : iterable of int or None, or None
        The dimensions; ``None`` in a dimension means "any size", and ``None``
        for the whole shape means "any rank".
    dtype : DType or str, default float32
        The element type.
    name : str, optional
        A name, kept and printed as given.

    Notes
    -----
    Prints as TensorFlow's (``TensorSpec(shape=(None, 2), dtype=tapers.float32,
    name=None)``), compares by shape, dtype and name, pickles and copies.
    """

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape: Any, dtype: Any = float32, name: str | None = None) -> None:
        self._shape = _as_shape(shape)
        self._dtype = as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor: Any, name: str | None = None) -> TensorSpec:
        """The spec of a tensor (or variable, or anything ``convert_to_tensor`` accepts)."""
        from ._core import convert_to_tensor

        if not hasattr(tensor, "dtype") or not hasattr(tensor, "shape"):
            tensor = convert_to_tensor(tensor)
        return cls(tuple(tensor.shape), tensor.dtype, name)

    @property
    def shape(self) -> Any:
        """The shape: a ``TensorShape`` (dimensions may be ``None``), or an unknown shape."""
        return self._shape

    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def name(self) -> str | None:
        return self._name

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        """True when `spec_or_value` (a spec, tensor, variable or array) has this dtype and a compatible shape."""
        other = spec_or_value if isinstance(spec_or_value, TensorSpec) else TensorSpec.from_tensor(spec_or_value)
        return self._dtype == other._dtype and self._shape.is_compatible_with(other._shape)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TensorSpec):
            return NotImplemented
        return (self._shape, self._dtype, self._name) == (other._shape, other._dtype, other._name)

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"

    def __reduce__(self) -> tuple:
        shape = None if isinstance(self._shape, _UnknownShape) else tuple(self._shape)
        return (TensorSpec, (shape, self._dtype, self._name))
