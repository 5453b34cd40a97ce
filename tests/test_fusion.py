"""Fused backward passes over large same-shape elementwise regions.

The backward pass fuses such regions unless an outer tape records the pass
(then every rule must be recorded op by op), so differentiating once plainly
and once under an outer tape compares the fused pass against the unfused one.
`GradientTape.last_pass_stats()` says whether (and how much) each pass fused,
so these tests fail if fusion silently stops engaging.
"""

import numpy as np
import pytest

import tapers as tf

N = 1 << 17  # above the fusion threshold (2^16 elements)
R = np.random.default_rng(11)


def grads(build, xs, fused, targets=None, persistent=False):
    def run():
        with tf.GradientTape(persistent=persistent) as t:
            t.watch(xs)
            out = build(*xs)
        ys = out if targets is None else [out[k] for k in targets]
        gs = [None if g is None else g.numpy() for g in t.gradient(ys, xs)]
        # An outer tape records every rule: nothing may fuse then.
        assert fused or t.last_pass_stats()["fused_regions"] == 0
        return gs, t, ys

    if fused:
        return run()
    with tf.GradientTape():
        return run()


def assert_same(a, b, exact):
    for p, q in zip(a, b):
        if exact:
            assert p.dtype == q.dtype and p.tobytes() == q.tobytes()
        else:
            np.testing.assert_allclose(p, q, rtol=1e-12 if p.dtype == np.float64 else 1e-5, atol=1e-12)


def every_op(x, one):
    a = tf.sqrt(tf.square(x) + one) * tf.sigmoid(x)
    b = tf.math.log(tf.exp(x) + one) / (tf.nn.relu(x) + one)
    return tf.reduce_sum(a - b + tf.tanh(-x))


def every_op_np(x):
    a = np.sqrt(x * x + 1) / (1 + np.exp(-x))
    b = np.log(np.exp(x) + 1) / (np.maximum(x, 0) + 1)
    return a - b + np.tanh(-x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_region_matches_unfused_bitwise_and_finite_differences(dtype):
    xv = R.normal(size=N).astype(dtype)
    x, one = tf.constant(xv), tf.constant(np.ones(N, dtype))
    fused, t, _ = grads(lambda x: every_op(x, one), [x], fused=True)
    # Every op from the sum down is one region: 16 ops, one rule.
    stats = t.last_pass_stats()
    assert (stats["fused_regions"], stats["fused_ops"], stats["rules"]) == (1, 16, 1), stats
    plain, _, _ = grads(lambda x: every_op(x, one), [x], fused=False)
    # Every contribution to x comes from inside the region: same bits.
    assert_same(fused, plain, exact=True)
    if dtype == np.float64:
        h = 1e-6
        fd = (every_op_np(xv + h) - every_op_np(xv - h)) / (2 * h)
        np.testing.assert_allclose(fused[0], fd, rtol=1e-6, atol=1e-8)


def test_leaf_with_gradients_from_inside_and_outside_the_region():
    xv = R.normal(size=N)
    x = tf.constant(xv)

    def f(x):
        return tf.reduce_sum(tf.tanh(x) * tf.exp(x)) + tf.reduce_sum(x * 3.0)

    fused, _, _ = grads(f, [x], fused=True)
    plain, _, _ = grads(f, [x], fused=False)
    assert_same(fused, plain, exact=False)
    th = np.tanh(xv)
    np.testing.assert_allclose(fused[0], (1 - th * th) * np.exp(xv) + th * np.exp(xv) + 3.0, rtol=1e-12)


def test_intermediate_targets_and_sources_stay_outside_regions():
    xv = R.normal(size=N)
    x = tf.constant(xv)

    def f(x):
        h = tf.tanh(x) * x  # a target below: not internal to a region
        y = tf.exp(h) * h
        return [tf.reduce_sum(y), h]

    fused, _, _ = grads(f, [x], fused=True, targets=[0, 1])
    plain, _, _ = grads(f, [x], fused=False, targets=[0, 1])
    assert_same(fused, plain, exact=False)

    # A watched intermediate is a source: it gets its own gradient.
    def g(x):
        with tf.GradientTape() as t:
            t.watch(x)
            h = tf.sigmoid(x) * x
            t.watch(h)
            y = tf.reduce_sum(tf.square(h) - h)
        return t.gradient(y, [x, h])

    gx, gh = (v.numpy() for v in g(x))
    h = xv / (1 + np.exp(-xv))
    np.testing.assert_allclose(gh, 2 * h - 1, rtol=1e-12, atol=1e-12)
    s = 1 / (1 + np.exp(-xv))
    np.testing.assert_allclose(gx, (2 * h - 1) * (s * (1 - s) * xv + s), rtol=1e-10, atol=1e-12)


def test_untracked_operands_broadcasts_and_chained_regions():
    xv, cv = R.normal(size=(N // 64, 64)), R.normal(size=(N // 64, 64))
    x, c = tf.constant(xv), tf.constant(cv)

    def f(x):
        h = tf.tanh(x * c) - c  # c untracked, same shape: inside the region
        z = tf.transpose(h)  # not elementwise: ends the first region
        z = z * 0.5 + tf.exp(-z)  # constant scalars broadcast inside the second region
        return tf.reduce_sum(tf.sqrt(tf.square(z) + tf.ones_like(z)) * z)

    fused, _, _ = grads(f, [x], fused=True)
    plain, _, _ = grads(f, [x], fused=False)
    assert_same(fused, plain, exact=False)


def test_persistent_tape_fuses_the_same_way_twice():
    x = tf.constant(R.normal(size=N).astype(np.float32))
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tf.reduce_sum(tf.tanh(x) * tf.exp(-x * x) + x)
    a = t.gradient(y, x).numpy()
    b = t.gradient(y, x).numpy()
    assert a.tobytes() == b.tobytes()
    # Second order through an outer tape still works (unfused there).
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.tanh(x) * x)
        g = tf.reduce_sum(inner.gradient(y, x))
    h = outer.gradient(g, x).numpy()
    xv = x.numpy().astype(np.float64)
    th = np.tanh(xv)
    want = 2 * (1 - th * th) - 2 * th * (1 - th * th) * xv
    np.testing.assert_allclose(h, want, rtol=1e-4, atol=1e-5)


def test_variables_in_a_fused_region():
    v = tf.Variable(R.normal(size=N))
    with tf.GradientTape() as t:
        y = tf.reduce_sum(tf.exp(v * v) * v)
    (g,) = t.gradient(y, [v])
    vv = v.numpy()
    np.testing.assert_allclose(g.numpy(), np.exp(vv * vv) * (2 * vv * vv + 1), rtol=1e-12)


def test_constant_scalars_fuse_and_watched_scalars_do_not():
    xv = R.normal(size=N)
    x, s = tf.constant(xv), tf.constant(0.7, dtype=tf.float64)

    def f(x, s):
        # Constant scalars broadcast inside the region; the watched scalar s
        # needs a reduction for its gradient, so its product is not fused.
        h = tf.tanh(x * 0.5 + 1.0) * (2.0 - x) / 3.0
        return tf.reduce_sum(h * s + 1.0 / (tf.square(x) + 1.0))

    fused, _, _ = grads(f, [x, s], fused=True)
    plain, _, _ = grads(f, [x, s], fused=False)
    assert_same(fused, plain, exact=False)
    t = np.tanh(xv * 0.5 + 1.0)
    h = t * (2.0 - xv) / 3.0
    dh = (0.5 * (1 - t * t) * (2.0 - xv) - t) / 3.0
    np.testing.assert_allclose(fused[0], 0.7 * dh - 2 * xv / (xv * xv + 1) ** 2, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fused[1], h.sum(), rtol=1e-10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "head",
    [
        lambda y: tf.reduce_sum(y),
        lambda y: tf.reduce_mean(y),
        lambda y: tf.reduce_sum(y, keepdims=True),
        lambda y: tf.reduce_sum(y, axis=[0, 1]),
    ],
    ids=["sum", "mean", "sum_keepdims", "sum_axes"],
)
def test_a_full_sum_heads_its_region(dtype, head):
    # The sum's one-element gradient reaches every element without the
    # broadcast tensor the op-by-op rule builds: same bits, any seed value.
    xv = R.normal(size=(256, N // 256)).astype(dtype)
    x = tf.constant(xv)

    def run(seed):
        with tf.GradientTape() as t:
            t.watch(x)
            y = head(tf.tanh(x) * tf.exp(-x * x) + x)
        og = None if seed is None else tf.constant(np.full(y.shape, seed, dtype))
        g = t.gradient(y, x, output_gradients=og).numpy()
        run.stats = t.last_pass_stats()
        return g

    for seed in [None, 2.5, -0.0]:
        fused = run(seed)
        # The whole pass is one fused rule: the sum heads the region (a mean
        # adds its division by the count, outside).
        assert run.stats["fused_regions"] == 1 and run.stats["rules"] in (1, 2), run.stats
        with tf.GradientTape():
            plain = run(seed)
        assert fused.dtype == plain.dtype and fused.tobytes() == plain.tobytes()
    if dtype == np.float64:
        th, e = np.tanh(xv), np.exp(-xv * xv)
        scale = 1.0 / xv.size if np.sum(head(tf.ones((2, 2), dtype)).numpy()) == 1.0 else 1.0
        want = 2.5 * scale * ((1 - th * th) * e + th * e * (-2 * xv) + 1)
        np.testing.assert_allclose(run(2.5), want, rtol=1e-12, atol=1e-15)


def test_a_partial_sum_does_not_head_a_region():
    # A sum over some axes has a gradient per row: not a one-value seed.
    xv = R.normal(size=(256, N // 256))
    x = tf.constant(xv)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(tf.tanh(x) * x, axis=1)
    og = tf.constant(np.arange(256, dtype=np.float64))
    g = t.gradient(y, x, output_gradients=og).numpy()
    # tanh(x) * x fuses below the sum; the sum runs its own rule.
    stats = t.last_pass_stats()
    assert (stats["fused_regions"], stats["fused_ops"], stats["rules"]) == (1, 2, 2), stats
    th = np.tanh(xv)
    np.testing.assert_allclose(g, np.arange(256.0)[:, None] * ((1 - th * th) * xv + th), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("wanted", [[0, 1, 2], [1], [0, 2], [2, 0]])
def test_a_region_with_several_wanted_leaves_writes_each_gradient(dtype, wanted):
    # Every wanted leaf's gradient is its own written-once output of the
    # fused pass, whichever subset (and order) of the leaves is asked for.
    vals = [R.normal(size=N).astype(dtype) for _ in range(3)]
    ts = [tf.constant(v) for v in vals]

    def f(x, y, z):
        return tf.reduce_sum(tf.tanh(x) * tf.exp(-y * y) + x * z)

    def run(fused):
        def go():
            with tf.GradientTape() as t:
                t.watch(ts)
                out = f(*ts)
            return [g.numpy() for g in t.gradient(out, [ts[k] for k in wanted])]

        if fused:
            return go()
        with tf.GradientTape():
            return go()

    fused, plain = run(True), run(False)
    assert_same(fused, plain, exact=True)
    if dtype == np.float64:
        x, y, z = vals
        th, e = np.tanh(x), np.exp(-y * y)
        want = [(1 - th * th) * e + z, th * e * (-2 * y), x]
        for g, k in zip(fused, wanted):
            np.testing.assert_allclose(g, want[k], rtol=1e-12, atol=1e-12)
