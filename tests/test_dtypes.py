"""The dtypes beyond float32/float64/int32/int64/bool (uint8 ... uint64, int8, int16, float16, bfloat16,
complex64, complex128): creation, numpy interop, printing, dtype objects and casts between every pair,
each compared with TensorFlow 2.21's outcome (fixture: tests/data/dtypes_reference.json, written by
tests/data/make_dtypes_reference.py from the programs in tests/data/dtypes_programs.py)."""

from __future__ import annotations

import json
import os
import pickle
import sys
from typing import Any

import numpy as np
import pytest

import tapers as tf

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
from dtypes_programs import ALL, NEW, programs, run  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "data", "dtypes_reference.json")) as f:
    FIXTURE = json.load(f)

PROGRAMS = FIXTURE["programs"]

# Documented differences (README, "Known differences"): expression -> why tapers differs.
KNOWN: dict[str, str] = {}


def _np_dtype(name: str) -> np.dtype:
    return np.dtype(tf.as_dtype(name).as_numpy_dtype)


def _same_values(want: dict[str, Any], got: dict[str, Any]) -> bool:
    if want["hex"] == got["hex"]:
        return True
    # NaN payloads may differ (a NaN is a NaN); every other bit must match.
    dt = _np_dtype(want["dtype"])
    a = np.frombuffer(bytes.fromhex(want["hex"]), dt)
    b = np.frombuffer(bytes.fromhex(got["hex"]), dt)
    if dt.kind not in "fcV" or a.shape != b.shape:
        return False
    if dt.kind == "c":
        a, b = np.concatenate([a.real, a.imag]), np.concatenate([b.real, b.imag])
    a, b = a.astype(np.float64), b.astype(np.float64)
    nan = np.isnan(a)
    return bool(np.array_equal(nan, np.isnan(b)) and np.array_equal(a[~nan].view(np.int64), b[~nan].view(np.int64)))


def differences(want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    if want["t"] != got["t"]:
        return [f"TF gave {want}, tapers {got}"]
    out = []
    if want["t"] == "error":
        if want["class"] != got["class"]:
            out.append(f"error class: TF {want['class']}, tapers {got['class']} ({got['message']})")
        elif "to EagerTensor of dtype" in want["message"] and want["message"] != got["message"]:
            out.append(f"message: TF {want['message']!r}, tapers {got['message']!r}")
    elif want["t"] == "tensor":
        for k in ("dtype", "shape"):
            if want[k] != got[k]:
                out.append(f"{k}: TF {want[k]}, tapers {got[k]}")
        if not out and not _same_values(want, got):
            out.append(f"values: TF {want['repr']}, tapers {got['repr']}")
        for k in ("repr", "str"):
            if want[k] != got[k]:
                out.append(f"{k}: TF {want[k]!r}, tapers {got[k]!r}")
    elif want["repr"] != got["repr"]:
        out.append(f"TF {want['repr']!r}, tapers {got['repr']!r}")
    return out


@pytest.mark.parametrize("p", PROGRAMS, ids=[p["expr"][:80] for p in PROGRAMS])
def test_matches_tensorflow(p: dict[str, Any]) -> None:
    got = run(p["expr"], tf)
    diff = differences(p["tf"], got)
    if p["expr"] in KNOWN:
        assert diff, f"documented difference no longer differs: {KNOWN[p['expr']]}"
        return
    assert not diff, "\n".join(diff)


def test_fixture_covers_the_programs() -> None:
    """The fixture was generated from the current programs, and covers every new dtype and cast pair."""
    assert [p["expr"] for p in PROGRAMS] == programs()
    assert FIXTURE["tensorflow"].startswith("2.21")
    casts = [p for p in PROGRAMS if p["expr"].startswith("tf.cast(")]
    assert len(casts) == len(ALL) ** 2
    assert set(NEW) <= {p["tf"].get("dtype") for p in PROGRAMS}


@pytest.mark.parametrize("name", NEW)
def test_new_dtype_objects(name: str) -> None:
    d = getattr(tf, name)
    assert tf.as_dtype(name) is d and tf.dtypes.as_dtype(d.as_numpy_dtype) is d
    assert pickle.loads(pickle.dumps(d)) is d
    t = tf.constant([1, 2], d)
    assert t.dtype is d and t.numpy().dtype == _np_dtype(name)
    # .numpy() shares the tensor's memory, read-only, whatever the dtype.
    with pytest.raises(ValueError):
        t.numpy()[0] = 0


def test_half_alias_and_strings_stay_unsupported() -> None:
    assert tf.half is tf.float16
    with pytest.raises(TypeError, match="tapers supports dtypes .*complex128; got a numpy array of dtype"):
        tf.constant(np.array(["a"]))
    with pytest.raises(TypeError, match="tapers DType"):
        tf.as_dtype("string")
    with pytest.raises(TypeError):
        tf.zeros([2], "string")


def test_large_uint64_and_int_round_trip() -> None:
    """Values beyond float64's 53-bit significand survive creation, casts between integers and numpy."""
    big = np.array([2**64 - 1, 2**63 + 1, 2**53 + 1], np.uint64)
    t = tf.constant(big)
    assert np.array_equal(t.numpy(), big)
    assert np.array_equal(tf.cast(tf.cast(t, tf.int64), tf.uint64).numpy(), big)
    assert tf.cast(tf.constant([2**62 + 1], tf.int64), tf.uint64).numpy()[0] == 2**62 + 1


def test_ml_dtypes_is_imported_at_first_bfloat16_use():
    # Its extension module took most of `import tapers`'s time; bfloat16
    # tensors, their numpy values and `as_numpy_dtype` import it on demand.
    import subprocess

    code = (
        "import sys, numpy as np, tapers as tf\n"
        "assert 'ml_dtypes' not in sys.modules\n"
        "t = tf.constant([1.5, -2.0], dtype=tf.bfloat16)\n"
        "a = t.numpy()\n"
        "assert a.dtype.name == 'bfloat16' and a.astype(np.float32).tolist() == [1.5, -2.0]\n"
        "assert tf.bfloat16.as_numpy_dtype.__name__ == 'bfloat16'\n"
        "assert tf.as_dtype(a.dtype) == tf.bfloat16\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"
