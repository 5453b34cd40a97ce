"""Every public name has a docstring; the README names every public module and
only paths that exist."""

import glob
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import tapers as tf

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()

# Every module of the package whose dotted name has no private part, found by
# walking the package: a new public module is checked without being listed here.
PUBLIC_MODULES = ["tapers"] + sorted(
    m.name
    for m in pkgutil.walk_packages(tf.__path__, "tapers.")
    if not any(part.startswith("_") for part in m.name.split("."))
)
# The API modules (the runnable examples are programs, not API).
MODULES = {name: importlib.import_module(name) for name in PUBLIC_MODULES if not name.startswith("tapers.examples")}


def public(module):
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    for n in names:
        obj = getattr(module, n)
        if inspect.ismodule(obj) or not (callable(obj) or inspect.isclass(obj)):
            continue
        yield n, obj


def test_the_public_modules_are_found():
    # The walk finds what the package exposes as attributes (a broken walk finds nothing).
    for attr in ("math", "nn", "linalg", "random", "optimizers", "train", "errors", "experimental"):
        assert f"tapers.{attr}" in MODULES, attr
    assert "tapers.optimizers.schedules" in MODULES and "tapers.experimental.dlpack" in MODULES


@pytest.mark.parametrize("modname", list(MODULES))
def test_every_public_callable_has_a_docstring(modname):
    missing = [n for n, obj in public(MODULES[modname]) if not (obj.__doc__ or "").strip()]
    assert not missing, f"{modname}: no docstring for {missing}"


def numpy_style(doc: str) -> bool:
    return any(section in doc for section in ("Parameters\n", "Attributes\n", "Methods\n", "Returns\n"))


def test_docstrings_are_numpy_style():
    seen = {}
    for modname, module in MODULES.items():
        for n, obj in public(module):
            seen.setdefault(id(obj), (f"{modname}.{n}", obj))
    # Exception classes take TensorFlow's (node_def, op, message): a summary is enough.
    plain = {
        name
        for name, obj in seen.values()
        if not numpy_style(obj.__doc__ or "") and not (inspect.isclass(obj) and issubclass(obj, BaseException))
    }
    assert not plain, f"write these numpy style (Parameters/Returns sections): {sorted(plain)}"


def test_ops_document_parameters_and_tensorflow_differences():
    for op in (tf.add, tf.exp, tf.reduce_sum, tf.tanh):
        doc = op.__doc__
        assert "Parameters\n----------" in doc and "Returns\n-------" in doc, op.__name__
    assert "ignored" in tf.add.__doc__  # `name` differs from TensorFlow
    assert "Differences from TensorFlow" in tf.train.Checkpoint.__doc__


@pytest.mark.parametrize("modname", PUBLIC_MODULES[1:])
def test_readme_names_every_public_module(modname):
    # By its full dotted name ("tapers.math"), not a word that prose uses anyway ("math").
    assert re.search(rf"\b{re.escape(modname)}(?!\w)", README), f"the README never names {modname}"


def exists(path: str, bases: list) -> bool:
    return any(glob.glob(str(base / path)) for base in bases)


def test_readme_layout_names_paths_that_exist():
    block = re.search(r"\n## Layout\n+```\w*\n(.*?)```", README, re.S).group(1)
    rows = 0
    for line in block.splitlines():
        if not line.strip():
            continue
        head, _, rest = line.partition(" ")
        if head:  # a row: the path, then what it holds (continuation lines start with spaces)
            assert (ROOT / head).exists(), f"README Layout: {head} does not exist"
            base = ROOT / head if (ROOT / head).is_dir() else ROOT
            rows += 1
        # Files and folders the description names (`_core.pyi`, `fuzz.sh`, `regressions/`;
        # a crate's `ops/<family>` is in its src/).
        for word in re.findall(r"[\w./-]+", rest):
            if re.search(r"\.(py|pyi|rs|sh|toml|typed|json)$|/$", word):
                assert exists(word, [base, base / "src", ROOT]), f"README Layout: {word} (in {base}) does not exist"
    assert rows >= 5, "the Layout section lists the repository's folders"


def test_readme_code_spans_name_paths_that_exist():
    # A `code span` word is a path when its first part is at the repository root
    # or in the core crate (`src/uninit.rs`); it, or its glob, must exist.
    bases = [ROOT, ROOT / "rust" / "tapers"]
    checked = []
    for span in re.findall(r"`([^`\n]+)`", README):
        for word in span.split():
            first = word.split("/")[0]
            if "/" in word and first and any((b / first).exists() for b in bases):
                assert exists(word, bases), f"the README names {word}, which does not exist"
                checked.append(word)
    assert len(checked) >= 5, checked


# Issue 20's "Linear algebra" and "Common ops still missing" lists: the README's
# support table ("What is supported") must name each, and tapers must have it.
ISSUE_20_OPS = (
    "linalg.svd linalg.qr linalg.cholesky linalg.inv linalg.det linalg.slogdet linalg.solve linalg.triangular_solve "
    "linalg.lstsq linalg.eigh linalg.pinv linalg.diag linalg.diag_part linalg.band_part linalg.matrix_transpose "
    "linalg.adjoint linalg.logdet linalg.matvec linalg.normalize linalg.global_norm matmul sort argsort math.top_k "
    "unique searchsorted boolean_mask scatter_nd tensor_scatter_nd_update tensor_scatter_nd_add math.segment_sum "
    "math.unsorted_segment_sum math.unsorted_segment_mean math.unsorted_segment_max math.bincount roll reverse repeat "
    "math.cumulative_logsumexp math.atan2 math.log_sigmoid nn.moments nn.batch_normalization nn.depthwise_conv2d "
    "nn.conv1d nn.conv2d_transpose pad einsum nn.embedding_lookup IndexedSlices"
).split()


@pytest.mark.parametrize("name", ISSUE_20_OPS)
def test_readme_support_table_names_every_issue_20_op(name):
    obj = tf
    for part in name.split("."):
        obj = getattr(obj, part)
    assert callable(obj), name
    table = README.split("## What is supported", 1)[1].split("\n## ", 1)[0]
    short = name.split(".")[-1]
    if re.search(rf"(?<!\w){re.escape(short)}(?!\w)", table):
        return
    # Listed as `unsorted_segment_sum/mean/max` or `tensor_scatter_nd_update/add`.
    prefix, _, last = short.rpartition("_")
    for m in re.finditer(rf"(?<!\w){re.escape(prefix)}_(\w+(?:/\w+)*)", table):
        if last in m.group(1).split("/"):
            return
    raise AssertionError(f"the README's table never names {name}")
