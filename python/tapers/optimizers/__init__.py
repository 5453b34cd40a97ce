"""Optimizers with Keras 3's update rules.

``SGD``, ``Adam``, ``AdamW`` and ``RMSprop`` are applied in Rust in place on
Variables (one fused kernel per variable); ``Adagrad``, ``Adamax``, ``Nadam``,
``Adadelta``, ``Lion`` and ``Ftrl`` are written with tapers' ops. All take
Keras' arguments and produce Keras' trajectories (tested against values
computed by Keras). Differences
from Keras: a constant ``learning_rate`` reads back as a Python float (a
schedule's as the float32 tensor it computes, as in Keras); EMA,
``loss_scale_factor`` and gradient accumulation are not implemented (dynamic
loss scaling is: ``LossScaleOptimizer``).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Iterable

from .. import _core, _ops
from .._core import Tensor, Variable
from .._indexed_slices import IndexedSlices
from .._tape import GradientTape
from ..dtypes import float64, int64
from . import schedules
from .schedules import LearningRateSchedule

# Keras 3's base options tapers does not implement, at Keras' defaults (reported by get_config).
_KERAS_DEFAULTS: dict[str, Any] = {
    "use_ema": False,
    "ema_momentum": 0.99,
    "ema_overwrite_frequency": None,
    "loss_scale_factor": None,
    "gradient_accumulation_steps": None,
}


def _f32(x: Any) -> float:
    import numpy as np

    return float(np.float32(x))


def _auto_name(class_name: str) -> str:
    """Keras 3's default optimizer names: the class name in snake case, numbered within the
    session (``sgd``, ``sgd_1``, ...; ``keras.backend.clear_session`` restarts the count)."""
    from ..keras import backend
    from ..keras.layers._base import to_snake_case

    return backend.unique_name(to_snake_case(class_name))


def _rate(v: Any) -> Any:
    """A learning rate a schedule or callable gave: a Tensor (or Variable) stays a
    tensor, anything else becomes a float."""
    if isinstance(v, Variable):
        return v.value()
    if isinstance(v, Tensor):
        return v
    return float(v)


class Optimizer:
    """Base class of the optimizers: slots, ``iterations``, clipping, weight
    decay and learning-rate schedules. Subclasses name their update rule.

    Parameters
    ----------
    learning_rate : float, LearningRateSchedule, or callable
        The step size; a schedule is evaluated at ``iterations``.
    weight_decay : float, optional
        Decoupled weight decay (Keras 3's ``weight_decay``).
    clipnorm, clipvalue, global_clipnorm : float, optional
        Gradient clipping (at most one).
    name : str, optional
        The optimizer's name.

    Notes
    -----
    Updates are Keras 3's formulas, fused and applied in place in Rust with the
    GIL released; trajectories match Keras to float32 rounding
    (``tests/test_optimizers.py``). Differences from Keras: no ``ema_*``,
    ``loss_scale_factor`` or ``gradient_accumulation_steps`` options; state
    saves through ``tapers.train.Checkpoint``.
    """

    _kind = ""

    def __init__(
        self,
        learning_rate: float | LearningRateSchedule | Callable[[], float],
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        name: str | None = None,
        **hyper: Any,
    ) -> None:
        if sum(x is not None for x in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError("Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set.")
        self._learning_rate = learning_rate
        self._rate_variable: Variable | None = None
        self._sync_rate_variable()
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = global_clipnorm
        self.name = name or _auto_name(type(self).__name__)
        self._hyper = {k: (float(v) if not isinstance(v, bool) else float(v)) for k, v in hyper.items()}
        self.iterations = Variable(0, dtype=int64, trainable=False, name="iteration")
        self._slots: dict[int, tuple[Variable, list[Variable]]] = {}
        self._exclude: set[int] = set()

    @property
    def learning_rate(self) -> Any:
        """The learning rate at the current iteration: a float, or, for a schedule,
        the tensor it computes from ``iterations`` (as Keras 3), so that a step under
        ``tapers.function`` computes the rate of each call instead of fixing it."""
        lr = self._learning_rate
        if isinstance(lr, LearningRateSchedule):
            return _rate(lr(self.iterations))
        if callable(lr):
            return _rate(lr())
        var = self.__dict__.get("_rate_variable")
        if var is not None and _core._is_tracing():
            # A traced step reads the rate from its Variable, so a replay uses the rate
            # set since (by a callback such as ReduceLROnPlateau), as Keras' rate
            # variable does. The float64 value is the float itself: the same updates.
            return var.value()
        return float(lr)

    @learning_rate.setter
    def learning_rate(self, value: float | LearningRateSchedule) -> None:
        self._learning_rate = value
        self._sync_rate_variable()

    def _sync_rate_variable(self) -> None:
        """Keeps the Variable a traced step reads a constant rate from equal to the rate
        (created with the optimizer; assigned when the rate is set)."""
        lr = self._learning_rate
        if isinstance(lr, (LearningRateSchedule, Tensor, Variable)) or callable(lr):
            return
        try:
            value = float(lr)
        except (TypeError, ValueError):
            return
        var = self.__dict__.get("_rate_variable")
        if var is None:
            self._rate_variable = Variable(value, dtype=float64, trainable=False, name="learning_rate")
        else:
            var.assign(value)

    def exclude_from_weight_decay(self, var_list: Iterable[Variable] | None = None, var_names: Any = None) -> None:
        """Variables that weight decay must not touch."""
        for v in var_list or ():
            self._exclude.add(id(v))

    def _slots_for(self, var: Variable) -> list[Variable]:
        entry = self._slots.get(id(var))
        if entry is None or entry[0] is not var:
            entry = (var, self._new_slots(var))
            self._slots[id(var)] = entry
        return entry[1]

    def _new_slots(self, var: Variable) -> list[Variable]:
        # The Rust rule's slots: zeros, as many as it asks for.
        n = _core._optimizer_slots(self._kind, self._hyper)
        return [
            Variable(_core.zeros_like(var.value()), trainable=False, name=f"{var.name.split(':')[0]}_slot{i}")
            for i in range(n)
        ]

    def variables(self) -> list[Variable]:
        """The optimizer's own variables: iterations, then slots in first-use order."""
        out = [self.iterations]
        for _, slots in self._slots.values():
            out.extend(slots)
        return out

    def scale_loss(self, loss: Any) -> Any:
        """The loss to take gradients of (Keras 3's hook; ``LossScaleOptimizer`` multiplies by its scale).

        Parameters
        ----------
        loss : Tensor
            The loss.

        Returns
        -------
        Tensor
            ``loss`` itself: tapers' optimizers have no ``loss_scale_factor``.
        """
        return loss

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments, with Keras 3's keys (``from_config`` makes a fresh optimizer).

        Returns
        -------
        dict
            ``name``, ``learning_rate`` (a float, a schedule serialized as Keras does, or a callable
            itself), ``weight_decay``,
            the clipping options, Keras' EMA/loss-scale/accumulation keys at their defaults (tapers
            does not implement them) and the optimizer's own hyperparameters.
        """
        import inspect

        lr = self._learning_rate
        config: dict[str, Any] = {
            "name": self.name,
            # Keras keeps a constant rate in a float32 variable and reports its value.
            "learning_rate": (
                schedules.serialize(lr) if isinstance(lr, LearningRateSchedule) else lr if callable(lr) else _f32(lr)
            ),
            "weight_decay": self.weight_decay,
            "clipnorm": self.clipnorm,
            "global_clipnorm": self.global_clipnorm,
            "clipvalue": self.clipvalue,
            **_KERAS_DEFAULTS,
        }
        for pname, param in inspect.signature(type(self).__init__).parameters.items():
            if pname in config or pname == "self" or param.kind in (param.VAR_KEYWORD, param.VAR_POSITIONAL):
                continue
            if hasattr(self, pname):
                value = getattr(self, pname)
            elif pname in self._hyper:
                value = self._hyper[pname]
            else:
                continue
            if isinstance(param.default, bool):
                value = bool(value)
            config[pname] = value
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Any:
        """A new optimizer (no slots, ``iterations`` 0) from :meth:`get_config`'s dictionary.

        Parameters
        ----------
        config : dict
            The configuration.
        custom_objects : dict, optional
            Unused (schedules come as objects).

        Returns
        -------
        Optimizer

        Raises
        ------
        NotImplementedError
            For Keras options tapers does not implement, set away from their defaults.
        """
        del custom_objects
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = schedules.deserialize(config["learning_rate"])
        for key, default in _KERAS_DEFAULTS.items():
            if key in config and config.pop(key) != default:
                raise NotImplementedError(f"tapers optimizers do not implement `{key}`")
        return cls(**config)

    def _clip(self, grads: list[Tensor]) -> list[Tensor]:
        if self.clipvalue is not None:
            return [_ops.clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        if self.clipnorm is not None:
            return [_ops.clip_by_norm(g, self.clipnorm) for g in grads]
        if self.global_clipnorm is not None:
            return list(_ops.clip_by_global_norm(grads, self.global_clipnorm)[0])
        return grads

    def apply_gradients(self, grads_and_vars: Iterable[tuple[Any, Variable]]) -> Variable:
        """Applies one update to each variable; gradients that are None are skipped. A variable
        with a ``constraint`` is then assigned ``constraint(variable)``, as in Keras 3."""
        pairs = list(grads_and_vars)
        kept = [(g, v) for g, v in pairs if g is not None]
        if len(kept) < len(pairs):
            missing = [v.name for g, v in pairs if g is None]
            warnings.warn(f"Gradients do not exist for variables {missing} when minimizing the loss.", stacklevel=2)
        for _, v in kept:
            if not isinstance(v, Variable):
                raise TypeError(f"apply_gradients expects (gradient, Variable) pairs, got {type(v).__name__}")
        if any(isinstance(g, IndexedSlices) for g, _ in kept):
            self._apply_with_slices(kept)
        elif kept:
            grads = self._clip([_core.convert_to_tensor(g) for g, _ in kept])
            variables = [v for _, v in kept]
            lr = self.learning_rate
            # The step is read from `iterations` in Rust (inside `tapers.function`
            # a replay reads the counter then, instead of a value fixed when tracing).
            step = None
            wd = float(self.weight_decay or 0.0)
            decayed = [v for v in variables if id(v) not in self._exclude]
            if wd and len(decayed) < len(variables):
                # Run excluded variables without decay, the rest with it.
                plain = [(g, v) for g, v in zip(grads, variables) if id(v) in self._exclude]
                self._step([g for g, _ in plain], [v for _, v in plain], lr, step, 0.0)
                rest = [(g, v) for g, v in zip(grads, variables) if id(v) not in self._exclude]
                self._step([g for g, _ in rest], [v for _, v in rest], lr, step, wd)
            else:
                self._step(grads, variables, lr, step, wd)
        # Keras 3: each variable's constraint projects it after its update.
        for _, v in kept:
            constraint = v.constraint
            if constraint is not None:
                v.assign(constraint(v))
        self.iterations.assign_add(1)
        return self.iterations

    def _clip_with_slices(self, grads: list[Any]) -> list[Any]:
        # Keras 3's clipping of a list holding IndexedSlices (its TensorFlow
        # backend): `clipvalue` and `clipnorm` scale the values and stay
        # sparse; `global_clipnorm` returns dense tensors. Norms measure the
        # values (a repeated row counts once per occurrence).
        def dense(g: Any) -> Tensor:
            return _core.convert_to_tensor(g)

        if self.clipnorm is not None and self.clipnorm > 0:
            out = []
            for g in grads:
                if isinstance(g, IndexedSlices):
                    l2 = _core.sqrt(_core.reduce_sum(_core.square(g.values)))
                    c = _core.cast(self.clipnorm, g.dtype)
                    out.append(g._with_values(g.values * c / _core.maximum(l2, c)))
                else:
                    out.append(_ops.clip_by_norm(g, self.clipnorm))
            return out
        if self.global_clipnorm is not None and self.global_clipnorm > 0:
            squares = [_core.reduce_sum(_core.square(g.values if isinstance(g, IndexedSlices) else g)) for g in grads]
            norm = _core.sqrt(_core.reduce_sum(_core.stack(squares)))
            clip = float(self.global_clipnorm)
            scale = clip * _core.minimum(1.0 / norm, 1.0 / clip) + (norm - norm)
            return [dense(g) * _core.cast(scale, g.dtype) for g in grads]
        if self.clipvalue is not None and self.clipvalue > 0:
            v = self.clipvalue
            return [
                g._with_values(_ops.clip_by_value(g.values, -v, v))
                if isinstance(g, IndexedSlices)
                else _ops.clip_by_value(g, -v, v)
                for g in grads
            ]
        return [g if isinstance(g, IndexedSlices) else dense(g) for g in grads]

    def _apply_with_slices(self, kept: list[tuple[Any, Variable]]) -> None:
        # A step where some gradients are IndexedSlices (gathers of embedding
        # tables), with Keras 3's rules for them: plain SGD scatters the rows
        # into the variable; Adam and RMSprop feed the summed rows to their
        # first moments and the summed squared rows to their second moments
        # (Keras squares each row before adding repeats); SGD with momentum
        # is dense in Keras and runs the dense kernel. Dense gradients take
        # the usual fused kernel.
        grads = self._clip_with_slices([g for g, _ in kept])
        lr = self.learning_rate
        wd = float(self.weight_decay or 0.0)
        dense_pairs: list[tuple[Tensor, Variable]] = []
        for g, v in zip(grads, (v for _, v in kept)):
            if isinstance(g, IndexedSlices) and self._kind == "sgd" and self._hyper.get("momentum", 0.0):
                g = _core.convert_to_tensor(g)
            if not isinstance(g, IndexedSlices):
                dense_pairs.append((_core.convert_to_tensor(g), v))
                continue
            decay = wd if id(v) not in self._exclude else 0.0
            if decay:
                v.assign_sub(v * _core.cast(decay * lr, v.dtype))
            self._sparse_step(g, v, lr)
        for decayed in (False, True):
            pairs = [(g, v) for g, v in dense_pairs if (id(v) not in self._exclude) == decayed]
            self._step([g for g, _ in pairs], [v for _, v in pairs], lr, None, wd if decayed else 0.0)

    def _sparse_step(self, g: IndexedSlices, var: Variable, lr: Any) -> None:
        # One variable's update with an IndexedSlices gradient (Keras 3's
        # formulas on the TensorFlow backend).
        dt = var.dtype
        values = _core.cast(g.values, dt)
        rows = _core.expand_dims(g.indices, 1)
        if self._kind == "sgd":
            var.assign(_core.tensor_scatter_nd_add(var, rows, values * _core.cast(-lr, dt)))
            return
        g_sum = _core.convert_to_tensor(g._with_values(values))
        sq_sum = _core.convert_to_tensor(g._with_values(_core.square(values)))
        h = self._hyper
        slots = self._slots_for(var)
        if self._kind == "adam":
            b1, b2, eps = h["beta_1"], h["beta_2"], h["epsilon"]
            # Keras 3's bias correction, in the variable's dtype, from the counter
            # as a tensor (so a traced step reads it at each replay).
            t = _core.cast(self.iterations + 1, dt)
            b1_power, b2_power = _core.pow(_core.cast(b1, dt), t), _core.pow(_core.cast(b2, dt), t)
            alpha = _core.cast(lr, dt) * _core.sqrt(1 - b2_power) / (1 - b1_power)
            m, vel = slots[0], slots[1]
            m.assign_add((g_sum - m) * _core.cast(1.0 - b1, dt))
            vel.assign_add((sq_sum - vel) * _core.cast(1.0 - b2, dt))
            denom_v = vel.value()
            if h.get("amsgrad"):
                slots[2].assign(_core.maximum(slots[2], vel))
                denom_v = slots[2].value()
            var.assign_sub(m * alpha / (_core.sqrt(denom_v) + _core.cast(eps, dt)))
            return
        # rmsprop
        rho, momentum, eps = h["rho"], h["momentum"], h["epsilon"]
        vel = slots[0]
        vel.assign(vel * _core.cast(rho, dt) + sq_sum * _core.cast(1.0 - rho, dt))
        if h.get("centered"):
            avg = slots[-1]
            avg.assign(avg * _core.cast(rho, dt) + g_sum * _core.cast(1.0 - rho, dt))
            denom = vel - _core.square(avg) + _core.cast(eps, dt)
        else:
            denom = vel + _core.cast(eps, dt)
        increment = g_sum * _core.cast(lr, dt) / _core.sqrt(denom)
        if momentum > 0:
            mom = slots[1]
            mom.assign(mom * _core.cast(momentum, dt) + increment)
            var.assign_sub(mom)
        else:
            var.assign_sub(increment)

    def apply(self, grads: Iterable[Any], trainable_variables: Iterable[Variable]) -> Variable:
        """Keras 3's form of :meth:`apply_gradients`: gradients and variables as two lists of the same length."""
        grads, variables = list(grads), list(trainable_variables)
        if len(grads) != len(variables):
            raise ValueError(f"apply: {len(grads)} gradients for {len(variables)} variables")
        return self.apply_gradients(zip(grads, variables))

    def _step(self, grads: list[Tensor], variables: list[Variable], lr: Any, step: int | None, wd: float) -> None:
        if variables:
            slots = [self._slots_for(v) for v in variables]
            _core._optimizer_step(self._kind, self._hyper, grads, variables, slots, lr, step, wd, self.iterations)

    def minimize(self, loss: Any, var_list: Any, tape: GradientTape | None = None) -> Variable:
        """Computes gradients of ``loss`` (a callable, or a tensor recorded on ``tape``) and applies them."""
        var_list = list(var_list() if callable(var_list) else var_list)
        if callable(loss):
            with GradientTape() as tape:
                tape.watch(var_list)
                loss = loss()
        elif tape is None:
            raise ValueError(f"`tape` is required when a `Tensor` loss is passed. Received: loss={loss}, tape=None.")
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list))


class SGD(Optimizer):
    """Gradient descent with optional (Nesterov) momentum (``keras.optimizers.SGD``).

    Parameters
    ----------
    momentum : float, default 0.0
        Velocity decay; 0 is plain gradient descent.
    nesterov : bool, default False
        Nesterov momentum.
    learning_rate : float, LearningRateSchedule, or callable
        The step size; a schedule is evaluated at ``iterations``.
    weight_decay : float, optional
        Decoupled weight decay (Keras 3's ``weight_decay``).
    clipnorm, clipvalue, global_clipnorm : float, optional
        Gradient clipping (at most one).
    name : str, optional
        The optimizer's name.

    Notes
    -----
    Updates are Keras 3's formulas, fused and applied in place in Rust with the
    GIL released; trajectories match Keras to float32 rounding
    (``tests/test_optimizers.py``). Differences from Keras: no ``ema_*``,
    ``loss_scale_factor`` or ``gradient_accumulation_steps`` options; state
    saves through ``tapers.train.Checkpoint``.
    """

    _kind = "sgd"

    def __init__(
        self,
        learning_rate: Any = 0.01,
        momentum: float = 0.0,
        nesterov: bool = False,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        if not 0 <= momentum <= 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        super().__init__(
            learning_rate,
            weight_decay,
            clipnorm,
            clipvalue,
            global_clipnorm,
            name,
            momentum=momentum,
            nesterov=nesterov,
        )


class Adam(Optimizer):
    """Adam (``keras.optimizers.Adam``).

    Parameters
    ----------
    beta_1, beta_2 : float, default 0.9, 0.999
        Decay rates of the first and second moment estimates.
    epsilon : float, default 1e-7
        Added to the denominator, as in Keras.
    amsgrad : bool, default False
        Keep the maximum of past second moments.
    learning_rate : float, LearningRateSchedule, or callable
        The step size; a schedule is evaluated at ``iterations``.
    weight_decay : float, optional
        Decoupled weight decay (Keras 3's ``weight_decay``).
    clipnorm, clipvalue, global_clipnorm : float, optional
        Gradient clipping (at most one).
    name : str, optional
        The optimizer's name.

    Notes
    -----
    Updates are Keras 3's formulas, fused and applied in place in Rust with the
    GIL released; trajectories match Keras to float32 rounding
    (``tests/test_optimizers.py``). Differences from Keras: no ``ema_*``,
    ``loss_scale_factor`` or ``gradient_accumulation_steps`` options; state
    saves through ``tapers.train.Checkpoint``.
    """

    _kind = "adam"

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            learning_rate,
            weight_decay,
            clipnorm,
            clipvalue,
            global_clipnorm,
            name,
            beta_1=beta_1,
            beta_2=beta_2,
            epsilon=epsilon,
            amsgrad=amsgrad,
        )


class AdamW(Adam):
    """Adam with decoupled weight decay (``keras.optimizers.AdamW``).

    Parameters
    ----------
    learning_rate : float, LearningRateSchedule, or callable
        The step size.
    weight_decay : float, default 0.004
        Decoupled decay, as Keras 3's default.
    beta_1, beta_2, epsilon, amsgrad
        As ``Adam``.
    clipnorm, clipvalue, global_clipnorm, name
        As ``Optimizer``.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        weight_decay: float = 0.004,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        if weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: weight_decay=None")
        super().__init__(
            learning_rate, beta_1, beta_2, epsilon, amsgrad, weight_decay, clipnorm, clipvalue, global_clipnorm, name
        )


class RMSprop(Optimizer):
    """RMSprop (``keras.optimizers.RMSprop``).

    Parameters
    ----------
    rho : float, default 0.9
        Decay of the mean squared gradient.
    momentum : float, default 0.0
        Momentum of the update.
    epsilon : float, default 1e-7
        Added to the denominator.
    centered : bool, default False
        Normalize by the gradient's variance instead of its second moment.
    learning_rate : float, LearningRateSchedule, or callable
        The step size; a schedule is evaluated at ``iterations``.
    weight_decay : float, optional
        Decoupled weight decay (Keras 3's ``weight_decay``).
    clipnorm, clipvalue, global_clipnorm : float, optional
        Gradient clipping (at most one).
    name : str, optional
        The optimizer's name.

    Notes
    -----
    Updates are Keras 3's formulas, fused and applied in place in Rust with the
    GIL released; trajectories match Keras to float32 rounding
    (``tests/test_optimizers.py``). Differences from Keras: no ``ema_*``,
    ``loss_scale_factor`` or ``gradient_accumulation_steps`` options; state
    saves through ``tapers.train.Checkpoint``.
    """

    _kind = "rmsprop"

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: float = 0.9,
        momentum: float = 0.0,
        epsilon: float = 1e-7,
        centered: bool = False,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            learning_rate,
            weight_decay,
            clipnorm,
            clipvalue,
            global_clipnorm,
            name,
            rho=rho,
            momentum=momentum,
            epsilon=epsilon,
            centered=centered,
        )


from ._composed import Adadelta, Adagrad, Adamax, Ftrl, Lion, Nadam  # noqa: E402 - they subclass Optimizer
from ._more import Adafactor, Lamb, LossScaleOptimizer, Muon, ScheduleFreeAdamW  # noqa: E402 - they subclass Optimizer

__all__ = [
    "SGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "Ftrl", "Lamb", "Lion", "LossScaleOptimizer",
    "Muon", "Nadam", "Optimizer", "RMSprop", "ScheduleFreeAdamW", "schedules",
]  # fmt: skip
