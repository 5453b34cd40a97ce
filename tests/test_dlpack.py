"""DLPack: zero-copy, read-only export; copying import; numpy and PyTorch."""

import numpy as np
import pytest

import tapers as tf
from tapers.experimental import dlpack

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_]


def address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_views_a_tensor_without_copying(dtype):
    if tuple(int(p) for p in np.__version__.split(".")[:2]) < (2, 1):
        pytest.skip("read-only DLPack export needs numpy >= 2.1")
    t = tf.constant(np.arange(6).reshape(2, 3).astype(dtype))
    a = np.from_dlpack(t)
    assert a.dtype == dtype and a.shape == (2, 3)
    np.testing.assert_array_equal(a, t.numpy())
    assert address(a) == address(t.numpy())  # zero-copy
    assert not a.flags.writeable  # and read-only: tensors are immutable
    assert t.__dlpack_device__() == (1, 0)


def test_scalars_and_empty_tensors():
    for v in (np.float32(2.5), np.zeros((0, 3), np.float32)):
        t = tf.constant(v)
        np.testing.assert_array_equal(np.from_dlpack(t), v)


def test_legacy_consumers_get_a_private_copy():
    t = tf.constant([1.0, 2.0])
    capsule = t.__dlpack__()  # no max_version: the legacy protocol
    back = np.from_dlpack(dlpack._Capsule(capsule))
    assert address(back) != address(t.numpy())
    with pytest.raises(BufferError, match="read-only"):
        t.__dlpack__(copy=False)
    with pytest.raises(BufferError, match="CPU"):
        t.__dlpack__(dl_device=(2, 0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_from_dlpack_copies_numpy_arrays_and_capsules(dtype):
    src = np.arange(4).astype(dtype)
    t = dlpack.from_dlpack(src)
    assert t.dtype == tf.as_dtype(dtype) and t.shape == (4,)
    if dtype is not np.bool_:
        src[0] = 9  # the producer keeps writing: the tensor does not change
        assert t.numpy()[0] == 0
    round_trip = dlpack.from_dlpack(dlpack.to_dlpack(t))
    np.testing.assert_array_equal(round_trip.numpy(), t.numpy())


def test_gradients_flow_through_imported_values():
    x = dlpack.from_dlpack(np.array([1.0, 2.0], np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x * x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 4.0])


def test_pytorch_interop():
    torch = pytest.importorskip("torch")
    t = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    pt = torch.from_dlpack(t)
    assert pt.shape == (2, 3)
    np.testing.assert_array_equal(pt.numpy(), t.numpy())
    back = dlpack.from_dlpack(torch.arange(3, dtype=torch.float64))
    np.testing.assert_array_equal(back.numpy(), [0.0, 1.0, 2.0])
