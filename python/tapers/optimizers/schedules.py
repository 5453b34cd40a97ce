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

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments, with Keras 3's keys (``from_config`` rebuilds the schedule).

        Returns
        -------
        dict
        """
        import inspect

        return {
            name: getattr(self, name)
            for name in inspect.signature(type(self).__init__).parameters
            if name != "self" and hasattr(self, name)
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        """The schedule :meth:`get_config` describes.

        Parameters
        ----------
        config : dict

        Returns
        -------
        LearningRateSchedule
        """
        return cls(**config)


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


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[0]`` up to ``boundaries[0]``, ``values[1]`` up to ``boundaries[1]``, ..., ``values[-1]`` after.

    Parameters
    ----------
    boundaries : list of int
        Increasing step boundaries (a step equal to a boundary takes the value before it).
    values : list of float
        One more than ``boundaries``.
    name : str, optional
        The schedule's name.
    """

    def __init__(self, boundaries: Any, values: Any, name: str = "PiecewiseConstant") -> None:
        if len(boundaries) != len(values) - 1:
            raise ValueError(
                "The length of boundaries should be 1 less than the length of values. Received: "
                f"boundaries={boundaries} of length {len(boundaries)}, and values={values} of length {len(values)}."
            )
        self.boundaries = boundaries
        self.values = values
        self.name = name

    def __call__(self, step: Any) -> Any:
        # Keras 3: a sum of masked values, in the values' dtype (float32 for Python floats).
        step = _core.convert_to_tensor(step)
        values = [_core.convert_to_tensor(v) for v in self.values]
        dt = values[0].dtype
        bounds = [_core.cast(_core.convert_to_tensor(b), step.dtype) for b in self.boundaries]
        out = _core.cast(step <= bounds[0], dt) * values[0]
        out = out + _core.cast(step > bounds[-1], dt) * values[-1]
        for low, high, value in zip(bounds[:-1], bounds[1:], values[1:-1]):
            out = out + _core.cast(_core.logical_and(step > low, step <= high), dt) * value
        return out


class PolynomialDecay(LearningRateSchedule):
    """``(initial - end) * (1 - step / decay_steps) ** power + end``, held at ``end`` after ``decay_steps``
    (or restarted with a longer period when ``cycle``).

    Parameters
    ----------
    initial_learning_rate : float
    decay_steps : int
        (> 0).
    end_learning_rate : float, default 0.0001
    power : float, default 1.0
    cycle : bool, default False
    name : str, optional
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        end_learning_rate: float = 0.0001,
        power: float = 1.0,
        cycle: bool = False,
        name: str = "PolynomialDecay",
    ) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name
        if decay_steps <= 0:
            raise ValueError(f"Argument `decay_steps` must be > 0. Received: decay_steps={decay_steps}")

    def __call__(self, step: Any) -> Any:
        initial = _f32(self.initial_learning_rate)
        end, power = _f32(self.end_learning_rate), _f32(self.power)
        step = _f32(step)
        decay_steps = _f32(self.decay_steps)
        if self.cycle:
            multiplier = _core.where(
                _core.equal(step, 0.0), _f32(1.0), _core.math.ceil(step / _f32(self.decay_steps))
            )
            decay_steps = decay_steps * multiplier
        else:
            step = _core.minimum(step, decay_steps)
        p = step / decay_steps
        return (initial - end) * _core.pow(1.0 - p, power) + end


class InverseTimeDecay(LearningRateSchedule):
    """``initial / (1 + decay_rate * step / decay_steps)`` (the ratio floored with ``staircase``).

    Parameters
    ----------
    initial_learning_rate : float
    decay_steps : int
        (> 0).
    decay_rate : float
    staircase : bool, default False
    name : str, optional
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        decay_rate: float,
        staircase: bool = False,
        name: str = "InverseTimeDecay",
    ) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name
        if decay_steps <= 0:
            raise ValueError(f"Argument `decay_steps` must be > 0. Received: decay_steps={decay_steps}")

    def __call__(self, step: Any) -> Any:
        p = _f32(step) / _f32(self.decay_steps)
        if self.staircase:
            p = _core.floor(p)
        return _f32(self.initial_learning_rate) / (_f32(1.0) + _f32(self.decay_rate) * p)


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR): periods growing by ``t_mul``, peaks scaled by ``m_mul``.

    Parameters
    ----------
    initial_learning_rate : float
    first_decay_steps : int
        The first period (> 0).
    t_mul : float, default 2.0
    m_mul : float, default 1.0
    alpha : float, default 0.0
        The floor, as a fraction of the peak.
    name : str, optional
    """

    def __init__(
        self,
        initial_learning_rate: float,
        first_decay_steps: int,
        t_mul: float = 2.0,
        m_mul: float = 1.0,
        alpha: float = 0.0,
        name: str = "SGDRDecay",
    ) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self.t_mul = t_mul
        self.m_mul = m_mul
        self.alpha = alpha
        self.name = name
        if first_decay_steps <= 0:
            raise ValueError(
                f"Argument `first_decay_steps` must be > 0. Received: first_decay_steps={first_decay_steps}"
            )

    def __call__(self, step: Any) -> Any:
        initial = _f32(self.initial_learning_rate)
        alpha, t_mul, m_mul = _f32(self.alpha), _f32(self.t_mul), _f32(self.m_mul)
        done = _f32(step) / _f32(self.first_decay_steps)
        if float(self.t_mul) == 1.0:
            i_restart = _core.floor(done)
            done = done - i_restart
        else:
            i_restart = _core.floor(_core.math.log(1.0 - done * (1.0 - t_mul)) / _core.math.log(t_mul))
            sum_r = (1.0 - _core.pow(t_mul, i_restart)) / (1.0 - t_mul)
            done = (done - sum_r) / _core.pow(t_mul, i_restart)
        m_fac = _core.pow(m_mul, i_restart)
        cosine = 0.5 * m_fac * (1.0 + _core.cos(_f32(math.pi) * done))
        return initial * ((1.0 - alpha) * cosine + alpha)


_CLASSES = {
    c.__name__: c
    for c in (ExponentialDecay, CosineDecay, PiecewiseConstantDecay, PolynomialDecay, InverseTimeDecay,
              CosineDecayRestarts)
}  # fmt: skip


def serialize(learning_rate_schedule: LearningRateSchedule) -> dict[str, Any]:
    """Keras 3's serialized form of a schedule.

    Parameters
    ----------
    learning_rate_schedule : LearningRateSchedule

    Returns
    -------
    dict
        ``{"module": "keras.optimizers.schedules", "class_name", "config", "registered_name": None}``.
    """
    return {"module": "keras.optimizers.schedules", "class_name": type(learning_rate_schedule).__name__,
            "config": learning_rate_schedule.get_config(), "registered_name": None}  # fmt: skip


def deserialize(config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> LearningRateSchedule:
    """The schedule :func:`serialize` describes (``custom_objects`` first).

    Parameters
    ----------
    config : dict
    custom_objects : dict, optional

    Returns
    -------
    LearningRateSchedule

    Raises
    ------
    ValueError
        For an unknown class name.
    """
    name = str(config.get("class_name"))
    cls = (custom_objects or {}).get(name) or _CLASSES.get(name)
    if cls is None:
        raise ValueError(f"Could not interpret learning rate schedule: {config}")
    return cls.from_config(config.get("config", {}))


__all__ = [
    "CosineDecay", "CosineDecayRestarts", "ExponentialDecay", "InverseTimeDecay", "LearningRateSchedule",
    "PiecewiseConstantDecay", "PolynomialDecay", "deserialize", "serialize",
]  # fmt: skip
