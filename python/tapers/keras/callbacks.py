"""``keras.callbacks``: ``Callback``, ``History`` and the progress bar ``fit`` prints (``ProgbarLogger``)."""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = ["Callback", "CallbackList", "History", "LambdaCallback", "ProgbarLogger", "Progbar"]


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
        """Called before each training step."""

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called after each training step with the running metrics."""

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
            sys.stdout.write(message)
            sys.stdout.flush()
            self._prev_total_width = total_width
        elif self.verbose == 2 and finalize and self.target:
            numdigits = int(math.log10(self.target)) + 1
            info = f"{current:{numdigits}d}/{self.target} - {now - self._start:.0f}s"
            info += f" -{self._format_time(time_per_unit, self.unit_name)}"
            info += self._values_text()
            sys.stdout.write(info + "\n")
            sys.stdout.flush()
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
            sys.stdout.write(f"Epoch {epoch + 1}/{self.epochs}\n")
            sys.stdout.flush()

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
