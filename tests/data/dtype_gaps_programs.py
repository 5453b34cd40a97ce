"""Programs for the dtype gaps of issue 20, shared by make_dtype_gaps_reference.py (run under TensorFlow
2.21 / Keras 3) and tests/test_dtype_gaps.py (run under tapers).

Each program is ``(expr, exact)`` as in dtype_ops_programs.py: a Python expression over ``tf``, ``np``,
``grad`` (a gradient through ``tf.GradientTape``) and ``train`` (an optimizer trajectory), and whether
tapers must give TF's bits or may differ by rounding.
"""

from __future__ import annotations

from typing import Any

import numpy as np

HALVES = ["float16", "bfloat16"]
COMPLEX = ["complex64", "complex128"]

# Optimizers as Keras 3 builds them: (class name, keyword arguments).
OPTIMIZERS: list[tuple[str, dict[str, Any]]] = [
    ("SGD", {"learning_rate": 0.1}),
    ("SGD", {"learning_rate": 0.1, "momentum": 0.9}),
    ("SGD", {"learning_rate": 0.1, "momentum": 0.9, "nesterov": True}),
    ("Adam", {"learning_rate": 0.01}),
    ("Adam", {"learning_rate": 0.01, "amsgrad": True}),
    ("AdamW", {"learning_rate": 0.01, "weight_decay": 0.5}),
    ("RMSprop", {"learning_rate": 0.01}),
    ("RMSprop", {"learning_rate": 0.01, "momentum": 0.5, "centered": True}),
]

# A starting value and three gradients (real parts; complex programs add imaginary parts).
INIT = [1.0, -2.0, 0.5, 3.25, -0.75, 0.0]
GRADS = [
    [0.3, -0.1, 0.7, -1.5, 0.05, 2.0],
    [0.25, 0.4, -0.6, -1.0, 0.01, -3.0],
    [-0.2, 0.15, 0.9, 0.5, -0.02, 1.0],
]
IMAG = [0.5, 0.0, -1.25, 0.1, 2.0, -0.3]


def _values(d: str, re: list[float]) -> str:
    if d in COMPLEX:
        return f"tf.complex(tf.constant({re}, tf.float64), tf.constant({IMAG}, tf.float64))"
    return f"tf.constant({re}, tf.float64)"


def programs() -> list[tuple[str, bool]]:
    P: list[tuple[str, bool]] = []
    # 1. Optimizer steps on float16/bfloat16/complex variables (float32 as the control).
    for d in ["float32", *HALVES, *COMPLEX]:
        for name, kw in OPTIMIZERS:
            init = _values(d, INIT)
            grads = "[" + ", ".join(_values(d, g) for g in GRADS) + "]"
            # Half types: each Keras op rounds to the half type, as tapers' kernel does, so bits must match.
            P.append((f"train('{name}', {kw!r}, tf.{d}, {init}, {grads})", d != "complex128" and d != "complex64"))
    # 3. Segment reductions, scatters and gathers on the integer, half and complex dtypes.
    for d in ["uint8", "int8", "int16", "uint16", "uint32", "uint64", *HALVES, *COMPLEX]:
        x = f"tf.cast(tf.constant([[1.5, -2.0], [3.25, 4.0], [-0.5, 7.0]]), tf.{d})"
        if d.startswith("u"):
            x = f"tf.cast(tf.constant([[1, 2], [250, 4], [9, 7]]), tf.{d})"
        elif d.startswith("int"):
            x = f"tf.cast(tf.constant([[1, -2], [120, 4], [-9, 7]]), tf.{d})"
        exact = d not in HALVES  # a half sum rounds after each add: same order, same bits expected
        P += [
            (f"tf.math.segment_sum({x}, [0, 0, 1])", exact),
            (f"tf.math.unsorted_segment_sum({x}, [1, 0, 1], 3)", exact),
            (f"tf.math.unsorted_segment_max({x}, [1, 0, 1], 3)", True),
            (f"tf.math.unsorted_segment_mean({x}, [1, 0, 1], 2)", exact),
            (f"tf.scatter_nd([[2], [0], [2]], {x}, [4, 2])", exact),
            (f"tf.tensor_scatter_nd_add({x}, [[2], [0], [2]], {x})", exact),
            (f"tf.tensor_scatter_nd_update({x}, [[2], [0]], {x}[:2])", True),
            (f"tf.gather({x}, [2, 0, 2])", True),
            (f"tf.gather_nd({x}, [[2, 1], [0, 0]])", True),
        ]
        if d in HALVES or d in COMPLEX:
            P += [
                (
                    f"grad(lambda x: tf.reduce_sum(tf.math.unsorted_segment_sum(x, [1, 0, 1], 3) * tf.cast("
                    f"tf.constant([[1.0], [2.0], [3.0]]), tf.{d})), {x})",
                    exact,
                ),
                (
                    f"grad(lambda x: tf.reduce_sum(tf.scatter_nd([[2], [0], [2]], x, [4, 2]) * tf.cast("
                    f"tf.constant([[1.0], [2.0], [3.0], [4.0]]), tf.{d})), {x})",
                    exact,
                ),
            ]
    # 2. Convolutions and pooling on float16/bfloat16 (TF computes in float32 and rounds).
    for d in HALVES:
        img = f"tf.cast(tf.reshape(tf.range(32, dtype=tf.float32) / 8.0 - 2.0, [1, 4, 4, 2]), tf.{d})"
        ker = f"tf.cast(tf.reshape(tf.range(24, dtype=tf.float32) / 8.0 - 1.5, [2, 2, 2, 3]), tf.{d})"
        P += [
            (f"tf.nn.conv2d({img}, {ker}, 1, 'VALID')", False),
            (f"tf.nn.conv1d(tf.reshape({img}, [1, 8, 4]), tf.reshape({ker}, [3, 4, 2]), 1, 'SAME')", False),
            (f"tf.nn.depthwise_conv2d({img}, tf.reshape({ker}, [2, 2, 2, 3]), [1, 1, 1, 1], 'VALID')", False),
            (f"tf.nn.conv2d_transpose({img}, tf.reshape({ker}, [2, 2, 3, 2]), [1, 5, 5, 3], 1, 'VALID')", False),
            (f"tf.nn.max_pool2d({img}, 2, 2, 'VALID')", True),
            (f"tf.nn.avg_pool2d({img}, 2, 1, 'SAME')", False),
            (f"grad(lambda x: tf.reduce_sum(tf.nn.conv2d(x, {ker}, 1, 'SAME') ** 2), {img})", False),
            (f"grad(lambda x: tf.reduce_sum(tf.nn.max_pool2d(x, 2, 2, 'VALID') * 3.0), {img})", False),
        ]
    # 4. Complex variance, norm, einsum and linear algebra.
    for d in COMPLEX:
        a = (
            "tf.complex(tf.constant([[2.0, 1.0], [0.5, 3.0]], tf.float64), "
            "tf.constant([[0.5, -1.0], [2.0, 0.25]], tf.float64))"
        )
        a = f"tf.cast({a}, tf.{d})"
        h = (
            "tf.cast(tf.complex(tf.constant([[4.0, 1.0], [1.0, 3.0]], tf.float64), "
            f"tf.constant([[0.0, 1.0], [-1.0, 0.0]], tf.float64)), tf.{d})"
        )
        P += [
            (f"tf.math.reduce_variance({a})", False),
            (f"tf.math.reduce_std({a}, axis=0)", False),
            (f"tf.norm({a})", False),
            (f"tf.einsum('ij,jk->ik', {a}, {a})", False),
            (f"tf.linalg.adjoint({a})", True),
            (f"tf.linalg.matrix_transpose({a}, conjugate=True)", True),
            (f"tf.linalg.det({a})", False),
            (f"tf.linalg.inv({a})", False),
            (f"tf.linalg.solve({a}, {a})", False),
            (f"tf.linalg.triangular_solve({a}, {a})", False),
            (f"tf.linalg.cholesky({h})", False),
            (f"tf.linalg.eigh({h})[0]", False),
            (f"tf.abs(tf.linalg.qr({a})[1])", False),
            (f"tf.linalg.svd({a}, compute_uv=False)", False),
            (f"grad(lambda x: tf.math.real(tf.linalg.det(x)), {a})", False),
            (f"grad(lambda x: tf.math.real(tf.reduce_sum(tf.linalg.inv(x))), {a})", False),
        ]
    # 5. Tile on uint16: TF registers the op but its kernel refuses the dtype.
    P.append(("tf.tile(tf.constant([[7, 3], [100, 0]], tf.uint16), [2, 1])", True))
    return P


def grad(tf: Any, f: Any, x: Any) -> Any:
    """The gradient of ``f`` at ``x`` with respect to ``x``, through ``tf.GradientTape``."""
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    return t.gradient(y, x)


def train(tf: Any, optimizers: Any, name: str, kw: dict[str, Any], dtype: Any, init: Any, grads: list[Any]) -> Any:
    """The values of a ``dtype`` Variable starting at ``init`` after each of ``grads`` is applied by a fresh
    ``optimizers.<name>(**kw)``, stacked (steps first)."""
    opt = getattr(optimizers, name)(**kw)
    v = tf.Variable(tf.cast(init, dtype))
    out = []
    for g in grads:
        opt.apply_gradients([(tf.cast(g, dtype), v)])
        out.append(tf.identity(v))
    return tf.stack(out)


def run(expr: str, tf: Any, optimizers: Any) -> dict[str, Any]:
    """Evaluates ``expr`` with ``tf``: a tensor as its dtype, shape and raw bytes (hex); an exception as
    its class name and message; anything else as its repr."""
    env = {
        "tf": tf,
        "np": np,
        "grad": lambda f, x: grad(tf, f, x),
        "train": lambda *a: train(tf, optimizers, *a),
    }
    try:
        r = eval(expr, env)  # noqa: S307 - fixed program text
    except Exception as e:  # noqa: BLE001 - the class and message are the outcome
        return {"t": "error", "class": type(e).__name__, "message": str(e)}
    if hasattr(r, "numpy") and hasattr(r, "dtype") and hasattr(r, "shape"):
        a = np.ascontiguousarray(r.numpy())
        return {"t": "tensor", "dtype": r.dtype.name, "shape": [int(n) for n in r.shape], "hex": a.tobytes().hex()}
    return {"t": "value", "repr": repr(r)}
