"""``tf.TensorArray``: a list of same-dtype tensors indexed by position, as eager TensorFlow keeps it.

Writes return a new ``TensorArray`` that shares its storage with the old one (so ``ta = ta.write(i, x)``,
TensorFlow's idiom, and a forgotten reassignment both behave as in eager TensorFlow). ``stack``,
``gather`` and ``concat`` are ``tf.stack``/``tf.concat`` of the stored tensors, so gradients flow to
whatever was written, and a ``tapers.function`` records them like any other op. Inside a
``tapers.while_loop`` body a TensorArray is not a loop variable (use Python loops in a traced
function, or stack tensors yourself).
"""

from __future__ import annotations

from typing import Any

from . import _core
from ._core import Tensor
from ._shape import TensorShape
from .dtypes import as_dtype

__all__ = ["TensorArray"]


class _Store:
    def __init__(self, size: int, dynamic: bool, element_shape: TensorShape | None, infer_shape: bool) -> None:
        self.items: list[Tensor | None] = [None] * size
        self.dynamic = dynamic
        self.element_shape = element_shape
        self.infer_shape = infer_shape


class TensorArray:
    """A dynamically written array of tensors of one dtype (``tf.TensorArray``).

    Parameters
    ----------
    dtype : DType
        The elements' dtype (values written are converted to it).
    size : int, optional
        The initial number of elements (0 by default).
    dynamic_size : bool, optional
        Whether writes past the end grow the array (else they raise ``OutOfRangeError``).
    clear_after_read : bool, optional
        Accepted; eager TensorFlow keeps values after a read, and so does tapers.
    element_shape : TensorShape-like, optional
        The elements' shape; writes must be compatible with it, and it is refined by the first write
        (``infer_shape``).
    infer_shape : bool
        Whether the first write fixes the element shape.
    tensor_array_name, handle, flow, colocate_with_first_write_call, name : optional
        Accepted for TensorFlow compatibility; ignored.
    """

    def __init__(
        self,
        dtype: Any,
        size: Any = None,
        dynamic_size: bool | None = None,
        clear_after_read: bool | None = None,
        tensor_array_name: Any = None,
        handle: Any = None,
        flow: Any = None,
        infer_shape: bool = True,
        element_shape: Any = None,
        colocate_with_first_write_call: bool = True,
        name: Any = None,
        _store: _Store | None = None,
    ) -> None:
        self._dtype = as_dtype(dtype)
        if _store is None:
            n = 0 if size is None else int(size)
            if n < 0:
                raise ValueError(f"TensorArray size must be non-negative, got {n}")
            shape = None if element_shape is None else TensorShape(element_shape)
            _store = _Store(n, bool(dynamic_size), shape, infer_shape)
        self._store = _store

    def _new(self) -> TensorArray:
        return TensorArray(self._dtype, _store=self._store)

    @property
    def dtype(self) -> Any:
        """The elements' dtype."""
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        """Whether writes past the end grow the array."""
        return self._store.dynamic

    @property
    def element_shape(self) -> TensorShape | None:
        """The elements' shape, as far as known (None before the first write when not given)."""
        return self._store.element_shape

    def size(self, name: Any = None) -> Tensor:
        """The number of elements, an int32 scalar.

        Returns
        -------
        Tensor
        """
        return _core.constant(len(self._store.items), dtype="int32")

    def _index(self, index: Any) -> int:
        return int(_core.convert_to_tensor(index)) if not isinstance(index, int) else index

    def write(self, index: Any, value: Any, name: Any = None) -> TensorArray:
        """Stores ``value`` at ``index``.

        Parameters
        ----------
        index : int or int Tensor
            The position (past the end only with ``dynamic_size``).
        value : Tensor-like
            The element, converted to the array's dtype.

        Returns
        -------
        TensorArray
            An array sharing this one's storage (assign it back: ``ta = ta.write(i, x)``).

        Raises
        ------
        OutOfRangeError
            For an index past the end of a fixed-size array, or a negative one.
        ValueError
            For a value whose shape is incompatible with the element shape.
        """
        from .errors import OutOfRangeError

        i = self._index(index)
        store = self._store
        if i < 0:
            raise OutOfRangeError(None, None, f"Tried to write to index {i} but array size is: {len(store.items)}")
        if i >= len(store.items):
            if not store.dynamic:
                raise OutOfRangeError(
                    None,
                    None,
                    f"Tried to write to index {i} but array is not resizeable and size is: {len(store.items)} ",
                )
            store.items.extend([None] * (i + 1 - len(store.items)))
        t = _core.convert_to_tensor(value, dtype=self._dtype)
        shape = TensorShape(t.shape)
        known = store.element_shape
        if known is not None and not known.is_compatible_with(shape):
            raise ValueError(f"Incompatible shape for value ({_dims(shape)}), expected ({_dims(known)})")
        if store.infer_shape:
            store.element_shape = shape if known is None else known.merge_with(shape)
        store.items[i] = t
        return self._new()

    def read(self, index: Any, name: Any = None) -> Tensor:
        """The element at ``index`` (zeros of the element shape if never written).

        Parameters
        ----------
        index : int or int Tensor

        Returns
        -------
        Tensor

        Raises
        ------
        OutOfRangeError
            For an index outside the array.
        ValueError
            For an unwritten element whose shape is not known.
        """
        from .errors import OutOfRangeError

        i = self._index(index)
        items = self._store.items
        if not 0 <= i < len(items):
            raise OutOfRangeError(None, None, f"Tried to read from index {i} but array size is: {len(items)}")
        t = items[i]
        if t is None:
            return self._zeros()
        return t

    def _zeros(self) -> Tensor:
        shape = self._store.element_shape
        if shape is None or not shape.is_fully_defined():
            raise ValueError(
                f"Could not read an unwritten TensorArray element: its shape {shape} is not fully defined"
            )
        return _core.zeros(shape.as_list(), dtype=self._dtype)

    def stack(self, name: Any = None) -> Tensor:
        """All elements stacked along a new first axis (``(0,) + element_shape`` when empty).

        Returns
        -------
        Tensor
        """
        n = len(self._store.items)
        if n == 0:
            shape = self._store.element_shape
            dims = shape.as_list() if shape is not None and shape.is_fully_defined() else []
            return _core.zeros([0, *dims], dtype=self._dtype)
        return _core.stack([self.read(i) for i in range(n)], axis=0)

    def gather(self, indices: Any, name: Any = None) -> Tensor:
        """The elements at ``indices``, stacked.

        Parameters
        ----------
        indices : 1-D int Tensor-like

        Returns
        -------
        Tensor
        """
        idx = [int(i) for i in _core.convert_to_tensor(indices).numpy().reshape(-1)]
        if not idx:
            shape = self._store.element_shape
            dims = shape.as_list() if shape is not None and shape.is_fully_defined() else []
            return _core.zeros([0, *dims], dtype=self._dtype)
        return _core.stack([self.read(i) for i in idx], axis=0)

    def concat(self, name: Any = None) -> Tensor:
        """All elements concatenated along their first axis.

        Returns
        -------
        Tensor
        """
        items = [self.read(i) for i in range(len(self._store.items))]
        if not items:
            return _core.zeros([0], dtype=self._dtype)
        return _core.concat(items, axis=0)

    def unstack(self, value: Any, name: Any = None) -> TensorArray:
        """Writes ``value[i]`` at each position ``i``.

        Parameters
        ----------
        value : Tensor-like
            Of rank at least 1.

        Returns
        -------
        TensorArray
        """
        t = _core.convert_to_tensor(value, dtype=self._dtype)
        if len(t.shape) == 0:
            raise ValueError(f"TensorArray.unstack needs a value of rank >= 1, got shape {tuple(t.shape)}")
        for i in range(int(t.shape[0])):
            self.write(i, t[i])
        return self._new()

    def scatter(self, indices: Any, value: Any, name: Any = None) -> TensorArray:
        """Writes ``value[k]`` at position ``indices[k]``.

        Parameters
        ----------
        indices : 1-D int Tensor-like
        value : Tensor-like
            With ``len(indices)`` rows.

        Returns
        -------
        TensorArray
        """
        idx = [int(i) for i in _core.convert_to_tensor(indices).numpy().reshape(-1)]
        t = _core.convert_to_tensor(value, dtype=self._dtype)
        if len(t.shape) == 0 or int(t.shape[0]) != len(idx):
            raise ValueError(
                f"TensorArray.scatter: {len(idx)} indices for a value of shape {tuple(t.shape)}"
            )
        for k, i in enumerate(idx):
            self.write(i, t[k])
        return self._new()

    def split(self, value: Any, lengths: Any, name: Any = None) -> TensorArray:
        """Splits ``value`` along its first axis into pieces of ``lengths`` and writes them in order.

        Parameters
        ----------
        value : Tensor-like
        lengths : 1-D int Tensor-like
            Summing to ``value.shape[0]``.

        Returns
        -------
        TensorArray
        """
        t = _core.convert_to_tensor(value, dtype=self._dtype)
        sizes = [int(n) for n in _core.convert_to_tensor(lengths).numpy().reshape(-1)]
        if len(t.shape) == 0 or sum(sizes) != int(t.shape[0]):
            raise ValueError(
                f"TensorArray.split: lengths {sizes} do not sum to the first dimension of {tuple(t.shape)}"
            )
        # The pieces differ in length: the element shape keeps their first axis unknown.
        piece = TensorShape([None, *tuple(t.shape)[1:]])
        known = self._store.element_shape
        self._store.element_shape = piece if known is None else known.merge_with(piece)
        infer, self._store.infer_shape = self._store.infer_shape, False
        try:
            start = 0
            for i, n in enumerate(sizes):
                self.write(i, t[start : start + n])
                start += n
        finally:
            self._store.infer_shape = infer
        return self._new()

    def identity(self) -> TensorArray:
        """This array (TensorFlow's control-flow helper).

        Returns
        -------
        TensorArray
        """
        return self._new()

    def close(self, name: Any = None) -> None:
        """Does nothing (TensorFlow releases its resource here)."""

    def mark_used(self) -> None:
        """Does nothing (TensorFlow's unused-value warning does not exist in tapers)."""

    def __repr__(self) -> str:
        return f"<tapers.TensorArray size={len(self._store.items)} dtype={self._dtype.name}>"


def _dims(shape: TensorShape) -> str:
    return str(tuple(shape.as_list()))
