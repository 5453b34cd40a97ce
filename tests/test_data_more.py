"""tapers.data additions (counter, random, scan, unique, group_by_window, bucket_by_sequence_length,
choose/sample_from_datasets, rejection_resample, ignore_errors, rebatch, save/load, the cardinality
constants and their tf.data.experimental forms): the deterministic programs of
tests/data/make_data_more_reference.py compared with TensorFlow 2.21's results, and the random ones
checked by statistics and seed determinism (tapers' random streams are not TensorFlow's)."""

from __future__ import annotations

import collections
import importlib.util
import json
import logging
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tapers as tf

DATA = Path(__file__).parent / "data"
_spec = importlib.util.spec_from_file_location("make_data_more_reference", DATA / "make_data_more_reference.py")
assert _spec is not None and _spec.loader is not None
ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)
EXPECTED = json.loads((DATA / "data_more_reference.json").read_text())["programs"]
D = tf.data.Dataset


def _close(got: Any, want: Any, where: str) -> None:
    if isinstance(want, dict) and "value" in want:
        assert got["dtype"] == want["dtype"], f"{where}: dtype {got['dtype']} != {want['dtype']}"
        assert got["shape"] == want["shape"], f"{where}: shape {got['shape']} != {want['shape']}"
        g, w = np.asarray(got["value"], dtype=float), np.asarray(want["value"], dtype=float)
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7, err_msg=where)
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), f"{where}: {got} != {want}"
        for k in want:
            _close(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: {got} != {want}"
        for i, (x, y) in enumerate(zip(got, want)):
            _close(x, y, f"{where}[{i}]")
    else:
        assert got == want, f"{where}: {got!r} != {want!r}"


@pytest.mark.parametrize("name", sorted(ref.PROGRAMS))
def test_matches_tensorflow(name: str) -> None:
    got = json.loads(json.dumps(ref.PROGRAMS[name](tf)))
    _close(got, EXPECTED[name], name)


def test_fixture_is_complete() -> None:
    assert sorted(EXPECTED) == sorted(ref.PROGRAMS)
    assert len(EXPECTED["errors"]) >= 15


# ------------------------------------------------------------------ random: statistics and seeds
def _values(ds: tf.data.Dataset, n: int | None = None) -> list[int]:
    return [int(v) for v in (ds if n is None else ds.take(n)).as_numpy_iterator()]


def test_random_is_uniform_non_negative_and_seeded() -> None:
    a = _values(D.random(seed=7), 2000)
    assert a == _values(D.random(seed=7), 2000)
    assert a != _values(D.random(seed=8), 2000)
    arr = np.asarray(a, dtype=np.float64)
    assert arr.min() >= 0 and arr.max() < 2**32 and len(set(a)) > 1995  # TensorFlow's values are uint32
    assert abs(arr.mean() / 2.0**32 - 0.5) < 0.03 and arr.max() > 2**31
    ds = D.random(seed=3)
    assert _values(ds, 5) == _values(ds, 5)  # every iteration repeats the seeded stream
    ds = D.random(seed=3, rerandomize_each_iteration=True)
    first, second = _values(ds, 5), _values(ds, 5)
    assert first != second
    again = D.random(seed=3, rerandomize_each_iteration=True)
    assert _values(again, 5) == first and _values(again, 5) == second  # reproducible across datasets
    assert ds.element_spec == tf.TensorSpec([], tf.int64)
    assert isinstance(tf.data.experimental.RandomDataset(seed=7), tf.data.Dataset)
    assert _values(tf.data.experimental.RandomDataset(seed=7), 20) == a[:20]


def test_random_global_seed() -> None:
    tf.random.set_seed(11)
    a = _values(D.random(), 10)
    tf.random.set_seed(11)
    assert _values(D.random(), 10) == a


def test_sample_from_datasets_follows_weights() -> None:
    ones, twos = D.from_tensors(tf.constant(1, tf.int64)).repeat(), D.from_tensors(tf.constant(2, tf.int64)).repeat()
    ds = D.sample_from_datasets([ones, twos], weights=[0.25, 0.75], seed=4)
    v = _values(ds, 4000)
    frac = v.count(2) / 4000
    assert abs(frac - 0.75) < 0.03
    assert v == _values(ds, 4000)  # seeded: each iteration the same
    assert v != _values(D.sample_from_datasets([ones, twos], weights=[0.25, 0.75], seed=5), 4000)
    t = D.sample_from_datasets([ones, twos], weights=tf.constant([0.9, 0.1], tf.float64), seed=1)
    assert abs(_values(t, 2000).count(1) / 2000 - 0.9) < 0.03
    assert int(ds.cardinality()) == tf.data.INFINITE_CARDINALITY


def test_sample_from_datasets_weights_dataset() -> None:
    ones, twos = D.from_tensors(tf.constant(1, tf.int64)).repeat(), D.from_tensors(tf.constant(2, tf.int64)).repeat()
    w = D.from_tensor_slices(tf.constant([[1.0, 0.0]] * 5 + [[0.0, 1.0]] * 5))
    ds = D.sample_from_datasets([ones, twos], weights=w, seed=2)
    assert _values(ds) == [1] * 5 + [2] * 5  # ends with the weights
    bad = D.sample_from_datasets([ones, twos], weights=D.from_tensors(tf.constant([1.0, 2.0, 3.0])))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape \(2,\)"):
        list(bad)
    with pytest.raises(TypeError, match="float"):
        D.sample_from_datasets([ones, twos], weights=D.from_tensors(tf.constant([1, 2])))


def test_sample_stop_on_empty() -> None:
    a, b = D.range(3), D.range(10, 1000)
    got = _values(D.sample_from_datasets([a, b], seed=1, stop_on_empty_dataset=True))
    assert len(got) < 990
    assert [v for v in got if v < 3] == [0, 1, 2]


def test_rejection_resample_reaches_target() -> None:
    labels = np.array([0] * 800 + [1] * 150 + [2] * 50, np.int64)
    rng = np.random.default_rng(0)
    rng.shuffle(labels)
    ds = D.from_tensor_slices(labels)
    target = [1 / 3, 1 / 3, 1 / 3]
    for initial in ([0.8, 0.15, 0.05], None):
        out = list(ds.rejection_resample(lambda c: c, target, initial_dist=initial, seed=3).as_numpy_iterator())
        classes = np.array([c for c, _ in out])
        np.testing.assert_array_equal(classes, np.array([x for _, x in out]))
        counts = np.bincount(classes, minlength=3) / len(classes)
        tol = 0.06 if initial is not None else 0.12  # the estimate of the initial distribution starts off smoothed
        np.testing.assert_allclose(counts, target, atol=tol)
    a = ds.rejection_resample(lambda c: c, target, initial_dist=[0.8, 0.15, 0.05], seed=9)
    assert list(a.as_numpy_iterator())[:50] == list(a.as_numpy_iterator())[:50]
    spec = a.element_spec
    assert spec == (tf.TensorSpec([], tf.int64), tf.TensorSpec([], tf.int64))
    via_apply = ds.apply(tf.data.experimental.rejection_resample(lambda c: c, target, [0.8, 0.15, 0.05], seed=9))
    assert [int(c) for c, _ in via_apply.as_numpy_iterator()][:5] == [int(c) for c, _ in a.as_numpy_iterator()][:5]


def test_rejection_resample_errors() -> None:
    ds = D.from_tensor_slices(tf.constant([0, 1, 5], tf.int64))
    with pytest.raises(tf.errors.InvalidArgumentError, match="class 5 is out of range"):
        list(ds.rejection_resample(lambda c: c, [0.5, 0.5], seed=1))
    with pytest.raises(ValueError, match="shape"):
        ds.rejection_resample(lambda c: c, [0.5, 0.5], initial_dist=[1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="vector"):
        ds.rejection_resample(lambda c: c, 0.5)


# ------------------------------------------------------------------ deterministic extras
def test_counter_and_cardinality_constants() -> None:
    assert tf.data.INFINITE_CARDINALITY == -1 and tf.data.UNKNOWN_CARDINALITY == -2
    assert int(tf.data.experimental.cardinality(D.counter().take(5))) == 5
    with pytest.raises(TypeError, match="infinite"):
        len(D.counter())
    with pytest.raises(ValueError, match="scalar"):
        D.counter(start=[1, 2])
    assert _values(D.counter(step=-1), 3) == [0, -1, -2]


def test_scan_errors_name_the_problem() -> None:
    ds = D.range(3)
    with pytest.raises(TypeError, match="pair"):
        list(ds.scan(tf.constant(0, tf.int64), lambda s, x: s))
    with pytest.raises(TypeError, match="types for the new state"):
        list(ds.scan(tf.constant(0, tf.int64), lambda s, x: (tf.cast(s, tf.float32), x)))
    with pytest.raises(TypeError, match="structure"):
        list(ds.scan((tf.constant(0, tf.int64), tf.constant(1, tf.int64)), lambda s, x: (s[0], x)))


def test_scan_state_from_python_values_and_gradient_free_floats() -> None:
    ds = D.from_tensor_slices(np.array([1.0, 2.0, 3.0], np.float32)).scan(0.0, lambda s, x: (s + x, s * x))
    np.testing.assert_allclose(list(ds.as_numpy_iterator()), [0.0, 2.0, 9.0])
    assert ds.element_spec == tf.TensorSpec([], tf.float32)


def test_unique_errors() -> None:
    with pytest.raises(TypeError, match="float32"):
        D.from_tensor_slices([1.0]).unique()
    with pytest.raises(tf.errors.InvalidArgumentError, match="single component"):
        D.from_tensor_slices(([1], [2])).unique()


def test_group_by_window_errors() -> None:
    ds = D.range(4)
    with pytest.raises(ValueError, match="key_func"):
        list(ds.group_by_window(lambda x: tf.stack([x, x]), lambda k, w: w, window_size=2))
    with pytest.raises(tf.errors.InvalidArgumentError, match="greater than zero"):
        list(ds.group_by_window(lambda x: x, lambda k, w: w, window_size_func=lambda k: -1))
    with pytest.raises(TypeError, match="reduce_func"):
        ds.group_by_window(lambda x: x, lambda k, w: 3, window_size=2)


def test_bucket_errors() -> None:
    ds = D.range(10)
    with pytest.raises(ValueError, match="sorted"):
        ds.bucket_by_sequence_length(lambda x: x, [6, 3], [1, 1, 1])
    with pytest.raises(ValueError, match=r"len\(bucket_batch_sizes\)"):
        ds.bucket_by_sequence_length(lambda x: x, [3], [1])
    seqs = ref._seqs(tf, [1, 7])
    boundary = seqs.bucket_by_sequence_length(lambda x, y: tf.shape(x)[0], [3, 6], [1, 1, 1],
                                              pad_to_bucket_boundary=True)  # fmt: skip
    with pytest.raises(tf.errors.InvalidArgumentError, match="max\\(bucket_boundaries\\)"):
        list(boundary)


def test_choose_errors() -> None:
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
        list(D.choose_from_datasets([D.range(3)], D.from_tensors(tf.constant(-1, tf.int64))))
    with pytest.raises(TypeError, match="int64"):
        D.choose_from_datasets([D.range(3)], D.range(2).map(lambda x: tf.cast(x, tf.float32)))
    with pytest.raises(TypeError, match="single dataset"):
        D.choose_from_datasets(D.range(3), D.range(2))


def test_rebatch_errors() -> None:
    with pytest.raises(ValueError, match="scalar elements"):
        D.range(4).rebatch(2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="positive"):
        D.range(4).batch(2).rebatch(0)


def test_ignore_errors_generator_ends_and_logs(caplog: pytest.LogCaptureFixture) -> None:
    def gen() -> Any:
        yield 1
        raise RuntimeError("boom")

    ds = D.from_generator(gen, output_signature=tf.TensorSpec([], tf.int32)).ignore_errors()
    assert _values(ds) == [1]
    bad = D.range(5).map(lambda x: tf.debugging.check_numerics(1.0 / tf.cast(x - 2, tf.float32), "inf"))
    with caplog.at_level(logging.WARNING, logger="tapers.data"):
        out = list(bad.ignore_errors(log_warning=True).as_numpy_iterator())
    assert len(out) == 4 and any("Ignoring error" in r.message for r in caplog.records)
    flt = D.range(5).filter(lambda x: tf.debugging.check_numerics(1.0 / tf.cast(x - 2, tf.float32), "i") > 0)
    assert _values(flt.map(lambda x: x).ignore_errors()) == [3, 4]


def test_save_load_extension_dtypes_namedtuples_and_errors(tmp_path: Path) -> None:
    Point = collections.namedtuple("Point", ["x", "y"])
    ds = D.from_tensor_slices(Point(tf.cast(tf.reshape(tf.range(6.0), [3, 2]), tf.bfloat16), tf.constant([1, 2, 3])))
    ds.save(str(tmp_path / "p"))
    back = D.load(str(tmp_path / "p"))
    assert back.element_spec == (tf.TensorSpec([2], tf.bfloat16), tf.TensorSpec([], tf.int32))
    assert type(back.element_spec).__name__ == "Point" and int(back.cardinality()) == 3
    got = list(back.as_numpy_iterator())
    np.testing.assert_array_equal(np.asarray(got[2].x, np.float32), [4.0, 5.0])
    assert back.element_spec.x.dtype == tf.bfloat16 and next(iter(back)).x.dtype == tf.bfloat16
    with pytest.raises(ValueError, match="does not match"):
        D.load(str(tmp_path / "p"), element_spec=tf.TensorSpec([], tf.int32))
    with pytest.raises(tf.errors.NotFoundError, match="no dataset"):
        D.load(str(tmp_path / "missing"))
    with pytest.raises(tf.errors.UnimplementedError, match="shard_func"):
        ds.save(str(tmp_path / "q"), shard_func=lambda *x: 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="infinite"):
        D.counter().save(str(tmp_path / "r"))
    with pytest.raises(TypeError, match="window"):
        D.range(4).window(2).save(str(tmp_path / "w"))
    with pytest.raises(ValueError, match="compression"):
        D.range(2).save(str(tmp_path / "c"), compression="ZLIB")
    assert not os.path.exists(tmp_path / "q")


def test_experimental_names_exist() -> None:
    for name in ("sample_from_datasets", "choose_from_datasets", "scan", "unique", "group_by_window",
                 "bucket_by_sequence_length", "rejection_resample", "ignore_errors", "Counter", "RandomDataset",
                 "save", "load", "cardinality", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "AUTOTUNE"):  # fmt: skip
        assert hasattr(tf.data.experimental, name), name


def test_empty_inputs_and_bad_dtypes() -> None:
    empty = D.range(0)
    assert _values(empty.scan(tf.constant(0, tf.int64), lambda s, x: (s + x, x))) == []
    assert _values(empty.group_by_window(lambda x: x, lambda k, w: w, window_size=2)) == []
    assert _values(empty.bucket_by_sequence_length(lambda x: x, [2], [1, 1], no_padding=True).unbatch()) == []
    assert _values(D.choose_from_datasets([D.range(3)], empty)) == []
    assert _values(D.range(0).batch(2).rebatch(3)) == []
    assert _values(empty.ignore_errors()) == []
    with pytest.raises(TypeError, match="bool"):
        D.counter(dtype=tf.bool)


def test_scan_in_function_and_under_gradient_tape() -> None:
    @tf.function
    def f(v: Any) -> Any:
        s = tf.constant(0.0)
        for x in D.from_tensor_slices(tf.constant([1.0, 2.0, 3.0])).scan(tf.constant(0.0), lambda a, x: (a + x, a * x)):
            s = s + x * v
        return s

    assert float(f(tf.constant(2.0))) == 22.0  # outputs 0, 1*2, 3*3
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        ds = D.from_tensor_slices(tf.constant([1.0, 2.0, 3.0])).map(lambda x: x * v)
        out = ds.scan(tf.constant(0.0), lambda s, x: (s + x, s + x)).reduce(tf.constant(0.0), lambda a, b: a + b)
    assert float(out) == 20.0 and float(tape.gradient(out, v)) == 10.0
