"""tf.distribute strategies (tapers.distribute._strategy) against TensorFlow's results.

The reference is tests/data/distribute_strategy_reference.json, written by
tests/data/make_distribute_strategy_reference.py (TensorFlow 2.21 / Keras 3.15 on CPU, where
MirroredStrategy has one replica). The two-process MultiWorkerMirroredStrategy test launches
``mpiexec -n 2`` as tests/test_distribute.py does (skipped without mpi4py and mpich).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import tapers as tf
import tapers.distribute as dist

HERE = Path(__file__).resolve().parent
REF = json.loads((HERE / "data" / "distribute_strategy_reference.json").read_text())
PACKAGE_ROOT = str(Path(tf.__file__).resolve().parent.parent)
X = np.asarray(REF["X"], np.float32)
RTOL = 1e-5


def close(a, b, rtol=RTOL, atol=1e-6):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b, dtype=np.asarray(a).dtype), rtol=rtol, atol=atol)


STRATEGIES = {
    "mirrored": lambda: dist.MirroredStrategy(),
    "one_device": lambda: dist.OneDeviceStrategy("/cpu:0"),
    "multi_worker": lambda: dist.MultiWorkerMirroredStrategy(),
}


def test_default_strategy():
    ref = REF["default"]
    s = dist.get_strategy()
    assert s.num_replicas_in_sync == ref["num_replicas_in_sync"]
    assert dist.has_strategy() == ref["has_strategy"]
    assert dist.in_cross_replica_context() == ref["in_cross_replica"]
    ctx = dist.get_replica_context()
    assert (ctx is None) == ref["replica_context_is_none"]
    assert ctx.num_replicas_in_sync == ref["replica_context_num_replicas"]
    assert dist.get_cross_replica_context() is s
    assert tf.distribute is dist


@pytest.mark.parametrize("name", list(STRATEGIES))
def test_strategy_matches_tensorflow(name):
    ref = REF[name]
    s = STRATEGIES[name]()
    assert s.num_replicas_in_sync == ref["num_replicas_in_sync"]
    assert list(s.extended.worker_devices) == ref["worker_devices"]
    assert s.extended.should_checkpoint and s.cluster_resolver is None
    with s.scope() as inside:
        assert inside is s
        assert dist.has_strategy() == ref["has_strategy"]
        assert dist.in_cross_replica_context() == ref["in_cross_replica"]
        assert (dist.get_replica_context() is None) == ref["replica_context_is_none"]
        assert (dist.get_strategy() is s) == ref["get_strategy_is_it"]
        v = tf.Variable(1.0)
        assert isinstance(v, tf.Variable) == ref["variable_isinstance"]
    assert not dist.has_strategy()

    def inside_fn(x):
        ctx = dist.get_replica_context()
        return x * 2.0, ctx.replica_id_in_sync_group, ctx.num_replicas_in_sync, dist.in_cross_replica_context()

    y, rid, n, cross = s.run(inside_fn, args=(tf.constant(X),))
    close(y.numpy(), ref["run_value"])
    assert rid.dtype == tf.int32 and int(rid) == ref["run_replica_id"]
    assert n == ref["run_num_replicas"] and cross == ref["run_in_cross_replica"]
    assert len(s.experimental_local_results(y)) == ref["local_results_len"]
    for key, want in ref["reduce"].items():
        opname, axis = key.split("_")
        op = dist.ReduceOp.SUM if opname == "SUM" else dist.ReduceOp.AVERAGE
        ax = None if axis == "None" else int(axis)
        close(s.reduce(op, y, axis=ax).numpy(), want)
        close(s.reduce(opname, y, axis=ax).numpy(), want)  # TensorFlow's string spellings
    close(s.gather(y, axis=0).numpy(), ref["gather_0"])
    close(s.gather(y, axis=1).numpy(), ref["gather_1"])

    def collectives(x):
        ctx = dist.get_replica_context()
        total = ctx.all_reduce(dist.ReduceOp.SUM, x)
        mean = ctx.all_reduce("MEAN", {"a": x, "b": x + 1.0})
        gathered = ctx.all_gather(x, axis=0)
        merged = ctx.merge_call(lambda strat, v: strat.reduce("SUM", v, axis=None), args=(x,))
        return total, mean, gathered, merged

    total, mean, gathered, merged = s.run(collectives, args=(tf.constant(X),))
    close(total.numpy(), ref["all_reduce_sum"])
    assert sorted(mean) == sorted(ref["all_reduce_mean"])
    for k, want in ref["all_reduce_mean"].items():
        close(mean[k].numpy(), want)
    close(gathered.numpy(), ref["all_gather"])
    close(merged.numpy(), ref["merge_call"])

    ds = tf.data.Dataset.from_tensor_slices((np.arange(10, dtype=np.float32).reshape(5, 2), np.arange(5))).batch(2)
    got = [[a.numpy().tolist(), b.numpy().tolist()] for a, b in s.experimental_distribute_dataset(ds)]
    assert got == ref["dataset_batches"]
    it = iter(s.experimental_distribute_dataset(ds))
    close(it.get_next()[0].numpy(), ref["dataset_get_next"])

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

    assert [b.numpy().tolist() for b in s.distribute_datasets_from_function(dataset_fn)] == ref["from_function_batches"]
    assert seen == ref["input_context"]


def _sgd(s, wrap=None):
    with s.scope():
        w = tf.Variable([[0.5], [-0.25], [1.0]])

    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
        g = tape.gradient(loss, w)
        g = dist.get_replica_context().all_reduce("SUM", g)
        w.assign_sub(0.01 * g)
        return loss

    def train_step(x):
        return s.reduce("MEAN", s.run(step, args=(x,)), axis=None)

    if wrap is not None:
        train_step = wrap(train_step)
    losses = [float(train_step(tf.constant(X))) for _ in range(3)]
    return losses, w.numpy()


@pytest.mark.parametrize("wrap", [None, tf.function], ids=["eager", "function"])
def test_gradient_step_under_scope(wrap):
    ref = REF["sgd_step"]
    losses, w = _sgd(dist.MirroredStrategy(), wrap)
    close(losses, ref["losses"])
    close(w, ref["w"])


def test_gradients_flow_through_reduce_and_all_reduce():
    s = dist.MirroredStrategy()
    x = tf.Variable(X)
    with tf.GradientTape() as tape:
        r = s.run(lambda v: dist.get_replica_context().all_reduce("MEAN", v * v), args=(x,))
        loss = s.reduce("MEAN", r, axis=0)
        loss = tf.reduce_sum(loss)
    close(tape.gradient(loss, x).numpy(), X)  # d/dx sum_j mean_i x_ij^2 = 2x / 2 rows


def test_keras_fit_under_scope():
    ref = REF["keras_fit"]
    keras = tf.keras
    with dist.MirroredStrategy().scope():
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="tanh"), keras.layers.Dense(1)])
        w0, w1 = (np.asarray(w, np.float32) for w in ref["init"])
        model.set_weights([w0, np.zeros(3, np.float32), w1, np.zeros(1, np.float32)])
        model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    x, y = np.asarray(ref["x"], np.float32), np.asarray(ref["y"], np.float32)
    hist = model.fit(x, y, batch_size=4, epochs=3, shuffle=False, verbose=0)
    close(hist.history["loss"], ref["losses"])
    for got, want in zip(model.get_weights(), ref["weights"]):
        close(got, want)


def test_contexts_nest_and_restore():
    s = dist.MirroredStrategy()
    assert dist.get_replica_context().strategy is dist.get_strategy()
    with s.scope():
        with s.scope():  # re-entering the same strategy is fine
            assert dist.get_strategy() is s

        def fn():
            assert not dist.in_cross_replica_context()
            assert dist.get_cross_replica_context() is None
            ctx = dist.get_replica_context()
            assert ctx.strategy is s and ctx.devices == ("/job:localhost/replica:0/task:0/device:CPU:0",)
            return ctx.merge_call(lambda strat: dist.in_cross_replica_context())

        assert s.run(fn) is True
        assert dist.in_cross_replica_context()
    assert dist.get_strategy() is not s


def test_mixing_strategies_is_an_error():
    a, b = dist.MirroredStrategy(), dist.OneDeviceStrategy("/device:CPU:0")
    with a.scope():
        with pytest.raises(ValueError, match="Mixing different tf.distribute.Strategy"):
            with b.scope():
                pass
    with b.scope():
        assert dist.get_strategy() is b


def test_default_strategy_scope_changes_nothing():
    # TensorFlow 2.21: False False False True, and another strategy's scope may open inside.
    d = dist.get_strategy()
    with d.scope():
        assert not dist.has_strategy() and not dist.in_cross_replica_context()
        assert dist.get_replica_context() is not None and dist.get_strategy() is d
        m = dist.MirroredStrategy()
        with m.scope():
            assert dist.get_strategy() is m


def test_experimental_set_strategy():
    s = dist.MirroredStrategy()
    dist.experimental_set_strategy(s)
    try:
        assert dist.get_strategy() is s and dist.has_strategy()
        with s.scope():
            with pytest.raises(RuntimeError, match="inside"):
                dist.experimental_set_strategy(None)
    finally:
        dist.experimental_set_strategy(None)
    assert not dist.has_strategy()
    with pytest.raises(TypeError, match="Strategy or None"):
        dist.experimental_set_strategy("mirrored")


def test_distributed_values():
    s = dist.OneDeviceStrategy("/cpu:0")
    pr = dist.PerReplica([tf.constant([1.0, 2.0])])
    assert s.experimental_local_results(pr) == pr.values
    close(s.run(lambda v: v * 3.0, args=(pr,)).numpy(), [3.0, 6.0])
    close(s.reduce("SUM", pr, axis=0).numpy(), 3.0)
    assert "PerReplica" in repr(pr)
    with pytest.raises(ValueError, match="one local replica; got 2"):
        dist.DistributedValues([1, 2])


@pytest.mark.parametrize("dev", ["/cpu:0", "CPU:0", "/device:CPU:0", "/job:localhost/replica:0/task:0/device:CPU:0"])
def test_cpu_device_spellings(dev):
    assert dist.MirroredStrategy([dev]).num_replicas_in_sync == 1
    assert dist.OneDeviceStrategy(dev).extended.worker_devices == ("/job:localhost/replica:0/task:0/device:CPU:0",)


def test_bad_devices():
    with pytest.raises(ValueError, match=r"'/gpu:0' is not a device tapers has.*CPU:0"):
        dist.MirroredStrategy(["/cpu:0", "/gpu:0"])
    with pytest.raises(ValueError, match="'/cpu:1' is not a device"):
        dist.OneDeviceStrategy("/cpu:1")
    with pytest.raises(ValueError, match="duplicates"):
        dist.MirroredStrategy(["/cpu:0", "/device:CPU:0"])
    with pytest.raises(ValueError, match="cannot be empty"):
        dist.MirroredStrategy([])
    with pytest.raises(TypeError, match="a device is a string"):
        dist.OneDeviceStrategy(0)


def test_bad_inputs():
    s = dist.MirroredStrategy()
    y = tf.constant(X)
    with pytest.raises(ValueError, match="reduce_op must be"):
        s.reduce(dist.ReduceOp.MAX, y, axis=None)
    with pytest.raises(ValueError, match="reduce_op must be"):
        s.reduce("PROD", y, axis=None)
    with pytest.raises(ValueError, match=r"axis 2 is out of range for a value of shape \[2, 3\]"):
        s.reduce("SUM", y, axis=2)
    with pytest.raises(ValueError, match=r"axis -3 is out of range"):
        s.gather(y, axis=-3)
    with pytest.raises(TypeError, match="takes tensors"):
        s.reduce("SUM", object(), axis=None)
    with pytest.raises(TypeError, match="tapers.data.Dataset; got list"):
        s.experimental_distribute_dataset([1, 2])
    with pytest.raises(NotImplementedError, match="InputOptions"):
        s.experimental_distribute_dataset(tf.data.Dataset.range(3), options=object())
    with pytest.raises(TypeError, match="must return a tapers.data.Dataset; it returned int"):
        s.distribute_datasets_from_function(lambda ctx: 3)
    with pytest.raises(ValueError, match="not divisible"):
        dist.InputContext(2, 0, 2).get_per_replica_batch_size(5)
    with pytest.raises(NotImplementedError, match="cluster_resolver"):
        dist.MultiWorkerMirroredStrategy(cluster_resolver=object())
    it = iter(s.experimental_distribute_dataset(tf.data.Dataset.range(1)))
    assert int(it.get_next()) == 0
    with pytest.raises(tf.errors.OutOfRangeError):
        it.get_next()


def test_int_and_scalar_reduce():
    s = dist.MirroredStrategy()
    v = tf.constant([[1, 2], [3, 5]])
    assert s.reduce("MEAN", v, axis=0).numpy().tolist() == [2, 3]
    assert s.reduce("SUM", v, axis=None).dtype == tf.int32
    close(s.reduce("MEAN", tf.constant(2.5), axis=None).numpy(), 2.5)


def test_tf_config_naming_other_workers(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"worker": ["a:1", "b:2"]}, "task": {"index": 0}}))
    with pytest.raises(ValueError, match="TF_CONFIG names 2 workers.*mpiexec -n 2"):
        dist.MultiWorkerMirroredStrategy()


# --- two processes ----------------------------------------------------------------------


def _mpiexec() -> str | None:
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return None
    found = shutil.which("mpiexec") or str(Path(sys.executable).parent / "mpiexec")
    return found if Path(found).exists() else None


MPIEXEC = _mpiexec()

WORKER = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import tapers as tf
    import tapers.distribute as dist

    s = dist.MultiWorkerMirroredStrategy()
    r = dist.rank()
    out = {"n": s.num_replicas_in_sync, "devices": list(s.extended.worker_devices)}
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3) + 10 * r)
    y = s.run(lambda v: v + 0.0, args=(x,))
    out["sum"] = s.reduce("SUM", y, axis=None).numpy().tolist()
    out["mean0"] = s.reduce("MEAN", y, axis=0).numpy().tolist()
    out["gather1"] = s.gather(y, axis=1).numpy().tolist()
    out["rid"] = int(s.run(lambda: dist.get_replica_context().replica_id_in_sync_group))
    w = tf.Variable(x)
    with tf.GradientTape() as tape:
        t = s.run(lambda v: dist.get_replica_context().all_reduce("MEAN", v * v), args=(w,))
        loss = tf.reduce_sum(t)
    out["grad"] = tape.gradient(loss, w).numpy().tolist()
    ds = tf.data.Dataset.from_tensor_slices(np.arange(10, dtype=np.int64)).batch(5)
    out["batches"] = [b.numpy().tolist() for b in s.experimental_distribute_dataset(ds)]
    out["ctx"] = [s.distribute_datasets_from_function(
        lambda c: tf.data.Dataset.from_tensors(tf.constant([c.input_pipeline_id, c.num_input_pipelines])))
        .__iter__().get_next().numpy().tolist()]
    first = next(iter(s.experimental_distribute_dataset(ds)))
    out["uneven_mean"] = float(s.reduce("MEAN", tf.cast(first, tf.float32), axis=0))
    try:
        next(iter(s.experimental_distribute_dataset(tf.data.Dataset.range(4))))
    except ValueError as e:
        out["unbatched"] = str(e)
    off = tf.data.Options()
    off.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
    try:
        s.experimental_distribute_dataset(ds.with_options(off))
    except NotImplementedError as e:
        out["off"] = str(e)
    with open(f"{sys.argv[1]}/result_rank{r}.json", "w") as f:
        json.dump(out, f)
    """
)


@pytest.mark.skipif(MPIEXEC is None, reason="mpi4py and mpich are not installed (pip install '.[test]')")
def test_multi_worker_over_two_processes(tmp_path):
    script = tmp_path / "mwms.py"
    script.write_text(WORKER)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([PACKAGE_ROOT, env.get("PYTHONPATH", "")])
    env["RAYON_NUM_THREADS"] = "1"
    env["TAPERS_DISTRIBUTE_TIMEOUT"] = "20"
    env.pop("TF_CONFIG", None)
    r = subprocess.run([MPIEXEC, "-n", "2", sys.executable, str(script), str(tmp_path)], capture_output=True, text=True,
                       timeout=60, env=env)  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    res = {rank: json.loads((tmp_path / f"result_rank{rank}.json").read_text()) for rank in (0, 1)}
    base = np.arange(6, dtype=np.float32).reshape(2, 3)
    for rank, out in res.items():
        assert out["n"] == 2 and out["rid"] == rank
        assert out["devices"] == [f"/job:worker/replica:0/task:{rank}/device:CPU:0"]
        close(out["sum"], 2 * base + 10)
        close(out["mean0"], (base.sum(0) * 2 + 20) / 4)  # the mean over both processes' 4 rows
        close(out["gather1"], np.concatenate([base, base + 10], axis=1))
        mine = base + 10 * rank
        # TensorFlow's gradient of an all-reduce all-reduces the upstream gradients: d(sum over both
        # processes' losses)/dx_r = 2 * (1/2 + 1/2) * x_r
        close(out["grad"], 2 * mine)
        # each global batch of 5 is split 3 + 2 (DATA policy with rebatching)
        assert out["batches"] == ([[0, 1, 2], [5, 6, 7]] if rank == 0 else [[3, 4], [8, 9]])
        assert out["ctx"] == [[rank, 2]]
        assert out["uneven_mean"] == 2.0  # rows 0, 1, 2 and 3, 4: weighted by each process's row count
        assert "must be batched; got a component of shape []" in out["unbatched"]
        assert "shards by DATA only" in out["off"]


def test_keras_fit_on_a_distributed_dataset():
    # TensorFlow's reference fit ran on (x, y) arrays with batch 4 unshuffled: the same batches.
    ref = REF["keras_fit"]
    keras = tf.keras
    s = dist.MirroredStrategy()
    with s.scope():
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="tanh"), keras.layers.Dense(1)])
        w0, w1 = (np.asarray(w, np.float32) for w in ref["init"])
        model.set_weights([w0, np.zeros(3, np.float32), w1, np.zeros(1, np.float32)])
        model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    x, y = np.asarray(ref["x"], np.float32), np.asarray(ref["y"], np.float32)
    ds = s.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((x, y)).batch(4))
    hist = model.fit(ds, epochs=3, verbose=0)
    close(hist.history["loss"], ref["losses"])
    for got, want in zip(model.get_weights(), ref["weights"]):
        close(got, want)


def test_reduce_op_mean_is_tensorflows_spelling():
    s = tf.distribute.MirroredStrategy()
    assert tf.distribute.ReduceOp.MEAN is tf.distribute.ReduceOp.AVERAGE
    assert float(s.reduce(tf.distribute.ReduceOp.MEAN, tf.constant([1.0, 3.0]), axis=0)) == 2.0
    assert float(s.reduce(tf.distribute.ReduceOp.SUM, tf.constant([1.0, 3.0]), axis=0)) == 4.0
