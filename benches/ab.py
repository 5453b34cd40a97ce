"""Old build against new build, in alternating fresh processes.

The machine's speed drifts within an hour, so each round runs every
workload once with build A, then once with build B, and the table reports
per-build medians and ranges over the rounds.

Run:  python3 benches/ab.py OLD_PYTHONPATH NEW_PYTHONPATH [--rounds N] [--workloads a,b]
where each path holds an importable `tapers` package (a source checkout's
`python/` with its built `_core` module, or an unpacked wheel).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

COMPARE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compare.py")
DEFAULT = "scalar,chain100,chain100k,memory,mlp,elementwise,matmul,jacobian,one_thread,threads"


def run(path: str, workload: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": os.path.abspath(path)}
    cmd = [sys.executable, COMPARE, "--one", workload, "--peers", "none"]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--workloads", default=DEFAULT)
    args = p.parse_args()
    names = args.workloads.split(",")
    results: dict[tuple[str, str, str], list[float]] = {}
    for r in range(args.rounds):
        for name in names:
            for label, path in (("old", args.old), ("new", args.new)):
                for key, value in run(path, name).items():
                    results.setdefault((name, key, label), []).append(value)
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    print("| workload | measure | old median (range) | new median (range) | new/old |")
    print("| --- | --- | --- | --- | --- |")
    for name in names:
        keys = sorted({k for (n, k, _) in results if n == name})
        for key in keys:
            old, new = results.get((name, key, "old"), []), results.get((name, key, "new"), [])
            if not old or not new:
                continue
            mo, mn = statistics.median(old), statistics.median(new)
            ratio = mn / mo if mo else float("nan")
            print(
                f"| {name} | {key} | {mo:.4g} ({min(old):.4g}-{max(old):.4g}) | "
                f"{mn:.4g} ({min(new):.4g}-{max(new):.4g}) | {ratio:.2f} |"
            )


if __name__ == "__main__":
    main()
