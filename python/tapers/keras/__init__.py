"""``tapers.keras``: Keras 3's layers and models over tapers (``tf.keras`` after ``import tapers as tf``).

Layers are ``tapers.Module``\\ s holding ``tapers.Variable``\\ s, so custom
training loops use ``tf.GradientTape`` and ``model.trainable_variables`` as in
TensorFlow; ``Model.fit`` runs the same tape and ``tapers.optimizers``.
Formulas, defaults, names and shapes follow Keras 3; initial weights come from
tapers' own random streams, so their values differ from Keras' (set weights
explicitly, with ``set_weights``, to reproduce Keras numbers).
"""

from __future__ import annotations

from .._core import Variable
from .._device import device
from .._module import name_scope
from . import (
    activations,
    backend,
    callbacks,
    config,
    constraints,
    dtype_policies,
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
    saving,
    tree,
    utils,
)
from .initializers import Initializer
from .layers import Input, InputSpec, KerasTensor, Layer
from .losses import Loss
from .metrics import Metric
from .mixed_precision import DTypePolicy
from .models import Model, Sequential
from .optimizers import Optimizer
from .regularizers import Regularizer

FloatDTypePolicy = DTypePolicy
__version__ = "3.15.0"


def version() -> str:
    """The Keras version whose API tapers.keras follows.

    Returns
    -------
    str
    """
    return __version__


__all__ = [
    "DTypePolicy", "FloatDTypePolicy", "Initializer", "Input", "InputSpec", "KerasTensor", "Layer", "Loss", "Metric",
    "Model", "Optimizer", "Regularizer", "Sequential", "Variable", "activations", "backend", "callbacks", "config",
    "constraints", "device", "dtype_policies", "initializers", "layers", "losses", "metrics", "mixed_precision",
    "models", "name_scope", "ops", "optimizers", "preprocessing", "random", "regularizers", "saving", "tree", "utils",
    "version",
]  # fmt: skip
