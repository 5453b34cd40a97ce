"""Learning-rate schedules, as ``keras.optimizers.schedules``."""

from __future__ import annotations

import math


class LearningRateSchedule:
    """A callable ``step -> learning rate``."""

    def __call__(self, step: int) -> float:  # pragma: no cover - abstract
        raise NotImplementedError


class ExponentialDecay(LearningRateSchedule):
    """``initial * decay_rate ** (step / decay_steps)`` (floored exponent if ``staircase``)."""

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
    ``decay_steps``, after an optional linear warmup (Keras 3's formula)."""

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
