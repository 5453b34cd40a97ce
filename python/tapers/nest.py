"""``tf.nest``: nested structures of lists, tuples, namedtuples and dicts.

Leaves are everything else (tensors, numbers, strings, ``None``). Dicts flatten in
sorted-key order (OrderedDicts too, as TensorFlow's) and are re-packed with their
own key order. Errors carry TensorFlow 2.21's messages.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from . import _nest

__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as"]


def is_nested(seq: Any) -> bool:
    """Whether ``seq`` is a list, tuple (namedtuples included) or dict (``tf.nest.is_nested``).

    Parameters
    ----------
    seq : object
        Anything.

    Returns
    -------
    bool
    """
    return _nest.is_nested(seq)


def flatten(structure: Any, expand_composites: bool = False) -> list[Any]:
    """The leaves of ``structure``, depth first (``tf.nest.flatten``; a leaf gives ``[leaf]``).

    Parameters
    ----------
    structure : object
        A nested structure.
    expand_composites : bool, default False
        Accepted (tapers has no composite tensors to expand).

    Returns
    -------
    list
    """
    return _nest.flatten(structure)


def pack_sequence_as(structure: Any, flat_sequence: Sequence[Any], expand_composites: bool = False) -> Any:
    """``flat_sequence`` packed into the shape of ``structure`` (``tf.nest.pack_sequence_as``).

    Parameters
    ----------
    structure : object
        The shape wanted.
    flat_sequence : sequence
        As many leaves as ``structure`` has.
    expand_composites : bool, default False
        Accepted.

    Returns
    -------
    object

    Raises
    ------
    ValueError
        When the counts differ (TensorFlow's text).
    """
    flat = list(flat_sequence)
    if not is_nested(structure):
        if len(flat) != 1:
            raise ValueError(
                f"The target structure is of type `{type(structure)}`\n  {structure}\nHowever the input is a "
                f"sequence ({type(flat_sequence)}) of length {len(flat)}.\n  {flat_sequence}\nnest cannot "
                "guarantee that it is safe to map one to the other."
            )
        return flat[0]
    n = len(_nest.flatten(structure))
    if n != len(flat):
        raise ValueError(
            f"Could not pack sequence. Structure had {n} atoms, but flat_sequence had {len(flat)} items.  "
            f"Structure: {structure}, flat_sequence: {flat_sequence}."
        )
    return _nest.pack_sequence_as(structure, flat)


def _desc(x: Any) -> str:
    return f"type={type(x).__name__} str={x}"


class _Dot:
    def __repr__(self) -> str:
        return "."


def _skeleton(x: Any) -> Any:
    """``x`` with every leaf shown as ``.``."""
    return _nest.pack_sequence_as(x, [_Dot()] * len(_nest.flatten(x))) if is_nested(x) else _Dot()


def _mismatch(a: Any, b: Any, check_types: bool) -> Exception | None:
    """The first difference between two structures, as TensorFlow words it."""
    seq_a, seq_b = is_nested(a), is_nested(b)
    if seq_a != seq_b:
        seq, leaf = (a, b) if seq_a else (b, a)
        return ValueError(f'Substructure "{_desc(seq)}" is a sequence, while substructure "{_desc(leaf)}" is not')
    if not seq_a:
        return None
    if check_types and type(a) is not type(b):
        return TypeError(
            f"The two namedtuples don't have the same sequence type. First structure {_desc(a)} has type "
            f"{type(a).__name__}, while second structure {_desc(b)} has type {type(b).__name__}"
        )
    if isinstance(a, dict) and isinstance(b, dict) and set(a) != set(b):
        return ValueError(
            "The two dictionaries don't have the same set of keys. First structure has keys "
            f"{_desc(sorted(a))}, while second structure has keys {_desc(sorted(b))}"
        )
    if len(a) != len(b):
        return ValueError(
            "The two structures don't have the same number of elements. First structure: "
            f"{_desc(a)}. Second structure: {_desc(b)}"
        )
    if isinstance(a, dict):
        pairs = [(a[k], b[k]) for k in sorted(a)] if isinstance(b, dict) else list(zip(a.values(), b))
    elif isinstance(b, dict):
        pairs = list(zip(a, b.values()))
    else:
        pairs = list(zip(a, b))
    for x, y in pairs:
        e = _mismatch(x, y, check_types)
        if e is not None:
            return e
    return None


def assert_same_structure(nest1: Any, nest2: Any, check_types: bool = True, expand_composites: bool = False) -> None:
    """Raises unless the two structures nest the same way (``tf.nest.assert_same_structure``).

    Parameters
    ----------
    nest1, nest2 : object
        Structures compared.
    check_types : bool, default True
        Whether sequence types must match too (a list is not a tuple).
    expand_composites : bool, default False
        Accepted.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        Different nesting, lengths or dict keys (TensorFlow's text).
    TypeError
        Different sequence types, with ``check_types``.
    """
    e = _mismatch(nest1, nest2, check_types)
    if e is None:
        return
    text = (
        "The two structures don't have the same nested structure.\n\n"
        f"First structure: {_desc(nest1)}\n\nSecond structure: {_desc(nest2)}\n\n"
        f"More specifically: {e}\nEntire first structure:\n{_skeleton(nest1)}\n"
        f"Entire second structure:\n{_skeleton(nest2)}"
    )
    raise type(e)(text)


def map_structure(func: Callable[..., Any], *structure: Any, **kwargs: Any) -> Any:
    """``func`` applied to the corresponding leaves of the structures, packed like the first
    (``tf.nest.map_structure``).

    Parameters
    ----------
    func : callable
        Takes one leaf of each structure.
    *structure : object
        Structures of the same nesting.
    check_types : bool, default True
        Keyword: whether sequence types must match too.
    expand_composites : bool, default False
        Keyword; accepted.

    Returns
    -------
    object
    """
    check_types = kwargs.pop("check_types", True)
    kwargs.pop("expand_composites", None)
    if kwargs:
        raise ValueError(f"Only valid keyword arguments are `check_types` and `expand_composites`, not: `{kwargs}`")
    if not structure:
        raise ValueError("Must provide at least one structure")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flats = [_nest.flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flats)])
