# Generates keras_layers_more_reference.json with TensorFlow 2.21 / Keras 3 (not run by the tests):
#   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_layers_more_reference.py
# (the script writes tests/data/keras_layers_more_reference.json next to itself).
#
# Records what tests/test_keras_layers_more.py compares tapers with, for RMSNormalization,
# SpectralNormalization, AdaptiveAverage/MaxPooling1D/2D/3D, GroupQueryAttention and
# ReversibleEmbedding: for each case (option combination) the layer's class and name, weight
# paths/shapes/trainable flags in order, sorted get_config() keys, forward outputs and their shapes
# with weights set from `fixed(shape, k)` (initializers draw from other random streams in tapers, so
# every compared weight is set explicitly), the output shape(s) of a symbolic call on keras.Input
# (None batch), the weights after the call (SpectralNormalization updates its kernel and vector_u in
# training), and the gradients of loss = sum(out * fixed(out.shape, 9 + i)) with respect to the float
# inputs and the trainable weights, taken with tf.GradientTape. For IntegerLookup (no weights, no
# gradients): outputs and their dtype, vocabularies with and without special tokens, vocabulary sizes,
# config keys, IDF weights and symbolic shapes, for several option combinations.
import json
import os

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


def set_fixed(layer, k=0):
    for i, w in enumerate(layer.weights):
        if w.path.endswith("gamma") or w.path.endswith("scale"):
            w.assign(1.0 + 0.1 * fixed(tuple(w.shape), k + i))
        else:
            w.assign(fixed(tuple(w.shape), k + i))


def arr(x):
    if isinstance(x, tf.IndexedSlices):
        x = tf.convert_to_tensor(x)
    return np.asarray(x, dtype=np.float64).tolist()


def ints(shape, n, k=0):
    return (np.abs(np.round(fixed(shape, k) * 40)).astype(np.int32) % n).astype(np.int32)


x3 = fixed((2, 3, 5), 3)
CASES = {
    # name: (constructor, inputs, call kwargs)
    "rms_default": (lambda: L.RMSNormalization(), [x3], {}),
    "rms_axes": (lambda: L.RMSNormalization(axis=[1, 2], epsilon=1e-3), [fixed((2, 3, 4), 5)], {}),
    "rms_2d": (lambda: L.RMSNormalization(axis=1, epsilon=1e-4), [fixed((4, 6), 1)], {}),
    "spectral_dense_train": (lambda: L.SpectralNormalization(L.Dense(4)), [fixed((3, 5), 2)], {"training": True}),
    "spectral_dense_infer": (lambda: L.SpectralNormalization(L.Dense(4)), [fixed((3, 5), 2)], {}),
    "spectral_conv_iter2": (
        lambda: L.SpectralNormalization(L.Conv2D(2, 3), power_iterations=2),
        [fixed((1, 5, 5, 2), 6)],
        {"training": True},
    ),
    "spectral_embedding": (
        lambda: L.SpectralNormalization(L.Embedding(7, 3)),
        [ints((2, 4), 7)],
        {"training": True},
    ),
    "aap1d": (lambda: L.AdaptiveAveragePooling1D(3), [fixed((2, 7, 3), 1)], {}),
    "aap1d_up_cf": (lambda: L.AdaptiveAveragePooling1D(5, data_format="channels_first"), [fixed((2, 3, 4), 2)], {}),
    "aap2d": (lambda: L.AdaptiveAveragePooling2D((3, 2)), [fixed((2, 7, 5, 3), 3)], {}),
    "aap2d_cf": (lambda: L.AdaptiveAveragePooling2D(4, data_format="channels_first"), [fixed((2, 2, 6, 3), 4)], {}),
    "aap3d": (lambda: L.AdaptiveAveragePooling3D((2, 3, 2)), [fixed((1, 5, 4, 3, 2), 5)], {}),
    "aap3d_cf": (lambda: L.AdaptiveAveragePooling3D(2, data_format="channels_first"), [fixed((1, 2, 4, 3, 5), 6)], {}),
    "amp1d": (lambda: L.AdaptiveMaxPooling1D(3), [fixed((2, 7, 3), 1)], {}),
    "amp1d_up_cf": (lambda: L.AdaptiveMaxPooling1D(5, data_format="channels_first"), [fixed((2, 3, 4), 2)], {}),
    "amp2d": (lambda: L.AdaptiveMaxPooling2D((3, 2)), [fixed((2, 7, 5, 3), 3)], {}),
    "amp2d_cf": (lambda: L.AdaptiveMaxPooling2D(4, data_format="channels_first"), [fixed((2, 2, 6, 3), 4)], {}),
    "amp3d": (lambda: L.AdaptiveMaxPooling3D((2, 3, 2)), [fixed((1, 5, 4, 3, 2), 5)], {}),
    "amp3d_cf": (lambda: L.AdaptiveMaxPooling3D(2, data_format="channels_first"), [fixed((1, 2, 4, 3, 5), 6)], {}),
    "gqa": (
        lambda: L.GroupQueryAttention(head_dim=4, num_query_heads=4, num_key_value_heads=2),
        [fixed((2, 3, 6), 1), fixed((2, 5, 6), 2)],
        {},
    ),
    "gqa_key_scores": (
        lambda: L.GroupQueryAttention(head_dim=3, num_query_heads=2, num_key_value_heads=1),
        [fixed((2, 3, 6), 1), fixed((2, 4, 6), 2), fixed((2, 4, 7), 3)],
        {"return_attention_scores": True},
    ),
    "gqa_causal_nobias": (
        lambda: L.GroupQueryAttention(head_dim=2, num_query_heads=3, num_key_value_heads=3, use_bias=False),
        [fixed((2, 4, 5), 4), fixed((2, 4, 5), 5)],
        {"use_causal_mask": True},
    ),
    "gqa_mask_gate_window": (
        lambda: L.GroupQueryAttention(
            head_dim=2, num_query_heads=4, num_key_value_heads=2, use_gate=True, sliding_window=2
        ),
        [fixed((2, 4, 6), 6), fixed((2, 5, 6), 7)],
        {"attention_mask": (fixed((2, 4, 5), 8) > -0.2), "return_attention_scores": True},
    ),
    "gqa_causal_mask": (
        lambda: L.GroupQueryAttention(head_dim=2, num_query_heads=2, num_key_value_heads=1),
        [fixed((1, 4, 3), 6), fixed((1, 4, 3), 7)],
        {"attention_mask": (fixed((1, 4, 4), 2) > -0.3), "use_causal_mask": True},
    ),
    "gqa_fully_masked_row": (
        lambda: L.GroupQueryAttention(head_dim=2, num_query_heads=2, num_key_value_heads=1),
        [fixed((1, 3, 4), 1), fixed((1, 4, 4), 2)],
        {"attention_mask": np.array([[[True, False, True, True], [False] * 4, [True] * 4]])},
    ),
    "gqa_fully_masked_row_scores": (
        lambda: L.GroupQueryAttention(head_dim=2, num_query_heads=2, num_key_value_heads=1),
        [fixed((1, 3, 4), 1), fixed((1, 4, 4), 2)],
        {
            "attention_mask": np.array([[[True, False, True, True], [False] * 4, [True] * 4]]),
            "return_attention_scores": True,
        },
    ),
    "revemb": (lambda: L.ReversibleEmbedding(10, 4), [ints((2, 3), 10, 1)], {}),
    "revemb_reverse": (lambda: L.ReversibleEmbedding(10, 4), [fixed((2, 3, 4), 2)], {"reverse": True}),
    "revemb_untied_cap": (
        lambda: L.ReversibleEmbedding(10, 4, tie_weights=False, logit_soft_cap=0.5),
        [fixed((2, 4), 2)],
        {"reverse": True},
    ),
    "revemb_untied_fwd": (lambda: L.ReversibleEmbedding(10, 4, tie_weights=False), [ints((2, 3), 10, 3)], {}),
}


def record(make, inputs, kw):
    keras.backend.clear_session()
    layer = make()
    xs = [tf.constant(x) for x in inputs]
    call_kw = {k: (tf.constant(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    infer_kw = {k: v for k, v in call_kw.items() if k != "training"}
    layer(*xs, **infer_kw)
    set_fixed(layer, 1)
    rec = {
        "class": type(layer).__name__,
        "name": layer.name,
        "weights": [[w.path, list(w.shape), bool(w.trainable)] for w in layer.weights],
        "config_keys": sorted(layer.get_config()),
    }
    with tf.GradientTape(persistent=True) as tape:
        for x in xs:
            if x.dtype.is_floating:
                tape.watch(x)
        out = layer(*xs, **call_kw)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        loss = tf.add_n([tf.reduce_sum(o * fixed(tuple(o.shape), 9 + i)) for i, o in enumerate(outs)])
    rec["outputs"] = [arr(o) for o in outs]
    rec["output_shapes"] = [list(o.shape) for o in outs]
    rec["grads_inputs"] = [arr(tape.gradient(loss, x)) if x.dtype.is_floating else None for x in xs]
    rec["grads_weights"] = [arr(tape.gradient(loss, w)) for w in layer.trainable_weights]
    rec["trainable"] = [w.path for w in layer.trainable_weights]
    rec["weights_after"] = [arr(w.numpy()) for w in layer.weights]
    keras.backend.clear_session()
    sym_layer = make()
    sym_in = [keras.Input(shape=x.shape[1:], dtype=x.dtype.name) for x in xs]
    sym_kw = {k: v for k, v in kw.items() if k in ("return_attention_scores", "reverse")}
    sym = sym_layer(*sym_in, **sym_kw)
    syms = list(sym) if isinstance(sym, (tuple, list)) else [sym]
    rec["symbolic_shapes"] = [list(s.shape) for s in syms]
    return rec


out = {"keras_version": keras.__version__, "tf_version": tf.__version__, "cases": {}}
for name, (make, inputs, kw) in CASES.items():
    out["cases"][name] = record(make, inputs, kw)


# ---------------------------------------------------------------- IntegerLookup (no weights, no gradients)
V = [12, 36, 1138, 42]
A = np.array([12, 36, 1138, 42, 42, 36, 36, 7, 7, 7, 5], np.int64)
A2 = np.array([[12, 36, 36, 0], [42, 42, 36, 9], [12, 7, 7, 7]], np.int64)
X = np.array([[12, 1138, 42], [42, 1000, 36]], np.int64)
XM = np.array([[12, 0, 7, 42], [42, 1000, 36, 36]], np.int64)
LOOKUP = {
    # name: (kwargs, adapt data or None, input)
    "int_vocab": ({"vocabulary": V}, None, X),
    "int_mask_oov2": ({"vocabulary": V, "mask_token": 0, "num_oov_indices": 2}, None, XM),
    "int_adapt": ({}, A, X),
    "int_adapt_max": ({"max_tokens": 4, "mask_token": 0}, A, XM),
    "int_no_oov": ({"vocabulary": V, "num_oov_indices": 0}, None, np.array([[12, 42], [36, 1138]], np.int64)),
    "int_special_in_vocab": ({"vocabulary": [0, -1, 12, 36], "mask_token": 0}, None, XM),
    "one_hot_col": ({"vocabulary": V, "output_mode": "one_hot"}, None, np.array([[12], [42], [5]], np.int64)),
    "one_hot_2d": ({"vocabulary": V, "output_mode": "one_hot", "num_oov_indices": 2}, None, X),
    "multi_hot_mask": ({"vocabulary": V, "output_mode": "multi_hot", "mask_token": 0}, None, XM),
    "multi_hot_rank1": ({"vocabulary": V, "output_mode": "multi_hot"}, None, np.array([12, 42, 42, 9], np.int64)),
    "count_pad": (
        {"vocabulary": V, "output_mode": "count", "max_tokens": 8, "pad_to_max_tokens": True},
        None,
        XM,
    ),
    "tf_idf_adapt": ({"output_mode": "tf_idf"}, A2, XM),
    "tf_idf_vocab": (
        {"vocabulary": V, "output_mode": "tf_idf", "idf_weights": [0.5, 1.0, 1.5, 2.0], "mask_token": 0},
        None,
        XM,
    ),
    "invert_mask": (
        {"vocabulary": V, "invert": True, "mask_token": 0},
        None,
        np.array([[0, 1, 2, 5], [3, 6, 4, 2]], np.int64),
    ),
    "invert": (
        {"vocabulary": V, "invert": True, "oov_token": -7},
        None,
        np.array([[0, 1, 2, 4], [3, 6, 4, 2]], np.int64),
    ),
}
out["lookup"] = {}
for name, (kw, data, x) in LOOKUP.items():
    keras.backend.clear_session()
    layer = L.IntegerLookup(**kw)
    if data is not None:
        layer.adapt(data)
    y = layer(x)
    rec = {
        "output": np.asarray(y).tolist(),
        "dtype": str(np.asarray(y).dtype),
        "vocabulary": [int(t) for t in layer.get_vocabulary()],
        "vocabulary_no_special": [int(t) for t in layer.get_vocabulary(include_special_tokens=False)],
        "vocabulary_size": int(layer.vocabulary_size()),
        "config_keys": sorted(layer.get_config()),
        "name": layer.name,
        "symbolic_shape": list(layer(keras.Input(shape=x.shape[1:], dtype="int64")).shape),
    }
    if kw.get("output_mode") == "tf_idf":
        rec["idf_weights"] = np.asarray(layer.idf_weights).tolist()
    out["lookup"][name] = rec

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_layers_more_reference.json")
with open(path, "w") as f:
    json.dump(out, f, indent=None, separators=(",", ":"))
    f.write("\n")
print("wrote", path, len(out["cases"]), "cases")
