"""``tapers.cond``/``while_loop``/``switch_case``/``case``, relaxed signatures and random ops in ``tapers.function``.

TensorFlow's answers (values, gradients, tracing counts, the retracing warning) come
from ``tests/data/function_reference.json``, written by
``tests/data/make_function_reference.py``. Compiled results are also compared bit for
bit with the same program run eagerly, and gradients with float64 finite differences.
"""

from __future__ import annotations

import json
import pathlib
import warnings
from typing import Any, Callable

import numpy as np
import pytest

import tapers as tf

REF = json.loads((pathlib.Path(__file__).parent / "data" / "function_reference.json").read_text())


def bits(x: Any) -> bytes:
    return np.asarray(x).tobytes()


def close(a: Any, b: Any) -> None:
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- cond


def _cond_program(w: tf.Variable) -> Callable[[Any], Any]:
    def program(x: Any) -> Any:
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.cond(
                    tf.reduce_sum(x) > 0,
                    lambda: tf.reduce_sum(x * x * x * w),
                    lambda: tf.reduce_sum(tf.sin(x) * w),
                )
            dx, dw = tape.gradient(y, [x, w])
        d2 = outer.gradient(dx, x)
        return y, dx, dw, d2

    return program


def test_cond_values_and_gradients_match_tensorflow_and_eager_bits() -> None:
    w = tf.Variable([1.5, -0.5], dtype=tf.float64)
    program = _cond_program(w)
    compiled = tf.function(program)
    for want in REF["cond"]:
        x = tf.constant(want["x"], dtype=tf.float64)
        got = compiled(x)
        eager = program(x)
        for name, g, e in zip(("y", "dx", "dw", "d2"), got, eager):
            close(g.numpy(), want[name])
            assert bits(g.numpy()) == bits(e.numpy()), name
    # Both signs of the predicate ran from one trace: the choice is made at replay.
    assert compiled.experimental_get_tracing_count() == REF["cond_tracing_count"] == 1
    cf = compiled.get_concrete_function(tf.constant([1.0, 1.0], dtype=tf.float64))
    assert "If" in cf.op_names and cf._entry.graph.num_guards == 0


def test_a_tape_outside_the_function_differentiates_through_a_compiled_cond() -> None:
    w = tf.Variable([1.5, -0.5], dtype=tf.float64)

    def plain(x: Any) -> Any:
        return tf.cond(tf.reduce_sum(x) > 0, lambda: tf.reduce_sum(x * x * x * w), lambda: tf.reduce_sum(tf.sin(x) * w))

    compiled = tf.function(plain)
    for want in REF["cond"]:
        x = tf.constant(want["x"], dtype=tf.float64)
        with tf.GradientTape() as t:
            t.watch(x)
            y = compiled(x)
        with tf.GradientTape() as e:
            e.watch(x)
            ye = plain(x)
        g, ge = t.gradient(y, x), e.gradient(ye, x)
        close(g.numpy(), want["dx_outside"])
        assert bits(g.numpy()) == bits(ge.numpy())


def test_cond_gradient_matches_finite_differences() -> None:
    @tf.function
    def grad(x: Any) -> Any:
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.cond(x[0] < x[1], lambda: tf.reduce_sum(tf.exp(x) * x), lambda: tf.reduce_prod(tf.tanh(x)))
        return y, t.gradient(y, x)

    rng = np.random.default_rng(0)
    for _ in range(4):
        x0 = rng.normal(size=3)
        y, g = grad(tf.constant(x0))
        eps = 1e-6
        fd = []
        for k in range(3):
            d = np.zeros(3)
            d[k] = eps
            fd.append((float(grad(tf.constant(x0 + d))[0]) - float(grad(tf.constant(x0 - d))[0])) / (2 * eps))
        np.testing.assert_allclose(g.numpy(), fd, rtol=1e-6, atol=1e-8)
    assert grad.experimental_get_tracing_count() == 1


def test_cond_structures_eager_and_errors() -> None:
    # Eagerly, TensorFlow's cond is Python control flow: only the chosen branch runs.
    ran: list[str] = []
    out = tf.cond(tf.constant(False), lambda: ran.append("t") or 1.0, lambda: ran.append("f") or {"a": (2.0,)})
    assert ran == ["f"] and out == {"a": (2.0,)}

    @tf.function
    def nested(p: Any, x: Any) -> Any:
        return tf.cond(p, lambda: {"a": (x, x * 2.0)}, lambda: {"a": (-x, x + 1.0)})

    r = nested(tf.constant(True), tf.constant(3.0))
    assert float(r["a"][1]) == 6.0
    r = nested(tf.constant(False), tf.constant(3.0))
    assert float(r["a"][0]) == -3.0 and float(r["a"][1]) == 4.0
    assert nested.experimental_get_tracing_count() == 1

    @tf.function
    def mismatched(p: Any, x: Any) -> Any:
        return tf.cond(p, lambda: (x, x), lambda: x)

    with pytest.raises(ValueError, match="same number, type, and overall structure"):
        mismatched(tf.constant(True), tf.constant(1.0))
    with pytest.raises(TypeError, match="true_fn must be callable"):
        tf.cond(tf.constant(True), 1.0, lambda: 2.0)

    # A branch returning a Variable reads it at each call.
    held = tf.Variable(1.0)

    @tf.function
    def pick(p: Any) -> Any:
        return tf.cond(p, lambda: held, lambda: held * 2.0)

    assert float(pick(tf.constant(True))) == 1.0
    held.assign(5.0)
    assert float(pick(tf.constant(True))) == 5.0 and float(pick(tf.constant(False))) == 10.0
    assert pick.experimental_get_tracing_count() == 1

    v = tf.Variable(0.0)

    @tf.function
    def assigns(p: Any) -> Any:
        return tf.cond(p, lambda: v.assign_add(1.0), lambda: v.read_value())

    with pytest.raises(tf.errors.InvalidArgumentError, match="assigning a Variable inside compiled control flow"):
        assigns(tf.constant(True))


def test_a_failing_branch_at_replay_leaves_variables_untouched() -> None:
    v = tf.Variable(10, dtype=tf.int64)

    @tf.function
    def step(d: Any) -> Any:
        v.assign_sub(1)
        return tf.cond(d > 5, lambda: d * 2, lambda: tf.math.floordiv(v.read_value(), d))

    assert int(step(tf.constant(7, dtype=tf.int64))) == 14
    assert int(step(tf.constant(2, dtype=tf.int64))) == 4
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        step(tf.constant(0, dtype=tf.int64))
    assert int(v.numpy()) == 8
    assert step.experimental_get_tracing_count() == 1


# ---------------------------------------------------------------- while_loop


def test_while_loop_values_and_gradients_match_tensorflow_and_eager_bits() -> None:
    u = tf.Variable(1.1, dtype=tf.float64)
    traced: list[int] = []

    def program(x: Any) -> Any:
        traced.append(1)
        with tf.GradientTape() as tape:
            tape.watch(x)
            i, y = tf.while_loop(lambda i, y: y < 10.0, lambda i, y: (i + 1, y * u + y), (tf.constant(0), x))
        dx, du = tape.gradient(y, [x, u])
        return i, y, dx, du

    compiled = tf.function(program)
    for want in REF["while"]:
        u.assign(want["u"])
        x = tf.constant(want["x"], dtype=tf.float64)
        got = compiled(x)
        eager = program(x)
        assert int(got[0]) == want["i"]
        for name, g, e in zip(("y", "dx", "du"), got[1:], eager[1:]):
            close(g.numpy(), want[name])
            if e is None:
                # No iteration ran: eagerly u was never read (None); a compiled loop
                # gives zeros, as TensorFlow's function does.
                assert want["i"] == 0 and name == "du" and float(g) == 0.0
                continue
            assert bits(g.numpy()) == bits(e.numpy()), name
    assert compiled.experimental_get_tracing_count() == REF["while_tracing_count"] == 1
    assert len(traced) == 1 + len(REF["while"])  # one trace, then the eager runs


def test_while_loop_maximum_iterations_single_var_and_shape_errors() -> None:
    def capped() -> Any:
        return tf.while_loop(
            lambda i, y: i < 100, lambda i, y: (i + 1, y * 2), (tf.constant(0), tf.constant(1)), maximum_iterations=5
        )

    assert [int(v) for v in capped()] == REF["while_max_iter"]
    assert [int(v) for v in tf.function(capped)()] == REF["while_max_iter"]

    @tf.function
    def halve(x: Any) -> Any:
        return tf.while_loop(lambda v: tf.reduce_max(v) > 1.0, lambda v: v / 2.0, x)

    out = halve(tf.constant([8.0, 3.0]))
    assert isinstance(out, tf.Tensor) and out.numpy().tolist() == [1.0, 0.375]
    assert halve(tf.constant([100.0, 1.0])).numpy().tolist() == [0.78125, 0.0078125]
    assert halve.experimental_get_tracing_count() == 1

    @tf.function
    def grows(x: Any) -> Any:
        return tf.while_loop(lambda v: tf.reduce_sum(v) < 5.0, lambda v: tf.concat([v, v], 0), [x])

    with pytest.raises(tf.errors.InvalidArgumentError, match="shape_invariants"):
        grows(tf.constant([1.0]))


def test_while_loop_gradient_matches_finite_differences_and_outer_tape() -> None:
    @tf.function
    def f(x: Any) -> Any:
        _, y = tf.while_loop(lambda k, y: k < 3, lambda k, y: (k + 1, tf.sin(y) * x + y), (0, x))
        return tf.reduce_sum(y)

    rng = np.random.default_rng(1)
    for _ in range(3):
        x0 = rng.normal(size=2)
        x = tf.constant(x0)
        with tf.GradientTape() as t:
            t.watch(x)
            y = f(x)
        g = t.gradient(y, x).numpy()
        eps = 1e-6
        fd = [
            (float(f(tf.constant(x0 + eps * np.eye(2)[k]))) - float(f(tf.constant(x0 - eps * np.eye(2)[k]))))
            / (2 * eps)
            for k in range(2)
        ]
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    assert f.experimental_get_tracing_count() == 1


def test_a_failing_loop_at_replay_leaves_variables_untouched() -> None:
    v = tf.Variable(3, dtype=tf.int64)

    @tf.function
    def step(d: Any) -> Any:
        v.assign_add(1)
        body = lambda k, s: (k + 1, s + tf.math.floordiv(v.read_value(), d))  # noqa: E731
        return tf.while_loop(lambda k, s: k < 3, body, (0, tf.constant(0, tf.int64)))[1]

    assert int(step(tf.constant(2, dtype=tf.int64))) == 6  # v = 4: 3 * (4 // 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        step(tf.constant(0, dtype=tf.int64))
    assert int(v.numpy()) == 4
    assert int(step(tf.constant(5, dtype=tf.int64))) == 3  # v = 5: 3 * (5 // 5)
    assert step.experimental_get_tracing_count() == 1


def test_switch_case_and_case_match_tensorflow() -> None:
    @tf.function
    def switch(i: Any, x: Any) -> Any:
        return tf.switch_case(i, [lambda: x + 1.0, lambda: x * 10.0, lambda: -x])

    got = [float(switch(tf.constant(k), tf.constant(2.0))) for k in (0, 1, 2, 7, -1)]
    assert got == REF["switch_case"]
    assert switch.experimental_get_tracing_count() == 1
    assert [float(tf.switch_case(k, [lambda: 3.0, lambda: 20.0, lambda: -2.0])) for k in (0, 1, 2, 7, -1)] == got

    @tf.function
    def case(x: Any) -> Any:
        return tf.case([(x > 10.0, lambda: x * 0.0), (x > 1.0, lambda: x * 2.0)], default=lambda: -x)

    assert [float(case(tf.constant(v))) for v in (20.0, 5.0, 0.5)] == REF["case"]
    assert case.experimental_get_tracing_count() == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="exclusive"):
        tf.case(
            [(tf.constant(True), lambda: 1.0), (tf.constant(True), lambda: 2.0)], default=lambda: 0.0, exclusive=True
        )


# ---------------------------------------------------------------- relaxed signatures


def test_reduce_retracing_counts_match_tensorflow() -> None:
    traces: list[int] = []

    @tf.function(reduce_retracing=True)
    def relaxed(x: Any) -> Any:
        traces.append(1)
        return x * 2.0

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for want in REF["reduce_retracing"]:
            x = tf.ones(want["shape"], dtype=want["dtype"]) * 1.5
            out = relaxed(x)
            assert out.shape == tuple(want["shape"]) and bits(out.numpy()) == bits((x * 2.0).numpy())
            assert relaxed.experimental_get_tracing_count() == want["tracing_count"], want["call"]


def test_input_signature_traces_once_for_compatible_shapes() -> None:
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def signed(x: Any) -> Any:
        return tf.reduce_mean(x, axis=0) + tf.cast(tf.shape(x)[0], tf.float32)

    for want in REF["input_signature"]["calls"]:
        n = want["rows"]
        x = tf.reshape(tf.range(n * 3, dtype=tf.float32), [n, 3])
        assert signed(x).numpy().tolist() == want["value"]
        assert signed.experimental_get_tracing_count() == want["tracing_count"]
    assert signed(np.ones([2, 3], np.float32)).numpy().tolist() == REF["input_signature"]["numpy input"]
    for name, bad in (("shape [3]", tf.ones([3])), ("float64 [2,3]", tf.ones([2, 3], tf.float64))):
        with pytest.raises(TypeError, match="Binding inputs to tf.function failed"):
            signed(bad)
        assert REF["input_signature"][name]["type"] == "TypeError"
    assert signed.experimental_get_tracing_count() == REF["input_signature"]["tracing_count"]


def test_retracing_warning_has_tensorflows_text_and_timing() -> None:
    @tf.function
    def retraced(x: Any) -> Any:
        return x + 1

    want = REF["retracing_warning"]
    warned = []
    messages = []
    for n in range(1, 13):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            retraced(tf.ones([n]))
        hits = [str(w.message) for w in caught if "retracing" in str(w.message)]
        if hits:
            warned.append(n)
            messages.extend(hits)
    assert warned == want["calls_warned"]
    assert messages[0] == want["message"].replace("{function}", repr(retraced.python_function))


# ---------------------------------------------------------------- random ops


def test_generator_draws_replay_and_advance_as_eager() -> None:
    g1 = tf.random.Generator.from_seed(7)
    g2 = tf.random.Generator.from_seed(7)

    @tf.function
    def noisy(x: Any) -> Any:
        return x + g1.normal([3]), g1.uniform([2], maxval=5, dtype=tf.int64)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no eager fallback
        compiled = [noisy(tf.zeros([3])) for _ in range(4)]
    eager = [(tf.zeros([3]) + g2.normal([3]), g2.uniform([2], maxval=5, dtype=tf.int64)) for _ in range(4)]
    want = REF["random_generator"]
    assert noisy.experimental_get_tracing_count() == want["tracing_count"] == 1
    assert want["equals_eager_sequence"] and want["calls_differ"]
    for (a, b), (c, d) in zip(compiled, eager):
        assert bits(a.numpy()) == bits(c.numpy()) and bits(b.numpy()) == bits(d.numpy())
    assert not np.array_equal(compiled[0][0].numpy(), compiled[1][0].numpy())
    assert "RandomStandardNormal" in noisy.get_concrete_function(tf.zeros([3])).op_names


def test_global_random_ops_and_dropout_draw_anew_at_each_replay() -> None:
    tf.random.set_seed(3)

    @tf.function
    def noisy(x: Any) -> Any:
        return x + tf.random.normal([4]), tf.nn.dropout(tf.ones([64]), rate=0.5)

    first = [noisy(tf.zeros([4])) for _ in range(3)]
    assert noisy.experimental_get_tracing_count() == 1
    assert not np.array_equal(first[0][0].numpy(), first[1][0].numpy())
    assert not np.array_equal(first[0][1].numpy(), first[1][1].numpy())
    # With the global seed set again, a new function draws the same sequence.
    tf.random.set_seed(3)
    again = tf.function(noisy.python_function)
    for (a, b), (c, d) in zip(first, [again(tf.zeros([4])) for _ in range(3)]):
        assert bits(a.numpy()) == bits(c.numpy()) and bits(b.numpy()) == bits(d.numpy())
