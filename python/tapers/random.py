"""``tapers.random``: seeded random tensors, with TensorFlow's seed rules.

* ``set_seed(s)`` makes every later random op reproducible across runs.
* An op-level ``seed`` makes that op reproducible; repeated calls with the
  same seed continue one stream (as TF), so they differ from each other.
* With neither, values come from the operating system's entropy.

The streams are tapers' own (PCG64); they do not reproduce TensorFlow's numbers.
"""

from __future__ import annotations

import threading
from typing import Any

from ._core import Tensor, convert_to_tensor, gather
from ._core.random import *  # noqa: F403
from ._core.random import Generator
from ._core.random import __all__ as __all__
from .dtypes import float32

__all__ = [*__all__, "get_global_generator", "normal", "set_seed", "shuffle", "truncated_normal", "uniform"]

_DEFAULT_GRAPH_SEED = 87654321
_lock = threading.Lock()
_global_seed: int | None = None
_op_count = 0
_streams: dict[tuple[int, int], Generator] = {}
_entropy = Generator.from_non_deterministic_state()


def set_seed(seed: int | None) -> None:
    """Sets the global seed (``tf.random.set_seed``); ``None`` clears it.

    Parameters
    ----------
    seed : int or None
        The global seed. Setting it also restarts the count of unseeded ops,
        so a program re-run from ``set_seed`` draws the same numbers.

    Notes
    -----
    Differences from TensorFlow: the seed rules are TensorFlow's, but the
    streams are tapers' own (PCG64), so a seed gives different numbers than
    in TensorFlow.
    """
    global _global_seed, _op_count
    with _lock:
        _global_seed = None if seed is None else int(seed)
        _op_count = 0
        _streams.clear()


def get_global_generator() -> Generator:
    """The generator used for unseeded draws.

    Returns
    -------
    Generator
        The generator set with ``set_global_generator`` when one was; otherwise the stream
        for the current global seed (OS entropy when unset).
    """
    if _global_generator is not None:
        return _global_generator
    return _stream(None)


def _stream(seed: int | None) -> Generator:
    global _op_count
    with _lock:
        if seed is None and _global_seed is None:
            return _entropy
        g = _DEFAULT_GRAPH_SEED if _global_seed is None else _global_seed
        if seed is None:
            _op_count += 1
            seed = _op_count
        key = (g, int(seed))
        if key not in _streams:
            _streams[key] = Generator.from_seed(((g & 0xFFFFFFFF) << 32 | (int(seed) & 0xFFFFFFFF)) & (2**64 - 1))
        return _streams[key]


def normal(
    shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = float32, seed: int | None = None, name: Any = None
) -> Tensor:
    """Samples from a normal distribution.

    Parameters
    ----------
    shape : sequence of int
        Shape of the result.
    mean, stddev : float, default 0.0, 1.0
        Mean and standard deviation.
    dtype : DType, default float32
        Floating dtype of the result.
    seed : int, optional
        Op-level seed, combined with the global seed by TensorFlow's rules:
        both unset draws from OS entropy; either set gives a repeatable stream.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        A constant (not recorded on tapes).

    Notes
    -----
    Differences from TensorFlow: the seed rules are TensorFlow's, but the
    streams are tapers' own (PCG64), so a seed gives different numbers than
    in TensorFlow.
    """
    return _stream(seed).normal(shape, float(mean), float(stddev), dtype)


def truncated_normal(
    shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = float32, seed: int | None = None, name: Any = None
) -> Tensor:
    """Normal samples, redrawn when more than two standard deviations from the mean.

    Parameters
    ----------
    shape : sequence of int
        Shape of the result.
    mean, stddev : float, default 0.0, 1.0
        Mean and standard deviation before truncation.
    dtype : DType, default float32
        Floating dtype of the result.
    seed : int, optional
        Op-level seed, combined with the global seed by TensorFlow's rules:
        both unset draws from OS entropy; either set gives a repeatable stream.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        A constant (not recorded on tapes).

    Notes
    -----
    Differences from TensorFlow: the seed rules are TensorFlow's, but the
    streams are tapers' own (PCG64), so a seed gives different numbers than
    in TensorFlow.
    """
    return _stream(seed).truncated_normal(shape, float(mean), float(stddev), dtype)


def uniform(
    shape: Any,
    minval: float = 0,
    maxval: float | None = None,
    dtype: Any = float32,
    seed: int | None = None,
    name: Any = None,
) -> Tensor:
    """Samples uniformly from ``[minval, maxval)``.

    Parameters
    ----------
    shape : sequence of int
        Shape of the result.
    minval, maxval : float
        Bounds; ``maxval`` defaults to 1 for floats and is required for integers.
    dtype : DType, default float32
        Dtype of the result (float or integer).
    seed : int, optional
        Op-level seed, combined with the global seed by TensorFlow's rules:
        both unset draws from OS entropy; either set gives a repeatable stream.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        A constant (not recorded on tapes).

    Notes
    -----
    Differences from TensorFlow: the seed rules are TensorFlow's, but the
    streams are tapers' own (PCG64), so a seed gives different numbers than
    in TensorFlow.
    """
    return _stream(seed).uniform(shape, float(minval), None if maxval is None else float(maxval), dtype)


def shuffle(value: Any, seed: int | None = None, name: Any = None) -> Tensor:
    """Randomly shuffles a tensor along its first dimension.

    Parameters
    ----------
    value : Tensor-like
        At least rank 1.
    seed : int, optional
        Op-level seed, combined with the global seed by TensorFlow's rules:
        both unset draws from OS entropy; either set gives a repeatable stream.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``value`` with its rows permuted (recorded as a gather, so gradients
        flow back to the right rows).

    Notes
    -----
    Differences from TensorFlow: the seed rules are TensorFlow's, but the
    streams are tapers' own (PCG64), so a seed gives different numbers than
    in TensorFlow.
    """
    t = convert_to_tensor(value)
    return gather(t, _stream(seed).permutation(int(t.shape[0])))


def _keep_mask(shape: Any, keep: float, seed: int | None) -> Tensor:
    return _stream(seed).bernoulli(shape, keep)


# Issue 20: categorical and the stateless samplers (python/tapers/_nn_extra.py).
from ._nn_extra import (  # noqa: E402
    categorical,
    fold_in,
    split,
    stateless_categorical,
    stateless_normal,
    stateless_truncated_normal,
    stateless_uniform,
)

__all__ += ["categorical", "stateless_categorical", "stateless_normal", "stateless_truncated_normal"]
__all__ += ["stateless_uniform", "fold_in", "split"]


# ------------------------------------------------------------------ gamma, poisson, binomial, truncated normal

import enum  # noqa: E402
import types as _types  # noqa: E402

import numpy as np  # noqa: E402

from . import _core  # noqa: E402
from . import errors as _errors  # noqa: E402
from ._nn_extra import _seed_pair  # noqa: E402
from .dtypes import as_dtype as _as_dtype  # noqa: E402

_GAMMA_ROUNDS = 10  # Marsaglia-Tsang accepts with probability > 0.95 per round: 10 rounds leave < 1e-13 undecided
_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _shape_list(shape: Any) -> list[int]:
    dims = [int(d) for d in np.asarray(shape, dtype=np.int64).reshape(-1)]
    if any(d < 0 for d in dims):
        raise _errors.InvalidArgumentError(f"shape must be non-negative, got {dims}")
    return dims


def _float_dtype(dtype: Any, op: str) -> Any:
    dt = _as_dtype(dtype)
    if dt.name not in _FLOATS:
        raise TypeError(
            f"Value for attr 'dtype' of {dt.name} is not in the list of allowed values: half, bfloat16, float, double "
            f"[Op:{op}]"
        )
    return dt


def _param(value: Any, dtype: Any) -> Tensor:
    if isinstance(value, Tensor) or hasattr(value, "read_value"):
        t = value.read_value() if hasattr(value, "read_value") else value
        if t.dtype != dtype:
            raise _errors.InvalidArgumentError(
                f"parameter has dtype {t.dtype.name}, expected {_as_dtype(dtype).name} (the sample dtype)"
            )
        return t
    return convert_to_tensor(value, dtype=dtype)


def _broadcast(shapes: list[list[int]], what: str) -> list[int]:
    try:
        return list(np.broadcast_shapes(*[tuple(s) for s in shapes]))
    except ValueError:
        raise _errors.InvalidArgumentError(f"Incompatible shapes for {what}: {shapes}") from None


def _fits(what: str, t: Tensor, full: list[int]) -> None:
    try:
        ok = list(np.broadcast_shapes(tuple(int(d) for d in t.shape), tuple(full))) == full
    except ValueError:
        ok = False
    if not ok:
        raise _errors.InvalidArgumentError(f"{what} of shape {list(t.shape)} does not broadcast to shape {full}")


def _standard_gamma(gen: Generator, alpha: Tensor, out_shape: list[int]) -> Tensor:
    """Gamma(alpha, 1) draws (float64, ``alpha`` already of ``out_shape``), with the implicit
    reparameterization gradient ``dx/dalpha = -(dP(alpha, x)/dalpha) / p(x; alpha)`` (as TensorFlow)."""
    a = _core.stop_gradient(alpha)
    boost = _core.less(a, 1.0)
    a1 = _core.where(boost, a + 1.0, a)
    d = a1 - 1.0 / 3.0
    c = 1.0 / _core.sqrt(9.0 * d)
    rounds = [_GAMMA_ROUNDS, *out_shape]
    z = gen.normal(rounds, 0.0, 1.0, "float64")
    u = gen.uniform(rounds, 0.0, 1.0, "float64")
    v = (1.0 + c * z) ** 3
    pos = _core.greater(v, 0.0)
    v_safe = _core.where(pos, v, _core.ones_like(v))
    bound = 0.5 * z * z + d - d * v_safe + d * _core.math.log(v_safe)
    accept = _core.logical_and(pos, _core.less(_core.math.log(u), bound))
    taken = _core.math.cumsum(_core.cast(accept, "int32"), axis=0)
    first = _core.logical_and(accept, _core.equal(taken, 1))
    v_sel = _core.reduce_sum(_core.where(first, v_safe, _core.zeros_like(v_safe)), axis=0)
    v_sel = _core.where(_core.reduce_any(accept, axis=0), v_sel, _core.ones_like(v_sel))
    x = d * v_sel
    ub = gen.uniform(out_shape, 0.0, 1.0, "float64")
    x = _core.where(boost, x * _core.math.exp(_core.math.log(ub) / a), x)
    x0 = _core.stop_gradient(_core.maximum(x, float(np.finfo(np.float64).tiny)))
    log_pdf = (a - 1.0) * _core.math.log(x0) - x0 - _core.math.lgamma(a)
    pdf = _core.math.exp(log_pdf)
    ok = _core.greater(pdf, 0.0)
    ratio = -_core.math.igamma(alpha, x0) / _core.where(ok, pdf, _core.ones_like(pdf))
    t = _core.where(ok, ratio, _core.zeros_like(pdf))
    return x0 + (t - _core.stop_gradient(t))


def _gamma(gen: Generator, shape: Any, alpha: Any, beta: Any, dtype: Any, op: str) -> Tensor:
    dt = _float_dtype(dtype, op)
    a = _param(alpha, dt)
    b = None if beta is None else _param(beta, dt)
    pshape = _broadcast([list(a.shape)] + ([] if b is None else [list(b.shape)]), "alpha and beta")
    out_shape = _shape_list(shape) + pshape
    a64 = _core.broadcast_to(_core.cast(a, "float64"), out_shape)
    x = _standard_gamma(gen, a64, out_shape)
    if b is not None:
        x = x / _core.broadcast_to(_core.cast(b, "float64"), out_shape)
    x = _core.cast(x, dt)
    # TensorFlow clips to the smallest positive normal number of the dtype.
    return _core.maximum(x, float(np.finfo(np.dtype(dt.name if dt.name != "bfloat16" else "float32")).tiny))


def gamma(
    shape: Any, alpha: Any, beta: Any = None, dtype: Any = float32, seed: int | None = None, name: Any = None
) -> Tensor:
    """Samples from Gamma distributions (``tf.random.gamma``): density
    ``beta**alpha * x**(alpha - 1) * exp(-beta * x) / Gamma(alpha)``.

    Parameters
    ----------
    shape : sequence of int
        Shape of the samples drawn for each distribution.
    alpha : Tensor-like
        Concentrations (``> 0``), of ``dtype``.
    beta : Tensor-like, optional
        Inverse scales (``> 0``), broadcast against ``alpha``; 1 when omitted.
    dtype : DType, default float32
        float16, bfloat16, float32 or float64.
    seed : int, optional
        Op-level seed (``tapers.random``'s rules).
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        Shape ``shape + broadcast(alpha.shape, beta.shape)``, at least the dtype's smallest
        positive normal number. Differentiable in ``alpha`` (TensorFlow's implicit
        reparameterization gradient) and in ``beta``.

    Notes
    -----
    Differences from TensorFlow: drawn by Marsaglia-Tsang from tapers' own streams, so a seed
    gives other numbers than TensorFlow's.
    """
    return _gamma(_stream(seed), shape, alpha, beta, dtype, "RandomGamma")


def stateless_gamma(
    shape: Any, seed: Any, alpha: Any, beta: Any = None, dtype: Any = float32, name: Any = None
) -> Tensor:
    """Gamma samples that depend only on ``seed`` and the arguments (``tf.random.stateless_gamma``).

    Parameters
    ----------
    shape : sequence of int
        Shape of the result; must end with ``broadcast(alpha.shape, beta.shape)``.
    seed : pair of int
        The key: the same seed and arguments always give the same values.
    alpha : Tensor-like
        Concentrations (``> 0``).
    beta : Tensor-like, optional
        Inverse scales (``> 0``); 1 when omitted.
    dtype : DType, default float32
        float16, bfloat16, float32 or float64.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        Shape ``shape``, differentiable in ``alpha`` and ``beta`` (as ``gamma``).

    Notes
    -----
    Differences from TensorFlow: not TensorFlow's Philox bits (tapers' own streams).
    """
    dt = _float_dtype(dtype, "StatelessRandomGammaV3")
    full = _shape_list(shape)
    a = _param(alpha, dt)
    b = None if beta is None else _param(beta, dt)
    pshape = _broadcast([list(a.shape)] + ([] if b is None else [list(b.shape)]), "alpha and beta")
    if len(pshape) > len(full) or (pshape and full[len(full) - len(pshape) :] != pshape):
        raise _errors.InvalidArgumentError(
            f"Shape passed in must end with broadcasted shape: shape {full}, alpha/beta broadcast shape {pshape}"
        )
    gen = Generator.from_seed(_seed_pair(seed))
    a_full = _core.broadcast_to(a, full)
    b_full = None if b is None else _core.broadcast_to(b, full)
    return _gamma(gen, [], a_full, b_full, dt, "StatelessRandomGammaV3")


def _bisect(lo: Tensor, hi: Tensor, below: Any, n_iter: int) -> Tensor:
    """Smallest integer k in [lo, hi] with ``below(k)`` true (``below`` monotone), elementwise."""
    for _ in range(n_iter):
        mid = _core.math.floor((lo + hi) / 2.0)
        c = below(mid)
        hi = _core.where(c, mid, hi)
        lo = _core.where(c, lo, mid + 1.0)
    return lo


def _iterations(hi: Tensor) -> int:
    if _core._is_tracing():
        return 64
    m = float(np.max(np.asarray(hi))) if int(np.prod(hi.shape)) else 0.0
    return int(np.ceil(np.log2(m + 2.0))) + 1


_PTRS_ROUNDS = 16  # PTRS accepts with probability > 0.85 per round for rates >= 10


def _poisson_ptrs(gen: Generator, lam: Tensor, out_shape: list[int]) -> Tensor:
    """Hormann's transformed rejection (PTRS) for rates >= 10, vectorized over a fixed number of rounds."""
    slam = _core.sqrt(lam)
    loglam = _core.math.log(lam)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    invalpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2.0)
    rounds = [_PTRS_ROUNDS, *out_shape]
    u = gen.uniform(rounds, 0.0, 1.0, "float64") - 0.5
    v = gen.uniform(rounds, 0.0, 1.0, "float64")
    us = 0.5 - _core.abs(u)
    k = _core.math.floor((2.0 * a / us + b) * u + lam + 0.43)
    quick = _core.logical_and(_core.greater_equal(us, 0.07), _core.less_equal(v, vr))
    bad = _core.logical_or(_core.less(k, 0.0), _core.logical_and(_core.less(us, 0.013), _core.greater(v, us)))
    k_safe = _core.maximum(k, 0.0)
    lhs = _core.math.log(v) + _core.math.log(invalpha) - _core.math.log(a / (us * us) + b)
    rhs = -lam + k_safe * loglam - _core.math.lgamma(k_safe + 1.0)
    accept = _core.logical_or(quick, _core.logical_and(_core.logical_not(bad), _core.less_equal(lhs, rhs)))
    taken = _core.math.cumsum(_core.cast(accept, "int32"), axis=0)
    first = _core.logical_and(accept, _core.equal(taken, 1))
    k_sel = _core.reduce_sum(_core.where(first, k_safe, _core.zeros_like(k_safe)), axis=0)
    return _core.where(_core.reduce_any(accept, axis=0), k_sel, _core.math.round(lam))


def _poisson(gen: Generator, lam: Tensor, out_shape: list[int], dtype: Any) -> Tensor:
    lam64 = _core.broadcast_to(_core.cast(_core.stop_gradient(lam), "float64"), out_shape)
    u = gen.uniform(out_shape, 0.0, 1.0, "float64")
    good = _core.greater_equal(lam64, 0.0)
    large = _core.greater_equal(lam64, 10.0)
    # Small rates: invert the CDF Q(k + 1, lam) by bisection on k.
    lam_s = _core.where(_core.logical_and(good, _core.logical_not(large)), lam64, _core.zeros_like(lam64))
    hi = _core.math.floor(lam_s + 14.0 * _core.sqrt(lam_s) + 30.0)

    def below(m: Tensor) -> Tensor:
        return _core.greater_equal(_core.math.igammac(m + 1.0, lam_s), u)

    k = _bisect(_core.zeros_like(hi), hi, below, _iterations(hi))
    lam_l = _core.where(large, lam64, _core.ones_like(lam64) * 10.0)
    k = _core.where(large, _poisson_ptrs(gen, lam_l, out_shape), k)
    dt = _as_dtype(dtype)
    if dt.is_floating:
        k = _core.where(good, k, k * float("nan"))
    return _core.cast(k, dt)


def poisson(shape: Any, lam: Any, dtype: Any = float32, seed: int | None = None, name: Any = None) -> Tensor:
    """Samples from Poisson distributions (``tf.random.poisson``).

    Parameters
    ----------
    shape : sequence of int
        Shape of the samples drawn for each rate.
    lam : Tensor-like
        Rates (``>= 0``).
    dtype : DType, default float32
        float16, float32, float64, int32 or int64.
    seed : int, optional
        Op-level seed (``tapers.random``'s rules).
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        Shape ``shape + lam.shape``; not differentiable (as TensorFlow). A negative rate gives
        NaN for floating dtypes and 0 for integer dtypes.

    Notes
    -----
    Differences from TensorFlow: drawn by inverting the CDF (``igammac``) for rates below 10
    and by Hormann's transformed rejection (PTRS) above, on tapers' own streams, so a seed
    gives other numbers than TensorFlow's.
    """
    dt = _as_dtype(dtype)
    if dt.name not in ("float16", "float32", "float64", "int32", "int64"):
        raise TypeError(f"dtype must be one of float16, float32, float64, int32, int64, got {dt.name}")
    lam_t = convert_to_tensor(lam)
    if not (lam_t.dtype.is_floating or lam_t.dtype.is_integer):
        raise TypeError(f"lam must be a real tensor, got {lam_t.dtype.name} [Op:RandomPoissonV2]")
    out_shape = _shape_list(shape) + [int(d) for d in lam_t.shape]
    return _poisson(_stream(seed), lam_t, out_shape, dt)


def stateless_poisson(shape: Any, seed: Any, lam: Any, dtype: Any = "int32", name: Any = None) -> Tensor:
    """Poisson samples that depend only on ``seed`` and the arguments (``tf.random.stateless_poisson``).

    Parameters
    ----------
    shape : sequence of int
        Shape of the result; ``lam`` must broadcast to it.
    seed : pair of int
        The key: the same seed and arguments always give the same values.
    lam : Tensor-like
        Rates (``>= 0``).
    dtype : DType, default int32
        float16, float32, float64, int32 or int64.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        Shape ``shape``; not differentiable.

    Notes
    -----
    Differences from TensorFlow: not TensorFlow's Philox bits (tapers' own streams).
    """
    dt = _as_dtype(dtype)
    if dt.name not in ("float16", "float32", "float64", "int32", "int64"):
        raise TypeError(f"dtype must be one of float16, float32, float64, int32, int64, got {dt.name}")
    lam_t = convert_to_tensor(lam)
    full = _shape_list(shape)
    _fits("lam", lam_t, full)
    return _poisson(Generator.from_seed(_seed_pair(seed)), lam_t, full, dt)


def stateless_binomial(
    shape: Any, seed: Any, counts: Any, probs: Any, output_dtype: Any = "int32", name: Any = None
) -> Tensor:
    """Binomial samples that depend only on ``seed`` and the arguments (``tf.random.stateless_binomial``).

    Parameters
    ----------
    shape : sequence of int
        Shape of the result; ``counts`` and ``probs`` must broadcast to it.
    seed : pair of int
        The key: the same seed and arguments always give the same values.
    counts : Tensor-like
        Numbers of trials (``>= 0``).
    probs : Tensor-like
        Success probabilities in ``[0, 1]``.
    output_dtype : DType, default int32
        float16, float32, float64, int32 or int64.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        Shape ``shape``; not differentiable.

    Notes
    -----
    Differences from TensorFlow: drawn by inverting the CDF (``betainc``) on tapers' own
    streams, not TensorFlow's Philox bits.
    """
    dt = _as_dtype(output_dtype)
    if dt.name not in ("float16", "float32", "float64", "int32", "int64"):
        raise TypeError(f"output_dtype must be one of float16, float32, float64, int32, int64, got {dt.name}")
    n_t = convert_to_tensor(counts)
    p_t = convert_to_tensor(probs)
    full = _shape_list(shape)
    for what, t in (("counts", n_t), ("probs", p_t)):
        _fits(what, t, full)
    n = _core.math.floor(_core.broadcast_to(_core.cast(_core.stop_gradient(n_t), "float64"), full))
    p = _core.broadcast_to(_core.cast(_core.stop_gradient(p_t), "float64"), full)
    u = Generator.from_seed(_seed_pair(seed)).uniform(full, 0.0, 1.0, "float64")
    q = _core.minimum(_core.maximum(1.0 - p, 0.0), 1.0)

    def below(k: Tensor) -> Tensor:
        done = _core.greater_equal(k, n)
        a = _core.maximum(n - k, 1.0)
        cdf = _core.math.betainc(a, k + 1.0, q)
        return _core.logical_or(done, _core.greater_equal(cdf, u))

    n_s = _core.maximum(n, 0.0)
    k = _bisect(_core.zeros_like(n_s), n_s, below, _iterations(n_s))
    return _core.cast(k, dt)


def _ndtr(x: Tensor) -> Tensor:
    return 0.5 * _core.math.erfc(-x / float(np.sqrt(2.0)))


def stateless_parameterized_truncated_normal(
    shape: Any,
    seed: Any,
    means: Any = 0.0,
    stddevs: Any = 1.0,
    minvals: Any = -2.0,
    maxvals: Any = 2.0,
    name: Any = None,
) -> Tensor:
    """Normal samples restricted to ``[minvals, maxvals]``, depending only on ``seed`` and the arguments
    (``tf.random.stateless_parameterized_truncated_normal``).

    Parameters
    ----------
    shape : sequence of int
        Shape of the result; the parameters must broadcast to it.
    seed : pair of int
        The key: the same seed and arguments always give the same values.
    means, stddevs : Tensor-like
        Mean and standard deviation (``> 0``) of the normal before truncation.
    minvals, maxvals : Tensor-like
        Bounds, ``minvals < maxvals``.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        Shape ``shape``, of ``means``' dtype (float32 for Python numbers). Differentiable in
        ``means`` and ``stddevs`` (as ``means + stddevs * z`` for the drawn standard ``z``).

    Notes
    -----
    Differences from TensorFlow: drawn by inverting the normal CDF on tapers' own streams
    (TensorFlow uses rejection sampling on Philox bits), so the numbers differ.
    """
    m = convert_to_tensor(means, dtype_hint=float32) if not isinstance(means, Tensor) else means
    dt = m.dtype
    if dt.name not in ("float16", "float32", "float64"):
        raise TypeError(f"means must be half, float or double, got {dt.name}")
    s = _param(stddevs, dt)
    lo = _param(minvals, dt)
    hi = _param(maxvals, dt)
    full = _shape_list(shape)
    for what, t in (("means", m), ("stddevs", s), ("minvals", lo), ("maxvals", hi)):
        _fits(what, t, full)
    m64 = _core.broadcast_to(_core.cast(m, "float64"), full)
    s64 = _core.broadcast_to(_core.cast(s, "float64"), full)
    sc = _core.stop_gradient(s64)
    mc = _core.stop_gradient(m64)
    a = (_core.broadcast_to(_core.cast(lo, "float64"), full) - mc) / sc
    b = (_core.broadcast_to(_core.cast(hi, "float64"), full) - mc) / sc
    flip = _core.greater(a, 0.0)  # both bounds in the right tail: sample the mirrored left tail (accurate CDF)
    a2 = _core.where(flip, -b, a)
    b2 = _core.where(flip, -a, b)
    pa, pb = _ndtr(a2), _ndtr(b2)
    u = Generator.from_seed(_seed_pair(seed)).uniform(full, 0.0, 1.0, "float64")
    z = _core.math.ndtri(pa + u * (pb - pa))
    z = _core.minimum(_core.maximum(z, a2), b2)
    z = _core.stop_gradient(_core.where(flip, -z, z))
    return _core.cast(m64 + s64 * z, dt)


def create_rng_state(seed: Any, alg: Any) -> Tensor:
    """The state vector TensorFlow builds from an integer seed for an algorithm (``tf.random.create_rng_state``):
    the seed's 64-bit words, zero-padded to the algorithm's state size (3 for Philox, 2 for ThreeFry).

    Parameters
    ----------
    seed : int or sequence of int
        The seed; a Python int is split into 64-bit two's-complement words, low word first
        (so ``-1`` fills the state with ``-1``).
    alg : Algorithm, str or int
        ``Algorithm.PHILOX`` / ``"philox"`` / 1, ``Algorithm.THREEFRY`` / ``"threefry"`` / 2, or
        ``Algorithm.AUTO_SELECT`` / ``"auto_select"`` / 3 (Philox, as TensorFlow on CPU).

    Returns
    -------
    Tensor
        int64, shape ``[3]`` (Philox) or ``[2]`` (ThreeFry); TensorFlow's exact values.
    """
    size = 2 if _algorithm(alg) is Algorithm.THREEFRY else 3
    if isinstance(seed, (int, np.integer)):
        # Two's-complement 64-bit words, low word first (a negative seed sign-extends, as TensorFlow).
        words = [(int(seed) >> (64 * i)) & (2**64 - 1) for i in range(size)]
    else:
        words = [int(w) % 2**64 for w in np.asarray(seed).reshape(-1).tolist()]
    words = (words + [0] * size)[:size]
    vals = np.array([w - 2**64 if w >= 2**63 else w for w in words], dtype=np.int64)
    return convert_to_tensor(vals, dtype="int64")


class Algorithm(enum.Enum):
    """The random-number algorithms of TensorFlow's stateless ops (``tf.random.Algorithm``).

    tapers accepts each of them and draws from its own stream (PCG64) whatever the choice;
    the values matter for ``create_rng_state`` (state size 3 for Philox, 2 for ThreeFry).

    Attributes
    ----------
    PHILOX : int
        1, Philox-4x32-10.
    THREEFRY : int
        2, ThreeFry-2x32-20.
    AUTO_SELECT : int
        3, the device's choice (Philox on a CPU).
    """

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def _algorithm(alg: Any) -> Algorithm:
    if isinstance(alg, Algorithm):
        return alg
    if isinstance(alg, str):
        key = alg.strip().upper()
        if key in Algorithm.__members__:
            return Algorithm[key]
    elif isinstance(alg, (int, np.integer)) and int(alg) in (1, 2, 3):
        return Algorithm(int(alg))
    raise ValueError(f"Unsupported random algorithm: {alg!r}; use 'philox', 'threefry' or 'auto_select'")


_global_generator: Generator | None = None


def set_global_generator(generator: Generator) -> None:
    """Replaces the generator ``get_global_generator`` returns (``tf.random.set_global_generator``).

    Parameters
    ----------
    generator : Generator
        The new global generator (``tapers.random.Generator``).

    Returns
    -------
    None
    """
    global _global_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a tapers.random.Generator, got {type(generator).__name__}")
    _global_generator = generator


def stateless_shuffle(value: Any, seed: Any, alg: Any = "auto_select") -> Tensor:
    """Shuffles a tensor along its first dimension as a function of ``seed`` only
    (``tf.random.experimental.stateless_shuffle``; not TensorFlow's permutation).

    Parameters
    ----------
    value : Tensor-like
        At least rank 1.
    seed : pair of int
        The key.
    alg : Algorithm or str
        Checked, then ignored (tapers has one stream algorithm).

    Returns
    -------
    Tensor
        ``value`` with its rows permuted (a gather, so gradients reach the right rows).
    """
    _algorithm(alg)
    t = convert_to_tensor(value)
    if len(t.shape) == 0:
        raise _errors.InvalidArgumentError("value must have at least rank 1, got a scalar")
    return gather(t, Generator.from_seed(_seed_pair(seed) ^ 0x2545F4914F6CDD1D).permutation(int(t.shape[0])))


# ``tf.random.experimental``: the stateless helpers under their experimental names.
experimental = _types.SimpleNamespace(
    Algorithm=Algorithm,
    Generator=Generator,
    create_rng_state=create_rng_state,
    get_global_generator=get_global_generator,
    set_global_generator=set_global_generator,
    stateless_shuffle=stateless_shuffle,
    stateless_fold_in=fold_in,
    stateless_split=split,
)

__all__ += ["gamma", "poisson", "stateless_gamma", "stateless_poisson", "stateless_binomial"]
__all__ += ["stateless_parameterized_truncated_normal", "create_rng_state", "Algorithm", "set_global_generator"]
__all__ += ["experimental"]
