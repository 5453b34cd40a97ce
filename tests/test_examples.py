"""The README's main job runs and fits its model."""

import subprocess
import sys


def test_quickstart_runs_and_fits():
    out = subprocess.run(
        [sys.executable, "-m", "tapers.examples.quickstart", "--steps", "60"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "tapers.Tensor(6.0, shape=(), dtype=float32)" in out
    assert "tapers.Tensor(12.0, shape=(), dtype=float32) tapers.Tensor(12.0, shape=(), dtype=float32)" in out
    last = out.strip().splitlines()[-1]
    w = float(last.split("w = ")[1].split(",")[0])
    b = float(last.split("b = ")[1].split(" ")[0])
    assert abs(w - 3.0) < 0.05 and abs(b + 2.0) < 0.05, last


def test_quickstart_help():
    out = subprocess.run(
        [sys.executable, "-m", "tapers.examples.quickstart", "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert "--steps" in out and "--learning-rate" in out


def test_digits_demo_trains_and_plots(tmp_path):
    png = tmp_path / "curves.png"
    out = subprocess.run(
        [sys.executable, "-m", "tapers.examples.digits", "--epochs", "4", "--quiet", "--output", str(png)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    acc = float(out.split("held-out accuracy: ")[1].split()[0])
    assert acc >= 0.9, out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The step trains compiled (tapers.function) and is timed against eager.
    assert "x faster compiled" in out, out


def test_digits_demo_help():
    out = subprocess.run(
        [sys.executable, "-m", "tapers.examples.digits", "--help"], capture_output=True, text=True, check=True
    ).stdout
    for flag in ("--epochs", "--batch-size", "--learning-rate", "--seed", "--output"):
        assert flag in out
