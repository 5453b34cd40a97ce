"""An embedding model's training step with new ids every batch: eager vs `tapers.function`.

The step is written as TF users write it: a Keras ``Embedding`` (20,000 x 64),
the mean over a sequence of 16 ids, a ``Dense`` layer, a squared error spelled
``(pred - y) ** 2`` and Adam, with a batch of 128 fresh id sequences per call.
Each mode runs in its own process; rounds alternate the modes. Prints the
median milliseconds per step of each process, the traces and eager fallbacks
of the compiled step.

Usage: ``python3 benches/embedding_step.py [--rounds 3] [--steps 200]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import warnings


def run(mode: str, steps: int) -> dict[str, float]:
    import numpy as np

    import tapers as tf

    rng = np.random.default_rng(0)
    emb = tf.keras.layers.Embedding(20_000, 64)
    dense = tf.keras.layers.Dense(1)
    emb.build((None, 16))
    dense.build((None, 64))
    opt = tf.keras.optimizers.Adam(1e-3)
    variables = emb.trainable_variables + dense.trainable_variables

    def step(ids: object, y: object) -> object:
        with tf.GradientTape() as tape:
            h = tf.reduce_mean(emb(ids), axis=1)
            loss = tf.reduce_mean((dense(h) - y) ** 2)
        grads = tape.gradient(loss, variables)
        opt.apply_gradients(zip(grads, variables))
        return loss

    fn = tf.function(step) if mode == "compiled" else step
    batches = [
        (
            tf.constant(rng.integers(0, 20_000, size=(128, 16)).astype(np.int32)),
            tf.constant(rng.normal(size=(128, 1)).astype(np.float32)),
        )
        for _ in range(32)
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for ids, y in batches[:4]:
            fn(ids, y)
        times = []
        for k in range(steps):
            ids, y = batches[k % len(batches)]
            t0 = time.perf_counter()
            fn(ids, y)
            times.append(time.perf_counter() - t0)
    out = {"ms": statistics.median(times) * 1e3}
    if mode == "compiled":
        out["traces"] = fn.experimental_get_tracing_count()
        out["fallbacks"] = sum("runs eagerly" in str(w.message) for w in caught)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--one", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        print(json.dumps(run(args.one, args.steps)))
        return
    results: dict[str, list[dict[str, float]]] = {"eager": [], "compiled": []}
    for _ in range(args.rounds):
        for mode in results:
            cmd = [sys.executable, __file__, "--one", mode, "--steps", str(args.steps)]
            res = subprocess.run(cmd, capture_output=True, text=True, check=True)
            results[mode].append(json.loads(res.stdout.strip().splitlines()[-1]))
    for mode, runs in results.items():
        ms = [r["ms"] for r in runs]
        extra = ""
        if mode == "compiled":
            extra = f", traces {[int(r['traces']) for r in runs]}, fallbacks {[int(r['fallbacks']) for r in runs]}"
        print(f"{mode}: median {statistics.median(ms):.3f} ms/step (runs {', '.join(f'{m:.3f}' for m in ms)}){extra}")


if __name__ == "__main__":
    main()
