"""Records TensorFlow 2.21's behaviour for tests/test_tf_misc_more.py: ``tf.errors`` codes and
classes, ``tf.config`` device/optimizer switches, ``tf.random`` gamma/poisson/binomial/
truncated-normal shapes, dtypes, sample moments and ``create_rng_state`` values, and
``tf.debugging`` check-numerics messages and switches. Writes tf_misc_more_reference.json next to it.

Regenerate (from the repository root, with the scratch TensorFlow venv):

    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_tf_misc_more_reference.py
"""

from __future__ import annotations

import inspect
import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

out: dict = {"tf_version": tf.__version__}

# ---------------------------------------------------------------- config (before the runtime starts)
cpu = tf.config.list_physical_devices("CPU")
cfg: dict = {}
cfg["visible_default"] = [list(d) for d in tf.config.get_visible_devices()]
cfg["visible_gpu"] = [list(d) for d in tf.config.get_visible_devices("GPU")]
cfg["logical_default"] = tf.config.get_logical_device_configuration(cpu[0])
try:
    tf.config.set_logical_device_configuration(cpu[0], [tf.config.LogicalDeviceConfiguration(memory_limit=100)])
except ValueError as e:
    cfg["memory_limit_error"] = str(e)
tf.config.set_logical_device_configuration(cpu[0], [tf.config.LogicalDeviceConfiguration()])
cfg["logical_after"] = [list(c) for c in tf.config.get_logical_device_configuration(cpu[0])]
cfg["ldc_fields"] = list(tf.config.LogicalDeviceConfiguration._fields)
cfg["ldc_repr"] = repr(tf.config.LogicalDeviceConfiguration())
tf.config.set_visible_devices(cpu, "CPU")
tf.config.set_visible_devices([], "GPU")
cfg["visible_after"] = [list(d) for d in tf.config.get_visible_devices()]
try:
    tf.config.set_visible_devices(["x"])
except ValueError as e:
    cfg["bad_device_error"] = str(e)
cfg["soft_default"] = tf.config.get_soft_device_placement()
tf.config.set_soft_device_placement(False)
cfg["soft_after"] = tf.config.get_soft_device_placement()
tf.config.set_soft_device_placement(True)
cfg["opt_default"] = tf.config.optimizer.get_experimental_options()
tf.config.optimizer.set_experimental_options({"layout_optimizer": False, "constant_folding": True})
cfg["opt_after"] = tf.config.optimizer.get_experimental_options()
jit = {"default": tf.config.optimizer.get_jit()}
for v in (True, "autoclustering", False):
    tf.config.optimizer.set_jit(v)
    jit[repr(v)] = tf.config.optimizer.get_jit()
cfg["jit"] = jit
cfg["functions_eagerly_default"] = tf.config.experimental_functions_run_eagerly()
tf.config.experimental_run_functions_eagerly(True)
cfg["functions_eagerly_after"] = tf.config.functions_run_eagerly()
tf.config.experimental_run_functions_eagerly(False)
out["config"] = cfg

# ---------------------------------------------------------------- errors
err: dict = {"codes": {n: getattr(tf.errors, n) for n in dir(tf.errors) if n.isupper()}, "classes": {}}
for n in (
    "AbortedError",
    "AlreadyExistsError",
    "CancelledError",
    "DeadlineExceededError",
    "PermissionDeniedError",
    "UnauthenticatedError",
    "UnavailableError",
):
    c = getattr(tf.errors, n)
    e = c(None, None, "boom")
    err["classes"][n] = {
        "error_code": e.error_code,
        "str": str(e),
        "message": e.message,
        "is_op_error": isinstance(e, tf.errors.OpError),
    }
c = tf.errors.OperatorNotAllowedInGraphError
err["onaig"] = {
    "is_type_error": issubclass(c, TypeError),
    "is_op_error": issubclass(c, tf.errors.OpError),
    "str": str(c("no iterating")),
}
out["errors"] = err

# ---------------------------------------------------------------- random
rnd: dict = {}
rnd["signatures"] = {
    n: [
        [p.name, None if p.default is inspect.Parameter.empty else repr(p.default)]
        for p in inspect.signature(getattr(tf.random, n)).parameters.values()
    ]
    for n in (
        "gamma",
        "poisson",
        "stateless_gamma",
        "stateless_poisson",
        "stateless_binomial",
        "stateless_parameterized_truncated_normal",
        "create_rng_state",
        "set_global_generator",
    )
}
rnd["algorithm"] = {a.name: a.value for a in tf.random.Algorithm}
rng_cases = [
    [42, "philox"],
    [42, "threefry"],
    [42, 1],
    [2**40 + 5, "philox"],
    [[1, 2, 3], "philox"],
    [[1, 2, 3, 4], "threefry"],
    [2**70 + 3, "threefry"],
    [-1, "philox"],
    [7, "auto_select"],
]
rnd["rng_state"] = [[s, a, tf.random.create_rng_state(s, a).numpy().tolist()] for s, a in rng_cases]

N = 40000


def moments(x):
    x = np.asarray(x, dtype=np.float64)
    return [x.mean(axis=0).tolist(), x.var(axis=0).tolist()]


g = tf.random.gamma([N], [0.3, 1.0, 5.0], [1.0, 2.0, 0.5], seed=3)
rnd["gamma"] = {"shape": list(g.shape), "dtype": g.dtype.name, "moments": moments(g)}
g64 = tf.random.gamma([2, 3], 2.0, dtype=tf.float64, seed=1)
rnd["gamma64"] = {"shape": list(g64.shape), "dtype": g64.dtype.name}
a = tf.Variable([0.5, 3.0])
with tf.GradientTape() as tape:
    s = tf.random.gamma([N], a, seed=2)
    m = tf.reduce_mean(s, axis=0)
rnd["gamma_grad_alpha"] = tape.gradient(m, a).numpy().tolist()
b = tf.Variable(2.0)
with tf.GradientTape() as tape:
    m = tf.reduce_mean(tf.random.gamma([N], 3.0, b, seed=2))
rnd["gamma_grad_beta"] = float(tape.gradient(m, b))
sg = tf.random.stateless_gamma([N, 2], [1, 2], [1.5, 4.0], [1.0, 4.0])
rnd["stateless_gamma"] = {"shape": list(sg.shape), "dtype": sg.dtype.name, "moments": moments(sg)}
rnd["stateless_gamma_repeat"] = bool(
    np.array_equal(
        tf.random.stateless_gamma([5], [3, 4], 2.0).numpy(), tf.random.stateless_gamma([5], [3, 4], 2.0).numpy()
    )
)
p = tf.random.poisson([N], [0.0, 0.7, 30.0, 1000.0], seed=1)
rnd["poisson"] = {"shape": list(p.shape), "dtype": p.dtype.name, "moments": moments(p)}
pi = tf.random.poisson([3], 2.0, dtype=tf.int64, seed=1)
rnd["poisson_int"] = {"shape": list(pi.shape), "dtype": pi.dtype.name}
sp = tf.random.stateless_poisson([N, 2], [1, 2], [3.0, 50.0])
rnd["stateless_poisson"] = {"shape": list(sp.shape), "dtype": sp.dtype.name, "moments": moments(sp)}
sb = tf.random.stateless_binomial([N, 3], [1, 2], [10.0, 100.0, 5.0], [0.3, 0.9, 0.0])
rnd["stateless_binomial"] = {"shape": list(sb.shape), "dtype": sb.dtype.name, "moments": moments(sb)}
rnd["binomial_p1"] = tf.random.stateless_binomial([4], [1, 2], 5.0, 1.0).numpy().tolist()
sbf = tf.random.stateless_binomial([3], [1, 2], 5.0, 0.5, output_dtype=tf.float64)
rnd["binomial_float_dtype"] = sbf.dtype.name
tn = tf.random.stateless_parameterized_truncated_normal([N], [3, 4], 0.0, 1.0, -1.0, 2.0)
tnv = tn.numpy()
rnd["ptn"] = {
    "shape": list(tn.shape),
    "dtype": tn.dtype.name,
    "moments": moments(tnv),
    "min": float(tnv.min()),
    "max": float(tnv.max()),
}
tn2 = tf.random.stateless_parameterized_truncated_normal([N], [3, 4], 0.0, 1.0, 5.0, 6.0).numpy()
rnd["ptn_tail"] = {"mean": float(tn2.mean()), "min": float(tn2.min()), "max": float(tn2.max())}
tn3 = tf.random.stateless_parameterized_truncated_normal(
    [N, 2], [3, 4], *[tf.constant(v, tf.float64) for v in ([1.0, -3.0], [2.0, 0.5], [0.0, -4.0], [3.0, -2.5])]
)
rnd["ptn_params"] = {"dtype": tn3.dtype.name, "moments": moments(tn3)}
try:
    tf.random.gamma([2], 1.0, dtype=tf.int32)
    rnd["gamma_int_error"] = None
except (TypeError, ValueError, tf.errors.InvalidArgumentError) as e:
    rnd["gamma_int_error"] = type(e).__name__
out["random"] = rnd

# ---------------------------------------------------------------- debugging
dbg: dict = {
    "tb_default": tf.debugging.is_traceback_filtering_enabled(),
    "log_default": tf.debugging.get_log_device_placement(),
}
tf.debugging.disable_traceback_filtering()
dbg["tb_after_disable"] = tf.debugging.is_traceback_filtering_enabled()
tf.debugging.enable_traceback_filtering()
x = tf.constant([1.0, 0.0])
tf.debugging.enable_check_numerics()
cases = {}
for key, fn in {
    "log": lambda: tf.math.log(x),
    "div": lambda: x / 0.0,
    "exp": lambda: tf.exp(tf.constant(1000.0)),
    "const_nan": lambda: tf.constant([float("nan")]),
    "finite": lambda: tf.math.log(x + 1.0),
    "int_div": lambda: tf.constant([4, 2]) // 2,
}.items():
    try:
        fn()
        cases[key] = None
    except tf.errors.InvalidArgumentError as e:
        msg = str(e)
        cases[key] = {
            "type": type(e).__name__,
            "detected": "Detected Infinity or NaN" in msg,
            "counts": [ln.strip() for ln in msg.splitlines() if ln.strip().startswith("# of")],
            "tail": msg.split(" : ")[-1].split(" [Op")[0],
        }
tf.debugging.disable_check_numerics()
dbg["check_numerics"] = cases
dbg["after_disable"] = tf.math.log(x).numpy().tolist()
out["debugging"] = dbg

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_misc_more_reference.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True, default=str)
print("wrote", path)
