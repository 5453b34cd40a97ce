"""The tape's debugging views: why a gradient is None, and what was recorded."""

import contextlib
import io
import pathlib

import pytest

import tapers as tf


def test_explain_gives_the_reason_for_each_none():
    x = tf.constant([1.0, 2.0])
    unwatched = tf.constant([3.0, 4.0])
    n = tf.constant([1, 2])
    outside = x * 2.0
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.reduce_sum(x * x + unwatched)
        cut = tf.stop_gradient(tf.sin(x)) * 3.0
        via_int = tf.cast(tf.cast(x, tf.int32), tf.float32) * 2.0
    cases = [
        (y, x, "connected"),
        (y, unwatched, "never watched"),
        (y, n, "dtype int32"),
        (outside, x, "computed outside this tape"),
        (cut, x, "cut by StopGradient"),
        (via_int, x, "integer or boolean value (made by Cast)"),
    ]
    for target, source, reason in cases:
        assert reason in tape.explain(target, source)
        connected = tape.gradient(target, source) is not None
        assert connected == (reason == "connected")


def test_nothing_watched_is_explained_as_never_watched():
    # With nothing watched, the product is not recorded either; the reason to
    # give is the missing watch, not "computed outside this tape".
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        y = x * x
    assert "never watched" in tape.explain(y, x)
    assert tape.gradient(y, x) is None


def test_a_spent_tape_still_explains_the_nones_it_returned():
    x = tf.constant(2.0)
    v = tf.Variable(1.0, trainable=False)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.stop_gradient(x * x) + v
    assert tape.gradient(y, [x, v]) == [None, None]
    assert "cut by StopGradient" in tape.explain(y, x)
    assert "never watched" in tape.explain(y, v)  # trainable=False: not auto-watched


def test_describe_and_to_dot():
    x = tf.constant([[1.0, 2.0]])
    w = tf.Variable([[1.0], [2.0]], name="kernel")
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.nn.relu(tf.linalg.matmul(x, w)))
    text = tape.describe()
    assert text.startswith("GradientTape (non-persistent):")
    assert "Variable 'kernel" in text
    for op in ("MatMul(", "Relu(", "Sum("):
        assert op in text
    assert "float32 [1,1]" in text
    dot = tape.to_dot()
    assert dot.startswith("digraph tape {") and dot.rstrip().endswith("}")
    assert "MatMul" in dot and "fillcolor=lightblue" in dot
    tape.gradient(y, x)
    assert "no recording" in tape.describe()


@pytest.mark.parametrize("bad", [None, 3, "x"])
def test_explain_rejects_non_tensors(bad):
    with tf.GradientTape() as tape:
        pass
    with pytest.raises(TypeError):
        tape.explain(tf.constant(1.0), bad)


def test_the_readme_example_runs_and_prints_what_it_says():
    readme = (pathlib.Path(__file__).parent.parent / "README.md").read_text()
    section = readme[readme.index("## Debugging a tape") :]
    code = section[section.index("```python\n") + 10 : section.index("```\n", section.index("```python") + 9)]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {})
    lines = out.getvalue().splitlines()
    assert lines[0] == "GradientTape (non-persistent): 1 ops"
    assert lines[-2] == "None"
    assert lines[-1] == "the path is cut by StopGradient: no gradient flows through it"
