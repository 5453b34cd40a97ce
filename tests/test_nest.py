"""``tapers.nest`` against TensorFlow 2.21: flatten order, re-packing, ``map_structure``
and the errors' classes and texts (``tests/data/make_nest_reference.py``)."""

from __future__ import annotations

import collections
import json
import pathlib
from typing import Any

import numpy as np
import pytest
from _tf_programs import tf_text

import tapers as tf

P = collections.namedtuple("P", ["b", "a"])
REF = json.loads((pathlib.Path(__file__).parent / "data" / "nest_reference.json").read_text())["programs"]


def run(source: str) -> dict[str, Any]:
    ns: dict[str, Any] = {"tf": tf, "np": np, "collections": collections, "P": P}
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
