"""Dtype programs shared by make_dtypes_reference.py (run under TensorFlow) and tests/test_dtypes.py
(run under tapers): each is a Python expression over ``tf`` (the library), ``np`` and ``printed``.

``run`` evaluates one and encodes its outcome the same way for both libraries: a tensor as its dtype,
shape, raw bytes (hex), repr and str; an exception as its class name and message; anything else as its
repr. ``tapers.`` in texts is written ``tf.`` so the two compare directly.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import sys
import tempfile
from typing import Any

import numpy as np

NEW = ["uint8", "int8", "int16", "uint16", "uint32", "uint64", "float16", "bfloat16", "complex64", "complex128"]
ALL = ["float32", "float64", "int32", "int64", "bool", *NEW]
INTS = ["uint8", "int8", "int16", "uint16", "uint32", "uint64", "int32", "int64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]

# Source values of each kind for casts: edges of every integer width, float specials and
# out-of-range values, complex numbers with a zero and a nonzero real part.
INT_VALUES = [0, 1, -1, 127, 128, 255, 256, -129, 65535, 65536, 2**31 - 1, -(2**31), 2**32 + 5, 2**63 - 1, -(2**63)]
FLOAT_VALUES = [
    "nan",
    "inf",
    "-inf",
    0.0,
    -0.0,
    0.1,
    3.7,
    -3.7,
    300.0,
    -1.0,
    65504.0,
    70000.0,
    1e10,
    -1e10,
    2.0**63,
    2.0**64,
    1e30,
    -1e30,
    1e-30,
]
COMPLEX_VALUES = [1 + 2j, 0j, 1j, -3.7 + 1j, 300.5 - 2j, 1e10 - 1j]


# A float into an integer type it does not fit (NaN, inf, out of range) gives what the CPU's conversion
# gives, and TF's result then depends on the source dtype and even on the element's position (its
# vectorized and scalar loops convert differently): tapers keeps one rule (README, "Known
# differences"), so float (and complex) -> integer casts are compared on values every integer type holds.
FLOAT_TO_INT_VALUES = [0.0, -0.0, 0.1, 3.7, 100.5, 120.5, 1e-30]
FLOAT_TO_SIGNED_VALUES = [-0.5, -3.7, -100.5]
COMPLEX_TO_INT_VALUES = [1 + 2j, 0j, 1j, 3.7 + 1j, 100.5 - 2j]
COMPLEX_TO_SIGNED_VALUES = [-3.7 + 1j]


def source(dtype: str, target: str | None = None) -> str:
    """An expression making a tensor of ``dtype`` holding that kind's edge values (for a cast to ``target``)."""
    if dtype == "bool":
        return "tf.constant([True, False])"
    if dtype in INTS:
        # numpy's int64 -> narrower integer astype wraps, as a cast does; uint64 gets its own top value.
        extra = ", 2**64 - 1" if dtype == "uint64" else ""
        vals = ", ".join(str(v % 2**64 if dtype == "uint64" else v) for v in INT_VALUES)
        np_src = "np.uint64" if dtype == "uint64" else "np.int64"
        return f"tf.constant(np.array([{vals}{extra}], {np_src}).astype(tf.{dtype}.as_numpy_dtype))"
    if dtype in FLOATS:
        values: list[Any] = FLOAT_VALUES
        if target in INTS:
            values = FLOAT_TO_INT_VALUES + ([] if target.startswith("u") else FLOAT_TO_SIGNED_VALUES)
        vals = ", ".join(f"float('{v}')" if isinstance(v, str) else repr(v) for v in values)
        return f"tf.constant(np.array([{vals}], np.float64).astype(tf.{dtype}.as_numpy_dtype))"
    complex_values: list[complex] = COMPLEX_VALUES
    if target in INTS:  # the real part into an integer type: as a float's, on values every type holds
        complex_values = COMPLEX_TO_INT_VALUES + ([] if target.startswith("u") else COMPLEX_TO_SIGNED_VALUES)
    vals = ", ".join(repr(v) for v in complex_values)
    return f"tf.constant(np.array([{vals}], np.{dtype}))"


def creation() -> list[str]:
    P: list[str] = []
    for d in NEW:
        P += [
            f"tf.constant([1, 2], dtype=tf.{d})",
            f"tf.zeros([2, 3], tf.{d})",
            f"tf.ones([2], tf.{d})",
            f"tf.ones([], tf.{d})",
            f"tf.zeros_like(tf.constant([1, 2], tf.{d}))",
            f"tf.ones_like(tf.constant([1, 2], tf.{d}))",
            f"tf.fill([2, 2], tf.constant(3, tf.{d}))",
            f"tf.constant(np.array([[1, 2], [3, 4]], tf.{d}.as_numpy_dtype))",
            f"tf.constant([1, 2], dtype=tf.{d}).numpy().dtype",
            f"tf.constant(5, dtype=tf.{d}).numpy()",
            f"tf.reshape(tf.constant([1, 2, 3, 4], tf.{d}), [2, 2])",
            f"tf.concat([tf.constant([1], tf.{d}), tf.constant([2, 3], tf.{d})], 0)",
            f"tf.constant([1, 2, 3], tf.{d})[1:]",
            f"tf.identity(tf.constant([7], tf.{d}))",
            f"tf.convert_to_tensor(np.array([1, 2], tf.{d}.as_numpy_dtype))",
            f"tf.constant(True, dtype=tf.{d})",
            f"tf.constant([1.5], dtype=tf.{d})",
            f"tf.constant(1 + 2j, dtype=tf.{d})",
            f"np.asarray(tf.constant([1, 2], tf.{d})).dtype",
            f"tf.constant(np.zeros([0, 2], tf.{d}.as_numpy_dtype))",
            f"printed(tf.constant([1, 2], tf.{d}))",
        ]
    # numpy arrays in the other byte order (big-endian here) convert to their values.
    P += [f"tf.constant(np.arange(3).astype('>{c}'))" for c in ("f2", "f4", "f8", "i2", "i4", "i8", "u2", "u8", "c8")]
    P += [
        "tf.constant(np.arange(6).astype('>f4').reshape(2, 3)[:, 1:])",
        "tf.convert_to_tensor(np.array([1.5, -2.0], '>f8'))",
        "tf.constant(np.array([1, 2], '>i4'), dtype=tf.float32)",
    ]
    P += [
        "tf.constant(np.zeros(3, np.uint8))",
        "tf.constant(300, dtype=tf.uint8)",
        "tf.constant(-1, dtype=tf.uint8)",
        "tf.constant([300], dtype=tf.uint8)",
        "tf.constant([-1], dtype=tf.uint32)",
        "tf.constant(2**40, dtype=tf.int16)",
        "tf.constant(2**40, dtype=tf.uint32)",
        "tf.constant(2**64 - 1, dtype=tf.uint64)",
        "tf.constant(2**63, dtype=tf.uint64)",
        "tf.constant(1.5, dtype=tf.uint8)",
        "tf.constant(np.array([300]), dtype=tf.uint8)",
        "tf.constant(np.array([1.5]), dtype=tf.uint8)",
        "tf.constant(np.array([1.5], np.float32), dtype=tf.float16)",
        "tf.constant(0.1, dtype=tf.float16)",
        "tf.constant(0.1, dtype=tf.bfloat16)",
        "tf.constant(1e5, dtype=tf.float16)",
        "tf.constant(1e40, dtype=tf.bfloat16)",
        "tf.constant([0.1, 1e4, -2.5, 65504], tf.float16)",
        "tf.constant([[1.5, 2.25], [1e4, 3]], tf.float16)",
        "tf.constant([0.1, 1e30, -3], tf.bfloat16)",
        "tf.constant([1.0, 2.0], tf.bfloat16)",
        "tf.constant(np.float16(0.1))",
        "tf.constant(1 + 2j)",
        "tf.constant([1 + 2j, 3])",
        "tf.constant(1 + 2j, dtype=tf.complex64)",
        "tf.constant(1, dtype=tf.complex64)",
        "tf.constant(1.5, dtype=tf.complex128)",
        "tf.constant([1.5 + 2j, -1e-30j], tf.complex64)",
        "tf.constant([[1 + 0j, 2 - 1j]], tf.complex128)",
        "tf.constant(1 + 2j, dtype=tf.float32)",
        "tf.fill([2], 1 + 2j)",
        "tf.fill([2], np.uint8(3))",
        "tf.zeros_like(tf.constant([1 + 2j]))",
        "tf.constant([1, 2], dtype=tf.uint8) + tf.constant([1, 2])",
        "float(tf.constant(1.5, tf.float16))",
        "float(tf.constant(1.5, tf.bfloat16))",
        "int(tf.constant(3, tf.uint8))",
        "int(tf.constant(2**64 - 1, tf.uint64))",
        "complex(tf.constant(1 + 2j))",
        "printed(tf.constant([0.1, 2], tf.float16))",
        "printed(tf.constant([0.1, 2], tf.bfloat16))",
        "printed(tf.constant([1.5 + 2j, -1j], tf.complex64))",
    ]
    return P


def dtype_objects() -> list[str]:
    P: list[str] = []
    for d in ALL:
        P += [
            f"(tf.{d}.name, tf.{d}.is_floating, tf.{d}.is_integer, tf.{d}.is_complex, tf.{d}.is_unsigned, "
            f"tf.{d}.is_bool, tf.{d}.size, tf.{d}.real_dtype.name, tf.{d}.as_numpy_dtype.__name__)",
            f"tf.{d}.min",
            f"tf.{d}.max",
            f"str(tf.{d})",
            f"tf.dtypes.as_dtype('{d}') == tf.{d}",
            f"tf.dtypes.as_dtype(tf.{d}.as_numpy_dtype).name",
            f"tf.{d} == tf.{d}.as_numpy_dtype",
        ]
    P += [
        "tf.dtypes.as_dtype('half').name",
        "tf.dtypes.as_dtype(complex).name",
        "tf.dtypes.as_dtype(np.dtype('complex64')).name",
        "tf.dtypes.as_dtype('bfloat16').name",
        "tf.half.name",
        "tf.float16 == tf.float32",
    ]
    return P


def casts() -> list[str]:
    return [f"tf.cast({source(s, d)}, tf.{d})" for s, d in itertools.product(ALL, ALL)]


def complex_helpers() -> list[str]:
    return [
        "tf.complex(tf.constant([1.0]), tf.constant([2.0]))",
        "tf.complex(tf.constant([1.0, -2.0], tf.float64), tf.constant([0.5], tf.float64))",
        "tf.complex(tf.constant([1.0], tf.float64), tf.constant([2.0]))",
        "tf.complex(1.0, 2.0)",
        "tf.complex(tf.constant([1]), tf.constant([2]))",
        "tf.math.real(tf.constant([1.5 + 2j, -1j], tf.complex64))",
        "tf.math.imag(tf.constant([1.5 + 2j, -1j], tf.complex128))",
        "tf.math.conj(tf.constant([1.5 + 2j, -1j], tf.complex64))",
        "tf.math.angle(tf.constant([-1 + 0j, 1j, 1 + 1j], tf.complex64))",
        "tf.math.real(tf.constant([1.5]))",
        "tf.math.imag(tf.constant([1.5]))",
        "tf.math.imag(tf.constant([1], tf.uint8))",
        "tf.math.conj(tf.constant([1]))",
        "tf.math.angle(tf.constant([-1.5, 2.0]))",
        "tf.math.angle(tf.constant([-1.5, 2.0], tf.float16))",
        "tf.math.real([1 + 2j])",
        "tf.math.conj([1 + 2j])",
        "tf.math.real(tf.constant(1 + 2j, tf.complex64))",
        "tf.math.conj(tf.constant(True))",
    ]


def programs() -> list[str]:
    return creation() + dtype_objects() + casts() + complex_helpers()


def _text(s: str) -> str:
    return s.replace("tapers.", "tf.")


def printed_py(tf: Any, x: Any) -> str:
    """What ``tf.print(x, output_stream=sys.stdout)`` writes, for a print that writes through Python."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        tf.print(x, output_stream=sys.stdout)
    return out.getvalue()


def printed_fd(tf: Any, x: Any) -> str:
    """The same for TensorFlow's print op, which writes to file descriptor 1 from C++."""
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile() as f:
        os.dup2(f.fileno(), 1)
        try:
            tf.print(x, output_stream=sys.stdout)
            sys.stdout.flush()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        f.seek(0)
        return f.read().decode()


def run(expr: str, tf: Any, printer: Any = printed_py) -> dict[str, Any]:
    """Evaluates ``expr`` with ``tf`` and encodes the outcome (see the module docstring)."""

    def printed(x: Any) -> str:
        return str(printer(tf, x))

    try:
        # numpy warns when the sources' astype overflows (1e10 to float16 is inf, as intended).
        with np.errstate(all="ignore"):
            r = eval(expr, {"tf": tf, "np": np, "printed": printed})  # noqa: S307 - fixed program text
    except Exception as e:  # noqa: BLE001 - the class and message are the outcome
        return {"t": "error", "class": type(e).__name__, "message": str(e)}
    if hasattr(r, "numpy") and hasattr(r, "dtype") and hasattr(r, "shape"):
        a = np.ascontiguousarray(r.numpy())
        return {
            "t": "tensor",
            "dtype": r.dtype.name,
            "shape": [int(n) for n in r.shape],
            "hex": a.tobytes().hex(),
            "repr": _text(repr(r)),
            "str": _text(str(r)),
        }
    return {"t": "value", "repr": _text(repr(r))}
