# Generates keras_ops_reference.json with TensorFlow 2.21 / Keras 3.15 (not run by the tests):
#   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_ops_reference.py
# (it writes tests/data/keras_ops_reference.json next to itself).
#
# Records what tests/test_keras_ops.py compares tapers' `keras.ops` with: for each case (an op
# name, positional arguments and keyword arguments built from deterministic numpy inputs), the
# value keras.ops returns on the TensorFlow backend, with its dtype and shape (a tuple/list of
# tensors is recorded element by element), or the exception's class name when Keras raises.
# The inputs are stored in the JSON too, so the test does not rebuild them. Case ids are
# "<op>_<n>" (the n-th case of that op), so adding cases of one op keeps the others' ids; ops of
# the keras.ops.image namespace are recorded as "image.<name>". Floats of 32 bits or less are
# written with 9 significant digits (exact for float32).
import json
import os
from pathlib import Path

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["KERAS_BACKEND"] = "tensorflow"
import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import ops  # noqa: E402

assert keras.__version__.startswith("3."), keras.__version__


def fixed(shape, k=0, dtype="float32"):
    """Deterministic inputs: a scaled sine of the flat index."""
    n = int(np.prod(shape)) if len(shape) else 1
    return (1.5 * np.sin(np.arange(n, dtype=np.float64) * 0.7 + k)).reshape(shape).astype(dtype)


def ints(shape, lo, hi, k=0, dtype="int32"):
    n = int(np.prod(shape)) if len(shape) else 1
    return (lo + (np.arange(n) * 7 + k * 3) % (hi - lo)).reshape(shape).astype(dtype)


def spd(n, k=0):
    a = fixed((n, n), k).astype(np.float64)
    return (a @ a.T + n * np.eye(n)).astype(np.float32)


A = fixed((3, 4), 0)
B = fixed((3, 4), 1)
P = np.abs(fixed((3, 4), 2)) + 0.1  # positive
U = np.clip(fixed((3, 4), 3) / 2, -0.9, 0.9)  # inside (-1, 1)
I = ints((3, 4), -5, 6)  # noqa: E741
I2 = ints((3, 4), 1, 5, 1)
BOOL = fixed((3, 4), 4) > 0
V = fixed((5,), 5)
M = fixed((2, 3, 4), 6)
NANS = np.array([1.0, np.nan, -2.0, 3.0, np.nan, 0.5], dtype=np.float32)
NANS2 = np.array([[1.0, np.nan, 2.0], [np.nan, np.nan, np.nan], [4.0, 0.0, -1.0]], dtype=np.float32)

CASES = []


def case(name, *args, **kwargs):
    CASES.append((name, list(args), kwargs))


UNARY_FLOAT = ["exp", "expm1", "log1p", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "arctan", "arcsinh", "tanh",
               "erf", "erfc", "fabs", "floor", "ceil", "sinc", "deg2rad", "rad2deg", "cbrt", "exp2", "abs", "absolute",
               "negative", "square", "sign", "round", "trunc", "isfinite", "isnan", "isinf", "signbit", "real", "imag",
               "conj", "conjugate", "angle", "copy", "reciprocal", "i0", "isreal", "logical_not", "ravel", "relu",
               "relu6", "sigmoid", "softplus", "softsign", "silu", "swish", "log_sigmoid", "leaky_relu",
               "hard_sigmoid", "hard_silu", "hard_swish", "elu", "selu", "gelu", "celu", "tanh_shrink", "hard_tanh",
               "hard_shrink", "soft_shrink", "sparse_plus", "sparse_sigmoid", "squareplus", "softmax", "log_softmax",
               "sparsemax", "ndim", "size", "dtype", "shape", "is_tensor", "stop_gradient", "sort", "argsort",
               "count_nonzero", "cumsum", "cumprod", "nan_to_num", "isneginf", "isposinf"]  # fmt: skip
for op in UNARY_FLOAT:
    case(op, A)
for op in ["log", "log2", "log10", "rsqrt"]:
    case(op, P)
for op in ["arcsin", "arccos", "arctanh", "erfinv"]:
    case(op, U)
case("arccosh", P + 1.0)
for op in ["exp", "sqrt", "sin", "log1p", "abs", "negative", "square", "sign", "floor", "ceil", "round", "trunc",
           "isfinite", "cumsum", "cumprod", "sort", "argsort", "reciprocal", "fabs", "tanh", "relu", "exp2",
           "signbit", "cbrt", "deg2rad", "sinc"]:  # fmt: skip
    case(op, I)
for op in ["abs", "sign", "square", "cumsum", "logical_not", "sort", "argsort", "exp"]:
    case(op, BOOL)
case("round", A * 10, 1)
case("round", A * 10, decimals=-1)
case("round", I * 13, decimals=-1)
case("gelu", A, approximate=False)
case("leaky_relu", A, negative_slope=0.5)
case("elu", A, alpha=0.5)
case("celu", A, alpha=2.0)
case("softmax", M, axis=1)
case("softmax", A, axis=0)
case("log_softmax", M, axis=0)
case("glu", A)
case("glu", M, axis=1)
case("hard_shrink", A, threshold=0.3)
case("soft_shrink", A, 1.0)
case("threshold", A, 0.2, -1.0)
case("squareplus", A, b=1.0)
case("sparsemax", M, axis=1)
case("cumsum", M, axis=1)
case("cumprod", M, 0)
case("sort", M, axis=0)
case("sort", M, axis=None)
case("argsort", M, axis=1)
case("argsort", M, axis=None)
case("nan_to_num", np.array([np.nan, np.inf, -np.inf, 1.0], "float32"))
case("nan_to_num", np.array([np.nan, np.inf, -np.inf, 1.0], "float32"), nan=1.0, posinf=2.0, neginf=-3.0)
for op in ["isnan", "isinf", "isfinite", "isneginf", "isposinf", "signbit"]:
    case(op, np.array([np.nan, np.inf, -np.inf, 1.0, -0.0, 0.0], "float32"))

BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "power", "maximum", "minimum", "arctan2", "hypot",
          "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "logaddexp", "logaddexp2", "fmax",
          "fmin", "heaviside", "logical_and", "logical_or", "logical_xor", "divide_no_nan", "floor_divide", "mod",
          "fmod"]  # fmt: skip
for op in BINARY:
    b = P if op in ("power", "floor_divide", "mod", "fmod", "divide", "true_divide") else B
    case(op, A, b)
    case(op, I, I2)
    case(op, A, 2)
    case(op, I, 2)
    case(op, I, 1.5)
    case(op, A[0], B)
for op in ["add", "multiply", "maximum", "equal", "logical_and", "divide", "subtract"]:
    case(op, BOOL, BOOL[::-1])
    case(op, BOOL, 1)
    case(op, I.astype("int8"), I2.astype("int16"))
    case(op, I.astype("uint8") if op != "subtract" else I.astype("int8"), 3)
    case(op, A.astype("float16"), I)
    case(op, A.astype("float64"), B)
    case(op, I.astype("int64"), 2.5)
    case(op, I.astype("int64"), A)
    case(op, 2, 3)
    case(op, 2.0, 3)
case("subtract", BOOL, BOOL)
case("nextafter", A, B)
case("ldexp", A, I2)
case("gcd", I, I2 * 3)
case("lcm", I, I2)
case("gcd", A, B)
case("where", BOOL, A, B)
case("where", BOOL, I, 1.5)
case("where", BOOL, 1, 0)
case("where", BOOL)
case("where", BOOL, A)
case("nonzero", I)
case("select", [BOOL, ~BOOL], [A, B])
case("select", [A > 1, A < -1], [I, I2], default=-1)
case("isclose", A, A + 1e-6)
case("isclose", np.array([1.0, np.nan], "float32"), np.array([1.0, np.nan], "float32"), equal_nan=True)
case("allclose", A, A + 1e-6)

for op in ["sum", "prod", "mean", "var", "std", "max", "min", "amax", "amin", "all", "any", "ptp", "logsumexp",
           "argmax", "argmin", "median", "nansum", "nanmean", "nanmax", "nanmin", "nanprod", "nanstd", "nanvar",
           "nanargmax", "nanargmin", "nanmedian", "count_nonzero"]:  # fmt: skip
    case(op, M)
    case(op, M, axis=1)
    if op != "count_nonzero":
        case(op, M, axis=-1, keepdims=True)
    case(op, M, axis=(0, 2))
    if op not in ("logsumexp", "median", "nanmedian", "nanargmax", "nanargmin", "argmax", "argmin"):
        case(op, I, axis=0)
    if op in ("sum", "prod", "mean", "max", "min", "all", "any", "count_nonzero", "argmax", "argmin"):
        case(op, BOOL, axis=1)
        case(op, I.astype("int8"))
        case(op, I.astype("uint8"))
        case(op, I.astype("int64"))
for op in ["nansum", "nanmean", "nanmax", "nanmin", "nanprod", "nanstd", "nanvar", "nanargmax", "nanargmin",
           "nanmedian", "nancumsum", "nancumprod"]:  # fmt: skip
    case(op, NANS)
    case(op, NANS2, axis=1) if op not in ("nanargmax", "nanargmin") else case(op, NANS2, axis=0)
case("nancumsum", NANS2)
case("max", M, axis=0, initial=0.5)
case("min", M, initial=-0.2)
case("max", np.zeros((0,), "float32"))
case("average", M)
case("average", M, axis=1)
case("average", M, axis=1, weights=fixed((3,), 2) + 2)
case("average", M, axis=2, weights=np.abs(M) + 0.1)
case("average", I, axis=0)
case("quantile", M, 0.3)
case("quantile", M, [0.1, 0.5, 0.9], axis=1)
case("quantile", M, 0.25, axis=2, keepdims=True)
for meth in ["lower", "higher", "midpoint", "nearest"]:
    case("quantile", V, [0.2, 0.5, 0.75], method=meth)
case("percentile", M, 40)
case("percentile", M, [10, 90], axis=(0, 2))
case("nanquantile", NANS2, 0.5, axis=1)
case("nanpercentile", NANS, [25, 75])
case("median", I)
case("top_k", A, 2)
case("top_k", M, k=3, sorted=True)
case("in_top_k", np.array([1, 0, 3], "int32"), A, 2)
case("argpartition", V, 2)

# creation
case("zeros", (2, 3))
case("ones", (2,), dtype="int32")
case("full", (2, 2), 3)
case("full", (2, 2), 3.5, dtype="float64")
case("zeros_like", I)
case("ones_like", A, dtype="float64")
case("full_like", I, 2.7)
case("full_like", A, 2, dtype="int64")
case("empty", (2, 3))
case("empty_like", I)
case("eye", 3)
case("eye", 3, 4, k=1)
case("eye", 4, 3, k=-2, dtype="int32")
case("identity", 3)
case("tri", 3, 4, k=1)
case("tri", 3, k=-1, dtype="int32")
case("tril", M)
case("triu", M, k=1)
case("tril", A, -1)
case("arange", 5)
case("arange", 1, 7, 2)
case("arange", 0.5, 3.0, 0.5)
case("arange", 0, 5, dtype="float32")
case("arange", 10, 1, -3)
case("linspace", 0, 1, 5)
case("linspace", 0.0, 10.0, 4, endpoint=False)
case("linspace", 2, 3, 5, retstep=True)
case("linspace", 0, 1, 1)
case("linspace", 0, 10, 6, dtype="int32")
case("logspace", 0, 2, 3)
case("logspace", 0.0, 3.0, 4, base=2, endpoint=False)
case("geomspace", 1, 1000, 4)
case("geomspace", 2.0, 32.0, 5)
case("meshgrid", V[:3], V[:2])
case("meshgrid", V[:3], V[:2], indexing="ij")
case("array", [[1, 2], [3, 4]])
case("array", [1.5, 2.5], dtype="float64")
case("convert_to_tensor", [1, 2])
case("convert_to_tensor", 3.0)
case("convert_to_tensor", A, dtype="float16")
case("convert_to_tensor", 5)
case("convert_to_tensor", True)
case("cast", A, "int32")
case("cast", I, "bool")
case("saturate_cast", A * 300, "uint8")
case("saturate_cast", I * 1000, "int8")

# shapes
case("reshape", M, (4, 6))
case("reshape", M, (-1, 2))
case("reshape", M, (5, 5))
case("expand_dims", A, 0)
case("expand_dims", A, -1)
case("expand_dims", A, (0, 3))
case("squeeze", np.ones((1, 3, 1), "float32"))
case("squeeze", np.ones((1, 3, 1), "float32"), axis=-1)
case("squeeze", np.ones((1, 3, 1), "float32"), axis=1)
case("transpose", M)
case("transpose", M, (1, 0, 2))
case("moveaxis", M, 0, -1)
case("moveaxis", M, (0, 1), (2, 0))
case("swapaxes", M, 0, 2)
case("broadcast_to", V, (2, 5))
case("broadcast_to", A, (2, 2))
case("concatenate", [A, B])
case("concatenate", [A, B], axis=1)
case("concatenate", [A, I])
case("concatenate", [A, M], axis=None)
case("concatenate", [A, V])
case("stack", [A, B])
case("stack", [A, B], axis=-1)
case("stack", [I, I2], 1)
case("append", A, B)
case("append", A, B, axis=0)
case("hstack", [A, B])
case("hstack", [V, V])
case("vstack", [A, B])
case("vstack", [V, V])
case("dstack", [A, B])
case("split", M, 2, axis=2)
case("split", M, [1, 3], axis=2)
case("split", V, [2])
case("split", M, 3, axis=2)
case("array_split", V, 3)
case("array_split", M, 3, axis=2)
case("hsplit", A, 2)
case("vsplit", np.ones((4, 2), "float32"), 2)
case("dsplit", M, 2)
case("tile", A, 2)
case("tile", A, (2, 1, 2))
case("tile", V, (2, 1))
case("repeat", A, 2)
case("repeat", A, 2, axis=1)
case("repeat", A, [1, 2, 0], axis=0)
case("flip", M)
case("flip", M, axis=1)
case("flip", M, axis=(0, 2))
case("fliplr", A)
case("flipud", A)
case("roll", M, 2)
case("roll", M, -1, axis=1)
case("roll", M, (1, 2), axis=(0, 2))
case("rot90", A)
case("rot90", M, k=2, axes=(1, 2))
case("rot90", A, k=-1)
case("rot90", A, k=3)
case("pad", A, 1)
case("pad", A, ((1, 0), (2, 1)))
case("pad", A, ((1, 1), (0, 2)), constant_values=5.0)
case("pad", A, ((1, 1), (2, 2)), mode="reflect")
case("pad", A, ((1, 1), (2, 2)), mode="symmetric")
case("pad", I, ((1, 1), (0, 1)), constant_values=7)
case("take", A, [0, 2, -1])
case("take", A, np.array([[0, 1], [2, 0]], "int32"), axis=0)
case("take", M, [3, -1], axis=-1)
case("take_along_axis", A, np.array([[0, 1], [2, 0], [3, 3]], "int32"), axis=1)
case("take_along_axis", M, np.argsort(M, axis=0).astype("int32"), axis=0)
case("take_along_axis", A, np.array([1, 5, 11], "int32"))
case("get_item", A, 1)
case("slice", M, (0, 1, 1), (2, 2, 2))
case("slice_update", A, (1, 1), np.ones((2, 2), "float32"))
case("scatter", np.array([[0, 1], [2, 3], [0, 1]], "int32"), np.array([1.0, 2.0, 3.0], "float32"), (3, 4))
case("scatter_update", A, np.array([[0, 1], [2, 3]], "int32"), np.array([9.0, 8.0], "float32"))
case("scatter_update", A, np.array([[0], [2]], "int32"), np.ones((2, 4), "float32"))
case("unstack", A)
case("unstack", M, axis=1)
case("diag", V)
case("diag", V[:3], k=1)
case("diag", V[:3], k=-2)
case("diag", A)
case("diag", A, k=1)
case("diag", A, k=-1)
case("diagflat", A[:2, :2])
case("diagflat", V[:2], k=1)
case("diagonal", A)
case("diagonal", A, offset=1)
case("diagonal", M, offset=-1, axis1=1, axis2=2)
case("diagonal", M, 0, 0, 2)
case("trace", A)
case("trace", M, offset=1, axis1=1, axis2=2)
case("trace", I)
case("diff", V)
case("diff", A, n=2, axis=1)
case("diff", M, axis=0)
case("diff", BOOL)
case("digitize", V, np.array([-1.0, 0.0, 1.0], "float32"))
case("digitize", I, np.array([-2.0, 0.0, 2.0], "float32"))
case("searchsorted", np.array([1.0, 2.0, 3.0, 4.0], "float32"), np.array([2.5, 0.0, 4.0, 2.0], "float32"))
case("searchsorted", np.array([1.0, 2.0, 2.0, 4.0], "float32"), np.array([2.0, 5.0], "float32"), side="right")
case("isin", I, np.array([1, 2, -3], "int32"))
case("isin", I, np.array([1, 2, -3], "int32"), invert=True)
case("bincount", np.array([0, 1, 1, 3, 2, 1], "int32"))
case("bincount", np.array([0, 1, 1, 3], "int32"), weights=np.array([0.5, 1.0, 2.0, 3.0], "float32"), minlength=6)
case("bincount", np.array([[0, 1, 1], [2, 2, 0]], "int32"), minlength=4)
case("bincount", np.array([0, 1, 1, 3], "int64"), weights=np.array([1, 2, 3, 4], "int16"))
case("bincount", np.array([0, 2], "uint8"))
case("unique", np.array([3, 1, 2, 3, 1, 5], "int32"))
case("unique", np.array([3, 1, 2, 3, 1, 5], "int32"), return_index=True, return_inverse=True, return_counts=True)
case("unique", np.array([3.0, 1.0, 3.0], "float32"), return_counts=True)
case("unique", np.array([3, 1, 2, 3, 1, 5], "int32"), sorted=False, return_index=True, return_inverse=True)
case("unique", np.array([[3, 1], [2, 3]], "int32"), return_inverse=True, return_counts=True, size=5, fill_value=-1)
case("unique", np.array([3, 1, 2, 3, 1, 5], "int32"), size=2)
case("unravel_index", np.array([1, 5, 11], "int32"), (3, 4))
case("vander", V[:3])
case("vander", V[:3], N=4, increasing=True)
case("trapezoid", V)
case("trapezoid", A, dx=0.5)
case("trapezoid", A, x=np.array([0.0, 1.0, 3.0, 6.0], "float32"))
case("trapezoid", A, axis=0)

# products
case("matmul", A, B.T)
case("matmul", M, fixed((4, 2), 3))
case("matmul", V[:4], fixed((4, 2), 3))
case("matmul", A, V[:4])
case("matmul", I, I2.T)
case("matmul", I.astype("int8"), I2.T.astype("int8"))
case("matmul", A, I.T)
case("matmul", A, B)
case("dot", A, B.T)
case("dot", V, V)
case("dot", M, fixed((4, 2), 3))
case("dot", A, 2.0)
case("dot", I, I2.T)
case("tensordot", M, fixed((3, 4, 2), 1))
case("tensordot", A, B, axes=([1], [1]))
case("tensordot", A, V[:4], axes=1)
case("inner", A, B)
case("inner", V, V)
case("outer", V[:3], V)
case("outer", A, V[:2])
case("vdot", A, B)
case("kron", A[:2, :2], B[:2, :3])
case("kron", V[:2], V[:3])
case("cross", fixed((4, 3), 1), fixed((4, 3), 2))
case("cross", fixed((4, 2), 1), fixed((4, 3), 2))
case("cross", fixed((3, 4), 1), fixed((3, 4), 2), axis=0)
case("cross", fixed((2,), 1), fixed((2,), 2))
case("einsum", "ij,kj->ik", A, B)
case("einsum", "bij,jk->bik", M, fixed((4, 5), 1))
case("einsum", "ii->i", A[:3, :3])
case("einsum", "ij,j->i", I, I2[0])
case("cdist", A, B)
case("cdist", M, fixed((2, 5, 4), 1))
case("corrcoef", A)
case("correlate", V, V[:3])
case("correlate", V, V[:3], mode="same")
case("correlate", V[:3], V, mode="full")
case("correlate", V[:2], V, mode="same")

# linalg
S = spd(3)
SB = np.stack([spd(3, 1), spd(3, 2)])
case("cholesky", S)
case("cholesky", SB, upper=True)
case("cholesky_inverse", np.linalg.cholesky(S.astype(np.float64)).astype(np.float32))
case("det", S)
case("det", SB)
case("inv", S)
case("inv", SB)
case("eigh", S)
case("logdet", S)
case("slogdet", S)
case("slogdet", -S)
case("solve", S, fixed((3, 2), 4))
case("solve", SB, fixed((2, 3, 1), 5))
case("solve_triangular", np.tril(S), fixed((3, 2), 4), lower=True)
case("solve_triangular", np.triu(S), fixed((3, 2), 4))
case("lu_factor", np.array([[1.0, 2, 3], [4, 5, 6], [7, 8, 10]], "float32"))
case("lu_factor", SB)
case("lu_factor", fixed((4, 4), 7))
case("lu_factor", A)
case("qr", A.T)
case("qr", A.T, mode="complete")
case("svd", A, compute_uv=False)
case("pinv", A)
case("matrix_rank", A)
case("matrix_rank", np.ones((3, 3), "float32"))
case("lstsq", A.T, fixed((4,), 1))
case("lstsq", A.T, fixed((4, 2), 1))
for o in [None, 1, 2, np.inf, -np.inf, 0, 3]:
    case("norm", V, ord=o)
for o in [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]:
    case("norm", A, ord=o)
case("norm", M, axis=-1, keepdims=True)
case("norm", M, ord="fro", axis=(1, 2))
case("norm", M, ord=2, axis=(0, 2), keepdims=True)
case("norm", I)
case("norm", A, ord="bad")

# math
case("segment_sum", A, np.array([0, 0, 1], "int32"))
case("segment_sum", A, np.array([0, 2, 0], "int32"), num_segments=4)
case("segment_max", A, np.array([1, 0, 1], "int32"))
case("segment_max", A, np.array([0, 0, 2], "int32"), num_segments=3)
case("extract_sequences", fixed((2, 10), 1), 4, 2)
case("extract_sequences", V, 2, 3)
case("psnr", A, B, 1.0)
case("psnr", np.abs(A), np.abs(B), 2.0)

# nn
case("one_hot", np.array([0, 2, -1, 1], "int32"), 3)
case("one_hot", np.array([[0, 2], [1, 1]], "int32"), 3, axis=0)
case("one_hot", np.array([0, 2], "int32"), 4, dtype="int32")
case("multi_hot", np.array([[0, 2], [1, 1]], "int32"), 4)
case("multi_hot", np.array([0, 2], "int32"), 3)
case("multi_hot", np.array([[0, 2], [1, 1]], "int32"), 4, dtype="bool")
case("moments", M, axes=[0, 1])
case("moments", M, axes=(2,), keepdims=True)
case("moments", M.astype("float16"), axes=(1,))
case("batch_normalization", M, fixed((4,), 1), np.abs(fixed((4,), 2)), axis=-1)
case("batch_normalization", M, fixed((3,), 1), np.abs(fixed((3,), 2)), axis=1, offset=fixed((3,), 3),
     scale=fixed((3,), 4), epsilon=0.01)  # fmt: skip
case("normalize", A)
case("normalize", A, axis=0, order=1)
case("normalize", M, axis=-1, order=3)
case("normalize", A, order=0)
case("layer_normalization", M)
case("layer_normalization", M, gamma=fixed((4,), 1), beta=fixed((4,), 2), epsilon=1e-3)
case("layer_normalization", M, axis=(1, 2))
case("layer_normalization", M, gamma=fixed((4,), 1), rms_scaling=True)
case("rms_normalization", M)
case("rms_normalization", M, scale=fixed((4,), 1), epsilon=1e-3)
case("rms_normalization", M, axis=(1, 2))
case("binary_crossentropy", (A > 0).astype("float32"), 1 / (1 + np.exp(-B)))
case("binary_crossentropy", (A > 0).astype("float32"), B, from_logits=True)
case("categorical_crossentropy", np.eye(4, dtype="float32")[[0, 3, 1]], np.abs(A) + 0.1)
case("categorical_crossentropy", np.eye(4, dtype="float32")[[0, 3, 1]], A, from_logits=True)
case("sparse_categorical_crossentropy", np.array([0, 3, 1], "int32"), np.abs(A) + 0.1)
case("sparse_categorical_crossentropy", np.array([0, 3, 1], "int32"), A, from_logits=True)
case("categorical_crossentropy", np.eye(4, dtype="float32")[[0, 3]], A, from_logits=True)

X1 = fixed((2, 7, 3), 1)
X2 = fixed((2, 6, 5, 3), 2)
X3 = fixed((1, 4, 5, 4, 2), 3)
case("conv", X1, fixed((3, 3, 4), 4))
case("conv", X1, fixed((3, 3, 4), 4), strides=2, padding="same")
case("conv", X1, fixed((2, 3, 4), 4), dilation_rate=2)
case("conv", X2, fixed((3, 2, 3, 4), 5))
case("conv", X2, fixed((3, 3, 3, 2), 5), strides=(2, 1), padding="same")
case("conv", X2, fixed((2, 2, 3, 2), 5), dilation_rate=(2, 1))
case("conv", X3, fixed((2, 3, 2, 2, 3), 6))
case("conv", np.transpose(X2, (0, 3, 1, 2)), fixed((3, 2, 3, 4), 5), data_format="channels_first")
case("conv", fixed((2, 6, 5, 4), 2), fixed((3, 3, 2, 6), 5))
case("conv", X1, fixed((3, 4, 4), 4))
case("conv", X1, fixed((9, 3, 4), 4))
case("depthwise_conv", X2, fixed((3, 3, 3, 2), 7))
case("depthwise_conv", X2, fixed((2, 2, 3, 1), 7), strides=2, padding="same")
case("depthwise_conv", X1, fixed((3, 3, 2), 7))
case("separable_conv", X2, fixed((3, 3, 3, 2), 7), fixed((1, 1, 6, 4), 8))
case("separable_conv", X1, fixed((3, 3, 1), 7), fixed((1, 3, 5), 8), padding="same")
case("conv_transpose", X1, fixed((3, 4, 3), 9))
case("conv_transpose", X1, fixed((3, 4, 3), 9), strides=2, padding="same")
case("conv_transpose", X2, fixed((3, 3, 2, 3), 9), strides=2)
case("conv_transpose", X2, fixed((3, 3, 2, 3), 9), strides=2, padding="same", output_padding=1)
case("conv_transpose", np.transpose(X2, (0, 3, 1, 2)), fixed((2, 2, 4, 3), 9), strides=(2, 1),
     data_format="channels_first")  # fmt: skip
for pool in ["max_pool", "average_pool"]:
    case(pool, X1, 2)
    case(pool, X1, 3, strides=2, padding="same")
    case(pool, X2, (2, 2))
    case(pool, X2, (3, 2), strides=(2, 1), padding="same")
    case(pool, X3, 2)
    case(pool, np.transpose(X2, (0, 3, 1, 2)), 2, data_format="channels_first")
case("depth_to_space", fixed((1, 2, 3, 8), 1), 2)
case("space_to_depth", fixed((1, 4, 6, 2), 1), 2)
case("depth_to_space", fixed((1, 8, 2, 3), 1), 2, data_format="channels_first")
Q = fixed((2, 5, 4, 3), 1)
K = fixed((2, 6, 4, 3), 2)
Vv = fixed((2, 6, 4, 3), 3)
case("dot_product_attention", Q, K, Vv)
case("dot_product_attention", Q, K, Vv, scale=0.3)
case("dot_product_attention", Q, fixed((2, 6, 2, 3), 2), fixed((2, 6, 2, 3), 3))
case("dot_product_attention", fixed((2, 5, 4, 3), 1), fixed((2, 5, 4, 3), 2), fixed((2, 5, 4, 3), 3), is_causal=True)
case("dot_product_attention", Q, K, Vv, mask=fixed((2, 1, 5, 6), 4) > 0)
case("dot_product_attention", Q, K, Vv, bias=fixed((1, 4, 5, 6), 4))
case("dot_product_attention", Q, K, Vv, attn_logits_soft_cap=0.5)
case("dot_product_attention", fixed((2, 5, 3), 1), fixed((2, 6, 3), 2), fixed((2, 6, 3), 3))

# windows, histogram, patches, adaptive pooling
for n in [0, 1, 2, 5, 8]:
    for op in ["bartlett", "blackman", "hamming", "hanning"]:
        case(op, n)
    case("kaiser", n, 2.5)
case("histogram", V)
case("histogram", A.ravel(), bins=4, range=(-1.0, 1.0))
case("histogram", I.ravel().astype("float32"), bins=3)
case("unfold", fixed((2, 3, 5, 6), 1), 2)
case("unfold", fixed((1, 2, 6, 7), 2), (3, 2), dilation=(1, 2), padding=1, stride=2)
case("fold", fixed((2, 12, 20), 1), (5, 6), 2)
case("fold", fixed((1, 12, 12), 2), (6, 7), (3, 2), dilation=(1, 2), padding=1, stride=2)
for pool in ["adaptive_average_pool", "adaptive_max_pool"]:
    case(pool, fixed((2, 10, 3), 1), 4)
    case(pool, fixed((2, 7, 9, 3), 2), (3, 4))
    case(pool, fixed((2, 3, 7, 9), 2), (2, 5), data_format="channels_first")
    case(pool, fixed((1, 5, 6, 7, 2), 3), (2, 3, 4))

# bitwise
BI8 = np.array([5, -3, 127, -128, 0, 77], "int8")
BJ8 = np.array([3, 7, -1, 1, -1, -78], "int8")
for op in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
    case(op, BI8, BJ8)
    case(op, I, I2)
    case(op, I.astype("uint8"), I2.astype("uint8"))
    case(op, np.array([5, -3, 2**40 + 7, -(2**50)], "int64"), np.array([3, -7, 2**41 - 1, 12345], "int64"))
    case(op, I.astype("int16"), I2.astype("int8"))
    case(op, BOOL, BOOL[::-1])
    case(op, A, B)
for op in ["bitwise_invert", "bitwise_not"]:
    case(op, BI8)
    case(op, I)
    case(op, I.astype("uint16"))
    case(op, BOOL)
for op in ["bitwise_left_shift", "left_shift", "bitwise_right_shift", "right_shift"]:
    case(op, BI8, 2)
    case(op, I, I2)
    case(op, I.astype("uint8"), 3)
    case(op, I, np.array([0, 1, 31, 3], "int32"))

# complex views and Fourier transforms
C = fixed((3, 8), 1)
CI = fixed((3, 8), 2)
case("view_as_real", (A + 1j * B).astype("complex64"))
case("view_as_complex", fixed((3, 2), 1))
case("view_as_complex", fixed((3, 3), 1))
case("polar", np.abs(A), B)
case("fft", (C, CI))
case("fft", (fixed((2, 3, 5), 1), fixed((2, 3, 5), 2)))
case("fft2", (C, CI))
case("fft2", (fixed((2, 3, 5), 1), fixed((2, 3, 5), 2)))
case("ifft2", (C, CI))
case("rfft", C)
case("rfft", C, fft_length=5)
case("rfft", C, 12)
case("rfft", fixed((2, 7), 3))
case("irfft", (fixed((3, 5), 1), fixed((3, 5), 2)))
case("irfft", (fixed((3, 5), 1), fixed((3, 5), 2)), 9)
case("irfft", (fixed((3, 5), 1), fixed((3, 5), 2)), fft_length=6)
case("fft", (C, I))
SIG = fixed((2, 64), 4)
case("stft", SIG, 16, 4, 16)
case("stft", SIG, 12, 5, 16, window="hamming")
case("stft", SIG[0], 16, 8, 16, window=None, center=False)
case("stft", SIG, 8, 4, 8, window=fixed((8,), 1))
case("stft", SIG.astype("int32"), 16, 4, 16)
case("stft", SIG, 16, 4, 8)
for seq, stride, n, win, center, length in [(16, 4, 16, "hann", True, None), (12, 5, 16, "hamming", True, None),
                                             (16, 8, 16, None, False, None), (16, 4, 16, "hann", True, 50),
                                             (16, 4, 16, "hann", False, None)]:  # fmt: skip
    stft_x = [np.asarray(t) for t in ops.stft(SIG, seq, stride, n, window=win, center=center)]
    case("istft", tuple(stft_x), seq, stride, n, length=length, window=win, center=center)

# einops
IMG = fixed((2, 4, 6, 3), 5)
case("rearrange", IMG, "b h w c -> b c h w")
case("rearrange", IMG, "b h w c -> (b h) w c")
case("rearrange", IMG, "b h w c -> h (b w) c")
case("rearrange", IMG, "b h w c -> b (c h w)")
case("rearrange", IMG, "b (h1 h) (w1 w) c -> (b h1 w1) h w c", h1=2, w1=2)
case("rearrange", IMG, "b (h h1) (w w1) c -> b h w (c h1 w1)", h1=2, w1=3)
case("rearrange", fixed((6, 4), 1), "(a b) c -> a (b c)", b=3)

# CTC
CTC_LOGITS = fixed((3, 8, 5), 6) * 2
CTC_TARGET = np.array([[1, 2, 2, 0], [3, 1, 0, 0], [3, 3, 2, 1]], "int32")  # no label equals a blank
case("ctc_loss", CTC_TARGET, CTC_LOGITS, np.array([3, 2, 4], "int32"), np.array([8, 6, 8], "int32"))
case("ctc_loss", CTC_TARGET, CTC_LOGITS, np.array([3, 1, 2], "int32"), np.array([7, 8, 5], "int32"), mask_index=4)
case("ctc_loss", CTC_TARGET, CTC_LOGITS.astype("float64"), np.array([0, 2, 1], "int32"), np.array([8, 8, 8], "int32"))
case("ctc_decode", CTC_LOGITS, np.array([8, 6, 3], "int32"))
case("ctc_decode", CTC_LOGITS, np.array([8, 8, 8], "int32"), merge_repeated=False)
case("ctc_decode", CTC_LOGITS, np.array([8, 5, 8], "int32"), mask_index=2)

# keras.ops.image (the subset tapers implements; recorded under "image.<name>")
IMGS = fixed((2, 5, 7, 3), 8)
case("image.rgb_to_grayscale", IMGS)
case("image.rgb_to_grayscale", np.transpose(IMGS, (0, 3, 1, 2)), data_format="channels_first")
case("image.rgb_to_grayscale", (np.abs(IMGS[0]) * 100).astype("uint8"))
case("image.rgb_to_grayscale", IMGS[..., :1])
for interp in ["bilinear", "nearest", "bicubic", "area"]:
    case("image.resize", IMGS, (4, 9), interpolation=interp)
case("image.resize", IMGS[0], (8, 3))
case("image.resize", np.transpose(IMGS, (0, 3, 1, 2)), (3, 4), data_format="channels_first")
case("image.resize", IMGS, (4, 4), crop_to_aspect_ratio=True)
case("image.resize", IMGS, (6, 3), crop_to_aspect_ratio=True)
case("image.resize", IMGS, (4, 4), pad_to_aspect_ratio=True, fill_value=0.5)
case("image.resize", IMGS, (3, 9), pad_to_aspect_ratio=True)
case("image.resize", (np.abs(IMGS) * 100).astype("uint8"), (4, 9), interpolation="nearest")
case("image.resize", IMGS, (4, 9, 3))

HSV_IN = np.abs(fixed((2, 4, 5, 3), 9)) / 1.5
HSV_IN[0, 0, 0] = [0.3, 0.3, 0.3]  # grey: zero saturation
case("image.rgb_to_hsv", HSV_IN)
case("image.rgb_to_hsv", np.transpose(HSV_IN[0], (2, 0, 1)), data_format="channels_first")
case("image.hsv_to_rgb", HSV_IN)
case("image.hsv_to_rgb", np.concatenate([np.ones((1, 2, 2, 1), "float32"), HSV_IN[:1, :2, :2, 1:]], -1))
case("image.rgb_to_hsv", (HSV_IN * 255).astype("uint8"))
case("image.pad_images", IMGS, 1, 2, 0, 1)
case("image.pad_images", IMGS[0], top_padding=2, left_padding=1, target_height=9, target_width=9)
case("image.pad_images", np.transpose(IMGS, (0, 3, 1, 2)), bottom_padding=1, right_padding=3, target_height=8,
     target_width=10, data_format="channels_first")  # fmt: skip
case("image.pad_images", IMGS, 1, 2)
case("image.pad_images", IMGS, top_padding=1, left_padding=1, target_height=3, target_width=9)
case("image.crop_images", IMGS, 1, 2, 1, 1)
case("image.crop_images", IMGS[0], top_cropping=1, left_cropping=2, target_height=3, target_width=4)
case("image.crop_images", np.transpose(IMGS, (0, 3, 1, 2)), bottom_cropping=1, right_cropping=3, target_height=2,
     target_width=3, data_format="channels_first")  # fmt: skip
case("image.crop_images", IMGS, 1, 1)
case("image.extract_patches", IMGS, 2)
case("image.extract_patches", IMGS, (2, 3), strides=(1, 2))
case("image.extract_patches", IMGS[0], 3, strides=2, padding="same")
case("image.extract_patches", IMGS, 2, dilation_rate=2, strides=1)
case("image.extract_patches", np.transpose(IMGS, (0, 3, 1, 2)), 2, data_format="channels_first")
case("image.extract_patches", fixed((1, 4, 4, 4, 2), 3), (2, 2, 2))
# view
case("view", A, "int32")
case("view", A, "int16")
case("view", I, "uint8")
case("view", I.astype("int16"), "float16")
case("view", fixed((3, 5), 1).astype("int8"), "int16")

# edge cases: empty tensors and scalars
E0 = np.zeros((0, 3), "float32")
case("sum", E0, axis=0)
case("mean", E0, axis=1)
case("prod", E0)
case("concatenate", [E0, A[:, :3]])
case("cumsum", E0, axis=0)
case("sort", E0)
case("matmul", E0, np.ones((3, 2), "float32"))
case("exp", np.float32(0.5))
case("argmax", np.float32(3.0))
case("sum", np.float32(2.0))
case("reshape", np.float32(2.0), (1, 1))
case("softmax", np.zeros((2, 0), "float32"))
case("add", np.float32(1.0), A)
case("where", np.array(True), A, B)
case("take", V, 7)
case("clip", A, -0.5, 0.5)
case("clip", I, -2, 3)
case("clip", BOOL, 0, 1)

# bad inputs (the test checks that tapers raises too)
case("matmul", A, B)
case("reshape", A, (5, 5))
case("squeeze", A, axis=0)
case("split", V, 2)
case("qr", A, mode="bad")
case("solve", S, fixed((2, 1), 0))
case("normalize", A, order=0)
case("dot_product_attention", Q, K, Vv, flash_attention=True)


def short(lst, dtype):
    """Floats of 32 bits or less with 9 significant digits (enough to round-trip float32): a smaller file."""
    if np.dtype(dtype).kind not in "fc" or np.dtype(dtype).itemsize > 8 or dtype in ("float64", "complex128"):
        return lst
    if isinstance(lst, list):
        return [short(e, dtype) for e in lst]
    return float(f"{lst:.9g}")


def encode(v):
    if isinstance(v, np.ndarray) and v.dtype.kind == "c":
        d = str(v.dtype)
        return {
            "__nd__": short(v.real.tolist(), d),
            "imag": short(v.imag.tolist(), d),
            "dtype": d,
            "shape": list(v.shape),
        }
    if isinstance(v, np.ndarray):
        return {"__nd__": short(v.tolist(), str(v.dtype)), "dtype": str(v.dtype), "shape": list(v.shape)}
    if isinstance(v, tuple):
        return {"__tuple__": [encode(e) for e in v]}
    if isinstance(v, list):
        return [encode(e) for e in v]
    if isinstance(v, dict):
        return {k: encode(e) for k, e in v.items()}
    if isinstance(v, (np.floating, float)):
        return float(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    return v


def record(out):
    if isinstance(out, (tuple, list)):
        return {"seq": [record(o) for o in out], "kind": type(out).__name__}
    if out is None or isinstance(out, (str, bool, int)) and not hasattr(out, "dtype"):
        return {"py": out}
    arr = np.asarray(ops.convert_to_numpy(out))
    dt = keras.backend.standardize_dtype(out.dtype) if hasattr(out, "dtype") else str(arr.dtype)
    if arr.dtype.kind == "c":
        return {"value": short(arr.real.tolist(), dt), "imag": short(arr.imag.tolist(), dt), "dtype": dt,
                "shape": list(arr.shape)}  # fmt: skip
    return {"value": short(arr.tolist(), dt), "dtype": dt, "shape": list(arr.shape)}


def main():
    rows = []
    seen = {}
    for name, args, kwargs in CASES:
        seen[name] = seen.get(name, -1) + 1  # ids are stable when cases of other ops are added
        row = {"id": f"{name}_{seen[name]}", "op": name, "args": encode(args), "kwargs": encode(kwargs)}
        try:
            fn = ops
            for part in name.split("."):
                fn = getattr(fn, part)
            row["out"] = record(fn(*args, **kwargs))
        except Exception as e:  # noqa: BLE001
            row["error"] = type(e).__name__
        rows.append(row)
    out = {"keras": keras.__version__, "cases": rows}
    path = Path(__file__).with_name("keras_ops_reference.json")
    path.write_text(json.dumps(out, allow_nan=True, separators=(",", ":")) + "\n")
    print(len(rows), "cases,", sum("error" in r for r in rows), "errors ->", path)


if __name__ == "__main__":
    main()
