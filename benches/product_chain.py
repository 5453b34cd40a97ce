"""What a layer's bias add and activation cost on top of its product, compiled.

A compiled ``tf.maximum(x @ w + b, 0.0)`` ([128, 256] @ [256, 256]) against the
compiled product alone: the difference is what the elementwise chain after the
product costs (``MatMulChain`` nodes run it on the product's row halves). The fastest
of 30 batches of 300 calls, and the sixth fastest.

Run:  PYTHONPATH=python python3 benches/product_chain.py
(alternate builds in separate processes to compare them).
"""

from __future__ import annotations

import time

import numpy as np

import tapers as tf


def main() -> None:
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(128, 256)).astype(np.float32))
    w = tf.constant(rng.normal(size=(256, 256)).astype(np.float32) * 0.1)
    b = tf.constant(rng.normal(size=256).astype(np.float32))
    layer = tf.function(lambda x: tf.maximum(x @ w + b, 0.0))
    product = tf.function(lambda x: x @ w)

    def bench(f) -> tuple[float, float]:
        for _ in range(100):
            f(x)
        times = []
        for _ in range(30):
            t = time.perf_counter()
            for _ in range(300):
                f(x)
            times.append((time.perf_counter() - t) / 300 * 1e6)
        times.sort()
        return times[0], times[5]

    lay, prod = bench(layer), bench(product)
    print(
        f"layer {lay[0]:.1f} us ({lay[1]:.1f}), product alone {prod[0]:.1f} us ({prod[1]:.1f}), "
        f"bias add and activation {lay[0] - prod[0]:.1f} us"
    )


if __name__ == "__main__":
    main()
