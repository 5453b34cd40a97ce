"""Keras 3's Adafactor, Lamb, Muon, ScheduleFreeAdamW and LossScaleOptimizer, written with
tapers' ops in the order of Keras' ``update_step`` (trajectories compared with Keras' in
``tests/test_optimizers_more.py``). Inside ``tapers.function`` each step is recorded and
replayed like any other op; the step counter is read from ``iterations`` when it runs.
"""

from __future__ import annotations

import math
import re
from typing import Any, Iterable

from .. import _core
from .._core import Tensor, Variable
from .._indexed_slices import IndexedSlices
from .._tape import GradientTape
from ..dtypes import int64
from . import _KERAS_DEFAULTS, Optimizer, _auto_name
from ._composed import _COMMON_PARAMS, _ComposedOptimizer

_UNSUPPORTED = _KERAS_DEFAULTS  # Keras options accepted only at their defaults


def _check_unsupported(cls: str, options: dict[str, Any]) -> None:
    """Keras' base options tapers does not implement: accepted at their defaults, refused otherwise."""
    unknown = {k: v for k, v in options.items() if k not in _UNSUPPORTED}
    if unknown:
        raise ValueError(f"Argument(s) not recognized: {unknown}")
    for key, value in options.items():
        if value != _UNSUPPORTED[key]:
            raise NotImplementedError(
                f"{cls}: `{key}={value!r}` is not implemented in tapers (only the default "
                f"{_UNSUPPORTED[key]!r} is accepted)."
            )


class _KerasOptimizer(_ComposedOptimizer):
    """A composed optimizer with Keras 3's ``get_config``/``from_config`` and slots
    created before the first step's weight decay (as Keras' ``build``)."""

    def _init_common(self, kwargs: dict[str, Any]) -> None:
        _check_unsupported(type(self).__name__, kwargs)

    def _step(self, grads: list[Any], variables: list[Variable], lr: Any, step: int | None, wd: float) -> None:
        del step
        if not variables:
            return
        for v in variables:  # Keras builds the slots before decaying the variables.
            self._slots_for(v)
        self._decay(variables, lr, wd)
        self._before_updates(variables)
        for g, v in zip(grads, variables):
            dt = v.dtype
            gv: Any = g._with_values(_core.cast(g.values, dt)) if isinstance(g, IndexedSlices) else _core.cast(g, dt)
            self._update(gv, v, _core.cast(lr, dt), self._slots_for(v))

    def _decay(self, variables: list[Variable], lr: Any, wd: float) -> None:
        if wd:
            for v in variables:
                dt = v.dtype
                v.assign(v - v * _core.cast(wd, dt) * _core.cast(lr, dt))

    def _apply_with_slices(self, kept: list[tuple[Any, Variable]]) -> None:
        # IndexedSlices stay sparse into the update rule, where Keras' TensorFlow
        # backend applies elementwise ops (square, divide) to each slice before
        # summing repeated rows (see `_dense` and `_square_sum`).
        grads = self._clip_with_slices([g for g, _ in kept])
        lr = self.learning_rate
        wd = float(self.weight_decay or 0.0)
        for decayed in (False, True):
            pairs = [(g, v) for g, (_, v) in zip(grads, kept) if (id(v) not in self._exclude) == decayed]
            self._step([g for g, _ in pairs], [v for _, v in pairs], lr, None, wd if decayed else 0.0)


def _dense(g: Any) -> Tensor:
    """A gradient as a dense tensor (repeated rows of IndexedSlices summed)."""
    return _core.convert_to_tensor(g) if isinstance(g, IndexedSlices) else g


def _square_sum(g: Any) -> Tensor:
    """``square(g)`` dense; for IndexedSlices each slice is squared before repeated rows are
    summed, as Keras' TensorFlow backend does."""
    if isinstance(g, IndexedSlices):
        return _core.convert_to_tensor(g._with_values(_core.square(g.values)))
    return _core.square(g)


def _rms(x: Any) -> Tensor:
    return _core.sqrt(_core.reduce_mean(_core.square(x)))


class Adafactor(_KerasOptimizer):
    """Adafactor (``keras.optimizers.Adafactor``): second moments of matrices factored into
    row and column averages of the last two axes.

    Parameters
    ----------
    beta_2_decay : float, default -0.8
        The second moments' decay is ``1 - step ** beta_2_decay``.
    epsilon_1 : float, default 1e-30
        Added to the squared gradients.
    epsilon_2 : float, default 1e-3
        Lower bound of the variable's RMS in the step size.
    clip_threshold : float, default 1.0
        The update is divided by ``max(1, rms(update) / clip_threshold)``.
    relative_step : bool, default True
        With a constant rate, use ``min(lr, 1 / sqrt(step))`` (Keras' rule; its step size
        is ``min(lr, 1 / sqrt(step))`` either way).%COMMON%
    use_ema, ema_momentum, ema_overwrite_frequency, loss_scale_factor, gradient_accumulation_steps
        Keras' options: only their defaults are accepted (NotImplementedError otherwise).

    Notes
    -----
    Variables of rank < 2 keep one unfactored second moment (Keras' dummy row/column
    variables are not created).
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_2_decay: float = -0.8,
        epsilon_1: float = 1e-30,
        epsilon_2: float = 1e-3,
        clip_threshold: float = 1.0,
        relative_step: bool = True,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm, name)
        self._init_common(kwargs)
        self.beta_2_decay = beta_2_decay
        self.epsilon_1 = epsilon_1
        self.epsilon_2 = epsilon_2
        self.clip_threshold = clip_threshold
        self.relative_step = relative_step

    def _new_slots(self, var: Variable) -> list[Variable]:
        base = var.name.split(":")[0]
        shape = list(var.shape)
        dt = var.dtype
        slots = []
        if len(shape) >= 2:
            slots.append(Variable(_core.zeros(shape[:-1], dtype=dt), trainable=False, name=f"{base}_r"))
            slots.append(Variable(_core.zeros(shape[:-2] + shape[-1:], dtype=dt), trainable=False, name=f"{base}_c"))
        slots.append(Variable(_core.zeros_like(var.value()), trainable=False, name=f"{base}_velocity"))
        return slots

    def _update(self, g: Tensor, v: Variable, lr: Tensor, slots: list[Variable]) -> None:
        dt = v.dtype
        local_step = self._step_number(dt)
        inv_sqrt_step = 1 / _core.sqrt(local_step)
        if not callable(self._learning_rate) and self.relative_step:
            lr = _core.minimum(lr, inv_sqrt_step)
        rho_t = _core.minimum(lr, inv_sqrt_step)
        alpha_t = _core.maximum(_core.cast(self.epsilon_2, dt), _rms(v)) * rho_t
        regulated = _square_sum(g) + _core.cast(self.epsilon_1, dt)
        beta_2_t = 1 - _core.pow(local_step, _core.cast(self.beta_2_decay, dt))
        if len(v.shape) >= 2:
            r, c, vel = slots
            r.assign(beta_2_t * r + (1 - beta_2_t) * _core.reduce_mean(regulated, axis=-1))
            c.assign(beta_2_t * c + (1 - beta_2_t) * _core.reduce_mean(regulated, axis=-2))
            row = _core.expand_dims(r / _core.reduce_mean(r, axis=-1, keepdims=True), -1)
            vel.assign(row * _core.expand_dims(c, -2))
        else:
            (vel,) = slots
            vel.assign(beta_2_t * vel + (1 - beta_2_t) * regulated)
        if isinstance(g, IndexedSlices):
            # Keras divides each slice by its row of sqrt(v); the RMS sums the slices' squares.
            u_values = g.values / _core.gather(_core.sqrt(vel), g.indices)
            size = _core.cast(_core.size(v), dt)
            rms = _core.sqrt(_core.reduce_sum(_core.square(u_values)) / size)
            u_t = _core.convert_to_tensor(g._with_values(u_values))
        else:
            u_t = g / _core.sqrt(vel)
            rms = _rms(u_t)
        u_t_hat = u_t / _core.maximum(_core.cast(1.0, dt), rms / _core.cast(self.clip_threshold, dt))
        v.assign_sub(alpha_t * u_t_hat)


class Lamb(_KerasOptimizer):
    """LAMB (``keras.optimizers.Lamb``): Adam's update scaled per variable by the trust ratio
    ``||w|| / ||update||`` (1 when either norm is zero).

    Parameters
    ----------
    beta_1, beta_2 : float, default 0.9, 0.999
        Decay of the first and second moments.
    epsilon : float, default 1e-7
        Added to the denominator.%COMMON%
    use_ema, ema_momentum, ema_overwrite_frequency, loss_scale_factor, gradient_accumulation_steps
        Keras' options: only their defaults are accepted (NotImplementedError otherwise).
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
        self._init_common(kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon

    def _update(self, g: Tensor, v: Variable, lr: Tensor, slots: list[Variable]) -> None:
        m, vel = slots
        dt = v.dtype
        local_step = self._step_number(dt)
        beta_1_power = _core.pow(_core.cast(self.beta_1, dt), local_step)
        beta_2_power = _core.pow(_core.cast(self.beta_2, dt), local_step)
        m.assign_add((_dense(g) - m) * _core.cast(1 - self.beta_1, dt))
        vel.assign_add((_square_sum(g) - vel) * _core.cast(1 - self.beta_2, dt))
        m_hat = m / (1.0 - beta_1_power)
        v_sqrt = _core.sqrt(vel / (1.0 - beta_2_power)) + _core.cast(self.epsilon, dt)
        update = m_hat / v_sqrt
        w_norm = _core.sqrt(_core.reduce_sum(_core.square(v)))
        g_norm = _core.sqrt(_core.reduce_sum(_core.square(update)))
        one = _core.cast(1.0, dt)
        ratio = _core.where(w_norm > 0, _core.where(g_norm > 0, w_norm / g_norm, one), one)
        v.assign_sub(ratio * lr * update)


class ScheduleFreeAdamW(_KerasOptimizer):
    """Schedule-Free AdamW (``keras.optimizers.ScheduleFreeAdamW``): Adam steps on a
    ``momentum`` sequence (starting at the variable), averaged, with the variable set to
    their interpolation.

    Parameters
    ----------
    beta_1 : float, default 0.9
        Interpolation between the averaged sequence and ``momentum``.
    beta_2 : float, default 0.999
        Decay of the second moment.
    epsilon : float, default 1e-8
        Added to the denominator.
    warmup_steps : int, default 0
        Steps over which the rate grows linearly from 0.%COMMON%
    use_ema, ema_momentum, ema_overwrite_frequency, loss_scale_factor, gradient_accumulation_steps
        Keras' options: only their defaults are accepted (NotImplementedError otherwise).
    """

    _slot_specs = (("momentum", None), ("velocity", None))
    def __init__(
        self,
        learning_rate: Any = 0.0025,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-8,
        warmup_steps: int = 0,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm, name
        )
        self._init_common(kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.warmup_steps = warmup_steps

    def _new_slots(self, var: Variable) -> list[Variable]:
        base = var.name.split(":")[0]
        momentum = Variable(var.read_value(), trainable=False, name=f"{base}_momentum")
        velocity = Variable(_core.zeros_like(var.value()), trainable=False, name=f"{base}_velocity")
        return [momentum, velocity]

    def _update(self, g: Tensor, v: Variable, lr: Tensor, slots: list[Variable]) -> None:
        momentum, velocity = slots
        dt = v.dtype
        local_step = self._step_number(dt)
        beta_1, beta_2 = _core.cast(self.beta_1, dt), _core.cast(self.beta_2, dt)
        if self.warmup_steps > 0:
            lr = lr * _core.minimum(local_step / _core.cast(self.warmup_steps, dt), _core.cast(1.0, dt))
        bias_correction_2 = 1 - _core.pow(beta_2, local_step)
        velocity.assign_add((_square_sum(g) - velocity) * (1 - beta_2))
        denom = _core.sqrt(velocity / bias_correction_2) + _core.cast(self.epsilon, dt)
        momentum.assign_sub((lr * _dense(g)) / denom)
        weight = 1.0 / local_step
        # Keras reads `momentum.value` before the update, but on its TensorFlow backend that
        # is the variable itself, so the update is seen: x_old uses the updated momentum.
        x_old = (v - (1 - beta_1) * momentum) / beta_1
        x_new = (1 - weight) * x_old + weight * momentum
        v.assign((1 - beta_1) * momentum + beta_1 * x_new)


class Muon(_KerasOptimizer):
    """Muon (``keras.optimizers.Muon``): momentum orthogonalized by Newton-Schulz iterations
    for 2-D variables; AdamW for the others, for names holding ``"embedding"`` (with
    ``exclude_embeddings``) and for names matching a pattern of ``exclude_layers``.

    Parameters
    ----------
    adam_beta_1, adam_beta_2 : float, default 0.9, 0.999
        The AdamW step's moment decays.
    adam_weight_decay : float, default 0.004
        Decoupled decay of the AdamW-stepped variables (``weight_decay`` decays the others).
    epsilon : float, default 1e-7
        The AdamW step's epsilon.
    exclude_layers : list of str, optional
        Regular expressions searched in the variable's path (``path``, else ``name``).
    exclude_embeddings : bool, default True
        AdamW for variables whose path holds ``"embedding"``.
    muon_a, muon_b, muon_c : float
        The quintic Newton-Schulz coefficients (Keras' defaults).
    adam_lr_ratio : float, default 1
        The AdamW step's rate relative to ``learning_rate``.
    momentum : float, default 0.95
        The Muon step's momentum.
    ns_steps : int, default 5
        Newton-Schulz iterations.
    nesterov : bool, default True
        Nesterov momentum in the Muon step.
    rms_rate : float or None, default 0.2
        Muon updates are scaled by ``sqrt(max(rows, cols)) * rms_rate`` (None: unscaled).%COMMON%
    use_ema, ema_momentum, ema_overwrite_frequency, loss_scale_factor, gradient_accumulation_steps
        Keras' options: only their defaults are accepted (NotImplementedError otherwise).
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        adam_beta_1: float = 0.9,
        adam_beta_2: float = 0.999,
        adam_weight_decay: float | None = 0.004,
        epsilon: float = 1e-7,
        weight_decay: float | None = 0.004,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        name: str | None = None,
        exclude_layers: list[str] | None = None,
        exclude_embeddings: bool = True,
        muon_a: float = 3.4445,
        muon_b: float = -4.7750,
        muon_c: float = 2.0315,
        adam_lr_ratio: float = 1,
        momentum: float = 0.95,
        ns_steps: int = 5,
        nesterov: bool = True,
        rms_rate: float | None = 0.2,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm, name)
        self._init_common(kwargs)
        self.adam_beta_1 = adam_beta_1
        self.adam_beta_2 = adam_beta_2
        self.epsilon = epsilon
        self.muon_a = muon_a
        self.muon_b = muon_b
        self.muon_c = muon_c
        self.adam_lr_ratio = adam_lr_ratio
        self.momentum = momentum
        self.ns_steps = ns_steps
        self.nesterov = nesterov
        self.exclude_embeddings = exclude_embeddings
        self.exclude_layers = list(exclude_layers or [])
        self.adam_weight_decay = adam_weight_decay
        self.rms_rate = rms_rate

    def _should_use_adamw(self, var: Variable) -> bool:
        if len(var.shape) != 2:
            return True
        path = str(getattr(var, "path", None) or var.name)
        if self.exclude_embeddings and "embedding" in path.lower():
            return True
        return any(re.search(keyword, path) for keyword in self.exclude_layers)

    def _new_slots(self, var: Variable) -> list[Variable]:
        base = var.name.split(":")[0]
        slots = [Variable(_core.zeros_like(var.value()), trainable=False, name=f"{base}_momentum")]
        if self._should_use_adamw(var):
            slots.append(Variable(_core.zeros_like(var.value()), trainable=False, name=f"{base}_velocity"))
        return slots

    def _decay(self, variables: list[Variable], lr: Any, wd: float) -> None:
        # Keras' Muon decays AdamW-stepped variables by `adam_weight_decay`, the others by
        # `weight_decay` (either None: no decay).
        del wd
        for v in variables:
            if id(v) in self._exclude:
                continue
            decay = self.adam_weight_decay if self._should_use_adamw(v) else self.weight_decay
            if decay is None:
                continue
            dt = v.dtype
            v.assign(v - v * _core.cast(decay, dt) * _core.cast(lr, dt))

    def _update(self, g: Tensor, v: Variable, lr: Any, slots: list[Variable]) -> None:
        if len(slots) == 2:
            self._adamw_update(g, v, lr * self.adam_lr_ratio, slots[0], slots[1])
        else:
            self._muon_update(g, v, lr, slots[0])

    def _adamw_update(self, g: Any, v: Variable, lr: Any, m: Variable, vel: Variable) -> None:
        dt = v.dtype
        lr = _core.cast(lr, dt)
        local_step = self._step_number(dt)
        b1_power = _core.pow(_core.cast(self.adam_beta_1, dt), local_step)
        b2_power = _core.pow(_core.cast(self.adam_beta_2, dt), local_step)
        alpha = lr * _core.sqrt(1 - b2_power) / (1 - b1_power)
        m.assign_add((_dense(g) - m) * _core.cast(1 - self.adam_beta_1, dt))
        vel.assign_add((_square_sum(g) - vel) * _core.cast(1 - self.adam_beta_2, dt))
        v.assign_sub((m * alpha) / (_core.sqrt(vel) + _core.cast(self.epsilon, dt)))

    def _muon_update(self, g: Any, v: Variable, lr: Any, m: Variable) -> None:
        dt = v.dtype
        g = _dense(g)
        m.assign_add(g + m * _core.cast(self.momentum - 1, dt))
        x = g + _core.cast(self.momentum, dt) * m if self.nesterov else m.value()
        update = self._newton_schulz(x, self.ns_steps)
        step = _core.cast(lr, dt) * update
        if self.rms_rate is not None:
            rows, cols = v.shape[0], v.shape[1]
            step = step * _core.cast(math.sqrt(float(max(rows, cols))), dt) * _core.cast(self.rms_rate, dt)
        v.assign_sub(step)

    def _newton_schulz(self, x: Tensor, steps: int) -> Tensor:
        rank = len(x.shape)
        if rank < 2:
            raise ValueError(f"Expected gradient or momentum to have at least 2 dimensions. Received: shape={x.shape}")
        perm = list(range(rank))
        perm[-2], perm[-1] = perm[-1], perm[-2]
        tall = x.shape[-2] > x.shape[-1]
        if tall:
            x = _core.transpose(x, perm)
        dt = x.dtype
        a, b, c = (_core.cast(k, dt) for k in (self.muon_a, self.muon_b, self.muon_c))
        norm = _core.sqrt(_core.reduce_sum(_core.square(x), axis=[-2, -1], keepdims=True))
        x = x / (norm + _core.cast(1e-7, dt))
        for _ in range(steps):
            temp_a = _core.matmul(x, _core.transpose(x, perm))
            temp_b = b * temp_a + _core.matmul(c * temp_a, temp_a)
            x = a * x + _core.matmul(temp_b, x)
        if tall:
            x = _core.transpose(x, perm)
        return x


for _cls in (Adafactor, Lamb, ScheduleFreeAdamW, Muon):
    _cls.__doc__ = (_cls.__doc__ or "").replace("%COMMON%", _COMMON_PARAMS)


def _optimizer_config(opt: Optimizer) -> dict[str, Any]:
    """An optimizer's constructor arguments (every tapers optimizer has Keras' ``get_config``)."""
    return dict(opt.get_config())


class LossScaleOptimizer(Optimizer):
    """Dynamic loss scaling around another optimizer (``keras.optimizers.LossScaleOptimizer``,
    also ``keras.mixed_precision.LossScaleOptimizer``).

    Multiply the loss by :meth:`scale_loss` (the current ``dynamic_scale``) before taking
    gradients; :meth:`apply_gradients` divides the gradients by the scale and, if all are
    finite, lets the inner optimizer apply them; otherwise it skips the step (variables,
    slots and ``iterations`` unchanged) and halves the scale. After ``dynamic_growth_steps``
    finite steps in a row the scale doubles.

    Parameters
    ----------
    inner_optimizer : Optimizer
        The optimizer that applies the unscaled gradients.
    initial_scale : float, default 2**15
        The first loss scale.
    dynamic_growth_steps : int, default 2000
        Finite steps between doublings of the scale.
    name : str, optional
        The optimizer's name.
    **kwargs
        Keras' base options at their defaults only (as Keras: set them on the inner
        optimizer); ``dynamic=False`` is refused as in Keras 3.

    Notes
    -----
    The skip is computed with tensor selects, not a Python branch, so a step traced by
    ``tapers.function`` decides it at each call: the inner step runs on every call and
    its results (variables, slots, counter) are kept only when the gradients are finite.
    """

    def __init__(
        self,
        inner_optimizer: Optimizer,
        initial_scale: float = 2.0**15,
        dynamic_growth_steps: int = 2000,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        if not kwargs.pop("dynamic", True):
            raise ValueError(
                "LossScaleOptimizer no longer supports `dynamic=False`. Instead, simply set `loss_scale_factor` "
                "directly on the `inner_optimizer`."
            )
        defaults = {
            "weight_decay": None, "clipnorm": None, "global_clipnorm": None, "clipvalue": None, **_UNSUPPORTED,
        }  # fmt: skip
        for key, default in defaults.items():
            if key in kwargs and kwargs.pop(key) != default:
                raise ValueError(
                    f"LossScaleOptimizer does not support `{key}`. Instead, set `{key}` on the `inner_optimizer`."
                )
        if kwargs:
            raise ValueError(f"LossScaleOptimizer does not support arguments: `{'`, `'.join(kwargs.keys())}`.")
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError(
                "LossScaleOptimizer: `inner_optimizer` must be a tapers optimizer, got "
                f"{type(inner_optimizer).__name__}"
            )
        if int(dynamic_growth_steps) < 1:
            raise ValueError(f"`dynamic_growth_steps` must be at least 1. Received: {dynamic_growth_steps}")
        self.inner_optimizer = inner_optimizer
        self.initial_scale = initial_scale
        self.dynamic_growth_steps = dynamic_growth_steps
        self.name = name or _auto_name("LossScaleOptimizer")
        self.weight_decay = None
        self.clipnorm = None
        self.clipvalue = None
        self.global_clipnorm = None
        self._hyper = {}
        self._slots = {}
        self._exclude = set()
        self.step_counter = Variable(0, dtype=int64, trainable=False, name="step_counter")
        self.dynamic_scale = Variable(float(initial_scale), dtype="float32", trainable=False, name="dynamic_scale")

    @property
    def iterations(self) -> Variable:  # type: ignore[override]
        """The inner optimizer's step counter (unchanged by skipped steps)."""
        return self.inner_optimizer.iterations

    @iterations.setter
    def iterations(self, value: Variable) -> None:
        self.inner_optimizer.iterations = value

    @property
    def learning_rate(self) -> Any:
        """The inner optimizer's learning rate (read and set through it)."""
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        self.inner_optimizer.learning_rate = value

    def exclude_from_weight_decay(self, var_list: Iterable[Variable] | None = None, var_names: Any = None) -> None:
        """Forwarded to the inner optimizer."""
        self.inner_optimizer.exclude_from_weight_decay(var_list, var_names)

    def variables(self) -> list[Variable]:
        """``step_counter``, ``dynamic_scale``, then the inner optimizer's variables."""
        return [self.step_counter, self.dynamic_scale, *self.inner_optimizer.variables()]

    def scale_loss(self, loss: Any) -> Tensor:
        """``loss`` times the current loss scale.

        Parameters
        ----------
        loss : Tensor or float
            The loss to differentiate.

        Returns
        -------
        Tensor
            The scaled loss, in ``loss``'s dtype.
        """
        loss = _core.convert_to_tensor(loss)
        return loss * _core.cast(self.dynamic_scale, loss.dtype)

    def check_finite(self, grads: Iterable[Any]) -> Tensor:
        """Whether every gradient is finite (None gradients are ignored).

        Parameters
        ----------
        grads : list of Tensor, IndexedSlices or None
            The gradients.

        Returns
        -------
        Tensor
            A scalar bool tensor.
        """
        flags = []
        for g in grads:
            if g is None:
                continue
            values = g.values if isinstance(g, IndexedSlices) else _core.convert_to_tensor(g)
            if values.dtype.is_floating or values.dtype.is_complex:
                flags.append(_core.reduce_all(_core.math.is_finite(values)))
        if not flags:
            return _core.convert_to_tensor(True)
        return _core.reduce_all(_core.stack(flags))

    def _prebuild(self, variables: list[Variable]) -> None:
        # Create the inner optimizer's state before the step so that a skipped step can
        # restore it (Nadam's momentum-schedule product is created on its first step).
        inner = self.inner_optimizer
        if isinstance(inner, LossScaleOptimizer):
            raise TypeError("LossScaleOptimizer cannot wrap another LossScaleOptimizer")
        for v in variables:
            inner._slots_for(v)
        if getattr(inner, "_u_product", False) is None and variables:
            u_product = Variable(_core.cast(1.0, variables[0].dtype), trainable=False, name="u_product")
            setattr(inner, "_u_product", u_product)  # noqa: B010

    def apply_gradients(self, grads_and_vars: Iterable[tuple[Any, Variable]]) -> Variable:
        """Unscales the gradients and applies them with the inner optimizer if all are finite;
        updates the loss scale.

        Parameters
        ----------
        grads_and_vars : iterable of (gradient, Variable)
            Gradients of the scaled loss; None gradients are skipped.

        Returns
        -------
        Variable
            The inner optimizer's ``iterations``.
        """
        pairs = list(grads_and_vars)
        for _, v in pairs:
            if not isinstance(v, Variable):
                raise TypeError(f"apply_gradients expects (gradient, Variable) pairs, got {type(v).__name__}")
        variables = [v for g, v in pairs if g is not None]
        self._prebuild(variables)
        finite = self.check_finite([g for g, _ in pairs])
        scale = self.dynamic_scale.value()

        def unscale(g: Any) -> Any:
            if g is None:
                return None
            if isinstance(g, IndexedSlices):
                return g._with_values(g.values / _core.cast(scale, g.values.dtype))
            g = _core.convert_to_tensor(g)
            return g / _core.cast(scale, g.dtype)

        # Everything the inner step may change, each once, to restore if it is skipped.
        state = list({id(v): v for v in [*variables, *self.inner_optimizer.variables()]}.values())
        before = [v.value() for v in state]
        self.inner_optimizer.apply_gradients([(unscale(g), v) for g, v in pairs])
        for v, old in zip(state, before):
            v.assign(_core.where(finite, v.value(), old))
        counter = self.step_counter.value()
        grow = _core.logical_and(finite, _core.equal(counter, self.dynamic_growth_steps - 1))
        new_counter = _core.where(grow, _core.zeros_like(counter), counter + 1)
        self.step_counter.assign(_core.where(finite, new_counter, _core.zeros_like(counter)))
        two, half = _core.cast(2.0, scale.dtype), _core.cast(0.5, scale.dtype)
        self.dynamic_scale.assign(_core.where(finite, _core.where(grow, scale * two, scale), scale * half))
        return self.iterations

    def minimize(self, loss: Any, var_list: Any, tape: GradientTape | None = None) -> Variable:
        """Differentiates the scaled loss and applies the gradients.

        Parameters
        ----------
        loss : callable or Tensor
            A callable is evaluated on a new tape and scaled by :meth:`scale_loss`; a
            tensor recorded on ``tape`` is differentiated with the scale as its output
            gradient.
        var_list : list of Variable or callable
            The variables to update.
        tape : GradientTape, optional
            Required for a tensor loss.

        Returns
        -------
        Variable
            The inner optimizer's ``iterations``.
        """
        var_list = list(var_list() if callable(var_list) else var_list)
        if callable(loss):
            with GradientTape() as tape:
                tape.watch(var_list)
                scaled = self.scale_loss(loss())
            grads = tape.gradient(scaled, var_list)
        else:
            if tape is None:
                raise ValueError(
                    f"`tape` is required when a `Tensor` loss is passed. Received: loss={loss}, tape=None."
                )
            loss_t = _core.convert_to_tensor(loss)
            seed = _core.ones_like(loss_t) * _core.cast(self.dynamic_scale, loss_t.dtype)
            grads = tape.gradient(loss_t, var_list, output_gradients=seed)
        return self.apply_gradients(zip(grads, var_list))

    def get_config(self) -> dict[str, Any]:
        """Keras 3's config: ``name``, ``inner_optimizer`` (its class name and config),
        ``initial_scale`` and ``dynamic_growth_steps``.

        Returns
        -------
        dict
        """
        inner = self.inner_optimizer
        return {
            "name": self.name,
            "inner_optimizer": {"class_name": type(inner).__name__, "config": _optimizer_config(inner)},
            "initial_scale": self.initial_scale,
            "dynamic_growth_steps": self.dynamic_growth_steps,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> LossScaleOptimizer:
        """A new LossScaleOptimizer from :meth:`get_config`'s dictionary.

        Parameters
        ----------
        config : dict
            ``inner_optimizer`` may be an optimizer or ``{"class_name", "config"}`` naming a
            tapers optimizer.
        custom_objects : dict, optional
            Extra optimizer classes by name.

        Returns
        -------
        LossScaleOptimizer
        """
        config = dict(config)
        inner = config.pop("inner_optimizer")
        if isinstance(inner, dict):
            from .. import optimizers as _opts

            name = inner["class_name"]
            klass = (custom_objects or {}).get(name) or getattr(_opts, name, None)
            if klass is None:
                raise ValueError(f"LossScaleOptimizer.from_config: unknown optimizer class {name!r}")
            inner_cfg = inner.get("config", {})
            inner = klass.from_config(inner_cfg) if hasattr(klass, "from_config") else klass(**inner_cfg)
        return cls(inner, **config)


__all__ = ["Adafactor", "Lamb", "LossScaleOptimizer", "Muon", "ScheduleFreeAdamW"]
