"""Bad input to the ops of issue 20's lists raises TensorFlow's exception class.

The fixtures (tests/data/make_op_errors_reference.py, TensorFlow 2.21) cover the
ops whose bad-input cases the other fixtures (linalg_reference.json,
ops_common_reference.json) do not; the expressions run here with ``tf`` bound to tapers.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tapers as tf

DATA = json.loads((Path(__file__).parent / "data" / "op_errors_reference.json").read_text())
REF = DATA["errors"]

# Where TensorFlow's class is an artifact of its oneDNN build rather than the op's
# contract: tapers raises InvalidArgumentError, as TF's reference kernels do.
ONEDNN = {"conv2d_transpose_bad_output_shape", "conv2d_transpose_channel_mismatch"}


@pytest.mark.parametrize("name", sorted(REF))
def test_error_class_matches_tensorflow(name: str) -> None:
    case = REF[name]
    want = "InvalidArgumentError" if name in ONEDNN else case["error"]
    assert case["error"] is not None, "every case is bad input"
    with pytest.raises(Exception) as info:  # the class is compared by name below
        eval(case["expr"], {"tf": tf, "np": np})
    assert type(info.value).__name__ == want, f"{case['expr']}: {info.value}"


def test_onednn_cases_are_what_tensorflow_reported() -> None:
    # The exception list above is only for classes TF's oneDNN kernels gave.
    assert {REF[n]["error"] for n in ONEDNN} == {"AbortedError"}


def test_conv1d_of_rank_2_raises_where_tensorflow_aborts() -> None:
    # TensorFlow 2.21 aborts the process (a failed CHECK); tapers raises.
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.nn.conv1d(tf.ones([5, 2]), tf.ones([3, 2, 1]), stride=1, padding="SAME")


@pytest.mark.parametrize("name", sorted(DATA["values"]))
def test_bad_indices_policy_values_match_tensorflow(name: str) -> None:
    case = DATA["values"][name]
    got = eval(case["expr"], {"tf": tf, "np": np})
    np.testing.assert_array_equal(got.numpy(), np.asarray(case["value"], np.float32))


def test_bad_indices_policy_ignore_is_differentiable() -> None:
    # The kept updates get their gradient; the dropped ones get zeros.
    u = tf.constant([1.0, 2.0, 3.0], dtype=tf.float64)
    with tf.GradientTape() as t:
        t.watch(u)
        y = tf.scatter_nd([[1], [7], [0]], u, [5], bad_indices_policy="IGNORE") * tf.range(1.0, 6.0, dtype=tf.float64)
    np.testing.assert_array_equal(t.gradient(y, u).numpy(), [2.0, 0.0, 1.0])
