"""``tapers.Module`` and ``tapers.name_scope``: TensorFlow's ``tf.Module`` and ``tf.name_scope``.

A Module is a named container of Variables and other Modules. It finds them by
walking its attributes (and the lists, tuples and dicts they hold) in
TensorFlow's order: a module's attributes sorted by name, each attribute
flattened as ``tf.nest`` does (dict keys sorted), and after all of a module's own
attributes, the modules found there, each walked the same way.

Variables created inside a name scope are named with its prefix, as in
TensorFlow: ``with tf.name_scope("dense"): tf.Variable(1.0, name="w")`` is
``dense/w:0``. A module's ``name_scope`` is its name, under the scope that was
current when it was created.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from . import _core
from ._core import Variable

__all__ = ["Module", "name_scope"]

_F = TypeVar("_F", bound=Callable[..., Any])


class name_scope:  # noqa: N801 - TensorFlow's name
    """A context that prefixes the names of Variables created inside it (``tf.name_scope``).

    Parameters
    ----------
    name : str
        The scope's name. Nested scopes join with ``/``; a name ending in
        ``/`` is absolute (it replaces the current scope, as TensorFlow does
        with the value ``__enter__`` returned); ``""`` is the root.

    ``with tf.name_scope("a") as scope:`` binds ``scope`` to the full prefix (``"a/"``).
    The scope belongs to the calling thread. The object can be entered again,
    also from several threads at once (each time relative to the scope current then).
    """

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise ValueError("name for name_scope must be a string.")
        self._name = name
        self._local = threading.local()  # each thread's stack of scopes to restore

    @property
    def name(self) -> str:
        """The name this scope was created with."""
        return self._name

    def __enter__(self) -> str:
        old = _core._get_name_scope()
        name = self._name
        if not name:
            scope = ""
        elif name.endswith("/"):
            scope = name
        else:
            scope = f"{old}{name}/"
        _core._set_name_scope(scope)
        stack = self._local.__dict__.setdefault("stack", [])
        stack.append(old)
        return scope

    def __exit__(self, *exc: object) -> None:
        _core._set_name_scope(self._local.stack.pop())


def _current_scope() -> str:
    return _core._get_name_scope()


_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")


def camel_to_snake(value: str) -> str:
    """``MyDenseLayer`` -> ``my_dense_layer``: TensorFlow's default module names."""
    return _CAMEL_TO_SNAKE.sub(r"_\1", value).lower()


def _flatten_with_paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """``tf.nest.flatten_with_tuple_paths``: dicts by sorted key, lists and tuples in order."""
    if isinstance(value, Mapping):
        try:
            keys = sorted(value)
        except TypeError:
            keys = list(value)
        for k in keys:
            yield from _flatten_with_paths(value[k], (*path, k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _flatten_with_paths(v, (*path, i))
    else:
        yield path, value


def _is_variable(obj: Any) -> bool:
    return isinstance(obj, Variable)


def _is_trainable_variable(obj: Any) -> bool:
    return isinstance(obj, Variable) and obj.trainable


def _is_non_trainable_variable(obj: Any) -> bool:
    return isinstance(obj, Variable) and not obj.trainable


def _is_module(obj: Any) -> bool:
    return isinstance(obj, Module)


class Module:
    """Base class for models and layers: a name, a name scope, and the Variables
    and sub-Modules found through its attributes (``tf.Module``).

    Parameters
    ----------
    name : str, optional
        A Python identifier; by default the class name in snake case
        (``MyModel`` -> ``my_model``).

    Examples
    --------
    >>> class Dense(tf.Module):
    ...     def __init__(self, n_in, n_out, name=None):
    ...         super().__init__(name=name)
    ...         with self.name_scope:
    ...             self.w = tf.Variable(tf.ones([n_in, n_out]), name="w")
    ...             self.b = tf.Variable(tf.zeros([n_out]), name="b")
    ...     def __call__(self, x):
    ...         return tf.matmul(x, self.w) + self.b
    >>> Dense(3, 2, name="dense").w.name
    'dense/w:0'
    """

    _TF_MODULE_IGNORED_PROPERTIES: frozenset[str] = frozenset(("_self_unconditional_checkpoint_dependencies",))

    def __init__(self, name: str | None = None) -> None:
        if name is None:
            name = camel_to_snake(type(self).__name__)
        elif not isinstance(name, str) or not _VALID_IDENTIFIER.match(name):
            raise ValueError(
                f"{name!r} is not a valid module name. Module names must be valid Python identifiers "
                "(e.g. a valid class name)."
            )
        self._name = name
        with name_scope(name) as scope_name:
            self._name_scope = name_scope(scope_name)
        self._scope_name = scope_name

    @property
    def name(self) -> str:
        """The module's name (without its enclosing scopes)."""
        return self._name

    @property
    def name_scope(self) -> name_scope:
        """A ``name_scope`` for this module: entering it names new Variables ``<scope>/<module name>/...``."""
        return self._name_scope

    def _flatten(
        self,
        recursive: bool = True,
        predicate: Callable[[Any], bool] | None = None,
        attribute_traversal_key: Callable[[str], Any] | None = None,
        with_path: bool = False,
        expand_composites: bool = False,
    ) -> Iterator[Any]:
        """Everything reachable from this module's attributes that ``predicate`` accepts, in
        TensorFlow's order; with ``with_path``, ``(path, value)`` pairs (paths are tuples of
        attribute names, dict keys and list indices, and do not deduplicate)."""
        del expand_composites
        pred = predicate if predicate is not None else (lambda _: True)
        return _flatten_module(
            self,
            recursive=recursive,
            predicate=pred,
            attribute_traversal_key=attribute_traversal_key,
            attributes_to_ignore=self._TF_MODULE_IGNORED_PROPERTIES,
            with_path=with_path,
            module_path=(),
            seen=None,
            recursion_stack=None,
        )

    @property
    def variables(self) -> tuple[Variable, ...]:
        """Every Variable of this module and its submodules, each once, in TensorFlow's order."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self) -> tuple[Variable, ...]:
        """The trainable Variables of this module and its submodules."""
        return tuple(self._flatten(predicate=_is_trainable_variable))

    @property
    def non_trainable_variables(self) -> tuple[Variable, ...]:
        """The Variables created with ``trainable=False``."""
        return tuple(self._flatten(predicate=_is_non_trainable_variable))

    @property
    def submodules(self) -> tuple[Module, ...]:
        """Every Module reachable from this one (not itself): its direct submodules first, then theirs."""
        return tuple(self._flatten(predicate=_is_module))

    @classmethod
    def with_name_scope(cls, method: _F) -> _F:
        """Decorates a method so that it runs inside the module's ``name_scope``."""

        @functools.wraps(method)
        def wrapped(self: Module, *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)

        return wrapped  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__qualname__} object at {hex(id(self))}>"


def _flatten_module(
    module: Module,
    recursive: bool,
    predicate: Callable[[Any], bool],
    attribute_traversal_key: Callable[[str], Any] | None,
    attributes_to_ignore: frozenset[str],
    with_path: bool,
    module_path: tuple[Any, ...],
    seen: set[int] | None,
    recursion_stack: list[int] | None,
) -> Iterator[Any]:
    """TensorFlow's ``_flatten_module``: own attributes (sorted) first, then each submodule found."""
    module_id = id(module)
    if seen is None:
        seen = {module_id}
    if recursion_stack is None:
        recursion_stack = []
    if module_id in recursion_stack:
        recursive = False
    module_dict = vars(module)
    submodules: list[tuple[tuple[Any, ...], Module]] = []
    for key in sorted(module_dict, key=attribute_traversal_key):
        if key in attributes_to_ignore:
            continue
        prop = module_dict[key]
        for leaf_path, leaf in _flatten_with_paths(prop):
            path = (key, *leaf_path)
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (module_path + path, leaf) if with_path else leaf
            if recursive and _is_module(leaf):
                submodules.append((module_path + path, leaf))
    recursion_stack.append(module_id)
    for sub_path, sub in submodules:
        yield from _flatten_module(
            sub,
            recursive=recursive,
            predicate=predicate,
            attribute_traversal_key=attribute_traversal_key,
            attributes_to_ignore=sub._TF_MODULE_IGNORED_PROPERTIES,
            with_path=with_path,
            module_path=sub_path,
            seen=seen,
            recursion_stack=recursion_stack,
        )
    recursion_stack.pop()
