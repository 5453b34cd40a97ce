"""``keras.layers.serialize`` and ``deserialize``: a layer as Keras 3's config dict and back."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from ._base import Layer

__all__ = ["deserialize", "serialize"]


def serialize(layer: Layer) -> dict[str, Any]:
    """Keras 3's serialized form of a layer.

    Parameters
    ----------
    layer : Layer
        Any layer with ``get_config``.

    Returns
    -------
    dict
        ``{"module", "class_name", "config", "registered_name"}``; ``module`` is
        ``"keras.layers"`` for tapers' own layers, the class's module otherwise, and
        ``registered_name`` the name ``register_keras_serializable`` gave (else the class name).
    """
    from ..utils import get_registered_name

    cls = type(layer)
    own = cls.__module__.startswith("tapers.keras.layers")
    return {
        "module": "keras.layers" if own else cls.__module__,
        "class_name": cls.__name__,
        "config": layer.get_config(),
        "registered_name": None if own else get_registered_name(cls),
    }


def deserialize(config: Any, custom_objects: Mapping[str, Any] | None = None) -> Layer:
    """The layer a serialized dict describes (``cls.from_config(config["config"])``).

    Parameters
    ----------
    config : dict
        From :func:`serialize` (or ``{"class_name", "config"}``).
    custom_objects : dict, optional
        Classes by name, looked up before ``keras.layers`` (with the active ``custom_object_scope``
        and the classes ``register_keras_serializable`` registered).

    Returns
    -------
    Layer

    Raises
    ------
    ValueError
        For a dict naming no known layer class, or anything that is not a dict.
    """
    from .. import layers

    if not isinstance(config, Mapping):
        raise ValueError(f"Could not interpret serialized layer: {config!r}")
    name = str(config.get("class_name"))
    from ..utils import _visible_custom_objects

    names = _visible_custom_objects(dict(custom_objects or {}))
    cls = names.get(name, names.get(str(config.get("registered_name")), getattr(layers, name, None)))
    if not (inspect.isclass(cls) and issubclass(cls, Layer)):
        raise ValueError(
            f"Could not locate class '{name}'. Make sure custom classes are decorated with "
            f"`@keras.saving.register_keras_serializable()` or passed in `custom_objects`. Full object config: "
            f"{dict(config)}"
        )
    inner = config.get("config", {})
    params = inspect.signature(cls.from_config).parameters
    if "custom_objects" in params:
        return cls.from_config(inner, custom_objects=custom_objects)  # type: ignore[call-arg]
    return cls.from_config(inner)
