"""TensorFlow's own guides run with ``import tapers as tf`` and print what TensorFlow prints.

The code cells of four tensorflow/docs guides (intro_to_modules, basic_training_loops, autodiff,
advanced_autodiff) run in order, one namespace per guide, with ``import tensorflow as tf`` replaced by
``import tapers as tf``. Each cell's stdout, displayed value and exception are compared with what TensorFlow
2.21 / Keras 3 printed for the same cell (``tests/data/guides_reference.json``, written by
``tests/data/make_guides_reference.py``). The cells themselves are third-party code and are not committed:
they live in ``tests/data/guides/<name>.json`` (git-ignored; ``make_guides_reference.py --extract``
writes them from the notebooks), and the test skips when they are absent.

Outputs are compared after normalising what legitimately differs: module names in reprs (``tf.`` and
``tapers.``), memory addresses, TF's Python class names, Keras' progress bars and timings. Cells listed
in ``RANDOM`` print values drawn from random streams, which differ between TensorFlow and tapers: only
their structure (text with every float masked: shapes, dtypes, names) is compared. Cells listed in
``KNOWN`` do not match TensorFlow, each with the reason and the exact error a user gets from tapers.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from typing import Any

import pytest

HERE = os.path.dirname(__file__)
CELLS_DIR = os.environ.get("TAPERS_GUIDES_CELLS", os.path.join(HERE, "data", "guides"))
REFERENCE = os.path.join(HERE, "data", "guides_reference.json")

_spec = importlib.util.spec_from_file_location(
    "make_guides_reference", os.path.join(HERE, "data", "make_guides_reference.py")
)
assert _spec is not None and _spec.loader is not None
runner = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(runner)

# Cells whose printed numbers come from random draws (tf.random.normal, Keras initializers): compared with
# every float masked, so shapes, dtypes, names and the printed layout still have to match.
RANDOM: dict[str, dict[int, str]] = {
    "intro_to_modules": {
        4: "Dense weights from tf.random.normal",
        6: "prints the random weights",
        8: "FlexibleDenseModule weights from tf.random.normal",
        12: "restored random weights",
        27: "FlexibleDense weights from tf.random.normal",
        30: "random weights",
        34: "random weights",
    },
    "basic_training_loops": {
        5: "loss on random data",
        8: "training trajectory on random data",
        9: "loss on random data",
        10: "training trajectory on random data (then TF fails, see KNOWN)",
    },
    "advanced_autodiff": {18: "difference of two float32 sums over random data (TF 4.8e-07, tapers 0.0)"},
}

# Cells that do not print what TensorFlow prints, with the reason and what tapers gives instead
# (the exact error type and message start a tapers user sees, or None where tapers runs but differs).
KNOWN: dict[str, dict[int, tuple[str, str | None]]] = {
    "intro_to_modules": {
        11: (
            "tf.train.list_variables: tapers' checkpoints are safetensors keyed by object path (model/dense_1/w) and "
            "hold save_counter; TF's keys are model/dense_1/w/.ATTRIBUTES/VARIABLE_VALUE "
            "plus _CHECKPOINTABLE_OBJECT_GRAPH",
            None,
        ),
        13: (
            "tf.function is its own issue (being built separately)",
            "AttributeError: module 'tapers' has no attribute 'function'",
        ),
        14: ("uses the @tf.function model of cell 13; tapers still holds the earlier model", None),
        15: (
            "tf.summary / tf.profiler (TensorBoard) are not in tapers",
            "AttributeError: module 'tapers' has no attribute 'summary'",
        ),
        17: ("tf.saved_model is not in tapers", "AttributeError: module 'tapers' has no attribute 'saved_model'"),
        20: ("tf.saved_model is not in tapers", "AttributeError: module 'tapers' has no attribute 'saved_model'"),
        22: ("uses the @tf.function model of cell 13", None),
        24: (
            "Keras 3 rejects a nested Python list as a layer's positional input (ValueError); tapers converts it "
            "the way the guide (written for Keras 2) expects",
            None,
        ),
        28: (
            "Keras 3 does not track raw tf.Variables assigned in a Layer ([]); tapers tracks them, as the guide says",
            None,
        ),
        31: ("Keras 3 does not track raw tf.Variables assigned in a Layer ([]); tapers tracks them", None),
        32: ("Keras 3 Models have no `submodules` (AttributeError); tapers keeps tf.Module's", None),
        33: ("summary() counts the raw tf.Variables Keras 3 ignores (0 params in TF)", None),
    },
    "basic_training_loops": {
        11: ("TF 2.21's tf.keras.losses lacks mean_squared_error (AttributeError); tapers has it", None),
        12: ("TF fails because cell 11 did; tapers trains with fit and prints Keras' progress", None),
    },
    "autodiff": {
        8: (
            "Keras 3 names a weight 'kernel' (its path is 'dense/kernel'); tapers.keras keeps TF 2's 'dense/kernel:0' "
            "(asserted by tests/test_keras_layers.py)",
            None,
        ),
        29: ("tf.image is not in tapers", "AttributeError: module 'tapers' has no attribute 'image'"),
    },
    "advanced_autodiff": {},
}

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_FLOAT = re.compile(r"-?\d+\.\d*(?:e[+-]?\d+)?|-?\d+e[+-]?\d+|\bnan\b|\binf\b")


def normalize(text: str | None, random: bool = False) -> str | None:
    """Remove what legitimately differs between a TensorFlow run and a tapers run of the same cell."""
    if text is None:
        return None
    text = _ANSI.sub("", text)
    text = re.sub(r"\btapers\.", "tf.", text)
    text = re.sub(r"\bat 0x[0-9a-f]+", "at 0x?", text)
    text = re.sub(
        r"\b(ResourceVariable|EagerTensor)\b",
        lambda m: {"ResourceVariable": "Variable", "EagerTensor": "Tensor"}[m[1]],
        text,
    )
    text = re.sub(r"\d+(?:ms|us|s)/step", "?/step", text)
    # TF's op errors name the graph node and an empty op name; tapers' name the op alone.
    text = re.sub(r"\{\{function_node [^}]*\}\} ", "", text)
    text = re.sub(r"(\[Op:\w+\]) name: ", r"\1", text)
    if random:
        text = _FLOAT.sub("F", text)
        text = re.sub(r"\s+", "", text)  # column alignment and line breaks depend on the digits
        text = re.sub(r"F(?:,?F)+", "F..", text)
    return text


def _error_type(error: str | None) -> str | None:
    return None if error is None else error.split(":", 1)[0]


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    with open(REFERENCE) as f:
        return json.load(f)


_results: dict[str, list[dict[str, Any]]] = {}


def _run(name: str) -> list[dict[str, Any]]:
    if name not in _results:
        path = os.path.join(CELLS_DIR, f"{name}.json")
        if not os.path.exists(path):
            pytest.skip(f"guide cells not present ({path}); see make_guides_reference.py --extract")
        with open(path) as f:
            cells = json.load(f)["cells"]
        _results[name] = runner.run_notebook(cells, runner.to_tapers)
    return _results[name]


def cell_matches(name: str, i: int, got: dict[str, Any], want: dict[str, Any]) -> bool:
    """Whether a tapers cell printed what TensorFlow printed (after normalisation)."""
    rnd = i in RANDOM.get(name, {})
    return (
        normalize(got["stdout"], rnd) == normalize(want["stdout"], rnd)
        and normalize(got["display"], rnd) == normalize(want["display"], rnd)
        and normalize(got["error"], rnd) == normalize(want["error"], rnd)
    )


@pytest.mark.parametrize("name", runner.GUIDES)
def test_guide_cells_match_tensorflow(name: str, reference: dict[str, Any]) -> None:
    results = _run(name)
    want = reference[name]
    assert len(results) == len(want), "cells changed since the fixture was recorded"
    mismatched = []
    for i, (got, ref) in enumerate(zip(results, want)):
        assert got["hash"] == ref["hash"], f"cell {i} differs from the one the fixture recorded"
        if i in KNOWN[name]:
            continue
        if not cell_matches(name, i, got, ref):
            mismatched.append(
                f"cell {i}:\n  tapers: {got['stdout']!r} {got['display']!r} {got['error']!r}\n"
                f"  tf:     {ref['stdout']!r} {ref['display']!r} {ref['error']!r}\n{got.get('traceback', '')}"
            )
    assert not mismatched, "\n".join(mismatched)


@pytest.mark.parametrize("name", runner.GUIDES)
def test_known_failures_fail_as_documented(name: str, reference: dict[str, Any]) -> None:
    """A known failure that starts passing, or fails differently, must be noticed (and the list updated)."""
    results = _run(name)
    for i, (reason, error) in KNOWN[name].items():
        got = results[i]
        assert not cell_matches(name, i, got, reference[name][i]), f"cell {i} now matches TF; drop it from KNOWN"
        if error is not None:
            assert got["error"] is not None and got["error"].startswith(error), (i, reason, got["error"])
        else:
            assert got["error"] is None, (i, reason, got["error"])


def test_tensor_format_matches_tensorflow(reference: dict[str, Any]) -> None:
    """``f"{t:0.2f}"`` formats the NumPy value, as TensorFlow's ``EagerTensor.__format__`` does."""
    import tapers as tf

    got = runner.format_cases(tf)
    assert len(got) == len(reference["format"])
    for case, g, want in zip(runner.FORMAT_CASES, got, reference["format"]):
        assert g["text"] == want["text"], case
        assert _error_type(g["error"]) == _error_type(want["error"]), (case, g["error"], want["error"])


def test_variable_target_is_its_own_source(reference: dict[str, Any]) -> None:
    """``tape.gradient(v, [v, w])`` is ``[1.0, None]`` in TF: a Variable target is the same Variable source."""
    import tapers as tf

    assert runner.variable_target_cases(tf) == reference["variable_targets"]
