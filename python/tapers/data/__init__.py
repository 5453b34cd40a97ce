"""``tapers.data`` (``tf.data``): input pipelines.

``Dataset.from_tensor_slices((x, y)).shuffle(1000).map(f).batch(32).prefetch(tapers.data.AUTOTUNE)``
and iterate it with a ``for`` loop; elements are tapers tensors. See
:mod:`tapers.data.dataset` for how pipelines run and how they differ from TensorFlow's.
"""

from __future__ import annotations

from . import experimental
from .dataset import AUTOTUNE, Dataset, DatasetSpec, NumpyIterator, OwnedIterator
from .experimental import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from .options import Options, ThreadingOptions

Iterator = OwnedIterator

__all__ = [
    "AUTOTUNE", "Dataset", "DatasetSpec", "INFINITE_CARDINALITY", "Iterator", "NumpyIterator", "Options",
    "ThreadingOptions", "UNKNOWN_CARDINALITY", "experimental",
]  # fmt: skip
