"""``keras.config``: Keras 3's global settings (``floatx``, ``epsilon``, ``image_data_format``, the debugging caps
on ``fit``), the same state ``keras.backend`` reads and writes."""

from __future__ import annotations

from ..debugging import disable_traceback_filtering, enable_traceback_filtering, is_traceback_filtering_enabled
from .backend import (
    backend,
    epsilon,
    floatx,
    image_data_format,
    max_epochs,
    max_steps_per_epoch,
    set_epsilon,
    set_floatx,
    set_image_data_format,
    set_max_epochs,
    set_max_steps_per_epoch,
)
from .mixed_precision import dtype_policy, set_dtype_policy

__all__ = [
    "backend", "disable_interactive_logging", "enable_interactive_logging", "enable_unsafe_deserialization",
    "epsilon", "floatx", "image_data_format", "is_interactive_logging_enabled", "max_epochs", "max_steps_per_epoch",
    "set_epsilon", "set_floatx", "set_image_data_format", "set_max_epochs", "set_max_steps_per_epoch",
    "disable_traceback_filtering", "dtype_policy", "enable_traceback_filtering", "is_traceback_filtering_enabled",
    "set_dtype_policy",
]  # fmt: skip

_interactive_logging = True
_unsafe_deserialization = False


def enable_interactive_logging() -> None:
    """Lets ``fit``/``evaluate``/``predict`` print their progress bars (the default).

    Returns
    -------
    None
    """
    global _interactive_logging
    _interactive_logging = True


def disable_interactive_logging() -> None:
    """Silences the progress bars of ``fit``/``evaluate``/``predict`` (as ``verbose=0``), whatever ``verbose`` says.

    Returns
    -------
    None
    """
    global _interactive_logging
    _interactive_logging = False


def is_interactive_logging_enabled() -> bool:
    """Whether progress bars print (see :func:`disable_interactive_logging`).

    Returns
    -------
    bool
    """
    return _interactive_logging


def enable_unsafe_deserialization() -> None:
    """Allows deserializing ``Lambda`` layers' Python code (Keras' ``safe_mode=False`` for the whole process).

    Returns
    -------
    None
    """
    global _unsafe_deserialization
    _unsafe_deserialization = True
