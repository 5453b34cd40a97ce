"""More of ``tf.nn``, ``tf.linalg`` and ``tf.random``, written as TensorFlow writes them.

The ``tf.nn`` losses and moments below are TensorFlow's own Python compositions
(``nn_impl.py``) over tapers' ops, so values and gradients follow; the pooling
and space/depth rearrangements are reshapes/transposes and the 2-D pools.
``tf.linalg`` helpers compose ``einsum``/``diag``/``svd``. The stateless random
ops keep TensorFlow's determinism contract (the same ``seed`` pair gives the
same values, any call, any program) but not TensorFlow's Philox bits: their
streams are tapers' own.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from . import _core, errors
from ._core import Tensor
from .dtypes import as_dtype


def _t(x: Any, dtype_hint: Any = None) -> Tensor:
    if dtype_hint is None:
        return _core.convert_to_tensor(x)
    return _core.convert_to_tensor(x, dtype_hint=dtype_hint)


# ------------------------------------------------------------------------------------------------- tf.nn


def l2_loss(t: Any, name: Any = None) -> Tensor:
    """``sum(t ** 2) / 2`` (``tf.nn.l2_loss``), a scalar of ``t``'s dtype.

    Parameters
    ----------
    t : Tensor-like
        Floating values.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        A scalar.
    """
    x = _t(t)
    return _core.reduce_sum(x * x) / _t(2, dtype_hint=x.dtype)


def crelu(features: Any, axis: int = -1, name: Any = None) -> Tensor:
    """``relu(concat([x, -x], axis))`` (``tf.nn.crelu``): doubles ``axis``.

    Parameters
    ----------
    features : Tensor-like
        Floating values.
    axis : int
        The axis concatenated along (default -1).
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``features``' shape with ``axis`` doubled.
    """
    x = _t(features)
    return _core.nn.relu(_core.concat([x, -x], axis))


def compute_average_loss(per_example_loss: Any, sample_weight: Any = None, global_batch_size: Any = None) -> Tensor:
    """``sum(per_example_loss * sample_weight) / global_batch_size`` (``tf.nn.compute_average_loss``);
    the batch size defaults to the loss's first dimension (one replica), and a zero batch size gives 0.

    As TensorFlow, weighted losses are multiplied in float32 (``scale_losses_by_sample_weight``
    casts both) and cast back, so a float64 loss with ``sample_weight`` keeps float32 precision.

    Parameters
    ----------
    per_example_loss : Tensor-like
        Floating losses, at least rank 1.
    sample_weight : Tensor-like, optional
        Weights broadcast against the losses.
    global_batch_size : int, optional
        The divisor; the losses' first dimension when None.

    Returns
    -------
    Tensor
        A scalar of the loss's dtype.
    """
    loss = _t(per_example_loss)
    input_dtype = loss.dtype
    if len(loss.shape) == 0:
        raise ValueError(
            f"Invalid value passed for `per_example_loss`. Expected a tensor with at least rank 1. "
            f"Received per_example_loss={loss} with rank 0"
        )
    if sample_weight is not None:
        w = _core.cast(_t(sample_weight), "float32")
        loss = _core.cast(_core.cast(loss, "float32") * w, input_dtype)
    if global_batch_size is None:
        gbs = _t(int(loss.shape[0]), dtype_hint="int32")
    else:
        gbs = _t(global_batch_size)
        if len(gbs.shape) != 0:
            raise ValueError("global_batch_size must be scalar.")
        if not as_dtype(gbs.dtype).is_integer:
            raise TypeError(f"global_batch_size must be an integer. {gbs!r} must be of integer dtype.")
        if int(np.asarray(gbs)) < 0:
            raise errors.InvalidArgumentError("global_batch_size must be non-negative.")
    total = _core.reduce_sum(loss)
    return _div_no_nan(total, _core.cast(gbs, input_dtype))


def weighted_cross_entropy_with_logits(labels: Any, logits: Any, pos_weight: Any, name: Any = None) -> Tensor:
    """TensorFlow's numerically stable weighted sigmoid cross entropy:
    ``(1 - z) * x + (1 + (q - 1) * z) * (log1p(exp(-|x|)) + relu(-x))``.

    Parameters
    ----------
    labels : Tensor-like
        Targets in [0, 1], the logits' shape.
    logits : Tensor-like
        Floating logits.
    pos_weight : float or Tensor-like
        Weight of the positive term.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        Elementwise losses, the logits' shape.
    """
    x = _t(logits)
    z = _t(labels, dtype_hint=x.dtype)
    if tuple(z.shape) != tuple(x.shape):
        raise ValueError(f"logits and labels must have the same shape, received ({x.shape} vs {z.shape}).")
    q = _t(pos_weight, dtype_hint=x.dtype)
    one = _t(1, dtype_hint=x.dtype)
    log_weight = one + (q - one) * z
    return (one - z) * x + log_weight * (_core.math.log1p(_core.exp(-_core.abs(x))) + _core.nn.relu(-x))


def log_poisson_loss(targets: Any, log_input: Any, compute_full_loss: bool = False, name: Any = None) -> Tensor:
    """``exp(log_input) - log_input * targets`` (``tf.nn.log_poisson_loss``), plus Stirling's
    approximation of ``log(targets!)`` for targets > 1 with ``compute_full_loss``.

    Parameters
    ----------
    targets : Tensor-like
        Counts, ``log_input``'s shape.
    log_input : Tensor-like
        Log of the predicted rate.
    compute_full_loss : bool
        Add the Stirling term.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        Elementwise losses.
    """
    c = _t(log_input)
    z = _t(targets, dtype_hint=c.dtype)
    if tuple(z.shape) != tuple(c.shape):
        raise ValueError(f"log_input and targets must have the same shape ({c.shape} vs {z.shape})")
    result = _core.exp(c) - c * z
    if compute_full_loss:
        one = _t(1, dtype_hint=c.dtype)
        half = _t(0.5, dtype_hint=c.dtype)
        point_five_log = half * _core.math.log(_t(2 * np.pi, dtype_hint=c.dtype) * z)
        stirling = z * _core.math.log(z) - z + point_five_log
        zeros = _core.zeros_like(z)
        ones = _core.ones_like(z)
        cond = _core.logical_and(_core.greater_equal(z, zeros), _core.less_equal(z, ones))
        result = result + _core.where(cond, zeros, stirling)
        del one
    return result


def sufficient_statistics(
    x: Any, axes: Any, shift: Any = None, keepdims: bool = False, name: Any = None
) -> tuple[Tensor, Tensor, Tensor, Tensor | None]:
    """``(count, mean_ss, var_ss, shift)`` over ``axes`` (``tf.nn.sufficient_statistics``):
    the count of reduced elements (``x``'s dtype), ``sum(x - shift)``, ``sum((x - shift)**2)``.

    Parameters
    ----------
    x : Tensor-like
        Floating values.
    axes : int or sequence of int
        Axes reduced.
    shift : Tensor-like, optional
        Subtracted before summing.
    keepdims : bool
        Keep the reduced axes.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    tuple
        ``(count, mean_ss, var_ss, shift)``; ``shift`` is None when not given.
    """
    xt = _t(x)
    kd = bool(keepdims)
    ax = [int(a) % max(len(xt.shape), 1) for a in (axes if isinstance(axes, (list, tuple)) else [axes])]
    count = 1
    for a in ax:
        count *= int(xt.shape[a])
    counts = _t(count, dtype_hint=xt.dtype)
    if shift is not None:
        s = _t(shift, dtype_hint=xt.dtype)
        m_ss = _core.reduce_sum(xt - s, ax, keepdims=kd)
        v_ss = _core.reduce_sum(_core.square(xt - s), ax, keepdims=kd)
        return counts, m_ss, v_ss, s
    return counts, _core.reduce_sum(xt, ax, keepdims=kd), _core.reduce_sum(_core.square(xt), ax, keepdims=kd), None


def normalize_moments(
    counts: Any, mean_ss: Any, variance_ss: Any, shift: Any, name: Any = None
) -> tuple[Tensor, Tensor]:
    """``(mean, variance)`` from sufficient statistics (``tf.nn.normalize_moments``).

    Parameters
    ----------
    counts : Tensor-like
        Count of the reduced elements.
    mean_ss : Tensor-like
        Sum of the (shifted) values.
    variance_ss : Tensor-like
        Sum of the (shifted) squares.
    shift : Tensor-like or None
        The shift used, added back to the mean.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    tuple of Tensor
        ``(mean, variance)``.
    """
    m = _t(mean_ss)
    divisor = _core.math.reciprocal(_t(counts, dtype_hint=m.dtype))
    if shift is not None:
        shifted_mean = m * divisor
        mean = shifted_mean + _t(shift, dtype_hint=m.dtype)
    else:
        shifted_mean = m * divisor
        mean = shifted_mean
    variance = _t(variance_ss, dtype_hint=m.dtype) * divisor - _core.square(shifted_mean)
    return mean, variance


def weighted_moments(
    x: Any, axes: Any, frequency_weights: Any, keepdims: bool = False, name: Any = None
) -> tuple[Tensor, Tensor]:
    """Frequency-weighted mean and variance over ``axes`` (``tf.nn.weighted_moments``);
    a zero total weight gives 0 (TensorFlow's ``div_no_nan``).

    Parameters
    ----------
    x : Tensor-like
        Floating values.
    axes : int or sequence of int
        Axes reduced.
    frequency_weights : Tensor-like
        Weights broadcast against ``x``.
    keepdims : bool
        Keep the reduced axes with length 1.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    tuple of Tensor
        ``(mean, variance)``.
    """
    xt = _t(x)
    w = _t(frequency_weights, dtype_hint=xt.dtype)
    ax = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    weighted_input_sum = _core.reduce_sum(w * xt, ax, keepdims=True)
    broadcasted_weights = w + _core.zeros_like(xt)
    sum_of_weights = _core.reduce_sum(broadcasted_weights, ax, keepdims=True)
    weighted_mean = _div_no_nan(weighted_input_sum, sum_of_weights)
    weighted_distsq = _core.reduce_sum(w * _core.square(xt - weighted_mean), ax, keepdims=True)
    weighted_variance = _div_no_nan(weighted_distsq, sum_of_weights)
    if not keepdims:
        weighted_mean = _core.squeeze(weighted_mean, ax)
        weighted_variance = _core.squeeze(weighted_variance, ax)
    return weighted_mean, weighted_variance


def _div_no_nan(a: Tensor, b: Tensor) -> Tensor:
    zero = _core.zeros_like(b)
    nz = _core.not_equal(b, zero)
    safe = _core.where(nz, b, _core.ones_like(b))
    return _core.where(nz, a / safe, _core.zeros_like(a / safe))


def space_to_depth(input: Any, block_size: int, data_format: str = "NHWC", name: Any = None) -> Tensor:
    """Moves ``block_size x block_size`` spatial blocks into channels (``tf.nn.space_to_depth``, NHWC).

    Parameters
    ----------
    input : Tensor-like
        ``[n, h, w, c]``, h and w divisible by ``block_size``.
    block_size : int
        The block edge, at least 2.
    data_format : str
        Layout; only TensorFlow's CPU default is supported.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[n, h/b, w/b, c*b*b]``, differentiable.
    """
    x = _t(input)
    b = int(block_size)
    if data_format != "NHWC":
        raise errors.InvalidArgumentError(f"Only NHWC data_format is supported on CPU, got {data_format}")
    if b < 2:
        raise errors.InvalidArgumentError(f"Value for attr 'block_size' of {b} must be at least minimum 2")
    if len(x.shape) != 4:
        raise errors.InvalidArgumentError(f"Input rank should be 4 instead of {len(x.shape)} [Op:SpaceToDepth]")
    n, h, w, c = (int(d) for d in x.shape)
    if h % b or w % b:
        raise errors.InvalidArgumentError(
            f"Image width {w} and height {h} should be divisible by block_size: {b} [Op:SpaceToDepth]"
        )
    y = _core.reshape(x, [n, h // b, b, w // b, b, c])
    y = _core.transpose(y, [0, 1, 3, 2, 4, 5])
    return _core.reshape(y, [n, h // b, w // b, b * b * c])


def depth_to_space(input: Any, block_size: int, data_format: str = "NHWC", name: Any = None) -> Tensor:
    """Moves channels into ``block_size x block_size`` spatial blocks (``tf.nn.depth_to_space``, NHWC).

    Parameters
    ----------
    input : Tensor-like
        ``[n, h, w, c]``, c divisible by ``block_size**2``.
    block_size : int
        The block edge, at least 2.
    data_format : str
        Layout; only TensorFlow's CPU default is supported.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[n, h*b, w*b, c/(b*b)]``, differentiable.
    """
    x = _t(input)
    b = int(block_size)
    if data_format != "NHWC":
        raise errors.InvalidArgumentError(f"Only NHWC data_format is supported on CPU, got {data_format}")
    if b < 2:
        raise errors.InvalidArgumentError(f"Value for attr 'block_size' of {b} must be at least minimum 2")
    if len(x.shape) != 4:
        raise errors.InvalidArgumentError(f"Input rank should be 4 instead of {len(x.shape)} [Op:DepthToSpace]")
    n, h, w, c = (int(d) for d in x.shape)
    if c % (b * b):
        raise errors.InvalidArgumentError(
            f"Input depth dimension {c} should be divisible by: {b * b} [Op:DepthToSpace]"
        )
    oc = c // (b * b)
    y = _core.reshape(x, [n, h, w, b, b, oc])
    y = _core.transpose(y, [0, 1, 3, 2, 4, 5])
    return _core.reshape(y, [n, h * b, w * b, oc])


def _pool1d(pool: Any, input: Any, ksize: Any, strides: Any, padding: str, data_format: str) -> Tensor:
    x = _t(input)
    if data_format not in ("NWC", "NHWC"):
        raise ValueError(f"data_format must be 'NWC', got {data_format}")
    if len(x.shape) != 3:
        raise ValueError(f"Input tensor must be of rank 3 but was {len(x.shape)}.")

    def one(v: Any, what: str) -> int:
        vals = [int(u) for u in (v if isinstance(v, (list, tuple)) else [v])]
        if len(vals) == 3:
            if vals[0] != 1 or vals[2] != 1:
                raise errors.UnimplementedError(
                    f"Pooling is not yet supported on the batch or depth dimension ({what})"
                )
            return vals[1]
        if len(vals) != 1:
            raise ValueError(f"{what} should be of length 1 or 3 but was {len(vals)}")
        return vals[0]

    k, s = one(ksize, "ksize"), one(strides, "strides")
    y = pool(_core.expand_dims(x, 1), [1, k], [1, s], padding)
    return _core.squeeze(y, [1])


def max_pool1d(
    input: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NWC", name: Any = None
) -> Tensor:
    """1-D max pooling over ``[batch, width, channels]`` (``tf.nn.max_pool1d``): the 2-D pool on a height of 1.

    Parameters
    ----------
    input : Tensor-like
        ``[batch, width, channels]``.
    ksize : int or sequence of int
        Window width (``[1, w, 1]`` also accepted).
    strides : int or sequence of int
        Window step.
    padding : str
        ``'SAME'`` or ``'VALID'``.
    data_format : str
        Layout; only TensorFlow's CPU default is supported.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[batch, out_width, channels]``.
    """
    return _pool1d(_core.nn.max_pool2d, input, ksize, strides, padding, data_format)


def avg_pool1d(
    input: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NWC", name: Any = None
) -> Tensor:
    """1-D average pooling over ``[batch, width, channels]`` (``tf.nn.avg_pool1d``).

    Parameters
    ----------
    input : Tensor-like
        ``[batch, width, channels]``.
    ksize : int or sequence of int
        Window width (``[1, w, 1]`` also accepted).
    strides : int or sequence of int
        Window step.
    padding : str
        ``'SAME'`` or ``'VALID'``.
    data_format : str
        Layout; only TensorFlow's CPU default is supported.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[batch, out_width, channels]``.
    """
    return _pool1d(_core.nn.avg_pool2d, input, ksize, strides, padding, data_format)


# --------------------------------------------------------------------------------------------- tf.linalg


def cross(a: Any, b: Any, name: Any = None) -> Tensor:
    """Cross product of 3-vectors on the last axis (``tf.linalg.cross``); batch axes must match.

    Parameters
    ----------
    a : Tensor-like
        ``[..., 3]``.
    b : Tensor-like
        ``a``'s shape.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``a``'s shape, differentiable in both.
    """
    at = _t(a)
    bt = _t(b, dtype_hint=at.dtype)
    if tuple(at.shape) != tuple(bt.shape):
        raise errors.InvalidArgumentError(
            f"Both inputs must be of same shape: {list(at.shape)} vs. {list(bt.shape)} [Op:Cross]"
        )
    if not len(at.shape) or int(at.shape[-1]) != 3:
        raise errors.FailedPreconditionError("Cross-products are only defined for 3-element vectors. [Op:Cross]")
    a0, a1, a2 = _core.unstack(at, axis=-1)
    b0, b1, b2 = _core.unstack(bt, axis=-1)
    return _core.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], -1)


def set_diag(input: Any, diagonal: Any, name: Any = "set_diag", k: int = 0, align: str = "RIGHT_LEFT") -> Tensor:
    """``input`` with its main diagonal replaced by ``diagonal`` (``tf.linalg.set_diag``, ``k=0``;
    other ``k`` raise ``NotImplementedError``); differentiable in both.

    Parameters
    ----------
    input : Tensor-like
        Matrices ``[..., M, N]``.
    diagonal : Tensor-like
        ``[..., min(M, N)]``.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.
    k : int
        Only 0 (the main diagonal) is supported.
    align : str
        Accepted for TensorFlow compatibility and ignored. (one diagonal needs no alignment)

    Returns
    -------
    Tensor
        ``input``'s shape and dtype.
    """
    x = _t(input)
    d = _t(diagonal, dtype_hint=x.dtype)
    if k != 0:
        raise NotImplementedError("tapers' set_diag supports only the main diagonal (k=0)")
    if len(x.shape) < 2:
        raise ValueError(f"input must be at least 2-dim, received shape: {list(x.shape)}")
    m, n = int(x.shape[-2]), int(x.shape[-1])
    if tuple(d.shape) != (*tuple(x.shape[:-2]), min(m, n)):
        raise errors.InvalidArgumentError(
            "Either first dimensions of diagonal don't match input.shape[:-2], or diagonal.shape[:-1] is not equal "
            "to the longests diagonal in range [lower_diag_index:upper_diag_index].\n"
            f"Input shape: [{','.join(str(int(v)) for v in x.shape)}]\n"
            f"Diagonal shape: [{','.join(str(int(v)) for v in d.shape)}]\n"
            f"Expected diagonal shape: [{','.join(str(v) for v in [*x.shape[:-2], min(m, n)])}] [Op:MatrixSetDiagV3]"
        )
    eye = np.eye(m, n, dtype=bool)
    eye_t = _core.constant(eye)
    full = _core.zeros_like(x) + _core.linalg.diag(d) if m == n else _pad_diag(d, m, n)
    return _core.where(eye_t, full, x)


def _pad_diag(d: Tensor, m: int, n: int) -> Tensor:
    sq = _core.linalg.diag(d)
    k = min(m, n)
    pads = [[0, 0]] * (len(d.shape) - 1) + [[0, m - k], [0, n - k]]
    return _core.pad(sq, pads)


def matrix_rank(a: Any, tol: Any = None, validate_args: bool = False, name: Any = None) -> Tensor:
    """Number of singular values above ``tol`` (``tf.linalg.matrix_rank``), int32; the default
    ``tol`` is ``max(s) * max(M, N) * eps``, as TensorFlow.

    Parameters
    ----------
    a : Tensor-like
        Float matrices ``[..., M, N]``.
    tol : float, optional
        Singular values above it count.
    validate_args : bool
        Accepted for TensorFlow compatibility and ignored.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        int32 ranks, one per matrix.
    """
    x = _t(a)
    s = _core.linalg.svd(x, compute_uv=False)
    if tol is None:
        eps = float(np.finfo(as_dtype(x.dtype).as_numpy_dtype).eps)
        m, n = int(x.shape[-2]), int(x.shape[-1])
        tolt = _core.reduce_max(s, -1, keepdims=True) * _t(max(m, n) * eps, dtype_hint=x.dtype)
    else:
        tolt = _t(tol, dtype_hint=x.dtype)
    return _core.reduce_sum(_core.cast(_core.greater(s, tolt), "int32"), -1)


def tensor_diag(diagonal: Any, name: Any = None) -> Tensor:
    """A rank-2k tensor with ``diagonal`` (rank k) on its diagonal (``tf.linalg.tensor_diag``).

    Parameters
    ----------
    diagonal : Tensor-like
        Rank k, k >= 1.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``diagonal.shape * 2``.
    """
    d = _t(diagonal)
    shape = [int(v) for v in d.shape]
    n = int(np.prod(shape)) if shape else 1
    flat = _core.reshape(d, [n])
    return _core.reshape(_core.linalg.diag(flat), shape + shape)


def tensor_diag_part(input: Any, name: Any = None) -> Tensor:
    """The diagonal of a rank-2k tensor of shape ``s + s`` (``tf.linalg.tensor_diag_part``).

    Parameters
    ----------
    input : Tensor-like
        Rank 2k, shape ``s + s``.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        The diagonal, shape ``s``.
    """
    x = _t(input)
    shape = [int(v) for v in x.shape]
    r = len(shape)
    if r % 2 or r == 0:
        raise errors.InvalidArgumentError(
            f"The rank of the tensor should be even and positive, got shape [{','.join(map(str, shape))}] [Op:DiagPart]"
        )
    for i in range(r // 2):
        if shape[i] != shape[i + r // 2]:
            raise errors.InvalidArgumentError(
                f"Invalid shape [{','.join(map(str, shape))}]: dimensions {i} and {i + r // 2} do not match. "
                "[Op:DiagPart]"
            )
    half = shape[: r // 2]
    n = int(np.prod(half)) if half else 1
    return _core.reshape(_core.linalg.diag_part(_core.reshape(x, [n, n])), half)


# --------------------------------------------------------------------------------------------- tf.random


def _seed_pair(seed: Any) -> int:
    s = np.asarray(_t(seed)).reshape(-1)
    if s.shape != (2,):
        raise ValueError(f"seed must have shape [2], not {list(np.asarray(seed).shape)}")
    return ((int(s[0]) & 0xFFFFFFFF) << 32 | (int(s[1]) & 0xFFFFFFFF)) ^ 0x5DEECE66D


def stateless_uniform(
    shape: Any,
    seed: Any,
    minval: Any = 0,
    maxval: Any = None,
    dtype: Any = "float32",
    name: Any = None,
    alg: Any = "auto_select",
) -> Tensor:
    """Uniform samples that depend only on ``seed`` (a pair of ints) and ``shape``
    (``tf.random.stateless_uniform``'s contract; not TensorFlow's Philox bits).

    Parameters
    ----------
    shape : sequence of int
        Shape of the result.
    seed : pair of int (list or int Tensor of shape [2])
        The key: the same seed and shape always give the same values.
    minval : number
        Lower bound.
    maxval : number, optional
        Upper bound (exclusive); 1 for floats, required for ints.
    dtype : DType
        Float or integer dtype.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.
    alg : str
        Accepted for TensorFlow compatibility and ignored. (tapers has one algorithm)

    Returns
    -------
    Tensor
        Samples of ``dtype`` (not recorded on tapes).
    """
    g = _core.random.Generator.from_seed(_seed_pair(seed))
    return g.uniform(shape, float(minval), None if maxval is None else float(maxval), dtype)


def stateless_normal(
    shape: Any,
    seed: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = "float32",
    name: Any = None,
    alg: Any = "auto_select",
) -> Tensor:
    """Normal samples that depend only on ``seed`` and ``shape`` (not TensorFlow's Philox bits).

    Parameters
    ----------
    shape : sequence of int
        Shape of the result.
    seed : pair of int (list or int Tensor of shape [2])
        The key: the same seed and shape always give the same values.
    mean : float
        Mean.
    stddev : float
        Standard deviation.
    dtype : DType
        Floating dtype.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.
    alg : str
        Accepted for TensorFlow compatibility and ignored. (tapers has one algorithm)

    Returns
    -------
    Tensor
        Samples of ``dtype`` (not recorded on tapes).
    """
    return _core.random.Generator.from_seed(_seed_pair(seed)).normal(shape, float(mean), float(stddev), dtype)


def stateless_truncated_normal(
    shape: Any,
    seed: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = "float32",
    name: Any = None,
    alg: Any = "auto_select",
) -> Tensor:
    """Truncated-normal samples (within two ``stddev``) that depend only on ``seed`` and ``shape``
    (not TensorFlow's Philox bits).

    Parameters
    ----------
    shape : sequence of int
        Shape of the result.
    seed : pair of int (list or int Tensor of shape [2])
        The key: the same seed and shape always give the same values.
    mean : float
        Mean.
    stddev : float
        Standard deviation.
    dtype : DType
        Floating dtype.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.
    alg : str
        Accepted for TensorFlow compatibility and ignored. (tapers has one algorithm)

    Returns
    -------
    Tensor
        Samples of ``dtype`` (not recorded on tapes).
    """
    g = _core.random.Generator.from_seed(_seed_pair(seed))
    return g.truncated_normal(shape, float(mean), float(stddev), dtype)


def categorical(logits: Any, num_samples: int, dtype: Any = None, seed: int | None = None, name: Any = None) -> Tensor:
    """``num_samples`` class indices per row of ``[batch, classes]`` ``logits`` (``tf.random.categorical``),
    drawn with the Gumbel-max rule from ``tapers.random``'s seeded stream; int64 unless ``dtype``.

    Parameters
    ----------
    logits : Tensor-like
        ``[batch, classes]`` unnormalized log-probabilities.
    num_samples : int
        Draws per row.
    dtype : DType, optional
        int64 (default) or int32.
    seed : int, optional
        Op-level seed (``tapers.random``'s rules).
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[batch, num_samples]`` class indices.
    """
    from . import random as _random

    lg = _t(logits)
    if len(lg.shape) != 2:
        raise errors.InvalidArgumentError(f"logits should be a matrix, got shape {list(lg.shape)} [Op:Multinomial]")
    b, c = int(lg.shape[0]), int(lg.shape[1])
    n = int(num_samples)
    u = np.asarray(_random.uniform([b, n, c], dtype="float64", seed=seed))
    return _gumbel_argmax(lg, u, dtype)


def scale_regularization_loss(regularization_loss: Any) -> Tensor:
    """The summed regularization loss divided by the number of replicas (``tf.nn.scale_regularization_loss``);
    tapers runs one replica per process, so the sum.

    Parameters
    ----------
    regularization_loss : Tensor-like
        Floating losses (summed).

    Returns
    -------
    Tensor
        A scalar.
    """
    loss = _t(regularization_loss)
    return _core.reduce_sum(loss)


def batch_norm_with_global_normalization(
    input: Any,  # noqa: A002 - TensorFlow's parameter name
    mean: Any,
    variance: Any,
    beta: Any,
    gamma: Any,
    variance_epsilon: Any,
    scale_after_normalization: Any,
    name: Any = None,
) -> Tensor:
    """TensorFlow's older batch-normalization signature: ``batch_normalization(input, mean,
    variance, beta, gamma if scale_after_normalization else None, variance_epsilon)``.

    Parameters
    ----------
    input, mean, variance : Tensor-like
        Input, mean and variance (TensorFlow 2's parameter names and order).
    beta, gamma : Tensor-like
        Offset and scale.
    variance_epsilon : float
        Added to the variance.
    scale_after_normalization : bool
        Whether ``gamma`` multiplies the result.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        The normalized input, differentiable in every tensor argument.
    """
    from . import nn

    scale = gamma if scale_after_normalization else None
    return nn.batch_normalization(input, mean, variance, beta, scale, variance_epsilon)


def atrous_conv2d(value: Any, filters: Any, rate: int, padding: str, name: Any = None) -> Tensor:
    """Dilated 2-D convolution (``tf.nn.atrous_conv2d``): ``conv2d`` with stride 1 and ``dilations=rate``.

    Parameters
    ----------
    value : Tensor-like
        ``[batch, height, width, in_channels]``.
    filters : Tensor-like
        ``[fh, fw, in_channels, out_channels]``.
    rate : int
        The dilation (at least 1).
    padding : str
        ``'SAME'`` or ``'VALID'``.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        The convolution, differentiable in both.
    """
    if int(rate) < 1:
        raise ValueError(f"rate {rate} cannot be less than one")
    return _core.nn.conv2d(value, filters, 1, padding, dilations=int(rate))


def separable_conv2d(
    input: Any,
    depthwise_filter: Any,
    pointwise_filter: Any,
    strides: Any,
    padding: str,
    data_format: Any = None,
    dilations: Any = None,
    name: Any = None,
) -> Tensor:
    """A depthwise convolution followed by a 1x1 convolution (``tf.nn.separable_conv2d``, NHWC).

    Parameters
    ----------
    input : Tensor-like
        ``[batch, height, width, in_channels]``.
    depthwise_filter : Tensor-like
        ``[fh, fw, in_channels, multiplier]``.
    pointwise_filter : Tensor-like
        ``[1, 1, in_channels * multiplier, out_channels]``.
    strides : sequence of int
        ``[1, s, s, 1]`` for the depthwise step.
    padding : str
        ``'SAME'`` or ``'VALID'``.
    data_format : str, optional
        ``'NHWC'`` only.
    dilations : sequence of int, optional
        Depthwise dilation rates.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[batch, out_height, out_width, out_channels]``, differentiable in all three.
    """
    from . import nn

    depth = nn.depthwise_conv2d(input, depthwise_filter, strides, padding, data_format, dilations)
    return _core.nn.conv2d(depth, pointwise_filter, 1, "VALID")


def conv1d_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: str = "SAME",
    data_format: str = "NWC",
    dilations: Any = None,
    name: Any = None,
) -> Tensor:
    """The gradient of ``conv1d`` with respect to its input (``tf.nn.conv1d_transpose``, NWC):
    ``conv2d_transpose`` on a height of 1.

    Parameters
    ----------
    input : Tensor-like
        ``[batch, width, in_channels]``.
    filters : Tensor-like
        ``[fw, out_channels, in_channels]``.
    output_shape : sequence of int
        ``[batch, out_width, out_channels]``.
    strides : int or sequence of int
        The step.
    padding : str
        ``'SAME'`` or ``'VALID'``.
    data_format : str
        ``'NWC'`` only.
    dilations : int, optional
        Dilation rate.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``output_shape``, differentiable in ``input`` and ``filters``.
    """
    from . import nn

    if data_format != "NWC":
        raise ValueError(f"data_format must be 'NWC', got {data_format}")
    x = _t(input)
    f = _t(filters, dtype_hint=x.dtype)
    if len(x.shape) != 3 or len(f.shape) != 3:
        raise ValueError(f"input and filters must be rank 3, got shapes {list(x.shape)} and {list(f.shape)}")
    out = [int(d) for d in output_shape]

    def one(v: Any) -> int:
        vals = [int(u) for u in (v if isinstance(v, (list, tuple)) else [v])]
        return vals[1] if len(vals) == 3 else vals[0]

    s = one(strides)
    d = 1 if dilations is None else one(dilations)
    y = nn.conv2d_transpose(
        _core.expand_dims(x, 1),
        _core.expand_dims(f, 0),
        [out[0], 1, out[1], out[2]],
        [1, s],
        padding,
        dilations=[1, d],
    )
    return _core.squeeze(y, [1])


def stateless_categorical(logits: Any, num_samples: int, seed: Any, dtype: Any = "int64", name: Any = None) -> Tensor:
    """Class indices drawn from ``logits`` as a function of ``seed`` only
    (``tf.random.stateless_categorical``'s contract; not TensorFlow's Philox bits).

    Parameters
    ----------
    logits : Tensor-like
        ``[batch, classes]`` unnormalized log-probabilities.
    num_samples : int
        Draws per row.
    seed : pair of int
        The key.
    dtype : DType
        int64 (default) or int32.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[batch, num_samples]``.
    """
    lg = _t(logits)
    if len(lg.shape) != 2:
        raise errors.InvalidArgumentError(
            f"logits should be a matrix, got shape {list(lg.shape)} [Op:StatelessMultinomial]"
        )
    b, c, n = int(lg.shape[0]), int(lg.shape[1]), int(num_samples)
    u = np.asarray(_core.random.Generator.from_seed(_seed_pair(seed)).uniform([b, n, c], 0.0, 1.0, "float64"))
    return _gumbel_argmax(lg, u, dtype)


def _gumbel_argmax(lg: Tensor, u: np.ndarray, dtype: Any) -> Tensor:
    out_dt = as_dtype(dtype or "int64")
    if out_dt.name not in ("int32", "int64"):
        raise TypeError(f"Value for attr 'output_dtype' of {out_dt.name} is not in the list of allowed values")
    b, n, c = u.shape
    if c == 0 and n:
        raise errors.InvalidArgumentError("num_classes should be positive, got: 0 [Op:Multinomial]")
    la = np.asarray(_core.cast(lg, "float64"))[:, None, :]
    gumbel = -np.log(-np.log(np.clip(u, 1e-300, 1.0)))
    idx = np.argmax(np.where(np.isneginf(la), -np.inf, la + gumbel), axis=-1) if n else np.zeros((b, 0), np.int64)
    return _core.constant(idx.astype(out_dt.as_numpy_dtype))


class ApproxTopK(NamedTuple):
    """TensorFlow's ``ApproxTopK(values, indices)`` named tuple."""

    values: Tensor
    indices: Tensor


def _k_along(operand: Any, k: int, reduction_dimension: int, largest: bool) -> ApproxTopK:
    x = _t(operand)
    dt = as_dtype(x.dtype)
    if dt.name not in ("float16", "bfloat16", "float32"):
        tf_name = {"float64": "double"}.get(dt.name, dt.name)
        raise errors.InvalidArgumentError(
            f"Value for attr 'T' of {tf_name} is not in the list of allowed values: half, bfloat16, float"
        )
    r = len(x.shape)
    if r == 0:
        raise errors.InvalidArgumentError("operand must have rank >= 1 [Op:ApproxTopK]")
    d = int(reduction_dimension) % r
    kk = int(k)
    if not 0 <= kk <= int(x.shape[d]):
        raise errors.InvalidArgumentError(f"k must be in [0, {int(x.shape[d])}], got {kk} [Op:ApproxTopK]")
    perm = [i for i in range(r) if i != d] + [d]
    inv = list(np.argsort(perm))
    xt = _core.transpose(x, perm) if d != r - 1 else x
    order = _core.argsort(xt, axis=-1, direction="DESCENDING" if largest else "ASCENDING", stable=True)
    idx = order[..., :kk]
    vals = _core.gather(xt, idx, axis=r - 1, batch_dims=r - 1)
    if d != r - 1:
        vals, idx = _core.transpose(vals, inv), _core.transpose(idx, inv)
    return ApproxTopK(vals, idx)


def approx_max_k(
    operand: Any,
    k: int,
    reduction_dimension: int = -1,
    recall_target: float = 0.95,
    reduction_input_size_override: int = -1,
    aggregate_to_topk: bool = True,
    name: Any = None,
) -> ApproxTopK:
    """The ``k`` largest values along ``reduction_dimension`` and their indices (``tf.math.approx_max_k``).

    tapers computes them exactly (TensorFlow's CPU kernel is exact too): ties in index order,
    as ``top_k``; the values are differentiable.

    Parameters
    ----------
    operand : Tensor-like
        float16, bfloat16 or float32 values (TensorFlow's op allows no other dtype), rank >= 1.
    k : int
        How many to keep.
    reduction_dimension : int
        The axis searched (default -1).
    recall_target, reduction_input_size_override, aggregate_to_topk
        Accepted for TensorFlow compatibility (they tune the approximation, which tapers does not make).
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    ApproxTopK
        ``(values, indices)``, indices int32.
    """
    return _k_along(operand, k, reduction_dimension, largest=True)


def approx_min_k(
    operand: Any,
    k: int,
    reduction_dimension: int = -1,
    recall_target: float = 0.95,
    reduction_input_size_override: int = -1,
    aggregate_to_topk: bool = True,
    name: Any = None,
) -> ApproxTopK:
    """The ``k`` smallest values along ``reduction_dimension`` and their indices (``tf.math.approx_min_k``),
    computed exactly (TensorFlow 2.21 has no CPU kernel for it; accelerators approximate).

    Parameters
    ----------
    operand : Tensor-like
        float16, bfloat16 or float32 values, rank >= 1.
    k : int
        How many to keep.
    reduction_dimension : int
        The axis searched (default -1).
    recall_target, reduction_input_size_override, aggregate_to_topk
        Accepted for TensorFlow compatibility.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    ApproxTopK
        ``(values, indices)``, smallest first, ties in index order.
    """
    return _k_along(operand, k, reduction_dimension, largest=False)


def local_response_normalization(
    input: Any, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0, beta: float = 0.5, name: Any = None
) -> Tensor:
    """``input / (bias + alpha * sqr_sum) ** beta`` with ``sqr_sum`` the sum of squares over the
    ``2 * depth_radius + 1`` neighbouring channels (``tf.nn.local_response_normalization`` / ``lrn``).

    Parameters
    ----------
    input : Tensor-like
        ``[batch, height, width, channels]`` of float16, bfloat16 or float32 (TensorFlow's op allows
        no other dtype).
    depth_radius : int
        Half-width of the channel window.
    bias, alpha, beta : float
        The normalization's constants.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``input``'s shape, differentiable (TensorFlow's LRN gradient, by the chain rule).
    """
    x = _t(input)
    if len(x.shape) != 4:
        raise errors.InvalidArgumentError("input must be 4-dimensional [Op:LRN]")
    dt = as_dtype(x.dtype)
    if dt.name not in ("float16", "bfloat16", "float32"):
        tf_name = {"float64": "double"}.get(dt.name, dt.name)
        raise errors.InvalidArgumentError(
            f"Value for attr 'T' of {tf_name} is not in the list of allowed values: half, bfloat16, float"
        )
    r = int(depth_radius)
    if r < 0:
        raise errors.InvalidArgumentError(f"depth_radius = {r} must be non-negative [Op:LRN]")
    c = int(x.shape[-1])
    sq = _core.pad(x * x, [[0, 0], [0, 0], [0, 0], [r, r]])
    total = sq[..., 0:c]
    for i in range(1, 2 * r + 1):
        total = total + sq[..., i : i + c]
    scale = _t(bias, dtype_hint=x.dtype) + _t(alpha, dtype_hint=x.dtype) * total
    return x / _core.pow(scale, _t(beta, dtype_hint=x.dtype))


def convolution(
    input: Any,
    filters: Any,
    strides: Any = None,
    padding: str = "VALID",
    data_format: Any = None,
    dilations: Any = None,
    name: Any = None,
) -> Tensor:
    """N-D convolution by the input's rank (``tf.nn.convolution``): ``conv1d`` for rank 3, ``conv2d``
    for rank 4; rank 5 (3-D convolution) raises ``NotImplementedError`` (tapers has no conv3d).

    Parameters
    ----------
    input : Tensor-like
        ``[batch, *spatial, in_channels]``.
    filters : Tensor-like
        ``[*window, in_channels, out_channels]``.
    strides : int or sequence of int, optional
        Steps per spatial dim (default 1).
    padding : str
        ``'SAME'`` or ``'VALID'``.
    data_format : str, optional
        Channels-last only.
    dilations : int or sequence of int, optional
        Dilation per spatial dim (default 1).
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        The convolution, differentiable in both.
    """
    from . import nn

    x = _t(input)
    r = len(x.shape)
    if r == 3:
        return nn.conv1d(x, filters, 1 if strides is None else strides, padding, data_format or "NWC", dilations)
    if r == 4:
        return _core.nn.conv2d(x, filters, 1 if strides is None else strides, padding, data_format, dilations)
    if r == 5:
        raise NotImplementedError("tapers has no 3-D convolution (tf.nn.conv3d) yet")
    raise ValueError(f"`input` must have rank 3, 4 or 5 (one to three spatial dims), got {r}")


def pool(
    input: Any,
    window_shape: Any,
    pooling_type: str,
    strides: Any = None,
    padding: str = "VALID",
    data_format: Any = None,
    dilations: Any = None,
    name: Any = None,
) -> Tensor:
    """Max or average pooling by the input's rank (``tf.nn.pool``): 1-D or 2-D windows.

    Parameters
    ----------
    input : Tensor-like
        ``[batch, *spatial, channels]`` with one or two spatial dims.
    window_shape : sequence of int
        The window per spatial dim.
    pooling_type : str
        ``'MAX'`` or ``'AVG'``.
    strides : sequence of int, optional
        Steps (default 1).
    padding : str
        ``'SAME'`` or ``'VALID'``.
    data_format : str, optional
        Channels-last only.
    dilations : sequence of int, optional
        Only 1 (dilated pooling raises ``NotImplementedError``).
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        The pooled values, differentiable.
    """
    x = _t(input)
    window = [int(w) for w in window_shape]
    n = len(window)
    if len(x.shape) != n + 2:
        raise ValueError(f"Input tensor must be of rank {n + 2} but was {len(x.shape)}.")
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"Invalid pooling_type: {pooling_type}")
    st = [1] * n if strides is None else [int(s) for s in strides]
    if dilations is not None and any(int(d) != 1 for d in dilations):
        raise NotImplementedError("tapers' pool supports only dilations of 1")
    if data_format not in (None, "NWC", "NHWC"):
        raise ValueError(f"data_format must be channels-last, got {data_format}")
    if n == 1:
        fn = max_pool1d if pooling_type == "MAX" else avg_pool1d
        return fn(x, window, st, padding)
    if n == 2:
        op = _core.nn.max_pool2d if pooling_type == "MAX" else _core.nn.avg_pool2d
        return op(x, window, st, padding)
    raise NotImplementedError("tapers pools over one or two spatial dims")


_PADE = {
    3: [120.0, 60.0, 12.0],
    5: [30240.0, 15120.0, 3360.0, 420.0, 30.0],
    7: [17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0],
    9: [17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0, 3960.0, 90.0],
    13: [
        64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
        10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0,
    ],
}  # fmt: skip


def _pade(m: Tensor, order: int) -> tuple[Tensor, Tensor]:
    """TensorFlow's ``_matrix_exp_padeN``: the ``(U, V)`` of the order-N Padé approximant."""
    b = [_t(v, dtype_hint=m.dtype) for v in _PADE[order]]
    n = int(m.shape[-1])
    ident = _core.eye(n, batch_shape=[int(m.shape[0])], dtype=m.dtype)
    mm = _core.linalg.matmul
    m2 = mm(m, m)
    if order == 3:
        return mm(m, m2 + b[1] * ident), b[2] * m2 + b[0] * ident
    m4 = mm(m2, m2)
    if order == 5:
        return mm(m, m4 + b[3] * m2 + b[1] * ident), b[4] * m4 + b[2] * m2 + b[0] * ident
    m6 = mm(m4, m2)
    if order == 7:
        u = mm(m, m6 + b[5] * m4 + b[3] * m2 + b[1] * ident)
        return u, b[6] * m6 + b[4] * m4 + b[2] * m2 + b[0] * ident
    if order == 9:
        m8 = mm(m6, m2)
        u = mm(m, m8 + b[7] * m6 + b[5] * m4 + b[3] * m2 + b[1] * ident)
        return u, b[8] * m8 + b[6] * m6 + b[4] * m4 + b[2] * m2 + b[0] * ident
    tmp_u = mm(m6, m6 + b[11] * m4 + b[9] * m2) + b[7] * m6 + b[5] * m4 + b[3] * m2 + b[1] * ident
    tmp_v = b[12] * m6 + b[10] * m4 + b[8] * m2
    return mm(m, tmp_u), mm(m6, tmp_v) + b[6] * m6 + b[4] * m4 + b[2] * m2 + b[0] * ident


def expm(input: Any, name: Any = None) -> Tensor:
    """The matrix exponential of square matrices (``tf.linalg.expm``), by TensorFlow's own algorithm:
    Padé approximants of order 3-7 (float32) or 3-13 (float64) chosen by the 1-norm, with scaling and
    squaring (Higham 2005), written with the same ops so the gradient is TensorFlow's too.

    Parameters
    ----------
    input : Tensor-like
        float32 or float64 matrices ``[..., M, M]``.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``exp(input)``, ``input``'s shape; all NaN when a norm is not finite.
    """
    x = _t(input)
    shape = [int(d) for d in x.shape]
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise errors.InvalidArgumentError(f"Input matrix must be square, got shape {shape} [Op:MatrixSolve]")
    if shape[-1] == 0:
        return x
    dt = as_dtype(x.dtype)
    if dt.name not in ("float32", "float64"):
        raise ValueError(f"tapers' linalg.expm supports float32 and float64 matrices, got {dt.name}")
    m = _core.reshape(x, [-1, shape[-1], shape[-1]])
    l1 = _core.reduce_max(_core.reduce_sum(_core.abs(m), 1), -1)  # [batch]
    l1_np = np.asarray(l1).astype(np.float64)
    orders: tuple[int, ...]
    conds: tuple[float, ...]
    if dt.name == "float32":
        maxnorm, orders, conds = 3.925724783138660, (3, 5, 7), (4.258730016922831e-001, 1.880152677804762e000)
    else:
        maxnorm, orders = 5.371920351148152, (3, 5, 7, 9, 13)
        conds = (1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001, 2.097847961257068e000)
    if not np.all(np.isfinite(l1_np)):
        return _core.fill(shape, _t(float("nan"), dtype_hint=x.dtype))
    # floor(log2(norm / maxnorm)) has a zero gradient in TF, so a constant here changes no derivative.
    with np.errstate(divide="ignore"):
        squarings = np.maximum(np.floor(np.log(l1_np / maxnorm) / np.log(2.0)), 0.0)
    scale = _core.constant((2.0**squarings).reshape(-1, 1, 1).astype(dt.as_numpy_dtype))
    pairs = [_pade(m, o) for o in orders[:-1]] + [_pade(m / scale, orders[-1])]
    pick = np.searchsorted(np.asarray(conds), l1_np, side="right")  # branch per matrix, TF's `less` chain
    u, v = pairs[-1]
    for k in range(len(pairs) - 2, -1, -1):
        sel = _core.constant((pick <= k).reshape(-1, 1, 1))
        u = _core.where(sel, pairs[k][0], u)
        v = _core.where(sel, pairs[k][1], v)
    result = _core.linalg.solve(-u + v, u + v)
    for i in range(int(squarings.max(initial=0.0))):
        sq = _core.constant((i < squarings).reshape(-1, 1, 1))
        result = _core.where(sq, _core.linalg.matmul(result, result), result)
    return _core.reshape(result, shape)


def _compact_diagonals(diagonals: Any, diagonals_format: str, what: str) -> Tensor:
    """``[..., 3, M]`` (superdiagonal, diagonal, subdiagonal) from any of TF's three formats."""
    if diagonals_format == "compact":
        d = _t(diagonals)
    elif diagonals_format == "sequence":
        if not isinstance(diagonals, (list, tuple)) or len(diagonals) != 3:
            raise ValueError(f"Expected diagonals to be a sequence of length 3, got {diagonals!r}")
        sup, main, sub = (_t(v) for v in diagonals)
        sup = _t(sup, dtype_hint=main.dtype)
        sub = _t(sub, dtype_hint=main.dtype)
        m = int(main.shape[-1])
        # tridiagonal_solve (not matmul, as TF) pads off-diagonals of length M - 1 at their unused end.
        if what == "tridiagonal_solve" and int(sup.shape[-1]) == m - 1:
            sup = _core.pad(sup, [[0, 0]] * (len(sup.shape) - 1) + [[0, 1]])
        if what == "tridiagonal_solve" and int(sub.shape[-1]) == m - 1:
            sub = _core.pad(sub, [[0, 0]] * (len(sub.shape) - 1) + [[1, 0]])
        if int(sup.shape[-1]) != m or int(sub.shape[-1]) != m:
            raise errors.InvalidArgumentError(f"Invalid superdiagonal or subdiagonal shape. [Op:{what}]")
        d = _core.stack([sup, main, sub], -2)
    elif diagonals_format == "matrix":
        a = _t(diagonals)
        if len(a.shape) < 2 or int(a.shape[-1]) != int(a.shape[-2]):
            raise ValueError(f"Expected last two dimensions of diagonals to be same, got {list(a.shape)}")
        m = int(a.shape[-1])
        rows = np.arange(m)
        sup_idx = np.stack([rows, np.minimum(rows + 1, m - 1)], -1)
        sub_idx = np.stack([rows, np.maximum(rows - 1, 0)], -1)
        flat = _core.reshape(a, [-1, m, m])
        nb = int(flat.shape[0])
        bidx = np.repeat(np.arange(nb), m)

        def pick(idx: np.ndarray, valid: np.ndarray) -> Tensor:
            full = np.concatenate([bidx[:, None], np.tile(idx, (nb, 1))], -1).reshape(nb, m, 3)
            vals = _core.gather_nd(flat, _core.constant(full))
            return _core.where(_core.constant(valid), vals, _core.zeros_like(vals))

        sup = pick(sup_idx, rows < m - 1)
        sub = pick(sub_idx, rows > 0)
        main = _core.linalg.diag_part(flat)
        d = _core.reshape(_core.stack([sup, main, sub], -2), [*[int(v) for v in a.shape[:-2]], 3, m])
    else:
        raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
    if len(d.shape) < 2 or int(d.shape[-2]) != 3:
        raise ValueError(f"Expected 3 diagonals got {int(d.shape[-2]) if len(d.shape) >= 2 else 0}")
    return d


def tridiagonal_matmul(diagonals: Any, rhs: Any, diagonals_format: str = "compact", name: Any = None) -> Tensor:
    """A tridiagonal matrix times ``rhs`` (``tf.linalg.tridiagonal_matmul``), from the three diagonals:
    ``out[i] = sup[i] * rhs[i+1] + main[i] * rhs[i] + sub[i] * rhs[i-1]``.

    Parameters
    ----------
    diagonals : Tensor-like or sequence of three
        ``'compact'``: ``[..., 3, M]`` (superdiagonal, diagonal, subdiagonal; ``sup[-1]`` and ``sub[0]``
        unused); ``'sequence'``: three tensors; ``'matrix'``: ``[..., M, M]``.
    rhs : Tensor-like
        ``[..., M, N]``.
    diagonals_format : str
        ``'compact'`` (default), ``'sequence'`` or ``'matrix'``.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[..., M, N]``, differentiable in both.
    """
    d = _compact_diagonals(diagonals, diagonals_format, "tridiagonal_matmul")
    r = _t(rhs, dtype_hint=d.dtype)
    m = int(d.shape[-1])
    if len(r.shape) < 2 or int(r.shape[-2]) != m:
        raise ValueError(f"Expected rhs of shape [..., {m}, N], got {list(r.shape)}")
    sup, main, sub = (_core.expand_dims(v, -1) for v in _core.unstack(d, axis=-2))
    nd = len(r.shape)
    below = _core.pad(r[..., 1:, :], [[0, 0]] * (nd - 2) + [[0, 1], [0, 0]])  # rhs[i + 1]
    above = _core.pad(r[..., :-1, :], [[0, 0]] * (nd - 2) + [[1, 0], [0, 0]])  # rhs[i - 1]
    return sup * below + main * r + sub * above


def tridiagonal_solve(
    diagonals: Any,
    rhs: Any,
    diagonals_format: str = "compact",
    transpose_rhs: bool = False,
    conjugate_rhs: bool = False,
    name: Any = None,
    partial_pivoting: bool = True,
    perturb_singular: bool = False,
) -> Tensor:
    """Solves tridiagonal systems (``tf.linalg.tridiagonal_solve``) through the dense matrix and
    ``linalg.solve`` (LU with partial pivoting), so the gradient is the solve's, restricted to the
    three diagonals (TensorFlow's TridiagonalSolve gradient).

    Parameters
    ----------
    diagonals : Tensor-like or sequence of three
        As :func:`tridiagonal_matmul`.
    rhs : Tensor-like
        ``[..., M, K]``, or ``[..., M]`` (a vector, with ``diagonals`` of one more rank).
    diagonals_format : str
        ``'compact'`` (default), ``'sequence'`` or ``'matrix'``.
    transpose_rhs : bool
        Solve for ``rhs``'s transpose (``rhs`` given as ``[..., K, M]``).
    conjugate_rhs : bool
        Conjugate ``rhs`` (no effect on tapers' real dtypes).
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.
    partial_pivoting : bool
        Accepted; the dense solve always pivots.
    perturb_singular : bool
        Only False. Differs from TensorFlow: an exactly singular system raises ``InvalidArgumentError``
        ("Input matrix is not invertible") where TensorFlow returns NaN.

    Returns
    -------
    Tensor
        The solution, ``rhs``'s shape (``[..., M, K]`` for a transposed ``rhs``).
    """
    if perturb_singular:
        raise NotImplementedError("tapers' tridiagonal_solve does not perturb singular systems")
    d = _compact_diagonals(diagonals, diagonals_format, "tridiagonal_solve")
    r = _t(rhs, dtype_hint=d.dtype)
    m = int(d.shape[-1])
    sup, main, sub = _core.unstack(d, axis=-2)
    dense = _core.linalg.diag(main)
    if m > 1:
        upper = _core.pad(_core.linalg.diag(sup[..., :-1]), [[0, 0]] * (len(d.shape) - 2) + [[0, 1], [1, 0]])
        lower = _core.pad(_core.linalg.diag(sub[..., 1:]), [[0, 0]] * (len(d.shape) - 2) + [[1, 0], [0, 1]])
        dense = dense + upper + lower
    vector = len(r.shape) == len(d.shape) - 1
    if vector:
        r = _core.expand_dims(r, -1)
    elif transpose_rhs:
        r = _core.linalg.matrix_transpose(r)
    if int(r.shape[-2]) != m:
        raise ValueError(
            f"Expected number of left-hand sided and right-hand sides to be equal, got {m} and {int(r.shape[-2])}"
        )
    out = _core.linalg.solve(dense, r)
    return _core.squeeze(out, [-1]) if vector else out


def split(seed: Any, num: int = 2, alg: Any = "auto_select") -> Tensor:
    """``num`` new stateless seeds derived from ``seed`` (``tf.random.split``): a function of
    ``seed`` and ``num`` only, as TensorFlow's contract, but not TensorFlow's Philox values.

    Parameters
    ----------
    seed : pair of int
        The parent seed.
    num : int
        How many seeds.
    alg : str
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        int64 ``[num, 2]``, each row usable as a ``seed`` of the ``stateless_*`` ops.
    """
    g = _core.random.Generator.from_seed(_seed_pair(seed) ^ 0x9E3779B97F4A7C15)
    return _core.cast(g.uniform([int(num), 2], 0.0, 2147483647.0, "int64"), "int64")


def fold_in(seed: Any, data: Any, alg: Any = "auto_select") -> Tensor:
    """A new stateless seed from ``seed`` and an integer ``data`` (``tf.random.fold_in``): a function
    of both only, as TensorFlow's contract, but not TensorFlow's Philox values.

    Parameters
    ----------
    seed : pair of int
        The parent seed.
    data : int
        The value folded in (e.g. a step or replica number).
    alg : str
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        int64 ``[2]``.
    """
    d = int(np.asarray(_t(data)))
    key = (_seed_pair(seed) * 0x100000001B3 + (d & 0xFFFFFFFFFFFFFFFF)) & 0xFFFFFFFFFFFFFFFF
    g = _core.random.Generator.from_seed(key ^ 0xC2B2AE3D27D4EB4F)
    return _core.cast(g.uniform([2], 0.0, 2147483647.0, "int64"), "int64")


def conv_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: str = "SAME",
    data_format: Any = None,
    dilations: Any = None,
    name: Any = None,
) -> Tensor:
    """Transposed convolution by the input's rank (``tf.nn.conv_transpose``): ``conv1d_transpose`` for
    rank 3, ``conv2d_transpose`` for rank 4; rank 5 raises ``NotImplementedError`` (no conv3d_transpose).

    Parameters
    ----------
    input : Tensor-like
        ``[batch, *spatial, in_channels]``.
    filters : Tensor-like
        ``[*window, out_channels, in_channels]``.
    output_shape : sequence of int
        The result's shape.
    strides : int or sequence of int
        The steps.
    padding : str
        ``'SAME'`` or ``'VALID'``.
    data_format : str, optional
        Channels-last only.
    dilations : int or sequence of int, optional
        Dilation rates.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``output_shape``, differentiable in ``input`` and ``filters``.
    """
    from . import nn

    x = _t(input)
    r = len(x.shape)
    if r == 3:
        return conv1d_transpose(x, filters, output_shape, strides, padding, data_format or "NWC", dilations)
    if r == 4:
        return nn.conv2d_transpose(x, filters, output_shape, strides, padding, data_format or "NHWC", dilations)
    if r == 5:
        raise NotImplementedError("tapers has no 3-D transposed convolution (tf.nn.conv3d_transpose) yet")
    raise ValueError(f"`input` must have rank 3, 4 or 5, got {r}")


def atrous_conv2d_transpose(
    value: Any, filters: Any, output_shape: Any, rate: int, padding: str, name: Any = None
) -> Tensor:
    """The transpose of :func:`atrous_conv2d` (``tf.nn.atrous_conv2d_transpose``): ``conv2d_transpose``
    with stride 1 and ``dilations=rate``.

    Parameters
    ----------
    value : Tensor-like
        ``[batch, height, width, in_channels]``.
    filters : Tensor-like
        ``[fh, fw, out_channels, in_channels]``.
    output_shape : sequence of int
        ``[batch, out_height, out_width, out_channels]``.
    rate : int
        The dilation (at least 1).
    padding : str
        ``'SAME'`` or ``'VALID'``.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``output_shape``, differentiable in ``value`` and ``filters``.
    """
    from . import nn

    if int(rate) < 1:
        raise ValueError(f"rate {rate} cannot be less than one")
    return nn.conv2d_transpose(value, filters, output_shape, 1, padding, dilations=int(rate))
