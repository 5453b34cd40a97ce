# Generates function_reference.json with TensorFlow (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_function_reference.py > tests/data/function_reference.json
# What tf.function does that tapers.function copies: which calls trace
# (tracing counts after each call), that Python side effects run only while
# tracing, and the error for a Variable created on a later trace.
import json
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
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


# Relaxed shapes: reduce_retracing generalizes the shapes that differ to None
# (a different rank to an unknown shape); input_signature traces once.
relax_traces = []


@tf.function(reduce_retracing=True)
def relaxed(x):
    relax_traces.append(1)
    return x * 2.0


relax_calls = [
    ("float32 [2]", [2], "float32"),
    ("float32 [3]", [3], "float32"),
    ("float32 [4]", [4], "float32"),
    ("float32 [2] again", [2], "float32"),
    ("float32 [2,3]", [2, 3], "float32"),
    ("float32 [5,3]", [5, 3], "float32"),
    ("float32 [5,4]", [5, 4], "float32"),
    ("float32 [1,1]", [1, 1], "float32"),
    ("float64 [3]", [3], "float64"),
    ("float64 [7]", [7], "float64"),
    ("float32 [2,2,2]", [2, 2, 2], "float32"),
]
out["reduce_retracing"] = []
for name, shape, dtype in relax_calls:
    relaxed(tf.ones(shape, dtype=dtype))
    out["reduce_retracing"].append(
        {"call": name, "shape": shape, "dtype": dtype, "tracing_count": relaxed.experimental_get_tracing_count()}
    )

sig_traces = []


@tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
def signed(x):
    sig_traces.append(1)
    return tf.reduce_mean(x, axis=0) + tf.cast(tf.shape(x)[0], tf.float32)


sig = {"calls": []}
for n in (2, 5, 1):
    x = tf.reshape(tf.range(n * 3, dtype=tf.float32), [n, 3])
    sig["calls"].append(
        {"rows": n, "value": signed(x).numpy().tolist(), "tracing_count": signed.experimental_get_tracing_count()}
    )
for name, bad in (("shape [3]", tf.ones([3])), ("float64 [2,3]", tf.ones([2, 3], tf.float64))):
    try:
        signed(bad)
        sig[name] = None
    except Exception as e:  # noqa: BLE001 - the class is what is recorded
        sig[name] = {"type": type(e).__name__}
sig["numpy input"] = signed(np.ones([2, 3], np.float32)).numpy().tolist()
sig["tracing_count"] = signed.experimental_get_tracing_count()
out["input_signature"] = sig

# The retracing warning (TensorFlow logs it): its text and when it comes.
import logging  # noqa: E402

records = []


class _Catch(logging.Handler):
    def emit(self, record):
        records.append(record.getMessage())


tf.get_logger().addHandler(_Catch())


@tf.function
def retraced(x):
    return x + 1


warn_at = []
for n in range(1, 13):
    before = len(records)
    retraced(tf.ones([n]))
    if len(records) > before:
        warn_at.append(n)
msgs = [m for m in records if "retracing" in m]
message = msgs[0].replace(repr(retraced.python_function), "{function}")
out["retracing_warning"] = {"calls_warned": warn_at, "message": message}

# cond and while_loop: values and gradients (tape inside and outside).
w = tf.Variable([1.5, -0.5], dtype=tf.float64)


@tf.function
def cond_inside(x):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.cond(
                tf.reduce_sum(x) > 0, lambda: tf.reduce_sum(x * x * x * w), lambda: tf.reduce_sum(tf.sin(x) * w)
            )
        dx, dw = tape.gradient(y, [x, w])
    d2 = outer.gradient(dx, x)
    return y, dx, dw, d2


@tf.function
def cond_plain(x):
    return tf.cond(tf.reduce_sum(x) > 0, lambda: tf.reduce_sum(x * x * x * w), lambda: tf.reduce_sum(tf.sin(x) * w))


out["cond"] = []
for xv in ([0.5, 0.25], [-1.0, 0.3], [2.0, -0.5], [-0.2, -0.7]):
    x = tf.constant(xv, tf.float64)
    y, dx, dw, d2 = cond_inside(x)
    with tf.GradientTape() as t:
        t.watch(x)
        y2 = cond_plain(x)
    dx_out = t.gradient(y2, x)
    out["cond"].append(
        {
            "x": xv,
            "y": float(y),
            "dx": dx.numpy().tolist(),
            "dw": dw.numpy().tolist(),
            "d2": d2.numpy().tolist(),
            "dx_outside": dx_out.numpy().tolist(),
        }
    )
out["cond_tracing_count"] = cond_inside.experimental_get_tracing_count()

u = tf.Variable(1.1, dtype=tf.float64)


@tf.function
def grow(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        i, y = tf.while_loop(lambda i, y: y < 10.0, lambda i, y: (i + 1, y * u + y), (tf.constant(0), x))
    dx, du = tape.gradient(y, [x, u])
    return i, y, dx, du


out["while"] = []
for xv, uv in ((1.0, 1.1), (0.01, 1.1), (4.0, 0.5), (20.0, 0.5)):
    u.assign(uv)
    i, y, dx, du = grow(tf.constant(xv, tf.float64))
    out["while"].append({"x": xv, "u": uv, "i": int(i), "y": float(y), "dx": float(dx), "du": float(du)})
out["while_tracing_count"] = grow.experimental_get_tracing_count()
out["while_max_iter"] = [
    int(v)
    for v in tf.while_loop(
        lambda i, y: i < 100, lambda i, y: (i + 1, y * 2), (tf.constant(0), tf.constant(1)), maximum_iterations=5
    )
]


@tf.function
def switch(i, x):
    return tf.switch_case(i, [lambda: x + 1.0, lambda: x * 10.0, lambda: -x])


out["switch_case"] = [float(switch(tf.constant(k), tf.constant(2.0))) for k in (0, 1, 2, 7, -1)]


@tf.function
def case(x):
    return tf.case([(x > 10.0, lambda: x * 0.0), (x > 1.0, lambda: x * 2.0)], default=lambda: -x)


out["case"] = [float(case(tf.constant(v))) for v in (20.0, 5.0, 0.5)]

# Random draws inside a function advance their generator at each call: the
# same values as the eager draws of a generator in the same state.
g1 = tf.random.Generator.from_seed(7)
g2 = tf.random.Generator.from_seed(7)


@tf.function
def noisy(x):
    return x + g1.normal([3])


compiled = [noisy(tf.zeros([3])).numpy() for _ in range(3)]
eager = [g2.normal([3]).numpy() for _ in range(3)]
out["random_generator"] = {
    "calls_differ": bool(not np.array_equal(compiled[0], compiled[1])),
    "equals_eager_sequence": bool(all(np.array_equal(a, b) for a, b in zip(compiled, eager))),
    "tracing_count": noisy.experimental_get_tracing_count(),
}

# tf.config.run_functions_eagerly: every tf.function runs its Python function
# eagerly (no graph) while it is on; tracing resumes when it is turned off.
eager_calls = []


@tf.function
def sometimes_eager(x):
    eager_calls.append(tf.executing_eagerly())
    return x + 1.0


tf.config.run_functions_eagerly(True)
values = [float(sometimes_eager(tf.constant(v))) for v in (1.0, 2.0)]
flag_on = tf.config.functions_run_eagerly()
count_on = sometimes_eager.experimental_get_tracing_count()
tf.config.run_functions_eagerly(False)
values += [float(sometimes_eager(tf.constant(v))) for v in (3.0, 4.0)]
out["run_functions_eagerly"] = {
    "executing_eagerly": eager_calls,
    "values": values,
    "flag_on": flag_on,
    "flag_off": tf.config.functions_run_eagerly(),
    "tracing_counts": [count_on, sometimes_eager.experimental_get_tracing_count()],
}

# tf.print is an op: it prints at every call (the values of that call, a
# Variable as read at that point), while Python's print runs only when tracing.
# It also prints inside the branch a cond takes and at each loop iteration.
PRINT_PROGRAM = """
import tempfile
log = tempfile.NamedTemporaryFile(suffix=".txt", delete=False).name
stream = "file://" + log
traced = []
v = tf.Variable(1.0)


@tf.function
def step(x):
    traced.append("traced")
    tf.print("x is", x, {"v": v, "k": [x * 2, "a"], "b": (1, {"z": 0, "y": x})}, output_stream=stream)
    v.assign_add(1.0)
    tf.print("after", v, [1, 2], "end", output_stream=stream, sep="|")
    return x * 2


@tf.function
def branchy(x):
    y = tf.cond(x > 0.0, lambda: x * 2.0, lambda: -x)
    tf.print("y", y, output_stream=stream)
    return y


@tf.function
def in_branch(x):
    def positive():
        tf.print("positive", x, output_stream=stream)
        return x * 2.0

    def other():
        tf.print("other", x, output_stream=stream)
        return -x

    return tf.cond(x > 0.0, positive, other)


@tf.function
def in_loop(n):
    def body(i):
        tf.print("iteration", i, "of", n, output_stream=stream)
        return i + 1

    return tf.while_loop(lambda i: i < n, body, [tf.constant(0)])


@tf.function
def loop_gradient(x):
    def body(i, y):
        tf.print("y", y, output_stream=stream)
        return i + 1, y * x

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.while_loop(lambda i, y: i < 3, body, [tf.constant(0), tf.constant(1.0)])[1]
    return tape.gradient(y, x)


results = [float(step(tf.constant(float(i)))) for i in range(3)]
results += [float(branchy(tf.constant(v))) for v in (1.5, -2.0, 3.0)]
results += [float(in_branch(tf.constant(v))) for v in (1.0, -1.0, 2.0)]
results += [float(in_loop(tf.constant(n))[0]) for n in (2, 0, 3)]
results += [float(loop_gradient(tf.constant(v))) for v in (2.0, 3.0)]
result = {
    "printed": open(log).read(),
    "results": results,
    "python_prints": len(traced),
    "tracing_counts": [
        f.experimental_get_tracing_count() for f in (step, branchy, in_branch, in_loop, loop_gradient)
    ],
}
"""
ns = {"tf": tf}
exec(PRINT_PROGRAM, ns)
out["print_in_function"] = {"source": PRINT_PROGRAM, "result": ns["result"]}

print(json.dumps(out, indent=1))
