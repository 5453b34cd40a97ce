"""tf.train.CheckpointManager, latest_checkpoint, get_checkpoint_state, checkpoints_iterator and
ExponentialMovingAverage against TensorFlow 2.21: tests/data/make_checkpoint_manager_reference.py runs
the same programs (imported here) on TensorFlow and records file names, state files and averages."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import tapers as tf

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
from make_checkpoint_manager_reference import ema_runs, manager_runs  # noqa: E402

REF = json.loads((Path(__file__).parent / "data" / "checkpoint_manager_reference.json").read_text())


@pytest.fixture(scope="module")
def manager(tmp_path_factory):
    return manager_runs(tf, str(tmp_path_factory.mktemp("mgr")))


@pytest.fixture(scope="module")
def ema():
    return ema_runs(tf)


def test_the_fixture_covers_every_manager_program(manager):
    assert set(manager) == set(REF["manager"])


@pytest.mark.parametrize("key", sorted(REF["manager"]))
def test_manager_files_state_and_paths_are_tensorflow(manager, key):
    # Names, the prefixes left in the directory and the state file (timestamps masked) as TF's.
    assert manager[key] == REF["manager"][key]


@pytest.mark.parametrize("key", ["fixed", "num_updates", "zero_debias", "function"])
def test_ema_values_are_tensorflow(ema, key):
    got, want = ema[key], REF["ema"][key]
    assert got["initial"][0] == pytest.approx(want["initial"][0], rel=1e-6)
    for k, (g, w) in enumerate(zip(got["steps"], want["steps"])):
        assert g[0] == pytest.approx(w[0], rel=1e-5, abs=1e-6), f"step {k}: float32 shadow"
        assert g[1] == pytest.approx(w[1], rel=1e-12), f"step {k}: float64 shadow"
    assert got["name"] == want["name"]
    # TF makes shadow names unique in the process (`w/ExponentialMovingAverage_3`): the suffix depends
    # on what ran before, so compare the name without it.
    strip = lambda s: re.sub(r"_\d+(:0)?$", r"\1", s)  # noqa: E731
    assert strip(got["average_name"]) == strip(want["average_name"]) == "w/ExponentialMovingAverage"
    assert strip(got["average_var_name"]) == strip(want["average_var_name"])


def test_ema_errors_and_unknown_variables_are_tensorflow(ema):
    assert ema["average_of_unknown"] == REF["ema"]["average_of_unknown"]
    assert ema["errors"] == REF["ema"]["errors"]


def test_ema_shadow_names_are_unique():
    w = tf.Variable(1.0, name="uniq_w")
    a, b = tf.train.ExponentialMovingAverage(0.5), tf.train.ExponentialMovingAverage(0.5)
    assert a.average_name(w) == "uniq_w/ExponentialMovingAverage"
    a.apply([w])
    b.apply([w])
    assert a.average_name(w) == "uniq_w/ExponentialMovingAverage"
    assert b.average_name(w) == "uniq_w/ExponentialMovingAverage_1"
    assert b.average(w).name == "uniq_w/ExponentialMovingAverage_1:0"
    assert set(a.variables_to_restore()) == {"uniq_w/ExponentialMovingAverage"}


def test_ema_first_apply_inside_function_creates_the_shadows():
    w = tf.Variable([2.0, 4.0])
    ema = tf.train.ExponentialMovingAverage(0.5)

    @tf.function
    def step():
        w.assign_add([2.0, 2.0])
        ema.apply([w])

    step()
    step()
    # shadow starts at [2, 4] (w when first applied, inside the trace after the add: [4, 6]) ...
    np.testing.assert_allclose(ema.average(w).numpy(), [5.0, 7.0], rtol=1e-6)
    assert not ema.average(w).trainable


def test_ema_decay_tensor_and_num_updates_python_int():
    w = tf.Variable([1.0])
    ema = tf.train.ExponentialMovingAverage(tf.constant(0.9), num_updates=0)
    ema.apply([w])
    w.assign([11.0])
    ema.apply([w])  # decay min(0.9, 1/10) = 0.1
    np.testing.assert_allclose(ema.average(w).numpy(), [10.0], rtol=1e-6)


def test_ema_bad_inputs():
    ema = tf.train.ExponentialMovingAverage(0.9)
    with pytest.raises(ValueError, match="var_list"):
        ema.apply()
    with pytest.raises(TypeError, match="non-Variable"):
        ema.apply([tf.constant([1.0])])
    with pytest.raises(TypeError, match="half, float, or double"):
        ema.apply([tf.Variable([1, 2], dtype=tf.int32, name="ints")])


def test_restore_round_trip_and_keep_every_n_hours(tmp_path):
    v = tf.Variable([1.0, 2.0])
    ckpt = tf.train.Checkpoint(v=v)
    # Any swept checkpoint older than the last preserved one by 1e-9 hours is kept, unlisted.
    mgr = tf.train.CheckpointManager(ckpt, tmp_path, max_to_keep=1, keep_checkpoint_every_n_hours=1e-9)
    paths = []
    for i in range(3):
        v.assign([float(i), 0.0])
        paths.append(mgr.save())
        time.sleep(0.01)
    assert mgr.checkpoints == [paths[-1]]
    assert all(os.path.isfile(p) for p in paths)
    v.assign([9.0, 9.0])
    ckpt.restore(paths[0])
    np.testing.assert_array_equal(v.numpy(), [0.0, 0.0])
    assert tf.train.latest_checkpoint(tmp_path) == paths[-1]
    assert mgr.directory == os.fspath(tmp_path) and mgr.checkpoint is ckpt and mgr.checkpoint_interval is None
    mgr.sync()


def test_state_file_written_by_tensorflow_is_read(tmp_path):
    text = REF["manager"]["keep2"][-1]["state"]
    text = text.replace("timestamps: T", "timestamps: 1700000000.5").replace("timestamp: T", "timestamp: 1700000000.0")
    (tmp_path / "checkpoint").write_text(text)
    (tmp_path / "ckpt-10.index").write_text("")  # TF's checkpoint files
    st = tf.train.get_checkpoint_state(tmp_path)
    assert st.model_checkpoint_path == os.path.join(tmp_path, "ckpt-10")
    assert st.all_model_checkpoint_paths == [os.path.join(tmp_path, "ckpt-4"), os.path.join(tmp_path, "ckpt-10")]
    assert st.all_model_checkpoint_timestamps == [1700000000.5, 1700000000.5]
    assert tf.train.latest_checkpoint(tmp_path) == os.path.join(tmp_path, "ckpt-10")
    mgr = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), tmp_path, max_to_keep=3)
    assert mgr.checkpoints == st.all_model_checkpoint_paths
    assert 'model_checkpoint_path: "' in repr(st)


def test_state_file_missing_garbage_or_invalid(tmp_path):
    assert tf.train.get_checkpoint_state(tmp_path) is None
    (tmp_path / "checkpoint").write_text("this is { not a proto")
    assert tf.train.get_checkpoint_state(tmp_path) is None
    assert tf.train.latest_checkpoint(tmp_path) is None
    (tmp_path / "checkpoint").write_text('all_model_checkpoint_paths: "ckpt-1"\n')
    with pytest.raises(ValueError, match="Invalid checkpoint state"):
        tf.train.get_checkpoint_state(tmp_path)
    # A state file naming a deleted checkpoint: latest_checkpoint finds nothing.
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "ckpt-1"\n')
    assert tf.train.latest_checkpoint(tmp_path) is None


def test_manager_bad_inputs(tmp_path):
    with pytest.raises(TypeError, match="expects a tapers.train.Checkpoint; got a list"):
        tf.train.CheckpointManager([tf.Variable(1.0)], tmp_path, max_to_keep=1)
    mgr = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), tmp_path, max_to_keep=1)
    with pytest.raises(NotImplementedError, match="CheckpointOptions"):
        mgr.save(options=object())
    # A Variable checkpoint number, and restore of a file whose shapes no longer match.
    path = mgr.save(checkpoint_number=tf.Variable(7, dtype=tf.int64))
    assert path.endswith("ckpt-7")
    other = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable([1.0, 2.0])), tmp_path, max_to_keep=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape \[\].*shape \[2\]"):
        other.restore_or_initialize()


def test_checkpoints_iterator(tmp_path):
    v = tf.Variable(1.0)
    mgr = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), tmp_path, max_to_keep=3)
    assert list(tf.train.checkpoints_iterator(tmp_path, timeout=0)) == []
    first = mgr.save()
    it = tf.train.checkpoints_iterator(tmp_path, timeout=0)
    assert next(it) == first
    second = mgr.save()
    assert next(it) == second
    assert list(it) == []  # timed out, no timeout_fn: done
    calls = []

    def timeout_fn():
        calls.append(1)
        return len(calls) >= 2

    start = time.time()
    got = list(tf.train.checkpoints_iterator(tmp_path, min_interval_secs=0.2, timeout=0, timeout_fn=timeout_fn))
    assert got == [second] and len(calls) == 2
    assert time.time() - start >= 0.2
