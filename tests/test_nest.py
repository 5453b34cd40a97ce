"""``tapers.nest`` against TensorFlow 2.21: flatten order, re-packing, ``map_structure``
and the errors' classes and texts (``tests/data/make_nest_reference.py``)."""

from __future__ import annotations

import collections
import json
import pathlib

import pytest
from _tf_programs import check_snippet

P = collections.namedtuple("P", ["b", "a"])
REF = json.loads((pathlib.Path(__file__).parent / "data" / "nest_reference.json").read_text())["programs"]


@pytest.mark.parametrize("name", sorted(REF))
def test_matches_tensorflow(name: str) -> None:
    check_snippet(REF[name], collections=collections, P=P)
