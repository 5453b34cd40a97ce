"""``tapers.function`` on graphs of one-element values: a graph whose every value is a
one-element float of one dtype, made of elementwise ops and pointwise gradient
contributions, replays on numbers instead of tensors (``plan_stats["scalar"]``), with
eager's bits; anything else in the graph (a variable, a reduction, another dtype) keeps
the tensor replay, and a tape recording around the call still sees every op.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import tapers as tf


def only_graph(f: Any) -> Any:
    graphs = [entry.graph for trace in f._traces for entry in trace.graphs.values()]
    assert len(graphs) == 1, graphs
    return graphs[0]


def bits(x: Any) -> bytes:
    return np.asarray(x).tobytes()


def square_grad(x: Any) -> Any:
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
    return t.gradient(y, x)


def mixed(x: Any) -> Any:
    # Python float constants on either side, unary ops with pointwise derivatives,
    # a division and a power by a constant: value and first derivative.
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.tanh(x) * tf.exp(-x * x) + 0.5 / (1.0 + tf.sigmoid(x)) - tf.sqrt(x * x + 2.0)
        y = y + tf.math.log1p(x * x) * 3.0 - tf.sin(x) / tf.cos(x * 0.25)
    return y, t.gradient(y, x)


def second(x: Any) -> Any:
    # Nested tapes: the second derivative of tanh(x) * x, all on numbers.
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.tanh(x) * x
        dy = inner.gradient(y, x)
    return dy, outer.gradient(dy, x)


PROGRAMS: dict[str, Callable[..., Any]] = {"square_grad": square_grad, "mixed": mixed, "second": second}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (1,), (1, 1)])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_one_element_graph_replays_on_numbers_with_eager_bits(name: str, shape: tuple, dtype: Any) -> None:
    fn = PROGRAMS[name]
    f = tf.function(fn)
    rng = np.random.default_rng(3)
    for k in range(4):
        x = tf.constant(np.asarray(rng.uniform(0.2, 1.5), dtype=dtype).reshape(shape))
        want, got = fn(x), f(x)
        want = want if isinstance(want, tuple) else (want,)
        got = got if isinstance(got, tuple) else (got,)
        for a, b in zip(want, got):
            assert (b.shape, b.dtype) == (a.shape, a.dtype)
            assert bits(a.numpy()) == bits(b.numpy()), f"call {k}: eager {a.numpy()!r}, compiled {b.numpy()!r}"
    g = only_graph(f)
    assert g.plan_stats["scalar"] is True, g.op_names
    assert f.experimental_get_tracing_count() == 1


def test_square_graph_is_three_arithmetic_nodes_on_numbers() -> None:
    f = tf.function(square_grad)
    x = tf.constant(3.0)
    assert float(f(x)) == 6.0 and float(f(tf.constant(-2.5))) == -5.0
    g = only_graph(f)
    # The forward product is dead (only the gradient is returned): two products
    # and their sum, run on numbers.
    assert g.op_names == ["Mul", "Mul", "AddV2"]
    assert g.plan_stats["scalar"] is True


def same_or_both_nan(a: Any, b: Any) -> bool:
    """Equal bits, or both NaN: which of two NaN operands an addition returns (so the
    NaN's sign) depends on the operand order the compiler picked for that loop, in
    eager's kernels as in any other code, so NaN payloads are not compared."""
    a, b = np.asarray(a), np.asarray(b)
    return bits(a) == bits(b) or bool(np.all(np.isnan(a) & np.isnan(b)))


def test_nan_and_inf_take_the_same_path_as_eager() -> None:
    f = tf.function(mixed)
    for v in (float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-45):
        x = tf.constant(v)
        for a, b in zip(mixed(x), f(x)):
            assert same_or_both_nan(a.numpy(), b.numpy()), v
    assert only_graph(f).plan_stats["scalar"] is True


def test_graphs_with_other_values_keep_the_tensor_replay() -> None:
    v = tf.Variable(2.0)

    @tf.function
    def reads_variable(x: Any) -> Any:
        return x * v

    @tf.function
    def reduces(x: Any) -> Any:
        return tf.reduce_sum(x * x)

    @tf.function
    def integers(x: Any) -> Any:
        return x * x + 1

    @tf.function
    def two_elements(x: Any) -> Any:
        return x * x

    assert float(reads_variable(tf.constant(3.0))) == 6.0
    v.assign(4.0)
    assert float(reads_variable(tf.constant(3.0))) == 12.0  # read at each call
    assert float(reduces(tf.constant(3.0))) == 9.0
    assert int(integers(tf.constant(3))) == 10
    assert two_elements(tf.constant([1.0, 2.0])).numpy().tolist() == [1.0, 4.0]
    for f in (reads_variable, reduces, integers, two_elements):
        assert only_graph(f).plan_stats["scalar"] is False, f


def test_a_recording_tape_around_the_call_sees_the_ops() -> None:
    # The numbers path runs only when nothing records: under a tape the graph's
    # ops run one by one and are recorded, so the call is differentiable.
    f = tf.function(lambda x: tf.tanh(x) * x + 2.0 * x)
    x = tf.constant(0.7)
    f(x)
    assert only_graph(f).plan_stats["scalar"] is True
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    with tf.GradientTape() as t2:
        t2.watch(x)
        y2 = tf.tanh(x) * x + 2.0 * x
    assert bits(y.numpy()) == bits(y2.numpy())
    assert bits(t.gradient(y, x).numpy()) == bits(t2.gradient(y2, x).numpy())


def test_wrong_input_dtype_retraces_instead_of_misreading() -> None:
    f = tf.function(square_grad)
    assert float(f(tf.constant(3.0))) == 6.0
    got = f(tf.constant(3.0, dtype=tf.float64))
    assert got.dtype == tf.float64 and float(got) == 6.0
    assert f.experimental_get_tracing_count() == 2
