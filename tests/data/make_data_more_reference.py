# Generates data_more_reference.json with TensorFlow 2.21 (not run by the tests):
#   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_data_more_reference.py \
#       > tests/data/data_more_reference.json
# Records, from the library-agnostic programs below (tests/test_data_more.py runs the same ones on
# tapers), the elements (numpy values with dtype and shape), element_spec and cardinality of the
# deterministic tf.data.Dataset transformations tapers added: counter, scan, unique, group_by_window,
# bucket_by_sequence_length, choose_from_datasets (and tf.data.experimental's), rebatch,
# ignore_errors (map errors skipped), save/load round trips, sample_from_datasets where the result does
# not depend on the random stream (one dataset left after zero weights; the multiset of all elements),
# rejection_resample where initial_dist == target_dist (TF then returns the input with classes, no
# randomness); the cardinality constants; and the exception class TF raises for bad inputs.
import json
import os
import sys
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np


def enc(x: Any) -> Any:
    """A JSON form of an element (numpy values as {dtype, shape, value})."""
    if isinstance(x, dict):
        return {"dict": {k: enc(v) for k, v in sorted(x.items())}}
    if isinstance(x, tuple):
        return {"tuple": [enc(v) for v in x]}
    a = np.asarray(x)
    return {"dtype": str(a.dtype), "shape": list(a.shape), "value": a.tolist()}


def enc_spec(s: Any) -> Any:
    if isinstance(s, dict):
        return {"dict": {k: enc_spec(v) for k, v in sorted(s.items())}}
    if isinstance(s, tuple):
        return {"tuple": [enc_spec(v) for v in s]}
    shape = None if s.shape.rank is None else list(s.shape.as_list())
    return {"shape": shape, "dtype": s.dtype.name}


def run(ds: Any, n: int | None = None) -> dict[str, Any]:
    """Elements (the first `n` for infinite datasets), element_spec and cardinality."""
    it = ds.as_numpy_iterator() if n is None else ds.take(n).as_numpy_iterator()
    return {"elements": [enc(e) for e in it], "spec": enc_spec(ds.element_spec), "card": int(ds.cardinality())}


def error_of(fn: Callable[[], Any]) -> str:
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class name is what is recorded
        return type(e).__name__
    return "no error"


def counter(tf: Any) -> Any:
    D = tf.data.Dataset
    return {
        "default": run(D.counter(), 4),
        "start_step": run(D.counter(5, -2), 4),
        "float": run(D.counter(0.5, 0.25, tf.float32), 4),
        "int32": run(D.counter(3, 4, dtype=tf.int32), 3),
        "experimental": run(tf.data.experimental.Counter(2, 3), 3),
    }


def scan(tf: Any) -> Any:
    D = tf.data.Dataset

    def cumsum(s: Any, x: Any) -> Any:
        return s + x, s * 2

    def pair(state: Any, el: Any) -> Any:
        count, total = state
        a, b = el
        return (count + 1, total + b), {"i": count, "mean": (total + b) / tf.cast(count + 1, tf.float32), "a": a}

    ab = D.from_tensor_slices((tf.constant([1, 2, 3, 4], tf.int32), tf.constant([0.5, 1.5, 2.0, 4.0])))
    return {
        "cumsum": run(D.range(8).scan(tf.constant(0, tf.int64), cumsum)),
        "tuple": run(ab.scan((tf.constant(0, tf.int32), tf.constant(0.0)), pair)),
        "vector_state": run(D.range(5).scan(tf.constant([0, 1], tf.int64),
                                            lambda s, x: (tf.stack([s[1], s[0] + s[1]]), s[0] + x))),
        "experimental": run(D.range(4).apply(tf.data.experimental.scan(tf.constant(1, tf.int64),
                                                                       lambda s, x: (s * 2, s + x)))),
        "batched": run(D.range(7).batch(3).scan(tf.constant(0, tf.int64),
                                                lambda s, x: (s + tf.reduce_sum(x), x + s))),
    }


def unique(tf: Any) -> Any:
    D = tf.data.Dataset
    return {
        "int32": run(D.from_tensor_slices(tf.constant([1, 2, 1, 3, 2, 5, 1], tf.int32)).unique()),
        "int64": run(D.from_tensor_slices(tf.constant([7, 7, 7], tf.int64)).unique()),
        "vectors": run(D.from_tensor_slices(tf.constant([[1, 2], [1, 2], [2, 1], [1, 2]], tf.int64)).unique()),
        "empty": run(D.range(0).unique()),
        "experimental": run(D.from_tensor_slices([3, 1, 3]).apply(tf.data.experimental.unique())),
    }


def group_by_window(tf: Any) -> Any:
    D = tf.data.Dataset
    pairs = D.range(10).map(lambda x: (x, x * 10))
    return {
        "batch": run(D.range(20).group_by_window(lambda x: x % 3, lambda k, w: w.batch(4), window_size=4)),
        "size_func": run(D.range(12).group_by_window(lambda x: x % 2, lambda k, w: w.batch(5),
                                                     window_size_func=lambda k: k + 2)),
        "key_in_reduce": run(D.range(9).group_by_window(lambda x: x % 3, lambda k, w: w.map(lambda x: x + 100 * k),
                                                        window_size=2)),
        "tuple": run(pairs.group_by_window(lambda x, y: x % 2, lambda k, w: w.batch(3), window_size=3)),
        "drop": run(D.range(10).group_by_window(lambda x: x % 2, lambda k, w: w.batch(3, drop_remainder=True),
                                                window_size=3)),
        "experimental": run(D.range(6).apply(tf.data.experimental.group_by_window(
            lambda x: x % 2, lambda k, w: w.batch(2), window_size=2))),
    }


def _seqs(tf: Any, lengths: list[int]) -> Any:
    def gen() -> Any:
        for n in lengths:
            yield np.full([n], n, np.int32), np.int64(n * 10)

    return tf.data.Dataset.from_generator(gen, output_signature=(tf.TensorSpec([None], tf.int32),
                                                                 tf.TensorSpec([], tf.int64)))


def bucket(tf: Any) -> Any:
    lengths = [1, 4, 2, 7, 3, 8, 5, 1, 6, 2, 9, 3]
    short = [1, 4, 2, 3, 5, 1, 2, 3, 4]

    def length(x: Any, y: Any) -> Any:
        return tf.shape(x)[0]

    D = tf.data.Dataset
    return {
        "basic": run(_seqs(tf, lengths).bucket_by_sequence_length(length, [3, 6], [2, 2, 3])),
        "padding_values": run(_seqs(tf, lengths).bucket_by_sequence_length(length, [3, 6], [2, 2, 3],
                                                                           padding_values=(-1, np.int64(0)))),
        "boundary": run(_seqs(tf, short).bucket_by_sequence_length(length, [3, 6], [2, 2, 3],
                                                                   pad_to_bucket_boundary=True)),
        "drop": run(_seqs(tf, lengths).bucket_by_sequence_length(length, [3, 6], [2, 2, 3], drop_remainder=True)),
        "padded_shapes": run(_seqs(tf, short).bucket_by_sequence_length(length, [3], [2, 3],
                                                                        padded_shapes=([6], []))),
        "no_padding": run(D.range(12).bucket_by_sequence_length(lambda x: tf.cast(x, tf.int32), [4, 8], [3, 2, 4],
                                                                no_padding=True)),
        "experimental": run(_seqs(tf, short).apply(tf.data.experimental.bucket_by_sequence_length(
            length, [3], [2, 3]))),
    }


def choose(tf: Any) -> Any:
    D = tf.data.Dataset
    a, b, c = D.range(3), D.range(10, 13), D.range(100, 105)
    choice = D.from_tensor_slices(tf.constant([0, 1, 1, 0, 2, 0, 0, 1, 2, 1, 2], tf.int64))
    shaped = [D.from_tensors(tf.zeros([2, 3])), D.from_tensors(tf.ones([4, 3]))]
    return {
        "stop": run(D.choose_from_datasets([a, b, c], choice)),
        "no_stop": run(D.choose_from_datasets([a, b, c], choice, stop_on_empty_dataset=False)),
        "experimental": run(tf.data.experimental.choose_from_datasets([a, b, c], choice)),
        "cycle": run(D.choose_from_datasets([a.repeat(), b.repeat()], D.range(2).repeat(), True), 7),
        "shapes": run(D.choose_from_datasets(shaped, D.from_tensor_slices(tf.constant([1, 0], tf.int64)))),
        "dicts": run(D.choose_from_datasets([D.from_tensor_slices({"x": [1, 2]}), D.from_tensor_slices({"x": [7]})],
                                            D.from_tensor_slices(tf.constant([1, 0, 0], tf.int64)))),
        "card_finite_choice_infinite_input": int(D.choose_from_datasets([a.repeat(), b], choice).cardinality()),
        "card_infinite_choice_finite_inputs": int(D.choose_from_datasets([a, b], D.range(2).repeat()).cardinality()),
    }


def sample(tf: Any) -> Any:
    D = tf.data.Dataset
    a, b, c = D.range(3), D.range(10, 13), D.range(100, 105)

    def sorted_values(ds: Any) -> Any:
        return sorted(int(v) for v in ds.as_numpy_iterator())

    return {
        "one_left": run(D.sample_from_datasets([a, b], weights=[0.0, 1.0], seed=3)),
        "single": run(D.sample_from_datasets([c], seed=1)),
        "all_elements": sorted_values(D.sample_from_datasets([a, b, c], seed=5)),
        "all_weighted": sorted_values(D.sample_from_datasets([a, b, c], weights=[0.2, 0.3, 0.5], seed=7)),
        "spec_card": {k: v for k, v in run(D.sample_from_datasets([a, b], seed=1)).items() if k != "elements"},
        "card_infinite": int(D.sample_from_datasets([a.repeat(), b], seed=1).cardinality()),
        "experimental_all": sorted_values(tf.data.experimental.sample_from_datasets([a, b], seed=2)),
        "all_zero_weights": run(D.sample_from_datasets([a, b], weights=[0.0, 0.0])),
        "card_weights_dataset": int(D.sample_from_datasets(
            [a.repeat(), b.repeat()], weights=D.from_tensor_slices([[0.5, 0.5]] * 3)).cardinality()),
        "spec_weights_dataset": enc_spec(D.sample_from_datasets([a, b],
                                                                weights=D.from_tensors([0.5, 0.5])).element_spec),
        "resample_spec": enc_spec(a.rejection_resample(lambda x: x, [0.5, 0.2, 0.3], seed=1).element_spec),
        "resample_card": int(a.rejection_resample(lambda x: x, [0.5, 0.2, 0.3], seed=1).cardinality()),
        "resample_card_initial": int(a.rejection_resample(lambda x: x, [0.5, 0.2, 0.3], [0.2, 0.3, 0.5],
                                                          seed=1).cardinality()),
    }


def rebatch(tf: Any) -> Any:
    D = tf.data.Dataset
    pairs = D.from_tensor_slices((tf.reshape(tf.range(20), [10, 2]), tf.range(10.0)))
    return {
        "three": run(D.range(10).batch(4).rebatch(3)),
        "list": run(D.range(10).batch(4).rebatch([1, 2])),
        "drop": run(D.range(10).batch(4).rebatch(3, drop_remainder=True)),
        "static": run(D.range(16).batch(4, drop_remainder=True).rebatch(2)),
        "static_nondivisor": run(D.range(16).batch(4, drop_remainder=True).rebatch(3)),
        "tuple": run(pairs.batch(3).rebatch(4)),
    }


def ignore(tf: Any) -> Any:
    D = tf.data.Dataset

    def inv(x: Any) -> Any:
        return tf.debugging.check_numerics(1.0 / tf.cast(x - 3, tf.float32), "inf")

    def inv2(x: Any) -> Any:
        return tf.debugging.check_numerics(1.0 / tf.cast(x % 3, tf.float32), "inf")

    return {
        "map": run(D.range(8).map(inv).ignore_errors()),
        "map_then_map": run(D.range(9).map(inv2).map(lambda y: y * 2).ignore_errors()),
        "experimental": run(D.range(6).map(inv).apply(tf.data.experimental.ignore_errors())),
        "no_errors": run(D.range(4).ignore_errors()),
    }


def save_load(tf: Any) -> Any:
    D = tf.data.Dataset
    out = {}
    cases = {
        "tuple": D.from_tensor_slices((tf.reshape(tf.range(12.0), [4, 3]), tf.constant([1, 2, 3, 4], tf.int64))),
        "dict": D.from_tensor_slices({"a": tf.constant([[1, 2], [3, 4]], tf.int32), "b": tf.constant([True, False])}),
        "batched": D.range(7).batch(3),
        "empty": D.range(0),
    }
    for name, ds in cases.items():
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "saved")
            ds.save(path)
            out[name] = run(D.load(path))
            out[name + "_with_spec"] = run(D.load(path, element_spec=ds.element_spec))
    with tempfile.TemporaryDirectory() as d:
        tf.data.experimental.save(D.range(3), os.path.join(d, "x"), compression="GZIP")
        out["experimental_gzip"] = run(tf.data.experimental.load(os.path.join(d, "x"), compression="GZIP"))
    return out


def resample(tf: Any) -> Any:
    D = tf.data.Dataset
    labels = D.from_tensor_slices(tf.constant([0, 1, 1, 0, 2, 1], tf.int64))
    pairs = D.from_tensor_slices((tf.constant([0, 1, 1, 0], tf.int32), tf.constant([1.0, 2.0, 3.0, 4.0])))
    return {
        "same_dist": run(labels.rejection_resample(lambda x: x, [0.3, 0.4, 0.3], initial_dist=[0.3, 0.4, 0.3],
                                                   seed=1)),
        "same_dist_tuple": run(pairs.rejection_resample(lambda c, v: c, [0.5, 0.5], initial_dist=[0.5, 0.5])),
    }


def constants(tf: Any) -> Any:
    D = tf.data.Dataset
    return {
        "INFINITE": tf.data.INFINITE_CARDINALITY,
        "UNKNOWN": tf.data.UNKNOWN_CARDINALITY,
        "exp_INFINITE": tf.data.experimental.INFINITE_CARDINALITY,
        "exp_UNKNOWN": tf.data.experimental.UNKNOWN_CARDINALITY,
        "AUTOTUNE": tf.data.experimental.AUTOTUNE,
        "random_card": int(D.random(seed=1).cardinality()),
        "random_spec": enc_spec(D.random(seed=1).element_spec),
        "exp_random_card": int(tf.data.experimental.cardinality(tf.data.experimental.RandomDataset(seed=1))),
        "counter_card": int(tf.data.experimental.cardinality(D.counter())),
        "scan_card_infinite": int(D.counter().scan(tf.constant(0, tf.int64), lambda s, x: (s, x)).cardinality()),
    }


def errors(tf: Any) -> Any:
    D = tf.data.Dataset
    a = D.range(3)
    return {
        "choose_int32": error_of(lambda: D.choose_from_datasets([a], D.from_tensor_slices(tf.constant([0])))),
        "choose_empty": error_of(lambda: D.choose_from_datasets([], D.range(1))),
        "choose_not_dataset": error_of(lambda: D.choose_from_datasets([a], [0, 1])),
        "choose_incompatible": error_of(lambda: D.choose_from_datasets([a, D.from_tensors(1.0)], D.range(2))),
        "choose_out_of_range": error_of(lambda: list(D.choose_from_datasets([a], D.range(3)))),
        "sample_empty": error_of(lambda: D.sample_from_datasets([])),
        "sample_weights_len": error_of(lambda: D.sample_from_datasets([a, a], weights=[1.0])),
        "sample_weights_int": error_of(lambda: D.sample_from_datasets([a, a], weights=tf.constant([1, 2]))),
        "group_both": error_of(lambda: a.group_by_window(lambda x: x, lambda k, w: w, window_size=2,
                                                         window_size_func=lambda k: 2)),
        "group_neither": error_of(lambda: a.group_by_window(lambda x: x, lambda k, w: w)),
        "group_reduce_not_dataset": error_of(lambda: a.group_by_window(lambda x: x, lambda k, w: k, window_size=2)),
        "group_size_zero": error_of(lambda: list(a.group_by_window(lambda x: x, lambda k, w: w, window_size=0))),
        "bucket_sizes": error_of(lambda: a.bucket_by_sequence_length(lambda x: x, [3, 6], [2, 2])),
        "unique_float": error_of(lambda: D.from_tensor_slices([1.0, 2.0]).unique()),
        "scan_not_pair": error_of(lambda: a.scan(tf.constant(0, tf.int64), lambda s, x: s + x)),
        "scan_state_dtype": error_of(lambda: a.scan(tf.constant(0, tf.int64),
                                                    lambda s, x: (tf.cast(s, tf.float32), x))),
        "rebatch_scalar": error_of(lambda: a.rebatch(2)),
        "rebatch_rank2": error_of(lambda: a.batch(2).rebatch([[1, 2]])),
    }


PROGRAMS: dict[str, Callable[[Any], Any]] = {
    "counter": counter, "scan": scan, "unique": unique, "group_by_window": group_by_window, "bucket": bucket,
    "choose": choose, "sample": sample, "rebatch": rebatch, "ignore": ignore, "save_load": save_load,
    "resample": resample, "constants": constants, "errors": errors,
}  # fmt: skip


def main() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    out = {name: fn(tf) for name, fn in PROGRAMS.items()}
    json.dump({"tensorflow": tf.__version__, "programs": out}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
