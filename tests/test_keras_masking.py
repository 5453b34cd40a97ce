"""Keras 3 mask propagation in tapers.keras, compared with Keras 3.15 (TensorFlow backend).

The reference numbers come from tests/data/make_keras_masking_reference.py (see its header).
Float32 results are compared with rtol 1e-5 (atol 1e-6); weights after ``fit`` with rtol 1e-4
(three epochs of SGD accumulate float32 rounding differences).
"""

from __future__ import annotations

import json
import os
import warnings

import numpy as np
import pytest

import tapers as tf
from tapers.keras.layers._base import flatten, get_keras_mask

keras = tf.keras
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "data", "keras_masking_reference.json")) as f:
    REF = json.load(f)
X = np.array(REF["x"], dtype="int32")
VOCAB, EMB, UNITS = REF["vocab"], REF["emb"], REF["units"]
RTOL, ATOL = 1e-5, 1e-6


def close(actual, expected, rtol=RTOL, atol=ATOL):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected, dtype="float32"), rtol=rtol, atol=atol)


def mask_list(t):
    m = get_keras_mask(t)
    return None if m is None else np.asarray(m).tolist()


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


@pytest.mark.parametrize("name", sorted(REF["layers"]))
def test_recurrent_layers_with_embedding_mask(name):
    case = REF["layers"][name]
    emb = keras.layers.Embedding(VOCAB, EMB, mask_zero=True)
    rnn = make_rnn(case["kind"], case["kwargs"])
    rnn(emb(X))
    emb.set_weights([np.array(case["emb_weights"], "float32")])
    rnn.set_weights([np.array(w, "float32") for w in case["rnn_weights"]])
    variables = emb.trainable_weights + rnn.trainable_weights
    with tf.GradientTape() as tape:
        h = emb(X)
        y = rnn(h)
        flat = flatten(y)
        loss = tf.add_n([tf.reduce_sum(t * np.array(c, "float32")) for t, c in zip(flat, case["coefs"])])
    assert mask_list(h) == case["emb_mask"]
    assert len(flat) == len(case["outputs"])
    for t, want, want_mask in zip(flat, case["outputs"], case["masks"]):
        close(t, want)
        assert mask_list(t) == want_mask
    grads = tape.gradient(loss, variables)
    assert len(grads) == len(case["grads"])
    for g, want in zip(grads, case["grads"]):
        close(tf.convert_to_tensor(g), want)


def test_explicit_mask_argument_matches_attached_mask():
    case = REF["layers"]["lstm_seq"]
    emb = keras.layers.Embedding(VOCAB, EMB)  # no mask_zero: the mask is passed by hand
    rnn = make_rnn("LSTM", {"return_sequences": True})
    rnn(emb(X))
    emb.set_weights([np.array(case["emb_weights"], "float32")])
    rnn.set_weights([np.array(w, "float32") for w in case["rnn_weights"]])
    mask = X != 0
    out = rnn(emb(X), mask=mask)
    close(out, case["outputs"][0])
    assert mask_list(out) == mask.tolist()
    out3 = rnn(emb(X), mask=mask[..., None].astype("int32"))  # (batch, steps, 1), ints: as Keras
    close(out3, case["outputs"][0])


def test_a_model_called_with_mask_gives_it_to_its_layers():
    # Keras' Functional.call attaches ``mask`` to its inputs (Sequential's runs through it), with
    # Keras' warning that the model itself does not propagate masks.
    case = REF["layers"]["lstm_seq"]
    emb = keras.layers.Embedding(VOCAB, EMB)  # no mask_zero: the mask is passed by hand
    emb(X)
    emb.set_weights([np.array(case["emb_weights"], "float32")])
    e = emb(X)
    for kind in ("functional", "sequential"):
        rnn = make_rnn("LSTM", {"return_sequences": True})
        if kind == "functional":
            inp = keras.Input((X.shape[1], EMB))
            model = keras.Model(inp, rnn(inp))
        else:
            model = keras.Sequential([keras.Input((X.shape[1], EMB)), rnn])
        rnn.set_weights([np.array(w, "float32") for w in case["rnn_weights"]])
        with pytest.warns(UserWarning, match="does not support masking"):
            out = model(e, mask=X != 0)
        close(out, case["outputs"][0])
        assert get_keras_mask(e) is None  # the caller's tensor keeps no mask
        unmasked = model(e)
        assert not np.allclose(unmasked.numpy(), np.asarray(case["outputs"][0]), atol=1e-3)


def test_masking_layer():
    case = REF["masking"]
    x = np.array(case["x"], "float32")
    layer = keras.layers.Masking(mask_value=0.0)
    y = layer(x)
    close(y, case["out"])
    assert mask_list(y) == case["mask"]
    lstm = keras.layers.LSTM(UNITS, return_sequences=True)
    lstm(y)
    lstm.set_weights([np.array(w, "float32") for w in case["lstm_weights"]])
    z = lstm(layer(x))
    close(z, case["lstm_out"])
    assert mask_list(z) == case["lstm_mask"]
    other = keras.layers.Masking(mask_value=1.5)
    yo = other(np.array(case["other_x"], "float32"))
    close(yo, case["other_out"])
    assert mask_list(yo) == case["other_mask"]
    assert other.get_config()["mask_value"] == 1.5
    again = keras.layers.Masking.from_config(other.get_config())
    assert again.mask_value == 1.5
    assert "Masking" in keras.layers.__all__


def test_pooling_and_dense_with_mask():
    case = REF["pooling"]
    emb = keras.layers.Embedding(VOCAB, EMB, mask_zero=True)
    emb(X)
    emb.set_weights([np.array(case["emb_weights"], "float32")])
    h = emb(X)
    att = keras.layers.Attention()([h, h])
    close(att, case["attention"])
    assert mask_list(att) == case["attention_mask"]
    avg = keras.layers.GlobalAveragePooling1D()(h)
    close(avg, case["avg"])
    assert mask_list(avg) is None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mx = keras.layers.GlobalMaxPooling1D()(h)
    assert any("does not support masking" in str(w.message) for w in caught)
    close(mx, case["max"])
    assert mask_list(mx) is None
    dense = keras.layers.Dense(2)
    dense(h)
    dense.set_weights([np.array(w, "float32") for w in case["dense_weights"]])
    d = dense(h)
    close(d, case["dense"])
    assert mask_list(d) == case["dense_mask"]


def _fit_model(name):
    T = X.shape[1]
    if name == "seq_tagger":
        inp = keras.Input((T,), dtype="int32")
        h = keras.layers.Embedding(VOCAB, EMB, mask_zero=True)(inp)
        h = keras.layers.LSTM(UNITS, return_sequences=True)(h)
        o = keras.layers.Dense(3, activation="softmax")(h)
        return keras.Model(inp, o), X, "sparse_categorical_crossentropy"
    if name == "masking_gru":
        model = keras.Sequential(
            [keras.Input((T, 2)), keras.layers.Masking(0.0), keras.layers.GRU(UNITS), keras.layers.Dense(1, "sigmoid")]
        )
        return model, np.array(REF["fit"][name]["x"], "float32"), "binary_crossentropy"
    if name == "gap":
        model = keras.Sequential(
            [
                keras.Input((T,), dtype="int32"),
                keras.layers.Embedding(VOCAB, EMB, mask_zero=True),
                keras.layers.GlobalAveragePooling1D(),
                keras.layers.Dense(1, "sigmoid"),
            ]
        )
        return model, X, "binary_crossentropy"
    model = keras.Sequential(
        [
            keras.Input((T,), dtype="int32"),
            keras.layers.Embedding(VOCAB, EMB, mask_zero=True),
            keras.layers.SimpleRNN(UNITS, return_sequences=True),
            keras.layers.Dense(2),
        ]
    )
    return model, X, "mse"


@pytest.mark.parametrize("name", sorted(REF["fit"]))
def test_masked_loss_gradients_and_fit(name):
    case = REF["fit"][name]
    model, x, loss = _fit_model(name)
    y = np.array(case["y"], "int32" if name == "seq_tagger" else "float32")
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.5), loss=loss)
    model.set_weights([np.array(w, "float32") for w in case["weights"]])
    y_pred = model(x)
    close(y_pred, case["y_pred"])
    assert mask_list(y_pred) == case["y_pred_mask"]
    with tf.GradientTape() as tape:
        y_pred = model(x)
        value = model.compute_loss(x=x, y=y, y_pred=y_pred)
    close(value, case["loss"])
    # A loss object called by hand reads y_pred's mask too (Keras' Loss.__call__).
    by_hand = keras.losses.get(loss)
    if not isinstance(by_hand, keras.losses.Loss):
        by_hand = keras.losses.LossFunctionWrapper(by_hand)
    close(by_hand(y, y_pred), case["loss"])
    grads = tape.gradient(value, model.trainable_weights)
    for g, want in zip(grads, case["grads"]):
        close(tf.convert_to_tensor(g), want)
    hist = model.fit(x, y, batch_size=2, epochs=3, shuffle=False, verbose=0)
    close(hist.history["loss"], case["history"], rtol=1e-4)
    for w, want in zip(model.get_weights(), case["final_weights"]):
        close(w, want, rtol=1e-4, atol=1e-5)


def test_masks_inside_tapers_function_trace_once():
    case = REF["fit"]["seq_tagger"]
    model, x, _ = _fit_model("seq_tagger")
    model.set_weights([np.array(w, "float32") for w in case["weights"]])
    loss_fn = keras.losses.SparseCategoricalCrossentropy()
    opt = keras.optimizers.SGD(learning_rate=0.5)
    traces = []

    @tf.function
    def step(xb, yb):
        traces.append(1)
        with tf.GradientTape() as tape:
            pred = model(xb, training=True)
            mask = get_keras_mask(pred)
            assert mask is not None
            value = loss_fn(yb, pred, sample_weight=tf.cast(mask, "float32"))
        grads = tape.gradient(value, model.trainable_weights)
        opt.apply_gradients(zip(grads, model.trainable_weights))
        return value

    y = np.array(case["y"], "int32")
    for _ in range(3):
        step(tf.constant(x), tf.constant(y))
    assert len(traces) == 1
    # Eager, the same step gives the same loss as the masked compiled loss.
    model2, _, _ = _fit_model("seq_tagger")
    model2.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    model2.set_weights([np.array(w, "float32") for w in case["weights"]])
    pred = model2(x)
    direct = loss_fn(y, pred, sample_weight=tf.cast(get_keras_mask(pred), "float32"))
    assert np.isfinite(float(direct))


def test_symbolic_masks_and_functional_model():
    inp = keras.Input((5,), dtype="int32")
    h = keras.layers.Embedding(VOCAB, EMB, mask_zero=True)(inp)
    assert getattr(h, "_keras_mask", None) is not None
    assert h._keras_mask.shape == (None, 5) and h._keras_mask.dtype == "bool"
    seq = keras.layers.LSTM(UNITS, return_sequences=True)(h)
    assert seq._keras_mask is h._keras_mask
    last = keras.layers.LSTM(UNITS)(h)
    assert getattr(last, "_keras_mask", None) is None
    model = keras.Model(inp, seq)
    out = model(X)
    assert mask_list(out) == (X != 0).tolist()


def test_embedding_mask_zero_config_and_no_mask():
    emb = keras.layers.Embedding(VOCAB, EMB, mask_zero=True)
    assert emb.get_config()["mask_zero"] is True
    again = keras.layers.Embedding.from_config(emb.get_config())
    assert again.mask_zero is True
    assert mask_list(again(X)) == (X != 0).tolist()
    plain = keras.layers.Embedding(VOCAB, EMB)
    assert mask_list(plain(X)) is None
    assert plain.compute_mask(X) is None
    np.testing.assert_array_equal(np.asarray(emb.compute_mask(tf.constant(X))), X != 0)


def test_mask_not_passed_when_initial_state_given():
    # Keras fills `mask` only when the call has a single tensor argument.
    emb = keras.layers.Embedding(VOCAB, EMB, mask_zero=True)
    rnn = keras.layers.SimpleRNN(UNITS, return_sequences=True)
    h = emb(X)
    zeros = tf.zeros((X.shape[0], UNITS))
    with_state = rnn(h, initial_state=zeros)
    unmasked = rnn(tf.identity(h))
    close(with_state, unmasked)
    masked = rnn(h)
    assert not np.allclose(np.asarray(masked), np.asarray(unmasked))


def test_bad_masks_raise_clear_errors():
    rnn = keras.layers.LSTM(UNITS)
    seq = np.zeros((2, 5, 3), "float32")
    with pytest.raises(ValueError, match=r"mask must have shape \(batch, timesteps\) = \(2, 5\).*\(2, 4\)"):
        rnn(seq, mask=np.ones((2, 4), bool))
    with pytest.raises(ValueError, match=r"mask must have shape.*\(2, 5, 3\)"):
        rnn(seq, mask=np.ones((2, 5, 3), bool))
    with pytest.raises(ValueError, match="rank >= 1"):
        keras.layers.Masking()(np.float32(1.0))


def test_all_masked_sequence_keeps_initial_state():
    rnn = keras.layers.GRU(UNITS, return_sequences=True, return_state=True)
    seq = np.random.default_rng(0).normal(size=(2, 3, 2)).astype("float32")
    mask = np.array([[False, False, False], [True, True, False]])
    out, state = rnn(seq, mask=mask)
    np.testing.assert_array_equal(np.asarray(out)[0], 0.0)
    np.testing.assert_array_equal(np.asarray(state)[0], 0.0)
    np.testing.assert_allclose(np.asarray(out)[1, 2], np.asarray(out)[1, 1])
    np.testing.assert_allclose(np.asarray(state)[1], np.asarray(out)[1, 1])


def test_mask_survives_input_cast_and_reaches_sublayers():
    from tapers.keras.layers._base import set_keras_mask

    x = tf.constant(np.random.default_rng(1).normal(size=(2, 3, 2)))  # float64: cast to float32 by the layer
    mask = np.array([[True, False, True], [True, True, False]])
    set_keras_mask(x, tf.constant(mask))

    class Outer(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.rnn = keras.layers.SimpleRNN(2, return_sequences=True)

        def compute_mask(self, inputs, mask=None):
            return mask

        def call(self, inputs):
            return self.rnn(inputs)

    outer = Outer()
    assert outer.supports_masking  # Keras: overriding compute_mask turns masking on
    y = outer(x)
    assert mask_list(y) == mask.tolist()
    plain = outer.rnn(tf.cast(x, "float32"))  # no mask attached: every step counts
    assert not np.allclose(np.asarray(y), np.asarray(plain))
    explicit = outer.rnn(tf.cast(x, "float32"), mask=mask)
    close(y, explicit)


def test_compiled_metrics_read_the_mask():
    case = REF["metrics"]
    inp = keras.Input((X.shape[1],), dtype="int32")
    h = keras.layers.Embedding(VOCAB, EMB, mask_zero=True)(inp)
    h = keras.layers.LSTM(UNITS, return_sequences=True)(h)
    o = keras.layers.Dense(3, activation="softmax")(h)
    model = keras.Model(inp, o)
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.5), loss="sparse_categorical_crossentropy",
                  metrics=["sparse_categorical_accuracy", keras.metrics.SparseCategoricalCrossentropy(name="scce")])
    model.set_weights([np.array(w, "float32") for w in case["weights"]])
    y = np.array(case["y"], "int32")
    logs = model.evaluate(X, y, batch_size=4, verbose=0, return_dict=True)
    assert sorted(logs) == sorted(case["evaluate"])
    for k, want in case["evaluate"].items():
        close(logs[k], want)
    hist = model.fit(X, y, batch_size=2, epochs=2, shuffle=False, verbose=0)
    for k, want in case["history"].items():
        close(hist.history[k], want, rtol=1e-4)
