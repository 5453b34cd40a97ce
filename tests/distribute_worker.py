"""A small data-parallel training run for tests/test_distribute.py, launched
alone or under ``mpiexec -n N``: an MLP on seeded synthetic data, SGD with
momentum, checkpoints from rank 0, and faults on request.

Usage: python distribute_worker.py OUT_DIR [--steps N] [--global-batch B]
[--checkpoint-every K] [--resume] [--fail-at STEP --fail-rank R --fail-how raise|kill]
[--mismatch STEP] [--skip STEP]
"""

from __future__ import annotations

import argparse
import os
import signal
from pathlib import Path

import numpy as np

import tapers as tf
import tapers.distribute as dist

N_EXAMPLES, N_IN, N_HIDDEN, N_OUT = 256, 20, 32, 5


def data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1234)
    x = rng.normal(size=(N_EXAMPLES, N_IN)).astype(np.float32)
    y = (np.abs(x[:, :N_OUT]).argmax(axis=1)).astype(np.int32)
    return x, y


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("out", type=Path)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--global-batch", type=int, default=64)
    p.add_argument("--checkpoint-every", type=int, default=0)
    p.add_argument("--resume", action="store_true")
    p.add_argument("--fail-at", type=int, default=-1)
    p.add_argument("--fail-rank", type=int, default=1)
    p.add_argument("--fail-how", default="raise")
    p.add_argument("--mismatch", type=int, default=-1)
    p.add_argument("--skip", type=int, default=-1)
    args = p.parse_args()

    dist.init()
    rank = dist.rank()
    x, y = data()
    # Each rank draws different initial weights: broadcast_variables must make them equal.
    g = tf.random.Generator.from_seed(7 + rank)
    variables = [
        tf.Variable(g.normal([N_IN, N_HIDDEN], stddev=0.3), name="w1"),
        tf.Variable(tf.zeros([N_HIDDEN]), name="b1"),
        tf.Variable(g.normal([N_HIDDEN, N_OUT], stddev=0.3), name="w2"),
        tf.Variable(tf.zeros([N_OUT]), name="b2"),
    ]
    opt = tf.optimizers.SGD(0.1, momentum=0.9)
    ckpt = tf.train.Checkpoint(model=variables, optimizer=opt)
    ckpt_path = args.out / "ckpt.safetensors"
    dist.broadcast_variables(variables, root_rank=0)
    if args.resume:
        dist.restore_checkpoint(ckpt, ckpt_path)
    start = int(opt.iterations.numpy())
    steps_per_epoch = N_EXAMPLES // args.global_batch
    step = start
    stats = []
    while step < args.steps:
        epoch, skip = divmod(step, steps_per_epoch)
        for i, (xb, yb) in enumerate(dist.batches((x, y), args.global_batch, seed=3, epoch=epoch)):
            if i < skip:
                continue  # consumed before the checkpoint
            if step >= args.steps:
                break
            if step == args.fail_at and rank == args.fail_rank:
                if args.fail_how == "kill":
                    os.kill(os.getpid(), signal.SIGKILL)
                raise RuntimeError(f"failing on purpose at step {step}")
            with tf.GradientTape() as tape:
                h = tf.nn.relu(tf.constant(xb) @ variables[0] + variables[1])
                logits = h @ variables[2] + variables[3]
                loss = tf.reduce_mean(
                    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant(yb), logits=logits)
                )
            tape = dist.DistributedGradientTape(tape)
            sources = variables[:3] if (step == args.mismatch and rank == 1) else variables
            if not (step == args.skip and rank == 1):
                grads = tape.gradient(loss, sources)
                opt.apply_gradients(zip(grads, variables))
                stats.append(tape.last_stats)
            step += 1
            if args.checkpoint_every and step % args.checkpoint_every == 0:
                dist.save_checkpoint(ckpt, ckpt_path)
    np.savez(args.out / f"params_rank{rank}.npz", *[v.numpy() for v in variables])
    if stats and dist.size() > 1:
        last = stats[-1]
        np.save(
            args.out / f"stats_rank{rank}.npy",
            np.array(
                [
                    last["bytes_copied_in"],
                    last["bytes_copied_out"],
                    last["bytes_reduced"],
                    last["buckets"],
                    last["bytes_copied_by_mpi"],
                    last["plans_built"],
                ]
            ),
        )


if __name__ == "__main__":
    main()
