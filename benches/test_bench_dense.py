"""Dense workloads: a small MLP step and a large elementwise graph, against numpy.

Run: python -m pytest benches --benchmark-only
"""

from __future__ import annotations

import numpy as np
import pytest

import tapers as tf

R = np.random.default_rng(0)


def test_tapers_mlp_step(benchmark):
    """784-256-256-10 MLP, batch 128: forward, backward and an SGD update."""
    x = tf.constant(R.normal(size=(128, 784)).astype(np.float32))
    y = tf.constant(np.eye(10, dtype=np.float32)[R.integers(0, 10, 128)])
    ws = [tf.Variable((R.normal(size=s) * 0.05).astype(np.float32)) for s in [(784, 256), (256, 256), (256, 10)]]

    def step():
        with tf.GradientTape() as tape:
            h = tf.tanh(x @ ws[0])
            h = tf.tanh(h @ ws[1])
            out = h @ ws[2]
            loss = tf.reduce_mean(tf.square(out - y))
        grads = tape.gradient(loss, ws)
        for w, g in zip(ws, grads):
            w.assign_sub(0.01 * g)
        return loss

    benchmark(step)


def test_numpy_mlp_step(benchmark):
    x = R.normal(size=(128, 784)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[R.integers(0, 10, 128)]
    ws = [(R.normal(size=s) * 0.05).astype(np.float32) for s in [(784, 256), (256, 256), (256, 10)]]

    def step():
        h1 = np.tanh(x @ ws[0])
        h2 = np.tanh(h1 @ ws[1])
        out = h2 @ ws[2]
        d = 2 * (out - y) / out.size
        g2 = h2.T @ d
        dh2 = (d @ ws[2].T) * (1 - h2 * h2)
        g1 = h1.T @ dh2
        dh1 = (dh2 @ ws[1].T) * (1 - h1 * h1)
        g0 = x.T @ dh1
        for w, g in zip(ws, (g0, g1, g2)):
            w -= 0.01 * g

    benchmark(step)


def test_tapers_elementwise_4m(benchmark):
    """reduce_sum(tanh(x) * exp(-x * x) + x) on 4M floats, forward + backward."""
    x = tf.constant(R.normal(size=4_000_000).astype(np.float32))

    def run():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.tanh(x) * tf.exp(-x * x) + x)
        return tape.gradient(y, x)

    benchmark(run)


def test_numpy_elementwise_4m(benchmark):
    x = R.normal(size=4_000_000).astype(np.float32)

    def run():
        t = np.tanh(x)
        e = np.exp(-x * x)
        _ = np.sum(t * e + x)
        return (1 - t * t) * e + t * e * (-2 * x) + 1

    benchmark(run)


def test_tapers_full_reduction_gradient_4m(benchmark):
    """The gradient of reduce_sum over 4M floats: one broadcast of the scalar
    seed (a fill) and one pass of the negation's gradient."""
    x = tf.constant(R.normal(size=4_000_000).astype(np.float32))
    tape = tf.GradientTape(persistent=True)
    with tape:
        tape.watch(x)
        y = tf.reduce_sum(-x)
    benchmark(lambda: tape.gradient(y, x))


def test_tapers_add_n_4x4m(benchmark):
    """Accumulating four 4M-float gradient contributions (what the backward
    pass does for a tensor with four consumers)."""
    parts = [tf.constant(R.normal(size=4_000_000).astype(np.float32)) for _ in range(4)]
    benchmark(lambda: tf.add_n(parts))


def test_numpy_add_4x4m(benchmark):
    parts = [R.normal(size=4_000_000).astype(np.float32) for _ in range(4)]
    benchmark(lambda: parts[0] + parts[1] + parts[2] + parts[3])


@pytest.mark.parametrize("fn", ["exp", "tanh"])
def test_tapers_unary_4m(benchmark, fn):
    """float32 exp/tanh: polynomial kernels under runtime SIMD dispatch (AVX2 where present)."""
    x = tf.constant(R.normal(size=4_000_000).astype(np.float32))
    op = getattr(tf, fn)
    benchmark(lambda: op(x))


@pytest.mark.parametrize("fn", ["exp", "tanh"])
def test_numpy_unary_4m(benchmark, fn):
    x = R.normal(size=4_000_000).astype(np.float32)
    op = getattr(np, fn)
    benchmark(lambda: op(x))


def test_tapers_elementwise_4m_backward_only(benchmark):
    """The fused backward pass of the elementwise workload alone (persistent tape)."""
    x = tf.constant(R.normal(size=4_000_000).astype(np.float32))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.tanh(x) * tf.exp(-x * x) + x)
    benchmark(lambda: tape.gradient(y, x))


def test_tapers_elementwise_4m_backward_two_leaves(benchmark):
    """A fused backward pass with two wanted leaves: both gradients written once."""
    x = tf.constant(R.normal(size=4_000_000).astype(np.float32))
    y = tf.constant(R.normal(size=4_000_000).astype(np.float32))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        s = tf.reduce_sum(tf.tanh(x) * tf.exp(-y * y) + x * y)
    benchmark(lambda: tape.gradient(s, [x, y]))


def test_tapers_jacobian_tanh_matvec_256(benchmark):
    """jacobian of tanh(W @ x), W 256x256: one vectorized backward pass."""
    W = tf.constant((R.normal(size=(256, 256)) / 16).astype(np.float32))
    x = tf.constant(R.normal(size=256).astype(np.float32))

    def run():
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.tanh(tf.reshape(W @ tf.reshape(x, [256, 1]), [256]))
        return t.jacobian(y, x)

    benchmark(run)


@pytest.mark.parametrize("lib", ["tapers", "numpy"])
def test_transpose_1024(benchmark, lib):
    """A row-major copy of a transposed 1024x1024 float32 matrix (tapers: 64x64 tiles)."""
    a = R.normal(size=(1024, 1024)).astype(np.float32)
    if lib == "tapers":
        t = tf.constant(a)
        benchmark(lambda: tf.transpose(t))
    else:
        benchmark(lambda: np.ascontiguousarray(a.T))


@pytest.mark.parametrize("lib", ["tapers", "numpy"])
def test_bias_gradient_sum_128x256(benchmark, lib):
    """A bias gradient: the [128, 256] float32 sum over the batch axis."""
    g = R.normal(size=(128, 256)).astype(np.float32)
    if lib == "tapers":
        t = tf.constant(g)
        benchmark(lambda: tf.reduce_sum(t, axis=0))
    else:
        benchmark(lambda: g.sum(0))
