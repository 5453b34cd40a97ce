# ruff: noqa: E501  (a table of TF expressions, one per line)
# Records TensorFlow 2.21's answers for the index ops that tapers writes on top of guard-free ops
# (segment_max/min/prod/mean, unsorted_segment_min/prod/sqrt_n, tensor_scatter_nd_max/min/sub,
# dynamic_partition, dynamic_stitch), for tests/test_function_index_ops_noguard.py.
# Regenerate (from the repository root, with the TensorFlow venv; not run by the tests):
#   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_index_ops_noguard_reference.py
# which writes tests/data/index_ops_noguard_reference.json next to this script.
#
# Each case is Python source that runs unchanged under `tf = tensorflow` and `tf = tapers`:
# - VALUES: an expression; TF's result (each tensor of a tensor or list: values, dtype, shape) or its
#   exception (class name and message, TF's "{{function_node ...}}" prefix and " name: ..." suffix
#   removed). A third field False marks a case whose message tapers words differently (class must match).
# - GRADS: `fn` (a lambda of float64 tensors) at `inputs`: the output and the gradient of
#   sum(fn(*xs) * w) for each input, w = 1 + 0.25 * arange(size) in the output's shape.
import json
import os
import re

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow as tf

NAN, INF = float("nan"), float("inf")
C = "tf.constant"
F4 = "[[1., 5.], [3., -2.], [0.5, 7.], [4., 4.]]"

# fmt: off
VALUES = [
    # unsorted_segment_min: empty segments (the dtype's largest value), dropped rows, multi-axis ids
    ("usmin_f32", f"tf.math.unsorted_segment_min({C}({F4}), [2, 0, 2, -1], 4)"),
    ("usmin_2d_ids", "tf.math.unsorted_segment_min(tf.reshape(tf.range(12.) * 0.5 - 2., [2, 2, 3]), [[1, -1], [0, 1]], 3)"),
    ("usmin_f64", "tf.math.unsorted_segment_min(tf.constant([2., -1., 3.], tf.float64), [1, 1, 0], 3)"),
    ("usmin_f16", "tf.math.unsorted_segment_min(tf.constant([2., -1., 3.], tf.float16), [1, 1, 0], 3)"),
    ("usmin_int32_extremes", "tf.math.unsorted_segment_min(tf.constant([-2147483648, 4, 5, 2147483647]), [0, 0, 1, 1], 3)"),
    ("usmin_int64_extremes", "tf.math.unsorted_segment_min(tf.constant([-9223372036854775808, 9223372036854775807], tf.int64), [0, 1], 3)"),
    ("usmin_uint8", "tf.math.unsorted_segment_min(tf.constant([3, 0, 255, 7], tf.uint8), [0, 0, 1, 1], 3)"),
    ("usmin_int64_ids", "tf.math.unsorted_segment_min(tf.constant([3., 1., 2.]), tf.constant([1, 1, 0], tf.int64), tf.constant(2, tf.int64))"),
    ("usmin_nan_first", "tf.math.unsorted_segment_min(tf.constant([float('nan'), 1.0]), [0, 0], 1)"),
    ("usmin_nan_last", "tf.math.unsorted_segment_min(tf.constant([1.0, float('nan')]), [0, 0], 1)"),
    ("usmin_zeros_a", "tf.math.unsorted_segment_min(tf.constant([-0.0, 0.0]), [0, 0], 1)"),
    ("usmin_zeros_b", "tf.math.unsorted_segment_min(tf.constant([0.0, -0.0]), [0, 0], 1)"),
    ("usmin_inf", "tf.math.unsorted_segment_min(tf.constant([float('inf'), -float('inf')]), [0, 1], 2)"),
    ("usmin_empty_data", "tf.math.unsorted_segment_min(tf.zeros([0, 2]), tf.zeros([0], tf.int32), 2)"),
    ("usmin_out_of_range", "tf.math.unsorted_segment_min(tf.constant([3., 4., 5.]), [0, 5, 1], 3)"),
    ("usmin_out_of_range_later", "tf.math.unsorted_segment_min(tf.constant([3., 4., 5.]), [0, 3, 9], 3)"),
    ("usmin_out_of_range_2d", "tf.math.unsorted_segment_min(tf.ones([2, 2]), [[0, 1], [4, 0]], 3)"),
    ("usmin_bad_shape", "tf.math.unsorted_segment_min(tf.constant([1., 2., 3.]), [0, 1], 2)", False),
    # unsorted_segment_prod: row order, empty segments 1, dropped rows, ints (wrapping), complex
    ("usprod_f32", f"tf.math.unsorted_segment_prod({C}({F4}), [2, 0, 2, -1], 4)"),
    ("usprod_order", "tf.math.unsorted_segment_prod(tf.constant([1.1, 2.3, 0.7, 5.1, 3.3, 1e-3, 7.7]), [0, 1, 0, 0, 1, 0, 0], 2)"),
    ("usprod_2d_ids", "tf.math.unsorted_segment_prod(tf.reshape(tf.range(12.) * 0.5 - 2., [2, 2, 3]), [[1, -1], [0, 1]], 3)"),
    ("usprod_int32", "tf.math.unsorted_segment_prod(tf.constant([3, -4, 5, 65536, 65536]), [0, 0, 1, 2, 2], 3)"),
    ("usprod_complex", "tf.math.unsorted_segment_prod(tf.constant([1 + 2j, 3 - 1j, 0.5j], tf.complex64), [0, 0, 1], 2)"),
    ("usprod_inf_zero", "tf.math.unsorted_segment_prod(tf.constant([float('inf'), 0., 2.]), [0, 0, 1], 2)"),
    ("usprod_out_of_range", "tf.math.unsorted_segment_prod(tf.constant([3., 4., 5.]), [0, 5, 1], 3)"),
    # unsorted_segment_sqrt_n
    ("ussqrtn_f32", f"tf.math.unsorted_segment_sqrt_n({C}({F4}), [2, 0, 2, -1], 4)"),
    ("ussqrtn_f64", "tf.math.unsorted_segment_sqrt_n(tf.constant([1., 2., 3., 4., 5.], tf.float64), [0, 0, 0, 1, 1], 3)"),
    ("ussqrtn_f16", "tf.math.unsorted_segment_sqrt_n(tf.constant([1., 2., 3.], tf.float16), [0, 0, 0], 1)"),
    ("ussqrtn_2d_ids", "tf.math.unsorted_segment_sqrt_n(tf.reshape(tf.range(12.), [2, 2, 3]), [[1, -1], [1, 1]], 2)"),
    ("ussqrtn_out_of_range", "tf.math.unsorted_segment_sqrt_n(tf.constant([3., 4., 5.]), [0, 5, 1], 3)"),
    ("ussqrtn_int", "tf.math.unsorted_segment_sqrt_n(tf.constant([3, 4, 5]), [0, 0, 1], 2)", False),
    # sorted segment ops: empty segments are 0 (prod 1), infinity-only segments, NaN order, errors
    ("smax_f32", f"tf.math.segment_max({C}({F4}), [0, 0, 2, 2])"),
    ("smin_f32", f"tf.math.segment_min({C}({F4}), [0, 0, 2, 3])"),
    ("sprod_f32", f"tf.math.segment_prod({C}({F4}), [1, 1, 1, 3])"),
    ("smean_f32", f"tf.math.segment_mean({C}({F4}), [0, 0, 0, 2])"),
    ("smean_f64", "tf.math.segment_mean(tf.constant([0.1, 0.2, 0.7], tf.float64), [0, 0, 0])"),
    ("smean_int", "tf.math.segment_mean(tf.constant([3, 4, -7, -2, 5]), [0, 0, 1, 1, 3])"),
    ("smax_int64_ids", "tf.math.segment_max(tf.constant([3, 9, 2]), tf.constant([0, 0, 1], tf.int64))"),
    ("smax_uint8", "tf.math.segment_max(tf.constant([3, 9, 2], tf.uint8), [1, 1, 3])"),
    ("smin_int32_extremes", "tf.math.segment_min(tf.constant([-2147483648, 2147483647, 5]), [0, 1, 1])"),
    ("smax_neg_inf_only", "tf.math.segment_max(tf.constant([-float('inf'), -float('inf'), 4.]), [0, 0, 1])"),
    ("smin_inf_only", "tf.math.segment_min(tf.constant([float('inf'), 4.]), [0, 2])"),
    ("smax_nan_first", "tf.math.segment_max(tf.constant([float('nan'), 4., 5.]), [0, 0, 2])"),
    ("smax_nan_last", "tf.math.segment_max(tf.constant([4., float('nan'), 5.]), [0, 0, 2])"),
    ("smin_nan_first", "tf.math.segment_min(tf.constant([float('nan'), 4., 5.]), [0, 0, 2])"),
    ("smin_nan_last", "tf.math.segment_min(tf.constant([4., float('nan'), 5.]), [0, 0, 2])"),
    ("smin_zeros", "tf.math.segment_min(tf.constant([0.0, -0.0, -0.0, 0.0]), [0, 0, 1, 1])"),
    ("smax_empty", "tf.math.segment_max(tf.zeros([0, 2]), tf.zeros([0], tf.int32))"),
    ("sprod_empty", "tf.math.segment_prod(tf.zeros([0]), tf.zeros([0], tf.int32))"),
    ("smax_not_increasing", "tf.math.segment_max(tf.constant([3., 4., 5.]), [0, 2, 1])"),
    ("smin_negative_first", "tf.math.segment_min(tf.constant([3., 4., 5.]), [-1, 0, 1])"),
    ("sprod_not_increasing", "tf.math.segment_prod(tf.constant([3., 4., 5.]), [1, 1, 0])"),
    ("smean_not_increasing", "tf.math.segment_mean(tf.constant([3., 4., 5.]), [0, 2, 1])"),
    ("smean_all_negative", "tf.math.segment_mean(tf.constant([3., 4.]), [-3, -2])"),
    ("smax_not_vector", "tf.math.segment_max(tf.ones([2, 2]), [[0, 0], [1, 1]])", False),
    ("smax_size_mismatch", "tf.math.segment_max(tf.ones([3]), [0, 1])", False),
    # tensor_scatter_nd_max / min / sub
    ("tsmax_1d", "tf.tensor_scatter_nd_max(tf.constant([1., 5., 3., -2.]), [[0], [2], [0], [3]], tf.constant([4., 9., 2., -7.]))"),
    ("tsmin_2d", "tf.tensor_scatter_nd_min(tf.reshape(tf.range(6.), [3, 2]), [[0, 1], [2, 0], [2, 0]], tf.constant([-1., 3., 2.5]))"),
    ("tsmax_slices", "tf.tensor_scatter_nd_max(tf.reshape(tf.range(6.), [3, 2]), [[2], [0]], tf.constant([[9., -1.], [0., 7.]]))"),
    ("tsmax_int32", "tf.tensor_scatter_nd_max(tf.constant([1, -2147483648, 3]), [[1], [1]], tf.constant([-5, -2147483648]))"),
    ("tsmin_int32", "tf.tensor_scatter_nd_min(tf.constant([1, 2147483647, 3]), [[1], [2]], tf.constant([2147483647, -2147483648]))"),
    ("tsmax_neg_inf", "tf.tensor_scatter_nd_max(tf.constant([1., -float('inf'), -float('inf')]), [[1]], tf.constant([-float('inf')]))"),
    ("tsmin_inf", "tf.tensor_scatter_nd_min(tf.constant([float('inf'), 2.]), [[0], [0]], tf.constant([float('inf'), float('inf')]))"),
    ("tsmax_nan", "tf.tensor_scatter_nd_max(tf.constant([1., float('nan')]), [[1], [0]], tf.constant([1., float('nan')]))"),
    ("tsmax_whole", "tf.tensor_scatter_nd_max(tf.constant([1., 5.]), tf.zeros([2, 0], tf.int32), tf.constant([[3., 2.], [0., 6.]]))"),
    ("tsmax_out_of_range", "tf.tensor_scatter_nd_max(tf.constant([1., 2.]), [[1], [3]], tf.constant([1., 1.]))"),
    ("tsmin_negative", "tf.tensor_scatter_nd_min(tf.constant([1., 2.]), [[-1]], tf.constant([1.]))"),
    ("tsmin_out_of_range_2d", "tf.tensor_scatter_nd_min(tf.zeros([2, 3]), [[1, 2], [1, 3]], tf.constant([1., 1.]))"),
    ("tsmax_rank", "tf.tensor_scatter_nd_max(tf.zeros([2]), [[0, 1]], tf.constant([1.]))", False),
    ("tsmax_bad_updates", "tf.tensor_scatter_nd_max(tf.zeros([4]), [[1], [2]], tf.constant([1., 2., 3.]))", False),
    ("tsmax_ignore", "tf.tensor_scatter_nd_max(tf.constant([1., 5., 3.]), [[0], [7], [2], [-1]], tf.constant([4., 9., 2., 8.]), bad_indices_policy='IGNORE')"),
    ("tsmin_ignore", "tf.tensor_scatter_nd_min(tf.reshape(tf.range(6.), [3, 2]), [[0, 1], [2, 2], [1, 0]], tf.constant([-1., -5., -2.]), bad_indices_policy='IGNORE')"),
    ("tsmin_error_policy", "tf.tensor_scatter_nd_min(tf.constant([1., 2.]), [[4]], tf.constant([1.]), bad_indices_policy='ERROR')"),
    ("tsmax_bad_policy", "tf.tensor_scatter_nd_max(tf.constant([1., 2.]), [[0]], tf.constant([1.]), bad_indices_policy='ignore')"),
    ("tssub_ignore", "tf.tensor_scatter_nd_sub(tf.constant([1., 2., 3.]), [[0], [5], [1]], tf.constant([0.5, float('nan'), 0.25]), bad_indices_policy='IGNORE')"),
    ("tssub_ignore_2d", "tf.tensor_scatter_nd_sub(tf.ones([2, 3]), [[1], [-2]], tf.constant([[1., 2., 3.], [4., 5., 6.]]), bad_indices_policy='IGNORE')"),
    ("tssub_bad_policy", "tf.tensor_scatter_nd_sub(tf.constant([1., 2.]), [[0]], tf.constant([1.]), bad_indices_policy='SKIP')"),
    ("tssub_dup", "tf.tensor_scatter_nd_sub(tf.constant([1., 2., 3.]), [[1], [1], [0]], tf.constant([0.5, 0.25, 4.]))"),
    ("tssub_out_of_range", "tf.tensor_scatter_nd_sub(tf.constant([1., 2.]), [[1], [3]], tf.constant([1., 1.]))"),
    # dynamic_partition / dynamic_stitch
    ("dpart_1d", "tf.dynamic_partition(tf.constant([1., 2., 3., 4., 5.]), [1, 0, 2, 1, 0], 4)"),
    ("dpart_2d", "tf.dynamic_partition(tf.reshape(tf.range(12), [2, 2, 3]), [[1, 0], [1, 1]], 2)"),
    ("dpart_out_of_range", "tf.dynamic_partition(tf.constant([1., 2., 3.]), [0, 3, 1], 2)"),
    ("dpart_negative", "tf.dynamic_partition(tf.constant([1., 2., 3.]), [0, -1, 1], 2)"),
    ("dstitch_overwrite", "tf.dynamic_stitch([[0, 1], [1], [3, 2]], [tf.constant([1., 2.]), tf.constant([5.]), tf.constant([-0., 7.])])"),
    ("dstitch_2d", "tf.dynamic_stitch([[[2, 0]], [1]], [tf.reshape(tf.range(6), [1, 2, 3]), tf.constant([[9, 9, 9]])])"),
    ("dstitch_negative", "tf.dynamic_stitch([[0, -2]], [tf.constant([1., 2.])])"),
]

GRADS = [
    ("usmin_ties", "lambda x: tf.math.unsorted_segment_min(x, [1, 0, 1, 1, -1], 3)", [[2.0, 3.0, 1.0, 1.0, 0.5]]),
    ("usprod", "lambda x: tf.math.unsorted_segment_prod(x, [2, 0, 2, 2], 3)", [[[1.5, -0.5], [2.0, 3.0], [0.75, 1.25], [-2.0, 0.6]]]),
    ("usprod_zero", "lambda x: tf.math.unsorted_segment_prod(x, [0, 0, 0, 1], 2)", [[1.5, 0.0, 2.0, 3.0]]),
    ("ussqrtn", "lambda x: tf.math.unsorted_segment_sqrt_n(x, [[1, -1], [1, 0]], 2)", [[[1.0, 2.0], [3.0, 4.0]]]),
    ("smax_ties", "lambda x: tf.math.segment_max(x, [0, 0, 0, 2])", [[3.0, 1.0, 3.0, 0.5]]),
    ("smin", "lambda x: tf.math.segment_min(x, [0, 1, 1])", [[[1.0, -2.0], [0.5, 3.0], [2.0, -1.0]]]),
    ("sprod", "lambda x: tf.math.segment_prod(x, [0, 0, 0, 1])", [[1.5, -2.0, 0.5, 3.0]]),
    ("smean", "lambda x: tf.math.segment_mean(x, [0, 0, 2])", [[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]]),
    ("tsmax_ties", "lambda t, u: tf.tensor_scatter_nd_max(t, [[0], [0], [2]], u)", [[1.0, 2.0, 3.0], [1.0, 0.5, 3.0]]),
    ("tsmin", "lambda t, u: tf.tensor_scatter_nd_min(t, [[0, 1], [2, 0]], u)", [[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [0.5, 9.0]]),
    ("tsmax_ignore", "lambda t, u: tf.tensor_scatter_nd_max(t, [[0], [5], [0]], u, bad_indices_policy='IGNORE')", [[1.0, 2.0], [3.0, 7.0, 1.0]]),
    ("tssub", "lambda t, u: tf.tensor_scatter_nd_sub(t, [[1], [1]], u)", [[1.0, 2.0], [3.0, 4.0]]),
    ("dpart", "lambda x: tf.concat(tf.dynamic_partition(x, [1, 0, 1], 2), 0)", [[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]]),
    ("dstitch", "lambda a, b: tf.dynamic_stitch([[0, 2], [2, 1]], [a, b])", [[[1.0], [2.0]], [[3.0], [4.0]]]),
]
# fmt: on


def enc(a: np.ndarray) -> list:
    """Values as JSON: floats as repr strings for non-finite ones, complex as [re, im]."""
    if a.dtype.kind == "c":
        return [[enc1(float(v.real)), enc1(float(v.imag))] for v in a.reshape(-1)]
    return [enc1(v) for v in a.reshape(-1).tolist()]


def enc1(v):
    if isinstance(v, float) and not np.isfinite(v):
        return repr(v)
    return v


def tensor(t) -> dict:
    a = t.numpy()
    if t.dtype == tf.bfloat16:
        a = a.astype(np.float32)
    return {"dtype": t.dtype.name, "shape": list(a.shape), "values": enc(a)}


def clean(msg: str) -> str:
    msg = re.sub(r"^\{\{function_node [^}]*\}\} ", "", msg)
    return re.sub(r" name: $", "", msg.split("\n")[0] if "NodeDef" in msg else msg).strip()


def main() -> None:
    out = {"values": {}, "grads": {}}
    for case in VALUES:
        name, src = case[0], case[1]
        entry: dict = {"src": src, "msg": case[2] if len(case) > 2 else True}
        try:
            r = eval(src)
            entry["result"] = [tensor(t) for t in r] if isinstance(r, list) else tensor(r)
        except Exception as e:  # noqa: BLE001 - the recorded answer
            entry["error"] = {"type": type(e).__name__, "message": clean(str(e))}
        out["values"][name] = entry
    for name, src, inputs in GRADS:
        fn = eval(src)
        xs = [tf.constant(np.array(v, np.float64)) for v in inputs]
        with tf.GradientTape() as tape:
            for x in xs:
                tape.watch(x)
            y = fn(*xs)
            w = tf.constant(1 + 0.25 * np.arange(int(np.prod(y.shape))).reshape(y.shape.as_list()))
            obj = tf.reduce_sum(y * w)
        grads = tape.gradient(obj, xs)
        out["grads"][name] = {
            "src": src,
            "inputs": inputs,
            "output": enc(y.numpy()),
            "grads": [None if g is None else enc(tf.convert_to_tensor(g).numpy()) for g in grads],
        }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "index_ops_noguard_reference.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
