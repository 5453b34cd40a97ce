"""tapers against numpy and the installed peers (PyTorch, TensorFlow, JAX) on
the engine's workloads; prints a markdown table of medians and ratios.

Run:  python3 benches/compare.py [--quick] [--repeat N]
Peers that are not installed are skipped, and the table says so.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import threading
import time
from typing import Callable

import numpy as np

import tapers as tf

R = np.random.default_rng(0)
QUICK = False


def median_time(fn: Callable[[], object], min_time: float = 0.5, max_rounds: int = 2000) -> float:
    fn()  # warm up
    times: list[float] = []
    start = time.perf_counter()
    while (time.perf_counter() - start < (0.15 if QUICK else min_time) or len(times) < 3) and len(times) < max_rounds:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


PEERS: set[str] = set()


# Old builds (A/B runs against a commit before tapers.function) lack it: their
# compiled variants are skipped.
HAS_FUNCTION = hasattr(tf, "function")


def have(mod: str) -> bool:
    return mod in PEERS and importlib.util.find_spec(mod) is not None


def fallbacks(*fns: object) -> float:
    """Calls of compiled steps that did not replay a graph: signatures that run
    eagerly (an op a graph cannot replay, or guards that kept failing), plus
    guard failures (each retraces)."""
    n = 0
    for f in fns:
        for entry in getattr(f, "_cache", {}).values():
            n += entry.guard_failures + (1 if entry.eager else 0)
    return float(n)


def jax_cpu() -> object:
    """jax on the CPU with float32 (the peer of a compiled step)."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax

    return jax


# ---------------------------------------------------------------- workloads
def scalar_loop() -> dict[str, float]:
    out: dict[str, float] = {}
    x = tf.constant(3.0)

    def tp():
        with tf.GradientTape() as t:
            t.watch(x)
            y = x * x
        return t.gradient(y, x)

    out["tapers"] = median_time(tp)
    if HAS_FUNCTION:
        # `x` is an argument, as jax.jit's: on a captured constant the whole
        # step would fold to constants when the graph is built.
        def tp_of(v):
            with tf.GradientTape() as t:
                t.watch(v)
                y = v * v
            return t.gradient(y, v)

        ftp = tf.function(tp_of)
        out["tapers.function"] = median_time(lambda: ftp(x))
        out["fallbacks"] = fallbacks(ftp)
    a = np.array(3.0, dtype=np.float32)
    out["numpy (bare 0-d op)"] = median_time(lambda: a * a)
    if have("torch"):
        import torch

        def th():
            xt = torch.tensor(3.0, requires_grad=True)
            return torch.autograd.grad(xt * xt, xt)

        out["torch"] = median_time(th)
    if have("tensorflow"):
        import tensorflow as real_tf

        xr = real_tf.constant(3.0)

        def rtf():
            with real_tf.GradientTape() as t:
                t.watch(xr)
                y = xr * xr
            return t.gradient(y, xr)

        out["tensorflow"] = median_time(rtf)
        out["tensorflow (tf.function)"] = median_time(real_tf.function(rtf))
    if have("jax"):
        jax = jax_cpu()
        jg = jax.jit(jax.grad(lambda v: v * v))
        xj = jax.numpy.asarray(3.0, dtype=np.float32)
        out["jax.jit"] = median_time(lambda: jg(xj).block_until_ready())
    return out


def chain(n: int) -> dict[str, float]:
    out: dict[str, float] = {}
    x, c = tf.constant(1.0), tf.constant(1.0000001)

    def tp():
        with tf.GradientTape() as t:
            t.watch(x)
            y = x
            for _ in range(n):
                y = y * c
        return t.gradient(y, x)

    out["tapers"] = median_time(tp, max_rounds=200 if n > 1000 else 2000)
    if have("torch"):
        import torch

        ct = torch.tensor(1.0000001)

        def th():
            xt = torch.tensor(1.0, requires_grad=True)
            y = xt
            for _ in range(n):
                y = y * ct
            return torch.autograd.grad(y, xt)

        out["torch"] = median_time(th, max_rounds=20 if n > 1000 else 2000)
    return out


def tape_memory_per_op(n: int = 100_000) -> float:
    x, c = tf.constant(1.0), tf.constant(1.0000001)
    with tf.GradientTape() as t:
        t.watch(x)
        y = x
        for _ in range(n):
            y = y * c
    return t._memory_bytes() / t._num_ops()


def mlp_inputs():
    x = R.normal(size=(128, 784)).astype(np.float32)
    labels = R.integers(0, 10, 128)
    shapes = [(784, 256), (256, 256), (256, 10)]
    ws = [(R.normal(size=s) * np.sqrt(2.0 / s[0])).astype(np.float32) for s in shapes]
    return x, labels, ws


def mlp_step_products(x: np.ndarray, ws: list[np.ndarray]) -> dict[str, tuple]:
    """The MLP step's eight products as `(a, b, transpose_a, transpose_b)`, with
    the shapes and transposes both steps use (three forward, five backward: no
    gradient for x), by name."""
    h = np.maximum(x @ ws[0], 0).astype(np.float32)
    d = np.ones((len(x), 10), np.float32)
    return {
        "x @ W0": (x, ws[0], False, False),
        "h1 @ W1": (h, ws[1], False, False),
        "h2 @ W2": (h, ws[2], False, False),
        "h2^T @ d3": (h, d, True, False),
        "d3 @ W2^T": (d, ws[2], False, True),
        "h1^T @ d2": (h, h, True, False),
        "d2 @ W1^T": (h, ws[1], False, True),
        "x^T @ d1": (x, h, True, False),
    }


def mlp_products() -> dict[str, float]:
    """Each of the MLP step's products alone, eager (seconds, median): the
    per-product view of `mlp`'s products floor, for A/B runs of kernel changes
    (`benches/ab.py OLD NEW --workloads mlp_products`)."""
    x, _, ws = mlp_inputs()
    out: dict[str, float] = {}
    for name, (a, b, ta, tb) in mlp_step_products(x, ws).items():
        ta_, tb_ = tf.constant(a), tf.constant(b)
        out[f"tapers {name}"] = median_time(
            lambda: tf.linalg.matmul(ta_, tb_, transpose_a=ta, transpose_b=tb)  # noqa: B023
        )
        na, nb = (a.T if ta else a), (b.T if tb else b)
        out[f"numpy {name}"] = median_time(lambda: na @ nb)  # noqa: B023
    return out


def loss_chain() -> dict[str, float]:
    """The MLP step's hand-written loss alone (TF-user form): a max-shifted
    logsumexp against one-hot labels on [128, 10] logits, value and gradient,
    eager and compiled (seconds, median). Its ops are small broadcasts and
    row reductions, so their per-call and per-row costs show here and hide
    in the whole step (`benches/ab.py OLD NEW --workloads loss`)."""
    _, labels, _ = mlp_inputs()
    logits = tf.constant(R.normal(size=(128, 10)).astype(np.float32))
    onehot = tf.constant(np.eye(10, dtype=np.float32)[labels])

    def loss_grad(z0):
        with tf.GradientTape() as tape:
            tape.watch(z0)
            z = z0 - tf.reduce_max(z0, axis=1, keepdims=True)
            logp = z - tf.math.log(tf.reduce_sum(tf.exp(z), axis=1, keepdims=True))
            loss = -tf.reduce_mean(tf.reduce_sum(onehot * logp, axis=1))
        return loss, tape.gradient(loss, z0)

    out = {"tapers": median_time(lambda: loss_grad(logits))}
    if HAS_FUNCTION:
        compiled = tf.function(loss_grad)
        out["tapers.function"] = median_time(lambda: compiled(logits))
        out["fallbacks"] = fallbacks(compiled)
    return out


def tapers_mlp_step_fn(form: str = "fused", compiled: bool = False) -> Callable[[], object]:
    """One SGD step of the MLP, eager or under ``tf.function``.

    ``form="fused"`` uses the library's helpers (``relu``,
    ``sparse_softmax_cross_entropy_with_logits``, an optimizer); ``form="user"``
    is the step as TensorFlow users write it by hand: ``tf.maximum(z, 0.0)``,
    a max-shifted logsumexp loss against one-hot labels, ``v.assign_sub(lr * g)``
    per variable."""
    x, labels, ws = mlp_inputs()
    xt, yt = tf.constant(x), tf.constant(labels.astype(np.int32))
    onehot = tf.constant(np.eye(10, dtype=np.float32)[labels])
    vs = [tf.Variable(w) for w in ws]
    bs = [tf.Variable(tf.zeros([w.shape[1]])) for w in ws]
    params = vs + bs
    opt = tf.optimizers.SGD(0.01)

    def step():
        with tf.GradientTape() as tape:
            h = tf.nn.relu(xt @ vs[0] + bs[0])
            h = tf.nn.relu(h @ vs[1] + bs[1])
            logits = h @ vs[2] + bs[2]
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yt, logits=logits))
        grads = tape.gradient(loss, params)
        opt.apply_gradients(zip(grads, params))
        return loss

    def user_step():
        with tf.GradientTape() as tape:
            h = tf.maximum(xt @ vs[0] + bs[0], 0.0)
            h = tf.maximum(h @ vs[1] + bs[1], 0.0)
            logits = h @ vs[2] + bs[2]
            z = logits - tf.reduce_max(logits, axis=1, keepdims=True)
            logp = z - tf.math.log(tf.reduce_sum(tf.exp(z), axis=1, keepdims=True))
            loss = -tf.reduce_mean(tf.reduce_sum(onehot * logp, axis=1))
        grads = tape.gradient(loss, params)
        for v, g in zip(params, grads):
            v.assign_sub(0.01 * g)
        return loss

    fn = step if form == "fused" else user_step
    return tf.function(fn) if compiled else fn


def mlp() -> dict[str, float]:
    out: dict[str, float] = {"tapers": median_time(tapers_mlp_step_fn())}
    out["tapers (TF-user form)"] = median_time(tapers_mlp_step_fn("user"))
    if HAS_FUNCTION:
        compiled = [tapers_mlp_step_fn(form, compiled=True) for form in ("fused", "user")]
        out["tapers.function"] = median_time(compiled[0])
        out["tapers.function (TF-user form)"] = median_time(compiled[1])
        out["fallbacks"] = fallbacks(*compiled)
    x, labels, ws0 = mlp_inputs()
    ws = [w.copy() for w in ws0]
    bs = [np.zeros(w.shape[1], np.float32) for w in ws]
    onehot = np.eye(10, dtype=np.float32)[labels]

    def np_step():
        h1p = x @ ws[0] + bs[0]
        h1 = np.maximum(h1p, 0)
        h2p = h1 @ ws[1] + bs[1]
        h2 = np.maximum(h2p, 0)
        logits = h2 @ ws[2] + bs[2]
        m = logits.max(1, keepdims=True)
        e = np.exp(logits - m)
        p = e / e.sum(1, keepdims=True)
        d = (p - onehot) / len(x)
        g2, gb2 = h2.T @ d, d.sum(0)
        d2 = (d @ ws[2].T) * (h2p > 0)
        g1, gb1 = h1.T @ d2, d2.sum(0)
        d1 = (d2 @ ws[1].T) * (h1p > 0)
        g0, gb0 = x.T @ d1, d1.sum(0)
        for w, g in zip(ws + bs, (g0, g1, g2, gb0, gb1, gb2)):
            w -= 0.01 * g

    out["numpy (hand-written)"] = median_time(np_step)

    # The step's eight products alone, with the shapes and transposes both steps use
    # (three forward, five backward: no gradient for x): the time no step built on these
    # matrix kernels goes below, so "floor: tapers products" / numpy's step is the best
    # ratio the compiled step can reach against numpy on this machine.
    products = list(mlp_step_products(x, ws0).values())
    tp_products = [(tf.constant(a), tf.constant(b), ta, tb) for a, b, ta, tb in products]
    np_products = [(a.T if ta else a, b.T if tb else b) for a, b, ta, tb in products]

    def tp_prods():
        for a, b, ta, tb in tp_products:
            tf.linalg.matmul(a, b, transpose_a=ta, transpose_b=tb)

    def np_prods():
        for a, b in np_products:
            a @ b

    out["floor: tapers products"] = median_time(tp_prods)
    out["floor: numpy products"] = median_time(np_prods)
    if have("torch"):
        import torch

        xt, yt = torch.tensor(x), torch.tensor(labels)
        tw = [torch.tensor(w, requires_grad=True) for w in ws0]
        tb = [torch.zeros(w.shape[1], requires_grad=True) for w in ws0]
        topt = torch.optim.SGD(tw + tb, lr=0.01)

        def th():
            topt.zero_grad()
            h = torch.relu(xt @ tw[0] + tb[0])
            h = torch.relu(h @ tw[1] + tb[1])
            loss = torch.nn.functional.cross_entropy(h @ tw[2] + tb[2], yt)
            loss.backward()
            topt.step()

        out["torch"] = median_time(th)
    if have("tensorflow"):
        import tensorflow as real_tf

        xr, yr = real_tf.constant(x), real_tf.constant(labels)
        rv = [real_tf.Variable(w) for w in ws0] + [real_tf.Variable(real_tf.zeros([w.shape[1]])) for w in ws0]
        ropt = real_tf.keras.optimizers.SGD(0.01)

        def rtf():
            with real_tf.GradientTape() as tape:
                h = real_tf.nn.relu(xr @ rv[0] + rv[3])
                h = real_tf.nn.relu(h @ rv[1] + rv[4])
                logits = h @ rv[2] + rv[5]
                loss = real_tf.reduce_mean(
                    real_tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yr, logits=logits)
                )
            ropt.apply_gradients(zip(tape.gradient(loss, rv), rv))

        out["tensorflow (eager)"] = median_time(rtf)
        out["tensorflow (tf.function)"] = median_time(real_tf.function(rtf))
    if have("jax"):
        jax = jax_cpu()
        jnp = jax.numpy

        def jloss(p, xj, oh):
            h = jnp.maximum(xj @ p[0] + p[3], 0.0)
            h = jnp.maximum(h @ p[1] + p[4], 0.0)
            return -jnp.mean(jnp.sum(oh * jax.nn.log_softmax(h @ p[2] + p[5]), axis=1))

        def jstep(p, xj, oh):
            loss, g = jax.value_and_grad(jloss)(p, xj, oh)
            return [a - 0.01 * b for a, b in zip(p, g)], loss

        js = jax.jit(jstep, donate_argnums=0)
        state = [[jnp.asarray(w) for w in ws0] + [jnp.zeros(w.shape[1], jnp.float32) for w in ws0]]
        xj, ohj = jnp.asarray(x), jnp.asarray(onehot)

        def jrun():
            state[0], loss = js(state[0], xj, ohj)
            loss.block_until_ready()

        out["jax.jit"] = median_time(jrun)
    return out


def elementwise() -> dict[str, float]:
    xv = R.normal(size=4_000_000).astype(np.float32)
    x = tf.constant(xv)

    def tp():
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(tf.tanh(x) * tf.exp(-x * x) + x)
        return t.gradient(y, x)

    out = {"tapers": median_time(tp, min_time=1.0)}

    def value_and_grad():
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(tf.tanh(x) * tf.exp(-x * x) + x)
        return y, t.gradient(y, x)

    if HAS_FUNCTION:
        ftp = tf.function(value_and_grad)
        out["tapers.function"] = median_time(ftp, min_time=1.0)
        out["fallbacks"] = fallbacks(ftp)

        # The same step as most losses spell it: reduce_mean.
        def mean_value_and_grad():
            with tf.GradientTape() as t:
                t.watch(x)
                y = tf.reduce_mean(tf.tanh(x) * tf.exp(-x * x) + x)
            return y, t.gradient(y, x)

        fmean = tf.function(mean_value_and_grad)
        out["tapers.function (reduce_mean)"] = median_time(fmean, min_time=1.0)
        out["fallbacks"] += fallbacks(fmean)

    def np_fb():
        t = np.tanh(xv)
        e = np.exp(-xv * xv)
        _ = np.sum(t * e + xv)
        return (1 - t * t) * e + t * e * (-2 * xv) + 1

    out["numpy (hand-written)"] = median_time(np_fb, min_time=1.0)
    if have("torch"):
        import torch

        xt = torch.tensor(xv)

        def th():
            a = xt.clone().requires_grad_(True)
            y = (torch.tanh(a) * torch.exp(-a * a) + a).sum()
            return torch.autograd.grad(y, a)

        out["torch"] = median_time(th, min_time=1.0)
    if have("jax"):
        jax = jax_cpu()
        jnp = jax.numpy

        g = jax.grad(lambda a: jnp.sum(jnp.tanh(a) * jnp.exp(-a * a) + a))
        xj = jnp.asarray(xv)
        out["jax (eager grad)"] = median_time(lambda: g(xj).block_until_ready(), min_time=1.0)
        jg = jax.jit(jax.value_and_grad(lambda a: jnp.sum(jnp.tanh(a) * jnp.exp(-a * a) + a)))
        out["jax.jit"] = median_time(lambda: jg(xj)[1].block_until_ready(), min_time=1.0)
    return out


def copy_bandwidth() -> float:
    """Bytes per second of a large numpy copy (read + write)."""
    a = np.ones(16_000_000, np.float32)
    b = np.empty_like(a)
    t = median_time(lambda: np.copyto(b, a), min_time=0.5)
    return 2 * a.nbytes / t


def matmul_chain() -> dict[str, float]:
    n = 1024
    a, b, c = (R.normal(size=(n, n)).astype(np.float32) for _ in range(3))
    ta, tb, tc = tf.constant(a), tf.constant(b), tf.constant(c)

    def tp():
        with tf.GradientTape() as t:
            t.watch([ta, tb, tc])
            y = tf.reduce_sum(ta @ tb @ tc)
        return t.gradient(y, [ta, tb, tc])

    flops = 6 * 2 * n**3  # 2 forward + 4 backward products
    out = {"tapers fwd+bwd": flops / median_time(tp) / 1e9}
    out["numpy matmul"] = 2 * n**3 / median_time(lambda: a @ b) / 1e9

    def np_chain():
        # The same six products, written out: the forward pair and the
        # backward four (the sum's gradient is a matrix of ones).
        p = a @ b
        p @ c
        d = np.ones((n, n), np.float32)
        dp = d @ c.T
        return dp @ b.T, a.T @ dp, p.T @ d

    out["numpy chain"] = flops / median_time(np_chain) / 1e9
    return out


def jacobian() -> dict[str, float]:
    W = R.normal(size=(256, 256)).astype(np.float32) / 16
    xv = R.normal(size=256).astype(np.float32)
    Wt, xt = tf.constant(W), tf.constant(xv)

    def tp():
        with tf.GradientTape() as t:
            t.watch(xt)
            y = tf.tanh(tf.reshape(Wt @ tf.reshape(xt, [256, 1]), [256]))
        return t.jacobian(y, xt)

    out = {"tapers": median_time(tp)}
    if have("torch"):
        import torch

        Wp, xp = torch.tensor(W), torch.tensor(xv)
        jac = torch.func.jacrev(lambda v: torch.tanh(Wp @ v))
        out["torch.func.jacrev"] = median_time(lambda: jac(xp))
    if have("jax"):
        import jax
        import jax.numpy as jnp

        Wj, xj = jnp.asarray(W), jnp.asarray(xv)
        jj = jax.jit(jax.jacrev(lambda v: jnp.tanh(Wj @ v)))
        out["jax.jacrev (jit)"] = median_time(lambda: jj(xj).block_until_ready())
    return out


def threads(both: bool = True, compiled: bool = False) -> dict[str, float]:
    """One MLP training loop's steps/s, then (if `both`) two loops' on two threads
    (each step compiled with ``tf.function`` when `compiled`)."""
    steps = 20 if QUICK else 300
    # Models are built and warmed up before the clock starts.
    fns = [tapers_mlp_step_fn(compiled=compiled) for _ in range(2 if both else 1)]
    for f in fns:
        for _ in range(5):
            f()

    def work(step: Callable[[], object]) -> None:
        for _ in range(steps):
            step()

    t0 = time.perf_counter()
    work(fns[0])
    one = steps / (time.perf_counter() - t0)
    if not both:
        return {"1 thread (steps/s)": one}
    ths = [threading.Thread(target=work, args=(f,)) for f in fns]
    t0 = time.perf_counter()
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    two = 2 * steps / (time.perf_counter() - t0)
    res = {"1 thread (steps/s)": one, "2 threads (steps/s)": two, "scaling": two / one}
    if compiled:
        res["fallbacks"] = fallbacks(*fns)
    return res


WORKLOADS: dict[str, Callable[[], dict[str, float]]] = {
    "scalar": scalar_loop,
    "chain100": lambda: chain(100),
    "chain100k": lambda: chain(100_000),
    "memory": lambda: {"tapers": tape_memory_per_op(10_000 if QUICK else 100_000)},
    "mlp": mlp,
    "elementwise": elementwise,
    "bandwidth": lambda: {"tapers": copy_bandwidth()},
    "matmul": matmul_chain,
    "mlp_products": mlp_products,
    "loss": loss_chain,
    "jacobian": jacobian,
    "threads": threads,
    "one_thread": lambda: threads(both=False),
    "function_threads": lambda: threads(compiled=True),
}


def run_isolated(name: str, args: argparse.Namespace, env: dict[str, str] | None = None) -> dict[str, float]:
    """Runs one workload in a fresh process: peers' thread pools (OpenMP,
    OpenBLAS) keep spinning after their calls and would slow whatever runs
    next on a 2-core machine, so nothing shares a process with another
    workload, and tapers is timed before its peers."""
    import json
    import subprocess

    cmd = [sys.executable, __file__, "--one", name, "--peers", args.peers] + (["--quick"] if args.quick else [])
    runs: list[dict[str, float]] = []
    for _ in range(args.repeat):
        res = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **(env or {})})
        if res.returncode != 0:
            why = res.stderr.strip().splitlines()[-1] if res.stderr.strip() else res.returncode
            print(f"| {name} | failed: {why} | | | |")
            return {}
        runs.append(json.loads(res.stdout.strip().splitlines()[-1]))
    # Each figure is the median over the runs (this machine's speed drifts
    # by up to 2x over minutes; one process per run keeps peers apart).
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def main() -> None:
    global QUICK
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true", help="short timing windows (for a smoke test)")
    p.add_argument(
        "--peers",
        default="torch",
        help="comma-separated peers to compare (torch, tensorflow, jax; default torch). "
        "Each bundles its own LLVM and two in one process can abort: run one peer per invocation.",
    )
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="run each workload this many times (fresh processes) and report medians",
    )
    p.add_argument("--one", help=argparse.SUPPRESS)
    p.add_argument("--only", help="comma-separated workloads to run and print raw (e.g. scalar,mlp)")
    args = p.parse_args()
    QUICK = args.quick
    PEERS.update(x.strip() for x in args.peers.split(",") if x.strip())
    if args.one:
        import json

        print(json.dumps(WORKLOADS[args.one]()))
        return
    if args.only:
        # A few workloads only (for A/B runs of one change).
        for name in args.only.split(","):
            print(name, run_isolated(name, args), flush=True)
        return
    peers = {m: have(m) for m in sorted(PEERS)}
    print(
        f"python {sys.version.split()[0]}, numpy {np.__version__}, cores {os.cpu_count()}, "
        f"RAYON_NUM_THREADS={os.environ.get('RAYON_NUM_THREADS', 'default')}, "
        f"medians of {args.repeat} run(s) per workload"
    )
    print("peers: " + ", ".join(f"{m} {'installed' if ok else 'NOT installed (skipped)'}" for m, ok in peers.items()))
    print()
    print("| workload | tapers | peer | peer time | tapers / peer |")
    print("| --- | --- | --- | --- | --- |")

    def rows(name: str, res: dict[str, float], unit: str = "us", scale: float = 1e6) -> None:
        """One row per tapers variant (eager, ``tapers.function``, hand-written forms)
        and peer, and the compiled steps' eager fallbacks."""
        if not res:
            return
        mine = [k for k in res if k.startswith("tapers")]
        peers = [k for k in res if not k.startswith(("tapers", "floor:")) and k != "fallbacks"]
        for m in mine:
            label = name if m == "tapers" else f"{name}: {m[len('tapers') :].strip() or m}"
            for k in peers:
                v, base = res[k], res[m]
                print(f"| {label} | {base * scale:.1f} {unit} | {k} | {v * scale:.1f} {unit} | {base / v:.2f} |")
            if m != "tapers" and "tapers" in res:
                base, v = res[m], res["tapers"]
                ratio = base / v
                print(f"| {label} | {base * scale:.1f} {unit} | tapers eager | {v * scale:.1f} {unit} | {ratio:.2f} |")
        if "fallbacks" in res:
            print(f"| {name}: eager fallbacks of compiled steps | {res['fallbacks']:.0f} | | | |")

    rows("y = x*x record + gradient", run_isolated("scalar", args))
    rows("100-op scalar chain (per op)", {k: v / 100 for k, v in run_isolated("chain100", args).items()})
    if not QUICK:
        rows("100,000-op chain record + gradient", run_isolated("chain100k", args), "ms", 1e3)
    mem = run_isolated("memory", args)
    if mem:
        print(f"| tape memory per recorded op | {mem['tapers']:.0f} bytes | | | |")
    mlp_res = run_isolated("mlp", args)
    rows("MLP 784-256-256-10 step (b=128, softmax CE, SGD)", mlp_res, "ms", 1e3)
    if "floor: tapers products" in mlp_res:
        tp, npp = mlp_res["floor: tapers products"], mlp_res["floor: numpy products"]
        step = mlp_res["numpy (hand-written)"]
        print(
            f"| MLP step's eight products alone | {tp * 1e3:.2f} ms | numpy's products | {npp * 1e3:.2f} ms | "
            f"{tp / npp:.2f} (floor of compiled / numpy step: {tp / step:.2f}) |"
        )
    ew = run_isolated("elementwise", args)
    rows("reduce_sum(tanh(x)*exp(-x*x)+x), 4M, fwd+bwd", ew, "ms", 1e3)
    bw = run_isolated("bandwidth", args).get("tapers")
    if ew and bw:
        # Bytes that must move: read x, write the gradient (float32).
        bound = 2 * 4_000_000 * 4 / bw
        for k in [k for k in ew if k.startswith("tapers")]:
            print(
                f"| elementwise 4M vs memory-bandwidth bound: {k} | {ew[k] * 1e3:.1f} ms | copy bandwidth "
                f"{bw / 1e9:.1f} GB/s | bound {bound * 1e3:.2f} ms | {ew[k] / bound:.1f}x bound |"
            )
    mm = run_isolated("matmul", args)
    if mm:
        print(
            f"| 1024 matmul chain fwd+bwd | {mm['tapers fwd+bwd']:.1f} GFLOP/s | numpy matmul | "
            f"{mm['numpy matmul']:.1f} GFLOP/s | {mm['tapers fwd+bwd'] / mm['numpy matmul']:.2f} of numpy |"
        )
        print(
            f"| same chain | {mm['tapers fwd+bwd']:.1f} GFLOP/s | numpy, the six products by hand | "
            f"{mm['numpy chain']:.1f} GFLOP/s | {mm['tapers fwd+bwd'] / mm['numpy chain']:.2f} of numpy |"
        )
    rows("jacobian of tanh(W @ x), W 256x256", run_isolated("jacobian", args), "ms", 1e3)
    th = run_isolated("threads", args)
    if th:
        print(
            f"| two threads, each its own MLP | {th['2 threads (steps/s)']:.0f} steps/s | one thread | "
            f"{th['1 thread (steps/s)']:.0f} steps/s | {th['scaling']:.2f}x |"
        )
        # The ceiling of that ratio: one training thread already splits its
        # products over both cores, so two threads (one core each, at best
        # twice one single-core loop) can beat it only by what that split
        # fails to gain.
        core = run_isolated("one_thread", args, {"RAYON_NUM_THREADS": "1"}).get("1 thread (steps/s)")
        if core:
            print(
                f"| two threads vs two single-core loops | {th['2 threads (steps/s)']:.0f} steps/s | "
                f"2 x one thread on one core (RAYON_NUM_THREADS=1) | {2 * core:.0f} steps/s | "
                f"{th['2 threads (steps/s)'] / (2 * core):.2f} (ceiling of the ratio above: "
                f"{2 * core / th['1 thread (steps/s)']:.2f}x) |"
            )
    fth = run_isolated("function_threads", args, {"RAYON_NUM_THREADS": "1"})
    if fth:
        print(
            f"| two threads, each its own compiled MLP step (tapers.function, RAYON_NUM_THREADS=1) | "
            f"{fth['2 threads (steps/s)']:.0f} steps/s | one thread | {fth['1 thread (steps/s)']:.0f} steps/s | "
            f"{fth['scaling']:.2f}x |"
        )
        print(f"| compiled threads: eager fallbacks | {fth['fallbacks']:.0f} | | | |")


if __name__ == "__main__":
    main()
