"""``Tensor``/``Variable`` methods written in Python and attached to the Rust classes by :func:`install`
(run once by ``tapers/__init__.py``): ``get_shape``/``set_shape``, ``ref``/``experimental_ref``
(TensorFlow's ``Reference``), ``device``, and the Variable scatter family (``scatter_update`` ...
``scatter_nd_sub``, ``sparse_read``, ``gather_nd``).

Every scatter is one tapers op on the variable's value followed by one ``assign``: the index checks
(TensorFlow's ``InvalidArgumentError`` naming the index) run before anything is written, and the
assign records under a tape and replays in a compiled function like any other.
"""

from __future__ import annotations

from typing import Any

from . import _core

_CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


class Reference:
    """A hashable handle on a tensor or variable (TensorFlow's ``Reference``, from ``t.ref()``).

    Tensors define ``==`` elementwise and are not hashable; a reference hashes and compares by the
    object's identity, so it can key a dict or live in a set.

    Parameters
    ----------
    wrapped : Tensor or Variable
        The object referred to.
    """

    __slots__ = ("_wrapped",)

    def __init__(self, wrapped: Any) -> None:
        self._wrapped = wrapped

    def deref(self) -> Any:
        """The tensor or variable this reference wraps.

        Returns
        -------
        Tensor or Variable
        """
        return self._wrapped

    def __hash__(self) -> int:
        return id(self._wrapped)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Reference) and other._wrapped is self._wrapped

    def __repr__(self) -> str:
        return f"<Reference wrapping {self._wrapped!r}>"


def ref(self: Any) -> Reference:
    """``t.ref()``: a hashable :class:`Reference` to ``t``."""
    return Reference(self)


def set_shape(self: Any, shape: Any) -> None:
    """``t.set_shape(shape)``: checks that ``shape`` describes ``t`` (a tensor's shape is always known).

    Raises TensorFlow's ``ValueError`` when it does not.
    """
    from ._shape import TensorShape

    want = TensorShape(shape)
    have = self.shape
    if not have.is_compatible_with(want):
        if isinstance(self, _core.Variable):
            raise ValueError(f"Shapes {_tuple(have)} and {_tuple(want)} are not compatible")
        raise ValueError(f"Tensor's shape {_tuple(have)} is not compatible with supplied shape {_tuple(want)}.")


def _tuple(shape: Any) -> str:
    dims = shape.as_list() if shape.rank is not None else None
    return "<unknown>" if dims is None else str(tuple(dims))


_OPS = {
    "update": "ResourceScatterUpdate", "add": "ResourceScatterAdd", "sub": "ResourceScatterSub",
    "mul": "ResourceScatterMul", "div": "ResourceScatterDiv", "max": "ResourceScatterMax", "min": "ResourceScatterMin",
}  # fmt: skip


def _slices(var: Any, sparse_delta: Any, what: str) -> tuple[Any, Any]:
    from ._indexed_slices import IndexedSlices
    from .debugging import _check
    from .errors import InvalidArgumentError

    if not isinstance(sparse_delta, IndexedSlices):
        raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
    values = _core.cast(_core.convert_to_tensor(sparse_delta.values), var.dtype)
    indices = _core.reshape(_core.convert_to_tensor(sparse_delta.indices), [-1])
    n = int(var.shape[0]) if len(var.shape) else 0

    def fail(data: list[Any]) -> Any:
        ids = data[0].numpy().reshape(-1)
        k = next(i for i, v in enumerate(ids) if not 0 <= v < n)
        raise InvalidArgumentError(None, None, f"indices[{k}] = {ids[k]} is not in [0, {n}) [Op:{_OPS[what]}]")

    # TensorFlow's message, checked before anything is written (a graph check when traced: no guard).
    in_range = _core.logical_and(_core.greater_equal(indices, 0), _core.less(indices, _core.cast(n, indices.dtype)))
    _check(_core.reduce_all(in_range), fail, [indices])
    return _core.reshape(indices, [-1, 1]), values


def scatter_update(self: Any, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
    """``self[indices] = values`` for ``IndexedSlices(values, indices)``; returns ``self``."""
    idx, values = _slices(self, sparse_delta, "update")
    self.assign(_core.tensor_scatter_nd_update(self.value(), idx, values))
    return self


def scatter_add(self: Any, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
    """``self[indices] += values`` (repeated indices add up); returns ``self``."""
    idx, values = _slices(self, sparse_delta, "add")
    self.assign(_core.tensor_scatter_nd_add(self.value(), idx, values))
    return self


def scatter_sub(self: Any, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
    """``self[indices] -= values`` (repeated indices add up); returns ``self``."""
    idx, values = _slices(self, sparse_delta, "sub")
    self.assign(_core.tensor_scatter_nd_add(self.value(), idx, -values))
    return self


def _factor(var: Any, idx: Any, values: Any) -> Any:
    """The product of the values aimed at each row (1 where none is), ``var``'s shape."""
    from ._math_extra import unsorted_segment_prod

    n = int(var.shape[0])
    ids = _core.reshape(idx, [-1])
    # Validates the indices as scatter_update would before taking the product.
    _core.tensor_scatter_nd_update(var.value(), idx, values)
    return unsorted_segment_prod(values, ids, n)


def scatter_mul(self: Any, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
    """``self[indices] *= values`` (repeated indices multiply in turn); returns ``self``."""
    idx, values = _slices(self, sparse_delta, "mul")
    self.assign(self.value() * _factor(self, idx, values))
    return self


def scatter_div(self: Any, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
    """``self[indices] /= values`` (repeated indices divide in turn); returns ``self``."""
    idx, values = _slices(self, sparse_delta, "div")
    self.assign(self.value() / _factor(self, idx, values))
    return self


def scatter_max(self: Any, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
    """``self[indices] = max(self[indices], values)``; returns ``self``."""
    from ._array_extra import tensor_scatter_nd_max

    idx, values = _slices(self, sparse_delta, "max")
    self.assign(tensor_scatter_nd_max(self.value(), idx, values))
    return self


def scatter_min(self: Any, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
    """``self[indices] = min(self[indices], values)``; returns ``self``."""
    from ._array_extra import tensor_scatter_nd_min

    idx, values = _slices(self, sparse_delta, "min")
    self.assign(tensor_scatter_nd_min(self.value(), idx, values))
    return self


def _nd(var: Any, indices: Any, updates: Any) -> tuple[Any, Any]:
    return _core.convert_to_tensor(indices), _core.cast(_core.convert_to_tensor(updates), var.dtype)


def scatter_nd_update(self: Any, indices: Any, updates: Any, name: Any = None) -> Any:
    """``tensor_scatter_nd_update`` applied to the variable; returns ``self``."""
    idx, upd = _nd(self, indices, updates)
    self.assign(_core.tensor_scatter_nd_update(self.value(), idx, upd))
    return self


def scatter_nd_add(self: Any, indices: Any, updates: Any, name: Any = None) -> Any:
    """``tensor_scatter_nd_add`` applied to the variable; returns ``self``."""
    idx, upd = _nd(self, indices, updates)
    self.assign(_core.tensor_scatter_nd_add(self.value(), idx, upd))
    return self


def scatter_nd_sub(self: Any, indices: Any, updates: Any, name: Any = None) -> Any:
    """``tensor_scatter_nd_sub`` applied to the variable; returns ``self``."""
    idx, upd = _nd(self, indices, updates)
    self.assign(_core.tensor_scatter_nd_add(self.value(), idx, -upd))
    return self


def sparse_read(self: Any, indices: Any, name: Any = None) -> Any:
    """``tf.gather(self, indices)``."""
    return _core.gather(self, indices)


def gather_nd(self: Any, indices: Any, name: Any = None) -> Any:
    """``tf.gather_nd(self, indices)``."""
    return _core.gather_nd(self, indices)


def get_shape(self: Any) -> Any:
    """``t.get_shape()``: ``t.shape`` (TensorFlow's older spelling)."""
    return self.shape


def _device(self: Any) -> str:
    """Every tapers tensor lives on the CPU: TensorFlow's name for it."""
    return _CPU


_SHARED = {"get_shape": get_shape, "set_shape": set_shape, "ref": ref, "experimental_ref": ref}
_VARIABLE = {
    f.__name__: f
    for f in (
        scatter_update, scatter_add, scatter_sub, scatter_mul, scatter_div, scatter_max, scatter_min,
        scatter_nd_update, scatter_nd_add, scatter_nd_sub, sparse_read, gather_nd,
    )
}  # fmt: skip


def install() -> None:
    """Attaches the methods above to ``tapers.Tensor`` and ``tapers.Variable``."""
    for cls in (_core.Tensor, _core.Variable):
        for name, fn in _SHARED.items():
            setattr(cls, name, fn)
        # setattr: mypy sees `device` as the stub's read-only property of the Rust class.
        setattr(cls, "device", property(_device, doc="TensorFlow's name for the CPU, where every tensor lives."))  # noqa: B010
    for name, fn in _VARIABLE.items():
        setattr(_core.Variable, name, fn)
