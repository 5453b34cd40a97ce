"""TF-differential programs replayed under tapers (fixture: tests/data/tf_parity_reference.json).

tests/data/make_tf_parity_reference.py ran each program under TensorFlow 2.21 with the runner in
tests/data/tf_parity_runner.py and recorded what happened: values, dtypes, shapes, printed text,
exception classes (and messages where TF's message is the contract), first and second-order gradients,
Jacobians. Here the same runner runs each program with ``tapers`` and the outcomes are compared.

Programs marked ``known`` exercise TF's own inconsistencies that tapers does not copy (README, "Known
differences"): for those, tapers must answer without crashing, and must differ from TF only in the
documented way.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from typing import Any

import numpy as np
import pytest

import tapers

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
from tf_parity_runner import dec, run_program  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "data", "tf_parity_reference.json")) as f:
    FIXTURE = json.load(f)
PROGRAMS = FIXTURE["programs"]

# TF raises these builtin classes where tapers raises its own subclass of the same builtin; and for a
# dtype an op has no kernel for, TF's kernel lookup fails (NotFoundError: "Could not find device for node")
# where tapers' dtype check raises InvalidArgumentError (README, "Known differences").
_SAME_CLASS = {("ValueError", "InvalidArgumentError"), ("NotFoundError", "InvalidArgumentError")}

KNOWN = {
    "ftz": "TF flushes subnormal float32 values to zero (FTZ/DAZ); tapers keeps them, as IEEE 754 does",
    "max_pool_nan": "TF's max_pool2d drops NaN inside a window; tapers propagates it, as reduce_max does",
}


def _close(a: Any, b: Any, dtype: str, grad: bool, signed_zero: bool = False) -> bool:
    x = np.asarray(dec(a), dtype=np.float64)
    y = np.asarray(dec(b), dtype=np.float64)
    if x.shape != y.shape:
        return False
    if not np.array_equal(np.isnan(x), np.isnan(y)):
        return False
    inf = np.isinf(x) | np.isinf(y)
    if not np.array_equal(x[inf], y[inf]):
        return False
    fin = ~(np.isnan(x) | inf)
    if dtype in ("float32",):
        rtol, atol = (2e-4, 1e-5) if grad else (1e-5, 1e-6)
    elif dtype == "float64":
        rtol, atol = (1e-9, 1e-12) if grad else (1e-12, 1e-14)
    else:
        return bool(np.array_equal(x, y))
    if not np.allclose(x[fin], y[fin], rtol=rtol, atol=atol):
        return False
    if signed_zero:  # the sign of zero, where the program is about it (abs(-0.0) is 0.0)
        zx, zy = x[fin] == 0, y[fin] == 0
        if np.any(zx & zy):
            sx = np.signbit(x[fin][zx & zy])
            sy = np.signbit(y[fin][zx & zy])
            if not np.array_equal(sx, sy):
                return False
    return True


def _message(m: str) -> str:
    """TF's eager message without its node prefix and ``name:`` suffix (the parts naming TF's graph)."""
    m = re.sub(r"^\{\{function_node [^}]*\}\} ", "", m)
    return re.sub(r" name: ?\S*$", "", m)


def compare(tf: Any, tp: Any, where: str, grad: bool, message: bool, signed_zero: bool = False) -> list[str]:
    """Differences between TF's and tapers' encoded outcomes (empty when they agree)."""
    if tf is None or tp is None:
        return [] if tf is None and tp is None else [f"{where}: TF {tf!r}, tapers {tp!r}"]
    if "error" in tf or "error" in tp:
        if "error" not in tf or "error" not in tp:
            return [f"{where}: TF {tf}, tapers {tp}"]
        same = tf["error"] == tp["error"] or (tf["error"], tp["error"]) in _SAME_CLASS
        if not same:
            return [f"{where}: TF raises {tf['error']}({tf['message']!r}), tapers {tp['error']}({tp['message']!r})"]
        if message and _message(tf["message"]) != _message(tp["message"]):
            return [f"{where}: TF message {tf['message']!r}, tapers {tp['message']!r}"]
        return []
    if "list" in tf or "list" in tp:
        a, b = tf.get("list"), tp.get("list")
        if a is None or b is None or len(a) != len(b):
            return [f"{where}: TF {tf}, tapers {tp}"]
        return [
            d for i, (x, y) in enumerate(zip(a, b)) for d in compare(x, y, f"{where}[{i}]", grad, message, signed_zero)
        ]
    if "python" in tf or "python" in tp:
        return [] if tf == tp else [f"{where}: TF {tf}, tapers {tp}"]
    out = []
    if tf["dtype"] != tp["dtype"] or tf["shape"] != tp["shape"]:
        return [f"{where}: TF {tf['dtype']}{tf['shape']}, tapers {tp['dtype']}{tp['shape']}"]
    if not _close(tf["value"], tp["value"], tf["dtype"], grad, signed_zero):
        out.append(f"{where}: TF {tf['value']}, tapers {tp['value']}")
    elif _identical(tf["value"], tp["value"]) and tf["text"] != tp["text"]:
        # The same bits print the same way (the module's name aside).
        out.append(f"{where}: TF prints {tf['text']!r}, tapers {tp['text']!r}")
    return out


def _identical(a: Any, b: Any) -> bool:
    x, y = np.asarray(dec(a), dtype=np.float64), np.asarray(dec(b), dtype=np.float64)
    return bool(
        x.shape == y.shape and np.array_equal(x, y, equal_nan=True) and np.array_equal(np.signbit(x), np.signbit(y))
    )


def differences(p: dict[str, Any], tp: dict[str, Any]) -> list[str]:
    tf = p["tf"]
    message = bool(p.get("compare_message"))
    signed = bool(p.get("signed_zero"))
    out = []
    for key in sorted(set(tf) | set(tp)):
        a, b = tf.get(key), tp.get(key)
        if key == "steps":
            for name in sorted(set(a or {}) | set(b or {})):
                out += compare((a or {}).get(name), (b or {}).get(name), f"step {name}", False, message, signed)
        else:
            out += compare(a, b, key, key not in ("value", "call"), message)
    return out


def _ids(p: dict[str, Any]) -> str:
    return str(p["name"])


@pytest.mark.parametrize("p", [p for p in PROGRAMS if "known" not in p], ids=_ids)
def test_program_matches_tensorflow(p: dict[str, Any]) -> None:
    tp = run_program(tapers, p)
    diffs = differences(p, tp)
    assert not diffs, "\n".join(diffs)


def _structure(r: Any) -> Any:
    """An outcome without its numbers: which steps ran, each result's dtype and shape or error class."""
    if isinstance(r, dict):
        if "value" in r and "dtype" in r:
            return (r["dtype"], tuple(r["shape"]))
        if "error" in r:
            return "error"
        return {k: _structure(v) for k, v in r.items() if k != "text"}
    if isinstance(r, list):
        return [_structure(x) for x in r]
    return r


@pytest.mark.parametrize("p", [p for p in PROGRAMS if "known" in p], ids=_ids)
def test_known_difference_is_the_documented_one(p: dict[str, Any]) -> None:
    assert p["known"] in KNOWN
    tp = run_program(tapers, p)
    tf = p["tf"]
    if p["name"].startswith("gen_"):
        # A generated program with a subnormal input: the same steps, dtypes, shapes and errors; values may
        # differ only through TF's flushing.
        assert _structure(tp) == _structure(tf)
        return
    y = dec(tp["steps"]["y"]["value"])
    if p["known"] == "ftz":  # tapers keeps the subnormal: x * 1 == x, x + x == 2x; TF flushes x * 2 to 0
        z, w = dec(tp["steps"]["z"]["value"]), dec(tp["steps"]["w"]["value"])
        assert y[0] == np.float32(1e-39) and z[0] == np.float32(2e-39) and w[0] == np.float32(2e-39)
        assert dec(tf["steps"]["w"]["value"])[0] == 0.0
    elif p["known"] == "max_pool_nan":
        assert math.isnan(y[0][0][0][0])
        assert not math.isnan(dec(tf["steps"]["y"]["value"])[0][0][0][0])


def test_fixture_has_generated_programs_and_every_defect() -> None:
    names = {p["name"] for p in PROGRAMS}
    assert sum(n.startswith("gen_") for n in names) >= 300
    assert FIXTURE["tensorflow"].startswith("2.")
