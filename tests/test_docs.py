"""Every public name has a docstring; the README lists every public module."""

import inspect
import pathlib

import pytest

import tapers as tf

MODULES = {
    "tapers": tf,
    "tapers.math": tf.math,
    "tapers.nn": tf.nn,
    "tapers.linalg": tf.linalg,
    "tapers.random": tf.random,
    "tapers.optimizers": tf.optimizers,
    "tapers.optimizers.schedules": tf.optimizers.schedules,
    "tapers.train": tf.train,
    "tapers.errors": tf.errors,
    "tapers.experimental.dlpack": tf.experimental.dlpack,
}


def public(module):
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    for n in names:
        obj = getattr(module, n)
        if inspect.ismodule(obj) or not (callable(obj) or inspect.isclass(obj)):
            continue
        yield n, obj


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


def test_readme_lists_the_public_modules():
    readme = (pathlib.Path(__file__).parent.parent / "README.md").read_text()
    for modname in MODULES:
        if modname != "tapers":
            assert f"`{modname}" in readme or modname.split(".")[-1] in readme, modname
