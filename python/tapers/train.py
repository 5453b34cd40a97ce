"""Checkpoints: save and restore Variables and optimizer state (``tf.train``).

Files are `safetensors <https://huggingface.co/docs/safetensors>`_, which
PyTorch (``safetensors.torch.load_file``) and the Hugging Face tools read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from . import _core
from ._core import Variable
from .dtypes import int64

__all__ = ["Checkpoint", "CheckpointLoadStatus", "list_variables", "load_variable"]

_FORMAT = "tapers.train.Checkpoint/1"


def _is_optimizer(obj: Any) -> bool:
    from .optimizers import Optimizer

    return isinstance(obj, Optimizer)


class _Graph:
    """The checkpoint's names: every Variable reachable from the root objects,
    with a path name (``key``, ``key/0``, ``key/sub/1``), and the optimizers."""

    def __init__(self, roots: Mapping[str, Any]) -> None:
        self.variables: dict[str, Variable] = {}
        self.optimizers: dict[str, Any] = {}
        self._seen: set[int] = set()
        for key, obj in roots.items():
            self._walk(key, obj)

    def _walk(self, name: str, obj: Any) -> None:
        from ._module import Module

        if isinstance(obj, Variable):
            if id(obj) not in self._seen:  # a Variable reachable twice is saved once, under its first path
                self._seen.add(id(obj))
                self.variables[name] = obj
        elif isinstance(obj, Module):
            self._walk_module(name, obj)
        elif _is_optimizer(obj):
            self.optimizers[name] = obj
            self.variables[f"{name}/iterations"] = obj.iterations
        elif isinstance(obj, Mapping):
            for k, v in obj.items():
                self._walk(f"{name}/{k}", v)
        elif isinstance(obj, (list, tuple)):
            for i, v in enumerate(obj):
                self._walk(f"{name}/{i}", v)
        elif hasattr(obj, "variables"):
            vs = obj.variables() if callable(obj.variables) else obj.variables
            self._walk(name, list(vs))
        else:
            raise ValueError(
                f"Checkpoint: `{name}` is a {type(obj).__name__}; expected a Variable, an optimizer, "
                "an object with `variables`, or a list/tuple/dict of those"
            )

    def _walk_module(self, name: str, module: Any) -> None:
        """A Module's object graph: its attributes (public ones first, each group sorted) that hold
        Variables, Modules, optimizers, or lists/tuples/dicts of them; paths are attribute names."""
        if id(module) in self._seen:
            return
        self._seen.add(id(module))
        ignored: frozenset[str] = getattr(module, "_TF_MODULE_IGNORED_PROPERTIES", frozenset())
        attrs = [k for k in vars(module) if k not in ignored]
        for key in sorted(attrs, key=lambda k: (k.startswith("_"), k)):
            value = vars(module)[key]
            if _holds_trackable(value):
                self._walk(f"{name}/{key}", value)

    def slot_names(self) -> dict[str, Variable]:
        """Optimizer slots, named by their optimizer and the variable they serve."""
        by_id = {id(v): n for n, v in self.variables.items()}
        out: dict[str, Variable] = {}
        for oname, opt in self.optimizers.items():
            for var, slots in list(opt._slots.values()):
                vname = by_id.get(id(var))
                if vname is None:
                    continue  # serves a variable this checkpoint does not hold
                for i, s in enumerate(slots):
                    out[f"{oname}/slots/{vname}/{i}"] = s
        return out


class CheckpointLoadStatus:
    """What ``Checkpoint.restore`` matched, as TensorFlow's load status.

    Attributes
    ----------
    restored : list of str
        The names restored from the file.
    unused : list of str
        Names in the file that nothing of the checkpoint took.
    """

    def __init__(self, restored: list[str], unused: list[str]) -> None:
        self.restored = restored
        self.unused = unused

    def assert_consumed(self) -> CheckpointLoadStatus:
        """Raises ``AssertionError`` if the file held values nothing was restored from."""
        if self.unused:
            raise AssertionError(f"Unresolved values in the checkpoint: {self.unused}")
        return self

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        """Every object of the checkpoint was restored (``restore`` already ensures it)."""
        return self

    def expect_partial(self) -> CheckpointLoadStatus:
        """Silences nothing: tapers never warns about unused values."""
        return self


class Checkpoint:
    """Groups Variables, optimizers, and lists/dicts/objects holding them, for
    saving and restoring (``tf.train.Checkpoint``).

    Parameters
    ----------
    **objects
        Named roots: a ``Variable``; an optimizer (its ``iterations`` and its
        slots, such as Adam's moments); a ``tapers.Module`` (or Keras layer or
        model: its object graph of attributes, so a model's kernel is
        ``model/dense/kernel``); another object with a ``variables``
        attribute or method; or a list, tuple or dict of these.

    Notes
    -----
    Differences from TensorFlow: the file is one safetensors file written to
    exactly the path given (TensorFlow writes ``prefix-N.index`` and data
    shards); names are paths of keys (``model/0``, ``opt/iterations``,
    ``opt/slots/model/0/1``) rather than TensorFlow's object-graph keys; and
    ``restore`` is strict: every Variable must be in the file with its shape
    and dtype, or nothing is restored.

    Examples
    --------
    >>> w = tf.Variable([1.0, 2.0])
    >>> opt = tf.optimizers.Adam(0.1)
    >>> ckpt = tf.train.Checkpoint(weights=[w], optimizer=opt)
    >>> path = ckpt.save("/tmp/model.safetensors")
    >>> w.assign([0.0, 0.0])
    >>> ckpt.restore(path).assert_consumed()
    """

    def __init__(self, **objects: Any) -> None:
        self._roots = objects
        _Graph(objects)  # reject unsupported objects now, not at save time
        self.save_counter = Variable(0, dtype=int64, trainable=False, name="save_counter")

    def write(self, path: str | os.PathLike[str]) -> str:
        """Writes every Variable (and optimizer slot) to ``path``; returns the path.

        The file is replaced atomically: a failed save leaves any previous file intact.
        """
        graph = _Graph(self._roots)
        items = [(n, v.value()) for n, v in graph.variables.items()]
        items += [(n, v.value()) for n, v in graph.slot_names().items()]
        items.append(("save_counter", self.save_counter.value()))
        _core._save_safetensors(os.fspath(path), items, {"format": _FORMAT})
        return os.fspath(path)

    def save(self, path: str | os.PathLike[str]) -> str:
        """Increments ``save_counter`` and writes to ``path`` (exactly that path,
        unlike TensorFlow's numbered prefixes); returns the path."""
        self.save_counter.assign_add(1)
        return self.write(path)

    def read(self, path: str | os.PathLike[str]) -> CheckpointLoadStatus:
        """Same as :meth:`restore`."""
        return self.restore(path)

    def restore(self, path: str | os.PathLike[str]) -> CheckpointLoadStatus:
        """Loads values from ``path`` into the Variables and optimizer slots.

        Everything is checked before anything is assigned: a missing file
        raises ``NotFoundError``; a truncated or corrupt one ``DataLossError``;
        a Variable missing from the file ``NotFoundError`` naming it; a shape
        or dtype that differs ``InvalidArgumentError`` naming the tensor and
        both shapes/dtypes. On any error, no Variable changes.

        Optimizer slots in the file are created (zeros) for the variables they
        serve, then filled, so training resumes exactly where it stopped.
        """
        path = os.fspath(path)
        items, _meta = _core._load_safetensors(path)
        values = dict(items)
        graph = _Graph(self._roots)
        targets: dict[str, Variable] = dict(graph.variables)
        # Slots recorded in the file for variables of this checkpoint.
        by_name = graph.variables
        for oname, opt in graph.optimizers.items():
            prefix = f"{oname}/slots/"
            for key in values:
                if key.startswith(prefix):
                    vname, _, index = key[len(prefix) :].rpartition("/")
                    if vname in by_name and index.isdigit():
                        slots = opt._slots_for(by_name[vname])
                        if int(index) < len(slots):
                            targets[key] = slots[int(index)]
        if "save_counter" in values:
            targets["save_counter"] = self.save_counter
        for name, var in targets.items():
            if name not in values:
                raise _not_found(
                    f"Checkpoint {path} has no value for '{name}' (a Variable of shape "
                    f"{list(var.shape)} and dtype {var.dtype.name})"
                )
            value = values[name]
            if value.dtype != var.dtype or list(value.shape) != list(var.shape):
                raise _invalid(
                    f"Checkpoint {path}: '{name}' has shape {list(value.shape)} and dtype {value.dtype.name}, "
                    f"but the Variable has shape {list(var.shape)} and dtype {var.dtype.name}"
                )
        for name, var in targets.items():
            var.assign(values[name])
        unused = sorted(set(values) - set(targets))
        return CheckpointLoadStatus(sorted(targets), unused)


def _holds_trackable(value: Any, depth: int = 0) -> bool:
    from ._module import Module

    if isinstance(value, (Variable, Module)) or _is_optimizer(value):
        return True
    if depth > 8:
        return False
    if isinstance(value, Mapping):
        return any(_holds_trackable(v, depth + 1) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds_trackable(v, depth + 1) for v in value)
    return False


def _checkpoint_file(path: str | os.PathLike[str]) -> str:
    path = os.fspath(path)
    if os.path.isdir(path):
        raise _invalid(f"{path} is a directory; tapers checkpoints are single safetensors files")
    return path


def list_variables(ckpt_path: str | os.PathLike[str]) -> list[tuple[str, list[int]]]:
    """The ``(name, shape)`` of every value in a checkpoint file (``tf.train.list_variables``).

    Parameters
    ----------
    ckpt_path : str or path
        A file written by ``Checkpoint.save``/``write``.

    Returns
    -------
    list of (str, list of int)
        Sorted by name. Names are tapers' paths (``model/dense/kernel``),
        not TensorFlow's ``.../.ATTRIBUTES/VARIABLE_VALUE`` keys.
    """
    items, _meta = _core._load_safetensors(_checkpoint_file(ckpt_path))
    return sorted((name, list(value.shape)) for name, value in items)


def load_variable(ckpt_path: str | os.PathLike[str], name: str) -> Any:
    """One value of a checkpoint file (``tf.train.load_variable``).

    Parameters
    ----------
    ckpt_path : str or path
        A file written by ``Checkpoint.save``/``write``.
    name : str
        A name from :func:`list_variables`.

    Returns
    -------
    numpy.ndarray
        Raises ``NotFoundError`` if the file has no value of that name.
    """
    items, _meta = _core._load_safetensors(_checkpoint_file(ckpt_path))
    values = dict(items)
    if name not in values:
        raise _not_found(f"Key {name} not found in checkpoint {os.fspath(ckpt_path)}")
    return values[name].numpy()


def _not_found(msg: str) -> Exception:
    from .errors import NotFoundError

    return NotFoundError(None, None, msg)


def _invalid(msg: str) -> Exception:
    from .errors import InvalidArgumentError

    return InvalidArgumentError(None, None, msg)


Checkpoint.__module__ = "tapers.train"
