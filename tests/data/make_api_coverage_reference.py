"""Records the public names of TensorFlow 2.21's and Keras 3.15's namespaces that tapers mirrors, into
api_coverage_reference.json next to this file; tests/test_api_coverage.py checks that every one of them
exists in tapers or is listed there as known missing (with the reason), so a porting user's
AttributeError is either fixed or written down.

Regenerate (scratch venv with TensorFlow 2.21 + Keras 3):
    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_api_coverage_reference.py
"""

import json
import os

import keras
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "api_coverage_reference.json")

TF_MODULES = ["", "math", "nn", "linalg", "random", "data", "data.experimental", "image", "config", "debugging",
              "errors", "train", "distribute", "autodiff", "nest", "dtypes"]
KERAS_MODULES = ["", "layers", "losses", "metrics", "optimizers", "optimizers.schedules", "callbacks",
                 "initializers", "regularizers", "constraints", "activations", "backend", "config", "ops", "random",
                 "utils", "mixed_precision", "preprocessing", "saving", "tree", "dtype_policies", "models"]


def names(obj):
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def resolve(root, path):
    obj = root
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part)
    return obj


out = {"tf": {m: names(resolve(tf, m)) for m in TF_MODULES},
       "keras": {m: names(resolve(keras, m)) for m in KERAS_MODULES},
       "tf.data.Dataset": names(tf.data.Dataset), "tf.Variable": names(tf.Variable),
       "keras.Model": names(keras.Model)}
with open(OUT, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
print("wrote", OUT)
