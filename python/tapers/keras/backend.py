"""``keras.backend``: the session-level settings and helpers Keras programs call (unique layer names, ``floatx``,
``epsilon``, ``image_data_format``, dtype predicates)."""

from __future__ import annotations

import os
import threading
import warnings
from collections import defaultdict
from typing import Any

__all__ = [
    "backend", "clear_session", "epsilon", "floatx", "get_uid", "image_data_format", "is_float_dtype", "is_int_dtype",
    "is_keras_tensor", "result_type", "set_epsilon", "set_floatx", "set_image_data_format", "standardize_dtype",
]  # fmt: skip

_lock = threading.Lock()
_uids: defaultdict[str, int] = defaultdict(int)
_floatx = "float32"
_epsilon = 1e-7


def _env_int(name: str) -> int | None:
    value = os.environ.get(name)
    return int(value) if value else None


# Keras' debugging caps on `fit`/`evaluate`/`predict` (also read from the environment, as Keras does).
_max_epochs: int | None = _env_int("KERAS_MAX_EPOCHS")
_max_steps_per_epoch: int | None = _env_int("KERAS_MAX_STEPS_PER_EPOCH")


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


def epsilon() -> float:
    """Keras' fuzz factor: probabilities are clipped to ``[epsilon, 1 - epsilon]`` in losses and metrics.

    Returns
    -------
    float
        ``1e-7`` unless :func:`set_epsilon` changed it (losses, metrics, constraints and
        normalizations read it at each call).
    """
    return _epsilon


def set_epsilon(value: float) -> None:
    """Sets the fuzz factor :func:`epsilon` returns.

    Parameters
    ----------
    value : float
        The new factor.

    Returns
    -------
    None
    """
    global _epsilon
    _epsilon = float(value)


def image_data_format() -> str:
    """The default ``data_format`` of image layers.

    Returns
    -------
    str
        ``"channels_last"`` (tapers' layers take ``data_format=None`` as channels-last).
    """
    return "channels_last"


def set_image_data_format(data_format: str) -> None:
    """Sets the default ``data_format`` of image layers; only ``"channels_last"`` is supported.

    Parameters
    ----------
    data_format : {"channels_last"}
        The default. Pass ``data_format="channels_first"`` to each layer instead: tapers' layers
        do not read a global channels-first default.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        For anything but the two Keras values (Keras' message).
    NotImplementedError
        For ``"channels_first"``.
    """
    fmt = str(data_format).lower()
    if fmt not in ("channels_first", "channels_last"):
        raise ValueError(
            f"The `data_format` argument must be one of {{'channels_first', 'channels_last'}}. Received: "
            f"data_format={data_format}"
        )
    if fmt == "channels_first":
        raise NotImplementedError(
            "tapers.keras layers take data_format=None as channels_last; pass data_format='channels_first' "
            "to each layer instead of setting a global default"
        )


def backend() -> str:
    """The name of the backend (``keras.backend.backend()``).

    Returns
    -------
    str
        ``"tensorflow"``: tapers answers what Keras with the TensorFlow backend answers, so code
        that branches on the backend takes TensorFlow's branch.
    """
    return "tensorflow"


def standardize_dtype(dtype: Any = None) -> str:
    """A dtype's Keras name (``"float32"``, ``"int64"``, ``"bool"``); ``None`` is :func:`floatx`.

    Parameters
    ----------
    dtype : str, DType, numpy dtype or Python type, optional
        Anything ``tapers.as_dtype`` reads (``int`` is int64 and ``float`` float32, as in Keras).

    Returns
    -------
    str
    """
    if dtype is None:
        return floatx()
    if dtype is int:
        return "int64"
    if dtype is float:
        return "float32"
    if dtype is bool:
        return "bool"
    from ..dtypes import as_dtype

    name = getattr(dtype, "name", None)
    if isinstance(name, str) and not isinstance(dtype, str):
        try:
            return as_dtype(name).name
        except (TypeError, ValueError):
            pass
    try:
        return as_dtype(dtype).name
    except (TypeError, ValueError):
        raise ValueError(f"Invalid dtype: {dtype}") from None


def is_float_dtype(dtype: Any) -> bool:
    """Whether ``dtype`` is a floating-point dtype.

    Parameters
    ----------
    dtype : dtype-like

    Returns
    -------
    bool
    """
    d = standardize_dtype(dtype)
    return d.startswith("float") or d.startswith("bfloat")


def is_int_dtype(dtype: Any) -> bool:
    """Whether ``dtype`` is a signed or unsigned integer dtype.

    Parameters
    ----------
    dtype : dtype-like

    Returns
    -------
    bool
    """
    d = standardize_dtype(dtype)
    return d.startswith("int") or d.startswith("uint")


def is_keras_tensor(x: Any) -> bool:
    """Whether ``x`` is a symbolic ``KerasTensor`` (a ``keras.Input`` or a layer's output on one).

    Parameters
    ----------
    x : object

    Returns
    -------
    bool
    """
    from .layers._base import KerasTensor

    return isinstance(x, KerasTensor)


def result_type(*dtypes: Any) -> str:
    """The dtype Keras 3 (TensorFlow backend) computes in for these operand dtypes.

    Keras' promotion (JAX's lattice): bool < unsigned < signed integers < floats, with
    ``uint8 + int8 -> int16``, ``uint32 + int32 -> int64`` and an integer with a float giving that
    float (``float32`` for ints with no float operand is not implied: ``int32 + int32`` stays
    ``int32``). Python ``int``/``float`` operands are weak (they take the other operand's dtype).

    Parameters
    ----------
    *dtypes : dtype-like
        At least one.

    Returns
    -------
    str
    """
    if not dtypes:
        raise ValueError(f"Invalid `dtypes`. At least one dtype is required. Received: dtypes={dtypes}")
    strong = [standardize_dtype(d) for d in dtypes if d not in (int, float, bool)]
    weak = [d for d in dtypes if d in (int, float, bool)]
    if not strong:
        return "float32" if float in weak else ("int32" if int in weak else "bool")
    out = strong[0]
    for d in strong[1:]:
        out = _promote(out, d)
    if float in weak and not is_float_dtype(out):
        return floatx()
    if int in weak and out == "bool":
        return "int32"
    return out


_FLOATS = ("bfloat16", "float16", "float32", "float64")
_SIGNED = ("int8", "int16", "int32", "int64")
_UNSIGNED = ("uint8", "uint16", "uint32", "uint64")


def _promote(a: str, b: str) -> str:
    if a == b:
        return a
    if a == "bool":
        return b
    if b == "bool":
        return a
    fa, fb = a in _FLOATS, b in _FLOATS
    if fa and fb:
        if {a, b} == {"bfloat16", "float16"}:
            return "float32"
        return a if _FLOATS.index(a) > _FLOATS.index(b) else b
    if fa:
        return a
    if fb:
        return b
    if a in _SIGNED and b in _SIGNED:
        return a if _SIGNED.index(a) > _SIGNED.index(b) else b
    if a in _UNSIGNED and b in _UNSIGNED:
        return a if _UNSIGNED.index(a) > _UNSIGNED.index(b) else b
    s, u = (a, b) if a in _SIGNED else (b, a)
    if u == "uint64":
        return "float64"  # JAX's lattice: no integer type holds both
    need = max(_SIGNED.index(s), _UNSIGNED.index(u) + 1)
    return _SIGNED[min(need, 3)]


def max_epochs() -> int | None:
    """The cap on ``fit``'s epochs.

    Returns
    -------
    int or None
        What :func:`set_max_epochs` (or the ``KERAS_MAX_EPOCHS`` environment variable) set; None for no cap.
    """
    return _max_epochs


def set_max_epochs(value: int | None) -> None:
    """Caps the epochs of every ``Model.fit`` (a debugging aid; ``fit`` warns when it applies).

    Parameters
    ----------
    value : int or None
        The cap, or None for none.

    Returns
    -------
    None
    """
    global _max_epochs
    _max_epochs = value


def max_steps_per_epoch() -> int | None:
    """The cap on the steps of each epoch of ``fit``, ``evaluate`` and ``predict``.

    Returns
    -------
    int or None
        What :func:`set_max_steps_per_epoch` (or ``KERAS_MAX_STEPS_PER_EPOCH``) set; None for no cap.
    """
    return _max_steps_per_epoch


def set_max_steps_per_epoch(value: int | None) -> None:
    """Caps the steps of each epoch of ``fit``, ``evaluate`` and ``predict`` (a debugging aid).

    Parameters
    ----------
    value : int or None
        The cap, or None for none.

    Returns
    -------
    None
    """
    global _max_steps_per_epoch
    _max_steps_per_epoch = value


def _capped_steps(steps: int | None) -> int | None:
    """``steps`` under :func:`max_steps_per_epoch`, warning as Keras does when the cap applies."""
    cap = _max_steps_per_epoch
    if cap and (not steps or cap < steps):
        warnings.warn(f"Limiting steps_per_epoch to {cap}", stacklevel=3)
        return cap
    return steps


def _capped_epochs(epochs: int) -> int:
    """``epochs`` under :func:`max_epochs`, warning as Keras does when the cap applies."""
    cap = _max_epochs
    if cap and cap < epochs:
        warnings.warn(f"Limiting epochs to {cap}", stacklevel=3)
        return cap
    return epochs
