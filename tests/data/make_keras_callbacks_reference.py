# Generates keras_callbacks_reference.json with TensorFlow 2.21 / Keras 3 (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_keras_callbacks_reference.py \
#       > tests/data/keras_callbacks_reference.json
# Drives Keras 3's EarlyStopping, ReduceLROnPlateau, LearningRateScheduler, TerminateOnNaN and
# CSVLogger with scripted logs (as fit would call them) and records, after each epoch, whether
# training stops, the callback's counters, the learning rate, the logs as the callback left them,
# what it printed, the weights it restored and the files it wrote; plus error and warning
# messages and the metrics' directions (what monitor mode "auto" uses).
import json
import math
import os
import sys
import tempfile

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras  # noqa: E402
from keras_callbacks_programs import csv_run, drive, model, runs  # noqa: E402

C = keras.callbacks
E, R, S = C.EarlyStopping, C.ReduceLROnPlateau, C.LearningRateScheduler


def err(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return [type(e).__name__, str(e)]
    return None


out = {"runs": {}}
for name, spec in runs(keras).items():
    out["runs"][name] = drive(keras, spec[0], spec[1], spec[2] if len(spec) > 2 else None)


def raised_on_nan():
    cb = C.TerminateOnNaN(raise_error=True)
    cb.set_model(model(keras))
    cb.on_train_batch_end(3, {"loss": math.nan})


def unknown_metric():
    cb = E(monitor="val_foo")
    cb.set_model(model(keras))
    cb.on_epoch_end(0, {"val_foo": 1.0})


def bad_schedule():
    cb = S(lambda epoch: 1)
    cb.set_model(model(keras))
    cb.on_epoch_begin(0)


out["errors"] = {
    "ReduceLROnPlateau(factor=1.0)": err(lambda: R(factor=1.0)),
    "TerminateOnNaN(raise_error=True)": err(raised_on_nan),
    "EarlyStopping(monitor=val_foo)": err(unknown_metric),
    "LearningRateScheduler(int)": err(bad_schedule),
}

with tempfile.TemporaryDirectory() as d:
    p = os.path.join(d, "log.csv")
    seq_val = [{"loss": 0.5, "val_loss": 0.625, "accuracy": 0.75}, {"loss": 0.25, "val_loss": 0.375, "accuracy": 1.0}]
    seq_plain = [{"loss": 0.5, "mae": 0.125}, {"loss": 0.25, "mae": 0.0625}]
    out["csv"] = {
        "seq_val": seq_val,
        "seq_plain": seq_plain,
        "with_val": csv_run(keras, p, seq_val),
        "plain_semicolon": csv_run(keras, p, seq_plain, sep=";"),
        "appended": csv_run(keras, p, seq_plain, append=True),
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
