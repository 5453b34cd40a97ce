"""``tapers.py_function`` and ``tapers.numpy_function`` against TensorFlow 2.21: results,
dtypes, gradients and errors (``tests/data/make_py_function_reference.py``)."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np
import pytest
from _tf_programs import tf_text

import tapers as tf

REF = json.loads((pathlib.Path(__file__).parent / "data" / "py_function_reference.json").read_text())["programs"]


def run(source: str) -> dict[str, Any]:
    ns: dict[str, Any] = {"tf": tf, "np": np}
    rec: dict[str, Any] = {"error": None}
    try:
        exec(compile(source, "<snippet>", "exec"), ns)
    except Exception as e:  # noqa: BLE001 - compared with what TensorFlow raised
        rec["error"] = [type(e).__name__, str(e)]
    if "result" in ns:
        rec["result"] = ns["result"]
    return rec


@pytest.mark.parametrize("name", sorted(REF))
def test_matches_tensorflow(name: str) -> None:
    want = REF[name]
    got = run(want["source"])
    if want["error"] is None:
        assert got["error"] is None, got["error"]
        assert got["result"] == want["result"]
    else:
        assert got["error"] is not None
        assert got["error"][0] == want["error"][0]
        assert got["error"][1] == tf_text(want["error"][1])


def test_py_function_in_a_compiled_step_replays_its_ops() -> None:
    @tf.function
    def f(x: Any) -> Any:
        return tf.py_function(lambda v: v * v + 1.0, [x], tf.float32)

    assert [float(f(tf.constant(v))) for v in (1.0, 2.0, 3.0)] == [2.0, 5.0, 10.0]
    assert f.experimental_get_tracing_count() == 1
