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
    dimensions. Unlike TensorFlow, every dimension is known (tapers is eager
    only), so ``is_fully_defined()`` is always True and there is no
    ``None`` dimension.
    """

    __slots__ = ()

    def __new__(cls, dims: Any = ()) -> TensorShape:
        return super().__new__(cls, (int(d) for d in dims))

    @property
    def rank(self) -> int:
        return len(self)

    @property
    def ndims(self) -> int:
        return len(self)

    def as_list(self) -> list[int]:
        return list(self)

    def num_elements(self) -> int:
        n = 1
        for d in self:
            n *= d
        return n

    def is_fully_defined(self) -> bool:
        return True

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
