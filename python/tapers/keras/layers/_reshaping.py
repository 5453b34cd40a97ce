"""Keras 3's reshaping layers: padding, cropping, up-sampling, permuting, repeating.

``ZeroPadding1D/2D`` (``tapers.pad``), ``Cropping1D/2D`` (slicing),
``UpSampling1D/2D`` (``tapers.repeat``, or a bilinear resize built from
gathers), ``Permute`` (``tapers.transpose``), ``RepeatVector`` and
``Identity``. None has weights; all are differentiable with respect to their
input, and the 2-D ones take Keras' ``data_format``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _core
from ._base import KerasTensor, Layer, map_structure
from ._pooling import check_ndim, standardize_data_format, standardize_tuple

__all__ = [
    "Cropping1D", "Cropping2D", "Identity", "Permute", "RepeatVector", "UpSampling1D", "UpSampling2D",
    "ZeroPadding1D", "ZeroPadding2D",
]  # fmt: skip

Tensor = _core.Tensor


def _pairs_2d(value: Any, name: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """ZeroPadding2D's ``padding`` / Cropping2D's ``cropping``: an int, two ints (symmetric per
    axis) or two pairs ``((top, bottom), (left, right))``."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"`{name}` cannot be negative. Received: {name}={value}.")
        return ((value, value), (value, value))
    if hasattr(value, "__len__"):
        if len(value) != 2:
            raise ValueError(f"`{name}` should have two elements. Received: {name}={value}.")
        h = standardize_tuple(value[0], 2, f"1st entry of {name}", allow_zero=True)
        w = standardize_tuple(value[1], 2, f"2nd entry of {name}", allow_zero=True)
        return ((h[0], h[1]), (w[0], w[1]))
    raise ValueError(
        f"`{name}` should be either an int, a tuple of 2 ints, or a tuple of 2 tuples of 2 ints "
        f"((top, bottom), (left, right)). Received: {name}={value}."
    )


def _spatial_axes(data_format: str, n: int) -> list[int]:
    return list(range(1, 1 + n)) if data_format == "channels_last" else list(range(2, 2 + n))


# ----------------------------------------------------------------------------- padding and cropping


class ZeroPadding1D(Layer):
    """Adds zeros at the start and end of the steps of ``(batch, steps, features)`` sequences
    (``keras.layers.ZeroPadding1D``).

    Parameters
    ----------
    padding : int or pair of int
        Zeros before and after (an int: both); default 1.
    data_format : {"channels_last", "channels_first"}, optional
        ``(batch, steps, features)`` or ``(batch, features, steps)``.
    """

    def __init__(self, padding: int | Sequence[int] = 1, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format)
        self.padding = standardize_tuple(padding, 2, "padding", allow_zero=True)
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """``tapers.pad`` with zeros along the steps axis."""
        check_ndim(self, inputs.shape, 3)
        pads = [[0, 0], [0, 0], [0, 0]]
        pads[_spatial_axes(self.data_format, 1)[0]] = list(self.padding)
        return _core.pad(inputs, pads)

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """The steps grow by ``sum(padding)``."""
        out = list(input_shape)
        check_ndim(self, out, 3)
        axis = _spatial_axes(self.data_format, 1)[0]
        if out[axis] is not None:
            out[axis] += sum(self.padding)
        return tuple(out)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: ``padding``, ``data_format``."""
        return {**super().get_config(), "padding": self.padding, "data_format": self.data_format}


class ZeroPadding2D(Layer):
    """Adds rows and columns of zeros around images (``keras.layers.ZeroPadding2D``).

    Parameters
    ----------
    padding : int, pair of int, or pair of pairs
        An int pads all four sides; ``(h, w)`` pads ``h`` rows above and below and ``w`` columns
        left and right; ``((top, bottom), (left, right))`` gives each side. Default ``(1, 1)``.
    data_format : {"channels_last", "channels_first"}, optional
        ``(batch, h, w, c)`` or ``(batch, c, h, w)``.
    """

    def __init__(self, padding: Any = (1, 1), data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format)
        self.padding = _pairs_2d(padding, "padding")
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """``tapers.pad`` with zeros along the two spatial axes."""
        check_ndim(self, inputs.shape, 4)
        pads = [[0, 0], [0, 0], [0, 0], [0, 0]]
        for axis, pair in zip(_spatial_axes(self.data_format, 2), self.padding):
            pads[axis] = list(pair)
        return _core.pad(inputs, pads)

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """Each spatial size grows by its two paddings."""
        out = list(input_shape)
        check_ndim(self, out, 4)
        for axis, pair in zip(_spatial_axes(self.data_format, 2), self.padding):
            if out[axis] is not None:
                out[axis] += sum(pair)
        return tuple(out)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: ``padding``, ``data_format``."""
        return {**super().get_config(), "padding": self.padding, "data_format": self.data_format}


def _cropped(layer: Layer, shape: Sequence[int | None], axes: list[int], crops: Sequence[Sequence[int]]) -> list:
    out = list(shape)
    for axis, (a, b) in zip(axes, crops):
        size = out[axis]
        if size is not None:
            if a + b >= size:
                cropping = getattr(layer, "cropping", crops)
                raise ValueError(
                    f"`cropping` parameter of `{type(layer).__name__}` layer must be smaller than the input's "
                    f"size along axis {axis}. Received: input_shape={tuple(shape)}, cropping={cropping}"
                )
            out[axis] = size - (a + b)
    return out


def _crop(x: Any, axes: list[int], crops: Sequence[Sequence[int]]) -> Tensor:
    index = [slice(None)] * len(x.shape)
    for axis, (a, b) in zip(axes, crops):
        index[axis] = slice(a, x.shape[axis] - b)
    return x[tuple(index)]


class Cropping1D(Layer):
    """Removes steps at the start and end of ``(batch, steps, features)`` sequences (``keras.layers.Cropping1D``).

    Parameters
    ----------
    cropping : int or pair of int
        Steps removed at the start and at the end (an int: both); default ``(1, 1)``.
    """

    def __init__(self, cropping: int | Sequence[int] = (1, 1), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cropping = standardize_tuple(cropping, 2, "cropping", allow_zero=True)
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """The slice ``inputs[:, start:steps - end, :]``."""
        check_ndim(self, inputs.shape, 3)
        _cropped(self, inputs.shape, [1], [self.cropping])
        return _crop(inputs, [1], [self.cropping])

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """The steps shrink by ``sum(cropping)`` (which must be smaller than them)."""
        check_ndim(self, tuple(input_shape), 3)
        return tuple(_cropped(self, tuple(input_shape), [1], [self.cropping]))

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: ``cropping``."""
        return {**super().get_config(), "cropping": self.cropping}


class Cropping2D(Layer):
    """Removes rows and columns at the borders of images (``keras.layers.Cropping2D``).

    Parameters
    ----------
    cropping : int, pair of int, or pair of pairs
        As ZeroPadding2D's ``padding``: ``((top, bottom), (left, right))`` in full. Default no cropping.
    data_format : {"channels_last", "channels_first"}, optional
        ``(batch, h, w, c)`` or ``(batch, c, h, w)``.
    """

    def __init__(self, cropping: Any = ((0, 0), (0, 0)), data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format)
        self.cropping = _pairs_2d(cropping, "cropping")
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """The slice of the spatial axes."""
        check_ndim(self, inputs.shape, 4)
        axes = _spatial_axes(self.data_format, 2)
        _cropped(self, inputs.shape, axes, self.cropping)
        return _crop(inputs, axes, self.cropping)

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """Each spatial size shrinks by its two croppings (which must be smaller than it)."""
        check_ndim(self, tuple(input_shape), 4)
        return tuple(_cropped(self, tuple(input_shape), _spatial_axes(self.data_format, 2), self.cropping))

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: ``cropping``, ``data_format``."""
        return {**super().get_config(), "cropping": self.cropping, "data_format": self.data_format}


# ----------------------------------------------------------------------------- up-sampling


class UpSampling1D(Layer):
    """Repeats each step ``size`` times (``keras.layers.UpSampling1D``).

    Parameters
    ----------
    size : int
        Repetitions of each step; default 2.
    """

    def __init__(self, size: int = 2, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(size, int) or isinstance(size, bool):
            raise TypeError(f"Expected an integer value for `size`, got {type(size)}.")
        if size <= 0:
            raise ValueError(f"Argument `size` should be a positive integer. Received: size={size}")
        self.size = size
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """``tapers.repeat`` along the steps axis."""
        check_ndim(self, inputs.shape, 3)
        return _core.repeat(inputs, self.size, axis=1)

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """The steps times ``size``."""
        b, steps, f = input_shape
        return (b, None if steps is None else steps * self.size, f)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: ``size``."""
        return {**super().get_config(), "size": self.size}


_OTHER_INTERPOLATIONS = ("bicubic", "lanczos3", "lanczos5", "area", "gaussian", "mitchellcubic")


def _bilinear_taps(n_in: int, factor: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """TensorFlow's ResizeBilinear with half-pixel centers (what ``tf.image.resize`` and Keras use):
    source position ``(i + 0.5) / factor - 0.5``, its two neighbours clamped to the image and the
    fraction between them. Depends on shapes only."""
    n_out = n_in * factor
    pos = (np.arange(n_out, dtype=np.float64) + 0.5) * np.float32(n_in / n_out) - 0.5
    floor = np.floor(pos)
    lower = np.maximum(floor, 0).astype(np.int32)
    upper = np.minimum(np.ceil(pos), n_in - 1).astype(np.int32)
    return lower, upper, (pos - floor).astype(np.float32)


class UpSampling2D(Layer):
    """Enlarges images by integer factors (``keras.layers.UpSampling2D``).

    ``"nearest"`` repeats rows and columns; ``"bilinear"`` interpolates as TensorFlow's
    ``tf.image.resize`` (half-pixel centers), which Keras calls. Keras' other interpolations
    (``"bicubic"``, ``"lanczos3"``, ...) are not implemented by tapers and raise ``NotImplementedError``.

    Parameters
    ----------
    size : int or pair of int
        Height and width factors; default ``(2, 2)``.
    data_format : {"channels_last", "channels_first"}, optional
        ``(batch, h, w, c)`` or ``(batch, c, h, w)``.
    interpolation : {"nearest", "bilinear"}
        Default ``"nearest"``.
    """

    def __init__(
        self, size: int | Sequence[int] = (2, 2), data_format: str | None = None, interpolation: str = "nearest",
        **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format)
        self.size = standardize_tuple(size, 2, "size")
        self.interpolation = str(interpolation).lower()
        if self.interpolation in _OTHER_INTERPOLATIONS:
            raise NotImplementedError(
                f"tapers.keras: UpSampling2D(interpolation={interpolation!r}) is not implemented; "
                "use 'nearest' or 'bilinear'"
            )
        if self.interpolation not in ("nearest", "bilinear"):
            raise ValueError(
                "Invalid value for argument `interpolation`. Expected of one of 'nearest', 'bilinear', "
                f"'bicubic', 'lanczos3', 'lanczos5', 'area'. Received: interpolation={interpolation}"
            )
        self.built = True

    def _bilinear(self, x: Any, axis: int, factor: int) -> Tensor:
        lower, upper, frac = _bilinear_taps(x.shape[axis], factor)
        lo = _core.gather(x, _core.convert_to_tensor(lower), axis=axis)
        hi = _core.gather(x, _core.convert_to_tensor(upper), axis=axis)
        shape = [1] * len(x.shape)
        shape[axis] = len(frac)
        w = _core.cast(_core.convert_to_tensor(frac.reshape(shape)), x.dtype)
        return lo + (hi - lo) * w

    def call(self, inputs: Any) -> Tensor:
        """The repeat (``"nearest"``) or the separable bilinear interpolation, per spatial axis."""
        check_ndim(self, inputs.shape, 4)
        x = inputs
        for axis, factor in zip(_spatial_axes(self.data_format, 2), self.size):
            if self.interpolation == "nearest":
                x = _core.repeat(x, factor, axis=axis)
            else:
                x = self._bilinear(x, axis, factor)
        return x

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """Each spatial size times its factor."""
        out = list(input_shape)
        check_ndim(self, out, 4)
        for axis, factor in zip(_spatial_axes(self.data_format, 2), self.size):
            if out[axis] is not None:
                out[axis] *= factor
        return tuple(out)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: ``size``, ``data_format``, ``interpolation``."""
        return {
            **super().get_config(),
            "size": self.size,
            "data_format": self.data_format,
            "interpolation": self.interpolation,
        }


# ----------------------------------------------------------------------------- permute, repeat, identity


class Permute(Layer):
    """Permutes the non-batch axes (``keras.layers.Permute``): ``Permute((2, 1))`` swaps the two
    axes of ``(batch, a, b)`` inputs.

    Parameters
    ----------
    dims : sequence of int
        A permutation of ``1..rank-1`` (the batch axis 0 stays first).
    """

    def __init__(self, dims: Sequence[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(dims) != list(range(1, len(dims) + 1)):
            raise ValueError(
                "Invalid permutation argument `dims` for Permute Layer. The set of indices in `dims` must be "
                f"consecutive and start from 1. Received dims={dims}"
            )
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """``tapers.transpose(inputs, (0, *dims))``."""
        check_ndim(self, inputs.shape, len(self.dims) + 1)
        return _core.transpose(inputs, [0, *self.dims])

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """The input's dimensions in ``dims``' order, after the batch."""
        shape = tuple(input_shape)
        check_ndim(self, shape, len(self.dims) + 1)
        return (shape[0], *(shape[d] for d in self.dims))

    def compute_output_spec(self, *args: Any, **kwargs: Any) -> KerasTensor:
        """Keeps the input's dtype (Keras)."""
        x = args[0]
        return KerasTensor(self.compute_output_shape(x.shape), x.dtype)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: ``dims``."""
        return {**super().get_config(), "dims": self.dims}


class RepeatVector(Layer):
    """Repeats ``(batch, features)`` vectors ``n`` times into ``(batch, n, features)`` (``keras.layers.RepeatVector``).

    Parameters
    ----------
    n : int
        Repetitions.
    """

    def __init__(self, n: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(n, int) or isinstance(n, bool):
            raise TypeError(f"Expected an integer value for `n`, got {type(n)}.")
        if n <= 0:
            raise ValueError(f"Argument `n` should be a positive integer. Received: n={n}")
        self.n = n
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """``repeat(expand_dims(inputs, 1), n, axis=1)``."""
        check_ndim(self, inputs.shape, 2)
        return _core.repeat(_core.expand_dims(inputs, 1), self.n, axis=1)

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """``(batch, n, features)``."""
        shape = tuple(input_shape)
        check_ndim(self, shape, 2)
        return (shape[0], self.n, shape[1])

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: ``n``."""
        return {**super().get_config(), "n": self.n}


class Identity(Layer):
    """Returns its input unchanged (``keras.layers.Identity``): a placeholder where no operation is wanted.

    Parameters
    ----------
    **kwargs
        ``name``, ``dtype``, ``trainable`` as for every layer.

    Returns
    -------
    Identity
        A layer whose call returns its input (any structure of tensors) as it is.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any) -> Any:
        """``inputs``."""
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape."""
        return input_shape

    def compute_output_spec(self, *args: Any, **kwargs: Any) -> Any:
        """KerasTensors of the input's shapes and dtypes."""
        return map_structure(lambda x: KerasTensor(x.shape, x.dtype) if isinstance(x, KerasTensor) else x, args[0])
