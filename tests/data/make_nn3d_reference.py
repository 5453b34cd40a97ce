"""Records TensorFlow 2.21 / Keras 3 reference values for tapers' 3-D ops and layers.

What it records (tests/data/nn3d_reference.json, read by tests/test_nn3d.py):
- ``tf.nn.conv3d``, ``tf.nn.conv3d_transpose`` (output shape (2, 5, 6, 7, 3)), ``tf.nn.max_pool3d``,
  ``tf.nn.avg_pool3d`` for several padding / stride /
  dilation combinations: outputs and the gradients of ``sum(out * fixed(out.shape, 7))`` with
  respect to the input (and the filters for conv3d).
- Keras layers Conv3D, MaxPooling3D, AveragePooling3D, ZeroPadding3D, UpSampling3D, Cropping3D and
  SpatialDropout3D (inference) built with the recorded kwargs, weights set from ``fixed(shape, 10 + i)``:
  outputs, output shapes, the symbolic output shape for ``keras.Input`` with a None batch, weight
  paths and shapes in order, ``get_config()`` keys, and gradients of the same loss w.r.t. the
  input and each weight.

Inputs are ``fixed(shape, k)``: ``0.5 * sin(0.7 * flat_index + k)`` as float32.

Regenerate with:
    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_nn3d_reference.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import tensorflow as tf  # noqa: E402


def fixed(shape: tuple[int, ...], k: int = 0) -> np.ndarray:
    n = int(np.prod(shape)) if len(shape) else 1
    return (0.5 * np.sin(np.arange(n, dtype=np.float64) * 0.7 + k)).reshape(shape).astype(np.float32)


X_LAST = (2, 5, 6, 7, 3)
X_FIRST = (2, 3, 5, 6, 7)

OPS = [
    # (op, kwargs); conv3d filters are fixed((kd, kh, kw, 3, 4), 2)
    ("conv3d", {"k": [3, 2, 3], "strides": [1, 1, 1, 1, 1], "padding": "VALID"}),
    ("conv3d", {"k": [3, 2, 3], "strides": [1, 1, 1, 1, 1], "padding": "SAME"}),
    ("conv3d", {"k": [2, 3, 2], "strides": [1, 2, 1, 3, 1], "padding": "SAME"}),
    ("conv3d", {"k": [2, 3, 2], "strides": [1, 2, 2, 1, 1], "padding": "VALID"}),
    ("conv3d", {"k": [2, 2, 3], "strides": [1, 1, 1, 1, 1], "padding": "VALID", "dilations": [1, 2, 1, 2, 1]}),
    ("conv3d", {"k": [3, 3, 2], "strides": [1, 1, 1, 1, 1], "padding": "SAME", "dilations": [1, 2, 2, 1, 1]}),
    ("conv3d_transpose", {"k": [3, 2, 3], "strides": [1, 1, 1, 1, 1], "padding": "VALID"}),
    ("conv3d_transpose", {"k": [2, 3, 2], "strides": [1, 2, 1, 3, 1], "padding": "SAME"}),
    ("conv3d_transpose", {"k": [3, 2, 2], "strides": [1, 2, 2, 1, 1], "padding": "VALID"}),
    ("max_pool3d", {"ksize": [1, 2, 2, 2, 1], "strides": [1, 1, 1, 1, 1], "padding": "VALID"}),
    ("max_pool3d", {"ksize": [1, 2, 3, 2, 1], "strides": [1, 2, 2, 3, 1], "padding": "SAME"}),
    ("max_pool3d", {"ksize": [1, 3, 2, 2, 1], "strides": [1, 1, 2, 1, 1], "padding": "SAME"}),
    ("max_pool3d", {"ksize": [1, 3, 1, 2, 1], "strides": [1, 2, 1, 1, 1], "padding": "VALID"}),
    ("avg_pool3d", {"ksize": [1, 2, 2, 2, 1], "strides": [1, 1, 1, 1, 1], "padding": "VALID"}),
    ("avg_pool3d", {"ksize": [1, 2, 3, 2, 1], "strides": [1, 2, 2, 3, 1], "padding": "SAME"}),
    ("avg_pool3d", {"ksize": [1, 3, 2, 2, 1], "strides": [1, 1, 2, 1, 1], "padding": "SAME"}),
    ("avg_pool3d", {"ksize": [1, 3, 1, 2, 1], "strides": [1, 2, 1, 1, 1], "padding": "VALID"}),
]

LAYERS = [
    ("Conv3D", {"filters": 4, "kernel_size": 3}),
    ("Conv3D", {"filters": 2, "kernel_size": [2, 3, 2], "strides": [2, 1, 2], "padding": "same", "activation": "relu"}),
    ("Conv3D", {"filters": 3, "kernel_size": 2, "dilation_rate": [2, 1, 2], "use_bias": False}),
    ("Conv3D", {"filters": 2, "kernel_size": 2, "strides": 2, "padding": "same", "data_format": "channels_first"}),
    ("MaxPooling3D", {}),
    ("MaxPooling3D", {"pool_size": [2, 3, 2], "strides": [1, 2, 1], "padding": "same"}),
    ("MaxPooling3D", {"pool_size": 2, "data_format": "channels_first"}),
    ("AveragePooling3D", {"pool_size": 2}),
    ("AveragePooling3D", {"pool_size": [2, 3, 2], "strides": [1, 2, 1], "padding": "same"}),
    ("AveragePooling3D", {"pool_size": 3, "strides": 2, "padding": "same", "data_format": "channels_first"}),
    ("ZeroPadding3D", {}),
    ("ZeroPadding3D", {"padding": 2}),
    ("ZeroPadding3D", {"padding": [[1, 0], [0, 2], [1, 1]], "data_format": "channels_first"}),
    ("UpSampling3D", {}),
    ("UpSampling3D", {"size": [1, 2, 3], "data_format": "channels_first"}),
    ("Cropping3D", {}),
    ("Cropping3D", {"cropping": [[0, 1], [1, 0], [2, 1]]}),
    ("Cropping3D", {"cropping": 1, "data_format": "channels_first"}),
    ("SpatialDropout3D", {"rate": 0.5}),
]


def loss_grads(fn, x, extra):
    with tf.GradientTape() as tape:
        tape.watch(x)
        for v in extra:
            tape.watch(v)
        out = fn()
        loss = tf.reduce_sum(out * fixed(tuple(out.shape), 7))
    grads = tape.gradient(loss, [x, *extra])
    return out, grads


def main() -> None:
    ref: dict = {"ops": [], "layers": []}
    for op, kw in OPS:
        x = tf.constant(fixed(X_LAST, 1))
        rec = {"op": op, "kwargs": kw}
        if op == "conv3d":
            f = tf.constant(fixed((*kw["k"], 3, 4), 2))
            args = {k: v for k, v in kw.items() if k != "k"}
            out, (gx, gf) = loss_grads(lambda x=x, f=f, args=args: tf.nn.conv3d(x, f, **args), x, [f])
            rec["grad_filters"] = gf.numpy().tolist()
        elif op == "conv3d_transpose":
            # The input is what conv3d of an X_LAST volume gives; the output has X_LAST's shape.
            f = tf.constant(fixed((*kw["k"], 3, 4), 2))
            args = {k: v for k, v in kw.items() if k != "k"}
            dy_shape = tuple(tf.nn.conv3d(tf.zeros(X_LAST), f, **args).shape)
            x = tf.constant(fixed(dy_shape, 1))
            rec["input_shape"] = list(dy_shape)
            out, (gx, gf) = loss_grads(
                lambda x=x, f=f, args=args: tf.nn.conv3d_transpose(x, f, list(X_LAST), **args), x, [f]
            )
            rec["grad_filters"] = gf.numpy().tolist()
        else:
            fn = getattr(tf.nn, op)
            out, (gx,) = loss_grads(lambda x=x, fn=fn, kw=kw: fn(x, **kw), x, [])
        rec.update(out=out.numpy().tolist(), shape=list(out.shape), grad_input=gx.numpy().tolist())
        ref["ops"].append(rec)
    for cls, kw in LAYERS:
        shape = X_FIRST if kw.get("data_format") == "channels_first" else X_LAST
        layer = getattr(keras.layers, cls)(**kw)
        x = tf.constant(fixed(shape, 1))
        layer.build(shape)
        for i, w in enumerate(layer.weights):
            w.assign(fixed(tuple(w.shape), 10 + i))
        with tf.GradientTape() as tape:
            tape.watch(x)
            out = layer(x, training=False)
            loss = tf.reduce_sum(out * fixed(tuple(out.shape), 7))
        grads = tape.gradient(loss, [x, *layer.trainable_weights])
        sym = getattr(keras.layers, cls)(**kw)(keras.Input(shape[1:]))
        ref["layers"].append(
            {
                "cls": cls,
                "kwargs": kw,
                "input_shape": list(shape),
                "out": out.numpy().tolist(),
                "shape": list(out.shape),
                "symbolic_shape": [None if d is None else int(d) for d in sym.shape],
                "weights": [[w.path, list(w.shape)] for w in layer.weights],
                "config_keys": sorted(layer.get_config()),
                "grad_input": grads[0].numpy().tolist(),
                "grad_weights": [g.numpy().tolist() for g in grads[1:]],
            }
        )
    path = Path(__file__).parent / "nn3d_reference.json"
    path.write_text(json.dumps(ref))
    print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
