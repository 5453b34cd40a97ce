# Generates checkpoint_manager_reference.json with TensorFlow 2.21 / Keras 3.15 (not run by the tests):
#   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_checkpoint_manager_reference.py \
#       > tests/data/checkpoint_manager_reference.json
# Records, from the same scripted programs that tests/test_checkpoint_manager.py and
# tests/test_keras_model_checkpoint.py run on tapers (the functions below take the library's
# `tf` or `keras` module):
#   - tf.train.CheckpointManager: the paths `save` returns, `latest_checkpoint`, `checkpoints`,
#     the checkpoint prefixes left in the directory (TF's `.index`/`.data-*` files mapped to their
#     prefix) and the `checkpoint` state file (timestamps masked) after each save; a manager
#     reopened on the directory; `checkpoint_interval`/`step_counter`; `restore_or_initialize`;
#     `tf.train.latest_checkpoint` / `get_checkpoint_state`; the constructor's errors;
#   - tf.train.ExponentialMovingAverage: shadow values over steps (fixed decay, `num_updates`,
#     `zero_debias`, apply inside `tf.function`), `average_name`, and errors;
#   - keras.callbacks.ModelCheckpoint driven with scripted logs (as `fit` would call it): the
#     lines it prints and the files it writes after each epoch; and its constructor errors.
import json
import os
import re
import sys
import tempfile
import warnings
from typing import Any

import numpy as np

# ----------------------------------------------------------------------------------------------
# Library-agnostic programs (tapers' tests import these).


def _prefixes(directory: str) -> list[str]:
    """The files of a checkpoint directory, TF's ``X.index``/``X.data-*`` shown as ``X``."""
    out = set()
    for name in os.listdir(directory):
        if ".data-" in name:
            continue
        out.add(name[: -len(".index")] if name.endswith(".index") else name)
    return sorted(out)


def _state(directory: str) -> Any:
    path = os.path.join(directory, "checkpoint")
    if not os.path.exists(path):
        return None
    text = open(path).read()
    return re.sub(r"(timestamps?: )[-+0-9.eE]+", r"\1T", text)


def _rel(path: Any, directory: str) -> Any:
    return None if path is None else os.path.relpath(path, directory)


def _snapshot(mgr: Any, directory: str, returned: Any) -> dict:
    return {
        "returned": _rel(returned, directory),
        "latest": _rel(mgr.latest_checkpoint, directory),
        "checkpoints": [_rel(p, directory) for p in mgr.checkpoints],
        "files": _prefixes(directory),
        "state": _state(directory),
    }


def manager_runs(tf: Any, root: str) -> dict:
    """CheckpointManager programs; every path is reported relative to its directory."""
    out: dict[str, Any] = {}
    v = tf.Variable([1.0, 2.0])
    # max_to_keep=2: saves 1..4, then an explicit number, then a reopened manager.
    d = os.path.join(root, "keep2")
    ckpt = tf.train.Checkpoint(v=v)
    mgr = tf.train.CheckpointManager(ckpt, d, max_to_keep=2)
    steps = [_snapshot(mgr, d, None) if os.path.isdir(d) else {"latest": mgr.latest_checkpoint}]
    for i in range(4):
        v.assign([float(i), float(i) + 0.5])
        steps.append(_snapshot(mgr, d, mgr.save()))
    steps.append(_snapshot(mgr, d, mgr.save(checkpoint_number=10)))
    out["keep2"] = steps
    out["keep2_save_counter"] = int(ckpt.save_counter.numpy())
    again = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), d, max_to_keep=2)
    out["reopened"] = {
        "latest": _rel(again.latest_checkpoint, d),
        "checkpoints": [_rel(p, d) for p in again.checkpoints],
    }
    v.assign([0.0, 0.0])
    out["restored_path"] = _rel(again.restore_or_initialize(), d)
    out["restored_value"] = v.numpy().tolist()
    out["latest_fn"] = _rel(tf.train.latest_checkpoint(d), d)
    st = tf.train.get_checkpoint_state(d)
    out["state_fn"] = {
        "model_checkpoint_path": _rel(st.model_checkpoint_path, d),
        "all_model_checkpoint_paths": [_rel(p, d) for p in st.all_model_checkpoint_paths],
    }
    # max_to_keep=None keeps everything; custom checkpoint_name.
    d = os.path.join(root, "all")
    mgr = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), d, max_to_keep=None, checkpoint_name="model")
    out["keep_all"] = [_snapshot(mgr, d, mgr.save()) for _ in range(3)]
    # checkpoint_interval with a step counter.
    d = os.path.join(root, "interval")
    step = tf.Variable(0, dtype=tf.int64)
    mgr = tf.train.CheckpointManager(
        tf.train.Checkpoint(v=v, step=step), d, max_to_keep=5, step_counter=step, checkpoint_interval=3
    )
    saved = []
    for s, check in [(0, True), (0, True), (1, True), (2, True), (3, True), (4, False), (4, False), (9, True)]:
        step.assign(s)
        saved.append(_rel(mgr.save(check_interval=check), d))
    out["interval"] = {"saved": saved, "checkpoints": [_rel(p, d) for p in mgr.checkpoints]}
    # restore_or_initialize on an empty directory calls init_fn.
    d = os.path.join(root, "empty")
    called = []
    mgr = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), d, max_to_keep=1, init_fn=lambda: called.append(1))
    out["empty"] = {
        "restore_or_initialize": mgr.restore_or_initialize(),
        "init_calls": len(called),
        "latest": mgr.latest_checkpoint,
        "latest_fn": tf.train.latest_checkpoint(d),
        "state_fn": tf.train.get_checkpoint_state(d),
        "dir_exists": os.path.isdir(d),
    }
    out["errors"] = {
        "max_to_keep=0": _err(lambda: tf.train.CheckpointManager(tf.train.Checkpoint(v=v), root, max_to_keep=0)),
        "interval without step_counter": _err(
            lambda: tf.train.CheckpointManager(tf.train.Checkpoint(v=v), root, max_to_keep=1, checkpoint_interval=2)
        ),
    }
    return out


def _err(f: Any) -> Any:
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return [type(e).__name__, str(e)]
    return None


def ema_runs(tf: Any) -> dict:
    """ExponentialMovingAverage shadows over 4 steps."""
    out: dict[str, Any] = {}
    values = [[1.0, -2.0], [3.0, 0.5], [-1.0, 4.0], [2.5, 2.5]]
    for name, kwargs in [
        ("fixed", {"decay": 0.9}),
        ("num_updates", {"decay": 0.999, "num_updates": "step"}),
        ("zero_debias", {"decay": 0.8, "zero_debias": True}),
        ("function", {"decay": 0.75}),
    ]:
        w = tf.Variable([0.5, 1.5], name="w")
        b = tf.Variable(2.0, dtype=tf.float64, name="b")
        step = tf.Variable(0, dtype=tf.int64)
        kw = dict(kwargs)
        if kw.get("num_updates") == "step":
            kw["num_updates"] = step
        ema = tf.train.ExponentialMovingAverage(**kw)
        ema.apply([w, b])
        rec = {"initial": [ema.average(w).numpy().tolist(), float(ema.average(b).numpy())], "steps": []}

        @tf.function
        def update(ema: Any = ema, w: Any = w, b: Any = b) -> None:
            ema.apply([w, b])

        for k, val in enumerate(values):
            w.assign(val)
            b.assign(float(val[0] * val[1]))
            step.assign(k + 1)
            if name == "function":
                update()
            else:
                ema.apply([w, b])
            rec["steps"].append([ema.average(w).numpy().tolist(), float(ema.average(b).numpy())])
        rec["average_name"] = ema.average_name(w)
        rec["name"] = ema.name
        rec["average_var_name"] = ema.average(w).name
        out[name] = rec
    ema = tf.train.ExponentialMovingAverage(0.9)
    out["average_of_unknown"] = ema.average(tf.Variable(1.0)) is None
    out["errors"] = {"int variable": _err(lambda: ema.apply([tf.Variable(3)]))}
    return out


def model(keras: Any) -> Any:
    m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    m.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", metrics=["accuracy"])
    m.fit(np.zeros((2, 2), np.float32), np.zeros((2, 1), np.float32), epochs=1, verbose=0)
    return m


def checkpoint_runs() -> dict:
    """ModelCheckpoint runs: name -> (kwargs with "{d}" for the directory, epoch logs[, batch counts])."""
    val = [{"loss": 1.0, "val_loss": v, "accuracy": a} for v, a in [(0.9, 0.5), (0.7, 0.25), (0.8, 0.75), (0.4, 0.5)]]
    return {
        "every_epoch": ({"filepath": "{d}/m-{epoch:02d}-{val_loss:.2f}.weights.h5", "save_weights_only": True,
                         "verbose": 1}, val),
        "best_only": ({"filepath": "{d}/best-{epoch}.weights.h5", "save_weights_only": True, "save_best_only": True,
                       "verbose": 1}, val),
        "best_only_max": ({"filepath": "{d}/acc.weights.h5", "save_weights_only": True, "save_best_only": True,
                           "monitor": "accuracy", "mode": "max", "verbose": 1}, val),
        "auto_accuracy": ({"filepath": "{d}/auto-{epoch}.weights.h5", "save_weights_only": True,
                           "save_best_only": True, "monitor": "val_accuracy", "verbose": 1},
                          [{"val_accuracy": a} for a in (0.5, 0.25, 0.75)]),
        "threshold": ({"filepath": "{d}/t-{epoch}.weights.h5", "save_weights_only": True, "save_best_only": True,
                       "initial_value_threshold": 0.75, "verbose": 1}, val),
        "missing_monitor": ({"filepath": "{d}/x-{epoch}.weights.h5", "save_weights_only": True,
                             "save_best_only": True, "monitor": "val_auc", "mode": "max", "verbose": 1}, val[:2]),
        "quiet": ({"filepath": "{d}/q-{epoch}.weights.h5", "save_weights_only": True}, val[:2]),
        "batches": ({"filepath": "{d}/b-{epoch}-{batch}.weights.h5", "save_weights_only": True, "save_freq": 2,
                     "verbose": 1}, val[:3], [3, 4, 1]),
    }  # fmt: skip


def drive_checkpoint(keras: Any, kwargs: dict, seq: list, batches: Any, directory: str) -> dict:
    import contextlib
    import io

    m = model(keras)
    kw = {k: (v.replace("{d}", directory) if isinstance(v, str) else v) for k, v in kwargs.items()}
    buf = io.StringIO()
    out: dict[str, Any] = {"epochs": []}
    with contextlib.redirect_stdout(buf), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cb = keras.callbacks.ModelCheckpoint(**kw)
        cb.set_model(m)
        cb.on_train_begin()
        for epoch, logs in enumerate(seq):
            cb.on_epoch_begin(epoch)
            for b in range(batches[epoch] if batches else 0):
                cb.on_train_batch_begin(b)
                cb.on_train_batch_end(b, {"loss": 0.5})
            m.set_weights([np.full((2, 1), epoch, np.float32), np.full((1,), epoch, np.float32)])
            cb.on_epoch_end(epoch, dict(logs))
            out["epochs"].append(
                {"files": sorted(os.listdir(directory)) if os.path.isdir(directory) else [],
                 "best": None if cb.best is None else float(cb.best)}
            )  # fmt: skip
        cb.on_train_end()
    out["printed"] = buf.getvalue().replace(directory, "<d>")
    out["warnings"] = [str(w.message) for w in caught if "best" in str(w.message)]
    return out


def checkpoint_errors(keras: Any) -> dict:
    MC = keras.callbacks.ModelCheckpoint
    return {
        "weights_only_bad_suffix": _err(lambda: MC("w.h5", save_weights_only=True)),
        "bad_save_freq": _err(lambda: MC("w.weights.h5", save_weights_only=True, save_freq="batch")),
        "unknown_mode": None,
        "bad_format_key": None,
    }


def format_key_error(keras: Any, directory: str) -> Any:
    cb = keras.callbacks.ModelCheckpoint(os.path.join(directory, "{nope}.weights.h5"), save_weights_only=True)
    cb.set_model(model(keras))
    cb.on_epoch_begin(0)
    return _err(lambda: cb.on_epoch_end(0, {"val_loss": 1.0}))


# ----------------------------------------------------------------------------------------------


def main() -> None:
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import keras
    import tensorflow as tf

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as root:
        out["manager"] = manager_runs(tf, root)
    out["ema"] = ema_runs(tf)
    out["model_checkpoint"] = {}
    for name, spec in checkpoint_runs().items():
        with tempfile.TemporaryDirectory() as d:
            out["model_checkpoint"][name] = drive_checkpoint(
                keras, spec[0], spec[1], spec[2] if len(spec) > 2 else None, d
            )
    errs = checkpoint_errors(keras)
    with tempfile.TemporaryDirectory() as d:
        errs["bad_format_key"] = [format_key_error(keras, d)[0], format_key_error(keras, d)[1].replace(d, "<d>")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        keras.callbacks.ModelCheckpoint("w.weights.h5", save_weights_only=True, mode="bogus")
    errs["unknown_mode"] = [str(w.message) for w in caught]
    out["model_checkpoint_errors"] = errs
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
