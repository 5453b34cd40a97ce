"""Records Keras 3 (TensorFlow backend) mask propagation for tests/test_keras_masking.py.

What it records (tests/data/keras_masking_reference.json):
  * ``layers``: Embedding(mask_zero=True) followed by SimpleRNN / LSTM / GRU / Bidirectional with
    return_sequences, return_state, go_backwards and zero_output_for_mask variants, on padded
    integer sequences (trailing, leading and inner padding): the fixed weights (set with
    ``set_weights``), the outputs, the output masks (``out._keras_mask``) and the gradients of
    ``sum(out * coef)`` with respect to every weight.
  * ``masking``: a Masking(mask_value=0.0) layer: output, output mask, then an LSTM on it.
  * ``pooling``: Embedding(mask_zero) -> GlobalAveragePooling1D / GlobalMaxPooling1D / Dense / Attention outputs.
  * ``fit``: functional / Sequential models (Embedding(mask_zero) -> LSTM(return_sequences) -> Dense,
    Masking -> GRU -> Dense, Embedding -> GlobalAveragePooling1D -> Dense) compiled with SGD: the
    masked loss and its gradients before training, then the weights after ``fit`` (shuffle=False).

Regenerate (from the repository root) with:
    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_masking_reference.py
"""

from __future__ import annotations

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["KERAS_BACKEND"] = "tensorflow"

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

VOCAB, EMB, UNITS, T = 7, 3, 4, 5
X = np.array(
    [
        [1, 2, 3, 0, 0],  # trailing padding
        [0, 0, 4, 5, 6],  # leading padding
        [3, 0, 2, 0, 1],  # inner padding
        [6, 5, 4, 3, 2],  # no padding
    ],
    dtype="int32",
)

LAYER_CASES = {
    "simple_rnn_last": ("SimpleRNN", {}),
    "simple_rnn_seq": ("SimpleRNN", {"return_sequences": True}),
    "lstm_last": ("LSTM", {}),
    "lstm_seq": ("LSTM", {"return_sequences": True}),
    "lstm_seq_zero": ("LSTM", {"return_sequences": True, "zero_output_for_mask": True}),
    "lstm_back_seq": ("LSTM", {"return_sequences": True, "go_backwards": True}),
    "lstm_back_last_zero": ("LSTM", {"go_backwards": True, "zero_output_for_mask": True}),
    "lstm_state": ("LSTM", {"return_sequences": True, "return_state": True}),
    "gru_last": ("GRU", {}),
    "gru_seq": ("GRU", {"return_sequences": True}),
    "gru_v1_state": ("GRU", {"reset_after": False, "return_state": True}),
    "bi_lstm_seq": ("LSTM", {"return_sequences": True, "bidirectional": "concat"}),
    "bi_gru_last": ("GRU", {"bidirectional": "sum"}),
    "bi_lstm_seq_none": ("LSTM", {"return_sequences": True, "bidirectional": None}),
    "stacked_cells_seq": ("Stacked", {"return_sequences": True, "return_state": True}),
}


def rand_weights(weights, rng):
    return [rng.uniform(-0.6, 0.6, size=tuple(w.shape)).astype("float32") for w in weights]


def tolist(x):
    if x is None:
        return None
    if isinstance(x, tf.IndexedSlices):
        x = tf.convert_to_tensor(x)
    return np.asarray(x).tolist()


def mask_of(t):
    return tolist(getattr(t, "_keras_mask", None))


def make_rnn(kind, kw):
    kw = dict(kw)
    bidir = kw.pop("bidirectional", "absent")
    if kind == "Stacked":  # RNN over [SimpleRNNCell, LSTMCell]
        layer = keras.layers.RNN([keras.layers.SimpleRNNCell(UNITS), keras.layers.LSTMCell(UNITS)], **kw)
    else:
        layer = getattr(keras.layers, kind)(UNITS, **kw)
    if bidir != "absent":
        layer = keras.layers.Bidirectional(layer, merge_mode=bidir)
    return layer


def layer_cases(rng):
    out = {}
    for name, (kind, kw) in LAYER_CASES.items():
        emb = keras.layers.Embedding(VOCAB, EMB, mask_zero=True)
        rnn = make_rnn(kind, kw)
        h = emb(X)
        rnn(h)
        ws = rand_weights(emb.weights, rng)
        emb.set_weights(ws)
        rws = rand_weights(rnn.weights, rng)
        rnn.set_weights(rws)
        with tf.GradientTape() as tape:
            h = emb(X)
            y = rnn(h)
            flat = tf.nest.flatten(y)
            coefs = [np.asarray(rng.uniform(-1, 1, size=tuple(t.shape)), "float32") for t in flat]
            loss = sum(tf.reduce_sum(t * c) for t, c in zip(flat, coefs))
        variables = emb.trainable_weights + rnn.trainable_weights
        grads = tape.gradient(loss, variables)
        out[name] = {
            "kind": kind,
            "kwargs": kw,
            "emb_mask": mask_of(h),
            "emb_weights": tolist(ws[0]),
            "rnn_weights": [tolist(w) for w in rws],
            "outputs": [tolist(t) for t in flat],
            "masks": [mask_of(t) for t in flat],
            "coefs": [tolist(c) for c in coefs],
            "grads": [tolist(g) for g in grads],
        }
    return out


def masking_case(rng):
    xf = rng.normal(size=(3, T, 2)).astype("float32")
    xf[0, 3:] = 0.0
    xf[1, :2] = 0.0
    xf[2, 2] = 0.0
    xf[2, 4, 0] = 0.0  # only one feature is 0: the step stays
    layer = keras.layers.Masking(mask_value=0.0)
    y = layer(xf)
    lstm = keras.layers.LSTM(UNITS, return_sequences=True)
    lstm(y)
    ws = rand_weights(lstm.weights, rng)
    lstm.set_weights(ws)
    z = lstm(layer(xf))
    other = keras.layers.Masking(mask_value=1.5)
    xo = np.array([[[1.5, 1.5], [1.5, 0.0]]], "float32")
    yo = other(xo)
    return {
        "x": tolist(xf),
        "out": tolist(y),
        "mask": mask_of(y),
        "lstm_weights": [tolist(w) for w in ws],
        "lstm_out": tolist(z),
        "lstm_mask": mask_of(z),
        "other_x": tolist(xo),
        "other_out": tolist(yo),
        "other_mask": mask_of(yo),
    }


def pooling_case(rng):
    emb = keras.layers.Embedding(VOCAB, EMB, mask_zero=True)
    emb(X)
    ws = rand_weights(emb.weights, rng)
    emb.set_weights(ws)
    h = emb(X)
    avg = keras.layers.GlobalAveragePooling1D()(h)
    mx = keras.layers.GlobalMaxPooling1D()(h)
    dense = keras.layers.Dense(2)
    dense(h)
    dws = rand_weights(dense.weights, rng)
    dense.set_weights(dws)
    d = dense(h)
    att = keras.layers.Attention()([h, h])  # the key mask comes from the inputs' masks
    return {
        "emb_weights": tolist(ws[0]),
        "attention": tolist(att),
        "attention_mask": mask_of(att),
        "avg": tolist(avg),
        "avg_mask": mask_of(avg),
        "max": tolist(mx),
        "max_mask": mask_of(mx),
        "dense_weights": [tolist(w) for w in dws],
        "dense": tolist(d),
        "dense_mask": mask_of(d),
    }


def fit_case(name, model, x, y, loss, rng, epochs=3):
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.5), loss=loss)
    ws = rand_weights(model.weights, rng)
    model.set_weights(ws)
    y_pred = model(x)
    with tf.GradientTape() as tape:
        y_pred_t = model(x)
        loss_value = model.compute_loss(x=x, y=y, y_pred=y_pred_t)
    grads = tape.gradient(loss_value, model.trainable_weights)
    hist = model.fit(x, y, batch_size=2, epochs=epochs, shuffle=False, verbose=0)
    return {
        "name": name,
        "weights": [tolist(w) for w in ws],
        "y_pred": tolist(y_pred),
        "y_pred_mask": mask_of(y_pred),
        "loss": float(loss_value),
        "grads": [tolist(g) for g in grads],
        "history": [float(v) for v in hist.history["loss"]],
        "final_weights": [tolist(w) for w in model.get_weights()],
    }


def fit_cases(rng):
    out = {}
    y_seq = rng.integers(0, 3, size=(4, T)).astype("int32")
    inp = keras.Input((T,), dtype="int32")
    h = keras.layers.Embedding(VOCAB, EMB, mask_zero=True)(inp)
    h = keras.layers.LSTM(UNITS, return_sequences=True)(h)
    o = keras.layers.Dense(3, activation="softmax")(h)
    out["seq_tagger"] = fit_case("seq_tagger", keras.Model(inp, o), X, y_seq, "sparse_categorical_crossentropy", rng)
    out["seq_tagger"]["y"] = tolist(y_seq)

    xf = rng.normal(size=(4, T, 2)).astype("float32")
    xf[0, 3:] = 0.0
    xf[1, :1] = 0.0
    xf[2, 1:3] = 0.0
    yb = np.array([[1.0], [0.0], [1.0], [0.0]], "float32")
    model = keras.Sequential(
        [keras.Input((T, 2)), keras.layers.Masking(0.0), keras.layers.GRU(UNITS), keras.layers.Dense(1, "sigmoid")]
    )
    out["masking_gru"] = fit_case("masking_gru", model, xf, yb, "binary_crossentropy", rng)
    out["masking_gru"]["x"] = tolist(xf)
    out["masking_gru"]["y"] = tolist(yb)

    model = keras.Sequential(
        [
            keras.Input((T,), dtype="int32"),
            keras.layers.Embedding(VOCAB, EMB, mask_zero=True),
            keras.layers.GlobalAveragePooling1D(),
            keras.layers.Dense(1, "sigmoid"),
        ]
    )
    out["gap"] = fit_case("gap", model, X, yb, "binary_crossentropy", rng)
    out["gap"]["y"] = tolist(yb)

    # A masked sequence output with mean squared error (per-step losses of shape (batch, steps)).
    y_reg = rng.normal(size=(4, T, 2)).astype("float32")
    model = keras.Sequential(
        [
            keras.Input((T,), dtype="int32"),
            keras.layers.Embedding(VOCAB, EMB, mask_zero=True),
            keras.layers.SimpleRNN(UNITS, return_sequences=True),
            keras.layers.Dense(2),
        ]
    )
    out["seq_mse"] = fit_case("seq_mse", model, X, y_reg, "mse", rng)
    out["seq_mse"]["y"] = tolist(y_reg)
    return out


def metric_case(rng):
    """Compiled metrics read y_pred's mask (Keras' MeanMetricWrapper): a masked tagger's accuracy and
    cross-entropy metric over padded steps, from evaluate and over a short fit."""
    y_seq = rng.integers(0, 3, size=(4, T)).astype("int32")
    inp = keras.Input((T,), dtype="int32")
    h = keras.layers.Embedding(VOCAB, EMB, mask_zero=True)(inp)
    h = keras.layers.LSTM(UNITS, return_sequences=True)(h)
    o = keras.layers.Dense(3, activation="softmax")(h)
    model = keras.Model(inp, o)
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.5), loss="sparse_categorical_crossentropy",
                  metrics=["sparse_categorical_accuracy", keras.metrics.SparseCategoricalCrossentropy(name="scce")])
    ws = rand_weights(model.weights, rng)
    model.set_weights(ws)
    logs = model.evaluate(X, y_seq, batch_size=4, verbose=0, return_dict=True)
    hist = model.fit(X, y_seq, batch_size=2, epochs=2, shuffle=False, verbose=0)
    return {"weights": [tolist(w) for w in ws], "y": tolist(y_seq),
            "evaluate": {k: float(v) for k, v in logs.items()},
            "history": {k: [float(x) for x in v] for k, v in hist.history.items()}}


def main():
    rng = np.random.default_rng(1234)
    data = {
        "versions": {"keras": keras.__version__, "tensorflow": tf.__version__},
        "x": X.tolist(),
        "vocab": VOCAB,
        "emb": EMB,
        "units": UNITS,
        "layers": layer_cases(rng),
        "masking": masking_case(rng),
        "pooling": pooling_case(rng),
        "fit": fit_cases(rng),
    }
    data["metrics"] = metric_case(rng)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_masking_reference.json")
    with open(path, "w") as f:
        json.dump(data, f)
    print("wrote", path)


if __name__ == "__main__":
    main()
