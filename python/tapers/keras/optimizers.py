"""``keras.optimizers``: tapers' optimizers under Keras' path, and ``get`` for ``compile(optimizer="adam")``."""

from __future__ import annotations

from typing import Any

from ..optimizers import SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, Ftrl, Lion, Nadam, Optimizer, RMSprop, schedules

__all__ = [
    "SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "Ftrl", "Lion", "Nadam", "Optimizer", "RMSprop", "get",
    "schedules",
]  # fmt: skip

_BY_NAME = {
    cls.__name__.lower(): cls for cls in (SGD, Adam, AdamW, RMSprop, Adagrad, Adamax, Nadam, Adadelta, Lion, Ftrl)
}


def get(identifier: Any) -> Optimizer:
    """An optimizer for ``compile``.

    Parameters
    ----------
    identifier : str or Optimizer
        ``"sgd"``, ``"adam"``, ``"adamw"``, ``"rmsprop"``, ``"adagrad"``,
        ``"adamax"``, ``"nadam"``, ``"adadelta"``, ``"lion"``, ``"ftrl"``
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
