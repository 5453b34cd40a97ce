"""The rest of ``tf.math``'s non-elementwise surface, as compositions of public ops.

Each function is TensorFlow's definition written with tapers' ops (so its
gradient follows from theirs, and equals TensorFlow's registered gradient), or,
where the result is an integer or boolean tensor with no gradient, computed on
the index arrays with numpy. Segment reductions that the core has no kernel for
(``segment_max/min/prod``, ``unsorted_segment_min/prod``) lay each segment's
rows out in a padded ``[num_segments, longest, ...]`` block with ``scatter_nd``
and reduce its second axis: ``reduce_max``/``reduce_min`` split a tie's
gradient evenly and ``reduce_prod`` gives each element the product of the
others, which are TensorFlow's segment gradients.
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


def _segment_layout(ids: np.ndarray, num_segments: int) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """For each row with a valid id (``0 <= id < num_segments``), its ``[segment, position]`` in a
    padded block; also the rows kept, the longest segment, and each segment's count."""
    keep = ids >= 0
    kept = ids[keep]
    counts = np.bincount(kept, minlength=num_segments)[:num_segments] if kept.size else np.zeros(num_segments, int)
    # Each row's rank within its segment, in row order (a stable sort groups the segments).
    order = np.argsort(kept, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    pos = np.empty(kept.shape[0], dtype=np.int64)
    pos[order] = np.arange(kept.shape[0], dtype=np.int64) - starts[kept[order]]
    longest = int(counts.max()) if counts.size else 0
    return np.stack([kept.astype(np.int64), pos], axis=1), keep, longest, counts


def _segment_reduce(data: Tensor, ids: np.ndarray, num_segments: int, kind: str, op: str) -> Tensor:
    """``kind`` in ``max``/``min``/``prod`` over each segment; empty segments get TensorFlow's
    identity (lowest/highest value, or 1)."""
    k = ids.ndim
    rest = [int(d) for d in data.shape[k:]]
    flat = _core.reshape(data, [-1, *rest])
    flat_ids = ids.reshape(-1)
    if flat_ids.size and flat_ids.max() >= num_segments:
        bad = int(flat_ids.max())
        raise errors.InvalidArgumentError(
            f"segment_ids[{int(np.argmax(flat_ids))}] = {bad} is out of range [0, {num_segments}) [Op:{op}]"
        )
    where_idx, keep, longest, counts = _segment_layout(flat_ids, num_segments)
    dt = as_dtype(data.dtype)
    if kind == "prod":
        pad: Any = 1
    elif dt.is_floating:
        pad = float("-inf") if kind == "max" else float("inf")
    else:
        pad = dt.min if kind == "max" else dt.max
    width = max(longest, 1)
    rows = flat if keep.all() else _core.boolean_mask(flat, _core.constant(keep))
    block = _core.scatter_nd(_core.constant(where_idx), rows, [num_segments, width, *rest])
    filled = np.zeros((num_segments, width), dtype=bool)
    if where_idx.size:
        filled[where_idx[:, 0], where_idx[:, 1]] = True
    mask = _core.constant(filled.reshape(filled.shape + (1,) * len(rest)))
    block = _core.where(mask, block, _core.fill([num_segments, width, *rest], _core.constant(pad, dtype=data.dtype)))
    reduce = {"max": _core.reduce_max, "min": _core.reduce_min, "prod": _core.reduce_prod}[kind]
    out = reduce(block, 1)
    if kind != "prod" and dt.is_floating:
        # TF's empty segments hold the dtype's lowest (max) or highest (min) finite value.
        lim = dt.min if kind == "max" else dt.max
        empty = _core.constant((counts == 0).reshape((num_segments,) + (1,) * len(rest)))
        out = _core.where(empty, _core.fill(list(out.shape), _core.constant(lim, dtype=data.dtype)), out)
    return out


def _ids(segment_ids: Any, data: Tensor, op: str) -> np.ndarray:
    t = _t(segment_ids)
    if as_dtype(t.dtype).name not in ("int32", "int64", "int16", "int8", "uint8", "uint16"):
        raise TypeError(f"Value passed to parameter 'segment_ids' has DataType {as_dtype(t.dtype).name} not in list")
    a = np.asarray(t).astype(np.int64)
    if tuple(a.shape) != tuple(data.shape[: a.ndim]):
        raise errors.InvalidArgumentError(
            f"data.shape = {list(data.shape)} does not start with segment_ids.shape = {list(a.shape)} [Op:{op}]"
        )
    return a


def _sorted_ids(segment_ids: Any, data: Tensor, op: str) -> np.ndarray:
    a = np.asarray(_t(segment_ids)).astype(np.int64)
    if a.ndim != 1:
        raise errors.InvalidArgumentError(f"segment_ids should be a vector. [Op:{op}]")
    if a.shape[0] != (data.shape[0] if len(data.shape) else -1):
        raise errors.InvalidArgumentError(f"segment_ids should be the same size as dimension 0 of input. [Op:{op}]")
    if a.size and (a.min() < 0 or np.any(a[1:] < a[:-1])):
        raise errors.InvalidArgumentError(f"segment ids are not increasing [Op:{op}]")
    return a


def _sorted_segment(data: Any, segment_ids: Any, kind: str, op: str) -> Tensor:
    d = _t(data)
    ids = _sorted_ids(segment_ids, d, op)
    n = int(ids[-1]) + 1 if ids.size else 0
    out = _segment_reduce(d, ids, n, kind, op)
    if kind == "prod":
        return out
    # Sorted segment max/min give 0 for an empty segment (the unsorted ones the dtype's limit).
    counts = np.bincount(ids, minlength=n)
    empty = _core.constant((counts == 0).reshape((n,) + (1,) * (len(out.shape) - 1)))
    return _core.where(empty, _core.zeros_like(out), out)


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
    return _sorted_segment(data, segment_ids, "max", "SegmentMax")


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
    return _sorted_segment(data, segment_ids, "min", "SegmentMin")


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
    return _sorted_segment(data, segment_ids, "prod", "SegmentProd")


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
    ids = _sorted_ids(segment_ids, d, "SegmentMean")
    n = int(ids[-1]) + 1 if ids.size else 0
    total = _core.math.unsorted_segment_sum(d, _core.constant(ids), n)
    counts = np.maximum(np.bincount(ids, minlength=n), 1).reshape((n,) + (1,) * (len(d.shape) - 1))
    return total / _core.constant(counts.astype(np.asarray(total).dtype))


def _unsorted(data: Any, segment_ids: Any, num_segments: Any, kind: str, op: str) -> Tensor:
    d = _t(data)
    ids = _ids(segment_ids, d, op)
    return _segment_reduce(d, ids, int(np.asarray(_t(num_segments))), kind, op)


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
    ids = _ids(segment_ids, d, "UnsortedSegmentSum")
    n = int(np.asarray(_t(num_segments)))
    total = _core.math.unsorted_segment_sum(d, segment_ids, n)
    kept = ids.reshape(-1)
    kept = kept[kept >= 0]
    counts = np.maximum(np.bincount(kept, minlength=n)[:n], 1).astype(np.float64)
    # TF counts one per id, so a multi-axis id array counts each entry once.
    scale = np.sqrt(counts).reshape((n,) + (1,) * (len(total.shape) - 1))
    return total / _core.constant(scale.astype(np.asarray(total).dtype))
