"""Keras 3's activation, noise and regularization layers.

Activations: ``LeakyReLU``, ``ELU``, ``PReLU`` (a learned slope), ``Softmax`` (with an optional mask);
value maps: ``Rescaling``, ``UnitNormalization``; noise layers, active only while training:
``GaussianNoise``, ``GaussianDropout``, ``AlphaDropout``, ``SpatialDropout1D``, ``SpatialDropout2D``;
``ActivityRegularization`` (an L1/L2 penalty on its input, added to ``layer.losses``) and ``Lambda``
(wraps a function).

The noise layers draw from tapers' random streams (``seed`` is an op-level seed), so their samples
differ from Keras' numbers but follow the same distributions; in inference they return their input.
"""

from __future__ import annotations

import base64
import importlib
import inspect
import marshal
import math
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ... import _core, nn
from ... import random as _random
from .. import constraints, regularizers
from ._base import Layer, _serialized
from ._core_layers import _initializer_config

__all__ = [
    "ActivityRegularization", "AlphaDropout", "ELU", "GaussianDropout", "GaussianNoise", "Lambda", "LeakyReLU",
    "PReLU", "Rescaling", "Softmax", "SpatialDropout1D", "SpatialDropout2D", "UnitNormalization",
]  # fmt: skip

Tensor = _core.Tensor


def _activations() -> Any:
    from .. import activations

    return activations


def _as_tensor(x: Any) -> Any:
    return x if isinstance(x, Tensor) else _core.convert_to_tensor(x)


def _check_rate(rate: Any, arg: str = "rate") -> None:
    if not isinstance(rate, (int, float)) or isinstance(rate, bool) or not 0 <= rate <= 1:
        raise ValueError(
            f"Invalid value received for argument `{arg}`. Expected a float value between 0 and 1. "
            f"Received: {arg}={rate}"
        )


class _SameShape(Layer):
    """A layer whose output has its input's shape."""

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape."""
        return tuple(input_shape)


# ----------------------------------------------------------------------------- activations


class LeakyReLU(_SameShape):
    """``x`` where ``x >= 0``, ``negative_slope * x`` elsewhere (``keras.layers.LeakyReLU``).

    Letting a small gradient through negative inputs keeps units from dying as with ReLU.

    Parameters
    ----------
    negative_slope : float
        Slope below zero, >= 0 (Keras 3's default 0.3; the deprecated ``alpha=`` is accepted too).
    **kwargs
        ``name``, ``dtype``, ``trainable``, ``input_shape`` as for every layer.
    """

    def __init__(self, negative_slope: float = 0.3, **kwargs: Any) -> None:
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError(
                "The negative_slope value of a Leaky ReLU layer cannot be None or negative value. Expected a float."
                f" Received: negative_slope={negative_slope}"
            )
        self.negative_slope = negative_slope
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """``leaky_relu(inputs, negative_slope)``."""
        return _activations().leaky_relu(inputs, negative_slope=self.negative_slope)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "negative_slope": self.negative_slope}


class ELU(_SameShape):
    """Exponential linear unit: ``x`` where ``x >= 0``, ``alpha * (exp(x) - 1)`` elsewhere (``keras.layers.ELU``).

    Parameters
    ----------
    alpha : float
        Scale of the negative part (default 1.0).
    """

    def __init__(self, alpha: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alpha = alpha
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """``elu(inputs, alpha)``."""
        return _activations().elu(inputs, alpha=self.alpha)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys (its automatic config records ``alpha``)."""
        return {**super().get_config(), "alpha": self.alpha}


class PReLU(_SameShape):
    """Parametric ReLU: ``x`` where ``x >= 0``, ``alpha * x`` elsewhere, with ``alpha`` a learned weight
    (``keras.layers.PReLU``).

    ``alpha`` has the shape of one example (the input's shape without the batch dimension), with
    size 1 along ``shared_axes``, so one slope can serve e.g. every pixel of a channel.

    Parameters
    ----------
    alpha_initializer : str or initializer
        Default ``"Zeros"`` (the layer starts as a ReLU).
    alpha_regularizer, alpha_constraint : optional
        Regularizer and constraint of ``alpha``.
    shared_axes : int or sequence of int, optional
        Axes (counted with the batch axis as 0) along which ``alpha`` is shared.
    """

    def __init__(
        self,
        alpha_initializer: Any = "Zeros",
        alpha_regularizer: Any = None,
        alpha_constraint: Any = None,
        shared_axes: int | Sequence[int] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.alpha_initializer = alpha_initializer
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes: list[int] | None = None
        elif isinstance(shared_axes, (list, tuple)):
            self.shared_axes = [int(a) for a in shared_axes]
        else:
            self.shared_axes = [int(shared_axes)]  # type: ignore[arg-type]

    def build(self, input_shape: Any = None) -> None:
        """Creates ``alpha`` of shape ``input_shape[1:]`` (1 along ``shared_axes``)."""
        shape = tuple(input_shape)
        if len(shape) < 2:
            raise ValueError(f"PReLU expects inputs with a batch dimension and at least one more; got shape {shape}")
        param_shape = list(shape[1:])
        for i in self.shared_axes or []:
            if not 1 <= i < len(shape):
                raise ValueError(f"PReLU: shared axis {i} is out of range for an input of shape {shape}")
            param_shape[i - 1] = 1
        if any(d is None for d in param_shape):
            raise ValueError(
                f"PReLU needs the non-shared dimensions of its input to be known; got input shape {shape} "
                f"with shared_axes={self.shared_axes}"
            )
        self.alpha = self.add_weight(
            shape=tuple(param_shape),
            name="alpha",
            initializer=self.alpha_initializer,
            regularizer=self.alpha_regularizer,
            constraint=self.alpha_constraint,
        )
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """``relu(x) - alpha * relu(-x)``."""
        alpha_shape = tuple(self.alpha.shape)
        shape = tuple(inputs.shape)
        if len(shape) != len(alpha_shape) + 1 or any(a != 1 and a != d for a, d in zip(alpha_shape, shape[1:])):
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: alpha has shape {alpha_shape} '
                f"(built for inputs of shape {self._build_shapes}), but received input with shape {shape}"
            )
        return nn.relu(inputs) - self.alpha * nn.relu(-inputs)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {
            **super().get_config(),
            "alpha_initializer": _initializer_config(self.alpha_initializer),
            "alpha_regularizer": _serialized(self.alpha_regularizer),
            "alpha_constraint": _serialized(self.alpha_constraint),
            "shared_axes": self.shared_axes,
        }


def _large_negative_number(dtype: Any) -> float:
    return -3e4 if dtype.name == "float16" else -1e9


class Softmax(_SameShape):
    """Softmax along ``axis`` (``keras.layers.Softmax``), optionally restricted by a mask.

    With ``mask`` (broadcastable to the inputs; 1/True keeps, 0/False masks), masked logits are
    replaced by a large negative number before the softmax and the masked outputs are set to 0, so the
    kept entries sum to 1.

    Parameters
    ----------
    axis : int or sequence of int
        The axis (or axes, normalized together) of the softmax; default -1.
    """

    def __init__(self, axis: int | Sequence[int] = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any, mask: Any = None) -> Tensor:
        """The (masked) softmax."""
        x = inputs
        if mask is not None:
            mask = _as_tensor(mask)
            ms, xs = tuple(mask.shape), tuple(x.shape)
            if len(ms) > len(xs) or any(m != 1 and m != d for m, d in zip(ms[::-1], xs[::-1])):
                raise ValueError(
                    "The `mask` must be broadcastable to `inputs`. Each mask dimension must be 1 or match the "
                    f"corresponding input dimension. Received: inputs.shape={xs}, mask.shape={ms}"
                )
            if mask.dtype.name != "bool":
                mask = _core.greater(mask, _core.cast(0.5, mask.dtype))
            mask = _core.broadcast_to(mask, list(xs))
            x = _core.where(mask, x, _core.fill(list(xs), _core.cast(_large_negative_number(x.dtype), x.dtype)))
        if isinstance(self.axis, (list, tuple)) and len(self.axis) > 1:
            axes = [int(a) for a in self.axis]
            out = _core.exp(x - _core.math.reduce_logsumexp(x, axis=axes, keepdims=True))
        else:
            axis = self.axis[0] if isinstance(self.axis, (list, tuple)) else self.axis
            out = _activations().softmax(x, axis=axis)
        if mask is not None:
            out = _core.where(mask, out, _core.zeros_like(out))
        return out

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "axis": self.axis}


# ----------------------------------------------------------------------------- value maps


class Rescaling(_SameShape):
    """``inputs * scale + offset`` (``keras.layers.Rescaling``), e.g. ``scale=1/255`` for pixels in [0, 1].

    Integer inputs are cast to the layer's dtype (float32) first; applied in training and inference.

    Parameters
    ----------
    scale : float or sequence of float
        Multiplier (a sequence broadcasts along the last axis, one value per channel).
    offset : float or sequence of float
        Added after scaling; default 0.
    """

    def __init__(self, scale: Any, offset: Any = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scale = scale
        self.offset = offset
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """The affine map, in the layer's dtype."""
        dtype = self.compute_dtype
        x = _as_tensor(inputs)
        if x.dtype.name != dtype:
            x = _core.cast(x, dtype)
        scale = _core.cast(_as_tensor(self.scale), dtype)
        offset = _core.cast(_as_tensor(self.offset), dtype)
        return x * scale + offset

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "scale": self.scale, "offset": self.offset}


class UnitNormalization(_SameShape):
    """Scales each example to unit L2 norm over ``axis`` (``keras.layers.UnitNormalization``).

    Computes ``x * min(rsqrt(sum(x**2, axis)), 1e12)`` as Keras 3 does, so an all-zero slice stays zero.

    Parameters
    ----------
    axis : int or sequence of int
        The axis or axes normalized over (default -1, the features).
    """

    def __init__(self, axis: int | Sequence[int] = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis: int | list[int] = [int(a) for a in axis]
        elif isinstance(axis, int) and not isinstance(axis, bool):
            self.axis = axis
        else:
            raise TypeError(f"Invalid value for `axis` argument: expected an int or a list/tuple of ints. "
                            f"Received: axis={axis}")  # fmt: skip
        self.supports_masking = True
        self.built = True

    def _check_axes(self, shape: tuple[Any, ...]) -> list[int]:
        axes = [self.axis] if isinstance(self.axis, int) else list(self.axis)
        for a in axes:
            if a >= len(shape) or a < -len(shape):
                raise ValueError(f"Axis {self.axis} is out of bounds for input shape {shape}.")
        return axes

    def call(self, inputs: Any) -> Tensor:
        """The normalization."""
        x = inputs
        if len(x.shape) == 0:
            x = _core.expand_dims(x, 0)
        axes = self._check_axes(tuple(x.shape))
        square_sum = _core.reduce_sum(_core.square(x), axis=axes, keepdims=True)
        inv_norm = _core.minimum(_core.math.rsqrt(square_sum), _core.cast(1e12, x.dtype))
        return x * inv_norm

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape (after checking ``axis`` against it)."""
        self._check_axes(tuple(input_shape))
        return tuple(input_shape)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "axis": self.axis}


# ----------------------------------------------------------------------------- noise


class GaussianNoise(_SameShape):
    """Adds zero-mean Gaussian noise of standard deviation ``stddev`` while training; the identity in
    inference (``keras.layers.GaussianNoise``). A regularizer, like a random data augmentation.

    Parameters
    ----------
    stddev : float
        Standard deviation of the noise, in [0, 1] (Keras' bound).
    seed : int, optional
        Op-level seed of tapers' random stream.
    """

    def __init__(self, stddev: float, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _check_rate(stddev, "stddev")
        self.stddev = stddev
        self.seed = seed
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any, training: bool = False) -> Tensor:
        """``inputs + noise`` while ``training``."""
        if training and self.stddev > 0:
            noise = _random.normal(list(inputs.shape), 0.0, self.stddev, dtype=inputs.dtype, seed=self.seed)
            return inputs + noise
        return inputs

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "stddev": self.stddev, "seed": self.seed}


class GaussianDropout(_SameShape):
    """Multiplies by Gaussian noise of mean 1 and standard deviation ``sqrt(rate / (1 - rate))`` while
    training; the identity in inference (``keras.layers.GaussianDropout``).

    Parameters
    ----------
    rate : float
        Drop probability in [0, 1), as for ``Dropout``; it sets the noise's spread.
    seed : int, optional
        Op-level seed of tapers' random stream.

    Notes
    -----
    ``rate=1`` (an infinite spread; Keras fails with ``ZeroDivisionError``) outputs zeros, as ``Dropout`` does.
    """

    def __init__(self, rate: float, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _check_rate(rate)
        self.rate = rate
        self.seed = seed
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any, training: bool = False) -> Tensor:
        """``inputs * noise`` while ``training``."""
        if training and self.rate > 0:
            if self.rate >= 1:
                return _core.zeros_like(inputs)
            stddev = math.sqrt(self.rate / (1.0 - self.rate))
            noise = _random.normal(list(inputs.shape), 1.0, stddev, dtype=inputs.dtype, seed=self.seed)
            return inputs * noise
        return inputs

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "rate": self.rate, "seed": self.seed}


class AlphaDropout(_SameShape):
    """Dropout for SELU networks (``keras.layers.AlphaDropout``): while training, dropped inputs are set to
    SELU's negative saturation ``-alpha * scale`` and the result is mapped affinely so the mean and
    variance of standardized inputs are kept; the identity in inference.

    Parameters
    ----------
    rate : float
        Drop probability in [0, 1].
    noise_shape : sequence of int, optional
        Shape of the keep mask (``None`` entries take the input's size), shared along size-1 axes.
    seed : int, optional
        Op-level seed of tapers' random stream.
    """

    def __init__(
        self, rate: float, noise_shape: Sequence[int | None] | None = None, seed: int | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        _check_rate(rate)
        self.rate = rate
        self.seed = seed
        self.noise_shape = noise_shape
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any, training: bool = False) -> Tensor:
        """The alpha dropout while ``training``."""
        if training and self.rate > 0:
            shape = list(inputs.shape)
            if self.noise_shape is not None:
                if len(self.noise_shape) != len(shape):
                    raise ValueError(f"AlphaDropout: noise_shape {tuple(self.noise_shape)} does not match the "
                                     f"rank of the input shape {tuple(shape)}")  # fmt: skip
                shape = [shape[i] if d is None else int(d) for i, d in enumerate(self.noise_shape)]
            alpha = 1.6732632423543772848170429916717
            scale = 1.0507009873554804934193349852946
            alpha_p = -alpha * scale
            kept = _core.cast(_core.greater_equal(_random.uniform(shape, seed=self.seed), self.rate), inputs.dtype)
            a = ((1 - self.rate) * (1 + self.rate * alpha_p**2)) ** -0.5
            b = -a * alpha_p * self.rate
            x = inputs * kept + alpha_p * (1 - kept)
            return a * x + b
        return inputs

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "rate": self.rate, "seed": self.seed, "noise_shape": self.noise_shape}


class _SpatialDropout(_SameShape):
    _ndim = 3

    def __init__(self, rate: float, seed: int | None = None, name: str | None = None, dtype: Any = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(name=name, dtype=dtype, **kwargs)
        _check_rate(rate)
        self.rate = rate
        self.seed = seed
        self.supports_masking = True
        self.built = True

    def _noise_shape(self, shape: list[int]) -> list[int]:
        raise NotImplementedError

    def call(self, inputs: Any, training: bool = False) -> Tensor:
        """Drops whole channels while ``training``; otherwise returns the inputs."""
        shape = list(inputs.shape)
        if len(shape) != self._ndim:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected ndim={self._ndim}, '
                f"found ndim={len(shape)}. Full shape received: {tuple(shape)}"
            )
        if training and self.rate > 0:
            if self.rate >= 1:
                return _core.zeros_like(inputs)
            return nn.dropout(inputs, self.rate, noise_shape=self._noise_shape(shape), seed=self.seed)
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape (of rank 3 for 1D, 4 for 2D)."""
        if len(tuple(input_shape)) != self._ndim:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected ndim={self._ndim}, '
                f"found ndim={len(tuple(input_shape))}. Full shape received: {tuple(input_shape)}"
            )
        return tuple(input_shape)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys (``rate``, ``seed``, ``name``, ``dtype``: no ``trainable``)."""
        base = super().get_config()
        return {"rate": self.rate, "seed": self.seed, "name": self.name, "dtype": base["dtype"]}


class SpatialDropout1D(_SpatialDropout):
    """Dropout of whole 1D feature maps (``keras.layers.SpatialDropout1D``): for inputs
    ``(batch, steps, channels)``, each example's channel is zeroed at every step with probability
    ``rate`` while training, and kept channels are scaled by ``1 / (1 - rate)``; the identity in inference.

    Neighbouring steps are correlated, so dropping single elements hardly regularizes; dropping
    channels does.

    Parameters
    ----------
    rate : float
        Fraction of channels dropped, in [0, 1].
    seed : int, optional
        Op-level seed of tapers' random stream.
    """

    _ndim = 3

    def _noise_shape(self, shape: list[int]) -> list[int]:
        return [shape[0], 1, shape[2]]


class SpatialDropout2D(_SpatialDropout):
    """Dropout of whole 2D feature maps (``keras.layers.SpatialDropout2D``): each example's channel is
    zeroed over all pixels with probability ``rate`` while training, kept channels scaled by
    ``1 / (1 - rate)``; the identity in inference.

    Parameters
    ----------
    rate : float
        Fraction of channels dropped, in [0, 1].
    data_format : str, optional
        ``"channels_last"`` (default: ``(batch, rows, cols, channels)``) or ``"channels_first"``.
    seed : int, optional
        Op-level seed of tapers' random stream.
    """

    _ndim = 4

    def __init__(self, rate: float, data_format: str | None = None, seed: int | None = None,
                 name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(rate, seed=seed, name=name, dtype=dtype, **kwargs)
        if data_format is None:
            from .. import backend

            data_format = getattr(backend, "image_data_format", lambda: "channels_last")()
        data_format = str(data_format).lower()
        if data_format not in ("channels_last", "channels_first"):
            raise ValueError(
                "The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
                f"Received: data_format={data_format}"
            )
        self.data_format = data_format

    def _noise_shape(self, shape: list[int]) -> list[int]:
        if self.data_format == "channels_first":
            return [shape[0], shape[1], 1, 1]
        return [shape[0], 1, 1, shape[3]]

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "data_format": self.data_format}


# ----------------------------------------------------------------------------- regularization


class ActivityRegularization(_SameShape):
    """The identity, adding ``l1 * sum(|x|) + l2 * sum(x**2)`` of its input (divided by the batch size,
    as Keras 3 does for activity regularizers) to ``layer.losses`` at each call
    (``keras.layers.ActivityRegularization``); ``fit`` adds it to the loss.

    Parameters
    ----------
    l1, l2 : float
        Penalty factors (default 0).
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.supports_masking = True
        self.l1 = l1
        self.l2 = l2
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """The inputs (the penalty is added by the base layer)."""
        return inputs

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys (``l1``, ``l2`` instead of ``activity_regularizer``)."""
        config = super().get_config()
        config.pop("activity_regularizer", None)
        return {**config, "l1": self.l1, "l2": self.l2}


# ----------------------------------------------------------------------------- Lambda


def _func_dump(fn: Callable[..., Any]) -> dict[str, Any]:
    """Keras' ``python_utils.func_dump``: the base64 of the marshalled code, defaults and closure values."""
    code = base64.b64encode(marshal.dumps(fn.__code__)).decode("ascii")
    closure = tuple(c.cell_contents for c in fn.__closure__) if fn.__closure__ else None
    return {"code": code, "defaults": fn.__defaults__, "closure": closure}


def _func_load(config: dict[str, Any]) -> Callable[..., Any]:
    code = marshal.loads(base64.b64decode(config["code"].encode("ascii")))  # noqa: S302 - unsafe mode only
    defaults = config.get("defaults")
    closure = config.get("closure")
    cells = tuple(types.CellType(v) for v in closure) if closure else None
    return types.FunctionType(code, globals(), code.co_name, tuple(defaults) if defaults else None, cells)


def _serialize_function(fn: Any) -> Any:
    if isinstance(fn, types.LambdaType) and fn.__name__ == "<lambda>":
        return {"class_name": "__lambda__", "config": _func_dump(fn)}
    if callable(fn):
        name = getattr(fn, "__name__", type(fn).__name__)
        return {"module": getattr(fn, "__module__", None), "class_name": "function", "config": name,
                "registered_name": name}  # fmt: skip
    raise ValueError(f"Invalid input type for serialization. Received: {fn} of type {type(fn)}.")


def _deserialize_function(config: Any, custom_objects: dict[str, Any] | None, safe_mode: bool) -> Any:
    if isinstance(config, dict) and config.get("class_name") == "__lambda__":
        if safe_mode:
            raise ValueError(
                "Requested the deserialization of a `Lambda` layer whose `function` is a Python lambda. This "
                "carries a potential risk of arbitrary code execution and thus it is disallowed by default. If you "
                "trust the source of the artifact, pass `safe_mode=False` to `Lambda.from_config`."
            )
        return _func_load(config["config"])
    if isinstance(config, dict) and config.get("class_name") == "function":
        from ..utils import _visible_custom_objects

        name = config.get("registered_name") or config["config"]
        visible = _visible_custom_objects(custom_objects)
        if name in visible:
            return visible[name]
        module = config.get("module")
        if module:
            try:
                return getattr(importlib.import_module(module), config["config"])
            except (ImportError, AttributeError) as e:
                raise ValueError(f"Could not deserialize the function {name!r} of module {module!r}: {e}") from e
        raise ValueError(f"Could not deserialize the function {name!r}: pass it in `custom_objects`.")
    return config


class Lambda(Layer):
    """Wraps a function of tensors as a layer (``keras.layers.Lambda``), for small stateless
    computations in ``Sequential`` and functional models.

    The function must use tapers ops so gradients flow; it must not create weights (write a
    ``Layer`` subclass for that). If it takes ``training`` or ``mask``, they are passed on.

    Parameters
    ----------
    function : callable
        ``function(inputs, **arguments)``.
    output_shape : tuple or callable, optional
        The output's shape without the batch dimension, or ``output_shape(input_shape)`` with it; by
        default found by running the function on zeros.
    mask : optional
        Kept in the config (tapers.keras does not propagate masks).
    arguments : dict, optional
        Extra keyword arguments of ``function``.
    """

    def __init__(
        self,
        function: Callable[..., Any],
        output_shape: Any = None,
        mask: Any = None,
        arguments: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if not callable(function):
            raise ValueError(f"Lambda: `function` must be callable. Received: function={function!r}")
        self.arguments = dict(arguments or {})
        self.function = function
        self.supports_masking = mask is not None
        self.mask = mask
        self._output_shape = output_shape
        try:
            args = inspect.getfullargspec(function).args
        except TypeError:
            args = []
        self._fn_expects_training_arg = "training" in args
        self._fn_expects_mask_arg = "mask" in args
        self.built = True

    def call(self, inputs: Any, mask: Any = None, training: bool | None = None) -> Any:
        """``function(inputs, **arguments)`` (plus ``mask``/``training`` when it takes them)."""
        kwargs = dict(self.arguments)
        if self._fn_expects_mask_arg:
            kwargs["mask"] = mask
        if self._fn_expects_training_arg:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """From ``output_shape`` when given, else by running the function (``NotImplementedError`` here)."""
        if self._output_shape is None:
            raise NotImplementedError
        if callable(self._output_shape):
            return self._output_shape(input_shape)
        first = input_shape
        while isinstance(first, (list, tuple)) and first and isinstance(first[0], (list, tuple)):
            first = first[0]
        batch = first[0] if isinstance(first, (list, tuple)) and first else None
        return _add_batch(batch, self._output_shape)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys: ``function`` (a lambda's marshalled code, or a named function's module and
        name), ``output_shape`` and ``mask`` when given, ``arguments``."""
        config: dict[str, Any] = {"function": _serialize_function(self.function)}
        if self._output_shape is not None:
            config["output_shape"] = (
                _serialize_function(self._output_shape) if callable(self._output_shape) else self._output_shape
            )
        if self.mask is not None:
            config["mask"] = _serialize_function(self.mask) if callable(self.mask) else self.mask
        config["arguments"] = dict(self.arguments)
        return {**super().get_config(), **config}

    @classmethod
    def from_config(
        cls, config: Mapping[str, Any], custom_objects: dict[str, Any] | None = None, safe_mode: bool | None = None
    ) -> Lambda:
        """Recreates the layer; a lambda's code is only loaded with ``safe_mode=False`` (as in Keras)."""
        config = dict(config)
        from .. import config as keras_config

        safe = safe_mode if safe_mode is not None else not keras_config._unsafe_deserialization
        config["function"] = _deserialize_function(config["function"], custom_objects, safe)
        for key in ("output_shape", "mask"):
            if key in config and isinstance(config[key], dict):
                config[key] = _deserialize_function(config[key], custom_objects, safe)
        if isinstance(config.get("output_shape"), list):
            config["output_shape"] = tuple(config["output_shape"])
        return cls(**config)


def _add_batch(batch: Any, shape: Any) -> Any:
    if isinstance(shape, (list, tuple)) and all(d is None or isinstance(d, int) for d in shape):
        return (batch, *tuple(shape))
    if isinstance(shape, dict):
        return {k: _add_batch(batch, v) for k, v in shape.items()}
    return type(shape)(_add_batch(batch, s) for s in shape)
