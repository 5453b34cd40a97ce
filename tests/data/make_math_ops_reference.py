# Generates math_ops_reference.json with TensorFlow 2.21 (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_math_ops_reference.py > tests/data/math_ops_reference.json
# For each elementwise op of issue 20 (tf.math's rounding, inverse hyperbolic,
# "no NaN" and special functions): where TF publishes it, its values on edge
# inputs (NaN, +-inf, +-0, halves, negatives) in float32 and float64, the first
# and second derivatives in float64 (or what TF does instead: None, an error),
# and what it does on each dtype (result dtype and values, or the error class
# and message).
import json
import math
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow as tf

NAN, INF = float("nan"), float("inf")


def enc(v):
    """A JSON-safe number: "nan", "inf", "-inf" stand for those values."""
    if isinstance(v, list):
        return [enc(e) for e in v]
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def tf_op(name):
    for mod in (tf.math, tf, tf.nn):
        if hasattr(mod, name):
            return getattr(mod, name)
    raise AttributeError(name)


HALVES = [NAN, INF, -INF, 0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 1.7, -1.7, 3.0]
GAMMA = [NAN, INF, -INF, 0.0, -0.0, 1.0, 2.0, 0.5, -0.5, -1.0, -2.5, 3.7, 30.0]
# name: (edge inputs, gradient points (float64), whether the op takes two inputs)
UNARY = {
    "floor": (HALVES, [0.3, -1.2]),
    "ceil": (HALVES, [0.3, -1.2]),
    "round": (HALVES, [0.3, -1.2]),
    "rint": (HALVES, [0.3, -1.2]),
    "asinh": ([NAN, INF, -INF, 0.0, -0.0, 0.5, -2.0, 10.0], [0.3, -1.2, 2.0]),
    "acosh": ([NAN, INF, 1.0, 0.5, 2.0, 10.0, -1.0], [1.0, 1.5, 3.0]),
    "atanh": ([NAN, -1.0, 1.0, 0.0, -0.0, 0.5, -0.9, 2.0], [0.3, -0.7]),
    "reciprocal_no_nan": ([0.0, -0.0, 2.0, -0.5, INF, NAN], [0.0, 2.0, -0.5]),
    "softsign": ([NAN, INF, -INF, 0.0, -0.0, 1.0, -3.0], [0.0, 0.7, -2.0]),
    "erfc": ([NAN, INF, -INF, 0.0, 1.0, -1.0, 5.0, 27.0], [0.0, 0.7, -1.3]),
    "lgamma": (GAMMA, [0.5, 2.0, 3.7, -0.5]),
    "digamma": (GAMMA, [0.5, 2.0, 3.7, -0.5]),
    "erfinv": ([NAN, -1.0, 1.0, 0.0, -0.0, 0.5, -0.9, 1e-20, 2.0], [0.0, 0.5, -0.9]),
    "ndtri": ([NAN, 0.0, 1.0, 0.5, 0.025, 0.975, 1e-300, -0.5, 2.0], [0.5, 0.1, 0.9]),
    "erfcinv": ([NAN, 0.0, 2.0, 1.0, 0.5, 1.5, 1e-300, -0.5, 3.0], [1.0, 0.3, 1.8]),
    "bessel_i0": ([NAN, INF, -INF, 0.0, 1.0, -2.5, 30.0, 800.0], [0.0, 1.0, -2.5]),
    "bessel_i0e": ([NAN, INF, -INF, 0.0, 1.0, -2.5, 30.0, 800.0], [0.3, 1.0, -2.5]),
    "bessel_i1": ([NAN, INF, -INF, 0.0, -0.0, 1.0, -2.5, 30.0, 800.0], [0.0, 1.0, -2.5]),
    "bessel_i1e": ([NAN, INF, -INF, 0.0, -0.0, 1.0, -2.5, 30.0, 800.0], [0.0, 1.0, -2.5]),
}
BINARY = {
    "squared_difference": (([1.0, -2.0, INF, NAN, 3.0], [3.0, 1.0, INF, 0.0, -1.0]), ([1.0, -2.0], [3.0, 0.5])),
    "divide_no_nan": (
        ([1.0, 0.0, INF, NAN, -3.0, 2.0, 1.0], [0.0, 0.0, 0.0, 0.0, 2.0, -0.0, NAN]),
        ([1.0, 0.0, 2.0], [0.0, 0.0, -4.0]),
    ),
    "multiply_no_nan": (
        ([1.0, INF, NAN, -3.0, 2.0, INF, NAN], [0.0, 0.0, 0.0, 2.0, -0.0, 1.0, 1.0]),
        ([1.0, 3.0, 2.0], [0.0, 2.0, -4.0]),
    ),
    "xlogy": (
        ([0.0, 0.0, 0.0, 0.0, 1.0, 2.0, -1.0, 0.0, 1.0], [0.0, -1.0, NAN, INF, 2.0, 0.0, 3.0, 1.0, -1.0]),
        ([0.0, 0.0, 1.5, -2.0], [0.0, 2.0, 3.0, 0.5]),
    ),
    "xlog1py": (
        ([0.0, 0.0, 0.0, 1.0, 2.0, 0.0, 1.0], [-1.0, -2.0, NAN, 1.0, -1.0, INF, -3.0]),
        ([0.0, 0.0, 1.5, -2.0], [-1.0, 2.0, 3.0, 0.5]),
    ),
    "xdivy": (
        ([0.0, 0.0, 0.0, 1.0, 2.0, -1.0], [0.0, NAN, 2.0, 0.0, -4.0, INF]),
        ([0.0, 0.0, 1.5, -2.0], [0.0, 2.0, 3.0, 0.5]),
    ),
    "truncatediv": (
        ([7.0, -7.0, 7.0, -7.0, 1.0, 0.0, -1.0, 5.5, INF], [2.0, 2.0, -2.0, -2.0, 0.0, 0.0, 0.0, 2.0, 2.0]),
        ([7.0, -7.5], [2.0, 2.0]),
    ),
    "truncatemod": (
        ([7.0, -7.0, 7.0, -7.0, 5.5, -5.5, 1.0, INF, 1.0], [2.0, 2.0, -2.0, -2.0, 2.0, 2.0, 0.0, 2.0, INF]),
        ([7.3, -7.5], [2.0, 2.0]),
    ),
    "polygamma": (
        ([0.0, 1.0, 1.0, 2.0, 3.0, 1.0, 1.5, -1.0, 1.0, 1.0], [2.0, 2.0, 0.5, 1.5, 4.0, 0.0, 2.0, 2.0, -0.5, INF]),
        ([1.0, 2.0], [1.5, 3.0]),
    ),
    "nextafter": (
        ([0.0, 0.0, 1.0, 1.0, NAN, 1.0, INF, -0.0], [1.0, -1.0, 2.0, 0.0, 1.0, 1.0, 0.0, 0.0]),
        ([1.0, 2.0], [3.0, 0.0]),
    ),
    "zeta": (
        ([2.0, 3.0, 1.0, 0.5, 2.0, 4.0, 2.0, 2.0, INF], [1.0, 2.0, 1.0, 1.0, -1.0, -1.5, 0.0, INF, 1.0]),
        ([2.5, 3.0], [1.5, 2.0]),
    ),
}
INT_CASES = {  # integer inputs of the ops that take them: values of int32/int64
    "truncatediv": ([7, -7, 7, -7, 0], [2, 2, -2, -2, 3]),
    "truncatemod": ([7, -7, 7, -7, 0], [2, 2, -2, -2, 3]),
    "squared_difference": ([7, -7, 2], [2, 2, -3]),
    "divide_no_nan": ([7, -7, 2], [2, 0, -3]),
    "round": ([7, -7, 0],),
}
DTYPES = [
    "float16", "bfloat16", "float32", "float64", "int32", "int64", "uint8", "int8", "int16", "uint16", "uint32",
    "uint64", "complex64", "complex128",
]  # fmt: skip


def outcome(fn):
    """What calling fn gives: a value, None, or an error class and its message."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - TF's error classes are the point
        return {"error": type(e).__name__, "message": str(e).split("\n\t;")[0][:600]}
    if r is None:
        return {"none": True}
    if isinstance(r, (list, tuple)):
        return {"values": [None if t is None else enc(np.asarray(t).ravel().tolist()) for t in r]}
    return {
        "dtype": r.dtype.name,
        "value": enc(
            np.asarray(tf.cast(r, tf.float64) if r.dtype.is_floating and r.dtype != tf.float64 else r)
            .astype(np.float64)
            .ravel()
            .tolist()
        )
        if not r.dtype.is_complex
        else None,
    }


def derivatives(f, xs):
    """First derivatives of sum(f(*xs)) and second derivatives (of the sum of the first) in float64."""
    xs = [tf.constant(x, tf.float64) for x in xs]

    def first():
        with tf.GradientTape() as t:
            t.watch(xs)
            y = tf.reduce_sum(f(*xs))
        return t.gradient(y, xs)

    def second():
        with tf.GradientTape() as outer:
            outer.watch(xs)
            with tf.GradientTape() as t:
                t.watch(xs)
                y = tf.reduce_sum(f(*xs))
            gs = [g for g in t.gradient(y, xs) if g is not None]
            s = tf.add_n([tf.reduce_sum(g) for g in gs])
        return outer.gradient(s, xs)

    return {"first": outcome(first), "second": outcome(second)}


def dtype_case(name, f, two):
    out = {}
    for d in DTYPES:
        dt = tf.as_dtype(d)
        vals = [1, 2]
        args = [tf.constant(vals, dt)] * (2 if two else 1)
        if name in ("acosh",):
            args = [tf.constant([1, 2], dt)]
        out[d] = outcome(lambda args=args: f(*args))
    return out


ref = {"modules": {}, "values": {}, "int_values": {}, "grads": {}, "dtypes": {}}
for name, (edges, pts) in UNARY.items():
    f = tf_op(name)
    ref["modules"][name] = [m for m, mod in (("tf", tf), ("math", tf.math), ("nn", tf.nn)) if hasattr(mod, name)]
    ref["values"][name] = {
        "at": [enc(edges)],
        **{d: outcome(lambda d=d, f=f, e=edges: f(tf.constant(e, d))) for d in ("float32", "float64")},
    }
    ref["grads"][name] = {"at": [enc(pts)], **derivatives(f, [pts])}
    ref["dtypes"][name] = dtype_case(name, f, False)
for name, ((ex, ey), (gx, gy)) in BINARY.items():
    f = tf_op(name)
    ref["modules"][name] = [m for m, mod in (("tf", tf), ("math", tf.math), ("nn", tf.nn)) if hasattr(mod, name)]
    ref["values"][name] = {
        "at": [enc(ex), enc(ey)],
        **{
            d: outcome(lambda d=d, f=f, x=ex, y=ey: f(tf.constant(x, d), tf.constant(y, d)))
            for d in ("float32", "float64")
        },
    }
    ref["grads"][name] = {"at": [enc(gx), enc(gy)], **derivatives(f, [gx, gy])}
    ref["dtypes"][name] = dtype_case(name, f, True)
for name, args in INT_CASES.items():
    f = tf_op(name)
    ref["int_values"][name] = {
        "at": [list(a) for a in args],
        **{d: outcome(lambda d=d, f=f, xs=args: f(*[tf.constant(a, d) for a in xs])) for d in ("int32", "int64")},
    }
ref["int_values"]["truncatediv_by_zero"] = {
    "at": [[1], [0]],
    "int32": outcome(lambda: tf.truncatediv(tf.constant([1]), tf.constant([0]))),
}
ref["int_values"]["truncatemod_by_zero"] = {
    "at": [[1], [0]],
    "int32": outcome(lambda: tf.truncatemod(tf.constant([1]), tf.constant([0]))),
}
# lbeta reduces over the last axis; betainc takes three inputs.
LBETA = [[1.0, 2.0], [0.5, 0.5], [3.0, 4.5], [1.0, -1.0], [0.0, 1.0]]
ref["lbeta"] = {
    "modules": [m for m, mod in (("tf", tf), ("math", tf.math), ("nn", tf.nn)) if hasattr(mod, "lbeta")],
    "at": LBETA,
    "float64": outcome(lambda: tf.math.lbeta(tf.constant(LBETA, tf.float64))),
    "float32": outcome(lambda: tf.math.lbeta(tf.constant(LBETA, tf.float32))),
    "empty": outcome(lambda: tf.math.lbeta(tf.zeros([2, 0], tf.float64))),
    "grads": derivatives(tf.math.lbeta, [[[1.0, 2.0], [3.0, 4.5]]]),
    "dtypes": {d: outcome(lambda d=d: tf.math.lbeta(tf.constant([[1, 2]], tf.as_dtype(d)))) for d in DTYPES},
}
BETAINC_GRAD_AT = [[2.0, 0.5], [3.0, 1.5], [0.3, 0.6]]
BETAINC = (
    [1.0, 2.0, 0.5, 2.0, 1.0, -1.0, 1.0, 2.0, 2.0],
    [1.0, 3.0, 0.5, 2.0, 1.0, 1.0, 0.0, 2.0, 2.0],
    [0.5, 0.3, 0.1, 0.0, 1.0, 0.5, 0.5, -0.5, NAN],
)
ref["betainc"] = {
    "modules": [m for m, mod in (("tf", tf), ("math", tf.math), ("nn", tf.nn)) if hasattr(mod, "betainc")],
    "at": [enc(a) for a in BETAINC],
    **{d: outcome(lambda d=d: tf.math.betainc(*[tf.constant(a, d) for a in BETAINC])) for d in ("float32", "float64")},
    "grads": {"at": BETAINC_GRAD_AT, **derivatives(tf.math.betainc, BETAINC_GRAD_AT)},
    "dtypes": {d: outcome(lambda d=d: tf.math.betainc(*[tf.constant([1, 1], tf.as_dtype(d))] * 3)) for d in DTYPES},
    "shapes": outcome(lambda: tf.math.betainc(tf.ones([2, 3]), tf.ones([3]), tf.ones([2, 3]) * 0.5)),
}
print(json.dumps(ref, indent=1))
