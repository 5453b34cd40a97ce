"""Learning-rate schedules, as ``keras.optimizers.schedules``.

A schedule is evaluated with tensor ops, in float32, on the optimizer's ``iterations``
(a tensor), as Keras 3 does: inside ``tapers.function`` the step's graph then computes
each call's rate from the counter it reads, instead of reading it into Python.
"""

from __future__ import annotations

import math
from typing import Any

from .. import _core


def _f32(v: Any) -> Any:
    """``v`` (a Python number or a tensor of any real dtype) as a float32 tensor."""
    return _core.cast(_core.convert_to_tensor(v), "float32")


class LearningRateSchedule:
    """A callable ``step -> learning rate`` (``keras.optimizers.schedules``).

    Parameters
    ----------
    step : int or Tensor
        The optimizer's ``iterations`` when the rate is used.

    Returns
    -------
    Tensor
        The learning rate for that step (a float32 scalar for the built-in
        schedules; a subclass may return a Python float too).
    """

    def __call__(self, step: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError


class ExponentialDecay(LearningRateSchedule):
    """``initial * decay_rate ** (step / decay_steps)``.

    Parameters
    ----------
    initial_learning_rate : float
        The rate at step 0.
    decay_steps : int
        Steps per factor of ``decay_rate`` (> 0).
    decay_rate : float
        The factor.
    staircase : bool, default False
        Floor the exponent, decaying in steps.
    name : str, optional
        The schedule's name.
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        decay_rate: float,
        staircase: bool = False,
        name: str = "ExponentialDecay",
    ) -> None:
        if decay_steps <= 0:
            raise ValueError(f"Argument `decay_steps` must be > 0. Received: decay_steps={decay_steps}")
        self.initial_learning_rate = float(initial_learning_rate)
        self.decay_steps = decay_steps
        self.decay_rate = float(decay_rate)
        self.staircase = staircase
        self.name = name

    def __call__(self, step: Any) -> Any:
        # Keras 3's float32 ops, in its order.
        p = _f32(step) / _f32(self.decay_steps)
        if self.staircase:
            p = _core.floor(p)
        return _f32(self.initial_learning_rate) * _core.pow(_f32(self.decay_rate), p)


class CosineDecay(LearningRateSchedule):
    """Cosine decay from ``initial_learning_rate`` to ``alpha * initial`` over
    ``decay_steps``, after an optional linear warmup (Keras 3's formula).

    Parameters
    ----------
    initial_learning_rate : float
        The rate at the start of the decay.
    decay_steps : int
        Length of the decay (> 0).
    alpha : float, default 0.0
        Final rate as a fraction of the initial one.
    name : str, optional
        The schedule's name.
    warmup_target : float, optional
        If set, a linear warmup from ``initial_learning_rate`` to this rate
        first, and the decay starts from it.
    warmup_steps : int, default 0
        Length of the warmup.
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        alpha: float = 0.0,
        name: str = "CosineDecay",
        warmup_target: float | None = None,
        warmup_steps: int = 0,
    ) -> None:
        if decay_steps <= 0:
            raise ValueError(f"Argument `decay_steps` must be > 0. Received: decay_steps={decay_steps}")
        self.initial_learning_rate = float(initial_learning_rate)
        self.decay_steps = decay_steps
        self.alpha = float(alpha)
        self.name = name
        self.warmup_target = warmup_target
        self.warmup_steps = warmup_steps

    def _decay(self, step: Any, decay_steps: Any, lr: Any) -> Any:
        completed = step / decay_steps
        cosine = 0.5 * (1.0 + _core.cos(_f32(math.pi) * completed))
        return lr * ((1 - self.alpha) * cosine + self.alpha)

    def __call__(self, step: Any) -> Any:
        # Keras 3's float32 ops, in its order; the warmup/decay choice is a
        # `where` over both (Keras: `cond`), whose chosen value is the same.
        initial = _f32(self.initial_learning_rate)
        decay_steps = _f32(self.decay_steps)
        step = _f32(step)
        if self.warmup_target is None:
            return self._decay(_core.minimum(step, decay_steps), decay_steps, initial)
        target, warmup_steps = _f32(self.warmup_target), _f32(self.warmup_steps)
        step = _core.minimum(step, decay_steps + warmup_steps)
        warm = (target - initial) * (step / warmup_steps) + initial
        decayed = self._decay(step - warmup_steps, decay_steps, target)
        return _core.where(step < warmup_steps, warm, decayed)


__all__ = ["CosineDecay", "ExponentialDecay", "LearningRateSchedule"]
