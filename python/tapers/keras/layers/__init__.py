"""``keras.layers``: the layers of Keras 3 that tapers implements, over tapers' ops and Variables."""

# Layer families added one module each; a module's `__all__` says what it exports.
from . import _activation_layers, _attention, _conv_extra, _pooling, _reshaping, _rnn
from ._activation_layers import *  # noqa: F403
from ._attention import *  # noqa: F403
from ._base import Input, InputLayer, KerasTensor, Layer
from ._conv import AveragePooling2D, Conv2D, MaxPooling2D
from ._conv_extra import *  # noqa: F403
from ._core_layers import Activation, Dense, Dropout, Embedding, Flatten, ReLU, Reshape
from ._merging import (
    Add,
    Average,
    Concatenate,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    add,
    average,
    concatenate,
    maximum,
    minimum,
    multiply,
    subtract,
)  # fmt: skip
from ._normalization import BatchNormalization, LayerNormalization
from ._pooling import *  # noqa: F403
from ._reshaping import *  # noqa: F403
from ._rnn import *  # noqa: F403

AvgPool2D = AveragePooling2D
MaxPool2D = MaxPooling2D

__all__ = [
    "Add", "Average", "Concatenate", "Maximum", "Minimum", "Multiply", "Subtract", "add", "average", "concatenate",
    "maximum", "minimum", "multiply", "subtract",
    "Activation", "AvgPool2D", "AveragePooling2D", "BatchNormalization", "Conv2D", "Dense", "Dropout", "Embedding",
    "Flatten", "Input", "InputLayer", "KerasTensor", "Layer", "LayerNormalization", "MaxPool2D", "MaxPooling2D",
    "ReLU", "Reshape",
]  # fmt: skip
__all__ += [
    *_activation_layers.__all__, *_attention.__all__, *_conv_extra.__all__, *_pooling.__all__, *_reshaping.__all__,
    *_rnn.__all__,
]  # fmt: skip
