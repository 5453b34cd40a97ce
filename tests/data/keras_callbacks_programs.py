"""Callback runs shared by make_keras_callbacks_reference.py (Keras 3) and
tests/test_keras_callbacks.py (tapers): each drives a callback with scripted logs, as
``fit`` would call it, and records what it decided, printed and warned.

Every function takes the library's ``keras`` module.
"""

from __future__ import annotations

import contextlib
import io
import math
import warnings
from typing import Any

import numpy as np


def model(keras: Any) -> Any:
    m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    m.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", metrics=["accuracy", "mae"])
    # One epoch builds the compiled metrics, which monitor mode "auto" looks up (as in a fit).
    m.fit(np.zeros((2, 2), np.float32), np.zeros((2, 1), np.float32), epochs=1, verbose=0)
    m.optimizer.learning_rate = 0.1
    return m


def num(v: Any) -> Any:
    return None if v is None else float(v)


def drive(keras: Any, make: Any, seq: list, batches: Any = None) -> dict:
    m = model(keras)
    out = {"epochs": [], "printed": "", "warnings": []}
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cb = make()
        cb.set_model(m)
        m.stop_training = False
        cb.on_train_begin()
        for epoch, logs in enumerate(seq):
            cb.on_epoch_begin(epoch)
            for b, blogs in enumerate((batches or {}).get(epoch, [])):
                cb.on_train_batch_begin(b)
                cb.on_train_batch_end(b, dict(blogs))
                if m.stop_training:
                    break
            m.set_weights([np.full((2, 1), epoch, np.float32), np.full((1,), epoch, np.float32)])
            logs = dict(logs)
            cb.on_epoch_end(epoch, logs)
            out["epochs"].append(
                {
                    "stop": bool(m.stop_training),
                    "wait": getattr(cb, "wait", None),
                    "best": num(getattr(cb, "best", None)),
                    "lr": float(np.asarray(m.optimizer.learning_rate)),
                    "logs": {k: num(v) for k, v in logs.items()},
                }
            )
            if m.stop_training:
                break
        cb.on_train_end()
    out["printed"] = buf.getvalue()
    out["warnings"] = [str(w.message) for w in caught if "metric" in str(w.message) or "mode" in str(w.message)]
    out["final_weight"] = float(m.get_weights()[1][0])
    return out


def losses(*vals: float, key: str = "val_loss", extra: Any = None) -> list:
    return [{"loss": 1.0, key: v, **(extra or {})} for v in vals]


def runs(keras: Any) -> dict:
    """The scripted runs: name -> (make the callback, epoch logs[, batch logs per epoch])."""
    C = keras.callbacks
    E, R, S = C.EarlyStopping, C.ReduceLROnPlateau, C.LearningRateScheduler
    return {
        "early_default": (lambda: E(), losses(1.0, 0.9, 0.95, 0.8)),
        "early_patience_delta": (lambda: E(patience=2, min_delta=0.05), losses(1.0, 0.97, 0.9, 0.88, 0.87, 0.86)),
        "early_max": (
            lambda: E(monitor="val_accuracy", mode="max", patience=1),
            losses(0.5, 0.6, 0.55, 0.58, 0.5, key="val_accuracy"),
        ),
        "early_auto_accuracy": (
            lambda: E(monitor="val_accuracy", patience=1),
            losses(0.5, 0.6, 0.55, 0.58, 0.5, key="val_accuracy"),
        ),
        "early_auto_mae": (lambda: E(monitor="mae", patience=0), losses(0.5, 0.4, 0.45, key="mae")),
        "early_baseline": (
            lambda: E(monitor="loss", baseline=0.5, patience=2),
            losses(0.9, 0.8, 0.7, 0.6, 0.4, 0.45, key="loss"),
        ),
        "early_restore": (lambda: E(patience=1, restore_best_weights=True, verbose=1), losses(1.0, 0.5, 0.7, 0.8)),
        "early_start_from": (lambda: E(start_from_epoch=2), losses(1.0, 2.0, 3.0, 2.5, 2.6)),
        "early_missing": (lambda: E(monitor="val_auc", mode="max"), losses(1.0, 2.0)),
        "early_unknown_mode": (lambda: E(mode="sideways"), losses(1.0, 0.5, 0.7)),
        "plateau": (
            lambda: R(factor=0.5, patience=1, min_lr=0.02, cooldown=1),
            losses(1.0, 1.0, 1.0, 0.9, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95),
        ),
        "plateau_verbose_delta": (
            lambda: R(monitor="loss", factor=0.2, patience=2, min_delta=0.1, verbose=1),
            losses(1.0, 0.95, 0.92, 0.5, 0.45, 0.44, key="loss"),
        ),
        "plateau_missing": (lambda: R(monitor="val_auc", mode="max"), losses(1.0)),
        "scheduler_epoch": (lambda: S(lambda epoch: 0.1 * 0.5**epoch), losses(1.0, 1.0, 1.0)),
        "scheduler_epoch_lr": (lambda: S(lambda epoch, lr: lr * 0.9, verbose=1), losses(1.0, 1.0, 1.0)),
        "scheduler_numpy": (lambda: S(lambda epoch: np.float32(0.05) / (epoch + 1)), losses(1.0, 1.0)),
        "nan": (
            lambda: C.TerminateOnNaN(),
            losses(1.0, 1.0),
            {0: [{"loss": 1.0}, {"loss": 2.0}], 1: [{"loss": 1.0}, {"loss": math.nan}, {"loss": 1.0}]},
        ),
        "inf": (lambda: C.TerminateOnNaN(), losses(1.0), {0: [{"loss": math.inf}, {"loss": 1.0}]}),
    }


def csv_run(keras: Any, path: Any, seq: list, sep: str = ",", append: bool = False) -> str:
    """Writes ``seq``'s logs with a CSVLogger; returns the file's text."""
    cb = keras.callbacks.CSVLogger(path, separator=sep, append=append)
    cb.set_model(model(keras))
    cb.on_train_begin()
    for epoch, logs in enumerate(seq):
        cb.on_epoch_end(epoch, dict(logs))
    cb.on_train_end()
    with open(path) as f:
        return f.read()
