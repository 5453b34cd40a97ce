"""``tapers.function``'s speed-ups are engaged, and replays keep eager's bits.

Each test checks both: the plan or the call path reports that the faster route ran
(fused backward regions and pointwise gradient passes in the graph, values released
early, the per-call fast path taken), and every replayed value equals eager's bit for bit.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import tapers as tf
from tapers import _function


def only_graph(f):
    """The one graph a compiled function traced (one signature, one shape)."""
    graphs = [entry.graph for trace in f._traces for entry in trace.graphs.values()]
    assert len(graphs) == 1, graphs
    return graphs[0]


def bits(x: Any) -> bytes:
    return np.asarray(x).tobytes()


def _value_and_grad(x: Any) -> Any:
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(tf.tanh(x) * tf.exp(-x * x) + x)
    return y, t.gradient(y, x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_large_elementwise_backward_replays_as_one_fused_region(dtype: Any) -> None:
    # Above the fusion threshold (65,536 elements): eager fuses the backward pass
    # into one chunked region, and so does the trace, as one node.
    f = tf.function(_value_and_grad)
    rng = np.random.default_rng(0)
    for k in range(3):
        x = tf.constant(rng.normal(size=70_000).astype(dtype))
        want, got = _value_and_grad(x), f(x)
        for a, b in zip(want, got):
            assert bits(a.numpy()) == bits(b.numpy()), f"call {k}"
    g = only_graph(f)
    # The backward pass is one region, joined with the forward ops it reads into
    # one fused loop (tests/test_function_fusion.py): no op of a derivative formula
    # replays, and no forward op runs on its own.
    assert g.op_names == ["FusedElementwise"]
    assert g.fusion_stats["joined_backward"] == 1
    assert f.experimental_get_tracing_count() == 1


def test_small_pointwise_gradients_replay_as_one_pass_each() -> None:
    @tf.function
    def f(x: Any) -> Any:
        return _value_and_grad(x)

    rng = np.random.default_rng(1)
    for _ in range(3):
        x = tf.constant(rng.normal(size=(4, 5)).astype(np.float32))
        for a, b in zip(_value_and_grad(x), f(x)):
            assert bits(a.numpy()) == bits(b.numpy())
    g = only_graph(f)
    stats = g.plan_stats
    # Tanh, Exp, the two Muls and Neg: one chunk-kernel pass per wanted input.
    assert stats["pointwise_grads"] >= 5 and stats["fused_regions"] == 0
    assert "PointwiseGrad" in g.op_names


def _mlp_step(
    form: str, sizes: tuple[int, ...] = (16, 12, 8, 3), momentum: float = 0.9
) -> tuple[Callable[[], Any], list[Any]]:
    rng = np.random.default_rng(2)
    batch, width, hidden, classes = sizes
    x = tf.constant(rng.normal(size=(batch, width)).astype(np.float32))
    labels = rng.integers(0, classes, batch)
    yt = tf.constant(labels.astype(np.int32))
    onehot = tf.constant(np.eye(classes, dtype=np.float32)[labels])
    shapes = [(width, hidden), (hidden, classes)]
    ws = [tf.Variable(rng.normal(size=s).astype(np.float32) * 0.3) for s in shapes]
    bs = [tf.Variable(np.zeros(s[1], np.float32)) for s in shapes]
    params = ws + bs
    opt = tf.optimizers.SGD(0.1, momentum=momentum)

    def fused() -> Any:
        with tf.GradientTape() as tape:
            h = tf.nn.relu(x @ ws[0] + bs[0])
            logits = h @ ws[1] + bs[1]
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yt, logits=logits))
        opt.apply_gradients(zip(tape.gradient(loss, params), params))
        return loss

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

    return (fused if form == "fused" else user), params


def _compiled_steps_match_eager(form: str, sizes: tuple[int, ...] = (16, 12, 8, 3), momentum: float = 0.9) -> Any:
    """Four steps eagerly and four compiled, from the same start: the losses and
    variables agree bit for bit after each. Returns the compiled function."""
    eager, eager_params = _mlp_step(form, sizes, momentum)
    step, params = _mlp_step(form, sizes, momentum)
    compiled = tf.function(step)
    for k in range(4):
        le, lf = eager(), compiled()
        assert bits(le.numpy()) == bits(lf.numpy()), f"loss at step {k}"
        for a, b in zip(eager_params, params):
            assert bits(a.numpy()) == bits(b.numpy()), f"variable after step {k}"
    return compiled


@pytest.mark.parametrize("form", ["fused", "user"])
def test_training_steps_replay_bitwise_and_release_values_early(form: str) -> None:
    compiled = _compiled_steps_match_eager(form)
    g = only_graph(compiled)
    stats = g.plan_stats
    # Liveness: activations go once the backward pass has read them, so far
    # fewer values are alive at once than the step computes.
    assert stats["released_early"] > 0
    assert stats["peak_live"] < stats["computed"]
    assert stats["pointwise_grads"] > 0
    assert compiled.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("form", ["fused", "user"])
def test_layers_replay_with_their_products_bitwise(form: str) -> None:
    # Products large enough that MatMul computes them as two row halves: the
    # bias add and activation of each layer run on each half as it is computed,
    # and so does the activation's gradient mask after the backward product.
    g = only_graph(_compiled_steps_match_eager(form, (64, 96, 80, 32)))
    # Hidden layer, logits layer, and `d @ w1^T` with relu's mask.
    assert g.plan_stats["product_chains"] == 3, g.op_names
    assert "Maximum" not in g.op_names and "Relu" not in g.op_names
    # `v.assign_sub(0.1 * g)` of each weight runs with the product making `g`
    # (SGD with momentum has no such form).
    assert g.plan_stats["product_updates"] == (2 if form == "user" else 0)
    assert g.update_stats["with_products"] == g.plan_stats["product_updates"]


def test_plain_sgd_updates_run_with_their_gradient_products() -> None:
    # SGD without momentum updates `v - g * lr`: each weight's gradient
    # product is folded into the weight half by half, with eager's bits, and
    # the weight is written in place.
    compiled = _compiled_steps_match_eager("fused", (64, 96, 80, 32), momentum=0.0)
    g = only_graph(compiled)
    assert g.plan_stats["product_updates"] == 2, g.op_names
    # The two weight gradients were the only products not in a chain.
    assert "MatMul" not in g.op_names and g.plan_stats["product_chains"] == 3
    # Both weights' updates computed their products as they wrote (the biases'
    # updates read reduce_sum's gradients), all four on the variables' buffers.
    assert g.update_stats == {"in_place": 4, "copied": 0, "with_products": 2}


def test_calls_of_tensors_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    @tf.function
    def f(x: Any) -> Any:
        with tf.GradientTape() as t:
            t.watch(x)
            y = x * x
        return t.gradient(y, x)

    x = tf.constant(3.0)
    assert float(f(x)) == 6.0
    assert f._fast is not None

    # Engaged: no signature is computed in Python for a matching call.
    def no_signature(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the fast path computed a signature")

    with monkeypatch.context() as m:
        m.setattr(_function, "_Inputs", no_signature)
        # Nor does any Python frame of the function run: the call stays in Rust.
        m.setattr(_function.Function, "_call_slow", no_signature)
        for v in (4.0, -2.5):
            assert float(f(tf.constant(v))) == 2 * v
    # Counted for the retracing detector, which the next slow call tells.
    assert f._untraced_fast_calls == 2
    # Calls the fast path does not fit take the general path: another shape
    # traces again; a numpy array of the traced shape and dtype reuses the graph.
    assert f(tf.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
    assert f.experimental_get_tracing_count() == 2
    assert float(f(np.array(1.5, np.float32))) == 3.0
    assert float(f(tf.constant(5.0))) == 10.0
    assert f.experimental_get_tracing_count() == 2


def test_fast_path_respects_guards_and_structures() -> None:
    traces: list[int] = []

    @tf.function
    def f(x: Any, y: Any) -> Any:
        traces.append(1)
        # A value read into Python: a guard.
        if float(tf.reduce_sum(x)) > 0:
            return {"out": x + y, "n": 1}
        return {"out": x - y, "n": 2}

    one, two = tf.constant([1.0, 2.0]), tf.constant([10.0, 20.0])
    assert f(one, two)["out"].numpy().tolist() == [11.0, 22.0]
    r = f(one, two)
    assert r["out"].numpy().tolist() == [11.0, 22.0] and r["n"] == 1
    assert len(traces) == 1
    # The guard fails on the fast path: the call traces again, as on the general path.
    r = f(-one, two)
    assert r["out"].numpy().tolist() == [-11.0, -22.0] and r["n"] == 2
    assert len(traces) == 2


def test_fast_path_errors_leave_variables_untouched() -> None:
    v = tf.Variable(10, dtype=tf.int64)

    @tf.function
    def step(d: Any) -> Any:
        v.assign_sub(1)
        return tf.math.floordiv(v.read_value(), d)

    assert int(step(tf.constant(3, dtype=tf.int64))) == 3
    assert step._fast is not None
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        step(tf.constant(0, dtype=tf.int64))
    assert int(v.numpy()) == 9
    assert int(step(tf.constant(2, dtype=tf.int64))) == 4
    assert int(v.numpy()) == 8 and step.experimental_get_tracing_count() == 1


def test_maximum_as_relu_replays_its_gradient_in_one_pass() -> None:
    # `tf.maximum(z, 0.0)`, the relu TF users write: its gradient is one
    # chunk-kernel pass (a PointwiseGrad node), not a comparison, a select and
    # a zeros tensor; the compiled values are eager's bits.
    w = tf.Variable(np.random.default_rng(3).normal(size=(6, 5)).astype(np.float32))

    def step(x: Any) -> Any:
        with tf.GradientTape() as t:
            y = tf.reduce_sum(tf.maximum(x @ w, 0.0) * 3.0)
        return y, t.gradient(y, w)

    f = tf.function(step)
    x = tf.constant(np.random.default_rng(4).normal(size=(4, 6)).astype(np.float32))
    for a, b in zip(step(x), f(x)):
        assert bits(a.numpy()) == bits(b.numpy())
    names = only_graph(f).op_names
    assert "PointwiseGrad" in names
    assert "GreaterEqual" not in names and "SelectV2" not in names


def test_ops_on_small_constants_fold_when_the_graph_is_built() -> None:
    # `x * (sqrt(cast(d)) + 2 * 3)`: the constant arithmetic runs once, at
    # build time, with the ops' own kernels; the replay runs only the Mul, and
    # its bits are eager's.
    d = tf.constant(64)

    def scaled(x: Any) -> Any:
        k = tf.sqrt(tf.cast(d, tf.float32)) + tf.constant(2.0) * 3.0
        return x * k, k

    f = tf.function(scaled)
    x = tf.constant(np.random.default_rng(5).normal(size=(3, 4)).astype(np.float32))
    for _ in range(2):
        for a, b in zip(scaled(x), f(x)):
            assert bits(a.numpy()) == bits(b.numpy())
    g = only_graph(f)
    assert g.op_names == ["Mul"]
    # Cast, Sqrt, the Identity `tf.constant` records inside a trace, Mul, AddV2.
    assert g.plan_stats["folded"] == 5


def test_random_draws_and_large_constants_do_not_fold() -> None:
    # A draw gives new values at each replay; an op on a captured tensor of
    # more than 1024 elements runs at each replay (as TensorFlow's captures).
    big = tf.constant(np.arange(2048, dtype=np.float32))
    gen = tf.random.Generator.from_seed(1)

    def f() -> Any:
        return tf.reduce_sum(big * 2.0), gen.normal([2]) + tf.constant(1.0)

    c = tf.function(f)
    first = c()
    second = c()
    assert float(first[0]) == float(second[0]) == float(np.sum(np.arange(2048, dtype=np.float32) * 2.0))
    assert not np.array_equal(first[1].numpy(), second[1].numpy())
    g = only_graph(c)
    assert g.plan_stats["folded"] == 1  # the Identity of `tf.constant(1.0)` alone
    assert g.op_names == ["Mul", "Sum", "RandomStandardNormal", "AddV2"]
