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
    "Muon", "Nadam", "Optimizer", "RMSprop", "ScheduleFreeAdamW", "get", "schedules",
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
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier.lower())
        if cls is not None:
            return cls()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
