"""Forward elementwise fusion under ``tapers.function``.

Chains of large same-shape elementwise ops (with Python float constants and other
broadcast scalars), the ``reduce_sum`` that ends them and the fused backward region
that reads them replay as one chunked loop. Each test checks that the pass engaged
(the graph's ``fusion_stats``) and that every replayed value and gradient equals
eager execution bit for bit; an op with no fused kernel in the middle of a chain
splits it, and the parts around it still fuse.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import tapers as tf

N = 70_000  # above the backward's fusion threshold (65,536 elements)


def only_graph(f: Any) -> Any:
    """The one graph a compiled function traced (one signature, one shape)."""
    graphs = [entry.graph for trace in f._traces for entry in trace.graphs.values()]
    assert len(graphs) == 1, graphs
    return graphs[0]


def bits(x: Any) -> bytes:
    return np.asarray(x).tobytes()


def same_as_eager(fn: Callable[..., Any], shapes: list[tuple[int, ...]], dtype: Any) -> Any:
    """Runs ``fn`` eagerly and compiled on three sets of inputs; returns the graph."""
    f = tf.function(fn)
    rng = np.random.default_rng(0)
    for call in range(3):
        args = [tf.constant(rng.normal(size=s).astype(dtype)) for s in shapes]
        want, got = fn(*args), f(*args)
        assert len(want) == len(got)
        for k, (a, b) in enumerate(zip(want, got)):
            assert a.dtype == b.dtype and a.shape == b.shape, (call, k)
            assert bits(a.numpy()) == bits(b.numpy()), f"call {call}, output {k} differs from eager"
    assert f.experimental_get_tracing_count() == 1
    return only_graph(f)


def with_grad(loss: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """The step computing ``loss(x)`` under a tape and its gradient for ``x``."""

    def step(x: Any) -> Any:
        with tf.GradientTape() as t:
            t.watch(x)
            y = loss(x)
        return y, t.gradient(y, x)

    step.__name__ = loss.__name__
    return step


@with_grad
def value_and_grad(x: Any) -> Any:
    return tf.reduce_sum(tf.tanh(x) * tf.exp(-x * x) + x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_value_and_gradient_replay_as_one_loop(dtype: Any) -> None:
    g = same_as_eager(value_and_grad, [(N,)], dtype)
    assert g.op_names == ["FusedElementwise"]
    s = g.fusion_stats
    # Tanh, Neg, Mul, Exp, Mul, AddV2, Sum and the fused backward region.
    assert (s["loops"], s["ops"], s["sums"], s["joined_backward"]) == (1, 8, 1, 1), s
    assert s["not_materialized"] == 6, s
    assert s["streamed"] == 0, s


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_outputs_far_larger_than_the_caches_stream_with_eager_bits(dtype: Any) -> None:
    # 8 MiB and more: the gradient goes to memory with non-temporal stores,
    # the same bits as eager's (whose fused backward streams it too).
    n = (8 << 20) // np.dtype(dtype).itemsize + 37
    g = same_as_eager(value_and_grad, [(n,)], dtype)
    s = g.fusion_stats
    assert (s["loops"], s["streamed"]) == (1, 1), s
    g = same_as_eager(mixed, [(n,), (n,)], dtype)
    assert g.fusion_stats["streamed"] == 1, g.fusion_stats


@with_grad
def mean_loss(x: Any) -> Any:
    # reduce_mean: the sum divided by the count, a scalar op between the
    # loop's sum and the backward region recorded after it.
    return tf.reduce_mean(tf.tanh(x) * tf.exp(-x * x) + x)


@with_grad
def halved_sum_loss(x: Any) -> Any:
    # A loss divided by a Python float after the sum.
    return tf.reduce_sum(tf.square(x - 1.0)) / 2.0


@with_grad
def half_mse_loss(x: Any) -> Any:
    # The classic 0.5 * mean squared error: the scale's gradient reaches the
    # division's, whose gradient for the numerator (g / count) does not read
    # the sum, so it is a constant and the backward still joins the loop.
    return 0.5 * tf.reduce_mean(tf.square(x - 1.0))


@with_grad
def scaled_mean_loss(x: Any) -> Any:
    return tf.reduce_mean(tf.tanh(x) * tf.exp(-x * x) + x) * 0.25


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn", [mean_loss, halved_sum_loss, half_mse_loss, scaled_mean_loss])
def test_scalar_ops_on_the_sums_do_not_keep_the_backward_out_of_the_loop(fn: Any, dtype: Any) -> None:
    # The scalar ops move after the loop: the loop computes the sums and the
    # gradient in one pass, as for a bare reduce_sum, and nothing it computes
    # besides the gradient is written to memory.
    g = same_as_eager(fn, [(N,)], dtype)
    assert g.op_names[0] == "FusedElementwise" and "FusedElementwiseGrad" not in g.op_names, g.op_names
    s = g.fusion_stats
    assert (s["loops"], s["sums"], s["joined_backward"]) == (1, 1, 1), s
    assert set(g.op_names[1:]) <= {"RealDiv", "Mul"}, g.op_names


@with_grad
def l2_penalty(x: Any) -> Any:
    # The backward region of x * x reads only the loop's input x.
    return tf.reduce_sum(x * x)


@with_grad
def two_terms(x: Any) -> Any:
    # Two sums over the same input, each with its backward region.
    return tf.reduce_sum(tf.square(x - 1.0)) + 1e-3 * tf.reduce_sum(x * x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn, regions", [(l2_penalty, 1), (two_terms, 2)])
def test_a_region_reading_only_the_loops_input_joins_the_loop(fn: Any, regions: int, dtype: Any) -> None:
    # x is read from memory once: one loop computes every sum and gradient.
    g = same_as_eager(fn, [(N,)], dtype)
    s = g.fusion_stats
    assert (s["loops"], s["joined_backward"]) == (1, regions), s
    assert "FusedElementwiseGrad" not in g.op_names, g.op_names


@with_grad
def log_of_sum(x: Any) -> Any:
    # The backward's seed is 1 / sum: it needs the finished sum, so the
    # backward cannot run in the sum's loop (two passes, both still fused).
    return tf.math.log(tf.reduce_sum(tf.exp(-x * x)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_backward_that_needs_the_sum_runs_after_its_loop(dtype: Any) -> None:
    g = same_as_eager(log_of_sum, [(N,)], dtype)
    s = g.fusion_stats
    assert s["loops"] == 1 and s["joined_backward"] == 0 and s["sums"] == 1, s
    assert g.op_names.index("FusedElementwise") < g.op_names.index("Log"), g.op_names


def mixed(x: Any, w: Any) -> Any:
    with tf.GradientTape() as t:
        t.watch(x)
        t.watch(w)
        a = tf.sigmoid(x * 0.5)
        b = a * w - 1.25
        c = tf.square(b) + tf.nn.relu(w - x)
        e = tf.sqrt(tf.exp(-c) + 1.0)
        y = tf.reduce_sum(e / (a + 2.0))
    gx, gw = t.gradient(y, [x, w])
    return y, b, gx, gw


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(N,), (N, 1), (300, 257)])
def test_mixed_programs_with_python_constants_fuse(dtype: Any, shape: tuple[int, ...]) -> None:
    g = same_as_eager(mixed, [shape, shape], dtype)
    s = g.fusion_stats
    assert s["loops"] == 1 and s["joined_backward"] == 1 and s["sums"] == 1, s
    assert s["ops"] >= 15, s
    assert "Sigmoid" not in g.op_names and "FusedElementwise" in g.op_names


def column_times_scalar_variable(x: Any, c: Any) -> Any:
    # A (n, 1) column with a one-element tensor argument broadcast into it.
    y = tf.exp(x * c) - x / (c + 3.0)
    return y * y, tf.reduce_sum(tf.tanh(y))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_broadcast_one_element_arguments_fuse(dtype: Any) -> None:
    g = same_as_eager(column_times_scalar_variable, [(N, 1), ()], dtype)
    s = g.fusion_stats
    # c + 3.0 has one element: computed on its own, broadcast into the loop.
    assert s["loops"] == 1 and s["sums"] == 1, s
    assert s["ops"] == 7, s


def split(x: Any) -> Any:
    a = tf.tanh(x) * x + 3.0
    b = tf.abs(a)  # no fused kernel: the chain splits here
    c = tf.exp(-b) * b
    s = tf.reduce_sum(c)
    d = tf.cumsum(c)  # not elementwise
    return tf.tanh(d * d - x), s


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_non_fusable_op_splits_the_chain_and_both_sides_fuse(dtype: Any) -> None:
    g = same_as_eager(split, [(N,)], dtype)
    assert g.op_names == ["FusedElementwise", "Abs", "FusedElementwise", "Cumsum", "FusedElementwise"]
    s = g.fusion_stats
    assert s["loops"] == 3 and s["sums"] == 1, s


def test_small_tensors_are_not_fused() -> None:
    g = same_as_eager(value_and_grad, [(100,)], np.float32)
    assert g.fusion_stats["loops"] == 0
    assert "Tanh" in g.op_names
