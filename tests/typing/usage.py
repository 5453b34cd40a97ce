"""A typed training loop: `mypy --strict` must accept it (tests/test_typing.py)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

import tapers as tf


def loss_fn(w: tf.Variable, b: tf.Variable, x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
    pred = tf.matmul(x, w) + b
    return tf.reduce_mean(tf.square(pred - y))


def train(steps: int) -> float:
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(64, 3)).astype(np.float32))
    y = tf.constant(rng.normal(size=(64, 1)).astype(np.float32))
    w = tf.Variable(tf.zeros([3, 1]), name="w")
    b = tf.Variable(tf.zeros([1]), name="b")
    opt = tf.optimizers.Adam(learning_rate=0.05)
    loss = tf.constant(0.0)
    for _ in range(steps):
        with tf.GradientTape() as tape:
            loss = loss_fn(w, b, x, y)
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b]))
    with tempfile.TemporaryDirectory() as d:
        ckpt = tf.train.Checkpoint(model=[w, b], optimizer=opt)
        path: str = ckpt.save(Path(d) / "m.safetensors")
        ckpt.restore(path).assert_consumed()
    first: tf.Tensor = tf.reshape(w, [3])[0]
    with tf.GradientTape(persistent=True) as tape2:
        tape2.watch(first)
        z = tf.stop_gradient(first) * 2.0
    reason: str = tape2.explain(z, first)
    assert "StopGradient" in reason
    return float(loss.numpy())


if __name__ == "__main__":
    print(train(10))
