"""Heavy ops release the GIL, including ops that build a big result from small
inputs (`tile`, `broadcast_to`, `pad`, `one_hot`, `gather_nd`).

A second thread counts its wake-ups from short sleeps (each sleep releases the
GIL). The interpreter's switch interval is raised far above any op's length,
so the main thread never hands the GIL over by itself while it runs Python
code or an op that keeps the GIL: the count can move during an op only if the
op released it. Nothing here is timed; the check is whether the count moved.
"""

import sys
import threading
import time

import pytest

import tapers as tf


@pytest.fixture
def counter():
    count = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1
            time.sleep(0.0002)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    try:
        yield count
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(interval)


def other_thread_ran(count, work, tries=5):
    """Whether the counting thread moved while `work` ran, in any of `tries`
    calls (one call can end before the OS schedules the other thread)."""
    for _ in range(tries):
        before = count[0]
        work()
        if count[0] != before:
            return True
    return False


def test_the_count_stands_still_while_the_gil_is_held(counter):
    # The control: a builtin loop of about the ops' length keeps the GIL.
    assert not other_thread_ran(counter, lambda: sum(range(3_000_000)))


small = tf.ones([1000])
matrix = tf.ones([64, 64])
rows = tf.ones([4000, 2000])
indices = tf.range(4000)
pairs = tf.reshape(tf.range(4000), [4000, 1])

BIG_RESULTS = {
    "tile": lambda: tf.tile(small, [8000]),
    "broadcast_to": lambda: tf.broadcast_to(small, [8000, 1000]),
    "pad": lambda: tf.pad(matrix, [[1500, 1500], [1500, 1500]]),
    "one_hot": lambda: tf.one_hot(indices, 2000),
    "gather_nd": lambda: tf.gather_nd(rows, pairs),
}


@pytest.mark.parametrize("op", list(BIG_RESULTS))
def test_big_results_are_built_without_the_gil(counter, op):
    # Many tries: on a loaded machine the OS may not run the counting thread
    # during a few milliseconds-long op; one move in any try is the proof.
    assert other_thread_ran(counter, BIG_RESULTS[op], tries=100)


def test_small_ops_keep_the_gil(counter):
    # Releasing costs more than a small op: it runs holding the GIL.
    x = tf.ones([8, 8])
    assert not other_thread_ran(counter, lambda: [tf.tile(x, [2, 2]) for _ in range(2000)])
