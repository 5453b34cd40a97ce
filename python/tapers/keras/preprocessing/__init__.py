"""``keras.preprocessing``: Keras 3's legacy preprocessing namespace (``sequence.pad_sequences``,
``image.img_to_array``/``smart_resize``, ``timeseries_dataset_from_array``), over ``keras.utils``."""

from __future__ import annotations

from ..utils import timeseries_dataset_from_array
from . import image, sequence

__all__ = ["image", "sequence", "timeseries_dataset_from_array"]
