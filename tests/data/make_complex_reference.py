# Generates complex_reference.json with TensorFlow 2.21 (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_complex_reference.py
"""Runs every program of complex_programs.py under TensorFlow and writes its outcome (values as real and
imaginary parts, dtype names, shapes, printed text, exception classes and messages, gradients) to
tests/data/complex_reference.json, which tests/test_complex.py compares tapers against."""

from __future__ import annotations

import json
import os
import sys
import warnings

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tensorflow as tf  # noqa: E402
from complex_programs import programs, run  # noqa: E402


def main() -> None:
    warnings.simplefilter("ignore")
    out = {
        "tensorflow": tf.__version__,
        "programs": [{"expr": e, "tf": run(e, tf)} for e in programs()],
    }
    with open(os.path.join(HERE, "complex_reference.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
