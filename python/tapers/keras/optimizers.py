"""``keras.optimizers``: tapers' optimizers under Keras' path, and ``get`` for ``compile(optimizer="adam")``."""

from __future__ import annotations

from typing import Any

from ..optimizers import (
    SGD,
    Adadelta,
    Adafactor,
    Adagrad,
    Adam,
    Adamax,
    AdamW,
    Ftrl,
    Lamb,
    Lion,
    LossScaleOptimizer,
    Muon,
    Nadam,
    Optimizer,
    RMSprop,
    ScheduleFreeAdamW,
    schedules,
)

__all__ = [
    "SGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "Ftrl", "Lamb", "Lion", "LossScaleOptimizer",
    "Muon", "Nadam", "Optimizer", "RMSprop", "ScheduleFreeAdamW", "deserialize", "get", "schedules", "serialize",
]  # fmt: skip

# The names Keras 3.15's `get` knows (not "lamb").
_GETTABLE = (
    SGD,
    Adam,
    AdamW,
    RMSprop,
    Adagrad,
    Adamax,
    Nadam,
    Adadelta,
    Lion,
    Ftrl,
    Adafactor,
    Muon,
    ScheduleFreeAdamW,
)
_BY_NAME = {cls.__name__.lower(): cls for cls in _GETTABLE}


def get(identifier: Any) -> Optimizer:
    """An optimizer for ``compile``.

    Parameters
    ----------
    identifier : str or Optimizer
        ``"sgd"``, ``"adam"``, ``"adamw"``, ``"rmsprop"``, ``"adagrad"``,
        ``"adamax"``, ``"nadam"``, ``"adadelta"``, ``"lion"``, ``"ftrl"``,
        ``"adafactor"``, ``"muon"``, ``"schedulefreeadamw"``
        (Keras' default hyperparameters), or an optimizer instance (returned
        as is).

    Returns
    -------
    Optimizer
    """
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier.lower())
        if cls is not None:
            return cls()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")


_ALL = {cls.__name__: cls for cls in (*_GETTABLE, Lamb, LossScaleOptimizer)}


def serialize(optimizer: Optimizer) -> dict[str, Any]:
    """Keras 3's serialized form of an optimizer.

    Parameters
    ----------
    optimizer : Optimizer

    Returns
    -------
    dict
        ``{"module": "keras.optimizers", "class_name", "config": get_config(), "registered_name": None}``.
    """
    return {"module": "keras.optimizers", "class_name": type(optimizer).__name__,
            "config": optimizer.get_config(), "registered_name": None}  # fmt: skip


def deserialize(config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Optimizer:
    """A fresh optimizer from :func:`serialize`'s dict (``custom_objects`` and registered classes first).

    Parameters
    ----------
    config : dict
    custom_objects : dict, optional

    Returns
    -------
    Optimizer

    Raises
    ------
    ValueError
        For a class name no table knows.
    """
    from .utils import _visible_custom_objects

    name = str(config.get("registered_name") or config.get("class_name"))
    visible = _visible_custom_objects(custom_objects)
    cls = visible.get(name) or _ALL.get(name) or _ALL.get(str(config.get("class_name")))
    if cls is None:
        raise ValueError(f"Could not interpret optimizer identifier: {config}")
    return cls.from_config(config.get("config", {}))
