"""Keras 3's colour and intensity augmentation layers: ``RandomContrast``, ``RandomBrightness``,
``RandomGrayscale``, ``RandomInvert``, ``Solarization``, ``RandomPosterization``, ``RandomSaturation``,
``RandomHue``, ``RandomColorDegeneration``, ``RandomColorJitter``, ``RandomSharpness``, ``AutoContrast``,
``Equalization``, ``RandomErasing``, ``RandomGaussianBlur``, ``MixUp``, ``CutMix``.

They follow Keras 3.15's ``BaseImagePreprocessingLayer`` contract: ``call(data, training=True)`` draws
a transformation with :meth:`get_random_transformation` and applies it with :meth:`transform_images`,
both public so that a caller (or a test) can apply a given transformation. Inputs are one image
(``(height, width, channels)``) or a batch (``(batch, height, width, channels)``; ``channels_first``
with ``data_format``), or a dict with an ``"images"`` entry (``labels``, ``bounding_boxes`` and
``segmentation_masks`` pass through unchanged, as colour changes do not move them). Inputs are cast to
the layer's dtype (float32).

Randomness: each layer owns a tapers random stream, seeded by ``seed`` (so two layers with the same
seed draw the same transformations) or, without one, from the global seed / OS entropy. tapers'
streams are not TensorFlow's, so the numbers differ from Keras'; the transformation dicts have Keras'
keys, shapes and distributions. Tensor values only go through tapers ops, so gradients flow through
``GradientTape`` and the layers run inside ``tapers.function`` (a new draw per call).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _core
from ... import math as _math
from ... import nn as _nn
from ... import random as _random
from ..._core.random import Generator
from ..._image_extra import _hsv_to_rgb_t as _hsv_to_rgb
from ..._image_extra import _rgb_to_hsv_t as _rgb_to_hsv
from ...dtypes import as_dtype
from ._base import Layer

__all__ = [
    "AutoContrast",
    "CutMix",
    "Equalization",
    "MixUp",
    "RandomBrightness",
    "RandomColorDegeneration",
    "RandomColorJitter",
    "RandomContrast",
    "RandomErasing",
    "RandomGaussianBlur",
    "RandomGrayscale",
    "RandomHue",
    "RandomInvert",
    "RandomPosterization",
    "RandomSaturation",
    "RandomSharpness",
    "Solarization",
]

Tensor = _core.Tensor
_EPSILON = 1e-7  # keras.config.epsilon()
_VALUE_RANGE_ERROR = "The `value_range` argument should be a list of two numbers. "


# ----------------------------------------------------------------------------- helpers


def _new_generator(seed: Any) -> Generator:
    """A stream of its own from ``seed``; without one, the global generator (``set_seed`` rules)."""
    if isinstance(seed, Generator):
        return seed
    if seed is None:  # TF's rules: a stream per unseeded op under a global seed, else OS entropy
        return _random.get_global_generator()
    return Generator.from_seed(int(seed) & (2**64 - 1))


def _uniform(gen: Generator, shape: Any, minval: float, maxval: float, dtype: str = "float32") -> Tensor:
    return gen.uniform([int(d) for d in shape], float(minval), float(maxval), dtype)


def _sorted_value_range(value_range: Any) -> list[Any]:
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
        raise ValueError(_VALUE_RANGE_ERROR + f"Received: value_range={value_range}")
    return sorted(value_range)


def _clip(x: Any, lo: float, hi: float) -> Tensor:
    """``clip_by_value`` with Python bounds, in ``x``'s dtype."""
    lo_t = _f(lo, x.dtype)
    hi_t = _f(hi, x.dtype)
    return _core.minimum(_core.maximum(x, lo_t), hi_t)


def _f(x: Any, dtype: Any = None) -> Tensor:
    """A float32 constant (TensorFlow's float32 rounding of ``x``), cast to ``dtype`` when given."""
    t = _core.constant(np.float32(x))
    if dtype is not None and as_dtype(dtype).name != "float32":
        t = _core.cast(t, dtype)
    return t


def _grayscale(images: Any) -> Tensor:
    """Keras' ``ops.image.rgb_to_grayscale`` (channels last): one channel, 1-channel input unchanged."""
    channels = images.shape[-1]
    if channels == 1:
        return images
    if channels != 3:
        raise ValueError(
            "Invalid channel size: expected 3 (RGB) or 1 (Grayscale). "
            f"Received input with shape: images.shape={tuple(images.shape)}"
        )
    w = _core.constant(np.array([0.2989, 0.5870, 0.1140], dtype=np.float32))
    if images.dtype.name != "float32":
        w = _core.cast(w, images.dtype)
    gray = _core.tensordot(images, w, axes=[[len(images.shape) - 1], [0]])
    return _core.expand_dims(gray, -1)


def _value_range_map(images: Any, original: Any, target: Any) -> Tensor:
    """Keras' ``_transform_value_range``: an affine map from one range onto another."""
    if original[0] == target[0] and original[1] == target[1]:
        return images
    o0, o1 = np.float32(original[0]), np.float32(original[1])
    t0, t1 = np.float32(target[0]), np.float32(target[1])
    dt = images.dtype
    return (images - _f(o0, dt)) / _f(o1 - o0, dt) * _f(t1 - t0, dt) + _f(t0, dt)


# ----------------------------------------------------------------------------- base


class _BaseColorLayer(Layer):
    """Keras' ``BaseImagePreprocessingLayer`` for layers that only change pixel values.

    Parameters
    ----------
    data_format : str, optional
        ``"channels_last"`` (default) or ``"channels_first"``.
    bounding_box_format : str, optional
        Only recorded: colour changes leave bounding boxes as they are.
    seed : int, optional
        Seeds the layer's random stream.
    """

    _USE_BASE_FACTOR = True
    _FACTOR_BOUNDS: tuple[float, float] = (-1, 1)

    def __init__(
        self,
        factor: Any = None,
        bounding_box_format: str | None = None,
        data_format: str | None = None,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.bounding_box_format = bounding_box_format
        if data_format is None:
            data_format = "channels_last"
        data_format = str(data_format).lower()
        if data_format not in ("channels_last", "channels_first"):
            raise ValueError(
                "The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
                f"Received: data_format={data_format}"
            )
        self.data_format = data_format
        if self._USE_BASE_FACTOR:
            self._set_factor(factor or 0.0)
        elif factor is not None:
            raise ValueError(
                f"Layer {type(self).__name__} does not take a `factor` argument. Received: factor={factor}"
            )
        self.seed = seed
        self._generator = _new_generator(seed)

    def _set_factor(self, factor: Any) -> None:
        lo, hi = self._FACTOR_BOUNDS
        error_msg = (
            "The `factor` argument should be a number (or a list of two numbers) "
            f"in the range [{lo}, {hi}]. Received: factor={factor}"
        )
        if isinstance(factor, (tuple, list)):
            if len(factor) != 2 or factor[0] > hi or factor[1] < lo:
                raise ValueError(error_msg)
            lower, upper = sorted(factor)
        elif isinstance(factor, (int, float, np.number)) and not isinstance(factor, bool):
            if factor < lo or factor > hi:
                raise ValueError(error_msg)
            factor = abs(factor)
            lower, upper = max(-factor, lo), factor
        else:
            raise ValueError(error_msg)
        self.factor: Any = (lower, upper)

    # -- randomness --------------------------------------------------------

    def _gen(self, seed: Any) -> Generator:
        return self._generator if seed is None else _new_generator(seed)

    @staticmethod
    def _images_of(data: Any) -> Any:
        return data["images"] if isinstance(data, dict) else data

    def _batch_size(self, data: Any) -> int:
        shape = tuple(self._images_of(data).shape)
        if len(shape) == 3:
            return 1
        if len(shape) == 4:
            return int(shape[0])
        raise ValueError(f"Expected the input image to be rank 3 or 4. Received: inputs.shape={shape}")

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """The random parameters of one call, as Keras' dict (``None`` for a deterministic layer).

        Parameters
        ----------
        data : Tensor or dict
            The images (rank 3 or 4), or a dict with ``"images"``; only its shape is read.
        training : bool
            In inference, layers return Keras' neutral transformation (or ``None``).
        seed : int or Generator, optional
            Draw from this seed instead of the layer's own stream.

        Returns
        -------
        dict, Tensor or None
            What :meth:`transform_images` takes.
        """
        return None

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Tensor:
        """Applies ``transformation`` to a batch of images.

        Parameters
        ----------
        images : Tensor
            ``(batch, height, width, channels)`` (or channels first).
        transformation : dict, Tensor or None
            From :meth:`get_random_transformation`.
        training : bool
            ``False`` returns the images unchanged (cast to the layer's dtype).

        Returns
        -------
        Tensor
            The transformed images, same shape.
        """
        images = self._cast(images)
        if not training:
            return images
        if self.data_format == "channels_first":
            images = _core.transpose(images, [0, 2, 3, 1])
            out = self._apply(images, transformation)
            return _core.transpose(out, [0, 3, 1, 2])
        return self._apply(images, transformation)

    def _apply(self, images: Tensor, transformation: Any) -> Tensor:
        raise NotImplementedError

    def _cast(self, images: Any) -> Tensor:
        images = _core.convert_to_tensor(images)
        if images.dtype.name != self.compute_dtype:
            images = _core.cast(images, self.compute_dtype)
        return images

    # -- call ----------------------------------------------------------------

    def call(self, data: Any, training: bool = True) -> Any:
        """Draws a transformation and applies it (to ``data["images"]`` for a dict).

        Parameters
        ----------
        data : Tensor or dict
            One image (rank 3), a batch (rank 4), or a dict with ``"images"``.
        training : bool
            Keras' default is ``True`` when the layer is called directly; ``Model.predict`` passes ``False``.

        Returns
        -------
        Tensor or dict
            Like ``data``.
        """
        if isinstance(data, dict):
            if "images" not in data:
                raise ValueError(f"A dict input needs an 'images' entry. Received keys: {sorted(data)}")
            if "bounding_boxes" in data and not self.bounding_box_format:
                raise ValueError(
                    "You passed an input with a 'bounding_boxes' key, but you didn't specify a bounding box "
                    f"format. Pass a `bounding_box_format` argument to your {type(self).__name__} layer, "
                    "e.g. `bounding_box_format='xyxy'`."
                )
            images = self._cast(data["images"])
            self._batch_size(images)  # ValueError unless rank 3 or 4
            batched = len(images.shape) == 4
            transformation = self.get_random_transformation(images, training=training)
            out = dict(data)
            out["images"] = self._transform_one_or_batch(images, transformation, training, self.transform_images)
            for key, fn in (("labels", self.transform_labels), ("segmentation_masks",
                                                                 self.transform_segmentation_masks)):
                if key in data:
                    value = _core.convert_to_tensor(data[key])
                    if batched:
                        out[key] = fn(value, transformation, training=training)
                    else:
                        out[key] = _core.squeeze(fn(_core.expand_dims(value, 0), transformation, training=training),
                                                 [0])
            if "bounding_boxes" in data:
                out["bounding_boxes"] = self.transform_bounding_boxes(data["bounding_boxes"], transformation,
                                                                      training=training)
            return out
        images = self._cast(data)
        self._batch_size(images)  # ValueError unless rank 3 or 4
        transformation = self.get_random_transformation(images, training=training)
        return self._transform_one_or_batch(images, transformation, training, self.transform_images)

    @staticmethod
    def _transform_one_or_batch(images: Tensor, transformation: Any, training: bool, fn: Any) -> Tensor:
        if len(images.shape) == 4:
            return fn(images, transformation, training=training)
        return _core.squeeze(fn(_core.expand_dims(images, 0), transformation, training=training), [0])

    def transform_labels(self, labels: Any, transformation: Any, training: bool = True) -> Any:
        """The labels of a dict input: unchanged by colour layers.

        Parameters
        ----------
        labels : Tensor
            A batch of labels.
        transformation : dict or None
            From :meth:`get_random_transformation`.
        training : bool
            Whether the layer is in training.

        Returns
        -------
        Tensor
            ``labels``.
        """
        return labels

    def transform_segmentation_masks(self, segmentation_masks: Any, transformation: Any,
                                     training: bool = True) -> Any:
        """The segmentation masks of a dict input: unchanged by colour layers.

        Parameters
        ----------
        segmentation_masks : Tensor
            A batch of masks.
        transformation : dict or None
            From :meth:`get_random_transformation`.
        training : bool
            Whether the layer is in training.

        Returns
        -------
        Tensor
            ``segmentation_masks``.
        """
        return segmentation_masks

    def transform_bounding_boxes(self, bounding_boxes: Any, transformation: Any, training: bool = True) -> Any:
        """The bounding boxes of a dict input: unchanged by colour layers.

        Parameters
        ----------
        bounding_boxes : dict
            ``{"boxes", "labels"}``.
        transformation : dict or None
            From :meth:`get_random_transformation`.
        training : bool
            Whether the layer is in training.

        Returns
        -------
        dict
            ``bounding_boxes``.
        """
        return bounding_boxes

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape: colour changes keep it."""
        return input_shape

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: the base keys and ``data_format`` (and ``bounding_box_format`` when set)."""
        config = {**super().get_config(), "data_format": self.data_format}
        if self.bounding_box_format is not None:
            config["bounding_box_format"] = self.bounding_box_format
        return config


def _per_image_shape(data: Any, layer: _BaseColorLayer) -> tuple[int, ...]:
    """``(batch, 1, 1, 1)`` for a batch, ``(1, 1, 1)`` for one image (Keras' factor shapes)."""
    b = layer._batch_size(data)
    return (b, 1, 1, 1) if len(layer._images_of(data).shape) == 4 else (1, 1, 1)


def _as_batch_factor(t: Any) -> Tensor:
    """A per-image factor of shape ``(batch,)``, ``(batch, 1, 1, 1)`` or ``(1, 1, 1)`` as ``(batch, 1, 1, 1)``."""
    t = _core.convert_to_tensor(t)
    if len(t.shape) == 3:
        t = _core.expand_dims(t, 0)
    if len(t.shape) == 1:
        t = _core.reshape(t, [-1, 1, 1, 1])
    return t


# ----------------------------------------------------------------------------- layers


class RandomContrast(_BaseColorLayer):
    """Scales each image's deviation from its per-channel mean by a random factor
    (``keras.layers.RandomContrast``): ``(x - mean) * c + mean``, clipped to ``value_range``,
    with ``c`` uniform in ``[1 - lower, 1 + upper]`` per image.

    Parameters
    ----------
    factor : float or tuple of two floats
        In ``[0, 1]``; a number ``f`` means ``(f, f)``: ``c`` in ``[1 - f, 1 + f]``.
    value_range : tuple of two numbers
        The images' range (default ``(0, 255)``); the result is clipped to it.
    seed : int, optional
        Seeds the layer's random stream.
    **kwargs
        ``data_format``, ``name``, ``dtype`` as for every layer.

    Returns
    -------
    Tensor
        Calling the layer returns the adjusted images (unchanged in inference).
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor: Any, value_range: Any = (0, 255), seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(seed=seed, **kwargs)
        self._set_factor(factor)
        self.value_range = value_range

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"contrast_factor": (batch, 1, 1, 1)}`` (``(1, 1, 1)`` for one image); zeros in inference.

        Parameters
        ----------
        data : Tensor or dict
            Only the shape is read.
        training : bool
            Whether to draw.
        seed : int, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict
            Keras' transformation.
        """
        shape = _per_image_shape(data, self)
        if not training:
            return {"contrast_factor": _core.zeros(list(shape))}
        return {"contrast_factor": _uniform(self._gen(seed), shape, 1.0 - self.factor[0], 1.0 + self.factor[1])}

    def _apply(self, images: Tensor, transformation: Any) -> Tensor:
        c = _core.cast(_as_batch_factor(transformation["contrast_factor"]), images.dtype)
        mean = _core.reduce_mean(_core.reduce_mean(images, axis=1, keepdims=True), axis=2, keepdims=True)
        out = (images - mean) * c + mean
        return _clip(out, float(self.value_range[0]), float(self.value_range[1]))

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}


class RandomBrightness(_BaseColorLayer):
    """Adds a random per-image offset to every pixel (``keras.layers.RandomBrightness``):
    ``delta`` uniform in ``factor`` times the width of ``value_range``, then clipped to it.

    Parameters
    ----------
    factor : float or tuple of two floats
        In ``[-1, 1]``; ``f`` means ``(-f, f)``.
    value_range : tuple of two numbers
        The images' range (default ``(0, 255)``; sorted).
    seed : int, optional
        Seeds the layer's random stream.
    **kwargs
        ``data_format``, ``name``, ``dtype``.

    Returns
    -------
    Tensor
        Calling the layer returns the brightened images (unchanged in inference).
    """

    def __init__(self, factor: Any, value_range: Any = (0, 255), seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(factor=factor, seed=seed, **kwargs)
        self.value_range = _sorted_value_range(value_range)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"rgb_delta": (batch, 1, 1, 1)}`` (``(1, 1, 1)`` for one image); zeros in inference.

        Parameters
        ----------
        data : Tensor or dict
            Only the shape is read.
        training : bool
            Whether to draw.
        seed : int, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict
            Keras' transformation.
        """
        shape = _per_image_shape(data, self)
        if not training:
            return {"rgb_delta": _core.zeros(list(shape))}
        delta = _uniform(self._gen(seed), shape, self.factor[0], self.factor[1])
        return {"rgb_delta": delta * _f(self.value_range[1] - self.value_range[0])}

    def _apply(self, images: Tensor, transformation: Any) -> Tensor:
        delta = _core.cast(_as_batch_factor(transformation["rgb_delta"]), images.dtype)
        return _clip(images + delta, float(self.value_range[0]), float(self.value_range[1]))

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}


class RandomGrayscale(_BaseColorLayer):
    """Turns each image to grayscale with probability ``factor`` (``keras.layers.RandomGrayscale``);
    the gray value ``0.2989 R + 0.5870 G + 0.1140 B`` is repeated over the channels.

    Parameters
    ----------
    factor : float
        The probability, in ``[0, 1]`` (default 0.5).
    data_format : str, optional
        ``"channels_last"`` or ``"channels_first"``.
    seed : int, optional
        Seeds the layer's random stream.
    **kwargs
        ``name``, ``dtype``.

    Returns
    -------
    Tensor
        Calling the layer returns the images (unchanged in inference).
    """

    _USE_BASE_FACTOR = False

    def __init__(self, factor: float = 0.5, data_format: str | None = None, seed: int | None = None,
                 **kwargs: Any) -> None:
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        if factor < 0 or factor > 1:
            raise ValueError(f"`factor` should be between 0 and 1. Received: factor={factor}")
        self.factor = factor

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """A boolean ``(batch, 1, 1, 1)`` tensor (Keras returns a tensor here, not a dict): where to apply.

        Parameters
        ----------
        data : Tensor or dict
            Only the shape is read.
        training : bool
            Ignored, as in Keras (inference skips the transformation instead).
        seed : int, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        Tensor
            ``uniform < factor`` per image.
        """
        b = self._batch_size(data)
        u = _uniform(self._gen(seed), (b,), 0.0, 1.0)
        return _core.reshape(_core.less(u, _f(self.factor)), [b, 1, 1, 1])

    def _apply(self, images: Tensor, transformation: Any) -> Tensor:
        if transformation is None:
            transformation = self.get_random_transformation(images)
        should = _core.convert_to_tensor(transformation)
        gray = _grayscale(images)
        gray = _core.broadcast_to(gray, images.shape) if gray.shape != images.shape else gray
        cond = _core.broadcast_to(should, [images.shape[0], 1, 1, 1])
        cond = _core.broadcast_to(cond, images.shape)
        return _core.where(cond, gray, images)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "factor": self.factor}


class RandomInvert(_BaseColorLayer):
    """Replaces images by ``value_range[1] - x`` at random (``keras.layers.RandomInvert``): per
    image, a probability ``p`` is drawn uniform in ``factor`` and the image is inverted when another
    uniform draw is below ``p``.

    Parameters
    ----------
    factor : float or tuple of two floats
        In ``[0, 1]``; ``f`` means ``(0, f)`` (default 1.0).
    value_range : tuple of two numbers
        The images' range (default ``(0, 255)``).
    seed : int, optional
        Seeds the layer's random stream.
    data_format : str, optional
        ``"channels_last"`` or ``"channels_first"``.
    **kwargs
        ``name``, ``dtype``.

    Returns
    -------
    Tensor
        Calling the layer returns the images (unchanged in inference).
    """

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor: Any = 1.0, value_range: Any = (0, 255), seed: int | None = None,
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self._set_factor(factor)
        self.value_range = value_range

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"apply_inversion": bool (batch,)}``; ``None`` in inference.

        Parameters
        ----------
        data : Tensor or dict
            Only the shape is read.
        training : bool
            Whether to draw.
        seed : int, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict or None
            Keras' transformation.
        """
        if not training:
            return None
        b = self._batch_size(data)
        gen = self._gen(seed)
        p = _uniform(gen, (b,), self.factor[0], self.factor[1])
        threshold = _uniform(gen, (b,), 0.0, 1.0)
        return {"apply_inversion": _core.less(threshold, p)}

    def _apply(self, images: Tensor, transformation: Any) -> Tensor:
        flag = _core.convert_to_tensor(transformation["apply_inversion"])
        cond = _core.broadcast_to(_core.reshape(flag, [-1, 1, 1, 1]), images.shape)
        return _core.where(cond, _f(self.value_range[1], images.dtype) - images, images)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}


def _solarization_factor(factor: Any, name: str) -> tuple[Any, Any]:
    msg = (
        "The `addition_factor` and `threshold_factor` arguments should be a number (or a list of two numbers) "
        "in the range [0, 1]. "
    )

    def check(v: Any) -> None:
        if v > 1.0 or v < 0:
            raise ValueError(msg + f"Received: input_number={v}")

    if isinstance(factor, (tuple, list)):
        if len(factor) != 2:
            raise ValueError(msg + f"Received: {name}={factor}")
        check(factor[0])
        check(factor[1])
        lower, upper = sorted(factor)
        return lower, upper
    if isinstance(factor, (int, float, np.number)) and not isinstance(factor, bool):
        check(factor)
        return 0, factor
    raise ValueError(msg + f"Received: {name}={factor}")


class Solarization(_BaseColorLayer):
    """Adds a random amount to the pixels, then inverts those at or above a random threshold
    (``keras.layers.Solarization``), in a 0..255 scale mapped from ``value_range``.

    As in Keras 3.15, the addition is uniform in ``[addition_factor[0], addition_factor[1] * 255]``
    and the threshold in ``[threshold_factor[0], threshold_factor[1] * 255]``; pixels ``x`` with
    ``clip(x + addition, 0, 255) >= threshold`` become ``255 - ...`` (so the default threshold 0
    inverts every pixel).

    Parameters
    ----------
    addition_factor : float or tuple of two floats
        In ``[0, 1]``; ``f`` means ``(0, f)``.
    threshold_factor : float or tuple of two floats
        In ``[0, 1]``; ``f`` means ``(0, f)``.
    value_range : tuple of two numbers
        The images' range (default ``(0, 255)``; sorted).
    seed : int, optional
        Seeds the layer's random stream.
    **kwargs
        ``data_format``, ``name``, ``dtype``.

    Returns
    -------
    Tensor
        Calling the layer returns the images (unchanged in inference).
    """

    _USE_BASE_FACTOR = False

    def __init__(self, addition_factor: Any = 0.0, threshold_factor: Any = 0.0, value_range: Any = (0, 255),
                 seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(seed=seed, **kwargs)
        self.addition_factor = _solarization_factor(addition_factor, "addition_factor")
        self.threshold_factor = _solarization_factor(threshold_factor, "threshold_factor")
        self.value_range = _sorted_value_range(value_range)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"additions", "thresholds"}``, each ``(batch, 1, 1, 1)``; ``None`` in inference.

        Parameters
        ----------
        data : Tensor or dict
            Only the shape is read.
        training : bool
            Whether to draw.
        seed : int, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict or None
            Keras' transformation.
        """
        if not training:
            return None
        shape = _per_image_shape(data, self)
        gen = self._gen(seed)
        additions = _uniform(gen, shape, self.addition_factor[0], self.addition_factor[1] * 255)
        thresholds = _uniform(gen, shape, self.threshold_factor[0], self.threshold_factor[1] * 255)
        return {"additions": additions, "thresholds": thresholds}

    def _apply(self, images: Tensor, transformation: Any) -> Tensor:
        if transformation is None:
            return images
        add = _core.cast(_as_batch_factor(transformation["additions"]), images.dtype)
        thr = _core.cast(_as_batch_factor(transformation["thresholds"]), images.dtype)
        x = _value_range_map(images, self.value_range, (0, 255))
        x = _clip(x + add, 0.0, 255.0)
        x = _core.where(_core.less(x, _core.broadcast_to(thr, x.shape)), x, _f(255.0, x.dtype) - x)
        return _value_range_map(x, (0, 255), self.value_range)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {
            **super().get_config(),
            "value_range": self.value_range,
            "addition_factor": self.addition_factor,
            "threshold_factor": self.threshold_factor,
            "seed": self.seed,
        }


class RandomPosterization(_BaseColorLayer):
    """Keeps only the top ``bits`` bits of each 8-bit pixel value (``keras.layers.RandomPosterization``),
    ``bits`` drawn per image as an integer in ``[factor[0], factor[1])`` (``factor[0]`` when equal),
    in a 0..255 scale mapped from ``value_range``.

    Values are truncated to integers first (Keras casts to uint8), so the layer has no useful gradient.

    Parameters
    ----------
    factor : int or tuple of two ints
        In ``[1, 8]``; ``f`` means ``(1, f)``.
    value_range : tuple of two numbers
        The images' range (default ``(0, 255)``; sorted).
    data_format : str, optional
        ``"channels_last"`` or ``"channels_first"``.
    seed : int, optional
        Seeds the layer's random stream.
    **kwargs
        ``name``, ``dtype``.

    Returns
    -------
    Tensor
        Calling the layer returns the posterized images (unchanged in inference).
    """

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (1, 8)
    _MAX_FACTOR = 8

    def __init__(self, factor: Any, value_range: Any = (0, 255), data_format: str | None = None,
                 seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self._set_factor(factor)
        self.value_range = _sorted_value_range(value_range)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"shift_factor": uint8 (batch,)}``: ``8 - bits``.

        Parameters
        ----------
        data : Tensor or dict
            Only the shape is read.
        training : bool
            Ignored, as in Keras.
        seed : int, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict
            Keras' transformation.
        """
        b = self._batch_size(data)
        lo, hi = int(self.factor[0]), int(self.factor[1])
        if lo != hi:
            bits = _uniform(self._gen(seed), (b,), lo, hi, "int32")
        else:
            bits = _core.fill([b], np.int32(lo))
        return {"shift_factor": _core.cast(_core.constant(np.int32(self._MAX_FACTOR)) - bits, "uint8")}

    def _apply(self, images: Tensor, transformation: Any) -> Tensor:
        shift = _core.cast(_core.convert_to_tensor(transformation["shift_factor"]), images.dtype)
        q = _core.reshape(_core.pow(_f(2.0, images.dtype), shift), [-1, 1, 1, 1])
        x = _value_range_map(images, self.value_range, (0, 255))
        x = _core.cast(_core.cast(x, "uint8"), images.dtype)
        x = _core.floor(x / q) * q
        return _value_range_map(x, (0, 255), self.value_range)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}


class RandomSaturation(_BaseColorLayer):
    """Multiplies the HSV saturation by a random per-image amount (``keras.layers.RandomSaturation``).

    As in Keras, a draw ``u`` uniform in ``factor`` gives the multiplier ``u / (1 - u + 1e-7)``
    (0: grayscale, 0.5: unchanged, near 1: fully saturated); the saturation is then clipped to
    ``value_range`` and the image converted back to RGB.

    Parameters
    ----------
    factor : float or tuple of two floats
        In ``[-1, 1]`` per Keras' check; ``f`` means ``(-f, f)`` (use a pair such as ``(0.3, 0.7)``).
    value_range : tuple of two numbers
        The images' range (default ``(0, 255)``; sorted).
    data_format : str, optional
        ``"channels_last"`` or ``"channels_first"``.
    seed : int, optional
        Seeds the layer's random stream.
    **kwargs
        ``name``, ``dtype``.

    Returns
    -------
    Tensor
        Calling the layer returns the images (unchanged in inference).
    """

    def __init__(self, factor: Any, value_range: Any = (0, 255), data_format: str | None = None,
                 seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self._set_factor(factor)
        self.value_range = _sorted_value_range(value_range)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"factor": (batch,)}``: the saturation multipliers.

        Parameters
        ----------
        data : Tensor or dict
            Only the shape is read.
        training : bool
            Ignored, as in Keras.
        seed : int, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict
            Keras' transformation.
        """
        b = self._batch_size(data)
        u = _uniform(self._gen(seed), (b,), self.factor[0], self.factor[1])
        return {"factor": u / (_f(1.0) - u + _f(_EPSILON))}

    def _apply(self, images: Tensor, transformation: Any) -> Tensor:
        f = _core.reshape(_core.cast(_core.convert_to_tensor(transformation["factor"]), images.dtype), [-1, 1, 1])
        hsv = _rgb_to_hsv(images)
        s = _clip(hsv[..., 1] * f, float(self.value_range[0]), float(self.value_range[1]))
        return _hsv_to_rgb(_core.stack([hsv[..., 0], s, hsv[..., 2]], axis=-1))

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}


class RandomHue(_BaseColorLayer):
    """Rotates the HSV hue by a random per-image amount (``keras.layers.RandomHue``): a shift of
    ``+-u / 2`` turns (sign drawn with probability 1/2, ``u`` uniform in ``factor``), wrapped into
    ``[0, 1]``; the result is clipped to ``value_range``.

    Parameters
    ----------
    factor : float or tuple of two floats
        In ``[0, 1]``; ``f`` means ``(0, f)``.
    value_range : tuple of two numbers
        The images' range (default ``(0, 255)``).
    data_format : str, optional
        ``"channels_last"`` or ``"channels_first"``.
    seed : int, optional
        Seeds the layer's random stream.
    **kwargs
        ``name``, ``dtype``.

    Returns
    -------
    Tensor
        Calling the layer returns the images (unchanged in inference).
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor: Any, value_range: Any = (0, 255), data_format: str | None = None,
                 seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self._set_factor(factor)
        self.value_range = value_range

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"factor": (batch,)}``: the hue shifts, in turns.

        Parameters
        ----------
        data : Tensor or dict
            Only the shape is read.
        training : bool
            Ignored, as in Keras.
        seed : int, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict
            Keras' transformation.
        """
        b = self._batch_size(data)
        gen = self._gen(seed)
        invert = _uniform(gen, (b,), 0.0, 1.0)
        sign = _core.where(_core.greater(invert, _f(0.5)), -_core.ones([b]), _core.ones([b]))
        u = _uniform(gen, (b,), self.factor[0], self.factor[1])
        return {"factor": sign * u * _f(0.5)}

    def _apply(self, images: Tensor, transformation: Any) -> Tensor:
        x = _value_range_map(images, self.value_range, (0, 1))
        f = _core.reshape(_core.cast(_core.convert_to_tensor(transformation["factor"]), x.dtype), [-1, 1, 1])
        hsv = _rgb_to_hsv(x)
        h = hsv[..., 0] + f
        h = _core.where(_core.greater(h, _f(1.0, h.dtype)), h - _f(1.0, h.dtype), h)
        h = _core.where(_core.less(h, _f(0.0, h.dtype)), h + _f(1.0, h.dtype), h)
        rgb = _clip(_hsv_to_rgb(_core.stack([h, hsv[..., 1], hsv[..., 2]], axis=-1)), 0.0, 1.0)
        return _value_range_map(rgb, (0, 1), self.value_range)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}


class RandomColorDegeneration(_BaseColorLayer):
    """Blends each image with its grayscale version by a random per-image amount
    (``keras.layers.RandomColorDegeneration``): ``x + f * (gray - x)``, clipped to ``value_range``.

    Parameters
    ----------
    factor : float or tuple of two floats
        In ``[-1, 1]`` per Keras' check; ``f`` means ``(-f, f)``.
    value_range : tuple of two numbers
        The images' range (default ``(0, 255)``; sorted).
    data_format : str, optional
        ``"channels_last"`` or ``"channels_first"``.
    seed : int, optional
        Seeds the layer's random stream.
    **kwargs
        ``name``, ``dtype``.

    Returns
    -------
    Tensor
        Calling the layer returns the images (unchanged in inference). Images need 3 channels.
    """

    def __init__(self, factor: Any, value_range: Any = (0, 255), data_format: str | None = None,
                 seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self._set_factor(factor)
        self.value_range = _sorted_value_range(value_range)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"factor": (batch, 1, 1, 1)}``: the blend amounts.

        Parameters
        ----------
        data : Tensor or dict
            Only the shape is read.
        training : bool
            Ignored, as in Keras.
        seed : int, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict
            Keras' transformation.
        """
        b = self._batch_size(data)
        return {"factor": _uniform(self._gen(seed), (b, 1, 1, 1), self.factor[0], self.factor[1])}

    def _apply(self, images: Tensor, transformation: Any) -> Tensor:
        f = _core.cast(_as_batch_factor(transformation["factor"]), images.dtype)
        gray = _grayscale(images)
        out = images + f * (gray - images)
        return _clip(out, float(self.value_range[0]), float(self.value_range[1]))

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape; ValueError unless rank 3 or 4 with 3 channels."""
        if len(input_shape) not in (3, 4):
            raise ValueError(
                "Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). "
                f"Received: input_shape={tuple(input_shape)}"
            )
        channels = input_shape[-1 if self.data_format == "channels_last" else -3]
        if channels is not None and channels != 3:
            raise ValueError(f"Input images must have 3 channels, but received images with {channels} channels.")
        return input_shape

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}


class RandomSharpness(_BaseColorLayer):
    """Blends each image with a smoothed copy by a random amount (``keras.layers.RandomSharpness``):
    ``x + (1 - 2u) * (smooth(x) - x)`` with ``u`` uniform in ``factor`` (0.5: unchanged, above:
    sharper), where ``smooth`` is the 3x3 kernel ``[[1, 1, 1], [1, 5, 1], [1, 1, 1]] / 13`` with zero
    padding; clipped to ``value_range``.

    Parameters
    ----------
    factor : float or tuple of two floats
        In ``[0, 1]``; ``f`` means ``(0, f)``.
    value_range : tuple of two numbers
        The images' range (default ``(0, 255)``; sorted).
    data_format : str, optional
        ``"channels_last"`` or ``"channels_first"``.
    seed : int, optional
        Seeds the layer's random stream.
    **kwargs
        ``name``, ``dtype``.

    Returns
    -------
    Tensor
        Calling the layer returns the images (unchanged in inference).
    """

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor: Any, value_range: Any = (0, 255), data_format: str | None = None,
                 seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self._set_factor(factor)
        self.value_range = _sorted_value_range(value_range)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"factor": (batch,)}``.

        Parameters
        ----------
        data : Tensor or dict
            Only the shape is read.
        training : bool
            Ignored, as in Keras.
        seed : int, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict
            Keras' transformation.
        """
        b = self._batch_size(data)
        return {"factor": _uniform(self._gen(seed), (b,), self.factor[0], self.factor[1])}

    def _apply(self, images: Tensor, transformation: Any) -> Tensor:
        f = _core.convert_to_tensor(transformation["factor"])
        f = _core.reshape(_core.cast(f * _core.cast(_f(2.0), f.dtype), images.dtype), [-1, 1, 1, 1])
        channels = int(images.shape[-1])
        a, b = 1.0 / 13.0, 5.0 / 13.0
        k = np.array([[a, a, a], [a, b, a], [a, a, a]], dtype=np.float32).reshape(3, 3, 1, 1)
        kernel = _core.constant(np.tile(k, [1, 1, channels, 1]))
        if images.dtype.name != "float32":
            kernel = _core.cast(kernel, images.dtype)
        smooth = _nn.depthwise_conv2d(images, kernel, strides=[1, 1, 1, 1], padding="SAME")
        out = images + (_core.cast(_f(1.0), images.dtype) - f) * (smooth - images)
        return _clip(out, float(self.value_range[0]), float(self.value_range[1]))

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}


class AutoContrast(_BaseColorLayer):
    """Stretches each image's channels to the full range (``keras.layers.AutoContrast``): per image and
    channel, ``(x - min) / (max - min)`` in a 0..255 scale mapped from ``value_range``. Channels with
    ``max == min`` are left unchanged. Deterministic, and applied in inference as well (as in Keras).

    Parameters
    ----------
    value_range : tuple of two numbers
        The images' range (default ``(0, 255)``; sorted).
    **kwargs
        ``data_format``, ``name``, ``dtype``.

    Returns
    -------
    Tensor
        Calling the layer returns the stretched images.
    """

    _USE_BASE_FACTOR = False

    def __init__(self, value_range: Any = (0, 255), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.value_range = _sorted_value_range(value_range)

    def transform_images(self, images: Any, transformation: Any = None, training: bool = True) -> Tensor:
        """Stretches the images; ``transformation`` and ``training`` are ignored (as in Keras).

        Parameters
        ----------
        images : Tensor
            A batch of images.
        transformation : None
            Unused.
        training : bool
            Unused: the layer also applies in inference.

        Returns
        -------
        Tensor
            The stretched images.
        """
        # Keras reduces over axes (1, 2) whatever the data format; so does this.
        original = self._cast(images)
        x = _value_range_map(original, self.value_range, (0, 255))
        low = _core.reduce_min(x, axis=[1, 2], keepdims=True)
        high = _core.reduce_max(x, axis=[1, 2], keepdims=True)
        span = high - low
        flat = _core.equal(span, _core.zeros_like(span))
        scale = _f(255.0, x.dtype) / _core.where(flat, _core.ones_like(span), span)
        out = _clip(x * scale - low * scale, 0.0, 255.0)
        out = _value_range_map(out, (0, 255), self.value_range)
        return _core.where(_core.broadcast_to(flat, out.shape), original, out)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "value_range": self.value_range}


class RandomColorJitter(_BaseColorLayer):
    """Random brightness, contrast, saturation and hue in turn (``keras.layers.RandomColorJitter``),
    each done by an inner layer (:class:`RandomBrightness`, :class:`RandomContrast`,
    :class:`RandomSaturation`, :class:`RandomHue`) when its factor is given.

    Keras draws the inner transformations inside ``transform_images``; here
    :meth:`get_random_transformation` returns them as a dict (``"brightness"``, ``"contrast"``,
    ``"saturation"``, ``"hue"``: the inner layers' dicts), so a transformation can be replayed.

    Parameters
    ----------
    value_range : tuple of two numbers
        The images' range (default ``(0, 255)``), passed to the inner layers.
    brightness_factor, contrast_factor, saturation_factor, hue_factor : optional
        The inner layers' ``factor``; ``None`` skips that step.
    seed : int, optional
        Seeds the layer's random stream.
    data_format : str, optional
        ``"channels_last"`` or ``"channels_first"``.
    **kwargs
        ``name``, ``dtype``.

    Returns
    -------
    Tensor
        Calling the layer returns the images (unchanged in inference).
    """

    _USE_BASE_FACTOR = False

    def __init__(self, value_range: Any = (0, 255), brightness_factor: Any = None, contrast_factor: Any = None,
                 saturation_factor: Any = None, hue_factor: Any = None, seed: int | None = None,
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.value_range = value_range
        self.brightness_factor = brightness_factor
        self.contrast_factor = contrast_factor
        self.saturation_factor = saturation_factor
        self.hue_factor = hue_factor
        self.random_brightness = (
            RandomBrightness(brightness_factor, value_range=value_range, seed=seed)
            if brightness_factor is not None else None
        )
        self.random_contrast = (
            RandomContrast(contrast_factor, value_range=value_range, seed=seed)
            if contrast_factor is not None else None
        )
        self.random_saturation = (
            RandomSaturation(saturation_factor, value_range=value_range, seed=seed)
            if saturation_factor is not None else None
        )
        self.random_hue = (
            RandomHue(hue_factor, value_range=value_range, seed=seed) if hue_factor is not None else None
        )

    def _steps(self) -> list[tuple[str, _BaseColorLayer]]:
        steps = [("brightness", self.random_brightness), ("contrast", self.random_contrast),
                 ("saturation", self.random_saturation), ("hue", self.random_hue)]
        return [(k, layer) for k, layer in steps if layer is not None]

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"brightness", "contrast", "saturation", "hue"}`` (the steps in use): the inner layers' draws.

        Parameters
        ----------
        data : Tensor or dict
            Only the shape is read.
        training : bool
            ``None`` is returned in inference.
        seed : int, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict or None
            The inner transformations.
        """
        if not training:
            return None
        gen = self._gen(seed)
        images = self._images_of(data)
        return {k: layer.get_random_transformation(images, training=True, seed=gen) for k, layer in self._steps()}

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Tensor:
        """Applies the inner steps in order (brightness, contrast, saturation, hue).

        Parameters
        ----------
        images : Tensor
            A batch of images.
        transformation : dict or None
            From :meth:`get_random_transformation`; ``None`` draws one.
        training : bool
            ``False`` returns the images unchanged.

        Returns
        -------
        Tensor
            The jittered images.
        """
        images = self._cast(images)
        if not training:
            return images
        if transformation is None:
            transformation = self.get_random_transformation(images)
        for key, layer in self._steps():
            if self.data_format == "channels_first":
                nhwc = _core.transpose(images, [0, 2, 3, 1])
                images = _core.transpose(layer._apply(nhwc, transformation[key]), [0, 3, 1, 2])
            else:
                images = layer._apply(images, transformation[key])
        return images

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {
            **super().get_config(),
            "value_range": self.value_range,
            "brightness_factor": self.brightness_factor,
            "contrast_factor": self.contrast_factor,
            "saturation_factor": self.saturation_factor,
            "hue_factor": self.hue_factor,
            "seed": self.seed,
        }


class Equalization(_BaseColorLayer):
    """Histogram equalization per channel (``keras.layers.Equalization``), as Keras 3.15 does it:
    in a 0..255 scale mapped from ``value_range``, each channel's histogram of ``bins`` bins is taken
    over the whole batch, and pixels are mapped through the rounded, normalized cumulative histogram.
    A channel whose histogram has at most one non-empty bin is left unchanged. Deterministic; like
    Keras, it only applies in training (``training=False`` returns the input). The output is piecewise
    constant in the input, so it has no useful gradient.

    Parameters
    ----------
    value_range : tuple of two numbers
        The images' range (default ``(0, 255)``; sorted).
    bins : int
        Number of histogram bins (default 256).
    data_format : str, optional
        ``"channels_last"`` or ``"channels_first"``.
    **kwargs
        ``name``, ``dtype``.

    Returns
    -------
    Tensor
        Calling the layer returns the equalized images.
    """

    _USE_BASE_FACTOR = False

    def __init__(self, value_range: Any = (0, 255), bins: int = 256, data_format: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        if not isinstance(bins, (int, np.integer)) or bins < 2:
            raise ValueError(f"`bins` must be an integer of at least 2. Received: bins={bins}")
        self.bins = int(bins)
        self.value_range = _sorted_value_range(value_range)

    def _equalize_channel(self, channel: Tensor) -> Tensor:
        lo, hi = self.value_range
        bins = self.bins
        scale = 255.0 / (hi - lo)
        x = channel * _f(scale, channel.dtype) + _f(0.0 - lo * scale, channel.dtype)
        xf = _core.cast(x, "float32")
        scaled = (xf - _f(0.0)) * _f(bins - 1) / _f(255.0)
        idx = _core.minimum(_core.maximum(_core.cast(scaled, "int32"), 0), bins - 1)
        hist = _core.reduce_sum(_core.one_hot(_core.reshape(idx, [-1]), bins, dtype="int32"), axis=0)
        nonzero = _core.reduce_sum(_core.cast(_core.greater(hist, 0), "int32"))
        cdf = _core.cast(_core.cumsum(hist), "float64")
        big = _core.constant(np.float64(np.finfo(np.float64).max))
        cdf_min = _core.reduce_min(_core.where(_core.greater(cdf, 0.0), cdf, _core.broadcast_to(big, cdf.shape)))
        den = cdf[-1] - cdf_min
        den = _core.where(_core.equal(den, 0.0), _core.ones_like(den), den)
        lut = _core.minimum(_core.maximum(_core.round((cdf - cdf_min) * 255.0 / den), 0.0), 255.0)
        pos = (x / _f(255.0, x.dtype)) * _f(bins - 1, x.dtype)
        take = _core.cast(_core.minimum(_core.maximum(pos, _f(0.0, x.dtype)), _f(bins - 1, x.dtype)), "int32")
        eq = _core.gather(lut, take)
        flat = _core.broadcast_to(_core.less_equal(nonzero, 1), eq.shape)
        eq = _core.where(flat, _core.cast(x, "float64"), eq)
        back = (hi - lo) / 255.0
        return _core.cast(eq * back + (lo - 0.0 * back), channel.dtype)

    def _apply(self, images: Tensor, transformation: Any) -> Tensor:
        channels = [self._equalize_channel(images[..., i]) for i in range(int(images.shape[-1]))]
        return _core.stack(channels, axis=-1)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "bins": self.bins, "value_range": self.value_range}


def _factor_by_name(factor: Any, name: str, bounds: tuple[float, float] = (0, 1)) -> tuple[Any, Any]:
    """Keras' ``_set_factor_by_name``: a number ``f`` means ``(max(-f, low), f)``; pairs are sorted."""
    msg = (
        f"The `{name}` argument should be a number (or a list of two numbers) in the range "
        f"[{bounds[0]}, {bounds[1]}]. Received: factor={factor}"
    )
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or factor[0] > bounds[1] or factor[1] < bounds[0]:
            raise ValueError(msg)
        lower, upper = sorted(factor)
        return lower, upper
    if isinstance(factor, (int, float, np.number)) and not isinstance(factor, bool):
        if factor < bounds[0] or factor > bounds[1]:
            raise ValueError(msg)
        factor = abs(factor)
        return max(-factor, bounds[0]), factor
    raise ValueError(msg)


class RandomErasing(_BaseColorLayer):
    """Replaces a random rectangle of each image with noise or a fill value
    (``keras.layers.RandomErasing``), with probability drawn per image from ``factor``.

    As in Keras 3.15: the rectangle's relative width and height are ``sqrt`` of uniform draws in
    ``scale``; its corner is uniform where it fits; the fill is ``normal * value_range[1]`` (clipped
    to ``value_range``) when ``fill_value`` is ``None``.

    Parameters
    ----------
    factor : float or tuple of two floats
        In ``[0, 1]``; ``f`` means ``(0, f)``: the per-image erasing probability is drawn from it.
    scale : float or tuple of two floats
        In ``[0, 1]``: the erased area's fraction bounds (default ``(0.02, 0.33)``).
    fill_value : float or sequence of three floats, optional
        The fill (per channel for three numbers); random normal noise by default.
    value_range : tuple of two numbers
        The images' range (default ``(0, 255)``).
    seed : int, optional
        Seeds the layer's random stream.
    data_format : str, optional
        ``"channels_last"`` or ``"channels_first"``.
    **kwargs
        ``name``, ``dtype``.

    Returns
    -------
    Tensor
        Calling the layer returns the images (unchanged in inference).
    """

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor: Any = 1.0, scale: Any = (0.02, 0.33), fill_value: Any = None,
                 value_range: Any = (0, 255), seed: int | None = None, data_format: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self._set_factor(factor)
        self.scale = _factor_by_name(scale, "scale")
        if fill_value is not None and not (
            isinstance(fill_value, (int, float, np.number))
            or (isinstance(fill_value, (tuple, list)) and len(fill_value) == 3)
        ):
            raise ValueError(
                f"The `fill_value` argument should be a number (or a list of three numbers) Received: {fill_value}"
            )
        self.fill_value = fill_value
        self.value_range = value_range

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"apply_erasing": bool (batch,), "batch_masks": bool like the images, "fill_value": like the
        images}`` (masks and fill shaped like one image, with a leading 1 for the mask, for one image);
        ``None`` in inference.

        Parameters
        ----------
        data : Tensor or dict
            Only the shape is read.
        training : bool
            Whether to draw.
        seed : int, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict or None
            Keras' transformation.
        """
        if not training:
            return None
        b = self._batch_size(data)
        shape = [int(d) for d in self._images_of(data).shape]
        cf = self.data_format == "channels_first"
        h, w = (shape[-2], shape[-1]) if cf else (shape[-3], shape[-2])
        c = shape[-3] if cf else shape[-1]
        gen = self._gen(seed)
        mix = _core.sqrt(_uniform(gen, (b, 2), self.scale[0], self.scale[1]))

        def bounds(length: int, ratio: Tensor) -> tuple[Tensor, Tensor]:
            crop = ratio * _f(float(length))
            start = _uniform(gen, (b,), 0.0, 1.0) * (_f(float(length)) - crop)
            return start, start + crop

        x0, x1 = bounds(w, mix[:, 0])
        y0, y1 = bounds(h, mix[:, 1])
        gy, gx = np.meshgrid(np.arange(h, dtype=np.float32), np.arange(w, dtype=np.float32), indexing="ij")
        grid_shape = [1, 1, h, w] if cf else [1, h, w, 1]
        gx_t = _core.constant(gx.reshape(grid_shape))
        gy_t = _core.constant(gy.reshape(grid_shape))

        def col(v: Tensor) -> Tensor:
            return _core.reshape(v, [-1, 1, 1, 1])

        inside = _core.logical_and(
            _core.logical_and(_core.greater_equal(gx_t, col(x0)), _core.less(gx_t, col(x1))),
            _core.logical_and(_core.greater_equal(gy_t, col(y0)), _core.less(gy_t, col(y1))),
        )
        mask_shape = [b, c, h, w] if cf else [b, h, w, c]
        masks = _core.broadcast_to(inside, mask_shape)
        p = _uniform(gen, (b,), self.factor[0], self.factor[1])
        threshold = _uniform(gen, (b,), 0.0, 1.0)
        apply = _core.less(threshold, p)
        if self.fill_value is None:
            fill = gen.normal(shape, 0.0, 1.0, "float32") * _f(self.value_range[1])
        elif isinstance(self.fill_value, (tuple, list)):
            per_channel = np.asarray(self.fill_value, np.float32).reshape([3, 1, 1] if cf else [3])
            fill = _core.broadcast_to(_core.constant(per_channel), shape)
        else:
            fill = _core.ones(shape) * _f(self.fill_value)
        fill = _clip(fill, float(self.value_range[0]), float(self.value_range[1]))
        return {"apply_erasing": apply, "batch_masks": masks, "fill_value": fill}

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Tensor:
        """Fills the masked rectangles of the images chosen by ``apply_erasing``.

        Parameters
        ----------
        images : Tensor
            A batch of images.
        transformation : dict
            From :meth:`get_random_transformation`.
        training : bool
            ``False`` returns the images unchanged.

        Returns
        -------
        Tensor
            The erased images.
        """
        images = self._cast(images)
        if not training or transformation is None:
            return images
        masks = _core.convert_to_tensor(transformation["batch_masks"])
        fill = _core.cast(_core.convert_to_tensor(transformation["fill_value"]), images.dtype)
        fill = _core.broadcast_to(fill, images.shape)
        erased = _core.where(_core.broadcast_to(masks, images.shape), fill, images)
        flag = _core.reshape(_core.convert_to_tensor(transformation["apply_erasing"]), [-1, 1, 1, 1])
        return _core.where(_core.broadcast_to(flag, images.shape), erased, images)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {
            **super().get_config(),
            "factor": self.factor,
            "scale": self.scale,
            "fill_value": self.fill_value,
            "value_range": self.value_range,
            "seed": self.seed,
        }


class RandomGaussianBlur(_BaseColorLayer):
    """Blurs images with a Gaussian kernel at random (``keras.layers.RandomGaussianBlur``): per image,
    a probability is drawn from ``factor`` and the image is blurred when another uniform draw is below
    it; one pair of standard deviations ``(sigma_x, sigma_y)`` (uniform in ``sigma``, plus 1e-6) is
    drawn per call. The blur is a depthwise convolution with zero ``"same"`` padding; the result is
    clipped to ``value_range``.

    Parameters
    ----------
    factor : float or tuple of two floats
        In ``[0, 1]``; ``f`` means ``(0, f)`` (default 1.0).
    kernel_size : int or tuple of two ints
        Odd kernel sizes ``(x, y)`` (default 3).
    sigma : float or tuple of two floats
        In ``[0, 1]``; ``s`` means ``(0, s)`` (default 1.0).
    value_range : tuple of two numbers
        The images' range (default ``(0, 255)``).
    data_format : str, optional
        ``"channels_last"`` or ``"channels_first"``.
    seed : int, optional
        Seeds the layer's random stream.
    **kwargs
        ``name``, ``dtype``.

    Returns
    -------
    Tensor
        Calling the layer returns the images (unchanged in inference).
    """

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor: Any = 1.0, kernel_size: Any = 3, sigma: Any = 1.0, value_range: Any = (0, 255),
                 data_format: str | None = None, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self._set_factor(factor)
        self.kernel_size = self._set_kernel_size(kernel_size)
        self.sigma = _factor_by_name(sigma, "sigma")
        self.value_range = value_range

    @staticmethod
    def _set_kernel_size(size: Any) -> tuple[int, int]:
        msg = f"kernel_size must be an odd number. Received: kernel_size={size}"
        if isinstance(size, (tuple, list)):
            if len(size) != 2:
                raise ValueError(
                    f"The `kernel_size` argument should be a number (or a list of two numbers) Received: "
                    f"kernel_size={size}"
                )
            if size[0] % 2 == 0 or size[1] % 2 == 0:
                raise ValueError(msg)
            return int(size[0]), int(size[1])
        if isinstance(size, (int, float, np.number)) and not isinstance(size, bool):
            if float(size) % 2 == 0:
                raise ValueError(msg)
            return int(size), int(size)
        raise ValueError(msg)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"should_apply_blur": bool (batch,), "blur_factor": (2,)}``; ``None`` in inference.

        Parameters
        ----------
        data : Tensor or dict
            Only the shape is read.
        training : bool
            Whether to draw.
        seed : int, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict or None
            Keras' transformation.
        """
        if not training:
            return None
        b = self._batch_size(data)
        gen = self._gen(seed)
        p = _uniform(gen, (b,), self.factor[0], self.factor[1])
        threshold = _uniform(gen, (b,), 0.0, 1.0)
        sigma = _uniform(gen, (2,), self.sigma[0], self.sigma[1]) + _f(1e-6)
        return {"should_apply_blur": _core.less(threshold, p), "blur_factor": sigma}

    def _kernel(self, sigma: Tensor, channels: int, dtype: Any) -> Tensor:
        def kernel1d(size: int, s: Tensor) -> Tensor:
            x = _core.constant(np.arange(size, dtype=np.float32) - np.float32((size - 1) / 2))
            if as_dtype(dtype).name != "float32":
                x = _core.cast(x, dtype)
            k = _core.exp(_f(-0.5, dtype) * _core.square(x / s))
            return k / _core.reduce_sum(k)

        kx = kernel1d(self.kernel_size[0], sigma[0])
        ky = kernel1d(self.kernel_size[1], sigma[1])
        k2 = _core.reshape(ky, [-1, 1]) * _core.reshape(kx, [1, -1])
        k2 = _core.reshape(k2, [self.kernel_size[0], self.kernel_size[1], 1, 1])
        return _core.tile(k2, [1, 1, channels, 1])

    def _apply(self, images: Tensor, transformation: Any) -> Tensor:
        if transformation is None:
            return images
        sigma = _core.cast(_core.convert_to_tensor(transformation["blur_factor"]), images.dtype)
        kernel = self._kernel(sigma, int(images.shape[-1]), images.dtype)
        blurred = _nn.depthwise_conv2d(images, kernel, strides=[1, 1, 1, 1], padding="SAME")
        flag = _core.reshape(_core.convert_to_tensor(transformation["should_apply_blur"]), [-1, 1, 1, 1])
        out = _core.where(_core.broadcast_to(flag, images.shape), blurred, images)
        return _clip(out, float(self.value_range[0]), float(self.value_range[1]))

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {
            **super().get_config(),
            "factor": self.factor,
            "kernel_size": self.kernel_size,
            "sigma": self.sigma,
            "value_range": self.value_range,
            "seed": self.seed,
        }


# ----------------------------------------------------------------------------- mixing


_GAMMA_PROPOSALS = 24


def _log_gamma_sample(gen: Generator, shape: list[int], alpha: Tensor) -> Tensor:
    """``log`` of Gamma(``alpha``, 1) draws, by Marsaglia and Tsang's method with tapers ops: a fixed
    number of proposals per draw (the first accepted one is kept; each is accepted with probability
    above 0.95, so all 24 fail with probability below 1e-31), and ``alpha < 1`` boosted as
    ``Gamma(alpha + 1) * U ** (1 / alpha)``, in log space so that tiny ``alpha`` does not underflow."""
    one = _f(1.0)
    small = _core.less(alpha, one)
    a1 = _core.where(small, alpha + one, alpha)
    d = a1 - _f(1.0 / 3.0)
    c = one / _core.sqrt(_f(9.0) * d)
    z = gen.normal([*shape, _GAMMA_PROPOSALS], 0.0, 1.0, "float32")
    u = gen.uniform([*shape, _GAMMA_PROPOSALS], 0.0, 1.0, "float32")
    v = one + c * z
    v = v * v * v
    positive = _core.greater(v, _f(0.0))
    v_safe = _core.where(positive, v, _core.ones_like(v))
    log_u = _math.log(_core.maximum(u, _f(1e-30)))
    accept = _core.logical_and(
        positive, _core.less(log_u, _f(0.5) * z * z + d - d * v_safe + d * _math.log(v_safe))
    )
    first = _core.argmax(_core.cast(accept, "int32"), axis=-1)
    pick = _core.one_hot(first, _GAMMA_PROPOSALS, dtype="float32")
    log_g = _math.log(d) + _core.reduce_sum(pick * _math.log(v_safe), axis=-1)
    u2 = gen.uniform(shape, 0.0, 1.0, "float32")
    boost = _math.log(_core.maximum(u2, _f(1e-30))) / alpha
    return log_g + _core.where(small, boost, _core.zeros_like(boost))


def _beta_symmetric(gen: Generator, n: int, alpha: Any) -> Tensor:
    """``n`` draws of Beta(``alpha``, ``alpha``) as ``X / (X + Y)`` of two Gamma draws (in log space)."""
    alpha = _core.cast(_core.convert_to_tensor(alpha), "float32")
    log_x = _log_gamma_sample(gen, [n], alpha)
    log_y = _log_gamma_sample(gen, [n], alpha)
    return _core.sigmoid(log_x - log_y)


class _MixingLayer(_BaseColorLayer):
    def transform_bounding_boxes(self, bounding_boxes: Any, transformation: Any, training: bool = True) -> Any:
        """Not implemented by tapers for the mixing layers: raises ``NotImplementedError``.

        Parameters
        ----------
        bounding_boxes : dict
            ``{"boxes", "labels"}``.
        transformation : dict or None
            From :meth:`get_random_transformation`.
        training : bool
            Whether the layer is in training.

        Returns
        -------
        dict
            Never returns.
        """
        raise NotImplementedError(
            f"tapers.keras: {type(self).__name__} does not transform bounding boxes (Keras 3 does); "
            "pass images and labels only."
        )


class MixUp(_MixingLayer):
    """Blends each image (and label) with another of the batch (``keras.layers.MixUp``):
    ``w * x + (1 - w) * x[perm]``, with ``w`` drawn per image from Beta(``alpha``, ``alpha``) and
    ``perm`` a random permutation of the batch. Labels of a dict input (``{"images", "labels"}``)
    are mixed with the same weights, as are segmentation masks.

    Parameters
    ----------
    alpha : float
        The Beta distribution's parameter (default 0.2).
    data_format : str, optional
        ``"channels_last"`` or ``"channels_first"``.
    seed : int, optional
        Seeds the layer's random stream.
    **kwargs
        ``name``, ``dtype``.

    Returns
    -------
    Tensor or dict
        Calling the layer returns the mixed images (unchanged in inference).
    """

    _USE_BASE_FACTOR = False

    def __init__(self, alpha: float = 0.2, data_format: str | None = None, seed: int | None = None,
                 **kwargs: Any) -> None:
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.alpha = alpha

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"mix_weight": (batch,), "permutation_order": int64 (batch,)}``.

        Parameters
        ----------
        data : Tensor or dict
            Only the shape is read.
        training : bool
            Ignored, as in Keras.
        seed : int, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict
            Keras' transformation.
        """
        b = self._batch_size(data)
        gen = self._gen(seed)
        permutation = gen.permutation(b)
        return {"mix_weight": _beta_symmetric(gen, b, float(self.alpha)), "permutation_order": permutation}

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Tensor:
        """``w * images + (1 - w) * images[perm]``.

        Parameters
        ----------
        images : Tensor
            A batch of images.
        transformation : dict
            From :meth:`get_random_transformation`.
        training : bool
            ``False`` returns the images unchanged.

        Returns
        -------
        Tensor
            The mixed images.
        """
        images = self._cast(images)
        if not training:
            return images
        w = _core.cast(_core.reshape(_core.convert_to_tensor(transformation["mix_weight"]), [-1, 1, 1, 1]),
                       images.dtype)
        other = _core.gather(images, _core.convert_to_tensor(transformation["permutation_order"]), axis=0)
        return w * images + (_f(1.0, images.dtype) - w) * other

    def transform_labels(self, labels: Any, transformation: Any, training: bool = True) -> Any:
        """Labels mixed with the images' weights and permutation.

        Parameters
        ----------
        labels : Tensor
            ``(batch, classes)`` (e.g. one-hot).
        transformation : dict
            From :meth:`get_random_transformation`.
        training : bool
            ``False`` returns the labels unchanged.

        Returns
        -------
        Tensor
            The mixed labels.
        """
        labels = _core.convert_to_tensor(labels)
        if not training:
            return labels
        w = _core.reshape(_core.convert_to_tensor(transformation["mix_weight"]), [-1, 1])
        if w.dtype != labels.dtype:
            labels = _core.cast(labels, w.dtype)
        other = _core.gather(labels, _core.convert_to_tensor(transformation["permutation_order"]), axis=0)
        return w * labels + (_f(1.0, w.dtype) - w) * other

    def transform_segmentation_masks(self, segmentation_masks: Any, transformation: Any,
                                     training: bool = True) -> Any:
        """Masks mixed like the images.

        Parameters
        ----------
        segmentation_masks : Tensor
            ``(batch, height, width, k)``.
        transformation : dict
            From :meth:`get_random_transformation`.
        training : bool
            ``False`` returns the masks unchanged.

        Returns
        -------
        Tensor
            The mixed masks.
        """
        masks = _core.convert_to_tensor(segmentation_masks)
        if not training:
            return masks
        w = _core.reshape(_core.convert_to_tensor(transformation["mix_weight"]), [-1, 1, 1, 1])
        if w.dtype != masks.dtype:
            masks = _core.cast(masks, w.dtype)
        other = _core.gather(masks, _core.convert_to_tensor(transformation["permutation_order"]), axis=0)
        return w * masks + (_f(1.0, w.dtype) - w) * other

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "alpha": self.alpha, "seed": self.seed}


class CutMix(_MixingLayer):
    """Pastes a random rectangle of another image of the batch into each image (``keras.layers.CutMix``);
    labels of a dict input are mixed in proportion to the pasted area.

    As in Keras 3.15: ``alpha`` is drawn uniform in ``factor`` (plus 1e-6) once per call, ``w`` per
    image from Beta(``alpha``, ``alpha``); the rectangle has sides ``sqrt(1 - w)`` times the image's
    and a uniform position where it fits; one image alone is returned unchanged.

    Parameters
    ----------
    factor : float or tuple of two floats
        In ``[0, 1]``; ``f`` means ``(0, f)`` (default 1.0).
    seed : int, optional
        Seeds the layer's random stream.
    data_format : str, optional
        ``"channels_last"`` or ``"channels_first"``.
    **kwargs
        ``name``, ``dtype``.

    Returns
    -------
    Tensor or dict
        Calling the layer returns the mixed images (unchanged in inference).
    """

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor: Any = 1.0, seed: int | None = None, data_format: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self._set_factor(factor)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """``{"permutation_order": int (batch,), "batch_masks": bool like the images,
        "mix_weight": (batch, 1, 1, 1)}``; ``None`` in inference or for one image.

        Parameters
        ----------
        data : Tensor or dict
            Only the shape is read.
        training : bool
            Whether to draw.
        seed : int, optional
            Draw from this seed instead of the layer's stream.

        Returns
        -------
        dict or None
            Keras' transformation.
        """
        if not training:
            return None
        b = self._batch_size(data)
        shape = [int(d) for d in self._images_of(data).shape]
        if len(shape) == 3:
            return None
        cf = self.data_format == "channels_first"
        h, w = (shape[-2], shape[-1]) if cf else (shape[-3], shape[-2])
        c = shape[-3] if cf else shape[-1]
        gen = self._gen(seed)
        alpha = _uniform(gen, (), self.factor[0], self.factor[1]) + _f(1e-6)
        ratio = _core.sqrt(_f(1.0) - _beta_symmetric(gen, b, alpha))

        def bounds(length: int) -> tuple[Tensor, Tensor]:
            crop = ratio * _f(float(length))
            start = _uniform(gen, (b,), 0.0, 1.0) * (_f(float(length)) - crop)
            return _core.reshape(start, [-1, 1, 1, 1]), _core.reshape(start + crop, [-1, 1, 1, 1])

        x0, x1 = bounds(w)
        y0, y1 = bounds(h)
        gy, gx = np.meshgrid(np.arange(h, dtype=np.float32), np.arange(w, dtype=np.float32), indexing="ij")
        grid_shape = [1, 1, h, w] if cf else [1, h, w, 1]
        gx_t = _core.constant(gx.reshape(grid_shape))
        gy_t = _core.constant(gy.reshape(grid_shape))
        inside = _core.logical_and(
            _core.logical_and(_core.greater_equal(gx_t, x0), _core.less(gx_t, x1)),
            _core.logical_and(_core.greater_equal(gy_t, y0), _core.less(gy_t, y1)),
        )
        masks = _core.broadcast_to(inside, [b, c, h, w] if cf else [b, h, w, c])
        mix_weight = _f(1.0) - (x1 - x0) * (y1 - y0) / _f(float(w * h))
        permutation = _core.cast(gen.permutation(b), "int32")
        return {"permutation_order": permutation, "batch_masks": masks, "mix_weight": mix_weight}

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Tensor:
        """``where(mask, images[perm], images)``.

        Parameters
        ----------
        images : Tensor
            A batch of images.
        transformation : dict or None
            From :meth:`get_random_transformation` (``None``: unchanged).
        training : bool
            ``False`` returns the images unchanged.

        Returns
        -------
        Tensor
            The mixed images.
        """
        images = self._cast(images)
        if not training or transformation is None:
            return images
        other = _core.gather(images, _core.convert_to_tensor(transformation["permutation_order"]), axis=0)
        masks = _core.broadcast_to(_core.convert_to_tensor(transformation["batch_masks"]), images.shape)
        return _core.where(masks, other, images)

    def transform_labels(self, labels: Any, transformation: Any, training: bool = True) -> Any:
        """Labels mixed by the kept area: ``w * labels + (1 - w) * labels[perm]``.

        Parameters
        ----------
        labels : Tensor
            ``(batch, classes)``.
        transformation : dict or None
            From :meth:`get_random_transformation`.
        training : bool
            ``False`` returns the labels unchanged.

        Returns
        -------
        Tensor
            The mixed labels.
        """
        labels = _core.convert_to_tensor(labels)
        if not training or transformation is None:
            return labels
        w = _core.reshape(_core.convert_to_tensor(transformation["mix_weight"]), [-1, 1])
        if w.dtype != labels.dtype:
            labels = _core.cast(labels, w.dtype)
        other = _core.gather(labels, _core.convert_to_tensor(transformation["permutation_order"]), axis=0)
        return w * labels + (_f(1.0, w.dtype) - w) * other

    def transform_segmentation_masks(self, segmentation_masks: Any, transformation: Any,
                                     training: bool = True) -> Any:
        """Not implemented (Keras 3.15's CutMix does not transform masks either): raises ``NotImplementedError``.

        Parameters
        ----------
        segmentation_masks : Tensor
            ``(batch, height, width, k)``.
        transformation : dict or None
            From :meth:`get_random_transformation`.
        training : bool
            Whether the layer is in training.

        Returns
        -------
        Tensor
            Never returns.
        """
        raise NotImplementedError("CutMix does not transform segmentation masks (neither does Keras 3.15).")

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "factor": self.factor, "seed": self.seed}
