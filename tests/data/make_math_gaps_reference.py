# Generates math_gaps_reference.json with TensorFlow 2.21 (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_math_gaps_reference.py > tests/data/math_gaps_reference.json
# Issue 20's remaining math/dtype gaps, each as TF answers it:
# - "complex": squared_difference, divide_no_nan, multiply_no_nan, reciprocal_no_nan, xlogy,
#   xlog1py, xdivy on complex64/complex128: values and gradients (with a complex upstream
#   gradient, so TF's conjugation convention shows), and a broadcast case;
# - "max_pool": tf.nn.max_pool2d / max_pool / max_pool1d on every dtype (values or the error),
#   and whether an integer input gets a gradient;
# - "igamma": tf.math.igamma / igammac values on edges (float32, float64), first derivatives
#   in float64 with respect to a and x, the second derivative with respect to x, dtypes;
# - "special": dir(tf.math.special), and for each function values on edges, first and second
#   derivatives in float64, dtypes;
# - "signatures": the parameter names of every public function of tf.math, tf.nn and
#   tf.math.special (inspect.signature).
import inspect
import json
import math
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow as tf

NAN, INF = float("nan"), float("inf")
DTYPES = [
    "float16", "bfloat16", "float32", "float64", "int32", "int64", "uint8", "int8", "int16", "uint16", "uint32",
    "uint64", "complex64", "complex128", "bool",
]  # fmt: skip


def enc(v):
    """A JSON-safe number: "nan", "inf", "-inf" stand for those values."""
    if isinstance(v, (list, tuple)):
        return [enc(e) for e in v]
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def arr(t):
    """A tensor as {"dtype", "re", "im"} (im only for complex), flattened."""
    a = np.asarray(t.numpy() if hasattr(t, "numpy") else t)
    if a.dtype.kind == "c":
        return {"dtype": t.dtype.name, "re": enc(a.real.ravel().tolist()), "im": enc(a.imag.ravel().tolist())}
    return {"dtype": t.dtype.name, "re": enc(a.astype(np.float64).ravel().tolist())}


def outcome(fn):
    """What calling fn gives: a tensor, a list of tensors/None, or an error class and its message."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - TF's error classes are the point
        return {"error": type(e).__name__, "message": str(e).split("\n\t;")[0][:600]}
    if isinstance(r, (list, tuple)):
        return {"values": [None if t is None else arr(t) for t in r]}
    if r is None:
        return {"none": True}
    return arr(r)


# 1. Complex inputs.
CX = [1 + 2j, -0.5 + 0.3j, 0j, 2.5 - 1.5j, -1 - 1j, 0.25 + 0j]
CY = [0.5 - 1j, 2 + 0.5j, 1 - 3j, 0j, -0.75 + 0.2j, 1.5 + 2j]
UP = [1 - 0.5j, 0.25 + 2j, -1 + 1j, 0.5 + 0j, 2 - 1j, -0.5 - 0.5j]
# Where TF's scalar complex division (C99) and its vectorized one differ (a nonzero over
# zero), the inputs stay off: xdivy/xlogy's gradients divide by y, so their y has no zero.
CY_NONZERO = [0.5 - 1j, 2 + 0.5j, 1 - 3j, -2 + 0.1j, -0.75 + 0.2j, 1.5 + 2j]
COMPLEX_BINARY = {
    "squared_difference": (CX, CY),
    "divide_no_nan": (CX, CY),
    "multiply_no_nan": (CX, CY),
    "xlogy": (CX, CY_NONZERO),
    "xlog1py": (CX, CY_NONZERO),
    "xdivy": (CX, CY_NONZERO),
}


def complex_case(f, args, dt):
    xs = [tf.constant(a, dt) for a in args]
    up = tf.constant(UP, dt)

    def grads():
        with tf.GradientTape() as t:
            t.watch(xs)
            y = f(*xs)
        return t.gradient(y, xs, output_gradients=up)

    return {
        "at": [[enc([c.real for c in a]), enc([c.imag for c in a])] for a in args],
        "value": outcome(lambda: f(*xs)),
        "grads": outcome(grads),
    }


ref = {"complex": {}, "complex_broadcast": {}}
for name, args in COMPLEX_BINARY.items():
    f = getattr(tf.math, name)
    ref["complex"][name] = {d: complex_case(f, args, d) for d in ("complex64", "complex128")}
RECIP_X = [1 + 2j, 0j, -0.5 + 0.3j, 3 - 4j, -2 + 0j, 0.1 - 0.1j]
ref["complex"]["reciprocal_no_nan"] = {
    d: complex_case(tf.math.reciprocal_no_nan, (RECIP_X,), d) for d in ("complex64", "complex128")
}
BX, BY = [[1 + 2j, 0j, -0.5 + 0.25j]], [[0.5 - 1j], [2 + 1j]]
for name in list(COMPLEX_BINARY):
    f = getattr(tf.math, name)

    def bgrads(f=f):
        xs = [tf.constant(BX, tf.complex128), tf.constant(BY, tf.complex128)]
        with tf.GradientTape() as t:
            t.watch(xs)
            y = f(*xs)
        return t.gradient(y, xs)

    ref["complex_broadcast"][name] = {
        "x": [[[c.real, c.imag] for c in r] for r in BX],
        "y": [[[c.real, c.imag] for c in r] for r in BY],
        "grads": outcome(bgrads),
    }

# 2. Max pooling on every dtype.
POOL_IN = np.array([[3, -7, 12, 0, 5], [100, -128, 7, 7, -1], [2, 50, -3, 9, 11], [-20, 4, 6, 120, 1]], np.float64)
UNSIGNED_IN = np.array([[3, 7, 12, 0, 5], [100, 255, 7, 7, 1], [2, 50, 3, 9, 11], [20, 4, 6, 254, 1]], np.float64)


def pool_input(d):
    base = UNSIGNED_IN if d.startswith("uint") or d == "bool" else POOL_IN
    if d == "bool":
        base = base > 5
    return tf.cast(tf.constant(base.reshape(1, 4, 5, 1)), d)


POOLS = {
    "max_pool2d_valid": lambda x: tf.nn.max_pool2d(x, 2, 1, "VALID"),
    "max_pool2d_same": lambda x: tf.nn.max_pool2d(x, [2, 3], [2, 2], "SAME"),
    "max_pool": lambda x: tf.nn.max_pool(x, 3, 2, "SAME"),
    "max_pool1d": lambda x: tf.nn.max_pool1d(tf.reshape(x, [1, 20, 1]), 3, 2, "VALID"),
}
ref["max_pool"] = {
    "input": {"signed": POOL_IN.ravel().tolist(), "unsigned": UNSIGNED_IN.ravel().tolist()},
    "values": {k: {d: outcome(lambda f=f, d=d: f(pool_input(d))) for d in DTYPES} for k, f in POOLS.items()},
}


def int_grad(d):
    x = pool_input(d)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.nn.max_pool2d(x, 2, 1, "VALID")
    return [t.gradient(y, x)]


ref["max_pool"]["int_gradients"] = {d: outcome(lambda d=d: int_grad(d)) for d in DTYPES[4:10]}

# 3. igamma / igammac.
IG_A = [0.5, 1.0, 2.0, 0.5, 3.0, 10.0, 0.1, 50.0, 2.0, 0.0, -1.0, 2.0, NAN, 1.0, 4.0, 0.01, 200.0]
IG_X = [0.5, 1.0, 0.5, 3.0, 3.0, 12.0, 0.01, 45.0, 0.0, 1.0, 1.0, -1.0, 1.0, NAN, INF, 5.0, 180.0]
IG_GA = [0.5, 2.0, 3.0, 10.0, 0.3, 7.5]
IG_GX = [0.3, 1.5, 5.0, 8.0, 2.0, 7.0]


def first(f, a, x):
    a, x = tf.constant(a, tf.float64), tf.constant(x, tf.float64)
    with tf.GradientTape() as t:
        t.watch([a, x])
        y = f(a, x)
    return t.gradient(y, [a, x])


def second_x(f, a, x):
    a, x = tf.constant(a, tf.float64), tf.constant(x, tf.float64)
    with tf.GradientTape() as outer:
        outer.watch([a, x])
        with tf.GradientTape() as t:
            t.watch([a, x])
            y = f(a, x)
        gx = t.gradient(y, x)
    return outer.gradient(gx, [a, x])


def second_a(f, a, x):
    a, x = tf.constant(a, tf.float64), tf.constant(x, tf.float64)
    with tf.GradientTape() as outer:
        outer.watch([a, x])
        with tf.GradientTape() as t:
            t.watch([a, x])
            y = f(a, x)
        ga = t.gradient(y, a)
    return outer.gradient(ga, [a, x])


ref["igamma"] = {}
for name in ("igamma", "igammac"):
    f = getattr(tf.math, name)
    ref["igamma"][name] = {
        "modules": [m for m, mod in (("tf", tf), ("math", tf.math), ("nn", tf.nn)) if hasattr(mod, name)],
        "at": [enc(IG_A), enc(IG_X)],
        **{d: outcome(lambda f=f, d=d: f(tf.constant(IG_A, d), tf.constant(IG_X, d))) for d in ("float32", "float64")},
        "grad_at": [IG_GA, IG_GX],
        "first": outcome(lambda f=f: first(f, IG_GA, IG_GX)),
        "second_x": outcome(lambda f=f: second_x(f, IG_GA, IG_GX)),
        "second_a": outcome(lambda f=f: second_a(f, IG_GA, IG_GX)),
        "dtypes": {d: outcome(lambda f=f, d=d: f(tf.constant([1, 2], d), tf.constant([1, 2], d))) for d in DTYPES},
        "broadcast": outcome(lambda f=f: first(f, [[0.5], [2.0]], [0.3, 1.5, 4.0])),
        "mismatch": outcome(lambda f=f: f(tf.constant([1.0]), tf.constant([1.0], tf.float64))),
        "shapes": outcome(lambda f=f: f(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0]))),
    }

# 4. tf.math.special.
SPECIAL_EDGES = [NAN, INF, -INF, 0.0, -0.0, 0.1, 0.5, 1.0, 2.5, 7.0, 30.0, -0.5, -2.0, -7.0]
SPECIAL_POINTS = {
    "bessel_j0": [0.0, 0.7, 2.5, -3.0], "bessel_j1": [0.0, 0.7, 2.5, -3.0], "bessel_y0": [0.3, 1.0, 4.0],
    "bessel_y1": [0.3, 1.0, 4.0], "bessel_k0": [0.3, 1.0, 4.0], "bessel_k0e": [0.3, 1.0, 4.0],
    "bessel_k1": [0.3, 1.0, 4.0], "bessel_k1e": [0.3, 1.0, 4.0], "dawsn": [0.0, 0.5, -1.5, 4.0],
    "expint": [0.2, 1.0, 3.5], "fresnel_cos": [0.0, 0.5, -1.5, 3.0], "fresnel_sin": [0.0, 0.5, -1.5, 3.0],
    "spence": [0.2, 1.0, 2.5], "bessel_i0": [0.3, 1.0, -2.5], "bessel_i0e": [0.3, 1.0, -2.5],
    "bessel_i1": [0.5, 1.0, -2.5], "bessel_i1e": [0.5, 1.0, -2.5],
}  # fmt: skip


def derivatives(f, pts):
    x = tf.constant(pts, tf.float64)

    def d1():
        with tf.GradientTape() as t:
            t.watch(x)
            y = f(x)
        return [t.gradient(y, x)]

    def d2():
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as t:
                t.watch(x)
                y = f(x)
            g = t.gradient(y, x)
        return [outer.gradient(g, x)]

    return {"first": outcome(d1), "second": outcome(d2)}


ref["special"] = {"names": sorted(n for n in dir(tf.math.special) if not n.startswith("_")), "functions": {}}
for name in ref["special"]["names"]:
    f = getattr(tf.math.special, name)
    ref["special"]["functions"][name] = {
        "in_math": hasattr(tf.math, name) and getattr(tf.math, name) is f,
        "at": enc(SPECIAL_EDGES),
        **{d: outcome(lambda f=f, d=d: f(tf.constant(SPECIAL_EDGES, d))) for d in ("float32", "float64")},
        "grad_at": SPECIAL_POINTS[name],
        **derivatives(f, SPECIAL_POINTS[name]),
        "dtypes": {d: outcome(lambda f=f, d=d: f(tf.constant([1, 2], d))) for d in DTYPES},
    }


# 5. Parameter names.
def params(module):
    out = {}
    for n in dir(module):
        obj = getattr(module, n)
        if n.startswith("_") or not callable(obj) or inspect.isclass(obj) or inspect.ismodule(obj):
            continue
        try:
            out[n] = list(inspect.signature(obj).parameters)
        except (TypeError, ValueError):
            pass
    return out


ref["signatures"] = {"math": params(tf.math), "nn": params(tf.nn), "special": params(tf.math.special)}
print(json.dumps(ref, indent=1))
