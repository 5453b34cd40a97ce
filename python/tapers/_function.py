"""``tapers.function``: trace a Python function once per signature, replay it in Rust.

A call computes a signature from its arguments: tensors (and numpy arrays) by shape
and dtype, Variables by shape and dtype (a Variable argument is an input of the graph,
as in TensorFlow, so another Variable of the same shape and dtype reuses the graph),
other Python values by value (by identity when unhashable). A new signature *traces*:
the function runs once in Python, on the real values, while the core records every op
it runs (the forward pass, a ``GradientTape`` and its ``gradient``, Variable reads and
writes, optimizer updates) into a graph. A later call with the same signature replays
the graph in Rust with the GIL released; Python side effects in the function (a
``print``) happen only while tracing, as in TensorFlow.

Unlike TensorFlow, tracing runs on real values, so the function may read a tensor
into Python (``bool(t)``, ``float(t)``, ``t.numpy()``, an ``if`` on a tensor). Each such
read is a *guard*: the graph is valid only while the value read is the same, and a call
whose guard fails traces again (after repeated failures, the function runs eagerly,
with one warning). A function that runs an op a graph cannot replay (a random draw, a
``custom_gradient`` whose forward is Python code) runs eagerly, with one warning naming
the op.
"""

from __future__ import annotations

import functools
import warnings
import weakref
from typing import Any, Callable, Sequence

import numpy as np

from . import _core, _nest
from ._core import Tensor, Variable

__all__ = ["function", "Function", "ConcreteFunction"]

# Guard failures of one signature after which its function runs eagerly.
_GUARD_FAILURES_BEFORE_EAGER = 5
# Traces of one function after which a retracing warning is given, as TF's.
_RETRACE_WARNING_AT = 5

_VARIABLE_ERROR = (
    "tf.function only supports singleton tf.Variables created on the first call. Make sure the "
    "tf.Variable is only created once or created outside tf.function. See "
    "https://www.tensorflow.org/guide/function#creating_tfvariables for more information."
)


class _Inputs:
    """A call's arguments split into the graph's inputs and the signature key."""

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.tensors: list[Tensor] = []
        self.variables: list[Variable] = []
        leaves = _nest.flatten((list(args), kwargs))
        structure = _structure((list(args), kwargs))
        seen: dict[int, int] = {}
        key: list[Any] = [structure]
        converted: list[Any] = []
        for leaf in leaves:
            if isinstance(leaf, np.ndarray):
                leaf = _core.convert_to_tensor(leaf)
            converted.append(leaf)
            if isinstance(leaf, Variable):
                first = seen.setdefault(id(leaf), len(self.variables))
                if first == len(self.variables):
                    self.variables.append(leaf)
                key.append(("V", tuple(leaf.shape), leaf.dtype.name, leaf.trainable, first))
            elif isinstance(leaf, Tensor):
                first = seen.setdefault(id(leaf), len(self.tensors))
                if first == len(self.tensors):
                    self.tensors.append(leaf)
                key.append(("T", tuple(leaf.shape), leaf.dtype.name, first))
            else:
                try:
                    hash(leaf)
                    key.append(("P", type(leaf), leaf))
                except TypeError:
                    key.append(("P", type(leaf), id(leaf)))
        self.key = tuple(key)
        # A call of tensors alone, each once: the graph's inputs are the
        # arguments themselves, which the fast path (`_Graph.run_args`) checks.
        self.only_tensors = not kwargs and len(self.tensors) == len(args) and all(type(a) is Tensor for a in args)
        packed = _nest.pack_sequence_as((list(args), kwargs), converted)
        self.args: tuple[Any, ...] = tuple(packed[0])
        self.kwargs: dict[str, Any] = packed[1]


def _structure(x: Any) -> Any:
    """The nesting of ``x`` (containers and their keys), leaves left out."""
    if isinstance(x, dict):
        return ("dict", tuple((k, _structure(x[k])) for k in sorted(x)))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(_structure(v) for v in x))
    return None


class _Entry:
    """One signature's graph and how to rebuild the call's result from its outputs."""

    def __init__(self, graph: Any, structure: Any, flat: list[Any]) -> None:
        self.graph = graph
        self.structure = structure
        # For each flat output: None (a graph output) or the Python value itself.
        self.fixed: list[Any] = [None if isinstance(v, Tensor) else (v,) for v in flat]
        self.guard_failures = 0
        self.eager = False
        # The result is the graph's one output itself (no structure to rebuild).
        self.single = structure is _LEAF and self.fixed == [None]

    def rebuild(self, outputs: Sequence[Tensor]) -> Any:
        it = iter(outputs)
        flat = [next(it) if f is None else f[0] for f in self.fixed]
        if self.structure is _LEAF:
            return flat[0]
        return _nest.pack_sequence_as(self.structure, flat)


_LEAF = object()


class ConcreteFunction:
    """The graph traced for one signature (``tf.function``'s concrete function).

    Calling it replays the graph (or runs the Python function where the graph
    cannot replay) with arguments of that signature.
    """

    def __init__(self, function: Function, key: tuple[Any, ...], entry: _Entry) -> None:
        self._function = function
        self._key = key
        self._entry = entry

    @property
    def op_names(self) -> list[str]:
        """The ops, variable reads and variable writes the graph replays, in order."""
        return list(self._entry.graph.op_names)

    @property
    def replayable(self) -> bool:
        """Whether calls replay the graph (otherwise they run the Python function)."""
        return not self._entry.eager

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        inputs = _Inputs(args, kwargs)
        if inputs.key != self._key:
            raise TypeError("the arguments do not match the signature this concrete function was traced for")
        return self._function(*args, **kwargs)


class Function:
    """A Python function whose calls trace once per signature and then replay (``tf.function``).

    Parameters
    ----------
    python_function : callable
        The function to compile.
    input_signature : sequence, optional
        Accepted for TensorFlow compatibility; graphs are still traced per concrete shape.
    reduce_retracing : bool, default False
        Accepted for TensorFlow compatibility; no effect yet (graphs need concrete shapes).
    jit_compile : bool, optional
        Accepted; no effect (replays always run the recorded kernels).
    autograph : bool, default True
        Accepted; no effect (Python control flow is traced on real values, with guards).
    """

    def __init__(
        self,
        python_function: Callable[..., Any],
        input_signature: Sequence[Any] | None = None,
        reduce_retracing: bool = False,
        jit_compile: bool | None = None,
        autograph: bool = True,
        name: str | None = None,
    ) -> None:
        self._python_function = python_function
        self.input_signature = input_signature
        self._reduce_retracing = reduce_retracing
        self._jit_compile = jit_compile
        self._autograph = autograph
        self.__name__ = name or getattr(python_function, "__name__", "function")
        functools.update_wrapper(self, python_function, updated=())
        self._cache: dict[tuple[Any, ...], _Entry] = {}
        self._tracing_count = 0
        self._warned_eager = False
        self._warned_retracing = False
        self._bound: weakref.WeakKeyDictionary[Any, Function] = weakref.WeakKeyDictionary()
        # The entry of the latest call made of tensor arguments alone: the next
        # such call tries it first, with no signature computed in Python.
        self._fast: _Entry | None = None

    @property
    def python_function(self) -> Callable[..., Any]:
        """The wrapped Python function."""
        return self._python_function

    def experimental_get_tracing_count(self) -> int:
        """How many times the Python function was traced."""
        return self._tracing_count

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        """Methods compile per instance: each instance gets its own ``Function``."""
        if instance is None:
            return self
        try:
            bound = self._bound.get(instance)
        except TypeError:
            bound = None
        if bound is None:
            bound = Function(
                functools.partial(self._python_function, instance),
                self.input_signature,
                self._reduce_retracing,
                self._jit_compile,
                self._autograph,
                name=self.__name__,
            )
            try:
                self._bound[instance] = bound
            except TypeError:
                pass
        return bound

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The graph for these arguments' signature, traced now if it is new.

        Unlike TensorFlow, tracing runs the function on these values, so its effects
        (Variable updates) happen once here.
        """
        inputs = _Inputs(args, kwargs)
        entry = self._cache.get(inputs.key)
        if entry is None:
            self._trace(inputs)
            entry = self._cache[inputs.key]
        return ConcreteFunction(self, inputs.key, entry)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        fast = self._fast
        if fast is not None and not kwargs:
            # The graph checks the arguments (tensors of the traced shapes and
            # dtypes, no trace active) and replays, or answers None.
            out = fast.graph.run_args(args, fast.single)
            if out is not None:
                return out if fast.single else fast.rebuild(out)
        if _core._is_tracing():
            # Inside another function's trace: the calls are part of that trace.
            return self._python_function(*args, **kwargs)
        inputs = _Inputs(args, kwargs)
        entry = self._cache.get(inputs.key)
        if entry is None:
            result = self._trace(inputs)
            self._note_fast(inputs)
            return result
        if entry.eager:
            return self._python_function(*inputs.args, **inputs.kwargs)
        outputs = entry.graph.run(inputs.tensors, inputs.variables)
        if outputs is None:
            # A value read into Python while tracing differs now: trace again.
            entry.guard_failures += 1
            if entry.guard_failures >= _GUARD_FAILURES_BEFORE_EAGER:
                entry.eager = True
                self._warn_eager(
                    f"values it reads into Python (bool(t), float(t), t.numpy()) changed in "
                    f"{entry.guard_failures} calls"
                )
                return self._python_function(*inputs.args, **inputs.kwargs)
            failures = entry.guard_failures
            result = self._trace(inputs)
            self._cache[inputs.key].guard_failures = failures
            self._note_fast(inputs)
            return result
        self._note_fast(inputs)
        return entry.rebuild(outputs)

    def _note_fast(self, inputs: _Inputs) -> None:
        """Makes this call's entry the fast path's, if its arguments are tensors alone."""
        entry = self._cache.get(inputs.key)
        self._fast = entry if inputs.only_tensors and entry is not None and not entry.eager else None

    def _warn_eager(self, why: str) -> None:
        if not self._warned_eager:
            self._warned_eager = True
            warnings.warn(
                f"tapers.function {self.__name__!r} runs eagerly (no graph): {why}",
                RuntimeWarning,
                stacklevel=3,
            )

    def _trace(self, inputs: _Inputs) -> Any:
        tracing = _core._trace_start(inputs.tensors, inputs.variables)
        try:
            result = self._python_function(*inputs.args, **inputs.kwargs)
        except BaseException:
            tracing.abandon()
            raise
        if isinstance(result, (list, tuple, dict)):
            structure: Any = result
            flat = _nest.flatten(result)
        else:
            structure = _LEAF
            flat = [result]
        graph = tracing.finish([v for v in flat if isinstance(v, Tensor)])
        self._tracing_count += 1
        if graph.created_variables and self._tracing_count > 1:
            # TensorFlow's rule: Variables may be created only on the first trace.
            raise ValueError(_VARIABLE_ERROR)
        entry = _Entry(graph, structure, flat)
        if graph.unreplayable is not None:
            entry.eager = True
            self._warn_eager(f"it runs {graph.unreplayable}, which a graph cannot replay")
        self._cache[inputs.key] = entry
        if self._tracing_count == _RETRACE_WARNING_AT and not self._warned_retracing:
            self._warned_retracing = True
            warnings.warn(
                f"{self._tracing_count} calls to {self.__name__!r} triggered tapers.function retracing. "
                "Tracing is expensive: pass tensors of the same shapes, and Python values that do not "
                "change, to reuse a trace.",
                RuntimeWarning,
                stacklevel=3,
            )
        return result


def function(
    func: Callable[..., Any] | None = None,
    input_signature: Sequence[Any] | None = None,
    autograph: bool = True,
    jit_compile: bool | None = None,
    reduce_retracing: bool = False,
    experimental_implements: Any = None,
    experimental_autograph_options: Any = None,
    experimental_attributes: Any = None,
    experimental_relax_shapes: Any = None,
    experimental_compile: Any = None,
    experimental_follow_type_hints: Any = None,
) -> Any:
    """Compiles ``func`` into a :class:`Function` (``tf.function``); usable as a decorator.

    ``@tapers.function`` and ``@tapers.function(...)`` both work. See the module
    documentation for what traces, what replays, and how guards differ from AutoGraph.

    Parameters
    ----------
    func : callable, optional
        The function to compile; omitted, the result is a decorator.
    input_signature : sequence, optional
        Accepted; graphs are still traced per concrete shape.
    autograph : bool, default True
        Accepted; no effect (Python control flow is traced on real values, with guards).
    jit_compile : bool, optional
        Accepted; no effect.
    reduce_retracing : bool, default False
        Accepted; no effect yet.
    experimental_implements, experimental_autograph_options, experimental_attributes : optional
        Accepted for TensorFlow compatibility and ignored.
    experimental_relax_shapes, experimental_compile, experimental_follow_type_hints : optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Function or callable
        The compiled function, or a decorator that makes one.
    """

    def wrap(f: Callable[..., Any]) -> Function:
        return Function(
            f,
            input_signature=input_signature,
            reduce_retracing=reduce_retracing,
            jit_compile=jit_compile,
            autograph=autograph,
        )

    if func is None:
        return wrap
    return wrap(func)
