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
        pytest.param(lambda: tf.zeros([1 << 62, 1 << 62]), id="overflowing-shape"),
    ],
)
def test_huge_allocations_raise_resource_exhausted(make):
    with pytest.raises(tf.errors.ResourceExhaustedError, match="OOM when allocating tensor") as info:
        make()
    assert isinstance(info.value, MemoryError)


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


INTERRUPT_SCRIPT = textwrap.dedent(
    """
    import os, signal, threading, time
    import tapers as tf

    @tf.custom_gradient
    def slow(x):
        def grad(dy):
            time.sleep(0.005)
            return dy
        return tf.identity(x), grad

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        early = x * 2.0
        y = x
        for _ in range(5000):  # ~25 s of backward pass
            y = slow(y)
    threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    start = time.perf_counter()
    try:
        tape.gradient(y, x)
        print("NOT INTERRUPTED")
    except KeyboardInterrupt:
        print(f"INTERRUPTED after {time.perf_counter() - start:.2f}s")
    # Nothing was spent: the tape still differentiates.
    print("GRAD", float(tape.gradient(early, x)))
    """
)


def test_keyboard_interrupt_stops_a_long_backward_pass_and_keeps_the_tape():
    # In a subprocess: a stray SIGINT must never reach the test runner.
    r = subprocess.run([sys.executable, "-c", INTERRUPT_SCRIPT], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split("\n")
    assert lines[0].startswith("INTERRUPTED"), r.stdout
    assert float(lines[0].split()[-1].rstrip("s")) < 5.0
    assert lines[1] == "GRAD 2.0"
