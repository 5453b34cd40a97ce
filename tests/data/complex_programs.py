"""Complex-number programs shared by make_complex_reference.py (run under TensorFlow) and
tests/test_complex.py (run under tapers): each is a Python expression over ``tf`` (the library), ``np``,
the values below and ``grad``.

``run`` evaluates one and encodes its outcome the same way for both libraries: a tensor as its dtype,
shape and values (real and imaginary parts as lists, NaN and infinities as strings) plus its repr; a
list or tuple element by element; ``None`` as ``None``; an exception as its class name and message.
"""

from __future__ import annotations

from typing import Any

import numpy as np

COMPLEX = ["complex64", "complex128"]

Z = "tf.constant([1 + 2j, -0.5 + 0.3j, 3 - 1j, -2 - 2j], tf.{d})"
W = "tf.constant([0.5 - 1j, 2 + 0.25j, -1 + 1j, 0.3 + 0.7j], tf.{d})"
M = "tf.constant([[1 + 1j, 2 - 0.5j, 0.5j], [-1 + 0j, 0.25 + 2j, 3 - 1j]], tf.{d})"
N = "tf.constant([[0.5 + 1j, -1j], [2 + 0j, 1 - 1j], [-0.5 + 0.5j, 3 + 0.25j]], tf.{d})"
# Edge values: zeros of both signs, infinities and NaN in either part, a value whose |z|^2 overflows float32.
E = (
    "tf.constant(np.array([0j, 1 + 0j, complex('inf'), complex(0, float('inf')), complex(float('nan'), 0), "
    "complex(1, float('nan')), complex(float('-inf'), 1), 1e30 + 1e30j, complex(-0.0, 0.0), "
    "complex(0.5, -0.25)], np.{d}))"
)

UNARY = [
    "tf.abs",
    "tf.math.sign",
    "tf.square",
    "tf.sqrt",
    "tf.math.rsqrt",
    "tf.exp",
    "tf.math.log",
    "tf.math.expm1",
    "tf.math.log1p",
    "tf.sin",
    "tf.cos",
    "tf.tan",
    "tf.tanh",
    "tf.sinh",
    "tf.cosh",
    "tf.asin",
    "tf.acos",
    "tf.atan",
    "tf.math.reciprocal",
    "tf.sigmoid",
    "tf.negative",
    "tf.math.real",
    "tf.math.imag",
    "tf.math.conj",
    "tf.math.angle",
]
# Analytic ops (gradients: g * conj(f'(z))) and the non-analytic ones, whose rules TF spells out.
UNARY_GRAD = [u for u in UNARY if u != "tf.math.sign"]
EDGE_UNARY = [
    "tf.abs",
    "tf.math.sign",
    "tf.sqrt",
    "tf.exp",
    "tf.math.log",
    "tf.math.reciprocal",
    "tf.math.angle",
    "tf.math.real",
    "tf.math.imag",
    "tf.math.conj",
    "tf.negative",
]
# Ops TF has no complex kernel for: each raises (class compared, message not).
NO_COMPLEX = [
    "tf.math.less({z}, {w})",
    "tf.math.greater_equal({z}, {w})",
    "tf.maximum({z}, {w})",
    "tf.minimum({z}, {w})",
    "tf.math.floordiv({z}, {w})",
    "tf.math.floormod({z}, {w})",
    "tf.reduce_max({z})",
    "tf.reduce_min({z})",
    "tf.argmax({z})",
    "tf.math.is_nan({z})",
    "tf.math.erf({z})",
    "tf.nn.relu({z})",
    "tf.nn.softplus({z})",
    "tf.math.atan2({z}, {w})",
    "tf.math.reduce_logsumexp({z})",
    "tf.nn.softmax({z})",
    "tf.sort({z})",
]


def programs() -> list[str]:
    P: list[str] = []
    for d in COMPLEX:
        z, w, m, n, e = (s.format(d=d) for s in (Z, W, M, N, E))
        P += [
            f"{z} + {w}",
            f"{z} - {w}",
            f"{z} * {w}",
            f"{z} / {w}",
            f"-{z}",
            f"{z} + 1",
            f"{z} * 2.5",
            f"2 * {z}",
            f"{z} ** 2",
            f"tf.pow({z}, {w})",
            f"tf.math.truediv({z}, {w})",
            f"tf.math.divide({z}, 2)",
            f"tf.math.equal({z}, {w})",
            f"tf.math.not_equal({z}, {z})",
            f"tf.math.equal({z}, 1 + 2j)",
            f"tf.add({m}, tf.constant([1j, 2, 3], tf.{d}))",
            f"tf.reduce_sum({z})",
            f"tf.reduce_sum({m}, axis=0)",
            f"tf.reduce_sum({m}, axis=1, keepdims=True)",
            f"tf.reduce_mean({m})",
            f"tf.reduce_mean({m}, axis=1)",
            f"tf.reduce_prod({m}, axis=1)",
            f"tf.reduce_prod({z})",
            f"tf.math.cumsum({z})",
            f"tf.math.cumprod({z})",
            f"tf.add_n([{z}, {w}, {z}])",
            f"tf.matmul({m}, {n})",
            f"tf.matmul({m}, {m}, transpose_b=True)",
            f"tf.transpose({m})",
            f"tf.reshape({m}, [3, 2])",
            f"tf.concat([{m}, {m}], 0)",
            f"tf.gather({z}, [3, 0])",
            f"tf.stack([{z}, {w}])",
            f"tf.where([True, False, True, False], {z}, {w})",
            f"tf.tile({z}, [2])",
            f"tf.reverse({z}, [0])",
            f"tf.expand_dims({z}, 0)",
            f"{m}[1, 1:]",
            f"tf.complex(tf.math.real({z}), tf.math.imag({w}))",
            f"tf.cast({z}, tf.float32)",
            f"tf.cast(tf.math.real({z}), tf.{d})",
            f"repr({z} * {w})",
            f"str({m} @ {n})",
        ]
        P += [f"{u}({z})" for u in UNARY]
        P += [f"{u}({e})" for u in EDGE_UNARY]
        P += [
            f"{e} + {e}",
            f"{e} * {e}",
            f"tf.ones_like({e}) / {e}",
            f"{e} / {e}",
            f"tf.pow({e}, 2 + 0j)",
            f"tf.reduce_sum({e})",
        ]
        P += [s.format(z=z, w=w) for s in NO_COMPLEX]
        P += [f"{z} + tf.constant(1.0)", f"tf.matmul({m}, tf.constant([[1.0], [2.0], [3.0]]))"]
    P += [
        "tf.complex(1.0, 2.0)",
        "tf.complex(tf.constant([1.0, 2.0], tf.float64), tf.constant(3.0, tf.float64))",
        "tf.complex(tf.constant([[1.0], [2.0]]), tf.constant([3.0, 4.0, 5.0]))",
        "tf.complex(tf.constant(1.0), tf.constant(1.0, tf.float64))",
        "tf.complex(1, 2)",
        "tf.math.real(tf.constant([1.5, -2.0]))",
        "tf.math.imag(tf.constant([1.5, -2.0]))",
        "tf.math.conj(tf.constant([1.5, -2.0]))",
        "tf.math.angle(tf.constant([1.5, -2.0, 0.0]))",
        "tf.math.real(tf.constant([True]))",
        "tf.math.angle(tf.constant([1, -2]))",
    ]
    P += gradients()
    return P


def gradients() -> list[str]:
    """``grad(f, *xs)``: the gradients of ``f(*xs)`` (a tensor, or a tuple: target and output_gradients)."""
    P: list[str] = []
    for d in COMPLEX:
        z, w, m, n = (s.format(d=d) for s in (Z, W, M, N))
        P += [
            f"grad(lambda z: tf.reduce_sum(tf.abs(z) ** 2), {z})",
            f"grad(lambda z: tf.reduce_sum(tf.math.real(z * z)), {z})",
            f"grad(lambda z: tf.reduce_sum(tf.math.imag(z)), {z})",
            f"grad(lambda z: tf.reduce_sum(tf.math.angle(z)), {z})",
            f"grad(lambda z: tf.reduce_sum(tf.abs(z)), {z})",
            f"grad(lambda z: tf.math.real(tf.reduce_sum(tf.math.conj(z) * z)), {z})",
            f"grad(lambda z: tf.reduce_sum(tf.exp(z)), {z})",
            f"grad(lambda z: tf.exp(z), {z})",
            f"grad(lambda z: z, {z})",
            f"grad(lambda z: (z * z, tf.constant([1j, 2, -1, 0.5 + 0.5j], tf.{d})), {z})",
            f"grad(lambda a, b: tf.math.real(tf.reduce_sum(tf.matmul(a, b))), {m}, {n})",
            f"grad(lambda a, b: tf.matmul(a, b), {m}, {n})",
            f"grad(lambda a: tf.matmul(a, a, transpose_b=True), {m})",
            f"grad(lambda z, w: z * w, {z}, {w})",
            f"grad(lambda z, w: z / w, {z}, {w})",
            f"grad(lambda z, w: z - w, {z}, {w})",
            f"grad(lambda z, w: tf.pow(z, w), {z}, {w})",
            f"grad(lambda z: z ** 3, {z})",
            f"grad(lambda z: tf.reduce_prod(z), {z})",
            f"grad(lambda m: tf.reduce_prod(m, axis=1), {m})",
            f"grad(lambda m: tf.reduce_mean(m, axis=0), {m})",
            f"grad(lambda z: tf.math.cumsum(z), {z})",
            f"grad(lambda z: tf.math.cumprod(z), {z})",
            f"grad(lambda z: tf.add_n([z, z * z]), {z})",
            f"grad(lambda z, w: tf.where([True, False, True, False], z, w), {z}, {w})",
            f"grad(lambda m: tf.reshape(tf.transpose(m), [-1]) * tf.constant([1 + 0j, 2j, 3 + 0j, 4 + 0j, 5 + 0j, "
            f"6 + 0j], tf.{d}), {m})",
            f"grad(lambda z: tf.math.real(z) * tf.math.imag(z), {z})",
            f"grad(lambda z: tf.cast(z, tf.float32 if '{d}' == 'complex64' else tf.float64), {z})",
        ]
        P += [f"grad(lambda z: {u}(z), {z})" for u in UNARY_GRAD]
        P += [f"grad(lambda z: tf.math.sign(z), {z})"]
    P += [
        "grad(lambda x, y: tf.abs(tf.complex(x, y)), tf.constant([3.0, 0.0]), tf.constant([4.0, 0.0]))",
        "grad(lambda x, y: tf.complex(x, y), tf.constant([[1.0], [2.0]], tf.float64), tf.constant([3.0, 4.0], "
        "tf.float64))",
        "grad(lambda x: tf.math.real(tf.exp(tf.cast(x, tf.complex128) * 1j)), tf.constant([0.5, 1.0], tf.float64))",
        "grad(lambda z: tf.abs(z), tf.constant([0j, 3 + 4j], tf.complex128))",
        "grad(lambda z: tf.math.angle(z), tf.constant([0j, 1j], tf.complex128))",
        "grad(lambda z: tf.sqrt(z), tf.constant([0j, 4 + 0j], tf.complex128))",
        "variable_grad()",
    ]
    return P


def helpers(tf: Any) -> dict[str, Any]:
    """The functions the programs call, over library ``tf``."""

    def grad(f: Any, *xs: Any) -> Any:
        with tf.GradientTape() as tape:
            for x in xs:
                tape.watch(x)
            r = f(*xs)
        target, og = r if isinstance(r, tuple) else (r, None)
        return tape.gradient(target, list(xs), output_gradients=og)

    def variable_grad() -> Any:
        v = tf.Variable(tf.constant([1 + 1j, 2 - 1j], tf.complex128))
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.abs(v * v))
        return tape.gradient(loss, v)

    return {"grad": grad, "variable_grad": variable_grad}


def _num(v: float) -> Any:
    return str(v) if not np.isfinite(v) else float(v)


def encode(r: Any) -> Any:
    if r is None:
        return None
    if isinstance(r, (list, tuple)):
        return {"t": "list", "items": [encode(x) for x in r]}
    if hasattr(r, "numpy") and hasattr(r, "dtype") and hasattr(r, "shape"):
        a = np.asarray(r.numpy())
        out: dict[str, Any] = {"t": "tensor", "dtype": r.dtype.name, "shape": [int(k) for k in r.shape]}
        flat = a.reshape(-1)
        if a.dtype.kind in "fc":
            out["re"] = [_num(v) for v in flat.real.astype(np.float64)]
            out["im"] = [_num(v) for v in flat.imag.astype(np.float64)]
        else:
            out["values"] = flat.tolist()
        return out
    return {"t": "value", "repr": repr(r).replace("tapers.", "tf.")}


def run(expr: str, tf: Any) -> Any:
    """Evaluates ``expr`` with ``tf`` and encodes the outcome (see the module docstring)."""
    try:
        with np.errstate(all="ignore"):
            r = eval(expr, {"tf": tf, "np": np, **helpers(tf)})  # noqa: S307 - fixed program text
    except Exception as e:  # noqa: BLE001 - the class and message are the outcome
        return {"t": "error", "class": type(e).__name__, "message": str(e)}
    return encode(r)
