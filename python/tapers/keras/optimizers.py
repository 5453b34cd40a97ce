"""``keras.optimizers``: tapers' optimizers under Keras' path, and ``get`` for ``compile(optimizer="adam")``."""

from __future__ import annotations

from typing import Any

from ..optimizers import SGD, Adam, AdamW, Optimizer, RMSprop, schedules

__all__ = ["SGD", "Adam", "AdamW", "Optimizer", "RMSprop", "get", "schedules"]

_BY_NAME = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop}


def get(identifier: Any) -> Optimizer:
    """An optimizer for ``compile``.

    Parameters
    ----------
    identifier : str or Optimizer
        ``"sgd"``, ``"adam"``, ``"adamw"``, ``"rmsprop"`` (Keras' default
        hyperparameters), or an optimizer instance (returned as is).

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
