"""Issue 20's remaining math/dtype gaps against TensorFlow 2.21 itself (the fixture is written
by tests/data/make_math_gaps_reference.py): complex inputs of the "no NaN" and xlogy family,
max pooling on the integer dtypes, tf.math.igamma/igammac with both gradients, the
tf.math.special module, and the parameter names of every tf.math/tf.nn function both publish.
float64 finite-difference checks of the new differentiable ops are here too."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

import tapers as tf
from conftest import check_gradients

REF = json.loads((Path(__file__).parent / "data" / "math_gaps_reference.json").read_text())
RTOL = {"float32": 2e-6, "float64": 1e-13, "complex64": 2e-6, "complex128": 1e-13}


def decode(v: Any) -> Any:
    if isinstance(v, list):
        return [decode(e) for e in v]
    return float(v)  # "nan", "inf", "-inf" too


def want_array(w: dict) -> np.ndarray:
    re_ = np.asarray(decode(w["re"]), dtype=np.float64)
    return re_ + 1j * np.asarray(decode(w["im"]), dtype=np.float64) if "im" in w else re_


def assert_same(
    got: Any, want: np.ndarray, rtol: float, what: str, signed_zeros: bool = True, atol: float = 1e-300
) -> None:
    """NaN where TF has NaN, the same infinities and signed zeros, finite values within rtol
    (complex: each part, whose zeros' signs follow the order of operations, not checked)."""
    got = np.asarray(got).ravel()
    if np.iscomplexobj(want) or np.iscomplexobj(got):
        assert_same(np.real(got), np.real(want), rtol, f"{what} (real part)", False, atol)
        assert_same(np.imag(got), np.imag(want), rtol, f"{what} (imaginary part)", False, atol)
        return
    got, want = got.astype(np.float64), np.asarray(want, dtype=np.float64).ravel()
    assert got.shape == want.shape, what
    assert np.array_equal(np.isnan(got), np.isnan(want)), f"{what}: NaN at {got} vs TF {want}"
    inf = np.isinf(want)
    assert np.array_equal(got[inf], want[inf]) and not np.isinf(got[~inf]).any(), f"{what}: {got} vs TF {want}"
    zero = (want == 0) & signed_zeros
    assert np.array_equal(np.signbit(got[zero]), np.signbit(want[zero])), f"{what}: signed zeros {got} vs TF {want}"
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=rtol, atol=atol, err_msg=what)


def expect_error(want: dict, fn: Callable[[], Any], dtype: str | None = None) -> None:
    """tapers raises TF's class, naming the dtype and TF's op, where TF raises."""
    with pytest.raises(getattr(tf.errors, want["error"])) as info:
        fn()
    message = str(info.value)
    if dtype is not None:
        assert dtype in message or dtype.upper() in message, f"{message!r} vs TF {want['message']!r}"
    node = re.search(r"\{\{node (\w+)\}\}|\[Op:(\w+)\]", want["message"])
    if node:
        assert f"[Op:{node[1] or node[2]}]" in message, f"{message!r} vs TF {want['message']!r}"


# 1. Complex inputs ------------------------------------------------------------------------


COMPLEX = [(name, d) for name in sorted(REF["complex"]) for d in ("complex64", "complex128")]


@pytest.mark.parametrize("name, dtype", COMPLEX)
def test_complex_values_and_gradients(name, dtype):
    case = REF["complex"][name][dtype]
    xs = [
        tf.constant(np.array(decode(re_)) + 1j * np.array(decode(im)), dtype=getattr(tf, dtype))
        for re_, im in case["at"]
    ]
    up = tf.constant(np.array([1 - 0.5j, 0.25 + 2j, -1 + 1j, 0.5 + 0j, 2 - 1j, -0.5 - 0.5j]), dtype=getattr(tf, dtype))
    fn = getattr(tf.math, name)
    out = fn(*xs)
    assert out.dtype.name == case["value"]["dtype"] == dtype
    assert_same(out.numpy(), want_array(case["value"]), RTOL[dtype], f"{name} {dtype}")
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = fn(*xs)
    grads = tape.gradient(y, xs, output_gradients=up)
    for k, (g, w) in enumerate(zip(grads, case["grads"]["values"])):
        assert (g is None) == (w is None), f"{name} input {k}"
        if w is not None:
            assert g.dtype.name == dtype
            assert_same(g.numpy(), want_array(w), 10 * RTOL[dtype], f"{name} {dtype} gradient {k}")


@pytest.mark.parametrize("name", sorted(REF["complex_broadcast"]))
def test_complex_broadcast_gradients_reduce_to_input_shapes(name):
    case = REF["complex_broadcast"][name]
    x = tf.constant(np.array([[complex(*c) for c in r] for r in case["x"]]))
    y = tf.constant(np.array([[complex(*c) for c in r] for r in case["y"]]))
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        out = getattr(tf.math, name)(x, y)
    gx, gy = tape.gradient(out, [x, y])
    assert gx.shape == x.shape and gy.shape == y.shape
    assert_same(gx.numpy(), want_array(case["grads"]["values"][0]), 1e-12, f"{name} gx")
    assert_same(gy.numpy(), want_array(case["grads"]["values"][1]), 1e-12, f"{name} gy")


def test_complex_squared_difference_is_real_valued_and_dtype_mismatch_refused():
    x = tf.constant([1 + 2j, -3j])
    out = tf.math.squared_difference(x, tf.constant([0j, 1 + 0j]))
    np.testing.assert_array_equal(out.numpy(), [5 + 0j, 10 + 0j])
    with pytest.raises(tf.errors.InvalidArgumentError, match="complex64|complex128"):
        tf.math.xlogy(tf.constant([1 + 0j], tf.complex64), tf.constant([1 + 0j], tf.complex128))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.multiply_no_nan(tf.constant([1 + 0j]), tf.constant([1.0], tf.float64))


@pytest.mark.parametrize(
    "name", ["divide_no_nan", "multiply_no_nan", "xlogy", "xlog1py", "xdivy", "squared_difference"]
)
def test_complex_gradients_match_finite_differences(name):
    """The complex gradients are the conjugate-free / conjugated rules TF writes; on the real axis
    (imaginary parts 0) they reduce to the real derivative, which finite differences check."""
    rng = np.random.default_rng(5)
    x, y = rng.uniform(0.5, 2.0, size=(2, 3)), rng.uniform(0.5, 2.0, size=(2, 3))
    fn = getattr(tf.math, name)
    cx, cy = tf.constant(x.astype(np.complex128)), tf.constant(y.astype(np.complex128))
    with tf.GradientTape() as tape:
        tape.watch([cx, cy])
        out = fn(cx, cy)
    gx, gy = tape.gradient(out, [cx, cy])
    rx, ry = check_gradients(lambda a, b: fn(a, b), x, y, rtol=1e-6, atol=1e-8)
    # check_gradients weighs the output by fixed random w: compare the unweighted gradients of
    # the real op instead (the same rule on the real axis).
    xr, yr = tf.constant(x), tf.constant(y)
    with tf.GradientTape() as tape:
        tape.watch([xr, yr])
        out_r = fn(xr, yr)
    want = tape.gradient(out_r, [xr, yr])
    assert rx.shape == ry.shape == (2, 3)
    np.testing.assert_allclose(gx.numpy().real, want[0].numpy(), rtol=1e-12)
    np.testing.assert_allclose(gy.numpy().real, want[1].numpy(), rtol=1e-12)
    np.testing.assert_allclose(gx.numpy().imag, 0.0, atol=1e-15)


# 2. Max pooling on every dtype ------------------------------------------------------------

POOLS: dict[str, Callable[[tf.Tensor], tf.Tensor]] = {
    "max_pool2d_valid": lambda x: tf.nn.max_pool2d(x, 2, 1, "VALID"),
    "max_pool2d_same": lambda x: tf.nn.max_pool2d(x, [2, 3], [2, 2], "SAME"),
    "max_pool": lambda x: tf.nn.max_pool(x, 3, 2, "SAME"),
    "max_pool1d": lambda x: tf.nn.max_pool1d(tf.reshape(x, [1, 20, 1]), 3, 2, "VALID"),
}


def pool_input(dtype: str) -> tf.Tensor:
    inp = REF["max_pool"]["input"]
    base = np.array(inp["unsigned" if dtype.startswith("uint") or dtype == "bool" else "signed"]).reshape(1, 4, 5, 1)
    if dtype == "bool":
        return tf.constant(base > 5)
    return tf.cast(tf.constant(base), getattr(tf, dtype))


@pytest.mark.parametrize("pool", sorted(POOLS))
@pytest.mark.parametrize("dtype", sorted(REF["max_pool"]["values"]["max_pool"]))
def test_max_pool_on_every_dtype(pool, dtype):
    want = REF["max_pool"]["values"][pool][dtype]
    if "error" in want:
        expect_error(want, lambda: POOLS[pool](pool_input(dtype)), dtype)
        return
    out = POOLS[pool](pool_input(dtype))
    assert out.dtype.name == want["dtype"] == dtype
    np.testing.assert_array_equal(out.numpy().astype(np.float64).ravel(), want_array(want))


@pytest.mark.parametrize("dtype", sorted(REF["max_pool"]["int_gradients"]))
def test_max_pool_of_integers_has_no_gradient(dtype):
    assert REF["max_pool"]["int_gradients"][dtype] == {"values": [None]}
    x = pool_input(dtype)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.max_pool2d(x, 2, 1, "VALID")
    assert tape.gradient(y, x) is None


def test_max_pool_of_narrow_integers_keeps_extremes_and_shapes():
    x = tf.constant(np.array([[-128, 127], [-1, 0]], np.int8).reshape(1, 2, 2, 1))
    assert tf.nn.max_pool2d(x, 2, 2, "VALID").numpy().ravel().tolist() == [127]
    y = tf.constant(np.full((2, 3, 5, 2), 65535, np.uint16))
    out = tf.nn.max_pool2d(y, 2, 2, "SAME")
    assert out.shape == (2, 2, 3, 2) and out.dtype == tf.uint16 and int(out.numpy().min()) == 65535
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.nn.max_pool2d(tf.constant(np.zeros((1, 2, 2), np.int8)), 2, 2, "VALID")


# 3. igamma / igammac ----------------------------------------------------------------------

IGAMMA = sorted(REF["igamma"])


def first_derivatives(fn: Callable, a: Any, x: Any) -> list[Any]:
    a, x = tf.constant(np.array(a, np.float64)), tf.constant(np.array(x, np.float64))
    with tf.GradientTape() as tape:
        tape.watch([a, x])
        y = fn(a, x)
    return tape.gradient(y, [a, x])


@pytest.mark.parametrize("name", IGAMMA)
def test_igamma_published_and_values(name):
    ref = REF["igamma"][name]
    assert {m for m, mod in (("tf", tf), ("math", tf.math), ("nn", tf.nn)) if hasattr(mod, name)} == set(ref["modules"])
    fn = getattr(tf.math, name)
    for dtype in ("float32", "float64"):
        out = fn(*[tf.constant(np.array(decode(v), dtype=dtype)) for v in ref["at"]])
        assert out.dtype.name == ref[dtype]["dtype"] == dtype
        # TF's float32 kernel runs the continued fraction in float32 (1.5e-5 off at a=200, x=180;
        # tapers computes in float64 and rounds once).
        assert_same(out.numpy(), want_array(ref[dtype]), 2e-5 if dtype == "float32" else 1e-12, f"{name} {dtype}")


@pytest.mark.parametrize("name", IGAMMA)
def test_igamma_derivatives(name):
    ref = REF["igamma"][name]
    fn = getattr(tf.math, name)
    a, x = ref["grad_at"]
    for g, w in zip(first_derivatives(fn, a, x), ref["first"]["values"]):
        assert g.dtype == tf.float64
        assert_same(g.numpy(), want_array(w), 1e-10, f"{name} first derivative")
    # Second derivatives through the x-gradient (written with public ops, as TF's).
    at, xt = tf.constant(np.array(a)), tf.constant(np.array(x))
    with tf.GradientTape() as outer:
        outer.watch([at, xt])
        with tf.GradientTape() as tape:
            tape.watch([at, xt])
            y = fn(at, xt)
        gx = tape.gradient(y, xt)
    for g, w in zip(outer.gradient(gx, [at, xt]), ref["second_x"]["values"]):
        assert_same(g.numpy(), want_array(w), 1e-10, f"{name} second derivative through x")
    # TF has no gradient of IgammaGradA (LookupError); tapers' is None.
    assert ref["second_a"]["error"] == "LookupError"
    with tf.GradientTape() as outer:
        outer.watch([at, xt])
        with tf.GradientTape() as tape:
            tape.watch([at, xt])
            y = fn(at, xt)
        ga = tape.gradient(y, at)
    assert outer.gradient(ga, [at, xt]) == [None, None]
    gs = first_derivatives(fn, [[0.5], [2.0]], [0.3, 1.5, 4.0])
    assert gs[0].shape == (2, 1) and gs[1].shape == (3,)
    for g, w in zip(gs, ref["broadcast"]["values"]):
        assert_same(g.numpy(), want_array(w), 1e-10, f"{name} broadcast gradient")


@pytest.mark.parametrize("name", IGAMMA)
def test_igamma_finite_differences(name):
    fn = getattr(tf.math, name)
    rng = np.random.default_rng(11)
    # Both branches: the series (x < a or x < 1) and the continued fraction (x > a, x > 1).
    a = np.array([[0.7, 2.5, 6.0], [1.3, 3.0, 0.4]])
    x = np.array([[0.3, 5.0, 2.0], [2.5, 1.2, 3.5]]) + rng.uniform(0, 0.05, size=(2, 3))
    check_gradients(fn, a, x, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", IGAMMA)
def test_igamma_dtypes_and_errors(name):
    ref = REF["igamma"][name]
    fn = getattr(tf.math, name)
    for dtype, want in ref["dtypes"].items():
        if want.get("error") == "TypeError":  # TF cannot even make the constant (bool)
            continue
        args = [tf.constant(np.array([1, 2]), dtype=getattr(tf, dtype))] * 2
        if "error" in want:
            expect_error(want, lambda args=args: fn(*args), dtype)
        else:
            assert fn(*args).dtype.name == want["dtype"]
    assert ref["mismatch"]["error"] == "InvalidArgumentError"
    with pytest.raises(tf.errors.InvalidArgumentError, match="float|double"):
        fn(tf.constant([1.0]), tf.constant([1.0], tf.float64))
    assert ref["shapes"]["error"] == "InvalidArgumentError"
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes|shapes"):
        fn(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0]))


def test_igamma_and_igammac_are_complementary():
    a = np.array([0.3, 1.0, 4.0, 25.0, 120.0])
    x = np.array([0.2, 3.0, 2.0, 30.0, 100.0])
    p, q = tf.math.igamma(a, x).numpy(), tf.math.igammac(a, x).numpy()
    np.testing.assert_allclose(p + q, 1.0, rtol=1e-13)


# 4. tf.math.special -----------------------------------------------------------------------

SPECIAL = REF["special"]["functions"]


def test_special_module_is_tensorflows():
    names = sorted(n for n in dir(tf.math.special) if not n.startswith("_") and callable(getattr(tf.math.special, n)))
    assert names == REF["special"]["names"]
    assert sorted(tf.math.special.__all__) == REF["special"]["names"]
    for name, case in SPECIAL.items():
        in_math = hasattr(tf.math, name) and getattr(tf.math, name) is tf.math.special.__dict__[name]
        assert in_math == case["in_math"], name
    import importlib

    from tapers import _core

    assert importlib.import_module("tapers.math.special") is tf.math.special
    assert importlib.import_module("tapers._core.special") is _core.special
    assert all(getattr(tf.math.special, n) is getattr(_core.special, n) for n in _core.special.__all__)
    assert set(_core.special.__all__) == set(tf.math.special.__all__)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_values_on_edges(name, dtype):
    case = SPECIAL[name]
    out = getattr(tf.math.special, name)(tf.constant(np.array(decode(case["at"]), dtype=dtype)))
    assert out.dtype.name == case[dtype]["dtype"] == dtype
    # float32: TF runs Cephes' single-precision versions, tapers the double ones rounded once
    # (near a root, as bessel_j1(7), only an absolute tolerance holds).
    rtol, atol = (3e-6, 1e-7) if dtype == "float32" else (1e-13, 1e-300)
    assert_same(out.numpy(), want_array(case[dtype]), rtol, f"{name} {dtype}", atol=atol)


def special_derivatives(fn: Callable, pts: list[float]) -> tuple[Any, Any]:
    x = tf.constant(np.array(pts, np.float64))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        g = tape.gradient(y, x)
    return g, outer.gradient(g, x)


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_first_and_second_derivatives(name):
    case = SPECIAL[name]
    first, second = special_derivatives(getattr(tf.math.special, name), case["grad_at"])
    assert first.dtype == tf.float64
    assert_same(first.numpy(), want_array(case["first"]["values"][0]), 1e-12, f"{name} first derivative")
    assert_same(second.numpy(), want_array(case["second"]["values"][0]), 1e-11, f"{name} second derivative")


SPECIAL_DOMAINS = {
    "bessel_j0": (-6.0, 6.0), "bessel_j1": (-6.0, 6.0), "bessel_y0": (0.2, 6.0), "bessel_y1": (0.2, 6.0),
    "bessel_k0": (0.2, 6.0), "bessel_k0e": (0.2, 6.0), "bessel_k1": (0.2, 6.0), "bessel_k1e": (0.2, 6.0),
    "dawsn": (-5.0, 5.0), "expint": (0.2, 6.0), "fresnel_cos": (-3.0, 3.0), "fresnel_sin": (-3.0, 3.0),
    "spence": (0.1, 4.0),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(SPECIAL_DOMAINS))
def test_special_finite_differences(name):
    x = np.random.default_rng(13).uniform(*SPECIAL_DOMAINS[name], size=(2, 3))
    check_gradients(getattr(tf.math.special, name), x, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_dtypes(name):
    fn = getattr(tf.math.special, name)
    for dtype, want in SPECIAL[name]["dtypes"].items():
        if want.get("error") == "TypeError":  # TF cannot make the constant (bool)
            continue
        arg = tf.constant(np.array([1, 2]), dtype=getattr(tf, dtype))
        if "error" in want:
            expect_error(want, lambda arg=arg: fn(arg), dtype)
        else:
            out = fn(arg)
            assert out.dtype.name == want["dtype"]
            assert_same(out.numpy().astype(np.float64), want_array(want), 4e-3, f"{name} {dtype}")


def test_special_shapes_are_kept():
    x = tf.constant(np.full((2, 0, 3), 1.0))
    assert tf.math.special.dawsn(x).shape == (2, 0, 3)
    assert tf.math.special.bessel_k1(tf.constant(2.0)).shape == ()


# 5. Parameter names -----------------------------------------------------------------------


@pytest.mark.parametrize("module", ["math", "nn", "special"])
def test_parameter_names_are_tensorflows(module):
    """Every function tapers publishes under a name TF publishes in the module takes TF's
    parameter names, in TF's order."""
    ours = tf.math.special if module == "special" else getattr(tf, module)
    checked, differ = 0, []
    for name, params in sorted(REF["signatures"][module].items()):
        fn = getattr(ours, name, None)
        if fn is None or not callable(fn) or inspect.isclass(fn):
            continue
        checked += 1
        got = list(inspect.signature(fn).parameters)
        if got != params:
            differ.append(f"{name}: tapers {got}, TF {params}")
    assert checked > (10 if module == "special" else 40)
    assert differ == []


def test_activations_take_features_by_keyword():
    x = tf.constant([-1.0, 2.0])
    for fn in (tf.nn.softsign, tf.math.softsign, tf.nn.softplus, tf.nn.relu, tf.nn.relu6, tf.nn.elu, tf.nn.selu):
        np.testing.assert_array_equal(fn(features=x).numpy(), fn(x).numpy())
    assert tf.nn.crelu(x, 0).shape == (4,)
    count, m_ss, v_ss, shift = tf.nn.sufficient_statistics(tf.ones([2, 3]), [1], None, True)
    assert m_ss.shape == (2, 1) and shift is None
