"""``tapers.py_function`` and ``tapers.numpy_function`` against TensorFlow 2.21: results,
dtypes, gradients and errors (``tests/data/make_py_function_reference.py``)."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest
from _tf_programs import check_snippet

import tapers as tf

REF = json.loads((pathlib.Path(__file__).parent / "data" / "py_function_reference.json").read_text())["programs"]


@pytest.mark.parametrize("name", sorted(REF))
def test_matches_tensorflow(name: str) -> None:
    check_snippet(REF[name])


def test_py_function_in_a_compiled_step_replays_its_ops() -> None:
    @tf.function
    def f(x: Any) -> Any:
        return tf.py_function(lambda v: v * v + 1.0, [x], tf.float32)

    assert [float(f(tf.constant(v))) for v in (1.0, 2.0, 3.0)] == [2.0, 5.0, 10.0]
    assert f.experimental_get_tracing_count() == 1
