# Generates keras_conv_extra_reference.json with TensorFlow 2.21 / Keras 3 (not run by the tests):
#   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_conv_extra_reference.py \
#       > tests/data/keras_conv_extra_reference.json
#
# Records what tests/test_keras_conv_extra.py compares tapers with, for Conv1D, Conv1DTranspose,
# Conv2DTranspose, DepthwiseConv1D, DepthwiseConv2D, SeparableConv1D and SeparableConv2D over
# several option combinations (padding, strides, dilation, output_padding, depth_multiplier,
# groups): the layer's default name, weight paths/shapes/trainability in order,
# get_config() keys, the forward output with weights set from `fixed(shape, k)` below (tapers'
# initializers draw from other random streams, so every weight is set explicitly), the output
# shape for a concrete input and for a symbolic keras.Input with a None batch dimension, and
# the gradients of sum(output * fixed(output.shape, 9)) w.r.t. the input and every weight.
import json
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

assert keras.__version__.startswith("3."), keras.__version__


def fixed(shape, k=0):
    """Deterministic weights/inputs shared with the tests: a scaled sine of the flat index."""
    n = int(np.prod(shape)) if len(shape) else 1
    return (0.5 * np.sin(np.arange(n, dtype=np.float64) * 0.7 + k)).reshape(shape).astype(np.float32)


def arr(x):
    return np.asarray(x, dtype=np.float64).tolist()


L = keras.layers
x1 = ((2, 7, 3), 4)
x1_4 = ((2, 7, 4), 5)
x2 = ((2, 5, 6, 3), 4)
x2_small = ((2, 3, 4, 3), 6)

# name -> (constructor source evaluated with L = keras.layers / tapers.keras.layers, (input shape, k))
# the input is fixed(shape, k).
CASES = {
    "conv1d_valid": ("L.Conv1D(4, 3)", x1),
    "conv1d_same_strided": ("L.Conv1D(2, 3, strides=2, padding='same', activation='tanh')", x1),
    "conv1d_causal_dilated": ("L.Conv1D(3, 2, padding='causal', dilation_rate=2)", x1),
    "conv1d_causal_strided": ("L.Conv1D(2, 3, strides=2, padding='causal')", x1),
    "conv1d_same_dilated_nobias": ("L.Conv1D(2, 3, padding='same', dilation_rate=2, use_bias=False)", x1),
    "conv1d_groups": ("L.Conv1D(6, 2, groups=2, activation='relu')", x1_4),
    "conv2dt_valid": ("L.Conv2DTranspose(2, 3)", x2_small),
    "conv2dt_same_strided": ("L.Conv2DTranspose(2, 3, strides=2, padding='same', activation='tanh')", x2_small),
    "conv2dt_valid_output_padding": ("L.Conv2DTranspose(2, (3, 2), strides=(2, 3), output_padding=(1, 2))", x2_small),
    "conv2dt_same_output_padding": ("L.Conv2DTranspose(3, 3, strides=2, padding='same', output_padding=1)", x2_small),
    "conv2dt_kernel_below_stride": ("L.Conv2DTranspose(2, 2, strides=3, use_bias=False)", x2_small),
    "conv1dt_valid": ("L.Conv1DTranspose(2, 3)", x1),
    "conv1dt_same_strided": ("L.Conv1DTranspose(3, 3, strides=2, padding='same', activation='relu')", x1),
    "conv1dt_output_padding": ("L.Conv1DTranspose(2, 3, strides=2, output_padding=1)", x1),
    "dw2d_valid": ("L.DepthwiseConv2D(3)", x2),
    "dw2d_same_strided_dm2": (
        "L.DepthwiseConv2D(3, strides=2, padding='same', depth_multiplier=2, activation='relu')",
        x2,
    ),
    "dw2d_dilated": ("L.DepthwiseConv2D((2, 3), dilation_rate=2)", x2),
    "dw2d_same_nobias": ("L.DepthwiseConv2D(2, padding='same', use_bias=False)", x2),
    "dw1d_valid": ("L.DepthwiseConv1D(3)", x1),
    "dw1d_same_strided_dm2": ("L.DepthwiseConv1D(3, strides=2, padding='same', depth_multiplier=2)", x1),
    "sep2d_valid": ("L.SeparableConv2D(4, 3)", x2),
    "sep2d_same_strided_dm2": (
        "L.SeparableConv2D(2, 3, strides=2, padding='same', depth_multiplier=2, activation='tanh')",
        x2,
    ),
    "sep2d_dilated_nobias": ("L.SeparableConv2D(3, 2, dilation_rate=(2, 1), padding='same', use_bias=False)", x2),
    "sep1d_valid": ("L.SeparableConv1D(4, 3)", x1),
    "sep1d_same_dilated_dm2": ("L.SeparableConv1D(2, 3, padding='same', dilation_rate=2, depth_multiplier=2)", x1),
}


def record(src, shape, k):
    x = fixed(shape, k)
    keras.backend.clear_session()
    layer = eval(src)
    xt = tf.constant(x)
    layer(xt)
    for i, w in enumerate(layer.weights):
        w.assign(fixed(tuple(w.shape), 1 + i))
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = layer(xt)
        loss = tf.reduce_sum(y * fixed(tuple(y.shape), 9))
    grads = tape.gradient(loss, [xt, *layer.trainable_weights])
    keras.backend.clear_session()
    sym = eval(src)(keras.Input(shape=x.shape[1:]))
    return {
        "class": type(layer).__name__,
        "name": layer.name,
        "weights": [[w.path, list(w.shape), w.trainable] for w in layer.weights],
        "config_keys": sorted(layer.get_config()),
        "output": arr(y),
        "output_shape": list(y.shape),
        "symbolic_shape": list(sym.shape),
        "grad_input": arr(grads[0]),
        "grad_weights": [arr(g) for g in grads[1:]],
    }


out = {"keras_version": keras.__version__, "tf_version": tf.__version__, "cases": {}}
for case, (src, x) in CASES.items():
    out["cases"][case] = {"src": src, "input": [list(x[0]), x[1]], **record(src, *x)}
print(json.dumps(out))
