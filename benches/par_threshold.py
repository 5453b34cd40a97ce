"""Where splitting an elementwise pass across the pool starts to pay.

Times memory-bound passes (`c * g`, `g + g`, `relu`, `where`) and a
compute-bound one (`exp`) at sizes around the kernels' two thresholds
(`PAR_THRESHOLD` = 2**16 for compute-bound kernels, `PAR_THRESHOLD_MEMORY`
= 2**19 for memory-bound ones), once with the default pool and once with
`RAYON_NUM_THREADS=1`, each in its own process, and prints both (minimum
over repeats, microseconds). Below a threshold both columns run the
sequential loop.

Run:  python3 benches/par_threshold.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import timeit

SIZES = [1 << 15, 1 << 16, 1 << 17, 1 << 18, 1 << 19, 1 << 20, 1 << 22]


def measure(repeat: int) -> dict[str, dict[str, float]]:
    import numpy as np

    import tapers as tf

    out: dict[str, dict[str, float]] = {}
    for n in SIZES:
        rng = np.random.default_rng(0)
        g = tf.constant(rng.normal(size=n).astype(np.float32))
        c = tf.constant(0.01)
        mask = tf.constant(rng.normal(size=n) > 0)
        work = {
            "c * g": lambda c=c, g=g: c * g,
            "g + g": lambda g=g: g + g,
            "relu": lambda g=g: tf.nn.relu(g),
            "where": lambda mask=mask, g=g: tf.where(mask, g, g),
            "exp": lambda g=g: tf.exp(g),
        }
        number = max(5, (1 << 22) // n)
        out[str(n)] = {k: min(timeit.repeat(f, number=number, repeat=repeat)) / number * 1e6 for k, f in work.items()}
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        print(json.dumps(measure(args.repeat)))
        return
    runs = {}
    for label, env in (("pool", {}), ("1 thread", {"RAYON_NUM_THREADS": "1"})):
        res = subprocess.run(
            [sys.executable, __file__, "--one", "--repeat", str(args.repeat)],
            capture_output=True,
            text=True,
            env={**os.environ, **env},
            check=True,
        )
        runs[label] = json.loads(res.stdout.strip().splitlines()[-1])
    names = list(next(iter(runs["pool"].values())))
    print("| elements | " + " | ".join(f"{k} pool / 1 thread (us)" for k in names) + " |")
    print("| --- |" + " --- |" * len(names))
    for n in map(str, SIZES):
        cells = [f"{runs['pool'][n][k]:.1f} / {runs['1 thread'][n][k]:.1f}" for k in names]
        print(f"| {n} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
