"""Computations on the dtypes added beyond float32/float64/int32/int64/bool (uint8, int8, int16, uint16,
uint32, uint64, float16, bfloat16), shared by make_dtype_ops_reference.py (run under TensorFlow) and
tests/test_dtype_ops.py (run under tapers).

Each program is ``(expr, exact)``: a Python expression over ``tf``, ``np`` and ``grad`` (a gradient
through ``tf.GradientTape``), and whether tapers must give TF's bits (elementwise ops: both compute a
float16/bfloat16 element in float32 and round once) or may differ by rounding (sums, products of
matrices and gradients, whose order and intermediate rounding differ).
"""

from __future__ import annotations

from typing import Any

import numpy as np

INTS = ["uint8", "int8", "int16", "uint16", "uint32", "uint64"]
HALVES = ["float16", "bfloat16"]
REAL = INTS + HALVES

BINARY = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "truediv",
    "floordiv",
    "floormod",
    "pow",
    "maximum",
    "minimum",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "atan2",
]
UNARY = [
    "negative",
    "abs",
    "sign",
    "square",
    "exp",
    "log",
    "sqrt",
    "rsqrt",
    "tanh",
    "sigmoid",
    "sin",
    "cos",
    "reciprocal",
    "expm1",
    "log1p",
    "is_nan",
    "is_finite",
    "erf",
    "softplus",
]
NN_UNARY = ["relu", "relu6", "elu", "softmax", "log_softmax", "gelu", "silu"]
# TF's half kernels of these round inside (each Eigen step of the functor, or each op of a Python
# composite, rounds to the half type); tapers rounds once: they may differ in the last place.
ROUNDED_INSIDE = {"sigmoid", "softplus", "softmax", "log_softmax", "gelu", "silu"}
REDUCE = ["reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_mean"]


def operands(d: str) -> tuple[str, str]:
    """Two 2x2 tensors of ``d`` (the second has no zero, so integer division is defined)."""
    if d in HALVES:
        return (f"tf.constant([[1.5, -2.25], [3.0, 0.1]], tf.{d})", f"tf.constant([[0.5, 4.0], [-1.5, 3.0]], tf.{d})")
    if d.startswith("u"):
        return (f"tf.constant([[7, 3], [100, 0]], tf.{d})", f"tf.constant([[2, 5], [3, 1]], tf.{d})")
    return (f"tf.constant([[7, -3], [100, -9]], tf.{d})", f"tf.constant([[2, 5], [-3, 4]], tf.{d})")


def programs() -> list[tuple[str, bool]]:
    P: list[tuple[str, bool]] = []
    for d in REAL:
        a, b = operands(d)
        pos = f"tf.abs({a})" if d not in INTS or not d.startswith("u") else a
        for op in BINARY:
            P.append((f"tf.math.{op}({a}, {b})", True))
        P += [
            (f"{a} + {b}", True),
            (f"{a} - {b}", True),
            (f"{a} * {b}", True),
            (f"{a} / {b}", True),
            (f"{a} // {b}", True),
            (f"{a} % {b}", True),
            (f"-{a}", True),
            (f"{a} == {b}", True),
            (f"{a} < {b}", True),
            (f"{a} >= {b}", True),
        ]
        for op in UNARY:
            P.append((f"tf.math.{op}({a})", op not in ROUNDED_INSIDE))
        for op in NN_UNARY:
            P.append((f"tf.nn.{op}({a})", op not in ROUNDED_INSIDE))
        for op in REDUCE:
            P.append((f"tf.{op}({a})", d in INTS))
            P.append((f"tf.{op}({a}, axis=0)", d in INTS))
            P.append((f"tf.{op}({a}, axis=1, keepdims=True)", d in INTS))
        P += [
            (f"tf.math.argmax({a}, axis=1)", True),
            (f"tf.math.argmin({a}, axis=0)", True),
            (f"tf.math.cumsum({a}, axis=1)", d in INTS),
            (f"tf.math.cumprod({a}, axis=0)", d in INTS),
            (f"tf.matmul({a}, {b})", d in INTS),
            (f"tf.matmul({a}, {b}, transpose_b=True)", d in INTS),
            (f"tf.where({a} > {b}, {a}, {b})", True),
            (f"tf.tile({a}, [2, 1])", True),
            (f"tf.pad({a}, [[1, 0], [0, 1]])", True),
            (f"tf.transpose({a})", True),
            (f"tf.gather({a}, [1, 0, 1])", True),
            (f"tf.reverse({a}, [0])", True),
            (f"tf.sort(tf.reshape({a}, [-1]))", True),
            (f"tf.math.add_n([{a}, {b}, {a}])", d in INTS),
            (f"tf.clip_by_value({a}, {b}, {pos})", True),
            (f"tf.reduce_sum({pos}, axis=0)", d in INTS),
            # Python scalars take the tensor's dtype.
            (f"{a} + 1", True),
            (f"2 * {a}", True),
            (f"{a} - 1", True),
            (f"{a} * 0.5", True),
            (f"{a} + 1.5", True),
            (f"{a} + 300", True),
            (f"{a} + 70000", True),
            (f"{a} + -1", True),
            (f"{a} + tf.constant([[1, 2], [3, 4]])", True),
            (f"{a} + tf.constant([[1.0, 2.0], [3.0, 4.0]])", True),
            (f"{a} // tf.zeros([2, 2], tf.{d})", True),
            (f"{a} % tf.zeros([2, 2], tf.{d})", True),
            (f"{a} ** 2", True),
        ]
        if d in HALVES:
            x = a
            P += [
                (f"grad(lambda x: tf.reduce_sum(x * x + tf.exp(x)), {x})", False),
                (f"grad(lambda x: tf.reduce_mean(tf.tanh(x) * 3.0 - x / 2.0), {x})", False),
                (f"grad(lambda x: tf.reduce_sum(tf.matmul(x, x)), {x})", False),
                (f"grad(lambda x: tf.reduce_sum(tf.nn.softmax(x) * {b}), {x})", False),
                (f"grad(lambda x: tf.reduce_sum(tf.sigmoid(x) * tf.sqrt(tf.abs(x))), {x})", False),
                (f"grad(lambda x: tf.reduce_max(x), {x})", False),
                (f"grad(lambda x: tf.reduce_sum(tf.maximum(x, {b}) ** 2), {x})", False),
                (f"grad(lambda x: x * 2.0, {x})", True),
                (f"grad(lambda x: tf.cast(x, tf.float32) * 3.0, {x})", True),
            ]
    # Wrap-around and edges of each integer width.
    P += [
        ("tf.constant([250, 255], tf.uint8) + tf.constant([10, 1], tf.uint8)", True),
        ("tf.constant([0, 1], tf.uint8) - tf.constant([1, 2], tf.uint8)", True),
        ("tf.constant([127, -128], tf.int8) + tf.constant([1, -1], tf.int8)", True),
        ("tf.constant([-128], tf.int8) // tf.constant([-1], tf.int8)", True),
        ("tf.constant([-7, 7], tf.int8) // tf.constant([2, -2], tf.int8)", True),
        ("tf.constant([-7, 7], tf.int16) % tf.constant([2, -2], tf.int16)", True),
        ("tf.constant([300, 40000], tf.uint16) * tf.constant([300, 2], tf.uint16)", True),
        ("tf.constant([2**32 - 1], tf.uint32) + tf.constant([1], tf.uint32)", True),
        ("tf.constant([2**64 - 1], tf.uint64) + tf.constant([2], tf.uint64)", True),
        ("tf.reduce_sum(tf.constant([200, 100], tf.uint8))", True),
        ("tf.reduce_mean(tf.constant([200, 100], tf.uint8))", True),
        ("tf.reduce_mean(tf.constant([127, 127], tf.int8))", True),
        ("tf.abs(tf.constant([-128], tf.int8))", True),
        ("tf.constant([3], tf.uint8) ** tf.constant([5], tf.uint8)", True),
        ("tf.constant([60000.0], tf.float16) * 2", True),
        ("tf.constant([1e38], tf.bfloat16) * 10", True),
        ("tf.constant([1.0, 2.0, 3.0], tf.float16) / 3", True),
        ("tf.reduce_sum(tf.fill([5000], tf.constant(0.1, tf.float16)))", False),
        ("tf.reduce_sum(tf.fill([5000], tf.constant(0.1, tf.bfloat16)))", False),
        ("tf.reduce_mean(tf.fill([5000], tf.constant(0.1, tf.float16)))", False),
    ]
    return P


def grad(tf: Any, f: Any, x: Any) -> Any:
    """The gradient of ``f`` at ``x`` with respect to ``x``, through ``tf.GradientTape``."""
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    return t.gradient(y, x)


def run(expr: str, tf: Any) -> dict[str, Any]:
    """Evaluates ``expr`` with ``tf``: a tensor as its dtype, shape and raw bytes (hex); an exception as
    its class name and message; anything else as its repr."""
    env = {"tf": tf, "np": np, "grad": lambda f, x: grad(tf, f, x)}
    try:
        r = eval(expr, env)  # noqa: S307 - fixed program text
    except Exception as e:  # noqa: BLE001 - the class and message are the outcome
        return {"t": "error", "class": type(e).__name__, "message": str(e)}
    if hasattr(r, "numpy") and hasattr(r, "dtype") and hasattr(r, "shape"):
        a = np.ascontiguousarray(r.numpy())
        return {"t": "tensor", "dtype": r.dtype.name, "shape": [int(n) for n in r.shape], "hex": a.tobytes().hex()}
    return {"t": "value", "repr": repr(r)}
