# Generates keras_conv_rnn_reference.json with TensorFlow 2.21 / Keras 3 (not run by the tests):
#   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_conv_rnn_reference.py \
#       > tests/data/keras_conv_rnn_reference.json
#
# Records what tests/test_keras_conv_rnn.py compares tapers with, for Conv3DTranspose, ConvLSTM1D,
# ConvLSTM2D and ConvLSTM3D over several option combinations (padding, strides, dilation,
# output_padding, return_sequences, return_state, go_backwards, activations, use_bias,
# an explicit initial_state, and dropout/recurrent_dropout in training mode with the per-gate
# dropout masks replaced by fixed ones, since the random masks cannot be reproduced): the layer's
# default name, weight paths/shapes/trainability in order, get_config() keys, the forward outputs
# with weights set from `fixed(shape, k)` below (tapers' initializers draw from other random
# streams, so every weight is set explicitly), their shapes, the output shapes for a symbolic
# keras.Input with a None batch dimension (and, for recurrent layers, also a None time dimension),
# and the gradients of sum_j sum(output_j * fixed(output_j.shape, 9 + j)) w.r.t. the input, the
# initial states (when given) and every weight, from tf.GradientTape.
#
# TensorFlow's CPU kernels reject channels_first convolutions (and dilated 3-D transposed ones), so
# data_format="channels_first" is not recorded: the tests check it against the channels_last cases
# on transposed tensors.
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


def fixed_masks(shape, k, rate):
    """Four deterministic 0 / (1 / (1 - rate)) dropout masks (one per gate), as the tests build them."""
    return [((fixed(shape, k + g) > 0.5 * rate - 0.25) / (1.0 - rate)).astype(np.float32) for g in range(4)]


def arr(x):
    return np.asarray(x, dtype=np.float64).tolist()


L = keras.layers
seq1 = ((2, 4, 6, 2), 4)
seq2 = ((2, 3, 5, 6, 2), 4)
seq3 = ((1, 3, 3, 4, 4, 2), 4)
vol = ((2, 3, 4, 3, 2), 4)

# name -> (constructor source evaluated with L = keras.layers / tapers.keras.layers, (input shape, k), options)
# the input is fixed(shape, k). Options: "initial_state" (the states are fixed(state_shape, 5 + i)),
# "dropout_masks" (training=True with fixed masks for the inputs / the recurrent state), "undilated" with
# "dilation": TensorFlow's CPU kernel rejects dilated 3-D transposed convolutions, so the values come from
# the equivalent undilated layer whose kernel is the dilated one with zeros inserted (same output sizes and
# "same" padding split, since the effective kernel size is the same); the kernel's gradient is the
# undilated kernel's gradient at the dilated taps. Names, weights, config and shapes come from the real layer.
CASES = {
    "ct3_valid": ("L.Conv3DTranspose(2, 3)", vol, {}),
    "ct3_same_strided": ("L.Conv3DTranspose(2, 3, strides=2, padding='same', activation='tanh')", vol, {}),
    "ct3_valid_output_padding": (
        "L.Conv3DTranspose(2, (3, 2, 2), strides=(2, 3, 2), output_padding=(1, 2, 0))",
        vol,
        {},
    ),
    "ct3_same_output_padding": ("L.Conv3DTranspose(3, 3, strides=2, padding='same', output_padding=1)", vol, {}),
    "ct3_dilated_nobias": (
        "L.Conv3DTranspose(2, 2, dilation_rate=(2, 1, 2), use_bias=False)",
        vol,
        {"undilated": "L.Conv3DTranspose(2, (3, 2, 3), use_bias=False)", "dilation": [2, 1, 2]},
    ),
    "ct3_same_dilated": (
        "L.Conv3DTranspose(1, 3, dilation_rate=2, padding='same')",
        vol,
        {"undilated": "L.Conv3DTranspose(1, 5, padding='same')", "dilation": [2, 2, 2]},
    ),
    "ct3_kernel_below_stride": ("L.Conv3DTranspose(2, 2, strides=3, activation='relu')", vol, {}),
    "ct3_same_strided_nonuniform": ("L.Conv3DTranspose(2, 3, strides=(1, 2, 1), padding='same')", vol, {}),
    "cl1_valid": ("L.ConvLSTM1D(3, 2)", seq1, {}),
    "cl1_same_strided_seq": ("L.ConvLSTM1D(2, 3, strides=2, padding='same', return_sequences=True)", seq1, {}),
    "cl1_dilated_backwards_seq": (
        "L.ConvLSTM1D(2, 2, dilation_rate=2, go_backwards=True, return_sequences=True)",
        seq1,
        {},
    ),
    "cl1_state_backwards": ("L.ConvLSTM1D(2, 3, padding='same', go_backwards=True, return_state=True)", seq1, {}),
    "cl2_valid": ("L.ConvLSTM2D(3, 3)", seq2, {}),
    "cl2_same_state": ("L.ConvLSTM2D(2, (3, 2), padding='same', return_state=True)", seq2, {}),
    "cl2_strided_seq_state_backwards": (
        "L.ConvLSTM2D(2, 3, strides=(2, 1), return_sequences=True, return_state=True, go_backwards=True)",
        seq2,
        {},
    ),
    "cl2_dilated_nobias_acts": (
        "L.ConvLSTM2D(2, 2, dilation_rate=2, padding='same', use_bias=False, activation='relu', "
        "recurrent_activation='hard_sigmoid')",
        seq2,
        {},
    ),
    "cl2_same_seq": ("L.ConvLSTM2D(2, 3, padding='same', return_sequences=True)", seq2, {}),
    "cl2_initial_state": (
        "L.ConvLSTM2D(2, 3, return_sequences=True, return_state=True)",
        seq2,
        {"initial_state": True},
    ),
    "cl2_dropout_training": (
        "L.ConvLSTM2D(2, 3, padding='same', dropout=0.5, recurrent_dropout=0.3)",
        seq2,
        {"dropout_masks": True},
    ),
    "cl3_valid": ("L.ConvLSTM3D(2, 2)", seq3, {}),
    "cl3_same_strided_seq": ("L.ConvLSTM3D(2, 3, strides=2, padding='same', return_sequences=True)", seq3, {}),
    "cl3_state": ("L.ConvLSTM3D(2, 2, return_state=True)", seq3, {}),
}


def _list(y):
    return list(y) if isinstance(y, (list, tuple)) else [y]


def record(src, shape, k, options):
    x = fixed(shape, k)
    keras.backend.clear_session()
    layer = eval(src)
    xt = tf.constant(x)
    if "undilated" in options:
        layer.build(x.shape)
        for i, w in enumerate(layer.weights):
            w.assign(fixed(tuple(w.shape), 1 + i))
        d = options["dilation"]
        real = layer
        layer = eval(options["undilated"], {"L": L}, {})
        layer(xt)
        for w, v in zip(layer.weights, real.weights):
            value = np.zeros(tuple(w.shape), np.float32)
            if len(w.shape) == 5:
                value[:: d[0], :: d[1], :: d[2]] = v.numpy()
            else:
                value = v.numpy()
            w.assign(value)
    else:
        layer(xt)
        for i, w in enumerate(layer.weights):
            w.assign(fixed(tuple(w.shape), 1 + i))
        real = layer
    recurrent = isinstance(layer, keras.layers.RNN)
    kwargs = {}
    sources = [xt]
    if options.get("initial_state"):
        state_shape = tuple(_list(layer(xt))[-1].shape)
        states = [tf.constant(fixed(state_shape, 5 + i)) for i in range(2)]
        kwargs["initial_state"] = states
        sources += states
    if options.get("dropout_masks"):
        cell = layer.cell
        step = (shape[0], *shape[2:])
        state_shape = tuple(_list(layer(xt))[0].shape)
        cell.get_dropout_mask = lambda _: [tf.constant(m) for m in fixed_masks(step, 20, cell.dropout)]
        cell.get_recurrent_dropout_mask = lambda _: [
            tf.constant(m) for m in fixed_masks(state_shape, 30, cell.recurrent_dropout)
        ]
        kwargs["training"] = True
    with tf.GradientTape() as tape:
        tape.watch(sources)
        ys = _list(layer(xt, **kwargs))
        loss = tf.add_n([tf.reduce_sum(y * fixed(tuple(y.shape), 9 + j)) for j, y in enumerate(ys)])
    grads = tape.gradient(loss, [*sources, *layer.trainable_weights])
    if "undilated" in options:
        d = options["dilation"]
        grads = grads[:1] + [g[:: d[0], :: d[1], :: d[2]] if len(g.shape) == 5 else g for g in grads[1:]]
        layer = real
    keras.backend.clear_session()
    sym = _list(eval(src)(keras.Input(shape=x.shape[1:])))
    rec = {
        "class": type(layer).__name__,
        "name": layer.name,
        "weights": [[w.path, list(w.shape), w.trainable] for w in layer.weights],
        "config_keys": sorted(layer.get_config()),
        "outputs": [arr(y) for y in ys],
        "output_shapes": [list(y.shape) for y in ys],
        "symbolic_shapes": [list(s.shape) for s in sym],
        "grad_sources": [arr(g) for g in grads[: len(sources)]],
        "grad_weights": [arr(g) for g in grads[len(sources) :]],
    }
    if recurrent:
        keras.backend.clear_session()
        sym_t = _list(eval(src)(keras.Input(shape=(None, *x.shape[2:]))))
        rec["symbolic_shapes_no_time"] = [list(s.shape) for s in sym_t]
    return rec


out = {"keras_version": keras.__version__, "tf_version": tf.__version__, "cases": {}}
for case, (src, x, options) in CASES.items():
    out["cases"][case] = {"src": src, "input": [list(x[0]), x[1]], "options": options, **record(src, *x, options)}
print(json.dumps(out))
