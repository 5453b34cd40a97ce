# Generates keras_attention_reference.json with TensorFlow 2.21 / Keras 3 (not run by the tests):
#   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_attention_reference.py \
#       > tests/data/keras_attention_reference.json
#
# Records what tests/test_keras_attention.py compares tapers with, for EinsumDense, MultiHeadAttention,
# Attention, AdditiveAttention and Dot under several option combinations (CASES below, also written to
# the JSON so the test rebuilds the same layers): weight paths and shapes in order, get_config() keys,
# outputs (and attention scores) with weights set from `fixed(shape, 10 + i)` and inputs from
# `fixed(shape, 100 + j)` (initializers draw from other random streams in tapers), output shapes of a
# symbolic call on keras.Input (None batch), and the gradients of loss = sum(out * fixed(out.shape, 7))
# (+ sum(scores * fixed(scores.shape, 8)) when scores are returned) w.r.t. every input and every weight.
import json
import os
import sys

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


def bool_mask(shape, k):
    """Deterministic boolean mask with at least one True in each last-axis row."""
    m = fixed(shape, k) > -0.2
    m[..., 0] = True
    return m


def arr(x):
    return np.asarray(x, dtype=np.float64).tolist()


# Each case: layer class and kwargs; "inputs": names -> [shape, k]; "call": how they are passed
# ("mha": query, value[, key] positionally; "list": one list; "pair": [a, b]); "masks": call keyword ->
# [shape, k] (boolean masks from bool_mask; "mask" is Attention's [query_mask, value_mask] list);
# "kwargs": other call keywords; "self": value is the query tensor itself.
CASES = [
    # EinsumDense
    {"id": "ed_matrix", "cls": "EinsumDense", "kw": {"equation": "ab,bc->ac", "output_shape": 4, "bias_axes": "c"},
     "inputs": {"x": [[2, 3], 0]}, "call": "single"},
    {"id": "ed_left_ellipsis", "cls": "EinsumDense",
     "kw": {"equation": "...b,bc->...c", "output_shape": 4, "bias_axes": "c", "activation": "relu"},
     "inputs": {"x": [[2, 3, 5], 0]}, "call": "single"},
    {"id": "ed_heads", "cls": "EinsumDense", "kw": {"equation": "abc,cde->abde", "output_shape": [None, 2, 3],
     "bias_axes": "de"}, "inputs": {"x": [[2, 4, 5], 0]}, "call": "single"},
    {"id": "ed_right_ellipsis", "cls": "EinsumDense", "kw": {"equation": "ab...,bc->ac...", "output_shape": [4],
     "bias_axes": "c"}, "inputs": {"x": [[2, 3, 5], 0]}, "call": "single"},
    {"id": "ed_nobias", "cls": "EinsumDense", "kw": {"equation": "abc,cd->abd", "output_shape": [None, 6],
     "activation": "tanh"}, "inputs": {"x": [[2, 4, 5], 0]}, "call": "single"},
    # MultiHeadAttention
    {"id": "mha_self", "cls": "MultiHeadAttention", "kw": {"num_heads": 2, "key_dim": 3},
     "inputs": {"query": [[2, 4, 5], 0]}, "self": True, "call": "mha"},
    {"id": "mha_cross", "cls": "MultiHeadAttention",
     "kw": {"num_heads": 2, "key_dim": 3, "value_dim": 4, "output_shape": 8},
     "inputs": {"query": [[2, 4, 5], 0], "value": [[2, 6, 7], 1], "key": [[2, 6, 3], 2]}, "call": "mha",
     "kwargs": {"return_attention_scores": True}},
    {"id": "mha_attention_mask", "cls": "MultiHeadAttention", "kw": {"num_heads": 3, "key_dim": 2},
     "inputs": {"query": [[2, 4, 5], 0], "value": [[2, 6, 5], 1]}, "call": "mha",
     "masks": {"attention_mask": [[2, 4, 6], 3]}, "kwargs": {"return_attention_scores": True}},
    {"id": "mha_causal", "cls": "MultiHeadAttention", "kw": {"num_heads": 2, "key_dim": 4},
     "inputs": {"query": [[2, 5, 6], 0]}, "self": True, "call": "mha",
     "kwargs": {"return_attention_scores": True, "use_causal_mask": True}},
    {"id": "mha_causal_masked", "cls": "MultiHeadAttention", "kw": {"num_heads": 2, "key_dim": 2},
     "inputs": {"query": [[2, 5, 4], 0], "value": [[2, 5, 4], 1]}, "call": "mha",
     "masks": {"attention_mask": [[2, 5, 5], 4], "value_mask": [[2, 5], 5]},
     "kwargs": {"return_attention_scores": True, "use_causal_mask": True}},
    {"id": "mha_nobias", "cls": "MultiHeadAttention", "kw": {"num_heads": 1, "key_dim": 4, "use_bias": False},
     "inputs": {"query": [[2, 3, 5], 0], "value": [[2, 4, 5], 1]}, "call": "mha"},
    {"id": "mha_2d_axes", "cls": "MultiHeadAttention",
     "kw": {"num_heads": 2, "key_dim": 2, "attention_axes": [1, 2], "output_shape": [3]},
     "inputs": {"query": [[2, 3, 2, 4], 0], "value": [[2, 2, 3, 4], 1]}, "call": "mha",
     "kwargs": {"return_attention_scores": True}},
    {"id": "mha_axis_2", "cls": "MultiHeadAttention", "kw": {"num_heads": 2, "key_dim": 2, "attention_axes": 2},
     "inputs": {"query": [[2, 3, 4, 5], 0], "value": [[2, 3, 2, 5], 1]}, "call": "mha",
     "kwargs": {"return_attention_scores": True}},
    # Attention
    {"id": "att_dot", "cls": "Attention", "kw": {}, "inputs": {"q": [[2, 4, 3], 0], "v": [[2, 5, 3], 1]},
     "call": "list"},
    {"id": "att_scale_key", "cls": "Attention", "kw": {"use_scale": True},
     "inputs": {"q": [[2, 4, 3], 0], "v": [[2, 5, 6], 1], "k": [[2, 5, 3], 2]}, "call": "list",
     "kwargs": {"return_attention_scores": True}},
    {"id": "att_concat", "cls": "Attention", "kw": {"use_scale": True, "score_mode": "concat"},
     "inputs": {"q": [[2, 4, 3], 0], "v": [[2, 5, 3], 1]}, "call": "list",
     "kwargs": {"return_attention_scores": True}},
    {"id": "att_concat_noscale", "cls": "Attention", "kw": {"score_mode": "concat"},
     "inputs": {"q": [[2, 4, 3], 0], "v": [[2, 5, 3], 1]}, "call": "list"},
    {"id": "att_masks", "cls": "Attention", "kw": {},
     "inputs": {"q": [[2, 4, 3], 0], "v": [[2, 5, 3], 1]}, "call": "list",
     "masks": {"mask": [[[2, 4], 6], [[2, 5], 7]]}, "kwargs": {"return_attention_scores": True}},
    {"id": "att_causal", "cls": "Attention", "kw": {"use_scale": True},
     "inputs": {"q": [[2, 4, 3], 0], "v": [[2, 4, 3], 1]}, "call": "list",
     "masks": {"mask": [None, [[2, 4], 8]]}, "kwargs": {"return_attention_scores": True, "use_causal_mask": True}},
    # AdditiveAttention
    {"id": "add_default", "cls": "AdditiveAttention", "kw": {},
     "inputs": {"q": [[2, 4, 3], 0], "v": [[2, 5, 3], 1]}, "call": "list",
     "kwargs": {"return_attention_scores": True}},
    {"id": "add_noscale_key_masks", "cls": "AdditiveAttention", "kw": {"use_scale": False},
     "inputs": {"q": [[2, 4, 3], 0], "v": [[2, 5, 2], 1], "k": [[2, 5, 3], 2]}, "call": "list",
     "masks": {"mask": [[[2, 4], 6], [[2, 5], 7]]}},
    {"id": "add_causal", "cls": "AdditiveAttention", "kw": {},
     "inputs": {"q": [[2, 4, 3], 0], "v": [[2, 4, 3], 1]}, "call": "list",
     "kwargs": {"return_attention_scores": True, "use_causal_mask": True}},
    # Dot
    {"id": "dot_last", "cls": "Dot", "kw": {"axes": 2}, "inputs": {"a": [[2, 3, 4], 0], "b": [[2, 5, 4], 1]},
     "call": "list"},
    {"id": "dot_pair", "cls": "Dot", "kw": {"axes": [1, 2]}, "inputs": {"a": [[2, 3, 4], 0], "b": [[2, 5, 3], 1]},
     "call": "list"},
    {"id": "dot_normalize", "cls": "Dot", "kw": {"axes": 1, "normalize": True},
     "inputs": {"a": [[2, 4], 0], "b": [[2, 4], 1]}, "call": "list"},
    {"id": "dot_negative", "cls": "Dot", "kw": {"axes": -1}, "inputs": {"a": [[2, 3, 4], 0], "b": [[2, 4], 1]},
     "call": "list"},
    {"id": "dot_rank4", "cls": "Dot", "kw": {"axes": [2, 1], "normalize": True},
     "inputs": {"a": [[2, 3, 4, 2], 0], "b": [[2, 4, 5], 1]}, "call": "list"},
]  # fmt: skip


def make_inputs(case):
    return {name: fixed(tuple(shape), 100 + k) for name, (shape, k) in case["inputs"].items()}


def make_masks(case):
    out = {}
    for name, spec in case.get("masks", {}).items():
        if name == "mask":
            out[name] = [None if s is None else bool_mask(tuple(s[0]), s[1]) for s in spec]
        else:
            out[name] = bool_mask(tuple(spec[0]), spec[1])
    return out


def invoke(layer, case, xs, masks):
    kwargs = dict(case.get("kwargs", {}))
    kwargs.update(masks)
    vals = list(xs.values())
    if case["call"] == "single":
        return layer(vals[0], **kwargs)
    if case["call"] == "mha":
        q = vals[0]
        v = q if case.get("self") else vals[1]
        key = vals[2] if len(vals) > 2 else None
        if key is not None:
            return layer(q, v, key, **kwargs)
        return layer(q, v, **kwargs)
    return layer(vals, **kwargs)


out = {"keras_version": keras.__version__, "tf_version": tf.__version__, "cases": CASES, "results": {}}
for case in CASES:
    layer = getattr(keras.layers, case["cls"])(**case["kw"])
    np_inputs = make_inputs(case)
    masks = make_masks(case)
    invoke(layer, case, {n: tf.constant(v) for n, v in np_inputs.items()}, masks)  # builds
    for i, w in enumerate(layer.weights):
        w.assign(fixed(tuple(w.shape), 10 + i))
    xs = {n: tf.constant(v) for n, v in np_inputs.items()}
    with tf.GradientTape() as tape:
        tape.watch(list(xs.values()))
        res = invoke(layer, case, xs, masks)
        outs = list(res) if isinstance(res, tuple) else [res]
        loss = tf.reduce_sum(outs[0] * fixed(tuple(outs[0].shape), 7))
        if len(outs) > 1:
            loss += tf.reduce_sum(outs[1] * fixed(tuple(outs[1].shape), 8))
    grads = tape.gradient(loss, [*xs.values(), *layer.trainable_weights])
    n_in = len(xs)
    # Symbolic call (no masks): output shapes with a None batch dimension.
    sym_layer = getattr(keras.layers, case["cls"])(**case["kw"])
    sym_in = {n: keras.Input(shape=tuple(s[0][1:])) for n, s in case["inputs"].items()}
    sym_case = {**case, "kwargs": {k: v for k, v in case.get("kwargs", {}).items() if k != "return_attention_scores"}}
    sym = invoke(sym_layer, sym_case, sym_in, {})
    out["results"][case["id"]] = {
        "weights": [[w.path, list(w.shape)] for w in layer.weights],
        "config_keys": sorted(layer.get_config()),
        "outputs": [arr(o) for o in outs],
        "output_shapes": [list(o.shape) for o in outs],
        "symbolic_shape": list(sym.shape),
        "input_grads": [arr(g) for g in grads[:n_in]],
        "weight_grads": [arr(g) for g in grads[n_in:]],
        "loss": float(loss),
    }

json.dump(out, sys.stdout, indent=None)  # insertion order: "inputs" order matters
sys.stdout.write("\n")
