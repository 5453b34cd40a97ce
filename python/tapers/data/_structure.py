"""Element structures as ``tf.data`` sees them.

Tuples (and namedtuples) and dicts are structure; everything else, lists
included, is one component that becomes one tensor (``from_tensor_slices([1, 2])``
is one int32 component, as in TensorFlow). Dicts flatten in sorted-key order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from .._core import Tensor, Variable, convert_to_tensor


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def is_structure(x: Any) -> bool:
    return isinstance(x, (tuple, dict))


def flatten(s: Any) -> list[Any]:
    """The components of `s`, depth first, dict keys sorted."""
    if isinstance(s, dict):
        return [leaf for k in sorted(s) for leaf in flatten(s[k])]
    if isinstance(s, tuple):
        return [leaf for v in s for leaf in flatten(v)]
    return [s]


def _build(s: Any, it: Iterator[Any]) -> Any:
    if isinstance(s, dict):
        built = {k: _build(s[k], it) for k in sorted(s)}
        return {k: built[k] for k in s} if type(s) is dict else type(s)((k, built[k]) for k in s)
    if _is_namedtuple(s):
        return type(s)(*[_build(v, it) for v in s])
    if isinstance(s, tuple):
        return tuple(_build(v, it) for v in s)
    return next(it)


def pack(structure: Any, flat: list[Any]) -> Any:
    """Rebuilds `structure`'s shape (tuples, namedtuples, dicts in their own order) around `flat`."""
    # Not a recursive closure: that would be a reference cycle keeping every
    # element's tensors alive until the garbage collector runs.
    return _build(structure, iter(flat))


def map_structure(f: Callable[..., Any], s: Any) -> Any:
    return pack(s, [f(x) for x in flatten(s)])


def to_tensor(x: Any) -> Tensor:
    """One component as a tensor: tensors stay, variables are read, the rest is converted."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, Variable):
        return x.read_value()
    return convert_to_tensor(x)


def normalize(element: Any) -> Any:
    """`element` with every component converted to a tensor."""
    return map_structure(to_tensor, element)
