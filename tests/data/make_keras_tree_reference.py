"""Records Keras 3.15's ``keras.tree`` answers (flatten, flatten_with_path, map_structure, map_structure_up_to,
pack_sequence_as, lists_to_tuples, map_shape_structure, traverse, the structure checks) on a few nested
structures, into keras_tree_reference.json next to this file (values as repr strings: tuples, lists and
dicts keep their types).

Regenerate (scratch venv with TensorFlow 2.21 + Keras 3):
    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_tree_reference.py
"""

import collections
import json
import os

import keras

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_tree_reference.json")
Point = collections.namedtuple("Point", ["x", "y"])

STRUCTS = {
    "flat": [1, 2, 3],
    "nested": {"b": [1, (2, 3)], "a": 4, "c": {"z": 5, "y": None}},
    "named": [Point(1, [2, 3]), (4,)],
    "leaf": 7,
    "none": None,
    "shapes": {"in": (None, 3), "out": [(2, 4), (5,)]},
}


def err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - recorded
        return type(e).__name__
    return None


out = {}
for name, s in STRUCTS.items():
    rec = {
        "is_nested": keras.tree.is_nested(s),
        "flatten": repr(keras.tree.flatten(s)),
        "flatten_with_path": repr(keras.tree.flatten_with_path(s)),
        "map_structure": repr(keras.tree.map_structure(lambda v: None if v is None else ("v", v), s)),
        "map_no_none_leaf": repr(keras.tree.map_structure(lambda v: ("v", v), s, none_is_leaf=False)),
        "pack": repr(keras.tree.pack_sequence_as(s, list(range(len(keras.tree.flatten(s)))))),
        "lists_to_tuples": repr(keras.tree.lists_to_tuples(s)),
        "traverse_top": repr(keras.tree.traverse(lambda v: ("hit", v) if isinstance(v, int) and v > 2 else None, s)),
        "traverse_bottom": repr(keras.tree.traverse(
            lambda v: len(v) if isinstance(v, (list, tuple, dict)) else None, s, top_down=False)),
        "traverse_map_to_none": repr(keras.tree.traverse(
            lambda v: keras.tree.MAP_TO_NONE if isinstance(v, int) and v == 2 else None, s)),
    }
    out[name] = rec
out["shapes_map"] = repr(keras.tree.map_shape_structure(lambda s: ("shape", s), STRUCTS["shapes"]))
out["up_to"] = repr(keras.tree.map_structure_up_to({"a": 0, "b": 0}, lambda v: repr(v),
                                                   {"a": [1, 2], "b": (3, {"q": 4})}))
out["two"] = repr(keras.tree.map_structure(lambda a, b: a + b, [1, (2, 3)], [10, (20, 30)]))
out["errors"] = {
    "map_mismatch": err(lambda: keras.tree.map_structure(lambda a, b: a, [1, 2], [1, 2, 3])),
    "same_structure": err(lambda: keras.tree.assert_same_structure([1, [2]], [1, 2])),
    "same_structure_types_ok": err(lambda: keras.tree.assert_same_structure([1, 2], (1, 2))),
    "same_paths": err(lambda: keras.tree.assert_same_paths({"a": 1}, {"b": 1})),
    "same_paths_ok": err(lambda: keras.tree.assert_same_paths([1, [2]], (3, (4,)))),
}
with open(OUT, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
print("wrote", OUT)
