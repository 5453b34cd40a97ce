"""Memory handling of compiled steps: variable updates on the variables' own buffers.

A replay defers each update that no later node reads (``assign_sub``, ``assign_add``,
an optimizer's ``apply_gradients``) to its end, after every node succeeded and every
guard held, and runs it on the variable's buffer: in place when nothing else holds
that buffer, on a copy when something does (a tensor the caller kept of the old value
keeps it). ``_Graph.update_stats`` counts both for the last replay. Every replay still
gives eager execution's bits; two threads replaying their own steps give each
thread's eager bits. The broadcast kernels the hand-written step leans on (bias rows,
scalars) are checked against numpy element by element.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np
import pytest

import tapers as tf


def only_graph(f: Any) -> Any:
    """The one graph a compiled function traced."""
    graphs = [entry.graph for trace in f._traces for entry in trace.graphs.values()]
    assert len(graphs) == 1, graphs
    return graphs[0]


def bits(x: Any) -> bytes:
    return np.asarray(x).tobytes()


def _model(seed: int, form: str, momentum: float = 0.0) -> tuple[Callable[[], Any], list[Any]]:
    """A two-layer MLP step (hand-written ``user`` form or library ``fused`` form)."""
    rng = np.random.default_rng(seed)
    x = tf.constant(rng.normal(size=(32, 20)).astype(np.float32))
    labels = rng.integers(0, 4, 32)
    yt = tf.constant(labels.astype(np.int32))
    onehot = tf.constant(np.eye(4, dtype=np.float32)[labels])
    shapes = [(20, 24), (24, 4)]
    ws = [tf.Variable(rng.normal(size=s).astype(np.float32) * 0.3) for s in shapes]
    bs = [tf.Variable(np.zeros(s[1], np.float32)) for s in shapes]
    params = ws + bs
    opt = tf.optimizers.SGD(0.1, momentum=momentum)

    def user() -> Any:
        with tf.GradientTape() as tape:
            h = tf.maximum(x @ ws[0] + bs[0], 0.0)
            logits = h @ ws[1] + bs[1]
            z = logits - tf.reduce_max(logits, axis=1, keepdims=True)
            logp = z - tf.math.log(tf.reduce_sum(tf.exp(z), axis=1, keepdims=True))
            loss = -tf.reduce_mean(tf.reduce_sum(onehot * logp, axis=1))
        for v, g in zip(params, tape.gradient(loss, params)):
            v.assign_sub(0.1 * g)
        return loss

    def fused() -> Any:
        with tf.GradientTape() as tape:
            h = tf.nn.relu(x @ ws[0] + bs[0])
            logits = h @ ws[1] + bs[1]
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yt, logits=logits))
        opt.apply_gradients(zip(tape.gradient(loss, params), params))
        return loss

    return (user if form == "user" else fused), params


@pytest.mark.parametrize(("form", "momentum"), [("user", 0.0), ("fused", 0.0), ("fused", 0.9)])
def test_updates_run_in_place_and_keep_eager_bits(form: str, momentum: float) -> None:
    eager, eager_params = _model(0, form, momentum)
    step, params = _model(0, form, momentum)
    compiled = tf.function(step)
    for k in range(4):
        le, lf = eager(), compiled()
        assert bits(le.numpy()) == bits(lf.numpy()), f"loss at step {k}"
        for a, b in zip(eager_params, params):
            assert bits(a.numpy()) == bits(b.numpy()), f"variable after step {k}"
    g = only_graph(compiled)
    # Each of the four variables' updates (with its momentum slot) ran on its own buffer.
    assert g.update_stats == {"in_place": 4, "copied": 0, "with_products": 0}


def test_an_old_value_the_caller_holds_keeps_its_bits() -> None:
    step, params = _model(1, "user")
    compiled = tf.function(step)
    compiled()
    compiled()
    assert only_graph(compiled).update_stats == {"in_place": 4, "copied": 0, "with_products": 0}
    held = params[0].read_value()  # shares the variable's buffer
    before = held.numpy().copy()
    compiled()
    stats = only_graph(compiled).update_stats
    # That one update copies; the others still write in place.
    assert stats == {"in_place": 3, "copied": 1, "with_products": 0}
    assert bits(held.numpy()) == bits(before)
    assert bits(params[0].numpy()) != bits(before)
    del held
    compiled()
    assert only_graph(compiled).update_stats == {"in_place": 4, "copied": 0, "with_products": 0}


def test_a_read_after_the_update_sees_the_new_value() -> None:
    # v's update is read again later in the step: it is not deferred, and the
    # read sees the new value as in eager execution.
    start = np.arange(16, dtype=np.float32).reshape(2, 8)
    v, w = tf.Variable(start), tf.Variable(start)

    def step(d: Any) -> Any:
        v.assign_sub(d)
        w.assign_add(d * 2.0)
        return v.read_value() * 10.0

    compiled = tf.function(step)
    d = tf.constant(np.ones(8, np.float32))
    assert compiled(d).numpy().tolist() == ((start - 1) * 10).tolist()
    assert compiled(d).numpy().tolist() == ((start - 2) * 10).tolist()
    assert w.numpy().tolist() == (start + 4).tolist()
    # Only w's update (read by nothing after it) is deferred.
    assert only_graph(compiled).update_stats == {"in_place": 1, "copied": 0, "with_products": 0}


def test_a_failed_replay_leaves_deferred_updates_unapplied() -> None:
    v = tf.Variable(np.ones(4, np.float32))

    @tf.function
    def step(d: Any, k: Any) -> Any:
        v.assign_sub(d)
        return tf.math.floordiv(k, k)

    one = tf.constant(1, dtype=tf.int64)
    step(tf.constant(np.full(4, 0.5, np.float32)), one)
    assert v.numpy().tolist() == [0.5] * 4
    with pytest.raises(tf.errors.InvalidArgumentError):
        step(tf.constant(np.full(4, 0.5, np.float32)), tf.constant(0, dtype=tf.int64))
    assert v.numpy().tolist() == [0.5] * 4


def test_update_errors_match_eager() -> None:
    v = tf.Variable(np.ones((2, 3), np.float32))

    @tf.function
    def step(d: Any) -> None:
        v.assign_sub(d)

    step(tf.constant(np.ones(3, np.float32)))
    assert v.numpy().tolist() == [[0.0] * 3] * 2
    # A delta that broadcasts past the variable's shape: eager's error, no write.
    bad = tf.constant(np.ones((2, 2, 3), np.float32))
    with pytest.raises(ValueError, match="Shape mismatch"):
        v.assign_sub(bad)
    with pytest.raises(ValueError, match="Shape mismatch"):
        step(bad)
    assert v.numpy().tolist() == [[0.0] * 3] * 2


def test_two_threads_replay_their_own_steps_with_eager_bits() -> None:
    want = []
    for seed in (3, 4):
        eager, params = _model(seed, "user")
        for _ in range(6):
            eager()
        want.append([p.numpy() for p in params])
    models = [_model(seed, "user") for seed in (3, 4)]
    compiled = [tf.function(step) for step, _ in models]
    errors: list[BaseException] = []

    def run(f: Any) -> None:
        try:
            for _ in range(6):
                f()
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=run, args=(f,)) for f in compiled]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for (_, params), ref in zip(models, want):
        for p, r in zip(params, ref):
            assert bits(p.numpy()) == bits(r)


@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [
        ((8, 300), (300,)),  # a bias row
        ((8, 300), ()),  # a scalar
        ((300,), (8, 300)),  # the row first
        ((2, 3, 40), (3, 40)),  # a trailing block
        ((5, 40), (1, 40)),  # leading ones
        ((128, 10), (128, 1)),  # a per-row value (keepdims reductions)
        ((3, 1), (1, 40)),  # a column and a row
        ((2, 7, 6), (7, 1)),  # a column block
        ((100, 3), (3,)),  # short rows (ndarray's general path)
        ((3, 2, 4), (3, 1, 4)),  # a middle axis (ndarray's general path)
        ((70_000,), (1,)),  # parallel chunks
        ((600, 130), (130,)),  # parallel chunks across rows
        ((0, 40), (40,)),  # empty
    ],
)
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "maximum"])
def test_broadcast_binary_ops_match_numpy(a_shape: tuple[int, ...], b_shape: tuple[int, ...], op: str) -> None:
    rng = np.random.default_rng(5)
    a = rng.normal(size=a_shape).astype(np.float32)
    b = rng.normal(size=b_shape).astype(np.float32)
    got = getattr(tf.math, op)(tf.constant(a), tf.constant(b)).numpy()
    want = getattr(np, op)(a, b)
    assert got.shape == want.shape
    assert bits(got) == bits(want)


def _update_by_gradient(dtype: Any, form: str, v_shape: tuple[int, int], batch: int, seed: int) -> Any:
    """`v`'s update by the gradient of `sum(tanh(x @ v))` (a `MatMul`, `x^T @ d`) in
    `form`, four steps eagerly and four compiled from the same start: losses and
    variables agree bit for bit after each. Returns the compiled step's graph."""
    rng = np.random.default_rng(seed)
    start = rng.normal(size=v_shape).astype(dtype)
    x = tf.constant(rng.normal(size=(batch, v_shape[0])).astype(dtype))

    def make() -> tuple[Any, Callable[[], Any]]:
        v = tf.Variable(start)
        opt = tf.optimizers.SGD(0.05)

        def step() -> Any:
            with tf.GradientTape() as t:
                loss = tf.reduce_sum(tf.tanh(x @ v))
            g = t.gradient(loss, v)
            if form == "lr * g":
                v.assign_sub(0.01 * g)
            elif form == "g * lr":
                v.assign_sub(g * 0.01)
            elif form == "assign_add":
                v.assign_add(-0.01 * g)
            elif form == "assign_add g * c":
                v.assign_add(g * -0.01)
            elif form == "g":
                v.assign_sub(g)
            else:
                opt.apply_gradients([(g, v)])
            return loss

        return v, step

    v_eager, eager = make()
    v_comp, step = make()
    compiled = tf.function(step)
    for k in range(4):
        assert bits(eager().numpy()) == bits(compiled().numpy()), f"loss at step {k}"
        assert bits(v_eager.numpy()) == bits(v_comp.numpy()), f"variable after step {k}"
    return only_graph(compiled)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("form", ["lr * g", "g * lr", "assign_add"])
def test_assign_sub_of_a_scaled_gradient_is_one_in_place_pass(dtype: Any, form: str) -> None:
    # `v.assign_sub(lr * g)`, SGD as TF users write it: the graph drops the
    # product and the deferred update multiplies as it writes, with eager's
    # bits (the product's rounding, then the subtraction's).
    g = _update_by_gradient(dtype, form, (64, 32), 16, seed=7)
    # The update reads the gradient's MatMul directly: no product node.
    assert g.op_names[-2:] == ["MatMul", "AssignAddVariableOp" if form == "assign_add" else "AssignSubVariableOp"]
    assert g.update_stats == {"in_place": 1, "copied": 0, "with_products": 0}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("form", ["lr * g", "assign_add g * c", "g", "optimizer"])
def test_a_weight_update_runs_with_its_gradient_product(dtype: Any, form: str) -> None:
    # v's gradient x^T @ d is large enough for MatMul's row halves and read only by
    # v's update: each half is folded into v as it is made, in every per-element form,
    # with eager's bits.
    g = _update_by_gradient(dtype, form, (96, 80), 64, seed=11)
    assert g.plan_stats["product_updates"] == 1 and "MatMul" not in g.op_names, g.op_names
    assert g.update_stats == {"in_place": 1, "copied": 0, "with_products": 1}


def test_a_scaled_gradient_read_elsewhere_is_still_made() -> None:
    v = tf.Variable(np.ones((4, 3), np.float32))
    d = tf.constant(np.full((4, 3), 0.5, np.float32))

    def step(d: Any) -> Any:  # an input: a product of constants would fold
        delta = 0.1 * d
        v.assign_sub(delta)
        return delta

    compiled = tf.function(step)
    assert compiled(d).numpy().tolist() == (0.1 * np.full((4, 3), 0.5, np.float32)).tolist()
    assert "Mul" in only_graph(compiled).op_names
    np.testing.assert_array_equal(v.numpy(), np.ones((4, 3), np.float32) - np.float32(0.1) * np.float32(0.5))


def test_a_scaled_update_of_a_half_variable_matches_eager() -> None:
    # No in-place form for float16: the graph's update computes the product
    # as eager does (float32 arithmetic, rounded to float16 each step).
    start = np.linspace(-1, 1, 24).astype(np.float16).reshape(4, 6)
    d = tf.constant(np.linspace(0.3, 2.0, 24).astype(np.float16).reshape(4, 6))
    ve, vc = tf.Variable(start), tf.Variable(start)
    compiled = tf.function(lambda: vc.assign_sub(tf.constant(0.37, tf.float16) * d))
    for _ in range(3):
        ve.assign_sub(tf.constant(0.37, tf.float16) * d)
        compiled()
        assert bits(ve.numpy()) == bits(vc.numpy())
