"""Rewrites the ``__all__`` list of each stub under ``python/tapers/_core`` from
the built extension's own ``__all__`` (which the binding's registration lines
write), so that a new op needs only its ``def`` line in the stub.

mypy and stubtest read ``__all__`` only as a literal list in the stub, so the
list is kept there, generated. ``tests/test_typing.py`` (stubtest) fails when a
stub and the extension disagree; run this script after adding an op::

    PYTHONPATH=python python3 scripts/sync_stub_exports.py
"""

from __future__ import annotations

import importlib
import pathlib
import re
import sys
import textwrap

STUBS = pathlib.Path(__file__).resolve().parent.parent / "python" / "tapers" / "_core"
BLOCK = re.compile(r"__all__ = \[.*?\](  # fmt: skip)?\n", re.S)


def render(names: list[str]) -> str:
    body = " ".join(f'"{n}",' for n in sorted(names))
    lines = textwrap.wrap(body, width=116, break_on_hyphens=False, break_long_words=False)
    return "__all__ = [\n" + "".join(f"    {line}\n" for line in lines) + "]  # fmt: skip\n"


def main() -> int:
    writes = []
    for stub in sorted(STUBS.glob("*.pyi")):
        module = "tapers._core" if stub.stem == "__init__" else f"tapers._core.{stub.stem}"
        names = list(importlib.import_module(module).__all__)
        text = stub.read_text()
        found = BLOCK.search(text)
        if found is None:
            print(f"{stub}: no `__all__ = [...]` block", file=sys.stderr)
            return 1
        new = text[: found.start()] + render(names) + text[found.end() :]
        if new != text:
            writes.append((stub, new))
    for stub, new in writes:
        stub.write_text(new)
    print("rewrote " + ", ".join(s.name for s, _ in writes) if writes else "stubs already match the extension")
    return 0


if __name__ == "__main__":
    sys.exit(main())
