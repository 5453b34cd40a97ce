"""``keras.callbacks``: ``Callback``, ``History``, the progress bar ``fit`` prints (``ProgbarLogger``), and
Keras 3's ``EarlyStopping``, ``ReduceLROnPlateau``, ``LearningRateScheduler``, ``TerminateOnNaN`` and
``CSVLogger`` (their decisions, messages and files compared with Keras' in
``tests/test_keras_callbacks.py``)."""

from __future__ import annotations

import csv
import logging
import math
import os
import sys
import time
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = [
    "CSVLogger", "Callback", "CallbackList", "EarlyStopping", "History", "LambdaCallback", "LearningRateScheduler",
    "Progbar", "ProgbarLogger", "ReduceLROnPlateau", "TerminateOnNaN",
]  # fmt: skip


class Callback:
    """Hooks ``fit``/``evaluate``/``predict`` call around epochs and batches (``keras.callbacks.Callback``).

    Attributes
    ----------
    model : keras.Model
        The model being trained (set by ``fit``).
    params : dict
        ``epochs``, ``steps`` and ``verbose``.
    """

    def __init__(self) -> None:
        self.params: dict[str, Any] = {}
        self.model: Any = None

    def set_params(self, params: dict[str, Any]) -> None:
        """Receives ``epochs``, ``steps`` and ``verbose``."""
        self.params = params

    def set_model(self, model: Any) -> None:
        """Receives the model being trained."""
        self.model = model

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        """Called once when ``fit`` starts."""

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        """Called once when ``fit`` ends."""

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """Called at the start of each epoch."""

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """Called at the end of each epoch with its logs (and the validation's, prefixed ``val_``)."""

    def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called before each training step; calls :meth:`on_batch_begin` (Keras' older name)."""
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called after each training step with the running metrics; calls :meth:`on_batch_end`."""
        self.on_batch_end(batch, logs=logs)

    def on_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Keras' older name of :meth:`on_train_batch_begin`."""

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Keras' older name of :meth:`on_train_batch_end`."""

    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None:
        """Called when ``evaluate`` starts."""

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        """Called when ``evaluate`` ends."""

    def on_test_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called before each evaluation step."""

    def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called after each evaluation step."""

    def on_predict_begin(self, logs: dict[str, Any] | None = None) -> None:
        """Called when ``predict`` starts."""

    def on_predict_end(self, logs: dict[str, Any] | None = None) -> None:
        """Called when ``predict`` ends."""

    def on_predict_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called before each prediction step."""

    def on_predict_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called after each prediction step."""


class LambdaCallback(Callback):
    """A callback from functions: ``LambdaCallback(on_epoch_end=lambda epoch, logs: ...)``.

    Parameters
    ----------
    **hooks
        Callback method names (``on_epoch_end``, ...) and the functions to call.
    """

    def __init__(self, **hooks: Any) -> None:
        super().__init__()
        for name, fn in hooks.items():
            if not name.startswith("on_") or not hasattr(Callback, name):
                raise ValueError(f"Unrecognized hook {name!r} for LambdaCallback")
            setattr(self, name, fn)


class History(Callback):
    """Records each epoch's logs: ``history.history["loss"]`` is the list of epoch losses.

    Attributes
    ----------
    history : dict of str to list of float
        Each logged value per epoch (``val_`` entries for validation).
    epoch : list of int
        The epochs run.
    """

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list[float]] = {}
        self.epoch: list[int] = []

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        """Starts a new record."""
        self.epoch = []

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """Appends the epoch's values."""
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)
        if self.model is not None:
            self.model.history = self


def _print_msg(message: str, line_break: bool = True) -> None:
    """Progress output: to stdout, or to the ``tapers.keras`` logger at INFO level after
    ``keras.config.disable_interactive_logging()`` (Keras sends it to absl logging then)."""
    from . import config

    if config.is_interactive_logging_enabled():
        sys.stdout.write(f"{message}\n" if line_break else message)
        sys.stdout.flush()
    else:
        logging.getLogger("tapers.keras").info(message)


class Progbar:
    """Keras' progress bar: ``12/32 ━━━━━━━━━━━━━━━━━━━━ 0s 3ms/step - loss: 0.1234``.

    The line is redrawn in place (a carriage return) wherever Keras does so:
    on a terminal, in a notebook, and on any POSIX system.

    Parameters
    ----------
    target : int or None
        Number of steps (``None``: unknown).
    width : int
        Bar width in characters.
    verbose : int
        1: the bar; 2: one line at the end.
    interval : float
        Minimum seconds between redraws.
    stateful_metrics : iterable of str, optional
        Accepted for Keras compatibility: every value shown is the one passed.
    unit_name : str
        ``step``.
    """

    def __init__(
        self,
        target: int | None,
        width: int = 20,
        verbose: int = 1,
        interval: float = 0.05,
        stateful_metrics: Iterable[str] | None = None,
        unit_name: str = "step",
    ) -> None:
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        self.stateful_metrics = set(stateful_metrics) if stateful_metrics is not None else None
        # Keras' test: a terminal, a notebook, or any POSIX system (so pipes get "\r" redraws too).
        self._dynamic_display = (
            (hasattr(sys.stdout, "isatty") and sys.stdout.isatty())
            or "ipykernel" in sys.modules
            or "posix" in sys.modules
            or "PYCHARM_HOSTED" in os.environ
        )
        self._values: dict[str, Any] = {}
        self._values_order: list[str] = []
        self._seen_so_far = 0
        self._start = time.time()
        self._last_update = 0.0
        self._prev_total_width = 0
        self._time_at_epoch_start = self._start
        self._time_after_first_step: float | None = None

    def _estimate_step_duration(self, current: int, now: float) -> float:
        if current:
            if self._time_after_first_step is not None and current > 1:
                return (now - self._time_after_first_step) / (current - 1)
            return (now - self._start) / current
        return 0.0

    @staticmethod
    def _format_time(time_per_unit: float, unit_name: str) -> str:
        if time_per_unit >= 1 or time_per_unit == 0:
            return f" {time_per_unit:.0f}s/{unit_name}"
        if time_per_unit >= 1e-3:
            return f" {time_per_unit * 1e3:.0f}ms/{unit_name}"
        return f" {time_per_unit * 1e6:.0f}us/{unit_name}"

    def update(self, current: int, values: list[tuple[str, Any]] | None = None, finalize: bool | None = None) -> None:
        """Shows step ``current`` with ``(name, value)`` pairs (the running values ``fit`` reports)."""
        if finalize is None:
            finalize = False if self.target is None else current >= self.target
        for k, v in values or []:
            if k not in self._values_order:
                self._values_order.append(k)
            self._values[k] = [v, 1]
        self._seen_so_far = current
        now = time.time()
        if current == 1 and self._time_after_first_step is None:
            self._time_after_first_step = now
        time_per_unit = self._estimate_step_duration(current, now)
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            message = ("\b" * self._prev_total_width + "\r") if self._dynamic_display else "\n"
            special = 0
            if self.target is not None and self.target > 0:
                numdigits = int(math.log10(self.target)) + 1
                bar = f"\x1b[1m{current:{numdigits}d}/{self.target}\x1b[0m "
                special += 8
                prog_width = int(self.width * float(current) / self.target)
                if prog_width > 0:
                    bar += f"\x1b[32m{'━' * prog_width}\x1b[0m"
                    special += 9
                bar += f"\x1b[37m{'━' * (self.width - prog_width)}\x1b[0m"
                special += 9
            else:
                bar = f"{current:7d}/Unknown"
            if self.target is not None and self.target > 0 and not finalize:
                eta = time_per_unit * (self.target - current)
                if eta > 3600:
                    eta_format = f"{int(eta // 3600)}:{int((eta % 3600) // 60):02d}:{int(eta % 60):02d}"
                elif eta > 60:
                    eta_format = f"{int(eta // 60)}:{int(eta % 60):02d}"
                else:
                    eta_format = f"{int(eta)}s"
                info = f" \x1b[1m{eta_format}\x1b[0m"
            else:
                info = f" \x1b[1m{now - self._start:.0f}s\x1b[0m"
            special += 8
            info += self._format_time(time_per_unit, self.unit_name)
            info += self._values_text()
            total_width = len(bar) + len(info) - special
            message += bar + info
            if self._prev_total_width > total_width:
                message += " " * (self._prev_total_width - total_width)
            if finalize:
                message += "\n"
            _print_msg(message, line_break=False)
            self._prev_total_width = total_width
        elif self.verbose == 2 and finalize and self.target:
            numdigits = int(math.log10(self.target)) + 1
            info = f"{current:{numdigits}d}/{self.target} - {now - self._start:.0f}s"
            info += f" -{self._format_time(time_per_unit, self.unit_name)}"
            info += self._values_text()
            _print_msg(info)
        self._last_update = now

    def _values_text(self) -> str:
        info = ""
        for k in self._values_order:
            value, count = self._values[k]
            avg = float(np.mean(value)) / max(1, count)
            info += f" - {k}: {avg:.4f}" if abs(avg) > 1e-3 else f" - {k}: {avg:.4e}"
        return info


class ProgbarLogger(Callback):
    """Prints ``Epoch 1/5`` and a :class:`Progbar` per epoch (``fit(verbose=1)``), one line per epoch
    with ``verbose=2``.

    Attributes
    ----------
    progbar : Progbar
        The current bar.
    """

    def __init__(self) -> None:
        super().__init__()
        self.progbar: Progbar | None = None
        self.epochs = 1
        self.verbose = 1
        self.target: int | None = None
        self._called_in_fit = False
        self.seen = 0

    def set_params(self, params: dict[str, Any]) -> None:
        """Takes ``verbose``, ``epochs`` and ``steps``."""
        super().set_params(params)
        self.verbose = params.get("verbose", 1)
        self.epochs = params.get("epochs", 1)
        self.target = params.get("steps")

    def _reset(self) -> None:
        self.seen = 0
        self.progbar = None

    def _maybe_init(self) -> None:
        if self.progbar is None:
            self.progbar = Progbar(target=self.target, verbose=self.verbose, unit_name="step")

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        """Marks that evaluation inside ``fit`` (validation) prints nothing."""
        self._called_in_fit = True

    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None:
        """Starts a bar for ``evaluate`` (not for validation inside ``fit``)."""
        if not self._called_in_fit:
            self._reset()
            self._maybe_init()

    def on_predict_begin(self, logs: dict[str, Any] | None = None) -> None:
        """Starts a bar for ``predict``."""
        self._reset()
        self._maybe_init()

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """Prints ``Epoch i/n``."""
        self._reset()
        self._maybe_init()
        if self.verbose and self.epochs > 1:
            _print_msg(f"Epoch {epoch + 1}/{self.epochs}")

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Updates the bar."""
        self._update(batch, logs)

    def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Updates the bar of ``evaluate``."""
        if not self._called_in_fit:
            self._update(batch, logs)

    def on_predict_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Updates the bar of ``predict`` (no values)."""
        self._update(batch, None)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """Finishes the epoch's line with its final values (validation included)."""
        self._finalize(logs)

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        """Finishes ``evaluate``'s line."""
        if not self._called_in_fit:
            self._finalize(logs)

    def on_predict_end(self, logs: dict[str, Any] | None = None) -> None:
        """Finishes ``predict``'s line."""
        self._finalize(None)

    def _update(self, batch: int, logs: dict[str, Any] | None) -> None:
        self._maybe_init()
        self.seen = batch + 1
        if self.verbose == 1 and self.progbar is not None:
            self.progbar.update(self.seen, list((logs or {}).items()), finalize=False)

    def _finalize(self, logs: dict[str, Any] | None) -> None:
        self._maybe_init()
        if self.target is None:
            self.target = self.seen
            assert self.progbar is not None
            self.progbar.target = self.seen
        assert self.progbar is not None
        self.progbar.update(self.target, list((logs or {}).items()), finalize=True)


class CallbackList(Callback):
    """Calls each hook on every callback, in order.

    Parameters
    ----------
    callbacks : iterable of Callback
        The callbacks.
    model : keras.Model
        Given to each callback.
    **params
        ``epochs``, ``steps``, ``verbose``, given to each callback.
    """

    def __init__(self, callbacks: Iterable[Callback] | None, model: Any, **params: Any) -> None:
        super().__init__()
        self.callbacks = list(callbacks or [])
        for cb in self.callbacks:
            cb.set_model(model)
            cb.set_params(params)

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("on_"):
            callbacks = object.__getattribute__(self, "callbacks")

            def call_all(*args: Any, **kwargs: Any) -> None:
                for cb in callbacks:
                    getattr(cb, name)(*args, **kwargs)

            return call_all
        return object.__getattribute__(self, name)


def _read_rate(optimizer: Any) -> float:
    # Keras keeps the rate in a float32 variable: what callbacks read (and print) is its float32
    # value.
    return float(np.float32(np.asarray(optimizer.learning_rate)))


class _MonitorCallback(Callback):
    """Keras 3's ``MonitorCallback``: a logged quantity, whether it should go up or down, and
    what counts as an improvement (by more than ``min_delta``)."""

    def __init__(
        self, monitor: str = "val_loss", mode: str = "auto", baseline: Any = None, min_delta: float = 0
    ) -> None:
        super().__init__()
        if mode not in ["auto", "min", "max"]:
            warnings.warn(f"{type(self).__name__} mode '{mode}' is unknown, fallback to auto mode.", stacklevel=3)
            mode = "auto"
        self.monitor = monitor
        self.mode = mode
        self.best = baseline
        self.min_delta = abs(min_delta)
        self.monitor_op: Any = None

    def _set_monitor_op(self) -> None:
        if self.mode == "min":
            self.monitor_op = np.less
        elif self.mode == "max":
            self.monitor_op = np.greater
        else:
            name = self.monitor.removeprefix("val_")
            if name == "loss":
                self.monitor_op = np.less
            for m in _flat_metrics(self.model):
                if getattr(m, "name", None) == name and getattr(m, "_direction", None) is not None:
                    self.monitor_op = np.greater if m._direction == "up" else np.less
            if self.monitor_op is None:
                raise ValueError(
                    f"{type(self).__name__} callback received monitor={self.monitor}, but Keras isn't able to "
                    "automatically determine whether that metric should be maximized or minimized. Pass "
                    "`mode='max'` in order to monitor based on the highest metric value, or pass `mode='min'` in "
                    "order to use the lowest value."
                )
        if self.monitor_op is np.less:
            self.min_delta *= -1

    def _is_improvement(self, value: Any, reference: Any) -> bool:
        if reference is None:
            return True
        return bool(self.monitor_op(value - self.min_delta, reference))


def _flat_metrics(model: Any) -> list[Any]:
    # The compiled metrics (as Keras' `CompileMetrics.metrics`) and the model's other metrics.
    out: list[Any] = []
    for m in getattr(model, "metrics", None) or []:
        inner = getattr(m, "metrics", None)
        out.extend(inner if isinstance(inner, list) else [m])
    return out


class EarlyStopping(_MonitorCallback):
    """Stops ``fit`` when a monitored quantity has stopped improving (``keras.callbacks.EarlyStopping``).

    Parameters
    ----------
    monitor : str, default "val_loss"
        The logged quantity.
    min_delta : float, default 0
        The smallest change that counts as an improvement.
    patience : int, default 0
        Epochs without improvement before stopping.
    verbose : int, default 0
        1 prints when it stops and when it restores weights.
    mode : {"auto", "min", "max"}, default "auto"
        Whether the quantity should go down or up; ``"auto"`` knows losses and the
        compiled metrics' directions.
    baseline : float, optional
        A value the quantity must beat for patience to reset.
    restore_best_weights : bool, default False
        At the end, set the weights of the best epoch.
    start_from_epoch : int, default 0
        Epochs to wait before monitoring.

    Attributes
    ----------
    stopped_epoch : int
        The epoch at which training stopped (0 if it did not).
    best_epoch : int
        The best epoch.
    """

    def __init__(
        self,
        monitor: str = "val_loss",
        min_delta: float = 0,
        patience: int = 0,
        verbose: int = 0,
        mode: str = "auto",
        baseline: float | None = None,
        restore_best_weights: bool = False,
        start_from_epoch: int = 0,
    ) -> None:
        super().__init__(monitor, mode, min_delta=min_delta)
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.wait = 0
        self.stopped_epoch = 0
        self.restore_best_weights = restore_best_weights
        self.best_weights: Any = None
        self.start_from_epoch = start_from_epoch
        self.best_epoch = 0

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        """Resets the counters."""
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """Compares the epoch's value with the best; sets ``model.stop_training`` when patience runs out."""
        if self.monitor_op is None:
            self._set_monitor_op()
        current = self._monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
            self.best_epoch = epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        """Reports the stop and restores the best weights when asked."""
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)

    def _monitor_value(self, logs: dict[str, Any] | None) -> Any:
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            warnings.warn(
                f"Early stopping conditioned on metric `{self.monitor}` which is not available. "
                f"Available metrics are: {','.join(list(logs.keys()))}",
                stacklevel=2,
            )
        return value


class ReduceLROnPlateau(_MonitorCallback):
    """Multiplies the learning rate by ``factor`` when a quantity stops improving
    (``keras.callbacks.ReduceLROnPlateau``).

    Parameters
    ----------
    monitor : str, default "val_loss"
        The logged quantity.
    factor : float, default 0.1
        The rate's multiplier; below 1.
    patience : int, default 10
        Epochs without improvement before reducing.
    verbose : int, default 0
        1 prints each reduction.
    mode : {"auto", "min", "max"}, default "auto"
        As ``EarlyStopping``'s.
    min_delta : float, default 1e-4
        The smallest change that counts as an improvement.
    cooldown : int, default 0
        Epochs to wait after a reduction before counting again.
    min_lr : float, default 0.0
        The rate's floor.

    Raises
    ------
    ValueError
        ``factor >= 1`` (Keras' message).
    """

    def __init__(
        self,
        monitor: str = "val_loss",
        factor: float = 0.1,
        patience: int = 10,
        verbose: int = 0,
        mode: str = "auto",
        min_delta: float = 1e-4,
        cooldown: int = 0,
        min_lr: float = 0.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(monitor, mode, min_delta=min_delta)
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0. Received factor={factor}")
        self.factor = factor
        self.min_lr = min_lr
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        """Resets the counters."""
        self.best = None
        self.cooldown_counter = 0
        self.wait = 0

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """Logs ``learning_rate`` and reduces it after ``patience`` epochs without improvement."""
        if self.monitor_op is None:
            self._set_monitor_op()
        logs = logs if logs is not None else {}
        optimizer = self.model.optimizer
        logs["learning_rate"] = _read_rate(optimizer)
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(
                f"Learning rate reduction is conditioned on metric `{self.monitor}` which is not available. "
                f"Available metrics are: {','.join(list(logs.keys()))}.",
                stacklevel=2,
            )
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = _read_rate(optimizer)
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    optimizer.learning_rate = new_lr
                    if self.verbose > 0:
                        print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new_lr}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0

    def in_cooldown(self) -> bool:
        """Whether the last reduction's cooldown is still running."""
        return self.cooldown_counter > 0


class LearningRateScheduler(Callback):
    """Sets the learning rate at the start of each epoch from ``schedule(epoch)`` or
    ``schedule(epoch, lr)`` (``keras.callbacks.LearningRateScheduler``).

    Parameters
    ----------
    schedule : callable
        Returns the epoch's rate (a float).
    verbose : int, default 0
        1 prints each rate set.

    Raises
    ------
    ValueError
        The schedule returned something other than a float (Keras' message).
    """

    def __init__(self, schedule: Any, verbose: int = 0) -> None:
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """Sets the optimizer's rate for this epoch."""
        optimizer = self.model.optimizer
        if not hasattr(optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        try:
            rate = self.schedule(epoch, _read_rate(optimizer))
        except TypeError:
            rate = self.schedule(epoch)
        if not isinstance(rate, (float, np.float32, np.float64)):
            raise ValueError(f"The output of the `schedule` function should be a float. Got: {rate}")
        optimizer.learning_rate = float(rate)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {rate}.")

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """Logs ``learning_rate``."""
        if logs is not None:
            logs["learning_rate"] = _read_rate(self.model.optimizer)


class TerminateOnNaN(Callback):
    """Stops ``fit`` (or raises) when a batch's loss is NaN or infinite (``keras.callbacks.TerminateOnNaN``).

    Parameters
    ----------
    raise_error : bool, default False
        Raise ``RuntimeError`` instead of setting ``model.stop_training``.
    """

    def __init__(self, raise_error: bool = False) -> None:
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Checks the batch's loss."""
        loss = (logs or {}).get("loss")
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            if self.raise_error:
                raise RuntimeError(
                    f"NaN or Inf loss encountered at batch {batch}. Loss value: {loss}. "
                    "Terminating training immediately."
                )
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


class CSVLogger(Callback):
    """Writes each epoch's logs as a row of a CSV file (``keras.callbacks.CSVLogger``).

    Parameters
    ----------
    filename : str or path
        The file.
    separator : str, default ","
        The column separator.
    append : bool, default False
        Append to an existing file (its header is kept) instead of overwriting it.
    """

    def __init__(self, filename: Any, separator: str = ",", append: bool = False) -> None:
        super().__init__()
        self.sep = separator
        self.filename = os.fspath(filename)
        self.append = append
        self.writer: Any = None
        self.keys: list[str] | None = None
        self.append_header = True
        self.csv_file: Any = None

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        """Opens the file."""
        mode = "w"
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as f:
                    self.append_header = not bool(len(f.readline()))
            mode = "a"
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
        self.csv_file = open(self.filename, mode, newline="")  # noqa: SIM115 - closed in on_train_end
        self.writer = None
        self.keys = None

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """Writes the epoch's row (the header first: ``epoch`` and the sorted keys, plus ``val_`` columns)."""
        logs = logs or {}

        def handle_value(k: Any) -> Any:
            if isinstance(k, str):
                return k
            if isinstance(k, Iterable) and not (isinstance(k, np.ndarray) and k.ndim == 0):
                return '"[' + ", ".join(map(str, k)) + ']"'
            return k

        if self.keys is None:
            self.keys = sorted(logs.keys())
            if self.keys and not any(k.startswith("val_") for k in self.keys):
                self.keys.extend([f"val_{k}" for k in self.keys])
        if not self.writer:
            self.writer = csv.DictWriter(
                self.csv_file, fieldnames=["epoch", *self.keys], dialect=csv.excel, delimiter=self.sep
            )
            if self.append_header:
                self.writer.writeheader()
        row: dict[str, Any] = {"epoch": epoch}
        row.update((key, handle_value(logs.get(key, "NA"))) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        """Closes the file."""
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
        self.writer = None
