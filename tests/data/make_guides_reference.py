"""Run the code cells of four TensorFlow guides under TensorFlow and record what each cell prints.

The guides are ``site/en/guide/{intro_to_modules,basic_training_loops,autodiff,advanced_autodiff}.ipynb``
from the tensorflow/docs repository. Their code cells are third-party code and are not committed here: they
are read from a cells directory holding one ``<name>.json`` per guide (``{"source": ..., "cells": [str, ...]}``),
which ``--extract NOTEBOOK.ipynb ...`` writes from notebooks downloaded by hand (the script itself never
touches the network). Usage (not run by the tests):

    python tests/data/make_guides_reference.py --extract path/to/*.ipynb --cells tests/data/guides
    /work/venv-tf/bin/python tests/data/make_guides_reference.py --cells tests/data/guides \\
        > tests/data/guides_reference.json

The fixture records, per cell, a SHA-256 of the cell's source, its stdout, the repr of its last expression
(as IPython displays it) and the exception it raised. ``tests/test_guides.py`` runs the same cells with
``import tapers as tf`` through ``run_notebook`` below and compares.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import hashlib
import io
import json
import os
import re
import sys
import tempfile
import traceback
from typing import Any, Callable

GUIDES = ["intro_to_modules", "basic_training_loops", "autodiff", "advanced_autodiff"]


def clean_cell(source: str) -> str:
    """Drop what only IPython understands: shell lines (``!ls``) and magics (``%load_ext``)."""
    lines = [ln for ln in source.split("\n") if not ln.lstrip().startswith(("!", "%"))]
    return "\n".join(lines)


def cell_hash(source: str) -> str:
    """Identify a cell by its source, so a fixture never silently compares against a different cell."""
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def extract(notebook: str) -> list[str]:
    """Return a notebook's code cells as strings (the license cell, all comments, is dropped)."""
    with open(notebook) as f:
        nb = json.load(f)
    cells = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        src = "".join(cell["source"])
        if src.startswith("#@title Licensed"):
            continue
        cells.append(src)
    return cells


def run_cell(source: str, namespace: dict[str, Any]) -> dict[str, Any]:
    """Execute one cell like a notebook does: stdout captured, the last expression's repr displayed."""
    code = clean_cell(source)
    out = io.StringIO()
    result: dict[str, Any] = {"hash": cell_hash(source), "stdout": "", "display": None, "error": None}
    try:
        tree = ast.parse(code)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            exec(compile(tree, "<cell>", "exec"), namespace)
            if last is not None:
                value = eval(compile(last, "<cell>", "eval"), namespace)
                if value is not None:
                    result["display"] = repr(value)
    except BaseException as e:  # noqa: BLE001 - a cell's failure is data here
        result["error"] = f"{type(e).__name__}: {e}"
        result["traceback"] = traceback.format_exc(limit=-3)
    result["stdout"] = out.getvalue()
    return result


def run_notebook(cells: list[str], rewrite: Callable[[str], str] = lambda s: s) -> list[dict[str, Any]]:
    """Run a guide's cells in order in one namespace, in a scratch directory (cells write checkpoints)."""
    import matplotlib

    matplotlib.use("Agg")
    namespace: dict[str, Any] = {"__name__": "__main__"}
    results = []
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            for src in cells:
                r = run_cell(rewrite(src), namespace)
                r["hash"] = cell_hash(src)
                results.append(r)
        finally:
            os.chdir(cwd)
            import matplotlib.pyplot as plt

            plt.close("all")
    return results


# format(tensor, spec), as f"{t:0.2f}" in the guides' print statements: (value, dtype, spec).
FORMAT_CASES = [
    (1.23456, "float32", ""),
    (1.23456, "float32", "0.2f"),
    (1.23456, "float64", ".3e"),
    (-2.5, "float32", ">10.2f"),
    (7, "int32", "d"),
    (7, "int64", "05d"),
    (True, "bool", ""),
    ([1.0, 2.0], "float32", ""),
    ([[1, 2], [3, 4]], "int32", ""),
    ([1.0, 2.0], "float32", ".1f"),
]


def format_cases(tf: Any) -> list[dict[str, Any]]:
    """``format(tf.constant(value, dtype), spec)`` for each case: the text, or the exception raised."""
    out = []
    for value, dtype, spec in FORMAT_CASES:
        try:
            out.append({"text": format(tf.constant(value, dtype=dtype), spec), "error": None})
        except Exception as e:  # noqa: BLE001 - recorded
            out.append({"text": None, "error": f"{type(e).__name__}: {e}"})
    return out


def variable_target_cases(tf: Any) -> list[Any]:
    """Gradients whose target is a Variable (autodiff guide: ``result = v0``; ``tape.gradient(result, [v0, v1])``):
    TF identifies the target with the same Variable among the sources, read on the tape or not."""

    def show(g: Any) -> Any:
        if isinstance(g, (list, tuple)):
            return [show(x) for x in g]
        return None if g is None else g.numpy().tolist()

    v = tf.Variable(2.0)
    w = tf.Variable([1.0, 2.0])
    with tf.GradientTape(persistent=True) as t:
        y = v * 3.0
    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as t2:
        pass
    return [
        show(t.gradient(v, [v, w])),
        show(t.gradient(v, v)),
        show(t.gradient([v, v], v)),
        show(t.gradient([v, y], v)),
        show(t.gradient(w, w, output_gradients=tf.constant([3.0, 4.0]))),
        show(t.gradient(w, [v, w], unconnected_gradients="zero")),
        show(t2.gradient(v, v)),
    ]


def to_tapers(source: str) -> str:
    """The substitution a user makes: ``import tapers as tf`` (and Keras from tapers)."""
    source = re.sub(r"^(\s*)import tensorflow as tf\b", r"\1import tapers as tf", source, flags=re.M)
    source = re.sub(r"^(\s*)from tensorflow import keras\b", r"\1from tapers import keras", source, flags=re.M)
    source = re.sub(r"^(\s*)import keras\b", r"\1from tapers import keras", source, flags=re.M)
    source = re.sub(r"^(\s*)from keras import", r"\1from tapers.keras import", source, flags=re.M)
    return source


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cells", required=True, help="directory of <guide>.json cell files")
    parser.add_argument("--extract", nargs="*", help="notebooks to extract into --cells (then exit)")
    args = parser.parse_args()
    if args.extract:
        os.makedirs(args.cells, exist_ok=True)
        for nb in args.extract:
            name = os.path.splitext(os.path.basename(nb))[0]
            with open(os.path.join(args.cells, f"{name}.json"), "w") as f:
                json.dump({"source": nb, "cells": extract(nb)}, f, indent=1, ensure_ascii=False)
        return
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tensorflow as tf

    out: dict[str, Any] = {
        "tensorflow": tf.__version__,
        "format": format_cases(tf),
        "variable_targets": variable_target_cases(tf),
    }
    for name in GUIDES:
        with open(os.path.join(args.cells, f"{name}.json")) as f:
            cells = json.load(f)["cells"]
        tf.keras.utils.set_random_seed(0)
        out[name] = [{k: v for k, v in r.items() if k != "traceback"} for r in run_notebook(cells)]
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
