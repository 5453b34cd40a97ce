"""``tapers.cond``, ``tapers.while_loop``, ``tapers.switch_case`` and ``tapers.case``.

Executed eagerly they are Python control flow, as in TensorFlow's eager mode: the
predicate is read and only the chosen branch runs, so a ``GradientTape`` records the
ops that ran.

Inside a trace (``tapers.function``), the branches (or the loop's condition and body)
are traced once each into sub-graphs, on the values at hand, and the graph records one
control op that picks the branch, or iterates, on the values of each later call: no
guard is recorded and the function does not retrace when the predicate or the number
of iterations changes. A ``GradientTape`` inside the function differentiates through
them (the gradient of a cond is a cond over the branches' gradients; the gradient of a
while_loop runs the loop again and the body's gradient backwards over its iterations).

Differences from TensorFlow inside a function: both branches run once in Python while
tracing (TensorFlow also traces both; here they also compute values), and a branch or
loop body may not assign or create a Variable, nor read a tensor into Python.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from . import _core, _nest, _print, errors
from ._core import Tensor, Variable

__all__ = ["case", "cond", "switch_case", "while_loop"]

_STRUCTURE_ERROR = (
    "true_fn and false_fn arguments to tf.cond must have the same number, type, and overall structure of return values."
)


def _to_tensor(x: Any) -> Tensor:
    if isinstance(x, Tensor):
        return x
    if isinstance(x, Variable):
        return x.read_value()
    return _core.convert_to_tensor(x)


def _flat(result: Any) -> tuple[Any, list[Tensor]]:
    """A branch's result as (structure, flat tensors)."""
    if _nest.is_nested(result):
        return result, [_to_tensor(v) for v in _nest.flatten(result)]
    if result is None:
        return None, []
    return _LEAF, [_to_tensor(result)]


_LEAF = object()


def _pack(structure: Any, flat: list[Tensor]) -> Any:
    if structure is None:
        return None
    if structure is _LEAF:
        return flat[0]
    return _nest.pack_sequence_as(structure, flat)


def _shape_of(structure: Any) -> Any:
    """The nesting of a result with its leaves blanked (to compare two branches)."""
    if structure is None or structure is _LEAF:
        return structure
    return _nest.pack_sequence_as(structure, [None] * len(_nest.flatten(structure)))


def _eager_pred(pred: Any) -> bool:
    if isinstance(pred, (Tensor, Variable)):
        if len(pred.shape) != 0:
            raise ValueError(f"Shape must be rank 0 but is rank {len(pred.shape)} for the predicate of cond")
        return bool(pred)
    return bool(pred)


def cond(
    pred: Any,
    true_fn: Callable[[], Any] | None = None,
    false_fn: Callable[[], Any] | None = None,
    name: str | None = None,
) -> Any:
    """``true_fn()`` if ``pred`` else ``false_fn()`` (``tf.cond``), compiled inside ``tapers.function``.

    Parameters
    ----------
    pred : scalar bool tensor or Python bool
        Which branch runs.
    true_fn, false_fn : callable
        Branches without arguments; they must return the same structure of tensors with
        the same dtypes.
    name : str, optional
        Accepted for TensorFlow compatibility.

    Returns
    -------
    Any
        The chosen branch's result.
    """
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    if not _core._is_tracing() or not isinstance(pred, (Tensor, Variable)):
        # Eager (or a Python predicate): Python control flow, as TensorFlow's eager cond.
        return true_fn() if _eager_pred(pred) else false_fn()
    p = _to_tensor(pred)
    if len(p.shape) != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {len(p.shape)} for the predicate of cond")
    structures: list[Any] = []

    def traced(fn: Callable[[], Any]) -> Callable[[list[Tensor]], list[Tensor]]:
        def run(_args: list[Tensor]) -> list[Tensor]:
            structure, flat = _flat(fn())
            structures.append(structure)
            return flat

        return run

    with _print.in_branch():
        tb, _ = _core._trace_branch(traced(true_fn), [])
        fb, _ = _core._trace_branch(traced(false_fn), [])
    if _shape_of(structures[0]) != _shape_of(structures[1]):
        raise ValueError(_STRUCTURE_ERROR)
    return _pack(structures[0], _core._cond(p, tb, fb))


def while_loop(
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,
    shape_invariants: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    maximum_iterations: Any = None,
    name: str | None = None,
) -> Any:
    """Repeats ``body`` while ``cond`` holds (``tf.while_loop``), compiled inside ``tapers.function``.

    Parameters
    ----------
    cond : callable
        Takes the loop variables (unpacked), returns a scalar bool.
    body : callable
        Takes the loop variables (unpacked), returns new ones of the same structure,
        dtypes and shapes.
    loop_vars : tensor or (nested) tuple/list of tensors
        The initial values.
    shape_invariants : optional
        Accepted; loop variables must keep their shapes (a change raises, naming it).
    parallel_iterations, back_prop, swap_memory : optional
        Accepted for TensorFlow compatibility; no effect.
    maximum_iterations : int or scalar int tensor, optional
        At most this many iterations run.
    name : str, optional
        Accepted for TensorFlow compatibility.

    Returns
    -------
    Any
        The loop variables after the last iteration, in ``loop_vars``' structure.
    """
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    packed = not isinstance(loop_vars, (list, tuple))
    if packed:
        loop_vars = (loop_vars,)
    limit = None if maximum_iterations is None else int(maximum_iterations)
    if not _core._is_tracing():
        i = 0
        while (limit is None or i < limit) and _eager_pred(cond(*loop_vars)):
            new = body(*loop_vars)
            loop_vars = (new,) if packed or not isinstance(new, (list, tuple)) else new
            i += 1
        return loop_vars[0] if packed else loop_vars
    structure = loop_vars
    flat = [_to_tensor(v) for v in _nest.flatten(loop_vars)]

    def cond_fn(args: list[Tensor]) -> list[Tensor]:
        return [_to_tensor(cond(*_nest.pack_sequence_as(structure, list(args))))]

    def body_fn(args: list[Tensor]) -> list[Tensor]:
        new = body(*_nest.pack_sequence_as(structure, list(args)))
        if packed or (len(structure) == 1 and not isinstance(new, (list, tuple))):
            new = (new,)
        new_flat = _nest.flatten(new)
        if len(new_flat) != len(flat):
            raise ValueError(
                "The two structures don't have the same number of elements: the loop variables have "
                f"{len(flat)}, the body returned {len(new_flat)}"
            )
        return [_to_tensor(v) for v in new_flat]

    with _print.in_branch():
        cb, _ = _core._trace_branch(cond_fn, flat)
        bb, _ = _core._trace_branch(body_fn, flat)
    outs = _core._while_loop(cb, bb, flat, limit)
    result = _nest.pack_sequence_as(structure, outs)
    return result[0] if packed else result


def _branch_if_equal(index: Tensor, i: int, fn: Callable[[], Any], otherwise: Callable[[], Any]) -> Any:
    return cond(_core.equal(index, _core.constant(i, dtype=index.dtype)), fn, otherwise)


def switch_case(
    branch_index: Any,
    branch_fns: Any,
    default: Callable[[], Any] | None = None,
    name: str | None = None,
) -> Any:
    """Runs ``branch_fns[branch_index]`` (``tf.switch_case``); out of range runs ``default`` or the last.

    Parameters
    ----------
    branch_index : scalar int tensor or int
        Which branch runs.
    branch_fns : list of callables, dict {int: callable}, or list of (int, callable) pairs
        The branches.
    default : callable, optional
        Runs when the index matches no branch (default: the last branch).
    name : str, optional
        Accepted for TensorFlow compatibility.

    Returns
    -------
    Any
        The result of the branch that ran.
    """
    if isinstance(branch_fns, dict):
        pairs = sorted(branch_fns.items())
    else:
        items = list(branch_fns)
        pairs = list(items) if items and isinstance(items[0], tuple) else list(enumerate(items))
    if not pairs:
        raise ValueError("branch_fns must not be empty")
    for _, fn in pairs:
        if not callable(fn):
            raise TypeError("branch_fns must contain callables")
    fallback = default if default is not None else pairs[-1][1]
    if not _core._is_tracing() or not isinstance(branch_index, (Tensor, Variable)):
        k = int(branch_index)
        for i, fn in pairs:
            if i == k:
                return fn()
        return fallback()
    index = _to_tensor(branch_index)

    # Built from the last pair back, each branch binding the next: a closure
    # that called itself would be a reference cycle holding `index`.
    chain: Callable[[], Any] = fallback
    for i, fn in reversed(pairs):
        chain = functools.partial(_branch_if_equal, index, i, fn, chain)
    return chain()


def case(
    pred_fn_pairs: Any,
    default: Callable[[], Any] | None = None,
    exclusive: bool = False,
    strict: bool = False,
    name: str = "case",
) -> Any:
    """Runs the function of the first true predicate (``tf.case``), else ``default``.

    Parameters
    ----------
    pred_fn_pairs : list of (pred, callable) pairs, or dict {pred: callable}
        Predicates in order with their functions.
    default : callable, optional
        Runs when no predicate holds; without it, the last pair's function is the
        default (TensorFlow's rule).
    exclusive : bool, default False
        If true, more than one true predicate is an error. The predicates are read
        into Python to check it, so inside ``tapers.function`` each is a guard (a call
        where one changes traces again).
    strict : bool, default False
        Accepted for TensorFlow compatibility.
    name : str, optional
        Accepted for TensorFlow compatibility.

    Returns
    -------
    Any
        The result of the function that ran.
    """
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else list(pred_fn_pairs)
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2 or not callable(pair[1]):
            raise TypeError("Each entry in pred_fn_pairs must be a 2-tuple of (predicate, callable)")
    if default is None:
        if not pairs:
            raise ValueError("pred_fn_pairs must not be empty when default is None")
        default = pairs[-1][1]
        pairs = pairs[:-1]
    if exclusive:
        true_count = sum(1 for p, _ in pairs if _eager_pred(p))
        if true_count > 1:
            raise errors.InvalidArgumentError(
                f"Input error: exclusive=True and more than 1 conditions({true_count}) evaluated as True"
            )
    fallback = default

    chain: Callable[[], Any] = fallback
    for p, fn in reversed(pairs):
        chain = functools.partial(cond, p, fn, chain)
    return chain()
