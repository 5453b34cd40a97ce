"""Stubs for ``tapers._core.random``, re-exported by ``tapers.random`` (``tf.random``)."""

from typing import Any, final

from . import Tensor, _DTypeLike, _Name

__all__ = [
    "Generator",
]  # fmt: skip

@final
class Generator:
    @staticmethod
    def from_seed(seed: int, alg: Any = ...) -> Generator: ...
    @staticmethod
    def from_non_deterministic_state() -> Generator: ...
    def normal(
        self, shape: Any, mean: float = ..., stddev: float = ..., dtype: _DTypeLike = ..., name: _Name = ...
    ) -> Tensor: ...
    def truncated_normal(
        self, shape: Any, mean: float = ..., stddev: float = ..., dtype: _DTypeLike = ..., name: _Name = ...
    ) -> Tensor: ...
    def uniform(
        self,
        shape: Any,
        minval: float = ...,
        maxval: float | None = ...,
        dtype: _DTypeLike = ...,
        name: _Name = ...,
    ) -> Tensor: ...
    def bernoulli(self, shape: Any, keep: float) -> Tensor: ...
    def permutation(self, n: int) -> Tensor: ...
