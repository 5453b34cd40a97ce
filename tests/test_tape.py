"""GradientTape semantics, each case checked against TensorFlow 2.21's answer."""

import numpy as np
import pytest

import tapers as tf


def val(t):
    return None if t is None else t.numpy().tolist()


def test_unwatched_input_gets_none():
    x, y = tf.constant(2.0), tf.constant(5.0)
    with tf.GradientTape() as t:
        t.watch(y)
        z = x * y
    assert [val(g) for g in t.gradient(z, [x, y])] == [None, 2.0]


def test_persistent_tape_intermediate_sources_and_output_gradients():
    x, y = tf.constant(2.0), tf.constant(5.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        z = x * y
        w = z * 3
    assert val(t.gradient(w, z)) == 3.0
    assert val(t.gradient([w, z], x)) == 20.0  # a list of targets is summed
    assert val(t.gradient(w, x, output_gradients=tf.constant(2.0))) == 30.0
    assert val(t.gradient(w, x, output_gradients=[None])) == 15.0


def test_non_scalar_target_is_summed():
    x = tf.constant(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
        z = tf.constant([1.0, 2.0]) * x
    assert val(t.gradient(z, x)) == 3.0


def test_unconnected_gradients():
    x, y = tf.constant(2.0), tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        z = x * 2
    assert t.gradient(z, y) is None
    g = t.gradient(z, [y, x], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert [val(a) for a in g] == [[0.0, 0.0], 2.0]
    assert val(t.gradient(z, y, unconnected_gradients="zero")) == [0.0, 0.0]
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients"):
        t.gradient(z, x, unconnected_gradients="bogus")


def test_nested_sources_keep_their_structure():
    x, y = tf.constant(2.0), tf.constant(1.0)
    with tf.GradientTape() as t:
        t.watch(x)
        z = x * 2
    g = t.gradient(z, {"b": [y, (x,)], "a": x})
    assert list(g) == ["b", "a"]
    assert val(g["a"]) == 2.0 and g["b"][0] is None and val(g["b"][1][0]) == 2.0
    assert isinstance(g["b"][1], tuple)


def test_duplicate_sources():
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * 2
    assert [val(g) for g in t.gradient(y, [x, x])] == [2.0, 2.0]


def test_target_with_respect_to_itself_is_one_even_unwatched():
    t = tf.GradientTape()
    with t:
        pass
    x = tf.constant(1.0)
    assert val(t.gradient(x, x)) == 1.0


def test_higher_order_derivatives():
    x = tf.constant(3.0)
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = x * x * x
            dy = t1.gradient(y, x)
        d2y = t2.gradient(dy, x)
    d3y = t3.gradient(d2y, x)
    assert (val(dy), val(d2y), val(d3y)) == (27.0, 18.0, 6.0)


def test_higher_order_through_nonlinear_ops():
    x = tf.constant(0.7, dtype=tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.tanh(x) * tf.sin(x)
        dy = inner.gradient(y, x)
    d2y = outer.gradient(dy, x)
    th, s, c = np.tanh(0.7), np.sin(0.7), np.cos(0.7)
    sech2 = 1 - th**2
    expected = -2 * th * sech2 * s + 2 * sech2 * c - th * s
    assert d2y.numpy() == pytest.approx(expected, rel=1e-12)


def test_stop_recording():
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        with t.stop_recording():
            y = x * x
        z = x * 2
    assert t.gradient(y, x) is None
    assert val(z) == 6.0


def test_stop_recording_on_a_tape_that_is_not_recording():
    t = tf.GradientTape()
    with pytest.raises(RuntimeError, match="Trying to stop recording a tape which is not recording"):
        with t.stop_recording():
            pass


def test_stop_gradient():
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.stop_gradient(x * x) + x
    assert val(t.gradient(y, x)) == 1.0


def test_non_persistent_gradient_inside_context_stops_recording():
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
        g = t.gradient(y, x)
        z = x * 5
    assert val(g) == 6.0
    with pytest.raises(
        RuntimeError, match="A non-persistent GradientTape can only be used to compute one set of gradients"
    ):
        t.gradient(z, x)


def test_persistent_gradient_inside_context_warns_and_records():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x * x
        with pytest.warns(UserWarning, match="persistent tape inside its context"):
            g = t.gradient(y, x)
    # The gradient ops were recorded on the tape itself: d(3x^2)/dx = 6x.
    assert val(g) == 27.0
    assert val(t.gradient(g, x)) == 18.0


def test_spent_tape_raises_runtime_error_and_can_be_reentered():
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
    t.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent GradientTape"):
        t.gradient(y, x)
    # As in TF, entering again starts a fresh recording.
    with t:
        t.watch(x)
        z = x * 4
    assert val(t.gradient(z, x)) == 4.0


def test_reset():
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x  # noqa: F841 - discarded by reset
        t.reset()
        z = x * 3
        t.watch(x)
        z2 = x * 3
    assert val(t.gradient([z, z2], x)) == 3.0
    with pytest.raises(ValueError, match="Tape is not recording"):
        t.reset()


def test_reentering_an_active_tape():
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        with pytest.raises(ValueError, match="Tape is still recording"):
            with t:
                pass


def test_integer_tensors_are_not_watched():
    xi = tf.constant(3)
    with tf.GradientTape() as t:
        with pytest.warns(UserWarning, match="must be floating"):
            t.watch(xi)
        y = xi * xi
    assert t.gradient(y, xi) is None


def test_watch_rejects_non_tensors():
    with tf.GradientTape() as t:
        with pytest.raises(ValueError, match="Passed in object 1.0 of type 'float', not tf.Tensor"):
            t.watch(1.0)
        with pytest.raises(ValueError):
            t.watch([tf.constant(1.0), "x"])


def test_target_must_be_a_tensor():
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x  # noqa: F841
    with pytest.raises(TypeError, match="target must be a Tensor"):
        t.gradient(1.0, x)


def test_source_must_be_a_tensor():
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
    with pytest.raises(TypeError, match="sources must be Tensors or Variables"):
        t.gradient(y, 1.0)


def test_output_gradients_shape_mismatch_names_both_shapes():
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.constant([1.0, 2.0]) * x
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2\] vs. \[3\]"):
        t.gradient(y, x, output_gradients=tf.constant([2.0, 3.0, 4.0]))


def test_failed_gradient_does_not_spend_the_tape():
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.constant([1.0, 2.0]) * x
    with pytest.raises(tf.errors.InvalidArgumentError):
        t.gradient(y, x, output_gradients=tf.constant([1.0], dtype=tf.float64))
    assert val(t.gradient(y, x)) == 3.0


def test_casts():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        through_int = tf.cast(tf.cast(x, tf.int32), tf.float32)
        through_f64 = tf.cast(x, tf.float64) * 2
    assert t.gradient(through_int, x) is None
    g = t.gradient(through_f64, x)
    assert g.dtype == tf.float32 and val(g) == 2.0


def test_chained_tapes_do_not_connect():
    x = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    with tf.GradientTape() as g2:
        g2.watch(y)
        z = y * y
    assert g2.gradient(z, x) is None


def test_spent_tape_drops_its_recording():
    x = tf.constant(np.ones(10, dtype=np.float32))
    with tf.GradientTape() as t:
        t.watch(x)
        z = tf.reduce_sum(x * x * 3)
    assert t._num_ops() == 3
    t.gradient(z, x)
    assert t._num_ops() == 0


def test_persistent_tape_keeps_its_recording():
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
    t.gradient(y, x)
    assert t._num_ops() == 1


def test_warnings_point_at_the_callers_line():
    # watch/gradient run in the Rust base class (single tensors) or in
    # Python (structures): either way the warning names the user's file.
    xi = tf.constant(3)
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as t:
        for arg in (xi, [xi], {"a": (xi,)}):
            with pytest.warns(UserWarning, match="must be floating") as rec:
                t.watch(arg)
            assert [w.filename for w in rec] == [__file__], arg
        t.watch(x)
        y = x * x
        for call in (lambda: t.gradient(y, x), lambda: t.gradient([y], [x])):
            with pytest.warns(UserWarning, match="persistent tape inside its context") as rec:
                call()
            assert [w.filename for w in rec] == [__file__]


def test_a_tape_is_truthy_and_subclassable():
    # No __len__: an empty tape is still true, as in TensorFlow.
    assert bool(tf.GradientTape())

    class Logged(tf.GradientTape):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            self.calls = 0

        def gradient(self, *a, **k):
            self.calls += 1
            return super().gradient(*a, **k)

    x = tf.Variable(2.0)
    with Logged(persistent=True) as t:
        y = x * x
    assert t.persistent
    assert val(t.gradient(y, x)) == 4.0
    assert val(t.gradient(y, [x])[0]) == 4.0
    assert t.calls == 2
    with pytest.raises(TypeError, match="GradientTape.*unexpected keyword argument 'persistant'"):
        tf.GradientTape(persistant=True)


def test_gradient_arguments_route_through_the_structure_path():
    x = tf.constant(2.0)
    z = tf.constant(5.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
    # Single tensors with output_gradients / unconnected_gradients given.
    assert val(t.gradient(y, x, output_gradients=tf.constant(3.0))) == 12.0
    assert val(t.gradient(y, z, unconnected_gradients=tf.UnconnectedGradients.ZERO)) == 0.0
    assert val(t.gradient(y, z, unconnected_gradients="zero")) == 0.0
    assert t.gradient(y, z, unconnected_gradients=tf.UnconnectedGradients.NONE) is None
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'nope'"):
        t.gradient(y, x, unconnected_gradients="nope")
