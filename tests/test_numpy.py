"""numpy interop: copies in (tensors stay immutable), zero-copy read-only views out."""

import numpy as np
import pytest

import tapers as tf


def test_numpy_is_zero_copy_and_readonly():
    t = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    a = t.numpy()
    b = np.asarray(t)
    assert np.shares_memory(a, b)  # both views of the tensor's own buffer
    assert not a.flags.writeable and not b.flags.writeable
    with pytest.raises(ValueError):
        a[0, 0] = 1.0
    del t  # the views keep the buffer alive
    assert a.sum() == 15.0


def test_input_arrays_are_copied():
    src = np.ones(3, dtype=np.float64)
    t = tf.constant(src)
    src[0] = 5.0
    assert t.numpy().tolist() == [1.0, 1.0, 1.0]


def test_non_contiguous_input():
    src = np.arange(12, dtype=np.float64).reshape(3, 4)[:, ::2]
    t = tf.constant(src)
    assert t.numpy().tolist() == src.tolist()
    assert tf.constant(np.arange(6.0).reshape(2, 3).T).numpy().tolist() == [[0, 3], [1, 4], [2, 5]]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.bool_])
def test_round_trip_all_dtypes(dtype):
    src = (np.arange(6) % 2).astype(dtype).reshape(3, 2)
    t = tf.constant(src)
    assert t.dtype == tf.as_dtype(np.dtype(dtype).name)
    out = t.numpy()
    assert out.dtype == src.dtype
    np.testing.assert_array_equal(out, src)


def test_scalar_numpy_is_a_numpy_scalar():
    v = tf.constant(5.0).numpy()
    assert isinstance(v, np.float32) and v == 5.0
    assert np.asarray(tf.constant(5.0)).shape == ()


def test_array_protocol_dtype_and_copy():
    t = tf.constant([1.0, 2.0])
    a = np.asarray(t, dtype=np.float64)
    assert a.dtype == np.float64
    c = np.array(t, copy=True)
    c[0] = 9.0
    assert t.numpy()[0] == 1.0


def test_numpy_ufuncs_accept_tensors():
    t = tf.constant([1.0, 4.0])
    assert np.sqrt(t).tolist() == [1.0, 2.0]
