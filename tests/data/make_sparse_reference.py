# Generates sparse_reference.json with TensorFlow 2.21 / Keras 3 (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_sparse_reference.py > tests/data/sparse_reference.json
#
# What TensorFlow returns for gradients of gathers (IndexedSlices or dense), what it
# prints, what its operations on IndexedSlices give, and Keras 3 optimizer steps
# applied to IndexedSlices gradients (rows repeated in the indices included, where
# Keras' sparse rules differ from the dense ones). tests/test_sparse_grad.py runs the
# same programs (the PROGRAMS source below is shared through the JSON) under tapers.
import json
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import keras
import numpy as np
import tensorflow as tf

# Each program: the body of `def f(tf, v, x, t)` run inside a persistent tape `t` over a
# float32 Variable `v` (4x3) and a watched float64 constant `x` (4x3); it returns
# (target, source) and the gradient of target w.r.t. source is recorded.
PROGRAMS = {
    "var_gather_repeats": "y = tf.reduce_sum(tf.gather(v, [0, 2, 0]) ** 2)\nreturn y, v",
    "var_gather_int64": "y = tf.reduce_sum(tf.gather(v, np.array([1, 2], np.int64)))\nreturn y, v",
    "two_gathers_concat": (
        "y = tf.reduce_sum(tf.gather(v, [1])) * 2.0 + tf.reduce_sum(tf.gather(v, [2]))\nreturn y, v"
    ),
    "gather_and_embedding_mixed_dtypes": (
        "y = tf.reduce_sum(tf.nn.embedding_lookup(v, np.array([[3, 1]], np.int64)))"
        " + tf.reduce_sum(tf.gather(v, [0]))\nreturn y, v"
    ),
    "gather_2d_ids": "y = tf.reduce_sum(tf.gather(v, [[0, 1], [1, 1]]) * 3.0)\nreturn y, v",
    "gather_plus_dense_use": "y = tf.reduce_sum(tf.gather(v, [1])) + tf.reduce_sum(v * v)\nreturn y, v",
    "gather_axis1_dense": "y = tf.reduce_sum(tf.gather(v, [1, 2], axis=1) ** 2)\nreturn y, v",
    "watched_tensor_gather": "y = tf.reduce_sum(tf.gather(x, [3, 0]) * x[0])\nreturn y, x",
    "identity_then_gather": "y = tf.reduce_sum(tf.gather(tf.identity(v), [1, 1]))\nreturn y, v",
    "op_then_gather_dense": "y = tf.reduce_sum(tf.gather(v * 1.0, [1]))\nreturn y, v",
    "embedding_lookup_max_norm": (
        "y = tf.reduce_sum(tf.nn.embedding_lookup(v, [3, 0], max_norm=2.0) * [1.0, 2.0, 3.0])\nreturn y, v"
    ),
    "gather_scalar_id": "y = tf.reduce_sum(tf.gather(v, 2) * [1.0, -1.0, 2.0])\nreturn y, v",
    "gather_empty_ids": "y = tf.reduce_sum(tf.gather(v, np.zeros([0], np.int32)))\nreturn y, v",
    "gather_nonlinear_chain": "y = tf.reduce_sum(tf.tanh(tf.gather(v, [3, 1, 3]) * 0.1))\nreturn y, v",
}


def describe(g):
    if g is None:
        return {"kind": "none"}
    if isinstance(g, tf.IndexedSlices):
        return {
            "kind": "indexed_slices",
            "indices": g.indices.numpy().tolist(),
            "indices_dtype": g.indices.dtype.name,
            "values": g.values.numpy().tolist(),
            "values_shape": list(g.values.shape),
            "values_dtype": g.values.dtype.name,
            "dense_shape": g.dense_shape.numpy().tolist(),
            "dense_shape_dtype": g.dense_shape.dtype.name,
            "dense": tf.convert_to_tensor(g).numpy().tolist(),
            "str": str(g),
        }
    return {"kind": "dense", "dense": g.numpy().tolist(), "dtype": g.dtype.name}


def run_program(body):
    src = "def f(tf, np, v, x, t):\n" + "".join("    " + line + "\n" for line in body.split("\n"))
    ns = {}
    exec(src, ns)
    v = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 4.0 - 1.0)
    x = tf.constant(np.linspace(-1.0, 2.0, 12).reshape(4, 3))
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y, src_ = ns["f"](tf, np, v, x, t)
    return describe(t.gradient(y, src_))


out = {"programs": PROGRAMS, "gradients": {k: run_program(b) for k, b in PROGRAMS.items()}}


# Operations on an IndexedSlices gradient.
def slices():
    v = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 4.0 - 1.0)
    with tf.GradientTape() as t:
        y = tf.reduce_sum(tf.gather(v, [2, 0, 2]) * [[1.0, 2.0, 3.0]])
    return t.gradient(y, v)


def outcome(fn):
    try:
        r = fn()
    except Exception as e:  # recorded: the class TensorFlow raises
        return {"error": type(e).__name__}
    if isinstance(r, tuple):
        return {"tuple": [outcome(lambda r=x: r) for x in r]}
    if isinstance(r, list):
        return {"list": [outcome(lambda r=x: r) for x in r]}
    return describe(r)


g = slices()
d = tf.ones((4, 3))
ops_cases = {
    "neg": lambda: -g,
    "convert_to_tensor": lambda: tf.convert_to_tensor(g),
    "add_n_with_dense": lambda: tf.math.add_n([g, d]),
    "multiply_converts": lambda: tf.multiply(g, 2.0),
    "plus_operator": lambda: g + g,
    "times_operator": lambda: g * 2.0,
    "clip_by_norm": lambda: tf.clip_by_norm(g, 1.0),
    "clip_by_global_norm": lambda: tf.clip_by_global_norm([g, d], 2.0),
    "global_norm": lambda: tf.linalg.global_norm([g, d]),
}
out["ops"] = {k: outcome(f) for k, f in ops_cases.items()}
out["properties"] = {"shape": list(g.shape), "dtype": g.dtype.name}

# Keras 3 optimizers applied to IndexedSlices gradients (with repeated rows) and, for
# comparison, to the same gradients densified: three steps each. The configurations
# (class name, arguments) and the training program are shared with the test through
# the JSON, so both libraries run the same thing.
OPTIMIZERS = {
    "sgd": ["SGD", {"learning_rate": 0.1}],
    "sgd_momentum": ["SGD", {"learning_rate": 0.1, "momentum": 0.9}],
    "sgd_nesterov": ["SGD", {"learning_rate": 0.1, "momentum": 0.9, "nesterov": True}],
    "sgd_weight_decay": ["SGD", {"learning_rate": 0.1, "weight_decay": 0.1}],
    "adam": ["Adam", {"learning_rate": 0.1}],
    "adam_amsgrad": ["Adam", {"learning_rate": 0.1, "amsgrad": True}],
    "adamw": ["AdamW", {"learning_rate": 0.1, "weight_decay": 0.05}],
    "rmsprop": ["RMSprop", {"learning_rate": 0.1}],
    "rmsprop_centered_momentum": ["RMSprop", {"learning_rate": 0.05, "momentum": 0.5, "centered": True}],
    "adam_clipnorm": ["Adam", {"learning_rate": 0.1, "clipnorm": 0.5}],
    "adam_global_clipnorm": ["Adam", {"learning_rate": 0.1, "global_clipnorm": 0.5}],
    "sgd_clipvalue": ["SGD", {"learning_rate": 0.1, "clipvalue": 0.5}],
    "rmsprop_clipvalue": ["RMSprop", {"learning_rate": 0.1, "clipvalue": 0.5}],
}
# The body of `def train(tf, np, opt, densify)`, returning the trajectory.
TRAIN = """v = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 10.0)
w = tf.Variable(np.array([0.5, -0.25], np.float32))
traj = []
for step in range(3):
    ids = [0, 2, 0] if step != 1 else [3, 3, 1]
    with tf.GradientTape() as t:
        loss = tf.reduce_sum(tf.gather(v, ids) ** 2 * [1.0, 2.0, -1.0]) + tf.reduce_sum(tf.sin(w))
    gv, gw = t.gradient(loss, [v, w])
    assert isinstance(gv, tf.IndexedSlices)
    if densify:
        gv = tf.convert_to_tensor(gv)
    opt.apply_gradients([(gv, v), (gw, w)])
    traj.append(v.numpy().ravel().tolist() + w.numpy().tolist())
return traj"""


def train(cls, kwargs, densify):
    ns = {}
    exec("def train(tf, np, opt, densify):\n" + "".join("    " + line + "\n" for line in TRAIN.split("\n")), ns)
    return ns["train"](tf, np, getattr(keras.optimizers, cls)(**kwargs), densify)


out["optimizer_configs"] = OPTIMIZERS
out["train_program"] = TRAIN
out["optimizers"] = {
    name: {"sparse": train(cls, kw, False), "dense": train(cls, kw, True)} for name, (cls, kw) in OPTIMIZERS.items()
}
print(json.dumps(out))
