# Generates function_reference.json with TensorFlow (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_function_reference.py > tests/data/function_reference.json
# What tf.function does that tapers.function copies: which calls trace
# (tracing counts after each call), that Python side effects run only while
# tracing, and the error for a Variable created on a later trace.
import json
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf

out = {"tensorflow": tf.__version__}

# Retracing: tensors by shape and dtype, Python values by value, Variables.
prints = []


@tf.function
def f(x, k=1):
    prints.append("traced")
    return x * k


v1 = tf.Variable([1.0, 2.0])
v2 = tf.Variable([3.0, 4.0])
calls = [
    ("float32 [2]", lambda: f(tf.constant([1.0, 2.0]))),
    ("float32 [2] other values", lambda: f(tf.constant([5.0, 6.0]))),
    ("float32 [3]", lambda: f(tf.constant([1.0, 2.0, 3.0]))),
    ("float64 [2]", lambda: f(tf.constant([1.0, 2.0], dtype=tf.float64))),
    ("float32 [2], k=2", lambda: f(tf.constant([1.0, 2.0]), k=2)),
    ("float32 [2], k=2 again", lambda: f(tf.constant([1.0, 2.0]), k=2)),
    ("python float 1.0", lambda: f(1.0)),
    ("python float 2.0", lambda: f(2.0)),
    ("python float 1.0 again", lambda: f(1.0)),
    ("variable v1", lambda: f(v1)),
    ("variable v1 again", lambda: f(v1)),
    ("variable v2 (same shape and dtype)", lambda: f(v2)),
]
trace = []
for name, call in calls:
    call()
    trace.append({"call": name, "tracing_count": f.experimental_get_tracing_count(), "prints": len(prints)})
out["retracing"] = trace

# Variables created on the first trace only.
holder = []


@tf.function
def make(x):
    if not holder or x.shape[0] == 3:
        holder.append(tf.Variable(tf.zeros_like(x)))
    holder[-1].assign_add(x)
    return holder[-1].read_value()


make(tf.constant([1.0, 2.0]))
make(tf.constant([1.0, 2.0]))
out["variable_first_trace"] = {"values": holder[0].numpy().tolist(), "count": make.experimental_get_tracing_count()}
try:
    make(tf.constant([1.0, 2.0, 3.0]))
    out["variable_later_trace"] = None
except Exception as e:  # noqa: BLE001 - the class is what is recorded
    lines = [ln.strip() for ln in str(e).splitlines() if "tf.function" in ln]
    out["variable_later_trace"] = {"type": type(e).__name__, "message": lines[-1]}

# Nested outputs come back in their structure.


@tf.function
def nested(x):
    return {"b": (x, x * 2), "a": [x + 1]}


r = nested(tf.constant(1.0))
out["nested"] = {"keys": list(r.keys()), "b_type": type(r["b"]).__name__, "a_type": type(r["a"]).__name__}

print(json.dumps(out, indent=1))
