"""``keras.initializers``: Keras 3's weight initializers over tapers' random streams.

The formulas, defaults and fan computation are Keras 3's (``compute_fans``
treats a kernel of rank above 2 as a convolution kernel ``(..., in, out)``;
``VarianceScaling``'s truncated normal divides its standard deviation by
0.87962566103423978, the standard deviation of a unit normal truncated at
two standard deviations). The numbers are drawn from tapers' own random
streams (``tapers.random.Generator``, PCG64), so a seed gives different
values than in Keras/TensorFlow, with the same distribution.

Seeds behave as in Keras 3:

* ``seed=<int>``: every call returns the same values (a fresh stream from that seed each time);
* ``seed=None``: the initializer picks its own seed (on its first call), so
  repeated calls of one instance agree while two instances differ. The seed
  is drawn from ``tapers.random``'s stream, so ``tapers.random.set_seed(s)``
  makes a whole program's initial weights reproducible (in Keras 3 that
  takes ``keras.utils.set_random_seed``);
* a ``tapers.random.Generator``: each call continues that stream.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

from .. import _core
from .. import random as _random
from .._core import Tensor
from ..random import Generator
from ._lookup import from_table, resolve, to_config
from .backend import floatx

__all__ = [
    "Constant", "GlorotNormal", "GlorotUniform", "HeNormal", "HeUniform", "Identity", "Initializer", "LecunNormal",
    "LecunUniform", "Ones", "Orthogonal", "RandomNormal", "RandomUniform", "TruncatedNormal", "VarianceScaling",
    "Zeros", "compute_fans", "deserialize", "get", "serialize", "IdentityInitializer", "OrthogonalInitializer",
    "constant", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform", "identity", "lecun_normal",
    "lecun_uniform", "ones", "orthogonal", "random_normal", "random_uniform", "truncated_normal", "variance_scaling",
    "zeros",
]  # fmt: skip

TRUNCATED_NORMAL_STDDEV = 0.87962566103423978
"""Standard deviation of a unit normal truncated to ``[-2, 2]``: VarianceScaling divides by it."""


def _dtype(dtype: Any) -> str:
    return str(getattr(dtype, "name", dtype) or floatx())


def _shape(shape: Any) -> list[int]:
    if isinstance(shape, int):
        return [shape]
    return [int(d) for d in (shape if shape is not None else ())]


def compute_fans(shape: Any, input_axes: Any = None, output_axes: Any = None) -> tuple[int, int]:
    """Keras' ``(fan_in, fan_out)`` of a weight shape.

    Rank 0: ``(1, 1)``; rank 1: ``(n, n)``; rank 2: ``(rows, cols)``; higher
    ranks are convolution kernels ``(*spatial, in, out)``: both fans are
    multiplied by the receptive field size. ``input_axes``/``output_axes``
    (both given) name the axes whose sizes multiply into each fan instead.

    Parameters
    ----------
    shape : sequence of int
        The weight's shape.
    input_axes : sequence of int, optional
        Axes whose sizes multiply into ``fan_in``.
    output_axes : sequence of int, optional
        Axes whose sizes multiply into ``fan_out``.

    Returns
    -------
    tuple of int
        ``(fan_in, fan_out)``.
    """
    shape = tuple(_shape(shape))
    if input_axes is not None and output_axes is not None:
        fan_in = math.prod(shape[a] for a in input_axes)
        fan_out = math.prod(shape[a] for a in output_axes)
        return int(fan_in), int(fan_out)
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = math.prod(shape[:-2])
    return shape[-2] * receptive, shape[-1] * receptive


class Initializer:
    """Base class (``keras.initializers.Initializer``): ``init(shape, dtype=None)`` returns a new tensor.

    Methods
    -------
    __call__(shape, dtype=None)
        Returns a new tensor of ``shape``.
    """

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(shape, dtype=None)")

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments as a JSON-serializable dict."""
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Initializer:
        """Rebuilds an initializer from :meth:`get_config`'s dict."""
        return cls(**config)

    def clone(self) -> Initializer:
        """A new initializer with the same configuration."""
        return type(self).from_config(self.get_config())

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.get_config()}>"


class RandomInitializer(Initializer):
    """Base of the random initializers: holds the ``seed`` (see the module notes)."""

    _seed_lock = threading.Lock()

    def __init__(self, seed: int | Generator | None = None):
        self._init_seed = seed
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, Generator))):
            raise ValueError(
                "`seed` argument should be an instance of `tapers.random.Generator` or an integer. "
                f"Received: seed={seed!r}"
            )
        self._seed = seed

    @property
    def seed(self) -> int | Generator:
        """The seed in use. An unseeded initializer draws its own from ``tapers.random`` on first use (not when
        created, so instances made only to read a config leave the random streams as they were)."""
        if self._seed is None:
            with self._seed_lock:
                if self._seed is None:
                    self._seed = int(_random.uniform([], minval=1, maxval=10**9, dtype="int64").numpy())
        return self._seed

    def _generator(self) -> Generator:
        if isinstance(self.seed, Generator):
            return self.seed
        return Generator.from_seed(int(self.seed) & (2**64 - 1))

    def get_config(self) -> dict[str, Any]:
        """``seed`` as given (None when unseeded; a Generator is not serializable and gives None)."""
        return {"seed": self._init_seed if isinstance(self._init_seed, int) else None}


class RandomNormal(RandomInitializer):
    """Normal values with ``mean`` and ``stddev`` (Keras defaults 0.0 and 0.05).

    Parameters
    ----------
    mean : float
        Mean of the distribution.
    stddev : float
        Standard deviation.
    seed : int, tapers.random.Generator or None
        See the module notes on seeds.
    """

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | Generator | None = None):
        self.mean = mean
        self.stddev = stddev
        super().__init__(seed=seed)

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        """A ``shape`` tensor of ``dtype`` (``floatx()`` by default)."""
        return self._generator().normal(_shape(shape), mean=self.mean, stddev=self.stddev, dtype=_dtype(dtype))

    def get_config(self) -> dict[str, Any]:
        """``seed``, ``mean``, ``stddev``."""
        return {**super().get_config(), "mean": self.mean, "stddev": self.stddev}


class TruncatedNormal(RandomInitializer):
    """Normal values redrawn beyond two standard deviations (Keras defaults mean 0.0, stddev 0.05).

    ``stddev`` is the untruncated distribution's: the values' standard deviation is about ``0.88 * stddev``.

    Parameters
    ----------
    mean : float
        Mean of the distribution.
    stddev : float
        Standard deviation (of the untruncated distribution).
    seed : int, tapers.random.Generator or None
        See the module notes on seeds.
    """

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | Generator | None = None):
        self.mean = mean
        self.stddev = stddev
        super().__init__(seed=seed)

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        """A ``shape`` tensor of ``dtype`` (``floatx()`` by default)."""
        return self._generator().truncated_normal(
            _shape(shape), mean=self.mean, stddev=self.stddev, dtype=_dtype(dtype)
        )

    def get_config(self) -> dict[str, Any]:
        """``seed``, ``mean``, ``stddev``."""
        return {**super().get_config(), "mean": self.mean, "stddev": self.stddev}


class RandomUniform(RandomInitializer):
    """Uniform values in ``[minval, maxval)`` (Keras defaults -0.05 and 0.05).

    Parameters
    ----------
    minval : float
        Lower bound (inclusive).
    maxval : float
        Upper bound (exclusive).
    seed : int, tapers.random.Generator or None
        See the module notes on seeds.
    """

    def __init__(self, minval: float = -0.05, maxval: float = 0.05, seed: int | Generator | None = None):
        self.minval = minval
        self.maxval = maxval
        super().__init__(seed=seed)

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        """A ``shape`` tensor of ``dtype`` (``floatx()`` by default)."""
        return self._generator().uniform(_shape(shape), minval=self.minval, maxval=self.maxval, dtype=_dtype(dtype))

    def get_config(self) -> dict[str, Any]:
        """``seed``, ``minval``, ``maxval``."""
        return {**super().get_config(), "minval": self.minval, "maxval": self.maxval}


class VarianceScaling(RandomInitializer):
    """Values of variance ``scale / n``, ``n`` the fan chosen by ``mode`` (``keras.initializers.VarianceScaling``).

    Parameters
    ----------
    scale : float
        Positive scaling factor.
    mode : {"fan_in", "fan_out", "fan_avg"}
        Which fan ``n`` is (``fan_avg`` = mean of both); at least 1.
    distribution : {"truncated_normal", "untruncated_normal", "uniform"}
        ``"normal"`` means ``"truncated_normal"``. Truncated normal: stddev
        ``sqrt(scale / n) / 0.87962566103423978``; untruncated: ``sqrt(scale / n)``;
        uniform: limits ``±sqrt(3 * scale / n)``.
    seed : int, tapers.random.Generator or None
        See the module notes.
    input_axes, output_axes : sequence of int, optional
        Axes for the fans (see :func:`compute_fans`).

    Raises
    ------
    ValueError
        For a non-positive scale, an unknown mode or distribution.
    """

    def __init__(
        self,
        scale: float = 1.0,
        mode: str = "fan_in",
        distribution: str = "truncated_normal",
        seed: int | Generator | None = None,
        input_axes: Any = None,
        output_axes: Any = None,
    ):
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be positive float. Received: scale={scale}")
        allowed_modes = {"fan_in", "fan_out", "fan_avg"}
        if mode not in allowed_modes:
            raise ValueError(f"Invalid `mode` argument: {mode}. Please use one of {allowed_modes}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        allowed = {"uniform", "truncated_normal", "untruncated_normal"}
        if distribution not in allowed:
            raise ValueError(f"Invalid `distribution` argument: {distribution}.Please use one of {allowed}")
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.input_axes = input_axes
        self.output_axes = output_axes
        super().__init__(seed=seed)

    def parameters(self, shape: Any) -> dict[str, float]:
        """The distribution's parameters for ``shape``: ``stddev`` (normal) or ``limit`` (uniform)."""
        scale = self.scale
        fan_in, fan_out = compute_fans(shape, self.input_axes, self.output_axes)
        if self.mode == "fan_in":
            scale /= max(1.0, fan_in)
        elif self.mode == "fan_out":
            scale /= max(1.0, fan_out)
        else:
            scale /= max(1.0, (fan_in + fan_out) / 2.0)
        if self.distribution == "truncated_normal":
            return {"stddev": math.sqrt(scale) / TRUNCATED_NORMAL_STDDEV}
        if self.distribution == "untruncated_normal":
            return {"stddev": math.sqrt(scale)}
        return {"limit": math.sqrt(3.0 * scale)}

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        """A ``shape`` tensor of ``dtype`` (``floatx()`` by default)."""
        p = self.parameters(shape)
        gen, dims, dt = self._generator(), _shape(shape), _dtype(dtype)
        if self.distribution == "truncated_normal":
            return gen.truncated_normal(dims, mean=0.0, stddev=p["stddev"], dtype=dt)
        if self.distribution == "untruncated_normal":
            return gen.normal(dims, mean=0.0, stddev=p["stddev"], dtype=dt)
        return gen.uniform(dims, minval=-p["limit"], maxval=p["limit"], dtype=dt)

    def get_config(self) -> dict[str, Any]:
        """``seed``, ``scale``, ``mode``, ``distribution``, ``input_axes``, ``output_axes``."""
        return {
            **super().get_config(),
            "scale": self.scale,
            "mode": self.mode,
            "distribution": self.distribution,
            "input_axes": self.input_axes,
            "output_axes": self.output_axes,
        }


class _FixedVarianceScaling(VarianceScaling):
    _scale = 1.0
    _mode = "fan_in"
    _distribution = "truncated_normal"

    def __init__(self, seed: int | Generator | None = None, input_axes: Any = None, output_axes: Any = None):
        super().__init__(
            scale=self._scale,
            mode=self._mode,
            distribution=self._distribution,
            seed=seed,
            input_axes=input_axes,
            output_axes=output_axes,
        )

    def get_config(self) -> dict[str, Any]:
        """``seed``, ``input_axes``, ``output_axes``."""
        return {"seed": RandomInitializer.get_config(self)["seed"], "input_axes": self.input_axes,
                "output_axes": self.output_axes}  # fmt: skip


class GlorotUniform(_FixedVarianceScaling):
    """Uniform in ``±sqrt(6 / (fan_in + fan_out))`` (Keras' default kernel initializer).

    Parameters
    ----------
    seed : int, tapers.random.Generator or None
        See the module notes on seeds.
    input_axes, output_axes : sequence of int, optional
        Axes for the fans (see :func:`compute_fans`).
    """

    _mode, _distribution = "fan_avg", "uniform"


class GlorotNormal(_FixedVarianceScaling):
    """Truncated normal with stddev ``sqrt(2 / (fan_in + fan_out)) / 0.8796...``.

    Parameters
    ----------
    seed : int, tapers.random.Generator or None
        See the module notes on seeds.
    input_axes, output_axes : sequence of int, optional
        Axes for the fans (see :func:`compute_fans`).
    """

    _mode, _distribution = "fan_avg", "truncated_normal"


class HeUniform(_FixedVarianceScaling):
    """Uniform in ``±sqrt(6 / fan_in)``.

    Parameters
    ----------
    seed : int, tapers.random.Generator or None
        See the module notes on seeds.
    input_axes, output_axes : sequence of int, optional
        Axes for the fans (see :func:`compute_fans`).
    """

    _scale, _mode, _distribution = 2.0, "fan_in", "uniform"


class HeNormal(_FixedVarianceScaling):
    """Truncated normal with stddev ``sqrt(2 / fan_in) / 0.8796...``.

    Parameters
    ----------
    seed : int, tapers.random.Generator or None
        See the module notes on seeds.
    input_axes, output_axes : sequence of int, optional
        Axes for the fans (see :func:`compute_fans`).
    """

    _scale, _mode, _distribution = 2.0, "fan_in", "truncated_normal"


class LecunUniform(_FixedVarianceScaling):
    """Uniform in ``±sqrt(3 / fan_in)``.

    Parameters
    ----------
    seed : int, tapers.random.Generator or None
        See the module notes on seeds.
    input_axes, output_axes : sequence of int, optional
        Axes for the fans (see :func:`compute_fans`).
    """

    _mode, _distribution = "fan_in", "uniform"


class LecunNormal(_FixedVarianceScaling):
    """Truncated normal with stddev ``sqrt(1 / fan_in) / 0.8796...``.

    Parameters
    ----------
    seed : int, tapers.random.Generator or None
        See the module notes on seeds.
    input_axes, output_axes : sequence of int, optional
        Axes for the fans (see :func:`compute_fans`).
    """

    _mode, _distribution = "fan_in", "truncated_normal"


class Orthogonal(RandomInitializer):
    """A (semi-)orthogonal matrix times ``gain``: the Q of a QR factorization of a normal draw, signs fixed by R's
    diagonal, reshaped to ``shape`` (rank at least 2; leading dimensions are flattened into rows).

    Parameters
    ----------
    gain : float
        Multiplier of the result.
    seed : int, tapers.random.Generator or None
        See the module notes on seeds.
    """

    def __init__(self, gain: float = 1.0, seed: int | Generator | None = None):
        self.gain = gain
        super().__init__(seed=seed)

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        """A ``shape`` tensor of ``dtype`` (``floatx()`` by default)."""
        dims = _shape(shape)
        if len(dims) < 2:
            raise ValueError(
                f"The tensor to initialize must be at least two-dimensional. Received: shape={tuple(dims)} "
                f"of rank {len(dims)}."
            )
        rows, cols = math.prod(dims[:-1]), dims[-1]
        flat = (max(rows, cols), min(rows, cols))
        a = self._generator().normal(list(flat), dtype="float64").numpy()
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return _core.constant((self.gain * q).reshape(dims), dtype=_dtype(dtype))

    def get_config(self) -> dict[str, Any]:
        """``seed`` and ``gain``."""
        return {**super().get_config(), "gain": self.gain}


class Zeros(Initializer):
    """All zeros.

    Methods
    -------
    __call__(shape, dtype=None)
        Returns a new tensor of ``shape``.
    """

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        """A ``shape`` tensor of ``dtype`` (``floatx()`` by default)."""
        return _core.zeros(_shape(shape), dtype=_dtype(dtype))


class Ones(Initializer):
    """All ones.

    Methods
    -------
    __call__(shape, dtype=None)
        Returns a new tensor of ``shape``.
    """

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        """A ``shape`` tensor of ``dtype`` (``floatx()`` by default)."""
        return _core.ones(_shape(shape), dtype=_dtype(dtype))


class Constant(Initializer):
    """Every element ``value`` (a scalar, or an array broadcast to the shape).

    Parameters
    ----------
    value : float or array-like
        The value every element takes (broadcast to the shape).
    """

    def __init__(self, value: Any = 0.0):
        self.value = value

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        """A ``shape`` tensor of ``dtype`` (``floatx()`` by default)."""
        dt = _dtype(dtype)
        return _core.cast(_core.convert_to_tensor(self.value), dt) * _core.ones(_shape(shape), dtype=dt)

    def get_config(self) -> dict[str, Any]:
        """``value``."""
        return {"value": self.value}


class Identity(Initializer):
    """``gain`` times the identity matrix (2-D shapes only; rectangular ones are padded with zeros).

    Parameters
    ----------
    gain : float
        Multiplier of the result.
    """

    def __init__(self, gain: float = 1.0):
        self.gain = gain

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        """A ``shape`` tensor of ``dtype`` (``floatx()`` by default)."""
        dims = _shape(shape)
        if len(dims) != 2:
            raise ValueError(
                "Identity matrix initializer can only be used for 2D matrices. "
                f"Received: shape={tuple(dims)} of rank {len(dims)}."
            )
        dt = _dtype(dtype)
        return _core.constant(self.gain, dtype=dt) * _core.eye(dims[0], dims[1], dtype=dt)

    def get_config(self) -> dict[str, Any]:
        """``gain``."""
        return {"gain": self.gain}


# --------------------------------------------------------------------------- lookup


def _snake(name: str) -> str:
    from .losses import _to_snake_case

    return _to_snake_case(name)


_CLASSES: list[type[Initializer]] = [
    Initializer, Constant, Identity, Ones, Zeros, GlorotNormal, GlorotUniform, HeNormal, HeUniform, LecunNormal,
    LecunUniform, Orthogonal, RandomNormal, RandomUniform, TruncatedNormal, VarianceScaling,
]  # fmt: skip
# Keras' lower-case names of the classes (``keras.initializers.glorot_uniform()`` etc.).
constant = Constant
glorot_normal = GlorotNormal
glorot_uniform = GlorotUniform
he_normal = HeNormal
he_uniform = HeUniform
identity = IdentityInitializer = Identity
lecun_normal = LecunNormal
lecun_uniform = LecunUniform
ones = Ones
orthogonal = OrthogonalInitializer = Orthogonal
random_normal = RandomNormal
random_uniform = RandomUniform
truncated_normal = TruncatedNormal
variance_scaling = VarianceScaling
zeros = Zeros

_BY_NAME: dict[str, type[Initializer]] = {c.__name__: c for c in _CLASSES}
_BY_NAME.update({_snake(c.__name__): c for c in _CLASSES})
_BY_NAME.update(
    {
        "IdentityInitializer": Identity,
        "normal": RandomNormal,
        "one": Ones,
        "OrthogonalInitializer": Orthogonal,
        "uniform": RandomUniform,
        "zero": Zeros,
    }
)


def serialize(initializer: Initializer) -> dict[str, Any]:
    """``{"class_name", "config"}`` of an initializer.

    Parameters
    ----------
    initializer : Initializer
        The initializer to serialize.

    Returns
    -------
    dict
        ``{"class_name": ..., "config": ...}``.
    """
    return to_config(initializer)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """Inverse of :func:`serialize`; a bare name gives a default instance.

    Parameters
    ----------
    config : str or dict
        A serialized form.
    custom_objects : dict, optional
        Extra names to resolve.

    Returns
    -------
    Initializer
        A new initializer.
    """
    obj = from_table(config, _BY_NAME, custom_objects, "initializer")
    # A bare name gives a new instance (a dict was read by `from_config` already).
    return obj() if isinstance(config, str) else obj


def get(identifier: Any) -> Any:
    """Resolves an initializer (``keras.initializers.get``).

    A name (``"glorot_uniform"``, ``"GlorotUniform"``, ``"zeros"``) or a class
    gives a new instance; a serialized dict is deserialized; a tensor or numpy
    array gives an initializer that returns it (for exactly its shape); a
    callable ``fn(shape, dtype=None)`` is kept; None gives None.

    Parameters
    ----------
    identifier : None, str, dict, Initializer class, tensor, array or callable
        What to resolve.

    Returns
    -------
    Initializer, callable or None
        Something called as ``init(shape, dtype=None)``.

    Raises
    ------
    ValueError
        For an unknown name or an object that is none of the above.
    """
    if identifier is None:
        return None
    if isinstance(identifier, (Tensor, np.ndarray, np.generic)):
        value = identifier

        def initialize_fn(shape: Any, dtype: Any = None) -> Tensor:
            if tuple(_shape(shape)) != tuple(int(d) for d in value.shape):
                raise ValueError(
                    f"Expected `shape` to be {tuple(value.shape)} for direct tensor as initializer. "
                    f"Received shape={tuple(_shape(shape))}"
                )
            return _core.cast(_core.convert_to_tensor(value), _dtype(dtype))

        return initialize_fn
    return resolve(identifier, _BY_NAME, "initializer", deserialize)
