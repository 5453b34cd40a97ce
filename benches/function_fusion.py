"""Forward elementwise fusion under ``tapers.function``: the 4M-element workload.

``sum(tanh(x) * exp(-x * x) + x)`` and its gradient on 4,000,000 float32 values, as
``benches/compare.py``'s ``elementwise`` workload: tapers eager, tapers compiled
(``tapers.function``), numpy by hand, ``jax.jit`` (if installed), and the copy-bandwidth
bound (read x, write the gradient: 8 bytes per element at a large numpy copy's speed).
Prints medians in ms with the load average, and the compiled graph's fusion stats.

Run: ``PYTHONPATH=python python3 benches/function_fusion.py [--repeat N] [--only NAME]``.
``--only tapers.function`` runs one variant (for ``valgrind --tool=callgrind``, whose
instruction counts do not depend on the machine's load).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any, Callable

import numpy as np

N = 4_000_000


def median_ms(f: Callable[[], Any], repeat: int) -> float:
    """The median of ``repeat`` timed calls after two warm-up calls, in ms."""
    f()
    f()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def workloads(xv: np.ndarray, jax_too: bool = True) -> dict[str, Callable[[], Any]]:
    """Each variant as a no-argument call computing value and gradient (JAX's if ``jax_too``)."""
    import tapers as tf

    x = tf.constant(xv)

    def eager() -> Any:
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(tf.tanh(x) * tf.exp(-x * x) + x)
        return y, t.gradient(y, x)

    compiled = tf.function(eager)

    def by_hand() -> Any:
        t = np.tanh(xv)
        e = np.exp(-xv * xv)
        y = np.sum(t * e + xv)
        return y, (1 - t * t) * e + t * e * (-2 * xv) + 1

    out: dict[str, Callable[[], Any]] = {
        "tapers eager": eager,
        "tapers.function": compiled,
        "numpy (hand-written)": by_hand,
    }
    if not jax_too:
        return out
    try:
        import jax

        jax.config.update("jax_platforms", "cpu")
        jnp = jax.numpy
        jg = jax.jit(jax.value_and_grad(lambda a: jnp.sum(jnp.tanh(a) * jnp.exp(-a * a) + a)))
        xj = jnp.asarray(xv)
        out["jax.jit"] = lambda: jg(xj)[1].block_until_ready()
    except ImportError:
        pass
    return out


def main() -> None:
    """Times each variant and prints a markdown table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=30)
    p.add_argument("--only", default="")
    args = p.parse_args()
    xv = np.random.default_rng(0).normal(size=N).astype(np.float32)
    runs = workloads(xv, jax_too=args.only in ("", "jax.jit"))
    if args.only:
        f = runs[args.only]
        for _ in range(args.repeat):
            f()
        return
    a = np.ones(16_000_000, np.float32)
    b = np.empty_like(a)
    bw = 2 * a.nbytes / (median_ms(lambda: np.copyto(b, a), args.repeat) / 1e3)
    bound = 2 * N * 4 / bw * 1e3
    print(f"load average {os.getloadavg()}, copy bandwidth {bw / 1e9:.1f} GB/s, bound {bound:.2f} ms")
    print("| variant | median ms | x bound |")
    print("|---|---|---|")
    for name, f in runs.items():
        t = median_ms(f, args.repeat)
        print(f"| {name} | {t:.2f} | {t / bound:.1f} |")
    compiled = runs["tapers.function"]
    graphs = [e.graph for tr in compiled._traces for e in tr.graphs.values()]  # type: ignore[attr-defined]
    for g in graphs:
        stats = getattr(g, "fusion_stats", None)
        print(f"graph: {g.op_names} fusion {stats}")


if __name__ == "__main__":
    main()
