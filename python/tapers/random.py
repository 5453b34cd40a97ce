"""``tapers.random``: seeded random tensors, with TensorFlow's seed rules.

* ``set_seed(s)`` makes every later random op reproducible across runs.
* An op-level ``seed`` makes that op reproducible; repeated calls with the
  same seed continue one stream (as TF), so they differ from each other.
* With neither, values come from the operating system's entropy.

The streams are tapers' own (PCG64); they do not reproduce TensorFlow's numbers.
"""

from __future__ import annotations

import threading
from typing import Any

from ._core import Tensor, convert_to_tensor, gather
from ._core.random import *  # noqa: F403
from ._core.random import Generator
from ._core.random import __all__ as __all__
from .dtypes import float32

__all__ = [*__all__, "get_global_generator", "normal", "set_seed", "shuffle", "truncated_normal", "uniform"]

_DEFAULT_GRAPH_SEED = 87654321
_lock = threading.Lock()
_global_seed: int | None = None
_op_count = 0
_streams: dict[tuple[int, int], Generator] = {}
_entropy = Generator.from_non_deterministic_state()


def set_seed(seed: int | None) -> None:
    """Sets the global seed (``tf.random.set_seed``); ``None`` clears it.

    Parameters
    ----------
    seed : int or None
        The global seed. Setting it also restarts the count of unseeded ops,
        so a program re-run from ``set_seed`` draws the same numbers.

    Notes
    -----
    Differences from TensorFlow: the seed rules are TensorFlow's, but the
    streams are tapers' own (PCG64), so a seed gives different numbers than
    in TensorFlow.
    """
    global _global_seed, _op_count
    with _lock:
        _global_seed = None if seed is None else int(seed)
        _op_count = 0
        _streams.clear()


def get_global_generator() -> Generator:
    """The generator used for unseeded draws.

    Returns
    -------
    Generator
        The stream for the current global seed (OS entropy when unset).
    """
    return _stream(None)


def _stream(seed: int | None) -> Generator:
    global _op_count
    with _lock:
        if seed is None and _global_seed is None:
            return _entropy
        g = _DEFAULT_GRAPH_SEED if _global_seed is None else _global_seed
        if seed is None:
            _op_count += 1
            seed = _op_count
        key = (g, int(seed))
        if key not in _streams:
            _streams[key] = Generator.from_seed(((g & 0xFFFFFFFF) << 32 | (int(seed) & 0xFFFFFFFF)) & (2**64 - 1))
        return _streams[key]


def normal(
    shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = float32, seed: int | None = None, name: Any = None
) -> Tensor:
    """Samples from a normal distribution.

    Parameters
    ----------
    shape : sequence of int
        Shape of the result.
    mean, stddev : float, default 0.0, 1.0
        Mean and standard deviation.
    dtype : DType, default float32
        Floating dtype of the result.
    seed : int, optional
        Op-level seed, combined with the global seed by TensorFlow's rules:
        both unset draws from OS entropy; either set gives a repeatable stream.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        A constant (not recorded on tapes).

    Notes
    -----
    Differences from TensorFlow: the seed rules are TensorFlow's, but the
    streams are tapers' own (PCG64), so a seed gives different numbers than
    in TensorFlow.
    """
    return _stream(seed).normal(shape, float(mean), float(stddev), dtype)


def truncated_normal(
    shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = float32, seed: int | None = None, name: Any = None
) -> Tensor:
    """Normal samples, redrawn when more than two standard deviations from the mean.

    Parameters
    ----------
    shape : sequence of int
        Shape of the result.
    mean, stddev : float, default 0.0, 1.0
        Mean and standard deviation before truncation.
    dtype : DType, default float32
        Floating dtype of the result.
    seed : int, optional
        Op-level seed, combined with the global seed by TensorFlow's rules:
        both unset draws from OS entropy; either set gives a repeatable stream.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        A constant (not recorded on tapes).

    Notes
    -----
    Differences from TensorFlow: the seed rules are TensorFlow's, but the
    streams are tapers' own (PCG64), so a seed gives different numbers than
    in TensorFlow.
    """
    return _stream(seed).truncated_normal(shape, float(mean), float(stddev), dtype)


def uniform(
    shape: Any,
    minval: float = 0,
    maxval: float | None = None,
    dtype: Any = float32,
    seed: int | None = None,
    name: Any = None,
) -> Tensor:
    """Samples uniformly from ``[minval, maxval)``.

    Parameters
    ----------
    shape : sequence of int
        Shape of the result.
    minval, maxval : float
        Bounds; ``maxval`` defaults to 1 for floats and is required for integers.
    dtype : DType, default float32
        Dtype of the result (float or integer).
    seed : int, optional
        Op-level seed, combined with the global seed by TensorFlow's rules:
        both unset draws from OS entropy; either set gives a repeatable stream.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        A constant (not recorded on tapes).

    Notes
    -----
    Differences from TensorFlow: the seed rules are TensorFlow's, but the
    streams are tapers' own (PCG64), so a seed gives different numbers than
    in TensorFlow.
    """
    return _stream(seed).uniform(shape, float(minval), None if maxval is None else float(maxval), dtype)


def shuffle(value: Any, seed: int | None = None, name: Any = None) -> Tensor:
    """Randomly shuffles a tensor along its first dimension.

    Parameters
    ----------
    value : Tensor-like
        At least rank 1.
    seed : int, optional
        Op-level seed, combined with the global seed by TensorFlow's rules:
        both unset draws from OS entropy; either set gives a repeatable stream.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``value`` with its rows permuted (recorded as a gather, so gradients
        flow back to the right rows).

    Notes
    -----
    Differences from TensorFlow: the seed rules are TensorFlow's, but the
    streams are tapers' own (PCG64), so a seed gives different numbers than
    in TensorFlow.
    """
    t = convert_to_tensor(value)
    return gather(t, _stream(seed).permutation(int(t.shape[0])))


def _keep_mask(shape: Any, keep: float, seed: int | None) -> Tensor:
    return _stream(seed).bernoulli(shape, keep)


# Issue 20: categorical and the stateless samplers (python/tapers/_nn_extra.py).
from ._nn_extra import (  # noqa: E402
    categorical,
    fold_in,
    split,
    stateless_categorical,
    stateless_normal,
    stateless_truncated_normal,
    stateless_uniform,
)

__all__ += ["categorical", "stateless_categorical", "stateless_normal", "stateless_truncated_normal"]
__all__ += ["stateless_uniform", "fold_in", "split"]
