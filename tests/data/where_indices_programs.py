"""The conditions tf.where's one-argument form is checked on, shared by the TensorFlow
fixture script (make_where_indices_reference.py) and tests/test_where_indices.py."""

from __future__ import annotations

from typing import Any

import numpy as np

CASES = ["bool_2d", "bool_3d", "float_with_zeros", "int_nonzero", "scalar_true", "scalar_false", "none_true", "empty"]


def condition(name: str) -> tuple[Any, str]:
    """The condition's values and dtype name."""
    rng = np.random.default_rng(3)
    if name == "bool_2d":
        return (rng.normal(size=(4, 5)) > 0).tolist(), "bool"
    if name == "bool_3d":
        return (rng.normal(size=(2, 3, 4)) > 0.3).tolist(), "bool"
    if name == "float_with_zeros":
        return [[0.0, 1.5, -0.0], [float("nan"), 0.0, -2.0]], "float32"
    if name == "int_nonzero":
        return [0, 3, 0, -1, 7], "int64"
    if name == "scalar_true":
        return True, "bool"
    if name == "scalar_false":
        return False, "bool"
    if name == "none_true":
        return [[False, False], [False, False]], "bool"
    if name == "empty":
        return np.zeros((0, 3), bool).tolist(), "bool"
    raise KeyError(name)
