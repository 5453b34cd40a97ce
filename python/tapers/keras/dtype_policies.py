"""``keras.dtype_policies``: ``DTypePolicy`` (see ``keras.mixed_precision``: float32/float64 compute in
tapers), ``FloatDTypePolicy``, and ``get``/``serialize``/``deserialize``."""

from __future__ import annotations

from typing import Any

from .mixed_precision import DTypePolicy

__all__ = ["DTypePolicy", "FloatDTypePolicy", "deserialize", "get", "serialize"]

FloatDTypePolicy = DTypePolicy


def get(identifier: Any) -> DTypePolicy:
    """A policy from a name (``"float32"``), a serialized dict, or a policy (returned as is).

    Parameters
    ----------
    identifier : str, dict or DTypePolicy

    Returns
    -------
    DTypePolicy
    """
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return DTypePolicy(identifier)
    raise ValueError(f"Cannot interpret `dtype` argument. Expected a string or an instance of DTypePolicy. "
                     f"Received: dtype={identifier}")  # fmt: skip


def serialize(dtype_policy: DTypePolicy) -> dict[str, Any]:
    """Keras 3's serialized form of a policy.

    Parameters
    ----------
    dtype_policy : DTypePolicy

    Returns
    -------
    dict
        ``{"module": "keras", "class_name": "DTypePolicy", "config": {"name": ...}, "registered_name": None}``.
    """
    return {"module": "keras", "class_name": "DTypePolicy", "config": {"name": dtype_policy.name},
            "registered_name": None}  # fmt: skip


def deserialize(config: dict[str, Any], custom_objects: Any = None) -> DTypePolicy:
    """The policy :func:`serialize` describes.

    Parameters
    ----------
    config : dict
    custom_objects : dict, optional
        Unused.

    Returns
    -------
    DTypePolicy
    """
    return DTypePolicy(config.get("config", {}).get("name", "float32"))
