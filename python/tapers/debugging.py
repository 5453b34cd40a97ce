"""``tf.debugging``: assertions and numeric checks, with TensorFlow 2.21's eager messages.

Each value check (``assert_equal``, ``assert_positive``, ``check_numerics``,
``Assert``, ...) computes its condition with ops; eagerly it raises
``InvalidArgumentError`` at once when the condition does not hold. Inside a
``tapers.function`` trace it is an op, as in TensorFlow: the graph keeps a node that
checks the condition at every call (raising the eager message, with that call's
values, and leaving Variables as they were), in the branch a ``tapers.cond`` takes and
at each ``while_loop`` iteration; the trace does not read the values into Python (no
guard). Checks of static properties (``assert_rank``, ``assert_type``,
``assert_scalar``, ``assert_integer``) raise ``ValueError``/``TypeError`` when
called, as TensorFlow's do for known shapes and dtypes.
"""

from __future__ import annotations

from typing import Any, Callable, NoReturn, Sequence

import numpy as np

from . import _core, _print
from . import math as _math
from ._core import Tensor, Variable
from .errors import InvalidArgumentError

__all__ = [
    "Assert", "assert_all_finite", "assert_equal", "assert_greater", "assert_greater_equal", "assert_integer",
    "assert_less", "assert_less_equal", "assert_near", "assert_negative", "assert_non_negative",
    "assert_non_positive", "assert_none_equal", "assert_positive", "assert_proper_iterable", "assert_rank",
    "assert_rank_at_least", "assert_rank_in", "assert_same_float_dtype", "assert_scalar", "assert_shapes",
    "assert_type", "check_numerics", "is_numeric_tensor",
]  # fmt: skip


def _tensor(x: Any, dtype: Any = None) -> Tensor:
    if isinstance(x, Variable):
        return x.read_value()
    if isinstance(x, Tensor) and dtype is None:
        return x
    return _core.convert_to_tensor(x, dtype=dtype)


def _values(t: Tensor) -> np.ndarray:
    """The value of a check's tensor, read only when the check fails: in a replay (no
    trace is active), or in a trace whose call then raises (the trace is dropped, so
    the read's guard never counts)."""
    return np.asarray(t)


def _check(condition: Tensor, fail: Callable[[list[Tensor]], NoReturn], data: list[Tensor]) -> None:
    """Raises through ``fail(data)`` unless every element of ``condition`` holds; inside a
    trace, records the check as a node that runs at every call."""
    if _core._is_tracing():
        _core._trace_assert(condition, data, fail, not _print.tracing_branch())
        return
    if not bool(np.all(_values(condition))):
        fail(data)


def _prefix(message: str | None) -> str:
    return f"{message}.  " if message else ""


def _shape_and_dtype(t: Tensor) -> str:
    return f"shape={tuple(t.shape)} dtype={t.dtype.name}"


def _pretty(item: Any, summarize: int) -> str:
    """TensorFlow's eager `_pretty_print` of one item of an assertion's data."""
    if isinstance(item, np.ndarray) and item.ndim > 0:
        flat = item.reshape(-1)
        lst = [str(v) for v in flat[:summarize]]
        if len(lst) < flat.size:
            lst.append("...")
        return str(lst)
    if isinstance(item, np.ndarray):
        return str(item[()])
    return str(item)


def _summarize(summarize: int | None) -> int:
    if summarize is None:
        return 3
    return 10**9 if summarize < 0 else summarize


def _binary(
    sym: str, op: Callable[[Tensor, Tensor], Tensor], x: Any, y: Any, message: str | None, summarize: int | None
) -> None:
    """TensorFlow's eager `_binary_assert`: the condition, the first differing values when
    the shapes match, and the first elements of both."""
    x = _tensor(x)
    y = _tensor(y) if isinstance(y, (Tensor, Variable)) else _tensor(y, dtype=x.dtype)
    test = op(x, y)
    n = _summarize(summarize)

    def fail(values: list[Tensor]) -> NoReturn:
        xv, yv = _values(values[0]), _values(values[1])
        items: list[Any] = [f"Condition x {sym} y did not hold."]
        if n > 0:
            if xv.shape == yv.shape and xv.ndim > 0:
                mask = ~_values(values[2]).astype(bool)
                idx = np.argwhere(mask)
                k = min(n, idx.shape[0])
                items += [
                    f"Indices of first {k} different values:",
                    idx[:k],
                    "Corresponding x values:",
                    xv[mask].reshape(-1)[:k],
                    "Corresponding y values:",
                    yv[mask].reshape(-1)[:k],
                ]
            xf, yf = xv.reshape(-1), yv.reshape(-1)
            items += [
                f"First {min(xf.size, n)} elements of x:",
                xf[: min(xf.size, n)],
                f"First {min(yf.size, n)} elements of y:",
                yf[: min(yf.size, n)],
            ]
        if message is not None:
            items = [message, *items]
        raise InvalidArgumentError(None, None, "\n".join(str(it) for it in items))

    _check(_core.reduce_all(test), fail, [x, y, test])


def _unary(
    name: str, sym: str, op: Callable[[Tensor, Tensor], Tensor], flip: bool, joined: bool = False
) -> Callable[..., None]:
    """`assert_positive` and its kin: `0 sym x` (or `x sym 0`), reported element-wise
    (`joined`: TensorFlow's `assert_non_positive` misses a comma between two of its
    message's lines, so they print as one)."""

    def check(x: Any, message: str | None = None, summarize: int | None = None, name: str | None = None) -> None:
        x = _tensor(x)
        zero = _core.convert_to_tensor(0, dtype=x.dtype)
        test = op(zero, x) if flip else op(x, zero)
        head = [_prefix(message), f"Condition x {sym} 0 did not hold element-wise:", f"x ({_shape_and_dtype(x)}) = "]
        if joined:
            head[1:] = [head[1] + head[2]]
        n = _summarize(summarize)

        def fail(values: list[Tensor]) -> NoReturn:
            lines = [*head, _pretty(_values(values[0]), n)]
            raise InvalidArgumentError(None, None, "\n".join(lines))

        _check(_core.reduce_all(test), fail, [x])

    check.__name__ = check.__qualname__ = name
    check.__doc__ = f"""Raises ``InvalidArgumentError`` unless ``x {sym} 0`` element-wise (``tf.debugging.{name}``).

    Parameters
    ----------
    x : Tensor or array-like
        The values checked.
    message : str, optional
        A first line of the error.
    summarize : int, optional
        Values shown (3; negative: all).
    name : str, optional
        Ignored (TensorFlow's op name).

    Returns
    -------
    None
        Inside ``tapers.function`` the check is a node that runs at every call.
    """
    return check


assert_positive = _unary("assert_positive", ">", _core.less, flip=True)
assert_negative = _unary("assert_negative", "<", _core.less, flip=False)
assert_non_negative = _unary("assert_non_negative", ">=", _core.less_equal, flip=True)
assert_non_positive = _unary("assert_non_positive", "<=", _core.less_equal, flip=False, joined=True)


_BINARY_DOC = """Raises ``InvalidArgumentError`` unless ``x {sym} y`` element-wise (``tf.debugging.{name}``).

    Parameters
    ----------
    x, y : Tensor or array-like
        Compared element by element, broadcasting (``y`` converted to ``x``'s dtype).
    message : str, optional
        A first line of the error.
    summarize : int, optional
        Values shown of each (3; negative: all).
    name : str, optional
        Ignored (TensorFlow's op name).

    Returns
    -------
    None
        Inside ``tapers.function`` the check is a node that runs at every call.
    """


def _binary_check(name: str, sym: str, op: Callable[[Tensor, Tensor], Tensor]) -> Callable[..., None]:
    def check(
        x: Any, y: Any, message: str | None = None, summarize: int | None = None, name: str | None = None
    ) -> None:
        _binary(sym, op, x, y, message, summarize)

    check.__name__ = check.__qualname__ = name
    check.__doc__ = _BINARY_DOC.format(sym=sym, name=name)
    return check


assert_equal = _binary_check("assert_equal", "==", _core.equal)
assert_less = _binary_check("assert_less", "<", _core.less)
assert_less_equal = _binary_check("assert_less_equal", "<=", _core.less_equal)
assert_greater = _binary_check("assert_greater", ">", _core.greater)
assert_greater_equal = _binary_check("assert_greater_equal", ">=", _core.greater_equal)


def assert_none_equal(
    x: Any, y: Any, summarize: int | None = None, message: str | None = None, name: str | None = None
) -> None:
    # TensorFlow's order of arguments differs from its kin's: summarize first.
    _binary("!=", _core.not_equal, x, y, message, summarize)


assert_none_equal.__doc__ = _BINARY_DOC.format(sym="!=", name="assert_none_equal")


def _summarized(t: np.ndarray, summarize: int | None) -> str:
    """TensorFlow's `_summarize_eager` (the data of a failed ``Assert``)."""
    n = 3 if summarize is None else (t.size if summarize < 0 else summarize)
    if t.ndim:
        flat = t.reshape(-1)
        lst = [_item_text(v) for v in flat[:n]]
        if len(lst) < flat.size:
            lst.append("...")
    else:
        lst = [_item_text(t[()])] if n != 0 else []
    return ", ".join(lst)


def _item_text(v: Any) -> str:
    if isinstance(v, np.bool_):
        return str(bool(v))
    return str(v)


def Assert(condition: Any, data: Sequence[Any], summarize: int | None = None, name: str | None = None) -> None:  # noqa: N802 - TensorFlow's name
    """Raises ``InvalidArgumentError`` with ``data`` summarized unless ``condition`` (a
    boolean scalar) holds (``tf.debugging.Assert``).

    Parameters
    ----------
    condition : Tensor or bool
        A boolean scalar.
    data : sequence
        Tensors and strings shown in the error.
    summarize : int, optional
        Values shown of each tensor (3; negative: all).
    name : str, optional
        Ignored (TensorFlow's op name).

    Returns
    -------
    None
    """
    cond = _tensor(condition)
    if cond.dtype.name != "bool" or len(cond.shape) != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {len(cond.shape)} for 'Assert' (condition)")
    texts = [item for item in data if isinstance(item, (str, bytes))]
    tensors = [_tensor(item) for item in data if not isinstance(item, (str, bytes))]
    kinds = [isinstance(item, (str, bytes)) for item in data]

    def fail(values: list[Tensor]) -> NoReturn:
        c = bool(np.asarray(_values(values[0])))
        ts, ss = iter(values[1:]), iter(texts)
        parts = []
        for is_text in kinds:
            if is_text:
                s = next(ss)
                parts.append(repr(s if isinstance(s, bytes) else s.encode()))
            else:
                parts.append(_summarized(_values(next(ts)), summarize))
        cond_repr = f"tapers.Tensor({c}, shape=(), dtype=bool)"
        raise InvalidArgumentError(
            None, None, f"Expected '{cond_repr}' to be true. Summarized data: " + "\n".join(parts)
        )

    _check(cond, fail, [cond, *tensors])


def assert_near(
    x: Any,
    y: Any,
    rtol: Any = None,
    atol: Any = None,
    message: str | None = None,
    summarize: int | None = None,
    name: str | None = None,
) -> None:
    """Raises unless ``|x - y| < atol + rtol * |y|`` element-wise (``tf.debugging.assert_near``;
    both tolerances default to 10 times the dtype's epsilon).

    Parameters
    ----------
    x, y : Tensor or array-like
        Compared element by element.
    rtol, atol : float or Tensor, optional
        Relative and absolute tolerances.
    message : str, optional
        A first line of the error.
    summarize : int, optional
        Values shown of each (3; negative: all).
    name : str, optional
        Ignored (TensorFlow's op name).

    Returns
    -------
    None
    """
    x = _tensor(x)
    y = _tensor(y, dtype=x.dtype) if not isinstance(y, (Tensor, Variable)) else _tensor(y)
    eps = float(np.finfo(np.dtype(x.dtype.as_numpy_dtype)).eps) if x.dtype.is_floating else 0.0
    rt = _core.convert_to_tensor(10 * eps if rtol is None else rtol, dtype=x.dtype)
    at = _core.convert_to_tensor(10 * eps if atol is None else atol, dtype=x.dtype)
    tol = at + rt * _core.abs(y)
    cond = _core.reduce_all(_core.less(_core.abs(x - y), tol))
    Assert(
        cond,
        [
            _prefix(message),
            f"x and y not equal to tolerance rtol = {rt!s}, atol = {at!s}",
            f"x ({_shape_and_dtype(x)}) = ",
            x,
            f"y ({_shape_and_dtype(y)}) = ",
            y,
        ],
        summarize=summarize,
    )


def check_numerics(tensor: Any, message: str, name: str | None = None) -> Tensor:
    """``tensor`` itself, after checking it has no NaN or infinity (``InvalidArgumentError``
    ``"{message} : Tensor had NaN values"`` / ``Inf values`` otherwise;
    ``tf.debugging.check_numerics``). Its gradient passes through unchanged.

    Parameters
    ----------
    tensor : Tensor
        A floating tensor.
    message : str
        The start of the error's text.
    name : str, optional
        Ignored (TensorFlow's op name).

    Returns
    -------
    Tensor
        ``tensor``.
    """
    t = _tensor(tensor)
    if not t.dtype.is_floating:
        raise TypeError(
            f"Value for attr 'T' of {t.dtype.name} is not in the list of allowed values: bfloat16, half, float, double"
        )

    def fail(values: list[Tensor]) -> NoReturn:
        v = _values(values[0])
        kind = "NaN" if np.isnan(v).any() else "Inf"
        raise InvalidArgumentError(None, None, f"{message} : Tensor had {kind} values")

    _check(_core.reduce_all(_math.is_finite(t)), fail, [t])
    return t


def assert_all_finite(x: Any, message: str, name: str | None = None) -> Tensor:
    """``check_numerics`` under its other name (``tf.debugging.assert_all_finite``).

    Parameters
    ----------
    x : Tensor
        A floating tensor.
    message : str
        The start of the error's text.
    name : str, optional
        Ignored (TensorFlow's op name).

    Returns
    -------
    Tensor
        ``x``.
    """
    return check_numerics(x, message, name=name)


def _check_rank(t: Tensor, ok: bool, message: str | None, want: str) -> None:
    if not ok:
        raise ValueError(
            f"{_prefix(message)}Tensor  must have rank {want}.  Received rank {len(t.shape)}, shape {tuple(t.shape)}"
        )


_RANK_DOC = """Raises ``ValueError`` unless ``x``'s rank is {what} (``tf.debugging.{name}``).

    Parameters
    ----------
    x : Tensor or array-like
        The value checked.
    {arg}
    message : str, optional
        A first line of the error.
    name : str, optional
        Ignored (TensorFlow's op name).

    Returns
    -------
    None
    """


def assert_rank(x: Any, rank: int, message: str | None = None, name: str | None = None) -> None:
    t = _tensor(x)
    _check_rank(t, len(t.shape) == int(rank), message, str(int(rank)))


def assert_rank_at_least(x: Any, rank: int, message: str | None = None, name: str | None = None) -> None:
    t = _tensor(x)
    _check_rank(t, len(t.shape) >= int(rank), message, f"at least {int(rank)}")


def assert_rank_in(x: Any, ranks: Sequence[int], message: str | None = None, name: str | None = None) -> None:
    t = _tensor(x)
    want = tuple(int(r) for r in ranks)
    _check_rank(t, len(t.shape) in want, message, f"in {want}")


assert_rank.__doc__ = _RANK_DOC.format(what="``rank``", name="assert_rank", arg="rank : int\n        The rank.")
assert_rank_at_least.__doc__ = _RANK_DOC.format(
    what="``rank`` or more", name="assert_rank_at_least", arg="rank : int\n        The least rank."
)
assert_rank_in.__doc__ = _RANK_DOC.format(
    what="one of ``ranks``", name="assert_rank_in", arg="ranks : sequence of int\n        The ranks allowed."
)


def assert_scalar(tensor: Any, message: str | None = None, name: str | None = None) -> Tensor:
    """``tensor`` if it is a scalar, else ``ValueError`` (``tf.debugging.assert_scalar``).

    Parameters
    ----------
    tensor : Tensor or array-like
        The value checked.
    message : str, optional
        A first line of the error.
    name : str, optional
        Ignored (TensorFlow's op name).

    Returns
    -------
    Tensor
        ``tensor``.
    """
    t = _tensor(tensor)
    if len(t.shape) != 0:
        raise ValueError(f"{_prefix(message)}Expected scalar shape, saw shape: {tuple(t.shape)}.")
    return t


def assert_type(tensor: Any, tf_type: Any, message: str | None = None, name: str | None = None) -> None:
    """Raises ``TypeError`` unless ``tensor`` has dtype ``tf_type`` (``tf.debugging.assert_type``).

    Parameters
    ----------
    tensor : Tensor or array-like
        The value checked.
    tf_type : DType
        The dtype wanted.
    message : str, optional
        A first line of the error.
    name : str, optional
        Ignored (TensorFlow's op name).

    Returns
    -------
    None
    """
    from .dtypes import as_dtype

    want = as_dtype(tf_type)
    t = _tensor(tensor)
    if t.dtype != want:
        raise TypeError(f"{_prefix(message)}tensor must be of type {want!r}; got {t.dtype!r}")


def assert_integer(x: Any, message: str | None = None, name: str | None = None) -> None:
    """Raises ``TypeError`` unless ``x`` has an integer dtype (``tf.debugging.assert_integer``).

    Parameters
    ----------
    x : Tensor or array-like
        The value checked.
    message : str, optional
        A first line of the error.
    name : str, optional
        Ignored (TensorFlow's op name).

    Returns
    -------
    None
    """
    t = _tensor(x)
    if not t.dtype.is_integer:
        raise TypeError(
            f"{_prefix(message)}Expected \"x\" to be integer type.  Found: tensor of dtype <dtype: '{t.dtype.name}'>"
        )


def is_numeric_tensor(tensor: Any) -> bool:
    """Whether ``tensor`` is a Tensor of a numeric dtype (``tf.debugging.is_numeric_tensor``).

    Parameters
    ----------
    tensor : object
        Anything.

    Returns
    -------
    bool
    """
    return isinstance(tensor, Tensor) and tensor.dtype.name != "bool"


def _known(size: Any) -> bool:
    """A size given as a number (or a string of one), as TensorFlow's `_has_known_value`."""
    if size is None:
        return False
    try:
        int(size)
    except (ValueError, TypeError):
        return False
    return True


def assert_shapes(
    shapes: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> None:
    """Checks tensors' shapes against specs that share symbolic sizes
    (``tf.debugging.assert_shapes``).

    Parameters
    ----------
    shapes : sequence of (Tensor, shape) pairs, or a dict
        Each shape is a sequence of sizes: an int, a symbol (a string naming a size
        that must be the same wherever it appears), ``None`` or ``'.'`` (any size),
        and as first entry ``'*'`` or ``...`` (any number of leading dimensions). A
        spec of one entry (or none) allows rank 0 or 1, as TensorFlow's does.
    data, summarize : optional
        Accepted (TensorFlow's; shapes are static here, so the checks run now).
    message : str, optional
        A prefix of the error.
    name : str, optional
        Ignored (TensorFlow's op name).

    Returns
    -------
    None

    Raises
    ------
    ValueError
        With TensorFlow's text, naming the tensor, dimension, size wanted and where
        that size was specified.
    """
    if isinstance(shapes, dict):
        shapes = shapes.items()
    prefix = _prefix(message)
    found = []
    for x, spec in shapes:
        if spec is None:
            continue
        t = _tensor(x)
        if not (hasattr(spec, "__iter__") or hasattr(spec, "__getitem__")):
            raise ValueError(
                f"{prefix}Tensor {_shape_and_dtype(t)}.  Specified shape must be an iterable.  "
                f"An iterable has the attribute `__iter__` or `__getitem__`.  Received specified shape: {spec}"
            )
        spec = tuple(spec)
        leading = False
        for i, symbol in enumerate(spec):
            if symbol is Ellipsis or (isinstance(symbol, str) and symbol == "*"):
                if i != 0:
                    raise ValueError(
                        f"{prefix}Tensor {_shape_and_dtype(t)} specified shape index {i}.  Symbol `...` or `*` "
                        "for a variable number of unspecified dimensions is only allowed as the first entry"
                    )
                leading = True
        sizes = (spec[1:] if leading else spec) or (1,)
        actual = tuple(t.shape) or (1,)
        found.append((t, leading, actual, sizes))
    for t, leading, _, sizes in found:
        rank = len(sizes)
        if leading:
            if rank > 1:
                assert_rank_at_least(t, rank, message=message)
        elif rank <= 1:
            assert_rank_in(t, [0, 1], message=message)
        else:
            assert_rank(t, rank, message=message)
    specified: dict[Any, tuple[int, Tensor, int]] = {}
    for t, leading, actual, sizes in found:
        for i, symbol in enumerate(sizes):
            if symbol is None or (isinstance(symbol, str) and symbol == "."):
                continue
            dim = i - len(sizes) if leading else i
            if _known(symbol):
                want, how = int(symbol), "Specified explicitly"
            elif symbol in specified:
                want, by, at = specified[symbol]
                how = f"Specified by tensor {_shape_and_dtype(by)} dimension {at}"
            else:
                specified[symbol] = (actual[dim], t, dim)
                continue
            if int(actual[dim]) != want:
                raise ValueError(
                    f"{prefix}{how}.  Tensor {_shape_and_dtype(t)} dimension {dim} must have size {want}.  "
                    f"Received size {actual[dim]}, shape {tuple(t.shape)}"
                )


def assert_proper_iterable(values: Any) -> None:
    """Raises ``TypeError`` unless ``values`` is an iterable other than a tensor, an array
    or a string (``tf.debugging.assert_proper_iterable``).

    Parameters
    ----------
    values : object
        The value checked.

    Returns
    -------
    None
    """
    if isinstance(values, (Tensor, Variable, np.ndarray, str, bytes)):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}')
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


def assert_same_float_dtype(tensors: Sequence[Any] | None = None, dtype: Any = None) -> Any:
    """The floating dtype shared by ``tensors`` and ``dtype`` (float32 when neither gives
    one), else ``ValueError`` (``tf.debugging.assert_same_float_dtype``).

    Parameters
    ----------
    tensors : sequence of Tensor, optional
        Tensors whose dtypes must agree.
    dtype : DType, optional
        The dtype they must have.

    Returns
    -------
    DType
    """
    from .dtypes import as_dtype, float32

    want = None if dtype is None else as_dtype(dtype)
    first = None
    for t in tensors or []:
        if want is None:
            want, first = t.dtype, t
        elif t.dtype != want:
            against = f" as {first!s}" if first is not None else ""
            raise ValueError(f"{t!s}, type={t.dtype}, must be of the same type ({want}){against}.")
    if want is None:
        return float32
    if not want.is_floating:
        raise ValueError(f"Expected floating point type, got {want}.")
    return want


# ------------------------------------------------------------------ enable_check_numerics and switches

import functools as _functools  # noqa: E402
import sys as _sys  # noqa: E402
import threading as _threading  # noqa: E402
import types as _types  # noqa: E402

_OPS_MODULES = (
    "tapers", "tapers.math", "tapers.nn", "tapers.linalg",
    "tapers._core", "tapers._core.math", "tapers._core.nn", "tapers._core.linalg",
)  # fmt: skip
# Ops that cannot make an infinity or NaN from finite inputs (TensorFlow's SAFE_OPS), ops that only
# build or read tensors, and the ones that run user code or check values themselves.
_NOT_CHECKED = frozenset(
    {
        "concat", "expand_dims", "fill", "gather", "gather_nd", "identity", "identity_n", "stack", "reshape",
        "slice", "squeeze", "strided_slice", "transpose", "unstack", "constant", "convert_to_tensor",
        "zeros", "ones", "zeros_like", "ones_like", "stop_gradient", "print", "function", "py_function",
        "numpy_function", "custom_gradient", "cond", "case", "switch_case", "while_loop", "map_fn",
        "vectorized_map", "is_nan", "is_inf", "is_finite", "is_tensor", "shape", "rank", "size",
        "is_tracing", "name_scope", "device", "executing_eagerly", "init_scope", "no_op", "group",
        "get_static_value", "check_numerics",
    }
)  # fmt: skip
_TENSOR_METHODS = (
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
    "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__matmul__",
    "__rmatmul__", "__neg__", "__abs__",
)  # fmt: skip
_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"

_state: dict[str, Any] = {"check": False, "log": False, "patched": {}, "tb_filter": True}
_busy = _threading.local()


def _op_label(name: str) -> str:
    return name.strip("_").replace("r", "", 1) if name.startswith("__r") else name.strip("_")


def _counts(v: np.ndarray) -> str:
    lines = []
    for label, n in (
        ("-Inf", int(np.sum(np.isneginf(v)))),
        ("+Inf", int(np.sum(np.isposinf(v)))),
        ("+NaN", int(np.sum(np.isnan(v)))),
    ):
        if n:
            lines.append(f"  # of {label} elements: {n}")
    return "\n".join(lines)


def _check_output(label: str, index: int, n_out: int, out: Tensor, inputs: list[Any]) -> None:
    where = "graph op" if _core._is_tracing() else "eagerly-executing op"

    def fail(values: list[Tensor]) -> NoReturn:
        v = _values(values[0])
        shown = [f"  Input tensor: {x!r}" for x in values[1:]]
        kinds = [k for k, bad in (("-Inf", np.isneginf), ("+Inf", np.isposinf), ("NaN", np.isnan)) if bad(v).any()]
        kind = kinds[0] if len(kinds) == 1 else (" and ".join(kinds) if len(kinds) == 2 else "-Inf, +Inf, and NaN")
        raise InvalidArgumentError(
            None,
            None,
            f'\n\n!!! Detected Infinity or NaN in output {index} of {where} "{label}" (# of outputs: {n_out}) !!!\n'
            f"  dtype: {out.dtype!r}\n  shape: {tuple(v.shape)}\n{_counts(v)}\n\n"
            + ("\n".join(shown) + "\n\n" if shown else "")
            + f" : Tensor had {kind} values",
        )

    shown = [x for x in inputs if isinstance(x, Tensor)][:4]
    _check(_core.reduce_all(_math.is_finite(out)), fail, [out, *shown])


def _after(label: str, result: Any, args: tuple[Any, ...]) -> None:
    if _state["log"]:
        print(f"Executing op {label} in device {_DEVICE}", file=_sys.stderr)
    if not _state["check"]:
        return
    outs = list(result) if isinstance(result, (tuple, list)) else [result]
    inputs = [a.read_value() if isinstance(a, Variable) else a for a in args]
    for i, o in enumerate(outs):
        if isinstance(o, Variable):
            o = o.read_value()
        if isinstance(o, Tensor) and o.dtype.is_floating:
            _check_output(label, i, len(outs), o, inputs)


def _wrap(label: str, f: Callable[..., Any]) -> Callable[..., Any]:
    @_functools.wraps(f)
    def checked(*args: Any, **kwargs: Any) -> Any:
        if getattr(_busy, "on", False):
            return f(*args, **kwargs)
        _busy.on = True
        try:
            result = f(*args, **kwargs)
            _after(label, result, args)
        finally:
            _busy.on = False
        return result

    return checked


def _install() -> None:
    if _state["patched"]:
        return
    patched: dict[tuple[Any, str], Any] = {}
    for mod_name in _OPS_MODULES:
        mod = _sys.modules.get(mod_name)
        if mod is None:
            continue
        for name in list(vars(mod)):
            f = vars(mod)[name]
            if name.startswith("_") or name in _NOT_CHECKED or name[0].isupper():
                continue
            if not isinstance(f, (_types.BuiltinFunctionType, _types.FunctionType)):
                continue
            if getattr(f, "__module__", "") in (__name__, "tapers.debugging"):
                continue
            patched[(mod, name)] = f
            setattr(mod, name, _wrap(name, f))
    for cls in (Tensor, Variable):
        for name in _TENSOR_METHODS:
            f = cls.__dict__.get(name)
            if f is None:
                continue
            patched[(cls, name)] = f
            setattr(cls, name, _wrap(_op_label(name), f))
    _state["patched"] = patched


def _uninstall() -> None:
    if _state["check"] or _state["log"]:
        return
    for (owner, name), f in _state["patched"].items():
        setattr(owner, name, f)
    _state["patched"] = {}


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """Makes every floating op output be checked for infinities and NaNs (``tf.debugging.enable_check_numerics``).

    While enabled, an op of ``tapers``, ``tapers.math``, ``tapers.nn`` or ``tapers.linalg``
    (and the arithmetic operators of tensors and variables) whose floating output holds an
    infinity or a NaN raises ``InvalidArgumentError`` with TensorFlow's message: ``Detected
    Infinity or NaN in output 0 of eagerly-executing op "log"``, the dtype, shape, counts of
    ``-Inf``/``+Inf``/``NaN`` elements and the input tensors. Inside a ``tapers.function``
    trace the check is recorded as a graph node (``graph op`` in the message) and runs at
    every call of that trace, also after ``disable_check_numerics`` (as TensorFlow, whose
    instrumentation is part of the traced graph).

    Parameters
    ----------
    stack_height_limit : int, default 30
        Accepted for TensorFlow compatibility (tapers' message does not print the stack).
    path_length_limit : int, default 50
        Accepted for TensorFlow compatibility.

    Returns
    -------
    None

    Notes
    -----
    Differences from TensorFlow: the hook wraps the public op functions in Python, so an op is
    named by its Python name (``log``, ``truediv``) rather than TensorFlow's op type (``Log``,
    ``RealDiv``); functions captured before enabling (``from tapers.math import log``) and
    the ops a Python-written op runs inside itself are not checked one by one (its final
    outputs are). Ops that only move values (``reshape``, ``concat``, ``gather``, ...,
    TensorFlow's safe ops) and constants are not checked, as in TensorFlow. The ops a
    ``GradientTape`` runs to compute gradients are not checked one by one either (its results
    are when they go through a checked op).
    """
    _state["check"] = True
    _install()


def disable_check_numerics() -> None:
    """Turns off the checks of ``enable_check_numerics`` (``tf.debugging.disable_check_numerics``);
    nothing happens when they are off.

    Returns
    -------
    None
    """
    _state["check"] = False
    _uninstall()


def set_log_device_placement(enabled: bool) -> None:
    """Prints the device of each op run while enabled (``tf.debugging.set_log_device_placement``).

    Each op of the namespaces ``enable_check_numerics`` covers prints ``Executing op NAME in
    device /job:localhost/replica:0/task:0/device:CPU:0`` to standard error (every tapers op
    runs on the CPU).

    Parameters
    ----------
    enabled : bool
        Whether to print placements.

    Returns
    -------
    None
    """
    _state["log"] = bool(enabled)
    if _state["log"]:
        _install()
    else:
        _uninstall()


def get_log_device_placement() -> bool:
    """Whether ``set_log_device_placement(True)`` is in effect (``tf.debugging.get_log_device_placement``).

    Returns
    -------
    bool
        ``False`` by default.
    """
    return bool(_state["log"])


def is_traceback_filtering_enabled() -> bool:
    """Whether traceback filtering is recorded as on (``tf.debugging.is_traceback_filtering_enabled``).

    Returns
    -------
    bool
        ``True`` by default, as in TensorFlow.

    Notes
    -----
    tapers does not rewrite tracebacks (its frames are few), so the switch only records the
    setting; tracebacks are the same either way.
    """
    return bool(_state["tb_filter"])


def enable_traceback_filtering() -> None:
    """Records traceback filtering as on (``tf.debugging.enable_traceback_filtering``); no effect in tapers.

    Returns
    -------
    None
    """
    _state["tb_filter"] = True


def disable_traceback_filtering() -> None:
    """Records traceback filtering as off (``tf.debugging.disable_traceback_filtering``); no effect in tapers.

    Returns
    -------
    None
    """
    _state["tb_filter"] = False


__all__ += [
    "disable_check_numerics", "disable_traceback_filtering", "enable_check_numerics", "enable_traceback_filtering",
    "get_log_device_placement", "is_traceback_filtering_enabled", "set_log_device_placement",
]  # fmt: skip
