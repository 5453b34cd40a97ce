"""Learning-rate schedules, as ``keras.optimizers.schedules``."""

from __future__ import annotations

import math


class LearningRateSchedule:
    """A callable ``step -> learning rate`` (``keras.optimizers.schedules``).

    Parameters
    ----------
    step : int
        The optimizer's ``iterations`` when the rate is used.

    Returns
    -------
    float
        The learning rate for that step.
    """

    def __call__(self, step: int) -> float:  # pragma: no cover - abstract
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

    def __call__(self, step: int) -> float:
        p = float(step) / self.decay_steps
        if self.staircase:
            p = math.floor(p)
        return self.initial_learning_rate * self.decay_rate**p


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

    def _decay(self, step: float, lr: float) -> float:
        frac = min(step, self.decay_steps) / self.decay_steps
        cosine = 0.5 * (1.0 + math.cos(math.pi * frac))
        return lr * ((1 - self.alpha) * cosine + self.alpha)

    def __call__(self, step: int | float) -> float:
        step = float(step)
        if self.warmup_target is None:
            return self._decay(step, self.initial_learning_rate)
        if step < self.warmup_steps:
            done = step / self.warmup_steps
            return self.initial_learning_rate + done * (self.warmup_target - self.initial_learning_rate)
        return self._decay(step - self.warmup_steps, self.warmup_target)


__all__ = ["CosineDecay", "ExponentialDecay", "LearningRateSchedule"]
