# Generates keras_callbacks_reference.json with TensorFlow 2.21 / Keras 3 (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_keras_callbacks_reference.py \
#       > tests/data/keras_callbacks_reference.json
# Drives Keras 3's EarlyStopping, ReduceLROnPlateau, LearningRateScheduler, TerminateOnNaN and
# CSVLogger with scripted logs (as fit would call them) and records, after each epoch, whether
# training stops, the callback's counters, the learning rate, the logs as the callback left them,
# what it printed, the weights it restored and the files it wrote; plus error and warning
# messages and the metrics' directions (what monitor mode "auto" uses).
import contextlib
import io
import json
import math
import os
import sys
import tempfile
import warnings

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import keras
import numpy as np

C = keras.callbacks


def model():
    m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    m.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", metrics=["accuracy", "mae"])
    # One epoch builds the compiled metrics, which monitor mode "auto" looks up (as in a fit).
    m.fit(np.zeros((2, 2), np.float32), np.zeros((2, 1), np.float32), epochs=1, verbose=0)
    m.optimizer.learning_rate = 0.1
    return m


def num(v):
    return None if v is None else float(v)


def drive(make, seq, batches=None):
    m = model()
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


def err(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return [type(e).__name__, str(e)]
    return None


def losses(*vals, key="val_loss", extra=None):
    return [{"loss": 1.0, key: v, **(extra or {})} for v in vals]


E, R, S = C.EarlyStopping, C.ReduceLROnPlateau, C.LearningRateScheduler
runs = {
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
out = {"runs": {}}
for name, spec in runs.items():
    make, seq = spec[0], spec[1]
    out["runs"][name] = drive(make, seq, spec[2] if len(spec) > 2 else None)


def raised_on_nan():
    m = model()
    cb = C.TerminateOnNaN(raise_error=True)
    cb.set_model(m)
    cb.on_train_batch_end(3, {"loss": math.nan})


def unknown_metric():
    m = model()
    cb = E(monitor="val_foo")
    cb.set_model(m)
    cb.on_epoch_end(0, {"val_foo": 1.0})


def bad_schedule():
    m = model()
    cb = S(lambda epoch: 1)
    cb.set_model(m)
    cb.on_epoch_begin(0)


out["errors"] = {
    "ReduceLROnPlateau(factor=1.0)": err(lambda: R(factor=1.0)),
    "TerminateOnNaN(raise_error=True)": err(raised_on_nan),
    "EarlyStopping(monitor=val_foo)": err(unknown_metric),
    "LearningRateScheduler(int)": err(bad_schedule),
}


def csv_run(sep=",", append=False, seq=None, path=None):
    m = model()
    cb = C.CSVLogger(path, separator=sep, append=append)
    cb.set_model(m)
    cb.on_train_begin()
    for epoch, logs in enumerate(seq):
        cb.on_epoch_end(epoch, dict(logs))
    cb.on_train_end()
    with open(path) as f:
        return f.read()


with tempfile.TemporaryDirectory() as d:
    p = os.path.join(d, "log.csv")
    seq_val = [{"loss": 0.5, "val_loss": 0.625, "accuracy": 0.75}, {"loss": 0.25, "val_loss": 0.375, "accuracy": 1.0}]
    seq_plain = [{"loss": 0.5, "mae": 0.125}, {"loss": 0.25, "mae": 0.0625}]
    out["csv"] = {
        "seq_val": seq_val,
        "seq_plain": seq_plain,
        "with_val": csv_run(seq=seq_val, path=p),
        "plain_semicolon": csv_run(sep=";", seq=seq_plain, path=p),
        "appended": csv_run(append=True, seq=seq_plain, path=p),
    }

mets = keras.metrics
out["directions"] = {}
for name in [
    "Accuracy", "BinaryAccuracy", "BinaryCrossentropy", "CategoricalAccuracy", "CategoricalCrossentropy",
    "CategoricalHinge", "CosineSimilarity", "Hinge", "KLDivergence", "LogCoshError", "Mean", "MeanAbsoluteError",
    "MeanAbsolutePercentageError", "MeanSquaredError", "MeanSquaredLogarithmicError", "Poisson",
    "RootMeanSquaredError", "SparseCategoricalAccuracy", "SparseCategoricalCrossentropy", "SquaredHinge", "Sum",
]:
    out["directions"][name] = getattr(getattr(mets, name)(), "_direction", None)
wrapped = {
    "mse": mets.MeanMetricWrapper(keras.losses.mean_squared_error),
    "lambda": mets.MeanMetricWrapper(lambda a, b: a),
}
for name, metric in wrapped.items():
    out["directions"][f"MeanMetricWrapper({name})"] = getattr(metric, "_direction", None)
json.dump(out, sys.stdout)
