"""Keras 3 attention layers (EinsumDense, MultiHeadAttention, Attention, AdditiveAttention, Dot) against
TensorFlow 2.21 / Keras 3 numbers recorded by tests/data/make_keras_attention_reference.py, plus float64
finite-difference gradient checks, tf.function vs eager, dropout in training vs inference, bad inputs,
and a small transformer block trained under tf.function."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _keras_fixtures import fixed

import tapers as tf

L = tf.keras.layers
REF: dict[str, Any] = json.loads((Path(__file__).parent / "data" / "keras_attention_reference.json").read_text())
CASES = {c["id"]: c for c in REF["cases"]}
RTOL, ATOL = 1e-5, 1e-6


def bool_mask(shape: tuple[int, ...], k: int) -> np.ndarray:
    """The reference script's deterministic mask (at least one True per last-axis row)."""
    m = fixed(shape, k) > -0.2
    m[..., 0] = True
    return m


def make_inputs(case: dict[str, Any]) -> dict[str, np.ndarray]:
    return {name: fixed(tuple(shape), 100 + k) for name, (shape, k) in case["inputs"].items()}


def make_masks(case: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, spec in case.get("masks", {}).items():
        if name == "mask":
            out[name] = [None if s is None else bool_mask(tuple(s[0]), s[1]) for s in spec]
        else:
            out[name] = bool_mask(tuple(spec[0]), spec[1])
    return out


def invoke(layer: Any, case: dict[str, Any], xs: dict[str, Any], masks: dict[str, Any]) -> Any:
    kwargs = {**case.get("kwargs", {}), **masks}
    vals = list(xs.values())
    if case["call"] == "single":
        return layer(vals[0], **kwargs)
    if case["call"] == "mha":
        q = vals[0]
        v = q if case.get("self") else vals[1]
        if len(vals) > 2:
            return layer(q, v, vals[2], **kwargs)
        return layer(q, v, **kwargs)
    return layer(vals, **kwargs)


def build_case(case_id: str, dtype: str = "float32") -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """The case's layer, built, with the reference weights; its inputs and masks."""
    case = CASES[case_id]
    layer = getattr(L, case["cls"])(**case["kw"], dtype=dtype)
    xs = {n: v.astype(dtype) for n, v in make_inputs(case).items()}
    masks = make_masks(case)
    invoke(layer, case, {n: tf.constant(v) for n, v in xs.items()}, masks)
    for i, w in enumerate(layer.weights):
        w.assign(fixed(tuple(w.shape), 10 + i).astype(dtype))
    return layer, xs, masks


def loss_of(res: Any) -> Any:
    outs = list(res) if isinstance(res, tuple) else [res]
    loss = tf.reduce_sum(outs[0] * fixed(tuple(outs[0].shape), 7).astype(outs[0].dtype.as_numpy_dtype))
    if len(outs) > 1:
        loss = loss + tf.reduce_sum(outs[1] * fixed(tuple(outs[1].shape), 8).astype(outs[1].dtype.as_numpy_dtype))
    return loss, outs


def _strip(path: str) -> str:
    return path.split("/", 1)[1] if "/" in path else path


@pytest.mark.parametrize("case_id", list(CASES))
def test_matches_keras(case_id: str) -> None:
    case, ref = CASES[case_id], REF["results"][case_id]
    layer, xs, masks = build_case(case_id)
    names = [w.name[:-2] if w.name.endswith(":0") else w.name for w in layer.weights]
    assert [_strip(n) for n in names] == [_strip(p) for p, _ in ref["weights"]]
    assert all(n.split("/")[0] == layer.name for n in names)
    assert [list(w.shape) for w in layer.weights] == [s for _, s in ref["weights"]]
    assert sorted(layer.get_config()) == ref["config_keys"]
    consts = {n: tf.constant(v) for n, v in xs.items()}
    with tf.GradientTape() as tape:
        for c in consts.values():
            tape.watch(c)
        loss, outs = loss_of(invoke(layer, case, consts, masks))
    assert [list(o.shape) for o in outs] == ref["output_shapes"]
    for o, r in zip(outs, ref["outputs"]):
        np.testing.assert_allclose(o.numpy(), np.array(r), rtol=RTOL, atol=ATOL)
    grads = tape.gradient(loss, [*consts.values(), *layer.trainable_weights])
    n_in = len(consts)
    for g, r in zip(grads[:n_in], ref["input_grads"]):
        np.testing.assert_allclose(g.numpy(), np.array(r), rtol=RTOL, atol=ATOL)
    assert len(grads[n_in:]) == len(ref["weight_grads"])
    for g, r in zip(grads[n_in:], ref["weight_grads"]):
        np.testing.assert_allclose(g.numpy(), np.array(r), rtol=RTOL, atol=ATOL)
    # A symbolic call on keras.Input (None batch), without masks.
    sym_layer = getattr(L, case["cls"])(**case["kw"])
    sym_in = {n: tf.keras.Input(shape=tuple(s[0][1:])) for n, s in case["inputs"].items()}
    sym_case = {**case, "kwargs": {k: v for k, v in case.get("kwargs", {}).items() if k != "return_attention_scores"}}
    sym = invoke(sym_layer, sym_case, sym_in, {})
    assert list(sym.shape) == ref["symbolic_shape"]
    # Rebuilt from its config, a layer has the same weight shapes.
    clone = type(layer).from_config(layer.get_config() | {"name": layer.name + "_clone"})
    invoke(clone, case, consts, masks)
    assert [tuple(w.shape) for w in clone.weights] == [tuple(w.shape) for w in layer.weights]


# ----------------------------------------------------------------------------- finite differences


def _fd_check(case_id: str, n_weights: int = 2, eps: float = 1e-6) -> None:
    """Central differences in float64 against tape.gradient, for each input and the first weights."""
    case = CASES[case_id]
    layer, xs, masks = build_case(case_id, dtype="float64")
    consts = {n: tf.constant(v) for n, v in xs.items()}

    def value() -> float:
        return float(loss_of(invoke(layer, case, consts, masks))[0].numpy())

    with tf.GradientTape() as tape:
        for c in consts.values():
            tape.watch(c)
        loss, _ = loss_of(invoke(layer, case, consts, masks))
    weights = layer.trainable_weights[:n_weights]
    grads = tape.gradient(loss, [*consts.values(), *weights])
    for name, g in zip(list(consts), grads[: len(consts)]):
        base = xs[name]
        num = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            for sign in (1, -1):
                pert = base.copy()
                pert[idx] += sign * eps
                consts[name] = tf.constant(pert)
                num[idx] += sign * value() / (2 * eps)
        consts[name] = tf.constant(base)
        np.testing.assert_allclose(g.numpy(), num, rtol=1e-6, atol=1e-8)
    for w, g in zip(weights, grads[len(consts) :]):
        base = np.array(w.numpy(), dtype=np.float64)
        num = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            for sign in (1, -1):
                pert = base.copy()
                pert[idx] += sign * eps
                w.assign(pert)
                num[idx] += sign * value() / (2 * eps)
        w.assign(base)
        np.testing.assert_allclose(g.numpy(), num, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(
    "case_id",
    ["mha_causal_masked", "mha_2d_axes", "ed_right_ellipsis", "att_concat", "add_default", "dot_rank4"],
)
def test_finite_differences_float64(case_id: str) -> None:
    _fd_check(case_id)


def test_mha_finite_differences_tiny_all_weights() -> None:
    layer = L.MultiHeadAttention(num_heads=2, key_dim=2, value_dim=1, output_shape=2, dtype="float64")
    q = fixed((1, 2, 3), 100).astype("float64")
    v = fixed((1, 3, 2), 101).astype("float64")
    mask = np.array([[[True, False, True], [True, True, False]]])
    consts = [tf.constant(q), tf.constant(v)]
    layer(consts[0], consts[1])
    for i, w in enumerate(layer.weights):
        w.assign(fixed(tuple(w.shape), 10 + i).astype("float64"))
    wts = fixed((1, 2, 2), 7).astype("float64")

    def f() -> Any:
        return tf.reduce_sum(layer(consts[0], consts[1], attention_mask=mask) * wts)

    with tf.GradientTape() as tape:
        for c in consts:
            tape.watch(c)
        loss = f()
    grads = tape.gradient(loss, [*consts, *layer.trainable_weights])
    targets: list[Any] = [*consts, *layer.trainable_weights]
    eps = 1e-6
    for t, g in zip(targets, grads):
        base = t.numpy().copy()
        num = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            vals = []
            for sign in (1, -1):
                pert = base.copy()
                pert[idx] += sign * eps
                if isinstance(t, tf.Variable):
                    t.assign(pert)
                else:
                    consts[targets.index(t)] = tf.constant(pert)
                vals.append(float(f().numpy()))
            num[idx] = (vals[0] - vals[1]) / (2 * eps)
        if isinstance(t, tf.Variable):
            t.assign(base)
        else:
            consts[targets.index(t)] = tf.constant(base)
        np.testing.assert_allclose(g.numpy(), num, rtol=1e-6, atol=1e-9)


# ----------------------------------------------------------------------------- tf.function, training


@pytest.mark.parametrize("case_id", ["mha_causal_masked", "mha_cross", "att_masks", "add_causal", "dot_pair"])
def test_tf_function_matches_eager(case_id: str) -> None:
    case = CASES[case_id]
    layer, xs, masks = build_case(case_id)
    consts = {n: tf.constant(v) for n, v in xs.items()}
    eager = invoke(layer, case, consts, masks)

    @tf.function
    def run(*args: Any) -> Any:
        return invoke(layer, case, dict(zip(consts, args)), masks)

    traced = run(*consts.values())
    for a, b in zip(tf.nest.flatten(eager), tf.nest.flatten(traced)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)


def test_mha_dropout_only_in_training() -> None:
    q = tf.constant(fixed((2, 5, 4), 100))
    layer = L.MultiHeadAttention(num_heads=2, key_dim=3, dropout=0.5, seed=1)
    plain = L.MultiHeadAttention(num_heads=2, key_dim=3)
    layer(q, q)
    plain(q, q)
    plain.set_weights(layer.get_weights())
    ref, ref_scores = plain(q, q, return_attention_scores=True)
    out, scores = layer(q, q, return_attention_scores=True)  # inference by default
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-6, atol=1e-7)
    out = layer(q, q, training=False)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-6, atol=1e-7)
    out_t, scores_t = layer(q, q, return_attention_scores=True, training=True)
    assert not np.allclose(out_t.numpy(), ref.numpy())
    # The returned scores are the softmax before dropout, as in Keras.
    np.testing.assert_allclose(scores_t.numpy(), ref_scores.numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(scores.numpy().sum(-1), 1.0, rtol=1e-5)


def test_attention_dropout_only_in_training() -> None:
    q, v = tf.constant(fixed((2, 4, 3), 100)), tf.constant(fixed((2, 6, 3), 101))
    layer = L.Attention(dropout=0.5, seed=3)
    ref = L.Attention()([q, v])
    np.testing.assert_allclose(layer([q, v]).numpy(), ref.numpy(), rtol=1e-6)
    _, w = layer([q, v], training=True, return_attention_scores=True)
    kept = w.numpy()
    assert np.any(kept == 0.0) and np.any(kept > 0.0)


def test_causal_scores_are_lower_triangular() -> None:
    q = tf.constant(fixed((1, 4, 4), 100))
    _, s = L.MultiHeadAttention(2, 2)(q, q, use_causal_mask=True, return_attention_scores=True)
    assert np.all(np.triu(s.numpy()[0, 0], 1) == 0)
    _, s = L.Attention()([q, q], use_causal_mask=True, return_attention_scores=True)
    assert np.all(np.triu(s.numpy()[0], 1) == 0)


# ----------------------------------------------------------------------------- bad inputs


def test_bad_inputs_raise_clear_errors() -> None:
    q = tf.constant(fixed((2, 4, 5), 0))
    with pytest.raises(ValueError, match="num_heads"):
        L.MultiHeadAttention(num_heads=0, key_dim=2)
    with pytest.raises(ValueError, match="key_dim"):
        L.MultiHeadAttention(num_heads=2, key_dim=-1)
    with pytest.raises(ValueError, match="`value` and `key`"):
        L.MultiHeadAttention(2, 2)(q, tf.constant(fixed((2, 6, 5), 1)), tf.constant(fixed((2, 3, 5), 2)))
    with pytest.raises(ValueError, match="rank"):
        L.MultiHeadAttention(2, 2)(tf.constant(fixed((2, 5), 0)), tf.constant(fixed((2, 5), 0)))
    with pytest.raises(NotImplementedError, match="use_gate"):
        L.MultiHeadAttention(2, 2, use_gate=True)
    with pytest.raises(ValueError, match="list of inputs"):
        L.Attention()(q)
    with pytest.raises(ValueError, match="length 2 or 3"):
        L.Attention()([q])
    with pytest.raises(ValueError, match="score_mode"):
        L.Attention(score_mode="general")
    with pytest.raises(ValueError, match=r"\(2, 4, 5\)"):
        L.Attention()([q, tf.constant(fixed((2, 3, 4), 1))])
    with pytest.raises(ValueError, match="Incompatible input shapes"):
        L.Dot(axes=2)([q, tf.constant(fixed((2, 4, 3), 1))])
    with pytest.raises(ValueError, match="two elements"):
        L.Dot(axes=(1, 2, 3))
    with pytest.raises(ValueError, match="Invalid einsum equation"):
        L.EinsumDense("ab->b", output_shape=3)(tf.constant(fixed((2, 3), 0)))
    with pytest.raises(ValueError, match="Bias dimension"):
        L.EinsumDense("ab,bc->ac", output_shape=3, bias_axes="x")(tf.constant(fixed((2, 3), 0)))


# ----------------------------------------------------------------------------- a transformer block


class _Block(tf.keras.Model):
    def __init__(self) -> None:
        super().__init__()
        self.mha = L.MultiHeadAttention(num_heads=2, key_dim=4)
        self.norm1 = L.LayerNormalization()
        self.ff = L.Dense(8, activation="relu")
        self.out_proj = L.Dense(6)
        self.norm2 = L.LayerNormalization()
        self.head = L.Dense(1)

    def call(self, x: Any, training: bool = False) -> Any:
        h = self.norm1(x + self.mha(x, x, use_causal_mask=True, training=training))
        h = self.norm2(h + self.out_proj(self.ff(h)))
        return self.head(h)


def test_transformer_block_trains_under_tf_function() -> None:
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(8, 5, 6)).astype("float32"))
    y = tf.constant(np.cumsum(x.numpy()[..., :1], axis=1) * 0.3)
    model = _Block()
    model(x)
    opt = tf.keras.optimizers.Adam(learning_rate=0.02)

    @tf.function
    def step(xb: Any, yb: Any) -> Any:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(xb, training=True) - yb))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    first = float(step(x, y).numpy())
    for _ in range(60):
        last = float(step(x, y).numpy())
    assert len(model.trainable_variables) == 8 + 4 + 4 + 2
    assert last < 0.5 * first, (first, last)


def test_symbolic_scores_shape_and_functional_model_fit() -> None:
    _, s = L.MultiHeadAttention(2, 2)(tf.keras.Input((4, 5)), tf.keras.Input((6, 5)), return_attention_scores=True)
    assert tuple(s.shape) == (None, 2, 4, 6)  # Keras 3 says (None, 2, 4, 4): the call's real shape is kept
    _, s = L.MultiHeadAttention(2, 2, attention_axes=(1, 2))(
        tf.keras.Input((3, 2, 4)), tf.keras.Input((2, 3, 4)), return_attention_scores=True
    )
    assert tuple(s.shape) == (None, 2, 3, 2, 2, 3)
    x = tf.keras.Input((5, 6))
    h = L.MultiHeadAttention(2, 3)(x, x, use_causal_mask=True)
    h = L.LayerNormalization()(L.Add()([h, x]))
    model = tf.keras.Model(x, L.Dense(1)(h))
    assert len(model.weights) == 8 + 2 + 2
    xs = fixed((8, 5, 6), 100)
    ys = fixed((8, 5, 1), 101)
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05), loss="mse")
    hist = model.fit(xs, ys, epochs=5, batch_size=8, verbose=0)
    assert hist.history["loss"][-1] < hist.history["loss"][0]
    q, v = tf.keras.Input((4, 3)), tf.keras.Input((5, 3))
    model2 = tf.keras.Model([q, v], L.Dot(axes=2)([L.AdditiveAttention()([q, v]), L.Attention()([q, v])]))
    assert model2([fixed((2, 4, 3), 1), fixed((2, 5, 3), 2)]).shape == (2, 4, 4)


def test_einsum_kernel_initializer_uses_equation_fans() -> None:
    # Keras' EinsumDense gives Glorot its fans over the equation's input/output axes: for the
    # (5, 2, 3) query kernel, fan_in 5 and fan_out 6 (not the convolution-style fans of the shape).
    layer = L.EinsumDense("abc,cde->abde", output_shape=(None, 20, 30), bias_axes="de")
    layer(tf.zeros([1, 2, 50]))
    k = layer.kernel.numpy()
    limit = np.sqrt(6.0 / (50 + 600))
    assert np.abs(k).max() <= limit and np.abs(k).max() > 0.9 * limit
    assert layer.bias.shape == (20, 30)
