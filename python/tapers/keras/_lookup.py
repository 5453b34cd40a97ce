"""The identifier lookup shared by ``keras.activations``, ``initializers``, ``losses`` and ``metrics``.

Each module's ``get`` is Keras' ``get``: a serialized dict is deserialized, a
name is looked up in the module's table, anything else is taken as given; a
class found this way is instantiated, a callable is returned, and anything
else is Keras' ``ValueError``. Each module's ``deserialize`` reads a dict's
``class_name`` (or a bare name) from its table plus ``custom_objects``.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable


def resolve(
    identifier: Any,
    table: dict[str, Any],
    what: str,
    from_dict: Callable[[dict[str, Any]], Any],
    instantiate: bool = True,
) -> Any:
    """Keras' ``get`` for one module (``identifier`` is not None).

    Parameters
    ----------
    identifier : str, dict or object
        What the user gave.
    table : dict
        The module's names.
    what : str
        The kind of object, for the error message (``"loss"``).
    from_dict : callable
        How the module reads a serialized dict.
    instantiate : bool, default True
        Whether a class found is called to make an instance.

    Returns
    -------
    object
        The callable resolved.

    Raises
    ------
    ValueError
        ``Could not interpret {what} identifier: ...`` (Keras' message).
    """
    if isinstance(identifier, dict):
        obj = from_dict(identifier)
    elif isinstance(identifier, str):
        obj = table.get(identifier)
        if obj is None:
            obj = _registered().get(identifier)
    else:
        obj = identifier
    if callable(obj):
        return obj() if instantiate and inspect.isclass(obj) else obj
    raise ValueError(f"Could not interpret {what} identifier: {identifier}")


def from_table(
    config: Any, table: dict[str, Any], custom_objects: dict[str, Any] | None, what: str, base: type | None = None
) -> Any:
    """Keras' ``deserialize`` for one module: a dict by its ``class_name`` (``from_config``), a name as is.

    Parameters
    ----------
    config : str or dict
        The serialized form.
    table : dict
        The module's names.
    custom_objects : dict, optional
        Extra names, which take precedence (with the active ``custom_object_scope`` and the classes
        registered by ``register_keras_serializable``).
    what : str
        The kind of object, for the error message.
    base : type, optional
        The base class a dict's class must derive from (any when None).

    Returns
    -------
    object
        ``cls.from_config(config["config"])`` for a dict; the table's entry for a name.

    Raises
    ------
    ValueError
        ``Could not interpret {what} identifier: ...``.
    """
    from .utils import _visible_custom_objects

    names = {**table, **_visible_custom_objects(custom_objects)}
    if isinstance(config, dict):
        found: Any = names.get(str(config.get("registered_name")), names.get(str(config.get("class_name"))))
        if inspect.isclass(found) and (base is None or issubclass(found, base)):
            cls: Any = found  # (not narrowed to `type`, which has no from_config)
            return cls.from_config(config.get("config", {}))
    elif isinstance(config, str) and config in names:
        return names[config]
    raise ValueError(f"Could not interpret {what} identifier: {config}")


def _registered() -> dict[str, Any]:
    """``register_keras_serializable``'s registry and the active ``custom_object_scope``."""
    from .utils import _visible_custom_objects

    return _visible_custom_objects(None)


def to_config(obj: Any) -> dict[str, Any]:
    """Keras' ``serialize`` for one module: ``{"class_name", "config"}`` of an object with ``get_config``.

    Parameters
    ----------
    obj : object
        An instance with ``get_config``.

    Returns
    -------
    dict
        ``{"class_name": type(obj).__name__, "config": obj.get_config()}``.
    """
    return {"class_name": type(obj).__name__, "config": obj.get_config()}
