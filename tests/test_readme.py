"""The README's test command and .ci/run stay the same command."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci.startswith('python3 -m pip install ".[test]"')
    assert f"```sh\n{ci}\n```" in readme
