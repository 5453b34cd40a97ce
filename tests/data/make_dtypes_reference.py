# Generates dtypes_reference.json with TensorFlow 2.21 (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_dtypes_reference.py
"""Runs every program of dtypes_programs.py under TensorFlow and writes its outcome (values as raw
bytes, dtype names, repr/str text, printed text, exception classes and messages) to
tests/data/dtypes_reference.json, which tests/test_dtypes.py compares tapers against."""

from __future__ import annotations

import json
import os
import sys
import warnings

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tensorflow as tf  # noqa: E402
from dtypes_programs import printed_fd, programs, run  # noqa: E402


def main() -> None:
    warnings.simplefilter("ignore")
    out = {
        "tensorflow": tf.__version__,
        "programs": [{"expr": e, "tf": run(e, tf, printed_fd)} for e in programs()],
    }
    with open(os.path.join(HERE, "dtypes_reference.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
