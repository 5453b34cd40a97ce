# ruff: noqa: E501 - snippets are kept one per line
# Generates nest_reference.json with TensorFlow (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_nest_reference.py > tests/data/nest_reference.json
# tf.nest: flatten order, re-packing, map_structure, and the errors' classes and texts.
import collections
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow as tf
from _snippets import dump

P = collections.namedtuple("P", ["b", "a"])
SNIPPETS = {
    "flatten_dict": "result = tf.nest.flatten({'b': 1, 'a': [2, (3, 4)], 'c': None})",
    "flatten_ordered": "result = tf.nest.flatten(collections.OrderedDict([('b', 1), ('a', 2)]))",
    "flatten_namedtuple": "result = tf.nest.flatten(P(b=1, a=[2, 3]))",
    "flatten_leaf": "result = [tf.nest.flatten(5), tf.nest.flatten(None), tf.nest.flatten('ab')]",
    "pack_dict_order": "result = [list(kv) for kv in tf.nest.pack_sequence_as({'b': 0, 'a': 0}, [1, 2]).items()]",
    "pack_nested": "result = repr(tf.nest.pack_sequence_as(((0, [0]), P(b=0, a=0)), [1, 2, 3, 4]))",
    "pack_leaf": "result = tf.nest.pack_sequence_as(0, [7])",
    "pack_mismatch": "tf.nest.pack_sequence_as([0, 0], [1, 2, 3])",
    "pack_leaf_mismatch": "tf.nest.pack_sequence_as(0, [1, 2])",
    "map_structure": "result = repr(tf.nest.map_structure(lambda x, y: x + y, {'a': (1, 2), 'b': [3]}, {'a': (10, 20), 'b': [30]}))",
    "map_structure_types": "tf.nest.map_structure(lambda x, y: x, (1, 2), [1, 2])",
    "map_structure_unchecked": "result = repr(tf.nest.map_structure(lambda x, y: x + y, (1, 2), [3, 4], check_types=False))",
    "map_structure_shape": "tf.nest.map_structure(lambda x, y: x, [1, 2], [1, [2]])",
    "assert_same_ok": "result = tf.nest.assert_same_structure({'a': [1, (2,)]}, {'a': [5, (6,)]})",
    "assert_same_len": "tf.nest.assert_same_structure([1, 2], [1, 2, 3])",
    "assert_same_types": "tf.nest.assert_same_structure((1, 2), [1, 2])",
    "assert_same_keys": "tf.nest.assert_same_structure({'a': 1}, {'b': 1})",
    "is_nested": "result = [tf.nest.is_nested(x) for x in ([], (), {}, 1, None, 'ab', P(1, 2))]",
    "map_tensors": "result = tf.nest.map_structure(lambda t: float(t * 2), {'x': tf.constant(1.5)})",
}


dump(tf, SNIPPETS, np=np, collections=collections, P=P)
