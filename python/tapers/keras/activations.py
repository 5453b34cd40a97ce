"""``keras.activations``: Keras 3's activation functions, written with tapers ops.

Every function is differentiable under a ``GradientTape`` and follows Keras 3's
formulas and defaults (``relu``'s ``negative_slope`` / ``max_value`` /
``threshold``, ``gelu(approximate=False)``, ``hard_sigmoid = relu6(x + 3) / 6``,
``leaky_relu``'s slope 0.2, ...).

As in Keras 3 on TensorFlow, ``sigmoid`` and ``softmax`` remember the logits they
were given: a cross-entropy loss that receives their output with
``from_logits=False`` computes from those logits instead of the clipped
probabilities (more accurate, and the gradient does not vanish when the
probabilities saturate). The memory is a side table keyed by the output tensor,
emptied when the output is garbage collected.
"""

from __future__ import annotations

import struct
import threading
import weakref
from typing import Any, Callable

from .. import _core
from .. import math as _math
from .. import nn as _nn
from .._core import Tensor
from .._ops import clip_by_value
from ._lookup import resolve

__all__ = [
    "celu", "deserialize", "elu", "exponential", "gelu", "get", "glu", "hard_shrink", "hard_sigmoid", "hard_silu",
    "hard_swish", "hard_tanh", "leaky_relu", "linear", "log_sigmoid", "log_softmax", "mish", "relu", "relu6", "selu",
    "serialize", "sigmoid", "silu", "soft_shrink", "softmax", "softplus", "softsign", "sparse_plus", "sparse_sigmoid",
    "sparsemax", "squareplus", "swish", "tanh", "tanh_shrink", "threshold",
]  # fmt: skip

# --------------------------------------------------------------------------- logits memory

_logits_lock = threading.RLock()  # re-entrant: a weakref callback may run (GC) while it is held
_logits: dict[int, tuple[weakref.ref[Tensor], Tensor, str]] = {}


def _remember_logits(output: Tensor, logits: Tensor, kind: str) -> None:
    """Records that ``output`` is ``kind`` ("sigmoid"/"softmax") of ``logits`` (Keras' ``output._keras_logits``)."""
    key = id(output)

    def _forget(_ref: Any, key: int = key) -> None:
        with _logits_lock:
            entry = _logits.get(key)
            if entry is not None and entry[0] is _ref:
                del _logits[key]

    with _logits_lock:
        _logits[key] = (weakref.ref(output, _forget), logits, kind)


def _logits_of(output: Any, kind: str) -> Tensor | None:
    """The logits ``output`` was computed from by :func:`sigmoid`/:func:`softmax` (``kind``), else None."""
    with _logits_lock:
        entry = _logits.get(id(output))
    if entry is None or entry[0]() is not output or entry[2] != kind:
        return None
    return entry[1]


def _t(x: Any) -> Tensor:
    return _core.convert_to_tensor(x)


def _c(value: float, like: Tensor) -> Tensor:
    return _core.constant(value, dtype=like.dtype)


def _attr_float(value: float) -> float:
    """``value`` rounded to float32, as TensorFlow stores a float op attribute (``leaky_relu``'s ``alpha``)."""
    return float(struct.unpack("f", struct.pack("f", float(value)))[0])


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


# --------------------------------------------------------------------------- activations


def relu(x: Any, negative_slope: float = 0.0, max_value: float | None = None, threshold: float = 0.0) -> Tensor:
    """Rectified linear unit with Keras' options (``keras.activations.relu``).

    Parameters
    ----------
    x : Tensor-like
        Input.
    negative_slope : float
        Slope below the threshold (0: plain ReLU).
    max_value : float, optional
        Saturation value (``6.0`` uses the ``relu6`` op, as Keras does).
    threshold : float
        Values at or below it are sent to 0 (then ``negative_slope * (x - threshold)``).

    Returns
    -------
    Tensor
        ``max_value if x >= max_value``, ``x if threshold < x < max_value``,
        ``negative_slope * (x - threshold)`` otherwise, as Keras 3's formula
        (including its gradients at the corners).
    """
    x = _t(x)
    if negative_slope != 0.0:
        if max_value is None and threshold == 0:
            return _nn.leaky_relu(x, alpha=_attr_float(negative_slope))
        negative_part = _nn.relu(-x + _c(threshold, x)) if threshold != 0 else _nn.relu(-x)
    clip_max = max_value is not None
    if threshold != 0:
        y = _core.where(x > _c(threshold, x), x, _core.zeros_like(x))
    elif max_value == 6:
        y = _nn.relu6(x)
        clip_max = False
    else:
        y = _nn.relu(x)
    if clip_max:
        y = clip_by_value(y, _c(0.0, y), _c(float(max_value), y))  # type: ignore[arg-type]
    if negative_slope != 0.0:
        y = y - _c(negative_slope, y) * negative_part
    return y


def leaky_relu(x: Any, negative_slope: float = 0.2) -> Tensor:
    """Leaky ReLU: ``x`` above 0, ``negative_slope * x`` below (Keras' default slope 0.2).

    The slope is rounded to float32 first, as TensorFlow's op attribute is, so
    float64 results match TensorFlow's to the last bit.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).
    negative_slope : float
        Slope for negative inputs.

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    return _nn.leaky_relu(_t(x), alpha=_attr_float(negative_slope))


def relu6(x: Any) -> Tensor:
    """``min(max(x, 0), 6)``.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    return _nn.relu6(_t(x))


def sigmoid(x: Any) -> Tensor:
    """``1 / (1 + exp(-x))``; remembers ``x`` as the logits for cross-entropy losses (as Keras).

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    x = _t(x)
    out = _core.sigmoid(x)
    _remember_logits(out, x, "sigmoid")
    return out


def softmax(x: Any, axis: int | None = -1) -> Tensor:
    """Softmax along ``axis`` (all elements when None); remembers ``x`` as the logits for cross-entropy losses.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).
    axis : int or None
        The axis normalized over (None: all elements).

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    x = _t(x)
    if axis is None:
        out = _core.reshape(_nn.softmax(_core.reshape(x, [-1]), axis=-1), list(x.shape))
    else:
        out = _nn.softmax(x, axis=axis)
    _remember_logits(out, x, "softmax")
    return out


def log_softmax(x: Any, axis: int | None = -1) -> Tensor:
    """``x - logsumexp(x)`` along ``axis`` (all elements when None).

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).
    axis : int or None
        The axis normalized over (None: all elements).

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    x = _t(x)
    if axis is None:
        return _core.reshape(_nn.log_softmax(_core.reshape(x, [-1]), axis=-1), list(x.shape))
    return _nn.log_softmax(x, axis=axis)


def elu(x: Any, alpha: float = 1.0) -> Tensor:
    """Exponential linear unit: ``x`` above 0, ``alpha * (exp(x) - 1)`` below.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).
    alpha : float
        Scale of the negative part.

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    x = _t(x)
    res = _nn.elu(x)
    if alpha == 1:
        return res
    return _core.where(x > _c(0.0, x), res, _c(alpha, x) * res)


def selu(x: Any) -> Tensor:
    """Scaled ELU with the self-normalizing constants (scale 1.0507..., alpha 1.6732...).

    Written as ``scale * where(x >= 0, x, alpha * expm1(min(x, 0)))`` so the
    gradient at 0 is ``scale``, as TensorFlow's ``SeluGrad`` gives (the core's
    ``tapers.nn.selu`` gives ``scale * alpha`` there).

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    x = _t(x)
    zero = _c(0.0, x)
    neg = _c(_SELU_ALPHA, x) * _math.expm1(_core.minimum(x, zero))
    return _c(_SELU_SCALE, x) * _core.where(x >= zero, x, neg)


def celu(x: Any, alpha: float = 1.0) -> Tensor:
    """Continuously differentiable ELU: ``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).
    alpha : float
        Scale of the negative part.

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    x = _t(x)
    zero = _c(0.0, x)
    return _core.maximum(x, zero) + _c(alpha, x) * _math.expm1(_core.minimum(x, zero) / _c(alpha, x))


def gelu(x: Any, approximate: bool = False) -> Tensor:
    """Gaussian error linear unit; exact (erf) by default as in Keras, tanh approximation when asked.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).
    approximate : bool
        Use the tanh approximation instead of the exact erf form.

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    return _nn.gelu(_t(x), approximate=approximate)


def silu(x: Any) -> Tensor:
    """``x * sigmoid(x)`` (also called swish).

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    return _nn.silu(_t(x))


swish = silu


def softplus(x: Any) -> Tensor:
    """``log(exp(x) + 1)``, computed without overflow.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    return _math.softplus(_t(x))


def softsign(x: Any) -> Tensor:
    """``x / (abs(x) + 1)``.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    x = _t(x)
    out: Tensor = x / (_core.abs(x) + _c(1.0, x))
    return out


def tanh(x: Any) -> Tensor:
    """Hyperbolic tangent.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    return _core.tanh(_t(x))


def exponential(x: Any) -> Tensor:
    """``exp(x)``.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    return _core.exp(_t(x))


def hard_sigmoid(x: Any) -> Tensor:
    """Keras 3's piecewise-linear sigmoid: ``relu6(x + 3) / 6`` (0 below -3, 1 above 3).

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    x = _t(x)
    return _nn.relu6(x + _c(3.0, x)) / _c(6.0, x)


def hard_silu(x: Any) -> Tensor:
    """``x * hard_sigmoid(x)`` (also called hard swish).

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    x = _t(x)
    out: Tensor = x * hard_sigmoid(x)
    return out


hard_swish = hard_silu


def mish(x: Any) -> Tensor:
    """``x * tanh(softplus(x))``.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    x = _t(x)
    out: Tensor = x * _core.tanh(_math.softplus(x))
    return out


def log_sigmoid(x: Any) -> Tensor:
    """``log(sigmoid(x)) = -softplus(-x)``, stable for large ``|x|``.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    x = _t(x)
    return -_math.softplus(-x)


def _tf() -> Any:
    """The top-level package (looked up at call time: it imports this module)."""
    import tapers

    return tapers


def glu(x: Any, axis: int = -1) -> Tensor:
    """Gated linear unit: ``x`` split in halves ``a, b`` along ``axis``, then ``a * sigmoid(b)``.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point); ``axis`` must have an even size.
    axis : int, optional
        The axis to split; default -1.

    Returns
    -------
    Tensor
        ``x``'s shape with ``axis`` halved; differentiable.

    Raises
    ------
    ValueError
        When ``axis`` has an odd size (Keras' message).
    """
    tf = _tf()
    x = _t(x)
    if x.shape[axis] % 2 != 0:
        raise ValueError(f"axis size must be divisible by 2. Received: x.shape={x.shape} with axis={axis}")
    a, b = tf.split(x, num_or_size_splits=2, axis=axis)
    out: Tensor = a * tf.sigmoid(b)
    return out


def hard_shrink(x: Any, threshold: float = 0.5) -> Tensor:
    """``x`` where ``|x| > threshold``, 0 elsewhere.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).
    threshold : float, optional
        Default 0.5.

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    tf = _tf()
    x = _t(x)
    out: Tensor = tf.where(tf.abs(x) > threshold, x, tf.zeros_like(x))
    return out


def hard_tanh(x: Any) -> Tensor:
    """``x`` clipped to ``[-1, 1]``.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable (TensorFlow's ``clip_by_value`` gradient).
    """
    x = _t(x)
    out: Tensor = clip_by_value(x, -1.0, 1.0)
    return out


def soft_shrink(x: Any, threshold: float = 0.5) -> Tensor:
    """``x - threshold`` above ``threshold``, ``x + threshold`` below ``-threshold``, 0 between.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).
    threshold : float, optional
        Default 0.5.

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    tf = _tf()
    x = _t(x)
    t = _c(threshold, x)
    out: Tensor = tf.where(x > t, x - t, tf.where(x < -t, x + t, tf.zeros_like(x)))
    return out


def sparse_plus(x: Any) -> Tensor:
    """0 for ``x <= -1``, ``(x + 1)**2 / 4`` for ``-1 < x < 1``, ``x`` for ``x >= 1``.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    tf = _tf()
    x = _t(x)
    quad = _c(0.25, x) * tf.pow(x + _c(1.0, x), _c(2.0, x))
    out: Tensor = tf.where(x <= -1.0, tf.zeros_like(x), tf.where(x < 1.0, quad, x))
    return out


def sparse_sigmoid(x: Any) -> Tensor:
    """0 for ``x <= -1``, ``(x + 1) / 2`` for ``-1 < x < 1``, 1 for ``x >= 1``.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    tf = _tf()
    x = _t(x)
    mid = _c(0.5, x) * (x + _c(1.0, x))
    out: Tensor = tf.where(x <= -1.0, _c(0.0, x), tf.where(x >= 1.0, _c(1.0, x), mid))
    return out


def sparsemax(x: Any, axis: int = -1) -> Tensor:
    """Sparsemax along ``axis``: ``max(x - tau, 0)`` with ``tau`` computed as Keras 3 does.

    The threshold follows Keras 3's TensorFlow backend formula step by step (values sorted
    in descending order, their cumulative sums, the support ``sorted - (cumsum - 1) / r > 0``,
    ``tau = (sum of the cumulative sums over the support - 1) / k``), so the values and the
    gradient are Keras'.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).
    axis : int, optional
        Default -1.

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    tf = _tf()
    logits = _t(x)
    rank = len(logits.shape)
    ax = axis % rank
    ordered = tf.sort(logits, direction="DESCENDING", axis=ax)
    cumsum = tf.cumsum(ordered, axis=ax)
    r = tf.range(1, logits.shape[ax] + 1, dtype=logits.dtype)
    r = tf.reshape(r, [-1 if i == ax else 1 for i in range(rank)])
    support = ordered - (cumsum - _c(1.0, logits)) / r > 0
    cumsum_safe = tf.where(support, cumsum, _c(0.0, logits))
    k = tf.reduce_sum(tf.cast(support, logits.dtype), axis=ax, keepdims=True)
    tau = (tf.reduce_sum(cumsum_safe, axis=ax, keepdims=True) - _c(1.0, logits)) / k
    out: Tensor = tf.maximum(logits - tau, _c(0.0, logits))
    return out


def squareplus(x: Any, b: float = 4) -> Tensor:
    """``(x + sqrt(x**2 + b)) / 2``, a smooth ReLU.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).
    b : float, optional
        Smoothness; default 4.

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    tf = _tf()
    x = _t(x)
    out: Tensor = (x + tf.sqrt(tf.square(x) + _c(b, x))) / _c(2.0, x)
    return out


def tanh_shrink(x: Any) -> Tensor:
    """``x - tanh(x)``.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    x = _t(x)
    out: Tensor = x - _core.tanh(x)
    return out


def threshold(x: Any, threshold: float, default_value: float) -> Tensor:
    """``x`` where ``x > threshold``, ``default_value`` elsewhere.

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).
    threshold : float
        The value above which ``x`` is kept.
    default_value : float
        What replaces the rest.

    Returns
    -------
    Tensor
        Same shape and dtype as ``x``; differentiable.
    """
    tf = _tf()
    x = _t(x)
    out: Tensor = tf.where(x > threshold, x, _c(default_value, x))
    return out


def linear(x: Any) -> Any:
    """The identity: returns ``x`` unchanged (Keras' ``activation=None``).

    Parameters
    ----------
    x : Tensor-like
        Input values (floating point).

    Returns
    -------
    object
        ``x`` itself.
    """
    return x


# --------------------------------------------------------------------------- lookup

_BY_NAME: dict[str, Callable[..., Any]] = {
    f.__name__: f
    for f in (
        relu, leaky_relu, relu6, softmax, celu, elu, selu, softplus, softsign, silu, gelu, tanh, sigmoid, exponential,
        hard_sigmoid, hard_silu, linear, mish, log_softmax, log_sigmoid, glu, hard_shrink, hard_tanh, soft_shrink,
        sparse_plus, sparse_sigmoid, sparsemax, squareplus, tanh_shrink, threshold,
    )
}  # fmt: skip
_BY_NAME["swish"] = silu
_BY_NAME["hard_swish"] = hard_silu


def get(identifier: Any) -> Callable[..., Any]:
    """Resolves an activation: None (``linear``), a name (``"relu"``, ``"swish"``), a serialized dict, or a callable.

    Parameters
    ----------
    identifier : None, str, dict or callable
        What to resolve.

    Returns
    -------
    callable
        The activation function.

    Raises
    ------
    ValueError
        For an unknown name or an object that is not callable (Keras' message).
    """
    if identifier is None:
        return linear

    def from_dict(d: dict[str, Any]) -> Any:
        # Keras' serialized activation: {"class_name": "function", "config": name}.
        cfg = d.get("config")
        return _BY_NAME.get(cfg) if isinstance(cfg, str) else None

    fn: Callable[..., Any] = resolve(identifier, _BY_NAME, "activation function", from_dict, instantiate=False)
    return fn


def serialize(activation: Callable[..., Any]) -> Any:
    """The name of a built-in activation (``swish`` serializes as ``"silu"``, as Keras).

    A custom callable with a ``get_config`` method serializes to that config;
    any other callable is an error, as in Keras (register it by name instead).

    Parameters
    ----------
    activation : callable
        The activation function.

    Returns
    -------
    str or dict
        The name, or a custom activation's config.
    """
    for name, fn in _BY_NAME.items():
        if fn is activation and name not in ("swish", "hard_swish"):
            return name
    if hasattr(activation, "get_config"):
        return {"class_name": type(activation).__name__, "config": activation.get_config()}
    raise ValueError(f"Unknown activation function '{activation}' cannot be serialized due to invalid function name.")


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Callable[..., Any]:
    """Inverse of :func:`serialize`: a name (or ``custom_objects`` entry) back to the function.

    Parameters
    ----------
    config : str or dict
        A serialized form.
    custom_objects : dict, optional
        Extra names to resolve.

    Returns
    -------
    callable
        The activation function.
    """
    from .utils import _visible_custom_objects

    visible = _visible_custom_objects(custom_objects)
    if isinstance(config, str) and config in visible:
        fn: Callable[..., Any] = visible[config]
        return fn
    return get(config)
