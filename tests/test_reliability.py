"""Misuse and hostile inputs: NaN/Inf, allocations too large for memory,
Ctrl-C during a long backward pass. Each must give a value or a clear Python
exception and leave what was recorded intact (issue: reliability)."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tapers as tf

NAN, INF = float("nan"), float("inf")
SPECIALS = np.array([NAN, INF, -INF, 0.0, 1.5, -2.0])


def same(a, b):
    """Equal to float32 rounding, with NaN equal to NaN and infinities exact."""
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "name,fn,ref,dref",
    [
        ("add", lambda x: x + x, lambda v: v + v, lambda v: np.full_like(v, 2)),
        ("mul", lambda x: x * x, lambda v: v * v, lambda v: v + v),
        ("exp", tf.exp, np.exp, np.exp),
        ("tanh", tf.tanh, np.tanh, lambda v: 1 - np.tanh(v) ** 2),
        ("abs", tf.abs, np.abs, np.sign),
        ("neg", lambda x: -x, np.negative, lambda v: np.full_like(v, -1)),
        ("square", tf.square, np.square, lambda v: 2 * v),
    ],
)
def test_nan_and_inf_propagate_through_values_and_gradients(name, fn, ref, dref, dtype):
    v = SPECIALS.astype(dtype)
    x = tf.constant(v)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    with np.errstate(all="ignore"):
        same(y.numpy(), ref(v).astype(dtype))
    g = tape.gradient(y, x).numpy()
    assert g.shape == v.shape and g.dtype == dtype
    with np.errstate(all="ignore"):
        same(g, dref(v).astype(dtype))


def test_nan_in_reductions_and_softmax():
    x = tf.constant([1.0, NAN, 3.0])
    assert np.isnan(tf.reduce_sum(x).numpy())
    assert np.isnan(tf.reduce_max(x).numpy())
    assert np.isnan(tf.reduce_mean(x).numpy())
    assert np.isnan(tf.nn.softmax(x).numpy()).all()
    y = tf.constant([1.0, INF, 3.0])
    assert tf.reduce_max(y).numpy() == INF
    with tf.GradientTape() as tape:
        tape.watch(y)
        s = tf.reduce_sum(tf.exp(-y))
    same(tape.gradient(s, y).numpy(), -np.exp(-np.array([1.0, INF, 3.0], np.float32)))


def test_nan_gradients_through_matmul_and_log():
    a = tf.constant([[NAN, 1.0], [2.0, 3.0]])
    b = tf.constant([[1.0, 0.0], [0.0, 1.0]])
    with tf.GradientTape() as tape:
        tape.watch(b)
        y = tf.reduce_sum(tf.linalg.matmul(a, b))
    g = tape.gradient(y, b).numpy()
    assert np.isnan(g[0]).all() and np.isfinite(g[1]).all()
    x = tf.constant([0.0, -1.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.log(x)
    same(y.numpy(), np.array([-INF, NAN], np.float32))
    same(tape.gradient(y, x).numpy(), np.array([INF, -1.0], np.float32))


# 2**46 float32 elements is 256 TiB: beyond any address space, so the request
# fails whatever the machine's overcommit policy.
HUGE = 1 << 46


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: tf.zeros([HUGE]), id="zeros"),
        pytest.param(lambda: tf.ones([1 << 23, 1 << 23]), id="ones"),
        pytest.param(lambda: tf.fill([HUGE], 1.0), id="fill"),
        pytest.param(lambda: tf.broadcast_to(tf.constant(1.0), [HUGE]), id="broadcast_to"),
        pytest.param(lambda: tf.tile(tf.constant([1.0]), [HUGE]), id="tile"),
        pytest.param(lambda: tf.pad(tf.constant([1.0]), [[HUGE, 0]]), id="pad"),
        pytest.param(lambda: tf.one_hot(tf.constant([0, 1]), HUGE), id="one_hot"),
        pytest.param(lambda: tf.range(0.0, float(HUGE)), id="range"),
        pytest.param(lambda: tf.random.normal([HUGE], seed=1), id="random"),
    ],
)
def test_huge_allocations_raise_resource_exhausted(make):
    with pytest.raises(tf.errors.ResourceExhaustedError, match="OOM when allocating tensor") as info:
        make()
    assert isinstance(info.value, MemoryError)


def test_shapes_beyond_int64_elements_are_invalid_as_in_tensorflow():
    # More than 2**63 - 1 elements is a bad shape, not a large allocation (TF's Fill says so).
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"would have more than 2\*\*63 - 1 elements"):
        tf.zeros([1 << 62, 1 << 62])


def test_huge_results_of_small_inputs_raise_and_leave_the_tape_intact():
    # Outer products: 8 MiB inputs, a 256 TiB result.
    col = tf.ones([1 << 23, 1])
    row = tf.ones([1, 1 << 23])
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        with pytest.raises(MemoryError, match=r"shape \[8388608,8388608\]"):
            tf.linalg.matmul(col, row)
        with pytest.raises(MemoryError):
            _ = col + row
        with pytest.raises(MemoryError):
            tf.gather(tf.ones([1, 1 << 23]), tf.zeros([1 << 23], dtype=tf.int32))
    assert tape.gradient(y, x).numpy() == 4.0


# Ctrl-C sent by a custom gradient's own rule, so that it lands at a chosen
# point of the pass: each scenario prints whether `gradient` raised
# KeyboardInterrupt, how many rules ran, and what a second `gradient` gives
# (2.0 when the first spent nothing). Rules run on a worker thread when the
# pass is long (>= 4096 ops), on the main thread otherwise.
INTERRUPT_SCRIPT = textwrap.dedent(
    """
    import os, signal, threading, time
    import tapers as tf

    handled = threading.Event()

    def on_sigint(signum, frame):
        handled.set()
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)

    def scenario(name, ops, at, wait=False, nested=False, fail=False):
        # `ops` custom-gradient ops (2 * ops + 1 on the tape with their
        # identities); the `at`-th rule the pass runs sends SIGINT (at == ops:
        # the pass's last rule) and, with `wait`, returns (or with `fail`,
        # raises) only once the main thread has run the handler. Rules after
        # it are slow: a pass that ignored Ctrl-C would run for seconds.
        ran = [0]

        @tf.custom_gradient
        def step(x):
            def grad(dy):
                ran[0] += 1
                if ran[0] == at:
                    os.kill(os.getpid(), signal.SIGINT)
                    if wait:
                        handled.wait(60)
                    if fail:
                        raise ValueError("rule failed")
                elif ran[0] > at:
                    time.sleep(0.001)
                return dy

            return tf.identity(x), grad

        x = tf.constant(3.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            early = x * 2.0
            y = x
            for _ in range(ops):
                y = step(y)
        handled.clear()
        try:
            if nested:
                tape.gradient({"y": [y]}, (x,))
            else:
                tape.gradient(y, x)
            outcome = "not-interrupted"
        except KeyboardInterrupt as e:
            outcome = "interrupted"
            if e.__context__ is not None:
                outcome += ":" + type(e.__context__).__name__
        except Exception as e:
            outcome = type(e).__name__
        try:
            again = float(tape.gradient(early, x))
        except Exception as e:
            again = f"{type(e).__name__}: {e}"
        print(name, outcome, f"{ran[0]}/{ops}", again, flush=True)

    LONG = 3000
    # Worker thread: the main thread sees the signal mid-pass and cancels.
    scenario("worker-mid", LONG, 10, wait=True)
    # Worker thread, at the last rule: the pass finishes after the main
    # thread saw the interrupt ...
    scenario("worker-last-seen", LONG, LONG, wait=True)
    # ... or before it looked: the last signal check comes after the pass.
    scenario("worker-last", LONG, LONG)
    # The same through the structure path (Python packs the result).
    scenario("worker-last-nested", LONG, LONG, nested=True)
    # A pass that fails after the main thread saw the interrupt: the
    # interrupt is raised, with the failure as its context.
    scenario("worker-failed", LONG, 10, wait=True, fail=True)
    # Main thread (a short pass, with or without the GIL released): the
    # KeyboardInterrupt is raised inside the custom gradient's Python code.
    scenario("main-small", 4, 4)
    scenario("main-detached", 100, 100)
    """
)


def test_keyboard_interrupt_at_any_rule_stops_the_pass_and_keeps_the_tape():
    # In a subprocess: a stray SIGINT must never reach the test runner.
    r = subprocess.run([sys.executable, "-c", INTERRUPT_SCRIPT], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    results = {}
    for line in r.stdout.splitlines():
        name, outcome, ran, again = line.split(" ", 3)
        done, total = map(int, ran.split("/"))
        results[name] = (outcome, done, total, again)
    assert list(results) == [
        "worker-mid",
        "worker-last-seen",
        "worker-last",
        "worker-last-nested",
        "worker-failed",
        "main-small",
        "main-detached",
    ], r.stdout
    for name, (outcome, done, total, again) in results.items():
        # Interrupted, and nothing was spent: the tape still differentiates.
        interrupted = "interrupted:ValueError" if name == "worker-failed" else "interrupted"
        assert (outcome, again) == (interrupted, "2.0"), (name, r.stdout)
        if name == "worker-failed":
            assert done == 10, r.stdout
        elif name == "worker-mid":
            # Stopped: not all of the 2,990 slow rules after the signal ran.
            assert done < total, r.stdout
        else:
            # The signal came at the pass's last rule, after all the others.
            assert done == total, (name, r.stdout)
