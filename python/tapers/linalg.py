"""``tapers.linalg``: linear algebra, as ``tf.linalg``."""

from ._core import einsum, eye, matmul, norm, tensordot, trace

__all__ = ["einsum", "eye", "matmul", "norm", "tensordot", "trace"]
