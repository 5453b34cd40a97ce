# ruff: noqa: E501  (a table of TF expressions, one per line)
# Generates ops_common_reference.json with TensorFlow 2.21 (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_ops_common_reference.py > tests/data/ops_common_reference.json
#
# Each case is Python source that runs unchanged under `tf = tensorflow` and `tf = tapers`
# (tests/test_ops_common.py evaluates the same strings with tapers and compares):
# - "values": an expression; TF's result (the tensors of a tensor or tuple: values, dtype, shape)
#   or its exception (class name and message, with TF's "{{function_node ...}}" prefix and
#   " name: ..." suffix removed). "msg": false marks a case whose message tapers words differently
#   (the class must still match).
# - "grads": `fn` (a lambda of float64 tensors) at `inputs`: the output and the gradient of
#   sum(fn(*xs) * w) for each input, w = 1 + 0.25 * arange(size) in the output's shape; with
#   "order2", also the gradient of sum(grad_0 * u) (u = 0.5 + 0.125 * arange), a second derivative.
import json
import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow as tf

NAN, INF = float("nan"), float("inf")

VALUES = [
    # sort / argsort: directions, ties (equal values keep their order), axes, dtypes, errors
    ("sort_f32", "tf.sort(tf.constant([3., 1., 2., 1.]))"),
    ("sort_desc", "tf.sort(tf.constant([3., 1., 2., 1.]), direction='DESCENDING')"),
    ("sort_axis0", "tf.sort(tf.constant([[3, 1], [0, 5], [2, 2]]), axis=0)"),
    ("sort_int64_min", "tf.sort(tf.constant([1, -9223372036854775808, 5], dtype=tf.int64))"),
    ("sort_int32_min", "tf.sort(tf.constant([1, -2147483648, 5]))"),
    ("sort_empty", "tf.sort(tf.zeros([2, 0]))"),
    ("sort_bad_direction", "tf.sort(tf.constant([1., 2.]), direction='UP')"),
    ("sort_bool", "tf.sort(tf.constant([True, False]))", False),
    ("sort_scalar", "tf.sort(tf.constant(3.))", False),
    ("sort_bad_axis", "tf.sort(tf.constant([3., 1.]), axis=1)", False),
    ("argsort_ties", "tf.argsort(tf.constant([1, 1, 0, 1]))"),
    ("argsort_ties_desc", "tf.argsort(tf.constant([1, 1, 0, 1]), direction='DESCENDING')"),
    ("argsort_stable", "tf.argsort(tf.constant([2., 1., 2., 1.]), stable=True)"),
    ("argsort_signed_zero", "tf.argsort(tf.constant([0., -0., 0.]))"),
    ("argsort_axis0", "tf.argsort(tf.constant([[3., 1.], [0., 5.], [2., 1.]]), axis=0)"),
    (
        "argsort_f64_desc_2d",
        "tf.argsort(tf.constant([[0.5, -1., 0.5], [2., 2., -3.]], dtype=tf.float64), direction='DESCENDING')",
    ),
    ("argsort_bad_direction", "tf.argsort(tf.constant([1., 2.]), direction='down')"),
    # top_k: ties in index order, k bounds, rank, index_type
    ("top_k_ties", "tf.math.top_k(tf.constant([1., 3., 3., 2.]), k=2)"),
    ("top_k_2d", "tf.math.top_k(tf.constant([[1, 5, 5, 2], [7, 7, 7, 0]]), k=3)"),
    ("top_k_zero", "tf.math.top_k(tf.constant([1., 2.]), k=0)"),
    ("top_k_int64_index", "tf.nn.top_k(tf.constant([4., 9., 1.]), k=2, index_type=tf.int64)"),
    ("top_k_k_too_big", "tf.math.top_k(tf.constant([1., 3., 3., 2.]), k=5)"),
    ("top_k_negative_k", "tf.math.top_k(tf.constant([1., 3.]), k=-1)"),
    ("top_k_scalar", "tf.math.top_k(tf.constant(1.), k=1)"),
    # roll / reverse / repeat
    ("roll_1d", "tf.roll(tf.constant([1, 2, 3, 4, 5]), shift=2, axis=0)"),
    ("roll_negative_wrap", "tf.roll(tf.constant([1, 2, 3, 4]), shift=-5, axis=0)"),
    ("roll_2d_two_axes", "tf.roll(tf.reshape(tf.range(6), [2, 3]), shift=[1, -1], axis=[0, 1])"),
    ("roll_same_axis_twice", "tf.roll(tf.constant([1., 2., 3., 4.]), shift=[1, 2], axis=[0, 0])"),
    ("roll_bool", "tf.roll(tf.constant([True, False, False]), shift=1, axis=-1)"),
    ("roll_size_mismatch", "tf.roll(tf.constant([1, 2, 3, 4]), shift=[1, 2], axis=[0])"),
    ("roll_bad_axis", "tf.roll(tf.constant([1, 2, 3, 4]), shift=1, axis=1)"),
    ("reverse_2d", "tf.reverse(tf.constant([[1, 2, 3], [4, 5, 6]]), axis=[1])"),
    ("reverse_both", "tf.reverse(tf.constant([[1., 2.], [3., 4.]]), axis=[0, -1])"),
    ("reverse_none", "tf.reverse(tf.constant([[1., 2.], [3., 4.]]), axis=[])"),
    ("reverse_twice", "tf.reverse(tf.constant([[1, 2], [3, 4]]), axis=[0, 0])"),
    ("reverse_bad_axis", "tf.reverse(tf.constant([[1, 2], [3, 4]]), axis=[2])"),
    ("repeat_flat", "tf.repeat(tf.constant([[1, 2], [3, 4]]), 2)"),
    ("repeat_axis0", "tf.repeat(tf.constant([[1, 2], [3, 4]]), [1, 2], axis=0)"),
    ("repeat_axis1_zero", "tf.repeat(tf.constant([[1., 2.], [3., 4.]]), [0, 3], axis=1)"),
    ("repeat_scalar", "tf.repeat(tf.constant(7), 3)"),
    ("repeat_bad_len", "tf.repeat(tf.constant([[1, 2], [3, 4]]), [1, 2, 3], axis=0)"),
    ("repeat_bad_axis", "tf.repeat(tf.constant([[1, 2], [3, 4]]), 2, axis=2)"),
    ("repeat_negative", "tf.repeat(tf.constant([[1, 2], [3, 4]]), -1, axis=0)", False),
    # boolean_mask
    ("boolean_mask_rows", "tf.boolean_mask(tf.constant([[1, 2], [3, 4], [5, 6]]), [True, False, True])"),
    ("boolean_mask_axis1", "tf.boolean_mask(tf.constant([[1, 2], [3, 4]]), [False, True], axis=1)"),
    ("boolean_mask_2d_mask", "tf.boolean_mask(tf.constant([[1., 2.], [3., 4.]]), [[True, False], [True, True]])"),
    ("boolean_mask_none", "tf.boolean_mask(tf.constant([[1, 2], [3, 4]]), [False, False])"),
    ("boolean_mask_int_mask", "tf.boolean_mask(tf.constant([[1, 2], [3, 4]]), [1, 0])"),
    ("boolean_mask_bad_shape", "tf.boolean_mask(tf.constant([[1, 2], [3, 4]]), [True, False, True])"),
    ("boolean_mask_scalar_mask", "tf.boolean_mask(tf.constant([[1, 2], [3, 4]]), True)"),
    # segments
    ("segment_sum", "tf.math.segment_sum(tf.constant([[1., 2.], [3., 4.], [5., 6.]]), [0, 0, 2])"),
    ("segment_sum_int", "tf.math.segment_sum(tf.constant([1, 2, 3, 4]), [0, 1, 1, 3])"),
    ("segment_sum_unsorted", "tf.math.segment_sum(tf.constant([1., 2., 3.]), [0, 2, 1])"),
    ("segment_sum_negative", "tf.math.segment_sum(tf.constant([1., 2., 3.]), [-1, 0, 0])"),
    ("segment_sum_size", "tf.math.segment_sum(tf.constant([1., 2., 3.]), [0, 0])"),
    ("unsorted_segment_sum", "tf.math.unsorted_segment_sum(tf.constant([1., 2., 3., 4.]), [2, 0, 2, -1], 3)"),
    (
        "unsorted_segment_sum_2d_ids",
        "tf.math.unsorted_segment_sum(tf.reshape(tf.range(12.), [2, 3, 2]), [[0, 1, 0], [2, 2, 1]], 4)",
    ),
    ("unsorted_segment_sum_out_of_range", "tf.math.unsorted_segment_sum(tf.constant([1., 2., 3.]), [0, 5, 1], 3)"),
    ("unsorted_segment_sum_bad_shape", "tf.math.unsorted_segment_sum(tf.constant([1., 2., 3.]), [0, 1], 3)"),
    ("unsorted_segment_sum_negative_num", "tf.math.unsorted_segment_sum(tf.constant([1., 2., 3.]), [0, 1, 1], -1)"),
    ("unsorted_segment_sum_zero_num", "tf.math.unsorted_segment_sum(tf.constant([1., 2., 3.]), [0, 1, 1], 0)"),
    ("unsorted_segment_mean", "tf.math.unsorted_segment_mean(tf.constant([1., 2., 4.]), [0, 0, 2], 4)"),
    ("unsorted_segment_mean_int", "tf.math.unsorted_segment_mean(tf.constant([1, 2, 3]), [0, 0, 2], 4)"),
    ("unsorted_segment_max", "tf.math.unsorted_segment_max(tf.constant([1., 2., 3.]), [0, 0, 2], 4)"),
    ("unsorted_segment_max_f64", "tf.math.unsorted_segment_max(tf.constant([1., -2.], dtype=tf.float64), [1, 1], 3)"),
    ("unsorted_segment_max_int", "tf.math.unsorted_segment_max(tf.constant([1, 2, 3]), [0, 0, 2], 4)"),
    ("unsorted_segment_max_nan", "tf.math.unsorted_segment_max(tf.constant([1., float('nan'), 3.]), [0, 0, 2], 4)"),
    (
        "unsorted_segment_max_nan_first",
        "tf.math.unsorted_segment_max(tf.constant([float('nan'), 1., 3.]), [0, 0, 2], 3)",
    ),
    # scatters
    ("scatter_nd_repeat", "tf.scatter_nd([[1], [1], [3]], tf.constant([1., 2., 3.]), [5])"),
    ("scatter_nd_slices", "tf.scatter_nd([[0], [2]], tf.constant([[1, 2], [3, 4]]), [3, 2])"),
    ("scatter_nd_2d_index", "tf.scatter_nd([[0, 1], [2, 0]], tf.constant([5., 6.]), [3, 2])"),
    ("scatter_nd_bool", "tf.scatter_nd([[1], [2]], [True, False], [5])"),
    ("scatter_nd_out_of_range", "tf.scatter_nd([[1], [7]], tf.constant([1., 2.]), [5])"),
    ("scatter_nd_negative", "tf.scatter_nd([[1], [-1]], tf.constant([1., 2.]), [5])"),
    ("scatter_nd_bad_updates", "tf.scatter_nd([[1], [2]], tf.constant([1., 2., 3.]), [5])"),
    ("tensor_scatter_nd_update", "tf.tensor_scatter_nd_update(tf.ones([4]), [[1], [3]], tf.constant([5., 6.]))"),
    ("tensor_scatter_nd_update_dup", "tf.tensor_scatter_nd_update(tf.zeros([4]), [[1], [1]], tf.constant([5., 6.]))"),
    ("tensor_scatter_nd_update_rows", "tf.tensor_scatter_nd_update(tf.ones([3, 2], dtype=tf.int32), [[2]], [[7, 8]])"),
    ("tensor_scatter_nd_update_oob", "tf.tensor_scatter_nd_update(tf.zeros([4]), [[1], [9]], tf.constant([5., 6.]))"),
    ("tensor_scatter_nd_add", "tf.tensor_scatter_nd_add(tf.ones([4]), [[1], [1], [0]], tf.constant([5., 6., 7.]))"),
    ("tensor_scatter_nd_add_bad", "tf.tensor_scatter_nd_add(tf.zeros([4]), [[1], [1]], tf.constant([5., 6., 7.]))"),
    # bad_indices_policy (TF 2.21): "" / "DEFAULT" / "ERROR" raise on CPU, "IGNORE" skips bad indices
    (
        "scatter_nd_ignore",
        "tf.scatter_nd([[0], [5], [2], [-1]], tf.constant([1., 2., 3., 4.]), [4], bad_indices_policy='IGNORE')",
    ),
    (
        "scatter_nd_ignore_2d",
        "tf.scatter_nd([[0, 1], [2, 0], [1, 2]], tf.constant([[5.], [6.], [7.]]), [3, 2, 1], bad_indices_policy='IGNORE')",
    ),
    (
        "scatter_nd_ignore_rows",
        "tf.scatter_nd([[3], [1]], tf.constant([[1, 2], [3, 4]]), [2, 2], bad_indices_policy='IGNORE')",
    ),
    ("scatter_nd_error_policy", "tf.scatter_nd([[1], [7]], tf.constant([1., 2.]), [5], bad_indices_policy='ERROR')"),
    (
        "scatter_nd_default_policy",
        "tf.scatter_nd([[1], [7]], tf.constant([1., 2.]), [5], bad_indices_policy='DEFAULT')",
    ),
    ("scatter_nd_unknown_policy", "tf.scatter_nd([[1]], tf.constant([1.]), [5], bad_indices_policy='ignore')"),
    (
        "tensor_scatter_nd_add_ignore",
        "tf.tensor_scatter_nd_add(tf.ones([4]), [[1], [9], [1]], tf.constant([5., 6., 7.]), bad_indices_policy='IGNORE')",
    ),
    (
        "tensor_scatter_nd_add_unknown_policy",
        "tf.tensor_scatter_nd_add(tf.ones([4]), [[1]], tf.constant([5.]), bad_indices_policy='bogus')",
    ),
    (
        "gather_nd_ignore",
        "tf.gather_nd(tf.reshape(tf.range(6.), [3, 2]), [[0], [3], [2], [-1]], bad_indices_policy='IGNORE')",
    ),
    (
        "gather_nd_ignore_elements",
        "tf.gather_nd(tf.reshape(tf.range(6), [3, 2]), [[0, 1], [1, 2], [2, 0]], bad_indices_policy='IGNORE')",
    ),
    (
        "gather_nd_ignore_batch",
        "tf.gather_nd(tf.reshape(tf.range(8.), [2, 2, 2]), [[[1], [2]], [[0], [1]]], batch_dims=1, bad_indices_policy='IGNORE')",
    ),
    (
        "gather_nd_batch_dims",
        "tf.gather_nd(tf.reshape(tf.range(12), [2, 3, 2]), [[[2, 1], [0, 0]], [[1, 1], [2, 0]]], batch_dims=1)",
    ),
    ("gather_nd_batch_dims_slices", "tf.gather_nd(tf.reshape(tf.range(12.), [2, 3, 2]), [[2], [0]], batch_dims=1)"),
    (
        "gather_nd_batch_dims_mismatch",
        "tf.gather_nd(tf.zeros([2, 3]), tf.zeros([3, 1], tf.int32), batch_dims=1)",
        False,
    ),
    ("gather_nd_batch_dims_too_big", "tf.gather_nd(tf.zeros([2, 3]), tf.zeros([2, 1], tf.int32), batch_dims=2)", False),
    ("gather_nd_error_policy", "tf.gather_nd(tf.constant([1., 2.]), [[3]], bad_indices_policy='ERROR')", False),
    ("gather_nd_unknown_policy", "tf.gather_nd(tf.constant([1., 2.]), [[1]], bad_indices_policy='bogus')", False),
    # unique / searchsorted / bincount
    ("unique", "tf.unique(tf.constant([1, 1, 2, 4, 4, 4, 7, 8, 8]))"),
    ("unique_signed_zero_nan", "tf.unique(tf.constant([1., float('nan'), -0., 0., float('nan'), 1.]))"),
    ("unique_bool_int64", "tf.unique(tf.constant([True, False, True]), out_idx=tf.int64)"),
    ("unique_empty", "tf.unique(tf.constant([], dtype=tf.float32))"),
    ("unique_2d", "tf.unique(tf.constant([[1]]))"),
    ("searchsorted_left", "tf.searchsorted(tf.constant([1., 2., 2., 3.]), tf.constant([2., 0.5, 4.]))"),
    ("searchsorted_right", "tf.searchsorted(tf.constant([1., 2., 2., 3.]), tf.constant([2., 0.5, 4.]), side='right')"),
    (
        "searchsorted_2d_int64",
        "tf.searchsorted(tf.constant([[1, 3, 5], [2, 4, 6]]), tf.constant([[3, 6], [0, 4]]), out_type=tf.int64)",
    ),
    ("searchsorted_bad_side", "tf.searchsorted(tf.constant([1., 2.]), tf.constant([2.]), side='middle')"),
    ("searchsorted_leading", "tf.searchsorted(tf.constant([[1., 2., 3.]]), tf.constant([[2.], [1.]]))"),
    ("searchsorted_dtype", "tf.searchsorted(tf.constant([1., 2., 3.]), tf.constant([2, 1]))"),
    ("bincount", "tf.math.bincount(tf.constant([1, 1, 3]))"),
    ("bincount_minlength", "tf.math.bincount(tf.constant([1, 1, 3]), minlength=6)"),
    ("bincount_maxlength", "tf.math.bincount(tf.constant([1, 1, 3]), maxlength=2)"),
    ("bincount_weights", "tf.math.bincount(tf.constant([1, 1, 3]), weights=tf.constant([0.5, 1., 2.]))"),
    ("bincount_dtype", "tf.math.bincount(tf.constant([1, 1, 3]), dtype=tf.float32)"),
    ("bincount_rows", "tf.math.bincount(tf.constant([[1, 1], [3, 0]]), axis=-1)"),
    ("bincount_binary", "tf.math.bincount(tf.constant([1, 1, 3]), binary_output=True)"),
    ("bincount_empty", "tf.math.bincount(tf.constant([], dtype=tf.int32))"),
    ("bincount_negative", "tf.math.bincount(tf.constant([1, -1, 3]))"),
    # log-space ops
    ("cumulative_logsumexp", "tf.math.cumulative_logsumexp(tf.constant([1., 2., 3.]))"),
    (
        "cumulative_logsumexp_wide",
        "tf.math.cumulative_logsumexp(tf.constant([-1000., 0., -float('inf')]), exclusive=True)",
    ),
    (
        "cumulative_logsumexp_reverse_2d",
        "tf.math.cumulative_logsumexp(tf.constant([[0., 1.], [2., -3.]], dtype=tf.float64), axis=1, reverse=True)",
    ),
    ("cumulative_logsumexp_int", "tf.math.cumulative_logsumexp(tf.constant([1, 2]))", False),
    ("cumulative_logsumexp_bad_axis", "tf.math.cumulative_logsumexp(tf.constant([1., 2.]), axis=1)"),
    ("log_sigmoid", "tf.math.log_sigmoid(tf.constant([-1000., -1., 0., 1., 1000.]))"),
    # moments / batch_normalization
    ("moments", "tf.nn.moments(tf.constant([[1., 2.], [3., 5.]]), axes=[0])"),
    ("moments_keepdims", "tf.nn.moments(tf.constant([[1., 2.], [3., 5.]]), axes=[0, 1], keepdims=True)"),
    ("moments_int", "tf.nn.moments(tf.constant([[1, 2], [3, 5]]), axes=[0])"),
    ("batch_normalization_plain", "tf.nn.batch_normalization(tf.constant([1., 2.]), 1., 4., None, None, 0.)"),
    (
        "batch_normalization",
        "tf.nn.batch_normalization(tf.constant([[1., 2.], [3., 6.]]), tf.constant([2., 4.]), tf.constant([1., 4.]), tf.constant([0.5, -0.5]), tf.constant([2., 3.]), 1e-3)",
    ),
    # pad modes
    ("pad_reflect", "tf.pad(tf.constant([[1, 2, 3], [4, 5, 6]]), [[1, 1], [2, 2]], mode='REFLECT')"),
    ("pad_symmetric", "tf.pad(tf.constant([[1., 2., 3.], [4., 5., 6.]]), [[1, 1], [2, 2]], mode='SYMMETRIC')"),
    ("pad_reflect_lower", "tf.pad(tf.constant([[1, 2, 3], [4, 5, 6]]), [[1, 0], [0, 0]], mode='reflect')"),
    (
        "pad_symmetric_ignores_value",
        "tf.pad(tf.constant([[1, 2], [4, 5]]), [[1, 0], [0, 2]], mode='SYMMETRIC', constant_values=3)",
    ),
    ("pad_reflect_too_far", "tf.pad(tf.constant([[1, 2, 3], [4, 5, 6]]), [[2, 0], [0, 0]], mode='REFLECT')"),
    ("pad_symmetric_too_far", "tf.pad(tf.constant([[1, 2, 3], [4, 5, 6]]), [[3, 0], [0, 0]], mode='SYMMETRIC')"),
    ("pad_bad_mode", "tf.pad(tf.constant([[1, 2, 3]]), [[1, 0], [0, 0]], mode='WRAP')"),
    # convolutions built on conv2d
    (
        "conv1d_same",
        "tf.nn.conv1d(tf.reshape(tf.range(10.), [1, 5, 2]), tf.reshape(tf.range(24.) / 10., [3, 2, 4]), stride=1, padding='SAME')",
    ),
    (
        "conv1d_valid_stride2",
        "tf.nn.conv1d(tf.reshape(tf.range(14.), [1, 7, 2]), tf.reshape(tf.range(12.) / 10., [3, 2, 2]), stride=2, padding='VALID')",
    ),
    (
        "conv1d_dilated",
        "tf.nn.conv1d(tf.reshape(tf.range(14.), [1, 7, 2]), tf.reshape(tf.range(12.) / 10., [3, 2, 2]), stride=1, padding='SAME', dilations=2)",
    ),
    (
        "depthwise_conv2d",
        "tf.nn.depthwise_conv2d(tf.reshape(tf.range(32.), [1, 4, 4, 2]), tf.reshape(tf.range(24.) / 10., [2, 2, 2, 3]), strides=[1, 1, 1, 1], padding='VALID')",
    ),
    (
        "depthwise_conv2d_same_stride",
        "tf.nn.depthwise_conv2d(tf.reshape(tf.range(50.), [1, 5, 5, 2]), tf.reshape(tf.range(18.) / 10., [3, 3, 2, 1]), strides=[1, 2, 2, 1], padding='SAME')",
    ),
    (
        "conv2d_transpose_same",
        "tf.nn.conv2d_transpose(tf.reshape(tf.range(8.), [1, 2, 2, 2]), tf.reshape(tf.range(36.) / 10., [3, 3, 2, 2]), output_shape=[1, 4, 4, 2], strides=2, padding='SAME')",
    ),
    # einsum: ellipsis (broadcast) and any number of operands
    (
        "einsum_ellipsis_batch",
        "tf.einsum('...ij,...jk->...ik', tf.reshape(tf.range(24.), [2, 3, 4]), tf.reshape(tf.range(20.), [4, 5]))",
    ),
    (
        "einsum_ellipsis_broadcast_one",
        "tf.einsum('...ij,...jk->...ik', tf.reshape(tf.range(12.), [2, 1, 2, 3]), tf.reshape(tf.range(18.), [3, 3, 2]))",
    ),
    (
        "einsum_ellipsis_implicit",
        "tf.einsum('...ij,...jk', tf.reshape(tf.range(12.), [2, 2, 3]), tf.reshape(tf.range(6.), [3, 2]))",
    ),
    ("einsum_ellipsis_middle", "tf.einsum('i...j->j...i', tf.reshape(tf.range(24), [2, 3, 4]))"),
    ("einsum_ellipsis_sum", "tf.einsum('b...->b', tf.reshape(tf.range(24.), [2, 3, 4]))"),
    (
        "einsum_three",
        "tf.einsum('ij,jk,kl->il', tf.reshape(tf.range(6.), [2, 3]), tf.reshape(tf.range(12.), [3, 4]), tf.reshape(tf.range(8.), [4, 2]))",
    ),
    (
        "einsum_four_trace",
        "tf.einsum('ij,jk,kl,li->', tf.reshape(tf.range(4.), [2, 2]), tf.ones([2, 3]), tf.reshape(tf.range(6.), [3, 2]), tf.eye(2))",
    ),
    (
        "einsum_three_implicit",
        "tf.einsum('i,i,i', tf.constant([1., 2.]), tf.constant([3., 4.]), tf.constant([5., 6.]))",
    ),
    (
        "conv2d_transpose_valid",
        "tf.nn.conv2d_transpose(tf.reshape(tf.range(4.), [1, 2, 2, 1]), tf.reshape(tf.range(12.) / 10., [2, 2, 3, 1]), output_shape=[1, 3, 3, 3], strides=1, padding='VALID')",
    ),
]

GRADS = [
    ("sort", "lambda x: tf.sort(x)", [[3.0, 1.0, 2.0, 1.0]], False),
    (
        "sort_desc_axis0",
        "lambda x: tf.sort(x, axis=0, direction='DESCENDING')",
        [[[0.3, -1.0], [2.0, 0.5], [2.0, 0.1]]],
        False,
    ),
    ("top_k_ties", "lambda x: tf.math.top_k(x, k=3).values", [[[1.0, 3.0, 3.0, 2.0], [0.0, -1.0, 5.0, 5.0]]], False),
    ("roll", "lambda x: tf.roll(x, shift=[1, -1], axis=[0, 1])", [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]], False),
    ("reverse", "lambda x: tf.reverse(x, axis=[1])", [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]], False),
    ("repeat", "lambda x: tf.repeat(x, [2, 0, 1], axis=1)", [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]], False),
    (
        "boolean_mask",
        "lambda x: tf.boolean_mask(x, [True, False, True])",
        [[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]],
        False,
    ),
    ("segment_sum", "lambda x: tf.math.segment_sum(x, [0, 0, 2])", [[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]], False),
    (
        "unsorted_segment_sum",
        "lambda x: tf.math.unsorted_segment_sum(x, [2, 0, 2, -1], 3)",
        [[1.0, 2.0, 3.0, 4.0]],
        False,
    ),
    (
        "unsorted_segment_mean",
        "lambda x: tf.math.unsorted_segment_mean(x, [2, 0, 2, -1], 3)",
        [[1.0, 2.0, 3.0, 4.0]],
        False,
    ),
    (
        "unsorted_segment_max_ties",
        "lambda x: tf.math.unsorted_segment_max(x, [0, 0, 0, 1, -1], 3)",
        [[1.0, 3.0, 3.0, 2.0, 9.0]],
        True,
    ),
    ("scatter_nd", "lambda u: tf.scatter_nd([[1], [1], [3]], u, [5])", [[1.0, 2.0, 3.0]], False),
    (
        "gather_nd_batch_dims",
        "lambda x: tf.gather_nd(x, [[[2], [0], [2]], [[1], [1], [0]]], batch_dims=1)",
        [[[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]]],
        False,
    ),
    (
        "tensor_scatter_nd_add",
        "lambda t, u: tf.tensor_scatter_nd_add(t, [[1], [0]], u)",
        [[1.0, 2.0, 3.0], [5.0, 7.0]],
        False,
    ),
    (
        "tensor_scatter_nd_update",
        "lambda t, u: tf.tensor_scatter_nd_update(t, [[2], [0]], u)",
        [[1.0, 2.0, 3.0], [5.0, 7.0]],
        False,
    ),
    ("cumulative_logsumexp", "lambda x: tf.math.cumulative_logsumexp(x)", [[0.5, -1.0, 2.0, 0.0]], True),
    (
        "cumulative_logsumexp_excl_rev",
        "lambda x: tf.math.cumulative_logsumexp(x, axis=1, exclusive=True, reverse=True)",
        [[[0.5, -1.0, 2.0], [1.0, 1.0, -2.0]]],
        True,
    ),
    ("log_sigmoid", "lambda x: tf.math.log_sigmoid(x)", [[-30.0, -1.0, 0.0, 2.0, 40.0]], True),
    ("moments_mean", "lambda x: tf.nn.moments(x, axes=[0])[0]", [[[1.0, 2.0], [3.0, 5.0], [-1.0, 0.5]]], False),
    ("moments_variance", "lambda x: tf.nn.moments(x, axes=[0, 1])[1]", [[[1.0, 2.0], [3.0, 5.0], [-1.0, 0.5]]], True),
    (
        "batch_normalization",
        "lambda x, m, v, o, s: tf.nn.batch_normalization(x, m, v, o, s, 1e-3)",
        [[[1.0, 2.0], [3.0, 6.0]], [2.0, 4.0], [1.0, 4.0], [0.5, -0.5], [2.0, 3.0]],
        False,
    ),
    (
        "pad_reflect",
        "lambda x: tf.pad(x, [[1, 1], [2, 0]], mode='REFLECT')",
        [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]],
        False,
    ),
    (
        "pad_symmetric",
        "lambda x: tf.pad(x, [[2, 1], [0, 3]], mode='SYMMETRIC')",
        [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]],
        False,
    ),
    (
        "conv1d",
        "lambda x, f: tf.nn.conv1d(x, f, stride=2, padding='SAME')",
        [
            [[[0.5, -1.0], [2.0, 0.25], [1.0, 1.0], [-0.5, 0.0], [3.0, 1.5]]],
            [[[0.1], [0.2]], [[0.3], [-0.4]], [[0.5], [0.6]]],
        ],
        True,
    ),
    (
        "depthwise_conv2d",
        "lambda x, f: tf.nn.depthwise_conv2d(x, f, strides=[1, 1, 1, 1], padding='SAME')",
        [
            [
                [
                    [[0.5, -1.0], [2.0, 0.25], [1.0, 0.5]],
                    [[-0.5, 0.0], [3.0, 1.5], [0.25, -2.0]],
                    [[1.0, 1.0], [0.0, 2.0], [-1.0, 0.5]],
                ]
            ],
            [
                [[[0.1, 0.2], [0.3, -0.4]], [[0.5, 0.6], [-0.7, 0.8]]],
                [[[0.9, -1.0], [1.1, 1.2]], [[-1.3, 1.4], [1.5, 1.6]]],
            ],
        ],
        True,
    ),
    (
        "einsum_three",
        "lambda a, b, c: tf.einsum('ij,jk,k->i', a, b, c)",
        [[[0.5, -1.0, 2.0], [1.0, 0.25, -0.5]], [[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]], [0.75, -1.25]],
        True,
    ),
    (
        "einsum_ellipsis",
        "lambda a, b: tf.einsum('...ij,...jk->...ik', a, b)",
        [[[[0.5, -1.0], [2.0, 1.0]], [[1.0, 0.25], [-0.5, 3.0]]], [[1.0, 2.0, -1.0], [0.5, -1.0, 0.0]]],
        True,
    ),
    (
        "conv2d_transpose",
        "lambda x, f: tf.nn.conv2d_transpose(x, f, output_shape=[1, 4, 4, 1], strides=2, padding='SAME')",
        [
            [[[[0.5, -1.0], [2.0, 0.25]], [[1.0, 1.0], [-0.5, 0.0]]]],
            [[[[0.1, 0.2]], [[0.3, -0.4]]], [[[0.5, 0.6]], [[-0.7, 0.8]]]],
        ],
        False,
    ),
]


def clean(msg: str) -> str:
    if msg.startswith("{{function_node"):
        msg = msg.split("}} ", 1)[1]
    if " name: " in msg:
        msg = msg.rsplit(" name: ", 1)[0]
    return msg.strip()


def enc(v):
    """JSON-safe nested list: NaN and infinities as strings."""
    if isinstance(v, list):
        return [enc(x) for x in v]
    if isinstance(v, float) and not np.isfinite(v):
        return "nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def tensors(r):
    if isinstance(r, (tuple, list)):
        return [t for x in r for t in tensors(x)]
    return [r]


def describe(t):
    return {"value": enc(t.numpy().tolist()), "dtype": t.dtype.name, "shape": list(t.shape)}


def weights(shape, start, step):
    n = int(np.prod(shape))
    return (start + step * np.arange(n, dtype=np.float64)).reshape(shape)


out = {"values": [], "grads": []}
for case in VALUES:
    cid, expr = case[0], case[1]
    row = {"id": cid, "expr": expr}
    if len(case) > 2:
        row["msg"] = case[2]
    try:
        r = eval(expr)
        row["result"] = [describe(t) for t in tensors(r)]
    except Exception as e:  # noqa: BLE001 - recording TF's exception is the point
        row["error"] = {"class": type(e).__name__, "message": clean(str(e))}
    out["values"].append(row)

for cid, fn_src, inputs, order2 in GRADS:
    fn = eval(fn_src)
    xs = [tf.constant(np.array(a, dtype=np.float64)) for a in inputs]
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(xs)
        with tf.GradientTape() as inner:
            inner.watch(xs)
            y = fn(*xs)
            w = tf.constant(weights(y.shape, 1.0, 0.25))
            loss = tf.reduce_sum(y * w)
        grads = inner.gradient(loss, xs)
        second_obj = tf.reduce_sum(grads[0] * tf.constant(weights(grads[0].shape, 0.5, 0.125)))
    row = {"id": cid, "fn": fn_src, "inputs": inputs, "value": enc(y.numpy().tolist())}
    row["grads"] = [None if g is None else enc(g.numpy().tolist()) for g in grads]
    if order2:
        g2 = outer.gradient(second_obj, xs[0])
        row["second"] = None if g2 is None else enc(g2.numpy().tolist())
    out["grads"].append(row)

json.dump(out, sys.stdout, indent=1)
print()
