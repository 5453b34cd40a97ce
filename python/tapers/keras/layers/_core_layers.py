"""Keras 3's core layers: ``Dense``, ``Activation``, ``ReLU``, ``Flatten``, ``Reshape``, ``Dropout``, ``Embedding``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _core, nn
from .. import constraints, regularizers
from ._base import KerasTensor, Layer, _serialized

__all__ = ["Activation", "Dense", "Dropout", "Embedding", "Flatten", "ReLU", "Reshape"]

Tensor = _core.Tensor


def _activation(identifier: Any) -> Any:
    from .. import activations

    return activations.get(identifier)


def _activation_name(fn: Any) -> Any:
    from .. import activations

    serialize = getattr(activations, "serialize", None)
    if serialize is not None:
        return serialize(fn)
    return getattr(fn, "__name__", fn)


def _initializer_config(init: Any) -> Any:
    from .. import initializers

    serialize = getattr(initializers, "serialize", None)
    if serialize is not None:
        return serialize(initializers.get(init))
    return init


class Dense(Layer):
    """``activation(inputs @ kernel + bias)`` over the last axis (``keras.layers.Dense``).

    Weights: ``kernel`` of shape ``(input_dim, units)`` (Glorot uniform) and
    ``bias`` of shape ``(units,)`` (zeros). Inputs of rank above 2 are
    multiplied along their last axis.

    Parameters
    ----------
    units : int
        Output size.
    activation : str or callable, optional
        Applied to the result (``"relu"``, ``keras.activations.softmax``...).
    use_bias : bool
        Whether to add ``bias``.
    kernel_initializer, bias_initializer : str or initializer
        Keras' defaults ``"glorot_uniform"`` and ``"zeros"``.
    **kwargs
        ``name``, ``dtype``, ``trainable``, ``input_shape`` as for every layer.
    """

    def __init__(
        self,
        units: int,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        lora_rank: int | None = None,
        quantization_config: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.supports_masking = True
        if quantization_config is not None:
            raise NotImplementedError("tapers.keras: quantization is not implemented")
        if not isinstance(units, (int, np.integer)) or units <= 0:
            raise ValueError(
                f"Received an invalid value for `units`, expected a positive integer. Received: units={units}"
            )
        if lora_rank:
            raise NotImplementedError("tapers.keras: LoRA is not implemented")
        self.units = int(units)
        self.activation = _activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def build(self, input_shape: Any = None) -> None:
        """Creates ``kernel`` (and ``bias``) for the input's last dimension."""
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be defined. Found `None`.")
        self.kernel = self.add_weight(
            name="kernel",
            shape=(input_dim, self.units),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.bias = (
            self.add_weight(
                name="bias",
                shape=(self.units,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
            if self.use_bias
            else None
        )
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """The affine map and the activation."""
        x = inputs
        if not x.shape or x.shape[-1] != self.kernel.shape[0]:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected axis -1 of input shape '
                f"to have value {self.kernel.shape[0]}, but received input with shape {tuple(x.shape)}"
            )
        if len(x.shape) == 2:
            y = _core.matmul(x, self.kernel)
        else:
            y = _core.tensordot(x, self.kernel, axes=[[len(x.shape) - 1], [0]])
        if self.bias is not None:
            y = y + self.bias
        return self.activation(y) if self.activation is not None else y

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """The input's shape with its last dimension replaced by ``units``."""
        return (*tuple(input_shape)[:-1], self.units)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for Dense."""
        return {
            **super().get_config(),
            "units": self.units,
            "activation": _activation_name(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": _initializer_config(self.kernel_initializer),
            "bias_initializer": _initializer_config(self.bias_initializer),
            "kernel_regularizer": _serialized(self.kernel_regularizer),
            "bias_regularizer": _serialized(self.bias_regularizer),
            "kernel_constraint": _serialized(self.kernel_constraint),
            "bias_constraint": _serialized(self.bias_constraint),
            "quantization_config": None,
        }


class Activation(Layer):
    """Applies an activation function (``keras.layers.Activation("relu")``).

    Parameters
    ----------
    activation : str or callable
        A ``keras.activations`` name or function.
    """

    def __init__(self, activation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.activation = _activation(activation)

    def call(self, inputs: Any) -> Tensor:
        """``activation(inputs)``."""
        return self.activation(inputs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape."""
        return tuple(input_shape)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "activation": _activation_name(self.activation)}


class ReLU(Layer):
    """Rectified linear unit with Keras' options (``keras.layers.ReLU``).

    Parameters
    ----------
    max_value : float, optional
        Upper cap.
    negative_slope : float
        Slope below ``threshold`` (0: none).
    threshold : float
        Values below it are zeroed (or leak with ``negative_slope``).
    """

    def __init__(
        self, max_value: float | None = None, negative_slope: float = 0.0, threshold: float = 0.0, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        if max_value is not None and max_value < 0.0:
            raise ValueError(f"max_value of a ReLU layer cannot be a negative value. Received: {max_value}")
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(f"negative_slope of a ReLU layer cannot be a negative value. Received: {negative_slope}")
        if threshold is None or threshold < 0.0:
            raise ValueError(f"threshold of a ReLU layer cannot be a negative value. Received: {threshold}")
        self.max_value = max_value
        self.negative_slope = negative_slope
        self.threshold = threshold

    def call(self, inputs: Any) -> Tensor:
        """Keras' ``relu(x, negative_slope, max_value, threshold)``."""
        x = inputs
        if self.negative_slope == 0.0 and self.threshold == 0.0 and self.max_value is None:
            return nn.relu(x)
        if self.threshold != 0.0:
            y = _core.where(_core.greater(x, self.threshold), x, _core.zeros_like(x))
        else:
            y = nn.relu(x)
        if self.max_value is not None:
            y = _core.minimum(y, self.max_value)
        if self.negative_slope != 0.0:
            neg = (x - self.threshold) * self.negative_slope
            y = _core.where(_core.less(x, self.threshold), neg, y)
        return y

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape."""
        return tuple(input_shape)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {
            **super().get_config(),
            "max_value": self.max_value,
            "negative_slope": self.negative_slope,
            "threshold": self.threshold,
        }


class Flatten(Layer):
    """Reshapes ``(batch, d1, d2, ...)`` to ``(batch, d1 * d2 * ...)`` (``keras.layers.Flatten``).

    Parameters
    ----------
    data_format : str, optional
        ``"channels_last"`` only.
    """

    def __init__(self, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if data_format not in (None, "channels_last"):
            raise NotImplementedError("tapers.keras layers support data_format='channels_last' only")
        self.data_format = "channels_last"

    def call(self, inputs: Any) -> Tensor:
        """The reshape (a rank-1 input becomes ``(batch, 1)``)."""
        shape = list(inputs.shape)
        if len(shape) == 1:
            return _core.expand_dims(inputs, 1)
        return _core.reshape(inputs, [shape[0], int(np.prod(shape[1:]))])

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """``(batch, product of the other dimensions)`` (``None`` if any is unknown)."""
        rest = tuple(input_shape)[1:]
        if not rest:
            return (input_shape[0], 1)
        return (input_shape[0], None if any(d is None for d in rest) else int(np.prod(rest)))

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "data_format": self.data_format}


class Reshape(Layer):
    """Reshapes each example to ``target_shape`` (``keras.layers.Reshape``).

    Parameters
    ----------
    target_shape : sequence of int
        The shape of one example; one dimension may be -1.
    """

    def __init__(self, target_shape: Sequence[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target_shape = tuple(int(d) for d in target_shape)
        if sum(1 for d in self.target_shape if d == -1) > 1:
            raise ValueError(f"There must be at most one unknown dimension in output_shape. Received: {target_shape}")

    def _resolve(self, input_shape: Sequence[int | None]) -> tuple[int | None, ...]:
        rest = tuple(input_shape)[1:]
        dims = [d for d in rest if d is not None]
        if -1 not in self.target_shape:
            if len(dims) == len(rest) and int(np.prod(dims)) != int(np.prod(self.target_shape)):
                raise ValueError(
                    f"total size of new array must be unchanged, input_shape = {list(rest)}, "
                    f"output_shape = {list(self.target_shape)}"
                )
            return self.target_shape
        if len(dims) != len(rest):
            return tuple(None if d == -1 else d for d in self.target_shape)
        total = int(np.prod(dims))
        known = int(np.prod([d for d in self.target_shape if d != -1]))
        if known == 0 or total % known:
            raise ValueError(
                f"total size of new array must be unchanged, input_shape = {list(rest)}, "
                f"output_shape = {list(self.target_shape)}"
            )
        return tuple(total // known if d == -1 else d for d in self.target_shape)

    def call(self, inputs: Any) -> Tensor:
        """The reshape, batch dimension kept."""
        target = self._resolve(inputs.shape)
        return _core.reshape(inputs, [inputs.shape[0], *target])

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """``(batch, *target_shape)`` with -1 resolved."""
        return (input_shape[0], *self._resolve(input_shape))

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "target_shape": self.target_shape}


class Dropout(Layer):
    """Zeroes inputs with probability ``rate`` while training, scaling the rest by
    ``1 / (1 - rate)``; the identity in inference (``keras.layers.Dropout``).

    The mask comes from tapers' random streams (``seed`` is an op-level seed).

    Parameters
    ----------
    rate : float
        Fraction of inputs dropped, in [0, 1].
    noise_shape : sequence of int, optional
        Shape of the mask (``None`` entries take the input's size), shared along size-1 axes.
    seed : int, optional
        Op-level seed.
    """

    def __init__(
        self, rate: float, noise_shape: Sequence[int] | None = None, seed: int | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError(f"Invalid value received for argument `rate`. Expected a float value between 0 and 1. "
                             f"Received: rate={rate}")  # fmt: skip
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any, training: bool = False) -> Tensor:
        """Drops while ``training``; otherwise returns the inputs."""
        if training and self.rate > 0:
            if self.rate >= 1:
                return _core.zeros_like(inputs)
            noise = None
            if self.noise_shape is not None:
                noise = [inputs.shape[i] if d is None else d for i, d in enumerate(self.noise_shape)]
            return nn.dropout(inputs, self.rate, noise_shape=noise, seed=self.seed)
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape."""
        return tuple(input_shape)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "rate": self.rate, "seed": self.seed, "noise_shape": self.noise_shape}


class Embedding(Layer):
    """Looks up rows of an ``(input_dim, output_dim)`` table for integer inputs (``keras.layers.Embedding``).

    ``embeddings`` starts uniform in [-0.05, 0.05] (Keras' ``"uniform"``).
    With ``mask_zero=True`` index 0 is padding: the output carries the mask
    ``inputs != 0`` (``compute_mask``), which masking layers downstream (RNNs,
    ``GlobalAveragePooling1D``, the compiled loss) use to skip the padded steps.

    Parameters
    ----------
    input_dim : int
        Vocabulary size.
    output_dim : int
        Embedding size.
    embeddings_initializer : str or initializer
        Default ``"uniform"``.
    mask_zero : bool
        Whether index 0 is a padding value masked out downstream (``input_dim`` then counts it).
    weights : array, optional
        Initial table.
    """

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        embeddings_initializer: Any = "uniform",
        embeddings_regularizer: Any = None,
        embeddings_constraint: Any = None,
        mask_zero: bool = False,
        weights: Any = None,
        lora_rank: int | None = None,
        quantization_config: Any = None,
        **kwargs: Any,
    ) -> None:
        if quantization_config is not None:
            raise NotImplementedError("tapers.keras: quantization is not implemented")
        kwargs.pop("input_length", None)
        super().__init__(**kwargs)
        if lora_rank:
            raise NotImplementedError("tapers.keras: Embedding's LoRA is not implemented")
        self.input_dim = int(input_dim)
        self.output_dim = int(output_dim)
        self.embeddings_initializer = embeddings_initializer
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = bool(mask_zero)
        self.supports_masking = True  # Keras: compute_mask is overridden
        if weights is not None:  # Keras 3.15 builds at construction only when given weights
            self.build()
            self.set_weights(weights if isinstance(weights, list) else [weights])

    def build(self, input_shape: Any = None) -> None:
        """Creates ``embeddings`` (on the first call, as Keras 3.15; at construction when ``weights`` are given)."""
        if self.built:
            return
        self.embeddings = self.add_weight(
            shape=(self.input_dim, self.output_dim),
            initializer=self.embeddings_initializer,
            regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint,
            name="embeddings",
        )
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """``gather(embeddings, inputs)``; float inputs are cast to int32 first."""
        x = inputs
        if x.dtype.name not in ("int32", "int64"):
            x = _core.cast(x, "int32")
        return _core.gather(self.embeddings, x)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """``inputs != 0`` with ``mask_zero``, else None.

        Parameters
        ----------
        inputs : Tensor
            The integer indices.
        mask : Tensor, optional
            Ignored (an Embedding starts a mask).

        Returns
        -------
        Tensor or None
            A boolean tensor of the inputs' shape.
        """
        del mask
        if not self.mask_zero:
            return None
        if isinstance(inputs, KerasTensor):
            return KerasTensor(inputs.shape, "bool")
        x = _core.convert_to_tensor(inputs)
        return _core.not_equal(x, _core.zeros_like(x))

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """The input's shape plus ``output_dim``."""
        return (*tuple(input_shape), self.output_dim)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {
            **super().get_config(),
            "input_dim": self.input_dim,
            "output_dim": self.output_dim,
            "embeddings_initializer": _initializer_config(self.embeddings_initializer),
            "embeddings_regularizer": _serialized(self.embeddings_regularizer),
            "activity_regularizer": _serialized(self.activity_regularizer),
            "embeddings_constraint": _serialized(self.embeddings_constraint),
            "mask_zero": self.mask_zero,
            "quantization_config": None,
        }
