"""Runs the TensorFlow programs recorded in tests/data/data_reference.json with ``tf = tapers``.

tests/data/make_data_reference.py ran each program under TensorFlow and kept its
source, printed output, exception and ``result``; here the same source runs
unchanged with tapers, and the tests compare. TensorFlow's text is read with its
module name replaced (``tf.int32`` → ``tapers.int32``, ``tf.Tensor`` →
``tapers.Tensor``), and the graph-function decoration of its op errors
(``{{function_node ...}}`` and `` [Op:...] name: ``) is dropped, and so are its absl
log lines on stderr (``WARNING:absl:...``: tapers warns with ``warnings`` instead).
"""

from __future__ import annotations

import contextlib
import io
import json
import pathlib
import re
import sys
import warnings
from typing import Any

import numpy as np

import tapers

FIXTURE = pathlib.Path(__file__).parent / "data" / "data_reference.json"
PROGRAMS: dict[str, dict[str, Any]] = json.loads(FIXTURE.read_text())["programs"]


def tf_text(text: str) -> str:
    """TensorFlow's output as tapers prints it."""
    text = re.sub(r"\btf\.", "tapers.", text)
    # An error raised inside a py_func carries the Python traceback of TensorFlow's internals.
    text = text.split("\nTraceback (most recent call last):")[0]
    text = re.sub(r"^\{\{function_node [^}]*\}\} ", "", text)
    return re.sub(r" \[Op:\w+\]( name: .*)?$", "", text)


def tf_stderr(text: str) -> str:
    """TensorFlow's stderr without its absl log lines (tapers warns through `warnings` instead)."""
    return tf_text("".join(line for line in text.splitlines(True) if not line.startswith("WARNING:absl:")))


def run(source: str, **names: Any) -> dict[str, Any]:
    """Runs `source` with ``tf`` = tapers (and `names` defined); returns what the fixture
    records for a program."""
    ns: dict[str, Any] = {"tf": tapers, "np": np, "sys": sys, **names}
    out, err = io.StringIO(), io.StringIO()
    error = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TensorFlow logs these; the fixture drops its log lines
        try:
            exec(compile(source, "<program>", "exec"), ns)
        except Exception as e:  # noqa: BLE001 - compared with what TensorFlow raised
            error = [type(e).__name__, str(e)]
    rec: dict[str, Any] = {"stdout": out.getvalue(), "stderr": err.getvalue(), "error": error}
    if "result" in ns:
        rec["result"] = ns["result"]
    return rec


def assert_close(got: Any, want: Any, path: str = "result") -> None:
    if isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), path
        for k in want:
            assert_close(got[k], want[k], f"{path}[{k!r}]")
        return
    if want is None:
        assert got is None, path
        return
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64),
                               rtol=2e-5, atol=1e-6, err_msg=path)  # fmt: skip


def check(name: str) -> None:
    """Runs program `name` and asserts tapers printed, raised and computed what TensorFlow did."""
    want = PROGRAMS[name]
    got = run(want["source"])
    if want["error"] is None:
        assert got["error"] is None, f"{name} raised {got['error']}"
    else:
        assert got["error"] is not None, f"{name} did not raise; TensorFlow raised {want['error']}"
        assert got["error"][0] == want["error"][0], (got["error"], want["error"])
        assert got["error"][1] == tf_text(want["error"][1]), (got["error"], want["error"])
    assert got["stdout"] == tf_text(want["stdout"])
    assert got["stderr"].strip() == tf_stderr(want["stderr"]).strip()
    if "result" in want:
        assert_close(got["result"], want["result"])


def check_snippet(want: dict[str, Any], **names: Any) -> dict[str, Any]:
    """Runs a snippet recorded by a ``tests/data/make_*_reference.py`` script that uses
    ``tests/data/_snippets.py``, asserts tapers raised what TensorFlow did (class and
    text) and computed an equal ``result``, and returns what it recorded."""
    got = run(want["source"], **names)
    if want["error"] is None:
        assert got["error"] is None, got["error"]
    else:
        assert got["error"] is not None, f"did not raise; TensorFlow raised {want['error']}"
        assert got["error"][0] == want["error"][0], (got["error"], want["error"])
        assert got["error"][1] == tf_text(want["error"][1]), (got["error"], want["error"])
    if "result" in want:
        assert got.get("result") == want["result"]
    return got
