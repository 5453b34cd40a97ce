"""The small TensorFlow APIs training programs use: copy/pickle of tensors and variables, TensorSpec,
device, config, print, map_fn, vectorized_map, meshgrid and autodiff.ForwardAccumulator.

TensorFlow's own answers come from tests/data/data_reference.json (tests/data/make_data_reference.py);
gradients and jvps are also checked against finite differences in float64."""

from __future__ import annotations

import copy
import io
import pickle

import numpy as np
import pytest
from _tf_programs import PROGRAMS, check

import tapers as tf
from conftest import check_gradients, numeric_gradients
from tapers._spec import TensorSpec

SMALL_API = ("tensor_spec", "device", "err_device", "tf_print", "map_fn", "err_map_fn", "vectorized_map",
             "meshgrid", "err_meshgrid", "fwd_", "copy_pickle")  # fmt: skip
SMALL_PROGRAMS = sorted(n for n in PROGRAMS if n.startswith(SMALL_API))


def test_fixture_covers_small_api_programs() -> None:
    assert len(SMALL_PROGRAMS) >= 18
    assert {"fwd_jvp_of_gradient", "fwd_gradient_of_jvp", "copy_pickle", "tf_print"} <= set(SMALL_PROGRAMS)


@pytest.mark.parametrize("name", SMALL_PROGRAMS)
def test_tensorflow_program(name: str) -> None:
    check(name)


# ------------------------------------------------------------------ copy and pickle
@pytest.mark.parametrize(
    "value",
    [
        np.float32(1.5),
        np.arange(6.0).reshape(2, 3),
        np.array([1, -2], np.int32),
        np.array([[3]], np.int64),
        np.array([True, False]),
        np.zeros((0, 2), np.float32),
    ],
)
def test_tensor_pickle_round_trip(value: np.ndarray) -> None:  # fmt: skip
    t = tf.constant(value)
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(t, protocol=protocol))
        assert isinstance(back, tf.Tensor) and back.dtype == t.dtype and back.shape == t.shape
        np.testing.assert_array_equal(back.numpy(), t.numpy())
    assert copy.copy(t) is t and copy.deepcopy(t) is t


def test_variable_copy_deepcopy_and_pickle() -> None:
    v = tf.Variable([[1.0, 2.0]], name="kernel")
    assert copy.copy(v) is v
    d = copy.deepcopy(v)
    assert d is not v and d.name == "kernel:0" and d.trainable and d.dtype == tf.float32
    d.assign([[7.0, 8.0]])
    np.testing.assert_array_equal(v.numpy(), [[1.0, 2.0]])
    # A deep-copied variable is a variable like any other: tapes watch it, optimizers update it.
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(d * d)
    np.testing.assert_array_equal(tape.gradient(y, d).numpy(), [[14.0, 16.0]])
    assert tape.watched_variables() == (d,) or list(tape.watched_variables()) == [d]
    back = pickle.loads(pickle.dumps(tf.Variable(np.arange(3), trainable=False, name="steps")))
    assert back.name == "steps:0" and not back.trainable and back.dtype == tf.int64
    np.testing.assert_array_equal(back.numpy(), [0, 1, 2])
    # Shared references survive a deepcopy of a structure once.
    model = {"layers": [v, v], "bias": tf.constant(1.0)}
    c = copy.deepcopy(model)
    assert c["layers"][0] is c["layers"][1] and c["layers"][0] is not v and c["bias"] is model["bias"]


def test_matplotlib_plots_tensors() -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    x = tf.linspace(-1.0, 1.0, 20)
    y = tf.square(x)
    fig, ax = plt.subplots()
    (line,) = ax.plot(x, y, label="x^2")
    ax.scatter(x, tf.Variable(y))
    ax.hist(y)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    np.testing.assert_allclose(line.get_ydata(), y.numpy())
    assert buf.getvalue()[:4] == b"\x89PNG"


# ------------------------------------------------------------------ TensorSpec, device, config
def test_tensor_spec_hash_pickle_and_shapes() -> None:
    s = tf.TensorSpec((None, 3), "int32", name="ids")
    assert {s: 1}[tf.TensorSpec((None, 3), tf.int32, name="ids")] == 1
    assert pickle.loads(pickle.dumps(s)) == s and copy.deepcopy(s) == s
    assert s.shape[0] is None and s.shape[1:] == (3,) and s.shape.num_elements() is None
    assert isinstance(s.shape, tf.TensorShape)
    unknown = tf.TensorSpec(None)
    with pytest.raises(ValueError, match="unknown TensorShape"):
        unknown.shape.as_list()
    assert unknown.is_compatible_with(np.zeros((2, 2, 2), np.float32))
    assert not s.is_compatible_with(tf.TensorSpec((None, 3), tf.int64))
    assert TensorSpec is tf.TensorSpec
    with pytest.raises(TypeError):
        tf.TensorSpec((2,), dtype="string")


def test_device_accepts_names_and_rejects_garbage() -> None:
    with tf.device("/job:localhost/replica:0/task:0/device:CPU:0"):
        assert float(tf.constant(2.0) * 3) == 6.0
    with pytest.raises(ValueError, match="Multiple device types"):
        tf.device("/CPU:0/GPU:0").__enter__()
    with pytest.raises(ValueError):
        tf.device("CPU:x").__enter__()
    assert tf.config.list_physical_devices("cpu")[0].device_type == "CPU"
    assert tf.config.list_logical_devices("TPU") == []


# ------------------------------------------------------------------ print
def test_print_goes_to_stderr_by_default_and_to_files(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    tf.print("x", tf.constant([1.0, 2.5]))
    captured = capsys.readouterr()
    assert captured.err == "x [1 2.5]\n" and captured.out == ""
    path = tmp_path / "log.txt"
    tf.print(tf.constant(3), output_stream=f"file://{path}")
    tf.print(tf.constant([True]), output_stream=f"file://{path}", end="")
    assert path.read_text() == "3\n[1]"
    buf = io.StringIO()
    tf.print(tf.reshape(tf.range(12), (2, 6)), summarize=1, output_stream=buf)
    assert buf.getvalue() == "[[0 ... 5]\n [6 ... 11]]\n"
    logged = []
    tf.print("loss", tf.constant(0.25), output_stream=logged.append)
    assert logged == ["loss 0.25"]
    with pytest.raises(ValueError, match="output stream"):
        tf.print(1, output_stream="stdout-ish")


# ------------------------------------------------------------------ map_fn, vectorized_map, meshgrid
def test_map_fn_gradient_matches_finite_differences() -> None:
    check_gradients(lambda x: tf.map_fn(lambda r: tf.reduce_sum(tf.sin(r) * r), x), np.arange(6.0).reshape(3, 2))
    check_gradients(lambda x: tf.vectorized_map(lambda r: r * tf.exp(r), x), np.linspace(-1, 1, 4).reshape(2, 2))


def test_map_fn_structures_and_errors() -> None:
    a, b = tf.map_fn(lambda t: (t[1], t[0]), [tf.constant([1, 2]), tf.constant([3.0, 4.0])],
                     fn_output_signature=[tf.float32, tf.int32])  # fmt: skip
    np.testing.assert_array_equal(a.numpy(), [3.0, 4.0])
    assert b.dtype == tf.int32
    with pytest.raises(ValueError, match="same size along the first axis"):
        tf.map_fn(lambda t: t[0], (tf.zeros([2]), tf.zeros([3])))
    with pytest.raises(ValueError, match="same nested structure"):
        tf.map_fn(lambda x: (x, x), tf.zeros([2]))
    with pytest.raises(ValueError, match="at least one element"):
        tf.vectorized_map(lambda x: x, tf.zeros([0, 2]))


def test_meshgrid_gradient_matches_finite_differences() -> None:
    for indexing in ("xy", "ij"):
        check_gradients(lambda x, y, i=indexing: tf.stack(tf.meshgrid(x, y, indexing=i)[::-1], axis=0)
                        * tf.stack(tf.meshgrid(x, y, indexing=i), axis=0),
                        np.array([0.5, -1.0, 2.0]), np.array([1.5, 3.0]))  # fmt: skip
    with pytest.raises(TypeError, match="invalid keyword"):
        tf.meshgrid(tf.constant([1]), sparse=True)


# ------------------------------------------------------------------ ForwardAccumulator
def _f(x: tf.Tensor, w: tf.Tensor) -> tf.Tensor:
    return tf.tanh(x @ w) * tf.reduce_sum(x * x)


def test_jvp_matches_finite_differences_and_jacobian() -> None:
    rng = np.random.default_rng(0)
    x0, w0 = rng.normal(size=(2, 3)), rng.normal(size=(3, 2))
    vx, vw = rng.normal(size=(2, 3)), rng.normal(size=(3, 2))
    x, w = tf.constant(x0), tf.constant(w0)
    with tf.autodiff.ForwardAccumulator((x, w), (vx, vw)) as acc:
        y = _f(x, w)
    jvp = acc.jvp(y).numpy()
    eps = 1e-6
    fd = (_f(tf.constant(x0 + eps * vx), tf.constant(w0 + eps * vw)).numpy()
          - _f(tf.constant(x0 - eps * vx), tf.constant(w0 - eps * vw)).numpy()) / (2 * eps)  # fmt: skip
    np.testing.assert_allclose(jvp, fd, rtol=1e-6, atol=1e-8)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        y = _f(x, w)
    jx, jw = tape.jacobian(y, [x, w])
    want = np.tensordot(jx.numpy(), vx, axes=2) + np.tensordot(jw.numpy(), vw, axes=2)
    np.testing.assert_allclose(jvp, want, rtol=1e-10)


def test_hessian_vector_product_matches_finite_differences_of_gradient() -> None:
    x0 = np.array([0.3, -0.7, 1.1])
    v = np.array([1.0, 2.0, -0.5])

    def loss(x: tf.Tensor) -> tf.Tensor:
        return tf.reduce_sum(tf.exp(x) * x[::-1]) + tf.reduce_prod(x)

    x = tf.constant(x0)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(v)) as acc:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = loss(x)
        g = tape.gradient(y, x)
    hvp = acc.jvp(g).numpy()

    def grad_at(a: np.ndarray) -> np.ndarray:
        t = tf.constant(a)
        with tf.GradientTape() as tp:
            tp.watch(t)
            out = loss(t)
        return tp.gradient(out, t).numpy()

    fd = (grad_at(x0 + 1e-6 * v) - grad_at(x0 - 1e-6 * v)) / 2e-6
    np.testing.assert_allclose(hvp, fd, rtol=1e-6)
    # The gradient of a jvp is the same Hessian-vector product (the Hessian is symmetric).
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.autodiff.ForwardAccumulator(x, tf.constant(v)) as acc:
            y = loss(x)
        j = acc.jvp(y)
    np.testing.assert_allclose(outer.gradient(j, x).numpy(), hvp, rtol=1e-10)
    (fd_j,) = numeric_gradients(lambda a: float(np.dot(grad_at(a), v)), [x0])
    np.testing.assert_allclose(hvp, fd_j, rtol=1e-5)


def test_forward_accumulator_errors_and_unconnected() -> None:
    x = tf.constant([1.0, 2.0])
    with pytest.raises(ValueError, match="same structure"):
        tf.autodiff.ForwardAccumulator([x, x], [x])
    with pytest.raises(ValueError, match="does not match primal shape"):
        tf.autodiff.ForwardAccumulator(x, tf.constant([1.0]))
    with tf.autodiff.ForwardAccumulator(x, tf.ones([2])) as acc:
        n = tf.cast(x, tf.int32) * 2
        y = x * 3.0
        # jvp inside the block works and is not recorded on the accumulator itself.
        inside = acc.jvp(y)
    np.testing.assert_array_equal(inside.numpy(), [3.0, 3.0])
    assert acc.jvp(n) is None
    np.testing.assert_array_equal(acc.jvp(n, unconnected_gradients="zero").numpy(), [0, 0])
    with pytest.raises(ValueError, match="unconnected_gradients"):
        acc.jvp(y, unconnected_gradients="sometimes")
    assert acc.jvp({"a": y, "b": [y]})["b"][0].shape == (2,)


def test_get_logger_is_a_logging_logger_users_can_quiet() -> None:
    import logging

    logger = tf.get_logger()
    assert isinstance(logger, logging.Logger) and logger.name == "tapers"
    level = logger.level
    try:
        logger.setLevel("ERROR")  # what TF scripts do with tf.get_logger()
        assert tf.get_logger().level == logging.ERROR
    finally:
        logger.setLevel(level)
