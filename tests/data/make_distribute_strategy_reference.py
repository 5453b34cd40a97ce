"""Records TensorFlow's ``tf.distribute`` strategy results for tests/test_distribute_strategy.py.

What it records (TensorFlow 2.21 / Keras 3.15 on a CPU-only machine, where MirroredStrategy has one
replica): ``num_replicas_in_sync`` and the worker devices of the default, Mirrored, OneDevice and
MultiWorkerMirrored strategies; the context predicates in and out of ``scope()`` and ``run``;
``strategy.reduce`` (SUM/MEAN, axis None/0/1) and ``gather`` of a ``run`` result;
``ReplicaContext.all_reduce``, ``all_gather`` and ``merge_call``; the batches of
``experimental_distribute_dataset`` and of ``distribute_datasets_from_function`` with the
``InputContext`` it passes; a GradientTape SGD step under ``scope()``; and a small Keras ``fit`` under
``scope()`` (losses per epoch and final weights).

Regenerate (from the repository root)::

    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_distribute_strategy_reference.py

It writes tests/data/distribute_strategy_reference.json next to this script.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
os.environ.pop("TF_CONFIG", None)

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = Path(__file__).resolve().parent / "distribute_strategy_reference.json"
X = np.arange(1, 7, dtype=np.float32).reshape(2, 3)


def lst(t):
    return np.asarray(t).tolist()


def strategy_record(s):
    rec = {
        "num_replicas_in_sync": int(s.num_replicas_in_sync),
        "worker_devices": list(s.extended.worker_devices),
    }
    with s.scope():
        rec["has_strategy"] = tf.distribute.has_strategy()
        rec["in_cross_replica"] = tf.distribute.in_cross_replica_context()
        rec["replica_context_is_none"] = tf.distribute.get_replica_context() is None
        rec["get_strategy_is_it"] = tf.distribute.get_strategy() is s
        v = tf.Variable(1.0)
        rec["variable_isinstance"] = isinstance(v, tf.Variable)

    def inside(x):
        ctx = tf.distribute.get_replica_context()
        return (
            x * 2.0,
            tf.cast(ctx.replica_id_in_sync_group, tf.int32),
            ctx.num_replicas_in_sync,
            tf.constant(tf.distribute.in_cross_replica_context()),
        )

    y, rid, n, cross = s.run(inside, args=(tf.constant(X),))
    rec["run_value"] = lst(y)
    rec["run_replica_id"] = int(rid)
    rec["run_num_replicas"] = int(n)
    rec["run_in_cross_replica"] = bool(cross)
    rec["local_results_len"] = len(s.experimental_local_results(y))
    red = {}
    for opname, op in (("SUM", tf.distribute.ReduceOp.SUM), ("MEAN", tf.distribute.ReduceOp.MEAN)):
        for axis in (None, 0, 1):
            red[f"{opname}_{axis}"] = lst(s.reduce(op, y, axis=axis))
    rec["reduce"] = red
    rec["gather_0"] = lst(s.gather(y, axis=0))
    rec["gather_1"] = lst(s.gather(y, axis=1))

    def collectives(x):
        ctx = tf.distribute.get_replica_context()
        total = ctx.all_reduce(tf.distribute.ReduceOp.SUM, x)
        mean = ctx.all_reduce("MEAN", {"a": x, "b": x + 1.0})
        gathered = ctx.all_gather(x, axis=0)
        merged = ctx.merge_call(lambda strat, v: strat.reduce("SUM", v, axis=None), args=(x,))
        return total, mean, gathered, merged

    total, mean, gathered, merged = s.run(collectives, args=(tf.constant(X),))
    rec["all_reduce_sum"] = lst(total)
    rec["all_reduce_mean"] = {k: lst(v) for k, v in mean.items()}
    rec["all_gather"] = lst(gathered)
    rec["merge_call"] = lst(merged)

    ds = tf.data.Dataset.from_tensor_slices((np.arange(10, dtype=np.float32).reshape(5, 2), np.arange(5))).batch(2)
    rec["dataset_batches"] = [[lst(a), lst(b)] for a, b in s.experimental_distribute_dataset(ds)]
    it = iter(s.experimental_distribute_dataset(ds))
    rec["dataset_get_next"] = lst(it.get_next()[0])

    seen = {}

    def dataset_fn(ctx):
        seen.update(
            num_input_pipelines=ctx.num_input_pipelines,
            input_pipeline_id=ctx.input_pipeline_id,
            num_replicas_in_sync=ctx.num_replicas_in_sync,
            per_replica_batch_size_8=ctx.get_per_replica_batch_size(8),
        )
        d = tf.data.Dataset.from_tensor_slices(np.arange(6, dtype=np.int64))
        return d.shard(ctx.num_input_pipelines, ctx.input_pipeline_id).batch(ctx.get_per_replica_batch_size(4))

    rec["from_function_batches"] = [lst(b) for b in s.distribute_datasets_from_function(dataset_fn)]
    rec["input_context"] = seen
    return rec


def sgd_step(s):
    with s.scope():
        w = tf.Variable([[0.5], [-0.25], [1.0]])

    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
        g = tape.gradient(loss, w)
        g = tf.distribute.get_replica_context().all_reduce("SUM", g)
        w.assign_sub(0.01 * g)
        return loss

    losses = []
    for _ in range(3):
        per_replica = s.run(step, args=(tf.constant(X),))
        losses.append(float(s.reduce("MEAN", per_replica, axis=None)))
    return {"losses": losses, "w": lst(w)}


def keras_fit(s):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 4)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5], [0.25]], np.float32) + 0.1).astype(np.float32)
    w0 = rng.standard_normal((4, 3)).astype(np.float32) * 0.5
    w1 = rng.standard_normal((3, 1)).astype(np.float32) * 0.5
    with s.scope():
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="tanh"), keras.layers.Dense(1)])
        model.set_weights([w0, np.zeros(3, np.float32), w1, np.zeros(1, np.float32)])
        model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    hist = model.fit(x, y, batch_size=4, epochs=3, shuffle=False, verbose=0)
    return {
        "x": lst(x),
        "y": lst(y),
        "init": [lst(w0), lst(w1)],
        "losses": [float(v) for v in hist.history["loss"]],
        "weights": [lst(w) for w in model.get_weights()],
    }


def main():
    default = tf.distribute.get_strategy()
    ref = {
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "X": lst(X),
        "default": {
            "num_replicas_in_sync": int(default.num_replicas_in_sync),
            "has_strategy": tf.distribute.has_strategy(),
            "in_cross_replica": tf.distribute.in_cross_replica_context(),
            "replica_context_is_none": tf.distribute.get_replica_context() is None,
            "replica_context_num_replicas": int(tf.distribute.get_replica_context().num_replicas_in_sync),
        },
        "mirrored": strategy_record(tf.distribute.MirroredStrategy()),
        "one_device": strategy_record(tf.distribute.OneDeviceStrategy("/cpu:0")),
        "multi_worker": strategy_record(tf.distribute.MultiWorkerMirroredStrategy()),
        "sgd_step": sgd_step(tf.distribute.MirroredStrategy()),
        "keras_fit": keras_fit(tf.distribute.MirroredStrategy()),
    }
    OUT.write_text(json.dumps(ref, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
