"""``tapers.linalg``: linear algebra, as ``tf.linalg``."""

from ._core import matmul

__all__ = ["matmul"]
