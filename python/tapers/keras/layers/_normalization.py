"""Keras 3's ``BatchNormalization`` and ``LayerNormalization``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import _core
from .. import constraints, regularizers
from ._base import Layer, _serialized
from ._core_layers import _initializer_config

__all__ = ["BatchNormalization", "LayerNormalization"]

Tensor = _core.Tensor


def _axes(axis: int | Sequence[int], rank: int) -> list[int]:
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"Invalid axis: {a}. Expected {-rank} <= axis < {rank}")
        out.append(a % rank)
    return sorted(out)


def _moments(x: Tensor, axes: list[int]) -> tuple[Tensor, Tensor]:
    """Mean and (biased) variance over ``axes``, keeping dims, as ``keras.ops.moments``."""
    mean = _core.reduce_mean(x, axis=axes, keepdims=True)
    var = _core.reduce_mean(_core.square(x - _core.stop_gradient(mean)), axis=axes, keepdims=True)
    return mean, var


class BatchNormalization(Layer):
    """Normalizes with the batch's statistics while training and with moving
    averages in inference (``keras.layers.BatchNormalization``).

    Weights: ``gamma`` and ``beta`` (trainable), ``moving_mean`` and
    ``moving_variance`` (non-trainable). Each training call updates
    ``moving = moving * momentum + batch_stat * (1 - momentum)`` with the
    batch's biased variance, as Keras 3 does. A layer with ``trainable=False``
    always runs in inference mode.

    Parameters
    ----------
    axis : int
        The features axis (default the last).
    momentum : float
        Of the moving averages (default 0.99).
    epsilon : float
        Added to the variance (default 1e-3).
    center, scale : bool
        Whether to use ``beta`` and ``gamma``.
    """

    def __init__(
        self,
        axis: int = -1,
        momentum: float = 0.99,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        moving_mean_initializer: Any = "zeros",
        moving_variance_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        synchronized: bool = False,
        renorm: bool = False,
        renorm_clipping: Any = None,
        renorm_momentum: float = 0.99,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if renorm:
            raise NotImplementedError("tapers.keras: batch renormalization (renorm=True) is not implemented")
        del renorm_clipping
        self.renorm_momentum = renorm_momentum
        if synchronized:
            raise NotImplementedError("tapers.keras: synchronized BatchNormalization is not implemented")
        self.axis = int(axis)
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.center = center
        self.scale = scale
        self.beta_initializer = beta_initializer
        self.gamma_initializer = gamma_initializer
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.supports_masking = True

    def build(self, input_shape: Any = None) -> None:
        """Creates the four weights of shape ``(input_shape[axis],)``."""
        rank = len(input_shape)
        self._reduction_axes = [a for a in range(rank) if a != self.axis % rank]
        dim = input_shape[self.axis]
        if dim is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined dimension but the layer "
                             f"received an input with shape {tuple(input_shape)}.")  # fmt: skip
        shape = (dim,)
        self.gamma = (
            self.add_weight(
                shape=shape,
                name="gamma",
                initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint,
            )
            if self.scale
            else None
        )
        self.beta = (
            self.add_weight(
                shape=shape,
                name="beta",
                initializer=self.beta_initializer,
                regularizer=self.beta_regularizer,
                constraint=self.beta_constraint,
            )
            if self.center
            else None
        )
        self.moving_mean = self.add_weight(
            shape=shape, name="moving_mean", initializer=self.moving_mean_initializer, trainable=False
        )
        self.moving_variance = self.add_weight(
            shape=shape, name="moving_variance", initializer=self.moving_variance_initializer, trainable=False
        )
        self.built = True

    def _broadcast(self, v: Any, rank: int) -> Any:
        if rank == 1 or self.axis % rank == rank - 1:
            return v
        shape = [1] * rank
        shape[self.axis % rank] = -1
        return _core.reshape(v, shape)

    def call(self, inputs: Any, training: bool | None = None) -> Tensor:
        """Normalizes; in training also updates the moving statistics."""
        x = inputs
        rank = len(x.shape)
        axes = [a for a in range(rank) if a != self.axis % rank]
        if training and self.trainable:
            mean, var = _moments(x, axes)
            mean_flat = _core.reshape(mean, [-1])
            var_flat = _core.reshape(var, [-1])
            m = self.momentum
            self.moving_mean.assign(self.moving_mean * m + _core.stop_gradient(mean_flat) * (1.0 - m))
            self.moving_variance.assign(self.moving_variance * m + _core.stop_gradient(var_flat) * (1.0 - m))
        else:
            mean = self._broadcast(self.moving_mean, rank)
            var = self._broadcast(self.moving_variance, rank)
        inv = _core.math.rsqrt(var + self.epsilon)
        if self.gamma is not None:
            inv = inv * self._broadcast(self.gamma, rank)
        y = (x - mean) * inv
        if self.beta is not None:
            y = y + self._broadcast(self.beta, rank)
        return y

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape."""
        return tuple(input_shape)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for BatchNormalization."""
        return {
            **super().get_config(),
            "axis": self.axis,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "beta_initializer": _initializer_config(self.beta_initializer),
            "gamma_initializer": _initializer_config(self.gamma_initializer),
            "moving_mean_initializer": _initializer_config(self.moving_mean_initializer),
            "moving_variance_initializer": _initializer_config(self.moving_variance_initializer),
            "beta_regularizer": _serialized(self.beta_regularizer),
            "gamma_regularizer": _serialized(self.gamma_regularizer),
            "beta_constraint": _serialized(self.beta_constraint),
            "gamma_constraint": _serialized(self.gamma_constraint),
            "synchronized": False,
            "renorm": False,
            "renorm_clipping": None,
            "renorm_momentum": self.renorm_momentum,
        }


class LayerNormalization(Layer):
    """Normalizes each example over ``axis`` (default the last) with its own
    mean and variance, then scales by ``gamma`` and shifts by ``beta``
    (``keras.layers.LayerNormalization``).

    Parameters
    ----------
    axis : int or list of int
        The normalized axes (default the last).
    epsilon : float
        Added to the variance (default 1e-3).
    center, scale : bool
        Whether to use ``beta`` and ``gamma``.
    """

    def __init__(
        self,
        axis: int | Sequence[int] = -1,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        rms_scaling = kwargs.pop("rms_scaling", False)
        super().__init__(**kwargs)
        if rms_scaling:
            raise NotImplementedError("tapers.keras: LayerNormalization(rms_scaling=True) is not implemented")
        self.axis = axis if isinstance(axis, int) else list(axis)
        self.epsilon = float(epsilon)
        self.center = center
        self.scale = scale
        self.beta_initializer = beta_initializer
        self.gamma_initializer = gamma_initializer
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.supports_masking = True

    def build(self, input_shape: Any = None) -> None:
        """Creates ``gamma`` and ``beta`` with the normalized axes' shape."""
        axes = _axes(self.axis, len(input_shape))
        shape = tuple(input_shape[a] for a in axes)
        self.gamma = (
            self.add_weight(
                name="gamma",
                shape=shape,
                initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint,
            )
            if self.scale
            else None
        )
        self.beta = (
            self.add_weight(
                name="beta",
                shape=shape,
                initializer=self.beta_initializer,
                regularizer=self.beta_regularizer,
                constraint=self.beta_constraint,
            )
            if self.center
            else None
        )
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """``(x - mean) / sqrt(var + epsilon) * gamma + beta`` per example."""
        x = inputs
        rank = len(x.shape)
        axes = _axes(self.axis, rank)
        mean, var = _moments(x, axes)
        bshape = [x.shape[a] if a in axes else 1 for a in range(rank)]
        inv = _core.math.rsqrt(var + self.epsilon)
        if self.gamma is not None:
            inv = inv * _core.reshape(self.gamma, bshape)
        y = (x - mean) * inv
        if self.beta is not None:
            y = y + _core.reshape(self.beta, bshape)
        return y

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input's shape."""
        return tuple(input_shape)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys for LayerNormalization."""
        return {
            **super().get_config(),
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "beta_initializer": _initializer_config(self.beta_initializer),
            "gamma_initializer": _initializer_config(self.gamma_initializer),
            "beta_regularizer": _serialized(self.beta_regularizer),
            "gamma_regularizer": _serialized(self.gamma_regularizer),
            "beta_constraint": _serialized(self.beta_constraint),
            "gamma_constraint": _serialized(self.gamma_constraint),
            "rms_scaling": False,
        }
