"""The compiled MLP step in its two forms, alternating call by call in one
process: the library's helpers (relu, sparse softmax cross-entropy, an
optimizer) and the hand-written TensorFlow-user form (`tf.maximum(z, 0.0)`, a
max-shifted logsumexp against one-hot labels, `v.assign_sub(lr * g)` per
variable). Alternating keeps the machine's drift out of their ratio.

Run:  python3 benches/mlp_forms.py [--calls 200] [--eager]
Prints median and minimum microseconds per step for each form.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import compare  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--calls", type=int, default=200)
    p.add_argument("--eager", action="store_true", help="time the eager steps instead")
    args = p.parse_args()
    fs = {form: compare.tapers_mlp_step_fn(form, compiled=not args.eager) for form in ("fused", "user")}
    for f in fs.values():
        for _ in range(20):
            f()
    ts: dict[str, list[float]] = {k: [] for k in fs}
    for _ in range(args.calls):
        for k, f in fs.items():
            t0 = time.perf_counter()
            f()
            ts[k].append(time.perf_counter() - t0)
    for k, v in ts.items():
        print(f"{k}: median {statistics.median(v) * 1e6:.1f} us, min {min(v) * 1e6:.1f} us")
    print(f"user / fused (medians): {statistics.median(ts['user']) / statistics.median(ts['fused']):.2f}")


if __name__ == "__main__":
    main()
