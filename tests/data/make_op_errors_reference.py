# Generates op_errors_reference.json with TensorFlow 2.21 (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_op_errors_reference.py > tests/data/op_errors_reference.json
#
# The issue-20 audit: bad input to the ops of issue 20's "Linear algebra" and "Common
# ops still missing" lists that the other fixtures (linalg_reference.json,
# ops_common_reference.json) give no error case for, and the exception class
# TensorFlow raises for each. tests/test_op_errors.py evaluates the same expressions
# with `tf` bound to tapers and compares the classes.
#
# Left out: `tf.nn.conv1d` of a rank-2 input aborts TensorFlow 2.21's process (a failed
# CHECK in tensor_format.h), so it has no class to record; tapers raises ValueError.
import json
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np  # noqa: F401  (used by the expressions)
import tensorflow as tf  # noqa: F401

EXPRS = {
    "unsorted_segment_mean_bad_num": "tf.math.unsorted_segment_mean(tf.constant([1., 2.]), [0, 1], -1)",
    "unsorted_segment_mean_out_of_range": "tf.math.unsorted_segment_mean(tf.constant([1., 2.]), [0, 4], 2)",
    "unsorted_segment_max_bad_shape": "tf.math.unsorted_segment_max(tf.constant([1., 2., 3.]), [0, 1], 2)",
    "unsorted_segment_max_out_of_range": "tf.math.unsorted_segment_max(tf.constant([1., 2.]), [0, 3], 2)",
    "moments_bad_axis": "tf.nn.moments(tf.ones([2, 3]), axes=[2])",
    "batch_normalization_bad_broadcast": (
        "tf.nn.batch_normalization(tf.ones([2, 3]), tf.ones([2]), tf.ones([2]), None, None, 1e-3)"
    ),
    "conv1d_channel_mismatch": "tf.nn.conv1d(tf.ones([1, 5, 2]), tf.ones([3, 3, 1]), stride=1, padding='SAME')",
    "conv1d_bad_padding": "tf.nn.conv1d(tf.ones([1, 5, 2]), tf.ones([3, 2, 1]), stride=1, padding='FULL')",
    "depthwise_conv2d_channel_mismatch": (
        "tf.nn.depthwise_conv2d(tf.ones([1, 3, 3, 2]), tf.ones([2, 2, 3, 1]), strides=[1, 1, 1, 1], padding='SAME')"
    ),
    "depthwise_conv2d_bad_strides": (
        "tf.nn.depthwise_conv2d(tf.ones([1, 3, 3, 2]), tf.ones([2, 2, 2, 1]), strides=[1, 1], padding='SAME')"
    ),
    "conv2d_transpose_bad_output_shape": (
        "tf.nn.conv2d_transpose(tf.ones([1, 2, 2, 1]), tf.ones([2, 2, 1, 1]), output_shape=[1, 9, 9, 1],"
        " strides=2, padding='SAME')"
    ),
    "conv2d_transpose_channel_mismatch": (
        "tf.nn.conv2d_transpose(tf.ones([1, 2, 2, 3]), tf.ones([2, 2, 1, 1]), output_shape=[1, 4, 4, 1],"
        " strides=2, padding='SAME')"
    ),
    "atan2_dtype_mismatch": "tf.math.atan2(tf.constant([1.]), tf.constant([1.], tf.float64))",
    "atan2_int": "tf.math.atan2(tf.constant([1]), tf.constant([1]))",
    "atan2_shapes": "tf.math.atan2(tf.ones([2]), tf.ones([3]))",
    "log_sigmoid_int": "tf.math.log_sigmoid(tf.constant([1]))",
    "argsort_bad_axis": "tf.argsort(tf.constant([3., 1.]), axis=2)",
    "unique_rank2": "tf.unique(tf.ones([2, 2]))",
    "searchsorted_bad_side": "tf.searchsorted(tf.constant([1., 2.]), tf.constant([1.5]), side='middle')",
    "bincount_negative": "tf.math.bincount(tf.constant([1, -1, 2]))",
    "tensor_scatter_nd_add_bad_updates": (
        "tf.tensor_scatter_nd_add(tf.ones([4]), [[1], [2]], tf.constant([1., 2., 3.]))"
    ),
    "matvec_rank1_matrix": "tf.linalg.matvec(tf.ones([3]), tf.ones([3]))",
    "adjoint_rank1": "tf.linalg.adjoint(tf.ones([3]))",
    "band_part_rank1": "tf.linalg.band_part(tf.ones([3]), 0, 0)",
    "logdet_not_square": "tf.linalg.logdet(tf.ones([2, 3]))",
    "normalize_bad_ord": "tf.linalg.normalize(tf.ones([3]), ord='fro')",
    "norm_fro_of_vector": "tf.norm(tf.ones([3]), ord='fro')",
    "norm_fro_one_axis": "tf.linalg.norm(tf.ones([2, 3]), ord='fro', axis=0)",
    "norm_fro_no_axis": "tf.norm(tf.ones([2, 3]), ord='fro')",
    "norm_nuc": "tf.norm(tf.ones([2, 3]), ord='nuc', axis=[0, 1])",
    "global_norm_tensor": "tf.linalg.global_norm(tf.ones([3]))",
    "embedding_lookup_out_of_range": "tf.nn.embedding_lookup(tf.ones([4, 2]), [5])",
    "embedding_lookup_float_ids": "tf.nn.embedding_lookup(tf.ones([4, 2]), tf.constant([1.]))",
    "embedding_lookup_empty_list": "tf.nn.embedding_lookup([], [0])",
}


def outcome(expr):
    try:
        eval(expr)
    except Exception as e:  # the class is what is recorded
        return {"error": type(e).__name__, "message": str(e).split("\n")[0]}
    return {"error": None}


print(json.dumps({k: {"expr": e, **outcome(e)} for k, e in EXPRS.items()}, indent=1))
