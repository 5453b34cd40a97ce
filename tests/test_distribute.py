"""tapers.distribute: data-parallel training over MPI.

The multi-rank tests launch ``mpiexec -n 2`` in subprocesses (each with a
timeout, so a hang fails the test instead of the suite) running
tests/distribute_worker.py or a short script. mpi4py and mpich come with the
``test`` extra; without them only the world-of-one tests run.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import tapers as tf
import tapers.distribute as dist
from tapers.distribute import _tape as dtape

HERE = Path(__file__).resolve().parent
WORKER = HERE / "distribute_worker.py"
PACKAGE_ROOT = str(Path(tf.__file__).resolve().parent.parent)


def _mpiexec() -> str | None:
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return None
    found = shutil.which("mpiexec") or str(Path(sys.executable).parent / "mpiexec")
    return found if Path(found).exists() else None


MPIEXEC = _mpiexec()
needs_mpi = pytest.mark.skipif(MPIEXEC is None, reason="mpi4py and mpich are not installed (pip install '.[test]')")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([PACKAGE_ROOT, env.get("PYTHONPATH", "")])
    env["RAYON_NUM_THREADS"] = "1"  # two ranks on two cores: one thread each
    env["TAPERS_DISTRIBUTE_TIMEOUT"] = "20"
    return env


def launch(n: int | None, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Runs ``python ARGS`` alone (n None) or under ``mpiexec -n n``."""
    cmd = [sys.executable, *args]
    if n is not None:
        assert MPIEXEC is not None
        cmd = [MPIEXEC, "-n", str(n), *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=_env())


def params(out: Path, rank: int = 0) -> list[np.ndarray]:
    with np.load(out / f"params_rank{rank}.npz") as f:
        return [f[k] for k in sorted(f.files, key=lambda k: int(k.split("_")[1]))]


# --- a world of one ------------------------------------------------------------------


def test_a_world_of_one_without_mpiexec():
    dist.init()
    assert dist.is_initialized() and dist.rank() == 0 and dist.size() == 1 and dist.local_rank() == 0
    x = tf.constant([1.0, 2.0])
    assert dist.allreduce(x) is x and dist.broadcast(x) is x
    np.testing.assert_array_equal(dist.allgather(x).numpy(), [1.0, 2.0])
    dist.barrier()
    w = tf.Variable([3.0])
    dist.broadcast_variables([w])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(w * w)
    grads = dist.DistributedGradientTape(tape).gradient(y, [w])
    np.testing.assert_array_equal(grads[0].numpy(), [6.0])
    with pytest.raises(ValueError, match="root_rank 1"):
        dist.broadcast(x, root_rank=1)
    with pytest.raises(TypeError, match="Average, Sum"):
        dist.allreduce(x, op="mean")


def test_buckets_group_by_size_and_dtype():
    f32, f64 = "float32", "float64"
    layout = (((10, 10), f32), None, ((5,), f32), ((300,), f32), ((100,), f32), ((4,), f64), ((2,), f64))
    plan = dtape._Plan(layout, bucket_bytes=1024)
    # 400 + 20 bytes fit; a tensor of half the bucket or more goes alone; 420 + 400 fill a bucket;
    # float64 starts its own bucket.
    assert [b.indices for b in plan.buckets] == [[3], [0, 2, 4], [5, 6]]
    assert [b.nbytes for b in plan.buckets] == [1200, 820, 48]
    assert plan.buckets[2].buffer.dtype == np.float64
    assert [b.indices for b in dtape._Plan(layout[:3] * 3, bucket_bytes=1000).buckets] == [[0, 2, 3, 5], [6, 8]]


def test_shard_and_batches_split_every_global_batch():
    x = np.arange(20)
    y = np.arange(20) * 10
    assert dist.shard(x, 3, 1).tolist() == [1, 4, 7, 10, 13, 16, 19]
    xs, ys = dist.shard((x, y), num_shards=2, index=0)
    assert ys.tolist() == (xs * 10).tolist()
    one = list(dist.batches({"x": x}, 8, seed=5, epoch=2, num_shards=1, index=0))
    two = [list(dist.batches({"x": x}, 8, seed=5, epoch=2, num_shards=2, index=i)) for i in range(2)]
    assert len(one) == 2 and all(len(b["x"]) == 8 for b in one)  # 20 // 8 steps, remainder dropped
    for k, batch in enumerate(one):
        assert sorted(batch["x"]) == sorted(np.concatenate([two[0][k]["x"], two[1][k]["x"]]))
        assert two[0][k]["x"].tolist() == batch["x"][0::2].tolist()
    other_epoch = next(dist.batches(x, 8, seed=5, epoch=3, num_shards=1, index=0))
    assert other_epoch.tolist() != one[0]["x"].tolist()
    assert len(list(dist.batches(x, 8, drop_remainder=False, num_shards=1, index=0))) == 3
    with pytest.raises(ValueError, match="multiple of num_shards 3"):
        next(dist.batches(x, 8, num_shards=3, index=0))
    with pytest.raises(ValueError, match="first dimension"):
        dist.shard((x, y[:5]), 2, 0)


# --- two ranks ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One rank at batch 64, and twice two ranks at 32 each (checkpointing every 4 steps)."""
    if MPIEXEC is None:
        pytest.skip("mpi4py and mpich are not installed")
    out = {name: tmp_path_factory.mktemp(name) for name in ("one", "two", "two_again")}
    r = launch(None, str(WORKER), str(out["one"]))
    assert r.returncode == 0, r.stderr
    for name in ("two", "two_again"):
        r = launch(2, str(WORKER), str(out[name]), "--checkpoint-every", "4")
        assert r.returncode == 0, r.stderr
    return out


@needs_mpi
def test_two_ranks_at_half_batch_match_one_rank_to_float32_rounding(runs):
    one, two = params(runs["one"]), params(runs["two"])
    for a, b in zip(one, two):
        # Seen: at most 1.2e-7 (about one float32 ulp of values near 1) after 10 SGD steps.
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-6)


@needs_mpi
def test_ranks_agree_and_a_rerun_is_bitwise_identical(runs):
    for a, b, c in zip(params(runs["two"], 0), params(runs["two"], 1), params(runs["two_again"], 0)):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


@needs_mpi
def test_bytes_copied_per_step(runs):
    # MLP 20-32-5: 837 float32 parameters in one bucket: packed once in, copied once out.
    copied_in, copied_out, reduced, buckets, copied_by_mpi, plans_built = np.load(runs["two"] / "stats_rank0.npy")
    assert reduced == 837 * 4 and buckets == 1
    assert copied_in == reduced and copied_out == reduced and copied_by_mpi == 0  # packed, reduced in place
    # Every step wraps a new tape; the bucket plan (and its buffer) was built once and reused.
    assert plans_built == 1


@needs_mpi
def test_a_rank_that_raises_ends_the_job_and_the_checkpoint_resumes_it(runs, tmp_path):
    t0 = time.monotonic()
    r = launch(2, str(WORKER), str(tmp_path), "--checkpoint-every", "4", "--fail-at", "6", timeout=30)
    assert r.returncode != 0
    assert time.monotonic() - t0 < 15
    assert "tapers.distribute: rank 1 of 2 raised RuntimeError: failing on purpose at step 6" in r.stderr
    assert (tmp_path / "ckpt.safetensors").exists() and not (tmp_path / "params_rank0.npz").exists()
    r = launch(2, str(WORKER), str(tmp_path), "--checkpoint-every", "4", "--resume")
    assert r.returncode == 0, r.stderr
    for a, b in zip(params(tmp_path), params(runs["two"])):
        np.testing.assert_array_equal(a, b)


@needs_mpi
def test_a_killed_rank_ends_the_job_naming_it(tmp_path):
    t0 = time.monotonic()
    r = launch(2, str(WORKER), str(tmp_path), "--fail-at", "3", "--fail-how", "kill", timeout=30)
    assert r.returncode != 0
    assert time.monotonic() - t0 < 15
    assert "tapers.distribute: rank 1 (pid" in r.stderr and "was killed by SIGKILL" in r.stderr, r.stderr
    assert "rank 0 (pid" not in r.stderr  # the rank mpiexec then ended is not blamed


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the supervisor forks on Linux only")
@pytest.mark.parametrize("how", ["SIGKILL", "SIGSEGV", "exit 3"])
def test_the_supervisor_ends_as_its_rank_did(how):
    # mpiexec's proxy ends the job at once when a process it started dies by a signal; a process
    # that exits with 137 instead ends it only through its PMI connection closing, which hydra
    # ignores once it has reaped the process (one killed-rank job in ten waited for the stall
    # timeout that way). So the supervisor must die by its rank's signal, not exit 128 + signal.
    end = "os._exit(3)" if how == "exit 3" else f"os.kill(os.getpid(), signal.{how})"
    code = textwrap.dedent(
        f"""
        import os, signal
        from tapers.distribute import _world
        _world._supervise(5)
        {end}
        """
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=_env())
    if how == "exit 3":
        assert r.returncode == 3 and r.stderr == "", r.stderr
    else:
        signum = getattr(signal, how)
        assert r.returncode == -signum, (r.returncode, r.stderr)
        assert "tapers.distribute: rank 5 (pid" in r.stderr and f"was killed by {how}" in r.stderr, r.stderr


@needs_mpi
def test_without_the_supervisor_a_watcher_reports_the_killed_rank(tmp_path, monkeypatch):
    # The fallback when init() cannot fork (a thread pool already running, not Linux): a watcher
    # process per rank reports the first rank of the host whose pipe closes. Under heavy load that
    # may be the rank mpiexec ended a moment later, so only the report and the job's end are checked.
    monkeypatch.setenv("TAPERS_DISTRIBUTE_SUPERVISOR", "0")
    t0 = time.monotonic()
    r = launch(2, str(WORKER), str(tmp_path), "--fail-at", "3", "--fail-how", "kill", timeout=30)
    assert r.returncode != 0 and time.monotonic() - t0 < 15
    assert r.stderr.count("ended without finishing: killed by a signal or crashed outside Python") == 1, r.stderr


@needs_mpi
def test_mismatched_gradients_raise_on_every_rank(tmp_path):
    r = launch(2, str(WORKER), str(tmp_path), "--mismatch", "2", timeout=30)
    assert r.returncode != 0
    assert "differ in number, shape or dtype" in r.stderr
    assert "rank 0: [[20, 32] float32, [32] float32, [32, 5] float32, [5] float32]" in r.stderr
    assert "rank 1: [[20, 32] float32, [32] float32, [32, 5] float32]" in r.stderr


@needs_mpi
def test_a_skipped_gradient_call_is_named(tmp_path):
    r = launch(2, str(WORKER), str(tmp_path), "--skip", "3", timeout=30)
    assert r.returncode != 0, r.stdout + r.stderr
    assert "the ranks reached different collectives" in r.stderr, r.stdout + r.stderr
    assert "rank 1 in the end of the script (gradient calls so far: 9)" in r.stderr, r.stdout + r.stderr


COLLECTIVES = textwrap.dedent(
    r"""
    import sys

    import numpy as np
    import tapers as tf
    import tapers.distribute as dist

    dist.init()
    r, n = dist.rank(), dist.size()
    assert n == 2 and dist.local_rank() == r and dist.local_size() == 2
    x = tf.constant([1.0, 2.0]) * float(r + 1)
    assert dist.allreduce(x).numpy().tolist() == [1.5, 3.0]
    assert dist.allreduce(x, op=dist.Sum).numpy().tolist() == [3.0, 6.0]
    assert dist.allreduce(x, op=dist.Max).numpy().tolist() == [2.0, 4.0]
    assert dist.allreduce(x, op=dist.Min).numpy().tolist() == [1.0, 2.0]
    assert dist.allreduce(x, op=dist.Product).numpy().tolist() == [2.0, 8.0]
    assert dist.allreduce(tf.constant([3, 4]) + r).numpy().tolist() == [3, 4]  # integer average floors
    g = dist.allgather(tf.fill([r + 1, 2], float(r)))
    assert g.shape == (3, 2) and g.numpy()[:, 0].tolist() == [0.0, 1.0, 1.0]
    assert dist.broadcast(tf.constant([float(r)]), root_rank=1).numpy().tolist() == [1.0]
    w = tf.Variable(np.full((2, 2), r, np.float32))
    dist.broadcast_variables([w], root_rank=1)
    assert (w.numpy() == 1).all()
    dist.barrier()

    # A mismatch raises the same error on both ranks, which can catch it and go on.
    try:
        dist.allreduce(tf.zeros([2 + r]))
    except tf.errors.InvalidArgumentError as e:
        assert "rank 0: shape [2] dtype float32; rank 1: shape [3] dtype float32" in str(e), str(e)
    else:
        raise AssertionError("no error")
    try:
        dist.broadcast_variables([w] if r == 0 else [w, w])
    except tf.errors.InvalidArgumentError as e:
        assert "rank 1 passed 2 variables" in str(e), str(e)
    else:
        raise AssertionError("no error")

    # Buckets of one tensor are sent from the tensor's own buffer: no copy in.
    vs = [tf.Variable(np.ones((64, 64), np.float32) * (r + 1)), tf.Variable(np.ones(64, np.float64))]
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(vs[0] * vs[0]) + tf.cast(tf.reduce_sum(vs[1]), tf.float32)
    t = dist.DistributedGradientTape(tape, bucket_bytes=1)
    grads = t.gradient(loss, {"a": vs[0], "b": vs[1]})
    assert grads["a"].numpy()[0, 0] == 3.0 and grads["b"].dtype == tf.float64
    s = t.last_stats
    total = 64 * 64 * 4 + 64 * 8
    assert s["buckets"] == 2 and s["bytes_copied_in"] == 0 and s["bytes_copied_out"] == total, s
    assert s["bytes_copied_by_mpi"] == total  # out of place: MPICH copies the send buffer into the receive buffer
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(vs[0] * vs[0]) + tf.cast(tf.reduce_sum(vs[1]), tf.float32)
    summed = dist.DistributedGradientTape(tape, op=dist.Sum).gradient(loss, vs)
    assert summed[0].numpy()[0, 0] == 6.0 and summed[1].numpy()[0] == 2.0

    # Scalars, and a None gradient (the same on every rank) passing through.
    s_var, unused = tf.Variable(float(r + 1)), tf.Variable(1.0)
    with tf.GradientTape() as tape:
        loss = s_var * s_var
    gs, gu = dist.DistributedGradientTape(tape).gradient(loss, [s_var, unused])
    assert gs.shape == () and float(gs) == 3.0 and gu is None

    # A sparse gradient (a gather of table rows) stays sparse: every rank's rows are gathered, in rank
    # order, values averaged over the ranks; reduced dense gradients come back beside it as before.
    table, bias = tf.Variable(np.ones((1000, 3), np.float32)), tf.Variable(1.0)
    ids = tf.constant([r, 10 + r, 10 + r][: r + 2])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.gather(table, ids)) * float(r + 1) + bias * bias
    dtape = dist.DistributedGradientTape(tape)
    gt, gb = dtape.gradient(loss, [table, bias])
    assert isinstance(gt, tf.IndexedSlices), type(gt)
    assert gt.indices.numpy().tolist() == [0, 10, 1, 11, 11], gt.indices
    assert gt.values.numpy()[:, 0].tolist() == [0.5, 0.5, 1.0, 1.0, 1.0] and gt.values.shape == (5, 3)
    assert gt.dense_shape.numpy().tolist() == [1000, 3] and float(gb) == 2.0
    dense_sum = np.zeros((1000, 3), np.float32)
    np.add.at(dense_sum, gt.indices.numpy(), gt.values.numpy())
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.gather(table, ids)) * float(r + 1) + bias * bias
    gd, _ = dist.DistributedGradientTape(tape, sparse_as_dense=True).gradient(loss, [table, bias])
    assert not isinstance(gd, tf.IndexedSlices) and gd.shape == (1000, 3)
    np.testing.assert_array_equal(gd.numpy(), dense_sum)
    sys.stdout.write(f"ok {r}\n")
    """
)


@needs_mpi
def test_collectives_on_two_ranks(tmp_path):
    script = tmp_path / "collectives.py"
    script.write_text(COLLECTIVES)
    r = launch(2, str(script), timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ok 0\n" in r.stdout and "ok 1\n" in r.stdout


@needs_mpi
def test_digits_demo_on_two_ranks_matches_one(tmp_path):
    args = ["-m", "tapers.examples.digits", "--distributed", "--epochs", "3", "--output", str(tmp_path / "d.png")]
    one = launch(None, *args, timeout=120)
    two = launch(2, *args, timeout=120)
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    accuracy = [float(r.stdout.split("held-out accuracy: ")[1].split()[0]) for r in (one, two)]
    assert accuracy[0] > 0.9 and accuracy[1] == accuracy[0], (one.stdout, two.stdout)
    assert two.stdout.count("held-out accuracy") == 1 and "over 2 rank(s)" in two.stdout
    # The progress bar comes from rank 0 only: one bar starts (its first line has no postfix yet).
    assert two.stdout.count("?epoch/s]") == one.stdout.count("?epoch/s]") == 1
