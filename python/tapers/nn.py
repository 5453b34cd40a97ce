"""``tapers.nn``: neural-network functions, as ``tf.nn``."""

from ._core import sigmoid, tanh

__all__ = ["sigmoid", "tanh"]
