"""Runs one compiled or eager call N times, for instruction counts under callgrind.

Usage: ``python3 benches/function_calls.py WORKLOAD MODE N`` where WORKLOAD is
``scalar`` (``y = x*x`` record + gradient; MODE ``eager``, ``fast``, or ``slow``:
the compiled call with its fast path cleared before each call, so the signature is
computed in Python) or ``digits`` (the digits demo's training step, batch 32, Adam;
MODE ``eager`` or ``compiled``) or ``elementwise`` (``sum(tanh(x)*exp(-x*x)+x)`` on
4M float32, value and gradient; MODE ``eager`` or ``compiled``) or ``mlp`` / ``mlp_user``
(benches/compare.py's MLP step, batch 128, in the library's fused form or the
hand-written TF-user form; MODE ``eager`` or ``compiled``) or ``chain`` (benches/compare.py's 100-op scalar
chain ``y = y * c`` recorded and differentiated; MODE ``eager``). Instructions per
call are the difference of two runs
(N large and small) divided by the difference of N::

    RAYON_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 valgrind --tool=callgrind \\
        python3 benches/function_calls.py scalar fast 1200
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import numpy as np

import tapers as tf


def scalar(mode: str) -> Callable[[], Any]:
    x = tf.constant(3.0)

    def tp(x: Any) -> Any:
        with tf.GradientTape() as t:
            t.watch(x)
            y = x * x
        return t.gradient(y, x)

    if mode == "eager":
        return lambda: tp(x)
    f = tf.function(tp)
    f(x)
    if mode == "slow":

        def slow() -> Any:
            f._fast = None
            return f(x)

        return slow
    return lambda: f(x)


def digits(mode: str) -> Callable[[], Any]:
    from tapers.examples.digits import MLP, make_step

    r = np.random.default_rng(0)
    xb = tf.constant(r.random((32, 64)).astype(np.float32))
    yb = tf.constant(r.integers(0, 10, 32).astype(np.int32))
    step = make_step(MLP(64, 128, 10, 0), tf.optimizers.Adam(0.01))
    if mode == "compiled":
        step = tf.function(step)
    return lambda: step(xb, yb)


def elementwise(mode: str) -> Callable[[], Any]:
    x = tf.constant(np.random.default_rng(0).normal(size=4_000_000).astype(np.float32))

    def tp() -> Any:
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(tf.tanh(x) * tf.exp(-x * x) + x)
        return y, t.gradient(y, x)

    return tf.function(tp) if mode == "compiled" else tp


def chain(mode: str) -> Callable[[], Any]:
    if mode != "eager":
        raise SystemExit("chain runs eagerly only")
    x, c = tf.constant(1.0), tf.constant(1.0000001)

    def tp() -> Any:
        with tf.GradientTape() as t:
            t.watch(x)
            y = x
            for _ in range(100):
                y = y * c
        return t.gradient(y, x)

    return tp


def mlp(mode: str, form: str) -> Callable[[], Any]:
    # benches/compare.py's MLP step (784-256-256-10, batch 128, SGD).
    import os

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from compare import tapers_mlp_step_fn

    return tapers_mlp_step_fn(form, compiled=mode == "compiled")


def main() -> None:
    workload, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    call = {
        "scalar": scalar,
        "chain": chain,
        "digits": digits,
        "elementwise": elementwise,
        "mlp": lambda m: mlp(m, "fused"),
        "mlp_user": lambda m: mlp(m, "user"),
    }[workload](mode)
    for _ in range(3):
        call()
    for _ in range(n):
        call()


if __name__ == "__main__":
    main()
