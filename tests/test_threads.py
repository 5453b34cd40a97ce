"""Threads: each thread records on its own tapes; shared variables stay consistent."""

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import tapers as tf


def test_tapes_record_only_their_own_thread():
    x = tf.constant(2.0)
    ready, done = threading.Event(), threading.Event()
    other = {}

    def worker():
        ready.wait()
        other["y"] = x * x  # not recorded: the tape is active on the main thread only
        done.set()

    th = threading.Thread(target=worker)
    th.start()
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        ready.set()
        done.wait()
        mine = x * 3
    th.join()
    assert t.gradient(other["y"], x) is None
    assert t.gradient(mine, x).numpy() == 3.0


def test_concurrent_training_loops_get_exact_gradients():
    def loop(seed):
        rng = np.random.default_rng(seed)
        w = tf.Variable(rng.normal(size=(8, 4)))
        x = tf.constant(rng.normal(size=(16, 8)))
        out = []
        for _ in range(50):
            with tf.GradientTape() as t:
                loss = tf.reduce_sum(tf.tanh(x @ w))
            g = t.gradient(loss, w)
            expected = x.numpy().T @ (1 - np.tanh(x.numpy() @ w.numpy()) ** 2)
            out.append(np.max(np.abs(g.numpy() - expected)))
            w.assign_sub(0.01 * g)
        return max(out)

    with ThreadPoolExecutor(4) as ex:
        errs = list(ex.map(loop, range(8)))
    assert max(errs) < 1e-10


def test_shared_variable_updates_are_atomic():
    v = tf.Variable(tf.zeros([64], dtype=tf.float64))
    one = tf.ones([64], dtype=tf.float64)

    def bump(_):
        for _ in range(500):
            v.assign_add(one)

    with ThreadPoolExecutor(8) as ex:
        list(ex.map(bump, range(8)))
    assert v.numpy().tolist() == [4000.0] * 64


def test_reads_never_tear_while_another_thread_assigns():
    v = tf.Variable(tf.zeros([4096]))
    a, b = tf.zeros([4096]), tf.ones([4096])
    stop = threading.Event()
    bad = []

    def writer():
        i = 0
        while not stop.is_set():
            v.assign(a if i % 2 else b)
            i += 1

    def reader():
        for _ in range(2000):
            arr = v.numpy()
            if arr.min() != arr.max():
                bad.append(arr)

    w = threading.Thread(target=writer)
    w.start()
    reader()
    stop.set()
    w.join()
    assert not bad


def test_a_tape_object_can_be_shared_between_threads():
    x = tf.constant(3.0)
    t = tf.GradientTape(persistent=True)
    results = {}

    def record():
        with t:
            t.watch(x)
            results["y"] = x * x

    th = threading.Thread(target=record)
    th.start()
    th.join()
    assert t.gradient(results["y"], x).numpy() == 6.0


def test_a_tape_entered_on_one_thread_can_be_exited_on_another():
    x = tf.constant(3.0)
    t = tf.GradientTape(persistent=True)
    t.__enter__()
    t.watch(x)
    y = x * x
    th = threading.Thread(target=t.__exit__, args=(None, None, None))
    th.start()
    th.join()
    z = x * 5  # after the exit: not recorded, although this thread entered the tape
    assert t.gradient(y, x).numpy() == 6.0
    assert t.gradient(z, x) is None
    with t:  # and it can be entered again here
        w = x * 7
    assert t.gradient(w, x).numpy() == 7.0
