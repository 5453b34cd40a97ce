"""``tapers.function``: trace a Python function once per signature, replay it in Rust.

A call computes a signature from its arguments: tensors (and numpy arrays) by shape
and dtype, Variables by shape and dtype (a Variable argument is an input of the graph,
as in TensorFlow, so another Variable of the same shape and dtype reuses the graph),
other Python values by value (by identity when unhashable). A new signature *traces*:
the function runs once in Python, on the real values, while the core records every op
it runs (the forward pass, a ``GradientTape`` and its ``gradient``, Variable reads and
writes, optimizer updates) into a graph. A later call with the same signature replays
the graph in Rust with the GIL released; Python side effects in the function (a
``print``) happen only while tracing, as in TensorFlow, while ``tapers.print`` is an
op that prints at every call (``tapers._print``).

Unlike TensorFlow, tracing runs on real values, so the function may read a tensor
into Python (``bool(t)``, ``float(t)``, ``t.numpy()``, an ``if`` on a tensor). Each such
read is a *guard*: the graph is valid only while the value read is the same, and a call
whose guard fails traces again (after repeated failures, the function runs eagerly,
with one warning). Ops whose results' shapes depend on values (``tf.where(c)``,
``tf.boolean_mask``, ``tf.unique``, ``segment_sum``, ``bincount``) guard those shapes
the same way: later ops, and Python reading ``.shape``, were traced for them.
``tapers.cond`` and ``tapers.while_loop`` compile data-dependent
control flow without guards (``tapers._control``). Random draws are nodes that draw
the next values of their generator at each replay. A function that runs an op a graph
cannot replay (a ``custom_gradient`` whose forward is Python code) runs eagerly, with
one warning naming the op.

``input_signature`` and ``reduce_retracing`` relax the shapes a trace serves, with
TensorFlow's tracing counts; graphs stay shape-specific, so a new concrete shape under
a relaxed signature runs the Python function again to record its graph (not counted
as a trace). Retracing too often warns with TensorFlow's text, at TensorFlow's calls.
"""

from __future__ import annotations

import functools
import inspect
import warnings
import weakref
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from . import _core, _nest
from ._core import Tensor, Variable
from ._indexed_slices import IndexedSlices
from ._spec import TensorSpec

__all__ = ["function", "Function", "ConcreteFunction"]

# Guard failures of one signature after which its function runs eagerly.
_GUARD_FAILURES_BEFORE_EAGER = 5

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
        base: list[Any] = [structure]
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
                base.append(key[-1])
            elif isinstance(leaf, Tensor):
                first = seen.setdefault(id(leaf), len(self.tensors))
                if first == len(self.tensors):
                    self.tensors.append(leaf)
                key.append(("T", tuple(leaf.shape), leaf.dtype.name, first))
                base.append(("T", leaf.dtype.name, first))
            else:
                try:
                    hash(leaf)
                    key.append(("P", type(leaf), leaf))
                except TypeError:
                    key.append(("P", type(leaf), id(leaf)))
                base.append(key[-1])
        self.key = tuple(key)
        # The key without the tensors' shapes, and the shapes (relaxed signatures).
        self.base = tuple(base)
        self.shapes: tuple[tuple[int, ...], ...] = tuple(tuple(t.shape) for t in self.tensors)
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


# A relaxed shape: None (any rank) or a tuple of dims, None for any size.
_Pattern = tuple[tuple[int | None, ...] | None, ...]


def _fits(pattern: _Pattern, shapes: tuple[tuple[int, ...], ...]) -> bool:
    """Whether concrete ``shapes`` are instances of ``pattern``."""
    for p, s in zip(pattern, shapes):
        if p is None:
            continue
        if len(p) != len(s) or any(d is not None and d != x for d, x in zip(p, s)):
            return False
    return True


def _generality(pattern: _Pattern) -> int:
    return sum(1000 if p is None else sum(d is None for d in p) for p in pattern)


def _common(a: _Pattern, b: _Pattern) -> _Pattern:
    """The most specific pattern both ``a`` and ``b`` fit (TensorFlow's shape relaxation)."""
    out: list[tuple[int | None, ...] | None] = []
    for p, q in zip(a, b):
        if p is None or q is None or len(p) != len(q):
            out.append(None)
        else:
            out.append(tuple(d if d == e else None for d, e in zip(p, q)))
    return tuple(out)


class _TracingDetector:
    """TensorFlow's frequent-tracing detector: warns (twice at most) when 5 of the last calls traced."""

    _MAX_CALL_HISTORY = 10
    _THRESHOLD = 5
    _MAX_WARNINGS = 2

    def __init__(self) -> None:
        self._calls_per_tracings: list[int] = []
        self._call_count = 0
        self._warnings = 0

    def called_without_tracing(self, calls: int = 1) -> None:
        if not self._calls_per_tracings:
            self._calls_per_tracings = [0]
        self._calls_per_tracings[-1] += calls
        self._call_count += calls

    def called_with_tracing(self, function: Any) -> None:
        self._call_count += 1
        self._calls_per_tracings.append(1)
        while self._calls_per_tracings:
            if self._call_count - self._calls_per_tracings[0] > self._MAX_CALL_HISTORY:
                self._call_count -= self._calls_per_tracings.pop(0)
            else:
                break
        if self._warnings >= self._MAX_WARNINGS or len(self._calls_per_tracings) < self._THRESHOLD:
            return
        self._warnings += 1
        warnings.warn(
            f"{len(self._calls_per_tracings)} out of the last {self._call_count} calls to {function!r} triggered "
            "tf.function retracing. Tracing is expensive and the excessive number of tracings could be due to "
            "(1) creating @tf.function repeatedly in a loop, (2) passing tensors with different shapes, (3) "
            "passing Python objects instead of tensors. For (1), please define your @tf.function outside of the "
            "loop. For (2), @tf.function has reduce_retracing=True option that can avoid unnecessary retracing. "
            "For (3), please refer to https://www.tensorflow.org/guide/function#controlling_retracing and "
            "https://www.tensorflow.org/api_docs/python/tf/function for  more details.",
            RuntimeWarning,
            stacklevel=3,
        )


class _Trace:
    """One traced signature: its relaxed shapes and a graph per concrete shapes seen."""

    def __init__(self, base: tuple[Any, ...], pattern: _Pattern) -> None:
        self.base = base
        self.pattern = pattern
        self.graphs: dict[tuple[tuple[int, ...], ...], _Entry] = {}


class _Entry:
    """One signature's graph and how to rebuild the call's result from its outputs."""

    def __init__(self, graph: Any, structure: Any, flat: list[Any]) -> None:
        self.graph = graph
        self.structure = structure
        # For each flat output: None (a graph output), a `_Slices` (an
        # IndexedSlices, rebuilt from the graph outputs its parts are) or
        # (the Python value itself,).
        self.fixed: list[Any] = [_kind(v) for v in flat]
        self.guard_failures = 0
        self.eager = False
        # The result is the graph's one output itself (no structure to rebuild).
        self.single = structure is _LEAF and self.fixed == [None]

    def rebuild(self, outputs: Sequence[Tensor]) -> Any:
        it = iter(outputs)
        flat = [_rebuilt(f, it) for f in self.fixed]
        if self.structure is _LEAF:
            return flat[0]
        return _nest.pack_sequence_as(self.structure, flat)


_LEAF = object()


class _Slices:
    """`_Entry.fixed`'s mark for an IndexedSlices, with or without a dense shape."""

    def __init__(self, shaped: bool) -> None:
        self.shaped = shaped


def _kind(v: Any) -> Any:
    """How `_Entry.rebuild` gets a flat result `v` back (see `_Entry.fixed`)."""
    if isinstance(v, Tensor):
        return None
    if isinstance(v, IndexedSlices):
        return _Slices(v.dense_shape is not None)
    return (v,)


def _graph_outputs(flat: list[Any]) -> list[Tensor]:
    """The tensors a graph returns for a flat result: an IndexedSlices (a
    sparse gradient) as its values, indices and dense shape, so that a replay
    returns that call's rows (TensorFlow returns composites from their parts)."""
    out: list[Tensor] = []
    for v in flat:
        if isinstance(v, Tensor):
            out.append(v)
        elif isinstance(v, IndexedSlices):
            out.extend((v.values, v.indices))
            if v.dense_shape is not None:
                out.append(v.dense_shape)
    return out


def _rebuilt(kind: Any, outputs: Iterator[Tensor]) -> Any:
    """One flat result from the graph's outputs (see `_graph_outputs`)."""
    if kind is None:
        return next(outputs)
    if isinstance(kind, _Slices):
        values, indices = next(outputs), next(outputs)
        return IndexedSlices(values, indices, next(outputs) if kind.shaped else None)
    return kind[0]


class ConcreteFunction:
    """The graph traced for one signature (``tf.function``'s concrete function).

    Calling it replays the graph (or runs the Python function where the graph
    cannot replay) with arguments of that signature.
    """

    def __init__(self, function: Function, trace: _Trace, entry: _Entry) -> None:
        self._function = function
        self._trace = trace
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
        inputs = self._function._inputs(args, kwargs)
        if inputs.base != self._trace.base or not _fits(self._trace.pattern, inputs.shapes):
            raise TypeError("the arguments do not match the signature this concrete function was traced for")
        return self._function(*args, **kwargs)


class Function(_core._FunctionBase):
    """A Python function whose calls trace once per signature and then replay (``tf.function``).

    Parameters
    ----------
    python_function : callable
        The function to compile.
    input_signature : sequence of TensorSpec, optional
        The arguments' specs: every call must match them (else ``TypeError``), and one
        trace serves all of them (dimensions given as ``None`` take any size).
    reduce_retracing : bool, default False
        When a call's tensor shapes differ from a traced signature's, the new trace
        is for the relaxed shapes (differing dimensions become ``None``, differing
        ranks any rank), which later calls of those shapes reuse (TensorFlow's rule).
    jit_compile : bool, optional
        Accepted; no effect (replays always run the recorded kernels).
    autograph : bool, default True
        Accepted; no effect (Python control flow is traced on real values, with guards;
        ``tapers.cond``/``tapers.while_loop`` compile data-dependent control flow).
    """

    def __init__(
        self,
        python_function: Callable[..., Any],
        input_signature: Sequence[Any] | None = None,
        reduce_retracing: bool = False,
        jit_compile: bool | None = None,
        autograph: bool = True,
        name: str | None = None,
        _detector: _TracingDetector | None = None,
    ) -> None:
        self._python_function = python_function
        self.input_signature = None if input_signature is None else tuple(input_signature)
        if self.input_signature is not None:
            for spec in _nest.flatten(list(self.input_signature)):
                if not isinstance(spec, TensorSpec):
                    raise TypeError(f"input_signature must be a possibly nested sequence of TensorSpec, got {spec!r}")
        self._reduce_retracing = reduce_retracing
        self._jit_compile = jit_compile
        self._autograph = autograph
        self.__name__ = name or getattr(python_function, "__name__", "function")
        functools.update_wrapper(self, python_function, updated=())
        self._traces: list[_Trace] = []
        self._tracing_count = 0
        self._warned_eager = False
        self._detector = _detector or _TracingDetector()
        self._bound: weakref.WeakKeyDictionary[Any, Function] = weakref.WeakKeyDictionary()
        # The entry of the latest call made of tensor arguments alone: the next
        # such call tries it first, with no signature computed in Python.
        self._fast: _Entry | None = None
        self._untraced_fast_calls = 0

    @property
    def python_function(self) -> Callable[..., Any]:
        """The wrapped Python function."""
        return self._python_function

    def experimental_get_tracing_count(self) -> int:
        """How many signatures were traced (TensorFlow's count; see ``_lookup`` for relaxed shapes)."""
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
                _detector=self._detector,
            )
            try:
                self._bound[instance] = bound
            except TypeError:
                pass
        return bound

    def _inputs(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> _Inputs:
        if self.input_signature is not None:
            args, kwargs = self._bind_signature(args, kwargs)
        return _Inputs(args, kwargs)

    def _bind_signature(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Converts the arguments to the signature's dtypes and checks their shapes."""
        assert self.input_signature is not None
        if kwargs:
            try:
                bound = inspect.signature(self._python_function).bind(*args, **kwargs)
            except TypeError as e:
                raise TypeError(f"Binding inputs to tf.function failed due to `{e}`.") from None
            args, kwargs = tuple(bound.args), dict(bound.kwargs)
            if kwargs:
                raise TypeError(f"Binding inputs to tf.function failed: unexpected arguments {sorted(kwargs)}.")
        if len(args) != len(self.input_signature):
            raise TypeError(
                f"Binding inputs to tf.function failed: the input_signature has {len(self.input_signature)} "
                f"argument(s), but {len(args)} were given."
            )
        out = []
        for arg, spec in zip(args, self.input_signature):
            specs = _nest.flatten(spec)
            try:
                leaves = _nest.flatten(arg)
                if len(leaves) != len(specs):
                    raise ValueError("structure")
                packed = _nest.pack_sequence_as(spec, leaves)
            except (ValueError, TypeError):
                raise TypeError(
                    f"Binding inputs to tf.function failed: {arg!r} does not match the structure of {spec!r}."
                ) from None
            converted = []
            for leaf, sp in zip(_nest.flatten(packed), specs):
                if isinstance(leaf, Variable):
                    leaf = leaf.read_value()
                if not isinstance(leaf, Tensor):
                    try:
                        leaf = _core.convert_to_tensor(leaf, dtype=sp.dtype)
                    except Exception as e:  # noqa: BLE001 - any conversion failure is a binding failure
                        raise TypeError(f"Binding inputs to tf.function failed due to `{e}`.") from None
                if not sp.is_compatible_with(leaf):
                    raise TypeError(
                        f"Binding inputs to tf.function failed due to `Can not cast "
                        f"{TensorSpec.from_tensor(leaf)!r} to {sp!r}`."
                    )
                converted.append(leaf)
            out.append(_nest.pack_sequence_as(spec, converted))
        return tuple(out), {}

    def _lookup(self, inputs: _Inputs) -> tuple[_Trace, bool]:
        """The trace serving this call, and whether it is new (a new one counts as a trace).

        Without ``input_signature`` or ``reduce_retracing`` a trace's pattern is its exact
        shapes. Relaxed patterns serve several shapes: each trace keeps a graph per concrete
        shapes, and a new concrete shape under a relaxed pattern runs the Python function
        again to record its graph (graphs are shape-specific), without counting as a trace.
        """
        best: _Trace | None = None
        for t in self._traces:
            if t.base == inputs.base and _fits(t.pattern, inputs.shapes):
                if best is None or _generality(t.pattern) < _generality(best.pattern):
                    best = t
        if best is not None:
            return best, False
        if self.input_signature is not None:
            pattern: _Pattern = tuple(
                tuple(s.shape) if hasattr(s.shape, "__len__") else None
                for s in _nest.flatten(list(self.input_signature))
            )
            # A tensor given twice is one graph input: keep the distinct ones' specs.
            pattern = pattern[: len(inputs.shapes)] if len(pattern) >= len(inputs.shapes) else inputs.shapes
        else:
            pattern = inputs.shapes
            if self._reduce_retracing:
                for t in self._traces:
                    if t.base == inputs.base:
                        pattern = _common(pattern, t.pattern)
        trace = _Trace(inputs.base, pattern)
        self._traces.append(trace)
        return trace, True

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The graph for these arguments' signature, traced now if it is new.

        Unlike TensorFlow, tracing runs the function on these values, so its effects
        (Variable updates) happen once here.
        """
        inputs = self._inputs(args, kwargs)
        trace, new = self._lookup(inputs)
        if inputs.shapes not in trace.graphs:
            self._trace(inputs, trace, count=new, call=False)
        return ConcreteFunction(self, trace, trace.graphs[inputs.shapes])

    # `__call__` is the Rust base class's: a call of tensors alone first tries
    # the fast path's graph (`_fast`) without entering Python, counting such
    # calls in `_untraced_fast_calls`; every other call comes here.
    def _call_slow(self, *args: Any, **kwargs: Any) -> Any:
        if _core._is_tracing() or _core._run_functions_eagerly():
            # Inside another function's trace (the calls are part of that trace),
            # or `tapers.config.run_functions_eagerly(True)`: no graph.
            return self._python_function(*args, **kwargs)
        if self._untraced_fast_calls:
            self._detector.called_without_tracing(self._untraced_fast_calls)
            self._untraced_fast_calls = 0
        count = self._tracing_count
        result = self._call(self._inputs(args, kwargs))
        if self._tracing_count == count:
            self._detector.called_without_tracing()
        else:
            self._detector.called_with_tracing(self._python_function)
        return result

    def _call(self, inputs: _Inputs) -> Any:
        trace, new = self._lookup(inputs)
        entry = trace.graphs.get(inputs.shapes)
        if entry is None:
            result = self._trace(inputs, trace, count=new)
            self._note_fast(inputs, trace.graphs.get(inputs.shapes))
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
                    f"values it reads into Python (bool(t), float(t), t.numpy()), or the shapes of "
                    f"results that depend on values (tf.where, tf.boolean_mask, tf.unique), changed in "
                    f"{entry.guard_failures} calls"
                )
                return self._python_function(*inputs.args, **inputs.kwargs)
            failures = entry.guard_failures
            result = self._trace(inputs, trace, count=True)
            trace.graphs[inputs.shapes].guard_failures = failures
            self._note_fast(inputs, trace.graphs.get(inputs.shapes))
            return result
        self._note_fast(inputs, entry)
        return entry.rebuild(outputs)

    def _note_fast(self, inputs: _Inputs, entry: _Entry | None) -> None:
        """Makes this call's entry the fast path's, if its arguments are tensors alone."""
        self._fast = entry if inputs.only_tensors and entry is not None and not entry.eager else None

    def _warn_eager(self, why: str) -> None:
        if not self._warned_eager:
            self._warned_eager = True
            warnings.warn(
                f"tapers.function {self.__name__!r} runs eagerly (no graph): {why}",
                RuntimeWarning,
                stacklevel=4,
            )

    def _trace(self, inputs: _Inputs, trace: _Trace, count: bool, call: bool = True) -> Any:
        """Traces a graph for these inputs and returns the function's result; `call`:
        this is a call of the function (its `tapers.print`s print), not a
        `get_concrete_function`."""
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
        graph = tracing.finish(_graph_outputs(flat))
        if count:
            self._tracing_count += 1
        if graph.created_variables and (self._tracing_count > 1 or not count):
            # TensorFlow's rule: Variables may be created only on the first trace.
            raise ValueError(_VARIABLE_ERROR)
        entry = _Entry(graph, structure, flat)
        if graph.unreplayable is not None:
            entry.eager = True
            self._warn_eager(f"it runs {graph.unreplayable}, which a graph cannot replay")
        trace.graphs[inputs.shapes] = entry
        # The trace is over: reading the printed values now makes no guard.
        tracing.flush_prints(call)
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
    input_signature : sequence of TensorSpec, optional
        The arguments' specs; calls must match them and share one trace.
    autograph : bool, default True
        Accepted; no effect (Python control flow is traced on real values, with guards;
        use ``tapers.cond``/``tapers.while_loop`` for control flow decided at each call).
    jit_compile : bool, optional
        Accepted; no effect.
    reduce_retracing : bool, default False
        Relaxes the shapes of a signature traced again with other shapes (TensorFlow's rule).
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
