"""Ops written in Python on top of the core: clipping helpers, dropout, and the
``bad_indices_policy`` of the scatter/gather ops."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import _core, errors
from ._core import Tensor
from ._indexed_slices import IndexedSlices

newaxis = None


def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any, name: Any = None) -> Tensor:
    """Clamps values to ``[clip_value_min, clip_value_max]``.

    Parameters
    ----------
    t : Tensor-like
        The values.
    clip_value_min, clip_value_max : Tensor-like
        Bounds, broadcast against ``t``.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        The clamped values, of ``t``'s shape (bounds that would broadcast it to
        another shape raise ``ValueError``, as in TensorFlow). The gradient
        flows where ``t`` is inside the range, boundaries included; at a NaN in
        ``t`` it goes to ``clip_value_min`` (TF's order: ``minimum`` first, then
        ``maximum``).
    """
    t = _core.convert_to_tensor(t)
    out = _core.maximum(_core.minimum(t, clip_value_max), clip_value_min)
    if tuple(out.shape) != tuple(t.shape):
        raise ValueError(f"Shapes {tuple(t.shape)} and {tuple(out.shape)} are incompatible")
    return out


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: Any = None) -> Any:
    """Rescales ``t`` so its L2 norm (over ``axes``) is at most ``clip_norm``.

    An ``IndexedSlices`` stays sparse: its ``values`` are clipped, as in
    TensorFlow (so rows repeated in ``indices`` count once each in the norm).

    Parameters
    ----------
    t : Tensor-like
        The values.
    clip_norm : float or scalar Tensor
        The largest norm allowed.
    axes : int or sequence of int, optional
        Axes of the norm; all when None.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor or IndexedSlices
        ``t * clip_norm / max(norm, clip_norm)``, differentiable.
    """
    if isinstance(t, IndexedSlices):
        return t._with_values(clip_by_norm(t.values, clip_norm, axes))
    t = _core.convert_to_tensor(t)
    l2sum = _core.reduce_sum(t * t, axes, keepdims=True)
    pred = l2sum > 0
    l2sum_safe = _core.where(pred, l2sum, _core.ones_like(l2sum))
    l2norm = _core.where(pred, _core.sqrt(l2sum_safe), l2sum)
    clip = _core.convert_to_tensor(clip_norm, dtype_hint=t.dtype)
    return t * clip / _core.maximum(l2norm, clip)


def global_norm(t_list: Sequence[Any], name: Any = None) -> Tensor:
    """The global norm ``sqrt(sum of squared L2 norms)`` of several tensors.

    Parameters
    ----------
    t_list : sequence of Tensor-like, IndexedSlices or None
        The tensors; None entries are skipped; an ``IndexedSlices`` counts
        its ``values`` (as TensorFlow's).
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        A scalar.
    """
    ts = [_core.convert_to_tensor(_values_of(t)) for t in t_list if t is not None]
    if not ts:
        return _core.constant(0.0)
    total = _core.reduce_sum(ts[0] * ts[0])
    for t in ts[1:]:
        total = total + _core.reduce_sum(t * t)
    return _core.sqrt(total)


def clip_by_global_norm(t_list: Sequence[Any], clip_norm: Any, use_norm: Any = None, name: Any = None) -> tuple:
    """Scales all tensors by ``clip_norm / max(global_norm, clip_norm)``.

    Parameters
    ----------
    t_list : sequence of Tensor-like, IndexedSlices or None
        The tensors (typically gradients); None entries stay None; an
        ``IndexedSlices`` comes back as one with its ``values`` scaled.
    clip_norm : float or scalar Tensor
        The largest global norm allowed.
    use_norm : float or scalar Tensor, optional
        A global norm already computed.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    tuple
        ``(clipped_list, global_norm)``, as TensorFlow.
    """
    if isinstance(t_list, (str, bytes)) or not isinstance(t_list, (list, tuple)):
        raise TypeError("`t_list` should be a sequence of tensors")
    norm = global_norm(t_list) if use_norm is None else _core.convert_to_tensor(use_norm)
    clip = _core.convert_to_tensor(clip_norm, dtype_hint=norm.dtype)
    scale = clip * _core.minimum(1.0 / norm, 1.0 / clip)
    out: list[Any] = []
    for t in t_list:
        if t is None:
            out.append(None)
        elif isinstance(t, IndexedSlices):
            out.append(t._with_values(t.values * _core.cast(scale, t.dtype)))
        else:
            t = _core.convert_to_tensor(t)
            out.append(t * _core.cast(scale, t.dtype))
    return out, norm


def _values_of(t: Any) -> Any:
    # What a norm of `t` counts: an IndexedSlices' values (TensorFlow's rule).
    return t.values if isinstance(t, IndexedSlices) else t


_POLICIES = ("", "DEFAULT", "ERROR", "IGNORE")


def _check_policy(policy: str, op: str) -> None:
    """TF's ``bad_indices_policy`` values (case-sensitive)."""
    if policy not in _POLICIES:
        raise errors.InvalidArgumentError(f"Unknown bad indices handling attribute: {policy} [Op:{op}]")


def _valid_rows(idx: Any, shape: Sequence[int]) -> Any:
    """Which rows of the index array ``idx`` address an element of ``shape``."""
    k = idx.shape[-1] if idx.ndim else 0
    bounds = np.asarray(shape[:k], dtype=np.int64)
    return np.all((idx >= 0) & (idx < bounds), axis=-1)


def _scatter_args(indices: Any, updates: Any, shape: Sequence[int], op: str, policy: str) -> tuple[Any, Any]:
    """``indices`` and ``updates`` with the rows outside ``shape`` dropped under
    ``IGNORE`` (the updates through ``boolean_mask``, so they stay differentiable)."""
    _check_policy(policy, op)
    if policy != "IGNORE":
        return indices, updates
    idx = np.asarray(_core.convert_to_tensor(indices))
    valid = _valid_rows(idx, shape)
    if valid.all():
        return indices, updates
    return idx[valid], _core.boolean_mask(updates, valid)


def scatter_nd(indices: Any, updates: Any, shape: Any, bad_indices_policy: str = "", name: Any = None) -> Tensor:
    """Scatters ``updates`` into zeros of ``shape`` at ``indices`` (TensorFlow's
    ``scatter_nd``); repeated indices add up.

    Parameters
    ----------
    indices : int Tensor-like
        Index rows, ``[..., K]``.
    updates : Tensor-like
        Values, ``indices.shape[:-1] + shape[K:]``.
    shape : sequence of int
        The output's shape.
    bad_indices_policy : str
        ``"IGNORE"`` skips index rows outside ``shape`` (their updates get a
        zero gradient); ``""``, ``"DEFAULT"`` and ``"ERROR"`` raise
        ``InvalidArgumentError`` on them, as TensorFlow's CPU kernel does.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        Of ``shape`` and ``updates``' dtype.
    """
    if bad_indices_policy == "IGNORE":
        dims = [int(d) for d in np.asarray(_core.convert_to_tensor(shape)).reshape(-1)]
        indices, updates = _scatter_args(indices, updates, dims, "ScatterNd", bad_indices_policy)
    else:
        _check_policy(bad_indices_policy, "ScatterNd")
    return _core.scatter_nd(indices, updates, shape)


def tensor_scatter_nd_add(
    tensor: Any, indices: Any, updates: Any, bad_indices_policy: str = "", name: Any = None
) -> Tensor:
    """Adds ``updates`` to ``tensor`` at ``indices`` (TensorFlow's
    ``tensor_scatter_nd_add``).

    Parameters
    ----------
    tensor : Tensor-like
        The values added to.
    indices : int Tensor-like
        Index rows, ``[..., K]``.
    updates : Tensor-like
        Values, ``indices.shape[:-1] + tensor.shape[K:]``.
    bad_indices_policy : str
        As in :func:`scatter_nd`.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        Of ``tensor``'s shape and dtype.
    """
    tensor = _core.convert_to_tensor(tensor)
    indices, updates = _scatter_args(indices, updates, tuple(tensor.shape), "TensorScatterAdd", bad_indices_policy)
    return _core.tensor_scatter_nd_add(tensor, indices, updates)


def gather_nd(params: Any, indices: Any, batch_dims: int = 0, name: Any = None, bad_indices_policy: str = "") -> Tensor:
    """Gathers slices of ``params`` at ``indices`` (TensorFlow's ``gather_nd``).

    Parameters
    ----------
    params : Tensor-like
        The values gathered from.
    indices : int Tensor-like
        Index rows ``[..., K]`` into ``params``' dims after the batch dims.
    batch_dims : int
        Leading dims shared by ``params`` and ``indices``: row ``i`` of a batch
        indexes that batch's slice of ``params``.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.
    bad_indices_policy : str
        ``"IGNORE"`` gives zeros for index rows outside ``params`` (and no
        gradient through them; TensorFlow's own gradient there cannot be made
        dense); ``""``, ``"DEFAULT"`` and ``"ERROR"`` raise
        ``InvalidArgumentError`` on them.

    Returns
    -------
    Tensor
        ``indices.shape[:-1] + params.shape[batch_dims + K:]``, differentiable
        in ``params``.
    """
    if bad_indices_policy not in _POLICIES:
        raise errors.NotFoundError(
            "Could not find device for node: {{node GatherNd}} = "
            f'GatherNd[bad_indices_policy="{bad_indices_policy}"]'
        )
    b = int(batch_dims)
    params = _core.convert_to_tensor(params)
    if b:
        indices = _with_batch_coordinates(_core.convert_to_tensor(indices), b, tuple(params.shape))
    if bad_indices_policy != "IGNORE":
        return _core.gather_nd(params, indices)
    idx = np.asarray(_core.convert_to_tensor(indices))
    valid = _valid_rows(idx, tuple(params.shape))
    if valid.all():
        return _core.gather_nd(params, idx)
    safe = np.where(valid[..., None], idx, 0).astype(idx.dtype)
    out = _core.gather_nd(params, safe)
    mask = valid.reshape(valid.shape + (1,) * (len(out.shape) - valid.ndim))
    return _core.where(mask, out, _core.zeros_like(out))


def _with_batch_coordinates(idx: Tensor, b: int, params_shape: tuple[int, ...]) -> Tensor:
    """Indices for ``batch_dims=b`` rewritten for ``batch_dims=0``: each index
    row gets its position in the ``b`` leading (batch) dims prepended. Built
    from the shapes alone (a traced step reads each call's indices)."""
    shape = tuple(idx.shape)
    if b < 0 or b >= len(shape) or b > len(params_shape):
        raise ValueError(
            f"batch_dims={b} must be in [0, {min(len(shape) - 1, len(params_shape))}] for indices of rank "
            f"{len(shape)} and params of rank {len(params_shape)}"
        )
    if shape[:b] != tuple(params_shape[:b]):
        raise errors.InvalidArgumentError(
            f"Batch dimensions of params {list(params_shape[:b])} and indices {list(shape[:b])} must be equal"
        )
    grids = np.meshgrid(*[np.arange(n, dtype=np.int64) for n in shape[:-1]], indexing="ij")
    batch = _core.cast(_core.constant(np.stack(grids[:b], axis=-1)), idx.dtype)
    return _core.concat([batch, idx], axis=-1)
