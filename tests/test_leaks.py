"""Record-and-gradient cycles keep memory flat (persistent and non-persistent
tapes, nested tapes, exceptions inside `with` blocks)."""

import gc
import os
import statistics
import subprocess
import sys

import numpy as np
import pytest

import tapers as tf

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc (Linux)")


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


# scripts/soak.sh runs 100,000 cycles; the test command a bounded 20,000.
CYCLES = int(os.environ.get("TAPERS_SOAK_CYCLES", "20000"))


def slope(cycle, n: int = CYCLES, windows: int = 5) -> float:
    """Median RSS growth per cycle over `windows` consecutive windows.

    A leak grows RSS in every window; a one-off step (the allocator mapping a
    new arena, after fragmentation left by earlier tests) shows in one window
    only, and the median ignores it.
    """
    for _ in range(2_000):  # warm up allocator pools and caches
        cycle()
    gc.collect()
    per = n // windows
    slopes = []
    for _ in range(windows):
        start = rss_bytes()
        for _ in range(per):
            cycle()
        gc.collect()
        slopes.append((rss_bytes() - start) / per)
    return statistics.median(slopes)


X = tf.constant(np.linspace(-1, 1, 16, dtype=np.float32))
V = tf.Variable(np.ones(16, dtype=np.float32))


def non_persistent():
    with tf.GradientTape() as t:
        t.watch(X)
        y = tf.reduce_sum(tf.tanh(X * V) * X)
    t.gradient(y, [X, V])


def persistent():
    with tf.GradientTape(persistent=True) as t:
        t.watch(X)
        y = tf.reduce_sum(X * X)
    t.gradient(y, X)
    t.gradient(y, X)
    del t


def nested():
    with tf.GradientTape() as outer:
        outer.watch(X)
        with tf.GradientTape() as inner:
            inner.watch(X)
            y = tf.reduce_sum(X * X * X)
        g = inner.gradient(y, X)
    outer.gradient(g, X)


def raising():
    try:
        with tf.GradientTape() as t:
            t.watch(X)
            _ = X * X
            raise KeyError("boom")
    except KeyError:
        pass


@pytest.mark.parametrize("cycle", [non_persistent, persistent, nested, raising], ids=lambda f: f.__name__)
def test_rss_stays_flat(cycle):
    # A real leak of even one small tensor per cycle is > 100 bytes per cycle.
    s = slope(cycle)
    print(f"{cycle.__name__}: {s:.3f} bytes/cycle over {CYCLES} cycles")
    assert s < 16, "memory grows with every cycle"


def _leak_slope() -> float:
    """The measure of a cycle that keeps its 16-float gradient alive."""
    kept = []

    def leaking():
        with tf.GradientTape() as t:
            t.watch(X)
            y = X * X
        kept.append(t.gradient(y, X))  # 16 floats kept per cycle

    return slope(leaking, n=10_000)


def test_the_measure_sees_a_real_leak():
    # In a fresh process: memory that earlier tests freed stays in the
    # allocator's pools, and a small leak fills those first without growing
    # RSS (seen once in a full run: 6 bytes/cycle measured for a real leak).
    code = (
        f"import sys; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r}); "
        "import test_leaks; print(test_leaks._leak_slope())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert float(out.stdout.split()[-1]) > 16


class _Saved:
    """Something a gradient rule keeps alive; weakly referenced to see it freed."""


def _tape_saving(persistent: bool):
    import weakref

    refs = []

    @tf.custom_gradient
    def f(x):
        saved = _Saved()  # only the gradient function holds it
        refs.append(weakref.ref(saved))

        def grad(dy):
            assert saved is not None
            return dy

        return tf.identity(x), grad

    x = tf.constant(2.0)
    tape = tf.GradientTape(persistent=persistent)
    with tape:
        tape.watch(x)
        y = f(x)
    return tape, y, x, refs[0]


def test_a_spent_non_persistent_tape_frees_what_it_saved():
    tape, y, x, ref = _tape_saving(persistent=False)
    gc.collect()
    assert ref() is not None  # held by the tape's recording
    tape.gradient(y, x)
    gc.collect()
    assert ref() is None  # freed when the gradient was taken, tape still alive


def test_del_tape_frees_what_it_saved():
    tape, y, x, ref = _tape_saving(persistent=True)
    tape.gradient(y, x)
    gc.collect()
    assert ref() is not None  # a persistent tape keeps its recording
    del tape
    gc.collect()
    assert ref() is None
