"""tapers.Variable: creation, assignment, reads on tapes, TF's printing and errors."""

import numpy as np
import pytest

import tapers as tf


def test_repr_and_attributes():
    v = tf.Variable(1.0)
    assert repr(v) == "<tapers.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>"
    assert str(v) == repr(v)
    w = tf.Variable([1.0, 2.0], name="w")
    assert repr(w) == "<tapers.Variable 'w:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    assert w.name == "w:0" and w.shape == (2,) and w.dtype == tf.float32 and w.trainable
    assert not tf.Variable(1.0, trainable=False).trainable


def test_initial_values():
    assert tf.Variable(lambda: tf.ones([2])).numpy().tolist() == [1.0, 1.0]
    v = tf.Variable([1, 2], dtype=tf.float64)
    assert v.dtype == tf.float64
    assert tf.Variable(3).dtype == tf.int32
    with pytest.raises(ValueError, match="initial_value: Tensor conversion requested dtype float32"):
        tf.Variable(tf.constant([1, 2]), dtype=tf.float32)
    with pytest.raises(TypeError, match="initial_value must be specified"):
        tf.Variable()


def test_assign_family():
    v = tf.Variable(1.0)
    assert v.assign(5.0) is v
    assert v.numpy() == 5.0
    v.assign_add(2.0)
    assert v.numpy() == 7.0
    v.assign_sub(tf.constant(3.0))
    assert v.numpy() == 4.0
    assert v.assign_add(1.0).numpy() == 5.0


def test_assign_errors_leave_the_variable_unchanged():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(
        ValueError, match=r"Cannot assign value to variable ' Variable:0': Shape mismatch.*\(2,\).*\(3,\)"
    ):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="Tensor conversion requested dtype float32 for Tensor with dtype float64"):
        v.assign(tf.constant([1.0, 2.0], dtype=tf.float64))
    with pytest.raises(ValueError):
        v.assign_add([1.0, 2.0, 3.0])
    assert v.numpy().tolist() == [1.0, 2.0]


def test_arithmetic_like_a_tensor():
    v = tf.Variable(3.0)
    assert isinstance(v * 2, tf.Tensor) and (v * 2).numpy() == 6.0
    assert (2 - v).numpy() == -1.0
    assert (v == 3.0).numpy()
    assert float(v) == 3.0
    assert (tf.Variable(3) + 1).numpy() == 4
    assert (-v).numpy() == -3.0
    assert np.asarray(v).tolist() == 3.0
    m = tf.Variable([[1.0, 2.0]])
    assert (m @ tf.constant([[1.0], [1.0]])).numpy().tolist() == [[3.0]]
    assert len(m) == 1 and m[0].numpy().tolist() == [1.0, 2.0]


def test_reads_are_watched_automatically():
    v, w = tf.Variable(1.0), tf.Variable(2.0)
    with tf.GradientTape() as t:
        z = w * v
    assert t.watched_variables() == (v, w) or [x is y for x, y in zip(t.watched_variables(), (v, w))] == [True, True]
    gv, gw = t.gradient(z, [v, w])
    assert (gv.numpy(), gw.numpy()) == (2.0, 1.0)


def test_watched_variables_are_in_creation_order_and_identical_objects():
    a, b = tf.Variable(1.0, name="a"), tf.Variable(2.0, name="b")
    with tf.GradientTape() as t:
        _ = b * 2 + a
    watched = t.watched_variables()
    assert isinstance(watched, tuple)
    assert watched[0] is a and watched[1] is b


def test_watch_accessed_variables_false():
    v, w = tf.Variable(1.0), tf.Variable(2.0)
    with tf.GradientTape(watch_accessed_variables=False) as t:
        z = w * v
    assert t.watched_variables() == ()
    assert t.gradient(z, [v, w]) == [None, None]
    with tf.GradientTape(watch_accessed_variables=False) as t:
        t.watch(v)
        z = w * v
    assert t.watched_variables()[0] is v
    assert t.gradient(z, v).numpy() == 2.0


def test_non_trainable_variables_are_not_watched():
    v = tf.Variable(2.0, trainable=False)
    with tf.GradientTape() as t:
        y = v * v
    assert t.watched_variables() == ()
    assert t.gradient(y, v) is None


def test_assign_after_recording_does_not_change_the_gradient():
    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        t.watch(v)
        y = v.read_value() * v
    v.assign(10.0)
    assert t.gradient(y, v).numpy() == 4.0
    assert v.numpy() == 10.0


def test_watched_variables_after_the_tape_is_spent():
    v = tf.Variable(1.0)
    with tf.GradientTape() as t:
        y = v * v
    t.gradient(y, v)
    assert t.watched_variables()[0] is v


def test_training_loop_reduces_loss():
    w = tf.Variable(0.0)
    b = tf.Variable(0.0)
    xs = tf.constant(np.linspace(-1, 1, 32, dtype=np.float32))
    ys = 3.0 * xs + 1.0
    for _ in range(200):
        with tf.GradientTape() as t:
            loss = tf.reduce_mean(tf.square(w * xs + b - ys))
        gw, gb = t.gradient(loss, [w, b])
        w.assign_sub(0.2 * gw)
        b.assign_sub(0.2 * gb)
    assert w.numpy() == pytest.approx(3.0, abs=1e-3)
    assert b.numpy() == pytest.approx(1.0, abs=1e-3)
