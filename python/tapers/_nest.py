"""A minimal ``tf.nest``: flatten and re-pack lists, tuples, namedtuples and dicts.

Dicts flatten in sorted-key order, as in TensorFlow.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def is_nested(x: Any) -> bool:
    return isinstance(x, (list, tuple, dict))


def flatten(structure: Any) -> list[Any]:
    out: list[Any] = []
    stack = [structure]
    # Iterative, so deep structures cannot overflow the stack.
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            stack.extend(x[k] for k in reversed(sorted(x)))
        elif isinstance(x, (list, tuple)):
            stack.extend(reversed(x))
        else:
            out.append(x)
    return out


def _build(s: Any, it: Iterator[Any]) -> Any:
    if isinstance(s, dict):
        built = {k: _build(s[k], it) for k in sorted(s)}
        return type(s)((k, built[k]) for k in s) if type(s) is not dict else {k: built[k] for k in s}
    if _is_namedtuple(s):
        return type(s)(*[_build(v, it) for v in s])
    if isinstance(s, (list, tuple)):
        return type(s)(_build(v, it) for v in s)
    return next(it)


def pack_sequence_as(structure: Any, flat: list[Any]) -> Any:
    # A module-level helper, not a recursive closure: a closure that calls
    # itself is a reference cycle, which would keep `flat` (a step's output
    # tensors) alive until the garbage collector's next run.
    return _build(structure, iter(flat))
