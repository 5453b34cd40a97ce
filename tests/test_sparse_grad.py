"""Sparse gradients of gathers (``IndexedSlices``), against TensorFlow's answers.

The fixtures come from tests/data/make_sparse_reference.py (TensorFlow 2.21 /
Keras 3): which gradients TensorFlow returns as IndexedSlices, their indices,
values, shapes, dtypes and printed form, what operations on them give, and
Keras 3 optimizer steps applied to them (rows repeated in the indices, where
Keras' sparse rules differ from the dense ones).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tapers as tf

REF = json.loads((Path(__file__).parent / "data" / "sparse_reference.json").read_text())


def _describe(g: Any) -> dict:
    if g is None:
        return {"kind": "none"}
    if isinstance(g, tf.IndexedSlices):
        return {
            "kind": "indexed_slices",
            "indices": g.indices.numpy().tolist(),
            "indices_dtype": g.indices.dtype.name,
            "values": g.values.numpy(),
            "values_shape": list(g.values.shape),
            "values_dtype": g.values.dtype.name,
            "dense_shape": g.dense_shape.numpy().tolist(),
            "dense_shape_dtype": g.dense_shape.dtype.name,
            "dense": tf.convert_to_tensor(g).numpy(),
            "str": str(g),
        }
    return {"kind": "dense", "dense": g.numpy(), "dtype": g.dtype.name}


def _run_program(body: str) -> dict:
    src = "def f(tf, np, v, x, t):\n" + "".join("    " + line + "\n" for line in body.split("\n"))
    ns: dict = {}
    exec(src, ns)
    v = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 4.0 - 1.0)
    x = tf.constant(np.linspace(-1.0, 2.0, 12).reshape(4, 3))
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y, src_ = ns["f"](tf, np, v, x, t)
    return _describe(t.gradient(y, src_))


def _check(got: dict, want: dict) -> None:
    assert got["kind"] == want["kind"], (got, want)
    if want["kind"] == "indexed_slices":
        for key in ("indices", "indices_dtype", "values_shape", "values_dtype", "dense_shape", "dense_shape_dtype"):
            assert got[key] == want[key], key
        want_values = np.reshape(want["values"], want["values_shape"])
        np.testing.assert_allclose(got["values"].reshape(want["values_shape"]), want_values, rtol=1e-6, atol=1e-6)
        # TensorFlow prints its tensors as tf.Tensor(...), tapers as tapers.Tensor(...).
        assert got["str"] == want["str"].replace("tf.Tensor(", "tapers.Tensor(")
    if want["kind"] != "none":
        np.testing.assert_allclose(got["dense"], np.asarray(want["dense"]), rtol=1e-6, atol=1e-6)
    if want["kind"] == "dense":
        assert got["dtype"] == want["dtype"]


@pytest.mark.parametrize("name", sorted(REF["programs"]))
def test_gradient_matches_tensorflow(name: str) -> None:
    _check(_run_program(REF["programs"][name]), REF["gradients"][name])


def _slices() -> Any:
    v = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 4.0 - 1.0)
    with tf.GradientTape() as t:
        y = tf.reduce_sum(tf.gather(v, [2, 0, 2]) * [[1.0, 2.0, 3.0]])
    return t.gradient(y, v)


def _outcome(fn: Any) -> dict:
    try:
        r = fn()
    except Exception as e:
        return {"error": type(e).__name__}
    if isinstance(r, tuple):
        return {"tuple": [_outcome(lambda r=x: r) for x in r]}
    if isinstance(r, list):
        return {"list": [_outcome(lambda r=x: r) for x in r]}
    return _describe(r)


def _check_outcome(got: dict, want: dict) -> None:
    if "error" in want:
        assert got == want
    elif "tuple" in want or "list" in want:
        key = "tuple" if "tuple" in want else "list"
        assert len(got[key]) == len(want[key])
        for a, b in zip(got[key], want[key]):
            _check_outcome(a, b)
    else:
        _check(got, want)


OPS = {
    "neg": lambda g, d: -g,
    "convert_to_tensor": lambda g, d: tf.convert_to_tensor(g),
    "add_n_with_dense": lambda g, d: tf.math.add_n([g, d]),
    "multiply_converts": lambda g, d: tf.multiply(g, 2.0),
    "plus_operator": lambda g, d: g + g,
    "times_operator": lambda g, d: g * 2.0,
    "clip_by_norm": lambda g, d: tf.clip_by_norm(g, 1.0),
    "clip_by_global_norm": lambda g, d: tf.clip_by_global_norm([g, d], 2.0),
    "global_norm": lambda g, d: tf.linalg.global_norm([g, d]),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_operations_on_slices_match_tensorflow(name: str) -> None:
    g = _slices()
    _check_outcome(_outcome(lambda: OPS[name](g, tf.ones((4, 3)))), REF["ops"][name])


def test_properties_and_repr() -> None:
    g = _slices()
    assert list(g.shape) == REF["properties"]["shape"]
    assert g.dtype.name == REF["properties"]["dtype"]
    assert isinstance(g.device, str)
    # repr is Python's default, as TensorFlow's.
    assert repr(g).startswith("<tapers.IndexedSlices object at 0x")
    assert tf.IndexedSlices(tf.ones((1, 2)), [3]).dense_shape is None
    with pytest.raises(ValueError, match="dense_shape"):
        tf.convert_to_tensor(tf.IndexedSlices(tf.ones((1, 2)), [3]))


def test_densified_gradient_finite_differences_float64() -> None:
    # The densified sparse gradient of a nonlinear loss over repeated rows
    # (two gathers, concatenated) against central differences in float64.
    table0 = np.random.default_rng(0).normal(size=(5, 3))
    ids_a, ids_b = [4, 1, 4], [1, 0]

    def loss(table: Any) -> Any:
        a = tf.gather(table, ids_a)
        b = tf.nn.embedding_lookup(table, ids_b)
        return tf.reduce_sum(tf.sin(a) * tf.range(1.0, 4.0, dtype=tf.float64)) + tf.reduce_sum(b**3)

    v = tf.Variable(table0)
    with tf.GradientTape() as t:
        y = loss(v)
    g = t.gradient(y, v)
    assert isinstance(g, tf.IndexedSlices)
    assert g.indices.numpy().tolist() == ids_b + ids_a  # latest-recorded consumer first, as TensorFlow
    got = tf.convert_to_tensor(g).numpy()
    eps = 1e-6
    num = np.zeros_like(table0)
    for i in range(table0.shape[0]):
        for j in range(table0.shape[1]):
            hi, lo = table0.copy(), table0.copy()
            hi[i, j] += eps
            lo[i, j] -= eps
            num[i, j] = (float(loss(tf.constant(hi))) - float(loss(tf.constant(lo)))) / (2 * eps)
    np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-8)


def test_second_order_through_slices_values() -> None:
    # The values of a sparse gradient are recorded on an outer tape.
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float64)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = tf.reduce_sum(tf.gather(v, [1, 1]) ** 3)
        g = inner.gradient(y, v)
        assert isinstance(g, tf.IndexedSlices)
        z = tf.reduce_sum(tf.convert_to_tensor(g))
    h = outer.gradient(z, v)
    # d/dv of sum(2 * 3 v[1]^2) = 12 v[1] on row 1.
    np.testing.assert_allclose(tf.convert_to_tensor(h).numpy(), [[0.0, 0.0], [36.0, 48.0]])


def test_sparse_path_engaged_without_dense_table() -> None:
    # The pass builds no dense gradient of the table: the engine reports the
    # gather's gradient delivered sparse, and the values hold only the rows read.
    table = tf.Variable(tf.zeros((200_000, 8)))
    ids = tf.constant([5, 199_999, 5])
    with tf.GradientTape() as t:
        y = tf.reduce_sum(tf.nn.embedding_lookup(table, ids) ** 2)
    g = t.gradient(y, table)
    assert isinstance(g, tf.IndexedSlices)
    assert t.last_pass_stats()["sparse_gathers"] == 1
    assert tuple(g.values.shape) == (3, 8)
    assert g.dense_shape.numpy().tolist() == [200_000, 8]


_RSS_SCRIPT = """
import os, tapers as tf
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
table = tf.Variable(tf.ones((1 << 21, 16)))  # 128 MiB
ids = tf.constant([7, 123456, 7])
for _ in range(2):
    with tf.GradientTape() as t:
        y = tf.reduce_sum(tf.gather(table, ids) ** 2)
    g = t.gradient(y, table)
before = rss()
with tf.GradientTape() as t:
    y = tf.reduce_sum(tf.gather(table, ids) ** 2)
g = t.gradient(y, table)
opt = tf.optimizers.SGD(0.1)
print(type(g).__name__, rss() - before)
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_embedding_step_does_not_allocate_the_table() -> None:
    # Resident memory around one gradient of a 128 MiB table: a dense
    # gradient would add 128 MiB; the sparse one adds a few rows.
    # The tapers this test imported (a source checkout's python/ or the installed wheel).
    env = dict(os.environ, PYTHONPATH=str(Path(tf.__file__).resolve().parent.parent))
    out = subprocess.run([sys.executable, "-c", _RSS_SCRIPT], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    kind, grown = out.stdout.split()
    assert kind == "IndexedSlices"
    assert int(grown) < 16 << 20, f"the gradient grew resident memory by {int(grown) >> 20} MiB"


def _train(name: str) -> list:
    # The reference's training program and optimizer configuration, run with tapers.
    cls, kwargs = REF["optimizer_configs"][name]
    body = REF["train_program"]
    ns: dict = {}
    exec("def train(tf, np, opt, densify):\n" + "".join("    " + line + "\n" for line in body.split("\n")), ns)
    return ns["train"](tf, np, getattr(tf.optimizers, cls)(**kwargs), False)


@pytest.mark.parametrize("name", sorted(REF["optimizers"]))
def test_optimizer_applies_slices_as_keras(name: str) -> None:
    np.testing.assert_allclose(_train(name), REF["optimizers"][name]["sparse"], rtol=2e-5, atol=2e-6)


def test_keras_sparse_rules_differ_from_dense_where_rows_repeat() -> None:
    # Why the sparse path is not "densify then step": Keras 3's Adam squares
    # each row before adding repeats, so its trajectory differs from the dense one.
    ref = REF["optimizers"]["adam"]
    assert not np.allclose(ref["sparse"], ref["dense"], atol=1e-4)
    assert np.allclose(REF["optimizers"]["sgd"]["sparse"], REF["optimizers"]["sgd"]["dense"], atol=1e-6)


def test_forward_accumulator_and_jacobian_through_a_gather() -> None:
    # A JVP differentiates the (densified) sparse VJP; a Jacobian stays dense.
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.autodiff.ForwardAccumulator(x, tf.ones_like(x)) as acc:
        y = tf.reduce_sum(tf.gather(x, [1, 1]) ** 2)
    assert float(acc.jvp(y)) == 28.0
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as t:
        z = tf.gather(v, [1, 0]) * 2.0
    j = t.jacobian(z, v)
    assert isinstance(j, tf.Tensor) and tuple(j.shape) == (2, 2, 2, 2)
    assert float(tf.reduce_sum(j)) == 8.0


@pytest.mark.parametrize(
    "make",
    [lambda: tf.optimizers.SGD(0.1), lambda: tf.optimizers.Adam(0.1), lambda: tf.optimizers.RMSprop(0.1)],
)
def test_traced_step_with_slices_matches_eager(make: Any) -> None:
    # A tapers.function training step whose gradient is an IndexedSlices
    # follows the eager trajectory bit for bit, from one trace: Adam's bias
    # correction is computed from the counter in the graph, not read into Python.
    out, runs = [], []
    for traced in (False, True):
        v = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 10)
        opt = make()

        def step(ids: Any, v: Any = v, opt: Any = opt) -> Any:
            with tf.GradientTape() as t:
                loss = tf.reduce_sum(tf.gather(v, ids) ** 2)
            opt.apply_gradients([(t.gradient(loss, v), v)])
            return loss

        run = tf.function(step) if traced else step
        for _ in range(6):
            run(tf.constant([0, 2, 0]))
        out.append(v.numpy())
        runs.append(run)
    assert out[1].tobytes() == out[0].tobytes()
    assert runs[1].experimental_get_tracing_count() == 1
