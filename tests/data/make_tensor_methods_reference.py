"""Records TensorFlow 2.21's answers for ``Tensor``/``Variable`` methods (get_shape, set_shape, ref, device,
the Variable scatter family) and ``tf.TensorArray``, into tensor_methods_reference.json next to this file.

Regenerate (scratch venv with TensorFlow 2.21):
    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_tensor_methods_reference.py
"""

import json
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tensor_methods_reference.json")
out = {}


def err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - recorded
        text = str(e).split(" [Op:")[0]
        if text.startswith("{{function_node"):  # the eager kernel's wrapper prefix
            text = text.split("}} ", 1)[1]
        return [type(e).__name__, text]
    return None


t = tf.ones([2, 3])
out["device"] = t.device
out["set_shape_error"] = err(lambda: t.set_shape([2, 4]))
out["variable_set_shape_error"] = err(lambda: tf.Variable([1.0, 2.0]).set_shape([3]))
out["get_shape"] = t.get_shape().as_list()

base = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], "float32")
vals = np.array([[10.0, 20.0], [30.0, 40.0], [0.5, 2.0]], "float32")
idx = np.array([1, 3, 1])
scat = {}
for method in ["scatter_update", "scatter_add", "scatter_sub", "scatter_mul", "scatter_div", "scatter_max",
               "scatter_min"]:
    v = tf.Variable(base)
    i = idx if method != "scatter_update" else np.array([1, 3, 0])
    getattr(v, method)(tf.IndexedSlices(tf.constant(vals), tf.constant(i)))
    scat[method] = {"indices": i.tolist(), "result": v.numpy().tolist()}
nd = {}
for method in ["scatter_nd_update", "scatter_nd_add", "scatter_nd_sub"]:
    v = tf.Variable(base)
    getattr(v, method)([[0, 1], [2, 0], [0, 1]] if method != "scatter_nd_update" else [[0, 1], [2, 0]],
                       [5.0, 6.0, 7.0] if method != "scatter_nd_update" else [5.0, 6.0])
    nd[method] = v.numpy().tolist()
v = tf.Variable(base)
out["scatter"] = {"base": base.tolist(), "values": vals.tolist(), "sparse": scat, "nd": nd,
                  "sparse_read": v.sparse_read([3, 0]).numpy().tolist(),
                  "gather_nd": v.gather_nd([[1, 1], [0, 0]]).numpy().tolist()}

v = tf.Variable(base)
out["scatter_errors"] = {
    "update_oob": err(lambda: v.scatter_update(tf.IndexedSlices(tf.constant(vals[:2]), tf.constant([1, 9])))),
    "mul_negative": err(lambda: v.scatter_mul(tf.IndexedSlices(tf.constant(vals[:1]), tf.constant([-1])))),
    "add_oob": err(lambda: v.scatter_add(tf.IndexedSlices(tf.constant(vals[:1]), tf.constant([4])))),
}
out["scatter_errors_ops"] = {}
for key, fn in {
    "update_oob": lambda: v.scatter_update(tf.IndexedSlices(tf.constant(vals[:2]), tf.constant([1, 9]))),
    "mul_negative": lambda: v.scatter_mul(tf.IndexedSlices(tf.constant(vals[:1]), tf.constant([-1]))),
    "add_oob": lambda: v.scatter_add(tf.IndexedSlices(tf.constant(vals[:1]), tf.constant([4]))),
}.items():
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - recorded
        out["scatter_errors_ops"][key] = str(e).split("[Op:")[1].split("]")[0] if "[Op:" in str(e) else None

# TensorArray
ta = tf.TensorArray(tf.float32, size=3)
ta = ta.write(0, [1.0, 2.0])
ta = ta.write(2, [5.0, 6.0])
d = tf.TensorArray(tf.int32, size=0, dynamic_size=True).write(4, 7)
u = tf.TensorArray(tf.float32, size=0, dynamic_size=True).unstack([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    a = tf.TensorArray(tf.float32, size=2)
    a = a.write(0, x * 2.0)
    a = a.write(1, x * x)
    y = tf.reduce_sum(a.stack() * tf.constant([[1.0], [3.0]]))
out["tensor_array"] = {
    "stack": ta.stack().numpy().tolist(), "size": int(ta.size()), "element_shape": ta.element_shape.as_list(),
    "read_unwritten": ta.read(1).numpy().tolist(),
    "write_oob": err(lambda: ta.write(3, [1.0, 1.0])),
    "write_bad_shape": err(lambda: ta.write(1, [1.0, 1.0, 1.0])),
    "dynamic": {"size": int(d.size()), "stack": d.stack().numpy().tolist()},
    "unstack": {"size": int(u.size()), "gather": u.gather([2, 0]).numpy().tolist(),
                "concat": u.concat().numpy().tolist()},
    "scatter": tf.TensorArray(tf.float32, size=4).scatter([3, 1], [[1.0], [2.0]]).stack().numpy().tolist(),
    "empty_shape": list(tf.TensorArray(tf.float32, size=0).stack().shape),
    "empty_with_shape": list(tf.TensorArray(tf.float32, size=0, element_shape=[2]).stack().shape),
    "split_read1": tf.TensorArray(tf.float32, size=2).split([1.0, 2.0, 3.0], [1, 2]).read(1).numpy().tolist(),
    "grad": tape.gradient(y, x).numpy().tolist(),
}
out["type_spec"] = repr(tf.type_spec_from_value(tf.ones([2, 3], tf.int32)))
out["constant_initializer"] = tf.constant_initializer(3.0)((2,)).numpy().tolist()
out["enums"] = {"agg": [m.name for m in tf.VariableAggregation], "sync": [m.name for m in tf.VariableSynchronization],
                "agg_values": [m.value for m in tf.VariableAggregation],
                "sync_values": [m.value for m in tf.VariableSynchronization]}
with open(OUT, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
print("wrote", OUT)
