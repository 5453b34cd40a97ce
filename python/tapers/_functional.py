"""``map_fn``, ``vectorized_map`` and ``meshgrid``: TensorFlow's ops over element lists and grids.

``map_fn`` and ``vectorized_map`` call the function once per element along the
first axis, eagerly, and stack the results; every op is recorded, so gradients
flow through them as TensorFlow's. ``vectorized_map`` is that same loop (TensorFlow
vectorizes the function with ``pfor``; the results are the same, the speed is
that of the loop).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import _nest
from ._core import Tensor, Variable, broadcast_to, convert_to_tensor, reshape, stack, zeros
from ._spec import TensorSpec
from .dtypes import DType, as_dtype
from .errors import InvalidArgumentError


def _as_tensor(x: Any) -> Tensor:
    if isinstance(x, Tensor):
        return x
    if isinstance(x, Variable):
        return x.read_value()
    return convert_to_tensor(x)


def _unstacked(elems: Any) -> tuple[Any, list[Tensor], int]:
    flat = [_as_tensor(e) for e in _nest.flatten(elems)]
    if not flat:
        raise ValueError("elems must be a Tensor or (possibly nested) sequence of Tensors, got an empty structure.")
    n = None
    for t in flat:
        if len(t.shape) == 0:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
        if n is not None and t.shape[0] != n:
            raise ValueError(
                f"All elements in elems must have the same size along the first axis, got {n} and {t.shape[0]}"
            )
        n = t.shape[0]
    return elems, flat, int(n or 0)


def _signature_leaves(sig: Any) -> list[Any]:
    if isinstance(sig, (DType, TensorSpec, str)) or isinstance(sig, type):
        return [sig]
    return _nest.flatten(sig)


def _leaf_dtype(leaf: Any) -> DType:
    return leaf.dtype if isinstance(leaf, TensorSpec) else as_dtype(leaf)


def map_fn(
    fn: Callable[[Any], Any],
    elems: Any,
    dtype: Any = None,
    parallel_iterations: int | None = None,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    name: str | None = None,
    fn_output_signature: Any = None,
) -> Any:
    """Applies `fn` to each element of `elems` along axis 0 and stacks the results (``tf.map_fn``).

    Parameters
    ----------
    fn : callable
        Takes one element, with `elems`' structure, and returns a tensor or structure of tensors.
    elems : tensor or nested structure of tensors
        All with the same first dimension.
    fn_output_signature : DType, TensorSpec or structure of them, optional
        What `fn` returns, when it differs from `elems` (``dtype`` is its old name).
    parallel_iterations, back_prop, swap_memory, infer_shape, name
        Accepted for TensorFlow compatibility; the loop runs eagerly in order.

    Returns
    -------
    The stacked results, in `fn_output_signature`'s structure (or `elems`').
    """
    del parallel_iterations, back_prop, swap_memory, infer_shape, name
    if fn_output_signature is None:
        fn_output_signature = dtype
    structure, flat, n = _unstacked(elems)
    if fn_output_signature is None:
        out_structure = structure
        leaves: list[Any] = [t.dtype for t in flat]
    else:
        out_structure = fn_output_signature
        leaves = _signature_leaves(fn_output_signature)
    dtypes = [_leaf_dtype(leaf) for leaf in leaves]
    columns: list[list[Tensor]] = [[] for _ in dtypes]
    for i in range(n):
        out = fn(_nest.pack_sequence_as(structure, [t[i] for t in flat]))
        out_flat = _nest.flatten(out)
        if len(out_flat) != len(dtypes):
            raise ValueError(
                "The two structures don't have the same nested structure: fn returned "
                f"{len(out_flat)} tensors where the signature has {len(dtypes)}."
            )
        for col, value, dt in zip(columns, out_flat, dtypes):
            t = value if isinstance(value, (Tensor, Variable)) else convert_to_tensor(value, dtype=dt)
            t = _as_tensor(t)
            if t.dtype != dt:
                raise InvalidArgumentError(
                    None, None, f"TensorArray dtype is {dt.name} but Op is trying to write dtype {t.dtype.name} "
                )
            col.append(t)
    results = []
    for col, leaf, dt in zip(columns, leaves, dtypes):
        if col:
            results.append(stack(col))
        elif isinstance(leaf, TensorSpec) and leaf.shape.is_fully_defined():
            results.append(zeros([0, *leaf.shape], dtype=dt))
        else:
            results.append(zeros([0], dtype=dt))
    if not _nest.is_nested(out_structure):
        return results[0]
    return _nest.pack_sequence_as(out_structure, results)


def vectorized_map(fn: Callable[[Any], Any], elems: Any, fallback_to_while_loop: bool = True, warn: bool = True) -> Any:
    """``tf.vectorized_map``: `fn` over the elements of `elems` along axis 0, results stacked.

    tapers runs this as a loop over the elements (what TensorFlow falls back to when it
    cannot vectorize), so the results are TensorFlow's and gradients flow through, but
    there is no speed-up over ``map_fn``.

    Parameters
    ----------
    fn : callable
        Takes one element (with `elems`' structure).
    elems : tensor or nested structure of tensors
        All with the same first dimension, at least 1.
    fallback_to_while_loop, warn : bool
        Accepted for TensorFlow compatibility (tapers always loops).

    Returns
    -------
    The stacked results, in the structure and dtypes of `fn`'s results.
    """
    del fallback_to_while_loop, warn
    structure, flat, n = _unstacked(elems)
    if n == 0:
        raise ValueError("tapers.vectorized_map runs fn per element and needs at least one element; got 0")
    outs = [fn(_nest.pack_sequence_as(structure, [t[i] for t in flat])) for i in range(n)]
    first = outs[0]
    columns = list(zip(*[[_as_tensor(x) for x in _nest.flatten(o)] for o in outs]))
    stacked = [stack(list(c)) for c in columns]
    if not isinstance(first, (list, tuple, dict)):
        return stacked[0]
    return _nest.pack_sequence_as(first, stacked)


def meshgrid(*args: Any, **kwargs: Any) -> list[Tensor]:
    """Coordinate grids from 1-D coordinate vectors (``tf.meshgrid``), differentiable.

    Parameters
    ----------
    *args : tensors
        N coordinate vectors (any shape; flattened).
    indexing : {"xy", "ij"}, default "xy"
        ``"xy"`` (Cartesian) swaps the first two output axes; ``"ij"`` (matrix) does not.

    Returns
    -------
    list of N tensors, each of shape ``(len(args[1]), len(args[0]), ...)`` for ``"xy"``
    or ``(len(args[0]), len(args[1]), ...)`` for ``"ij"``.
    """
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        key = next(iter(kwargs))
        raise TypeError(f"'{key}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'")
    vectors = [reshape(_as_tensor(a), [-1]) for a in args]
    k = len(vectors)
    sizes = [v.shape[0] for v in vectors]
    out_shape = list(sizes)
    if indexing == "xy" and k > 1:
        out_shape[0], out_shape[1] = out_shape[1], out_shape[0]
    grids = []
    for i, v in enumerate(vectors):
        axis = i
        if indexing == "xy" and k > 1 and i < 2:
            axis = 1 - i
        shape = [1] * k
        shape[axis] = -1
        grids.append(broadcast_to(reshape(v, shape), out_shape))
    return grids


def _touts(Tout: Any) -> tuple[bool, list[DType]]:  # noqa: N803 - TensorFlow's name
    single = not isinstance(Tout, (list, tuple))
    return single, [as_dtype(Tout)] if single else [as_dtype(d) for d in Tout]


def _outputs(out: Any, single: bool, n: int) -> list[Any]:
    if single:
        return [out]
    outs = [] if out is None else list(out) if isinstance(out, (list, tuple)) else [out]
    if len(outs) != n:
        raise InvalidArgumentError(None, None, f"The function returned {len(outs)} values, but Tout lists {n}")
    return outs


def py_function(func: Callable[..., Any], inp: Any = None, Tout: Any = None, name: str | None = None) -> Any:  # noqa: N803 - TensorFlow's name
    """Calls ``func`` on the tensors ``inp`` and returns its results as tensors of the
    dtypes ``Tout`` (``tf.py_function``).

    Eagerly, as TensorFlow's: ``func`` runs now, its ops are recorded on the active
    tapes (gradients flow through it), and a result of another dtype than ``Tout``
    asks raises ``InvalidArgumentError``. Inside ``tapers.function`` the body is traced
    with the rest of the function: its tensor ops replay at each call, while its Python
    side effects run when tracing only (TensorFlow calls ``func`` at every call).

    Parameters
    ----------
    func : callable
        Takes ``len(inp)`` tensors.
    inp : list, optional
        Tensors (or values converted to tensors).
    Tout : DType or list of DType
        The result's dtype, or a list of them (then a list is returned).
    name : str, optional
        Ignored (TensorFlow's op name).

    Returns
    -------
    Tensor or list of Tensor
    """
    single, touts = _touts(Tout)
    out = func(*[_as_tensor(x) for x in inp or []])
    try:
        return_ = [convert_to_tensor(v, dtype=d) for v, d in zip(_outputs(out, single, len(touts)), touts)]
    except (TypeError, ValueError) as e:
        raise InvalidArgumentError(None, None, f"{type(e).__name__}: {e}") from None
    return return_[0] if single else return_


def numpy_function(
    func: Callable[..., Any],
    inp: Any,
    Tout: Any,  # noqa: N803 - TensorFlow's name
    stateful: bool = True,
    name: str | None = None,
) -> Any:
    """Calls ``func`` on numpy arrays of ``inp`` and returns its results as tensors of the
    dtypes ``Tout`` (``tf.numpy_function``; no gradient flows through it).

    Inside ``tapers.function`` the inputs are read into numpy while tracing, which is a
    guard (a call with other input values traces again; see ``tapers.function``).

    Parameters
    ----------
    func : callable
        Takes ``len(inp)`` numpy arrays, returns arrays or numbers.
    inp : list
        Tensors, Variables or values numpy converts.
    Tout : DType or list of DType
        The result's dtype (each result is converted to it), or a list of them.
    stateful : bool, default True
        Accepted (TensorFlow's).
    name : str, optional
        Ignored (TensorFlow's op name).

    Returns
    -------
    Tensor or list of Tensor
    """
    import numpy as np

    single, touts = _touts(Tout)
    # Tensors as their values; Python values as numpy makes them (2 is int64), as TF's.
    out = func(*[np.asarray(x.read_value() if isinstance(x, Variable) else x) for x in inp])
    outs = _outputs(out, single, len(touts))
    return_ = [convert_to_tensor(np.asarray(v, dtype=d.as_numpy_dtype)) for v, d in zip(outs, touts)]
    return return_[0] if single else return_
