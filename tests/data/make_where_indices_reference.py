# Generates where_indices_reference.json with TensorFlow 2.21 (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_where_indices_reference.py > tests/data/where_indices_reference.json
# tf.where's one-argument form (TensorFlow's Where op): for each case in
# where_indices_programs.CASES, the int64 coordinates of the true (nonzero) elements, their
# shape and dtype, or the error TF raises (its type and message); and the error for one of x, y given alone.
import json
import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf

sys.path.insert(0, os.path.dirname(__file__))
from where_indices_programs import CASES, condition  # noqa: E402

out = {"cases": {}}
for name in CASES:
    c = tf.constant(*condition(name))
    try:
        r = tf.where(c)
    except Exception as e:  # noqa: BLE001
        out["cases"][name] = {"error": type(e).__name__, "message": e.message.split("}} ")[-1].split(" [Op:")[0]}
        continue
    out["cases"][name] = {"value": r.numpy().tolist(), "shape": list(r.shape), "dtype": r.dtype.name}
try:
    tf.where(tf.constant([True]), x=tf.constant([1.0]))
except Exception as e:  # noqa: BLE001
    out["one_of_x_y"] = {"type": type(e).__name__, "message": str(e)}
print(json.dumps(out, indent=1, sort_keys=True))
