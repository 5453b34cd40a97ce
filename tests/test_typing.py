"""The stubs agree with the runtime (mypy.stubtest) and type a real program
under `mypy --strict`."""

import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("mypy")

HERE = pathlib.Path(__file__).parent


def mypy(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, timeout=600)


def test_stubtest_finds_no_differences():
    r = mypy("mypy.stubtest", "tapers")
    assert r.returncode == 0, r.stdout + r.stderr


def test_typed_usage_passes_mypy_strict(tmp_path):
    r = mypy("mypy", "--strict", "--cache-dir", str(tmp_path), str(HERE / "typing" / "usage.py"))
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_catches_misuse(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import tapers as tf\nx: int = tf.constant(1.0)\ntf.GradientTape(persistent='yes')\n")
    r = mypy("mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), str(bad))
    assert r.returncode == 1
    assert 'expression has type "Tensor", variable has type "int"' in r.stdout
    assert "persistent" in r.stdout


def test_the_typed_usage_runs():
    r = subprocess.run([sys.executable, str(HERE / "typing" / "usage.py")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert float(r.stdout) < 2.0
