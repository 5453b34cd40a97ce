"""The binding's layout: where each function is published, and how its
arguments and errors read."""

import importlib

import pytest

import tapers as tf
from tapers import _core

SUBMODULES = ("math", "nn", "linalg", "random")


@pytest.mark.parametrize("sub", SUBMODULES)
def test_submodules_import_and_are_the_attributes(sub):
    assert importlib.import_module(f"tapers._core.{sub}") is getattr(_core, sub)


@pytest.mark.parametrize("sub", SUBMODULES)
def test_python_modules_export_what_the_binding_publishes(sub):
    public, binding = getattr(tf, sub), getattr(_core, sub)
    assert set(binding.__all__) <= set(public.__all__)
    assert all(getattr(public, n) is getattr(binding, n) for n in binding.__all__)


# Python wrappers adding TF's `bad_indices_policy` (python/tapers/_ops.py) over the core's op.
WRAPPED = {"gather_nd", "scatter_nd", "tensor_scatter_nd_add"}


def test_tapers_exports_the_binding_root():
    assert set(_core.__all__) <= set(tf.__all__)
    assert all(getattr(tf, n) is getattr(_core, n) for n in _core.__all__ if n not in WRAPPED)
    assert all(getattr(tf, n).__module__ == "tapers._ops" for n in WRAPPED)
    assert not any(n.startswith("_") for n in _core.__all__)


def test_names_tensorflow_has_in_several_modules_are_one_function():
    assert tf.exp is tf.math.exp
    assert tf.tanh is tf.math.tanh is tf.nn.tanh
    assert tf.matmul is tf.linalg.matmul
    assert tf.math.softplus is tf.nn.softplus
    assert tf.floormod is tf.mod is tf.math.mod


def test_name_labels_op_errors_as_tensorflow_does():
    a = tf.ones([2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[Op:MatMul\] name: proj$"):
        tf.matmul(a, a, name="proj")
    with pytest.raises(tf.errors.InvalidArgumentError) as unnamed:
        tf.matmul(a, a)
    assert "name:" not in str(unnamed.value)


def test_bad_arguments_are_named_with_their_value():
    x = tf.ones([2, 2])
    # Negative sizes: TF's class and message (InvalidArgumentError is a ValueError).
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Dimension -1 must be >= 0"):
        tf.zeros([2, -1])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Dimension -1 must be >= 0"):
        tf.broadcast_to(x, [-1, 2])
    with pytest.raises(TypeError, match="axis must be an int or a list of ints, got 'a'"):
        tf.reduce_sum(x, axis="a")
    with pytest.raises(TypeError, match=r"axis must be a single integer, got \[0, 1\]"):
        tf.argmax(x, axis=[0, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected multiples\[0\] >= 0, but got -1 \[Op:Tile\]"):
        tf.tile(x, [-1, 1])
    with pytest.raises(TypeError, match="out_type must be int32 or int64, got float32"):
        tf.shape(x, out_type=tf.float32)
    with pytest.raises(TypeError, match="paddings must be"):
        tf.pad(x, "ab")
    with pytest.raises(ValueError, match=r"strides must be an int, a pair, or \[1, h, w, 1\]; got \[1, 2, 3\]"):
        tf.nn.conv2d(tf.zeros([1, 3, 3, 1]), tf.zeros([2, 2, 1, 1]), [1, 2, 3], "SAME")
