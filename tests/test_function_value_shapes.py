"""``tapers.function`` with ops whose results' shapes depend on values.

``tf.where(c)``, ``tf.boolean_mask``, ``tf.unique``, ``segment_sum`` and ``bincount``
make results whose shapes come from their inputs' values. A graph is traced for the
shapes its trace saw (a slice ``v[-1]`` is recorded at a position, ``reduce_mean``
divides by the traced count, Python reads ``v.shape[0]``), so a replay checks those
shapes: a call that makes another shape traces again, as after a failed guard, and
every call returns what eager execution returns.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

import tapers as tf


def bits(x: Any) -> bytes:
    return np.asarray(x).tobytes()


X = tf.constant(np.linspace(-2.0, 3.0, 12, dtype=np.float32))


def masked(m: Any) -> Any:
    v = tf.boolean_mask(X, m)
    # A position from the end, a mean, the shape as a tensor and as a Python int.
    return v[-1], tf.reduce_mean(v), tf.cast(tf.shape(v)[0], tf.float32), tf.size(v), v.shape[0] * 1.0


def where_rows(m: Any) -> Any:
    # [:, 0] of tf.where's (count, 1) result is traced as a reshape to (count,).
    return tf.reduce_sum(tf.gather(X, tf.where(m)[:, 0]))


def unique_count(m: Any) -> Any:
    u, _ = tf.unique(tf.cast(tf.boolean_mask(tf.range(12) % 4, m), tf.int32))
    return tf.reduce_sum(u), tf.shape(u)[0]


def segments(m: Any) -> Any:
    ids = tf.cumsum(tf.cast(m, tf.int32)) - tf.cast(m[0], tf.int32)
    return tf.math.segment_sum(X, ids)[-1], tf.size(tf.math.bincount(ids))


def same_as_eager(fn: Callable[..., Any], masks: list[np.ndarray]) -> Any:
    f = tf.function(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k, m in enumerate(masks):
            want, got = fn(tf.constant(m)), f(tf.constant(m))
            want = want if isinstance(want, tuple) else (want,)
            got = got if isinstance(got, tuple) else (got,)
            for j, (a, b) in enumerate(zip(want, got)):
                assert bits(a) == bits(b), f"call {k}, output {j}: {b} against eager's {a}"
    return f


def counts(*ks: int) -> list[np.ndarray]:
    """Masks of 12 with `k` true elements each (the first `k`, then every other)."""
    out = []
    for i, k in enumerate(ks):
        m = np.zeros(12, bool)
        m[(np.arange(k) * (1 + i % 2)) % 12] = True
        out.append(m)
    return out


def test_results_whose_shapes_depend_on_values_match_eager_when_the_shapes_change() -> None:
    for fn in (masked, where_rows, unique_count, segments):
        f = same_as_eager(fn, counts(4, 7, 4, 5))
        # A new shape traced again (the third call's shape is the first's, but the
        # graph kept is the second's).
        assert f.experimental_get_tracing_count() >= 2, fn.__name__


def test_a_mask_of_the_traced_count_replays_without_tracing_again() -> None:
    # Other elements, the same count: the graph applies (its values are recomputed).
    masks = [np.roll(counts(5)[0], r) for r in range(4)]
    for fn in (masked, where_rows):
        f = same_as_eager(fn, masks)
        assert f.experimental_get_tracing_count() == 1, fn.__name__


def test_shapes_that_keep_changing_fall_back_to_eager_with_one_warning_naming_them() -> None:
    f = tf.function(masked)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k in range(1, 11):
            m = tf.constant(counts(k)[0])
            assert bits(f(m)[1]) == bits(masked(m)[1])
    eager = [str(w.message) for w in caught if "runs eagerly" in str(w.message)]
    assert len(eager) == 1 and "tf.boolean_mask" in eager[0], eager


def test_a_result_only_its_shape_is_read_of_is_still_checked() -> None:
    # Nothing reads the mask's result but Python's `.shape`: the op stays in the
    # graph, so a replay still sees the count change.
    @tf.function
    def f(m: Any) -> Any:
        return tf.constant(1.0) * tf.boolean_mask(X, m).shape[0]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert [float(f(tf.constant(m))) for m in counts(3, 6)] == [3.0, 6.0]


def test_a_changed_count_inside_cond_or_while_loop_traces_the_function_again():
    # The branch and body graphs check their value-dependent shapes too; one
    # that no longer applies makes the whole function trace again (it raised
    # "the graph no longer applies" before).
    def in_cond(m, p):
        return tf.cond(p, lambda: tf.reduce_mean(tf.boolean_mask(X, m)), lambda: tf.constant(0.0))

    def in_loop(m, p):
        def body(i, acc):
            return i + 1, acc + tf.reduce_mean(tf.boolean_mask(X, m)) * tf.cast(i, tf.float32)

        return tf.while_loop(lambda i, acc: i < 3, body, [tf.constant(0), tf.constant(0.0)])[1]

    yes = tf.constant(True)
    for step in (in_cond, in_loop):
        f = tf.function(step)
        for k in (3, 3, 5, 7):
            m = tf.constant(np.arange(12) < k)
            assert bits(f(m, yes)) == bits(step(m, yes)), (step.__name__, k)
        # Counts 3, 3, 5, 7: the second call replays, each new count traces.
        assert f.experimental_get_tracing_count() == 3, step.__name__
