"""``IndexedSlices``: TensorFlow's sparse gradient of a gather of rows.

``tape.gradient(loss, table)`` where the loss reads ``table`` only through
``tf.gather(table, ids)`` (axis 0) or ``tf.nn.embedding_lookup`` returns one
of these, as TensorFlow does: the rows read and their gradients, not a dense
tensor of the table's shape. The core's backward pass builds it (a gather's
output gradient becomes ``values``), concatenates several of them for the
same source, and converts to dense only where a sparse gradient meets a dense
one. Optimizers apply them as sparse updates (``tapers.optimizers``).
"""

from __future__ import annotations

from typing import Any

from . import _core
from ._core import Tensor


class IndexedSlices:
    """A sparse representation of a tensor's slices along axis 0 (``tf.IndexedSlices``).

    The dense value is ``unsorted_segment_sum(values, indices, dense_shape[0])``:
    row ``k`` of ``values`` belongs at row ``indices[k]``, and repeated
    indices add up.

    Parameters
    ----------
    values : Tensor
        The slices, shape ``[N, *dense_shape[1:]]``.
    indices : Tensor
        1-D integer tensor of ``N`` row indices.
    dense_shape : Tensor, optional
        1-D integer tensor, the dense tensor's shape.

    Notes
    -----
    As in TensorFlow: ``tf.convert_to_tensor(slices)`` (and any op given one)
    densifies it, recorded on active tapes; unary minus keeps it sparse;
    ``+``, ``*`` and the other operators are not defined (TypeError);
    ``tf.clip_by_norm``, ``tf.clip_by_global_norm`` and
    ``tf.linalg.global_norm`` accept it and use its ``values``. ``repr`` is
    Python's default, ``str`` is TensorFlow's ``IndexedSlices(indices=...,
    values=..., dense_shape=...)``.
    """

    __slots__ = ("_dense_shape", "_indices", "_values")

    def __init__(self, values: Any, indices: Any, dense_shape: Any = None) -> None:
        self._values = _core.convert_to_tensor(values)
        self._indices = _core.convert_to_tensor(indices)
        self._dense_shape = None if dense_shape is None else _core.convert_to_tensor(dense_shape)

    @property
    def values(self) -> Tensor:
        """The slices (a Tensor)."""
        return self._values

    @property
    def indices(self) -> Tensor:
        """The 1-D row indices of the slices."""
        return self._indices

    @property
    def dense_shape(self) -> Tensor | None:
        """The dense tensor's shape (a 1-D integer Tensor), or None."""
        return self._dense_shape

    @property
    def dtype(self) -> Any:
        """The dtype of the values."""
        return self._values.dtype

    @property
    def device(self) -> str:
        """The device of the values (tapers runs on the CPU: TensorFlow's name for it)."""
        return "/job:localhost/replica:0/task:0/device:CPU:0"

    @property
    def shape(self) -> Any:
        """The dense tensor's shape (a TensorShape; unknown rows when ``dense_shape`` is None)."""
        from ._shape import TensorShape

        if self._dense_shape is None:
            return TensorShape([None, *tuple(self._values.shape)[1:]])
        return TensorShape([int(d) for d in self._dense_shape.numpy()])

    def __neg__(self) -> IndexedSlices:
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __str__(self) -> str:
        # str() of each part, as TensorFlow's %-formatting (a Tensor's format() is numpy's).
        shape = f", dense_shape={self._dense_shape!s}" if self._dense_shape is not None else ""
        return f"IndexedSlices(indices={self._indices!s}, values={self._values!s}{shape})"

    def __tapers_tensor__(self) -> Tensor:
        """The dense tensor (TensorFlow's conversion: ``unsorted_segment_sum`` of the rows)."""
        if self._dense_shape is None:
            raise ValueError("Tensor conversion requested for IndexedSlices without dense_shape: " + str(self))
        rows = int(self._dense_shape.numpy()[0])
        return _core.math.unsorted_segment_sum(self._values, self._indices, rows)

    def _with_values(self, values: Tensor) -> IndexedSlices:
        # The same rows with new values (what clipping returns).
        return IndexedSlices(values, self._indices, self._dense_shape)


IndexedSlices.__module__ = "tapers"
