"""float64 finite-difference checks of the gradients the TF-parity fixes changed (issue 20).

TF's own answers at the edges (zero upstreams, NaN, 0, masked classes) are in tests/test_tf_parity.py;
these check that, away from the edges, the rewritten rules are still the derivatives they claim to be, to
first and second order.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest

import tapers as tf
from conftest import check_gradients


def first_derivative(op: Callable[..., tf.Tensor]) -> Callable[..., tf.Tensor]:
    """``x -> d sum(op(x)) / dx``, recorded on any outer tape (so its gradient is the second derivative)."""

    def d(x: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(op(x))
        return t.gradient(y, x)

    return d


POINTS = np.array([-2.5, -0.7, 0.3, 1.9, 4.2, 7.5])

SMOOTH_PIECES = {
    "sqrt": (tf.sqrt, np.array([0.3, 1.9, 4.2])),
    "rsqrt": (tf.math.rsqrt, np.array([0.3, 1.9, 4.2])),
    "reciprocal": (tf.math.reciprocal, np.array([-2.5, 0.3, 4.2])),
    "relu": (tf.nn.relu, POINTS),
    "relu6": (tf.nn.relu6, POINTS),
    "leaky_relu": (lambda x: tf.nn.leaky_relu(x, alpha=0.25), POINTS),
    "elu": (tf.nn.elu, POINTS),
    "selu": (tf.nn.selu, POINTS),
    "cumprod": (lambda x: tf.math.cumprod(x), np.array([2.0, -1.5, 3.0, 0.5])),
    "cumprod_exclusive_reverse": (
        lambda x: tf.math.cumprod(x, exclusive=True, reverse=True),
        np.array([2.0, -1.5, 3.0, 0.5]),
    ),
    "reduce_prod": (lambda x: tf.reduce_prod(x, axis=1), np.array([[2.0, -1.5, 3.0], [0.5, 4.0, -2.0]])),
}

# Gradients that do not depend on x (None to second order, as in TF): first order only.
FIRST_ORDER = {
    "clip_by_value": (lambda x: tf.clip_by_value(x, -1.0, 2.0), POINTS),
    "trace": (tf.linalg.trace, np.arange(9.0).reshape(3, 3) - 4.0),
    # A zero inside the product: reduce_prod's own gradient is exact there (its second derivative goes
    # through cumprod's div_no_nan, TF's choice, which is 0 at a zero rather than the true value).
    "reduce_prod_zero": (lambda x: tf.reduce_prod(x), np.array([2.0, 0.0, 3.0])),
    "reduce_prod_two_zeros": (lambda x: tf.reduce_prod(x), np.array([2.0, 0.0, 3.0, 0.0])),
}


@pytest.mark.parametrize("name", sorted(SMOOTH_PIECES))
def test_first_and_second_derivatives_match_finite_differences(name: str) -> None:
    op, x = SMOOTH_PIECES[name]
    check_gradients(op, x)
    check_gradients(first_derivative(op), x, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(FIRST_ORDER))
def test_first_derivatives_match_finite_differences(name: str) -> None:
    op, x = FIRST_ORDER[name]
    check_gradients(op, x)


def test_cumprod_gradient_at_a_zero_is_tensorflows_div_no_nan() -> None:
    # TF's _CumprodGrad divides by x with div_no_nan: 0 at the zero (the true derivative there is 8).
    x = tf.constant([2.0, 0.0, 3.0], dtype=tf.float64)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(tf.math.cumprod(x))
    assert t.gradient(y, x).numpy().tolist() == [1.0, 0.0, 0.0]


def test_max_pool2d_gradient_and_its_zero_second_derivative() -> None:
    x = np.array([[[[1.0], [5.0], [2.0]], [[4.0], [3.0], [0.5]], [[-1.0], [6.0], [2.5]]]])

    def pool(t: tf.Tensor) -> tf.Tensor:
        return tf.nn.max_pool2d(t, ksize=2, strides=1, padding="VALID")

    check_gradients(pool, x)
    d2 = check_gradients(first_derivative(pool), x)[0]
    assert np.array_equal(d2, np.zeros_like(x))


def test_sparse_and_broadcast_softmax_cross_entropy_gradients() -> None:
    labels = tf.constant([2, 0])
    check_gradients(
        lambda z: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=z),
        np.array([[0.3, -1.2, 2.0], [1.5, 0.1, -0.4]]),
    )
    dense = tf.constant([[0.3, 0.7], [1.0, 0.0]], dtype=tf.float64)
    check_gradients(
        lambda z: tf.nn.softmax_cross_entropy_with_logits(labels=dense, logits=tf.broadcast_to(z, [2, 2])),
        np.array([[1.0], [2.0]]),
    )


def test_masked_class_gives_a_finite_loss_and_gradient() -> None:
    z = tf.constant([[-4.228, -np.inf, 1.0]])
    with tf.GradientTape() as t:
        t.watch(z)
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([0]), logits=z)
    g = t.gradient(loss, z).numpy()
    assert np.isfinite(loss.numpy()).all() and np.isfinite(g).all()
    assert g[0, 1] == 0.0


def test_leaky_relu_alpha_is_float32_as_tensorflow_attr() -> None:
    # TF's alpha attribute is a float32, also for float64 features.
    y = tf.nn.leaky_relu(tf.constant([-1.0], dtype=tf.float64), alpha=0.2)
    assert y.numpy()[0] == -float(np.float32(0.2))
