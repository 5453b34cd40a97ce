"""``tf.image``: resizing, cropping, flipping and color adjustments of image tensors (NHWC or HWC).

Color spaces (HSV, YIQ, YUV), hue and saturation, the stateless random adjustments, ``crop_and_resize``,
patches, glimpses, Sobel edges, SSIM, box drawing and sampling and the non-max-suppression family are in
``tapers._image_extra`` and re-exported here.

Every function takes ``[batch, height, width, channels]`` or ``[height, width, channels]`` images and
follows TensorFlow 2.21's semantics and dtypes. Tensor values only go through tapers ops (gathers,
slices, pads, arithmetic), so gradients flow through ``GradientTape`` and the functions run inside
``tapers.function``; numpy only computes indices and interpolation weights, which depend on shapes.
"""

from __future__ import annotations

import math as _pymath
from typing import Any

import numpy as np

from . import _core as _c
from . import errors as _errors
from . import math as _math
from . import random as _random
from ._array_extra import saturate_cast as _saturate_cast
from ._array_extra import slice as _slice
from .dtypes import as_dtype

__all__: list[str] = [
    "ResizeMethod", "resize", "flip_left_right", "flip_up_down", "random_flip_left_right",
    "random_flip_up_down", "rot90", "transpose", "central_crop", "crop_to_bounding_box",
    "pad_to_bounding_box", "resize_with_crop_or_pad", "convert_image_dtype", "per_image_standardization",
    "adjust_brightness", "adjust_contrast", "adjust_gamma", "rgb_to_grayscale", "grayscale_to_rgb",
    "random_brightness", "random_contrast", "random_crop", "image_gradients", "total_variation", "psnr",
]


class ResizeMethod:
    """The interpolation methods of :func:`resize`, as ``tf.image.ResizeMethod``: string constants.

    Like TF's class, the members are plain strings, so ``ResizeMethod.BILINEAR == "bilinear"``.

    Parameters
    ----------
    None
        The class is a namespace of constants; it is not instantiated.

    Returns
    -------
    ResizeMethod
        Not applicable (use the class attributes).
    """

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


def _tensor(x: Any) -> Any:
    return x if isinstance(x, _c.Tensor) or hasattr(x, "dtype") and hasattr(x, "shape") and not isinstance(
        x, np.ndarray) else _c.convert_to_tensor(x)


def _shape(x: Any) -> list[Any]:
    return list(x.shape)


def _at_least_3d(image: Any) -> Any:
    image = _tensor(image)
    if len(_shape(image)) < 3:
        raise ValueError(f"'image' (shape {tuple(_shape(image))}) must be at least three-dimensional.")
    return image


def _3_or_4(image: Any, what: str = "image") -> tuple[Any, bool]:
    """``image`` as a batch (rank 4) and whether it was one; TF's error for other ranks."""
    image = _tensor(image)
    rank = len(_shape(image))
    if rank == 3:
        return _c.expand_dims(image, 0), False
    if rank != 4:
        raise ValueError(f"'{what}' (shape {tuple(_shape(image))}) must have either 3 or 4 dimensions.")
    return image, True


def _unbatch(image: Any, is_batch: bool) -> Any:
    return image if is_batch else _c.squeeze(image, [0])


def _static(v: Any) -> Any:
    """A Python/numpy value for a shape-like argument (size, offsets), which fixes output shapes."""
    if hasattr(v, "numpy"):
        return v.numpy()
    return v


# ----------------------------------------------------------------------------------------------- resize

def _resample(x: Any, axis: int, indices: list[np.ndarray], weights: list[np.ndarray] | None) -> Any:
    """sum_k weights[k][j] * x[..., indices[k][j], ...] along ``axis`` (a gather per tap)."""
    rank = len(_shape(x))
    out = None
    for k, idx in enumerate(indices):
        g = _c.gather(x, _c.constant(idx.astype(np.int32)), axis=axis)
        if weights is None:
            return g
        w = weights[k].astype(np.float32).reshape([-1] + [1] * (rank - 1 - axis))
        term = g * _c.constant(w)
        out = term if out is None else out + term
    return out


def _bilinear_taps(in_size: int, out_size: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    scale = np.float32(in_size) / np.float32(out_size)
    pos = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale - np.float32(0.5)
    floor = np.floor(pos)
    lower = np.maximum(floor.astype(np.int64), 0)
    upper = np.minimum(np.ceil(pos).astype(np.int64), in_size - 1)
    lerp = (pos - floor).astype(np.float32)
    return [lower, upper], [np.float32(1) - lerp, lerp]


def _nearest_taps(in_size: int, out_size: int) -> list[np.ndarray]:
    scale = np.float32(in_size) / np.float32(out_size)
    pos = np.floor((np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale).astype(np.int64)
    return [np.clip(pos, 0, in_size - 1)]


def _bicubic_taps(in_size: int, out_size: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    # TF's ResizeBicubic with half-pixel centers: Keys cubic (A = -0.5) read from a 1024-entry table,
    # taps outside the image get weight 0 and the rest are renormalized to sum to 1.
    a = np.float32(-0.5)
    table_size = 1024
    i = np.arange(table_size + 1, dtype=np.float32)
    x0 = i / np.float32(table_size)
    t0 = ((a + 2) * x0 - (a + 3)) * x0 * x0 + 1
    x1 = x0 + 1
    t1 = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a
    scale = np.float32(in_size) / np.float32(out_size)
    pos = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale - np.float32(0.5)
    loc = np.floor(pos).astype(np.int64)
    delta = (pos - loc).astype(np.float32)
    off = np.rint(delta * table_size).astype(np.int64)
    raw_idx = [loc - 1, loc, loc + 1, loc + 2]
    raw_w = [t1[off], t0[off], t0[table_size - off], t1[table_size - off]]
    idx = [np.clip(r, 0, in_size - 1) for r in raw_idx]
    w = [np.where(idx[k] == raw_idx[k], raw_w[k], np.float32(0)).astype(np.float32) for k in range(4)]
    total = w[0] + w[1] + w[2] + w[3]
    ok = np.abs(total) >= 1000.0 * np.finfo(np.float32).tiny
    w = [np.where(ok, wk / np.where(ok, total, 1), wk).astype(np.float32) for wk in w]
    return idx, w


def _area_matrix(in_size: int, out_size: int) -> np.ndarray:
    # TF's ResizeArea (no half-pixel centers): output pixel y averages the input span
    # [y * scale, (y + 1) * scale), each input pixel weighted by its overlap with the span.
    scale = np.float32(in_size) / np.float32(out_size)
    m = np.zeros((out_size, in_size), dtype=np.float32)
    for y in range(out_size):
        lo = np.float32(y) * scale
        hi = np.float32(y + 1) * scale
        for i in range(int(np.floor(lo)), int(np.ceil(hi))):
            if i < lo:
                w = scale if i + 1 > hi else np.float32(i + 1) - lo
            else:
                w = hi - np.float32(i) if i + 1 > hi else np.float32(1.0)
            m[y, min(max(i, 0), in_size - 1)] += np.float32(w) / scale
    return m


def resize(images: Any, size: Any, method: Any = ResizeMethod.BILINEAR, preserve_aspect_ratio: bool = False,
           antialias: bool = False, name: str | None = None) -> Any:
    """Resize images to ``size`` (TF 2's ``tf.image.resize``, half-pixel centers).

    Implemented as gathers of rows and columns combined with interpolation weights that depend only on
    the shapes, so it is differentiable and its gradient equals TF's resize gradients.

    Parameters
    ----------
    images : Tensor
        ``[batch, height, width, channels]`` or ``[height, width, channels]``.
    size : sequence of 2 ints
        ``[new_height, new_width]``.
    method : str or ResizeMethod
        "bilinear", "nearest", "bicubic" or "area" (others raise ValueError: not implemented in tapers).
    preserve_aspect_ratio : bool
        Scale both sides by the same factor so the result fits inside ``size``.
    antialias : bool
        Only False is supported (True raises ValueError).
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        The resized images: float32, except "nearest" keeps the input dtype.
    """
    images = _tensor(images)
    if len(_shape(images)) not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    images, is_batch = _3_or_4(images, "images")
    size_np = np.asarray(_static(size))
    if size_np.shape != (2,):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    method = str(method).lower()
    if antialias:
        raise ValueError("tapers.image.resize: antialias=True is not implemented")
    if method not in (ResizeMethod.BILINEAR, ResizeMethod.NEAREST_NEIGHBOR, ResizeMethod.BICUBIC,
                      ResizeMethod.AREA):
        raise ValueError(f"tapers.image.resize: method {method!r} is not implemented "
                         "(bilinear, nearest, bicubic and area are)")
    _, h, w, _ = _shape(images)
    new_h, new_w = int(size_np[0]), int(size_np[1])
    if new_h <= 0 or new_w <= 0:
        raise ValueError(f"output dimensions must be positive, got {[new_h, new_w]}")
    if preserve_aspect_ratio:
        f = min(np.float32(new_h) / np.float32(h), np.float32(new_w) / np.float32(w))
        new_h = int(np.round(np.float32(f) * np.float32(h)))
        new_w = int(np.round(np.float32(f) * np.float32(w)))
    if method == ResizeMethod.NEAREST_NEIGHBOR:
        out = _resample(images, 1, _nearest_taps(h, new_h), None)
        out = _resample(out, 2, _nearest_taps(w, new_w), None)
        return _unbatch(out, is_batch)
    x = _c.cast(images, "float32")
    if method == ResizeMethod.AREA:
        out = _c.einsum("bhwc,oh->bowc", x, _c.constant(_area_matrix(h, new_h)))
        out = _c.einsum("bhwc,ow->bhoc", out, _c.constant(_area_matrix(w, new_w)))
        return _unbatch(out, is_batch)
    taps = _bilinear_taps if method == ResizeMethod.BILINEAR else _bicubic_taps
    ih, wh = taps(h, new_h)
    iw, ww = taps(w, new_w)
    out = _resample(_resample(x, 1, ih, wh), 2, iw, ww)
    return _unbatch(out, is_batch)


# ------------------------------------------------------------------------------------- flips, rotations

def flip_left_right(image: Any) -> Any:
    """Reverse the width axis.

    Parameters
    ----------
    image : Tensor
        ``[batch, height, width, channels]`` or ``[height, width, channels]``.

    Returns
    -------
    Tensor
        The mirrored image, same dtype and shape.
    """
    image = _at_least_3d(image)
    return _c.reverse(image, [len(_shape(image)) - 2])


def flip_up_down(image: Any) -> Any:
    """Reverse the height axis.

    Parameters
    ----------
    image : Tensor
        ``[batch, height, width, channels]`` or ``[height, width, channels]``.

    Returns
    -------
    Tensor
        The flipped image, same dtype and shape.
    """
    image = _at_least_3d(image)
    return _c.reverse(image, [len(_shape(image)) - 3])


def _random_flip(image: Any, axis_from_end: int, seed: int | None) -> Any:
    image = _at_least_3d(image)
    rank = len(_shape(image))
    axis = rank - axis_from_end
    flipped = _c.reverse(image, [axis])
    # One draw per image; a tensor select (not a Python branch) so it also works inside tapers.function.
    n = _shape(image)[0] if rank == 4 else 1
    u = _random.uniform([n], 0, 1.0, seed=seed)
    mask = _c.reshape(u < 0.5, [n, 1, 1, 1] if rank == 4 else [1, 1, 1])
    return _c.where(_c.broadcast_to(mask, _c.shape(image)), flipped, image)


def random_flip_left_right(image: Any, seed: int | None = None) -> Any:
    """Flip each image left-right with probability 1/2.

    Parameters
    ----------
    image : Tensor
        ``[batch, height, width, channels]`` (each image decided independently) or ``[h, w, c]``.
    seed : int, optional
        Op seed, combined with the global seed as ``tf.random`` does.

    Returns
    -------
    Tensor
        Same dtype and shape as ``image``.
    """
    return _random_flip(image, 2, seed)


def random_flip_up_down(image: Any, seed: int | None = None) -> Any:
    """Flip each image up-down with probability 1/2.

    Parameters
    ----------
    image : Tensor
        ``[batch, height, width, channels]`` (each image decided independently) or ``[h, w, c]``.
    seed : int, optional
        Op seed.

    Returns
    -------
    Tensor
        Same dtype and shape as ``image``.
    """
    return _random_flip(image, 3, seed)


def transpose(image: Any, name: str | None = None) -> Any:
    """Swap the height and width axes.

    Parameters
    ----------
    image : Tensor
        ``[batch, height, width, channels]`` or ``[height, width, channels]``.
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        ``[..., width, height, channels]``.
    """
    image, is_batch = _3_or_4(_at_least_3d(image))
    return _unbatch(_c.transpose(image, [0, 2, 1, 3]), is_batch)


def rot90(image: Any, k: int = 1, name: str | None = None) -> Any:
    """Rotate by ``k`` quarter turns counter-clockwise.

    Parameters
    ----------
    image : Tensor
        ``[batch, height, width, channels]`` or ``[height, width, channels]``.
    k : int
        Number of 90-degree turns (any integer, taken mod 4).
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        The rotated image.
    """
    image, is_batch = _3_or_4(_at_least_3d(image))
    k = int(_static(k)) % 4
    if k == 1:
        out = _c.transpose(_c.reverse(image, [2]), [0, 2, 1, 3])
    elif k == 2:
        out = _c.reverse(image, [1, 2])
    elif k == 3:
        out = _c.reverse(_c.transpose(image, [0, 2, 1, 3]), [2])
    else:
        out = image
    return _unbatch(out, is_batch)


# ------------------------------------------------------------------------------------- crops and pads

def crop_to_bounding_box(image: Any, offset_height: int, offset_width: int, target_height: int,
                         target_width: int) -> Any:
    """Crop the box with top-left corner at the offsets and the target size.

    Parameters
    ----------
    image : Tensor
        ``[batch, height, width, channels]`` or ``[height, width, channels]``.
    offset_height, offset_width : int
        Top-left corner of the box.
    target_height, target_width : int
        Size of the box.

    Returns
    -------
    Tensor
        The cropped image; ValueError (TF's messages) for boxes that do not fit.
    """
    image, is_batch = _3_or_4(image)
    _, h, w, _ = _shape(image)
    oh, ow, th, tw = (int(_static(v)) for v in (offset_height, offset_width, target_height, target_width))
    for ok, msg in ((ow >= 0, "offset_width must be >= 0."), (oh >= 0, "offset_height must be >= 0."),
                    (tw > 0, "target_width must be > 0."), (th > 0, "target_height must be > 0."),
                    (w >= tw + ow, "width must be >= target + offset."),
                    (h >= th + oh, "height must be >= target + offset.")):
        if not ok:
            raise ValueError(msg)
    out = image[:, oh:oh + th, ow:ow + tw, :]
    return _unbatch(out, is_batch)


def pad_to_bounding_box(image: Any, offset_height: int, offset_width: int, target_height: int,
                        target_width: int) -> Any:
    """Zero-pad so the image sits at the offsets inside a ``target_height x target_width`` canvas.

    Parameters
    ----------
    image : Tensor
        ``[batch, height, width, channels]`` or ``[height, width, channels]``.
    offset_height, offset_width : int
        Rows/columns of zeros added above/left.
    target_height, target_width : int
        Size of the result.

    Returns
    -------
    Tensor
        The padded image; ValueError (TF's messages) when it does not fit.
    """
    image, is_batch = _3_or_4(image)
    _, h, w, _ = _shape(image)
    oh, ow, th, tw = (int(_static(v)) for v in (offset_height, offset_width, target_height, target_width))
    after_w, after_h = tw - ow - w, th - oh - h
    for ok, msg in ((oh >= 0, "offset_height must be >= 0"), (ow >= 0, "offset_width must be >= 0"),
                    (after_w >= 0, "width must be <= target - offset"),
                    (after_h >= 0, "height must be <= target - offset")):
        if not ok:
            raise ValueError(msg)
    out = _c.pad(image, [[0, 0], [oh, after_h], [ow, after_w], [0, 0]])
    return _unbatch(out, is_batch)


def central_crop(image: Any, central_fraction: float) -> Any:
    """Keep the central ``central_fraction`` of each side.

    Parameters
    ----------
    image : Tensor
        ``[batch, height, width, channels]`` or ``[height, width, channels]``.
    central_fraction : float
        In (0, 1].

    Returns
    -------
    Tensor
        The central region (TF's rounding of the offsets).
    """
    image = _tensor(image)
    if central_fraction <= 0.0 or central_fraction > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if central_fraction == 1.0:
        return image
    rank = len(_shape(image))
    if rank not in (3, 4):
        raise ValueError(f"`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = {rank}.")
    b, is_batch = _3_or_4(image)
    _, h, w, _ = _shape(b)
    sh = int((float(h) - float(h) * central_fraction) / 2)
    sw = int((float(w) - float(w) * central_fraction) / 2)
    return _unbatch(b[:, sh:h - sh, sw:w - sw, :], is_batch)


def resize_with_crop_or_pad(image: Any, target_height: int, target_width: int) -> Any:
    """Center-crop and/or zero-pad to ``target_height x target_width``.

    Parameters
    ----------
    image : Tensor
        ``[batch, height, width, channels]`` or ``[height, width, channels]``.
    target_height, target_width : int
        Size of the result (> 0).

    Returns
    -------
    Tensor
        The cropped/padded image.
    """
    image, is_batch = _3_or_4(image)
    th, tw = int(_static(target_height)), int(_static(target_width))
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    _, h, w, _ = _shape(image)
    wd, hd = tw - w, th - h
    cropped = crop_to_bounding_box(image, max(-hd // 2, 0), max(-wd // 2, 0), min(th, h), min(tw, w))
    out = pad_to_bounding_box(cropped, max(hd // 2, 0), max(wd // 2, 0), th, tw)
    return _unbatch(out, is_batch)


# ---------------------------------------------------------------------------------------------- dtypes

def _dmax(d: Any) -> Any:
    return d.max


def convert_image_dtype(image: Any, dtype: Any, saturate: bool = False, name: str | None = None) -> Any:
    """Convert between image dtypes, rescaling: floats in [0, 1], integers in [0, MAX].

    Parameters
    ----------
    image : Tensor
        An image of any numeric dtype.
    dtype : DType
        The target dtype.
    saturate : bool
        Clip to the target range before casting (avoids wrap-around).
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        ``image`` in ``dtype``, scaled as ``tf.image.convert_image_dtype``.
    """
    image = _tensor(image)
    dtype = as_dtype(dtype)
    src = as_dtype(image.dtype)
    if not (dtype.is_floating or dtype.is_integer):
        raise AttributeError("dtype must be either floating point or integer")
    if src == dtype:
        return _c.identity(image)
    if src.is_integer and dtype.is_integer:
        scale_in, scale_out = int(_dmax(src)), int(_dmax(dtype))
        if scale_in > scale_out:
            scale = (scale_in + 1) // (scale_out + 1)
            scaled = _math.floordiv(image, _c.cast(scale, src))
            return _saturate_cast(scaled, dtype) if saturate else _c.cast(scaled, dtype)
        cast = _saturate_cast(image, dtype) if saturate else _c.cast(image, dtype)
        return cast * _c.cast((scale_out + 1) // (scale_in + 1), dtype)
    if src.is_floating and dtype.is_floating:
        return _c.cast(image, dtype)
    if src.is_integer:
        return _c.cast(image, dtype) * _c.cast(1.0 / _dmax(src), dtype)
    scaled = image * _c.cast(_dmax(dtype) + 0.5, src)
    return _saturate_cast(scaled, dtype) if saturate else _c.cast(scaled, dtype)


def per_image_standardization(image: Any) -> Any:
    """``(x - mean) / max(stddev, 1/sqrt(N))`` per image, over height, width and channels.

    Parameters
    ----------
    image : Tensor
        At least 3-D; the last three axes are one image.

    Returns
    -------
    Tensor
        float32, same shape.
    """
    image = _c.cast(_at_least_3d(image), "float32")
    n = int(np.prod(_shape(image)[-3:]))
    mean = _c.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
    centered = image - mean
    std = _c.sqrt(_c.reduce_mean(centered * centered, axis=[-1, -2, -3], keepdims=True))
    adjusted = _c.maximum(std, _c.constant(np.float32(1.0) / np.sqrt(np.float32(n)), "float32"))
    return centered / adjusted


# ----------------------------------------------------------------------------------------------- color

def _to_float(image: Any) -> tuple[Any, Any]:
    image = _tensor(image)
    orig = as_dtype(image.dtype)
    if orig in (as_dtype("float16"), as_dtype("float32")):
        return image, orig
    return convert_image_dtype(image, "float32"), orig


def adjust_brightness(image: Any, delta: Any) -> Any:
    """Add ``delta`` to every pixel (in [0, 1] float scale for integer images, then saturate back).

    Parameters
    ----------
    image : Tensor
        Any image.
    delta : float or scalar Tensor
        Amount to add.

    Returns
    -------
    Tensor
        Same dtype as ``image``.
    """
    flt, orig = _to_float(image)
    adjusted = flt + _c.cast(delta, flt.dtype)
    return convert_image_dtype(adjusted, orig, saturate=True)


def adjust_contrast(images: Any, contrast_factor: Any) -> Any:
    """``(x - mean) * contrast_factor + mean``, mean over height and width per channel.

    Parameters
    ----------
    images : Tensor
        At least 3-D ``[..., height, width, channels]``.
    contrast_factor : float or scalar Tensor
        Multiplier for the deviation from the mean.

    Returns
    -------
    Tensor
        Same dtype as ``images``.
    """
    flt, orig = _to_float(_at_least_3d(images))
    mean = _c.reduce_mean(flt, axis=[-3, -2], keepdims=True)
    adjusted = (flt - mean) * _c.cast(contrast_factor, flt.dtype) + mean
    return convert_image_dtype(adjusted, orig, saturate=True)


def adjust_gamma(image: Any, gamma: Any = 1, gain: Any = 1) -> Any:
    """``gain * x ** gamma`` in float scale.

    Parameters
    ----------
    image : Tensor
        Any image.
    gamma : float
        Non-negative exponent.
    gain : float
        Multiplier.

    Returns
    -------
    Tensor
        Same dtype as ``image``.
    """
    flt, orig = _to_float(image)
    try:
        g = np.asarray(_static(gamma), dtype=np.float64)
    except Exception:  # a symbolic gamma inside tapers.function: not checked, as TF's deferred assert
        g = np.zeros(())
    if g.size and float(np.min(g)) < 0:
        raise ValueError("Gamma should be a non-negative real number.")
    adjusted = _c.cast(gain, flt.dtype) * _c.pow(flt, _c.cast(gamma, flt.dtype))
    return convert_image_dtype(adjusted, orig, saturate=True)


def rgb_to_grayscale(images: Any, name: str | None = None) -> Any:
    """Luma ``0.2989 R + 0.5870 G + 0.1140 B``, keeping a channel axis of size 1.

    Parameters
    ----------
    images : Tensor
        ``[..., 3]`` RGB images.
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        ``[..., 1]``, same dtype as ``images``.
    """
    images = _tensor(images)
    orig = as_dtype(images.dtype)
    flt = convert_image_dtype(images, "float32")
    w = _c.constant(np.array([0.2989, 0.5870, 0.1140], dtype=np.float32))
    gray = _c.tensordot(flt, w, [[-1 + len(_shape(flt))], [0]])
    gray = _c.expand_dims(gray, -1)
    return convert_image_dtype(gray, orig)


def grayscale_to_rgb(images: Any, name: str | None = None) -> Any:
    """Repeat the single channel three times.

    Parameters
    ----------
    images : Tensor
        ``[..., 1]`` grayscale images (at least 2-D).
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        ``[..., 3]``, same dtype.
    """
    images = _tensor(images)
    shape = _shape(images)
    if len(shape) < 2:
        raise ValueError(f"A grayscale image (shape {tuple(shape)}) must be at least two-dimensional.")
    if shape[-1] != 1:
        raise ValueError("Last dimension of a grayscale image should be size 1.")
    return _c.concat([images, images, images], axis=-1)


# ---------------------------------------------------------------------------------------------- random

def random_brightness(image: Any, max_delta: float, seed: int | None = None) -> Any:
    """:func:`adjust_brightness` by a delta drawn uniformly from ``[-max_delta, max_delta)``.

    Parameters
    ----------
    image : Tensor
        Any image.
    max_delta : float
        Non-negative bound.
    seed : int, optional
        Op seed.

    Returns
    -------
    Tensor
        Same dtype as ``image``.
    """
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = _random.uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def random_contrast(image: Any, lower: float, upper: float, seed: int | None = None) -> Any:
    """:func:`adjust_contrast` by a factor drawn uniformly from ``[lower, upper)``.

    Parameters
    ----------
    image : Tensor
        At least 3-D image.
    lower, upper : float
        ``0 <= lower < upper``.
    seed : int, optional
        Op seed.

    Returns
    -------
    Tensor
        Same dtype as ``image``.
    """
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    factor = _random.uniform([], lower, upper, seed=seed)
    return adjust_contrast(image, factor)


def random_crop(value: Any, size: Any, seed: int | None = None, name: str | None = None) -> Any:
    """A crop of shape ``size`` at a uniformly random offset.

    Parameters
    ----------
    value : Tensor
        Any tensor.
    size : sequence of int
        Crop shape, one entry per axis, each ``<=`` the corresponding dimension.
    seed : int, optional
        Op seed.
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        ``value[offset : offset + size]``.
    """
    value = _tensor(value)
    size_np = [int(s) for s in np.asarray(_static(size)).reshape(-1)]
    shape = _shape(value)
    if len(size_np) != len(shape):
        raise _errors.InvalidArgumentError(
            None, None, f"Incompatible shapes: [{len(shape)}] vs. [{len(size_np)}] (random_crop: size needs one entry "
            f"per dimension of the value, shape {tuple(shape)})")
    if any(s < 0 or s > d for s, d in zip(size_np, shape)):
        raise _errors.InvalidArgumentError(None, None, f"Need value.shape >= size, got {list(shape)} {size_np}")
    limit = [d - s + 1 for s, d in zip(size_np, shape)]
    r = _random.uniform([len(shape)], 0, 2**31 - 1, dtype="int32", seed=seed)
    offset = _math.floormod(r, _c.constant(np.array(limit, dtype=np.int32)))
    return _slice(value, offset, size_np)


# ----------------------------------------------------------------------------------------------- metrics

def image_gradients(image: Any) -> Any:
    """Forward differences ``(dy, dx)``, zero in the last row/column.

    Parameters
    ----------
    image : Tensor
        ``[batch, height, width, depth]``.

    Returns
    -------
    tuple of Tensor
        ``dy`` and ``dx``, each shaped like ``image``.
    """
    image = _tensor(image)
    if len(_shape(image)) != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {tuple(_shape(image))}.")
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    dy = _c.pad(dy, [[0, 0], [0, 1], [0, 0], [0, 0]])
    dx = _c.pad(dx, [[0, 0], [0, 0], [0, 1], [0, 0]])
    return dy, dx


def total_variation(images: Any, name: str | None = None) -> Any:
    """Sum of absolute differences of neighbouring pixels (per image for a batch).

    Parameters
    ----------
    images : Tensor
        ``[batch, height, width, channels]`` or ``[height, width, channels]``.
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        A scalar for one image, ``[batch]`` for a batch; same dtype.
    """
    images = _tensor(images)
    rank = len(_shape(images))
    if rank == 3:
        dh = images[1:, :, :] - images[:-1, :, :]
        dw = images[:, 1:, :] - images[:, :-1, :]
        axes: Any = None
    elif rank == 4:
        dh = images[:, 1:, :, :] - images[:, :-1, :, :]
        dw = images[:, :, 1:, :] - images[:, :, :-1, :]
        axes = [1, 2, 3]
    else:
        raise ValueError("'images' must be either 3 or 4-dimensional.")
    return _c.reduce_sum(_c.abs(dh), axis=axes) + _c.reduce_sum(_c.abs(dw), axis=axes)


def psnr(a: Any, b: Any, max_val: Any, name: str | None = None) -> Any:
    """Peak signal-to-noise ratio ``20 log10(max_val) - 10 log10(mse)`` per image.

    Parameters
    ----------
    a, b : Tensor
        Images of the same shape and dtype.
    max_val : float
        Dynamic range (e.g. 1.0 or 255).
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        float32, one value per image (the last three axes are reduced).
    """
    a, b = _tensor(a), _tensor(b)
    mv = convert_image_dtype(_c.cast(max_val, a.dtype), "float32")
    a = convert_image_dtype(a, "float32")
    b = convert_image_dtype(b, "float32")
    d = a - b
    mse = _c.reduce_mean(d * d, axis=[-3, -2, -1])
    ln10 = np.float32(_pymath.log(10.0))
    return 20.0 * _math.log(mv) / ln10 - (np.float32(10.0) / ln10) * _math.log(mse)


from ._image_extra import (  # noqa: E402 - it imports the helpers above
    adjust_hue,
    adjust_saturation,
    combined_non_max_suppression,
    crop_and_resize,
    draw_bounding_boxes,
    extract_glimpse,
    extract_patches,
    hsv_to_rgb,
    non_max_suppression,
    non_max_suppression_overlaps,
    non_max_suppression_padded,
    non_max_suppression_with_scores,
    random_hue,
    random_saturation,
    resize_with_pad,
    rgb_to_hsv,
    rgb_to_yiq,
    rgb_to_yuv,
    sample_distorted_bounding_box,
    sobel_edges,
    ssim,
    ssim_multiscale,
    stateless_random_brightness,
    stateless_random_contrast,
    stateless_random_crop,
    stateless_random_flip_left_right,
    stateless_random_flip_up_down,
    stateless_random_hue,
    stateless_random_saturation,
    stateless_sample_distorted_bounding_box,
    yiq_to_rgb,
    yuv_to_rgb,
)

__all__ += [
    "adjust_hue", "adjust_saturation", "combined_non_max_suppression", "crop_and_resize", "draw_bounding_boxes",
    "extract_patches",
    "hsv_to_rgb", "non_max_suppression", "non_max_suppression_overlaps", "non_max_suppression_padded",
    "non_max_suppression_with_scores", "random_hue", "random_saturation", "rgb_to_hsv", "rgb_to_yiq", "rgb_to_yuv",
    "stateless_random_brightness", "stateless_random_contrast", "stateless_random_crop",
    "stateless_random_flip_left_right", "stateless_random_flip_up_down", "stateless_random_hue",
    "stateless_random_saturation", "yiq_to_rgb", "yuv_to_rgb", "sample_distorted_bounding_box",
    "stateless_sample_distorted_bounding_box", "extract_glimpse",
    "sobel_edges", "resize_with_pad", "ssim", "ssim_multiscale",
]
