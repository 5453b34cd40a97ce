"""tapers.random: TF's seed rules, reproducibility, distributions."""

import subprocess
import sys

import numpy as np
import pytest

import tapers as tf


def test_global_seed_makes_sequences_reproducible():
    tf.random.set_seed(42)
    a = [tf.random.normal([3]).numpy(), tf.random.uniform([2]).numpy()]
    tf.random.set_seed(42)
    b = [tf.random.normal([3]).numpy(), tf.random.uniform([2]).numpy()]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], tf.random.normal([3]).numpy())
    tf.random.set_seed(None)


def test_op_seed_continues_one_stream():
    tf.random.set_seed(7)
    first = tf.random.normal([4], seed=1).numpy()
    second = tf.random.normal([4], seed=1).numpy()
    assert not np.array_equal(first, second)
    tf.random.set_seed(7)
    assert np.array_equal(first, tf.random.normal([4], seed=1).numpy())
    tf.random.set_seed(None)


def test_reproducible_across_processes():
    code = "import tapers as tf; tf.random.set_seed(3); print(tf.random.normal([4]).numpy().tolist())"
    runs = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        for _ in range(2)
    }
    assert len(runs) == 1


def test_distributions():
    g = tf.random.Generator.from_seed(0)
    n = g.normal([20000], mean=1.0, stddev=2.0).numpy()
    assert n.dtype == np.float32 and abs(n.mean() - 1.0) < 0.05 and abs(n.std() - 2.0) < 0.05
    t = g.truncated_normal([20000], stddev=1.0, dtype=tf.float64).numpy()
    assert t.dtype == np.float64 and np.abs(t).max() <= 2.0
    v = g.uniform([20000], minval=-1.0, maxval=3.0).numpy()
    assert v.min() >= -1.0 and v.max() < 3.0 and abs(v.mean() - 1.0) < 0.05
    i = g.uniform([1000], minval=0, maxval=5, dtype=tf.int32).numpy()
    assert i.dtype == np.int32 and set(i.tolist()) == {0, 1, 2, 3, 4}
    with pytest.raises(ValueError, match="maxval"):
        g.uniform([2], dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError):
        g.normal([2], dtype=tf.int32)


def test_generators_with_the_same_seed_agree():
    a = tf.random.Generator.from_seed(5).normal([5]).numpy()
    b = tf.random.Generator.from_seed(5).normal([5]).numpy()
    assert np.array_equal(a, b)


def test_shuffle_is_a_permutation():
    x = tf.range(10)
    s = tf.random.shuffle(x, seed=1).numpy()
    assert sorted(s.tolist()) == list(range(10))


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16])
def test_half_dtypes_draw_uniform_and_normal_values(dtype):
    # TF 2.21 draws both in float16/bfloat16; a uniform fraction never rounds up to maxval.
    u = tf.random.uniform([20000], dtype=dtype, seed=3)
    assert u.dtype == dtype
    v = u.numpy().astype(np.float64)
    assert v.min() >= 0.0 and v.max() < 1.0
    assert len(np.unique(v)) > 100
    w = tf.random.uniform([1000], minval=-2.0, maxval=2.0, dtype=dtype, seed=4).numpy().astype(np.float64)
    assert w.min() >= -2.0 and w.max() < 2.0
    n = tf.random.normal([20000], dtype=dtype, seed=5)
    assert n.dtype == dtype and abs(float(np.mean(n.numpy().astype(np.float64)))) < 0.05


def test_uniform_names_the_dtypes_it_takes():
    with pytest.raises(tf.errors.InvalidArgumentError, match="half, bfloat16, float32, float64, int32, int64"):
        tf.random.uniform([2], maxval=3, dtype=tf.int8)
