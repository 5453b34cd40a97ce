"""Optimizers whose update rules are written with tapers' public ops: Adagrad, Adamax,
Nadam, Adadelta, Lion and Ftrl, each Keras 3's ``update_step`` in the same order of
operations (trajectories compared with Keras' in ``tests/test_optimizer_rules.py``).

Unlike SGD, Adam and RMSprop (one fused Rust kernel per variable), each step here is
a few elementwise ops and assigns per variable; inside ``tapers.function`` they are
recorded and replayed like any other op.
"""

from __future__ import annotations

from typing import Any

from .. import _core
from .._core import Tensor, Variable
from .._ops import clip_by_value
from . import Optimizer


class _ComposedOptimizer(Optimizer):
    """An optimizer whose rule is :meth:`_update` on each variable, after Keras 3's
    decoupled weight decay (``v -= v * weight_decay * lr``) and :meth:`_before_updates`."""

    #: Per slot: its name and the initial value's attribute (None: zeros).
    _slot_specs: tuple[tuple[str, str | None], ...] = ()

    def _new_slots(self, var: Variable) -> list[Variable]:
        base = var.name.split(":")[0]
        slots = []
        for name, init in self._slot_specs:
            value = _core.zeros_like(var.value())
            if init is not None:
                value = value + _core.cast(getattr(self, init), value.dtype)
            slots.append(Variable(value, trainable=False, name=f"{base}_{name}"))
        return slots

    def _step(self, grads: list[Tensor], variables: list[Variable], lr: Any, step: int | None, wd: float) -> None:
        del step
        if not variables:
            return
        if wd:
            for v in variables:
                dt = v.dtype
                v.assign(v - v * _core.cast(wd, dt) * _core.cast(lr, dt))
        self._before_updates(variables)
        for g, v in zip(grads, variables):
            dt = v.dtype
            self._update(_core.cast(g, dt), v, _core.cast(lr, dt), self._slots_for(v))

    def _apply_with_slices(self, kept: list[tuple[Any, Variable]]) -> None:
        # Keras 3 runs these rules on the dense gradient.
        grads = [_core.convert_to_tensor(g) for g in self._clip_with_slices([g for g, _ in kept])]
        lr = self.learning_rate
        wd = float(self.weight_decay or 0.0)
        for decayed in (False, True):
            pairs = [(g, v) for g, (_, v) in zip(grads, kept) if (id(v) not in self._exclude) == decayed]
            self._step([g for g, _ in pairs], [v for _, v in pairs], lr, None, wd if decayed else 0.0)

    def _before_updates(self, variables: list[Variable]) -> None:
        """State shared by all variables of a step, updated before them (Nadam's)."""

    def _update(self, g: Tensor, v: Variable, lr: Tensor, slots: list[Variable]) -> None:
        raise NotImplementedError

    def _step_number(self, dt: Any, ahead: int = 1) -> Tensor:
        # Keras' `iterations + 1` (read when the step runs, also in a replay).
        return _core.cast(self.iterations + ahead, dt)


_COMMON_PARAMS = """
    learning_rate : float, LearningRateSchedule, or callable
        The step size; a schedule is evaluated at ``iterations``.
    weight_decay : float, optional
        Decoupled weight decay (Keras 3's ``weight_decay``).
    clipnorm, clipvalue, global_clipnorm : float, optional
        Gradient clipping (at most one).
    name : str, optional
        The optimizer's name."""


class Adagrad(_ComposedOptimizer):
    """Adagrad (``keras.optimizers.Adagrad``): ``acc += g^2; v -= lr g / sqrt(acc + epsilon)``.

    Parameters
    ----------
    initial_accumulator_value : float, default 0.1
        The accumulators' starting value.
    epsilon : float, default 1e-7
        Added under the square root.
    %COMMON%
    """

    _slot_specs = (("accumulator", "initial_accumulator_value"),)

    def __init__(
        self,
        learning_rate: Any = 0.001,
        initial_accumulator_value: float = 0.1,
        epsilon: float = 1e-7,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm, name)
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    def _update(self, g: Tensor, v: Variable, lr: Tensor, slots: list[Variable]) -> None:
        (acc,) = slots
        acc.assign_add(_core.square(g))
        v.assign_sub((lr * g) / _core.sqrt(acc + self.epsilon))


class Adamax(_ComposedOptimizer):
    """Adamax (``keras.optimizers.Adamax``): Adam with the infinity norm of past gradients.

    Parameters
    ----------
    beta_1, beta_2 : float, default 0.9, 0.999
        Decay of the first moment and of the norm.
    epsilon : float, default 1e-7
        Added to the norm.
    %COMMON%
    """

    _slot_specs = (("momentum", None), ("norm", None))

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm, name)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon

    def _update(self, g: Tensor, v: Variable, lr: Tensor, slots: list[Variable]) -> None:
        m, u = slots
        dt = v.dtype
        beta_1_power = _core.pow(_core.cast(self.beta_1, dt), self._step_number(dt))
        m.assign_add((g - m) * (1 - self.beta_1))
        u.assign(_core.maximum(self.beta_2 * u, _core.abs(g)))
        v.assign_sub((lr * m) / ((1 - beta_1_power) * (u + self.epsilon)))


class Nadam(_ComposedOptimizer):
    """Nadam (``keras.optimizers.Nadam``): Adam with Nesterov momentum and Keras' momentum schedule.

    Parameters
    ----------
    beta_1, beta_2 : float, default 0.9, 0.999
        Decay of the first and second moments.
    epsilon : float, default 1e-7
        Added to the denominator.
    %COMMON%
    """

    _slot_specs = (("momentum", None), ("velocity", None))

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm, name)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self._u_product: Variable | None = None

    def variables(self) -> list[Variable]:
        """The optimizer's own variables: iterations, the momentum schedule's product, then slots."""
        out = super().variables()
        if self._u_product is not None:
            out.insert(1, self._u_product)
        return out

    def _before_updates(self, variables: list[Variable]) -> None:
        if self._u_product is None:
            # In the first variable's dtype, as Keras builds it.
            self._u_product = Variable(_core.cast(1.0, variables[0].dtype), trainable=False, name="u_product")
        u = self._u_product
        dt = u.dtype
        u.assign(u * self.beta_1 * (1.0 - 0.5 * _core.pow(_core.cast(0.96, dt), self._step_number(dt))))

    def _update(self, g: Tensor, v: Variable, lr: Tensor, slots: list[Variable]) -> None:
        m, vel = slots
        dt = v.dtype
        local_step, next_step = self._step_number(dt), self._step_number(dt, 2)
        decay = _core.cast(0.96, dt)
        beta_1, beta_2 = _core.cast(self.beta_1, dt), _core.cast(self.beta_2, dt)
        u_t = beta_1 * (1.0 - 0.5 * _core.pow(decay, local_step))
        u_t_1 = beta_1 * (1.0 - 0.5 * _core.pow(decay, next_step))
        assert self._u_product is not None
        u_product_t = _core.cast(self._u_product, dt)
        u_product_t_1 = u_product_t * u_t_1
        beta_2_power = _core.pow(beta_2, local_step)
        m.assign_add((g - m) * (1 - beta_1))
        vel.assign_add((_core.square(g) - vel) * (1 - beta_2))
        m_hat = (u_t_1 * m) / (1 - u_product_t_1) + ((1 - u_t) * g) / (1 - u_product_t)
        v_hat = vel / (1 - beta_2_power)
        v.assign_sub((m_hat * lr) / (_core.sqrt(v_hat) + self.epsilon))


class Adadelta(_ComposedOptimizer):
    """Adadelta (``keras.optimizers.Adadelta``): steps scaled by running averages of squared
    gradients and squared updates.

    Parameters
    ----------
    rho : float, default 0.95
        Decay of the running averages.
    epsilon : float, default 1e-7
        Added under the square roots.
    %COMMON%
    """

    _slot_specs = (("accumulated_grad", None), ("accumulated_delta_var", None))

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: float = 0.95,
        epsilon: float = 1e-7,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm, name)
        self.rho = rho
        self.epsilon = epsilon

    def _update(self, g: Tensor, v: Variable, lr: Tensor, slots: list[Variable]) -> None:
        acc_grad, acc_delta = slots
        rho = self.rho

        def rms(x: Any) -> Tensor:
            return _core.sqrt(x + self.epsilon)

        acc_grad.assign(rho * acc_grad + (1 - rho) * _core.square(g))
        delta = -((rms(acc_delta) * g) / rms(acc_grad))
        acc_delta.assign(rho * acc_delta + (1 - rho) * _core.square(delta))
        v.assign_add(lr * delta)


class Lion(_ComposedOptimizer):
    """Lion (``keras.optimizers.Lion``): steps of the sign of an interpolated momentum.

    Parameters
    ----------
    beta_1 : float, default 0.9
        Interpolation between momentum and gradient for the step; in (0, 1].
    beta_2 : float, default 0.99
        Decay of the momentum.
    %COMMON%

    Raises
    ------
    ValueError
        ``beta_1`` outside (0, 1] (Keras' message).
    """

    _slot_specs = (("momentum", None),)

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.99,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm, name)
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError(
                "Argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer degenerates to "
                f"SignSGD. Received: beta_1={beta_1}."
            )
        self.beta_1 = beta_1
        self.beta_2 = beta_2

    def _update(self, g: Tensor, v: Variable, lr: Tensor, slots: list[Variable]) -> None:
        (m,) = slots
        dt = v.dtype
        beta_1, beta_2 = _core.cast(self.beta_1, dt), _core.cast(self.beta_2, dt)
        v.assign_sub(lr * _core.sign(m * beta_1 + g * (1.0 - beta_1)))
        m.assign(m * beta_2 + g * (1.0 - beta_2))


class Ftrl(_ComposedOptimizer):
    """FTRL-proximal (``keras.optimizers.Ftrl``), with L1, L2 and L2-shrinkage regularization.

    Parameters
    ----------
    learning_rate_power : float, default -0.5
        The accumulator's exponent in the per-coordinate rate; zero or negative.
    initial_accumulator_value : float, default 0.1
        The accumulators' starting value; zero or positive.
    l1_regularization_strength, l2_regularization_strength : float, default 0.0
        Zero or positive.
    l2_shrinkage_regularization_strength : float, default 0.0
        L2 on the gradient side (Keras' "shrinkage"); zero or positive.
    beta : float, default 0.0
        Added to the L2 strength as ``beta / (2 lr)``.
    %COMMON%

    Raises
    ------
    ValueError
        A parameter outside its range (Keras' messages).
    """

    _slot_specs = (("accumulator", "initial_accumulator_value"), ("linear", None))

    def __init__(
        self,
        learning_rate: Any = 0.001,
        learning_rate_power: float = -0.5,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        l2_shrinkage_regularization_strength: float = 0.0,
        beta: float = 0.0,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm, name)
        checks = [
            ("initial_accumulator_value", initial_accumulator_value, "positive"),
            ("learning_rate_power", learning_rate_power, "negative"),
            ("l1_regularization_strength", l1_regularization_strength, "positive"),
            ("l2_regularization_strength", l2_regularization_strength, "positive"),
            ("l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength, "positive"),
        ]
        for arg, value, sign in checks:
            if (value < 0.0) if sign == "positive" else (value > 0.0):
                raise ValueError(f"`{arg}` needs to be {sign} or zero. Received: {arg}={value}.")
        self.learning_rate_power = learning_rate_power
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self.beta = beta

    def _update(self, g: Tensor, v: Variable, lr: Tensor, slots: list[Variable]) -> None:
        accum, linear = slots
        lr_power = self.learning_rate_power
        l2_reg = self.l2_regularization_strength + self.beta / (2.0 * lr)
        grad_to_use = g + (2 * self.l2_shrinkage_regularization_strength) * v
        new_accum = accum + _core.square(g)
        linear.assign_add(grad_to_use - ((_core.pow(new_accum, -lr_power) - _core.pow(accum, -lr_power)) / lr) * v)
        quadratic = _core.pow(new_accum, -lr_power) / lr + 2 * l2_reg
        l1 = self.l1_regularization_strength
        linear_clipped = clip_by_value(linear, _core.cast(-l1, v.dtype), _core.cast(l1, v.dtype))
        v.assign((linear_clipped - linear) / quadratic)
        accum.assign(new_accum)


for _cls in (Adagrad, Adamax, Nadam, Adadelta, Lion, Ftrl):
    _cls.__doc__ = (_cls.__doc__ or "").replace("\n    %COMMON%", _COMMON_PARAMS)

__all__ = ["Adadelta", "Adagrad", "Adamax", "Ftrl", "Lion", "Nadam"]
