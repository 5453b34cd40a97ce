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

REF = json.loads((Path(__file__).parent / "data" / "op_errors_reference.json").read_text())

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
