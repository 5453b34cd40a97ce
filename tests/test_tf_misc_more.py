"""tf.errors codes and classes, tf.config device/optimizer switches, tf.random's gamma/poisson/
binomial/truncated-normal samplers and tf.debugging's check-numerics, compared with TensorFlow 2.21.

The fixture tests/data/tf_misc_more_reference.json is written by
tests/data/make_tf_misc_more_reference.py. tapers draws from its own streams (PCG64), so random
values are compared through their distribution (sample moments against the exact moments and
TensorFlow's, within a few standard errors), shapes, dtypes and seed determinism; values that
involve no randomness (``create_rng_state``) are compared exactly.
"""

from __future__ import annotations

import json
import math
import pathlib

import numpy as np
import pytest

import tapers as tf


@pytest.fixture(autouse=True)
def _clear_random_state():
    yield
    tf.random.set_seed(None)
    tf.random._global_generator = None  # undo set_global_generator


REF = json.loads((pathlib.Path(__file__).parent / "data" / "tf_misc_more_reference.json").read_text())
N = 40000


# ---------------------------------------------------------------------------------------------- errors


def test_error_codes_match_tensorflow():
    for name, code in REF["errors"]["codes"].items():
        assert getattr(tf.errors, name) == code, name
        assert name in tf.errors.__all__


@pytest.mark.parametrize("name", sorted(REF["errors"]["classes"]))
def test_new_error_classes(name):
    ref = REF["errors"]["classes"][name]
    cls = getattr(tf.errors, name)
    e = cls(None, None, "boom")
    assert isinstance(e, tf.errors.OpError) is ref["is_op_error"]
    assert e.error_code == ref["error_code"] == cls.error_code
    assert str(e) == ref["str"] and e.message == ref["message"]
    with pytest.raises(tf.errors.OpError):
        raise cls(None, None, "x")


def test_error_classes_also_subclass_fitting_builtins():
    assert issubclass(tf.errors.PermissionDeniedError, PermissionError)
    assert issubclass(tf.errors.UnauthenticatedError, PermissionError)
    assert issubclass(tf.errors.AlreadyExistsError, FileExistsError)
    assert issubclass(tf.errors.DeadlineExceededError, TimeoutError)
    assert issubclass(tf.errors.UnavailableError, ConnectionError)
    assert issubclass(tf.errors.AbortedError, RuntimeError)
    assert str(tf.errors.AlreadyExistsError("only a message")) == "only a message"


def test_operator_not_allowed_in_graph_error():
    ref = REF["errors"]["onaig"]
    cls = tf.errors.OperatorNotAllowedInGraphError
    assert issubclass(cls, TypeError) is ref["is_type_error"]
    assert issubclass(cls, tf.errors.OpError) is ref["is_op_error"]
    assert str(cls("no iterating")) == ref["str"]


# ---------------------------------------------------------------------------------------------- config


def test_visible_devices():
    ref = REF["config"]
    cpu = tf.config.list_physical_devices("CPU")
    assert [list(d) for d in tf.config.get_visible_devices()] == ref["visible_default"]
    assert tf.config.get_visible_devices("GPU") == ref["visible_gpu"] == []
    tf.config.set_visible_devices(cpu, "CPU")
    tf.config.set_visible_devices([], "GPU")
    tf.config.set_visible_devices(cpu[0])
    assert [list(d) for d in tf.config.get_visible_devices()] == ref["visible_after"]
    with pytest.raises(ValueError, match=ref["bad_device_error"]):
        tf.config.set_visible_devices(["x"])


def test_hiding_the_cpu_is_refused():
    with pytest.raises(ValueError, match="cannot hide its only device"):
        tf.config.set_visible_devices([], "CPU")
    with pytest.raises(ValueError, match="cannot hide"):
        tf.config.set_visible_devices([])
    assert len(tf.config.get_visible_devices("CPU")) == 1


def test_logical_device_configuration():
    ref = REF["config"]
    cpu = tf.config.list_physical_devices("CPU")[0]
    assert list(tf.config.LogicalDeviceConfiguration._fields) == ref["ldc_fields"]
    assert repr(tf.config.LogicalDeviceConfiguration()) == ref["ldc_repr"]
    with pytest.raises(ValueError, match=ref["memory_limit_error"]):
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration(memory_limit=100)])
    with pytest.raises(ValueError, match="exactly one logical CPU"):
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    with pytest.raises(ValueError, match="Unrecognized device"):
        tf.config.get_logical_device_configuration("x")
    with pytest.raises(ValueError, match="LogicalDeviceConfiguration"):
        tf.config.set_logical_device_configuration(cpu, [{"memory_limit": None}])
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()])
    assert [list(c) for c in tf.config.get_logical_device_configuration(cpu)] == ref["logical_after"]


def test_soft_placement_and_optimizer_switches():
    ref = REF["config"]
    assert tf.config.get_soft_device_placement() is ref["soft_default"]
    tf.config.set_soft_device_placement(False)
    assert tf.config.get_soft_device_placement() is ref["soft_after"]
    tf.config.set_soft_device_placement(True)
    opt = tf.config.optimizer
    assert opt.get_experimental_options() == ref["opt_default"]
    opt.set_experimental_options({"layout_optimizer": False, "constant_folding": True})
    assert opt.get_experimental_options() == ref["opt_after"]
    with pytest.raises(TypeError, match="dict"):
        opt.set_experimental_options([("a", 1)])
    assert opt.get_jit() == ref["jit"]["default"]
    for v in (True, "autoclustering", False):
        opt.set_jit(v)
        assert opt.get_jit() == ref["jit"][repr(v)]


def test_experimental_run_functions_eagerly_aliases():
    ref = REF["config"]
    assert tf.config.experimental_functions_run_eagerly() is ref["functions_eagerly_default"]
    calls = []

    @tf.function
    def f(x):
        calls.append(1)
        return x * 2.0

    try:
        tf.config.experimental_run_functions_eagerly(True)
        assert tf.config.functions_run_eagerly() is ref["functions_eagerly_after"]
        f(tf.constant(1.0))
        f(tf.constant(1.0))
        assert len(calls) == 2  # eager: the Python body runs at every call
    finally:
        tf.config.experimental_run_functions_eagerly(False)
    assert tf.config.experimental_functions_run_eagerly() is False


# ---------------------------------------------------------------------------------------------- random


def _check_moments(x, mean, var, ref_moments, rel_var=0.08):
    x = np.asarray(x, dtype=np.float64)
    m, v = x.mean(axis=0), x.var(axis=0)
    mean, var = np.asarray(mean, np.float64), np.asarray(var, np.float64)
    se = np.sqrt(var / x.shape[0]) + 1e-12
    np.testing.assert_array_less(np.abs(m - mean), 5 * se + 1e-9)
    np.testing.assert_allclose(v, var, rtol=rel_var, atol=1e-9)
    # TensorFlow's own sample moments lie within the same tolerance of tapers'.
    np.testing.assert_array_less(np.abs(m - np.asarray(ref_moments[0])), 8 * se + 1e-9)
    np.testing.assert_allclose(v, ref_moments[1], rtol=2 * rel_var, atol=1e-9)


def test_signatures_match_tensorflow():
    import inspect

    for name, params in REF["random"]["signatures"].items():
        got = list(inspect.signature(getattr(tf.random, name)).parameters.values())
        assert [p.name for p in got] == [p[0] for p in params], name
        for p, (_, default) in zip(got, params):
            assert (p.default is inspect.Parameter.empty) == (default is None), (name, p.name)


def test_algorithm_and_create_rng_state_exact():
    assert {a.name: a.value for a in tf.random.Algorithm} == REF["random"]["algorithm"]
    for seed, alg, want in REF["random"]["rng_state"]:
        got = tf.random.create_rng_state(seed, alg)
        assert got.dtype == tf.int64
        assert got.numpy().tolist() == want, (seed, alg)
    assert tf.random.create_rng_state(5, tf.random.Algorithm.THREEFRY).numpy().tolist() == [5, 0]
    with pytest.raises(ValueError, match="Unsupported random algorithm"):
        tf.random.create_rng_state(1, "mersenne")


def test_gamma_distribution_shape_dtype():
    tf.random.set_seed(1234)  # a fresh stream, whatever ran before
    ref = REF["random"]["gamma"]
    g = tf.random.gamma([N], [0.3, 1.0, 5.0], [1.0, 2.0, 0.5], seed=3)
    assert list(g.shape) == ref["shape"] and g.dtype.name == ref["dtype"]
    alpha, beta = np.array([0.3, 1.0, 5.0]), np.array([1.0, 2.0, 0.5])
    _check_moments(g, alpha / beta, alpha / beta**2, ref["moments"], rel_var=0.12)
    assert float(np.min(np.asarray(g))) > 0
    g64 = tf.random.gamma([2, 3], 2.0, dtype=tf.float64, seed=1)
    assert list(g64.shape) == REF["random"]["gamma64"]["shape"] and g64.dtype.name == REF["random"]["gamma64"]["dtype"]


def test_gamma_gradients_match_tensorflow():
    tf.random.set_seed(1234)  # a fresh stream, whatever ran before
    a = tf.Variable([0.5, 3.0])
    with tf.GradientTape() as tape:
        m = tf.reduce_mean(tf.random.gamma([N], a, seed=2), axis=0)
    # d E[x] / d alpha = 1 for beta = 1; TensorFlow's implicit-reparameterization estimate agrees.
    np.testing.assert_allclose(tape.gradient(m, a).numpy(), REF["random"]["gamma_grad_alpha"], atol=0.04)
    b = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        m = tf.reduce_mean(tf.random.gamma([N], 3.0, b, seed=2))
    np.testing.assert_allclose(float(tape.gradient(m, b)), REF["random"]["gamma_grad_beta"], rtol=0.03)


def test_stateless_gamma():
    ref = REF["random"]["stateless_gamma"]
    g = tf.random.stateless_gamma([N, 2], [1, 2], [1.5, 4.0], [1.0, 4.0])
    assert list(g.shape) == ref["shape"] and g.dtype.name == ref["dtype"]
    _check_moments(g, [1.5, 1.0], [1.5, 0.25], ref["moments"])
    same = np.array_equal(tf.random.stateless_gamma([5], [3, 4], 2.0), tf.random.stateless_gamma([5], [3, 4], 2.0))
    assert same is REF["random"]["stateless_gamma_repeat"]
    assert not np.array_equal(tf.random.stateless_gamma([5], [3, 4], 2.0), tf.random.stateless_gamma([5], [3, 5], 2.0))
    with pytest.raises(tf.errors.InvalidArgumentError, match="must end with broadcasted shape"):
        tf.random.stateless_gamma([4, 3], [1, 2], [1.0, 2.0])


def test_seeded_draws_repeat_under_set_seed():
    tf.random.set_seed(7)
    a = [tf.random.gamma([4], 2.0, seed=1), tf.random.poisson([4], 3.0, seed=1)]
    tf.random.set_seed(7)
    b = [tf.random.gamma([4], 2.0, seed=1), tf.random.poisson([4], 3.0, seed=1)]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    tf.random.set_seed(None)


def test_poisson():
    tf.random.set_seed(1234)  # a fresh stream, whatever ran before
    ref = REF["random"]["poisson"]
    lam = np.array([0.0, 0.7, 30.0, 1000.0])
    p = tf.random.poisson([N], lam, seed=1)
    assert list(p.shape) == ref["shape"] and p.dtype.name == ref["dtype"]
    _check_moments(p, lam, lam, ref["moments"])
    x = np.asarray(p)
    assert np.all(x == np.round(x)) and np.all(x[:, 0] == 0)
    pi = tf.random.poisson([3], 2.0, dtype=tf.int64, seed=1)
    assert list(pi.shape) == REF["random"]["poisson_int"]["shape"] and pi.dtype.name == "int64"
    assert np.isnan(np.asarray(tf.random.poisson([2], -1.0, seed=1))).all()
    with pytest.raises(TypeError, match="dtype must be one of"):
        tf.random.poisson([2], 1.0, dtype=tf.bool)


def test_poisson_large_rates_and_the_method_boundary():
    # Below a rate of 10 the CDF is inverted; from 10 on PTRS rejection runs: both sides match the moments.
    lam = np.array([9.99, 10.0, 1e6, 1e9])
    x = np.asarray(tf.random.stateless_poisson([20000, 4], [5, 6], lam, dtype=tf.float64))
    se = np.sqrt(lam / x.shape[0])
    np.testing.assert_array_less(np.abs(x.mean(axis=0) - lam), 5 * se)
    np.testing.assert_allclose(x.var(axis=0), lam, rtol=0.08)
    assert np.all(x == np.round(x)) and x.min() >= 0


def test_stateless_poisson_and_binomial():
    ref = REF["random"]["stateless_poisson"]
    p = tf.random.stateless_poisson([N, 2], [1, 2], [3.0, 50.0])
    assert list(p.shape) == ref["shape"] and p.dtype.name == ref["dtype"]
    _check_moments(p, [3.0, 50.0], [3.0, 50.0], ref["moments"])
    ref = REF["random"]["stateless_binomial"]
    n, q = np.array([10.0, 100.0, 5.0]), np.array([0.3, 0.9, 0.0])
    b = tf.random.stateless_binomial([N, 3], [1, 2], n, q)
    assert list(b.shape) == ref["shape"] and b.dtype.name == ref["dtype"]
    x = np.asarray(b)
    assert np.all(x[:, 2] == 0) and x[:, 0].max() <= 10 and x.min() >= 0
    _check_moments(x[:, :2], n[:2] * q[:2], n[:2] * q[:2] * (1 - q[:2]), [m[:2] for m in ref["moments"]])
    assert tf.random.stateless_binomial([4], [1, 2], 5.0, 1.0).numpy().tolist() == REF["random"]["binomial_p1"]
    f = tf.random.stateless_binomial([3], [1, 2], 5.0, 0.5, output_dtype=tf.float64)
    assert f.dtype.name == REF["random"]["binomial_float_dtype"]
    np.testing.assert_array_equal(
        tf.random.stateless_binomial([6], [9, 9], 20.0, 0.5), tf.random.stateless_binomial([6], [9, 9], 20.0, 0.5)
    )
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"counts of shape \[2\] does not broadcast"):
        tf.random.stateless_binomial([3], [1, 2], [5.0, 6.0], 0.5)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"lam of shape \[3\]"):
        tf.random.stateless_poisson([2], [1, 2], [1.0, 2.0, 3.0])


def _tn_moments(mu, sigma, lo, hi):
    a, b = (lo - mu) / sigma, (hi - mu) / sigma
    phi = lambda t: math.exp(-t * t / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda t: 0.5 * math.erfc(-t / math.sqrt(2))  # noqa: E731
    z = cdf(b) - cdf(a)
    mean = mu + sigma * (phi(a) - phi(b)) / z
    var = sigma**2 * (1 + (a * phi(a) - b * phi(b)) / z - ((phi(a) - phi(b)) / z) ** 2)
    return mean, var


def test_stateless_parameterized_truncated_normal():
    ref = REF["random"]["ptn"]
    t = tf.random.stateless_parameterized_truncated_normal([N], [3, 4], 0.0, 1.0, -1.0, 2.0)
    assert list(t.shape) == ref["shape"] and t.dtype.name == ref["dtype"]
    x = np.asarray(t)
    assert x.min() >= -1.0 and x.max() <= 2.0
    _check_moments(x, *_tn_moments(0.0, 1.0, -1.0, 2.0), ref["moments"])
    tail = np.asarray(tf.random.stateless_parameterized_truncated_normal([N], [3, 4], 0.0, 1.0, 5.0, 6.0))
    assert tail.min() >= 5.0 and tail.max() <= 6.0
    assert abs(tail.mean() - REF["random"]["ptn_tail"]["mean"]) < 0.01
    means = tf.constant([1.0, -3.0], tf.float64)
    p = tf.random.stateless_parameterized_truncated_normal([N, 2], [3, 4], means, [2.0, 0.5], [0.0, -4.0], [3.0, -2.5])
    assert p.dtype.name == REF["random"]["ptn_params"]["dtype"]
    m0, v0 = _tn_moments(1.0, 2.0, 0.0, 3.0)
    m1, v1 = _tn_moments(-3.0, 0.5, -4.0, -2.5)
    _check_moments(p, [m0, m1], [v0, v1], REF["random"]["ptn_params"]["moments"])
    mu = tf.Variable([0.5, 0.5])
    with tf.GradientTape() as tape:
        s = tf.reduce_sum(tf.random.stateless_parameterized_truncated_normal([3, 2], [1, 1], mu, 1.0, -9.0, 9.0))
    np.testing.assert_allclose(tape.gradient(s, mu), [3.0, 3.0])


def test_random_ops_in_function_and_bad_inputs():
    @tf.function
    def f(a):
        return (
            tf.random.stateless_gamma([3, 2], [1, 2], a),
            tf.random.stateless_poisson([3], [1, 2], a[0]),
            tf.random.stateless_binomial([2], [1, 2], 5.0, 0.5),
        )

    out = f(tf.constant([1.0, 2.0]))
    np.testing.assert_array_equal(out[0], tf.random.stateless_gamma([3, 2], [1, 2], [1.0, 2.0]))
    np.testing.assert_array_equal(out[1], tf.random.stateless_poisson([3], [1, 2], 1.0))
    with pytest.raises(TypeError, match="int32 is not in the list of allowed values"):
        tf.random.gamma([2], 1.0, dtype=tf.int32)
    with pytest.raises(ValueError, match=r"seed must have shape \[2\]"):
        tf.random.stateless_gamma([2], [1, 2, 3], 1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="dtype float64, expected float32"):
        tf.random.gamma([2], tf.constant(1.0, tf.float64))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes for alpha and beta"):
        tf.random.gamma([2], [1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
        tf.random.gamma([-1], 1.0)
    assert tf.random.gamma([0], [1.0, 2.0]).shape == (0, 2)


def test_global_generator_and_experimental():
    g = tf.random.Generator.from_seed(5)
    with pytest.raises(TypeError, match="Generator"):
        tf.random.set_global_generator("not a generator")
    tf.random.set_global_generator(g)
    assert tf.random.get_global_generator() is g
    assert tf.random.experimental.get_global_generator() is g
    ex = tf.random.experimental
    assert ex.Algorithm is tf.random.Algorithm and ex.create_rng_state is tf.random.create_rng_state
    x = tf.reshape(tf.range(10), [5, 2])
    s1, s2 = ex.stateless_shuffle(x, [1, 2]), ex.stateless_shuffle(x, [1, 2])
    np.testing.assert_array_equal(s1, s2)
    assert sorted(np.asarray(s1)[:, 0].tolist()) == [0, 2, 4, 6, 8]
    np.testing.assert_array_equal(ex.stateless_split([1, 2]), tf.random.split([1, 2]))
    np.testing.assert_array_equal(ex.stateless_fold_in([1, 2], 3), tf.random.fold_in([1, 2], 3))


# ---------------------------------------------------------------------------------------------- debugging


def _numerics_error(fn):
    try:
        fn()
    except tf.errors.InvalidArgumentError as e:
        msg = str(e)
        return {
            "detected": "Detected Infinity or NaN" in msg,
            "counts": [ln.strip() for ln in msg.splitlines() if ln.strip().startswith("# of")],
            "tail": msg.split(" : ")[-1],
            "msg": msg,
        }
    return None


def test_enable_check_numerics_matches_tensorflow():
    ref = REF["debugging"]["check_numerics"]
    x = tf.constant([1.0, 0.0])
    cases = {
        "log": (lambda: tf.math.log(x), "log"),
        "div": (lambda: x / 0.0, "truediv"),
        "exp": (lambda: tf.exp(tf.constant(1000.0)), "exp"),
        "const_nan": (lambda: tf.constant([float("nan")]), ""),
        "finite": (lambda: tf.math.log(x + 1.0), ""),
        "int_div": (lambda: tf.constant([4, 2]) // 2, ""),
    }
    original = tf.math.log
    tf.debugging.enable_check_numerics()
    try:
        for key, (fn, op) in cases.items():
            got = _numerics_error(fn)
            if ref[key] is None:
                assert got is None, key
                continue
            assert got is not None and got["detected"], key
            assert got["counts"] == ref[key]["counts"], key
            assert got["tail"] == ref[key]["tail"], key
            assert f'eagerly-executing op "{op}"' in got["msg"]
    finally:
        tf.debugging.disable_check_numerics()
    assert tf.math.log is original
    np.testing.assert_array_equal(tf.math.log(x), REF["debugging"]["after_disable"])


def test_check_numerics_covers_variables_nn_and_traces():
    tf.debugging.enable_check_numerics()
    try:
        v = tf.Variable([0.0, 1.0])
        got = _numerics_error(lambda: 1.0 / v)
        assert got and 'op "truediv"' in got["msg"] and "# of +Inf elements: 1" in got["msg"]
        got = _numerics_error(lambda: tf.nn.softplus(tf.constant([1e30])) * tf.constant([1e30]))
        assert got and 'op "mul"' in got["msg"]
        assert np.isfinite(tf.nn.softmax(tf.constant([1.0, 2.0]))).all()

        @tf.function
        def f(a):
            return tf.math.sqrt(a) + 1.0

        assert float(f(tf.constant(4.0))) == 3.0
        got = _numerics_error(lambda: f(tf.constant(-1.0)))
        assert got and 'graph op "sqrt"' in got["msg"] and got["tail"] == "Tensor had NaN values"
    finally:
        tf.debugging.disable_check_numerics()
    assert np.isnan(float(tf.math.sqrt(tf.constant(-1.0))))


def test_traceback_filtering_and_log_device_placement(capsys):
    ref = REF["debugging"]
    assert tf.debugging.is_traceback_filtering_enabled() is ref["tb_default"]
    tf.debugging.disable_traceback_filtering()
    assert tf.debugging.is_traceback_filtering_enabled() is ref["tb_after_disable"]
    tf.debugging.enable_traceback_filtering()
    assert tf.debugging.is_traceback_filtering_enabled() is True
    assert tf.debugging.get_log_device_placement() is ref["log_default"]
    tf.debugging.set_log_device_placement(True)
    try:
        assert tf.debugging.get_log_device_placement() is True
        tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]))
    finally:
        tf.debugging.set_log_device_placement(False)
    err = capsys.readouterr().err
    assert "Executing op matmul in device /job:localhost/replica:0/task:0/device:CPU:0" in err
    tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]))
    assert "Executing op" not in capsys.readouterr().err
