"""Records Keras 3's answers for keras.config / keras.backend settings and ``fit(class_weight=...)``.

What it records (into keras_config_reference.json next to this file):
- ``keras.backend.result_type`` over dtype pairs (and Python scalar types), ``standardize_dtype``,
  ``is_float_dtype`` / ``is_int_dtype``;
- losses under ``keras.config.set_epsilon(1e-3)`` (clipping reads the fuzz factor at each call);
- a small softmax classifier trained by ``fit`` with ``class_weight`` (sparse labels and one-hot
  labels, arrays and a tf.data pipeline), SGD, no shuffling: the weights after training and the
  history; and the same with ``train_on_batch(class_weight=...)``;
- ``set_max_epochs`` / ``set_max_steps_per_epoch``: how many epochs and steps ``fit`` ran.

Regenerate (scratch venv with TensorFlow 2.21 + Keras 3):
    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_config_reference.py
"""

import json
import os
import warnings

import keras
import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_config_reference.json")
out = {}

DT = ["bool", "uint8", "uint16", "uint32", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
      "float64"]
pairs = {}
for a in DT:
    for b in DT:
        pairs[f"{a},{b}"] = keras.backend.result_type(a, b)
for a in DT:
    pairs[f"{a},int"] = keras.backend.result_type(a, int)
    pairs[f"{a},float"] = keras.backend.result_type(a, float)
pairs["int,float"] = keras.backend.result_type(int, float)
out["result_type"] = pairs
out["standardize_dtype"] = {repr(k): keras.backend.standardize_dtype(v) for k, v in
                            {"int": int, "float": float, "bool": bool, "f64": "float64", "np_i16": np.int16,
                             "None": None}.items()}
out["is_float"] = {d: keras.backend.is_float_dtype(d) for d in DT}
out["is_int"] = {d: keras.backend.is_int_dtype(d) for d in DT}

yt = np.array([[0.0, 1.0], [1.0, 0.0]], "float32")
yp = np.array([[0.0, 1.0], [0.9995, 0.0005]], "float32")
keras.config.set_epsilon(1e-3)
out["eps"] = {
    "bce": float(keras.losses.BinaryCrossentropy()(yt, yp)),
    "cce": float(keras.losses.CategoricalCrossentropy()(yt, yp)),
    "kld": float(keras.losses.KLDivergence()(yt, yp)),
}
keras.config.set_epsilon(1e-7)


def fixed(shape, k):
    n = int(np.prod(shape))
    return (np.sin(np.arange(n, dtype="float64") * 0.37 + k) * 0.5).reshape(shape).astype("float32")


X = fixed((12, 4), 1.0)
Y = np.array([0, 1, 2, 1, 0, 2, 2, 1, 0, 1, 2, 0])
CW = {0: 1.0, 1: 2.0, 2: 0.5}


def model():
    m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
    m.set_weights([fixed((4, 3), 2.0), fixed((3,), 3.0)])
    return m


def run(case, onehot, dataset):
    m = model()
    m.compile(optimizer=keras.optimizers.SGD(0.1),
              loss="categorical_crossentropy" if onehot else "sparse_categorical_crossentropy")
    y = np.eye(3, dtype="float32")[Y] if onehot else Y
    if dataset:
        h = m.fit(tf.data.Dataset.from_tensor_slices((X, y)).batch(4), epochs=2, class_weight=CW, verbose=0)
    else:
        h = m.fit(X, y, batch_size=4, epochs=2, shuffle=False, class_weight=CW, verbose=0)
    out.setdefault("fit", {})[case] = {"weights": [w.tolist() for w in m.get_weights()],
                                      "loss": [float(v) for v in h.history["loss"]]}


run("sparse_arrays", False, False)
run("onehot_arrays", True, False)
run("sparse_dataset", False, True)
m = model()
m.compile(optimizer=keras.optimizers.SGD(0.1), loss="sparse_categorical_crossentropy")
loss = m.train_on_batch(X, Y, class_weight=CW)
out["train_on_batch"] = {"loss": float(loss), "weights": [w.tolist() for w in m.get_weights()]}
try:
    m.train_on_batch(X, Y, sample_weight=np.ones(12), class_weight=CW)
except ValueError as e:
    out["train_on_batch_both"] = str(e).split(" Received:")[0]
m = model()
m.compile(optimizer=keras.optimizers.SGD(0.1), loss="sparse_categorical_crossentropy")
try:
    m.fit(X, Y, sample_weight=np.ones(12), class_weight=CW, verbose=0)
except ValueError as e:
    out["fit_both"] = str(e)

keras.config.set_max_epochs(2)
keras.config.set_max_steps_per_epoch(2)
m = model()
m.compile(optimizer=keras.optimizers.SGD(0.1), loss="sparse_categorical_crossentropy")
seen = []
cb = keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: seen.append(b))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    h = m.fit(X, Y, batch_size=4, epochs=5, shuffle=False, verbose=0, callbacks=[cb])
out["caps"] = {"epochs": len(h.history["loss"]), "batches": seen,
               "warnings": sorted({str(x.message) for x in w if "Limiting" in str(x.message)}),
               "weights": [x.tolist() for x in m.get_weights()]}
keras.config.set_max_epochs(None)
keras.config.set_max_steps_per_epoch(None)

# keras.optimizers.serialize, keras.dtype_policies, top-level names
ser = keras.optimizers.serialize(keras.optimizers.Adam(0.002, amsgrad=True))
out["optimizer_serialize"] = {"keys": sorted(ser), "module": ser["module"], "class_name": ser["class_name"],
                              "registered_name": ser["registered_name"],
                              "roundtrip": type(keras.optimizers.deserialize(ser)).__name__,
                              "get_dict": type(keras.optimizers.get(ser)).__name__}
out["dtype_policies"] = {"serialize": keras.dtype_policies.serialize(keras.dtype_policies.get("float64")),
                         "get_name": keras.dtype_policies.get("float32").name,
                         "float_is": keras.dtype_policies.FloatDTypePolicy("float64").name}
out["top_level"] = sorted(n for n in ("DTypePolicy", "FloatDTypePolicy", "Initializer", "InputSpec", "KerasTensor",
                                      "Loss", "Metric", "Optimizer", "Variable", "device", "name_scope", "version")
                          if hasattr(keras, n))
out["saving"] = sorted(n for n in dir(keras.saving) if not n.startswith("_") and n != "KerasFileEditor")
with open(OUT, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
print("wrote", OUT)
