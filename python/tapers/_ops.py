"""Ops written in Python on top of the core: clipping helpers and dropout."""

from __future__ import annotations

from typing import Any, Sequence

from . import _core
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
