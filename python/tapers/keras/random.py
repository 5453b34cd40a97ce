"""``keras.random``: Keras 3's random ops, written with tapers' stateless random ops.

Seeds follow Keras 3: an int ``seed`` gives the same values on every call (a
fixed stateless seed ``[seed, 0]``); a :class:`SeedGenerator` gives a new
draw on each call and the same sequence of draws for the same initial seed
(its state is a ``tapers.Variable``, so this also holds inside
``tapers.function``); ``seed=None`` draws from a global ``SeedGenerator``.

Differences from Keras: the values come from tapers' own streams, so a seed
gives different numbers than Keras/TensorFlow (distributions, shapes and
dtypes match). ``gamma`` uses Marsaglia-Tsang rejection with a fixed number of
vectorised proposal rounds (16; the chance that an element is still unaccepted
is below 1e-20) and ``binomial`` sums ``max(counts)`` Bernoulli draws, so
``counts`` must be concrete (known when the op runs).
"""

from __future__ import annotations

import random as _pyrandom
import threading
from typing import Any

import numpy as np

__all__ = [
    "SeedGenerator", "beta", "binomial", "categorical", "dropout", "gamma", "normal", "randint", "shuffle",
    "truncated_normal", "uniform",
]  # fmt: skip


def _tf() -> Any:
    import tapers

    return tapers


_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _float_dtype(dtype: Any, name: str) -> str:
    tf = _tf()
    d = "float32" if dtype is None else tf.as_dtype(dtype).name
    if d not in _FLOATS:
        raise ValueError(f"keras.random.{name}: dtype must be a float dtype, got {d}")
    return str(d)


def _shape(shape: Any) -> list[int]:
    if isinstance(shape, int):
        return [shape]
    out = [int(s) for s in shape]
    if any(s < 0 for s in out):
        raise ValueError(f"keras.random: negative dimension in shape {tuple(out)}")
    return out


class SeedGenerator:
    """A stateful seed: each :meth:`next` returns a new stateless seed, deterministic given ``seed``.

    Parameters
    ----------
    seed : int or None
        Initial seed; ``None`` picks a random one.
    name : str or None
        Name (kept for ``get_config``).
    **kwargs :
        ``state`` (an existing state variable, as Keras allows) is not supported.

    Attributes
    ----------
    state : tapers.Variable
        The int64 ``[seed, counter]`` pair; ``next`` increments the counter.
    """

    def __init__(self, seed: int | None = None, name: str | None = None, **kwargs: Any) -> None:
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments: {sorted(kwargs)}")
        if seed is None:
            seed = _pyrandom.randint(1, int(1e9))
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise ValueError(f"Argument `seed` must be an integer. Received: seed={seed!r}")
        self._initial_seed = int(seed)
        self.name = name or "seed_generator"
        tf = _tf()
        self.state = tf.Variable(np.array([int(seed), 0], dtype=np.int64), trainable=False)

    def next(self, ordered: bool = True) -> Any:
        """Returns the current ``[seed, counter]`` seed and advances the counter.

        Parameters
        ----------
        ordered : bool
            Accepted for Keras compatibility (draws are always ordered here).

        Returns
        -------
        Tensor
            An int64 tensor of shape ``(2,)`` usable as a stateless seed.
        """
        tf = _tf()
        current = tf.identity(tf.convert_to_tensor(self.state))
        self.state.assign_add(tf.constant(np.array([0, 1], dtype=np.int64)))
        return current

    def get_config(self) -> dict[str, Any]:
        """The generator's configuration.

        Returns
        -------
        dict
            ``{"seed": initial seed}``.
        """
        return {"seed": self._initial_seed}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> SeedGenerator:
        """A generator from :meth:`get_config`'s output.

        Parameters
        ----------
        config : dict
            As returned by ``get_config``.

        Returns
        -------
        SeedGenerator
            A new generator with the same initial seed.
        """
        return cls(**config)


_global_lock = threading.Lock()
_global_gen: SeedGenerator | None = None


def _global() -> SeedGenerator:
    global _global_gen
    with _global_lock:
        if _global_gen is None:
            _global_gen = SeedGenerator()
        return _global_gen


def _draw_seed(seed: Any) -> Any:
    tf = _tf()
    if isinstance(seed, SeedGenerator):
        return seed.next()
    if seed is None:
        return _global().next()
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return tf.constant(np.array([int(seed), 0], dtype=np.int64))
    if tf.is_tensor(seed) or isinstance(seed, (list, tuple, np.ndarray)):
        s = tf.convert_to_tensor(seed)
        if tuple(s.shape) != (2,):
            raise ValueError(f"A seed tensor must have shape (2,), got {tuple(s.shape)}")
        return s
    raise ValueError(
        f"Argument `seed` must be either an integer or an instance of `SeedGenerator`. Received: seed={seed!r}"
    )


def normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = None, seed: Any = None) -> Any:
    """Samples from a normal distribution.

    Parameters
    ----------
    shape : tuple of int
        Shape of the result.
    mean, stddev : float
        The distribution's mean and standard deviation.
    dtype : dtype or None
        A float dtype (default float32).
    seed : int, SeedGenerator or None
        See the module notes.

    Returns
    -------
    Tensor
        ``shape`` normal samples.
    """
    tf = _tf()
    d = _float_dtype(dtype, "normal")
    z = tf.random.stateless_normal(_shape(shape), seed=_draw_seed(seed), dtype="float32")
    return tf.cast(z * tf.cast(stddev, "float32") + tf.cast(mean, "float32"), d)


def truncated_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = None, seed: Any = None) -> Any:
    """Samples from a normal distribution truncated to two standard deviations.

    Parameters
    ----------
    shape : tuple of int
        Shape of the result.
    mean, stddev : float
        Mean and standard deviation before truncation.
    dtype : dtype or None
        A float dtype (default float32).
    seed : int, SeedGenerator or None
        See the module notes.

    Returns
    -------
    Tensor
        Samples within ``mean +- 2 * stddev``.
    """
    tf = _tf()
    d = _float_dtype(dtype, "truncated_normal")
    z = tf.random.stateless_truncated_normal(_shape(shape), seed=_draw_seed(seed), dtype="float32")
    return tf.cast(z * tf.cast(stddev, "float32") + tf.cast(mean, "float32"), d)


def uniform(shape: Any, minval: Any = 0.0, maxval: Any = 1.0, dtype: Any = None, seed: Any = None) -> Any:
    """Samples uniformly from ``[minval, maxval)``.

    Parameters
    ----------
    shape : tuple of int
        Shape of the result.
    minval, maxval : float
        The range.
    dtype : dtype or None
        A float dtype (default float32); use :func:`randint` for integers.
    seed : int, SeedGenerator or None
        See the module notes.

    Returns
    -------
    Tensor
        Uniform samples.
    """
    tf = _tf()
    if dtype is not None and tf.as_dtype(dtype).name not in _FLOATS:
        raise ValueError(
            "`keras.random.uniform` requires a floating point `dtype`. Received: "
            f"dtype={tf.as_dtype(dtype).name}. Use `keras.random.randint` for integer samples."
        )
    d = _float_dtype(dtype, "uniform")
    u = tf.random.stateless_uniform(_shape(shape), seed=_draw_seed(seed), dtype="float32")
    lo, hi = tf.cast(minval, "float32"), tf.cast(maxval, "float32")
    return tf.cast(lo + u * (hi - lo), d)


def randint(shape: Any, minval: Any, maxval: Any, dtype: Any = "int32", seed: Any = None) -> Any:
    """Samples integers uniformly from ``[minval, maxval)``.

    Parameters
    ----------
    shape : tuple of int
        Shape of the result.
    minval, maxval : int
        The range (``maxval`` excluded).
    dtype : dtype
        An integer dtype (default int32).
    seed : int, SeedGenerator or None
        See the module notes.

    Returns
    -------
    Tensor
        Integer samples.
    """
    tf = _tf()
    d = tf.as_dtype(dtype).name
    if d in _FLOATS or d == "bool":
        raise ValueError(f"`keras.random.randint` requires an integer `dtype`. Received: dtype={d}")
    if not maxval > minval:
        raise ValueError(f"keras.random.randint: maxval ({maxval}) must be greater than minval ({minval})")
    out = tf.random.stateless_uniform(_shape(shape), seed=_draw_seed(seed), minval=int(minval), maxval=int(maxval),
                                      dtype="int64")  # fmt: skip
    return tf.cast(out, d)


def dropout(inputs: Any, rate: float, noise_shape: Any = None, seed: Any = None) -> Any:
    """Zeroes elements with probability ``rate`` and scales the rest by ``1 / (1 - rate)``.

    Parameters
    ----------
    inputs : Tensor
        Input tensor.
    rate : float
        Drop probability in ``[0, 1)``.
    noise_shape : tuple or None
        Shape of the keep mask (broadcast against ``inputs``; ``None`` entries take the input's size).
    seed : int, SeedGenerator or None
        See the module notes.

    Returns
    -------
    Tensor
        The dropped-out tensor.
    """
    tf = _tf()
    x = tf.convert_to_tensor(inputs)
    if not 0 <= rate < 1:
        raise ValueError(f"keras.random.dropout: rate must be in [0, 1), got {rate}")
    shp = [int(s) for s in x.shape]
    if noise_shape is not None:
        shp = [shp[i] if s is None else int(s) for i, s in enumerate(noise_shape)]
    u = tf.random.stateless_uniform(shp, seed=_draw_seed(seed), dtype="float32")
    keep = tf.broadcast_to(u >= rate, tf.shape(x))
    scale = tf.cast(1.0 / (1.0 - rate), x.dtype)
    return tf.where(keep, x * scale, tf.zeros_like(x))


def shuffle(x: Any, axis: int = 0, seed: Any = None) -> Any:
    """Randomly permutes ``x`` along ``axis``.

    Parameters
    ----------
    x : Tensor
        Input tensor.
    axis : int
        The axis to shuffle.
    seed : int, SeedGenerator or None
        See the module notes.

    Returns
    -------
    Tensor
        ``x`` with its slices along ``axis`` in a random order.
    """
    tf = _tf()
    x = tf.convert_to_tensor(x)
    n = int(x.shape[axis])
    keys = tf.random.stateless_uniform([n], seed=_draw_seed(seed), dtype="float32")
    perm = tf.argsort(keys)
    return tf.gather(x, perm, axis=axis)


def categorical(logits: Any, num_samples: int, dtype: Any = "int32", seed: Any = None) -> Any:
    """Samples class indices from unnormalized log-probabilities.

    Parameters
    ----------
    logits : Tensor
        ``(batch, num_classes)`` logits.
    num_samples : int
        Samples per row.
    dtype : dtype
        Integer dtype of the result (default int32).
    seed : int, SeedGenerator or None
        See the module notes.

    Returns
    -------
    Tensor
        ``(batch, num_samples)`` class indices.
    """
    tf = _tf()
    lg = tf.convert_to_tensor(logits)
    if len(lg.shape) != 2:
        raise ValueError(
            f"`logits` should be a 2-D tensor with shape [batch_size, num_classes]. Received: {tuple(lg.shape)}"
        )
    out = tf.random.stateless_categorical(tf.cast(lg, "float32"), int(num_samples), seed=_draw_seed(seed))
    return tf.cast(out, tf.as_dtype(dtype).name)


def _gamma(shape: list[int], alpha: Any, seed: Any) -> Any:
    tf = _tf()
    base = _draw_seed(seed)
    a = tf.broadcast_to(tf.cast(alpha, "float32"), shape)
    small = a < 1.0
    a1 = tf.where(small, a + 1.0, a)
    d = a1 - 1.0 / 3.0
    c = 1.0 / tf.sqrt(9.0 * d)
    result = tf.zeros(shape, dtype="float32")
    done = tf.cast(tf.zeros(shape), "bool")
    for r in range(16):
        s1 = base + tf.constant(np.array([7919 * (r + 1), 2 * r + 1], dtype=np.int64))
        s2 = base + tf.constant(np.array([104729 * (r + 1), 2 * r + 2], dtype=np.int64))
        z = tf.random.stateless_normal(shape, seed=s1)
        u = tf.random.stateless_uniform(shape, seed=s2)
        v = tf.pow(1.0 + c * z, 3.0)
        ok = tf.logical_and(
            v > 0, tf.math.log(tf.maximum(u, 1e-30)) < 0.5 * z * z + d - d * v + d * tf.math.log(tf.maximum(v, 1e-30))
        )
        take = tf.logical_and(ok, tf.logical_not(done))
        result = tf.where(take, d * v, result)
        done = tf.logical_or(done, ok)
    u = tf.random.stateless_uniform(shape, seed=base + tf.constant(np.array([31, 999], dtype=np.int64)))
    boost = tf.pow(tf.maximum(u, 1e-30), 1.0 / tf.where(small, a, tf.ones_like(a)))
    return tf.where(small, result * boost, result)


def gamma(shape: Any, alpha: Any, dtype: Any = None, seed: Any = None) -> Any:
    """Samples from a gamma distribution with shape ``alpha`` and scale 1.

    Parameters
    ----------
    shape : tuple of int
        Shape of the result.
    alpha : float or Tensor
        The concentration (> 0), broadcast to ``shape``.
    dtype : dtype or None
        A float dtype (default float32).
    seed : int, SeedGenerator or None
        See the module notes.

    Returns
    -------
    Tensor
        Gamma samples.
    """
    d = _float_dtype(dtype, "gamma")
    return _tf().cast(_gamma(_shape(shape), alpha, seed), d)


def beta(shape: Any, alpha: Any, beta: Any, dtype: Any = None, seed: Any = None) -> Any:
    """Samples from a beta distribution (``X / (X + Y)`` for gamma ``X``, ``Y``).

    Parameters
    ----------
    shape : tuple of int
        Shape of the result.
    alpha, beta : float or Tensor
        The two concentrations (> 0), broadcast to ``shape``.
    dtype : dtype or None
        A float dtype (default float32).
    seed : int, SeedGenerator or None
        See the module notes.

    Returns
    -------
    Tensor
        Samples in ``[0, 1]``.
    """
    tf = _tf()
    d = _float_dtype(dtype, "beta")
    base = _draw_seed(seed)
    shp = _shape(shape)
    x = _gamma(shp, alpha, base)
    y = _gamma(shp, beta, base + tf.constant(np.array([1, 7777], dtype=np.int64)))
    return tf.cast(x / (x + y), d)


def binomial(shape: Any, counts: Any, probabilities: Any, dtype: Any = None, seed: Any = None) -> Any:
    """Samples the number of successes in ``counts`` trials of probability ``probabilities``.

    Parameters
    ----------
    shape : tuple of int
        Shape of the result.
    counts : float or Tensor
        Number of trials (concrete, broadcast to ``shape``).
    probabilities : float or Tensor
        Success probability, broadcast to ``shape``.
    dtype : dtype or None
        A float dtype (default float32), as Keras.
    seed : int, SeedGenerator or None
        See the module notes.

    Returns
    -------
    Tensor
        Success counts, as floats.
    """
    tf = _tf()
    d = _float_dtype(dtype, "binomial")
    shp = _shape(shape)
    n = tf.broadcast_to(tf.cast(counts, "float32"), shp)
    p = tf.broadcast_to(tf.cast(probabilities, "float32"), shp)
    max_n = int(np.max(np.asarray(n.numpy()))) if int(np.prod(shp)) else 0
    if max_n < 0:
        raise ValueError(f"keras.random.binomial: counts must be non-negative, got max {max_n}")
    u = tf.random.stateless_uniform(shp + [max_n], seed=_draw_seed(seed), dtype="float32")
    trial = tf.cast(tf.range(max_n), "float32")
    hit = tf.logical_and(u < tf.expand_dims(p, -1), trial < tf.expand_dims(n, -1))
    return tf.cast(tf.reduce_sum(tf.cast(hit, "float32"), axis=-1), d)
