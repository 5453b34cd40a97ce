# ruff: noqa: E501 - snippets are kept one per line
# Generates debugging_reference.json with TensorFlow (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_debugging_reference.py > tests/data/debugging_reference.json
# tf.debugging's checks: each snippet runs eagerly, and (where it checks values)
# inside a tf.function called with passing then failing values. Recorded: the
# exception class and message (eager), the exception class (compiled: TensorFlow's
# graph-mode text differs, tapers raises the eager text), and `result`.
import json
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow as tf
from _snippets import run

SNIPPETS = {
    "assert_equal": "tf.debugging.assert_equal(tf.constant([1, 2, 3]), tf.constant([1, 5, 3]))",
    "assert_equal_message": "tf.debugging.assert_equal(tf.constant([1, 2, 3]), tf.constant([1, 5, 3]), message='custom')",
    "assert_equal_holds": "result = tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 2]))",
    "assert_equal_scalar_y": "tf.debugging.assert_equal(tf.constant([[1, 2], [3, 4]]), 2)",
    "assert_equal_summarize": "tf.debugging.assert_equal(tf.range(10), tf.zeros(10, tf.int32), summarize=5)",
    "assert_none_equal": "tf.debugging.assert_none_equal(tf.constant([1.0, 2.0]), tf.constant([3.0, 2.0]))",
    "assert_less": "tf.debugging.assert_less(tf.constant([1, 2, 3]), tf.constant([1, 5, 3]))",
    "assert_less_equal": "tf.debugging.assert_less_equal(tf.constant([[1.5, 2.0]]), tf.constant([[1.0, 2.0]]))",
    "assert_greater": "tf.debugging.assert_greater(tf.constant([1.0, 2.0]), 1.5)",
    "assert_greater_equal": "tf.debugging.assert_greater_equal(tf.constant([1.0, 2.0]), 1.5)",
    "assert_positive": "tf.debugging.assert_positive(tf.constant([1.0, -2.0]))",
    "assert_positive_message": "tf.debugging.assert_positive(tf.constant([1, -2, 3, 4, 5]), message='weights')",
    "assert_negative": "tf.debugging.assert_negative(tf.constant([[-1.0], [0.0]]))",
    "assert_non_negative": "tf.debugging.assert_non_negative(tf.constant([0.5, -0.25]))",
    "assert_non_positive": "tf.debugging.assert_non_positive(tf.constant(3))",
    "assert_near": "tf.debugging.assert_near(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.1]))",
    "assert_near_holds": "result = tf.debugging.assert_near(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0000001]))",
    "assert_near_tol": "tf.debugging.assert_near(tf.constant([1.0, 2.0], tf.float64), tf.constant([1.0, 2.1], tf.float64), rtol=0.01, atol=0.01, message='close')",
    "Assert": "tf.debugging.Assert(tf.constant(False), [tf.constant([1, 2, 3, 4]), 'text', tf.constant(2.5)])",
    "Assert_summarize": "tf.debugging.Assert(tf.reduce_all(tf.constant([True, False])), [tf.range(6)], summarize=2)",
    "Assert_holds": "result = tf.debugging.Assert(tf.constant(True), ['never shown'])",
    "check_numerics_nan": "tf.debugging.check_numerics(tf.constant([1.0, float('nan')]), 'my msg')",
    "check_numerics_inf": "tf.debugging.check_numerics(tf.constant([1.0, float('inf')]), 'my msg')",
    "check_numerics_ok": "result = tf.debugging.check_numerics(tf.constant([1.0, 2.0]), 'fine').numpy().tolist()",
    "assert_all_finite": "tf.debugging.assert_all_finite(tf.constant([float('-inf')], tf.float64), 'fin')",
    "assert_rank": "tf.debugging.assert_rank(tf.constant([1, 2, 3]), 2)",
    "assert_rank_message": "tf.debugging.assert_rank(tf.zeros([2, 3]), 1, message='matrix')",
    "assert_rank_at_least": "tf.debugging.assert_rank_at_least(tf.constant([1, 2, 3]), 2)",
    "assert_rank_in": "tf.debugging.assert_rank_in(tf.constant([1, 2, 3]), [0, 2])",
    "assert_scalar": "tf.debugging.assert_scalar(tf.constant([1, 2]))",
    "assert_type": "tf.debugging.assert_type(tf.constant([1, 2]), tf.float32)",
    "assert_integer": "tf.debugging.assert_integer(tf.constant([1.0]))",
    "is_numeric_tensor": "result = [tf.debugging.is_numeric_tensor(tf.constant(1.0)), tf.debugging.is_numeric_tensor(tf.constant(True)), tf.debugging.is_numeric_tensor(1.0)]",
    "assert_shapes_holds": "result = tf.debugging.assert_shapes([(tf.zeros([2, 3]), ('N', 3)), (tf.zeros([2]), ('N',)), (tf.constant(1.0), ()), (tf.zeros([4, 2, 3]), ('*', 'N', '.')), (tf.zeros([7]), None)])",
    "assert_shapes_symbol": "tf.debugging.assert_shapes([(tf.constant([1, 2, 3]), ('N',)), (tf.zeros([2, 3]), ('N', 3))])",
    "assert_shapes_explicit": "tf.debugging.assert_shapes([(tf.zeros([2, 3]), (2, 4))], message='layer')",
    "assert_shapes_string_size": "tf.debugging.assert_shapes([(tf.zeros([2, 3]), ('2', '4'))])",
    "assert_shapes_rank": "tf.debugging.assert_shapes([(tf.zeros([2, 3]), ('N',))])",
    "assert_shapes_rank2": "tf.debugging.assert_shapes([(tf.zeros([2]), ('N', 'M'))])",
    "assert_shapes_leading": "tf.debugging.assert_shapes([(tf.zeros([4, 2, 3]), ('*', 'N', 3)), (tf.zeros([5, 3]), ('*', 'N', 3))])",
    "assert_shapes_leading_rank": "tf.debugging.assert_shapes([(tf.zeros([3]), (..., 'N', 3))])",
    "assert_shapes_star_late": "tf.debugging.assert_shapes([(tf.zeros([2]), ('N', '*'))])",
    "assert_shapes_not_iterable": "tf.debugging.assert_shapes([(tf.zeros([2]), 5)])",
    "proper_iterable_ok": "result = tf.debugging.assert_proper_iterable([1, 2])",
    "proper_iterable_ndarray": "tf.debugging.assert_proper_iterable(np.array([1, 2]))",
    "proper_iterable_str": "tf.debugging.assert_proper_iterable('ab')",
    "proper_iterable_int": "tf.debugging.assert_proper_iterable(3)",
    "same_float_ok": "result = str(tf.debugging.assert_same_float_dtype([tf.constant(1.0), tf.constant([2.0])]))",
    "same_float_dtype": "result = str(tf.debugging.assert_same_float_dtype(None, tf.float64))",
    "same_float_none": "result = str(tf.debugging.assert_same_float_dtype())",
    "same_float_mismatch": "tf.debugging.assert_same_float_dtype([tf.constant(1.0), tf.constant(2.0, tf.float64)])",
    "same_float_int": "tf.debugging.assert_same_float_dtype([tf.constant(1)])",
    "same_float_vs_dtype": "tf.debugging.assert_same_float_dtype([tf.constant(1.0)], tf.float64)",
    "top_level": "result = [f is g for f, g in [(tf.assert_equal, tf.debugging.assert_equal), (tf.Assert, tf.debugging.Assert), (tf.assert_less, tf.debugging.assert_less), (tf.assert_greater, tf.debugging.assert_greater), (tf.assert_rank, tf.debugging.assert_rank)]]",
}

# Checks of values inside a compiled step: it runs with passing values, then
# failing ones (the error), then passing ones again (the variable shows the failed
# call wrote nothing); `result` records the variable and the tracing count.
COMPILED = """
v = tf.Variable(0.0)


def checked(x):
    tf.debugging.assert_less(x, 5.5)
    return x + 0.0


@tf.function
def step(x):
    v.assign_add(1.0)
    CHECK
    return x * 2.0

step(tf.constant([1.0, 2.0]))
try:
    step(BAD)
    failed = None
except Exception as e:  # noqa: BLE001 - the class is what is recorded
    failed = type(e).__name__
step(tf.constant([3.0, 4.0]))
result = {"failed": failed, "v": float(v.numpy()), "traces": step.experimental_get_tracing_count()}
"""
COMPILED_CHECKS = {
    "compiled_assert_positive": ("tf.debugging.assert_positive(x, message='in fn')", "tf.constant([-1.0, 2.0])"),
    "compiled_assert_less": ("tf.debugging.assert_less(x, 5.5)", "tf.constant([1.0, 9.0])"),
    "compiled_check_numerics": ("x = tf.debugging.check_numerics(x, 'step')", "tf.constant([float('nan'), 1.0])"),
    "compiled_Assert": ("tf.debugging.Assert(tf.reduce_all(x < 5.0), [x])", "tf.constant([1.0, 7.0])"),
    "compiled_in_cond": (
        "x = tf.cond(tf.reduce_sum(x) > 0.0, lambda: checked(x), lambda: x)",
        "tf.constant([1.0, 9.0])",
    ),
}


programs = {name: run(src, {"tf": tf, "np": np}) for name, src in SNIPPETS.items()}
for name, (check, bad) in COMPILED_CHECKS.items():
    programs[name] = run(COMPILED.replace("CHECK", check).replace("BAD", bad), {"tf": tf, "np": np})
print(json.dumps({"tensorflow": tf.__version__, "programs": programs}, indent=1))
