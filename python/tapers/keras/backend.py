"""``keras.backend``: the few session-level helpers Keras programs call (unique layer names, ``floatx``)."""

from __future__ import annotations

import threading
from collections import defaultdict

__all__ = ["clear_session", "floatx", "get_uid", "set_floatx"]

_lock = threading.Lock()
_uids: defaultdict[str, int] = defaultdict(int)
_floatx = "float32"


def get_uid(prefix: str = "") -> int:
    """Counts the names handed out with ``prefix``.

    Parameters
    ----------
    prefix : str
        A layer's snake-case class name.

    Returns
    -------
    int
        1 for the first (``dense``), 2 for the second (``dense_1``), ...
    """
    with _lock:
        _uids[prefix] += 1
        return _uids[prefix]


def unique_name(prefix: str) -> str:
    """Keras' automatic names: ``dense``, then ``dense_1``, ``dense_2``, ..."""
    uid = get_uid(prefix)
    return prefix if uid == 1 else f"{prefix}_{uid - 1}"


def clear_session() -> None:
    """Resets the automatic layer names, so the next ``Dense`` is ``dense`` again (``keras.backend.clear_session``).

    Returns
    -------
    None
    """
    with _lock:
        _uids.clear()


def floatx() -> str:
    """The default float type of new layers' weights.

    Returns
    -------
    str
        ``"float32"`` unless :func:`set_floatx` changed it.
    """
    return _floatx


def set_floatx(value: str) -> None:
    """Sets the default float type of new layers.

    Parameters
    ----------
    value : {"float32", "float64"}
        The dtype name.
    """
    global _floatx
    if value not in ("float32", "float64"):
        raise ValueError(f"Unknown `floatx` value: {value}. Expected one of {{'float32', 'float64'}}")
    _floatx = value
