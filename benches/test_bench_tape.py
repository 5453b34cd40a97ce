"""Per-op and per-iteration costs of recording and differentiating scalars.

Run: python -m pytest benches --benchmark-only --benchmark-columns=median,iqr,ops
Peers that are not installed are skipped (say so in the output).
"""

from __future__ import annotations

import numpy as np
import pytest

import tapers as tf

try:
    import torch
except ImportError:  # pragma: no cover - optional peer
    torch = None

CHAIN = 100


def test_tapers_example1_iteration(benchmark):
    """One iteration of the seed example: tape, watch, y = x*x, gradient."""
    x = tf.constant(3.0)

    def step():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        return tape.gradient(y, x)

    assert float(benchmark(step)) == 6.0


def test_tapers_chain_record(benchmark):
    """Recording a 100-op scalar chain (divide the median by 100 for per-op cost)."""
    x = tf.constant(1.0)
    c = tf.constant(1.0001)

    def record():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in range(CHAIN):
                y = y * c
        return tape

    benchmark(record)


def test_tapers_chain_record_and_gradient(benchmark):
    x = tf.constant(1.0)
    c = tf.constant(1.0001)

    def run():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in range(CHAIN):
                y = y * c
        return tape.gradient(y, x)

    benchmark(run)


def test_tapers_op_untaped(benchmark):
    x = tf.constant(3.0)
    benchmark(lambda: x * x)


def test_numpy_0d_op(benchmark):
    """Baseline: a bare numpy multiply on 0-d arrays."""
    x = np.array(3.0, dtype=np.float32)
    benchmark(lambda: x * x)


def test_numpy_chain(benchmark):
    x = np.array(1.0, dtype=np.float32)
    c = np.array(1.0001, dtype=np.float32)

    def run():
        y = x
        for _ in range(CHAIN):
            y = y * c
        return y

    benchmark(run)


@pytest.mark.skipif(torch is None, reason="PyTorch not installed")
def test_torch_example1_iteration(benchmark):
    def step():
        x = torch.tensor(3.0, requires_grad=True)
        y = x * x
        (g,) = torch.autograd.grad(y, x)
        return g

    assert float(benchmark(step)) == 6.0


@pytest.mark.skipif(torch is None, reason="PyTorch not installed")
def test_torch_chain_record_and_gradient(benchmark):
    c = torch.tensor(1.0001)

    def run():
        x = torch.tensor(1.0, requires_grad=True)
        y = x
        for _ in range(CHAIN):
            y = y * c
        (g,) = torch.autograd.grad(y, x)
        return g

    benchmark(run)
