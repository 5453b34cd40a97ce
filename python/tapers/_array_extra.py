"""TensorFlow's remaining top-level array and control helpers, over tapers' ops.

Slicing ops (``slice``, ``strided_slice``) become a ``Tensor.__getitem__``
key, so their gradient is the strided-slice gradient; data movement
(``reverse_sequence``...) is ``gather``/``boolean_mask``/``scatter`` with index
arrays computed by numpy, so gradients flow exactly as TensorFlow's. The ops
on index *tensors* (``tensor_scatter_nd_max/min/sub``, ``dynamic_partition``,
``dynamic_stitch``) never read the indices into Python: inside
``tapers.function`` they replay with each call's indices, checked by assertion
nodes, and only the shapes that depend on values (a partition's length, the
stitched length) are guarded, as ``boolean_mask``'s and ``bincount``'s. Control helpers that only matter in
TF graphs (``no_op``, ``group``, ``control_dependencies``, ``init_scope``)
behave as TensorFlow's do in eager mode.
"""

from __future__ import annotations

import builtins
import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from . import _complex, _core, _nest, errors
from ._core import Tensor, Variable
from ._custom import custom_gradient
from ._indexed_slices import IndexedSlices
from .dtypes import as_dtype


def _t(x: Any, dtype_hint: Any = None) -> Tensor:
    if dtype_hint is None:
        return _core.convert_to_tensor(x)
    return _core.convert_to_tensor(x, dtype_hint=dtype_hint)


def _ints(x: Any) -> list[int]:
    return [int(v) for v in np.asarray(_t(x)).reshape(-1)]


def slice(input_: Any, begin: Any, size: Any, name: Any = None) -> Tensor:  # noqa: A001
    """``size[i]`` elements of ``input_`` from ``begin[i]`` on each axis (``tf.slice``); a size
    of -1 takes the rest of the axis. Out-of-range boxes raise ``InvalidArgumentError``.

    Parameters
    ----------
    input_ : Tensor-like
        The input.
    begin : sequence of int
        Start on every axis.
    size : sequence of int
        Length on every axis; -1 for the rest of the axis.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        The box, a strided-slice view whose gradient scatters back into ``input_``'s shape.
    """
    x = _t(input_)
    b, s = _ints(begin), _ints(size)
    shape = [int(d) for d in x.shape]
    if len(b) != len(shape) or len(s) != len(shape):
        raise errors.InvalidArgumentError(
            f"Expected begin and size arguments to be 1-D tensors of size {len(shape)}, but got shapes "
            f"[{len(b)}] and [{len(s)}] instead. [Op:Slice]"
        )
    key = []
    for i, (bi, si, n) in enumerate(zip(b, s, shape)):
        si = n - bi if si == -1 else si
        if bi < 0 or si < 0 or bi + si > n:
            raise errors.InvalidArgumentError(
                f"Expected size[{i}] in [0, {n - bi}], but got {si} [Op:Slice]"
                if 0 <= bi <= n
                else f"Expected begin[{i}] in [0, {n}], but got {bi} [Op:Slice]"
            )
        key.append(builtins.slice(bi, bi + si))
    return x[tuple(key)] if key else _core.identity(x)


def strided_slice(
    input_: Any,
    begin: Any,
    end: Any,
    strides: Any = None,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
    var: Any = None,
    name: Any = None,
) -> Tensor:
    """TensorFlow's ``strided_slice``: the masks turn ``begin``/``end``/``strides`` into the
    index key ``input_[...]`` that TensorFlow's own ``__getitem__`` would build.

    Bit ``i`` of ``begin_mask``/``end_mask`` ignores ``begin[i]``/``end[i]``; of
    ``ellipsis_mask`` makes entry ``i`` an ellipsis; of ``new_axis_mask`` a new
    axis; of ``shrink_axis_mask`` an integer index (``begin[i]``) that removes the axis.

    Parameters
    ----------
    input_ : Tensor-like
        The input.
    begin : sequence of int
        Start per entry (negative counts from the end).
    end : sequence of int
        Stop per entry (exclusive).
    strides : sequence of int, optional
        Step per entry (non-zero; default 1).
    begin_mask : int
        Bit i: ignore ``begin[i]`` (start from the edge).
    end_mask : int
        Bit i: ignore ``end[i]`` (run to the edge).
    ellipsis_mask : int
        Bit i: entry i is ``...``.
    new_axis_mask : int
        Bit i: entry i inserts an axis of length 1.
    shrink_axis_mask : int
        Bit i: entry i takes index ``begin[i]`` and drops the axis.
    var : Variable, optional
        Accepted for TensorFlow compatibility and ignored.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        The slice, differentiable in ``input_``.
    """
    x = _t(input_)
    b, e = _ints(begin), _ints(end)
    st = [1] * len(b) if strides is None else _ints(strides)
    if not (len(b) == len(e) == len(st)):
        raise ValueError(f"Shapes must be equal rank, but are {len(b)} and {len(e)}")
    key: list[Any] = []
    dim = 0  # the input dimension entry i addresses (exact while no ellipsis precedes it)
    for i in range(len(b)):
        bit = 1 << i
        if shrink_axis_mask & bit and not ellipsis_mask and not new_axis_mask & bit and dim < len(x.shape):
            n = int(x.shape[dim])
            if not -n <= b[i] < n:
                raise errors.InvalidArgumentError(
                    f"slice index {b[i]} of dimension {dim} out of bounds. [Op:StridedSlice]"
                )
        if not new_axis_mask & bit:
            dim += 1
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif shrink_axis_mask & bit:
            key.append(b[i])
        else:
            if st[i] == 0:
                raise errors.InvalidArgumentError(f"strides[{i}] must be non-zero [Op:StridedSlice]")
            key.append(builtins.slice(None if begin_mask & bit else b[i], None if end_mask & bit else e[i], st[i]))
    return x[tuple(key)]


def identity_n(input: Any, name: Any = None) -> list[Tensor]:
    """``identity`` of each tensor of a list (``tf.identity_n``).

    Parameters
    ----------
    input : list of Tensor-like
        The tensors.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    list of Tensor
        One ``identity`` per input (gradients pass through).
    """
    return [_core.identity(x) for x in input]


def sequence_mask(lengths: Any, maxlen: Any = None, dtype: Any = "bool", name: Any = None) -> Tensor:
    """``mask[..., j] = j < lengths[...]`` (``tf.sequence_mask``); ``maxlen`` defaults to the longest.

    Parameters
    ----------
    lengths : int Tensor-like
        Lengths (any shape).
    maxlen : int, optional
        The last axis' length; the largest length when None.
    dtype : DType
        bool by default; other dtypes give 0/1.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``lengths.shape + [maxlen]`` of ``dtype``.
    """
    lt = _t(lengths)
    if not as_dtype(lt.dtype).is_integer:
        raise TypeError(f"lengths must be integral, got {as_dtype(lt.dtype).name}")
    la = np.asarray(lt)
    m = int(la.max(initial=0)) if maxlen is None else int(np.asarray(_t(maxlen)))
    r = _core.range(0, m, dtype=lt.dtype)
    mask = _core.less(r, _core.expand_dims(lt, -1))
    return mask if as_dtype(dtype).name == "bool" else _core.cast(mask, dtype)


def reverse_sequence(
    input: Any, seq_lengths: Any, seq_axis: Any = None, batch_axis: Any = None, name: Any = None
) -> Tensor:
    """Reverses the first ``seq_lengths[b]`` entries along ``seq_axis`` of each slice ``b`` of
    ``batch_axis`` (``tf.reverse_sequence``); a ``gather_nd``, so differentiable.

    Parameters
    ----------
    input : Tensor-like
        The input.
    seq_lengths : int Tensor-like
        One length per slice of ``batch_axis``, at most ``input.shape[seq_axis]``.
    seq_axis : int
        The axis partly reversed.
    batch_axis : int
        The axis ``seq_lengths`` runs along (default 0).
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``input``'s shape and dtype, differentiable.
    """
    x = _t(input)
    shape = [int(d) for d in x.shape]
    r = len(shape)
    sa = int(seq_axis) % r if seq_axis is not None else None
    ba = int(batch_axis or 0) % r
    if sa is None:
        raise TypeError("reverse_sequence() missing required argument 'seq_axis'")
    lens = np.asarray(_t(seq_lengths)).astype(np.int64)
    if sa == ba:
        raise errors.InvalidArgumentError(f"batch_dim == seq_dim == {sa} [Op:ReverseSequence]")
    if lens.shape != (shape[ba],):
        raise errors.InvalidArgumentError(
            f"Length of seq_lengths != input.dims({ba}), ({lens.shape[0] if lens.ndim else 0} vs. {shape[ba]}) "
            "[Op:ReverseSequence]"
        )
    for i, n in enumerate(lens.tolist()):
        if n > shape[sa]:
            raise errors.InvalidArgumentError(f"seq_lens({i}) > input.dims({sa}) [Op:ReverseSequence]")
        if n < 0:
            raise errors.InvalidArgumentError(f"seq_lens({i}) < 0 [Op:ReverseSequence]")
    grid = np.indices(shape)
    seq = grid[sa]
    ln = lens[grid[ba]]
    grid[sa] = np.where(seq < ln, ln - 1 - seq, seq)
    idx = np.moveaxis(grid, 0, -1)
    return _core.gather_nd(x, _core.constant(idx.astype(np.int64)))


def _check_rows(rows: Tensor, shape: list[int], op: str) -> None:
    """TensorFlow's range check of index rows ``[m, k]`` into ``shape``: eagerly now, and inside a
    ``tapers.function`` as a node that checks each call's indices (no guard)."""
    from ._math_extra import _check

    m, k = int(rows.shape[0]), int(rows.shape[1])
    if not (m and k):
        return
    bounds = np.asarray(shape[:k], np.int64)
    rows = _core.cast(rows, "int64")

    def fail(values: list[Tensor]) -> Any:
        r = np.asarray(values[0])
        i = int(np.nonzero(np.any((r < 0) | (r >= bounds), axis=1))[0][0])
        raise errors.InvalidArgumentError(
            f"indices[{i}] = [{', '.join(str(int(v)) for v in r[i])}] does not index into shape "
            f"[{','.join(str(int(v)) for v in shape)}] [Op:{op}]"
        )

    lim = _core.constant(bounds)
    inside = _core.math.logical_and(_core.math.greater_equal(rows, 0), _core.math.less(rows, lim))
    _check(_core.reduce_all(inside), fail, [rows])


def _inside(rows: Tensor, shape: list[int]) -> Tensor:
    """Which index rows ``[m, k]`` (int64) address an element of ``shape``, as a bool ``[m]``."""
    lim = _core.constant(np.asarray(shape[: int(rows.shape[1])], np.int64))
    ok = _core.math.logical_and(_core.math.greater_equal(rows, 0), _core.math.less(rows, lim))
    return _core.reduce_all(ok, 1)


def _scatter_reduce(tensor: Any, indices: Any, updates: Any, kind: str, op: str, policy: str) -> Tensor:
    """``tensor_scatter_nd_max``/``min`` from the segment max of each element's candidates (its
    updates, then its own value), so the indices are never read into Python: inside a
    ``tapers.function`` the graph replays with each call's indices, and a node checks their
    range. ``unsorted_segment_max`` splits a tie's gradient evenly between the tied candidates,
    which is TensorFlow's TensorScatterMax/Min gradient."""
    from ._math_extra import _extreme, _real
    from ._ops import _check_policy

    _check_policy(policy, op)
    x = _t(tensor)
    u = _t(updates, dtype_hint=x.dtype)
    it = _t(indices)
    if not as_dtype(it.dtype).is_integer:
        raise TypeError(f"Value passed to parameter 'indices' has DataType {as_dtype(it.dtype).name} not in list")
    _real(x, op)
    if len(it.shape) == 0 or int(it.shape[-1]) > len(x.shape):
        raise errors.InvalidArgumentError(f"Index innermost dimension length must be <= tensor rank [Op:{op}]")
    k = int(it.shape[-1])
    bounds = [int(v) for v in x.shape[:k]]
    rest = [int(v) for v in x.shape[k:]]
    outer = [int(v) for v in it.shape[:-1]]
    ushape = [int(v) for v in u.shape]
    if ushape[: len(outer)] != outer:
        raise errors.InvalidArgumentError(
            "Outer dimensions of indices and update must match. Indices shape: "
            f"[{','.join(str(int(v)) for v in it.shape)}], updates shape:[{','.join(map(str, ushape))}] [Op:{op}]"
        )
    if ushape[len(outer) :] != rest:
        raise errors.InvalidArgumentError(
            "Inner dimensions of output shape must match inner dimensions of updates shape. Output: "
            f"[{','.join(str(int(v)) for v in x.shape)}] updates: [{','.join(map(str, ushape))}] [Op:{op}]"
        )
    if k == 0 and int(np.prod(outer)):
        raise errors.InvalidArgumentError(f"Indices and updates specified for empty output shape [Op:{op}]")
    if k == 0:
        raise errors.InvalidArgumentError(
            f"Only indices.shape[-1] values between 1 and 5 are currently supported.  Requested rank: 0 [Op:{op}]"
        )
    rows = _core.reshape(_core.cast(it, "int64"), [-1, k])
    m = int(rows.shape[0])
    n = int(np.prod(bounds)) if bounds else 1
    strides = np.cumprod([1, *bounds[::-1]])[:-1][::-1].astype(np.int64)
    lin = _core.reduce_sum(rows * _core.constant(strides), 1)
    if policy == "IGNORE":
        # Rows outside the tensor go to a spare element n, cut off below.
        lin = _core.where(_inside(rows, list(x.shape)), lin, _core.constant(n, dtype="int64"))
    else:
        _check_rows(rows, list(x.shape), op)
    xflat = _core.reshape(x, [n, *rest])
    # Updates first, the tensor's own value last: with TensorFlow's NaN order (a NaN in the
    # tensor stays, a NaN update loses to the tensor's value).
    cand = _core.concat([_core.reshape(u, [m, *rest]), xflat], 0)
    seg = _core.concat([lin, _core.range(n, dtype="int64")], 0)
    counts = _core.math.unsorted_segment_sum(_core.ones([m + n], "int32"), seg, n + 1)
    best = _extreme(cand, seg, n + 1, kind, counts)[:n]
    counts = counts[:n]
    touched = _core.reshape(_core.math.greater(counts, 1), [n] + [1] * len(rest))
    return _core.reshape(_core.where(touched, best, xflat), list(x.shape))


def tensor_scatter_nd_max(
    tensor: Any, indices: Any, updates: Any, bad_indices_policy: str = "", name: Any = None
) -> Tensor:
    """``tensor`` with each indexed element replaced by the max of it and its updates
    (``tf.tensor_scatter_nd_max``); ties share the gradient evenly, as TensorFlow.

    Parameters
    ----------
    tensor : Tensor-like
        The values updated (a new tensor is returned).
    indices : int Tensor-like
        Index rows ``[..., K]`` into ``tensor``'s first K dims.
    updates : Tensor-like
        Values, ``indices.shape[:-1] + tensor.shape[K:]``.
    bad_indices_policy : str
        ``"IGNORE"`` skips index rows outside ``tensor`` (their updates get a zero gradient);
        ``""``, ``"DEFAULT"`` and ``"ERROR"`` raise ``InvalidArgumentError`` on them.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``tensor``'s shape and dtype.
    """
    return _scatter_reduce(tensor, indices, updates, "max", "TensorScatterMax", bad_indices_policy)


def tensor_scatter_nd_min(
    tensor: Any, indices: Any, updates: Any, bad_indices_policy: str = "", name: Any = None
) -> Tensor:
    """``tensor`` with each indexed element replaced by the min of it and its updates
    (``tf.tensor_scatter_nd_min``); ties share the gradient evenly, as TensorFlow.

    Parameters
    ----------
    tensor : Tensor-like
        The values updated (a new tensor is returned).
    indices : int Tensor-like
        Index rows ``[..., K]`` into ``tensor``'s first K dims.
    updates : Tensor-like
        Values, ``indices.shape[:-1] + tensor.shape[K:]``.
    bad_indices_policy : str
        ``"IGNORE"`` skips index rows outside ``tensor`` (their updates get a zero gradient);
        ``""``, ``"DEFAULT"`` and ``"ERROR"`` raise ``InvalidArgumentError`` on them.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``tensor``'s shape and dtype.
    """
    return _scatter_reduce(tensor, indices, updates, "min", "TensorScatterMin", bad_indices_policy)


def tensor_scatter_nd_sub(
    tensor: Any, indices: Any, updates: Any, bad_indices_policy: str = "", name: Any = None
) -> Tensor:
    """Subtracts ``updates`` from ``tensor`` at ``indices`` (``tf.tensor_scatter_nd_sub``).

    Parameters
    ----------
    tensor : Tensor-like
        The values updated (a new tensor is returned).
    indices : int Tensor-like
        Index rows ``[..., K]`` into ``tensor``'s first K dims.
    updates : Tensor-like
        Values, ``indices.shape[:-1] + tensor.shape[K:]``.
    bad_indices_policy : str
        ``"IGNORE"`` skips index rows outside ``tensor`` (their updates get a zero gradient);
        ``""``, ``"DEFAULT"`` and ``"ERROR"`` raise ``InvalidArgumentError`` on them.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``tensor``'s shape and dtype, differentiable in both.
    """
    from ._ops import _check_policy

    _check_policy(bad_indices_policy, "TensorScatterSub")
    x = _t(tensor)
    it = _t(indices)
    neg = -_t(updates, dtype_hint=x.dtype)
    if len(it.shape) and as_dtype(it.dtype).is_integer and 0 < int(it.shape[-1]) <= len(x.shape):
        k = int(it.shape[-1])
        rows = _core.cast(_core.reshape(it, [-1, k]), "int64")
        size = int(np.prod([int(v) for v in x.shape[k:]]))
        fits = [int(v) for v in neg.shape] == [int(v) for v in it.shape[:-1]] + [int(v) for v in x.shape[k:]]
        if bad_indices_policy == "IGNORE" and int(rows.shape[0]) and fits:
            # Rows outside the tensor add -0.0 (x + -0.0 is x) at index 0 instead: no NaN or
            # infinity of theirs reaches the result, and their updates get a zero gradient.
            ok = _inside(rows, list(x.shape))
            it = _core.reshape(_core.where(ok[:, None], rows, _core.zeros_like(rows)), list(it.shape))
            flat_neg = _core.reshape(neg, [int(rows.shape[0]), size])
            zero = _core.constant(-0.0 if as_dtype(x.dtype).is_floating else 0, dtype=x.dtype)
            neg = _core.reshape(_core.where(ok[:, None], flat_neg, zero), list(neg.shape))
        else:
            # tensor_scatter_nd_add checks the range too, naming itself: this check names TensorScatterSub.
            _check_rows(rows, list(x.shape), "TensorScatterSub")
    return _core.tensor_scatter_nd_add(x, it, neg)


def unique_with_counts(x: Any, out_idx: Any = "int32", name: Any = None) -> tuple[Tensor, Tensor, Tensor]:
    """``(y, idx, count)``: unique values in order of first appearance, each element's index
    into ``y``, and how often each value occurs (``tf.unique_with_counts``).

    Parameters
    ----------
    x : Tensor-like
        A 1-D tensor.
    out_idx : DType
        int32 (default) or int64.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    UniqueWithCounts
        ``(y, idx, count)``; ``idx`` and ``count`` of ``out_idx``.
    """
    xt = _t(x)
    if len(xt.shape) != 1:
        raise errors.InvalidArgumentError("unique expects a 1D vector. [Op:UniqueWithCounts]")
    y, idx = _core.unique(xt, out_idx=out_idx)
    counts = np.bincount(np.asarray(idx).astype(np.int64), minlength=int(y.shape[0]))
    return UniqueWithCounts(y, idx, _core.constant(counts.astype(np.asarray(idx).dtype)))


class UniqueWithCounts(NamedTuple):
    """TensorFlow's ``UniqueWithCounts(y, idx, count)`` named tuple."""

    y: Tensor
    idx: Tensor
    count: Tensor  # type: ignore[assignment]  # TF's field name shadows tuple.count, as in TF


def unravel_index(indices: Any, dims: Any, name: Any = None) -> Tensor:
    """Coordinates of flat ``indices`` in an array of shape ``dims`` (``tf.unravel_index``):
    ``[len(dims)]`` for a scalar, ``[len(dims), n]`` for a vector.

    Parameters
    ----------
    indices : int32/int64 Tensor-like
        Flat indices (scalar or 1-D), in ``[0, prod(dims))``.
    dims : int Tensor-like
        The array's shape.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        The coordinates, of ``indices``' dtype.
    """
    it = _t(indices)
    dt = as_dtype(it.dtype)
    if dt.name not in ("int32", "int64"):
        raise TypeError(f"Value passed to parameter 'indices' has DataType {dt.name} not in list of allowed values")
    a = np.asarray(it)
    d = np.asarray(_t(dims, dtype_hint=it.dtype)).astype(np.int64)
    if np.any(d <= 0) and a.size:
        raise errors.InvalidArgumentError("dims must contain positive values [Op:UnravelIndex]")
    total = int(np.prod(d))
    if a.size and (a.min() < 0 or a.max() >= total):
        raise errors.InvalidArgumentError("index is out of bound as with dims [Op:UnravelIndex]")
    out = np.stack(np.unravel_index(a.astype(np.int64), tuple(int(v) for v in d)), axis=0)
    return _core.constant(out.astype(a.dtype))


def dynamic_partition(data: Any, partitions: Any, num_partitions: int, name: Any = None) -> list[Tensor]:
    """Splits ``data`` into ``num_partitions`` tensors by ``partitions`` (``tf.dynamic_partition``);
    each is a ``boolean_mask``, so differentiable.

    Parameters
    ----------
    data : Tensor-like
        The rows; its leading dims are ``partitions``' shape.
    partitions : int Tensor-like
        Each row's partition, in ``[0, num_partitions)``.
    num_partitions : int
        How many outputs.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    list of Tensor
        ``num_partitions`` tensors of the rows with each partition number, in order.
    """
    from ._math_extra import _check

    d = _t(data)
    pt = _t(partitions)
    if not as_dtype(pt.dtype).is_integer:
        raise TypeError(f"Value passed to parameter 'partitions' has DataType {as_dtype(pt.dtype).name} not in list")
    n = int(num_partitions)
    pshape = [int(v) for v in pt.shape]
    if pshape != [int(v) for v in d.shape[: len(pshape)]]:
        raise errors.InvalidArgumentError(
            f"data.shape must start with partitions.shape, got data.shape = {list(d.shape)}, "
            f"partitions.shape = {pshape} [Op:DynamicPartition]"
        )
    pf = _core.reshape(_core.cast(pt, "int64"), [-1])
    if int(pf.shape[0]):

        def fail(values: list[Tensor]) -> Any:
            a = np.asarray(values[0])
            bad = int(np.nonzero((a < 0) | (a >= n))[0][0])
            raise errors.InvalidArgumentError(
                f"partitions[{bad}] = {int(a[bad])} is not in [0, {n}) [Op:DynamicPartition]"
            )

        inside = _core.math.logical_and(_core.math.greater_equal(pf, 0), _core.math.less(pf, n))
        _check(_core.reduce_all(inside), fail, [pf])
    rest = [int(v) for v in d.shape[len(pshape) :]]
    flat = _core.reshape(d, [-1, *rest])
    # Each output's length is a count of the partitions, which a trace guards on (as boolean_mask).
    return [_core.boolean_mask(flat, _core.math.equal(pf, i)) for i in range(n)]


def dynamic_stitch(indices: Sequence[Any], data: Sequence[Any], name: Any = None) -> Tensor:
    """Interleaves ``data`` into one tensor at ``indices`` (``tf.dynamic_stitch``); a later
    index wins. As TensorFlow's gradient, every ``data`` element, overwritten or not,
    receives the output gradient at its index (an overwritten infinite or NaN element gets none).

    Parameters
    ----------
    indices : list of int Tensor-like
        Destination of each element of the matching ``data``.
    data : list of Tensor-like
        Values; each starts with its ``indices``' shape and they share the rest.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[max index + 1, *rest]``; every index in range must be given.
    """
    if len(indices) != len(data):
        raise ValueError(
            f"List argument 'data' to 'DynamicStitch' Op with length {len(data)} must match length "
            f"{len(indices)} of argument 'indices'."
        )
    from ._math_extra import _check

    its = [_t(i) for i in indices]
    ds = [_t(x) for x in data]
    if not ds:
        raise ValueError("DynamicStitch needs at least one input")
    for t in its:
        if not as_dtype(t.dtype).is_integer:
            raise TypeError(f"Value passed to parameter 'indices' has DataType {as_dtype(t.dtype).name} not in list")
    dt = ds[0].dtype
    rest = [int(v) for v in ds[0].shape[len(its[0].shape) :]]
    flats, flat_idx = [], []
    for i, (ii, x) in enumerate(zip(its, ds)):
        ishape = [int(v) for v in ii.shape]
        if [int(v) for v in x.shape[: len(ishape)]] != ishape or [int(v) for v in x.shape[len(ishape) :]] != rest:
            raise errors.InvalidArgumentError(
                f"data[{i}].shape = {list(x.shape)} does not start with indices[{i}].shape = {ishape} "
                "[Op:DynamicStitch]"
            )
        if x.dtype != dt:
            raise TypeError("DynamicStitch data must have one dtype")
        flats.append(_core.reshape(x, [-1, *rest]))
        flat_idx.append(_core.reshape(_core.cast(ii, "int64"), [-1]))
    sizes = [int(f.shape[0]) for f in flat_idx]
    all_idx = _core.concat(flat_idx, 0)
    total = sum(sizes)
    if not total:
        return _core.zeros([0, *rest], dtype=dt)

    def negative(values: list[Tensor]) -> Any:
        for v in values:
            a = np.asarray(v)
            if np.any(a < 0):
                first = int(np.nonzero(a < 0)[0][0])
                raise errors.InvalidArgumentError(f"indices[{first}] is out of range [Op:DynamicStitch]")
        raise AssertionError("unreachable")

    _check(_core.reduce_all(_core.math.greater_equal(all_idx, 0)), negative, flat_idx)
    # How often each row is written; its length (the largest index + 1) is the result's, which a
    # trace guards on as bincount's (the one value of the indices a trace depends on).
    covered = _core.math.bincount(_core.cast(all_idx, "int32"))
    n = int(covered.shape[0])

    def missing(values: list[Tensor]) -> Any:
        hole = int(np.nonzero(np.asarray(values[0]) == 0)[0][0])
        raise errors.InvalidArgumentError(f"Missing indices in [0, {n}): index {hole} [Op:DynamicStitch]")

    _check(_core.reduce_all(_core.math.greater(covered, 0)), missing, [covered])
    # Each output row comes from the last element written there (the largest flat position).
    order = _core.range(total, dtype="int64")
    src = _core.math.unsorted_segment_max(order, all_idx, n)
    cat = _core.concat(flats, 0)
    out = _core.gather(cat, src)
    if as_dtype(dt).is_floating:
        # TensorFlow's gradient gives every element, overwritten or not, the output gradient at its
        # index. The overwritten ones join through a term that is exactly +0 (x - x of finite x), so
        # the value keeps its bits (y - +0 == y, -0 included) and each gets its index's gradient.
        lost = _core.math.not_equal(order, _core.gather(src, all_idx))
        lost = _core.reshape(lost, [total] + [1] * len(rest))
        keep = _core.math.logical_and(lost, _core.math.is_finite(cat))
        part = _core.where(keep, cat, _core.constant(0, dtype=dt))
        out = out - _core.math.unsorted_segment_sum(_core.stop_gradient(part) - part, all_idx, n)
    return out


def shape_n(input: Sequence[Any], out_type: Any = "int32", name: Any = None) -> list[Tensor]:
    """The shape of each tensor of a list (``tf.shape_n``).

    Parameters
    ----------
    input : list of Tensor-like
        The tensors.
    out_type : DType
        int32 (default) or int64.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    list of Tensor
        1-D shapes of ``out_type``.
    """
    return [_core.shape(x, out_type=out_type) for x in input]


def saturate_cast(value: Any, dtype: Any, name: Any = None) -> Tensor:
    """Casts ``value`` to ``dtype``, clamping to ``dtype``'s range first (``tf.saturate_cast``),
    so large values saturate instead of wrapping; the gradient flows inside the range.

    TensorFlow's limits: ``dtype``'s min/max converted to the input's type, nudged toward
    zero where that conversion rounds them outside ``dtype``'s range (float32 to int32 clamps
    at 2147483520). A complex input cast to a real type loses its imaginary part.

    Parameters
    ----------
    value : Tensor-like
        The values.
    dtype : DType
        The target dtype.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        Of ``dtype``.
    """
    x = _t(value)
    src, dst = as_dtype(x.dtype), as_dtype(dtype)
    if src.is_complex:
        if dst.is_complex:
            # Real and imaginary parts clamped separately, as TensorFlow's complex bounds do.
            part = as_dtype(dst.real_dtype)
            return _complex.complex(saturate_cast(_complex.real(x), part), saturate_cast(_complex.imag(x), part))
        x = _complex.real(x)
        src = as_dtype(x.dtype)
    out_real = as_dtype(dst.real_dtype) if dst.is_complex else dst
    if src.name == "bool" or out_real.name == "bool":
        return _core.cast(x, dst)
    np_in = np.dtype(src.as_numpy_dtype)
    np_out = np.dtype(out_real.as_numpy_dtype)
    try:
        promoted: Any = np.promote_types(np_in, np_out)
    except TypeError:
        promoted = np.float64
    with np.errstate(over="ignore", invalid="ignore"):
        lo = np_in.type(max(_num(src.min), _num(out_real.min)))
        if np.array([lo, out_real.min], dtype=promoted)[0] < np.array([lo, out_real.min], dtype=promoted)[1]:
            lo = np.nextafter(lo, np_in.type(0), dtype=np_in)
        hi = np_in.type(min(float(_num(src.max)), float(_num(out_real.max))))
        if np.array([hi, out_real.max], dtype=promoted)[0] > np.array([hi, out_real.max], dtype=promoted)[1]:
            hi = np.nextafter(hi, np_in.type(0), dtype=np_in)
    clipped = _core.maximum(
        _core.minimum(x, _core.constant(np.asarray(hi, np_in))), _core.constant(np.asarray(lo, np_in))
    )
    return _core.cast(clipped, dst)


def _num(v: Any) -> int | float:
    """A dtype limit as a Python number (ints stay exact)."""
    return int(v) if isinstance(v, (int, np.integer)) else float(v)


def histogram_fixed_width(
    values: Any, value_range: Any, nbins: Any = 100, dtype: Any = "int32", name: Any = None
) -> Tensor:
    """Counts of ``values`` in ``nbins`` equal bins over ``value_range`` (``tf.histogram_fixed_width``);
    values below or above the range count in the first or last bin.

    Parameters
    ----------
    values : Tensor-like
        Numeric values, any shape.
    value_range : pair of numbers
        ``[low, high]``, ``low < high``.
    nbins : int
        Bins (positive).
    dtype : DType
        int32 (default) or int64.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[nbins]`` counts of ``dtype``.
    """
    v = _t(values)
    r = np.asarray(_t(value_range, dtype_hint=v.dtype)).astype(np.float64)
    n = int(np.asarray(_t(nbins)))
    if n <= 0:
        raise errors.InvalidArgumentError(f"nbins should be a positive number, but got '{n}' [Op:HistogramFixedWidth]")
    if r.shape != (2,) or not r[0] < r[1]:
        raise errors.InvalidArgumentError(
            f"value_range should satisfy value_range[0] < value_range[1], but got '[{r[0]:g}, {r[1]:g}]' "
            "[Op:HistogramFixedWidth]"
        )
    a = np.asarray(v).astype(np.float64).reshape(-1)
    bins = np.clip(np.floor((a - r[0]) / (r[1] - r[0]) * n), 0, n - 1).astype(np.int64)
    return _core.constant(np.bincount(bins, minlength=n).astype(as_dtype(dtype).as_numpy_dtype))


def is_tensor(x: Any) -> bool:
    """Whether ``x`` is a tapers tensor-like object: a ``Tensor``, ``Variable`` or ``IndexedSlices``
    (``tf.is_tensor``; numpy arrays and Python numbers are not).

    Parameters
    ----------
    x : object
        Anything.

    Returns
    -------
    bool
        True for a Tensor, Variable or IndexedSlices.
    """
    return isinstance(x, (Tensor, Variable, IndexedSlices))


def executing_eagerly() -> bool:
    """False while a ``tapers.function`` traces its Python function, True otherwise.

    Returns
    -------
    bool
        Whether ops run now (not being traced).
    """
    return not _core._is_tracing()


def get_logger() -> Any:
    """The ``logging`` logger named ``"tapers"`` (``tf.get_logger``, whose logger is named
    ``"tensorflow"``): ``tf.get_logger().setLevel("ERROR")`` works as in TensorFlow.

    Returns
    -------
    logging.Logger
    """
    import logging

    return logging.getLogger("tapers")


def no_op(name: Any = None) -> None:
    """Does nothing; returns None, as TensorFlow's ``no_op`` when executing eagerly.

    Parameters
    ----------
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    None
        Always None.
    """
    return None


def group(*inputs: Any, **kwargs: Any) -> None:
    """Returns None, as TensorFlow's ``group`` when executing eagerly (the ops already ran).

    Parameters
    ----------
    inputs : Tensors
        Ignored: they already ran.

    Returns
    -------
    None
        Always None.
    """
    unknown = set(kwargs) - {"name"}
    if unknown:
        raise TypeError(f"Unknown keyword arguments: {sorted(unknown)}")
    return None


@contextlib.contextmanager
def control_dependencies(control_inputs: Any) -> Iterator[None]:
    """A context that orders nothing: ops run in program order eagerly (and in a traced
    ``tapers.function`` too), as TensorFlow's ``control_dependencies`` in eager mode.

    Parameters
    ----------
    control_inputs : list, callable or None
        Ops that already ran.

    Returns
    -------
    context manager
        A context that changes nothing.
    """
    if control_inputs is not None and not isinstance(control_inputs, (list, tuple)) and not callable(control_inputs):
        raise TypeError(f"control_inputs must be a list or None, got {type(control_inputs).__name__}")
    yield None


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """A context for creating state outside a traced function (``tf.init_scope``).

    Inside it nothing records: a ``tapers.function`` being traced does not see the ops
    (they run once, while tracing, and are not replayed; reading their values into Python
    makes no guard), and ``GradientTape``s pause, as TensorFlow lifts the block out of the
    graph being built into eager execution. Outside any trace or tape it changes nothing.
    Keras layers create their weights under it, so a model built by the first call of a
    compiled step draws its initial values once.

    Returns
    -------
    context manager
        The scope.
    """
    with _core._InitScope():
        yield None


def _elems_list(elems: Any) -> tuple[list[Tensor], int]:
    flat = [_t(e) for e in _nest.flatten(elems)]
    if not flat:
        raise ValueError("elems must be a Tensor or (possibly nested) sequence of Tensors.")
    n = int(flat[0].shape[0]) if len(flat[0].shape) else -1
    if n < 0 or any(len(e.shape) == 0 or int(e.shape[0]) != n for e in flat):
        raise ValueError("Elements in elems must be 1+ dimensional and have the same first dimension")
    return flat, n


def scan(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    reverse: bool = False,
    name: Any = None,
) -> Any:
    """TensorFlow's ``scan``: ``a = fn(a, x)`` over the first axis of ``elems``, stacking each ``a``.

    ``elems`` and ``initializer`` may be nested; without ``initializer`` the first
    element starts the accumulator (and is the first output). Runs as a Python
    loop of recorded ops, so it is differentiable.

    Parameters
    ----------
    fn : callable
        ``fn(accumulator, element)``, returning the new accumulator (same structure).
    elems : Tensor-like or nested structure of them
        Elements taken along the first axis (all the same length).
    initializer : Tensor-like or nested structure, optional
        The first accumulator; without it, the first element.
    parallel_iterations : int
        Accepted for TensorFlow compatibility and ignored.
    back_prop : bool
        Accepted for TensorFlow compatibility and ignored. (gradients always flow)
    swap_memory : bool
        Accepted for TensorFlow compatibility and ignored.
    infer_shape : bool
        Accepted for TensorFlow compatibility and ignored.
    reverse : bool
        Scan from the last element; outputs keep the elements' order.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor or nested structure
        Every accumulator stacked along a new first axis (the structure of ``fn``'s result).
    """
    flat, n = _elems_list(elems)
    order = list(range(n))[::-1] if reverse else list(range(n))
    item = lambda i: _nest.pack_sequence_as(elems, [e[i] for e in flat])  # noqa: E731
    outs: list[Any] = []
    if initializer is None:
        if n == 0:
            raise ValueError("Cannot scan over an empty sequence without an initializer")
        acc = item(order[0])
        outs.append(acc)
        order = order[1:]
    else:
        acc = initializer
    for i in order:
        acc = fn(acc, item(i))
        outs.append(acc)
    if reverse:
        outs = outs[::-1]
    if not outs:
        return _nest.pack_sequence_as(
            initializer, [_core.zeros([0, *_t(a).shape], dtype=_t(a).dtype) for a in _nest.flatten(initializer)]
        )
    flat_outs = [_nest.flatten(o) for o in outs]
    stacked = [_core.stack([fo[j] for fo in flat_outs], 0) for j in range(len(flat_outs[0]))]
    return _nest.pack_sequence_as(outs[0], stacked)


def _fold(fn: Callable[[Any, Any], Any], elems: Any, initializer: Any, reverse: bool) -> Any:
    flat, n = _elems_list(elems)
    order = list(range(n))[::-1] if reverse else list(range(n))
    item = lambda i: _nest.pack_sequence_as(elems, [e[i] for e in flat])  # noqa: E731
    if initializer is None:
        if n == 0:
            raise ValueError("Cannot fold over an empty sequence without an initializer")
        acc = item(order[0])
        order = order[1:]
    else:
        acc = initializer
    for i in order:
        acc = fn(acc, item(i))
    return acc


def foldl(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: Any = None,
) -> Any:
    """``a = fn(a, x)`` over the first axis of ``elems`` from the front (``tf.foldl``); returns the last ``a``.

    Parameters
    ----------
    fn : callable
        ``fn(accumulator, element)``, returning the new accumulator (same structure).
    elems : Tensor-like or nested structure of them
        Elements taken along the first axis (all the same length).
    initializer : Tensor-like or nested structure, optional
        The first accumulator; without it, the first element.
    parallel_iterations : int
        Accepted for TensorFlow compatibility and ignored.
    back_prop : bool
        Accepted for TensorFlow compatibility and ignored. (gradients always flow)
    swap_memory : bool
        Accepted for TensorFlow compatibility and ignored.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor or nested structure
        The last accumulator.
    """
    return _fold(fn, elems, initializer, reverse=False)


def foldr(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: Any = None,
) -> Any:
    """``a = fn(a, x)`` over the first axis of ``elems`` from the back (``tf.foldr``); returns the last ``a``.

    Parameters
    ----------
    fn : callable
        ``fn(accumulator, element)``, returning the new accumulator (same structure).
    elems : Tensor-like or nested structure of them
        Elements taken along the first axis (all the same length).
    initializer : Tensor-like or nested structure, optional
        The first accumulator; without it, the first element.
    parallel_iterations : int
        Accepted for TensorFlow compatibility and ignored.
    back_prop : bool
        Accepted for TensorFlow compatibility and ignored. (gradients always flow)
    swap_memory : bool
        Accepted for TensorFlow compatibility and ignored.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor or nested structure
        The last accumulator.
    """
    return _fold(fn, elems, initializer, reverse=True)


def get_static_value(tensor: Any, partial: bool = False) -> Any:
    """The numpy value of an eager tensor (``tf.get_static_value``); a non-tensor comes back unchanged.

    Parameters
    ----------
    tensor : object
        A tensor or anything else.
    partial : bool
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    numpy.ndarray, object or None
        The tensor's value; non-tensors unchanged; None for a Variable (its value can change).
    """
    if isinstance(tensor, Tensor):
        return np.array(tensor)
    if isinstance(tensor, Variable):
        return None
    return tensor


def _block_args(x: Tensor, block_shape: Any, pairs: Any, what: str, op: str) -> tuple[list[int], list[list[int]]]:
    bs = _ints(block_shape)
    pr = np.asarray(_t(pairs)).astype(np.int64)
    m = len(bs)
    if pr.shape != (m, 2):
        raise ValueError(f"{what} must have shape [{m}, 2], got {list(pr.shape)}")
    if m < 1 or len(x.shape) < m + 1:
        raise errors.InvalidArgumentError(f"input rank should be >= {m + 1} instead of {len(x.shape)} [Op:{op}]")
    if any(b < 1 for b in bs):
        raise errors.InvalidArgumentError(f"All values in block_shape must be positive, got value, {min(bs)} [Op:{op}]")
    if np.any(pr < 0):
        raise errors.InvalidArgumentError(f"All {what} must be non-negative [Op:{op}]")
    return bs, pr.tolist()


def space_to_batch_nd(input: Any, block_shape: Any, paddings: Any, name: Any = None) -> Tensor:
    """Zero-pads the spatial dims (``input.shape[1:1+M]``) and moves ``block_shape`` blocks of them
    into the batch dim (``tf.space_to_batch_nd``); a pad, reshape and transpose, so differentiable.

    Parameters
    ----------
    input : Tensor-like
        ``[batch, *spatial (M dims), *rest]``.
    block_shape : sequence of int
        ``M`` block sizes, each at least 1.
    paddings : int Tensor-like
        ``[M, 2]`` zeros added before and after each spatial dim; the padded sizes must be
        divisible by ``block_shape``.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[batch * prod(block_shape), *(padded spatial / block_shape), *rest]``.
    """
    x = _t(input)
    bs, pads = _block_args(x, block_shape, paddings, "paddings", "SpaceToBatchND")
    m = len(bs)
    shape = [int(d) for d in x.shape]
    padded = [shape[1 + i] + pads[i][0] + pads[i][1] for i in range(m)]
    for i in range(m):
        if padded[i] % bs[i]:
            raise errors.InvalidArgumentError(
                f"padded_shape[{i}]={padded[i]} is not divisible by block_shape[{i}]={bs[i]} [Op:SpaceToBatchND]"
            )
    rest = shape[1 + m :]
    if any(p for pair in pads for p in pair):
        x = _core.pad(x, [[0, 0], *pads, *[[0, 0]] * len(rest)])
    split = [shape[0]]
    for i in range(m):
        split += [padded[i] // bs[i], bs[i]]
    y = _core.reshape(x, split + rest)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    perm += list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    y = _core.transpose(y, perm)
    return _core.reshape(y, [shape[0] * int(np.prod(bs))] + [padded[i] // bs[i] for i in range(m)] + rest)


def space_to_batch(input: Any, block_shape: Any, paddings: Any, name: Any = None) -> Tensor:
    """TensorFlow 2's ``tf.space_to_batch`` (and ``tf.nn.space_to_batch``): :func:`space_to_batch_nd`.

    Parameters
    ----------
    input : Tensor-like
        ``[batch, *spatial (M dims), *rest]``.
    block_shape : sequence of int
        ``M`` block sizes.
    paddings : int Tensor-like
        ``[M, 2]`` zero padding of the spatial dims.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        As :func:`space_to_batch_nd`.
    """
    return space_to_batch_nd(input, block_shape, paddings)


def batch_to_space(input: Any, block_shape: Any, crops: Any, name: Any = None) -> Tensor:
    """The inverse of :func:`space_to_batch_nd` (``tf.batch_to_space``): moves batch blocks back into
    the spatial dims, then crops; a reshape, transpose and slice, so differentiable.

    Parameters
    ----------
    input : Tensor-like
        ``[batch * prod(block_shape), *spatial (M dims), *rest]``.
    block_shape : sequence of int
        ``M`` block sizes (the batch must be divisible by their product).
    crops : int Tensor-like
        ``[M, 2]`` amounts cropped from the start and end of each enlarged spatial dim.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[batch, *(spatial * block_shape - crops), *rest]``.
    """
    x = _t(input)
    bs, crops_l = _block_args(x, block_shape, crops, "crops", "BatchToSpaceND")
    m = len(bs)
    shape = [int(d) for d in x.shape]
    prod = int(np.prod(bs))
    if shape[0] % prod:
        raise errors.InvalidArgumentError(
            f"Input batch dimension ({shape[0]}) is not divisible by product of block sizes ({prod}) "
            "[Op:BatchToSpaceND]"
        )
    b = shape[0] // prod
    spatial, rest = shape[1 : 1 + m], shape[1 + m :]
    for i in range(m):
        if crops_l[i][0] + crops_l[i][1] > spatial[i] * bs[i]:
            raise errors.InvalidArgumentError(
                f"Crops must be less than or equal to the enlarged spatial dimension: crop_start[{i}]={crops_l[i][0]}, "
                f"crop_end[{i}]={crops_l[i][1]}, block_shape[{i}]={bs[i]}, input_shape[{i + 1}]={spatial[i]} "
                "[Op:BatchToSpaceND]"
            )
    y = _core.reshape(x, bs + [b] + spatial + rest)
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    y = _core.transpose(y, perm)
    y = _core.reshape(y, [b] + [spatial[i] * bs[i] for i in range(m)] + rest)
    if any(c for pair in crops_l for c in pair):
        key = [builtins.slice(None)]
        for i in range(m):
            key.append(builtins.slice(crops_l[i][0], spatial[i] * bs[i] - crops_l[i][1]))
        y = y[tuple(key)]
    return y


def ensure_shape(x: Any, shape: Any, name: Any = None) -> Tensor:
    """``x`` unchanged when its shape is compatible with ``shape`` (None dims match anything), else
    ``InvalidArgumentError`` as ``tf.ensure_shape``; gradients pass through.

    Parameters
    ----------
    x : Tensor-like
        The value checked.
    shape : sequence of int or None, or TensorShape
        The expected shape; None (for the whole shape) accepts any.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``identity(x)``.
    """
    t = _t(x)
    if shape is not None:
        want = [None if d is None else int(d) for d in shape]
        got = [int(d) for d in t.shape]
        if len(want) != len(got) or any(w is not None and w != g for w, g in zip(want, got)):
            fmt = ",".join("?" if w is None else str(w) for w in want)
            raise errors.InvalidArgumentError(
                f"Shape of tensor input [{','.join(map(str, got))}] is not compatible with expected shape [{fmt}]. "
                "[Op:EnsureShape]"
            )
    return _core.identity(t)


def _broadcast(a: list[int], b: list[int]) -> list[int] | None:
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            return None
        out.append(y if x == 1 else x)
    return out


def broadcast_static_shape(shape_x: Any, shape_y: Any) -> Any:
    """The broadcast of two fully known shapes (``tf.broadcast_static_shape``).

    Parameters
    ----------
    shape_x, shape_y : TensorShape or sequence of int
        The shapes.

    Returns
    -------
    TensorShape
        Their NumPy-style broadcast; incompatible shapes raise ``ValueError`` with TF's message.
    """
    from ._shape import TensorShape

    a, b = [int(d) for d in shape_x], [int(d) for d in shape_y]
    out = _broadcast(a, b)
    if out is None:
        raise ValueError(
            "Incompatible shapes for broadcasting. Two shapes are compatible if for each dimension pair they are "
            f"either equal or one of them is 1. Received: {TensorShape(a)} and {TensorShape(b)}."
        )
    return TensorShape(out)


def broadcast_dynamic_shape(shape_x: Any, shape_y: Any) -> Tensor:
    """The broadcast of two shapes given as 1-D int tensors (``tf.broadcast_dynamic_shape``).

    Parameters
    ----------
    shape_x, shape_y : int Tensor-like
        1-D shapes of one integer dtype.

    Returns
    -------
    Tensor
        The broadcast shape, of the inputs' dtype; incompatible shapes raise ``InvalidArgumentError``.
    """
    tx, ty = _t(shape_x), _t(shape_y)
    a, b = _ints(tx), _ints(ty)
    out = _broadcast(a, b)
    if out is None:
        raise errors.InvalidArgumentError(
            f"Incompatible shapes: [{','.join(map(str, a))}] vs. [{','.join(map(str, b))}] [Op:BroadcastArgs]"
        )
    return _core.constant(np.asarray(out, dtype=np.asarray(tx).dtype))


def parallel_stack(values: Sequence[Any], name: Any = "parallel_stack") -> Tensor:
    """``stack(values)`` inside a traced ``tapers.function``; eagerly, TensorFlow's RuntimeError
    (``tf.parallel_stack`` only exists in graphs).

    Parameters
    ----------
    values : sequence of Tensor-like
        Same shape and dtype.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        The stacked values (axis 0).
    """
    if executing_eagerly():
        raise RuntimeError("tf.parallel_stack() is not compatible with eager execution.")
    return _core.stack([_t(v) for v in values], 0)


def grad_pass_through(f: Callable[..., Any]) -> Callable[..., Any]:
    """Wraps ``f`` so that its result is ``f(x)`` but its gradient is the identity
    (``tf.grad_pass_through``: a straight-through estimator).

    Parameters
    ----------
    f : callable
        A function of one tensor returning a tensor of the same shape.

    Returns
    -------
    callable
        The wrapped function.
    """

    @custom_gradient
    def straight_through(x: Tensor) -> Any:
        return f(x), lambda dy: dy

    return straight_through


def get_current_name_scope() -> str:
    """The current name scope, as ``tf.get_current_name_scope`` (``""`` at top level).

    Returns
    -------
    str
        Scope names joined by ``/``, without a trailing slash.
    """
    return str(_core._get_name_scope()).rstrip("/")


def required_space_to_batch_paddings(
    input_shape: Any, block_shape: Any, base_paddings: Any = None, name: Any = None
) -> builtins.tuple[Tensor, Tensor]:
    """Paddings that make ``input_shape`` divisible by ``block_shape`` for ``space_to_batch_nd``, and
    the crops that undo them for ``batch_to_space`` (``tf.required_space_to_batch_paddings``).

    Parameters
    ----------
    input_shape : sequence of int
        The ``M`` spatial sizes.
    block_shape : sequence of int
        The ``M`` block sizes.
    base_paddings : int Tensor-like, optional
        ``[M, 2]`` paddings wanted anyway (default zeros).
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    tuple of Tensor
        ``(paddings, crops)``, int32 ``[M, 2]``: the end paddings grow to the next multiple, and
        ``crops[:, 1]`` is that growth.
    """
    shape = np.asarray(_ints(input_shape), dtype=np.int32)
    block = np.asarray(_ints(block_shape), dtype=np.int32)
    m = block.shape[0]
    if shape.shape != (m,):
        raise ValueError(f"Shapes ({shape.shape[0]},) and ({m},) are incompatible")
    base = np.zeros((m, 2), np.int32) if base_paddings is None else np.asarray(_t(base_paddings)).astype(np.int32)
    if base.shape != (m, 2):
        raise ValueError(f"Shapes {base.shape} and ({m}, 2) are incompatible")
    full = shape + base[:, 0] + base[:, 1]
    extra = (block - full % block) % block
    paddings = np.stack([base[:, 0], base[:, 1] + extra], axis=1)
    crops = np.stack([np.zeros(m, np.int32), extra], axis=1)
    return _core.constant(paddings.astype(np.int32)), _core.constant(crops.astype(np.int32))


def histogram_fixed_width_bins(
    values: Any, value_range: Any, nbins: Any = 100, dtype: Any = "int32", name: Any = None
) -> Tensor:
    """The bin of each value for ``histogram_fixed_width`` (``tf.histogram_fixed_width_bins``):
    ``floor(nbins * (v - lo) / (hi - lo))`` in the values' precision, clipped to ``[0, nbins - 1]``.

    Parameters
    ----------
    values : Tensor-like
        Floating values, any shape (integer values raise ``InvalidArgumentError``, as in TF 2.21).
    value_range : pair of numbers
        ``[lo, hi]``.
    nbins : int
        Bins (positive).
    dtype : DType
        int32 (default) or int64.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``values``' shape, of ``dtype``.
    """
    v = _t(values)
    n = int(np.asarray(_t(nbins)))
    if n <= 0:
        raise errors.InvalidArgumentError("nbins should be a positive number.")
    if as_dtype(v.dtype).is_integer:
        # TF 2.21 divides integer values into float64 and then multiplies by an integer nbins: an error.
        raise errors.InvalidArgumentError(
            f"cannot compute Mul as input #1(zero-based) was expected to be a {as_dtype(v.dtype).name} tensor but "
            "is a double tensor [Op:Mul]"
        )
    a = np.asarray(v)
    r = np.asarray(_t(value_range, dtype_hint=v.dtype)).astype(a.dtype)
    scaled = np.true_divide(a - r[0], r[1] - r[0])  # in the values' float precision, as TF
    idx = np.floor(scaled.dtype.type(n) * scaled)
    idx = np.clip(idx, 0, n - 1)
    return _core.constant(idx.astype(as_dtype(dtype).as_numpy_dtype))
