"""tapers.custom_gradient, as tf.custom_gradient."""

import numpy as np
import pytest

import tapers as tf


def test_custom_gradient_replaces_the_rule():
    @tf.custom_gradient
    def f(x):
        def grad(dy):
            return dy * 100

        return x * x, grad

    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    assert y.numpy() == 9.0
    assert t.gradient(y, x).numpy() == 100.0


def test_two_inputs_and_none_gradients():
    @tf.custom_gradient
    def f(x, y):
        def grad(dy):
            return dy * y, None

        return x * y, grad

    x, yv = tf.constant(3.0), tf.constant(4.0)
    with tf.GradientTape() as t:
        t.watch([x, yv])
        z = f(x, yv)
    gx, gy = t.gradient(z, [x, yv])
    assert gx.numpy() == 4.0 and gy is None


def test_numerically_stable_log1pexp():
    # The example from TF's documentation.
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))

        return tf.math.log(1 + e), grad

    x = tf.constant(100.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = log1pexp(x)
    assert t.gradient(y, x).numpy() == 1.0


def test_custom_gradient_supports_higher_order():
    @tf.custom_gradient
    def cube(x):
        def grad(dy):
            return dy * 3 * x * x

        return x * x * x, grad

    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = cube(x)
        dy = inner.gradient(y, x)
    assert dy.numpy() == 12.0
    assert outer.gradient(dy, x).numpy() == 12.0


def test_errors_in_the_gradient_function_propagate():
    @tf.custom_gradient
    def f(x):
        def grad(dy):
            raise KeyError("boom")

        return x * 2, grad

    x = tf.constant(1.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    with pytest.raises(KeyError, match="boom"):
        t.gradient(y, x)


def test_wrong_number_of_gradients_is_an_error():
    @tf.custom_gradient
    def f(x, y):
        def grad(dy):
            return dy

        return x * y, grad

    x, yv = tf.constant(1.0), tf.constant(2.0)
    with tf.GradientTape() as t:
        t.watch([x, yv])
        z = f(x, yv)
    with pytest.raises(ValueError, match="expected to return 2 gradients, but returned 1"):
        t.gradient(z, [x, yv])


def test_decorator_with_parentheses_and_gradient_check():
    @tf.custom_gradient()
    def softsign(x):
        def grad(dy):
            return dy / tf.square(1 + tf.abs(x))

        return x / (1 + tf.abs(x)), grad

    x = tf.constant(np.array([-2.0, 0.5, 3.0]))
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(softsign(x))
    np.testing.assert_allclose(t.gradient(y, x).numpy(), 1 / (1 + np.abs(x.numpy())) ** 2)
