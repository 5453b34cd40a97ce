"""``TensorShape``: a tuple of ints that prints as TensorFlow's does."""

from __future__ import annotations

from typing import Any


class TensorShape(tuple):
    """The shape of a tensor: ``str`` gives ``(2, 3)``, ``repr`` gives ``TensorShape([2, 3])``.

    Parameters
    ----------
    dims : iterable of int, default ()
        The dimensions.

    Attributes
    ----------
    rank, ndims : int
        The number of dimensions.

    Notes
    -----
    A ``tuple`` subclass: indexing, slicing, ``len`` and iteration work as on
    tuples, and it compares equal to lists and tuples of the same
    dimensions. A tensor's own shape is always fully known (tapers computes
    on real values); shapes written by users (``TensorShape([None, 3])``,
    ``set_shape``, ``TensorArray(element_shape=...)``) may hold ``None`` for
    an unknown dimension, but not an unknown rank.
    """

    __slots__ = ()

    def __new__(cls, dims: Any = ()) -> TensorShape:
        if dims is None:
            raise ValueError("tapers.TensorShape has no unknown rank: give the dimensions (None for an unknown one)")
        return super().__new__(cls, (None if d is None else int(d) for d in dims))

    @property
    def rank(self) -> int:
        return len(self)

    @property
    def ndims(self) -> int:
        return len(self)

    def as_list(self) -> list[int]:
        return list(self)

    def num_elements(self) -> int | None:
        """The number of elements, or None when a dimension is unknown."""
        n = 1
        for d in self:
            if d is None:
                return None
            n *= d
        return n

    def is_fully_defined(self) -> bool:
        """Whether every dimension is known (always, for a tensor's own shape)."""
        return all(d is not None for d in self)

    def is_compatible_with(self, other: Any) -> bool:
        """Whether the two shapes could describe the same tensor: same rank, and equal sizes wherever
        both are known."""
        other = TensorShape(other)
        return len(self) == len(other) and all(a is None or b is None or a == b for a, b in zip(self, other))

    def assert_is_compatible_with(self, other: Any) -> None:
        """Raises TensorFlow's ``ValueError`` unless :meth:`is_compatible_with`."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are incompatible")

    def merge_with(self, other: Any) -> TensorShape:
        """The shape with every dimension either side knows (``ValueError`` if they conflict)."""
        other = TensorShape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape(a if a is not None else b for a, b in zip(self, other))

    def concatenate(self, other: Any) -> TensorShape:
        """This shape's dimensions followed by ``other``'s."""
        return TensorShape((*self, *TensorShape(other)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (tuple, list)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = tuple.__hash__

    def __getitem__(self, key: Any) -> Any:  # slices stay TensorShapes
        r = super().__getitem__(key)
        return TensorShape(r) if isinstance(key, slice) else r

    def __str__(self) -> str:
        if len(self) == 1:
            return f"({self[0]},)"
        return "(" + ", ".join(str(d) for d in self) + ")"

    def __repr__(self) -> str:
        return f"TensorShape({list(self)})"
