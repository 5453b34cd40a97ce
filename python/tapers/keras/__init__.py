"""``tapers.keras``: Keras 3's layers and models over tapers (``tf.keras`` after ``import tapers as tf``).

Layers are ``tapers.Module``\\ s holding ``tapers.Variable``\\ s, so custom
training loops use ``tf.GradientTape`` and ``model.trainable_variables`` as in
TensorFlow; ``Model.fit`` runs the same tape and ``tapers.optimizers``.
Formulas, defaults, names and shapes follow Keras 3; initial weights come from
tapers' own random streams, so their values differ from Keras' (set weights
explicitly, with ``set_weights``, to reproduce Keras numbers).
"""

from __future__ import annotations

from . import (
    activations,
    backend,
    callbacks,
    config,
    constraints,
    initializers,
    layers,
    losses,
    metrics,
    mixed_precision,
    models,
    ops,
    optimizers,
    preprocessing,
    random,
    regularizers,
    utils,
)
from .layers import Input, Layer
from .models import Model, Sequential
from .regularizers import Regularizer

__all__ = [
    "Input", "Layer", "Model", "Regularizer", "Sequential", "activations", "backend", "callbacks", "config",
    "constraints", "initializers", "layers", "losses", "metrics", "mixed_precision", "models", "ops", "optimizers",
    "preprocessing", "random", "regularizers", "utils",
]  # fmt: skip
