# ruff: noqa: E501  (a table of TF expressions, one per line)
# Generates surface_reference.json with TensorFlow 2.21 (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_surface_reference.py > tests/data/surface_reference.json
#
# Issue 20, "the rest of TensorFlow's numeric surface". Each case is Python source that runs
# unchanged under `tf = tensorflow` and `tf = tapers` (tests/test_surface.py evaluates the same
# strings with tapers and compares):
# - "values": an expression; TF's result (every tensor of a tensor, list or tuple: values, dtype,
#   shape; a Python value as itself) or its exception (class name and message, with TF's
#   "{{function_node ...}}" prefix and " name: ..." suffix removed). A third element False marks a
#   case whose message tapers words differently (the class must still match).
# - "grads": `fn` (a lambda of float64 tensors) at `inputs`: the output and the gradient of
#   sum(fn(*xs) * w) for each input, w = 1 + 0.25 * arange(size) in the output's shape; with
#   the fourth element True, also the gradient of sum(grad_0 * u) (u = 0.5 + 0.125 * arange).
import json
import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow as tf

VALUES = [
    # tf.math reductions and helpers
    ("count_nonzero_all", "tf.math.count_nonzero(tf.constant([[0., 1., 2.], [0., 0., 3.]]))"),
    ("count_nonzero_axis", "tf.math.count_nonzero(tf.constant([[0, 1, 2], [0, 0, 3]]), axis=1, keepdims=True)"),
    ("count_nonzero_bool_dtype", "tf.math.count_nonzero(tf.constant([True, False, True]), dtype=tf.int32)"),
    ("count_nonzero_nan", "tf.math.count_nonzero(tf.constant([float('nan'), -0., 0.]))"),
    ("euclidean_norm_all", "tf.math.reduce_euclidean_norm(tf.constant([[3., 4.], [0., 12.]]))"),
    ("euclidean_norm_axis", "tf.math.reduce_euclidean_norm(tf.constant([[3., 4.], [0., 12.]]), axis=1, keepdims=True)"),
    ("euclidean_norm_int", "tf.math.reduce_euclidean_norm(tf.constant([[1, 1], [3, 4]]), axis=1)"),
    ("euclidean_norm_f64", "tf.math.reduce_euclidean_norm(tf.constant([1., 2., 2.], dtype=tf.float64), axis=0)"),
    ("math_l2_normalize", "tf.math.l2_normalize(tf.constant([[3., 4.], [0., 0.]]), axis=1)"),
    ("linalg_l2_normalize", "tf.linalg.l2_normalize(tf.constant([1., 2., 2.]))"),
    ("math_softmax", "tf.math.softmax(tf.constant([[1., 2., 3.]]))"),
    ("math_log_softmax_axis0", "tf.math.log_softmax(tf.constant([[1., 2.], [3., 5.]]), axis=0)"),
    ("segment_max", "tf.math.segment_max(tf.constant([[1., 5.], [3., 2.], [0., 9.], [4., 4.]]), [0, 0, 2, 2])"),
    ("segment_min_int", "tf.math.segment_min(tf.constant([5, 1, 7, 2]), [0, 0, 1, 3])"),
    ("segment_mean", "tf.math.segment_mean(tf.constant([1., 2., 3., 6.]), [0, 0, 2, 2])"),
    ("segment_prod", "tf.math.segment_prod(tf.constant([2., 3., 4., 5.]), [0, 0, 1, 3])"),
    ("segment_max_unsorted_ids", "tf.math.segment_max(tf.constant([1., 2., 3.]), [1, 0, 1])"),
    ("segment_max_bad_len", "tf.math.segment_max(tf.constant([1., 2., 3.]), [0, 0])"),
    ("unsorted_segment_min", "tf.math.unsorted_segment_min(tf.constant([3., 1., 2., 8.]), [1, 1, -1, 0], 3)"),
    ("unsorted_segment_min_int", "tf.math.unsorted_segment_min(tf.constant([3, 1, 2]), [1, 1, 0], 3)"),
    (
        "unsorted_segment_min_2d_ids",
        "tf.math.unsorted_segment_min(tf.reshape(tf.range(12.), [2, 3, 2]), [[0, 1, 0], [2, 2, 1]], 4)",
    ),
    (
        "unsorted_segment_prod",
        "tf.math.unsorted_segment_prod(tf.constant([[1., 2.], [3., 4.], [5., 6.]]), [0, 2, 0], 3)",
    ),
    ("unsorted_segment_prod_int", "tf.math.unsorted_segment_prod(tf.constant([2, 3, 4]), [0, 0, 1], 2)"),
    ("unsorted_segment_sqrt_n", "tf.math.unsorted_segment_sqrt_n(tf.constant([1., 2., 3., 4.]), [0, 0, 1, 0], 3)"),
    ("unsorted_segment_min_out_of_range", "tf.math.unsorted_segment_min(tf.constant([1., 2.]), [0, 3], 2)"),
    ("in_top_k", "tf.math.in_top_k([1, 0, 2], tf.constant([[0.1, 0.9, 0.3], [0.5, 0.5, 0.5], [1., 2., 0.]]), 1)"),
    ("in_top_k_ties", "tf.nn.in_top_k([0, 2], tf.constant([[0.5, 0.5, 0.1], [0.2, 0.3, 0.3]]), 1)"),
    (
        "in_top_k_k2",
        "tf.math.in_top_k(tf.constant([2, 1], dtype=tf.int64), tf.constant([[0.1, 0.9, 0.3], [0.5, 0.2, 0.4]]), 2)",
    ),
    ("in_top_k_out_of_range", "tf.math.in_top_k([3, -1], tf.constant([[0.1, 0.9, 0.3], [0.5, 0.2, 0.4]]), 2)"),
    ("in_top_k_nonfinite", "tf.math.in_top_k([0, 1], tf.constant([[float('nan'), 0.9], [0.5, float('inf')]]), 2)"),
    ("confusion_matrix", "tf.math.confusion_matrix([1, 2, 4, 2], [2, 2, 4, 1])"),
    ("confusion_matrix_num_classes", "tf.math.confusion_matrix([1, 0], [0, 0], num_classes=3, dtype=tf.float32)"),
    (
        "confusion_matrix_weights",
        "tf.math.confusion_matrix([1, 0, 1], [0, 0, 0], weights=tf.constant([0.5, 1., 2.]), dtype=tf.float32)",
    ),
    ("confusion_matrix_negative", "tf.math.confusion_matrix([-1, 0], [0, 0])", False),
    ("confusion_matrix_out_of_bound", "tf.math.confusion_matrix([1, 3], [0, 0], num_classes=3)", False),
    ("invert_permutation", "tf.math.invert_permutation([3, 4, 0, 2, 1])"),
    ("invert_permutation_int64", "tf.math.invert_permutation(tf.constant([1, 0], dtype=tf.int64))"),
    ("invert_permutation_dup", "tf.math.invert_permutation([0, 0, 1])"),
    ("invert_permutation_range", "tf.math.invert_permutation([0, 5, 1])"),
    ("is_non_decreasing", "tf.math.is_non_decreasing([1, 2, 2, 3])"),
    ("is_non_decreasing_no", "tf.math.is_non_decreasing(tf.constant([[1., 2.], [0., 3.]]))"),
    ("is_non_decreasing_empty", "tf.math.is_non_decreasing(tf.constant([], dtype=tf.float32))"),
    ("is_strictly_increasing", "tf.math.is_strictly_increasing([1, 2, 3])"),
    ("is_strictly_increasing_no", "tf.math.is_strictly_increasing([1, 2, 2])"),
    ("polyval", "tf.math.polyval([2., 3., 4.], tf.constant([0., 1., 2.]))"),
    ("polyval_empty", "tf.math.polyval([], tf.constant([1., 2.]))"),
    ("polyval_int", "tf.math.polyval([1, -1], tf.constant(5))"),
    ("accumulate_n", "tf.math.accumulate_n([tf.constant([1., 2.]), tf.constant([3., 4.]), tf.constant([5., 6.])])"),
    ("accumulate_n_shape_mismatch", "tf.math.accumulate_n([tf.constant([1., 2.]), tf.constant([3.])])"),
    ("scalar_mul", "tf.math.scalar_mul(2., tf.constant([1., 2.]))"),
    ("scalar_mul_top", "tf.scalar_mul(tf.constant(3), tf.constant([1, 2]))"),
    ("scalar_mul_not_scalar", "tf.math.scalar_mul(tf.constant([1., 2.]), tf.constant([1., 2.]))"),
    ("zero_fraction", "tf.math.zero_fraction(tf.constant([0., 1., 0., 3.]))"),
    ("zero_fraction_nn_int", "tf.nn.zero_fraction(tf.constant([[0, 1], [2, 0]]))"),
    # top-level array ops
    ("slice", "tf.slice(tf.reshape(tf.range(24), [2, 3, 4]), [1, 0, 1], [1, 2, -1])"),
    ("slice_out_of_range", "tf.slice(tf.constant([1, 2, 3]), [2], [2])"),
    ("strided_slice_basic", "tf.strided_slice(tf.reshape(tf.range(24), [2, 3, 4]), [0, 1, 0], [2, 3, 4], [1, 1, 2])"),
    (
        "strided_slice_masks",
        "tf.strided_slice(tf.reshape(tf.range(24), [2, 3, 4]), [1, 0, 3], [0, 2, 0], [1, 1, -1], begin_mask=2, end_mask=5)",
    ),
    (
        "strided_slice_shrink",
        "tf.strided_slice(tf.reshape(tf.range(24), [2, 3, 4]), [1, 2, 0], [2, 3, 4], shrink_axis_mask=3)",
    ),
    (
        "strided_slice_ellipsis_newaxis",
        "tf.strided_slice(tf.reshape(tf.range(24.), [2, 3, 4]), [0, 0, 1], [0, 0, 3], [1, 1, 1], ellipsis_mask=1, new_axis_mask=2)",
    ),
    ("strided_slice_negative", "tf.strided_slice(tf.constant([1, 2, 3, 4, 5]), [-1], [-4], [-1])"),
    ("identity_n", "tf.identity_n([tf.constant(1.), tf.constant([2, 3])])"),
    ("sequence_mask", "tf.sequence_mask([1, 3, 2], 5)"),
    ("sequence_mask_default", "tf.sequence_mask(tf.constant([[1, 3], [2, 0]]))"),
    ("sequence_mask_dtype", "tf.sequence_mask([2, 0], 3, dtype=tf.float32)"),
    ("reverse_sequence", "tf.reverse_sequence(tf.reshape(tf.range(12), [3, 4]), [4, 0, 2], seq_axis=1, batch_axis=0)"),
    (
        "reverse_sequence_batch1",
        "tf.reverse_sequence(tf.reshape(tf.range(12.), [4, 3]), tf.constant([2, 4, 1], dtype=tf.int64), seq_axis=0, batch_axis=1)",
    ),
    (
        "reverse_sequence_too_long",
        "tf.reverse_sequence(tf.reshape(tf.range(6), [2, 3]), [4, 1], seq_axis=1, batch_axis=0)",
    ),
    (
        "tensor_scatter_nd_max",
        "tf.tensor_scatter_nd_max(tf.constant([1., 5., 3., 0.]), [[0], [1], [0]], tf.constant([4., 2., 6.]))",
    ),
    (
        "tensor_scatter_nd_min_2d",
        "tf.tensor_scatter_nd_min(tf.reshape(tf.range(6), [3, 2]), [[2], [0]], tf.constant([[1, 9], [-1, 0]]))",
    ),
    ("tensor_scatter_nd_sub", "tf.tensor_scatter_nd_sub(tf.constant([1., 2., 3.]), [[2], [2]], tf.constant([1., 5.]))"),
    ("tensor_scatter_nd_max_bad_index", "tf.tensor_scatter_nd_max(tf.constant([1., 2.]), [[3]], tf.constant([1.]))"),
    ("unique_with_counts", "tf.unique_with_counts(tf.constant([1, 1, 2, 4, 4, 4, 7, 8, 8]))"),
    ("unique_with_counts_int64", "tf.unique_with_counts(tf.constant([3., 1., 3.]), out_idx=tf.int64)"),
    ("unravel_index", "tf.unravel_index([2, 5, 7], [3, 3])"),
    (
        "unravel_index_scalar",
        "tf.unravel_index(tf.constant(1621, dtype=tf.int64), tf.constant([6, 7, 8, 9], dtype=tf.int64))",
    ),
    ("unravel_index_oob", "tf.unravel_index([9], [3, 3])"),
    ("dynamic_partition", "tf.dynamic_partition(tf.constant([10., 20., 30., 40., 50.]), [0, 0, 1, 1, 0], 2)"),
    ("dynamic_partition_2d", "tf.dynamic_partition(tf.reshape(tf.range(12), [2, 3, 2]), [[1, 0, 2], [2, 2, 0]], 3)"),
    ("dynamic_partition_bad", "tf.dynamic_partition(tf.constant([1, 2]), [0, 3], 2)"),
    ("dynamic_stitch", "tf.dynamic_stitch([[0, 2], [1, 3]], [tf.constant([1., 2.]), tf.constant([3., 4.])])"),
    (
        "dynamic_stitch_overwrite",
        "tf.dynamic_stitch([[0, 1], [1]], [tf.constant([[1, 2], [3, 4]]), tf.constant([[9, 9]])])",
    ),
    ("shape_n", "tf.shape_n([tf.zeros([2, 3]), tf.constant(1.)])"),
    ("shape_n_int64", "tf.shape_n([tf.zeros([4])], out_type=tf.int64)"),
    ("saturate_cast_f2u8", "tf.saturate_cast(tf.constant([-5., 100., 300., 1e10]), tf.uint8)"),
    ("saturate_cast_i2i8", "tf.saturate_cast(tf.constant([-1000, 5, 1000]), tf.int8)"),
    ("saturate_cast_f2i32", "tf.saturate_cast(tf.constant([-3e9, 1.5, 3e9]), tf.int32)"),
    ("saturate_cast_f64f32", "tf.saturate_cast(tf.constant([1e300, -1e300, 2.], dtype=tf.float64), tf.float32)"),
    (
        "histogram_fixed_width",
        "tf.histogram_fixed_width(tf.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15.]), [0.0, 5.0], nbins=5)",
    ),
    (
        "histogram_fixed_width_int64",
        "tf.histogram_fixed_width(tf.constant([1, 2, 3, 9]), [0, 10], nbins=2, dtype=tf.int64)",
    ),
    ("is_tensor_tensor", "tf.is_tensor(tf.constant(1.))"),
    ("is_tensor_variable", "tf.is_tensor(tf.Variable(1.))"),
    ("is_tensor_numpy", "tf.is_tensor(np.ones(2))"),
    ("is_tensor_float", "tf.is_tensor(1.0)"),
    ("executing_eagerly", "tf.executing_eagerly()"),
    ("no_op", "tf.no_op()"),
    ("group", "tf.group(tf.constant(1.), tf.constant(2.))"),
    ("scan_sum", "tf.scan(lambda a, x: a + x, tf.constant([1., 2., 3., 4.]))"),
    (
        "scan_init_reverse",
        "tf.scan(lambda a, x: a * 2 + x, tf.constant([1, 2, 3]), initializer=tf.constant(10), reverse=True)",
    ),
    (
        "scan_nested",
        "tf.scan(lambda a, x: (a[0] + x[0], a[1] * x[1]), (tf.constant([1., 2., 3.]), tf.constant([2., 3., 4.])))",
    ),
    ("foldl", "tf.foldl(lambda a, x: a * 10 + x, tf.constant([1, 2, 3]))"),
    ("foldr", "tf.foldr(lambda a, x: a * 10 + x, tf.constant([1, 2, 3]))"),
    ("foldl_init", "tf.foldl(lambda a, x: a - x, tf.constant([1., 2.]), initializer=tf.constant(10.))"),
    ("get_static_value", "tf.get_static_value(tf.constant([1, 2]))"),
    ("get_static_value_py", "tf.get_static_value(3)"),
    # tf.nn
    ("l2_loss", "tf.nn.l2_loss(tf.constant([[1., 2.], [3., 4.]]))"),
    ("crelu", "tf.nn.crelu(tf.constant([[1., -2.], [-3., 4.]]))"),
    ("crelu_axis0", "tf.nn.crelu(tf.constant([[1., -2.], [-3., 4.]]), axis=0)"),
    ("compute_average_loss", "tf.nn.compute_average_loss(tf.constant([1., 2., 3., 6.]))"),
    (
        "compute_average_loss_weighted",
        "tf.nn.compute_average_loss(tf.constant([1., 2., 3.]), sample_weight=tf.constant([1., 0., 2.]), global_batch_size=6)",
    ),
    (
        "weighted_cross_entropy",
        "tf.nn.weighted_cross_entropy_with_logits(tf.constant([1., 0., 0.5]), tf.constant([2., -1., 30.]), 3.)",
    ),
    ("log_poisson_loss", "tf.nn.log_poisson_loss(tf.constant([0., 1., 3., 7.]), tf.constant([0.5, -1., 1., 2.]))"),
    (
        "log_poisson_loss_full",
        "tf.nn.log_poisson_loss(tf.constant([0., 1., 3., 7.]), tf.constant([0.5, -1., 1., 2.]), compute_full_loss=True)",
    ),
    ("sufficient_statistics", "tf.nn.sufficient_statistics(tf.constant([[1., 2.], [3., 6.]]), [0])"),
    (
        "sufficient_statistics_shift",
        "tf.nn.sufficient_statistics(tf.constant([[1., 2.], [3., 6.]]), [0, 1], shift=tf.constant(1.), keepdims=True)",
    ),
    (
        "normalize_moments",
        "tf.nn.normalize_moments(tf.constant(2.), tf.constant([4., 8.]), tf.constant([10., 40.]), None)",
    ),
    (
        "normalize_moments_shift",
        "tf.nn.normalize_moments(tf.constant(2.), tf.constant([4., 8.]), tf.constant([10., 40.]), tf.constant(1.))",
    ),
    ("weighted_moments", "tf.nn.weighted_moments(tf.constant([[1., 2.], [3., 6.]]), [0], tf.constant([[1.], [3.]]))"),
    (
        "weighted_moments_zero_weight",
        "tf.nn.weighted_moments(tf.constant([[1., 2.]]), [1], tf.constant([[0., 0.]]), keepdims=True)",
    ),
    ("space_to_depth", "tf.nn.space_to_depth(tf.reshape(tf.range(32), [1, 4, 4, 2]), 2)"),
    ("depth_to_space", "tf.nn.depth_to_space(tf.reshape(tf.range(16), [1, 1, 2, 8]), 2)"),
    ("space_to_depth_indivisible", "tf.nn.space_to_depth(tf.zeros([1, 3, 4, 1]), 2)"),
    ("max_pool1d", "tf.nn.max_pool1d(tf.reshape(tf.range(10.), [1, 5, 2]), 2, 2, 'VALID')"),
    ("max_pool1d_same", "tf.nn.max_pool1d(tf.reshape(tf.range(10.), [1, 5, 2]), 3, 2, 'SAME')"),
    ("avg_pool1d_same", "tf.nn.avg_pool1d(tf.reshape(tf.range(10.), [1, 5, 2]), 3, 2, 'SAME')"),
    # tf.linalg
    ("cross", "tf.linalg.cross(tf.constant([[1., 0., 0.], [1., 2., 3.]]), tf.constant([[0., 1., 0.], [4., 5., 6.]]))"),
    ("cross_bad_dim", "tf.linalg.cross(tf.constant([1., 2.]), tf.constant([3., 4.]))"),
    ("set_diag", "tf.linalg.set_diag(tf.ones([2, 3, 3]), tf.constant([[1., 2., 3.], [4., 5., 6.]]))"),
    ("set_diag_rect", "tf.linalg.set_diag(tf.zeros([2, 3]), tf.constant([7., 8.]))"),
    ("matrix_rank", "tf.linalg.matrix_rank(tf.constant([[1., 2.], [2., 4.]]))"),
    ("matrix_rank_batch", "tf.linalg.matrix_rank(tf.stack([tf.eye(3), tf.zeros([3, 3])]))"),
    ("matrix_rank_tol", "tf.linalg.matrix_rank(tf.constant([[1., 0.], [0., 1e-3]]), tol=0.01)"),
    ("tensor_diag", "tf.linalg.tensor_diag(tf.constant([[1, 2], [3, 4]]))"),
    ("tensor_diag_part", "tf.linalg.tensor_diag_part(tf.reshape(tf.range(16.), [2, 2, 2, 2]))"),
    ("tensor_diag_part_vector", "tf.linalg.tensor_diag_part(tf.reshape(tf.range(9), [3, 3]))"),
    # more edge cases and errors
    (
        "reverse_sequence_too_long_second",
        "tf.reverse_sequence(tf.reshape(tf.range(6), [2, 3]), [1, 4], seq_axis=1, batch_axis=0)",
    ),
    (
        "reverse_sequence_same_axis",
        "tf.reverse_sequence(tf.reshape(tf.range(6), [2, 3]), [1, 2], seq_axis=0, batch_axis=0)",
    ),
    ("strided_slice_shrink_oob", "tf.strided_slice(tf.constant([1, 2, 3]), [5], [6], shrink_axis_mask=1)"),
    ("strided_slice_zero_stride", "tf.strided_slice(tf.constant([1, 2, 3]), [0], [2], [0])"),
    ("strided_slice_empty", "tf.strided_slice(tf.constant([1, 2, 3]), [2], [1])"),
    ("slice_negative_begin", "tf.slice(tf.constant([1, 2, 3]), [-1], [1])"),
    ("unique_with_counts_2d", "tf.unique_with_counts(tf.constant([[1, 2]]))"),
    ("in_top_k_bad_rank", "tf.math.in_top_k([0], tf.constant([0.1, 0.9]), 1)"),
    ("histogram_bad_nbins", "tf.histogram_fixed_width(tf.constant([1., 2.]), [0., 1.], nbins=0)"),
    ("histogram_reversed_range", "tf.histogram_fixed_width(tf.constant([1., 2.]), [1., 0.], nbins=2)"),
    ("set_diag_bad_shape", "tf.linalg.set_diag(tf.zeros([2, 2]), tf.constant([1., 2., 3.]))"),
    ("tensor_diag_part_bad_shape", "tf.linalg.tensor_diag_part(tf.zeros([2, 3]))"),
    ("depth_to_space_indivisible", "tf.nn.depth_to_space(tf.zeros([1, 1, 1, 6]), 2)"),
    ("space_to_depth_rank", "tf.nn.space_to_depth(tf.zeros([4, 4, 2]), 2)"),
    (
        "matrix_rank_f64",
        "tf.linalg.matrix_rank(tf.constant([[1., 2., 3.], [2., 4., 6.], [0., 1., 0.]], dtype=tf.float64))",
    ),
    ("confusion_matrix_shape_mismatch", "tf.math.confusion_matrix([1, 0], [0, 0, 1])"),
    (
        "dynamic_stitch_2d_indices",
        "tf.dynamic_stitch([[[0], [3]], [1, 2]], [tf.constant([[[1., 1.]], [[4., 4.]]]), tf.constant([[2., 2.], [3., 3.]])])",
    ),
    ("sequence_mask_scalar", "tf.sequence_mask(3, 5)"),
    ("euclidean_norm_empty", "tf.math.reduce_euclidean_norm(tf.zeros([0, 2]), axis=0)"),
    ("count_nonzero_empty", "tf.math.count_nonzero(tf.zeros([0]))"),
    ("segment_sum_prod_empty", "tf.math.segment_prod(tf.zeros([0, 2]), tf.zeros([0], tf.int32))"),
    (
        "unsorted_segment_sqrt_n_2d_ids",
        "tf.math.unsorted_segment_sqrt_n(tf.reshape(tf.range(8.), [2, 2, 2]), [[0, 1], [1, 1]], 2)",
    ),
    (
        "tensor_scatter_nd_max_slices",
        "tf.tensor_scatter_nd_max(tf.zeros([2, 3]), [[1], [1]], tf.constant([[1., -1., 2.], [0., 3., 1.]]))",
    ),
    ("saturate_cast_int64_to_f16", "tf.saturate_cast(tf.constant([70000, -5], dtype=tf.int64), tf.float16)"),
    ("saturate_cast_i64_to_u32", "tf.saturate_cast(tf.constant([2 ** 62, -5, 7], dtype=tf.int64), tf.uint32)"),
    (
        "saturate_cast_c128_to_c64",
        "tf.saturate_cast(tf.complex(tf.constant([1e300, 2.], dtype=tf.float64), tf.constant([-1e300, 3.], dtype=tf.float64)), tf.complex64)",
    ),
    (
        "saturate_cast_c64_to_u8",
        "tf.saturate_cast(tf.complex(tf.constant([300., -2.]), tf.constant([1., 1.])), tf.uint8)",
    ),
    ("saturate_cast_bf16_to_u8", "tf.saturate_cast(tf.constant([1.5, 300., -3.], dtype=tf.bfloat16), tf.uint8)"),
    ("saturate_cast_u8_to_i8", "tf.saturate_cast(tf.constant([200, 5], dtype=tf.uint8), tf.int8)"),
    ("polyval_not_list", "tf.math.polyval(tf.constant([1., 2.]), tf.constant(1.))", False),
    ("scalar_mul_python_float_int", "tf.math.scalar_mul(2.5, tf.constant([1, 2]))"),
    ("crelu_f64", "tf.nn.crelu(tf.constant([0., -1.5], dtype=tf.float64))"),
    ("l2_loss_f64", "tf.nn.l2_loss(tf.constant([3., 4.], dtype=tf.float64))"),
    # space/batch rearrangements and small helpers
    ("space_to_batch_nd", "tf.space_to_batch_nd(tf.reshape(tf.range(16), [1, 4, 4, 1]), [2, 2], [[0, 0], [0, 0]])"),
    ("space_to_batch_pad", "tf.space_to_batch(tf.reshape(tf.range(12.), [2, 3, 2]), [2], [[1, 0]])"),
    (
        "nn_space_to_batch_rest",
        "tf.nn.space_to_batch(tf.reshape(tf.range(24), [1, 2, 4, 3]), [2, 2], [[0, 0], [1, 1]])",
    ),
    ("space_to_batch_indivisible", "tf.space_to_batch_nd(tf.zeros([1, 3, 1]), [2], [[0, 0]])"),
    ("batch_to_space", "tf.batch_to_space(tf.reshape(tf.range(16), [4, 2, 2, 1]), [2, 2], [[0, 0], [0, 0]])"),
    ("batch_to_space_crops", "tf.batch_to_space(tf.reshape(tf.range(24.), [4, 3, 2]), [2], [[1, 2]])"),
    ("batch_to_space_bad_batch", "tf.batch_to_space(tf.zeros([3, 2, 1]), [2], [[0, 0]])"),
    ("ensure_shape", "tf.ensure_shape(tf.zeros([3, 2]), [None, 2])"),
    ("ensure_shape_bad", "tf.ensure_shape(tf.zeros([3]), [2])"),
    ("broadcast_static_shape", "list(tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([3])))"),
    ("broadcast_static_shape_bad", "tf.broadcast_static_shape(tf.TensorShape([2]), tf.TensorShape([3]))"),
    ("broadcast_dynamic_shape", "tf.broadcast_dynamic_shape(tf.constant([2, 1, 4]), tf.constant([3, 1]))"),
    ("broadcast_dynamic_shape_bad", "tf.broadcast_dynamic_shape([2], [3])"),
    ("tuple", "tf.tuple([tf.constant(1.), tf.constant([2])])"),
    ("parallel_stack_eager", "tf.parallel_stack([tf.constant(1.), tf.constant(2.)])"),
    ("get_current_name_scope", "tf.get_current_name_scope()"),
    ("scale_regularization_loss", "tf.nn.scale_regularization_loss(tf.constant([1., 2.5]))"),
    (
        "batch_norm_global",
        "tf.nn.batch_norm_with_global_normalization(tf.constant([[1., 2.], [3., 6.]]), tf.constant([2., 4.]), tf.constant([1., 4.]), tf.constant([0.5, -0.5]), tf.constant([2., 3.]), 1e-3, True)",
    ),
    (
        "batch_norm_global_unscaled",
        "tf.nn.batch_norm_with_global_normalization(tf.constant([[1., 2.], [3., 6.]]), tf.constant([2., 4.]), tf.constant([1., 4.]), tf.constant([0.5, -0.5]), tf.constant([2., 3.]), 1e-3, False)",
    ),
    (
        "atrous_conv2d",
        "tf.nn.atrous_conv2d(tf.reshape(tf.range(50.), [1, 5, 5, 2]), tf.reshape(tf.range(24.) / 10., [2, 2, 2, 3]), 2, 'SAME')",
    ),
    (
        "separable_conv2d",
        "tf.nn.separable_conv2d(tf.reshape(tf.range(32.), [1, 4, 4, 2]), tf.reshape(tf.range(16.) / 10., [2, 2, 2, 2]), tf.reshape(tf.range(12.) / 10., [1, 1, 4, 3]), [1, 1, 1, 1], 'VALID')",
    ),
    (
        "conv1d_transpose",
        "tf.nn.conv1d_transpose(tf.reshape(tf.range(8.), [1, 4, 2]), tf.reshape(tf.range(18.) / 10., [3, 3, 2]), [1, 8, 3], 2, 'SAME')",
    ),
    # approx_max_k (exact on CPU), lrn, convolution / pool dispatchers
    ("approx_max_k", "tf.math.approx_max_k(tf.constant([[1., 5., 3., 5.], [2., 0., 7., 1.]]), 2)"),
    # TF's dtype errors append the op's NodeDef, which tapers does not write out (class checked)
    ("approx_max_k_nn_int", "tf.nn.approx_max_k(tf.constant([1, 3, 2]), 2)", False),
    ("approx_max_k_f64", "tf.math.approx_max_k(tf.constant([1., 3., 2.], dtype=tf.float64), 2)", False),
    ("lrn", "tf.nn.lrn(tf.reshape(tf.range(12.), [1, 1, 2, 6]), depth_radius=2, bias=1., alpha=0.1, beta=0.75)"),
    (
        "local_response_normalization_default",
        "tf.nn.local_response_normalization(tf.reshape(tf.range(24.) / 10., [1, 2, 1, 12]))",
    ),
    ("lrn_rank", "tf.nn.lrn(tf.zeros([2, 3]))", False),
    ("lrn_f64", "tf.nn.lrn(tf.zeros([1, 1, 1, 2], dtype=tf.float64))", False),
    (
        "convolution_1d",
        "tf.nn.convolution(tf.reshape(tf.range(10.), [1, 5, 2]), tf.reshape(tf.range(12.) / 10., [3, 2, 2]), padding='SAME')",
    ),
    (
        "convolution_2d_strided_dilated",
        "tf.nn.convolution(tf.reshape(tf.range(72.), [1, 6, 6, 2]), tf.reshape(tf.range(24.) / 10., [2, 2, 2, 3]), strides=[1, 1], dilations=[2, 2])",
    ),
    ("pool_max_2d", "tf.nn.pool(tf.reshape(tf.range(32.), [1, 4, 4, 2]), [2, 2], 'MAX', strides=[2, 2])"),
    ("pool_avg_1d_same", "tf.nn.pool(tf.reshape(tf.range(10.), [1, 5, 2]), [3], 'AVG', strides=[2], padding='SAME')"),
    # linalg.expm: TF's Padé / scaling-and-squaring algorithm
    ("expm_f64", "tf.linalg.expm(tf.constant([[0.5, 1.], [-2., 0.3]], dtype=tf.float64))"),
    ("expm_f32_batch", "tf.linalg.expm(tf.reshape(tf.range(18.) / 7. - 1., [2, 3, 3]))"),
    ("expm_large_norm", "tf.linalg.expm(tf.constant([[3., -4.], [5., 1.]], dtype=tf.float64))"),
    (
        "expm_mixed_batch",
        "tf.linalg.expm(tf.constant([[[0.001, 0.], [0., 0.002]], [[8., 1.], [0., -6.]]], dtype=tf.float64))",
    ),
    ("expm_empty", "tf.linalg.expm(tf.zeros([2, 0, 0]))"),
    # tridiagonal matmul / solve in the three formats
    (
        "tridiagonal_matmul_compact",
        "tf.linalg.tridiagonal_matmul(tf.constant([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]]), tf.reshape(tf.range(6.), [3, 2]))",
    ),
    (
        "tridiagonal_matmul_sequence",
        "tf.linalg.tridiagonal_matmul([tf.constant([1., 2., 0.]), tf.constant([4., 5., 6.]), tf.constant([0., 8., 9.])], tf.reshape(tf.range(6.), [3, 2]), diagonals_format='sequence')",
    ),
    (
        "tridiagonal_matmul_matrix_batch",
        "tf.linalg.tridiagonal_matmul(tf.constant([[[4., 1., 9.], [2., 5., 3.], [9., 1., 6.]], [[1., 2., 0.], [3., 4., 5.], [0., 6., 7.]]]), tf.reshape(tf.range(12.), [2, 3, 2]), diagonals_format='matrix')",
    ),
    (
        "tridiagonal_solve_compact",
        "tf.linalg.tridiagonal_solve(tf.constant([[1., 2., 0.], [4., 5., 7.], [0., 8., 9.]], dtype=tf.float64), tf.constant([[1.], [2.], [3.]], dtype=tf.float64))",
    ),
    (
        "tridiagonal_solve_sequence_short",
        "tf.linalg.tridiagonal_solve([tf.constant([1., 2.]), tf.constant([4., 5., 7.]), tf.constant([8., 9.])], tf.constant([1., 2., 3.]), diagonals_format='sequence')",
    ),
    (
        "tridiagonal_solve_matrix_transpose",
        "tf.linalg.tridiagonal_solve(tf.constant([[4., 1., 0.], [2., 5., 3.], [0., 1., 6.]], dtype=tf.float64), tf.constant([[1., 2., 3.], [0., 1., 0.]], dtype=tf.float64), diagonals_format='matrix', transpose_rhs=True)",
    ),
    # more helpers
    ("required_space_to_batch_paddings", "tf.required_space_to_batch_paddings([5, 7], [2, 3])"),
    (
        "required_space_to_batch_paddings_base",
        "tf.required_space_to_batch_paddings([5, 6], [4, 3], base_paddings=[[1, 1], [0, 2]])",
    ),
    (
        "histogram_fixed_width_bins",
        "tf.histogram_fixed_width_bins(tf.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15.]), [0.0, 5.0], nbins=5)",
    ),
    (
        "histogram_fixed_width_bins_int",
        "tf.histogram_fixed_width_bins(tf.constant([[1, 2], [3, 9]]), [0, 10], nbins=3, dtype=tf.int64)",
    ),
    (
        "conv_transpose_2d",
        "tf.nn.conv_transpose(tf.reshape(tf.range(8.), [1, 2, 2, 2]), tf.reshape(tf.range(36.) / 10., [3, 3, 2, 2]), [1, 4, 4, 2], 2)",
    ),
    (
        "conv_transpose_1d",
        "tf.nn.conv_transpose(tf.reshape(tf.range(6.), [1, 3, 2]), tf.reshape(tf.range(12.) / 10., [3, 2, 2]), [1, 6, 2], 2)",
    ),
    (
        "atrous_conv2d_transpose",
        "tf.nn.atrous_conv2d_transpose(tf.reshape(tf.range(18.), [1, 3, 3, 2]), tf.reshape(tf.range(24.) / 10., [2, 2, 3, 2]), [1, 5, 5, 3], 2, 'VALID')",
    ),
]

GRADS = [
    ("reduce_euclidean_norm", "lambda x: tf.math.reduce_euclidean_norm(x, axis=1)", [[[3.0, 4.0], [1.0, -2.0]]], True),
    (
        "count_nonzero_none",
        "lambda x: tf.cast(tf.math.count_nonzero(x), tf.float64) + tf.reduce_sum(x)",
        [[0.0, 1.0]],
        False,
    ),
    ("segment_max_ties", "lambda x: tf.math.segment_max(x, [0, 0, 0, 2])", [[1.0, 3.0, 3.0, 2.0]], False),
    ("segment_min_2d", "lambda x: tf.math.segment_min(x, [0, 0, 1])", [[[1.0, 5.0], [1.0, 2.0], [4.0, 0.5]]], False),
    ("segment_mean", "lambda x: tf.math.segment_mean(x, [0, 0, 1, 3])", [[1.0, 2.0, 3.0, 4.0]], False),
    ("segment_prod_zero", "lambda x: tf.math.segment_prod(x, [0, 0, 0, 1, 1])", [[2.0, 0.0, 3.0, 4.0, 5.0]], False),
    (
        "unsorted_segment_min_ties",
        "lambda x: tf.math.unsorted_segment_min(x, [1, 1, 1, 0, -1], 3)",
        [[1.0, 3.0, 1.0, 2.0, 9.0]],
        False,
    ),
    (
        "unsorted_segment_prod_zeros",
        "lambda x: tf.math.unsorted_segment_prod(x, [0, 1, 0, 1, 1], 2)",
        [[0.0, 0.0, 3.0, 0.0, 5.0]],
        False,
    ),
    (
        "unsorted_segment_prod_2d",
        "lambda x: tf.math.unsorted_segment_prod(x, [1, 0, 1], 3)",
        [[[1.0, 2.0], [3.0, 4.0], [5.0, -6.0]]],
        False,
    ),
    (
        "unsorted_segment_sqrt_n",
        "lambda x: tf.math.unsorted_segment_sqrt_n(x, [0, 0, 1, 0, -1], 3)",
        [[1.0, 2.0, 3.0, 4.0, 5.0]],
        False,
    ),
    ("polyval", "lambda c, x: tf.math.polyval([c[0], c[1], c[2]], x)", [[2.0, -3.0, 4.0], [0.5, 1.0, 2.0]], True),
    ("scalar_mul", "lambda s, x: tf.math.scalar_mul(s, x)", [3.0, [1.0, 2.0]], False),
    ("accumulate_n", "lambda a, b: tf.math.accumulate_n([a, b, a])", [[1.0, 2.0], [3.0, 4.0]], False),
    ("l2_normalize_math", "lambda x: tf.math.l2_normalize(x, axis=-1)", [[[3.0, 4.0], [1.0, 2.0]]], False),
    ("slice", "lambda x: tf.slice(x, [0, 1], [2, -1])", [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]], False),
    (
        "strided_slice",
        "lambda x: tf.strided_slice(x, [2, 0], [0, 3], [-1, 2], end_mask=1)",
        [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]],
        False,
    ),
    (
        "reverse_sequence",
        "lambda x: tf.reverse_sequence(x, [3, 1], seq_axis=1, batch_axis=0)",
        [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]],
        False,
    ),
    (
        "tensor_scatter_nd_max_ties",
        "lambda t, u: tf.tensor_scatter_nd_max(t, [[0], [0], [2]], u)",
        [[3.0, 1.0, 2.0], [3.0, 3.0, 1.0]],
        False,
    ),
    (
        "tensor_scatter_nd_min",
        "lambda t, u: tf.tensor_scatter_nd_min(t, [[1], [1], [2]], u)",
        [[3.0, 1.0, 2.0], [0.5, 3.0, 1.0]],
        False,
    ),
    (
        "tensor_scatter_nd_sub",
        "lambda t, u: tf.tensor_scatter_nd_sub(t, [[1], [1]], u)",
        [[3.0, 1.0, 2.0], [0.5, 3.0]],
        False,
    ),
    (
        "dynamic_partition",
        "lambda x: tf.dynamic_partition(x, [1, 0, 1], 2)[1]",
        [[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]],
        False,
    ),
    ("dynamic_stitch_overwrite", "lambda a, b: tf.dynamic_stitch([[0, 1], [1]], [a, b])", [[1.0, 2.0], [5.0]], False),
    ("saturate_cast", "lambda x: tf.saturate_cast(x, tf.float32) * 1.0", [[1e300, 2.0]], False),
    ("scan", "lambda x: tf.scan(lambda a, v: a * v + 1.0, x)", [[1.0, 2.0, 3.0]], False),
    (
        "foldr",
        "lambda x: tf.foldr(lambda a, v: a * v + 1.0, x, initializer=tf.constant(2., dtype=tf.float64))",
        [[1.0, 2.0, 3.0]],
        False,
    ),
    ("l2_loss", "lambda x: tf.nn.l2_loss(x)", [[[1.0, -2.0], [3.0, 0.5]]], True),
    ("crelu", "lambda x: tf.nn.crelu(x)", [[[1.0, -2.0], [3.0, -0.5]]], False),
    (
        "compute_average_loss",
        "lambda x, w: tf.nn.compute_average_loss(x, sample_weight=w)",
        [[1.0, 2.0, 3.0], [0.5, 1.0, 2.0]],
        False,
    ),
    (
        "weighted_cross_entropy",
        "lambda z, x: tf.nn.weighted_cross_entropy_with_logits(z, x, 2.5)",
        [[1.0, 0.0, 0.3], [2.0, -1.0, 0.5]],
        True,
    ),
    (
        "log_poisson_loss_full",
        "lambda c: tf.nn.log_poisson_loss(tf.constant([0., 2., 5.], dtype=tf.float64), c, compute_full_loss=True)",
        [[0.5, -1.0, 1.0]],
        False,
    ),
    (
        "normalize_moments",
        "lambda m, v: tf.nn.normalize_moments(tf.constant(3., dtype=tf.float64), m, v, None)[1]",
        [[3.0, 6.0], [9.0, 20.0]],
        False,
    ),
    ("sufficient_statistics", "lambda x: tf.nn.sufficient_statistics(x, [0])[2]", [[[1.0, 2.0], [3.0, 6.0]]], False),
    (
        "weighted_moments",
        "lambda x, w: tf.nn.weighted_moments(x, [0], w)[1]",
        [[[1.0, 2.0], [3.0, 6.0], [0.0, 1.0]], [[1.0], [3.0], [2.0]]],
        False,
    ),
    ("space_to_depth", "lambda x: tf.nn.space_to_depth(x, 2)", [np.arange(16.0).reshape(1, 2, 4, 2).tolist()], False),
    ("depth_to_space", "lambda x: tf.nn.depth_to_space(x, 2)", [np.arange(16.0).reshape(1, 1, 2, 8).tolist()], False),
    ("max_pool1d", "lambda x: tf.nn.max_pool1d(x, 2, 1, 'SAME')", [[[[1.0], [3.0], [2.0], [0.5]]]], False),
    ("avg_pool1d", "lambda x: tf.nn.avg_pool1d(x, 3, 2, 'SAME')", [[[[1.0], [3.0], [2.0], [0.5], [4.0]]]], False),
    ("cross", "lambda a, b: tf.linalg.cross(a, b)", [[[1.0, 2.0, 3.0]], [[-1.0, 0.5, 2.0]]], True),
    ("set_diag", "lambda x, d: tf.linalg.set_diag(x, d)", [[[1.0, 2.0], [3.0, 4.0]], [7.0, 8.0]], False),
    ("tensor_diag", "lambda d: tf.linalg.tensor_diag(d)", [[[1.0, 2.0], [3.0, 4.0]]], False),
    (
        "tensor_diag_part",
        "lambda x: tf.linalg.tensor_diag_part(x)",
        [np.arange(16.0).reshape(2, 2, 2, 2).tolist()],
        False,
    ),
    (
        "space_to_batch",
        "lambda x: tf.space_to_batch(x, [2], [[1, 1]])",
        [np.arange(8.0).reshape(2, 2, 2).tolist()],
        False,
    ),
    (
        "batch_to_space",
        "lambda x: tf.batch_to_space(x, [2], [[1, 0]])",
        [np.arange(8.0).reshape(4, 2, 1).tolist()],
        False,
    ),
    ("grad_pass_through", "lambda x: tf.grad_pass_through(lambda v: v * v * v)(x)", [[1.0, -2.0]], False),
    ("ensure_shape", "lambda x: tf.ensure_shape(x * x, [2])", [[1.0, -2.0]], False),
    (
        "separable_conv2d",
        "lambda x, d, p: tf.nn.separable_conv2d(x, d, p, [1, 1, 1, 1], 'SAME')",
        [
            np.linspace(-1, 1, 18).reshape(1, 3, 3, 2).tolist(),
            np.linspace(-1, 1, 8).reshape(2, 2, 2, 1).tolist(),
            np.linspace(-1, 1, 6).reshape(1, 1, 2, 3).tolist(),
        ],
        False,
    ),
    (
        "conv1d_transpose",
        "lambda x, f: tf.nn.conv1d_transpose(x, f, [1, 6, 2], 2, 'SAME')",
        [np.linspace(-1, 1, 6).reshape(1, 3, 2).tolist(), np.linspace(-1, 1, 12).reshape(3, 2, 2).tolist()],
        False,
    ),
    (
        "atrous_conv2d",
        "lambda x, f: tf.nn.atrous_conv2d(x, f, 2, 'VALID')",
        [np.linspace(-1, 1, 25).reshape(1, 5, 5, 1).tolist(), np.linspace(-1, 1, 4).reshape(2, 2, 1, 1).tolist()],
        False,
    ),
    (
        "approx_max_k",
        "lambda x: tf.cast(tf.math.approx_max_k(tf.cast(x, tf.float32), 2).values, tf.float64)",
        [[[1.0, 5.0, 3.0, 4.0], [2.0, 0.0, 7.0, 1.0]]],
        False,
    ),
    # float32 only in TF: compared with rtol 1e-5 (the fifth element)
    (
        "lrn",
        "lambda x: tf.cast(tf.nn.lrn(tf.cast(x, tf.float32), depth_radius=1, bias=0.5, alpha=0.3, beta=0.6), tf.float64)",
        [np.linspace(-1, 1, 8).reshape(1, 1, 2, 4).tolist()],
        False,
        1e-5,
    ),
    (
        "lrn_default",
        "lambda x: tf.cast(tf.nn.local_response_normalization(tf.cast(x, tf.float32)), tf.float64)",
        [np.linspace(-2, 1, 14).reshape(1, 1, 2, 7).tolist()],
        False,
        1e-5,
    ),
    ("expm_small", "lambda a: tf.linalg.expm(a)", [[[0.1, 0.2], [-0.05, 0.1]]], True),
    ("expm_scaled", "lambda a: tf.linalg.expm(a)", [[[[2.0, 1.0, 0.0], [-1.5, 0.5, 3.0], [0.2, 0.0, -4.0]]]], False),
    (
        "tridiagonal_matmul",
        "lambda d, r: tf.linalg.tridiagonal_matmul(d, r)",
        [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], [[1.0, -1.0], [0.5, 2.0], [3.0, 0.0]]],
        False,
    ),
    (
        "tridiagonal_solve",
        "lambda d, r: tf.linalg.tridiagonal_solve(d, r)",
        [[[1.0, 2.0, 0.0], [4.0, 5.0, 7.0], [0.0, 8.0, 9.0]], [[1.0, -1.0], [0.5, 2.0], [3.0, 0.0]]],
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


def items(r):
    if isinstance(r, (tuple, list)):
        return [t for x in r for t in items(x)]
    return [r]


def describe(t):
    if isinstance(t, np.ndarray):
        return {"numpy": enc(t.tolist()), "dtype": str(t.dtype)}
    if t is None or isinstance(t, (bool, int, float, str)):
        return {"py": t}
    a = t.numpy()
    if t.dtype.is_complex:  # [..., 2]: real and imaginary parts
        a = np.stack([a.real, a.imag], -1)
    return {
        "value": enc(a.astype(np.float64).tolist() if t.dtype.name == "bfloat16" else a.tolist()),
        "dtype": t.dtype.name,
        "shape": list(t.shape),
    }


def weights(shape, start, step):
    n = int(np.prod(shape))
    return (start + step * np.arange(n, dtype=np.float64)).reshape(shape)


out = {"tf_version": tf.__version__, "values": [], "grads": []}
for case in VALUES:
    cid, expr = case[0], case[1]
    row = {"id": cid, "expr": expr}
    if len(case) > 2:
        row["msg"] = case[2]
    try:
        r = eval(expr)
        row["result"] = [describe(t) for t in items(r)]
    except Exception as e:  # noqa: BLE001 - recording TF's exception is the point
        row["error"] = {"class": type(e).__name__, "message": clean(str(e))}
    out["values"].append(row)

for cid, fn_src, inputs, order2, *tol in GRADS:
    fn = eval(fn_src)
    xs = [tf.constant(np.array(a, dtype=np.float64)) for a in inputs]
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(xs)
        with tf.GradientTape() as inner:
            inner.watch(xs)
            y = fn(*xs)
            w = tf.constant(weights(y.shape, 1.0, 0.25))
            loss = tf.reduce_sum(tf.cast(y, tf.float64) * w)
        grads = inner.gradient(loss, xs)
        second_obj = tf.reduce_sum(grads[0] * tf.constant(weights(grads[0].shape, 0.5, 0.125)))
    row = {"id": cid, "fn": fn_src, "inputs": inputs, "value": enc(y.numpy().tolist())}
    if tol:
        row["rtol"] = tol[0]
    row["grads"] = [None if g is None else enc(g.numpy().tolist()) for g in grads]
    if order2:
        g2 = outer.gradient(second_obj, xs[0])
        row["second"] = None if g2 is None else enc(g2.numpy().tolist())
    out["grads"].append(row)

json.dump(out, sys.stdout, indent=1)
print()
