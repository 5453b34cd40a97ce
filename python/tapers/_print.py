"""``tapers.print`` (``tf.print``): prints tensors the way TensorFlow's print op formats them.

Unlike Python's ``print`` of a tensor (its ``repr``), this prints only values:
``[0 1 2 ... 7 8 9]`` with at most ``summarize`` entries at each end of every
axis, floats with the shortest of 6 (float32) or 15 (float64) significant
digits that round-trips, else 9 or 17 (TensorFlow's C++ formatting), bools as
``1``/``0``, float16/bfloat16 as float32, complex numbers as ``?``. Structures
(lists, tuples, dicts) print as Python prints them, with each tensor in them
formatted so.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

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


def _replace(x: Any, summarize: int) -> Any:
    if isinstance(x, (Tensor, Variable)):
        return _Formatted(_tensor_text(x, summarize))
    if isinstance(x, dict):
        return type(x)((k, _replace(v, summarize)) for k, v in x.items())
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*[_replace(v, summarize) for v in x])
    if isinstance(x, (list, tuple)):
        return type(x)(_replace(v, summarize) for v in x)
    return x


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
        if not stream.startswith("file://"):
            raise ValueError(f"Unsupported output stream: {stream!r}; use a file object or 'file://path'")
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
