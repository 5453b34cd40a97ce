"""The rest of ``tf.math``'s non-elementwise surface, as compositions of public ops.

Each function is TensorFlow's definition written with tapers' ops (so its
gradient follows from theirs, and equals TensorFlow's registered gradient), or,
where the result is an integer or boolean tensor with no gradient, computed on
the index arrays with numpy. The segment reductions the core has no kernel for
never read their ids into Python, so inside ``tapers.function`` their graphs
replay with each call's ids (no guard), and value checks are assertion nodes
that raise TensorFlow's message at every call: ``segment_max/min`` and
``unsorted_segment_min`` are ``unsorted_segment_max`` (of ``-x``, or ``-1 - x``
for integers, which cannot overflow), whose gradient splits a tie evenly as
TensorFlow's; ``segment_prod``/``unsorted_segment_prod`` lay each segment's rows
out in a block padded with ones (ranks from a stable sort) and reduce it
with ``reduce_prod`` in row order, TensorFlow's order; ``segment_mean`` and
``unsorted_segment_sqrt_n`` divide sums by counts. A sorted op's result length
(the last id + 1) comes from ``segment_sum``, a shape a trace guards on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _core, errors
from ._core import Tensor
from .dtypes import as_dtype


def _t(x: Any, dtype_hint: Any = None) -> Tensor:
    if dtype_hint is None:
        return _core.convert_to_tensor(x)
    return _core.convert_to_tensor(x, dtype_hint=dtype_hint)


def count_nonzero(
    input: Any, axis: Any = None, keepdims: bool | None = None, dtype: Any = "int64", name: Any = None
) -> Tensor:
    """Number of nonzero elements over ``axis`` (``tf.math.count_nonzero``).

    ``input`` may be numeric or bool (``False`` counts as zero). The count is
    ``dtype`` (int64 by default), and has no gradient.

    Parameters
    ----------
    input : Tensor-like
        Numeric or bool values.
    axis : int or sequence of int, optional
        Axes reduced; all when None (negative counts from the end).
    keepdims : bool, optional
        Keep the reduced axes with length 1.
    dtype : DType
        The count's dtype (int64 by default).
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        Counts of ``dtype``; no gradient.
    """
    x = _t(input)
    zero = _core.zeros_like(x)
    nonzero = _core.not_equal(x, zero)
    return _core.reduce_sum(_core.cast(nonzero, dtype), axis, keepdims=bool(keepdims))


def reduce_euclidean_norm(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: Any = None) -> Tensor:
    """``sqrt(sum(x**2))`` over ``axis`` (``tf.math.reduce_euclidean_norm``).

    Floating inputs are differentiable (``x / norm``, NaN at a zero norm, as
    TensorFlow's gradient). Integer inputs give TensorFlow's integer result: the
    square root of the integer sum of squares, truncated.

    Parameters
    ----------
    input_tensor : Tensor-like
        Numeric values.
    axis : int or sequence of int, optional
        Axes reduced; all when None (negative counts from the end).
    keepdims : bool
        Keep the reduced axes with length 1.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        The norms, of the input's dtype.
    """
    x = _t(input_tensor)
    dt = as_dtype(x.dtype)
    if dt.is_integer:
        sq = _core.cast(_core.reduce_sum(x * x, axis, keepdims=bool(keepdims)), "float64")
        return _core.cast(_core.sqrt(sq), x.dtype)
    return _core.sqrt(_core.reduce_sum(x * x, axis, keepdims=bool(keepdims)))


def scalar_mul(scalar: Any, x: Any, name: Any = None) -> Tensor:
    """Multiplies ``x`` by a scalar (``tf.math.scalar_mul``).

    Raises ``ValueError`` ("The input scalar must be a 0-D value. ...") when
    ``scalar`` is not a scalar, as TensorFlow.

    Parameters
    ----------
    scalar : scalar Tensor-like
        Converted to ``x``'s dtype (a Python float into an int tensor is a TypeError).
    x : Tensor-like
        The input.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``scalar * x``, of ``x``'s dtype, differentiable in both.
    """
    xt = _t(x)
    s = _core.convert_to_tensor(scalar, dtype=xt.dtype)
    if len(s.shape) != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape {_shape_str(s.shape)}.")
    return s * xt


def _shape_str(shape: Sequence[int]) -> str:
    return "(" + ", ".join(str(int(d)) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def zero_fraction(value: Any, name: Any = None) -> Tensor:
    """Fraction of zeros in ``value``, a float32 scalar (``tf.math.zero_fraction``).

    Parameters
    ----------
    value : Tensor-like
        Numeric values.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        A float32 scalar in ``[0, 1]``.
    """
    x = _t(value)
    return _core.reduce_mean(_core.cast(_core.equal(x, _core.zeros_like(x)), "float32"))


def accumulate_n(inputs: Any, shape: Any = None, tensor_dtype: Any = None, name: Any = None) -> Tensor:
    """Elementwise sum of a list of same-shape tensors (``tf.math.accumulate_n``).

    Raises ``ValueError`` for an empty list, mixed shapes, or a ``shape`` /
    ``tensor_dtype`` that disagrees with the inputs, as TensorFlow.

    Parameters
    ----------
    inputs : list of Tensor-like
        Same shape and dtype.
    shape : sequence of int, optional
        Checked against the inputs' shape.
    tensor_dtype : DType, optional
        Checked against the inputs' dtype.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        The sum, differentiable in each input.
    """
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("inputs must be a list of at least one Tensor/IndexedSlices with the same dtype and shape")
    ts = [_t(x) for x in inputs]
    for t in ts[1:]:
        if tuple(t.shape) != tuple(ts[0].shape):
            raise ValueError(f"Shapes {_shape_str(ts[0].shape)} and {_shape_str(t.shape)} are not compatible")
        if t.dtype != ts[0].dtype:
            raise ValueError("inputs must be a list of at least one Tensor/IndexedSlices with the same dtype and shape")
    if shape is not None and tuple(int(d) for d in shape) != tuple(ts[0].shape):
        raise ValueError(f"Shapes {_shape_str(ts[0].shape)} and {_shape_str(list(shape))} are incompatible")
    if tensor_dtype is not None and as_dtype(tensor_dtype) != as_dtype(ts[0].dtype):
        raise TypeError(f"tensor_dtype is {as_dtype(tensor_dtype)!r}, but input is of type {as_dtype(ts[0].dtype)!r}")
    return _core.add_n(ts)


def polyval(coeffs: Any, x: Any, name: Any = None) -> Tensor:
    """Evaluates the polynomial ``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` by Horner's rule
    (``tf.math.polyval``); an empty ``coeffs`` gives zeros like ``x``.

    Parameters
    ----------
    coeffs : list of Tensor-like
        Coefficients, highest power first (a list, as TensorFlow requires).
    x : Tensor-like
        Points; each coefficient broadcasts against it.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        The polynomial at ``x``, differentiable in ``x`` and every coefficient.
    """
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    xt = _t(x)
    if not coeffs:
        return _core.zeros_like(xt)
    p = _t(coeffs[0], dtype_hint=xt.dtype)
    for c in coeffs[1:]:
        p = _t(c, dtype_hint=xt.dtype) + p * xt
    return p


def invert_permutation(x: Any, name: Any = None) -> Tensor:
    """The inverse permutation ``y[x[i]] = i`` of a 1-D int32/int64 permutation.

    Parameters
    ----------
    x : int32/int64 Tensor-like
        A permutation of ``0..n-1``; others raise ``InvalidArgumentError``.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        The inverse permutation, of ``x``'s dtype.
    """
    xt = _t(x)
    dt = as_dtype(xt.dtype)
    if dt.name not in ("int32", "int64"):
        raise errors.NotFoundError(
            "Could not find device for node: {{node InvertPermutation}} = "
            f"InvertPermutation[T=DT_{dt.name.upper()}]"
        )
    a = np.asarray(xt)
    if a.ndim != 1:
        raise errors.InvalidArgumentError("invert_permutation expects a 1D vector. [Op:InvertPermutation]")
    n = a.shape[0]
    bad = np.nonzero((a < 0) | (a >= n))[0]
    if bad.size:
        raise errors.InvalidArgumentError(f"{int(a[bad[0]])} is not between 0 and {n} [Op:InvertPermutation]")
    out = np.full(n, -1, dtype=a.dtype)
    out[a[::-1]] = np.arange(n, dtype=a.dtype)[::-1]  # the first occurrence wins
    if n and np.any(out < 0):
        seen = np.zeros(n, dtype=bool)
        for d in a.tolist():  # only reached for a bad input: name the first duplicate, as TF
            if seen[d]:
                raise errors.InvalidArgumentError(f"{d} is duplicated in the input. [Op:InvertPermutation]")
            seen[d] = True
    return _core.constant(out)


def is_non_decreasing(x: Any, name: Any = None) -> Tensor:
    """Whether ``x``, flattened, is non-decreasing (a bool scalar; True when it has < 2 elements).

    Parameters
    ----------
    x : Tensor-like
        Numeric values, read in row-major order.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        A bool scalar.
    """
    a = np.asarray(_t(x)).reshape(-1)
    return _core.constant(bool(np.all(a[1:] >= a[:-1])))


def is_strictly_increasing(x: Any, name: Any = None) -> Tensor:
    """Whether ``x``, flattened, is strictly increasing (a bool scalar; True when it has < 2 elements).

    Parameters
    ----------
    x : Tensor-like
        Numeric values, read in row-major order.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        A bool scalar.
    """
    a = np.asarray(_t(x)).reshape(-1)
    return _core.constant(bool(np.all(a[1:] > a[:-1])))


def in_top_k(targets: Any, predictions: Any, k: Any, name: Any = None) -> Tensor:
    """Whether each row's ``targets`` class is among its ``k`` largest ``predictions``.

    ``predictions`` is ``[batch, classes]`` float32, ``targets`` ``[batch]``
    int32/int64. As TensorFlow's ``InTopKV2``: ties at the k-th value all count
    as in the top k, and a target out of range or with a non-finite prediction
    is False.

    Parameters
    ----------
    targets : int32/int64 Tensor-like
        ``[batch]`` class indices.
    predictions : Tensor-like
        ``[batch, classes]`` scores.
    k : int
        How many of the largest scores count.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[batch]`` bool.
    """
    p = _t(predictions)
    t = _t(targets)
    pa, ta = np.asarray(p), np.asarray(t)
    if pa.ndim != 2:
        raise errors.InvalidArgumentError("predictions must be 2-dimensional [Op:InTopKV2]")
    if ta.ndim != 1:
        raise errors.InvalidArgumentError("targets must be 1-dimensional [Op:InTopKV2]")
    if pa.shape[0] != ta.shape[0]:
        raise errors.InvalidArgumentError(
            f"First dimension of predictions {pa.shape[0]} must match length of targets {ta.shape[0]} [Op:InTopKV2]"
        )
    kk = int(np.asarray(_t(k)))
    rows = np.arange(ta.shape[0])
    valid = (ta >= 0) & (ta < pa.shape[1])
    target = pa[rows, np.where(valid, ta, 0)] if pa.shape[1] else np.zeros(ta.shape[0], pa.dtype)
    above = np.sum(pa > target[:, None], axis=1)
    out = valid & np.isfinite(target) & (above < kk)
    return _core.constant(out)


def confusion_matrix(
    labels: Any,
    predictions: Any,
    num_classes: Any = None,
    weights: Any = None,
    dtype: Any = "int32",
    name: Any = None,
) -> Tensor:
    """``[num_classes, num_classes]`` counts (or summed ``weights``) of (label, prediction) pairs.

    As ``tf.math.confusion_matrix``: ``num_classes`` defaults to the largest
    label or prediction plus one; negative values or values ``>= num_classes``
    raise ``InvalidArgumentError``. ``weights`` enter through ``scatter_nd``, so
    a float result is differentiable in them.

    Parameters
    ----------
    labels : int Tensor-like
        1-D true classes.
    predictions : int Tensor-like
        1-D predicted classes, as long as ``labels``.
    num_classes : int, optional
        The matrix size; the largest value plus one when None.
    weights : Tensor-like, optional
        One weight per pair (default 1).
    dtype : DType
        The result's dtype (int32 by default).
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[num_classes, num_classes]`` of ``dtype``: row = label, column = prediction.
    """
    la = np.asarray(_t(labels)).astype(np.int64).reshape(-1)
    pa = np.asarray(_t(predictions)).astype(np.int64).reshape(-1)
    if la.shape != pa.shape:
        raise errors.InvalidArgumentError(
            f"Shapes of all inputs must match: values[0].shape = [{la.shape[0]}] != values[1].shape = "
            f"[{pa.shape[0]}] [Op:Pack]"
        )
    if la.size and la.min() < 0:
        raise errors.InvalidArgumentError("`labels` contains negative values.")
    if pa.size and pa.min() < 0:
        raise errors.InvalidArgumentError("`predictions` contains negative values.")
    if num_classes is None:
        n = int(max(la.max(initial=-1), pa.max(initial=-1))) + 1
    else:
        n = int(np.asarray(_t(num_classes)))
        if la.size and la.max() >= n:
            raise errors.InvalidArgumentError("`labels` out of bound.")
        if pa.size and pa.max() >= n:
            raise errors.InvalidArgumentError("`predictions` out of bound.")
    idx = np.stack([la, pa], axis=1) if la.size else np.zeros((0, 2), np.int64)
    if weights is None:
        vals = _core.ones([la.shape[0]], dtype=dtype)
    else:
        vals = _core.cast(_core.reshape(_t(weights), [-1]), dtype)
    return _core.scatter_nd(_core.constant(idx), vals, [n, n])


# ---------------------------------------------------------------------------------------------- segments


# Rows per block in the padded layout of a segment product that needs no guard (see ``_prod``).
_PROD_BLOCK_LIMIT = 1 << 22


def _check(condition: Tensor, fail: Any, data: list[Tensor]) -> None:
    """Raises through ``fail(values)`` unless ``condition`` holds everywhere. Inside a
    ``tapers.function`` trace it is a node that checks each call's values (no guard)."""
    from .debugging import _check as check

    check(condition, fail, data)


def _ids(segment_ids: Any, data: Tensor, op: str) -> Tensor:
    """``segment_ids`` as an int32/int64 tensor whose shape starts ``data``'s (not read into Python)."""
    t = _t(segment_ids)
    name = as_dtype(t.dtype).name
    if name not in ("int32", "int64", "int16", "int8", "uint8", "uint16"):
        raise TypeError(f"Value passed to parameter 'segment_ids' has DataType {name} not in list")
    shape = [int(v) for v in t.shape]
    if shape != [int(v) for v in data.shape[: len(shape)]]:
        raise errors.InvalidArgumentError(
            f"data.shape = {list(data.shape)} does not start with segment_ids.shape = {shape} [Op:{op}]"
        )
    return t if name in ("int32", "int64") else _core.cast(t, "int64")


def _num_segments(num_segments: Any) -> int:
    # The result's shape: a tensor here is read into Python (a guard inside `tapers.function`).
    return int(np.asarray(_t(num_segments)))


def _check_below(ids: Tensor, n: int, op: str) -> None:
    """TensorFlow's check that no segment id is ``>= n`` (negative ids drop their rows)."""
    if not int(np.prod(ids.shape)):
        return

    def fail(values: list[Tensor]) -> Any:
        a = np.asarray(values[0]).astype(np.int64)
        flat = int(np.nonzero(a.reshape(-1) >= n)[0][0])
        where = ",".join(str(int(v)) for v in np.unravel_index(flat, a.shape))
        raise errors.InvalidArgumentError(
            f"segment_ids[{where}] = {int(a.reshape(-1)[flat])} is out of range [0, {n}) [Op:{op}]"
        )

    _check(_core.reduce_all(_core.math.less(ids, _core.constant(n, dtype=ids.dtype))), fail, [ids])


def _sorted_ids(segment_ids: Any, data: Tensor, op: str) -> tuple[Tensor, Tensor]:
    """The checked ids of a sorted segment op, and each segment's row count (int32, ``[n]``).

    The count comes from ``segment_sum``, whose result's length (the last id + 1) is the
    only value a ``tapers.function`` trace guards on."""
    t = _t(segment_ids)
    name = as_dtype(t.dtype).name
    if not as_dtype(t.dtype).is_integer:
        raise TypeError(f"Value passed to parameter 'segment_ids' has DataType {name} not in list")
    if len(t.shape) != 1:
        raise errors.InvalidArgumentError(f"segment_ids should be a vector. [Op:{op}]")
    rows = int(t.shape[0])
    if rows != (int(data.shape[0]) if len(data.shape) else -1):
        raise errors.InvalidArgumentError(f"segment_ids should be the same size as dimension 0 of input. [Op:{op}]")
    ids = t if name in ("int32", "int64") else _core.cast(t, "int64")
    if rows:

        def fail(values: list[Tensor]) -> Any:
            # TensorFlow's SegmentReductionOp walk, for its first failing check's message.
            a = np.asarray(values[0]).astype(np.int64)
            out_rows = int(a[-1]) + 1
            if out_rows < 0:
                raise errors.InvalidArgumentError(f"segment ids must be >= 0 [Op:{op}]")
            msg = "segment ids are not increasing"
            end, out = 1, int(a[0])
            while end <= a.shape[0]:
                nxt = 0
                if end < a.shape[0]:
                    nxt = int(a[end])
                    if nxt == out:
                        end += 1
                        continue
                    if out >= nxt:
                        break
                if not 0 <= out < out_rows:
                    msg = (
                        f"Segment id {out} out of range [0, {out_rows}), possibly because 'segment_ids' input "
                        "is not sorted."
                    )
                    break
                end, out = end + 1, nxt
            raise errors.InvalidArgumentError(f"{msg} [Op:{op}]")

        ok = _core.math.greater_equal(ids[0], _core.constant(0, dtype=ids.dtype))
        if rows > 1:
            ok = _core.math.logical_and(ok, _core.reduce_all(_core.math.greater_equal(ids[1:], ids[:-1])))
        _check(ok, fail, [ids])
    return ids, _core.math.segment_sum(_core.ones([rows], "int32"), ids)


def _flip(x: Tensor) -> Tensor:
    """An order-reversing involution that cannot overflow: ``-x`` for floats, ``-1 - x`` for
    signed and ``max - x`` for unsigned integers (``-x`` would overflow the lowest integer)."""
    dt = as_dtype(x.dtype)
    if dt.is_floating:
        return _core.math.negative(x)
    return _core.math.subtract(_core.constant(-1 if not dt.is_unsigned else dt.max, dtype=x.dtype), x)


def _real(d: Tensor, op: str, complex_ok: bool = False) -> None:
    """TensorFlow's dtype check: real numbers (and complex ones for products)."""
    dt = as_dtype(d.dtype)
    if not (dt.is_floating or dt.is_integer or (complex_ok and dt.is_complex)) or dt.name == "bool":
        raise errors.InvalidArgumentError(
            f"Value for attr 'T' of {dt.name} is not in the list of allowed values for {op} [Op:{op}]"
        )


def _extreme(data: Tensor, ids: Tensor, n: int, kind: str, counts: Tensor | None = None) -> Tensor:
    """``unsorted_segment_max`` (``kind="max"``) or min (through :func:`_flip`). With ``counts``
    (each segment's rows, ``[n]``), a segment of only infinities (the identity) keeps it, as
    the sorted ops do, where ``unsorted_segment_max`` holds the lowest finite value."""
    x = _flip(data) if kind == "min" else data
    out = _core.math.unsorted_segment_max(x, ids, n)
    if counts is not None and as_dtype(data.dtype).is_floating:
        shape = [n] + [1] * (len(out.shape) - 1)
        c = _core.reshape(counts, shape)
        low = _core.constant(float("-inf"), dtype=x.dtype)
        ninf = _core.math.unsorted_segment_sum(_core.cast(_core.math.equal(x, low), "int32"), ids, n)
        only = _core.math.logical_and(_core.math.equal(ninf, c), _core.math.greater(c, 0))
        out = _core.where(only, low, out)
    return _flip(out) if kind == "min" else out


def _prod(data: Tensor, ids: Tensor, n: int) -> Tensor:
    """The product of each segment's rows in row order (empty segments 1), as TensorFlow's kernel
    multiplies them: each row goes to ``[segment, rank in its segment]`` of a block padded with
    ones, reduced over its second axis (``reduce_prod``'s gradient, each element's product of the
    others, is TensorFlow's). Ranks come from a stable sort by segment, so the layout follows each
    call's ids. The block is ``rows`` wide (no guard) unless that exceeds ``_PROD_BLOCK_LIMIT`` elements;
    then it is as wide as the longest segment, a value a ``tapers.function`` trace guards on."""
    k = len(ids.shape)
    rest = [int(v) for v in data.shape[k:]]
    flat = _core.reshape(data, [-1, *rest])
    rows = int(flat.shape[0])
    fid = _core.cast(_core.reshape(ids, [-1]), "int64")
    # Dropped rows (negative ids) go to a spare segment n, cut off at the end.
    sid = _core.where(_core.math.less(fid, 0), _core.constant(n, dtype="int64"), fid)
    # Each row's rank in its segment: its place in a stable sort by segment, less its segment's start.
    counts = _core.math.unsorted_segment_sum(_core.ones([rows], "int64"), sid, n + 1)
    order = _core.argsort(sid, stable=True)
    sorted_sid = _core.gather(sid, order)
    starts = _core.math.cumsum(counts, exclusive=True)
    ranked = _core.range(rows, dtype="int64") - _core.gather(starts, sorted_sid)
    rank = _core.scatter_nd(_core.reshape(_core.cast(order, "int64"), [rows, 1]), ranked, [rows])
    size = int(np.prod(rest)) if rest else 1
    width = rows
    if (n + 1) * rows * size > _PROD_BLOCK_LIMIT:
        # The longest segment, as the length of a mask's true count: a shape a trace guards on
        # where the op runs, so a replay with a longer segment traces again before scattering.
        r = _core.range(rows, dtype="int64")
        width = int(_core.boolean_mask(r, _core.math.less(r, _core.reduce_max(counts))).shape[0])
    width = max(width, 1)
    where_idx = _core.stack([sid, rank], 1)
    block = _core.scatter_nd(where_idx, flat, [n + 1, width, *rest])
    filled = _core.scatter_nd(where_idx, _core.ones([rows], "int32"), [n + 1, width])
    filled = _core.reshape(_core.math.greater(filled, 0), [n + 1, width] + [1] * len(rest))
    block = _core.where(filled, block, _core.constant(1, dtype=data.dtype))
    return _core.reduce_prod(block, 1)[:n]


def _sorted_extreme(data: Any, segment_ids: Any, kind: str, op: str) -> Tensor:
    d = _t(data)
    _real(d, op)
    ids, counts = _sorted_ids(segment_ids, d, op)
    n = int(counts.shape[0])
    out = _extreme(d, ids, n, kind, counts)
    # Sorted segment max/min give 0 for an empty segment (the unsorted ones the dtype's limit).
    empty = _core.reshape(_core.math.equal(counts, 0), [n] + [1] * (len(out.shape) - 1))
    return _core.where(empty, _core.constant(0, dtype=d.dtype), out)


def segment_max(data: Any, segment_ids: Any, name: Any = None) -> Tensor:
    """Maximum of each segment of rows (``tf.math.segment_max``); ids sorted, non-negative.

    Empty segments are 0. The gradient is split evenly between a segment's tied maxima, as TF.

    Parameters
    ----------
    data : Tensor-like
        The rows.
    segment_ids : int Tensor-like
        1-D, sorted, non-negative, one per row of ``data``.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[segment_ids[-1] + 1, *data.shape[1:]]``.
    """
    return _sorted_extreme(data, segment_ids, "max", "SegmentMax")


def segment_min(data: Any, segment_ids: Any, name: Any = None) -> Tensor:
    """Minimum of each segment of rows (``tf.math.segment_min``); as :func:`segment_max`.

    Parameters
    ----------
    data : Tensor-like
        The rows.
    segment_ids : int Tensor-like
        1-D, sorted, non-negative, one per row of ``data``.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[segment_ids[-1] + 1, *data.shape[1:]]``.
    """
    return _sorted_extreme(data, segment_ids, "min", "SegmentMin")


def segment_prod(data: Any, segment_ids: Any, name: Any = None) -> Tensor:
    """Product of each segment of rows (``tf.math.segment_prod``); empty segments are 1.

    Parameters
    ----------
    data : Tensor-like
        The rows.
    segment_ids : int Tensor-like
        1-D, sorted, non-negative, one per row of ``data``.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[segment_ids[-1] + 1, *data.shape[1:]]``; each element's gradient is the product of the others.
    """
    d = _t(data)
    _real(d, "SegmentProd", complex_ok=True)
    ids, counts = _sorted_ids(segment_ids, d, "SegmentProd")
    return _prod(d, ids, int(counts.shape[0]))


def segment_mean(data: Any, segment_ids: Any, name: Any = None) -> Tensor:
    """Mean of each segment of rows (``tf.math.segment_mean``); empty segments are 0.

    Parameters
    ----------
    data : Tensor-like
        The rows.
    segment_ids : int Tensor-like
        1-D, sorted, non-negative, one per row of ``data``.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[segment_ids[-1] + 1, *data.shape[1:]]``, floating.
    """
    d = _t(data)
    ids, counts = _sorted_ids(segment_ids, d, "SegmentMean")
    n = int(counts.shape[0])
    total = _core.math.unsorted_segment_sum(d, ids, n)
    den = _core.reshape(_core.math.maximum(counts, 1), [n] + [1] * (len(d.shape) - 1))
    if as_dtype(d.dtype).is_integer:
        # TensorFlow's integer mean divides with C++'s truncation.
        return _core.truncatediv(total, _core.cast(den, d.dtype))
    return total / _core.cast(den, d.dtype)


def _unsorted(data: Any, segment_ids: Any, num_segments: Any, kind: str, op: str) -> Tensor:
    d = _t(data)
    ids = _ids(segment_ids, d, op)
    n = _num_segments(num_segments)
    _real(d, op, complex_ok=kind == "prod")
    _check_below(ids, n, op)
    return _prod(d, ids, n) if kind == "prod" else _extreme(d, ids, n, kind)


def unsorted_segment_min(data: Any, segment_ids: Any, num_segments: Any, name: Any = None) -> Tensor:
    """Minimum of the rows of each segment (``tf.math.unsorted_segment_min``).

    Negative ids drop their rows; empty segments hold the dtype's largest value;
    the gradient is split evenly between tied minima, as TensorFlow's.

    Parameters
    ----------
    data : Tensor-like
        The rows; its leading dims are ``segment_ids``' shape.
    segment_ids : int Tensor-like
        Each row's segment.
    num_segments : int or int scalar Tensor
        Segments in the result; ids outside ``[0, num_segments)`` raise, negative ids drop their rows.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[num_segments, *data.shape[segment_ids.ndim:]]``.
    """
    return _unsorted(data, segment_ids, num_segments, "min", "UnsortedSegmentMin")


def unsorted_segment_prod(data: Any, segment_ids: Any, num_segments: Any, name: Any = None) -> Tensor:
    """Product of the rows of each segment (``tf.math.unsorted_segment_prod``); empty segments are 1.

    Parameters
    ----------
    data : Tensor-like
        The rows; its leading dims are ``segment_ids``' shape.
    segment_ids : int Tensor-like
        Each row's segment.
    num_segments : int or int scalar Tensor
        Segments in the result; ids outside ``[0, num_segments)`` raise, negative ids drop their rows.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[num_segments, *data.shape[segment_ids.ndim:]]``.
    """
    return _unsorted(data, segment_ids, num_segments, "prod", "UnsortedSegmentProd")


def unsorted_segment_sqrt_n(data: Any, segment_ids: Any, num_segments: Any, name: Any = None) -> Tensor:
    """Sum of each segment divided by the square root of its row count
    (``tf.math.unsorted_segment_sqrt_n``); empty segments are 0.

    Parameters
    ----------
    data : Tensor-like
        The rows; its leading dims are ``segment_ids``' shape.
    segment_ids : int Tensor-like
        Each row's segment.
    num_segments : int or int scalar Tensor
        Segments in the result; ids outside ``[0, num_segments)`` raise, negative ids drop their rows.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[num_segments, *data.shape[segment_ids.ndim:]]``, floating.
    """
    d = _t(data)
    dt = as_dtype(d.dtype)
    ids = _ids(segment_ids, d, "UnsortedSegmentSum")
    if not (dt.is_floating or dt.is_complex):
        raise errors.InvalidArgumentError(
            f"Value for attr 'T' of {dt.name} is not in the list of allowed values: bfloat16, half, float, double, "
            "complex64, complex128 [Op:Sqrt]"
        )
    n = _num_segments(num_segments)
    _check_below(ids, n, "UnsortedSegmentSum")
    # Rows with negative ids go to a spare segment n, cut off (unsorted_segment_sum would guard on
    # how many rows it drops).
    spare = _core.where(_core.math.less(ids, 0), _core.constant(n, dtype=ids.dtype), ids)
    total = _core.math.unsorted_segment_sum(d, spare, n + 1)[:n]
    # TF counts one per id (a multi-axis id array counts each entry once); negative ids count nothing.
    counts = _core.math.unsorted_segment_sum(_core.ones(list(ids.shape), "float64"), spare, n + 1)[:n]
    scale = _core.math.sqrt(_core.math.maximum(counts, 1.0))
    return total / _core.cast(_core.reshape(scale, [n] + [1] * (len(total.shape) - 1)), d.dtype)
