"""``tapers.debugging`` against TensorFlow 2.21: each check's exception class and eager
message, eagerly and inside ``tapers.function``.

``tests/data/debugging_reference.json`` is written by
``tests/data/make_debugging_reference.py``, which ran every snippet under TensorFlow.
Inside a compiled step a check is a graph node: it checks every call's values with no
retrace, in the branch a ``cond`` takes too. TensorFlow applies the failing call's
earlier ``assign_add`` before its check raises; tapers leaves Variables as they were
before a failed call (``tapers.function``'s rule), so the variable differs by one.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np
import pytest
from _tf_programs import check_snippet, run

import tapers as tf

REF = json.loads((pathlib.Path(__file__).parent / "data" / "debugging_reference.json").read_text())["programs"]


EAGER = sorted(k for k in REF if not k.startswith("compiled"))
COMPILED = sorted(k for k in REF if k.startswith("compiled"))


@pytest.mark.parametrize("name", EAGER)
def test_checks_raise_tensorflows_class_and_message(name: str) -> None:
    check_snippet(REF[name])


@pytest.mark.parametrize("name", COMPILED)
def test_checks_in_a_compiled_step_raise_at_each_failing_call(name: str) -> None:
    want = REF[name]["result"]
    got = run(REF[name]["source"])
    assert got["error"] is None, got["error"]
    result = got["result"]
    assert result["failed"] == want["failed"]
    assert result["traces"] == want["traces"] == 1
    # TensorFlow kept the failed call's assign_add (3.0); tapers did not.
    assert (want["v"], result["v"]) == (3.0, 2.0)


def test_a_compiled_check_is_a_node_not_a_guard() -> None:
    @tf.function
    def f(x: Any) -> Any:
        tf.debugging.assert_positive(x)
        return tf.debugging.check_numerics(x, "x") * 2.0

    for v in (1.0, 2.0, 3.0, 4.0, 5.0, 6.0):
        assert float(f(tf.constant([v]))[0]) == 2 * v
    assert f.experimental_get_tracing_count() == 1
    concrete = f.get_concrete_function(tf.constant([1.0]))
    assert concrete.replayable
    assert concrete._entry.graph.num_guards == 0
    assert concrete.op_names.count("Assert") == 2
    with pytest.raises(tf.errors.InvalidArgumentError, match="x : Tensor had Inf values"):
        f(tf.constant([np.inf]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Condition x > 0 did not hold element-wise"):
        f(tf.constant([-1.0]))
    assert f.experimental_get_tracing_count() == 1


def test_check_numerics_passes_its_gradient_through() -> None:
    x = tf.constant([1.0, 2.0], tf.float64)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(tf.debugging.check_numerics(x * x, "y"))
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), [2.0, 4.0])


def test_a_check_in_a_branch_not_taken_does_not_fire() -> None:
    @tf.function
    def f(x: Any) -> Any:
        def positive() -> Any:
            tf.debugging.assert_positive(x, message="branch")
            return x + 1.0

        return tf.cond(tf.reduce_all(x > 0.0), positive, lambda: x - 1.0)

    assert float(f(tf.constant([-5.0]))[0]) == -6.0  # traced on the untaken branch's failing values
    assert float(f(tf.constant([2.0]))[0]) == 3.0
    assert f.experimental_get_tracing_count() == 1
