"""Instructions per call of a ``benches/function_calls.py`` workload, under callgrind.

Runs the workload twice under ``valgrind --tool=callgrind`` (N1 and N2 calls) and
prints ``(total(N2) - total(N1)) / (N2 - N1)``: the start-up and warm-up cancel, and
the count does not depend on the machine's load. Threads are pinned to one
(``RAYON_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1``) so idle pools add nothing::

    python3 benches/instructions.py chain eager --n1 50 --n2 550

``PYTHONPATH`` picks the build, as for ``benches/ab.py``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def total(workload: str, mode: str, n: int) -> int:
    env = {**os.environ, "RAYON_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        cmd = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            sys.executable,
            os.path.join(HERE, "function_calls.py"),
            workload,
            mode,
            str(n),
        ]
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        with open(out) as f:
            m = re.search(r"^summary:\s*(\d+)", f.read(), re.M)
    if m is None:
        raise SystemExit("callgrind wrote no summary line")
    return int(m.group(1))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("workload")
    p.add_argument("mode")
    p.add_argument("--n1", type=int, default=50)
    p.add_argument("--n2", type=int, default=550)
    a = p.parse_args()
    t1, t2 = total(a.workload, a.mode, a.n1), total(a.workload, a.mode, a.n2)
    print(f"{a.workload} {a.mode}: {(t2 - t1) / (a.n2 - a.n1):,.0f} instructions per call")


if __name__ == "__main__":
    main()
