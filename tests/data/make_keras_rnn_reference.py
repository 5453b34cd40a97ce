# Generates keras_rnn_reference.json with TensorFlow 2.21 / Keras 3 (not run by the tests):
#   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_rnn_reference.py \
#       > tests/data/keras_rnn_reference.json
#
# Records what tests/test_keras_rnn.py compares tapers' recurrent layers with: for each case
# (SimpleRNN, LSTM, GRU, RNN over cells or a list of cells, Bidirectional, and the cells called
# on one step), the layer's class and name, its weight paths/shapes/trainable flags in order,
# get_config() keys, the forward outputs (a list: the output, then the states when
# return_state) with weights set from `fixed(shape, 1 + i)` (initializers draw from other
# random streams in tapers), their shapes, the shapes of a symbolic call on keras.Input with
# unknown batch (time known, and time unknown), and the gradients of
# loss = sum_i sum(out_i * fixed(out_i.shape, 10 + i)) w.r.t. the inputs, the initial
# states (when given) and every weight, from tf.GradientTape.
import json
import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

assert keras.__version__.startswith("3."), keras.__version__
L = keras.layers


def fixed(shape, k=0):
    """Deterministic weights/inputs shared with the tests: a scaled sine of the flat index."""
    n = int(np.prod(shape)) if len(shape) else 1
    return (0.5 * np.sin(np.arange(n, dtype=np.float64) * 0.7 + k)).reshape(shape).astype(np.float32)


def arr(x):
    return np.asarray(x, dtype=np.float64).tolist()


X = fixed((2, 5, 3), 3)
H0 = fixed((2, 4), 20)
C0 = fixed((2, 4), 21)

# name -> (constructor source, initial state or None); the tests evaluate the same sources.
CASES = {
    "simple_rnn": ("L.SimpleRNN(4)", None),
    "simple_rnn_seq": ("L.SimpleRNN(4, return_sequences=True)", None),
    "simple_rnn_state_back": ("L.SimpleRNN(4, return_state=True, go_backwards=True)", None),
    "simple_rnn_all": ("L.SimpleRNN(4, return_sequences=True, return_state=True, go_backwards=True,"
                       " activation='relu')", None),
    "simple_rnn_init": ("L.SimpleRNN(4, use_bias=False)", "h"),
    "lstm": ("L.LSTM(4)", None),
    "lstm_seq": ("L.LSTM(4, return_sequences=True)", None),
    "lstm_state": ("L.LSTM(4, return_state=True)", None),
    "lstm_back_seq": ("L.LSTM(4, return_sequences=True, go_backwards=True)", None),
    "lstm_all": ("L.LSTM(4, return_sequences=True, return_state=True, go_backwards=True)", None),
    "lstm_nobias_init": ("L.LSTM(4, use_bias=False, return_state=True)", "hc"),
    "lstm_init_seq": ("L.LSTM(4, return_sequences=True, activation='relu', recurrent_activation='hard_sigmoid')",
                      "hc"),
    "gru": ("L.GRU(4)", None),
    "gru_seq": ("L.GRU(4, return_sequences=True)", None),
    "gru_state_back": ("L.GRU(4, return_state=True, go_backwards=True)", None),
    "gru_all": ("L.GRU(4, return_sequences=True, return_state=True, go_backwards=True)", None),
    "gru_before": ("L.GRU(4, reset_after=False, return_sequences=True)", None),
    "gru_nobias_init": ("L.GRU(4, use_bias=False, return_state=True)", "h"),
    "rnn_lstm_cell": ("L.RNN(L.LSTMCell(4), return_sequences=True)", None),
    "rnn_gru_cell_state": ("L.RNN(L.GRUCell(4), return_state=True, go_backwards=True)", None),
    "rnn_stacked": ("L.RNN([L.GRUCell(3), L.SimpleRNNCell(4), L.LSTMCell(2)], return_state=True)", None),
    "rnn_stacked_seq": ("L.RNN([L.LSTMCell(3), L.GRUCell(4)], return_sequences=True, go_backwards=True)", None),
    "bidi_lstm": ("L.Bidirectional(L.LSTM(4))", None),
    "bidi_lstm_seq": ("L.Bidirectional(L.LSTM(4, return_sequences=True))", None),
    "bidi_gru_sum": ("L.Bidirectional(L.GRU(4, return_sequences=True), merge_mode='sum')", None),
    "bidi_rnn_mul": ("L.Bidirectional(L.SimpleRNN(4), merge_mode='mul')", None),
    "bidi_gru_ave_state": ("L.Bidirectional(L.GRU(4, return_state=True), merge_mode='ave')", None),
    "bidi_lstm_none_state": ("L.Bidirectional(L.LSTM(4, return_sequences=True, return_state=True), merge_mode=None)",
                             None),
    "bidi_lstm_init": ("L.Bidirectional(L.LSTM(4), merge_mode='concat')", "hchc"),
}
# The cells called on one step: (source, states).
CELLS = {
    "simple_rnn_cell": ("L.SimpleRNNCell(4)", "h"),
    "lstm_cell": ("L.LSTMCell(4)", "hc"),
    "gru_cell": ("L.GRUCell(4)", "h"),
    "gru_cell_before": ("L.GRUCell(4, reset_after=False)", "h"),
}


def initial(kind):
    if kind is None:
        return None
    return [tf.constant(fixed((2, 4), 20 + i)) for i in range(len(kind))]


def symbolic(src, time):
    keras.backend.clear_session()
    layer = eval(src)
    y = layer(keras.Input(shape=(time, 3)))
    return [list(t.shape) for t in tf.nest.flatten(y)]


out = {"keras_version": keras.__version__, "tf_version": tf.__version__, "layers": {}, "cells": {}}
for case, (src, kind) in CASES.items():
    keras.backend.clear_session()
    layer = eval(src)
    x = tf.constant(X)

    def run(layer=layer, x=x, kind=kind):
        for i, w in enumerate(layer.weights):
            w.assign(fixed(tuple(w.shape), 1 + i))
        states = initial(kind)
        watched = [x] + (states or [])
        with tf.GradientTape(persistent=True) as tape:
            for t in watched:
                tape.watch(t)
            y = layer(x, initial_state=states) if states is not None else layer(x)
            outs = tf.nest.flatten(y)
            loss = tf.add_n([tf.reduce_sum(o * fixed(tuple(o.shape), 10 + i)) for i, o in enumerate(outs)])
        return outs, tape.gradient(loss, watched), tape.gradient(loss, layer.weights)

    layer(x, initial_state=initial(kind)) if kind else layer(x)  # build
    outs, g_in, g_w = run()
    out["layers"][case] = {
        "src": src,
        "initial_state": kind,
        "class": type(layer).__name__,
        "name": layer.name,
        "weights": [[w.path, list(w.shape), w.trainable] for w in layer.weights],
        "config_keys": sorted(layer.get_config()),
        "outputs": [arr(o) for o in outs],
        "output_shapes": [list(o.shape) for o in outs],
        "grad_inputs": [arr(g) for g in g_in],
        "grad_weights": [arr(g) for g in g_w],
        "symbolic_shapes": symbolic(src, 5),
        "symbolic_shapes_no_time": symbolic(src, None),
    }

XT = fixed((2, 3), 5)
for case, (src, kind) in CELLS.items():
    keras.backend.clear_session()
    cell = eval(src)
    x = tf.constant(XT)
    cell(x, initial(kind))  # build
    for i, w in enumerate(cell.weights):
        w.assign(fixed(tuple(w.shape), 1 + i))
    states = initial(kind)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        for s in states:
            tape.watch(s)
        y, new_states = cell(x, states)
        outs = [y, *tf.nest.flatten(new_states)]
        loss = tf.add_n([tf.reduce_sum(o * fixed(tuple(o.shape), 10 + i)) for i, o in enumerate(outs)])
    out["cells"][case] = {
        "src": src,
        "initial_state": kind,
        "class": type(cell).__name__,
        "name": cell.name,
        "weights": [[w.path, list(w.shape), w.trainable] for w in cell.weights],
        "config_keys": sorted(cell.get_config()),
        "state_size": cell.state_size,
        "output_size": cell.output_size,
        "outputs": [arr(o) for o in outs],
        "grad_inputs": [arr(g) for g in tape.gradient(loss, [x, *states])],
        "grad_weights": [arr(g) for g in tape.gradient(loss, cell.weights)],
    }

json.dump(out, sys.stdout, indent=None, separators=(",", ":"))
sys.stdout.write("\n")
