"""``tapers.print`` (``tf.print``): prints tensors the way TensorFlow's print op formats them.

Unlike Python's ``print`` of a tensor (its ``repr``), this prints only values:
``[0 1 2 ... 7 8 9]`` with at most ``summarize`` entries at each end of every
axis, floats with the shortest of 6 (float32) or 15 (float64) significant
digits that round-trips, else 9 or 17 (TensorFlow's C++ formatting), bools as
``1``/``0``, float16/bfloat16 as float32, complex numbers as ``?``. Structures
(lists, tuples, dicts) print as Python prints them, with each tensor in them
formatted so.

Inside a ``tapers.function`` trace, ``print`` is an op, as in TensorFlow: the trace
records a node that reads the tensors it prints (a Variable as a read at that
point), and every call (the tracing one and each replay) prints that call's
values, in the order the prints ran, when the call returns to Python; a print in a
``tapers.cond`` branch prints when that branch runs, one in a ``while_loop`` body at
each iteration. Reading the values while tracing would be a guard instead.
"""

from __future__ import annotations

import collections
import contextlib
import sys
import threading
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from . import _core
from ._core import Tensor, Variable


def _float_text(v: Any, digits: int, more: int, kind: type) -> str:
    if not np.isfinite(v):
        return "nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")
    s = f"{v:.{digits}g}"
    if kind(float(s)) != v:
        s = f"{v:.{more}g}"
    return s


def _scalar_text(v: Any) -> str:
    if isinstance(v, np.bool_):
        return "1" if v else "0"
    if isinstance(v, np.complexfloating):
        return "?"  # TensorFlow's print op has no complex formatting
    if isinstance(v, (np.float32, np.float16)) or type(v).__name__ == "bfloat16":
        # float16/bfloat16 print as the float32 they widen to.
        return _float_text(np.float32(v), 6, 9, np.float32)
    if isinstance(v, np.floating):
        return _float_text(v, 15, 17, np.float64)
    return str(v)


def _summarize(a: np.ndarray, summarize: int, depth: int = 0) -> str:
    if a.ndim == 0:
        return _scalar_text(a[()])
    n = a.shape[0]
    if 0 <= summarize and n > 2 * summarize:
        idx: list[int | None] = [*range(summarize), None, *range(n - summarize, n)]
    else:
        idx = list(range(n))
    parts = ["..." if i is None else _summarize(a[i], summarize, depth + 1) for i in idx]
    sep = " " if a.ndim == 1 else "\n" * (a.ndim - 1) + " " * (depth + 1)
    return "[" + sep.join(parts) + "]"


def _tensor_text(t: Any, summarize: int) -> str:
    return _summarize(np.asarray(t), summarize)


class _Formatted:
    """Stands in for a tensor inside a structure: its repr is the formatted value."""

    def __init__(self, text: str) -> None:
        self._text = text

    def __repr__(self) -> str:
        return self._text


def _map_leaves(x: Any, leaf: Callable[[Any], bool], fn: Callable[[Any], Any]) -> Any:
    """``x`` with each leaf (``leaf(v)``) inside lists, tuples and dicts replaced by ``fn(v)``,
    in a fixed order."""
    if leaf(x):
        return fn(x)
    if isinstance(x, dict):
        # TensorFlow's nest order: a dict's keys sorted, an OrderedDict's as inserted.
        keys = list(x)
        if not isinstance(x, collections.OrderedDict):
            with contextlib.suppress(TypeError):
                keys = sorted(keys)
        pairs = [(k, _map_leaves(x[k], leaf, fn)) for k in keys]
        if isinstance(x, collections.defaultdict):
            return type(x)(x.default_factory, pairs)
        return type(x)(pairs)
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*[_map_leaves(v, leaf, fn) for v in x])
    if isinstance(x, (list, tuple)):
        return type(x)(_map_leaves(v, leaf, fn) for v in x)
    return x


def _is_tensor(x: Any) -> bool:
    return isinstance(x, (Tensor, Variable))


def _replace(x: Any, summarize: int) -> Any:
    return _map_leaves(x, _is_tensor, lambda t: _Formatted(_tensor_text(t, summarize)))


class _Mark:
    """Where a traced print's template held a tensor."""


_MARK = _Mark()


class _Printed:
    """One ``print`` a trace recorded: how to print a call's values of its tensors."""

    def __init__(self, template: list[Any], options: dict[str, Any]) -> None:
        self._template = template
        self._options = options

    def emit(self, values: Sequence[Tensor]) -> None:
        """Prints with ``values`` in place of the traced tensors."""
        it = iter(values)
        inputs = _map_leaves(self._template, lambda v: v is _MARK, lambda _: next(it))
        _print_now(inputs, **self._options)


_state = threading.local()


def tracing_branch() -> bool:
    """Whether a ``cond`` branch or loop body is being traced on this thread."""
    return getattr(_state, "branches", 0) > 0


@contextlib.contextmanager
def in_branch() -> Iterator[None]:
    """Marks the tracing of a ``cond`` branch or loop body: its prints run where the
    control op runs the branch, not while it is traced."""
    _state.branches = getattr(_state, "branches", 0) + 1
    try:
        yield
    finally:
        _state.branches -= 1


def print(  # noqa: A001 - TensorFlow's name
    *inputs: Any,
    output_stream: Any = None,
    summarize: int | None = 3,
    sep: str = " ",
    end: str = "\n",
    name: str | None = None,
) -> None:
    """Prints `inputs` separated by `sep` and followed by `end` (``tf.print``).

    Parameters
    ----------
    *inputs
        Tensors, variables, Python values, or structures of them.
    output_stream : file-like, callable or str, default sys.stderr
        Where to write: ``sys.stdout``, ``sys.stderr``, any object with ``write``, a
        logging function such as ``logging.info`` (called with the text), or
        ``"file://path"`` (appended to).
    summarize : int, default 3
        Entries shown at each end of every axis; -1 shows all (``None``: 3).
    sep, end : str
        As Python's ``print``.
    name : str, optional
        Ignored (TensorFlow's op name).

    Returns
    -------
    None
    """
    if summarize is None:
        summarize = 3
    if isinstance(output_stream, str) and not output_stream.startswith("file://"):
        raise ValueError(f"Unsupported output stream: {output_stream!r}; use a file object or 'file://path'")
    options = {"output_stream": output_stream, "summarize": summarize, "sep": sep, "end": end}
    if _core._is_tracing():
        found: list[Tensor] = []

        def take(t: Any) -> _Mark:
            # A Variable prints its value at this point of the step: a traced read.
            found.append(t.read_value() if isinstance(t, Variable) else t)
            return _MARK

        printed = _Printed(_map_leaves(list(inputs), _is_tensor, take), options)
        _core._trace_print(printed.emit, found, not tracing_branch())
        return None
    _print_now(inputs, **options)
    return None


def _print_now(inputs: Sequence[Any], output_stream: Any, summarize: int, sep: str, end: str) -> None:
    parts = []
    for x in inputs:
        if isinstance(x, (Tensor, Variable)):
            parts.append(_tensor_text(x, summarize))
        elif isinstance(x, (list, tuple, dict)):
            parts.append(str(_replace(x, summarize)))
        else:
            parts.append(str(x))
    text = sep.join(parts) + end
    stream = sys.stderr if output_stream is None else output_stream
    if isinstance(stream, str):
        with open(stream[len("file://") :], "a") as f:
            f.write(text)
        return
    if not hasattr(stream, "write") and callable(stream):
        # A logging function (``logging.info``, ``absl.logging.info``): one message, without `end`.
        stream(text[: len(text) - len(end)] if end else text)
        return
    stream.write(text)
    flush = getattr(stream, "flush", None)
    if flush is not None:
        flush()
