"""Optimizer updates as training loops run them: one `apply_gradients` on the
MLP's weights (784x256, 256x256, 256x10 and biases) for each rule, eager, and
the MLP step (compare.py's, batch 128) with each rule under `tapers.function`.

Run:  python3 benches/optimizer_step.py [--calls 300] [--only sgd,adam]
Prints median and minimum microseconds per call. Compare builds in alternating
processes (the machine's speed drifts between runs).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any, Callable

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import compare  # noqa: E402

import tapers as tf  # noqa: E402

RULES: dict[str, Callable[[], Any]] = {
    "sgd": lambda: tf.optimizers.SGD(0.01),
    "momentum": lambda: tf.optimizers.SGD(0.01, momentum=0.9, nesterov=True),
    "adam": lambda: tf.optimizers.Adam(0.001),
    "adamw": lambda: tf.optimizers.AdamW(0.001, weight_decay=0.004),
    "rmsprop": lambda: tf.optimizers.RMSprop(0.001, momentum=0.5, centered=True),
}


def timed(f: Callable[[], object], calls: int) -> tuple[float, float]:
    for _ in range(20):
        f()
    ts = []
    for _ in range(calls):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e6, min(ts) * 1e6


def update_only(rule: str) -> Callable[[], object]:
    _, _, ws = compare.mlp_inputs()
    params = [tf.Variable(w) for w in ws] + [tf.Variable(tf.zeros([w.shape[1]])) for w in ws]
    grads = [tf.constant(np.full(p.shape, 1e-3, np.float32)) for p in params]
    opt = RULES[rule]()
    return lambda: opt.apply_gradients(zip(grads, params))


def compiled_step(rule: str) -> Callable[[], object]:
    x, labels, ws = compare.mlp_inputs()
    xt, yt = tf.constant(x), tf.constant(labels.astype(np.int32))
    vs = [tf.Variable(w) for w in ws]
    bs = [tf.Variable(tf.zeros([w.shape[1]])) for w in ws]
    params = vs + bs
    opt = RULES[rule]()

    @tf.function
    def step() -> Any:
        with tf.GradientTape() as tape:
            h = tf.nn.relu(xt @ vs[0] + bs[0])
            h = tf.nn.relu(h @ vs[1] + bs[1])
            logits = h @ vs[2] + bs[2]
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yt, logits=logits))
        opt.apply_gradients(zip(tape.gradient(loss, params), params))
        return loss

    return step


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--calls", type=int, default=300)
    p.add_argument("--only", help="comma-separated rules (" + ",".join(RULES) + ")")
    args = p.parse_args()
    rules = args.only.split(",") if args.only else list(RULES)
    for rule in rules:
        med, mn = timed(update_only(rule), args.calls)
        print(f"{rule} update (eager): median {med:.1f} us, min {mn:.1f} us")
        med, mn = timed(compiled_step(rule), args.calls)
        print(f"{rule} MLP step (compiled): median {med:.1f} us, min {mn:.1f} us")


if __name__ == "__main__":
    main()
