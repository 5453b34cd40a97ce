# ruff: noqa: E501 - snippets are kept one per line
# Generates py_function_reference.json with TensorFlow (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_py_function_reference.py > tests/data/py_function_reference.json
# tf.py_function and tf.numpy_function eagerly: results, dtypes, gradients, errors.
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow as tf
from _snippets import dump

SNIPPETS = {
    "py_function": "result = tf.py_function(lambda a, b: a * b + 1.0, [tf.constant(2.0), tf.constant(3.0)], tf.float32).numpy().tolist()",
    "py_function_list": "r = tf.py_function(lambda a: (a, a * 2), [tf.constant([1, 2])], [tf.int32, tf.int32]); result = [type(r).__name__, [t.numpy().tolist() for t in r]]",
    "py_function_grad": "x = tf.constant(3.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n    y = tf.py_function(lambda v: v * v, [x], tf.float32)\nresult = float(t.gradient(y, x))",
    "py_function_python_value": "result = tf.py_function(lambda: 2.5, [], tf.float64).numpy().tolist()",
    "py_function_wrong_dtype": "result = tf.py_function(lambda a: a, [tf.constant(1)], tf.float32).numpy().tolist()",
    "py_function_none_tout": "result = repr(tf.py_function(lambda a: None, [tf.constant(1)], []))",
    "numpy_function": "result = tf.numpy_function(lambda a: np.sort(a), [tf.constant([3, 1, 2])], tf.int32).numpy().tolist()",
    "numpy_function_arg_types": "result = tf.numpy_function(lambda a, b: np.array([isinstance(a, np.ndarray), isinstance(b, np.ndarray), a.dtype == np.float32, b.dtype == np.int32]), [tf.constant([1.0]), 2], tf.bool).numpy().tolist()",
    "numpy_function_grad": "x = tf.constant(3.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n    y = tf.numpy_function(lambda v: v * v, [x], tf.float32)\nresult = t.gradient(y, x) is None",
    "numpy_function_wrong_dtype": "result = tf.numpy_function(lambda a: a * 1.5, [tf.constant([1.0])], tf.float64).numpy().tolist()",
    "numpy_function_shape": "result = tf.numpy_function(lambda a: a.reshape(2, 2), [tf.range(4)], tf.int32).shape.as_list()",
}


dump(tf, SNIPPETS, np=np)
