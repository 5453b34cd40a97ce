"""`maturin build --release` makes one abi3 wheel that installs into a fresh
virtual environment (no source tree on the path) and runs the seed programs
there."""

import os
import pathlib
import shutil
import subprocess
import sys
import venv

import pytest
from test_seed_examples import SEEDS, run

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    if shutil.which("cargo") is None:
        pytest.skip("needs a Rust toolchain to build the wheel")
    pytest.importorskip("maturin")
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "maturin", "build", "--release", "--out", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=1800,
    )
    wheels = list(out.glob("*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_the_wheel_is_abi3_and_small(wheel):
    assert "-cp39-abi3-" in wheel.name, wheel.name
    size = wheel.stat().st_size
    print(f"{wheel.name}: {size / 1e6:.2f} MB")
    assert size < 20e6


def test_seed_programs_run_from_the_installed_wheel(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = str(env_dir / ("Scripts" if os.name == "nt" else "bin") / "python")
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", str(wheel)], check=True, capture_output=True, timeout=600
    )
    # Run from an empty directory: nothing of the source tree is importable.
    where = run("import tapers; print(tapers.__file__)", python=python, cwd=str(tmp_path))
    assert str(env_dir) in where and str(ROOT) not in where
    for name, (src, expected) in SEEDS.items():
        assert run(src, python=python, cwd=str(tmp_path)) == expected, name
    # The typing marker and stubs ship in the wheel.
    pkg = pathlib.Path(where.strip()).parent
    assert (pkg / "py.typed").exists() and (pkg / "_core" / "__init__.pyi").exists()
    assert {p.name for p in (pkg / "_core").glob("*.pyi")} >= {"math.pyi", "nn.pyi", "linalg.pyi", "random.pyi"}
