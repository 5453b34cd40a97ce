"""``tapers.nn``: neural-network functions, as ``tf.nn``."""

from __future__ import annotations

from typing import Any

from . import _core, _ops, errors, random
from ._core import Tensor
from ._core.nn import *  # noqa: F403
from ._core.nn import __all__ as __all__
from ._core.nn import avg_pool2d, conv2d, max_pool2d, silu

swish = silu
max_pool = max_pool2d
avg_pool = avg_pool2d


def dropout(x: Any, rate: float, noise_shape: Any = None, seed: int | None = None, name: Any = None) -> Tensor:
    """Zeroes elements with probability ``rate`` and scales the rest by ``1 / (1 - rate)``.

    Parameters
    ----------
    x : Tensor-like
        Floating values.
    rate : float
        Probability of dropping each element, in ``[0, 1)``.
    noise_shape : sequence of int, optional
        Shape of the keep mask, broadcast against ``x`` (shared masks).
    seed : int, optional
        Op-level seed (see ``tapers.random``).
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        Differentiable: the gradient is the same mask and scale.

    Notes
    -----
    Differs from TensorFlow only in the random stream (see ``tapers.random``).
    """
    t = _core.convert_to_tensor(x)
    rate = float(rate)
    if not 0.0 <= rate < 1.0:
        raise ValueError(f"rate must be a scalar tensor or a float in the range [0, 1), got {rate}")
    if rate == 0.0:
        return _core.identity(t)
    shape = list(t.shape) if noise_shape is None else [int(d) for d in noise_shape]
    keep = random._keep_mask(shape, 1.0 - rate, seed)
    if list(keep.shape) != list(t.shape):
        keep = _core.cast(_core.broadcast_to(_core.cast(keep, "int32"), list(t.shape)), "bool")
    return _core.nn._dropout_with_mask(t, keep, rate)


def moments(x: Any, axes: Any, shift: Any = None, keepdims: bool = False, name: Any = None) -> tuple[Tensor, Tensor]:
    """Mean and variance of ``x`` over ``axes`` (``tf.nn.moments``).

    Parameters
    ----------
    x : Tensor-like
        The values.
    axes : int or sequence of int
        The axes to reduce.
    shift : optional
        Accepted and unused, as in TensorFlow 2.
    keepdims : bool, default False
        Keep the reduced axes with size 1.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    tuple of Tensor
        ``(mean, variance)``, computed as TensorFlow does: the variance is the
        mean of ``(x - stop_gradient(mean)) ** 2``. Differentiable.
    """
    del shift, name
    y = _core.convert_to_tensor(x)
    axes = [int(a) for a in axes] if isinstance(axes, (list, tuple)) else [int(axes)]
    mean = _core.reduce_mean(y, axes, keepdims=True)
    variance = _core.reduce_mean(_core.square(y - _core.stop_gradient(mean)), axes, keepdims=True)
    if not keepdims:
        mean = _core.squeeze(mean, axes)
        variance = _core.squeeze(variance, axes)
    return mean, variance


def batch_normalization(
    x: Any, mean: Any, variance: Any, offset: Any, scale: Any, variance_epsilon: float, name: Any = None
) -> Tensor:
    """Normalizes ``x`` by a mean and variance, then scales and offsets it (``tf.nn.batch_normalization``).

    Parameters
    ----------
    x : Tensor-like
        Floating values.
    mean, variance : Tensor-like
        Broadcastable against ``x`` (for example from ``moments``).
    offset, scale : Tensor-like or None
        ``beta`` and ``gamma``; None leaves that step out.
    variance_epsilon : float
        Added to the variance to avoid dividing by 0.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``(x - mean) * scale / sqrt(variance + eps) + offset``, in TensorFlow's
        order of operations. Differentiable in every tensor argument.
    """
    del name
    x = _core.convert_to_tensor(x)
    variance = _core.convert_to_tensor(variance)
    mean = _core.convert_to_tensor(mean, dtype=variance.dtype)
    inv = _core.math.rsqrt(variance + variance_epsilon)
    if scale is not None:
        inv = inv * _core.convert_to_tensor(scale, dtype=inv.dtype)
    shifted = -mean * inv if offset is None else _core.convert_to_tensor(offset, dtype=inv.dtype) - mean * inv
    return x * _core.cast(inv, x.dtype) + _core.cast(shifted, x.dtype)


def _pair(v: Any, what: str) -> list[int]:
    """A 2-D window parameter given as an int, a pair or ``[1, h, w, 1]``."""
    if isinstance(v, int):
        return [v, v]
    items = [int(d) for d in v]
    if len(items) == 1:
        return items * 2
    if len(items) == 2:
        return items
    if len(items) == 4:
        return items[1:3]
    raise ValueError(f"{what} must be an int or a list of 1, 2 or 4 ints, got {v!r}")


def conv1d(
    input: Any,
    filters: Any,
    stride: Any,
    padding: str,
    data_format: str = "NWC",
    dilations: Any = None,
    name: Any = None,
) -> Tensor:
    """1-D convolution of ``[batch, width, in_channels]`` by ``[k, in_channels, out_channels]`` (``tf.nn.conv1d``).

    Parameters
    ----------
    input : Tensor-like
        ``[batch, width, in_channels]`` (``NWC``, the only layout).
    filters : Tensor-like
        ``[k, in_channels, out_channels]``.
    stride : int or list of int
        The step along the width (an int, ``[s]`` or ``[1, s, 1]``).
    padding : str
        ``"SAME"`` or ``"VALID"``.
    data_format : str, default "NWC"
        Only ``NWC``; others raise ``ValueError``.
    dilations : int or list of int, optional
        The filter's dilation along the width.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[batch, out_width, out_channels]``: ``conv2d`` over a height of 1,
        as TensorFlow computes it. Differentiable in ``input`` and ``filters``.
    """
    del name
    if data_format != "NWC":
        raise ValueError(f"tapers supports data_format='NWC' only, got {data_format!r}")
    if padding not in ("SAME", "VALID"):
        # TF's attr check of the underlying Conv2D op (InvalidArgumentError).
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: "
            '"SAME", "VALID", "EXPLICIT"',
        )

    def width(v: Any) -> int:
        items = [int(v)] if isinstance(v, int) else [int(d) for d in v]
        if len(items) == 3:
            items = items[1:2]
        if len(items) != 1:
            raise ValueError(f"stride and dilations must be an int or a list of 1 or 3 ints, got {v!r}")
        return items[0]

    x = _core.expand_dims(_core.convert_to_tensor(input), 1)
    f = _core.expand_dims(_core.convert_to_tensor(filters), 0)
    d = 1 if dilations is None else width(dilations)
    y = conv2d(x, f, [1, width(stride)], padding, dilations=[1, d])
    return _core.squeeze(y, [1])


def depthwise_conv2d(
    input: Any,
    filter: Any,
    strides: Any,
    padding: str,
    data_format: str | None = None,
    dilations: Any = None,
    name: Any = None,
) -> Tensor:
    """Depthwise 2-D convolution: each input channel by its own filters (``tf.nn.depthwise_conv2d``).

    Parameters
    ----------
    input : Tensor-like
        ``[batch, height, width, channels]`` (NHWC).
    filter : Tensor-like
        ``[kh, kw, channels, multiplier]``.
    strides : list of int
        ``[1, sh, sw, 1]`` (4 ints, as TensorFlow requires: anything else is
        ``InvalidArgumentError``).
    padding : str
        ``"SAME"`` or ``"VALID"``.
    data_format : str, optional
        Only ``NHWC``.
    dilations : list of int, optional
        ``[dh, dw]`` (or an int).
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[batch, out_h, out_w, channels * multiplier]``, output channel
        ``c * multiplier + m`` from input channel ``c`` and filter ``m``.
        Differentiable in ``input`` and ``filter``.
    """
    del name
    if data_format not in (None, "NHWC"):
        raise ValueError(f"tapers supports data_format='NHWC' only, got {data_format!r}")
    x = _core.convert_to_tensor(input)
    f = _core.convert_to_tensor(filter)
    if x.ndim != 4 or f.ndim != 4 or x.shape[3] != f.shape[2]:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"input and filter must have the same depth: input shape {list(x.shape)}, filter shape "
            f"{list(f.shape)} [Op:DepthwiseConv2dNative]",
        )
    if isinstance(strides, int) or len(list(strides)) != 4:
        raise errors.InvalidArgumentError(
            None, None, "Sliding window strides field must specify 4 or 5 dimensions [Op:DepthwiseConv2dNative]"
        )
    st = _pair(strides, "strides")
    dil = None if dilations is None else _pair(dilations, "dilations")
    outs = [
        conv2d(x[..., c : c + 1], f[:, :, c : c + 1, :], st, padding, dilations=dil) for c in range(int(x.shape[3]))
    ]
    if not outs:
        raise errors.InvalidArgumentError(None, None, "depthwise_conv2d needs at least one channel")
    return _core.concat(outs, axis=3)


def conv2d_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: str = "SAME",
    data_format: str = "NHWC",
    dilations: Any = None,
    name: Any = None,
) -> Tensor:
    """The transpose of ``conv2d`` (``tf.nn.conv2d_transpose``): its gradient with respect to its input.

    Parameters
    ----------
    input : Tensor-like
        ``[batch, h, w, out_channels]``: what ``conv2d`` of an ``output_shape``
        tensor by ``filters`` would give.
    filters : Tensor-like
        ``[kh, kw, out_channels_of_this_op, in_channels]`` (TF's order:
        ``conv2d``'s filters).
    output_shape : list of int
        ``[batch, out_h, out_w, channels]``.
    strides : int or list of int
        As for ``conv2d``.
    padding : str, default "SAME"
        ``"SAME"`` or ``"VALID"``.
    data_format : str, default "NHWC"
        Only ``NHWC``.
    dilations : int or list of int, optional
        As for ``conv2d``.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``output_shape``. Computed as TensorFlow defines it (``Conv2DBackpropInput``):
        the gradient of ``conv2d`` with respect to its input, with ``input`` as
        the upstream gradient, so it is differentiable in ``input`` and
        ``filters`` to any order.
    """
    del name
    if data_format != "NHWC":
        raise ValueError(f"tapers supports data_format='NHWC' only, got {data_format!r}")
    from ._tape import GradientTape

    dy = _core.convert_to_tensor(input)
    f = _core.convert_to_tensor(filters)
    shape = [int(d) for d in output_shape]
    x0 = _core.zeros(shape, dtype=dy.dtype)
    with GradientTape() as tape:
        tape.watch(x0)
        y = conv2d(x0, f, strides, padding, dilations=dilations)
    if list(y.shape) != list(dy.shape):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Conv2DCustomBackpropInput: input has shape {list(dy.shape)}, but conv2d of output_shape {shape} "
            f"with filter shape {list(f.shape)} gives {list(y.shape)} [Op:Conv2DBackpropInput]",
        )
    grad = tape.gradient(y, x0, output_gradients=dy)
    assert grad is not None  # conv2d always connects its input
    return grad


def embedding_lookup(params: Any, ids: Any, max_norm: Any = None, name: Any = None) -> Tensor:
    """Rows ``ids`` of an embedding table (``tf.nn.embedding_lookup``).

    Parameters
    ----------
    params : Tensor, Variable, or list of them
        The table, or its shards along axis 0 split as TensorFlow 2 splits
        them (the ``"div"`` strategy: shard ``p`` holds a contiguous block of
        rows, the first ``rows % len(params)`` shards one more than the rest).
    ids : integer Tensor-like
        Row indices, any shape.
    max_norm : float, optional
        Rows whose L2 norm exceeds it are rescaled to it (after the lookup).
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        Shape ``ids.shape + params.shape[1:]``. The gradient with respect to
        the table is an ``IndexedSlices`` (one per shard), as in TensorFlow:
        an embedding step does not allocate the table.

    Raises
    ------
    ValueError
        ``params`` is an empty list.
    """
    del name
    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError("Need at least one param")
        if len(params) == 1:
            params = params[0]
    if isinstance(params, (list, tuple)):
        out = _sharded_lookup(list(params), _core.convert_to_tensor(ids))
    else:
        out = _core.gather(params, ids)
    if max_norm is not None:
        ids_rank = len(_core.convert_to_tensor(ids).shape)
        out = _ops.clip_by_norm(out, max_norm, axes=list(range(ids_rank, len(out.shape))))
    return out


def _sharded_lookup(params: list[Any], ids: Tensor) -> Tensor:
    # TensorFlow 2's "div" partitioning: one gather per shard (so each shard
    # gets its own sparse gradient), stitched back into the order of `ids`.
    import numpy as np

    flat = np.asarray(ids.numpy()).reshape(-1).astype(np.int64)
    sizes = [int(p.shape[0]) for p in params]
    n, parts = sum(sizes), len(params)
    per, extras = n // parts, n % parts
    if per == 0:
        assign = flat // (per + 1)
        local = flat % (per + 1)
    else:
        assign = np.maximum(flat // (per + 1), (flat - extras) // per)
        local = np.where(assign < extras, flat % (per + 1), (flat - extras) % per)
    pieces, order = [], []
    for p in range(parts):
        pos = np.nonzero(assign == p)[0]
        if len(pos):
            pieces.append(_core.gather(params[p], _core.constant(local[pos].astype(np.dtype(ids.dtype.name)))))
            order.append(pos)
    if not pieces:
        rows = _core.gather(params[0], _core.constant(np.zeros(0, np.dtype(ids.dtype.name))))
    else:
        stacked = pieces[0] if len(pieces) == 1 else _core.concat(pieces, 0)
        inverse = np.empty(len(flat), np.int64)
        inverse[np.concatenate(order)] = np.arange(len(flat))
        rows = _core.gather(stacked, _core.constant(inverse))
    return _core.reshape(rows, [*tuple(ids.shape), *tuple(params[0].shape)[1:]])


__all__ = [
    *__all__, "avg_pool", "batch_normalization", "conv1d", "conv2d_transpose", "depthwise_conv2d", "dropout",
    "embedding_lookup", "max_pool", "moments", "swish",
]  # fmt: skip

# Issue 20: more of tf.nn (python/tapers/_nn_extra.py, python/tapers/_math_extra.py).
from ._array_extra import space_to_batch  # noqa: E402
from ._math_extra import in_top_k, zero_fraction  # noqa: E402
from ._nn_extra import (  # noqa: E402
    approx_max_k,
    approx_min_k,
    atrous_conv2d,
    atrous_conv2d_transpose,
    avg_pool1d,
    batch_norm_with_global_normalization,
    compute_average_loss,
    conv1d_transpose,
    conv_transpose,
    convolution,
    crelu,
    depth_to_space,
    l2_loss,
    local_response_normalization,
    log_poisson_loss,
    max_pool1d,
    normalize_moments,
    pool,
    scale_regularization_loss,
    separable_conv2d,
    space_to_depth,
    sufficient_statistics,
    weighted_cross_entropy_with_logits,
    weighted_moments,
)

__all__ += [
    "avg_pool1d", "compute_average_loss", "crelu", "depth_to_space", "in_top_k", "l2_loss", "log_poisson_loss",
    "max_pool1d", "normalize_moments", "space_to_depth", "sufficient_statistics", "weighted_cross_entropy_with_logits",
    "weighted_moments", "zero_fraction", "space_to_batch", "atrous_conv2d", "batch_norm_with_global_normalization",
    "conv1d_transpose", "scale_regularization_loss", "separable_conv2d", "approx_max_k", "approx_min_k",
    "convolution", "local_response_normalization", "lrn", "pool", "atrous_conv2d_transpose", "conv_transpose",
]  # fmt: skip
lrn = local_response_normalization

# 3-D convolution and pooling (python/tapers/_nn3d.py).
from ._nn3d import avg_pool3d, conv3d, conv3d_transpose, max_pool3d  # noqa: E402

__all__ += ["avg_pool3d", "conv3d", "conv3d_transpose", "max_pool3d"]

from ._ctc import ctc_loss  # noqa: E402

__all__ += ["ctc_loss"]
