# Generates keras_utils_reference.json with TensorFlow 2.21 / Keras 3.15 (not run by the tests):
#   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_utils_reference.py
"""Records what Keras 3's ``keras.utils`` returns on deterministic inputs: ``to_categorical``,
``normalize`` and ``pad_sequences`` (values, dtypes, shapes), ``timeseries_dataset_from_array``
batches (exact when unshuffled; the multiset of windows when shuffled), ``split_dataset`` splits
(exact, shuffled ones too: both use Python's ``random``), ``set_random_seed``'s effect on Python and
NumPy's generators, ``serialize_keras_object``'s outer dict (module, class_name, registered_name) and
the exception classes Keras raises on bad inputs, into tests/data/keras_utils_reference.json, which
tests/test_keras_utils.py compares tapers against."""

from __future__ import annotations

import json
import os
import random
from typing import Any

import numpy as np

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
U = keras.utils


def enc(x: Any) -> dict[str, Any]:
    """An array (numpy or tensor) as dtype, shape and values (floats or ints, exact in JSON)."""
    a = np.asarray(x)
    vals = a.reshape(-1).tolist()
    return {"dtype": str(a.dtype), "shape": list(a.shape), "values": vals, "numpy": isinstance(x, np.ndarray)}


def err(fn: Any) -> str:
    """The class name of the exception ``fn()`` raises ("none" when it returns)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__
    return "none"


def batches(ds: Any) -> list[Any]:
    out = []
    for b in ds:
        if isinstance(b, tuple):
            out.append([enc(t) for t in b])
        else:
            out.append(enc(b))
    return out


def main() -> None:
    ref: dict[str, Any] = {}
    x43 = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.0
    x43[1] = 0.0
    cat: dict[str, Any] = {}
    cat["list_nc4"] = enc(U.to_categorical([0, 1, 2, 3], num_classes=4))
    cat["col_infer"] = enc(U.to_categorical(np.array([[1], [2], [0]])))
    cat["mat_nc3"] = enc(U.to_categorical(np.array([[0, 1], [2, 0]]), num_classes=3))
    cat["float_labels"] = enc(U.to_categorical(np.array([0.0, 2.0, 1.0])))
    cat["tensor_nc3"] = enc(U.to_categorical(tf.constant([0, 2, -1]), num_classes=3))
    cat["tensor_col"] = enc(U.to_categorical(tf.constant([[1], [0]]), num_classes=2))
    ref["to_categorical"] = cat
    nrm: dict[str, Any] = {}
    nrm["np_l2"] = enc(U.normalize(x43))
    nrm["np_l1"] = enc(U.normalize(x43, order=1))
    nrm["np_axis1"] = enc(U.normalize(x43, axis=1))
    nrm["np_f64"] = enc(U.normalize(x43.astype(np.float64)))
    nrm["np_1d"] = enc(U.normalize(np.array([3.0, 4.0], np.float32)))
    nrm["t_l2"] = enc(U.normalize(tf.constant(x43)))
    nrm["t_l1"] = enc(U.normalize(tf.constant(x43), order=1))
    nrm["t_axis0"] = enc(U.normalize(tf.constant(x43), axis=0))
    nrm["t_l3"] = enc(U.normalize(tf.constant(x43), order=3))
    ref["normalize"] = nrm
    seqs = [[1], [2, 3], [4, 5, 6]]
    pad: dict[str, Any] = {}
    pad["default"] = enc(U.pad_sequences(seqs))
    pad["value"] = enc(U.pad_sequences(seqs, value=-1))
    pad["post"] = enc(U.pad_sequences(seqs, padding="post"))
    pad["maxlen2"] = enc(U.pad_sequences(seqs, maxlen=2))
    pad["maxlen2_trunc_post"] = enc(U.pad_sequences(seqs, maxlen=2, truncating="post"))
    pad["maxlen5_post"] = enc(U.pad_sequences(seqs, maxlen=5, padding="post"))
    pad["float"] = enc(U.pad_sequences([[0.5, 1.5], [2.5]], dtype="float32", value=0.25))
    pad["empty_seq"] = enc(U.pad_sequences([[], [1, 2]]))
    pad["samples2d"] = enc(U.pad_sequences([[[1, 2], [3, 4]], [[5, 6]]]))
    pad["arrays"] = enc(U.pad_sequences([np.array([7, 8, 9]), np.array([1])], maxlen=4))
    pad["preprocessing_path"] = enc(keras.preprocessing.sequence.pad_sequences(seqs, padding="post"))
    ref["pad_sequences"] = pad
    img = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
    ref["img_to_array"] = {
        "hwc": enc(U.img_to_array(img)),
        "chw": enc(U.img_to_array(img, data_format="channels_first")),
        "gray": enc(U.img_to_array(img[:, :, 0])),
        "gray_first": enc(U.img_to_array(img[:, :, 0], data_format="channels_first")),
        "uint8": enc(U.img_to_array(img, dtype="uint8")),
    }
    ts: dict[str, Any] = {}
    data = np.arange(100)
    ts["doc_example"] = batches(
        U.timeseries_dataset_from_array(data, data * 10, sequence_length=10, sampling_rate=2, sequence_stride=3,
                                        batch_size=8)
    )  # fmt: skip
    ts["no_targets"] = batches(U.timeseries_dataset_from_array(data[:30], None, sequence_length=5, batch_size=4))
    ts["unbatched"] = batches(
        U.timeseries_dataset_from_array(data[:12], data[5:17], sequence_length=5, sequence_stride=2, batch_size=None)
    )
    feats = np.arange(150, dtype=np.float32).reshape(50, 3) / 7.0
    ts["start_end"] = batches(
        U.timeseries_dataset_from_array(feats, np.arange(50), sequence_length=4, start_index=5, end_index=30,
                                        batch_size=6)
    )  # fmt: skip
    ts["short_targets"] = batches(U.timeseries_dataset_from_array(data[:20], data[:6], sequence_length=3, batch_size=4))
    shuffled = U.timeseries_dataset_from_array(data[:40], data[:40], sequence_length=6, batch_size=5, shuffle=True,
                                               seed=7)  # fmt: skip
    firsts = sorted(int(x[0]) for b in shuffled for x in np.asarray(b[0]))
    ts["shuffled_firsts"] = firsts
    ref["timeseries"] = ts
    sp: dict[str, Any] = {}
    arr = np.arange(20, dtype=np.float32).reshape(10, 2)
    lab = np.arange(10)
    for key, kw in {
        "arr_left08": {"dataset": arr, "left_size": 0.8},
        "arr_right3": {"dataset": arr, "right_size": 3},
        "tuple_left4_right3_shuffle": {
            "dataset": (arr, lab),
            "left_size": 4,
            "right_size": 3,
            "shuffle": True,
            "seed": 3,
        },  # fmt: skip
        "arr_shuffle_seed11": {"dataset": arr, "left_size": 0.5, "shuffle": True, "seed": 11},
        "list_left_06": {"dataset": [arr, lab], "left_size": 0.6},
    }.items():
        left, right = U.split_dataset(**kw)
        sp[key] = [[[enc(t) for t in e] if isinstance(e, tuple) else enc(e) for e in part] for part in (left, right)]
    ds = tf.data.Dataset.from_tensor_slices((arr, lab)).batch(3)
    left, right = U.split_dataset(ds, left_size=0.7)
    sp["batched_dataset"] = [[[enc(t) for t in e] for e in part] for part in (left, right)]
    ref["split_dataset"] = sp
    U.set_random_seed(42)
    ref["set_random_seed"] = {"python": [random.random() for _ in range(3)], "numpy": np.random.rand(3).tolist()}

    @U.register_keras_serializable(package="MyPkg")
    class MyScale(keras.layers.Layer):
        def __init__(self, factor: float = 2.0, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.factor = factor

        def get_config(self) -> dict[str, Any]:
            return {**super().get_config(), "factor": self.factor}

    @U.register_keras_serializable(package="MyPkg", name="twice")
    def my_fn(x: Any) -> Any:
        return 2 * x

    def outer(obj: Any) -> Any:
        s = U.serialize_keras_object(obj)
        if isinstance(s, dict):
            return {k: s.get(k) for k in ("module", "class_name", "registered_name") if k in s}
        return s

    ser: dict[str, Any] = {
        "dense": outer(keras.layers.Dense(3)),
        "sequential": outer(keras.Sequential([keras.layers.Dense(2)])),
        "relu": outer(keras.activations.relu),
        "l2": outer(keras.regularizers.L2(0.1)),
        "mse": outer(keras.losses.MeanSquaredError()),
        "mse_fn": outer(keras.losses.mean_squared_error),
        "adam": outer(keras.optimizers.Adam()),
        "glorot": outer(keras.initializers.GlorotUniform()),
        "mean_metric": outer(keras.metrics.Mean()),
        "nonneg": outer(keras.constraints.NonNeg()),
        "custom_layer": outer(MyScale(3.0)),
        "custom_fn": outer(my_fn),
        "numpy": U.serialize_keras_object(np.array([1.5, 2.5], np.float32)),
        "bytes": U.serialize_keras_object(b"ab"),
        "slice": U.serialize_keras_object(slice(1, None, 2)),
        "tuple": U.serialize_keras_object((1, "a", None, 2.5)),
        "dict": U.serialize_keras_object({"a": [1, 2], "b": {"c": True}}),
        "np_scalar": U.serialize_keras_object(np.float32(1.5)),
        "registered_name": U.get_registered_name(MyScale),
        "registered_fn_name": U.get_registered_name(my_fn),
        "unregistered_name": U.get_registered_name(keras.layers.Dense),
        "custom_object_keys": sorted(k for k in U.get_custom_objects() if k.startswith("MyPkg>")),
        "custom_layer_config_factor": U.serialize_keras_object(MyScale(3.0))["config"]["factor"],
    }
    back = U.deserialize_keras_object(U.serialize_keras_object(MyScale(4.0)))
    ser["roundtrip_custom"] = [type(back).__name__, back.factor]
    ser["roundtrip_tuple"] = U.deserialize_keras_object(U.serialize_keras_object((1, 2)))
    ref["serialize"] = ser
    ref["pack"] = {
        "x": repr(U.pack_x_y_sample_weight(1)),
        "xy": repr(U.pack_x_y_sample_weight(1, 2)),
        "xyw": repr(U.pack_x_y_sample_weight(1, 2, 3)),
        "unpack_x": repr(U.unpack_x_y_sample_weight(1)),
        "unpack_1": repr(U.unpack_x_y_sample_weight((1,))),
        "unpack_list": repr(U.unpack_x_y_sample_weight([1, 2])),
        "unpack_3": repr(U.unpack_x_y_sample_weight((1, 2, 3))),
    }
    ref["errors"] = {
        "pad_not_iterable": err(lambda: U.pad_sequences(5)),
        "pad_elem_not_iterable": err(lambda: U.pad_sequences([1, 2])),
        "pad_bad_padding": err(lambda: U.pad_sequences([[1]], padding="mid")),
        "pad_bad_truncating": err(lambda: U.pad_sequences([[1, 2]], maxlen=1, truncating="mid")),
        "pad_str_value": err(lambda: U.pad_sequences([[1]], value="x")),
        "pad_shape_mismatch": err(lambda: U.pad_sequences([[[1, 2]], [[1, 2, 3]]])),
        "seed_not_int": err(lambda: U.set_random_seed(1.5)),
        "ts_rate0": err(lambda: U.timeseries_dataset_from_array(data, None, 3, sampling_rate=0)),
        "ts_stride_big": err(lambda: U.timeseries_dataset_from_array(data, None, 3, sequence_stride=100)),
        "ts_start_neg": err(lambda: U.timeseries_dataset_from_array(data, None, 3, start_index=-1)),
        "ts_end_before_start": err(lambda: U.timeseries_dataset_from_array(data, None, 3, start_index=5, end_index=4)),
        "split_none": err(lambda: U.split_dataset(arr)),
        "split_bad_type": err(lambda: U.split_dataset(arr, left_size="a")),
        "split_too_big": err(lambda: U.split_dataset(arr, left_size=10)),
        "split_sum": err(lambda: U.split_dataset(arr, left_size=0.7, right_size=0.6)),
        "split_bad_dataset": err(lambda: U.split_dataset(5, left_size=0.5)),
        "unpack_4": err(lambda: U.unpack_x_y_sample_weight((1, 2, 3, 4))),
        "normalize_order0": err(lambda: U.normalize(tf.constant(x43), order=0)),
        "register_no_config": err(lambda: U.register_keras_serializable()(type("NoCfg", (), {}))),
        "deserialize_unknown": err(
            lambda: U.deserialize_keras_object(
                {"module": None, "class_name": "Nope", "config": {}, "registered_name": "Nope"}
            )
        ),  # fmt: skip
        "img_rank1": err(lambda: U.img_to_array(np.zeros(3))),
        "img_bad_format": err(lambda: U.img_to_array(np.zeros((2, 2)), data_format="nhwc")),
        "plot_model": err(lambda: U.plot_model(keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)]))),
    }
    # keras.preprocessing: smart_resize (crop to the target aspect ratio, then resize) and the namespace's
    # pad_sequences.
    img = (np.sin(np.arange(2 * 7 * 5 * 3, dtype="float64") * 0.3) * 100 + 100).astype("float32").reshape(2, 7, 5, 3)
    pre = keras.preprocessing
    ref["smart_resize"] = {
        "input": img.tolist(),
        "bilinear_3x3": pre.image.smart_resize(img, (3, 3)).tolist(),
        "nearest_4x2": pre.image.smart_resize(img, (4, 2), interpolation="nearest").tolist(),
        "single_6x6": pre.image.smart_resize(img[0], (6, 6)).tolist(),
        "channels_first_2x3": pre.image.smart_resize(np.transpose(img, (0, 3, 1, 2)), (2, 3),
                                                     data_format="channels_first").tolist(),
    }
    ref["preprocessing_pad"] = pre.sequence.pad_sequences([[1, 2, 3], [4]], maxlen=2, padding="post").tolist()
    with open(os.path.join(HERE, "keras_utils_reference.json"), "w") as f:
        json.dump(ref, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
