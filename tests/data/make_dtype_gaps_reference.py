# Generates dtype_gaps_reference.json with TensorFlow 2.21 / Keras 3 (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_dtype_gaps_reference.py
"""Runs every program of dtype_gaps_programs.py under TensorFlow (optimizers from Keras 3, as
``tf.keras.optimizers`` is in TF 2.21) and writes its outcome (a tensor's dtype, shape and raw bytes, or an
exception's class and message) to tests/data/dtype_gaps_reference.json, which tests/test_dtype_gaps.py
compares tapers against."""

from __future__ import annotations

import json
import os
import sys
import warnings

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402
from dtype_gaps_programs import programs, run  # noqa: E402


def main() -> None:
    warnings.simplefilter("ignore")
    out = {
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "programs": [{"expr": e, "exact": exact, "tf": run(e, tf, keras.optimizers)} for e, exact in programs()],
    }
    with open(os.path.join(HERE, "dtype_gaps_reference.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
