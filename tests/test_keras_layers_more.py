"""tapers.keras's RMSNormalization, SpectralNormalization, adaptive pooling, GroupQueryAttention and
ReversibleEmbedding against Keras 3 (tests/data/keras_layers_more_reference.json, written by
tests/data/make_keras_layers_more_reference.py): names, weight paths/shapes/order, config keys, forward
values, symbolic shapes and gradients with weights set from ``fixed``; plus float64 finite-difference
gradient checks, ``tf.function`` against eager, training against inference, and bad inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
from _keras_fixtures import fixed, path

import tapers as tf

keras = tf.keras
L = keras.layers
REF: dict[str, Any] = json.loads((Path(__file__).parent / "data" / "keras_layers_more_reference.json").read_text())[
    "cases"
]
RTOL, ATOL = 1e-5, 1e-6


def set_fixed(layer: Any, k: int = 0) -> None:
    """The reference script's ``set_fixed``: ``gamma``/``scale`` near 1, other weights ``fixed``."""
    for i, w in enumerate(layer.weights):
        p = path(w)
        if p.endswith("gamma") or p.endswith("scale"):
            w.assign(1.0 + 0.1 * fixed(tuple(w.shape), k + i))
        else:
            w.assign(fixed(tuple(w.shape), k + i))


def ints(shape: tuple[int, ...], n: int, k: int = 0) -> np.ndarray:
    return (np.abs(np.round(fixed(shape, k) * 40)).astype(np.int32) % n).astype(np.int32)


x3 = fixed((2, 3, 5), 3)
CASES: dict[str, tuple[Callable[[], Any], list[np.ndarray], dict[str, Any]]] = {
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
# Keras casts SpectralNormalization's output to the input's dtype, which truncates an Embedding's
# output to the integer ids' dtype (zeros, NaN gradients); tapers keeps it float, so only the weights
# and the normalization are compared for that case.
NO_OUTPUT_PARITY = {"spectral_embedding"}


@pytest.fixture(autouse=True)
def _fresh_names() -> None:
    keras.backend.clear_session()


def test_reference_cases_match_the_test_cases() -> None:
    assert sorted(REF) == sorted(CASES)


def _outs(out: Any) -> list[Any]:
    return list(out) if isinstance(out, (tuple, list)) else [out]


@pytest.mark.parametrize("case", sorted(CASES))
def test_layer_matches_keras(case: str) -> None:
    ref = REF[case]
    make, inputs, kw = CASES[case]
    layer = make()
    xs = [tf.constant(x) for x in inputs]
    call_kw = {k: (tf.constant(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    layer(*xs, **{k: v for k, v in call_kw.items() if k != "training"})
    set_fixed(layer, 1)
    assert type(layer).__name__ == ref["class"]
    assert layer.name == ref["name"]
    assert [[path(w), list(w.shape), w.trainable] for w in layer.weights] == ref["weights"]
    assert sorted(layer.get_config()) == ref["config_keys"]
    with tf.GradientTape(persistent=True) as tape:
        for x in xs:
            if x.dtype.is_floating:
                tape.watch(x)
        outs = _outs(layer(*xs, **call_kw))
        loss = tf.add_n([tf.reduce_sum(o * fixed(tuple(o.shape), 9 + i)) for i, o in enumerate(outs)])
    assert [list(o.shape) for o in outs] == ref["output_shapes"]
    assert [path(w) for w in layer.trainable_weights] == ref["trainable"]
    for w, want in zip(layer.weights, ref["weights_after"]):
        np.testing.assert_allclose(w.numpy(), want, rtol=RTOL, atol=ATOL, err_msg=path(w))
    if case not in NO_OUTPUT_PARITY:
        for o, want in zip(outs, ref["outputs"]):
            assert o.dtype == tf.float32
            np.testing.assert_allclose(o.numpy(), want, rtol=RTOL, atol=ATOL)
        for x, want in zip(xs, ref["grads_inputs"]):
            if want is not None:
                np.testing.assert_allclose(tape.gradient(loss, x).numpy(), want, rtol=RTOL, atol=ATOL)
        grads = tape.gradient(loss, layer.trainable_weights)
        for w, g, want in zip(layer.trainable_weights, grads, ref["grads_weights"]):
            if not isinstance(want, list):  # Keras: None (an unconnected weight), recorded as NaN
                assert g is None, path(w)
                continue
            np.testing.assert_allclose(tf.convert_to_tensor(g).numpy(), want, rtol=RTOL, atol=ATOL, err_msg=path(w))
    # Symbolic call on keras.Input (None batch).
    keras.backend.clear_session()
    sym_in = [keras.Input(shape=x.shape[1:], dtype=x.dtype.name) for x in xs]
    sym_kw = {k: v for k, v in kw.items() if k in ("return_attention_scores", "reverse")}
    syms = _outs(make()(*sym_in, **sym_kw))
    assert [list(s.shape) for s in syms] == ref["symbolic_shapes"]


# ----------------------------------------------------------------------------- float64 gradients


def _fd_check(fn: Callable[[Any], Any], x: np.ndarray, w: np.ndarray, tol: float = 1e-6) -> None:
    """Central differences of ``sum(fn(x) * w)`` against ``tape.gradient``."""
    xt = tf.constant(x)
    with tf.GradientTape() as t:
        t.watch(xt)
        loss = tf.reduce_sum(fn(xt) * w)
    g = t.gradient(loss, xt).numpy()
    eps = 1e-6
    num = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        p, m = x.copy(), x.copy()
        p[idx] += eps
        m[idx] -= eps
        num[idx] = (float(tf.reduce_sum(fn(tf.constant(p)) * w)) - float(tf.reduce_sum(fn(tf.constant(m)) * w))) / (
            2 * eps
        )
    np.testing.assert_allclose(g, num, rtol=tol, atol=tol)


def f64(shape: tuple[int, ...], k: int) -> np.ndarray:
    return fixed(shape, k).astype(np.float64)


@pytest.mark.parametrize(
    "make,shape",
    [
        (lambda: L.RMSNormalization(dtype="float64"), (2, 4)),
        (lambda: L.RMSNormalization(axis=[1, 2], dtype="float64"), (2, 2, 3)),
        (lambda: L.AdaptiveAveragePooling2D((2, 3), dtype="float64"), (1, 5, 4, 2)),
        (lambda: L.AdaptiveMaxPooling1D(3, data_format="channels_first", dtype="float64"), (2, 2, 5)),
        (lambda: L.AdaptiveMaxPooling3D((2, 1, 2), dtype="float64"), (1, 3, 2, 3, 1)),
        (lambda: L.AdaptiveAveragePooling3D(2, data_format="channels_first", dtype="float64"), (1, 1, 3, 2, 3)),
    ],
)
def test_input_gradients_match_finite_differences(make: Callable[[], Any], shape: tuple[int, ...]) -> None:
    layer = make()
    x = f64(shape, 3) * 2
    y = layer(x)
    if layer.weights:
        set_fixed(layer, 2)
    _fd_check(layer, x, f64(tuple(y.shape), 5))


def test_gqa_gradients_match_finite_differences() -> None:
    layer = L.GroupQueryAttention(head_dim=2, num_query_heads=4, num_key_value_heads=2, use_gate=True,
                                  dtype="float64")  # fmt: skip
    q, v = f64((1, 3, 4), 1), f64((1, 4, 4), 2)
    mask = fixed((1, 3, 4), 3) > -0.3
    layer(q, v)
    set_fixed(layer, 1)
    w = f64((1, 3, 4), 7)
    _fd_check(lambda t: layer(t, v, attention_mask=mask, use_causal_mask=True), q, w)
    _fd_check(lambda t: layer(q, t, attention_mask=mask), v, w)
    # Weight gradient: one kernel, by finite differences too.
    kernel = layer._key_dense.kernel
    k0 = kernel.numpy().copy()
    with tf.GradientTape() as t:
        loss = tf.reduce_sum(layer(q, v) * w)
    g = t.gradient(loss, kernel).numpy()
    eps, num = 1e-6, np.zeros_like(k0)
    for idx in np.ndindex(*k0.shape):
        vals = []
        for s in (eps, -eps):
            kk = k0.copy()
            kk[idx] += s
            kernel.assign(kk)
            vals.append(float(tf.reduce_sum(layer(q, v) * w)))
        num[idx] = (vals[0] - vals[1]) / (2 * eps)
    kernel.assign(k0)
    np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-6)


def test_reversible_embedding_and_spectral_gradients_match_finite_differences() -> None:
    emb = L.ReversibleEmbedding(6, 3, logit_soft_cap=0.7, dtype="float64")
    set_fixed(emb, 1)
    _fd_check(lambda t: emb(t, reverse=True), f64((2, 3), 4), f64((2, 6), 5))
    sn = L.SpectralNormalization(L.Dense(3, dtype="float64"), dtype="float64")
    x = f64((2, 4), 1)
    sn(x)
    set_fixed(sn, 2)
    _fd_check(lambda t: sn(t, training=False), x, f64((2, 3), 6))


# ----------------------------------------------------------------------------- tf.function


def test_layers_inside_tf_function_match_eager() -> None:
    layers_inputs = [
        (L.RMSNormalization(), [x3], {}),
        (L.AdaptiveMaxPooling2D((3, 2)), [fixed((2, 7, 5, 3), 3)], {}),
        (L.AdaptiveAveragePooling1D(5), [fixed((2, 3, 4), 2)], {}),
        (L.GroupQueryAttention(2, 4, 2, sliding_window=2), [fixed((2, 3, 6), 1), fixed((2, 5, 6), 2)],
         {"use_causal_mask": True}),
        (L.ReversibleEmbedding(10, 4), [fixed((2, 3, 4), 2)], {"reverse": True}),
        (L.SpectralNormalization(L.Dense(4)), [fixed((3, 5), 2)], {}),
    ]  # fmt: skip
    for layer, xs, kw in layers_inputs:
        eager = layer(*xs, **kw)
        fn = tf.function(lambda *a, _layer=layer, _kw=kw: _layer(*a, **_kw))
        graph = fn(*[tf.constant(x) for x in xs])
        np.testing.assert_allclose(graph.numpy(), eager.numpy(), rtol=1e-6, atol=1e-7)


def test_spectral_normalization_training_inside_tf_function_matches_eager() -> None:
    x = fixed((3, 5), 2)
    a = L.SpectralNormalization(L.Dense(4))
    b = L.SpectralNormalization(L.Dense(4))
    a(x)
    b(x)
    set_fixed(a, 1)
    set_fixed(b, 1)
    ya = a(x, training=True)
    yb = tf.function(lambda t: b(t, training=True))(tf.constant(x))
    np.testing.assert_allclose(yb.numpy(), ya.numpy(), rtol=1e-6, atol=1e-7)
    for wa, wb in zip(a.weights, b.weights):
        np.testing.assert_allclose(wb.numpy(), wa.numpy(), rtol=1e-6, atol=1e-7)


# ----------------------------------------------------------------------------- training vs inference


def test_spectral_normalization_training_updates_and_inference_does_not() -> None:
    sn = L.SpectralNormalization(L.Dense(4), power_iterations=3)
    x = fixed((3, 5), 2)
    sn(x)
    set_fixed(sn, 1)
    before = [w.numpy().copy() for w in sn.weights]
    sn(x)
    sn(x, training=False)
    for w, b in zip(sn.weights, before):
        np.testing.assert_array_equal(w.numpy(), b)
    sn(x, training=True)
    kernel = sn.layer.kernel.numpy()
    assert not np.allclose(kernel, before[0])
    # After enough power iterations the kernel's largest singular value is ~1.
    for _ in range(30):
        sn(x, training=True)
    assert abs(np.linalg.svd(sn.layer.kernel.numpy(), compute_uv=False)[0] - 1.0) < 1e-3
    assert [path(w) for w in sn.non_trainable_weights] == ["spectral_normalization/vector_u"]
    # An all-zero kernel is left alone (no division by a zero sigma).
    zero = L.SpectralNormalization(L.Dense(2))
    zero(x)
    zero.layer.kernel.assign(np.zeros((5, 2), np.float32))
    y = zero(x, training=True)
    assert np.all(np.isfinite(y.numpy())) and np.all(zero.layer.kernel.numpy() == 0)


def test_gqa_keyword_inputs_and_functional_model() -> None:
    layer = L.GroupQueryAttention(2, 4, 2)
    q, v = fixed((2, 3, 6), 1), fixed((2, 5, 6), 2)
    a = layer(q, v)
    np.testing.assert_array_equal(layer(query=q, value=v).numpy(), a.numpy())
    qi, vi = keras.Input((3, 6)), keras.Input((5, 6))
    model = keras.Model([qi, vi], layer(qi, vi))
    np.testing.assert_allclose(model([q, v]).numpy(), a.numpy(), rtol=1e-6, atol=1e-7)


def test_gqa_dropout_only_in_training() -> None:
    layer = L.GroupQueryAttention(2, 2, 1, dropout=0.5, seed=3)
    q, v = fixed((4, 6, 4), 1), fixed((4, 7, 4), 2)
    a = layer(q, v)
    np.testing.assert_array_equal(layer(q, v, training=False).numpy(), a.numpy())
    _, scores = layer(q, v, return_attention_scores=True)
    np.testing.assert_allclose(scores.numpy().sum(-1), 1.0, rtol=1e-5)
    t1 = layer(q, v, training=True)
    assert not np.allclose(t1.numpy(), a.numpy())
    full = L.GroupQueryAttention(2, 2, 1, dropout=1.0)
    np.testing.assert_allclose(full(q, v, training=True).numpy(), np.broadcast_to(
        full._output_dense.bias.numpy(), (4, 6, 4)), atol=1e-7)  # fmt: skip


def test_gqa_equals_repeated_heads_multi_query() -> None:
    # num_key_value_heads=1 is multi-query attention: every query head reads the same key/value head.
    layer = L.GroupQueryAttention(3, 4, 1, use_bias=False)
    q, v = fixed((1, 2, 5), 1), fixed((1, 3, 5), 2)
    _, scores = layer(q, v, return_attention_scores=True)
    set_fixed(layer, 1)
    out, scores = layer(q, v, return_attention_scores=True)
    wq = layer._query_dense.kernel.numpy()
    wk = layer._key_dense.kernel.numpy()[:, 0]
    qh = np.einsum("bqm,muh->buqh", q, wq) / np.sqrt(3)
    kh = v[0] @ wk
    logits = np.einsum("buqh,kh->buqk", qh, kh)
    ref = np.exp(logits - logits.max(-1, keepdims=True))
    ref /= ref.sum(-1, keepdims=True)
    np.testing.assert_allclose(scores.numpy(), ref, rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------- bad inputs and config


def test_bad_arguments_and_inputs_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match="divisible"):
        L.GroupQueryAttention(2, 3, 2)
    with pytest.raises(ValueError, match="sliding_window"):
        L.GroupQueryAttention(2, 2, 1, sliding_window=0)
    with pytest.raises(ValueError, match="flash"):
        L.GroupQueryAttention(2, 2, 1, flash_attention=True)
    with pytest.raises(ValueError, match=r"rank 3.*\(2, 3\)"):
        L.GroupQueryAttention(2, 2, 1)(fixed((2, 3), 1), fixed((2, 3), 1))
    with pytest.raises(ValueError, match="value_shape"):
        L.GroupQueryAttention(2, 2, 1)(fixed((2, 3, 4), 1), fixed((2, 5, 4), 1), fixed((2, 4, 4), 1))
    with pytest.raises(ValueError, match="query_shape"):
        L.GroupQueryAttention(2, 2, 1)(keras.Input((3, 4)), keras.Input((5, 6)))
    with pytest.raises(ValueError, match="power_iterations"):
        L.SpectralNormalization(L.Dense(2), power_iterations=0)
    with pytest.raises(ValueError, match="kernel"):
        L.SpectralNormalization(L.ReLU())(fixed((2, 3), 1))
    with pytest.raises(ValueError):
        L.SpectralNormalization("dense")
    with pytest.raises(ValueError, match=r"rank 4.*\(2, 5, 3\)"):
        L.AdaptiveAveragePooling2D(2)(fixed((2, 5, 3), 1))
    with pytest.raises(ValueError, match="length 3"):
        L.AdaptiveMaxPooling3D((2, 2))
    with pytest.raises(TypeError, match="output_size"):
        L.AdaptiveMaxPooling1D("3")
    with pytest.raises(ValueError, match="data_format"):
        L.AdaptiveAveragePooling1D(2, data_format="nhwc")
    with pytest.raises(ValueError, match=r"out of bounds.*\(2, 3\)"):
        L.RMSNormalization(axis=2)(fixed((2, 3), 1))
    with pytest.raises(ValueError, match=r"output_dim=4.*\(2, 3\)"):
        L.ReversibleEmbedding(10, 4)(fixed((2, 3), 1), reverse=True)


def test_configs_round_trip() -> None:
    for layer in (
        L.RMSNormalization(axis=[1, 2], epsilon=1e-3),
        L.AdaptiveMaxPooling2D((3, 2), data_format="channels_first"),
        L.GroupQueryAttention(4, 4, 2, dropout=0.1, use_gate=True, sliding_window=3),
        L.ReversibleEmbedding(10, 4, tie_weights=False, logit_soft_cap=2.0),
    ):
        config = layer.get_config()
        clone = type(layer).from_config(config)
        assert clone.get_config() == config
    sn = L.SpectralNormalization(L.Dense(3), power_iterations=2)
    config = sn.get_config()
    assert config["power_iterations"] == 2 and config["layer"]["class_name"] == "Dense"
    assert L.GroupQueryAttention is L.GroupedQueryAttention


def test_adaptive_pooling_bins_follow_keras_edges() -> None:
    # L=5, O=3: bins [0, 2), [1, 4), [3, 5) (floor start, ceil end; overlapping).
    x = np.arange(5, dtype=np.float32).reshape(1, 5, 1)
    np.testing.assert_allclose(L.AdaptiveAveragePooling1D(3)(x).numpy().ravel(), [0.5, 2.0, 3.5])
    np.testing.assert_allclose(L.AdaptiveMaxPooling1D(3)(x).numpy().ravel(), [1.0, 3.0, 4.0])
    # Upsampling (O > L) repeats steps: L=2, O=3 -> [0, 1), [0, 2), [1, 2).
    x2 = np.array([[[1.0], [3.0]]], np.float32)
    np.testing.assert_allclose(L.AdaptiveAveragePooling1D(3)(x2).numpy().ravel(), [1.0, 2.0, 3.0])


# ----------------------------------------------------------------------------- IntegerLookup

LOOKUP_REF: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "keras_layers_more_reference.json").read_text()
)["lookup"]
V = [12, 36, 1138, 42]
A = np.array([12, 36, 1138, 42, 42, 36, 36, 7, 7, 7, 5], np.int64)
A2 = np.array([[12, 36, 36, 0], [42, 42, 36, 9], [12, 7, 7, 7]], np.int64)
X = np.array([[12, 1138, 42], [42, 1000, 36]], np.int64)
XM = np.array([[12, 0, 7, 42], [42, 1000, 36, 36]], np.int64)
LOOKUP: dict[str, tuple[dict[str, Any], Any, np.ndarray]] = {
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
    "count_pad": ({"vocabulary": V, "output_mode": "count", "max_tokens": 8, "pad_to_max_tokens": True}, None, XM),
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


def test_lookup_reference_cases_match_the_test_cases() -> None:
    assert sorted(LOOKUP_REF) == sorted(LOOKUP)


@pytest.mark.parametrize("case", sorted(LOOKUP))
def test_integer_lookup_matches_keras(case: str) -> None:
    ref = LOOKUP_REF[case]
    kw, data, x = LOOKUP[case]
    layer = L.IntegerLookup(**kw)
    if data is not None:
        layer.adapt(data)
    y = layer(x)
    assert y.dtype.name == ref["dtype"]
    np.testing.assert_allclose(y.numpy(), ref["output"], rtol=1e-6, atol=1e-6)
    assert layer.get_vocabulary() == ref["vocabulary"]
    assert layer.get_vocabulary(include_special_tokens=False) == ref["vocabulary_no_special"]
    assert layer.vocabulary_size() == ref["vocabulary_size"]
    assert sorted(layer.get_config()) == ref["config_keys"]
    assert layer.name == ref["name"]
    if "idf_weights" in ref:
        np.testing.assert_allclose(layer.idf_weights.numpy(), ref["idf_weights"], rtol=1e-6, atol=1e-7)
    assert list(layer(keras.Input(shape=x.shape[1:], dtype="int64")).shape) == ref["symbolic_shape"]
    # Same values inside tf.function, and after a config round trip (vocabulary given).
    np.testing.assert_array_equal(tf.function(lambda t: layer(t))(tf.constant(x)).numpy(), y.numpy())
    if data is None:
        clone = L.IntegerLookup.from_config(layer.get_config())
        np.testing.assert_array_equal(clone(x).numpy(), y.numpy())


def test_integer_lookup_errors() -> None:
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_oov_indices=0"):
        L.IntegerLookup(vocabulary=V, num_oov_indices=0)(np.array([12, 5], np.int64))
    with pytest.raises(ValueError, match="repeated"):
        L.IntegerLookup(vocabulary=[1, 2, 2])
    with pytest.raises(ValueError, match="mask token"):
        L.IntegerLookup(vocabulary=[1, 0, 2], mask_token=0)
    with pytest.raises(ValueError, match="max_tokens"):
        L.IntegerLookup(max_tokens=3, vocabulary=[1, 2, 3])
    with pytest.raises(ValueError, match="invert"):
        L.IntegerLookup(vocabulary=V, invert=True, output_mode="count")
    with pytest.raises(ValueError, match="idf_weights"):
        L.IntegerLookup(vocabulary=V, output_mode="tf_idf")
    with pytest.raises(ValueError, match="output_mode"):
        L.IntegerLookup(output_mode="bag")
    with pytest.raises(ValueError, match="Cannot adapt"):
        L.IntegerLookup(vocabulary=V).adapt(A)
    with pytest.raises(RuntimeError, match="vocabulary"):
        L.IntegerLookup(output_mode="count")(X)
    with pytest.raises(ValueError, match=r"rank 1 or 2.*\(1, 2, 3\)"):
        L.IntegerLookup(vocabulary=V, output_mode="count")(np.zeros((1, 2, 3), np.int64))
    with pytest.raises(ValueError, match="integer inputs"):
        L.IntegerLookup(vocabulary=V)(np.zeros((2,), np.float32))
    with pytest.raises(ValueError, match="sparse"):
        L.IntegerLookup(sparse=True)
    with pytest.raises(ValueError, match="farmhash"):
        L.IntegerLookup(oov_method="farmhash")


def test_integer_lookup_adapt_from_batches_and_round_trip_with_invert() -> None:
    layer = L.IntegerLookup(max_tokens=5)
    layer.adapt(iter([A[:5], A[5:]]))
    assert layer.get_vocabulary() == [-1, 36, 7, 42, 1138]
    inv = L.IntegerLookup(vocabulary=layer.get_vocabulary(), invert=True)
    ids = layer(np.array([[36, 1138, 42, 7]], np.int64))
    np.testing.assert_array_equal(inv(ids).numpy(), [[36, 1138, 42, 7]])
    # int32 inputs are accepted (cast to int64, as Keras' ensure_tensor does).
    np.testing.assert_array_equal(layer(np.array([36], np.int32)).numpy(), [1])


def test_gqa_activity_regularizer_applies_to_output_and_projections() -> None:
    layer = L.GroupQueryAttention(2, 2, 1, activity_regularizer="l2")
    layer(fixed((2, 3, 4), 1), fixed((2, 5, 4), 2))
    # query, key, value and attention_output projections, then the layer's own output.
    assert len(layer.losses) == 5
