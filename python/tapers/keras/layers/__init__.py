"""``keras.layers``: the layers of Keras 3 that tapers implements, over tapers' ops and Variables."""

from ._base import Input, InputLayer, KerasTensor, Layer
from ._conv import AveragePooling2D, Conv2D, MaxPooling2D
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

AvgPool2D = AveragePooling2D
MaxPool2D = MaxPooling2D

__all__ = [
    "Add", "Average", "Concatenate", "Maximum", "Minimum", "Multiply", "Subtract", "add", "average", "concatenate",
    "maximum", "minimum", "multiply", "subtract",
    "Activation", "AvgPool2D", "AveragePooling2D", "BatchNormalization", "Conv2D", "Dense", "Dropout", "Embedding",
    "Flatten", "Input", "InputLayer", "KerasTensor", "Layer", "LayerNormalization", "MaxPool2D", "MaxPooling2D",
    "ReLU", "Reshape",
]  # fmt: skip
