"""keras.tree against Keras 3.15 (tests/data/make_keras_tree_reference.py): results compared by repr, so
container types and dict key order count."""

import collections
import json
import pathlib

import pytest

import tapers as tf

REF = json.loads((pathlib.Path(__file__).parent / "data" / "keras_tree_reference.json").read_text())
T = tf.keras.tree
Point = collections.namedtuple("Point", ["x", "y"])
STRUCTS = {
    "flat": [1, 2, 3],
    "nested": {"b": [1, (2, 3)], "a": 4, "c": {"z": 5, "y": None}},
    "named": [Point(1, [2, 3]), (4,)],
    "leaf": 7,
    "none": None,
    "shapes": {"in": (None, 3), "out": [(2, 4), (5,)]},
}


@pytest.mark.parametrize("name", sorted(STRUCTS))
def test_tree_functions_match_keras(name):
    s, ref = STRUCTS[name], REF[name]
    assert T.is_nested(s) == ref["is_nested"]
    assert repr(T.flatten(s)) == ref["flatten"]
    assert repr(T.flatten_with_path(s)) == ref["flatten_with_path"]
    assert repr(T.map_structure(lambda v: None if v is None else ("v", v), s)) == ref["map_structure"]
    assert repr(T.map_structure(lambda v: ("v", v), s, none_is_leaf=False)) == ref["map_no_none_leaf"]
    assert repr(T.pack_sequence_as(s, list(range(len(T.flatten(s)))))) == ref["pack"]
    assert repr(T.lists_to_tuples(s)) == ref["lists_to_tuples"]
    top = T.traverse(lambda v: ("hit", v) if isinstance(v, int) and v > 2 else None, s)
    assert repr(top) == ref["traverse_top"]
    bottom = T.traverse(lambda v: len(v) if isinstance(v, (list, tuple, dict)) else None, s, top_down=False)
    assert repr(bottom) == ref["traverse_bottom"]
    none = T.traverse(lambda v: T.MAP_TO_NONE if isinstance(v, int) and v == 2 else None, s)
    assert repr(none) == ref["traverse_map_to_none"]


def test_shapes_up_to_and_several_structures():
    assert repr(T.map_shape_structure(lambda s: ("shape", s), STRUCTS["shapes"])) == REF["shapes_map"]
    got = T.map_structure_up_to({"a": 0, "b": 0}, lambda v: repr(v), {"a": [1, 2], "b": (3, {"q": 4})})
    assert repr(got) == REF["up_to"]
    assert repr(T.map_structure(lambda a, b: a + b, [1, (2, 3)], [10, (20, 30)])) == REF["two"]


def test_structure_errors_match_keras():
    errs = REF["errors"]

    def kind(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - compared with Keras' class
            return type(e).__name__
        return None

    assert kind(lambda: T.map_structure(lambda a, b: a, [1, 2], [1, 2, 3])) == errs["map_mismatch"]
    assert kind(lambda: T.assert_same_structure([1, [2]], [1, 2])) == errs["same_structure"]
    assert kind(lambda: T.assert_same_structure([1, 2], (1, 2))) == errs["same_structure_types_ok"]
    assert kind(lambda: T.assert_same_paths({"a": 1}, {"b": 1})) == errs["same_paths"]
    assert kind(lambda: T.assert_same_paths([1, [2]], (3, (4,)))) == errs["same_paths_ok"]
    with pytest.raises(ValueError, match="at least one structure"):
        T.map_structure(lambda: 0)
