"""Two Python threads, each replaying its own compiled MLP step, against one
thread and against two processes (the machine's own ceiling: nothing shared).

Each round runs, in fresh processes with `RAYON_NUM_THREADS=1`: one thread's
steps/s, two threads' steps/s in one process, and two one-thread processes
at once (their sum). Rounds alternate so the machine's drift touches all
three alike; the table gives each round and the medians.

Run:  python3 benches/thread_scaling.py [--rounds 3] [--steps 600]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(mode: str, steps: int) -> float:
    sys.path.insert(0, HERE)
    import compare

    fns = [compare.tapers_mlp_step_fn(compiled=True) for _ in range(2 if mode == "two" else 1)]
    for f in fns:
        for _ in range(5):
            f()

    def work(f: object) -> None:
        for _ in range(steps):
            f()  # type: ignore[operator]

    t0 = time.perf_counter()
    if mode == "one":
        work(fns[0])
    else:
        ths = [threading.Thread(target=work, args=(f,)) for f in fns]
        for t in ths:
            t.start()
        for t in ths:
            t.join()
    return len(fns) * steps / (time.perf_counter() - t0)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=600)
    p.add_argument("--mode", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.mode:
        print(run(args.mode, args.steps))
        return
    env = {**os.environ, "RAYON_NUM_THREADS": "1"}

    def cmd(mode: str) -> list[str]:
        return [sys.executable, __file__, "--mode", mode, "--steps", str(args.steps)]

    rows = []
    for _ in range(args.rounds):
        one = float(subprocess.run(cmd("one"), env=env, capture_output=True, text=True, check=True).stdout)
        two = float(subprocess.run(cmd("two"), env=env, capture_output=True, text=True, check=True).stdout)
        procs = [subprocess.Popen(cmd("one"), env=env, stdout=subprocess.PIPE, text=True) for _ in range(2)]
        pair = sum(float(pr.communicate()[0]) for pr in procs)
        rows.append((one, two, pair))
    print("| round | one thread (steps/s) | two threads | two processes | threads / one | processes / one |")
    print("| --- | --- | --- | --- | --- | --- |")
    for i, (one, two, pair) in enumerate(rows, 1):
        print(f"| {i} | {one:.0f} | {two:.0f} | {pair:.0f} | {two / one:.2f} | {pair / one:.2f} |")
    med = [statistics.median(r[k] for r in rows) for k in range(3)]
    ratios = [statistics.median(r[1] / r[0] for r in rows), statistics.median(r[2] / r[0] for r in rows)]
    print(f"| median | {med[0]:.0f} | {med[1]:.0f} | {med[2]:.0f} | {ratios[0]:.2f} | {ratios[1]:.2f} |")


if __name__ == "__main__":
    main()
