"""Keras 3's geometric image preprocessing and augmentation layers: ``Resizing``, ``CenterCrop``,
``RandomCrop``, ``RandomFlip``, ``RandomRotation``, ``RandomZoom``, ``RandomTranslation``,
``RandomShear`` and ``RandomPerspective``; and ``Pipeline``, which chains layers.

Each layer follows Keras 3.15's two-step protocol: ``get_random_transformation(data, training, seed)``
draws the random parameters (a dict with Keras' keys), and ``transform_images(images, transformation,
training)`` applies them. Feeding a recorded transformation to ``transform_images`` reproduces Keras'
output exactly, although tapers' random streams differ from Keras'.

The geometric transforms resample images as TensorFlow's ``ImageProjectiveTransformV3`` (what Keras'
``affine_transform`` calls): every output pixel ``(x, y)`` reads the input at
``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)`` with ``k = c0 x + c1 y + 1``, after mapping
outside coordinates by ``fill_mode``, with nearest or bilinear interpolation. It is written with
gathers and arithmetic, so it runs inside ``tapers.function`` and gradients with respect to the images
flow through ``GradientTape`` (the exact derivative; TensorFlow's registered gradient of the op
instead applies the inverse transform to the output gradient, an approximation).

The random layers draw from tapers' streams: a seeded layer owns a ``tapers.random.Generator`` (two
layers with one seed agree, and the stream advances inside ``tapers.function`` too); an unseeded one
draws from the global stream, which follows ``tapers.random.set_seed``. Dict inputs take
``"images"``, ``"labels"`` (unchanged) and ``"segmentation_masks"`` (moved with the images, as Keras);
``"bounding_boxes"`` are not implemented and raise ``NotImplementedError``.
"""

from __future__ import annotations

import math
import random as _pyrandom
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _core
from ... import image as _image
from ... import random as _random
from ..._array_extra import saturate_cast as _saturate_cast
from ._base import Layer, standardize_shape
from ._serialization import deserialize as _deserialize
from ._serialization import serialize as _serialize

__all__ = [
    "CenterCrop",
    "Pipeline",
    "RandomCrop",
    "RandomFlip",
    "RandomPerspective",
    "RandomRotation",
    "RandomShear",
    "RandomTranslation",
    "RandomZoom",
    "Resizing",
]

Tensor = _core.Tensor

_FILL_MODES = ("reflect", "wrap", "constant", "nearest")
_AFFINE_INTERPOLATIONS = ("nearest", "bilinear")


def _tf() -> Any:
    import tapers

    return tapers


def _standardize_data_format(data_format: str | None) -> str:
    if data_format is None:
        return "channels_last"
    value = str(data_format).lower()
    if value not in ("channels_first", "channels_last"):
        raise ValueError(
            "The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
            f"Received: data_format={data_format}"
        )
    return value


def _check_rank(images: Any) -> int:
    rank = len(images.shape)
    if rank not in (3, 4):
        raise ValueError(
            "Expected image tensor to have rank 3 (single image) or 4 (batch of images). "
            f"Received: data.shape={tuple(images.shape)}"
        )
    return rank


def _to_nhwc(images: Any, data_format: str) -> Any:
    return _core.transpose(images, [0, 2, 3, 1]) if data_format == "channels_first" else images


def _from_nhwc(images: Any, data_format: str) -> Any:
    return _core.transpose(images, [0, 3, 1, 2]) if data_format == "channels_first" else images


def _hw(shape: Sequence[Any], data_format: str) -> tuple[Any, Any]:
    if data_format == "channels_first":
        return shape[-2], shape[-1]
    return shape[-3], shape[-2]


def _with_hw(shape: Sequence[Any], data_format: str, height: Any, width: Any) -> tuple[Any, ...]:
    out = list(shape)
    if data_format == "channels_first":
        out[-2], out[-1] = height, width
    else:
        out[-3], out[-2] = height, width
    return tuple(out)


def _as_tensor(x: Any, dtype: str | None = None) -> Any:
    if isinstance(x, (_core.Tensor, _core.Variable)):
        t = x.value() if isinstance(x, _core.Variable) else x
        return t if dtype is None or t.dtype.name == dtype else _core.cast(t, dtype)
    arr = np.asarray(x)
    if dtype is not None:
        arr = arr.astype(dtype)
    return _core.convert_to_tensor(arr)


def _clip(x: Any, lo: float, hi: float) -> Any:
    return _core.minimum(_core.maximum(x, lo), hi)


def _round_half_away(x: Any) -> Any:
    """``std::round``: halves go away from zero (``tf.round`` rounds them to even)."""
    return _core.sign(x) * _core.floor(_core.abs(x) + 0.5)


def _map_coordinate(coord: Any, size: int, fill_mode: str) -> Any:
    """Maps an input coordinate into ``[0, size - 1]`` as TensorFlow's ``MapCoordinate<fill_mode>``."""
    if fill_mode == "constant":
        return coord
    n = float(size)
    if fill_mode == "nearest":
        return _clip(coord, 0.0, n - 1)
    if size <= 1:
        return _core.zeros_like(coord)
    if fill_mode == "reflect":
        sz2 = 2.0 * n
        low = sz2 * _core.floor(-coord / sz2) + coord
        low = _core.where(low < -n, low + sz2, -low - 1.0)
        high = coord - sz2 * _core.floor(coord / sz2)
        high = _core.where(high >= n, sz2 - high - 1.0, high)
    else:  # wrap
        sz = n - 1.0
        low = coord + n * (_core.floor(-coord / sz) + 1.0)
        high = coord - n * _core.floor(coord / sz)
    mapped = _core.where(coord < 0.0, low, _core.where(coord > n - 1, high, coord))
    return _clip(mapped, 0.0, n - 1)


def projective_transform(
    images: Any, transforms: Any, interpolation: str = "bilinear", fill_mode: str = "constant", fill_value: float = 0.0
) -> Any:
    """Resamples NHWC ``images`` with one 8-parameter projective transform per image, as
    TensorFlow's ``ImageProjectiveTransformV3`` (the output keeps the input's size).

    Parameters
    ----------
    images : Tensor
        ``[batch, height, width, channels]``, float.
    transforms : Tensor
        ``[batch, 8]`` or ``[8]``: ``[a0, a1, a2, b0, b1, b2, c0, c1]`` mapping output to input points.
    interpolation : str
        "nearest" or "bilinear".
    fill_mode : str
        "reflect", "wrap", "constant" or "nearest": how input points outside the image are read.
    fill_value : float
        The value of points outside the image with ``fill_mode="constant"``.

    Returns
    -------
    Tensor
        The transformed images, same shape and dtype as ``images``.
    """
    if interpolation not in _AFFINE_INTERPOLATIONS:
        raise ValueError(
            f"Invalid value for argument `interpolation`. Expected of one {_AFFINE_INTERPOLATIONS}. "
            f"Received: interpolation={interpolation}"
        )
    if fill_mode not in _FILL_MODES:
        raise ValueError(
            f"Invalid value for argument `fill_mode`. Expected of one {_FILL_MODES}. Received: fill_mode={fill_mode}"
        )
    images = _as_tensor(images)
    if len(images.shape) != 4:
        raise ValueError(f"projective_transform expects [batch, height, width, channels] images, got {images.shape}")
    b, h, w, c = (int(d) for d in images.shape)
    transforms = _as_tensor(transforms, "float32")
    if len(transforms.shape) == 1:
        transforms = _core.expand_dims(transforms, 0)
    if len(transforms.shape) != 2 or int(transforms.shape[1]) != 8 or int(transforms.shape[0]) not in (1, b):
        raise ValueError(
            f"transforms must have shape [8], [1, 8] or [batch={b}, 8]; got shape {tuple(transforms.shape)}"
        )
    if int(transforms.shape[0]) != b:
        transforms = _core.tile(transforms, [b, 1])
    if not images.dtype.is_floating:
        # Integer images (masks): computed in float32 and cast back, truncating as the kernel's T(value)
        # does (the fill value too).
        int_fill = float(int(fill_value))
        out = projective_transform(_core.cast(images, "float32"), transforms, interpolation, fill_mode, int_fill)
        return _core.cast(out, images.dtype)
    dtype = images.dtype.name
    k = [_core.reshape(transforms[:, i], [b, 1, 1]) for i in range(8)]
    xs = _core.constant(np.arange(w, dtype=np.float32).reshape(1, 1, w))
    ys = _core.constant(np.arange(h, dtype=np.float32).reshape(1, h, 1))
    projection = k[6] * xs + k[7] * ys + 1.0
    degenerate = _core.equal(projection, 0.0)
    safe = _core.where(degenerate, _core.ones_like(projection), projection)
    in_x = _map_coordinate((k[0] * xs + k[1] * ys + k[2]) / safe, w, fill_mode)
    in_y = _map_coordinate((k[3] * xs + k[4] * ys + k[5]) / safe, h, fill_mode)
    flat = _core.reshape(images, [b * h * w, c])
    base = _core.constant((np.arange(b, dtype=np.int32) * (h * w)).reshape(b, 1, 1))
    fill = _core.cast(_core.constant(float(fill_value)), dtype)
    keep = _core.logical_not(degenerate)

    def read(yf: Any, xf: Any) -> tuple[Any, Any]:
        # Pixels at integer coordinates (given as floats) and whether they lie inside the image.
        valid = keep
        for cond in (yf >= 0.0, yf < float(h), xf >= 0.0, xf < float(w)):
            valid = _core.logical_and(valid, cond)
        yi = _core.cast(_clip(yf, 0.0, float(h - 1)), "int32")
        xi = _core.cast(_clip(xf, 0.0, float(w - 1)), "int32")
        values = _core.gather(flat, base + yi * w + xi)
        mask = _core.expand_dims(_core.cast(valid, dtype), -1)
        return values * mask + fill * (1.0 - mask), valid

    if interpolation == "nearest":
        out, _ = read(_round_half_away(in_y), _round_half_away(in_x))
    else:
        y0 = _core.floor(in_y)
        x0 = _core.floor(in_x)
        y1 = y0 + 1.0
        x1 = x0 + 1.0

        def wgt(t: Any) -> Any:
            return _core.expand_dims(_core.cast(t, dtype), -1)

        v00, _ = read(y0, x0)
        v01, _ = read(y0, x1)
        v10, _ = read(y1, x0)
        v11, _ = read(y1, x1)
        top = wgt(x1 - in_x) * v00 + wgt(in_x - x0) * v01
        bottom = wgt(x1 - in_x) * v10 + wgt(in_x - x0) * v11
        out = wgt(y1 - in_y) * top + wgt(in_y - y0) * bottom
        deg = _core.expand_dims(_core.cast(keep, dtype), -1)
        out = out * deg + fill * (1.0 - deg)
    return out


def _affine_matrix(
    center_x: float,
    center_y: float,
    angle: Any,
    translate_x: Any,
    translate_y: Any,
    scale: Any,
    shear_x: Any,
    shear_y: Any,
    height: int,
    width: int,
) -> Any:
    """Keras' ``_compute_affine_matrix``: scaling, shear and rotation (degrees) about a relative center."""
    deg = math.pi / 180.0
    angle = angle * deg
    cx = center_x * (float(width) - 1.0)
    cy = center_y * (float(height) - 1.0)
    cos_t = _core.cos(angle)
    sin_t = _core.sin(angle)
    shx = _core.tan(shear_x * deg)
    shy = _core.tan(shear_y * deg)
    a0 = scale * (cos_t + shx * sin_t)
    a1 = scale * (-sin_t + shx * cos_t)
    a2 = translate_x + cx - cx * a0 - cy * a1
    b0 = scale * (shy * cos_t + sin_t)
    b1 = scale * (shy * -sin_t + cos_t)
    b2 = translate_y + cy - cx * b0 - cy * b1
    zeros = _core.zeros_like(a0)
    return _core.stack([a0, a1, a2, b0, b1, b2, zeros, zeros], axis=1)


class _Generator:
    """The layer's random stream: a seeded ``tapers.random.Generator`` (so two layers with one seed draw the
    same values), or tapers' global stream (which follows ``tapers.random.set_seed``) without a seed. Not a
    tracked attribute: as in Keras, the layer has no weights."""

    def __init__(self, seed: Any) -> None:
        self.seed = seed
        self.generator = None if seed is None else _random.Generator.from_seed(int(seed))


def _uniform(seed: Any, default: _Generator, shape: Sequence[int], minval: float, maxval: float) -> Any:
    """Uniform float32 draws in ``[minval, maxval)`` from ``seed`` (an int, a ``tapers.random.Generator``)
    or, when ``seed`` is None, from the layer's own stream."""
    shape = [int(s) for s in shape]
    if seed is None:
        gen = default.generator
    elif isinstance(seed, _random.Generator):
        gen = seed
    elif isinstance(seed, _Generator):
        gen = seed.generator
    else:
        gen = _random.Generator.from_seed(int(np.asarray(seed).ravel()[0]))
    if minval == maxval:
        return _core.fill(shape, np.float32(minval))
    if gen is None:
        return _random.uniform(shape, minval, maxval, dtype="float32")
    return gen.uniform(shape, minval, maxval, dtype="float32")


class _ImagePreprocessingLayer(Layer):
    """Shared by the layers here: ``data_format``, the rank check, and ``call`` as Keras'
    ``BaseImagePreprocessingLayer`` (draw a transformation, then apply it; 3-D inputs are treated as
    a batch of one)."""

    def __init__(self, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = _standardize_data_format(data_format)
        self.built = True

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """The parameters of one random transformation of ``data``; None for a fixed layer."""
        return None

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """Applies ``transformation`` to ``images``; subclasses override it."""
        raise NotImplementedError

    def call(self, inputs: Any, training: bool = True) -> Any:
        """Draws a transformation (``get_random_transformation``) and applies it (``transform_images``).

        Parameters
        ----------
        inputs : Tensor or dict
            3-D (one image) or 4-D (a batch) images in ``data_format``; or a dict with ``"images"`` and
            optionally ``"labels"`` (returned unchanged) and ``"segmentation_masks"`` (transformed like the
            images, with nearest interpolation), as Keras. ``"bounding_boxes"`` raise
            ``NotImplementedError``.
        training : bool
            Random layers transform only while training; they return the inputs otherwise.

        Returns
        -------
        Tensor or dict
            The transformed images (a dict for a dict input).
        """
        if isinstance(inputs, dict):
            return self._call_dict(inputs, training)
        inputs = _as_tensor(inputs)
        rank = _check_rank(inputs)
        transformation = self.get_random_transformation(inputs, training=training)
        if rank == 4:
            return self.transform_images(inputs, transformation, training=training)
        out = self.transform_images(_core.expand_dims(inputs, 0), transformation, training=training)
        return _core.squeeze(out, [0])

    def _call_dict(self, data: dict[str, Any], training: bool) -> dict[str, Any]:
        if "images" not in data:
            raise ValueError(f"A dict input must have an 'images' key; received keys {sorted(data)}")
        if "bounding_boxes" in data:
            raise NotImplementedError(
                f"tapers.keras.layers.{type(self).__name__}: 'bounding_boxes' inputs are not implemented"
            )
        out = dict(data)
        images = _as_tensor(data["images"])
        batched = _check_rank(images) == 4
        transformation = self.get_random_transformation(data, training=training)

        def apply(fn: Any, x: Any) -> Any:
            if batched:
                return fn(x, transformation, training=training)
            return _core.squeeze(fn(_core.expand_dims(x, 0), transformation, training=training), [0])

        out["images"] = apply(self.transform_images, images)
        if "labels" in data:
            out["labels"] = self.transform_labels(_as_tensor(data["labels"]), transformation, training=training)
        if "segmentation_masks" in data:
            out["segmentation_masks"] = apply(self.transform_segmentation_masks, _as_tensor(data["segmentation_masks"]))
        return out

    def transform_labels(self, labels: Any, transformation: Any, training: bool = True) -> Any:
        """Labels are unchanged by geometric transforms.

        Parameters
        ----------
        labels : Tensor
            The labels.
        transformation : any
            Ignored.
        training : bool
            Ignored.

        Returns
        -------
        Tensor
            ``labels``.
        """
        return labels

    def transform_segmentation_masks(self, segmentation_masks: Any, transformation: Any, training: bool = True) -> Any:
        """Transforms masks as the images (Keras: with nearest interpolation where it resamples).

        Parameters
        ----------
        segmentation_masks : Tensor
            3-D or 4-D masks, in ``data_format``.
        transformation : any
            From :meth:`get_random_transformation`.
        training : bool
            As for the images.

        Returns
        -------
        Tensor
            The transformed masks.
        """
        return self.transform_images(segmentation_masks, transformation, training=training)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape (the geometric random layers keep the image size)."""
        return tuple(input_shape)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "data_format": self.data_format}

    def _prepare(self, images: Any) -> tuple[Any, bool]:
        images = _as_tensor(images)
        rank = _check_rank(images)
        if images.dtype.name != self.compute_dtype:
            images = _core.cast(images, self.compute_dtype)
        if rank == 3:
            return _core.expand_dims(images, 0), True
        return images, False


def _shape_of(data: Any) -> tuple[int, ...]:
    if isinstance(data, dict):
        data = data["images"]
    shape = tuple(int(d) for d in _as_tensor(data).shape)
    if len(shape) not in (3, 4):
        raise ValueError(
            "Expected image tensor to have rank 3 (single image) or 4 (batch of images). "
            f"Received: data.shape={shape}"
        )
    return shape


# ----------------------------------------------------------------------------- Resizing, CenterCrop


_RESIZE_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "area")
_KERAS_RESIZE_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")


def _resize_nhwc(images: Any, height: int, width: int, interpolation: str) -> Any:
    out = _image.resize(images, [height, width], method=interpolation)
    return out


def _crop_to_aspect(images: Any, height: int, width: int) -> Any:
    """Keras' center crop of NHWC images to the aspect ratio ``height / width`` (``smart_resize``)."""
    in_h, in_w = int(images.shape[1]), int(images.shape[2])
    crop_h = max(min(in_h, int(float(in_w * height) / width)), 1)
    crop_w = max(min(in_w, int(float(in_h * width) / height)), 1)
    h0 = int(float(in_h - crop_h) / 2)
    w0 = int(float(in_w - crop_w) / 2)
    return images[:, h0 : h0 + crop_h, w0 : w0 + crop_w, :]


class Resizing(_ImagePreprocessingLayer):
    """Resizes images to ``(height, width)`` (``keras.layers.Resizing``).

    Uses ``tapers.image.resize`` (TF's half-pixel-center kernels). With ``crop_to_aspect_ratio`` the
    largest centered window of the target aspect ratio is cut first, so nothing is distorted; with
    ``pad_to_aspect_ratio`` the short side is padded evenly with ``fill_value`` instead. Integer images
    are rounded and saturate-cast back to their dtype, as in Keras.

    Parameters
    ----------
    height, width : int
        The output size.
    interpolation : str
        "bilinear" (default), "nearest", "bicubic" or "area". Keras' "lanczos3"/"lanczos5" raise
        ValueError (not implemented by ``tapers.image.resize``).
    crop_to_aspect_ratio : bool
        Center-crop to the target aspect ratio before resizing.
    pad_to_aspect_ratio : bool
        Pad to the target aspect ratio before resizing (not with ``crop_to_aspect_ratio``).
    fill_mode : str
        Only "constant", as in Keras.
    fill_value : float
        The padding value.
    antialias : bool
        Only False (True raises ValueError: not implemented).
    data_format : str, optional
        "channels_last" (default) or "channels_first".
    """

    def __init__(
        self,
        height: int,
        width: int,
        interpolation: str = "bilinear",
        crop_to_aspect_ratio: bool = False,
        pad_to_aspect_ratio: bool = False,
        fill_mode: str = "constant",
        fill_value: float = 0.0,
        antialias: bool = False,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(data_format=data_format, **kwargs)
        if interpolation not in _KERAS_RESIZE_INTERPOLATIONS:
            raise ValueError(
                f"Invalid value for argument `interpolation`. Expected of one {_KERAS_RESIZE_INTERPOLATIONS}. "
                f"Received: interpolation={interpolation}"
            )
        if interpolation not in _RESIZE_INTERPOLATIONS:
            raise ValueError(
                f"tapers.keras.layers.Resizing: interpolation={interpolation!r} is not implemented "
                f"(one of {_RESIZE_INTERPOLATIONS} is)"
            )
        if fill_mode != "constant":
            raise ValueError(
                "Invalid value for argument `fill_mode`. Only `'constant'` is supported. "
                f"Received: fill_mode={fill_mode}"
            )
        if pad_to_aspect_ratio and crop_to_aspect_ratio:
            raise ValueError("Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be `True`.")
        if antialias:
            raise ValueError("tapers.keras.layers.Resizing: antialias=True is not implemented")
        if int(height) <= 0 or int(width) <= 0:
            raise ValueError(f"`height` and `width` must be positive. Received: height={height}, width={width}")
        self.height = int(height)
        self.width = int(width)
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)
        self.pad_to_aspect_ratio = bool(pad_to_aspect_ratio)
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.antialias = bool(antialias)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``(input_height, input_width)``, as Keras (nothing is random).

        Parameters
        ----------
        data : Tensor
            The images.
        training : bool
            Ignored.
        seed : any
            Ignored.

        Returns
        -------
        tuple of int
            The input's height and width.
        """
        return _hw(_shape_of(data), self.data_format)

    def transform_images(self, images: Any, transformation: Any = None, training: bool = True) -> Any:
        """Resizes ``images`` (in training and inference alike).

        Parameters
        ----------
        images : Tensor
            3-D or 4-D images.
        transformation : any
            Ignored.
        training : bool
            Ignored.

        Returns
        -------
        Tensor
            The resized images, in the input's dtype.
        """
        return self._resize(images, self.interpolation)

    def _resize(self, images: Any, interpolation: str) -> Any:
        images = _as_tensor(images)
        rank = _check_rank(images)
        dtype = images.dtype
        x = images if rank == 4 else _core.expand_dims(images, 0)
        x = _to_nhwc(x, self.data_format)
        if self.crop_to_aspect_ratio:
            x = _crop_to_aspect(x, self.height, self.width)
        elif self.pad_to_aspect_ratio:
            in_h, in_w = int(x.shape[1]), int(x.shape[2])
            pad_h = max(in_h, int(float(in_w * self.height) / self.width))
            pad_w = max(in_w, int(float(in_h * self.width) / self.height))
            top = int(float(pad_h - in_h) / 2)
            left = int(float(pad_w - in_w) / 2)
            if top > 0 or left > 0:
                x = _core.pad(x, [[0, 0], [top, top], [left, left], [0, 0]], constant_values=self.fill_value)
        out = _resize_nhwc(x, self.height, self.width, interpolation)
        out = _from_nhwc(out, self.data_format)
        if rank == 3:
            out = _core.squeeze(out, [0])
        if out.dtype != dtype:
            if not dtype.is_floating:
                out = _core.round(out)
            out = _saturate_cast(out, dtype)
        return out

    def transform_segmentation_masks(self, segmentation_masks: Any, transformation: Any, training: bool = True) -> Any:
        """Resizes masks with nearest interpolation (their dtype kept), as Keras.

        Parameters
        ----------
        segmentation_masks : Tensor
            3-D or 4-D masks, in ``data_format``.
        transformation : any
            Ignored.
        training : bool
            Ignored.

        Returns
        -------
        Tensor
            The resized masks.
        """
        return self._resize(segmentation_masks, "nearest")

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape with ``height`` and ``width`` replaced."""
        return _with_hw(standardize_shape(input_shape), self.data_format, self.height, self.width)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {
            **super().get_config(),
            "height": self.height,
            "width": self.width,
            "interpolation": self.interpolation,
            "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
            "pad_to_aspect_ratio": self.pad_to_aspect_ratio,
            "fill_mode": self.fill_mode,
            "fill_value": self.fill_value,
            "antialias": self.antialias,
        }


class CenterCrop(_ImagePreprocessingLayer):
    """Crops the central ``(height, width)`` window of images (``keras.layers.CenterCrop``).

    An image smaller than the target in either dimension is instead center-cropped to the target
    aspect ratio and resized (bilinear) to the target size, as Keras' ``smart_resize``. The same in
    training and inference.

    Parameters
    ----------
    height, width : int
        The output size.
    data_format : str, optional
        "channels_last" (default) or "channels_first".
    """

    def __init__(self, height: int, width: int, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        if int(height) <= 0 or int(width) <= 0:
            raise ValueError(f"`height` and `width` must be positive. Received: height={height}, width={width}")
        self.height = int(height)
        self.width = int(width)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"input_shape": shape}``, as Keras (nothing is random).

        Parameters
        ----------
        data : Tensor
            The images.
        training : bool
            Ignored.
        seed : any
            Ignored.

        Returns
        -------
        dict
            The input's shape.
        """
        return {"input_shape": _shape_of(data)}

    def transform_images(self, images: Any, transformation: Any = None, training: bool = True) -> Any:
        """Crops (or smart-resizes) ``images``.

        Parameters
        ----------
        images : Tensor
            3-D or 4-D images.
        transformation : any
            Ignored.
        training : bool
            Ignored.

        Returns
        -------
        Tensor
            The cropped images, in the layer's compute dtype.
        """
        x, unbatched = self._prepare(images)
        x = _to_nhwc(x, self.data_format)
        in_h, in_w = int(x.shape[1]), int(x.shape[2])
        dh, dw = in_h - self.height, in_w - self.width
        if dh >= 0 and dw >= 0:
            out = x[:, dh // 2 : dh // 2 + self.height, dw // 2 : dw // 2 + self.width, :]
        else:
            out = _resize_nhwc(_crop_to_aspect(x, self.height, self.width), self.height, self.width, "bilinear")
            if out.dtype.name != self.compute_dtype:
                out = _core.cast(out, self.compute_dtype)
        out = _from_nhwc(out, self.data_format)
        return _core.squeeze(out, [0]) if unbatched else out

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape with ``height`` and ``width`` replaced."""
        shape = standardize_shape(input_shape)
        if len(shape) not in (3, 4):
            raise ValueError(
                "`input_shape` must be a non-nested tuple or list of rank-1 with size 3 (unbatched) or 4 "
                f"(batched). Received: input_shape={input_shape}"
            )
        return _with_hw(shape, self.data_format, self.height, self.width)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "height": self.height, "width": self.width}


# ----------------------------------------------------------------------------- RandomCrop, RandomFlip


class RandomCrop(_ImagePreprocessingLayer):
    """Crops a random ``(height, width)`` window of each batch while training (``keras.layers.RandomCrop``).

    One window position is drawn per call (shared by the batch), as Keras. When the input is not larger
    than the target in both dimensions, the window is the centered crop to the target aspect ratio
    (Keras' slicing) resized (bilinear) to the target size. In inference the layer returns its input
    unchanged, as Keras 3.15 does.

    Parameters
    ----------
    height, width : int
        The output size.
    seed : int, optional
        Seeds the layer's own stream (two layers with one seed draw the same windows). Without it a
        random seed is chosen, and reported by ``get_config``, as Keras.
    data_format : str, optional
        "channels_last" (default) or "channels_first".
    """

    def __init__(
        self, height: int, width: int, seed: int | None = None, data_format: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(data_format=data_format, **kwargs)
        if int(height) <= 0 or int(width) <= 0:
            raise ValueError(f"`height` and `width` must be positive. Received: height={height}, width={width}")
        self.height = int(height)
        self.width = int(width)
        self.seed = seed if seed is not None else _pyrandom.randint(1, int(1e9))
        self._stream = _Generator(seed)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``(h_start, w_start)``: the window's corner (int32 scalars when drawn, ints otherwise).

        Parameters
        ----------
        data : Tensor
            The images.
        training : bool
            Draw a random window only while training.
        seed : int or tapers.random.Generator, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        tuple
            ``(h_start, w_start)``.
        """
        in_h, in_w = _hw(_shape_of(data), self.data_format)
        if training and in_h > self.height and in_w > self.width:
            h0 = _core.cast(_uniform(seed, self._stream, [], 0.0, float(in_h - self.height + 1)), "int32")
            w0 = _core.cast(_uniform(seed, self._stream, [], 0.0, float(in_w - self.width + 1)), "int32")
            return h0, w0
        crop_h = max(min(in_h, int(float(in_w * self.height) / self.width)), 1)
        crop_w = max(min(in_w, int(float(in_h * self.width) / self.height)), 1)
        return int(float(in_h - crop_h) / 2), int(float(in_w - crop_w) / 2)

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """Cuts the window at ``transformation = (h_start, w_start)`` while training.

        Parameters
        ----------
        images : Tensor
            3-D or 4-D images.
        transformation : tuple
            ``(h_start, w_start)`` from :meth:`get_random_transformation`.
        training : bool
            In inference the images are returned unchanged (Keras 3.15).

        Returns
        -------
        Tensor
            ``(height, width)`` images while training.
        """
        if not training:
            return _as_tensor(images)
        x, unbatched = self._prepare(images)
        x = _to_nhwc(x, self.data_format)
        in_h, in_w = int(x.shape[1]), int(x.shape[2])
        h0, w0 = transformation
        if isinstance(h0, (int, np.integer)) and isinstance(w0, (int, np.integer)):
            out = x[:, int(h0) : int(h0) + self.height, int(w0) : int(w0) + self.width, :]
        else:
            h_idx = _as_tensor(h0, "int32") + _core.range(min(self.height, in_h), dtype="int32")
            w_idx = _as_tensor(w0, "int32") + _core.range(min(self.width, in_w), dtype="int32")
            out = _core.gather(_core.gather(x, h_idx, axis=1), w_idx, axis=2)
        if int(out.shape[1]) != self.height or int(out.shape[2]) != self.width:
            out = _core.cast(_resize_nhwc(out, self.height, self.width, "bilinear"), self.compute_dtype)
        out = _from_nhwc(out, self.data_format)
        return _core.squeeze(out, [0]) if unbatched else out

    def transform_segmentation_masks(self, segmentation_masks: Any, transformation: Any, training: bool = True) -> Any:
        """Crops the masks as the images; Keras 3.15 crops them in inference too (its
        ``transform_segmentation_masks`` ignores ``training``), and so does tapers.

        Parameters
        ----------
        segmentation_masks : Tensor
            3-D or 4-D masks, in ``data_format``.
        transformation : tuple
            ``(h_start, w_start)``.
        training : bool
            Ignored, as in Keras.

        Returns
        -------
        Tensor
            The cropped masks.
        """
        return self.transform_images(segmentation_masks, transformation, training=True)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape with ``height`` and ``width`` replaced (the training shape, as Keras)."""
        return _with_hw(standardize_shape(input_shape), self.data_format, self.height, self.width)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "height": self.height, "width": self.width, "seed": self.seed}


_FLIP_MODES = ("horizontal", "vertical", "horizontal_and_vertical")


class RandomFlip(_ImagePreprocessingLayer):
    """Flips each image with probability 1/2 while training (``keras.layers.RandomFlip``).

    One draw per image decides; with ``mode="horizontal_and_vertical"`` that image is flipped along
    both axes (Keras 3 uses a single draw for both). The identity in inference.

    Parameters
    ----------
    mode : str
        "horizontal", "vertical" or "horizontal_and_vertical" (default).
    seed : int, optional
        Seeds the layer's own stream (two layers with one seed draw the same flips).
    data_format : str, optional
        "channels_last" (default) or "channels_first".
    """

    def __init__(
        self,
        mode: str = "horizontal_and_vertical",
        seed: int | None = None,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(data_format=data_format, **kwargs)
        if mode not in _FLIP_MODES:
            raise ValueError(f"RandomFlip layer {self.name} received an unknown mode argument {mode}")
        self.mode = mode
        self.seed = seed
        self._stream = _Generator(seed)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"flips": bool [batch, 1, 1, 1] (or [1, 1, 1]), "input_shape": shape}``; None in inference.

        Parameters
        ----------
        data : Tensor
            The images.
        training : bool
            Only draws while training.
        seed : int or tapers.random.Generator, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict or None
            The flip decisions.
        """
        if not training:
            return None
        shape = _shape_of(data)
        flips_shape = [1, 1, 1] if len(shape) == 3 else [shape[0], 1, 1, 1]
        flips = _core.less_equal(_uniform(seed, self._stream, flips_shape, 0.0, 1.0), 0.5)
        return {"flips": flips, "input_shape": shape}

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """Flips the images chosen by ``transformation["flips"]`` while training.

        Parameters
        ----------
        images : Tensor
            3-D or 4-D images.
        transformation : dict or None
            From :meth:`get_random_transformation`.
        training : bool
            The identity otherwise.

        Returns
        -------
        Tensor
            The images, in the layer's compute dtype.
        """
        x, unbatched = self._prepare(images)
        if training and transformation is not None:
            flips = _as_tensor(transformation["flips"], "bool")
            mask = _core.cast(_core.reshape(flips, [-1, 1, 1, 1]), x.dtype)
            h_axis, w_axis = (2, 3) if self.data_format == "channels_first" else (1, 2)
            if self.mode in ("horizontal", "horizontal_and_vertical"):
                x = mask * _core.reverse(x, [w_axis]) + (1.0 - mask) * x
            if self.mode in ("vertical", "horizontal_and_vertical"):
                x = mask * _core.reverse(x, [h_axis]) + (1.0 - mask) * x
        return _core.squeeze(x, [0]) if unbatched else x

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "seed": self.seed, "mode": self.mode}


# ----------------------------------------------------------------------------- affine layers


def _factor_pair(
    factor: Any, name: str, low: float, high: float, low_open: bool = False, pair_low: float | None = None
) -> tuple[float, float]:
    bound = f"({low}, {high}]" if low_open else f"[{low}, {high}]"
    msg = (
        f"The `{name}` argument should be a number (or a list of two numbers) in the range {bound}. "
        f"Received: {name}={factor}"
    )

    def check(v: Any, lowest: float = low) -> float:
        v = float(v)
        if v > high or v < lowest or (low_open and v <= lowest):
            raise ValueError(msg)
        return v

    if isinstance(factor, (tuple, list)):
        if len(factor) != 2:
            raise ValueError(msg)
        lo, hi = sorted(check(v, low if pair_low is None else pair_low) for v in factor)
        return lo, hi
    if isinstance(factor, (int, float)) and not isinstance(factor, bool):
        f = abs(check(factor))
        return -f, f
    raise ValueError(msg)


def _check_affine_options(fill_mode: str, interpolation: str) -> None:
    if fill_mode not in _FILL_MODES:
        raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Expected of one {_FILL_MODES}.")
    if interpolation not in _AFFINE_INTERPOLATIONS:
        raise NotImplementedError(
            f"Unknown `interpolation` {interpolation}. Expected of one {_AFFINE_INTERPOLATIONS}."
        )


class _AffineLayer(_ImagePreprocessingLayer):
    """The random layers that resample the images with a per-image transform (identity in inference)."""

    def __init__(
        self,
        fill_mode: str,
        interpolation: str,
        fill_value: float,
        seed: int | None,
        data_format: str | None,
        **kwargs: Any,
    ) -> None:
        super().__init__(data_format=data_format, **kwargs)
        _check_affine_options(fill_mode, interpolation)
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.interpolation = interpolation
        self.seed = seed
        self._stream = _Generator(seed)

    def _apply(self, images: Any, transforms: Any, interpolation: str | None = None, cast: bool = True) -> Any:
        if cast:
            x, unbatched = self._prepare(images)
        else:
            x = _as_tensor(images)
            unbatched = _check_rank(x) == 3
            x = _core.expand_dims(x, 0) if unbatched else x
        x = _to_nhwc(x, self.data_format)
        out = projective_transform(x, transforms, interpolation or self.interpolation, self.fill_mode, self.fill_value)
        out = _from_nhwc(out, self.data_format)
        return _core.squeeze(out, [0]) if unbatched else out

    def _transforms(self, transformation: Any, images: Any) -> Any:
        raise NotImplementedError

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """Resamples ``images`` by ``transformation`` while training.

        Parameters
        ----------
        images : Tensor
            3-D or 4-D images.
        transformation : dict or None
            From :meth:`get_random_transformation` (or recorded from Keras: same keys).
        training : bool
            The identity otherwise.

        Returns
        -------
        Tensor
            The transformed images, in the layer's compute dtype.
        """
        if not training or transformation is None:
            x, unbatched = self._prepare(images)
            return _core.squeeze(x, [0]) if unbatched else x
        return self._apply(images, self._transforms(transformation, images))

    def transform_segmentation_masks(self, segmentation_masks: Any, transformation: Any, training: bool = True) -> Any:
        """Resamples masks by ``transformation`` with nearest interpolation, keeping their dtype (Keras).

        Parameters
        ----------
        segmentation_masks : Tensor
            3-D or 4-D masks, in ``data_format``.
        transformation : dict or None
            From :meth:`get_random_transformation`.
        training : bool
            The identity otherwise.

        Returns
        -------
        Tensor
            The transformed masks.
        """
        if not training or transformation is None:
            return segmentation_masks
        masks = _as_tensor(segmentation_masks)
        return self._apply(masks, self._transforms(transformation, masks), "nearest", cast=False)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {
            **super().get_config(),
            "fill_mode": self.fill_mode,
            "fill_value": self.fill_value,
            "interpolation": self.interpolation,
            "seed": self.seed,
        }


def _batch_hw(shape: tuple[int, ...], data_format: str) -> tuple[int, int, int]:
    h, w = _hw(shape, data_format)
    return (shape[0] if len(shape) == 4 else 1), int(h), int(w)


class RandomRotation(_AffineLayer):
    """Rotates each image by a random angle about its center while training (``keras.layers.RandomRotation``).

    The angle is drawn uniformly in ``factor * 360`` degrees (positive: counter-clockwise); points
    that come from outside the image are filled according to ``fill_mode``. The identity in inference.

    Parameters
    ----------
    factor : float or pair of float
        A fraction of a full turn: ``f`` means ``[-f, f]``, a pair is ``[lower, upper]``.
    fill_mode : str
        "reflect" (default), "wrap", "constant" or "nearest".
    interpolation : str
        "bilinear" (default) or "nearest".
    seed : int, optional
        Seeds the layer's own stream (two layers with one seed draw the same angles).
    fill_value : float
        The fill value of ``fill_mode="constant"``.
    data_format : str, optional
        "channels_last" (default) or "channels_first".
    """

    def __init__(
        self,
        factor: Any,
        fill_mode: str = "reflect",
        interpolation: str = "bilinear",
        seed: int | None = None,
        fill_value: float = 0.0,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(fill_mode, interpolation, fill_value, seed, data_format, **kwargs)
        self.factor = _factor_pair(factor, "factor", -1.0, 1.0)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"angle", "rotation_matrix", "image_height", "image_width", "batch_size"}``; None in inference.

        Parameters
        ----------
        data : Tensor
            The images.
        training : bool
            Only draws while training.
        seed : int or tapers.random.Generator, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict or None
            Angles in degrees (``[batch]``) and the transforms (``[batch, 8]``, ``[8]`` for one image).
        """
        if not training:
            return None
        shape = _shape_of(data)
        b, h, w = _batch_hw(shape, self.data_format)
        angle = _uniform(seed, self._stream, [b], self.factor[0] * 360.0, self.factor[1] * 360.0)
        zeros = _core.zeros([b])
        matrix = _affine_matrix(0.5, 0.5, angle, zeros, zeros, _core.ones([b]), zeros, zeros, h, w)
        if len(shape) == 3:
            matrix = _core.squeeze(matrix, [0])
        return {"angle": angle, "rotation_matrix": matrix, "image_height": h, "image_width": w, "batch_size": b}

    def _transforms(self, transformation: Any, images: Any) -> Any:
        return transformation["rotation_matrix"]

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "factor": self.factor}


class RandomZoom(_AffineLayer):
    """Zooms each image in or out about its center while training (``keras.layers.RandomZoom``).

    The zoom is drawn per image as ``1 + u`` with ``u`` uniform in the factor's range: a positive
    ``u`` zooms out (the image shrinks), a negative one zooms in. Without ``width_factor`` both axes
    share the height zoom (aspect kept). The identity in inference.

    Parameters
    ----------
    height_factor : float or pair of float
        In ``(-1, 1]``: ``f`` means ``[-f, f]``.
    width_factor : float or pair of float, optional
        The same for the width; None keeps the aspect ratio.
    fill_mode : str
        "reflect" (default), "wrap", "constant" or "nearest".
    interpolation : str
        "bilinear" (default) or "nearest".
    seed : int, optional
        Seeds the layer's own stream.
    fill_value : float
        The fill value of ``fill_mode="constant"``.
    data_format : str, optional
        "channels_last" (default) or "channels_first".
    """

    def __init__(
        self,
        height_factor: Any,
        width_factor: Any = None,
        fill_mode: str = "reflect",
        interpolation: str = "bilinear",
        seed: int | None = None,
        fill_value: float = 0.0,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(fill_mode, interpolation, fill_value, seed, data_format, **kwargs)
        self.height_factor = height_factor
        self.height_lower, self.height_upper = _factor_pair(height_factor, "height_factor", -1.0, 1.0, True)
        self.width_factor = width_factor
        if width_factor is not None:
            self.width_lower, self.width_upper = _factor_pair(width_factor, "width_factor", -1.0, 1.0, True)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"height_zoom", "width_zoom" ([batch, 1]), "input_shape"}``; None in inference.

        Parameters
        ----------
        data : Tensor
            The images.
        training : bool
            Only draws while training.
        seed : int or tapers.random.Generator, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict or None
            The zoom factors.
        """
        if not training:
            return None
        shape = _shape_of(data)
        zshape = [shape[0] if len(shape) == 4 else 1, 1]
        hz = _uniform(seed, self._stream, zshape, 1.0 + self.height_lower, 1.0 + self.height_upper)
        if self.width_factor is not None:
            wz = _uniform(seed, self._stream, zshape, 1.0 + self.width_lower, 1.0 + self.width_upper)
        else:
            wz = hz
        return {"height_zoom": hz, "width_zoom": wz, "input_shape": shape}

    def _transforms(self, transformation: Any, images: Any) -> Any:
        h, w = _hw(tuple(_as_tensor(images).shape), self.data_format)
        zx = _core.reshape(_as_tensor(transformation["width_zoom"], "float32"), [-1, 1])
        zy = _core.reshape(_as_tensor(transformation["height_zoom"], "float32"), [-1, 1])
        zeros = _core.zeros_like(zx)
        x_off = ((float(w) - 1.0) / 2.0) * (1.0 - zx)
        y_off = ((float(h) - 1.0) / 2.0) * (1.0 - zy)
        return _core.concat([zx, zeros, x_off, zeros, zy, y_off, zeros, zeros], axis=1)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "height_factor": self.height_factor, "width_factor": self.width_factor}


class RandomTranslation(_AffineLayer):
    """Shifts each image by a random offset while training (``keras.layers.RandomTranslation``).

    Offsets are fractions of the height and width drawn per image; positive values move the content
    down and right. The identity in inference.

    Parameters
    ----------
    height_factor, width_factor : float or pair of float
        In ``[-1, 1]``: ``f`` means ``[-f, f]``.
    fill_mode : str
        "reflect" (default), "wrap", "constant" or "nearest".
    interpolation : str
        "bilinear" (default) or "nearest".
    seed : int, optional
        Seeds the layer's own stream.
    fill_value : float
        The fill value of ``fill_mode="constant"``.
    data_format : str, optional
        "channels_last" (default) or "channels_first".
    """

    def __init__(
        self,
        height_factor: Any,
        width_factor: Any,
        fill_mode: str = "reflect",
        interpolation: str = "bilinear",
        seed: int | None = None,
        fill_value: float = 0.0,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(fill_mode, interpolation, fill_value, seed, data_format, **kwargs)
        self.height_factor = height_factor
        self.height_lower, self.height_upper = _factor_pair(height_factor, "height_factor", -1.0, 1.0)
        self.width_factor = width_factor
        self.width_lower, self.width_upper = _factor_pair(width_factor, "width_factor", -1.0, 1.0)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"translations": [batch, 2] (x, y in pixels), "input_shape"}``; None in inference.

        Parameters
        ----------
        data : Tensor
            The images.
        training : bool
            Only draws while training.
        seed : int or tapers.random.Generator, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict or None
            The offsets.
        """
        if not training:
            return None
        shape = _shape_of(data)
        b, h, w = _batch_hw(shape, self.data_format)
        dy = _uniform(seed, self._stream, [b, 1], self.height_lower, self.height_upper) * float(h)
        dx = _uniform(seed, self._stream, [b, 1], self.width_lower, self.width_upper) * float(w)
        return {"translations": _core.concat([dx, dy], axis=1), "input_shape": shape}

    def _transforms(self, transformation: Any, images: Any) -> Any:
        t = _as_tensor(transformation["translations"], "float32")
        ones = _core.ones_like(t[:, 0:1])
        zeros = _core.zeros_like(ones)
        return _core.concat([ones, zeros, -t[:, 0:1], zeros, ones, -t[:, 1:], zeros, zeros], axis=1)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "height_factor": self.height_factor, "width_factor": self.width_factor}


class RandomShear(_AffineLayer):
    """Shears each image along x and y while training (``keras.layers.RandomShear``).

    Per image, shear amounts are drawn in the factors' ranges and their common sign is flipped with
    probability 1/2; the input point of output ``(x, y)`` is ``(x + sx y, sy x + y)`` (no centering,
    as Keras). The identity in inference.

    Parameters
    ----------
    x_factor, y_factor : float or pair of float
        A number in ``[0, 1]``: ``f`` means ``[-f, f]``; or a ``[lower, upper]`` pair in ``[-1, 1]``
        (Keras 3.15 requires ``[0, 1]`` there too, so its own ``get_config`` does not round-trip).
    interpolation : str
        "bilinear" (default) or "nearest".
    fill_mode : str
        "reflect" (default), "wrap", "constant" or "nearest".
    fill_value : float
        The fill value of ``fill_mode="constant"``.
    data_format : str, optional
        "channels_last" (default) or "channels_first".
    seed : int, optional
        Seeds the layer's own stream.
    """

    def __init__(
        self,
        x_factor: Any = 0.0,
        y_factor: Any = 0.0,
        interpolation: str = "bilinear",
        fill_mode: str = "reflect",
        fill_value: float = 0.0,
        data_format: str | None = None,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(fill_mode, interpolation, fill_value, seed, data_format, **kwargs)
        # A pair may reach -1, so that get_config's (-f, f) round-trips (Keras 3.15 rejects it).
        self.x_factor = _factor_pair(x_factor, "x_factor", 0.0, 1.0, pair_low=-1.0)
        self.y_factor = _factor_pair(y_factor, "y_factor", 0.0, 1.0, pair_low=-1.0)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"shear_factor": [batch, 2] (x, y), "input_shape"}``; None in inference.

        Parameters
        ----------
        data : Tensor
            The images.
        training : bool
            Only draws while training.
        seed : int or tapers.random.Generator, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict or None
            The shear amounts.
        """
        if not training:
            return None
        shape = _shape_of(data)
        b = shape[0] if len(shape) == 4 else 1
        invert = _uniform(seed, self._stream, [b, 1], 0.0, 1.0)
        invert = 1.0 - 2.0 * _core.cast(invert > 0.5, "float32")
        sy = _uniform(seed, self._stream, [b, 1], self.y_factor[0], self.y_factor[1])
        sx = _uniform(seed, self._stream, [b, 1], self.x_factor[0], self.x_factor[1])
        return {"shear_factor": _core.concat([sx, sy], axis=1) * invert, "input_shape": shape}

    def _transforms(self, transformation: Any, images: Any) -> Any:
        s = _as_tensor(transformation["shear_factor"], "float32")
        ones = _core.ones_like(s[:, 0])
        zeros = _core.zeros_like(ones)
        return _core.stack([ones, s[:, 0], zeros, s[:, 1], ones, zeros, zeros, zeros], axis=1)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "x_factor": self.x_factor, "y_factor": self.y_factor}


def _homography(start: Any, end: Any) -> Any:
    """Keras' ``compute_homography_matrix``: the ``[batch, 8]`` projective transform that maps the
    ``end`` corners (output points) to the ``start`` corners (input points)."""
    rows = []
    target = []
    for i in range(4):
        sx, sy = start[:, i, 0], start[:, i, 1]
        ex, ey = end[:, i, 0], end[:, i, 1]
        one, zero = _core.ones_like(ex), _core.zeros_like(ex)
        rows.append(_core.stack([ex, ey, one, zero, zero, zero, -sx * ex, -sx * ey], axis=-1))
        rows.append(_core.stack([zero, zero, zero, ex, ey, one, -sy * ex, -sy * ey], axis=-1))
        target += [sx, sy]
    a = _core.stack(rows, axis=1)
    rhs = _core.expand_dims(_core.stack(target, axis=-1), -1)
    return _core.reshape(_tf().linalg.solve(a, rhs), [-1, 8])


class RandomPerspective(_AffineLayer):
    """Applies a random perspective warp to some images while training (``keras.layers.RandomPerspective``).

    Per image: a probability is drawn in ``factor``'s range and the warp applies when a second uniform
    draw is below it; the four corners move by up to ``scale / 2`` of their coordinates, and the image is
    resampled with the homography between the moved and original corners (constant fill). The identity
    in inference.

    Parameters
    ----------
    factor : float or pair of float
        In ``[0, 1]``: the range of the per-image probability (``f`` means ``[0, f]``).
    scale : float
        In ``[0, 1]``: how far the corners move.
    interpolation : str
        "bilinear" (default) or "nearest".
    fill_value : float
        The value of points from outside the image.
    seed : int, optional
        Seeds the layer's own stream.
    data_format : str, optional
        "channels_last" (default) or "channels_first".
    """

    def __init__(
        self,
        factor: Any = 1.0,
        scale: float = 1.0,
        interpolation: str = "bilinear",
        fill_value: float = 0.0,
        seed: int | None = None,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__("constant", interpolation, fill_value, seed, data_format, **kwargs)
        lo, hi = _factor_pair(factor, "factor", 0.0, 1.0)
        self.factor = (max(lo, 0.0), hi)
        if scale < 0.0 or scale > 1.0:
            raise ValueError(f"The `scale` argument should be a number in the range [0,1]. Received: scale={scale}")
        self.scale = scale

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"apply_perspective" ([batch] bool), "start_points", "end_points" ([batch, 4, 2]),
        "input_shape"}``; None in inference.

        Parameters
        ----------
        data : Tensor
            The images.
        training : bool
            Only draws while training.
        seed : int or tapers.random.Generator, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict or None
            Which images are warped and their corners.
        """
        if not training:
            return None
        shape = _shape_of(data)
        b, h, w = _batch_hw(shape, self.data_format)
        prob = _uniform(seed, self._stream, [b], self.factor[0], self.factor[1])
        threshold = _uniform(seed, self._stream, [b], 0.0, 1.0)
        factor = _uniform(seed, self._stream, [b, 4, 2], -0.5 * self.scale, 0.5 * self.scale)
        corners = np.array([[[0.0, 0.0], [w - 1, 0.0], [0.0, h - 1], [w - 1, h - 1]]] * b, dtype=np.float32)
        start = _core.constant(corners)
        return {
            "apply_perspective": _core.less(threshold, prob),
            "start_points": start,
            "end_points": start + start * factor,
            "input_shape": shape,
        }

    def _transforms(self, transformation: Any, images: Any) -> Any:
        start = _as_tensor(transformation["start_points"], "float32")
        end = _as_tensor(transformation["end_points"], "float32")
        if len(start.shape) == 2:
            start = _core.expand_dims(start, 0)
        if len(end.shape) == 2:
            end = _core.expand_dims(end, 0)
        return _homography(start, end)

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """Warps the images selected by ``transformation["apply_perspective"]`` while training.

        Parameters
        ----------
        images : Tensor
            3-D or 4-D images.
        transformation : dict or None
            From :meth:`get_random_transformation`.
        training : bool
            The identity otherwise.

        Returns
        -------
        Tensor
            The images, in the layer's compute dtype.
        """
        x, unbatched = self._prepare(images)
        if training and transformation is not None:
            x = self._warp(x, transformation, self.interpolation)
        return _core.squeeze(x, [0]) if unbatched else x

    def _warp(self, x: Any, transformation: Any, interpolation: str) -> Any:
        warped = _from_nhwc(
            projective_transform(
                _to_nhwc(x, self.data_format),
                self._transforms(transformation, x),
                interpolation,
                "constant",
                self.fill_value,
            ),
            self.data_format,
        )
        apply = _core.reshape(_as_tensor(transformation["apply_perspective"], "bool"), [-1, 1, 1, 1])
        apply = _core.logical_and(apply, _core.ones_like(x, dtype="bool"))
        return _core.where(apply, warped, x)

    def transform_segmentation_masks(self, segmentation_masks: Any, transformation: Any, training: bool = True) -> Any:
        """Warps the selected masks with nearest interpolation, keeping their dtype (Keras).

        Parameters
        ----------
        segmentation_masks : Tensor
            3-D or 4-D masks, in ``data_format``.
        transformation : dict or None
            From :meth:`get_random_transformation`.
        training : bool
            The identity otherwise.

        Returns
        -------
        Tensor
            The transformed masks.
        """
        if not training or transformation is None:
            return segmentation_masks
        masks = _as_tensor(segmentation_masks)
        unbatched = _check_rank(masks) == 3
        x = _core.expand_dims(masks, 0) if unbatched else masks
        x = self._warp(x, transformation, "nearest")
        return _core.squeeze(x, [0]) if unbatched else x

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys (no ``fill_mode``: the fill is constant)."""
        config = {**super().get_config(), "factor": self.factor, "scale": self.scale}
        config.pop("fill_mode")
        return config


# ----------------------------------------------------------------------------- Pipeline


class Pipeline(Layer):
    """Applies a list of layers in order (``keras.layers.Pipeline``), passing ``training`` to each.

    Unlike ``Sequential`` it is a plain layer (no model methods); it is meant for chains of
    preprocessing layers, e.g. ``Pipeline([RandomFlip(), RandomRotation(0.1), Resizing(64, 64)])``.

    Parameters
    ----------
    layers : list of Layer
        The layers, applied first to last.
    name : str, optional
        The layer's name (default ``pipeline``, numbered).
    """

    def __init__(self, layers: Sequence[Layer], name: str | None = None, **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        layers = list(layers)
        for layer in layers:
            if not isinstance(layer, Layer):
                raise ValueError(f"Pipeline only takes Keras layers; received {layer!r}")
        self._pipeline_layers = layers
        self.built = True

    @property
    def layers(self) -> list[Layer]:
        """The layers, in order."""
        return self._pipeline_layers

    def call(self, inputs: Any, training: bool = True) -> Any:
        """Applies the layers in turn.

        Parameters
        ----------
        inputs : Tensor
            The first layer's input.
        training : bool
            Passed to every layer that takes it (the random layers transform only while training).

        Returns
        -------
        Tensor
            The last layer's output.
        """
        for layer in self._pipeline_layers:
            kwargs = {"training": training} if layer._call_has_training_arg and training is not None else {}
            inputs = layer(inputs, **kwargs)
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Each layer's ``compute_output_shape`` in turn (found by running the layers when one lacks it)."""
        for layer in self._pipeline_layers:
            input_shape = layer.compute_output_shape(input_shape)
        return input_shape

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: ``layers`` (each serialized) and ``name``."""
        return {"layers": [_serialize(layer) for layer in self._pipeline_layers], "name": self.name}

    @classmethod
    def from_config(cls, config: Any) -> Pipeline:
        """The pipeline ``get_config`` describes (its layers deserialized).

        Parameters
        ----------
        config : dict
            From :meth:`get_config`.

        Returns
        -------
        Pipeline
            A new pipeline with new layers.
        """
        layers = config.get("layers")
        if not isinstance(layers, (list, tuple)):
            raise ValueError(
                "`Pipeline` config must contain a `layers` key mapping to a list of serialized layers. "
                f"Received config with layers={layers}."
            )
        config = {**config, "layers": [_deserialize(x) for x in layers]}
        return cls(**config)
