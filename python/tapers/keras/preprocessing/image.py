"""``keras.preprocessing.image``: ``img_to_array`` and ``smart_resize`` (loading and saving image files needs
PIL, which tapers does not use: ``load_img``/``save_img``/``array_to_img`` are not here)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _core
from ... import image as _image
from ..utils import img_to_array

__all__ = ["img_to_array", "smart_resize"]


def smart_resize(
    x: Any, size: Sequence[int], interpolation: str = "bilinear", data_format: str = "channels_last", **kwargs: Any
) -> Any:
    """Resizes images to ``size`` without distorting them: the largest centred crop with the target's aspect
    ratio, then a resize (``keras.preprocessing.image.smart_resize``).

    Parameters
    ----------
    x : array or Tensor
        ``(height, width, channels)`` or ``(batch, height, width, channels)`` (channels first with
        ``data_format="channels_first"``).
    size : (int, int)
        The target height and width.
    interpolation : str
        ``tapers.image.resize``'s method (``"bilinear"``, ``"nearest"``, ``"bicubic"``, ``"area"``, ...).
    data_format : {"channels_last", "channels_first"}
        The layout of ``x``.

    Returns
    -------
    numpy.ndarray or Tensor
        A numpy array for numpy input (as Keras), else a Tensor.
    """
    if kwargs:
        raise TypeError(f"smart_resize() got unexpected keyword arguments: {list(kwargs.keys())}")
    if len(size) != 2:
        raise ValueError(f"Expected `size` to be a tuple of 2 integers, but got: {size}.")
    as_numpy = isinstance(x, np.ndarray)
    img = _core.convert_to_tensor(x)
    if len(img.shape) < 3 or len(img.shape) > 4:
        raise ValueError(
            "Expected an image array with shape `(height, width, channels)`, or `(batch_size, height, width, "
            f"channels)`, but got input with incorrect rank, of shape {tuple(img.shape)}."
        )
    last = data_format == "channels_last"
    height, width = (int(img.shape[-3]), int(img.shape[-2])) if last else (int(img.shape[-2]), int(img.shape[-1]))
    th, tw = int(size[0]), int(size[1])
    ch = max(min(height, int(float(width * th) / tw)), 1)
    cw = max(min(width, int(float(height * tw) / th)), 1)
    h0, w0 = int(float(height - ch) / 2), int(float(width - cw) / 2)
    if not last:
        perm = [0, 2, 3, 1] if len(img.shape) == 4 else [1, 2, 0]
        img = _core.transpose(img, perm)
    img = img[..., h0 : h0 + ch, w0 : w0 + cw, :]
    out = _image.resize(img, [th, tw], method=interpolation)
    if not last:
        perm = [0, 3, 1, 2] if len(out.shape) == 4 else [2, 0, 1]
        out = _core.transpose(out, perm)
    return out.numpy() if as_numpy else out
