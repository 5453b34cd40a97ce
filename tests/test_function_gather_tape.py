"""A gather under a tape inside `tapers.function` reads each call's indices.

Embedding steps gather rows by ids that change every batch. The gather's
recorded pieces (its forward, its dense gradient, the sparse gradient's
indices and their dense form) read the rows from the index tensor, so the
step traces once and replays with new ids, with the bits eager execution
gives, instead of guarding on the ids and falling back to eager.
"""

import warnings

import numpy as np
import pytest

import tapers as tf

R = np.random.default_rng(11)
IDS = [R.integers(0, 50, size=24) for _ in range(6)] + [np.full(24, 7)]


def bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a.reshape(-1).view(np.uint8), b.reshape(-1).view(np.uint8))


def same_results(eager, compiled):
    """Every tensor `compiled` returned has the bits of eager's."""
    for u, v in zip(eager, compiled):
        bits(u.numpy(), v.numpy())


def eager_and_compiled(step, args_list):
    """Runs `step` eagerly and compiled on fresh copies of its state; returns
    both results per call, and the compiled function."""
    compiled = tf.function(step)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a retracing or fallback warning fails
        for args in args_list:
            out.append((step(*args), compiled(*args)))
    return out, compiled


@pytest.mark.parametrize("index_dtype", [tf.int32, tf.int64])
@pytest.mark.parametrize("opt", ["sgd", "adam", "rmsprop"])
def test_an_embedding_training_step_traces_once_and_matches_eager(index_dtype, opt):
    init = R.normal(size=(50, 8)).astype(np.float32)
    w_init = R.normal(size=(8, 1)).astype(np.float32)
    ys = tf.constant(R.normal(size=(24, 1)).astype(np.float32))

    def make():
        emb, w = tf.Variable(init), tf.Variable(w_init)
        o = {
            "sgd": tf.keras.optimizers.SGD(0.1),
            "adam": tf.keras.optimizers.Adam(0.01),
            "rmsprop": tf.keras.optimizers.RMSprop(0.01),
        }[opt]

        def step(ids):
            with tf.GradientTape() as t:
                e = tf.gather(emb, ids)
                loss = tf.reduce_mean((e @ w - ys) ** 2)
            g = t.gradient(loss, [emb, w])
            o.apply_gradients(zip(g, [emb, w]))
            return loss, g[0].values, g[0].indices

        return step, emb, w

    eager_step, e_emb, e_w = make()
    comp_step, c_emb, c_w = make()
    f = tf.function(comp_step)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for ids in IDS:
            i = tf.constant(ids, index_dtype)
            a, b = eager_step(i), f(i)
            same_results(a, b)
            assert b[2].dtype == index_dtype
            np.testing.assert_array_equal(b[2].numpy(), ids)
    bits(e_emb.numpy(), c_emb.numpy())
    bits(e_w.numpy(), c_w.numpy())
    assert f.experimental_get_tracing_count() == 1


def test_the_dense_gradient_of_a_gather_along_another_axis_uses_each_calls_indices():
    x = tf.constant(R.normal(size=(3, 40)))

    def step(ids):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(tf.gather(x, ids, axis=1) ** 3)
        return y, t.gradient(y, x)

    out, f = eager_and_compiled(step, [(tf.constant(ids % 40),) for ids in IDS])
    for a, b in out:
        same_results(a, b)
    assert f.experimental_get_tracing_count() == 1


def test_two_dimensional_ids_and_a_densified_sparse_gradient():
    table = tf.Variable(R.normal(size=(50, 4)))

    def step(ids):
        with tf.GradientTape() as t:
            y = tf.reduce_sum(tf.sin(tf.gather(table, ids)))
        g = t.gradient(y, table)
        return tf.convert_to_tensor(g), g.indices

    args = [(tf.constant(ids.reshape(4, 6)),) for ids in IDS]
    out, f = eager_and_compiled(step, args)
    for (a, b), (ids,) in zip(out, args):
        bits(a[0].numpy(), b[0].numpy())
        np.testing.assert_array_equal(b[1].numpy(), ids.numpy().reshape(-1))
    assert f.experimental_get_tracing_count() == 1


def test_two_gathers_of_one_table_concatenate_their_rows():
    table = tf.Variable(R.normal(size=(50, 4)))

    def step(a, b):
        with tf.GradientTape() as t:
            y = tf.reduce_sum(tf.gather(table, a)) + 2.0 * tf.reduce_sum(tf.gather(table, b))
        g = t.gradient(y, table)
        return g.values, g.indices, tf.convert_to_tensor(g)

    args = [(tf.constant(IDS[k]), tf.constant(IDS[k + 1][:5], tf.int64)) for k in range(5)]
    out, f = eager_and_compiled(step, args)
    for (a, b), (i, j) in zip(out, args):
        same_results(a, b)
        # TF's aggregation order: the later gather's rows first (the
        # backward pass meets it first).
        np.testing.assert_array_equal(b[1].numpy(), np.concatenate([j.numpy(), i.numpy()]))
        assert b[1].dtype == tf.int64
    assert f.experimental_get_tracing_count() == 1


def test_a_keras_embedding_layer_trains_compiled_without_retracing():
    layer = tf.keras.layers.Embedding(30, 4)
    layer.build((None,))
    opt = tf.keras.optimizers.SGD(0.5)

    @tf.function
    def step(ids):
        with tf.GradientTape() as t:
            loss = tf.reduce_sum(layer(ids) ** 2)
        opt.apply_gradients(zip(t.gradient(loss, layer.trainable_variables), layer.trainable_variables))
        return loss

    before = layer.embeddings.numpy().copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for k in range(4):
            step(tf.constant([k, k + 10]))
    after = layer.embeddings.numpy()
    # Rows 0-3 and 10-13 were updated (each to 0: w - 0.5 * 2w), the rest kept.
    touched = [0, 1, 2, 3, 10, 11, 12, 13]
    np.testing.assert_array_equal(after[touched], 0.0)
    rest = [r for r in range(30) if r not in touched]
    np.testing.assert_array_equal(after[rest], before[rest])
    assert step.experimental_get_tracing_count() == 1


def test_a_second_order_gather_still_replays_correctly():
    # A tape recording the gradient computation sees baked rows: the trace
    # is guarded then (it may retrace), and every value stays right.
    x = tf.constant(R.normal(size=(10, 3)))

    def step(ids):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.reduce_sum(tf.gather(x, ids) ** 3)
            g = tf.convert_to_tensor(inner.gradient(y, x))
            z = tf.reduce_sum(g * g)
        return g, tf.convert_to_tensor(outer.gradient(z, x))

    f = tf.function(step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ids in IDS[:4]:
            i = tf.constant(ids % 10)
            same_results(step(i), f(i))


def test_batch_dims_stay_correct():
    x = tf.constant(R.normal(size=(4, 6)))

    def step(ids):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(tf.gather(x, ids, axis=1, batch_dims=1) ** 2)
        return y, t.gradient(y, x)

    f = tf.function(step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(4):
            i = tf.constant(R.integers(0, 6, size=(4, 3)))
            same_results(step(i), f(i))


def test_out_of_range_ids_at_replay_raise_and_leave_the_table_unchanged():
    table = tf.Variable(np.ones((5, 2), np.float32))
    opt = tf.keras.optimizers.SGD(0.1)

    @tf.function
    def step(ids):
        with tf.GradientTape() as t:
            y = tf.reduce_sum(tf.gather(table, ids))
        opt.apply_gradients([(t.gradient(y, table), table)])
        return y

    step(tf.constant([0, 1]))
    before = table.numpy().copy()
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 9 is not in \[0, 5\)"):
        step(tf.constant([2, 9]))
    np.testing.assert_array_equal(table.numpy(), before)
    assert step.experimental_get_tracing_count() == 1


def test_a_returned_sparse_gradient_holds_each_calls_rows():
    # The IndexedSlices itself is returned (alone, in a tuple, and one built
    # without a dense shape): a replay rebuilds it from that call's parts
    # instead of returning the traced call's object.
    table = tf.Variable(R.normal(size=(12, 3)).astype(np.float32))

    def grad(ids):
        with tf.GradientTape() as t:
            y = tf.reduce_sum(tf.gather(table, ids) ** 2)
        return t.gradient(y, table)

    def pair(ids):
        g = grad(ids)
        return g, tf.IndexedSlices(g.values * 2.0, ids)

    f, fp = tf.function(grad), tf.function(pair)
    for ids in IDS[:4]:
        i = tf.constant(ids % 12)
        a, b = grad(i), f(i)
        assert isinstance(b, tf.IndexedSlices)
        same_results((a.values, a.indices, a.dense_shape), (b.values, b.indices, b.dense_shape))
        (a, a2), (b, b2) = pair(i), fp(i)
        same_results((a.values, a.indices, a2.values, a2.indices), (b.values, b.indices, b2.values, b2.indices))
        assert b2.dense_shape is None and b.dense_shape is not None
    assert f.experimental_get_tracing_count() == 1
    assert fp.experimental_get_tracing_count() == 1
