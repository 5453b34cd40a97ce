"""Tensor creation, dtypes, printing and Python protocols, checked against what
TensorFlow 2.21 prints and raises for the same code."""

import numpy as np
import pytest

import tapers as tf
from tapers.errors import InvalidArgumentError


class TestCreation:
    @pytest.mark.parametrize(
        "value, dtype",
        [
            (3.0, tf.float32),
            (3, tf.int32),
            (True, tf.bool),
            (2**40, tf.int64),
            ([1.5, 2.0], tf.float32),
            ([1, 2], tf.int32),
            ([True, False], tf.bool),
            (np.array([1.0, 2.0]), tf.float64),
            (np.array([1, 2], dtype=np.int64), tf.int64),
            (np.array([1, 2], dtype=np.int32), tf.int32),
            (np.float64(2.0), tf.float64),
            (np.float32(2.0), tf.float32),
        ],
    )
    def test_default_dtypes_follow_tensorflow(self, value, dtype):
        assert tf.constant(value).dtype == dtype

    def test_explicit_dtype_converts(self):
        t = tf.constant([1, 2], dtype=tf.float32)
        assert t.dtype == tf.float32
        np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
        assert tf.constant(1, dtype="float64").dtype == tf.float64
        assert tf.constant(1, dtype=np.int64).dtype == tf.int64

    def test_lossy_python_conversion_is_a_type_error(self):
        with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
            tf.constant(1.5, dtype=tf.int32)
        with pytest.raises(TypeError, match="Cannot convert 1.0 to EagerTensor of dtype int32"):
            tf.constant(1.0, dtype=tf.int32)

    def test_shape_argument_fills_and_reshapes(self):
        np.testing.assert_array_equal(tf.constant(1.0, shape=[2, 2]).numpy(), np.ones((2, 2)))
        np.testing.assert_array_equal(tf.constant([1, 2, 3, 4], shape=[2, 2]).numpy(), [[1, 2], [3, 4]])
        with pytest.raises(InvalidArgumentError):
            tf.constant([1, 2, 3], shape=[2, 2])

    def test_ragged_lists_are_rejected(self):
        with pytest.raises(ValueError, match="non-rectangular"):
            tf.constant([[1.0], [2.0, 3.0]])

    def test_unsupported_values(self):
        with pytest.raises(TypeError):
            tf.constant("text")
        with pytest.raises(TypeError, match="tapers supports dtypes .*; got a numpy array of dtype str"):
            tf.constant(np.array(["a"]))
        with pytest.raises(TypeError):
            tf.constant(object())

    def test_empty_and_zero_sized(self):
        assert tf.constant([]).shape == (0,)
        assert tf.constant([[]]).shape == (1, 0)
        assert tf.zeros([2, 0]).shape == (2, 0)
        assert repr(tf.zeros([2, 0])) == (
            "<tapers.Tensor: shape=(2, 0), dtype=float32, numpy=array([], shape=(2, 0), dtype=float32)>"
        )

    def test_convert_to_tensor(self):
        t = tf.constant(1.0)
        assert tf.convert_to_tensor(t) is t
        assert tf.convert_to_tensor([1, 2], dtype=tf.float32).dtype == tf.float32
        assert tf.convert_to_tensor(np.array([1.5]), dtype=tf.float32).dtype == tf.float32
        assert tf.convert_to_tensor(1, dtype_hint=tf.float32).dtype == tf.float32
        assert tf.convert_to_tensor(1.5, dtype_hint=tf.int32).dtype == tf.float32
        with pytest.raises(ValueError, match="requested dtype float64 for Tensor with dtype float32"):
            tf.convert_to_tensor(tf.constant(1.0), dtype=tf.float64)

    def test_zeros_ones_like(self):
        assert tf.zeros([2, 3]).shape == (2, 3)
        assert tf.ones([2], dtype=tf.int32).dtype == tf.int32
        z = tf.zeros_like(tf.constant([1, 2]))
        assert z.dtype == tf.int32 and z.numpy().tolist() == [0, 0]
        assert tf.ones_like(tf.constant([1.0]), dtype=tf.float64).dtype == tf.float64


class TestPrinting:
    def test_scalar(self):
        assert str(tf.constant(6.0)) == "tapers.Tensor(6.0, shape=(), dtype=float32)"
        assert repr(tf.constant(4.0)) == "<tapers.Tensor: shape=(), dtype=float32, numpy=4.0>"
        assert str(tf.constant(True)) == "tapers.Tensor(True, shape=(), dtype=bool)"
        assert repr(tf.constant(3)) == "<tapers.Tensor: shape=(), dtype=int32, numpy=3>"

    def test_float32_repr_uses_python_float(self):
        # TF prints the float32 value converted to a Python float.
        assert repr(tf.constant(0.1)) == "<tapers.Tensor: shape=(), dtype=float32, numpy=0.10000000149011612>"
        assert repr(tf.constant(0.1, dtype=tf.float64)) == "<tapers.Tensor: shape=(), dtype=float64, numpy=0.1>"

    def test_matrix(self):
        t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        assert str(t) == "tapers.Tensor(\n[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float32)"
        assert repr(t) == (
            "<tapers.Tensor: shape=(2, 2), dtype=float32, numpy=\narray([[1., 2.],\n       [3., 4.]], dtype=float32)>"
        )

    def test_vectors(self):
        assert repr(tf.constant([1, 2, 3])) == (
            "<tapers.Tensor: shape=(3,), dtype=int32, numpy=array([1, 2, 3], dtype=int32)>"
        )
        assert repr(tf.constant([True, False])) == (
            "<tapers.Tensor: shape=(2,), dtype=bool, numpy=array([ True, False])>"
        )
        assert str(tf.constant([float("inf"), -float("inf")])) == (
            "tapers.Tensor([ inf -inf], shape=(2,), dtype=float32)"
        )

    def test_shape_and_dtype_objects(self):
        assert str(tf.constant([1.5, 2.0]).shape) == "(2,)"
        assert repr(tf.constant([1.5]).shape) == "TensorShape([1])"
        assert str(tf.constant(1.0).shape) == "()"
        assert repr(tf.float32) == "tapers.float32"
        assert str(tf.float64) == "<dtype: 'float64'>"
        assert tf.constant([1.0, 2.0]).shape == [2]
        assert tf.constant([1.0, 2.0]).shape[0] == 2
        assert tf.constant(1.0).shape.as_list() == []


class TestPythonProtocols:
    def test_scalars(self):
        assert float(tf.constant(2.5)) == 2.5
        assert int(tf.constant(2.7)) == 2
        assert bool(tf.constant(0.0)) is False
        with pytest.raises(TypeError, match="only 0-dimensional"):
            float(tf.constant([1.0, 2.0]))
        with pytest.raises(ValueError, match="ambiguous"):
            bool(tf.constant([1.0, 2.0]))

    def test_len_and_iteration(self):
        assert len(tf.constant([1, 2, 3])) == 3
        with pytest.raises(TypeError, match="Scalar tensor has no `len\\(\\)`"):
            len(tf.constant(1.0))
        items = list(tf.constant([[1.0, 2.0], [3.0, 4.0]]))
        assert [i.numpy().tolist() for i in items] == [[1.0, 2.0], [3.0, 4.0]]

    def test_indexing(self):
        t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        assert t[1].numpy().tolist() == [3.0, 4.0]
        assert t[-1].numpy().tolist() == [3.0, 4.0]
        with pytest.raises(InvalidArgumentError, match="out of bounds"):
            t[5]

    def test_unhashable(self):
        with pytest.raises(TypeError, match="unhashable"):
            hash(tf.constant(1.0))
        with pytest.raises(TypeError, match="unhashable"):
            {tf.Variable(1.0)}

    def test_ndim(self):
        assert tf.constant([[1.0]]).ndim == 2


class TestOperators:
    def test_arithmetic(self):
        a = tf.constant([7.0, -7.0])
        np.testing.assert_array_equal((a + 1).numpy(), [8.0, -6.0])
        np.testing.assert_array_equal((1 - a).numpy(), [-6.0, 8.0])
        np.testing.assert_array_equal((a * 2).numpy(), [14.0, -14.0])
        np.testing.assert_array_equal((a / 2).numpy(), [3.5, -3.5])
        np.testing.assert_array_equal((a // 2).numpy(), [3.0, -4.0])
        np.testing.assert_array_equal((a % -3).numpy(), [-2.0, -1.0])
        np.testing.assert_array_equal((2 ** tf.constant([1.0, 3.0])).numpy(), [2.0, 8.0])
        np.testing.assert_array_equal((-a).numpy(), [-7.0, 7.0])
        np.testing.assert_array_equal(abs(a).numpy(), [7.0, 7.0])

    def test_integer_semantics(self):
        a = tf.constant([7, -7])
        assert (a // 2).numpy().tolist() == [3, -4]
        assert (a % 3).numpy().tolist() == [1, 2]
        d = a / 2
        assert d.dtype == tf.float64 and d.numpy().tolist() == [3.5, -3.5]
        assert (-tf.constant([1, 2])).numpy().tolist() == [-1, -2]

    def test_integer_errors(self):
        with pytest.raises(InvalidArgumentError, match="Integer division by zero"):
            tf.constant([1, 2]) // 0
        with pytest.raises(InvalidArgumentError, match="Integer division by zero"):
            tf.constant([1, 2]) % 0
        with pytest.raises(InvalidArgumentError, match="negative integer powers"):
            tf.constant(3) ** -1
        np.testing.assert_array_equal((tf.constant([1.0, 2.0]) // 0).numpy(), [np.inf, np.inf])

    def test_matmul_operator(self):
        r = tf.constant([[1.0, 2.0]]) @ tf.constant([[1.0], [2.0]])
        assert r.numpy().tolist() == [[5.0]]
        r = tf.constant([[1, 2], [3, 4]]) @ tf.constant([[1, 2], [3, 4]])
        assert r.numpy().tolist() == [[7, 10], [15, 22]]

    def test_python_scalars_take_the_tensor_dtype(self):
        assert (tf.constant([1.0]) + 1).dtype == tf.float32
        assert (1 + tf.constant([1.0], dtype=tf.float64)).dtype == tf.float64
        assert (tf.constant([1.0]) + True).numpy().tolist() == [2.0]

    def test_no_implicit_promotion(self):
        with pytest.raises(InvalidArgumentError) as e:
            tf.constant([1.0]) + tf.constant([1.0], dtype=tf.float64)
        assert "expected to be a float tensor but is a double tensor" in str(e.value)
        with pytest.raises(InvalidArgumentError, match="int32 tensor but is a float tensor"):
            tf.constant([1]) + 1.5
        with pytest.raises(InvalidArgumentError, match="float tensor but is a int32 tensor"):
            tf.constant(1.0) + tf.constant(1)
        assert isinstance(InvalidArgumentError(None, None, "m"), ValueError)

    def test_shape_mismatch_names_both_shapes(self):
        with pytest.raises(InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs. \[3\]"):
            tf.constant([1.0, 2.0]) + tf.constant([1.0, 2.0, 3.0])
        with pytest.raises(InvalidArgumentError, match=r"In\[0\]: \[2,3\], In\[1\]: \[2,3\]"):
            tf.matmul(tf.ones([2, 3]), tf.ones([2, 3]))

    def test_numpy_operands_on_either_side(self):
        r = np.array([1.0, 2.0]) + tf.constant([1.0, 2.0])
        assert isinstance(r, tf.Tensor) and r.dtype == tf.float32
        r = tf.constant([1.0, 2.0]) + np.array([1.0, 2.0])
        assert isinstance(r, tf.Tensor) and r.dtype == tf.float32
        # TF casts numpy operands to the tensor's dtype.
        assert (tf.constant([1]) + np.array([1.5])).numpy().tolist() == [2]
        assert (tf.constant([1.0]) * [2.0, 3.0]).numpy().tolist() == [2.0, 3.0]
        assert ([2.0, 3.0] * tf.constant([1.0])).numpy().tolist() == [2.0, 3.0]

    def test_comparisons(self):
        t = tf.constant([1.0, 2.0])
        assert (t < 2).numpy().tolist() == [True, False]
        assert (t >= 2).numpy().tolist() == [False, True]
        assert (t == 2).numpy().tolist() == [False, True]
        assert (t == None) is False  # noqa: E711 - TF semantics
        assert (t != None) is True  # noqa: E711
        r = t == tf.constant([1.0, 2.0, 3.0])
        assert r.dtype == tf.bool and r.shape == () and not bool(r)
        with pytest.raises(TypeError):
            t != "a"  # noqa: B015
        with pytest.raises(InvalidArgumentError):
            t == tf.constant([1, 2])  # noqa: B015

    def test_unsupported_operand_types(self):
        with pytest.raises(TypeError):
            tf.constant(1.0) + "a"
        with pytest.raises(TypeError):
            tf.constant(1.0) + object()

    def test_bool_arithmetic_is_rejected(self):
        with pytest.raises(InvalidArgumentError, match="bool"):
            tf.constant([True]) + tf.constant([True])
        with pytest.raises(InvalidArgumentError, match="bool"):
            -tf.constant([True])


def test_constant_of_a_tensor_is_that_tensor_as_in_tensorflow():
    # Checked against tensorflow-cpu: tf.constant(eager_tensor) returns the
    # same object (so a tape watching it connects through it), refuses another
    # dtype, and makes a new, unconnected tensor only when `shape` reshapes it.
    x = tf.constant(2.0)
    assert tf.constant(x) is x and tf.constant(x, dtype=tf.float32) is x
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        z = tf.constant(x) * 2.0
        reshaped = tf.constant(x, shape=[1]) * 3.0
    assert float(tape.gradient(z, x)) == 2.0
    assert tape.gradient(reshaped, x) is None
    with pytest.raises(TypeError, match=r"Expected tensor 2.0 with dtype tapers.float64, but got dtype tapers.float32"):
        tf.constant(x, dtype=tf.float64)
    y = tf.constant([1.0, 2.0])
    assert tf.constant(y, shape=[2]) is y
    v = tf.Variable(1.5)
    with tf.GradientTape() as tape:
        w = tf.constant(v) * 2.0
    assert tape.gradient(w, v) is None  # a Variable's value is read, not connected
    assert tf.constant(v, dtype=tf.float64).dtype == tf.float64  # and may be cast
    # numpy arrays are still converted to the requested dtype
    assert tf.constant(np.array([1.7]), dtype=tf.int32).numpy().tolist() == [1]
