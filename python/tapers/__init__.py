"""tapers: TensorFlow's GradientTape on a Rust core.

``import tapers as tf`` and write the same code: tensors, variables, tapes,
gradients, ``custom_gradient``, ``stop_gradient``, the op library under TF's
names (``tapers.X``, ``tapers.math``, ``tapers.nn``, ``tapers.linalg``,
``tapers.random``) and Keras-style optimizers (``tapers.optimizers``).
"""

from __future__ import annotations

from . import (
    autodiff,
    config,
    data,
    debugging,
    distribute,
    errors,
    experimental,
    image,
    keras,
    linalg,
    math,
    nest,
    nn,
    optimizers,
    random,
    train,
    version,
)
from ._complex import complex
from ._control import case, cond, switch_case, while_loop

# The ops TensorFlow has at top level, Tensor and Variable: the binding's list.
from ._core import *  # noqa: F403
from ._core import __all__ as __all__
from ._custom import custom_gradient
from ._device import device
from ._function import Function, function
from ._functional import map_fn, meshgrid, numpy_function, py_function, vectorized_map
from ._indexed_slices import IndexedSlices
from ._module import Module, name_scope
from ._ops import (
    clip_by_global_norm,
    clip_by_norm,
    clip_by_value,
    newaxis,
)

# TF's `bad_indices_policy` (and gather_nd's `batch_dims`) over the core's ops: TF's
# signatures put the policy where the core's ops take `name`.
from ._ops import gather_nd as gather_nd
from ._ops import scatter_nd as scatter_nd  # type: ignore[assignment]
from ._ops import tensor_scatter_nd_add as tensor_scatter_nd_add  # type: ignore[assignment]
from ._print import print as print
from ._shape import TensorShape
from ._spec import TensorSpec
from ._tape import GradientTape, UnconnectedGradients
from .dtypes import (
    DType,
    as_dtype,
    bfloat16,
    bool,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)

atan2 = math.atan2
mod = math.floormod
realdiv = math.divide
truediv = math.divide

__version__ = version.VERSION

__all__ = [
    *__all__,
    "DType", "GradientTape", "TensorShape", "UnconnectedGradients", "as_dtype", "bool", "clip_by_global_norm",
    "clip_by_norm", "clip_by_value", "custom_gradient", "double", "errors", "experimental", "float32", "float64",
    "int32", "int64", "linalg", "math", "mod", "newaxis", "nn", "optimizers", "random", "realdiv", "train",
    "truediv", "Module", "keras", "image", "name_scope", "distribute", "Function", "function",
]  # fmt: skip
# `print` stays out of __all__ so that `from tapers import *` does not shadow the builtin.
__all__ += ["case", "cond", "switch_case", "while_loop"]
__all__ += ["IndexedSlices", "TensorSpec", "autodiff", "config", "data", "device", "map_fn", "meshgrid"]
__all__ += ["atan2", "vectorized_map", "numpy_function", "py_function"]
# TensorFlow 2's top-level assertions (the rest are in `tapers.debugging`).
from .debugging import Assert, assert_equal, assert_greater, assert_less, assert_rank  # noqa: E402

__all__ += ["nest", "debugging", "Assert", "assert_equal", "assert_greater", "assert_less", "assert_rank"]
__all__ += ["complex", "bfloat16", "complex64", "complex128", "float16", "half"]
__all__ += ["int8", "int16", "uint8", "uint16", "uint32", "uint64"]

# Issue 20: the rest of TensorFlow's top-level numeric surface (python/tapers/_array_extra.py).
from ._array_extra import (  # noqa: E402
    batch_to_space,
    broadcast_dynamic_shape,
    broadcast_static_shape,
    control_dependencies,
    dynamic_partition,
    dynamic_stitch,
    ensure_shape,
    executing_eagerly,
    foldl,
    foldr,
    get_current_name_scope,
    get_logger,
    get_static_value,
    grad_pass_through,
    group,
    histogram_fixed_width,
    histogram_fixed_width_bins,
    identity_n,
    init_scope,
    is_tensor,
    no_op,
    parallel_stack,
    required_space_to_batch_paddings,
    reverse_sequence,
    saturate_cast,
    scan,
    sequence_mask,
    shape_n,
    space_to_batch,
    space_to_batch_nd,
    strided_slice,
    tensor_scatter_nd_max,
    tensor_scatter_nd_min,
    tensor_scatter_nd_sub,
    unique_with_counts,
    unravel_index,
)
from ._array_extra import slice as slice  # noqa: E402
from ._math_extra import scalar_mul  # noqa: E402
from ._tuple import tuple as tuple  # noqa: E402

__all__ += [
    "control_dependencies", "dynamic_partition", "dynamic_stitch", "executing_eagerly", "foldl", "foldr", "get_logger",
    "get_static_value", "group", "histogram_fixed_width", "identity_n", "init_scope", "is_tensor", "no_op",
    "reverse_sequence", "saturate_cast", "scalar_mul", "scan", "sequence_mask", "shape_n", "strided_slice",
    "tensor_scatter_nd_max", "tensor_scatter_nd_min", "tensor_scatter_nd_sub", "unique_with_counts", "unravel_index",
    "batch_to_space", "space_to_batch", "space_to_batch_nd", "broadcast_dynamic_shape", "broadcast_static_shape",
    "ensure_shape", "get_current_name_scope", "grad_pass_through", "parallel_stack", "histogram_fixed_width_bins",
    "required_space_to_batch_paddings",
]  # fmt: skip
# `slice` and `tuple` stay out of __all__ (as `print`): `from tapers import *` must not shadow the builtins.

# TensorArray, the variable enums, TF 2's initializer aliases and other small names.
from ._misc_api import (  # noqa: E402
    AggregationMethod,
    VariableAggregation,
    VariableSynchronization,
    guarantee_const,
    inside_function,
    is_symbolic_tensor,
    type_spec_from_value,
)
from ._tensor_array import TensorArray  # noqa: E402
from .keras import initializers, losses, metrics  # noqa: E402
from .keras.initializers import Constant as constant_initializer  # noqa: E402
from .keras.initializers import Ones as ones_initializer  # noqa: E402
from .keras.initializers import RandomNormal as random_normal_initializer  # noqa: E402
from .keras.initializers import RandomUniform as random_uniform_initializer  # noqa: E402
from .keras.initializers import Zeros as zeros_initializer  # noqa: E402

__all__ += [
    "AggregationMethod", "TensorArray", "VariableAggregation", "VariableSynchronization", "constant_initializer",
    "guarantee_const", "initializers", "inside_function", "is_symbolic_tensor", "losses", "metrics",
    "ones_initializer", "random_normal_initializer", "random_uniform_initializer", "type_spec_from_value",
    "zeros_initializer",
]  # fmt: skip

# get_shape/set_shape, ref, device and the Variable scatter methods (python/tapers/_tensor_methods.py).
from . import _tensor_methods  # noqa: E402

_tensor_methods.install()
