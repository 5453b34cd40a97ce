"""``tapers.data.experimental`` (``tf.data.experimental``): the cardinality constants and ``AUTOTUNE``."""

from __future__ import annotations

from .._core import Tensor
from .dataset import AUTOTUNE, INFINITE, UNKNOWN, Dataset

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN


def cardinality(dataset: Dataset) -> Tensor:
    """``dataset.cardinality()``: the element count as an int64 scalar, or -1 (infinite) / -2 (unknown)."""
    return dataset.cardinality()


__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality"]
