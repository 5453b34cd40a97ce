"""``bad_indices_policy`` of scatter_nd, tensor_scatter_nd_add and gather_nd, and
gather_nd's ``batch_dims``: gradients by finite differences (TensorFlow's own
values and errors are compared in test_ops_common.py; TF cannot differentiate
the IGNORE forms, its gradients index out of range)."""

from __future__ import annotations

import numpy as np
import pytest

import tapers as tf
from conftest import check_gradients


def test_scatter_nd_ignore_gradient_skips_the_bad_rows() -> None:
    grads = check_gradients(
        lambda u: tf.scatter_nd([[1], [7], [3], [-1]], u, [5], bad_indices_policy="IGNORE"),
        np.array([1.0, 2.0, 3.0, 4.0]),
    )
    assert grads[0][1] == 0.0 and grads[0][3] == 0.0
    assert grads[0][0] != 0.0 and grads[0][2] != 0.0


def test_tensor_scatter_nd_add_ignore_gradient() -> None:
    check_gradients(
        lambda t, u: tf.tensor_scatter_nd_add(t, [[1], [-2], [0], [3]], u, bad_indices_policy="IGNORE"),
        np.array([1.0, 2.0, 3.0]),
        np.array([4.0, 5.0, 6.0, 7.0]),
    )


def test_gather_nd_ignore_gradient_and_zeros() -> None:
    params = np.arange(6.0).reshape(3, 2) + 1.0
    idx = [[0], [3], [2], [-1], [2]]
    out = tf.gather_nd(tf.constant(params), idx, bad_indices_policy="IGNORE")
    np.testing.assert_array_equal(out.numpy(), [[1, 2], [0, 0], [5, 6], [0, 0], [5, 6]])
    (g,) = check_gradients(lambda p: tf.gather_nd(p, idx, bad_indices_policy="IGNORE"), params)
    assert np.all(g[1] == 0.0), "row 1 is gathered by no valid index"


def test_gather_nd_ignore_does_not_leak_nan_from_the_substituted_row() -> None:
    # Bad rows read row 0 internally; its NaN must not reach the output.
    params = tf.constant([[np.nan, 1.0], [2.0, 3.0]])
    out = tf.gather_nd(params, [[5], [1]], bad_indices_policy="IGNORE")
    np.testing.assert_array_equal(out.numpy(), [[0, 0], [2, 3]])


@pytest.mark.parametrize("policy", ["", "DEFAULT", "ERROR"])
def test_gather_nd_batch_dims_gradient(policy: str) -> None:
    params = np.arange(24.0).reshape(2, 3, 4) / 7.0
    idx = [[[2, 1], [0, 3]], [[1, 1], [2, 0]]]
    check_gradients(lambda p: tf.gather_nd(p, idx, batch_dims=1, bad_indices_policy=policy), params)


def test_policies_are_checked_and_default_raises() -> None:
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unknown bad indices handling attribute: Ignore"):
        tf.scatter_nd([[1]], [1.0], [3], bad_indices_policy="Ignore")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"does not index into"):
        tf.tensor_scatter_nd_add(tf.zeros([3]), [[4]], [1.0])
    with pytest.raises(tf.errors.NotFoundError, match="bad_indices_policy"):
        tf.gather_nd([1.0, 2.0], [[0]], bad_indices_policy="skip")


def test_gather_nd_batch_dims_errors_name_the_shapes() -> None:
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"params \[2\] and indices \[3\]"):
        tf.gather_nd(tf.zeros([2, 3]), tf.zeros([3, 1], tf.int32), batch_dims=1)
    with pytest.raises(ValueError, match="batch_dims=2"):
        tf.gather_nd(tf.zeros([2, 3]), tf.zeros([2, 1], tf.int32), batch_dims=2)
