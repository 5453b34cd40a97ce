"""Quickstart: the GradientTape examples, then a linear-regression fit.

Run with ``python -m tapers.examples.quickstart``. The regression fits
``y = 3x - 2 + noise`` with a plain GradientTape training loop on Variables.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import tapers as tf


def tape_examples() -> None:
    print("# d(x*x)/dx at x = 3")
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    print(tape.gradient(y, x))

    print("# gradients of x*x + y*y at (2, 4)")
    x = tf.constant(2.0)
    y = tf.constant(4.0)
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        z = x * x + y * y
    print(tape.gradient(z, [x, y]))

    print("# a persistent tape, asked twice")
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    print(tape.gradient(y, x))
    print(tape.gradient(y, x))
    del tape

    print("# second derivative of x**3 at x = 2 (nested tapes)")
    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        dy = inner.gradient(y, x)
    print(dy, outer.gradient(dy, x))


def linear_regression(steps: int, learning_rate: float, seed: int) -> tuple[float, float, float]:
    rng = np.random.default_rng(seed)
    xs = rng.uniform(-1.0, 1.0, size=(256, 1)).astype(np.float32)
    ys = (3.0 * xs - 2.0 + rng.normal(0.0, 0.05, size=xs.shape)).astype(np.float32)
    x, y = tf.constant(xs), tf.constant(ys)
    w = tf.Variable(tf.zeros([1, 1]), name="w")
    b = tf.Variable(tf.zeros([1]), name="b")
    loss = tf.constant(0.0)
    for step in range(steps):
        with tf.GradientTape() as tape:
            pred = tf.matmul(x, w) + b
            loss = tf.reduce_mean(tf.square(pred - y))
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(learning_rate * gw)
        b.assign_sub(learning_rate * gb)
        if step % max(1, steps // 5) == 0 or step == steps - 1:
            print(f"step {step:4d}  loss {float(loss):.5f}  w {float(w[0][0]):+.4f}  b {float(b[0]):+.4f}")
    return float(w[0][0]), float(b[0]), float(loss)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=200, help="training steps (default 200)")
    p.add_argument("--learning-rate", type=float, default=0.5, help="SGD step size (default 0.5)")
    p.add_argument("--seed", type=int, default=0, help="data seed (default 0)")
    args = p.parse_args(argv)
    tape_examples()
    print("# linear regression: y = 3x - 2 + noise")
    t0 = time.perf_counter()
    w, b, loss = linear_regression(args.steps, args.learning_rate, args.seed)
    print(f"fitted w = {w:.3f}, b = {b:.3f} (true 3, -2), final loss {loss:.5f} in {time.perf_counter() - t0:.2f} s")


if __name__ == "__main__":
    main()
