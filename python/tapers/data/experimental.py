"""``tapers.data.experimental`` (``tf.data.experimental``): the cardinality constants and ``AUTOTUNE``."""

from __future__ import annotations

from .._core import Tensor
from .dataset import AUTOTUNE, INFINITE, UNKNOWN, Dataset
from .options import (
    AutoShardPolicy,
    AutotuneAlgorithm,
    AutotuneOptions,
    DistributeOptions,
    ExternalStatePolicy,
    OptimizationOptions,
    OptionsBase,
    ThreadingOptions,
)

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


__all__ = ["AUTOTUNE", "AutoShardPolicy", "AutotuneAlgorithm", "AutotuneOptions", "DistributeOptions",
           "ExternalStatePolicy", "INFINITE_CARDINALITY", "OptimizationOptions", "OptionsBase", "ThreadingOptions",
           "UNKNOWN_CARDINALITY", "cardinality"]  # fmt: skip
