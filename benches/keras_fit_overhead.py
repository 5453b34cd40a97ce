"""What ``keras.Model.fit`` costs over a hand-written GradientTape loop, on the digits demo's data.

Six loops train the same 64-64-10 MLP with Adam for the same steps (batch 32,
no shuffling): plain tapers ops on the layers' Variables, a tape loop over the
Keras model and loss, and ``fit`` without metrics and with accuracy, each with
``run_eagerly=True`` and with its default compiled step (a ``tapers.function``
traced per batch shape, replayed after that). Each is timed best-of-3 (the
compiled runs include their traces) and reported per step.

Run:  PYTHONPATH=python python3 benches/keras_fit_overhead.py [EPOCHS]
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable

import numpy as np

import tapers as tf
from tapers.examples.digits import load_digits

keras = tf.keras
BATCH = 32


def main(epochs: int = 10) -> None:
    x_train, y_train, _, _ = load_digits(0)
    x_train = x_train.astype(np.float32)
    y_train = y_train.astype(np.int32)
    xt, yt = tf.constant(x_train), tf.constant(y_train)
    n = len(x_train)

    def make() -> Any:
        keras.backend.clear_session()
        m = keras.Sequential(
            [keras.Input(shape=(64,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(10)]
        )
        m(x_train[:1])
        return m

    def bare(m: Any) -> None:
        opt = tf.optimizers.Adam(1e-3)
        d1, d2 = m.layers
        for _ in range(epochs):
            for s in range(0, n, BATCH):
                xb, yb = xt[s : s + BATCH], yt[s : s + BATCH]
                with tf.GradientTape() as tape:
                    logits = tf.matmul(tf.nn.relu(tf.matmul(xb, d1.kernel) + d1.bias), d2.kernel) + d2.bias
                    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(yb, logits))
                grads = tape.gradient(loss, m.trainable_variables)
                opt.apply_gradients(zip(grads, m.trainable_variables))

    def keras_loop(m: Any) -> None:
        opt = tf.optimizers.Adam(1e-3)
        loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        for _ in range(epochs):
            for s in range(0, n, BATCH):
                xb, yb = xt[s : s + BATCH], yt[s : s + BATCH]
                with tf.GradientTape() as tape:
                    loss = loss_fn(yb, m(xb, training=True))
                grads = tape.gradient(loss, m.trainable_variables)
                opt.apply_gradients(zip(grads, m.trainable_variables))

    def fit(metrics: Any, run_eagerly: bool) -> Callable[[Any], None]:
        def run(m: Any) -> None:
            loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
            m.compile(optimizer=tf.optimizers.Adam(1e-3), loss=loss, metrics=metrics, run_eagerly=run_eagerly)
            m.fit(x_train, y_train, batch_size=BATCH, epochs=epochs, shuffle=False, verbose=0)

        return run

    steps = epochs * int(np.ceil(n / BATCH))
    loops = [
        ("tape loop, tapers ops", bare),
        ("tape loop, Keras model and loss", keras_loop),
        ("fit, no metrics, run_eagerly", fit(None, True)),
        ("fit, no metrics (compiled step)", fit(None, False)),
        ("fit, accuracy, run_eagerly", fit(["accuracy"], True)),
        ("fit, accuracy (compiled step)", fit(["accuracy"], False)),
    ]
    for name, loop in loops:
        best = float("inf")
        for _ in range(3):
            m = make()
            t0 = time.perf_counter()
            loop(m)
            best = min(best, time.perf_counter() - t0)
        print(f"{name:34s} {best:7.3f} s  {best / steps * 1e6:6.0f} us/step")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
