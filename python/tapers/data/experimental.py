"""``tapers.data.experimental`` (``tf.data.experimental``): the cardinality constants and ``AUTOTUNE``."""

from __future__ import annotations

from .._core import Tensor
from .dataset import AUTOTUNE, INFINITE, UNKNOWN, Dataset

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN


def cardinality(dataset: Dataset) -> Tensor:
    """``dataset.cardinality()``.

    Parameters
    ----------
    dataset : Dataset

    Returns
    -------
    Tensor
        The element count as an int64 scalar, or ``INFINITE_CARDINALITY`` (-1) /
        ``UNKNOWN_CARDINALITY`` (-2).
    """
    return dataset.cardinality()


__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality"]
