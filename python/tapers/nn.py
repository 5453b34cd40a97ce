"""``tapers.nn``: neural-network functions, as ``tf.nn``."""

from __future__ import annotations

from typing import Any

from . import _core, random
from ._core import Tensor
from ._core.nn import *  # noqa: F403
from ._core.nn import __all__ as __all__
from ._core.nn import avg_pool2d, max_pool2d, silu

swish = silu
max_pool = max_pool2d
avg_pool = avg_pool2d


def dropout(x: Any, rate: float, noise_shape: Any = None, seed: int | None = None, name: Any = None) -> Tensor:
    """Zeroes elements with probability ``rate`` and scales the rest by ``1 / (1 - rate)``.

    Parameters
    ----------
    x : Tensor-like
        Floating values.
    rate : float
        Probability of dropping each element, in ``[0, 1)``.
    noise_shape : sequence of int, optional
        Shape of the keep mask, broadcast against ``x`` (shared masks).
    seed : int, optional
        Op-level seed (see ``tapers.random``).
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        Differentiable: the gradient is the same mask and scale.

    Notes
    -----
    Differs from TensorFlow only in the random stream (see ``tapers.random``).
    """
    t = _core.convert_to_tensor(x)
    rate = float(rate)
    if not 0.0 <= rate < 1.0:
        raise ValueError(f"rate must be a scalar tensor or a float in the range [0, 1), got {rate}")
    if rate == 0.0:
        return _core.identity(t)
    shape = list(t.shape) if noise_shape is None else [int(d) for d in noise_shape]
    keep = random._keep_mask(shape, 1.0 - rate, seed)
    if list(keep.shape) != list(t.shape):
        keep = _core.cast(_core.broadcast_to(_core.cast(keep, "int32"), list(t.shape)), "bool")
    return _core.nn._dropout_with_mask(t, keep, rate)


__all__ = [*__all__, "avg_pool", "dropout", "max_pool", "swish"]
