"""keras.callbacks.ModelCheckpoint against Keras 3.15 (tests/data/make_checkpoint_manager_reference.py
drives Keras' callback with scripted logs; the same drive here must print the same lines, warn the
same warnings and write the same files), in a real ``fit``; and BackupAndRestore (saves and resumes
weights, optimizer state and the epoch)."""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import tapers as tf
from tapers import keras

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
from make_checkpoint_manager_reference import (  # noqa: E402
    checkpoint_errors,
    checkpoint_runs,
    drive_checkpoint,
    format_key_error,
)

REF = json.loads((Path(__file__).parent / "data" / "checkpoint_manager_reference.json").read_text())
RUNS = checkpoint_runs()
MC, BR = keras.callbacks.ModelCheckpoint, keras.callbacks.BackupAndRestore


def test_the_fixture_covers_every_run():
    assert set(REF["model_checkpoint"]) == set(RUNS)


@pytest.mark.parametrize("name", sorted(RUNS))
def test_model_checkpoint_is_keras(name, tmp_path):
    spec = RUNS[name]
    got = drive_checkpoint(keras, spec[0], spec[1], spec[2] if len(spec) > 2 else None, str(tmp_path / "d"))
    want = REF["model_checkpoint"][name]
    assert got["printed"] == want["printed"]
    assert got["warnings"] == want["warnings"]
    for k, (g, w) in enumerate(zip(got["epochs"], want["epochs"], strict=True)):
        assert g["files"] == w["files"], f"epoch {k}"
        assert g["best"] == (None if w["best"] is None else pytest.approx(w["best"], rel=1e-7)), f"epoch {k}"


def test_errors_are_keras(tmp_path):
    got = checkpoint_errors(keras)
    want = REF["model_checkpoint_errors"]
    for key in ("weights_only_bad_suffix", "bad_save_freq"):
        assert got[key] == want[key], key
    kind, msg = format_key_error(keras, str(tmp_path))
    assert [kind, msg.replace(str(tmp_path), "<d>")] == want["bad_format_key"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        MC("w.weights.h5", save_weights_only=True, mode="bogus")
    assert [str(w.message) for w in caught] == want["unknown_mode"]


def test_whole_model_saving_is_refused_at_construction():
    with pytest.raises(NotImplementedError, match="save_weights_only=True"):
        MC("model.keras")
    with pytest.raises(ValueError, match=r"must end in `\.keras`"):  # Keras' own check comes first
        MC("model.txt")
    with pytest.raises(ValueError, match="Unrecognized save_freq: True"):
        MC("w.weights.h5", save_weights_only=True, save_freq=True)


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 3)).astype(np.float32)
    return x, (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.25).astype(np.float32)


def _model(lr=0.05):
    tf.random.set_seed(1)
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    m.compile(optimizer=keras.optimizers.Adam(lr), loss="mse")
    return m


def test_model_checkpoint_in_fit_saves_loadable_best_weights(tmp_path):
    x, y = _data()
    m = _model()
    cb = MC(str(tmp_path / "e{epoch}-{loss:.3f}.weights.h5"), monitor="loss", save_best_only=True,
            save_weights_only=True)  # fmt: skip
    hist = m.fit(x, y, epochs=3, batch_size=8, verbose=0, callbacks=[cb])
    files = sorted(os.listdir(tmp_path))
    assert files == [f"e{i + 1}-{loss:.3f}.weights.h5" for i, loss in enumerate(hist.history["loss"])]
    want = [w.copy() for w in m.get_weights()]
    fresh = _model()
    fresh.load_weights(tmp_path / files[-1])
    for a, b in zip(fresh.get_weights(), want):
        np.testing.assert_array_equal(a, b)


class _Interrupt(keras.callbacks.Callback):
    def __init__(self, at_epoch):
        super().__init__()
        self.at_epoch = at_epoch

    def on_epoch_end(self, epoch, logs=None):
        if epoch == self.at_epoch:
            raise RuntimeError("interrupted")


class _Probe(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.epochs, self.start = [], None

    def on_train_begin(self, logs=None):
        self.start = (int(self.model.optimizer.iterations.numpy()), [w.copy() for w in self.model.get_weights()])

    def on_epoch_begin(self, epoch, logs=None):
        self.epochs.append(epoch)


def test_backup_and_restore_resumes_weights_optimizer_and_epoch(tmp_path):
    x, y = _data()
    backup = tmp_path / "backup"
    m = _model()
    with pytest.raises(RuntimeError, match="interrupted"):
        m.fit(x, y, epochs=4, batch_size=8, shuffle=False, verbose=0, callbacks=[BR(backup), _Interrupt(1)])
    assert sorted(os.listdir(backup)) == ["latest.weights.h5", "training_metadata.json"]
    assert json.loads((backup / "training_metadata.json").read_text()) == {"epoch": 2, "batch": 0}
    saved_weights = [w.copy() for w in m.get_weights()]
    saved_iterations = int(m.optimizer.iterations.numpy())
    assert saved_iterations == 8

    resumed, probe = _model(), _Probe()
    resumed.fit(x, y, epochs=4, batch_size=8, shuffle=False, verbose=0, callbacks=[BR(backup), probe])
    assert probe.start[0] == saved_iterations  # Adam's step and moments came back, not only the weights
    for a, b in zip(probe.start[1], saved_weights):
        np.testing.assert_array_equal(a, b)
    assert resumed._initial_epoch == 2
    assert not backup.exists()  # completed: delete_checkpoint
    assert probe.epochs == [2, 3]
    # Same result as an uninterrupted run.
    straight = _model()
    straight.fit(x, y, epochs=4, batch_size=8, shuffle=False, verbose=0)
    for a, b in zip(resumed.get_weights(), straight.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5)


def test_backup_and_restore_batches_double_checkpoint_and_keep(tmp_path):
    x, y = _data()
    backup = tmp_path / "b"
    m = _model()
    cb = BR(backup, save_freq=3, double_checkpoint=True, delete_checkpoint=False)
    m.fit(x, y, epochs=2, batch_size=8, verbose=0, callbacks=[cb])
    # 4 batches an epoch: saves after the 3rd batch (index 2) and epoch 2's 2nd (Keras' counting), so
    # the metadata is epoch 1, batch 1 and the previous one epoch 0, batch 2.
    assert json.loads((backup / "training_metadata.json").read_text()) == {"epoch": 1, "batch": 1}
    assert sorted(os.listdir(backup)) == [
        "latest.weights.h5", "latest.weights.h5.bkp", "training_metadata.json", "training_metadata.json.bkp",
    ]  # fmt: skip
    # A corrupt latest backup falls back to the previous one.
    (backup / "latest.weights.h5").write_bytes(b"garbage")
    fresh = _model()
    cb2 = BR(backup)
    cb2.set_model(fresh)
    cb2.on_train_begin()
    assert json.loads((backup / "training_metadata.json").read_text()) == {"epoch": 0, "batch": 2}
    assert fresh._initial_epoch == 0


def test_backup_and_restore_bad_inputs(tmp_path):
    with pytest.raises(ValueError, match="Empty `backup_dir`"):
        BR("")
    with pytest.raises(ValueError, match="Invalid value for argument `save_freq`"):
        BR(tmp_path, save_freq="batch")
    # A corrupt backup without a previous one: the loader's error, naming the file.
    tmp_path.joinpath("latest.weights.h5").write_bytes(b"garbage")
    cb = BR(tmp_path)
    cb.set_model(_model())
    with pytest.raises(tf.errors.OpError):
        cb.on_train_begin()
