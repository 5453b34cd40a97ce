"""``keras.callbacks``: ``Callback``, ``History``, the progress bar ``fit`` prints (``ProgbarLogger``), and
Keras 3's ``EarlyStopping``, ``ReduceLROnPlateau``, ``LearningRateScheduler``, ``TerminateOnNaN``,
``CSVLogger``, ``ModelCheckpoint`` and ``BackupAndRestore`` (their decisions, messages and files compared with
Keras' in ``tests/test_keras_callbacks.py`` and ``tests/test_keras_model_checkpoint.py``)."""

from __future__ import annotations

import csv
import json
import logging
import math
import os
import shutil
import sys
import time
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = [
    "BackupAndRestore", "CSVLogger", "Callback", "CallbackList", "EarlyStopping", "History", "LambdaCallback",
    "LearningRateScheduler", "ModelCheckpoint", "Progbar", "ProgbarLogger", "ReduceLROnPlateau", "TerminateOnNaN",
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


class ModelCheckpoint(_MonitorCallback):
    """Saves the model's weights during ``fit``, every epoch or every few batches, or only when a
    monitored quantity improves (``keras.callbacks.ModelCheckpoint``).

    Parameters
    ----------
    filepath : str or path
        Where to save; may hold ``str.format`` fields filled from the epoch (``{epoch}``, counted
        from 1), the batch (``{batch}``, from 1, with an integer ``save_freq``) and the logs
        (``{val_loss:.2f}``). Must end in ``.weights.h5`` (Keras' rule; tapers writes safetensors
        there).
    monitor : str, default "val_loss"
        The logged quantity ``save_best_only`` compares.
    verbose : int, default 0
        1 prints a line for each decision and each save.
    save_best_only : bool, default False
        Save only when ``monitor`` improves on the best value so far.
    save_weights_only : bool, default False
        Must be True: whole-model saving (``model.save``) is not implemented by tapers, so
        False raises ``NotImplementedError`` here (after Keras' own check of the extension).
    mode : {"auto", "min", "max"}, default "auto"
        Whether ``monitor`` should go down or up; ``"auto"`` knows losses and compiled metrics.
    save_freq : "epoch" or int, default "epoch"
        Save at the end of each epoch, or after every this many batches.
    initial_value_threshold : float, optional
        With ``save_best_only``: the value the first save must beat.

    Attributes
    ----------
    best : float or None
        The best value of ``monitor`` so far.
    """

    def __init__(
        self,
        filepath: Any,
        monitor: str = "val_loss",
        verbose: int = 0,
        save_best_only: bool = False,
        save_weights_only: bool = False,
        mode: str = "auto",
        save_freq: Any = "epoch",
        initial_value_threshold: float | None = None,
    ) -> None:
        super().__init__(monitor, mode, initial_value_threshold)
        self.verbose = verbose
        self.filepath = os.fspath(filepath)
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen: int | None = None
        self._current_epoch = 0
        if save_freq != "epoch" and (not isinstance(save_freq, int) or isinstance(save_freq, bool)):
            raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected save_freq are 'epoch' or integer values")
        if save_weights_only:
            if not self.filepath.endswith(".weights.h5"):
                raise ValueError(
                    "When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided must end in "
                    f"`.weights.h5` (Keras weights format). Received: filepath={self.filepath}"
                )
        else:
            if not self.filepath.endswith((".keras", ".h5")):
                raise ValueError(
                    "The filepath provided must end in `.keras` (Keras model format). "
                    f"Received: filepath={self.filepath}"
                )
            raise NotImplementedError(
                "tapers.keras.callbacks.ModelCheckpoint: whole-model saving (`model.save`, used when "
                "save_weights_only=False) is not implemented by tapers; pass save_weights_only=True and a "
                "filepath ending in `.weights.h5`"
            )

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """Records the epoch (for batch-level saves)."""
        self._current_epoch = epoch

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Saves every ``save_freq`` batches when ``save_freq`` is an integer."""
        if self._should_save_on_batch(batch):
            self._save_model(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """Saves (or, with ``save_best_only``, decides whether to) when ``save_freq="epoch"``."""
        if self.monitor_op is None:
            self._set_monitor_op()
        if self.save_freq == "epoch":
            self._save_model(epoch, None, logs)

    def _should_save_on_batch(self, batch: int) -> bool:
        if self.save_freq == "epoch":
            return False
        if self._last_batch_seen is None or batch <= self._last_batch_seen:
            add = batch + 1
        else:
            add = batch - self._last_batch_seen
        self._batches_seen_since_last_saving += add
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def _should_save_model(self, epoch: int, logs: dict[str, Any], filepath: str) -> bool:
        if not self.save_best_only:
            if self.verbose > 0:
                _print_msg(f"\nEpoch {epoch + 1}: saving model to {filepath}")
            return True
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available.", stacklevel=3)
            return True
        if np.ndim(current) > 0:
            warnings.warn(
                f"Can save best model only when `monitor` is a scalar value. Received: {current}. "
                "Falling back to `save_best_only=False`.",
                stacklevel=3,
            )
            return True
        if self.monitor_op is None:
            self._set_monitor_op()
        best_str = "None" if self.best is None else f"{self.best:.5f}"
        if self._is_improvement(current, self.best):
            if self.verbose > 0:
                _print_msg(
                    f"\nEpoch {epoch + 1}: {self.monitor} improved from {best_str} to {current:.5f}, "
                    f"saving model to {filepath}"
                )
            self.best = current
            return True
        if self.verbose > 0:
            _print_msg(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best_str}")
        return False

    def _save_model(self, epoch: int, batch: int | None, logs: dict[str, Any] | None) -> None:
        logs = dict(logs or {})
        filepath = self._get_file_path(epoch, batch, logs)
        if os.path.isdir(filepath):
            raise OSError(
                "Please specify a non-directory filepath for ModelCheckpoint. Filepath used is an existing "
                f"directory: {filepath}"
            )
        if self._should_save_model(epoch, logs, filepath):
            dirname = os.path.dirname(filepath)
            if dirname:
                os.makedirs(dirname, exist_ok=True)
            self.model.save_weights(filepath, overwrite=True)
            if self.verbose > 0:
                _print_msg(f"\nEpoch {epoch + 1}: finished saving model to {filepath}")

    def _get_file_path(self, epoch: int, batch: int | None, logs: dict[str, Any]) -> str:
        try:
            if batch is None or "batch" in logs:
                return self.filepath.format(epoch=epoch + 1, **logs)
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        except KeyError as e:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". Reason: {e}') from e


class BackupAndRestore(Callback):
    """Backs up the training state so that an interrupted ``fit`` resumes where it stopped
    (``keras.callbacks.BackupAndRestore``).

    The backup is the model's weights, its optimizer's state (iterations and slots, such as Adam's
    moments) and the epoch reached; a new ``fit`` with this callback restores them when it starts
    and resumes from that epoch. After a completed ``fit`` the backup is deleted (unless
    ``delete_checkpoint=False``).

    Parameters
    ----------
    backup_dir : str or path
        The directory of the backup: ``latest.weights.h5`` (a ``tapers.train.Checkpoint`` of the
        model, safetensors) and ``training_metadata.json`` (the epoch and batch).
    save_freq : "epoch" or int, default "epoch"
        Back up at the end of each epoch, or after every this many batches.
    double_checkpoint : bool, default False
        Keep the previous backup (``.bkp`` files) and fall back to it if the latest is unreadable.
    delete_checkpoint : bool, default True
        Delete ``backup_dir`` when training ends normally.

    Notes
    -----
    Differences from Keras: the weights file is a ``tapers.train.Checkpoint`` (safetensors) rather
    than HDF5. The resumed epoch reaches ``fit`` through ``model._initial_epoch`` (Keras' hook),
    which ``fit`` must read after ``on_train_begin``.
    """

    def __init__(
        self, backup_dir: Any, save_freq: Any = "epoch", double_checkpoint: bool = False, delete_checkpoint: bool = True
    ) -> None:
        super().__init__()
        self.save_freq = save_freq
        self.double_checkpoint = double_checkpoint
        self.delete_checkpoint = delete_checkpoint
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = 0
        self._current_epoch = 0
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        self.backup_dir = os.fspath(backup_dir)
        self._weights_path = os.path.join(self.backup_dir, "latest.weights.h5")
        self._training_metadata_path = os.path.join(self.backup_dir, "training_metadata.json")
        self._prev_weights_path = f"{self._weights_path}.bkp"
        self._prev_training_metadata_path = f"{self._training_metadata_path}.bkp"
        if save_freq != "epoch" and (not isinstance(save_freq, int) or isinstance(save_freq, bool)):
            raise ValueError(
                f"Invalid value for argument `save_freq`. Received: save_freq={save_freq}. "
                "Expected either 'epoch' or an integer value."
            )

    def _checkpoint(self) -> Any:
        from ..train import Checkpoint

        roots: dict[str, Any] = {"model": self.model}
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None:
            roots["optimizer"] = optimizer
        return Checkpoint(**roots)

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        """Restores the backup, if any (falling back to the previous one if the latest is unreadable)."""
        from ..errors import OpError

        try:
            self._load_model()
        except (OSError, OpError):
            if not os.path.exists(self._prev_weights_path):
                raise
            shutil.copyfile(self._prev_weights_path, self._weights_path)
            if os.path.exists(self._prev_training_metadata_path):
                shutil.copyfile(self._prev_training_metadata_path, self._training_metadata_path)
            elif os.path.exists(self._training_metadata_path):
                os.remove(self._training_metadata_path)
            self._load_model()

    def _load_model(self) -> None:
        if not getattr(self.model, "built", True):
            raise ValueError(
                "To use the BackupAndRestore callback, you model must be built before you call `fit()`. "
                f"Model {self.model} is unbuilt. You can build it beforehand by calling it on a batch of data."
            )
        if os.path.exists(self._weights_path):
            self._checkpoint().restore(self._weights_path)
        if os.path.exists(self._training_metadata_path):
            with open(self._training_metadata_path) as f:
                metadata = json.loads(f.read())
            self.model._initial_epoch = metadata["epoch"]

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """Backs up (with ``save_freq="epoch"``) the state after ``epoch``."""
        self._current_epoch = epoch + 1
        self._last_batch_seen = 0
        if self.save_freq == "epoch":
            self._save_model()

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Backs up every ``save_freq`` batches when ``save_freq`` is an integer."""
        if self._should_save_on_batch(batch):
            self._save_model()

    def _save_model(self) -> None:
        os.makedirs(self.backup_dir, exist_ok=True)
        if self.double_checkpoint and os.path.exists(self._weights_path):
            shutil.copyfile(self._weights_path, self._prev_weights_path)
        if self.double_checkpoint and os.path.exists(self._training_metadata_path):
            shutil.copyfile(self._training_metadata_path, self._prev_training_metadata_path)
        self._checkpoint().write(self._weights_path)
        with open(self._training_metadata_path, "w") as f:
            f.write(json.dumps({"epoch": self._current_epoch, "batch": self._last_batch_seen}))

    def _should_save_on_batch(self, batch: int) -> bool:
        if self.save_freq == "epoch":
            return False
        if batch <= self._last_batch_seen:
            add = batch + 1
        else:
            add = batch - self._last_batch_seen
        self._batches_seen_since_last_saving += add
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        """Deletes the backup (with ``delete_checkpoint``): training completed."""
        if self.delete_checkpoint and os.path.exists(self.backup_dir):
            shutil.rmtree(self.backup_dir)
