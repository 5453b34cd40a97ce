"""tapers.train.Checkpoint: safetensors files, round trips, interop, and bad files."""

import json
import struct

import numpy as np
import pytest

import tapers as tf


def make():
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
    b = tf.Variable(np.zeros(3, np.float64), name="b")
    n = tf.Variable(np.array([1, 2], np.int64), trainable=False, name="n")
    return w, b, n


def train_step(opt, w, b):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(w)) + tf.cast(tf.reduce_sum(b * b), tf.float32)
    opt.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))


def test_round_trip_restores_variables_and_optimizer_state(tmp_path):
    w, b, n = make()
    opt = tf.optimizers.Adam(0.1)
    train_step(opt, w, b)
    ckpt = tf.train.Checkpoint(model={"w": w, "b": b}, extra=[n], optimizer=opt)
    path = ckpt.save(tmp_path / "model.safetensors")
    assert int(ckpt.save_counter.numpy()) == 1
    saved = [v.numpy().copy() for v in (w, b, n)]
    # Continue training from the checkpoint in a fresh model and optimizer;
    # it must follow the original's trajectory exactly.
    train_step(opt, w, b)
    expected = [w.numpy().copy(), b.numpy().copy()]

    w2, b2, n2 = make()
    w2.assign(np.full((2, 3), 9.0, np.float32))
    opt2 = tf.optimizers.Adam(0.1)
    status = tf.train.Checkpoint(model={"w": w2, "b": b2}, extra=[n2], optimizer=opt2).restore(path)
    status.assert_consumed()
    for v, s in zip((w2, b2, n2), saved):
        np.testing.assert_array_equal(v.numpy(), s)
    assert int(opt2.iterations.numpy()) == 1
    train_step(opt2, w2, b2)
    np.testing.assert_array_equal(w2.numpy(), expected[0])
    np.testing.assert_array_equal(b2.numpy(), expected[1])


def test_the_file_is_plain_safetensors(tmp_path):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    w, b, n = make()
    path = tf.train.Checkpoint(w=w, parts=[b, n]).write(tmp_path / "m.safetensors")
    loaded = safetensors_numpy.load_file(path)
    assert sorted(loaded) == ["parts/0", "parts/1", "save_counter", "w"]
    np.testing.assert_array_equal(loaded["w"], w.numpy())
    assert loaded["parts/0"].dtype == np.float64 and loaded["parts/1"].dtype == np.int64


def test_a_file_written_by_the_safetensors_package_loads(tmp_path):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    path = str(tmp_path / "ext.safetensors")
    arrays = {"w": np.linspace(0, 1, 6, dtype=np.float32).reshape(2, 3), "b": np.ones(3), "n": np.array([4, 5])}
    safetensors_numpy.save_file(arrays, path)
    w, b, n = make()
    status = tf.train.Checkpoint(w=w, b=b, n=n).restore(path)
    status.assert_consumed()
    np.testing.assert_array_equal(w.numpy(), arrays["w"])
    np.testing.assert_array_equal(n.numpy(), arrays["n"])


def _valid_file(tmp_path):
    w, b, n = make()
    return tf.train.Checkpoint(w=w, b=b, n=n).write(tmp_path / "ok.safetensors")


def test_missing_file_raises_not_found(tmp_path):
    w, _, _ = make()
    with pytest.raises(tf.errors.NotFoundError, match="does not exist"):
        tf.train.Checkpoint(w=w).restore(tmp_path / "nope.safetensors")


@pytest.mark.parametrize("cut", [0, 5, 8, 40, -1])
def test_truncated_files_raise_data_loss_and_change_nothing(tmp_path, cut):
    data = open(_valid_file(tmp_path), "rb").read()
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(data[:cut] if cut >= 0 else data[:-3])
    w, b, n = make()
    before = w.numpy().copy()
    with pytest.raises(tf.errors.DataLossError, match="bad.safetensors"):
        tf.train.Checkpoint(w=w, b=b, n=n).restore(bad)
    np.testing.assert_array_equal(w.numpy(), before)


def test_corrupt_header_names_the_tensor(tmp_path):
    data = open(_valid_file(tmp_path), "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    header["w"]["data_offsets"][1] += 4  # claims more bytes than it has
    raw = json.dumps(header).encode()
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(struct.pack("<Q", len(raw)) + raw + data[8 + n :])
    w, b, nn = make()
    with pytest.raises(tf.errors.DataLossError):
        tf.train.Checkpoint(w=w, b=b, n=nn).restore(bad)
    bad.write_bytes(b"\xff" * 64)
    with pytest.raises(tf.errors.DataLossError, match="not a valid safetensors file"):
        tf.train.Checkpoint(w=w).restore(bad)


def test_mismatched_files_name_the_tensor_and_restore_nothing(tmp_path):
    path = _valid_file(tmp_path)
    w, b, n = make()
    wrong_shape = tf.Variable(np.zeros((3, 2), np.float32))
    before = w.numpy().copy()
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"'w' has shape \[2, 3\].*Variable has shape \[3, 2\]"):
        tf.train.Checkpoint(b=b, n=n, w=wrong_shape).restore(path)
    with pytest.raises(tf.errors.InvalidArgumentError, match="'b' has shape .* dtype float64.*dtype float32"):
        tf.train.Checkpoint(w=w, b=tf.Variable(np.zeros(3, np.float32))).restore(path)
    with pytest.raises(tf.errors.NotFoundError, match="no value for 'extra'"):
        tf.train.Checkpoint(w=w, extra=tf.Variable(1.0)).restore(path)
    np.testing.assert_array_equal(w.numpy(), before)
    assert b.numpy().sum() == 0


def test_unused_values_and_bad_objects():
    w, _, _ = make()
    with pytest.raises(ValueError, match="`w` is a str"):
        tf.train.Checkpoint(w="not a variable")


def test_assert_consumed_reports_unused_values(tmp_path):
    path = _valid_file(tmp_path)
    w, _, _ = make()
    status = tf.train.Checkpoint(w=w).restore(path)
    with pytest.raises(AssertionError, match="'b'"):
        status.assert_consumed()
