"""tapers.data: TensorFlow's tf.data programs run unchanged (fixtures from TensorFlow), and what
TensorFlow cannot be asked about directly (shuffle determinism, threads, caching, errors)."""

from __future__ import annotations

import gc
import threading
import time

import numpy as np
import pytest
from _tf_programs import PROGRAMS, check

import tapers as tf

SMALL_API = ("tensor_spec", "device", "err_device", "tf_print", "map_fn", "err_map_fn", "vectorized_map",
             "meshgrid", "err_meshgrid", "fwd_", "copy_pickle")  # fmt: skip
DATA_PROGRAMS = sorted(n for n in PROGRAMS if not n.startswith(SMALL_API))


def test_fixture_covers_data_programs() -> None:
    assert len(DATA_PROGRAMS) >= 25
    assert {"pipeline", "train_linear", "shuffle", "err_len_infinite"} <= set(DATA_PROGRAMS)


@pytest.mark.parametrize("name", DATA_PROGRAMS)
def test_tensorflow_program(name: str) -> None:
    check(name)


# ------------------------------------------------------------------ structure and values
def test_elements_are_tensors_with_structure() -> None:
    ds = tf.data.Dataset.from_tensor_slices({"x": np.ones((3, 2)), "y": ([1, 2, 3], np.arange(3.0))})
    e = next(iter(ds))
    assert isinstance(e, dict) and isinstance(e["y"], tuple)
    assert isinstance(e["x"], tf.Tensor) and e["x"].dtype == tf.float64 and e["x"].shape == (2,)
    assert e["y"][0].dtype == tf.int32
    assert isinstance(ds, tf.data.Dataset)


def test_batch_of_unequal_shapes_raises_tensorflow_error() -> None:
    ds = tf.data.Dataset.range(1, 4).map(lambda n: tf.zeros([n]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Cannot batch tensors with different shapes in "
                       r"component 0. First element had shape \[1\] and element 1 had shape \[2\]."):  # fmt: skip
        list(ds.batch(3))


def test_map_spec_with_unknown_dims_and_fallback_to_first_element() -> None:
    ds = tf.data.Dataset.from_tensor_slices(np.zeros((5, 3), np.float32)).batch(2)
    assert repr(ds.map(lambda x: tf.reduce_sum(x, axis=1)).element_spec) == (
        "TensorSpec(shape=(None,), dtype=tapers.float32, name=None)"
    )
    assert ds.map(lambda x: x[:, :2]).element_spec.shape.as_list() == [None, 2]

    def needs_real_data(x: tf.Tensor) -> tf.Tensor:
        if float(tf.reduce_sum(x)) == 0.0:
            raise ValueError("zeros")
        return tf.concat([x, x], 0)

    real = tf.data.Dataset.from_tensor_slices(np.ones((4, 3), np.float32)).map(needs_real_data)
    assert real.element_spec.shape.as_list() == [6]


def test_filter_predicate_errors_and_python_bools() -> None:
    assert list(tf.data.Dataset.range(4).filter(lambda x: True).as_numpy_iterator()) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="must return a `tapers.bool` scalar tensor"):
        list(tf.data.Dataset.range(3).filter(lambda x: tf.stack([x > 0, x > 1])))


def test_iterator_get_next_and_len_and_reduce() -> None:
    it = iter(tf.data.Dataset.range(1))
    assert int(it.get_next()) == 0
    with pytest.raises(tf.errors.OutOfRangeError):
        it.get_next()
    with pytest.raises(StopIteration):
        next(it)
    assert len(tf.data.Dataset.range(7).batch(2)) == 4
    total = tf.data.Dataset.range(5).reduce(tf.constant(0, tf.int64), lambda s, x: s + x)
    assert int(total) == 10


def test_cache_file_is_not_supported() -> None:
    with pytest.raises(tf.errors.UnimplementedError, match="in-memory"):
        tf.data.Dataset.range(3).cache("/tmp/x")


def test_argument_errors() -> None:
    with pytest.raises(ValueError, match="num_parallel_calls"):
        tf.data.Dataset.range(3).map(lambda x: x, num_parallel_calls=0)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.data.Dataset.range(3).shuffle(0)
    with pytest.raises(TypeError, match="at least one dataset"):
        tf.data.Dataset.zip()
    with pytest.raises(TypeError, match="got an object of type int"):
        tf.data.Dataset.zip((tf.data.Dataset.range(2), 3))


# ------------------------------------------------------------------ shuffle
def _order(ds: tf.data.Dataset) -> list[int]:
    return [int(v) for v in ds.as_numpy_iterator()]


def test_seeded_shuffle_is_deterministic_and_a_permutation() -> None:
    a = tf.data.Dataset.range(50).shuffle(50, seed=7)
    b = tf.data.Dataset.range(50).shuffle(50, seed=7)
    first_a, first_b = _order(a), _order(b)
    assert first_a == first_b and sorted(first_a) == list(range(50)) and first_a != list(range(50))
    # Each iteration reshuffles, reproducibly.
    second_a, second_b = _order(a), _order(b)
    assert second_a == second_b and second_a != first_a
    assert _order(tf.data.Dataset.range(50).shuffle(50, seed=8)) != first_a


def test_shuffle_without_reshuffle_repeats_its_order() -> None:
    ds = tf.data.Dataset.range(30).shuffle(30, reshuffle_each_iteration=False)
    assert _order(ds) == _order(ds)
    unseeded = tf.data.Dataset.range(30).shuffle(30)
    assert sorted(_order(unseeded)) == list(range(30))


def test_shuffle_buffer_bounds_displacement() -> None:
    assert _order(tf.data.Dataset.range(20).shuffle(1, seed=3)) == list(range(20))
    order = _order(tf.data.Dataset.range(100).shuffle(4, seed=3))
    # An element can leave the buffer no earlier than 3 positions before its index.
    assert all(pos >= v - 3 for pos, v in enumerate(order))


def test_global_seed_makes_unseeded_shuffle_reproducible() -> None:
    tf.random.set_seed(11)
    a = _order(tf.data.Dataset.range(40).shuffle(40))
    tf.random.set_seed(11)
    b = _order(tf.data.Dataset.range(40).shuffle(40))
    tf.random.set_seed(None)
    assert a == b


# ------------------------------------------------------------------ threads
def _data_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("tapers.data")]


def _wait_no_data_threads() -> None:
    for _ in range(200):
        gc.collect()
        if not _data_threads():
            return
        time.sleep(0.01)
    raise AssertionError(f"leaked threads: {_data_threads()}")


def test_prefetch_thread_stops_when_loop_breaks() -> None:
    _wait_no_data_threads()
    ds = tf.data.Dataset.range(10).repeat().map(lambda x: x * 2, num_parallel_calls=3).prefetch(2)
    for i, _ in enumerate(ds):
        if i == 0:
            assert any(t.name == "tapers.data.prefetch" for t in _data_threads())
        if i == 5:
            break
    _wait_no_data_threads()
    it = iter(ds)
    next(it)
    it.close()
    assert not any(t.is_alive() and t.name == "tapers.data.prefetch" for t in _data_threads())
    del it
    _wait_no_data_threads()
    assert list(tf.data.Dataset.range(4).prefetch(1).as_numpy_iterator()) == [0, 1, 2, 3]
    _wait_no_data_threads()


def test_errors_in_map_reach_the_consumer_through_prefetch() -> None:
    def bad(x: tf.Tensor) -> tf.Tensor:
        if int(x) == 3:
            raise RuntimeError("element 3 is bad")
        return x

    for ds in (tf.data.Dataset.range(6).map(bad).prefetch(2),
               tf.data.Dataset.range(6).map(bad, num_parallel_calls=2).prefetch(1)):  # fmt: skip
        seen = []
        with pytest.raises(RuntimeError, match="element 3 is bad"):
            for x in ds:
                seen.append(int(x))
        assert seen == [0, 1, 2]
    _wait_no_data_threads()


def test_parallel_map_runs_concurrently_in_order() -> None:
    names = set()

    def slow(x: tf.Tensor) -> tf.Tensor:
        names.add(threading.current_thread().name)
        time.sleep(0.05)
        return x + 1

    t0 = time.perf_counter()
    out = list(tf.data.Dataset.range(16).map(slow, num_parallel_calls=8).as_numpy_iterator())
    elapsed = time.perf_counter() - t0
    assert out == list(range(1, 17))
    assert elapsed < 0.5, elapsed  # 16 x 50 ms serially would be 0.8 s
    assert len(names) > 1 and all(n.startswith("tapers.data.map") for n in names)
    _wait_no_data_threads()


def test_cache_replays_without_running_the_map_again() -> None:
    calls = []

    def f(x: tf.Tensor) -> tf.Tensor:
        calls.append(int(x))
        return x * 10

    ds = tf.data.Dataset.range(4).map(f).cache()
    it = iter(ds)
    next(it)
    del it  # a partial pass does not fill the cache
    assert _order(ds) == [0, 10, 20, 30]
    n = len(calls)
    assert _order(ds) == [0, 10, 20, 30] and len(calls) == n


def test_training_loop_over_a_pipeline() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 3)).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32)
    ds = (tf.data.Dataset.from_tensor_slices((x, y)).shuffle(64, seed=1).batch(16)
          .map(lambda a, b: (a, b), num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE))  # fmt: skip
    w = tf.Variable(tf.zeros([3, 1]))
    for _ in range(40):
        for xb, yb in ds:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(xb @ w - yb))
            w.assign_sub(0.1 * tape.gradient(loss, w))
    np.testing.assert_allclose(w.numpy().ravel(), [1.0, -2.0, 0.5], atol=1e-3)
    _wait_no_data_threads()


CHAINS = {
    "plain": lambda d: d,
    "shuffle": lambda d: d.shuffle(5, seed=4),
    "shuffle_repeat": lambda d: d.shuffle(23, seed=1).repeat(3),
    "repeat_shuffle": lambda d: d.repeat(2).shuffle(7, seed=2),
    "shard_skip_take": lambda d: d.shard(2, 1).skip(2).take(7),
    "take_all_skip_none": lambda d: d.take(-1).skip(0).shuffle(3, seed=5, reshuffle_each_iteration=False),
    "empty_repeat": lambda d: d.take(0).repeat(),
    "repeat_forever_take": lambda d: d.shuffle(4, seed=9).repeat().take(50),
}


@pytest.mark.parametrize("drop", [False, True])
@pytest.mark.parametrize("chain", sorted(CHAINS))
def test_batched_slices_fast_path_equals_element_by_element(chain: str, drop: bool) -> None:
    # from_tensor_slices(...) then shuffle/repeat/take/skip/shard, then batch, runs over row numbers and
    # slices or gathers whole batches; a map before the batch forces stacking element by element. Both
    # must give the same batches, epoch after epoch (the shuffles draw the same streams).
    x = np.arange(46.0).reshape(23, 2)
    y = np.arange(23)

    def build(identity: bool) -> tf.data.Dataset:
        ds = CHAINS[chain](tf.data.Dataset.from_tensor_slices({"x": x, "y": y}))
        if identity:
            ds = ds.map(lambda e: e)
        return ds.batch(4, drop_remainder=drop)

    fast, slow = build(False), build(True)
    assert fast._input._row_source() is not None and slow._input._row_source() is None
    for _ in range(2):
        a, b = list(fast.as_numpy_iterator()), list(slow.as_numpy_iterator())
        assert len(a) == len(b)
        for u, v in zip(a, b):
            np.testing.assert_array_equal(u["x"], v["x"])
            np.testing.assert_array_equal(u["y"], v["y"])
            np.testing.assert_array_equal(u["x"][:, 0], 2 * u["y"])
    if chain == "plain":
        assert [u["y"].tolist() for u in a][:2] == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_from_generator_restarts_and_checks_dtypes() -> None:
    calls = []

    def gen():
        calls.append(1)
        yield from ([1.0, 2.0], [3.0, 4.0])

    ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec((2,), tf.float32))
    assert len(list(ds)) == 2 and len(list(ds)) == 2 and len(calls) == 2
    # Values are converted to the declared dtype as numpy converts them, as in TensorFlow.
    spec = tf.TensorSpec((2,), tf.int32)
    ints = tf.data.Dataset.from_generator(lambda: iter([np.array([1.7, 2.2])]), output_signature=spec)
    (e,) = list(ints)
    assert e.dtype == tf.int32 and e.numpy().tolist() == [1, 2]
    odd = tf.data.Dataset.from_generator(lambda: iter([(1, 2)]), output_signature=(tf.TensorSpec(()),) * 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="did not match the expected structure"):
        list(odd)
    with pytest.raises(TypeError, match="output_signature"):
        tf.data.Dataset.from_generator(gen, output_types=tf.float32, output_signature=tf.TensorSpec(()))
    with pytest.raises(TypeError, match="TypeSpec"):
        tf.data.Dataset.from_generator(gen, output_signature=tf.float32)


def test_map_spec_of_an_empty_dataset_reports_the_function_error() -> None:
    def picky(x: tf.Tensor) -> tf.Tensor:
        raise KeyError("needs real data")

    with pytest.raises(KeyError, match="needs real data"):
        _ = tf.data.Dataset.range(0).map(picky).element_spec
    assert list(tf.data.Dataset.range(0).map(picky)) == []


def test_options_merge_warns_like_tensorflow_logs() -> None:
    a, b = tf.data.Options(), tf.data.Options()
    a.deterministic, b.deterministic = False, True
    ds = tf.data.Dataset.range(2).with_options(a).with_options(b)
    with pytest.warns(UserWarning, match="Changing the value of option deterministic from False to True"):
        assert ds.options().deterministic is True
    with pytest.raises(TypeError, match="tapers.data.Options"):
        tf.data.Dataset.range(2).with_options({"deterministic": True})
    assert copy_of(a) == a


def copy_of(options: tf.data.Options) -> tf.data.Options:
    import copy

    return copy.deepcopy(options)


def test_one_iterator_shared_by_threads_gives_each_element_once() -> None:
    it = iter(tf.data.Dataset.range(400).map(lambda x: x * 2).prefetch(4))
    seen: list[int] = []
    lock = threading.Lock()

    def drain(shared: tf.data.Iterator) -> None:
        for v in shared:
            with lock:
                seen.append(int(v))

    threads = [threading.Thread(target=drain, args=(it,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(seen) == list(range(0, 800, 2))
    del it
    _wait_no_data_threads()
