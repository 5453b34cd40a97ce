# Generates complex_linalg_reference.json with TensorFlow 2.21 (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_complex_linalg_reference.py
"""Runs every case of complex_linalg_programs.py under TensorFlow on complex64 and complex128 and writes
its outputs, the loss's gradient with respect to each input (``tape.gradient`` of a real loss, TF's
complex-gradient convention) and, for bad inputs, the exception's class and message to
tests/data/complex_linalg_reference.json, which tests/test_complex_linalg.py compares tapers against."""

from __future__ import annotations

import json
import os
import sys
import warnings
from typing import Any

import numpy as np

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tensorflow as tf  # noqa: E402
from complex_linalg_programs import DTYPES, NAMES, NO_GRADIENT, case, errors, inputs, loss, weights  # noqa: E402


def enc(x: np.ndarray) -> dict[str, Any]:
    """A complex or real array as dtype, shape and its real and imaginary parts (floats, exact in JSON)."""
    x = np.asarray(x)
    flat = x.reshape(-1)
    out: dict[str, Any] = {"dtype": str(x.dtype), "shape": list(x.shape), "re": np.real(flat).astype(float).tolist()}
    if np.iscomplexobj(x):
        out["im"] = np.imag(flat).astype(float).tolist()
    return out


def run_case(name: str, dtype: str, mats: dict[str, np.ndarray]) -> dict[str, Any]:
    try:
        return _run_case(name, dtype, mats)
    except Exception as e:  # noqa: BLE001 - the class is the answer (lstsq refuses complex128 with l2)
        return {"name": name, "dtype": dtype, "error": type(e).__name__, "message": str(e)[-400:]}


def _run_case(name: str, dtype: str, mats: dict[str, np.ndarray]) -> dict[str, Any]:
    names, fwd, modes = case(tf, name)
    xs = [tf.constant(mats[n].astype(dtype)) for n in names]
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        outs = fwd(*xs)
        ws = [weights(tuple(o.shape), o.dtype.is_complex, k) for k, o in enumerate(outs)]
        y = None if name in NO_GRADIENT else loss(tf, outs, modes, ws)
    res: dict[str, Any] = {"name": name, "dtype": dtype, "outputs": [enc(o.numpy()) for o in outs]}
    if y is not None:
        res["loss"] = float(y.numpy())
        res["grads"] = [enc(g.numpy()) for g in tape.gradient(y, xs)]
    return res


def main() -> None:
    warnings.simplefilter("ignore")
    mats = inputs()
    out: dict[str, Any] = {
        "tensorflow": tf.__version__,
        "inputs": {k: enc(v) for k, v in mats.items()},
        "cases": [run_case(n, d, mats) for d in DTYPES for n in NAMES],
        "errors": {},
    }
    for key, thunk in errors(tf).items():
        try:
            thunk()
            out["errors"][key] = {"class": None}
        except Exception as e:  # noqa: BLE001 - the class is the answer
            out["errors"][key] = {"class": type(e).__name__, "message": str(e).split(" name:")[0][-400:]}
    with open(os.path.join(HERE, "complex_linalg_reference.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
