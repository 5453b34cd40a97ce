"""Stubs for ``tapers._core.linalg``, re-exported by ``tapers.linalg`` (``tf.linalg``)."""

from typing import Any

from . import Tensor, _DTypeLike, _Name, _TensorLike

__all__ = [
    "einsum", "eye", "matmul", "norm", "tensordot", "trace",
]  # fmt: skip

# Tensors from values, shapes and ranges (ops/create.rs)
def eye(
    num_rows: int, num_columns: int | None = ..., batch_shape: Any = ..., dtype: _DTypeLike = ..., name: _Name = ...
) -> Tensor: ...

# Products and linear algebra (ops/linalg.rs)
def matmul(
    a: _TensorLike,
    b: _TensorLike,
    transpose_a: bool = ...,
    transpose_b: bool = ...,
    adjoint_a: bool = ...,
    adjoint_b: bool = ...,
    a_is_sparse: bool = ...,
    b_is_sparse: bool = ...,
    output_type: Any = ...,
    grad_a: bool = ...,
    grad_b: bool = ...,
    name: _Name = ...,
) -> Tensor: ...
def tensordot(a: _TensorLike, b: _TensorLike, axes: Any, name: _Name = ...) -> Tensor: ...
def einsum(equation: str, *inputs: _TensorLike, **kwargs: Any) -> Tensor: ...
def norm(
    tensor: _TensorLike, ord: Any = ..., axis: Any = ..., keepdims: bool | None = ..., name: _Name = ...
) -> Tensor: ...
def trace(x: _TensorLike, name: _Name = ...) -> Tensor: ...
