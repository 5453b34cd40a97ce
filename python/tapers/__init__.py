"""tapers: TensorFlow's GradientTape on a Rust core.

``import tapers as tf`` and write the same code: tensors, variables, tapes,
gradients, ``custom_gradient``, ``stop_gradient``, the op library under TF's
names (``tapers.X``, ``tapers.math``, ``tapers.nn``, ``tapers.linalg``,
``tapers.random``) and Keras-style optimizers (``tapers.optimizers``).
"""

from __future__ import annotations

from . import errors, experimental, linalg, math, nn, optimizers, random, train
from ._core import (
    Tensor,
    Variable,
    abs,
    acos,
    add,
    add_n,
    argmax,
    argmin,
    asin,
    atan,
    broadcast_to,
    cast,
    concat,
    constant,
    convert_to_tensor,
    cos,
    cosh,
    cumsum,
    divide,
    einsum,
    equal,
    exp,
    expand_dims,
    eye,
    fill,
    floordiv,
    gather,
    gather_nd,
    greater,
    greater_equal,
    identity,
    less,
    less_equal,
    linspace,
    logical_and,
    logical_not,
    logical_or,
    matmul,
    maximum,
    minimum,
    multiply,
    negative,
    norm,
    not_equal,
    one_hot,
    ones,
    ones_like,
    pad,
    pow,
    range,
    rank,
    reduce_all,
    reduce_any,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
    reshape,
    shape,
    sigmoid,
    sign,
    sin,
    sinh,
    size,
    split,
    sqrt,
    square,
    squeeze,
    stack,
    stop_gradient,
    subtract,
    tan,
    tanh,
    tensordot,
    tile,
    transpose,
    unstack,
    where,
    zeros,
    zeros_like,
)
from ._custom import custom_gradient
from ._ops import clip_by_global_norm, clip_by_norm, clip_by_value, newaxis
from ._shape import TensorShape
from ._tape import GradientTape, UnconnectedGradients
from .dtypes import DType, as_dtype, bool, double, float32, float64, int32, int64

floormod = math.floormod
mod = math.floormod
realdiv = divide
truediv = divide

__version__ = "0.1.0"

__all__ = [
    "DType", "GradientTape", "Tensor", "TensorShape", "UnconnectedGradients", "Variable", "abs", "acos", "add", "add_n",
    "argmax", "argmin", "as_dtype", "asin", "atan", "bool", "broadcast_to", "cast", "clip_by_global_norm",
    "clip_by_norm", "clip_by_value", "concat", "constant", "convert_to_tensor", "cos", "cosh", "cumsum",
    "custom_gradient", "divide", "double", "einsum", "equal", "errors", "exp", "experimental", "expand_dims",
    "eye", "fill", "float32", "float64", "floordiv", "floormod", "gather", "gather_nd", "greater", "greater_equal",
    "identity",
    "int32", "int64", "less", "less_equal", "linalg", "linspace", "logical_and", "logical_not", "logical_or",
    "math", "matmul", "maximum", "minimum", "mod", "multiply", "negative", "newaxis", "nn", "norm", "not_equal",
    "one_hot", "ones", "ones_like", "optimizers", "pad", "pow", "random", "range", "rank", "realdiv", "train",
    "reduce_all", "reduce_any", "reduce_logsumexp", "reduce_max", "reduce_mean", "reduce_min", "reduce_prod",
    "reduce_sum", "reshape", "shape", "sigmoid", "sign", "sin", "sinh", "size", "split", "sqrt", "square",
    "squeeze", "stack", "stop_gradient", "subtract", "tan", "tanh", "tensordot", "tile", "transpose", "truediv",
    "unstack", "where", "zeros", "zeros_like",
]  # fmt: skip
