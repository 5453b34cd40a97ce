"""Weak scaling of data-parallel training (tapers.distribute), issue 18's figure.

MLP 784-256-256-10, softmax cross-entropy, SGD, per-rank batch 128, one
intra-op thread per rank (``RAYON_NUM_THREADS=1``): one process alone (no
MPI at all) against ``mpiexec -n 2`` and against two independent one-rank
processes at once (the most two single-threaded loops get from this
machine: its ceiling), alternating, ``--repeat`` times each. Reports samples
per second over all ranks, the 2-rank/1-rank ratio and the ceiling's (median
and range over the repeats), the time per step spent combining gradients
(handshake, packing, allreduce, unpacking) and the part of it spent blocked
on transfers, and the bytes copied per step. ``--buckets`` also compares
bucket sizes on 2 ranks (how much the overlap of packing/unpacking with the
transfers gives).

Run it on a quiet machine: ``python3 benches/distribute_scaling.py``. It
prints the load average before and after, since other work on a 2-core
machine takes a core from one of the ranks.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

SIZES = (784, 256, 256, 10)


def worker(steps: int, warmup: int, batch: int, bucket_bytes: int) -> None:
    import numpy as np

    import tapers as tf
    import tapers.distribute as dist

    dist.init()
    rng = np.random.default_rng(dist.rank())
    pool = [
        (
            tf.constant(rng.normal(size=(batch, SIZES[0])).astype(np.float32)),
            tf.constant(rng.integers(0, SIZES[-1], size=batch).astype(np.int32)),
        )
        for _ in range(8)
    ]
    g = tf.random.Generator.from_seed(0)
    variables = []
    for a, b in zip(SIZES[:-1], SIZES[1:]):
        variables += [tf.Variable(g.normal([a, b], stddev=(2.0 / a) ** 0.5)), tf.Variable(tf.zeros([b]))]
    dist.broadcast_variables(variables)
    opt = tf.optimizers.SGD(0.01)
    sync, waiting, handshake = [], [], []
    stats: dict[str, float] = {}

    def step(i: int) -> None:
        nonlocal stats
        x, y = pool[i % len(pool)]
        with tf.GradientTape() as tape:
            h = x
            for k in range(0, len(variables) - 2, 2):
                h = tf.nn.relu(h @ variables[k] + variables[k + 1])
            logits = h @ variables[-2] + variables[-1]
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        dtape = dist.DistributedGradientTape(tape, bucket_bytes=bucket_bytes)
        grads = dtape.gradient(loss, variables)
        opt.apply_gradients(zip(grads, variables))
        if dtape.last_stats:
            stats = dtape.last_stats
            sync.append(stats["seconds_sync"])
            waiting.append(stats["seconds_waiting"])
            handshake.append(stats["seconds_handshake"])

    for i in range(warmup):
        step(i)
    dist.barrier()
    sync.clear()
    waiting.clear()
    handshake.clear()
    t0 = time.perf_counter()
    for i in range(steps):
        step(i)
    dist.barrier()
    seconds = time.perf_counter() - t0
    if dist.rank() == 0:
        print(
            json.dumps(
                {
                    "ranks": dist.size(),
                    "samples_per_s": dist.size() * batch * steps / seconds,
                    "ms_per_step": 1e3 * seconds / steps,
                    "ms_sync": 1e3 * statistics.median(sync) if sync else 0.0,
                    "ms_waiting": 1e3 * statistics.median(waiting) if waiting else 0.0,
                    "ms_handshake": 1e3 * statistics.median(handshake) if handshake else 0.0,
                    "bytes_reduced": stats.get("bytes_reduced", 0),
                    "bytes_copied_in": stats.get("bytes_copied_in", 0),
                    "bytes_copied_out": stats.get("bytes_copied_out", 0),
                    "bytes_copied_by_mpi": stats.get("bytes_copied_by_mpi", 0),
                    "buckets": stats.get("buckets", 0),
                }
            )
        )


def _command(ranks: int, args: argparse.Namespace, bucket_bytes: int) -> tuple[list[str], dict[str, str]]:
    cmd = [sys.executable, __file__, "--worker", "--steps", str(args.steps), "--warmup", str(args.warmup),
           "--batch", str(args.batch), "--bucket-bytes", str(bucket_bytes)]  # fmt: skip
    if ranks > 1:
        cmd = ["mpiexec", "-n", str(ranks), *cmd]
    env = dict(os.environ, RAYON_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    root = str(Path(__file__).resolve().parent.parent / "python")
    env["PYTHONPATH"] = os.pathsep.join([root, env.get("PYTHONPATH", "")])
    return cmd, env


def launch(ranks: int, args: argparse.Namespace, bucket_bytes: int) -> dict[str, float]:
    cmd, env = _command(ranks, args, bucket_bytes)
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env, timeout=600).stdout
    return json.loads(out.strip().splitlines()[-1])


def ceiling(args: argparse.Namespace) -> float:
    """Samples per second of two independent one-rank processes run at once: what
    the machine gives two single-threaded loops, with no communication at all."""
    cmd, env = _command(1, args, args.bucket_bytes)
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    outs = [p.communicate(timeout=600)[0] for p in procs]
    return sum(json.loads(o.strip().splitlines()[-1])["samples_per_s"] for o in outs)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--warmup", type=int, default=30)
    p.add_argument("--batch", type=int, default=128, help="per-rank batch (default 128)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--bucket-bytes", type=int, default=64 << 20)
    p.add_argument("--buckets", action="store_true", help="also compare bucket sizes on 2 ranks")
    args = p.parse_args()
    if args.worker:
        worker(args.steps, args.warmup, args.batch, args.bucket_bytes)
        return
    print(f"load average before: {os.getloadavg()}")
    ratios, ceilings, ones, twos = [], [], [], []
    for _ in range(args.repeat):
        one = launch(1, args, args.bucket_bytes)
        two = launch(2, args, args.bucket_bytes)
        both = ceiling(args)
        ones.append(one)
        twos.append(two)
        ratios.append(two["samples_per_s"] / one["samples_per_s"])
        ceilings.append(both / one["samples_per_s"])
        print(
            f"1 rank {one['samples_per_s']:7.0f} samples/s ({one['ms_per_step']:.2f} ms/step) | "
            f"2 ranks {two['samples_per_s']:7.0f} samples/s ({two['ms_per_step']:.2f} ms/step, "
            f"sync {two['ms_sync']:.3f} ms of which blocked {two['ms_waiting']:.3f} ms) | ratio {ratios[-1]:.2f} | "
            f"2 independent 1-rank processes {both:7.0f} samples/s, ratio {ceilings[-1]:.2f}"
        )
    last = twos[-1]
    print(
        f"weak scaling 2/1: median {statistics.median(ratios):.2f}, range {min(ratios):.2f}-{max(ratios):.2f} "
        f"over {args.repeat} alternating runs; the machine's ceiling (two independent loops over one): median "
        f"{statistics.median(ceilings):.2f}, range {min(ceilings):.2f}-{max(ceilings):.2f}"
    )
    print(
        f"gradient sync per step on 2 ranks: median {statistics.median(t['ms_sync'] for t in twos):.3f} ms "
        f"(handshake {statistics.median(t['ms_handshake'] for t in twos):.3f} ms, "
        f"blocked on transfers {statistics.median(t['ms_waiting'] for t in twos):.3f} ms); "
        f"{last['bytes_reduced']:.0f} bytes reduced in {last['buckets']:.0f} bucket(s), copied "
        f"{last['bytes_copied_in']:.0f} in (and MPI {last['bytes_copied_by_mpi']:.0f} from sends out of place) "
        f"and {last['bytes_copied_out']:.0f} out"
    )
    if args.buckets:
        for bucket in (256 << 10, 1 << 20, 64 << 20):
            r = launch(2, args, bucket)
            print(
                f"bucket {bucket >> 10:6d} KiB: {r['buckets']:.0f} bucket(s), {r['samples_per_s']:.0f} samples/s, "
                f"sync {r['ms_sync']:.3f} ms, blocked {r['ms_waiting']:.3f} ms, copied in {r['bytes_copied_in']:.0f}, "
                f"by MPI {r['bytes_copied_by_mpi']:.0f}"
            )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
