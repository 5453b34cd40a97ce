"""A minimal ``tf.nest``: flatten and re-pack lists, tuples, namedtuples and dicts.

Dicts flatten in sorted-key order, as in TensorFlow.
"""

from __future__ import annotations

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


def pack_sequence_as(structure: Any, flat: list[Any]) -> Any:
    it = iter(flat)

    def build(s: Any) -> Any:
        if isinstance(s, dict):
            built = {k: build(s[k]) for k in sorted(s)}
            return type(s)((k, built[k]) for k in s) if type(s) is not dict else {k: built[k] for k in s}
        if _is_namedtuple(s):
            return type(s)(*[build(v) for v in s])
        if isinstance(s, (list, tuple)):
            return type(s)(build(v) for v in s)
        return next(it)

    return build(structure)
