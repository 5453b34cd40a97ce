"""``keras.tree``: Keras 3's utilities for nested structures (lists, tuples, namedtuples, dicts; ``None`` is a
leaf), over ``tapers.nest`` (TensorFlow's ``tf.nest`` rules: dict keys in sorted order)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .. import nest as _nest
from .._nest import _is_namedtuple

__all__ = [
    "MAP_TO_NONE", "assert_same_paths", "assert_same_structure", "flatten", "flatten_with_path", "is_nested",
    "lists_to_tuples", "map_shape_structure", "map_structure", "map_structure_up_to", "pack_sequence_as", "traverse",
]  # fmt: skip


class MAP_TO_NONE:  # noqa: N801 - Keras' name
    """Returned by a :func:`traverse` function to replace a substructure with ``None``.

    Attributes
    ----------
    (none)
        The class itself is the marker; it is never instantiated.
    """


def _children(x: Any) -> list[tuple[Any, Any]]:
    """(path entry, child) pairs of one level, in flatten order."""
    if isinstance(x, Mapping):
        return [(k, x[k]) for k in sorted(x)]
    return list(enumerate(x))


def _rebuild(x: Any, values: list[Any]) -> Any:
    if isinstance(x, Mapping):
        keys = sorted(x)
        out = dict(zip(keys, values))
        if type(x) is dict:
            return {k: out[k] for k in x}
        cls: Any = type(x)  # an OrderedDict or other mapping built from pairs
        return cls((k, out[k]) for k in x)
    if _is_namedtuple(x):
        return type(x)(*values)
    return type(x)(values)


def is_nested(structure: Any) -> bool:
    """Whether ``structure`` is a list, tuple, namedtuple or dict (not a leaf).

    Parameters
    ----------
    structure : object

    Returns
    -------
    bool
    """
    return _nest.is_nested(structure)


def flatten(structure: Any) -> list[Any]:
    """The leaves of ``structure`` in order (dicts by sorted key).

    Parameters
    ----------
    structure : nested structure

    Returns
    -------
    list
    """
    return _nest.flatten(structure)


def flatten_with_path(structure: Any) -> list[tuple[tuple[Any, ...], Any]]:
    """``(path, leaf)`` pairs, a path being the tuple of indices and keys from the root.

    Parameters
    ----------
    structure : nested structure

    Returns
    -------
    list of (tuple, object)
    """
    out: list[tuple[tuple[Any, ...], Any]] = []

    def walk(x: Any, path: tuple[Any, ...]) -> None:
        if not is_nested(x):
            out.append((path, x))
            return
        for key, child in _children(x):
            walk(child, (*path, key))

    walk(structure, ())
    return out


def map_structure(func: Callable[..., Any], *structures: Any, none_is_leaf: bool = True) -> Any:
    """``func`` applied to corresponding leaves of structures of the same shape.

    Parameters
    ----------
    func : callable
    *structures : nested structures
        At least one; all the same structure.
    none_is_leaf : bool
        With False, ``None`` entries stay ``None`` without calling ``func``.

    Returns
    -------
    nested structure
    """
    if not structures:
        raise ValueError("Must provide at least one structure")
    for other in structures[1:]:
        assert_same_structure(structures[0], other)
    if none_is_leaf:
        return _nest.map_structure(func, *structures)
    return _nest.map_structure(lambda *xs: None if xs[0] is None else func(*xs), *structures)


def map_structure_up_to(shallow_structure: Any, func: Callable[..., Any], *structures: Any) -> Any:
    """``func`` applied to the substructures of ``structures`` at the leaves of ``shallow_structure``.

    Parameters
    ----------
    shallow_structure : nested structure
        A prefix of each structure's shape.
    func : callable
    *structures : nested structures

    Returns
    -------
    nested structure
        Shaped like ``shallow_structure``.
    """
    if not structures:
        raise ValueError("Must provide at least one structure")

    def walk(shallow: Any, xs: tuple[Any, ...]) -> Any:
        if not is_nested(shallow):
            return func(*xs)
        for x in xs:
            if not is_nested(x) or len(x) != len(shallow):
                raise ValueError(
                    f"The two structures don't have the same sequence length. Input structure has length "
                    f"{len(x) if is_nested(x) else 'a leaf'}, while shallow structure has length {len(shallow)}."
                )
        kids = _children(shallow)
        values = [walk(child, tuple(_children(x)[i][1] for x in xs)) for i, (_, child) in enumerate(kids)]
        return _rebuild(shallow, values)

    return walk(shallow_structure, structures)


def pack_sequence_as(structure: Any, flat_sequence: Any) -> Any:
    """A structure shaped like ``structure`` holding ``flat_sequence``'s items in flatten order.

    Parameters
    ----------
    structure : nested structure
    flat_sequence : sequence

    Returns
    -------
    nested structure
    """
    return _nest.pack_sequence_as(structure, list(flat_sequence))


def assert_same_structure(a: Any, b: Any) -> None:
    """Raises ``ValueError`` unless ``a`` and ``b`` have the same nested structure, container types
    included (a list does not match a tuple, as in Keras 3).

    Parameters
    ----------
    a, b : nested structures

    Returns
    -------
    None
    """
    try:
        _nest.assert_same_structure(a, b, check_types=True)
    except (TypeError, ValueError) as e:
        raise ValueError(f"The two structures don't have the same nested structure: {e}") from None


def assert_same_paths(a: Any, b: Any) -> None:
    """Raises ``ValueError`` unless ``a`` and ``b`` have the same set of leaf paths.

    Parameters
    ----------
    a, b : nested structures

    Returns
    -------
    None
    """
    pa = {p for p, _ in flatten_with_path(a)}
    pb = {p for p, _ in flatten_with_path(b)}
    if pa != pb:
        raise ValueError(
            "`a` and `b` don't have the same paths.\n"
            f"`a` has paths {sorted(pa - pb, key=repr)} that are not in `b`.\n"
            f"`b` has paths {sorted(pb - pa, key=repr)} that are not in `a`."
        )


def lists_to_tuples(structure: Any) -> Any:
    """``structure`` with every list turned into a tuple (recursively).

    Parameters
    ----------
    structure : nested structure

    Returns
    -------
    nested structure
    """
    if isinstance(structure, list):
        return tuple(lists_to_tuples(x) for x in structure)
    if isinstance(structure, Mapping):
        return _rebuild(structure, [lists_to_tuples(v) for _, v in _children(structure)])
    if isinstance(structure, tuple):
        return _rebuild(structure, [lists_to_tuples(v) for v in structure])
    return structure


def _is_shape(x: Any) -> bool:
    return isinstance(x, (tuple, list)) and not _is_namedtuple(x) and all(
        d is None or (isinstance(d, int) and not isinstance(d, bool)) for d in x
    )


def map_shape_structure(func: Callable[[Any], Any], structure: Any) -> Any:
    """``func`` applied to each shape in ``structure`` (tuples or lists of ints and ``None`` are leaves).

    Parameters
    ----------
    func : callable
    structure : nested structure of shapes

    Returns
    -------
    nested structure
    """
    if _is_shape(structure) or not is_nested(structure):
        return func(structure)
    return _rebuild(structure, [map_shape_structure(func, v) for _, v in _children(structure)])


def traverse(func: Callable[[Any], Any], structure: Any, top_down: bool = True) -> Any:
    """Applies ``func`` to every substructure and leaf (Keras 3's ``traverse``).

    Top-down, a non-None result replaces that substructure (not traversed further) and None
    means "go on into its children"; bottom-up, ``func`` sees each substructure after its
    children were traversed, and None keeps it. Return :class:`MAP_TO_NONE` to map to None.

    Parameters
    ----------
    func : callable
    structure : nested structure
    top_down : bool

    Returns
    -------
    nested structure
    """

    def children() -> Any:
        if not is_nested(structure):
            return structure
        return _rebuild(structure, [traverse(func, c, top_down=top_down) for _, c in _children(structure)])

    if top_down:
        ret = func(structure)
        if ret is None:
            return children()
    else:
        done = children()
        ret = func(done)
        if ret is None:
            return done
    if ret is MAP_TO_NONE:
        return None
    return ret
