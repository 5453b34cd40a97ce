"""Every unary and binary float op, driven by one table (tests/data/op_table.json,
which rust/tapers/tests/gradcheck.rs reads too): values against numpy in float32
and float64, gradients against float64 finite differences, gradient dtypes,
exact edge points (kinks, ties, limits: TensorFlow's choices) and the operator
forms. A row whose op is gone fails here, never skips."""

from __future__ import annotations

import json
import math
import re
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tapers as tf
from conftest import check_gradients

TABLE = json.loads((Path(__file__).parent / "data" / "op_table.json").read_text())
DEFAULTS = TABLE["defaults"]
ROWS = TABLE["ops"]
DTYPES = ["float32", "float64"]


def erf(x: Any) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def lgamma(x: Any) -> np.ndarray:
    return np.vectorize(math.lgamma, otypes=[np.float64])(x)


def inputs(row: dict) -> list[str]:
    return row.get("inputs", ["x"])


def shapes(row: dict) -> list[list[list[int]]]:
    return row.get("shapes") or DEFAULTS["unary_shapes" if len(inputs(row)) == 1 else "binary_shapes"]


def intervals(domain: str) -> list[tuple[float, float]]:
    if domain in TABLE["domains"]:
        return [(lo, hi) for lo, hi in TABLE["domains"][domain]]
    m = re.fullmatch(r"\(([-+0-9.e]+),([-+0-9.e]+)\)", domain)
    assert m, f"domain {domain!r} is neither a name in `domains` nor an interval (lo,hi)"
    return [(float(m[1]), float(m[2]))]


def sample(domain: str, shape: list[int], rng: np.random.Generator) -> np.ndarray:
    spans = np.array(intervals(domain))
    pick = spans[rng.integers(len(spans), size=shape)]
    return np.asarray(rng.uniform(pick[..., 0], pick[..., 1]), dtype=np.float64)


def case_inputs(row: dict, case: list[list[int]]) -> list[np.ndarray]:
    # A fixed seed per row and shape (zlib.crc32: Python's hash() changes per process).
    rng = np.random.default_rng(zlib.crc32(f"{row['id']}{case}".encode()))
    assert len(row["domain"]) == len(inputs(row)) == len(case), f"{row['id']}: one domain and shape per input"
    return [sample(d, s, rng) for d, s in zip(row["domain"], case)]


def public_op(row: dict) -> Any:
    obj: Any = tf
    for part in row["python"].split("."):
        obj = getattr(obj, part)  # AttributeError: the row's op is gone
    return obj


def call(row: dict, *args: Any) -> tf.Tensor:
    fn, params = public_op(row), row.get("params", {})
    if row.get("keywords"):
        return fn(**dict(zip(inputs(row), args)), **params)
    return fn(*args, **params)


def reference(row: dict, arrays: list[np.ndarray]) -> np.ndarray:
    scope = {"np": np, "erf": erf, "lgamma": lgamma, **row.get("params", {}), **dict(zip(inputs(row), arrays))}
    return np.asarray(eval(row["numpy"], scope))


def special(v: Any) -> Any:
    if isinstance(v, list):
        return [special(e) for e in v]
    return float(v)  # float("inf"), float("-inf") and float("nan") read the table's strings


CASES = [pytest.param(row, case, id=f"{row['id']}-{case}") for row in ROWS for case in shapes(row)]
EDGES = [
    pytest.param(row, edge, dtype, id=f"{row['id']}-{k}-{dtype}")
    for row in ROWS
    for k, edge in enumerate(row.get("edges", []))
    for dtype in DTYPES
]
OPERATORS = [pytest.param(row, shapes(row)[-1], id=row["id"]) for row in ROWS if "operator" in row]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("row, case", CASES)
def test_values_match_numpy(row, case, dtype):
    arrays = [a.astype(dtype) for a in case_inputs(row, case)]
    got = call(row, *[tf.constant(a) for a in arrays]).numpy()
    want = reference(row, [a.astype(np.float64) for a in arrays])
    assert got.dtype == dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=DEFAULTS["rtol"][dtype], atol=DEFAULTS["atol"][dtype])


def gradients_in(dtype: str, row: dict, arrays: list[np.ndarray], w: np.ndarray) -> list[Any]:
    xs = [tf.constant(a.astype(dtype)) for a in arrays]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = tf.reduce_sum(call(row, *xs) * tf.constant(w.astype(dtype)))
    return tape.gradient(y, xs)


@pytest.mark.parametrize("row, case", CASES)
def test_gradients(row, case):
    arrays = case_inputs(row, case)
    w = np.random.default_rng(1).uniform(0.5, 1.5, size=call(row, *arrays).shape)
    if row.get("grad", "fd") == "none":
        # Not differentiable (as in TensorFlow): no gradient in either dtype.
        for dtype in DTYPES:
            assert all(g is None for g in gradients_in(dtype, row, arrays, w))
        return
    check_gradients(lambda *xs: call(row, *xs), *arrays, rtol=DEFAULTS["grad_rtol"], atol=DEFAULTS["grad_atol"])
    # float32 inputs get float32 gradients, close to float64 ones at the same points.
    rounded = [a.astype(np.float32).astype(np.float64) for a in arrays]
    for a, g, g64 in zip(arrays, gradients_in("float32", row, rounded, w), gradients_in("float64", row, rounded, w)):
        assert g is not None and g.dtype == tf.float32 and g.shape == a.shape
        np.testing.assert_allclose(
            g.numpy(), g64.numpy(), rtol=DEFAULTS["grad_float32_rtol"], atol=DEFAULTS["grad_float32_atol"]
        )


@pytest.mark.parametrize("row, edge, dtype", EDGES)
def test_edges(row, edge, dtype):
    xs = [tf.constant(np.array(special(a), dtype=dtype)) for a in edge["at"]]
    assert "value" in edge or "grad" in edge, f"{row['id']}: an edge checks a value or a gradient"
    with tf.GradientTape() as tape:
        tape.watch(xs)
        out = call(row, *xs)
        y = tf.reduce_sum(out)
    if "value" in edge:
        np.testing.assert_array_equal(out.numpy(), np.array(special(edge["value"]), dtype=dtype), err_msg=edge["why"])
    if "grad" in edge:
        got = tape.gradient(y, xs)
        assert len(got) == len(edge["grad"])
        for g, want in zip(got, edge["grad"]):
            assert g.dtype == dtype
            np.testing.assert_array_equal(g.numpy(), np.array(special(want), dtype=dtype), err_msg=edge["why"])


@pytest.mark.parametrize("row, case", OPERATORS)
def test_operator_forms(row, case):
    # `x + y`, `-x`, `abs(x)`, ...: the same values, bit for bit, and gradients.
    def op(*xs):
        return eval(row["operator"], dict(zip(inputs(row), xs)))

    arrays = case_inputs(row, case)
    ts = [tf.constant(a) for a in arrays]
    np.testing.assert_array_equal(op(*ts).numpy(), call(row, *ts).numpy())
    if row.get("grad", "fd") == "fd":
        check_gradients(op, *arrays)


# Public float ops of tapers.math and tapers.nn that have no row, and where they are tested.
NOT_IN_TABLE = {
    **dict.fromkeys(
        ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_logsumexp"]
        + ["reduce_std", "reduce_variance", "reduce_any", "reduce_all", "argmax", "argmin", "add_n"],
        "reductions: test_op_library.py, test_ops_gradients.py",
    ),
    **dict.fromkeys(
        ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "is_nan", "is_finite", "is_inf"]
        + ["logical_and", "logical_or", "logical_not", "logical_xor"],
        "bool results, no gradient: test_op_library.py::test_logical_and_predicates, test_properties.py",
    ),
    **dict.fromkeys(["conv2d", "max_pool2d", "avg_pool2d"], "windows: test_op_library.py::test_conv2d, test_pooling"),
    **dict.fromkeys(
        ["conv3d", "conv3d_transpose", "max_pool3d", "avg_pool3d"],
        "3-D windows: test_nn3d.py (TF fixtures, float64 finite differences)",
    ),
    "ctc_loss": "integer labels and lengths: test_keras_losses_extra.py (TF fixtures, brute force, float64 "
    "finite differences)",
    "dropout": "random: test_op_library.py::test_bias_add_errors_and_dropout",
    "embedding_lookup": "integer ids, sparse gradient: test_sparse_grad.py (TF fixtures, float64 finite differences)",
    "sparse_softmax_cross_entropy_with_logits": "integer labels: test_op_library.py::test_sparse_softmax_*",
    **dict.fromkeys(
        ["top_k", "bincount", "segment_sum", "unsorted_segment_sum", "unsorted_segment_mean", "unsorted_segment_max"]
        + ["cumulative_logsumexp", "moments", "batch_normalization", "conv1d", "depthwise_conv2d", "conv2d_transpose"],
        "index, segment or window arguments: test_ops_common.py (TF fixtures, finite differences)",
    ),
    **dict.fromkeys(
        ["digamma", "polygamma", "zeta", "erfinv", "ndtri", "erfcinv", "bessel_i0e", "bessel_i1", "bessel_i1e"]
        + ["lbeta", "betainc"],
        "special functions without a numpy reference: test_math_ops.py (TF fixtures, float64 finite differences)",
    ),
    **dict.fromkeys(
        ["real", "imag", "conj", "angle"], "complex values, not recorded on tapes: test_dtypes.py (TF fixtures)"
    ),
    **dict.fromkeys(
        ["accumulate_n", "confusion_matrix", "count_nonzero", "in_top_k", "invert_permutation", "is_non_decreasing"]
        + ["is_strictly_increasing", "polyval", "reduce_euclidean_norm", "scalar_mul", "segment_max", "segment_mean"]
        + ["segment_min", "segment_prod", "unsorted_segment_min", "unsorted_segment_prod", "unsorted_segment_sqrt_n"]
        + ["zero_fraction", "avg_pool1d", "compute_average_loss", "crelu", "depth_to_space", "l2_loss"]
        + ["log_poisson_loss", "max_pool1d", "normalize_moments", "space_to_depth", "sufficient_statistics"]
        + ["weighted_cross_entropy_with_logits", "weighted_moments", "space_to_batch", "atrous_conv2d"]
        + ["batch_norm_with_global_normalization", "conv1d_transpose", "scale_regularization_loss", "separable_conv2d"]
        + ["approx_max_k", "approx_min_k", "convolution", "local_response_normalization", "pool"]
        + ["atrous_conv2d_transpose", "conv_transpose"],
        "reductions, segments, windows, losses (issue 20): test_surface.py (TF fixtures, finite differences)",
    ),
}


def test_the_table_covers_every_float_op():
    tabled = {id(public_op(row)) for row in ROWS}
    missing = []
    for module in (tf.math, tf.nn):
        for name in module.__all__:
            obj = getattr(module, name)
            if id(obj) not in tabled and obj.__name__ not in NOT_IN_TABLE:
                missing.append(f"{module.__name__}.{name}")
    assert not missing, f"add a row to tests/data/op_table.json (or a reason to NOT_IN_TABLE) for {missing}"
    stale = [n for n in NOT_IN_TABLE if not hasattr(tf.math, n) and not hasattr(tf.nn, n)]
    assert not stale, f"NOT_IN_TABLE names ops tapers no longer has: {stale}"


def test_rows_are_well_formed():
    known = {"id", "python", "core", "params", "inputs", "keywords", "domain", "numpy", "shapes", "grad"}
    known |= {"operator", "edges"}
    ids = [row["id"] for row in ROWS]
    assert len(ids) == len(set(ids)), "row ids are unique"
    for row in ROWS:
        assert set(row) <= known, f"{row['id']}: unknown fields {set(row) - known}"
        assert {"id", "python", "core", "domain", "numpy"} <= set(row), row["id"]
        assert row.get("grad", "fd") in ("fd", "none"), row["id"]
        for case in shapes(row):
            assert len(case) == len(inputs(row)), f"{row['id']}: {case} gives one shape per input"
        for edge in row.get("edges", []):
            assert set(edge) <= {"at", "value", "grad", "why"} and "why" in edge, row["id"]
            assert len(edge["at"]) == len(inputs(row)), row["id"]
