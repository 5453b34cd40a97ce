"""``tapers.function``: which calls trace, what replays, and that replays give eager's bits.

TensorFlow's answers (tracing counts, side effects, the Variable-creation error, output
structures) come from ``tests/data/function_reference.json``, written by
``tests/data/make_function_reference.py``.
"""

from __future__ import annotations

import json
import pathlib
import threading
import time
import warnings
from typing import Any

import numpy as np
import pytest

import tapers as tf
from tapers import _core

REF = json.loads((pathlib.Path(__file__).parent / "data" / "function_reference.json").read_text())


def bits(x: Any) -> bytes:
    return np.asarray(x).tobytes()


def test_retracing_rules_and_side_effects_match_tensorflow() -> None:
    prints: list[str] = []

    @tf.function
    def f(x: Any, k: Any = 1) -> Any:
        prints.append("traced")
        return x * k

    v1 = tf.Variable([1.0, 2.0])
    v2 = tf.Variable([3.0, 4.0])
    calls = {
        "float32 [2]": lambda: f(tf.constant([1.0, 2.0])),
        "float32 [2] other values": lambda: f(tf.constant([5.0, 6.0])),
        "float32 [3]": lambda: f(tf.constant([1.0, 2.0, 3.0])),
        "float64 [2]": lambda: f(tf.constant([1.0, 2.0], dtype=tf.float64)),
        "float32 [2], k=2": lambda: f(tf.constant([1.0, 2.0]), k=2),
        "float32 [2], k=2 again": lambda: f(tf.constant([1.0, 2.0]), k=2),
        "python float 1.0": lambda: f(1.0),
        "python float 2.0": lambda: f(2.0),
        "python float 1.0 again": lambda: f(1.0),
        "variable v1": lambda: f(v1),
        "variable v1 again": lambda: f(v1),
        "variable v2 (same shape and dtype)": lambda: f(v2),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the retracing warning
        for want in REF["retracing"]:
            calls[want["call"]]()
            assert f.experimental_get_tracing_count() == want["tracing_count"], want["call"]
            assert len(prints) == want["prints"], want["call"]
    # Replays computed with the values of this call, not the traced ones.
    np.testing.assert_array_equal(f(tf.constant([7.0, 8.0]), k=2).numpy(), [14.0, 16.0])
    # A Variable argument is an input: v2's replay reads v2.
    np.testing.assert_array_equal(f(v2).numpy(), [3.0, 4.0])


def test_replays_return_nested_structures_as_tensorflow() -> None:
    @tf.function
    def nested(x: Any) -> Any:
        return {"b": (x, x * 2), "a": [x + 1]}

    for v in (1.0, 5.0):
        r = nested(tf.constant(v))
        want = REF["nested"]
        assert list(r.keys()) == want["keys"]
        assert type(r["b"]).__name__ == want["b_type"] and type(r["a"]).__name__ == want["a_type"]
        assert float(r["b"][1]) == 2 * v and float(r["a"][0]) == v + 1
    assert nested.experimental_get_tracing_count() == 1


def _mlp(seed: int) -> list[tf.Variable]:
    rng = np.random.default_rng(seed)
    return [
        tf.Variable(rng.normal(size=(8, 16)).astype(np.float32) * 0.3),
        tf.Variable(np.zeros(16, np.float32)),
        tf.Variable(rng.normal(size=(16, 4)).astype(np.float32) * 0.3),
        tf.Variable(np.zeros(4, np.float32)),
    ]


def _make_step(params: list[tf.Variable], opt: Any) -> Any:
    def step(x: Any, y: Any) -> Any:
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, params[0]) + params[1])
            logits = tf.matmul(h, params[2]) + params[3]
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        grads = tape.gradient(loss, params)
        opt.apply_gradients(zip(grads[:3], params[:3]))
        params[3].assign_sub(0.05 * grads[3])
        return loss, tf.reduce_max(logits)

    return step


def test_training_step_replays_bitwise_equal_to_eager() -> None:
    eager_params, fn_params = _mlp(0), _mlp(0)
    eager_step = _make_step(eager_params, tf.optimizers.SGD(0.1, momentum=0.9))
    fn_opt = tf.optimizers.SGD(0.1, momentum=0.9)
    fn_step = tf.function(_make_step(fn_params, fn_opt))
    rng = np.random.default_rng(1)
    for k in range(5):
        x = tf.constant(rng.normal(size=(32, 8)).astype(np.float32))
        y = tf.constant(rng.integers(0, 4, size=32).astype(np.int64))
        le, me = eager_step(x, y)
        lf, mf = fn_step(x, y)
        assert bits(le) == bits(lf) and bits(me) == bits(mf), f"step {k}"
        for a, b in zip(eager_params, fn_params):
            assert bits(a.numpy()) == bits(b.numpy()), f"variable after step {k}"
    assert fn_step.experimental_get_tracing_count() == 1
    assert int(fn_opt.iterations.numpy()) == 5
    ops = fn_step.get_concrete_function(x, y).op_names
    assert "ApplyGradients" in ops and "AssignSubVariableOp" in ops and "MatMul" in ops


def test_second_derivative_inside_a_function() -> None:
    @tf.function
    def d2(x: Any) -> Any:
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = x * x * x
            dy = inner.gradient(y, x)
        return dy, outer.gradient(dy, x)

    for v in (2.0, 3.0, -1.5):
        dy, dyy = d2(tf.constant(v, dtype=tf.float64))
        assert float(dy) == 3 * v * v and float(dyy) == 6 * v
    assert d2.experimental_get_tracing_count() == 1


def test_variables_may_be_created_on_the_first_trace_only() -> None:
    holder: list[tf.Variable] = []

    @tf.function
    def make(x: Any) -> Any:
        if not holder or x.shape[0] == 3:
            holder.append(tf.Variable(tf.zeros_like(x)))
        holder[-1].assign_add(x)
        return holder[-1].read_value()

    make(tf.constant([1.0, 2.0]))
    make(tf.constant([1.0, 2.0]))
    assert holder[0].numpy().tolist() == REF["variable_first_trace"]["values"]
    want = REF["variable_later_trace"]
    with pytest.raises(ValueError) as info:
        make(tf.constant([1.0, 2.0, 3.0]))
    assert type(info.value).__name__ == want["type"]
    assert str(info.value) in want["message"]


def test_values_read_into_python_are_guards() -> None:
    v = tf.Variable(1.0)
    traces: list[int] = []

    @tf.function
    def f(x: Any) -> Any:
        traces.append(1)
        if v > 0:  # a Python `if` on a tensor: a guard, not an error as in TF
            out = x * 2.0
        else:
            out = -x
        v.assign_sub(1.0)
        return out

    assert float(f(tf.constant(3.0))) == 6.0  # traces with v = 1
    assert float(f(tf.constant(3.0))) == -3.0  # v = 0: the guard fails, traces again
    assert len(traces) == 2
    assert float(f(tf.constant(4.0))) == -4.0  # v = -1: replays the second trace
    assert len(traces) == 2
    assert float(v.numpy()) == -2.0


def test_guards_that_keep_failing_fall_back_to_eager_with_one_warning() -> None:
    v = tf.Variable(0.0)

    @tf.function
    def count(x: Any) -> Any:
        n = float(v.numpy())  # a different value every call
        v.assign_add(1.0)
        return x + n

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = [float(count(tf.constant(0.0))) for _ in range(10)]
    assert results == [float(i) for i in range(10)]
    eager = [w for w in caught if "runs eagerly" in str(w.message)]
    assert len(eager) == 1


def test_print_prints_at_every_call_and_python_print_only_when_tracing_as_tensorflow() -> None:
    want = REF["print_in_function"]
    ns: dict[str, Any] = {"tf": tf}
    exec(compile(want["source"], "<program>", "exec"), ns)
    assert ns["result"] == want["result"]


def test_print_is_a_graph_output_not_a_guard() -> None:
    import contextlib
    import io

    v = tf.Variable(10.0)

    @tf.function
    def step(x: Any) -> Any:
        tf.print("x", x, "v", v)
        v.assign_sub(x)
        return x * 2.0

    err = io.StringIO()
    with contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("error")  # no retracing or eager-fallback warning
        outs = [float(step(tf.constant(float(i)))) for i in range(1, 6)]
    assert outs == [2.0, 4.0, 6.0, 8.0, 10.0]
    assert err.getvalue().splitlines() == ["x 1 v 10", "x 2 v 9", "x 3 v 7", "x 4 v 4", "x 5 v 0"]
    assert step.experimental_get_tracing_count() == 1
    # The four replays took the fast path (no Python `_call_slow`) and printed.
    assert step._untraced_fast_calls == 4
    concrete = step.get_concrete_function(tf.constant(1.0))
    assert concrete.replayable
    assert concrete._entry.graph.num_guards == 0


def test_a_call_whose_guard_fails_prints_once() -> None:
    import contextlib
    import io

    v = tf.Variable(1.0)

    @tf.function
    def f(x: Any) -> Any:
        tf.print("x", x)
        out = x * 2.0 if v > 0 else -x  # a guard on v
        v.assign_sub(1.0)
        return out

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        # v = 1 (trace), 0 (the replay's guard fails: its print is dropped and
        # the new trace prints), -1 (replays the second trace).
        outs = [float(f(tf.constant(x))) for x in (1.0, 2.0, 3.0)]
    assert outs == [2.0, -2.0, -3.0]
    assert err.getvalue().splitlines() == ["x 1", "x 2", "x 3"]


def test_get_concrete_function_traces_without_printing() -> None:
    import contextlib
    import io

    @tf.function
    def f(x: Any) -> Any:
        tf.print("value", x)
        return x + 1.0

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        concrete = f.get_concrete_function(tf.constant(1.0))
        assert err.getvalue() == ""
        assert float(concrete(tf.constant(5.0))) == 6.0
    assert err.getvalue() == "value 5\n"


def test_print_rejects_an_unknown_stream_when_traced_too() -> None:
    @tf.function
    def f(x: Any) -> Any:
        tf.print(x, output_stream="stdout")
        return x

    with pytest.raises(ValueError, match="Unsupported output stream"):
        f(tf.constant(1.0))


def test_run_functions_eagerly_skips_graphs_as_tensorflow() -> None:
    want = REF["run_functions_eagerly"]
    eager_calls: list[bool] = []

    @tf.function
    def sometimes_eager(x: Any) -> Any:
        eager_calls.append(tf.executing_eagerly())
        return x + 1.0

    try:
        tf.config.run_functions_eagerly(True)
        values = [float(sometimes_eager(tf.constant(v))) for v in (1.0, 2.0)]
        flag_on = tf.config.functions_run_eagerly()
        count_on = sometimes_eager.experimental_get_tracing_count()
    finally:
        tf.config.run_functions_eagerly(False)
    values += [float(sometimes_eager(tf.constant(v))) for v in (3.0, 4.0)]
    got = {
        "executing_eagerly": eager_calls,
        "values": values,
        "flag_on": flag_on,
        "flag_off": tf.config.functions_run_eagerly(),
        "tracing_counts": [count_on, sometimes_eager.experimental_get_tracing_count()],
    }
    assert got == want
    # The fast path (a call of tensors alone, Rust's `__call__`) obeys the flag too.
    try:
        tf.config.run_functions_eagerly(True)
        sometimes_eager(tf.constant(5.0))
    finally:
        tf.config.run_functions_eagerly(False)
    assert eager_calls[-1] is True and len(eager_calls) == 4


def test_unreplayable_ops_fall_back_to_eager_naming_the_op() -> None:
    @tf.custom_gradient
    def clipped(x: Any) -> Any:
        def grad(dy: Any) -> Any:
            return tf.clip_by_value(dy, -1.0, 1.0)

        return tf.identity(x * float(np.asarray(x)[0] > 0)), grad

    @tf.function
    def custom(x: Any) -> Any:
        return clipped(x) + 1.0

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a, b = custom(tf.constant([2.0])).numpy(), custom(tf.constant([-2.0])).numpy()
    assert a.tolist() == [3.0] and b.tolist() == [1.0], "each call runs the Python function"
    msgs = [str(w.message) for w in caught if "runs eagerly" in str(w.message)]
    assert len(msgs) == 1 and "CustomGradient" in msgs[0], msgs


def test_a_failed_replay_leaves_variables_untouched() -> None:
    v = tf.Variable(10, dtype=tf.int64)
    w = tf.Variable([1.0, 2.0])

    @tf.function
    def step(d: Any) -> Any:
        v.assign_sub(1)
        w.assign(w * 2.0)
        return tf.math.floordiv(v.read_value(), d)

    assert int(step(tf.constant(3, dtype=tf.int64))) == 3
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        step(tf.constant(0, dtype=tf.int64))
    assert int(v.numpy()) == 9 and w.numpy().tolist() == [2.0, 4.0]
    assert int(step(tf.constant(2, dtype=tf.int64))) == 4
    assert int(v.numpy()) == 8 and w.numpy().tolist() == [4.0, 8.0]
    assert step.experimental_get_tracing_count() == 1


def test_methods_compile_per_instance() -> None:
    class Model:
        def __init__(self, scale: float) -> None:
            self.scale = tf.Variable(scale)

        @tf.function
        def __call__(self, x: Any) -> Any:
            return x * self.scale

    m1, m2 = Model(2.0), Model(3.0)
    x = tf.constant([1.0, 2.0])
    assert m1(x).numpy().tolist() == [2.0, 4.0]
    assert m2(x).numpy().tolist() == [3.0, 6.0]
    m1.scale.assign(5.0)
    assert m1(x).numpy().tolist() == [5.0, 10.0]  # a replay reads the variable's value now
    assert m1.__call__.experimental_get_tracing_count() == 1
    assert m2.__call__.experimental_get_tracing_count() == 1


def test_get_concrete_function_replays_its_signature() -> None:
    traces: list[int] = []

    @tf.function
    def f(x: Any) -> Any:
        traces.append(1)
        return tf.tanh(x) * 2.0

    cf = f.get_concrete_function(tf.constant([0.5, 1.0]))
    assert cf.replayable and "Tanh" in cf.op_names
    x = tf.constant([0.25, -1.0])
    assert bits(cf(x)) == bits(tf.tanh(x) * 2.0)
    assert len(traces) == 1
    with pytest.raises(TypeError):
        cf(tf.constant([1.0, 2.0, 3.0]))


def test_two_threads_replay_at_once() -> None:
    """Replays run with the GIL released: the core counts replays in progress at once."""
    rng = np.random.default_rng(3)

    def make() -> Any:
        w = tf.Variable(rng.normal(size=(192, 192)).astype(np.float32) * 0.05)

        @tf.function
        def heavy(x: Any) -> Any:
            for _ in range(12):
                x = tf.tanh(tf.matmul(x, w))
            return tf.reduce_sum(x)

        return heavy

    fns = [make(), make()]
    x = tf.constant(rng.normal(size=(192, 192)).astype(np.float32))
    for f in fns:
        f(x)  # trace
    _core._replays_at_once(True)
    start = threading.Barrier(2)
    # Each thread replays until two replays have been seen in progress at
    # once (polled without resetting), or a generous deadline passes: a
    # thread the OS deschedules for a while only delays the overlap, while a
    # replay that held the GIL could never overlap another.
    deadline = time.monotonic() + 60

    def loop(f: Any) -> None:
        start.wait()
        n = 0
        while n < 30 or (_core._replays_at_once(False) < 2 and time.monotonic() < deadline):
            f(x)
            n += 1

    threads = [threading.Thread(target=loop, args=(f,)) for f in fns]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert _core._replays_at_once(False) >= 2


_THREADING = """
import tapers as tf
t = tf.config.threading
print(t.get_intra_op_parallelism_threads(), t.get_inter_op_parallelism_threads())
t.set_intra_op_parallelism_threads(1)
t.set_inter_op_parallelism_threads(3)
import numpy as np
x = tf.constant(np.ones(1 << 20, np.float32))
y = tf.exp(x) * 2.0  # big enough to run on the pool
t.set_intra_op_parallelism_threads(1)  # the same count again: accepted, as TF
try:
    t.set_intra_op_parallelism_threads(2)
except RuntimeError as e:
    print("RuntimeError", e)
print(t.get_intra_op_parallelism_threads(), t.get_inter_op_parallelism_threads())
"""


def test_config_threading_sizes_the_pool_before_it_runs_as_tensorflow() -> None:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _THREADING], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [
        "0 0",
        "RuntimeError Intra op parallelism cannot be modified after initialization.",
        "1 3",
    ]
