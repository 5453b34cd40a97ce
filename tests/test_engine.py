"""The engine under load: the parallel scheduler, determinism across thread
counts, Python callbacks on worker threads, long chains, and a concurrency
stress test."""

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np

import tapers as tf

BIG = 1 << 18  # with the ops below, enough work for the parallel scheduler


def test_results_are_bitwise_identical_with_one_or_two_rayon_threads():
    code = textwrap.dedent(
        f"""
        import numpy as np, tapers as tf, hashlib
        x = tf.constant(np.random.default_rng(0).normal(size={BIG}).astype(np.float32))
        with tf.GradientTape() as t:
            t.watch(x)
            parts = [tf.tanh(x * (0.1 * k)) * tf.exp(-x * x) for k in range(1, 9)]
            y = tf.reduce_sum(tf.add_n(parts) if hasattr(tf, "add_n") else sum(parts[1:], parts[0]))
        g = t.gradient(y, x).numpy()
        # A full sum heading a fused region, and a tiled transposed copy.
        with tf.GradientTape() as t:
            t.watch(x)
            y2 = tf.reduce_mean(tf.tanh(x) * tf.exp(-x * x) + x)
        g2 = t.gradient(y2, x).numpy()
        m = tf.transpose(tf.reshape(x[: 512 * 300], [512, 300])).numpy()
        # A weight gradient's product (transposed left operand, split by rows).
        wg = tf.linalg.matmul(tf.reshape(x[: 128 * 784], [128, 784]), tf.reshape(x[: 128 * 256], [128, 256]),
                              transpose_a=True).numpy()
        # A layer's product (two row halves, the top one on this thread), ten
        # times: each must give the same bits, whichever thread took the bottom.
        xs, ws = tf.reshape(x[: 128 * 784], [128, 784]), tf.reshape(x[-784 * 256 :], [784, 256])
        layer = {{hashlib.sha256(tf.linalg.matmul(xs, ws).numpy().tobytes()).hexdigest() for _ in range(10)}}
        assert len(layer) == 1, layer
        print(*(hashlib.sha256(a.tobytes()).hexdigest() for a in (g, y.numpy(), g2, m, wg)), *layer)
        """
    )
    outs = set()
    for threads in ("1", "2", "4"):
        env = {"RAYON_NUM_THREADS": threads, "PATH": "/usr/bin:/bin"}
        if "PYTHONPATH" in os.environ:  # a source checkout rather than an installed package
            env["PYTHONPATH"] = os.path.abspath(os.environ["PYTHONPATH"])
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
        outs.add(r.stdout)
    assert len(outs) == 1, outs


def test_python_custom_gradient_on_worker_threads_does_not_deadlock():
    calls = []

    @tf.custom_gradient
    def scaled(x):
        def grad(dy):
            calls.append(threading.get_ident())
            return dy * 3.0

        return x * 1.0, grad

    x = tf.constant(np.ones(BIG, dtype=np.float32))
    with tf.GradientTape() as t:
        t.watch(x)
        branches = [scaled(tf.tanh(x * float(k))) for k in range(1, 9)]
        total = branches[0]
        for b in branches[1:]:
            total = total + b
        y = tf.reduce_sum(total)
    g = t.gradient(y, x).numpy()
    expected = sum(3.0 * k * (1 - np.tanh(np.float32(k)) ** 2) for k in range(1, 9))
    np.testing.assert_allclose(g[:4], expected, rtol=1e-5)
    assert len(calls) == 8


def test_a_long_chain_records_and_differentiates_without_recursion():
    x = tf.constant(1.0)
    c = tf.constant(1.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = x
        for _ in range(200_000):
            y = y * c
    assert t._num_ops() == 200_000
    assert t.gradient(y, x).numpy() == 1.0


def test_stress_8_threads_1000_steps_share_variables():
    w = tf.Variable(np.zeros(4, dtype=np.float32))
    counter = tf.Variable(np.zeros(4, dtype=np.float64))
    errors = []

    def worker(seed):
        try:
            rng = np.random.default_rng(seed)
            own = tf.Variable(rng.normal(size=(4,)).astype(np.float32))
            for _ in range(1000):
                with tf.GradientTape() as t:
                    loss = tf.reduce_sum(own * own + own * w)
                g_own, g_w = t.gradient(loss, [own, w])
                # w stays zero (every thread assigns w * 0), so the gradients are exact.
                if not (np.array_equal(g_own.numpy(), 2 * own.numpy()) and np.array_equal(g_w.numpy(), own.numpy())):
                    errors.append("wrong gradient")
                own.assign_sub(0.001 * g_own)
                counter.assign_add(np.ones(4))
                w.assign(w.numpy() * 0.0)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert not any(th.is_alive() for th in threads), "deadlock"
    assert not errors, errors
    assert counter.numpy().tolist() == [8000.0] * 4
