"""More of ``tf.image``: HSV/YIQ/YUV color spaces, hue and saturation, stateless random adjustments,
``crop_and_resize``, ``extract_patches``, ``extract_glimpse``, ``sobel_edges``, ``resize_with_pad``, SSIM
and MS-SSIM, ``draw_bounding_boxes``, ``sample_distorted_bounding_box`` and the non-max-suppression family.

Re-exported by :mod:`tapers.image`. Tensor values go through tapers ops (gathers, ``where``,
arithmetic), so the differentiable functions have gradients under ``GradientTape`` and run inside
``tapers.function``. Non-max suppression and box sampling have data-dependent results and no gradient
(as in TensorFlow); they run TensorFlow's CPU kernels' algorithms on the values through ``numpy_function``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from . import _core as _c
from . import errors as _errors
from . import math as _math
from . import random as _random
from ._functional import numpy_function as _numpy_function
from .dtypes import as_dtype
from .image import (
    _3_or_4,
    _at_least_3d,
    _shape,
    _static,
    _tensor,
    _to_float,
    adjust_brightness,
    adjust_contrast,
    convert_image_dtype,
)

__all__: list[str] = [
    "rgb_to_hsv", "hsv_to_rgb", "rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv", "yuv_to_rgb", "adjust_hue",
    "adjust_saturation", "random_hue", "random_saturation", "stateless_random_hue",
    "stateless_random_saturation", "stateless_random_brightness", "stateless_random_contrast",
    "stateless_random_flip_left_right", "stateless_random_flip_up_down", "stateless_random_crop",
    "crop_and_resize", "extract_patches", "non_max_suppression", "non_max_suppression_with_scores",
    "non_max_suppression_overlaps", "non_max_suppression_padded", "combined_non_max_suppression",
    "draw_bounding_boxes", "sample_distorted_bounding_box", "stateless_sample_distorted_bounding_box",
    "extract_glimpse", "sobel_edges", "resize_with_pad", "ssim", "ssim_multiscale",
]



class CombinedNonMaxSuppression(NamedTuple):
    """The result of :func:`combined_non_max_suppression` (TF's namedtuple of the same name).

    Parameters
    ----------
    nmsed_boxes : Tensor
        float32 ``[batch, max_detections, 4]``.
    nmsed_scores : Tensor
        float32 ``[batch, max_detections]``.
    nmsed_classes : Tensor
        float32 ``[batch, max_detections]``.
    valid_detections : Tensor
        int32 ``[batch]``.

    Returns
    -------
    CombinedNonMaxSuppression
        The tuple.
    """

    nmsed_boxes: Any
    nmsed_scores: Any
    nmsed_classes: Any
    valid_detections: Any


_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _k(x: Any, dtype: Any) -> Any:
    """A float32-rounded constant (as TF's kernels write ``T(x)``) in ``dtype``."""
    t = _c.constant(np.float32(x))
    return t if as_dtype(dtype).name == "float32" else _c.cast(t, dtype)


def _float_rgb(images: Any, fn: str) -> Any:
    images = _tensor(images)
    dt = as_dtype(images.dtype)
    if dt.name not in _FLOATS:
        raise TypeError(f"{fn}: 'images' has dtype {dt.name}, expected one of {', '.join(_FLOATS)}")
    shape = _shape(images)
    if len(shape) < 1 or shape[-1] != 3:
        raise _errors.InvalidArgumentError(
            None, None, f"{fn}: input must have 3 channels in the last dimension but input has shape {tuple(shape)}")
    return images


# ----------------------------------------------------------------------------------------- color spaces

def _rgb_to_hsv_t(images: Any) -> Any:
    """TF's ``RGBToHSV`` kernel; divisions guarded so discarded branches carry no NaN into gradients."""
    dt = images.dtype
    r, g, b = images[..., 0], images[..., 1], images[..., 2]

    def m(cond: Any) -> Any:
        return _c.cast(cond, dt)

    # The max and min channel picked as TF's RGBToHSV gradient does on ties (R, then G, then B for the
    # max; B, then G, then R for the min), so gradients at ties match TF's; the values are unchanged.
    v = r * m(_c.logical_and(r >= b, r >= g)) + g * m(_c.logical_and(g > r, g >= b)) + b * m(
        _c.logical_and(b > r, b > g))
    mn = r * m(_c.logical_and(r < b, r < g)) + g * m(_c.logical_and(g <= r, g < b)) + b * m(
        _c.logical_and(b <= r, b <= g))
    rng = v - mn
    zero = _c.zeros_like(v)
    one = _c.ones_like(v)
    v_pos = _c.greater(v, zero)
    s = _c.where(v_pos, rng / _c.where(v_pos, v, one), zero)
    r_pos = _c.greater(rng, zero)
    norm = (one / _c.where(r_pos, rng, one)) * _k(np.float32(1) / np.float32(6), dt)
    h = _c.where(_c.equal(r, v), norm * (g - b),
                 _c.where(_c.equal(g, v), norm * (b - r) + _k(np.float32(2) / np.float32(6), dt),
                          norm * (r - g) + _k(np.float32(4) / np.float32(6), dt)))
    h = _c.where(r_pos, h, zero)
    h = _c.where(_c.less(h, zero), h + one, h)
    return _c.stack([h, s, v], axis=-1)


def _clip01(x: Any) -> Any:
    return _c.minimum(_c.maximum(x, _c.zeros_like(x)), _c.ones_like(x))


def _hsv_to_rgb_t(images: Any) -> Any:
    """TF's ``HSVToRGB`` kernel."""
    dt = images.dtype
    h, s, v = images[..., 0], images[..., 1], images[..., 2]
    dh = h * _k(6.0, dt)
    dr = _clip01(_c.abs(dh - _k(3.0, dt)) - _k(1.0, dt))
    dg = _clip01(-_c.abs(dh - _k(2.0, dt)) + _k(2.0, dt))
    db = _clip01(-_c.abs(dh - _k(4.0, dt)) + _k(2.0, dt))
    one_s = _k(1.0, dt) - s
    return _c.stack([(one_s + s * dr) * v, (one_s + s * dg) * v, (one_s + s * db) * v], axis=-1)


def rgb_to_hsv(images: Any, name: str | None = None) -> Any:
    """Convert RGB images to HSV (hue, saturation and value all in ``[0, 1]``), as ``tf.image.rgb_to_hsv``.

    Parameters
    ----------
    images : Tensor
        Floating ``[..., 3]`` RGB values in ``[0, 1]``.
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        ``[..., 3]`` HSV, same dtype.
    """
    return _rgb_to_hsv_t(_float_rgb(images, "rgb_to_hsv"))


def hsv_to_rgb(images: Any, name: str | None = None) -> Any:
    """Convert HSV images back to RGB, as ``tf.image.hsv_to_rgb``.

    Parameters
    ----------
    images : Tensor
        Floating ``[..., 3]`` HSV values in ``[0, 1]``.
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        ``[..., 3]`` RGB, same dtype.
    """
    return _hsv_to_rgb_t(_float_rgb(images, "hsv_to_rgb"))


_RGB_TO_YIQ: list[list[float]] = [
    [0.299, 0.59590059, 0.2115],
    [0.587, -0.27455667, -0.52273617],
    [0.114, -0.32134392, 0.31119955],
]
_YIQ_TO_RGB: list[list[float]] = [
    [1, 1, 1],
    [0.95598634, -0.27201283, -1.10674021],
    [0.6208248, -0.64720424, 1.70423049],
]
_RGB_TO_YUV: list[list[float]] = [
    [0.299, -0.14714119, 0.61497538],
    [0.587, -0.28886916, -0.51496512],
    [0.114, 0.43601035, -0.10001026],
]
_YUV_TO_RGB: list[list[float]] = [
    [1, 1, 1],
    [0, -0.394642334, 2.03206185],
    [1.13988303, -0.58062185, 0],
]


def _linear_color(images: Any, kernel: list[list[float]], fn: str) -> Any:
    images = _float_rgb(images, fn)
    k = _c.constant(np.asarray(kernel, dtype=as_dtype(images.dtype).as_numpy_dtype))
    return _c.tensordot(images, k, [[len(_shape(images)) - 1], [0]])


def rgb_to_yiq(images: Any) -> Any:
    """Convert RGB to YIQ (a linear map of the last axis), as ``tf.image.rgb_to_yiq``.

    Parameters
    ----------
    images : Tensor
        Floating ``[..., 3]``.

    Returns
    -------
    Tensor
        ``[..., 3]``, same dtype.
    """
    return _linear_color(images, _RGB_TO_YIQ, "rgb_to_yiq")


def yiq_to_rgb(images: Any) -> Any:
    """Convert YIQ to RGB, as ``tf.image.yiq_to_rgb``.

    Parameters
    ----------
    images : Tensor
        Floating ``[..., 3]``.

    Returns
    -------
    Tensor
        ``[..., 3]``, same dtype.
    """
    return _linear_color(images, _YIQ_TO_RGB, "yiq_to_rgb")


def rgb_to_yuv(images: Any) -> Any:
    """Convert RGB to YUV, as ``tf.image.rgb_to_yuv``.

    Parameters
    ----------
    images : Tensor
        Floating ``[..., 3]``.

    Returns
    -------
    Tensor
        ``[..., 3]``, same dtype.
    """
    return _linear_color(images, _RGB_TO_YUV, "rgb_to_yuv")


def yuv_to_rgb(images: Any) -> Any:
    """Convert YUV to RGB, as ``tf.image.yuv_to_rgb``.

    Parameters
    ----------
    images : Tensor
        Floating ``[..., 3]``.

    Returns
    -------
    Tensor
        ``[..., 3]``, same dtype.
    """
    return _linear_color(images, _YUV_TO_RGB, "yuv_to_rgb")


# ------------------------------------------------------------------------------------ hue, saturation

def _rgb_image(image: Any, fn: str) -> tuple[Any, Any]:
    image = _tensor(image)
    shape = _shape(image)
    if len(shape) < 3:
        raise _errors.InvalidArgumentError(
            None, None, f"{fn}: input must be at least 3-D, got shape {tuple(shape)}")
    if shape[-1] != 3:
        raise _errors.InvalidArgumentError(
            None, None, f"{fn}: input must have 3 channels but input only has {shape[-1]} channels "
            f"(shape {tuple(shape)})")
    flt, orig = _to_float(image)
    return flt, orig


def _scalar_value(v: Any) -> float | None:
    try:
        return float(np.asarray(_static(v)))
    except Exception:  # symbolic inside tapers.function: checked by TF only eagerly too
        return None


def adjust_hue(image: Any, delta: Any, name: str | None = None) -> Any:
    """Rotate the hue of RGB images by ``delta`` (a fraction of the color circle), as ``tf.image.adjust_hue``.

    Integer images are converted to float32 in ``[0, 1]`` first and back afterwards.

    Parameters
    ----------
    image : Tensor
        ``[..., height, width, 3]`` RGB images.
    delta : float or scalar Tensor
        In ``[-1, 1]``; added to the hue, which wraps around.
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        Same shape and dtype as ``image``.
    """
    d = _scalar_value(delta)
    if d is not None and (d < -1 or d > 1):
        raise ValueError("delta must be in the interval [-1, 1]")
    flt, orig = _rgb_image(image, "adjust_hue")
    x = flt if flt.dtype.name == "float32" else _c.cast(flt, "float32")
    hsv = _rgb_to_hsv_t(x)
    h = hsv[..., 0] + _c.cast(delta, "float32")
    h = h - _c.stop_gradient(_c.floor(h))
    out = _hsv_to_rgb_t(_c.stack([h, hsv[..., 1], hsv[..., 2]], axis=-1))
    if flt.dtype.name != "float32":
        out = _c.cast(out, flt.dtype)
    return convert_image_dtype(out, orig)


def adjust_saturation(image: Any, saturation_factor: Any, name: str | None = None) -> Any:
    """Scale the saturation of RGB images by ``saturation_factor`` (clipped to ``[0, 1]``).

    As ``tf.image.adjust_saturation``: integer images are converted to float32 first and back afterwards.

    Parameters
    ----------
    image : Tensor
        ``[..., height, width, 3]`` RGB images.
    saturation_factor : float or scalar Tensor
        Multiplier of the saturation.
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        Same shape and dtype as ``image``.
    """
    flt, orig = _rgb_image(image, "adjust_saturation")
    x = flt if flt.dtype.name == "float32" else _c.cast(flt, "float32")
    hsv = _rgb_to_hsv_t(x)
    s = _clip01(hsv[..., 1] * _c.cast(saturation_factor, "float32"))
    out = _hsv_to_rgb_t(_c.stack([hsv[..., 0], s, hsv[..., 2]], axis=-1))
    if flt.dtype.name != "float32":
        out = _c.cast(out, flt.dtype)
    return convert_image_dtype(out, orig)


def _check_hue_delta(max_delta: float) -> None:
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")


def _check_range(lower: float, upper: float) -> None:
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def random_hue(image: Any, max_delta: float, seed: int | None = None) -> Any:
    """:func:`adjust_hue` by a delta drawn uniformly from ``[-max_delta, max_delta)``.

    Parameters
    ----------
    image : Tensor
        RGB images.
    max_delta : float
        In ``[0, 0.5]``.
    seed : int, optional
        Op seed.

    Returns
    -------
    Tensor
        Same shape and dtype as ``image``.
    """
    _check_hue_delta(max_delta)
    return adjust_hue(image, _random.uniform([], -max_delta, max_delta, seed=seed))


def random_saturation(image: Any, lower: float, upper: float, seed: int | None = None) -> Any:
    """:func:`adjust_saturation` by a factor drawn uniformly from ``[lower, upper)``.

    Parameters
    ----------
    image : Tensor
        RGB images.
    lower, upper : float
        ``0 <= lower < upper``.
    seed : int, optional
        Op seed.

    Returns
    -------
    Tensor
        Same shape and dtype as ``image``.
    """
    _check_range(lower, upper)
    return adjust_saturation(image, _random.uniform([], lower, upper, seed=seed))


def stateless_random_hue(image: Any, max_delta: float, seed: Any) -> Any:
    """:func:`adjust_hue` by a delta from ``stateless_uniform([], seed, -max_delta, max_delta)``.

    The same ``seed`` gives the same result (tapers' stateless generator, not TF's bit stream).

    Parameters
    ----------
    image : Tensor
        RGB images.
    max_delta : float
        In ``[0, 0.5]``.
    seed : shape [2] int
        The stateless seed.

    Returns
    -------
    Tensor
        Same shape and dtype as ``image``.
    """
    _check_hue_delta(max_delta)
    return adjust_hue(image, _random.stateless_uniform([], seed=seed, minval=-max_delta, maxval=max_delta))


def stateless_random_saturation(image: Any, lower: float, upper: float, seed: Any) -> Any:
    """:func:`adjust_saturation` by a factor from ``stateless_uniform([], seed, lower, upper)``.

    Parameters
    ----------
    image : Tensor
        RGB images.
    lower, upper : float
        ``0 <= lower < upper``.
    seed : shape [2] int
        The stateless seed.

    Returns
    -------
    Tensor
        Same shape and dtype as ``image``.
    """
    _check_range(lower, upper)
    return adjust_saturation(image, _random.stateless_uniform([], seed=seed, minval=lower, maxval=upper))


def stateless_random_brightness(image: Any, max_delta: float, seed: Any) -> Any:
    """:func:`adjust_brightness` by a delta from ``stateless_uniform([], seed, -max_delta, max_delta)``.

    Parameters
    ----------
    image : Tensor
        Any image.
    max_delta : float
        Non-negative bound.
    seed : shape [2] int
        The stateless seed.

    Returns
    -------
    Tensor
        Same dtype as ``image``.
    """
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, _random.stateless_uniform([], seed=seed, minval=-max_delta, maxval=max_delta))


def stateless_random_contrast(image: Any, lower: float, upper: float, seed: Any) -> Any:
    """:func:`adjust_contrast` by a factor from ``stateless_uniform([], seed, lower, upper)``.

    Parameters
    ----------
    image : Tensor
        At least 3-D image.
    lower, upper : float
        ``0 <= lower < upper``.
    seed : shape [2] int
        The stateless seed.

    Returns
    -------
    Tensor
        Same dtype as ``image``.
    """
    _check_range(lower, upper)
    return adjust_contrast(image, _random.stateless_uniform([], seed=seed, minval=lower, maxval=upper))


def _stateless_flip(image: Any, axis_from_end: int, seed: Any) -> Any:
    image = _at_least_3d(image)
    rank = len(_shape(image))
    if rank not in (3, 4):
        raise ValueError(f"'image' (shape {tuple(_shape(image))}) must have either 3 or 4 dimensions.")
    flipped = _c.reverse(image, [rank - axis_from_end])
    n = _shape(image)[0] if rank == 4 else 1
    # TF draws one uniform per image (a scalar for one image) and flips where it is below 0.5.
    u = _random.stateless_uniform([n] if rank == 4 else [], seed=seed, minval=0, maxval=1.0)
    mask = _c.reshape(u < 0.5, [n, 1, 1, 1] if rank == 4 else [1, 1, 1])
    return _c.where(_c.broadcast_to(mask, _c.shape(image)), flipped, image)


def stateless_random_flip_left_right(image: Any, seed: Any) -> Any:
    """Flip each image left-right with probability 1/2, decided by the stateless ``seed``.

    Parameters
    ----------
    image : Tensor
        ``[batch, height, width, channels]`` or ``[height, width, channels]``.
    seed : shape [2] int
        The stateless seed.

    Returns
    -------
    Tensor
        Same shape and dtype.
    """
    return _stateless_flip(image, 2, seed)


def stateless_random_flip_up_down(image: Any, seed: Any) -> Any:
    """Flip each image upside down with probability 1/2, decided by the stateless ``seed``.

    Parameters
    ----------
    image : Tensor
        ``[batch, height, width, channels]`` or ``[height, width, channels]``.
    seed : shape [2] int
        The stateless seed.

    Returns
    -------
    Tensor
        Same shape and dtype.
    """
    return _stateless_flip(image, 3, seed)


def stateless_random_crop(value: Any, size: Any, seed: Any, name: str | None = None) -> Any:
    """A crop of shape ``size`` at an offset drawn from the stateless ``seed``.

    Parameters
    ----------
    value : Tensor
        Any tensor.
    size : sequence of int
        Crop shape, one entry per axis, each ``<=`` the corresponding dimension.
    seed : shape [2] int
        The stateless seed.
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        ``value[offset : offset + size]``.
    """
    from ._array_extra import slice as _slice

    value = _tensor(value)
    size_np = [int(s) for s in np.asarray(_static(size)).reshape(-1)]
    shape = _shape(value)
    if len(size_np) != len(shape):
        raise _errors.InvalidArgumentError(
            None, None, f"Incompatible shapes: [{len(shape)}] vs. [{len(size_np)}] (stateless_random_crop: size "
            f"needs one entry per dimension of the value, shape {tuple(shape)})")
    if any(s < 0 or s > d for s, d in zip(size_np, shape)):
        raise _errors.InvalidArgumentError(None, None, f"Need value.shape >= size, got {list(shape)} {size_np}")
    limit = np.array([d - s + 1 for s, d in zip(size_np, shape)], dtype=np.int32)
    r = _random.stateless_uniform([len(shape)], seed=seed, minval=0, maxval=2**31 - 1, dtype="int32")
    offset = r - (r // _c.constant(limit)) * _c.constant(limit)
    return _slice(value, offset, size_np)


# ------------------------------------------------------------------------------------ crop_and_resize

def crop_and_resize(image: Any, boxes: Any, box_indices: Any, crop_size: Any, method: str = "bilinear",
                    extrapolation_value: float = 0.0, name: str | None = None) -> Any:
    """Crop boxes out of a batch of images and resize each crop to ``crop_size``, as ``tf.image.crop_and_resize``.

    Box ``[y1, x1, y2, x2]`` uses normalized coordinates (``y * (height - 1)`` in pixels); ``y1 > y2``
    flips the crop. Samples outside the image get ``extrapolation_value``. Differentiable with respect
    to ``image`` and (bilinear) ``boxes``, with TF's gradients.

    Parameters
    ----------
    image : Tensor
        ``[batch, height, width, depth]``, any real dtype.
    boxes : Tensor
        ``[num_boxes, 4]`` float32.
    box_indices : Tensor
        ``[num_boxes]`` int32, the image of each box, in ``[0, batch)``.
    crop_size : sequence of 2 ints
        ``[crop_height, crop_width]``, both positive.
    method : str
        "bilinear" or "nearest".
    extrapolation_value : float
        Value of samples outside the image.
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        float32 ``[num_boxes, crop_height, crop_width, depth]``.
    """
    image = _tensor(image)
    ishape = _shape(image)
    if len(ishape) != 4:
        raise _errors.InvalidArgumentError(None, None, f"input image must be 4-D, got shape {tuple(ishape)}")
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"method must be 'bilinear' or 'nearest', got {method!r}")
    boxes = _tensor(boxes)
    if as_dtype(boxes.dtype).name != "float32":
        if as_dtype(boxes.dtype).is_floating:
            raise TypeError(f"crop_and_resize: 'boxes' must be float32, got {as_dtype(boxes.dtype).name}")
        boxes = _c.cast(boxes, "float32")
    box_indices = _tensor(box_indices)
    if not as_dtype(box_indices.dtype).is_integer:
        raise TypeError(f"crop_and_resize: 'box_indices' must be int32, got {as_dtype(box_indices.dtype).name}")
    bshape, ishp = _shape(boxes), _shape(box_indices)
    if len(bshape) != 2 or bshape[1] != 4:
        raise _errors.InvalidArgumentError(
            None, None, f"boxes must be 2-D [num_boxes, 4], got shape {tuple(bshape)}")
    if len(ishp) != 1 or ishp[0] != bshape[0]:
        raise _errors.InvalidArgumentError(
            None, None, f"box_index has incompatible shape {tuple(ishp)}; boxes has shape {tuple(bshape)}")
    cs = np.asarray(_static(crop_size)).reshape(-1)
    if cs.shape != (2,):
        raise _errors.InvalidArgumentError(None, None, "crop_size must be a 1-D tensor of 2 elements")
    ch, cw = int(cs[0]), int(cs[1])
    if ch <= 0 or cw <= 0:
        raise _errors.InvalidArgumentError(None, None, f"crop dimensions must be positive, got {[ch, cw]}")
    batch, h, w, depth = (int(d) for d in ishape)
    try:
        bi = np.asarray(_static(box_indices))
    except Exception:
        bi = None
    if bi is not None and bi.size and (bi.min() < 0 or bi.max() >= batch):
        bad = int(bi[(bi < 0) | (bi >= batch)][0])
        raise _errors.InvalidArgumentError(None, None, f"box_index has values outside [0, batch_size): {bad} "
                                           f"(batch_size {batch})")
    n = int(bshape[0])
    x = _c.cast(image, "float32")
    if n == 0:
        return _c.zeros([0, ch, cw, depth], "float32")
    y1, x1, y2, x2 = boxes[:, 0:1], boxes[:, 1:2], boxes[:, 2:3], boxes[:, 3:4]
    f32 = np.float32

    def coords(c1: Any, c2: Any, size: int, crop: int) -> Any:
        span = f32(size - 1)
        if crop > 1:
            scale = (c2 - c1) * _c.constant(span / f32(crop - 1))
            return c1 * _c.constant(span) + _c.constant(np.arange(crop, dtype=np.float32)[None, :]) * scale
        return _c.constant(f32(0.5)) * (c1 + c2) * _c.constant(span)

    in_y = coords(y1, y2, h, ch)  # [n, ch] (or [n, 1] broadcasting when crop is 1)
    in_x = coords(x1, x2, w, cw)
    in_y = _c.broadcast_to(in_y, [n, ch])
    in_x = _c.broadcast_to(in_x, [n, cw])
    ok_y = _c.logical_and(in_y >= _c.constant(f32(0)), in_y <= _c.constant(f32(h - 1)))
    ok_x = _c.logical_and(in_x >= _c.constant(f32(0)), in_x <= _c.constant(f32(w - 1)))
    bidx = _c.cast(box_indices, "int32")

    def gather(src: Any, iy: Any, ix: Any) -> Any:
        iy = _c.minimum(_c.maximum(iy, _c.constant(np.int32(0))), _c.constant(np.int32(h - 1)))
        ix = _c.minimum(_c.maximum(ix, _c.constant(np.int32(0))), _c.constant(np.int32(w - 1)))
        idx = _c.stack([_c.broadcast_to(_c.reshape(bidx, [n, 1, 1]), [n, ch, cw]),
                        _c.broadcast_to(_c.reshape(iy, [n, ch, 1]), [n, ch, cw]),
                        _c.broadcast_to(_c.reshape(ix, [n, 1, cw]), [n, ch, cw])], axis=-1)
        return _c.gather_nd(src, idx)  # [n, ch, cw, depth]

    def bilinear(src: Any, in_y: Any, in_x: Any) -> Any:
        fy = _c.floor(_c.stop_gradient(in_y))
        fx = _c.floor(_c.stop_gradient(in_x))
        top, left = _c.cast(fy, "int32"), _c.cast(fx, "int32")
        bottom = _c.cast(_math.ceil(_c.stop_gradient(in_y)), "int32")
        right = _c.cast(_math.ceil(_c.stop_gradient(in_x)), "int32")
        y_lerp = _c.reshape(in_y - fy, [n, ch, 1, 1])
        x_lerp = _c.reshape(in_x - fx, [n, 1, cw, 1])
        tl, tr = gather(src, top, left), gather(src, top, right)
        bl, br = gather(src, bottom, left), gather(src, bottom, right)
        t = tl + (tr - tl) * x_lerp
        b = bl + (br - bl) * x_lerp
        return t + (b - t) * y_lerp

    if method == "nearest":
        # TF rounds half away from zero (roundf); the in-image coordinates are >= 0, so floor(x + 0.5).
        iy = _c.cast(_c.floor(_c.stop_gradient(in_y) + _c.constant(f32(0.5))), "int32")
        ix = _c.cast(_c.floor(_c.stop_gradient(in_x) + _c.constant(f32(0.5))), "int32")
        out = gather(x, iy, ix)
        # TF's gradient for the boxes is the bilinear one whatever the method (CropAndResizeGradBoxes):
        # add it with a zero value so that only the box gradient sees it.
        box_path = bilinear(_c.stop_gradient(x), in_y, in_x)
        out = out + (box_path - _c.stop_gradient(box_path))
    else:
        out = bilinear(x, in_y, in_x)
    ok = _c.logical_and(_c.reshape(ok_y, [n, ch, 1, 1]), _c.reshape(ok_x, [n, 1, cw, 1]))
    ok = _c.broadcast_to(ok, [n, ch, cw, depth])
    fill = _c.fill([n, ch, cw, depth], _c.constant(f32(extrapolation_value)))
    return _c.where(ok, out, fill)


# ------------------------------------------------------------------------------------ extract_patches

def _four(v: Any, what: str) -> list[int]:
    vals = [int(a) for a in np.asarray(_static(v)).reshape(-1)]
    if len(vals) != 4 or vals[0] != 1 or vals[3] != 1:
        raise ValueError(f"extract_patches: {what} must be [1, rows, cols, 1], got {vals}")
    if min(vals) <= 0:
        raise ValueError(f"extract_patches: {what} must be positive, got {vals}")
    return vals


def extract_patches(images: Any, sizes: Any, strides: Any, rates: Any, padding: str, name: str | None = None) -> Any:
    """Gather ``sizes``-shaped patches into the depth axis, as ``tf.image.extract_patches``.

    Output position ``(i, j)`` holds the patch whose top-left input pixel is ``(i * stride, j * stride)``
    (after "SAME" zero padding), sampled every ``rate`` pixels, flattened row, column, channel.

    Parameters
    ----------
    images : Tensor
        ``[batch, rows, cols, depth]``.
    sizes : sequence of 4 int
        ``[1, ksize_rows, ksize_cols, 1]``.
    strides : sequence of 4 int
        ``[1, stride_rows, stride_cols, 1]``.
    rates : sequence of 4 int
        ``[1, rate_rows, rate_cols, 1]`` (dilation).
    padding : str
        "VALID" or "SAME".
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        ``[batch, out_rows, out_cols, ksize_rows * ksize_cols * depth]``, same dtype as ``images``.
    """
    images = _tensor(images)
    shape = _shape(images)
    if len(shape) != 4:
        raise ValueError(f"extract_patches: images must be 4-D [batch, rows, cols, depth], got shape {tuple(shape)}")
    k = _four(sizes, "sizes")
    s = _four(strides, "strides")
    r = _four(rates, "rates")
    padding = str(padding).upper()
    if padding not in ("VALID", "SAME"):
        raise ValueError(f"extract_patches: padding must be 'VALID' or 'SAME', got {padding!r}")
    batch, rows, cols, depth = (int(d) for d in shape)
    idx = []
    pads = []
    for size, kk, ss, rr in ((rows, k[1], s[1], r[1]), (cols, k[2], s[2], r[2])):
        eff = kk + (kk - 1) * (rr - 1)
        if padding == "VALID":
            out = max((size - eff + ss) // ss, 0)
            before = 0
        else:
            out = -(-size // ss)
            total = max((out - 1) * ss + eff - size, 0)
            before = total // 2
        pads.append((before, out))
        idx.append(np.arange(out)[:, None] * ss + np.arange(kk)[None, :] * rr)  # [out, k] in padded coords
    (top, out_r), (left, out_c) = pads
    if out_r == 0 or out_c == 0:  # an empty slice of the input, so the gradient is zeros (as TF's)
        return _c.reshape(images[:, :0, :0, :], [batch, out_r, out_c, k[1] * k[2] * depth])
    need_r = int(idx[0].max()) + 1
    need_c = int(idx[1].max()) + 1
    x = _c.pad(images, [[0, 0], [top, max(need_r - top - rows, 0)], [left, max(need_c - left - cols, 0)], [0, 0]])
    g = _c.gather(x, _c.constant(idx[0].astype(np.int32)), axis=1)  # [b, out_r, kr, W', d]
    g = _c.gather(g, _c.constant(idx[1].astype(np.int32)), axis=3)  # [b, out_r, kr, out_c, kc, d]
    g = _c.transpose(g, [0, 1, 3, 2, 4, 5])
    return _c.reshape(g, [batch, out_r, out_c, k[1] * k[2] * depth])


# ---------------------------------------------------------------------------------- non-max suppression

def _iou_matrix(boxes: np.ndarray) -> np.ndarray:
    """TF's float32 IOU of every pair (corners in any order; empty boxes overlap nothing)."""
    b = boxes.astype(np.float32)
    ymin = np.minimum(b[:, 0], b[:, 2])
    xmin = np.minimum(b[:, 1], b[:, 3])
    ymax = np.maximum(b[:, 0], b[:, 2])
    xmax = np.maximum(b[:, 1], b[:, 3])
    area = (ymax - ymin) * (xmax - xmin)
    iy = np.maximum(np.minimum(ymax[:, None], ymax[None, :]) - np.maximum(ymin[:, None], ymin[None, :]),
                    np.float32(0))
    ix = np.maximum(np.minimum(xmax[:, None], xmax[None, :]) - np.maximum(xmin[:, None], xmin[None, :]),
                    np.float32(0))
    inter = (iy * ix).astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / ((area[:, None] + area[None, :]) - inter)
    bad = (area[:, None] <= 0) | (area[None, :] <= 0)
    return np.where(bad, np.float32(0), iou).astype(np.float32)


def _greedy_nms(sim: np.ndarray, scores: np.ndarray, max_out: int, thr: float, score_thr: float,
                sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """TF's ``DoNonMaxSuppressionOp`` (CPU): a max-heap on (score, -index), optional soft-NMS."""
    import heapq

    f32 = np.float32
    thr32, sthr = f32(thr), f32(score_thr)
    soft = sigma > 0
    scale = f32(-0.5) / f32(sigma) if soft else f32(0)
    heap = [(-f32(sc), i, 0) for i, sc in enumerate(scores.astype(np.float32)) if f32(sc) > sthr]
    heapq.heapify(heap)
    sel: list[int] = []
    sel_scores: list[float] = []
    while len(sel) < max_out and heap:
        neg, i, begin = heapq.heappop(heap)
        orig = f32(-neg)
        score = orig
        hard = False
        for j in range(len(sel) - 1, begin - 1, -1):
            s = sim[i, sel[j]]
            # Soft-NMS only rescales (TF ignores iou_threshold then); hard NMS drops above the threshold.
            score = f32(score * f32(np.exp(f32(scale * s * s)))) if soft else score
            if not soft and s > thr32:
                hard = True
                break
            if score <= sthr:
                break
        if hard:
            continue
        if score == orig:
            sel.append(i)
            sel_scores.append(float(score))
            continue
        if score > sthr:
            heapq.heappush(heap, (-score, i, len(sel)))
    return np.asarray(sel, dtype=np.int32), np.asarray(sel_scores, dtype=np.float32)


def _nms_common(boxes: Any, scores: Any, max_output_size: Any, fn: str, boxes_name: str = "boxes") -> tuple[
        Any, Any, int]:
    boxes, scores = _tensor(boxes), _tensor(scores)
    bshape, sshape = _shape(boxes), _shape(scores)
    if boxes_name == "boxes":
        if len(bshape) != 2 or bshape[1] != 4:
            raise _errors.InvalidArgumentError(None, None, f"{fn}: boxes must be 2-D [num_boxes, 4], "
                                               f"got shape {tuple(bshape)}")
    elif len(bshape) != 2 or bshape[0] != bshape[1]:
        raise _errors.InvalidArgumentError(None, None, f"{fn}: overlaps must be square [num_boxes, num_boxes], "
                                           f"got shape {tuple(bshape)}")
    if len(sshape) != 1 or sshape[0] != bshape[0]:
        raise _errors.InvalidArgumentError(None, None, f"{fn}: scores must be 1-D [num_boxes] matching {boxes_name} "
                                           f"shape {tuple(bshape)}, got shape {tuple(sshape)}")
    for t, nm in ((boxes, boxes_name), (scores, "scores")):
        if not as_dtype(t.dtype).is_floating:
            raise TypeError(f"{fn}: {nm} must be a floating tensor, got {as_dtype(t.dtype).name}")
    m = np.asarray(_static(max_output_size))
    if m.ndim != 0:
        raise _errors.InvalidArgumentError(None, None, f"{fn}: max_output_size must be 0-D, got shape {m.shape}")
    if int(m) < 0:
        raise _errors.InvalidArgumentError(None, None, f"{fn}: max_output_size must be non-negative, got {int(m)}")
    return boxes, scores, int(m)


def _threshold(v: Any, name: str, check01: bool = True) -> float:
    t = float(np.asarray(_static(v)))
    if check01 and not 0.0 <= t <= 1.0:
        raise _errors.InvalidArgumentError(None, None, f"{name} must be in [0, 1], got {t}")
    return t


def non_max_suppression(boxes: Any, scores: Any, max_output_size: Any, iou_threshold: Any = 0.5,
                        score_threshold: Any = float("-inf"), name: str | None = None) -> Any:
    """Greedily select boxes by descending score, dropping those overlapping a selected box too much.

    As ``tf.image.non_max_suppression`` (``NonMaxSuppressionV3``): a box is dropped when its IOU with an
    already selected box is greater than ``iou_threshold``; boxes scoring ``<= score_threshold`` are never
    selected; equal scores are taken in index order.

    Parameters
    ----------
    boxes : Tensor
        ``[num_boxes, 4]`` float corners ``[y1, x1, y2, x2]`` (either diagonal).
    scores : Tensor
        ``[num_boxes]`` float.
    max_output_size : int
        The most indices returned.
    iou_threshold : float
        In ``[0, 1]``.
    score_threshold : float
        Minimum score (exclusive).
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        int32 ``[M]`` selected indices into ``boxes``, ``M <= max_output_size``.
    """
    boxes, scores, m = _nms_common(boxes, scores, max_output_size, "non_max_suppression")
    thr = _threshold(iou_threshold, "iou_threshold")
    sthr = _threshold(score_threshold, "score_threshold", False)

    def run(b: np.ndarray, s: np.ndarray) -> np.ndarray:
        return _greedy_nms(_iou_matrix(b), s, m, thr, sthr, 0.0)[0]

    return _numpy_function(run, [boxes, scores], "int32")


def non_max_suppression_with_scores(boxes: Any, scores: Any, max_output_size: Any, iou_threshold: Any = 0.5,
                                    score_threshold: Any = float("-inf"), soft_nms_sigma: Any = 0.0,
                                    name: str | None = None) -> tuple[Any, Any]:
    """:func:`non_max_suppression` also returning the scores, with optional Soft-NMS.

    As ``tf.image.non_max_suppression_with_scores`` (``NonMaxSuppressionV5``): with ``soft_nms_sigma > 0``
    an overlapping box's score is multiplied by ``exp(-iou**2 / (2 * sigma))`` instead of being dropped
    and it competes again with its reduced score (TF's kernel then ignores ``iou_threshold``, and so does
    this function, beyond checking it is in ``[0, 1]``).

    Parameters
    ----------
    boxes : Tensor
        ``[num_boxes, 4]`` float corners.
    scores : Tensor
        ``[num_boxes]`` float.
    max_output_size : int
        The most indices returned.
    iou_threshold : float
        In ``[0, 1]``.
    score_threshold : float
        Minimum score (exclusive).
    soft_nms_sigma : float
        Soft-NMS sigma; 0 means hard NMS. Must be non-negative.
    name : str, optional
        Ignored.

    Returns
    -------
    tuple of Tensor
        int32 ``[M]`` selected indices and float32 ``[M]`` their (possibly reduced) scores.
    """
    boxes, scores, m = _nms_common(boxes, scores, max_output_size, "non_max_suppression_with_scores")
    thr = _threshold(iou_threshold, "iou_threshold")
    sthr = _threshold(score_threshold, "score_threshold", False)
    sigma = _threshold(soft_nms_sigma, "soft_nms_sigma", False)
    if sigma < 0:
        raise _errors.InvalidArgumentError(None, None, f"soft_nms_sigma must be >= 0, got {sigma}")

    def run(b: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _greedy_nms(_iou_matrix(b), s, m, thr, sthr, sigma)

    idx, sc = _numpy_function(run, [boxes, scores], ["int32", "float32"])
    return idx, _c.cast(sc, scores.dtype) if as_dtype(scores.dtype).name != "float32" else sc


def non_max_suppression_overlaps(overlaps: Any, scores: Any, max_output_size: Any, overlap_threshold: Any = 0.5,
                                 score_threshold: Any = float("-inf"), name: str | None = None) -> Any:
    """Greedy NMS driven by a given ``[n, n]`` overlap matrix instead of box IOUs.

    As ``tf.image.non_max_suppression_overlaps``: a candidate is dropped when its overlap with a selected
    box is greater than ``overlap_threshold``.

    Parameters
    ----------
    overlaps : Tensor
        float ``[num_boxes, num_boxes]``; ``overlaps[i, j]`` is the overlap of boxes i and j.
    scores : Tensor
        ``[num_boxes]`` float.
    max_output_size : int
        The most indices returned.
    overlap_threshold : float
        Overlaps above this suppress (not range-checked, as TF).
    score_threshold : float
        Minimum score (exclusive).
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        int32 ``[M]`` selected indices.
    """
    overlaps, scores, m = _nms_common(overlaps, scores, max_output_size, "non_max_suppression_overlaps", "overlaps")
    thr = _threshold(overlap_threshold, "overlap_threshold", False)
    sthr = _threshold(score_threshold, "score_threshold", False)

    def run(o: np.ndarray, s: np.ndarray) -> np.ndarray:
        return _greedy_nms(o.astype(np.float32), s, m, thr, sthr, 0.0)[0]

    return _numpy_function(run, [overlaps, scores], "int32")


def _bbox_overlap_np(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """TF's ``_bbox_overlap``: ``[batch, n, 4]`` x ``[batch, m, 4]`` canonical boxes -> ``[batch, n, m]`` IOU."""
    f32 = np.float32
    ay0, ax0, ay1, ax1 = (a[..., k:k + 1] for k in range(4))
    by0, bx0, by1, bx1 = (np.swapaxes(b[..., k:k + 1], 1, 2) for k in range(4))
    i_area = np.maximum(np.minimum(ax1, bx1) - np.maximum(ax0, bx0), f32(0)) * np.maximum(
        np.minimum(ay1, by1) - np.maximum(ay0, by0), f32(0))
    a_area = (ay1 - ay0) * (ax1 - ax0)
    b_area = (by1 - by0) * (bx1 - bx0)
    u_area = a_area + b_area - i_area + f32(1e-8)
    return (i_area / u_area).astype(np.float32)


def _nms_padded_np(boxes: np.ndarray, scores: np.ndarray, max_out: int, thr: float, score_thr: float,
                   sorted_input: bool, canonical: bool, tile: int) -> tuple[np.ndarray, np.ndarray]:
    """TF's ``non_max_suppression_padded_v2`` (the tiled algorithm), step by step in float32."""
    f32 = np.float32
    batch_dims = list(boxes.shape[:-2])
    n = boxes.shape[-2]
    b = boxes.reshape(-1, n, 4).astype(np.float32)
    s = scores.reshape(-1, n).astype(np.float32)
    nb = b.shape[0]
    thr32 = f32(thr)
    if score_thr != float("-inf"):
        mask = (s > f32(score_thr)).astype(np.float32)
        s = s * mask
        b = b * mask[..., None]
    if not canonical and n > 0 and nb > 0:
        y1, x1, y2, x2 = (b[..., k] for k in range(4))
        ymin, ymax = (y1, y2) if b[0, 0, 0] <= b[0, 0, 2] else (y2, y1)
        xmin, xmax = (x1, x2) if b[0, 0, 1] <= b[0, 0, 3] else (x2, x1)
        b = np.stack([ymin, xmin, ymax, xmax], axis=-1)
    if not sorted_input:
        order = np.argsort(-s, axis=1, kind="stable").astype(np.int32)
        s = np.take_along_axis(s, order, 1)
        b = np.take_along_axis(b, order[..., None], 1)
    n_pad = int(np.ceil(f32(max(n, max_out)) / f32(tile))) * tile
    b = np.concatenate([b, np.zeros((nb, n_pad - n, 4), np.float32)], axis=1)
    output_size = np.zeros([nb], np.int32)
    idx = 0
    tri = np.arange(tile)[None, :] > np.arange(tile)[:, None]
    while nb and output_size.min() < max_out and idx < n_pad // tile:
        box_slice = b[:, idx * tile:(idx + 1) * tile].copy()
        for inner in range(idx):
            iou = _bbox_overlap_np(b[:, inner * tile:(inner + 1) * tile], box_slice)
            box_slice = np.all(iou < thr32, axis=1)[..., None].astype(np.float32) * box_slice
        iou = _bbox_overlap_np(box_slice, box_slice)
        iou = iou * (tri[None] & (iou >= thr32)).astype(np.float32)
        iou_sum = iou.sum(axis=(1, 2), dtype=np.float32)
        go = True
        while go:
            can = (iou.max(axis=1) < thr32).astype(np.float32)[:, :, None]
            iou_new = ((can * iou).max(axis=1) < thr32).astype(np.float32)[:, :, None] * iou
            sum_new = iou_new.sum(axis=(1, 2), dtype=np.float32)
            go = bool(np.any(iou_sum - sum_new > thr32))
            iou, iou_sum = iou_new, sum_new
        suppressed = iou.sum(axis=1) > 0
        box_slice = box_slice * (f32(1) - suppressed.astype(np.float32))[..., None]
        b[:, idx * tile:(idx + 1) * tile] = box_slice
        output_size += np.any(box_slice > 0, axis=2).sum(axis=1).astype(np.int32)
        idx += 1
    num_valid = np.minimum(output_size, max_out).astype(np.int32)
    ranked = np.any(b > 0, axis=2).astype(np.int32) * np.arange(n_pad, 0, -1, dtype=np.int32)[None]
    top = -np.sort(-ranked, axis=1)[:, :max_out]
    sel = np.minimum(n_pad - top, n - 1).astype(np.int32)
    if not sorted_input:
        sel = np.take_along_axis(order, np.maximum(sel, 0), 1) if n > 0 else sel
    sel = np.where(np.arange(max_out)[None] < num_valid[:, None], sel, 0).astype(np.int32)
    return sel.reshape(batch_dims + [max_out]), num_valid.reshape(batch_dims)


def non_max_suppression_padded(boxes: Any, scores: Any, max_output_size: Any, iou_threshold: Any = 0.5,
                               score_threshold: Any = float("-inf"), pad_to_max_output_size: bool = False,
                               name: str | None = None, sorted_input: bool = False,
                               canonicalized_coordinates: bool = False, tile_size: int = 512) -> tuple[Any, Any]:
    """Non-max suppression with a fixed-size (padded) result, batched, as ``tf.image.non_max_suppression_padded``.

    Runs TF 2's tiled algorithm (``non_max_suppression_padded_v2``) with its conventions: IOU has a 1e-8
    epsilon and suppresses at ``>= iou_threshold``; boxes scoring ``<= score_threshold`` are zeroed; only
    boxes with a positive coordinate can be selected; without ``canonicalized_coordinates`` the corner
    order of the first box decides the order for all boxes.

    Parameters
    ----------
    boxes : Tensor
        ``[..., num_boxes, 4]`` float corners.
    scores : Tensor
        ``[..., num_boxes]`` float.
    max_output_size : int
        Number of indices returned per batch entry (with ``pad_to_max_output_size``).
    iou_threshold : float
        Overlap at which a box suppresses another.
    score_threshold : float
        Boxes scoring at most this are dropped.
    pad_to_max_output_size : bool
        Pad the indices with zeros to ``max_output_size``; must be True for batched input.
    name : str, optional
        Ignored.
    sorted_input : bool
        The boxes are already sorted by descending score.
    canonicalized_coordinates : bool
        The boxes are ``[y_min, x_min, y_max, x_max]``.
    tile_size : int
        Boxes processed together (affects nothing but speed in TF; used the same way here).

    Returns
    -------
    tuple of Tensor
        int32 indices (``[..., max_output_size]``, or ``[num_valid]`` without padding) and the int32
        number of valid indices (``[...]``).
    """
    boxes, scores = _tensor(boxes), _tensor(scores)
    bshape, sshape = _shape(boxes), _shape(scores)
    if len(bshape) < 2 or bshape[-1] != 4:
        raise ValueError(f"non_max_suppression_padded: boxes must be [..., num_boxes, 4], got shape {tuple(bshape)}")
    if list(sshape) != list(bshape[:-1]):
        raise ValueError(f"non_max_suppression_padded: scores must have shape {tuple(bshape[:-1])} (boxes shape "
                         f"{tuple(bshape)}), got {tuple(sshape)}")
    if not pad_to_max_output_size and len(bshape) > 2:
        raise ValueError(f"'pad_to_max_output_size' (value {pad_to_max_output_size}) must be True for batched input")
    for t, nm in ((boxes, "boxes"), (scores, "scores")):
        if not as_dtype(t.dtype).is_floating:
            raise TypeError(f"non_max_suppression_padded: {nm} must be a floating tensor, got {as_dtype(t.dtype).name}")
    m = int(np.asarray(_static(max_output_size)))
    if m < 0:
        raise ValueError(f"non_max_suppression_padded: max_output_size must be non-negative, got {m}")
    if int(tile_size) <= 0:
        raise ValueError(f"non_max_suppression_padded: tile_size must be positive, got {tile_size}")
    thr = float(np.asarray(_static(iou_threshold)))
    sthr = float(np.asarray(_static(score_threshold)))

    def run(b: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if b.shape[-2] == 0 and m > 0:
            raise _errors.InvalidArgumentError(None, None, "non_max_suppression_padded: no boxes to select "
                                               f"max_output_size={m} from")
        return _nms_padded_np(b, s, m, thr, sthr, sorted_input, canonicalized_coordinates, int(tile_size))

    idx, num_valid = _numpy_function(run, [boxes, scores], ["int32", "int32"])
    if not pad_to_max_output_size:
        idx = idx[:num_valid]
    return idx, num_valid


# libstdc++'s heap and sort algorithms, step by step: TF's CombinedNonMaxSuppression kernel orders equal
# scores by where std::priority_queue and std::sort leave them, so ties need the same moves.

def _push_heap(a: list[Any], hole: int, top: int, value: Any, less: Any) -> None:
    parent = (hole - 1) // 2
    while hole > top and less(a[parent], value):
        a[hole] = a[parent]
        hole = parent
        parent = (hole - 1) // 2
    a[hole] = value


def _adjust_heap(a: list[Any], hole: int, length: int, value: Any, less: Any, base: int = 0) -> None:
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(a[base + child], a[base + child - 1]):
            child -= 1
        a[base + hole] = a[base + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[base + hole] = a[base + child - 1]
        hole = child - 1
    view = a[base:base + length]
    _push_heap(view, hole, top, value, less)
    a[base:base + length] = view


def _heap_pop(a: list[Any], less: Any) -> Any:
    """``priority_queue::top()`` then ``pop()``."""
    top = a[0]
    last = len(a) - 1
    if last > 0:
        value = a[last]
        a[last] = a[0]
        _adjust_heap(a, 0, last, value, less)
    a.pop()
    return top


def _std_sort(a: list[Any], less: Any) -> None:
    """libstdc++'s ``std::sort`` (introsort, median of three, final insertion sort)."""

    def swap(i: int, j: int) -> None:
        a[i], a[j] = a[j], a[i]

    def median_to_first(r: int, x: int, y: int, z: int) -> None:
        if less(a[x], a[y]):
            if less(a[y], a[z]):
                swap(r, y)
            elif less(a[x], a[z]):
                swap(r, z)
            else:
                swap(r, x)
        elif less(a[x], a[z]):
            swap(r, x)
        elif less(a[y], a[z]):
            swap(r, z)
        else:
            swap(r, y)

    def partition(first: int, last: int, pivot: int) -> int:
        while True:
            while less(a[first], a[pivot]):
                first += 1
            last -= 1
            while less(a[pivot], a[last]):
                last -= 1
            if not first < last:
                return first
            swap(first, last)
            first += 1

    def heap_sort(first: int, last: int) -> None:
        n = last - first
        if n > 1:
            parent = (n - 2) // 2
            while True:
                _adjust_heap(a, parent, n, a[first + parent], less, first)
                if parent == 0:
                    break
                parent -= 1
        while last - first > 1:
            last -= 1
            value = a[last]
            a[last] = a[first]
            _adjust_heap(a, 0, last - first, value, less, first)

    def introsort(first: int, last: int, depth: int) -> None:
        while last - first > 16:
            if depth == 0:
                heap_sort(first, last)
                return
            depth -= 1
            median_to_first(first, first + 1, first + (last - first) // 2, last - 1)
            cut = partition(first + 1, last, first)
            introsort(cut, last, depth)
            last = cut

    def linear_insert(i: int) -> None:
        val = a[i]
        j = i - 1
        while less(val, a[j]):
            a[i] = a[j]
            i = j
            j -= 1
        a[i] = val

    def insertion_sort(first: int, last: int) -> None:
        for i in range(first + 1, last):
            if less(a[i], a[first]):
                val = a[i]
                a[first + 1:i + 1] = a[first:i]
                a[first] = val
            else:
                linear_insert(i)

    n = len(a)
    if n == 0:
        return
    introsort(0, n, 2 * (n.bit_length() - 1))
    if n > 16:
        insertion_sort(0, 16)
        for i in range(16, n):
            linear_insert(i)
    else:
        insertion_sort(0, n)


def _combined_nms_np(boxes: np.ndarray, scores: np.ndarray, per_class: int, total: int, thr: float,
                     score_thr: float, pad_per_class: bool, clip: bool) -> tuple[np.ndarray, ...]:
    """TF's ``CombinedNonMaxSuppression`` CPU kernel: greedy NMS per (image, class), then the best
    ``total`` detections of each image by descending score."""
    f32 = np.float32
    nb, n, q = boxes.shape[0], boxes.shape[1], boxes.shape[2]
    nc = scores.shape[2]
    size_per_class = min(per_class, n)
    max_det = min(total, per_class * nc) if pad_per_class else total
    out_b = np.zeros((nb, max_det, 4), np.float32)
    out_s = np.zeros((nb, max_det), np.float32)
    out_c = np.zeros((nb, max_det), np.float32)
    valid = np.zeros((nb,), np.int32)

    def by_score(x: tuple[Any, ...], y: tuple[Any, ...]) -> bool:
        return bool(x[1] < y[1])

    def by_score_desc(x: tuple[Any, ...], y: tuple[Any, ...]) -> bool:
        return bool(x[1] > y[1])

    for bi in range(nb):
        results: list[tuple[Any, ...]] = [(-1, f32(-1), -1)] * (size_per_class * nc)
        for c in range(nc):
            cb = boxes[bi, :, c if q > 1 else 0, :]
            sc = scores[bi, :, c].astype(np.float32)
            iou = _iou_matrix(cb)
            heap: list[tuple[Any, ...]] = []
            for i in range(n):
                if sc[i] > f32(score_thr):
                    heap.append((i, sc[i]))
                    _push_heap(heap, len(heap) - 1, 0, heap[-1], by_score)
            sel: list[int] = []
            while len(sel) < size_per_class and heap:
                i, score = _heap_pop(heap, by_score)
                if all(not iou[i, j] > f32(thr) for j in reversed(sel)):
                    results[len(sel) + size_per_class * c] = (i, score, c)
                    sel.append(i)
        _std_sort(results, by_score_desc)
        count = 0
        for r in range(min(len(results), max_det)):
            i, score, c = results[r]
            if i == -1:
                break
            bx = boxes[bi, i, c if q > 1 else 0, :].astype(np.float32)
            out_b[bi, r] = np.clip(bx, f32(0), f32(1)) if clip else bx
            out_s[bi, r] = score
            out_c[bi, r] = f32(c)
            count += 1
        valid[bi] = count
    return out_b, out_s, out_c, valid


def combined_non_max_suppression(boxes: Any, scores: Any, max_output_size_per_class: Any, max_total_size: Any,
                                 iou_threshold: Any = 0.5, score_threshold: Any = float("-inf"),
                                 pad_per_class: bool = False, clip_boxes: bool = True,
                                 name: str | None = None) -> Any:
    """Greedy NMS per image and class, then the best detections of each image over all classes.

    As ``tf.image.combined_non_max_suppression``: per class a box is dropped when its IOU with a selected
    box of that class is greater than ``iou_threshold``; boxes scoring ``<= score_threshold`` are ignored.

    Parameters
    ----------
    boxes : Tensor
        float ``[batch, num_boxes, q, 4]``; ``q`` is 1 (boxes shared by all classes) or ``num_classes``.
    scores : Tensor
        float ``[batch, num_boxes, num_classes]``.
    max_output_size_per_class : int
        Boxes kept per class.
    max_total_size : int
        Detections kept per image.
    iou_threshold : float
        In ``[0, 1]``.
    score_threshold : float
        Minimum score (exclusive).
    pad_per_class : bool
        Pad to ``min(max_total_size, max_output_size_per_class * num_classes)`` instead of ``max_total_size``.
    clip_boxes : bool
        Clip the returned coordinates to ``[0, 1]``.
    name : str, optional
        Ignored.

    Returns
    -------
    CombinedNonMaxSuppression
        A namedtuple ``(nmsed_boxes [batch, D, 4], nmsed_scores [batch, D], nmsed_classes [batch, D],
        valid_detections [batch])``: float32, float32, float32 and int32, zero-padded past the valid ones.
    """
    boxes, scores = _tensor(boxes), _tensor(scores)
    bshape, sshape = _shape(boxes), _shape(scores)
    if len(bshape) != 4 or bshape[3] != 4:
        raise _errors.InvalidArgumentError(None, None, "combined_non_max_suppression: boxes must be 4-D [batch, "
                                           f"num_boxes, q, 4], got shape {tuple(bshape)}")
    if len(sshape) != 3 or sshape[0] != bshape[0] or sshape[1] != bshape[1]:
        raise _errors.InvalidArgumentError(None, None, "combined_non_max_suppression: scores must be [batch, "
                                           f"num_boxes, num_classes] matching boxes {tuple(bshape)}, got "
                                           f"{tuple(sshape)}")
    if bshape[2] != 1 and bshape[2] != sshape[2]:
        raise _errors.InvalidArgumentError(None, None, "combined_non_max_suppression: third dimension of boxes "
                                           f"must be either 1 or num_classes ({sshape[2]}), got {bshape[2]}")
    for t, nm in ((boxes, "boxes"), (scores, "scores")):
        if as_dtype(t.dtype).name != "float32":
            raise TypeError(f"combined_non_max_suppression: {nm} must be float32, got {as_dtype(t.dtype).name}")
    per_class = int(np.asarray(_static(max_output_size_per_class)))
    total = int(np.asarray(_static(max_total_size)))
    if per_class <= 0:
        raise _errors.InvalidArgumentError(None, None, "max_size_per_class should be > 0, got "
                                           f"{per_class}")
    if total <= 0:
        raise _errors.InvalidArgumentError(None, None, f"max_total_size should be > 0, got {total}")
    thr = _threshold(iou_threshold, "iou_threshold")
    sthr = _threshold(score_threshold, "score_threshold", False)

    def run(b: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, ...]:
        return _combined_nms_np(b, s, per_class, total, thr, sthr, bool(pad_per_class), bool(clip_boxes))

    out = _numpy_function(run, [boxes, scores], ["float32", "float32", "float32", "int32"])
    return CombinedNonMaxSuppression(*out)


_DEFAULT_BOX_COLORS = [[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1],
                       [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]]


def draw_bounding_boxes(images: Any, boxes: Any, colors: Any, name: str | None = None) -> Any:
    """Draw one-pixel box outlines on a batch of images, as ``tf.image.draw_bounding_boxes``.

    Box ``[y_min, x_min, y_max, x_max]`` is in normalized coordinates (pixel ``int(y * (height - 1))``,
    truncated as TF's kernel); box ``k`` gets color ``colors[k % len(colors)]``; later boxes paint over
    earlier ones; inverted or fully outside boxes are skipped and edges outside the image are not drawn.

    Parameters
    ----------
    images : Tensor
        float32 or float16 ``[batch, height, width, depth]``, depth 1, 3 or 4.
    boxes : Tensor
        ``[batch, num_boxes, 4]`` float.
    colors : Tensor or None
        ``[num_colors, >= depth]`` float RGBA colors; None or empty for TF's default palette.
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        ``images`` with the outlines drawn, same shape and dtype.
    """
    images = _tensor(images)
    shape = _shape(images)
    dt = as_dtype(images.dtype)
    if dt.name not in ("float32", "float16"):
        raise TypeError(f"draw_bounding_boxes: images must be float32 or float16, got {dt.name}")
    if len(shape) != 4:
        raise _errors.InvalidArgumentError(None, None, f"The rank of the images should be 4, got shape {tuple(shape)}")
    nb, h, w, depth = (int(d) for d in shape)
    if depth not in (1, 3, 4):
        raise _errors.InvalidArgumentError(None, None, f"Channel depth should be either 1 (GRY), 3 (RGB), or 4 "
                                           f"(RGBA), got {depth}")
    bx = np.asarray(_static(boxes), dtype=np.float32)
    if bx.ndim != 3 or bx.shape[0] != nb or bx.shape[2] != 4:
        raise _errors.InvalidArgumentError(None, None, f"boxes must be [batch, num_boxes, 4] with batch {nb}, got "
                                           f"shape {bx.shape}")
    table = np.zeros((0, 4), np.float32) if colors is None else np.asarray(_static(colors), dtype=np.float32)
    if table.size == 0:
        table = np.array(_DEFAULT_BOX_COLORS, np.float32)
        if depth == 1:
            table[:, 0] = 1
    if table.ndim != 2 or table.shape[1] < depth:
        raise _errors.InvalidArgumentError(None, None, f"Channel depth ({depth}) is greater than the color "
                                           f"table's columns (colors shape {table.shape})")
    paint = np.full((nb, h, w), -1, np.int64)
    f32 = np.float32
    for b in range(nb):
        for k in range(bx.shape[1]):
            c = k % table.shape[0]
            r0, c0 = int(bx[b, k, 0] * f32(h - 1)), int(bx[b, k, 1] * f32(w - 1))
            r1, c1 = int(bx[b, k, 2] * f32(h - 1)), int(bx[b, k, 3] * f32(w - 1))
            if r0 > r1 or c0 > c1 or r1 < 0 or c1 < 0 or r0 >= h or c0 >= w:
                continue
            r0c, r1c, c0c, c1c = max(r0, 0), min(r1, h - 1), max(c0, 0), min(c1, w - 1)
            if r0 >= 0:
                paint[b, r0, c0c:c1c + 1] = c
            if r1 < h:
                paint[b, r1, c0c:c1c + 1] = c
            if c0 >= 0:
                paint[b, r0c:r1c + 1, c0] = c
            if c1 < w:
                paint[b, r0c:r1c + 1, c1] = c
    drawn: np.ndarray = table[np.maximum(paint, 0)][..., :depth].astype(dt.as_numpy_dtype)
    mask = np.broadcast_to((paint >= 0)[..., None], drawn.shape)
    return _c.where(_c.constant(mask), _c.constant(drawn), images)


def _lrint(x: Any) -> int:
    return int(np.rint(np.float32(x)))


def _random_crop_rect(rng: np.random.Generator, width: int, height: int, min_rel: float, max_rel: float,
                      aspect: float) -> tuple[int, int, int, int] | None:
    """TF's ``GenerateRandomCrop``: a crop of the given aspect ratio and relative area, or None."""
    f32 = np.float32
    if max_rel <= 0.0 or aspect <= 0.0 or width <= 0 or height <= 0 or min_rel > max_rel:
        return None
    min_area = f32(min_rel) * f32(width) * f32(height)
    max_area = f32(max_rel) * f32(width) * f32(height)
    h = _lrint(np.sqrt(min_area / f32(aspect)))
    max_h = _lrint(np.sqrt(max_area / f32(aspect)))
    if _lrint(max_h * f32(aspect)) > width:
        max_h = int((width + 0.5 - 1e-7) / f32(aspect))
        if _lrint(max_h * f32(aspect)) > width:
            max_h -= 1
    max_h = min(max_h, height)
    h = min(h, max_h)
    if h < max_h:
        h += int(rng.integers(0, max_h - h + 1))
    w = _lrint(h * f32(aspect))
    area = f32(w * h)
    if area < min_area:
        h += 1
        w = _lrint(h * f32(aspect))
        area = f32(w * h)
    if area < min_area:
        return None
    if area > max_area:
        h -= 1
        w = _lrint(h * f32(aspect))
        area = f32(w * h)
    if area < min_area or area > max_area or w > width or h > height or w <= 0 or h <= 0:
        return None
    y = int(rng.integers(0, height - h)) if h < height else 0
    x = int(rng.integers(0, width - w)) if w < width else 0
    return x, y, x + w, y + h


def _sample_box_np(seed: np.ndarray, size: np.ndarray, boxes: np.ndarray, min_covered: float,
                   aspect_range: tuple[float, float], area_range: tuple[float, float], attempts: int,
                   use_image: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """TF's ``SampleDistortedBoundingBoxV2`` kernel, drawing from a numpy generator seeded by ``seed``."""
    rng = np.random.default_rng([int(v) & 0xFFFFFFFF for v in np.asarray(seed).reshape(-1)])
    height, width = int(size[0]), int(size[1])
    rects = []
    for b in boxes.reshape(-1, 4).astype(np.float32):
        ymin, xmin, ymax, xmax = (float(v) for v in b)
        if not (0 <= ymin <= 1 and 0 <= xmin <= 1 and 0 <= ymax <= 1 and 0 <= xmax <= 1):
            raise _errors.InvalidArgumentError(None, None, f"All bounding box coordinates must be in [0.0, 1.0]: "
                                               f"{[ymin, xmin, ymax, xmax]}")
        if ymin > ymax or xmin > xmax:
            raise _errors.InvalidArgumentError(None, None, f"Bounding box coordinates must satisfy ymin <= ymax "
                                               f"and xmin <= xmax: {[ymin, xmin, ymax, xmax]}")
        fw, fh = np.float32(width), np.float32(height)  # float32 products truncated to ints, as TF's kernel
        rects.append((int(b[1] * fw), int(b[0] * fh), int(b[3] * fw), int(b[2] * fh)))
    if not rects:
        if not use_image:
            raise _errors.InvalidArgumentError(None, None, "No bounding boxes provided as input. One must enable "
                                               "use_image_if_no_bounding_boxes if you wish to not provide any "
                                               "bounding boxes.")
        rects = [(0, 0, width, height)]

    def area(r: tuple[int, int, int, int]) -> float:
        return float(max(r[2] - r[0], 0) * max(r[3] - r[1], 0))

    crop: tuple[int, int, int, int] = (0, 0, width, height)
    for _ in range(attempts):
        aspect = float(np.float32(rng.random()) * np.float32(aspect_range[1] - aspect_range[0])
                       + np.float32(aspect_range[0]))
        cand = _random_crop_rect(rng, width, height, area_range[0], area_range[1], aspect)
        if cand is None or area(cand) < 1.0:
            continue
        covered = False
        for r in rects:
            obj = area(r)
            if obj < 1.0:
                continue
            inter = (max(cand[0], r[0]), max(cand[1], r[1]), min(cand[2], r[2]), min(cand[3], r[3]))
            if np.float32(area(inter)) / np.float32(obj) >= np.float32(min_covered):
                covered = True
                break
        if covered:
            crop = cand
            break
    x0, y0, x1, y1 = crop
    begin = np.array([y0, x0, 0], np.int32)
    size_out = np.array([y1 - y0, x1 - x0, -1], np.int32)
    bbox = np.array([[[y0 / height, x0 / width, y1 / height, x1 / width]]], np.float32)
    return begin, size_out, bbox


def _sample_args(image_size: Any, bounding_boxes: Any, min_object_covered: Any, aspect_ratio_range: Any,
                 area_range: Any, max_attempts: Any) -> tuple[Any, Any, float, tuple[float, float],
                                                              tuple[float, float], int]:
    size = _tensor(image_size)
    if len(_shape(size)) != 1 or _shape(size)[0] != 3 or not as_dtype(size.dtype).is_integer:
        raise ValueError(f"image_size must be a 1-D integer tensor [height, width, channels], got shape "
                         f"{tuple(_shape(size))} dtype {as_dtype(size.dtype).name}")
    boxes = _c.cast(_tensor(bounding_boxes), "float32")
    if len(_shape(boxes)) != 3 or _shape(boxes)[-1] != 4:
        raise ValueError(f"bounding_boxes must be 3-D [batch, N, 4], got shape {tuple(_shape(boxes))}")
    ar = tuple(float(v) for v in (aspect_ratio_range if aspect_ratio_range is not None else (0.75, 1.33)))
    rr = tuple(float(v) for v in (area_range if area_range is not None else (0.05, 1.0)))
    if len(ar) != 2 or len(rr) != 2:
        raise ValueError("aspect_ratio_range and area_range must each have 2 elements")
    if ar[0] <= 0 or ar[0] > ar[1]:
        raise _errors.InvalidArgumentError(None, None, f"aspect_ratio_range must be positive and ordered, got {ar}")
    if rr[0] < 0 or rr[1] > 1 or rr[0] > rr[1]:
        raise _errors.InvalidArgumentError(None, None, f"area_range must be within [0, 1] and ordered, got {rr}")
    attempts = 100 if max_attempts is None else int(max_attempts)
    if attempts <= 0:
        raise _errors.InvalidArgumentError(None, None, f"max_attempts must be positive: {attempts}")
    mc = float(np.asarray(_static(min_object_covered)))
    if mc < 0:
        raise _errors.InvalidArgumentError(None, None, f"min_object_covered must be non-negative: {mc}")
    return size, boxes, mc, (ar[0], ar[1]), (rr[0], rr[1]), attempts


def sample_distorted_bounding_box(image_size: Any, bounding_boxes: Any, seed: int = 0, min_object_covered: Any = 0.1,
                                  aspect_ratio_range: Any = None, area_range: Any = None, max_attempts: Any = None,
                                  use_image_if_no_bounding_boxes: Any = None, name: str | None = None) -> Any:
    """A random crop that covers enough of some bounding box, as ``tf.image.sample_distorted_bounding_box``.

    TF's kernel logic (rounding, retries, overlap test, fallback to the whole image after ``max_attempts``
    failures) with tapers' random numbers, so the crops follow TF's distribution, not its exact draws.

    Parameters
    ----------
    image_size : Tensor
        Integer ``[height, width, channels]``.
    bounding_boxes : Tensor
        float ``[batch, N, 4]`` normalized ``[y_min, x_min, y_max, x_max]``, all in ``[0, 1]``.
    seed : int
        Op seed (0: not set), combined with the global seed as ``tf.random`` does.
    min_object_covered : float
        Fraction of some box's area the crop must contain.
    aspect_ratio_range : sequence of 2 float, optional
        Width / height range (default ``(0.75, 1.33)``).
    area_range : sequence of 2 float, optional
        Crop area relative to the image (default ``(0.05, 1.0)``).
    max_attempts : int, optional
        Tries before returning the whole image (default 100).
    use_image_if_no_bounding_boxes : bool, optional
        With no boxes, use the whole image as the box (else an error).
    name : str, optional
        Ignored.

    Returns
    -------
    tuple of Tensor
        ``begin`` int32 ``[offset_y, offset_x, 0]``, ``size`` int32 ``[h, w, -1]`` (for ``tf.slice``) and
        ``bboxes`` float32 ``[1, 1, 4]``, the crop in normalized coordinates.
    """
    size, boxes, mc, ar, rr, attempts = _sample_args(image_size, bounding_boxes, min_object_covered,
                                                     aspect_ratio_range, area_range, max_attempts)
    draw = _random.uniform([2], 0, 2**31 - 1, dtype="int32", seed=seed or None)
    return _sample_run(draw, size, boxes, mc, ar, rr, attempts, bool(use_image_if_no_bounding_boxes))


def _sample_run(draw: Any, size: Any, boxes: Any, mc: float, ar: tuple[float, float], rr: tuple[float, float],
                attempts: int, use_image: bool) -> Any:
    def run(sd: np.ndarray, sz: np.ndarray, bx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return _sample_box_np(sd, sz, bx, mc, ar, rr, attempts, use_image)

    begin, size_out, bbox = _numpy_function(run, [draw, size, boxes], ["int32", "int32", "float32"])
    return begin, size_out, bbox


def stateless_sample_distorted_bounding_box(image_size: Any, bounding_boxes: Any, seed: Any,
                                            min_object_covered: Any = 0.1, aspect_ratio_range: Any = None,
                                            area_range: Any = None, max_attempts: Any = None,
                                            use_image_if_no_bounding_boxes: Any = None,
                                            name: str | None = None) -> Any:
    """:func:`sample_distorted_bounding_box` driven by a stateless ``seed``: the same seed, the same crop.

    Parameters
    ----------
    image_size : Tensor
        Integer ``[height, width, channels]``.
    bounding_boxes : Tensor
        float ``[batch, N, 4]`` normalized boxes in ``[0, 1]``.
    seed : shape [2] int
        The stateless seed.
    min_object_covered : float
        Fraction of some box's area the crop must contain.
    aspect_ratio_range : sequence of 2 float, optional
        Width / height range (default ``(0.75, 1.33)``).
    area_range : sequence of 2 float, optional
        Relative crop area range (default ``(0.05, 1.0)``).
    max_attempts : int, optional
        Tries before returning the whole image (default 100).
    use_image_if_no_bounding_boxes : bool, optional
        With no boxes, use the whole image as the box.
    name : str, optional
        Ignored.

    Returns
    -------
    tuple of Tensor
        ``begin``, ``size`` (int32 ``[3]``) and ``bboxes`` (float32 ``[1, 1, 4]``).
    """
    size, boxes, mc, ar, rr, attempts = _sample_args(image_size, bounding_boxes, min_object_covered,
                                                     aspect_ratio_range, area_range, max_attempts)
    draw = _random.stateless_uniform([2], seed=seed, minval=0, maxval=2**31 - 1, dtype="int32")
    return _sample_run(draw, size, boxes, mc, ar, rr, attempts, bool(use_image_if_no_bounding_boxes))


def extract_glimpse(input: Any, size: Any, offsets: Any, centered: bool = True, normalized: bool = True,  # noqa: A002
                    noise: str = "uniform", name: str | None = None) -> Any:
    """Extract a ``size`` window around each offset, as TF 2's ``tf.image.extract_glimpse``.

    Offsets are ``(y, x)``: with ``centered`` and ``normalized``, the window center in ``[-1, 1]`` about the
    image center (the top-left pixel is the center minus half the window); otherwise, as TF 2's kernel,
    the window's top-left pixel, normalized to ``[0, 1]`` (``normalized``), in pixels from the image center
    (``centered``), or in pixels. Positions are truncated toward zero as TF's kernel. Window pixels
    outside the image are filled according to ``noise``: "uniform" (uniform between the image's min and
    max), "gaussian" (the image's mean and standard deviation) or "zero".

    Parameters
    ----------
    input : Tensor
        float ``[batch, height, width, channels]``.
    size : sequence of 2 int
        ``[glimpse_height, glimpse_width]``.
    offsets : Tensor
        float ``[batch, 2]``, ``(y, x)`` per image.
    centered : bool
        Offsets relative to the image center.
    normalized : bool
        Offsets in normalized units.
    noise : str
        "uniform", "gaussian" or "zero".
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        ``[batch, glimpse_height, glimpse_width, channels]``, same dtype as ``input``.
    """
    x = _tensor(input)
    shape = _shape(x)
    if len(shape) != 4:
        raise _errors.InvalidArgumentError(None, None, f"input must be a 4-dimensional tensor, got shape "
                                           f"{tuple(shape)}")
    if not as_dtype(x.dtype).is_floating:
        raise TypeError(f"extract_glimpse: input must be float, got {as_dtype(x.dtype).name}")
    nb, h, w, depth = (int(d) for d in shape)
    sz = np.asarray(_static(size)).reshape(-1)
    if sz.shape != (2,) or sz.min() <= 0:
        raise _errors.InvalidArgumentError(None, None, f"size must be 2 positive ints [height, width], got "
                                           f"{sz.tolist()}")
    gh, gw = int(sz[0]), int(sz[1])
    off = np.asarray(_static(offsets), dtype=np.float32)
    if off.shape != (nb, 2):
        raise _errors.InvalidArgumentError(None, None, f"offsets must be [batch_size, 2] = [{nb}, 2], got shape "
                                           f"{off.shape}")
    if noise not in ("uniform", "gaussian", "zero"):
        raise _errors.InvalidArgumentError(None, None, f"noise must be 'uniform', 'gaussian' or 'zero', got "
                                           f"{noise!r}")
    f32 = np.float32
    rows = np.zeros((nb, gh), np.int64)
    cols = np.zeros((nb, gw), np.int64)
    for b in range(nb):
        yy, xx = f32(off[b, 0]), f32(off[b, 1])
        if normalized:
            xx, yy = xx * f32(w), yy * f32(h)
            if centered:  # only here is the offset the window's center (TF's ExtractGlimpseV2)
                xx, yy = xx / f32(2) + f32(w) / f32(2), yy / f32(2) + f32(h) / f32(2)
                xx, yy = xx - f32(gw) / f32(2), yy - f32(gh) / f32(2)
        elif centered:
            xx, yy = xx + f32(w) / f32(2), yy + f32(h) / f32(2)
        rows[b] = int(yy) + np.arange(gh)
        cols[b] = int(xx) + np.arange(gw)
    inside = ((rows >= 0) & (rows < h))[:, :, None] & ((cols >= 0) & (cols < w))[:, None, :]  # [b, gh, gw]
    bidx = np.broadcast_to(np.arange(nb)[:, None, None], (nb, gh, gw))
    ridx = np.broadcast_to(np.clip(rows, 0, h - 1)[:, :, None], (nb, gh, gw))
    cidx = np.broadcast_to(np.clip(cols, 0, w - 1)[:, None, :], (nb, gh, gw))
    idx = np.stack([bidx, ridx, cidx], axis=-1).astype(np.int32)
    glimpse = _c.gather_nd(x, _c.constant(idx))
    if bool(inside.all()):
        return glimpse
    dt = x.dtype
    if noise == "zero":
        fill = _c.zeros([nb, gh, gw, depth], dt)
    elif noise == "uniform":
        lo = _c.reduce_min(x, axis=[1, 2, 3], keepdims=True)
        hi = _c.reduce_max(x, axis=[1, 2, 3], keepdims=True)
        fill = lo + _c.cast(_random.uniform([nb, gh, gw, depth]), dt) * (hi - lo)
    else:
        mean = _c.reduce_mean(x, axis=[1, 2, 3], keepdims=True)
        std = _c.sqrt(_c.reduce_mean((x - mean) * (x - mean), axis=[1, 2, 3], keepdims=True))
        fill = mean + _c.cast(_random.normal([nb, gh, gw, depth]), dt) * std
    mask = _c.constant(np.broadcast_to(inside[..., None], (nb, gh, gw, depth)).copy())
    return _c.where(mask, glimpse, fill)


def sobel_edges(image: Any) -> Any:
    """Sobel gradients ``(dy, dx)`` of each channel, with reflect padding, as ``tf.image.sobel_edges``.

    Parameters
    ----------
    image : Tensor
        float ``[batch, height, width, channels]`` (height and width at least 2 for the reflection).

    Returns
    -------
    Tensor
        ``[batch, height, width, channels, 2]``: the vertical then the horizontal Sobel response.
    """
    image = _tensor(image)
    shape = _shape(image)
    if len(shape) != 4:
        raise ValueError(f"sobel_edges: image must be 4-D [batch, height, width, channels], got shape {tuple(shape)}")
    if not as_dtype(image.dtype).is_floating:
        raise TypeError(f"sobel_edges: image must be float, got {as_dtype(image.dtype).name}")
    if int(shape[1]) < 2 or int(shape[2]) < 2:
        raise _errors.InvalidArgumentError(None, None, f"sobel_edges: REFLECT padding needs height and width >= 2, "
                                           f"got shape {tuple(shape)}")
    h, w = int(shape[1]), int(shape[2])
    padded = _c.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    kernels = ([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]])
    outs = []
    for k in kernels:
        acc = None
        for i in range(3):
            for j in range(3):
                if k[i][j] == 0:
                    continue
                term = padded[:, i:i + h, j:j + w, :] * _c.cast(float(k[i][j]), image.dtype)
                acc = term if acc is None else acc + term
        outs.append(acc)
    return _c.stack(outs, axis=-1)


def resize_with_pad(image: Any, target_height: int, target_width: int, method: Any = "bilinear",
                    antialias: bool = False) -> Any:
    """Resize keeping the aspect ratio so the image fits, then zero-pad to the target size.

    As ``tf.image.resize_with_pad``: the scale is the larger of the two side ratios (float32), the resized
    sides are floored and the padding before is ``floor((target - resized) / 2)``.

    Parameters
    ----------
    image : Tensor
        ``[batch, height, width, channels]`` or ``[height, width, channels]``.
    target_height, target_width : int
        Output size, both positive.
    method : str
        A :func:`tapers.image.resize` method.
    antialias : bool
        Passed to :func:`tapers.image.resize` (only False is supported there).

    Returns
    -------
    Tensor
        ``[..., target_height, target_width, channels]``; the dtype :func:`tapers.image.resize` gives.
    """
    from .image import pad_to_bounding_box, resize

    x, is_batch = _3_or_4(image)
    th, tw = int(_static(target_height)), int(_static(target_width))
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    _, h, w, _ = (int(d) for d in _shape(x))
    f32 = np.float32
    ratio = max(f32(w) / f32(tw), f32(h) / f32(th))
    rh_f, rw_f = f32(h) / ratio, f32(w) / ratio
    rh, rw = int(np.floor(rh_f)), int(np.floor(rw_f))
    ph = max(0, int(np.floor((f32(th) - rh_f) / f32(2))))
    pw = max(0, int(np.floor((f32(tw) - rw_f) / f32(2))))
    resized = resize(x, [rh, rw], method, antialias=antialias)
    out = pad_to_bounding_box(resized, ph, pw, th, tw)
    return out if is_batch else _c.squeeze(out, [0])


def _gauss_kernel(size: int, sigma: float) -> np.ndarray:
    """TF's ``_fspecial_gauss``: a softmax over ``-(i^2 + j^2) / (2 sigma^2)``, in float32."""
    f32 = np.float32
    coords = np.arange(size, dtype=np.float32) - f32(size - 1) / f32(2)
    g = np.square(coords) * (f32(-0.5) / np.square(f32(sigma)))
    g2 = (g[None, :] + g[:, None]).reshape(-1)
    e = np.exp(g2 - g2.max())
    return (e / e.sum(dtype=np.float32)).astype(np.float32).reshape(size, size, 1, 1)


def ssim(img1: Any, img2: Any, max_val: Any, filter_size: int = 11, filter_sigma: float = 1.5, k1: float = 0.01,
         k2: float = 0.03, return_index_map: bool = False) -> Any:
    """Structural similarity of two images (Gaussian-weighted windows), as ``tf.image.ssim``.

    Integer images are converted to float32 in ``[0, 1]`` (and ``max_val`` with them); the SSIM map of each
    channel is ``luminance * contrast-structure`` over VALID ``filter_size`` windows, averaged over the
    map and then the channels.

    Parameters
    ----------
    img1, img2 : Tensor
        ``[..., height, width, channels]`` of the same shape and dtype, height and width >= ``filter_size``.
    max_val : float
        Dynamic range of the images (1.0 or 255, for example).
    filter_size : int
        Gaussian window size.
    filter_sigma : float
        Gaussian window width.
    k1, k2 : float
        SSIM's stabilizing constants.
    return_index_map : bool
        Return the per-pixel SSIM map (averaged over channels) instead of its mean.

    Returns
    -------
    Tensor
        float32 ``[...]`` SSIM values (or ``[..., h', w']`` maps).
    """
    a, b = _tensor(img1), _tensor(img2)
    sa, sb = _shape(a), _shape(b)
    if len(sa) < 3 or list(sa) != list(sb):
        raise ValueError(f"ssim: img1 and img2 must have the same shape of rank >= 3, got {tuple(sa)} and "
                         f"{tuple(sb)}")
    if as_dtype(a.dtype) != as_dtype(b.dtype):
        raise TypeError(f"ssim: img1 and img2 must have the same dtype, got {as_dtype(a.dtype).name} and "
                        f"{as_dtype(b.dtype).name}")
    fs = int(filter_size)
    mv = convert_image_dtype(_c.cast(max_val, a.dtype), "float32")
    a = convert_image_dtype(a, "float32")
    b = convert_image_dtype(b, "float32")
    val, _ = _ssim_per_channel(a, b, mv, fs, float(filter_sigma), k1, k2, return_index_map)
    return _c.reduce_mean(val, axis=[-1])


def _ssim_per_channel(a: Any, b: Any, mv: Any, fs: int, sigma: float, k1: float, k2: float,
                      index_map: bool = False) -> tuple[Any, Any]:
    """TF's ``_ssim_per_channel``: (SSIM, contrast-structure) per channel, float32 inputs."""
    from .nn import depthwise_conv2d

    sa = _shape(a)
    if int(sa[-3]) < fs or int(sa[-2]) < fs:
        raise _errors.InvalidArgumentError(None, None, f"ssim: height and width ({sa[-3]}, {sa[-2]}) must be at "
                                           f"least filter_size {fs}")
    depth = int(sa[-1])
    kernel = _c.constant(np.tile(_gauss_kernel(fs, sigma), [1, 1, depth, 1]))

    def reducer(x: Any) -> Any:
        x4 = _c.reshape(x, [-1] + [int(d) for d in sa[-3:]])
        y = depthwise_conv2d(x4, kernel, [1, 1, 1, 1], "VALID")
        return _c.reshape(y, [int(d) for d in sa[:-3]] + [int(d) for d in _shape(y)[1:]])

    c1 = (_c.constant(np.float32(k1)) * mv) * (_c.constant(np.float32(k1)) * mv)
    c2 = (_c.constant(np.float32(k2)) * mv) * (_c.constant(np.float32(k2)) * mv)
    mean0, mean1 = reducer(a), reducer(b)
    num0 = mean0 * mean1 * _c.constant(np.float32(2))
    den0 = mean0 * mean0 + mean1 * mean1
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(a * b) * _c.constant(np.float32(2))
    den1 = reducer(a * a + b * b)
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    val = luminance * cs
    if index_map:
        return val, cs
    return _c.reduce_mean(val, axis=[-3, -2]), _c.reduce_mean(cs, axis=[-3, -2])


_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def ssim_multiscale(img1: Any, img2: Any, max_val: Any, power_factors: Any = _MSSSIM_WEIGHTS, filter_size: int = 11,
                    filter_sigma: float = 1.5, k1: float = 0.01, k2: float = 0.03) -> Any:
    """Multi-scale SSIM, as ``tf.image.ssim_multiscale``.

    At each scale after the first the images are 2x2 average-pooled (odd sides padded symmetrically
    first); the result is ``prod_k relu(cs_k) ** w_k`` over all but the last scale times
    ``relu(ssim_last) ** w_last``, averaged over channels.

    Parameters
    ----------
    img1, img2 : Tensor
        ``[..., height, width, channels]`` of the same shape and dtype; the smallest scale must still be at
        least ``filter_size`` on each side.
    max_val : float
        Dynamic range of the images.
    power_factors : sequence of float
        Weight of each scale (TF's five MS-SSIM weights by default).
    filter_size : int
        Gaussian window size.
    filter_sigma : float
        Gaussian window width.
    k1, k2 : float
        SSIM's stabilizing constants.

    Returns
    -------
    Tensor
        float32 ``[...]`` MS-SSIM values.
    """
    a, b = _tensor(img1), _tensor(img2)
    sa, sb = _shape(a), _shape(b)
    if len(sa) < 3 or list(sa) != list(sb):
        raise ValueError(f"ssim_multiscale: img1 and img2 must have the same shape of rank >= 3, got {tuple(sa)} "
                         f"and {tuple(sb)}")
    if as_dtype(a.dtype) != as_dtype(b.dtype):
        raise TypeError(f"ssim_multiscale: img1 and img2 must have the same dtype, got {as_dtype(a.dtype).name} "
                        f"and {as_dtype(b.dtype).name}")
    weights = [float(w) for w in np.asarray(_static(power_factors), dtype=np.float64).reshape(-1)]
    if not weights:
        raise ValueError("ssim_multiscale: power_factors must not be empty")
    mv = convert_image_dtype(_c.cast(max_val, a.dtype), "float32")
    imgs = [convert_image_dtype(a, "float32"), convert_image_dtype(b, "float32")]
    head = [int(d) for d in sa[:-3]]
    mcs = []
    val = None
    for k in range(len(weights)):
        if k > 0:
            tail = [int(d) for d in _shape(imgs[0])[-3:]]
            flat = [_c.reshape(x, [-1] + tail) for x in imgs]
            rh, rw = tail[0] % 2, tail[1] % 2
            if rh or rw:
                flat = [_c.pad(x, [[0, 0], [0, rh], [0, rw], [0, 0]], mode="SYMMETRIC") for x in flat]
            pooled = [_c.reshape(x, [-1, (tail[0] + rh) // 2, 2, (tail[1] + rw) // 2, 2, tail[2]]) for x in flat]
            down = [_c.reduce_mean(x, axis=[2, 4]) for x in pooled]
            imgs = [_c.reshape(x, head + [int(d) for d in _shape(x)[1:]]) for x in down]
        val, cs = _ssim_per_channel(imgs[0], imgs[1], mv, int(filter_size), float(filter_sigma), k1, k2)
        mcs.append(_c.maximum(cs, _c.zeros_like(cs)))
    mcs.pop()
    stacked = _c.stack(mcs + [_c.maximum(val, _c.zeros_like(val))], axis=-1)
    ms = _c.reduce_prod(_c.pow(stacked, _c.constant(np.asarray(weights, np.float32))), axis=[-1])
    return _c.reduce_mean(ms, axis=[-1])
