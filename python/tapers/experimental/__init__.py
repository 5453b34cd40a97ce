"""Interfaces outside TensorFlow's stable API (``tf.experimental``)."""

from . import dlpack

__all__ = ["dlpack"]
