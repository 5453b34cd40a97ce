"""EarlyStopping, ReduceLROnPlateau, LearningRateScheduler, TerminateOnNaN and CSVLogger
against Keras 3 (``tests/data/make_keras_callbacks_reference.py`` drives Keras' callbacks
with scripted logs; the same drive here must give the same decisions, counters, rates,
logs, printed lines, warnings, restored weights and files), and in a real ``fit``."""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from tapers import keras

REF = json.loads((Path(__file__).parent / "data" / "keras_callbacks_reference.json").read_text())
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
from keras_callbacks_programs import csv_run, drive, model, runs  # noqa: E402

C = keras.callbacks
E, R, S = C.EarlyStopping, C.ReduceLROnPlateau, C.LearningRateScheduler
RUNS = runs(keras)


def test_the_fixture_covers_every_run():
    assert set(REF["runs"]) == set(RUNS)


@pytest.mark.parametrize("name", sorted(RUNS))
def test_callback_decisions_are_keras(name):
    spec = RUNS[name]
    got = drive(keras, spec[0], spec[1], spec[2] if len(spec) > 2 else None)
    want = REF["runs"][name]
    assert len(got["epochs"]) == len(want["epochs"])
    for k, (g, w) in enumerate(zip(got["epochs"], want["epochs"])):
        assert (g["stop"], g["wait"]) == (w["stop"], w["wait"]), f"epoch {k}"
        assert g["best"] == (None if w["best"] is None else pytest.approx(w["best"], rel=1e-7)), f"epoch {k}"
        assert g["lr"] == pytest.approx(w["lr"], rel=1e-7), f"epoch {k}"
        assert set(g["logs"]) == set(w["logs"]), f"epoch {k}"
        for key, value in w["logs"].items():
            assert g["logs"][key] == pytest.approx(value, rel=1e-7), f"epoch {k}: {key}"
    assert got["printed"] == want["printed"]
    assert got["warnings"] == want["warnings"]
    assert got["final_weight"] == want["final_weight"]


def _raised_on_nan():
    cb = C.TerminateOnNaN(raise_error=True)
    cb.set_model(model(keras))
    cb.on_train_batch_end(3, {"loss": math.nan})


def _unknown_metric():
    cb = E(monitor="val_foo")
    cb.set_model(model(keras))
    cb.on_epoch_end(0, {"val_foo": 1.0})


def _bad_schedule():
    cb = S(lambda epoch: 1)
    cb.set_model(model(keras))
    cb.on_epoch_begin(0)


ERRORS = {
    "ReduceLROnPlateau(factor=1.0)": lambda: R(factor=1.0),
    "TerminateOnNaN(raise_error=True)": _raised_on_nan,
    "EarlyStopping(monitor=val_foo)": _unknown_metric,
    "LearningRateScheduler(int)": _bad_schedule,
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_are_keras(case):
    kind, message = REF["errors"][case]
    with pytest.raises(Exception) as e:  # noqa: B017 - the kind is checked below
        ERRORS[case]()
    assert (type(e.value).__name__, str(e.value)) == (kind, message)


def test_csv_files_are_keras(tmp_path):
    ref = REF["csv"]
    p = tmp_path / "log.csv"
    assert csv_run(keras, p, ref["seq_val"]) == ref["with_val"]
    assert csv_run(keras, p, ref["seq_plain"], sep=";") == ref["plain_semicolon"]
    assert csv_run(keras, p, ref["seq_plain"], append=True) == ref["appended"]


@pytest.mark.parametrize("name", sorted(REF["directions"]))
def test_metric_directions_are_keras(name):
    m = keras.metrics
    if name == "MeanMetricWrapper(mse)":
        metric = m.MeanMetricWrapper(keras.losses.mean_squared_error)
    elif name == "MeanMetricWrapper(lambda)":
        metric = m.MeanMetricWrapper(lambda a, b: a)
    else:
        metric = getattr(m, name)()
    assert metric._direction == REF["directions"][name]


def test_early_stopping_ends_a_real_fit_and_restores_the_best_weights():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 3)).astype(np.float32)
    y = x @ np.array([[1.0], [-1.0], [0.5]], np.float32)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    # A rate too high: the loss falls, then grows.
    model.compile(optimizer=keras.optimizers.SGD(0.9), loss="mse")
    snapshots = []
    keep = C.LambdaCallback(on_epoch_end=lambda epoch, logs: snapshots.append(model.get_weights()))
    stop = C.EarlyStopping(monitor="loss", patience=2, restore_best_weights=True)
    hist = model.fit(x, y, epochs=30, batch_size=64, verbose=0, callbacks=[keep, stop])
    losses = hist.history["loss"]
    assert len(losses) < 30 and stop.stopped_epoch == len(losses) - 1
    best = int(np.argmin(losses))
    assert stop.best_epoch == best and best < len(losses) - 1
    for got, want in zip(model.get_weights(), snapshots[best]):
        np.testing.assert_array_equal(got, want)


def test_reduce_lr_and_scheduler_write_the_rate_into_history():
    x = np.ones((8, 2), np.float32)
    y = np.ones((8, 1), np.float32)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    sched = C.LearningRateScheduler(lambda epoch: 0.1 / (epoch + 1))
    hist = model.fit(x, y, epochs=3, batch_size=8, verbose=0, callbacks=[sched])
    assert hist.history["learning_rate"] == pytest.approx([0.1, 0.05, 0.1 / 3], rel=1e-6)


def test_terminate_on_nan_stops_a_real_fit_within_the_epoch():
    x = np.ones((8, 2), np.float32)
    y = np.full((8, 1), np.nan, np.float32)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    seen = []
    probe = C.LambdaCallback(on_train_batch_end=lambda batch, logs: seen.append(batch))
    with contextlib.redirect_stdout(io.StringIO()) as out:
        model.fit(x, y, epochs=3, batch_size=2, verbose=0, callbacks=[C.TerminateOnNaN(), probe])
    assert seen == [0]
    assert out.getvalue() == "Batch 0: Invalid loss, terminating training\n"
