"""Records Keras 3's answers for the keras.layers API pieces tapers mirrors outside any one layer family.

What it records (into keras_api_reference.json next to this file):
- InputSpec: ``repr``, ``get_config`` and the ValueError message ``Layer.__call__`` raises for
  each kind of mismatch (ndim, min/max ndim, dtype, axes, shape, input count), eager and symbolic;
- ``keras.layers.serialize`` of a Dense and of a TimeDistributed(Dense) (keys and values);
- ``keras.layers.dot`` on fixed inputs.

Regenerate (scratch venv with TensorFlow 2.21 + Keras 3):
    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_api_reference.py
"""

import json
import os

import keras
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_api_reference.json")


class Checked(keras.layers.Layer):
    def __init__(self, spec, **kwargs):
        super().__init__(**kwargs)
        self.input_spec = spec

    def call(self, x):
        return x


SPECS = {
    "ndim": ({"ndim": 3}, [(2, 4)], "float32"),
    "min_ndim": ({"min_ndim": 3}, [(2, 4)], "float32"),
    "max_ndim": ({"max_ndim": 2}, [(2, 4, 1)], "float32"),
    "dtype": ({"dtype": "float32"}, [(2, 4)], "int32"),
    "axes": ({"ndim": 2, "axes": {-1: 5}}, [(2, 4)], "float32"),
    "shape": ({"shape": (None, 3, 4)}, [(2, 5, 4)], "float32"),
    "squeeze_ok": ({"shape": (None, 4, 1), "allow_last_axis_squeeze": True}, [(2, 4)], "float32"),
    "count": ([{"ndim": 2}, {"ndim": 2}], [(2, 4)], "float32"),
    "ok": ({"ndim": 2, "axes": {1: 4}, "dtype": "float32"}, [(2, 4)], "float32"),
}


def message(spec_args, shapes, dtype, symbolic):
    spec = [keras.layers.InputSpec(**a) for a in spec_args] if isinstance(spec_args, list) else (
        keras.layers.InputSpec(**spec_args))
    layer = Checked(spec, name="checked")
    if symbolic:
        xs = [keras.Input(batch_shape=s, dtype=dtype) for s in shapes]
    else:
        xs = [np.zeros(s, dtype=dtype) for s in shapes]
    try:
        layer(xs[0] if len(xs) == 1 else xs)
    except ValueError as e:
        text = str(e)
        # Keras' call-context suffix is not part of the check's message.
        return text.split("\n\nArguments received by")[0]
    return None


out = {"input_spec": {}}
for key, (args, shapes, dtype) in SPECS.items():
    out["input_spec"][key] = {
        "spec": args,
        "shapes": shapes,
        "dtype": dtype,
        "eager": message(args, shapes, dtype, False),
        "symbolic": message(args, shapes, dtype, True),
    }
spec = keras.layers.InputSpec(dtype="float32", shape=(None, 3), axes={1: 3})
out["repr"] = repr(spec)
out["config"] = spec.get_config()

dense = keras.layers.Dense(3, name="d")
ser = keras.layers.serialize(dense)
out["serialize_dense"] = {"keys": sorted(ser), "module": ser["module"], "class_name": ser["class_name"],
                          "registered_name": ser["registered_name"]}
td = keras.layers.TimeDistributed(keras.layers.Dense(2, name="inner"), name="td")
cfg = td.get_config()
out["time_distributed_layer"] = {"keys": sorted(cfg["layer"]), "module": cfg["layer"]["module"],
                                 "class_name": cfg["layer"]["class_name"]}
a = np.arange(6, dtype="float32").reshape(2, 3)
b = np.arange(6, 12, dtype="float32").reshape(2, 3)
out["dot"] = {"a": a.tolist(), "b": b.tolist(), "axes1": np.asarray(keras.layers.dot([a, b], axes=1)).tolist(),
              "normalized": np.asarray(keras.layers.dot([a, b], axes=1, normalize=True)).tolist()}
out["aliases"] = {n: getattr(keras.layers, n).__name__ for n in (
    "Convolution1D", "Convolution2D", "Convolution3D", "Convolution1DTranspose", "Convolution2DTranspose",
    "SeparableConvolution1D", "SeparableConvolution2D")}

with open(OUT, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
print("wrote", OUT)
