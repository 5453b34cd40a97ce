"""``tf.nn.ctc_loss``: connectionist temporal classification (Graves et al. 2006) over dense labels.

The forward (alpha) recursion runs in log space over the extended label sequence
``blank, l1, blank, l2, ..., blank`` (``2 * label_length + 1`` states), one step per time
step, with tapers ops only: the tape differentiates it (the gradient is the usual
posterior-minus-softmax), and a compiled step replays it. Unreachable states hold a
large negative number rather than ``-inf`` so that no gradient is ``0 * inf``.
"""

from __future__ import annotations

from typing import Any

from . import _core
from ._core import Tensor

__all__ = ["ctc_loss"]

_NEG = -1e30  # log(0) stand-in: finite, so exp() of it is 0 and gradients stay finite


def _lse(*xs: Tensor) -> Tensor:
    """``log(sum(exp(x)))`` elementwise over several tensors, stable."""
    m = xs[0]
    for x in xs[1:]:
        m = _core.maximum(m, x)
    total = _core.exp(xs[0] - m)
    for x in xs[1:]:
        total = total + _core.exp(x - m)
    return m + _core.math.log(total)


def ctc_loss(
    labels: Any,
    logits: Any,
    label_length: Any,
    logit_length: Any,
    logits_time_major: bool = True,
    unique: Any = None,
    blank_index: int | None = None,
    name: Any = None,
) -> Tensor:
    """The negative log-likelihood of each label sequence under CTC (``tf.nn.ctc_loss``, dense labels).

    Parameters
    ----------
    labels : int Tensor-like
        ``(batch, max_label_length)`` class ids, padded past each row's ``label_length``.
    logits : float Tensor-like
        Unnormalized log-probabilities, ``(time, batch, classes)`` (or ``(batch, time, classes)`` with
        ``logits_time_major=False``).
    label_length : int Tensor-like
        ``(batch,)`` label counts.
    logit_length : int Tensor-like
        ``(batch,)`` time steps used per sequence.
    logits_time_major : bool
        The layout of ``logits``.
    unique : optional
        TensorFlow's optimization hint (it does not change the result); ignored.
    blank_index : int, optional
        The blank class (default 0; negative counts from the end).
    name : optional
        Ignored.

    Returns
    -------
    Tensor
        ``(batch,)`` losses in ``logits``' dtype; ``inf`` where no alignment exists (a label longer than
        its time steps allow).

    Raises
    ------
    InvalidArgumentError
        For ranks or batch sizes that do not match (naming the shapes).
    """
    del unique, name
    logits = _core.convert_to_tensor(logits)
    if not logits.dtype.is_floating:
        raise TypeError(f"ctc_loss: logits must be floating point, got {logits.dtype.name}")
    labels = _core.cast(_core.convert_to_tensor(labels), "int32")
    label_length = _core.cast(_core.convert_to_tensor(label_length), "int32")
    logit_length = _core.cast(_core.convert_to_tensor(logit_length), "int32")
    if len(logits.shape) != 3:
        raise _invalid(f"ctc_loss: logits must be rank 3 (time, batch, classes), got shape {tuple(logits.shape)}")
    if not logits_time_major:
        logits = _core.transpose(logits, [1, 0, 2])
    steps, batch, classes = (int(d) for d in logits.shape)
    if len(labels.shape) != 2 or int(labels.shape[0]) != batch:
        raise _invalid(
            f"ctc_loss: labels must be (batch, max_label_length) with batch {batch}, got shape {tuple(labels.shape)}"
        )
    for arg, t in (("label_length", label_length), ("logit_length", logit_length)):
        if tuple(t.shape) != (batch,):
            raise _invalid(f"ctc_loss: {arg} must have shape ({batch},), got {tuple(t.shape)}")
    blank = 0 if blank_index is None else int(blank_index)
    if blank < 0:
        blank += classes
    if not 0 <= blank < classes:
        raise _invalid(f"ctc_loss: blank_index {blank_index} is out of range for {classes} classes")
    max_len = int(labels.shape[1])
    states = 2 * max_len + 1
    dt = logits.dtype
    neg = _core.constant(_NEG, dtype=dt)
    logp = _core.nn.log_softmax(logits, axis=-1)  # (time, batch, classes)

    # The extended labels: blank between and around the labels, (batch, states).
    blanks = _core.fill([batch, max_len], _core.constant(blank, dtype="int32"))
    pairs = _core.reshape(_core.stack([blanks, labels], axis=2), [batch, 2 * max_len])
    ext = _core.concat([pairs, _core.fill([batch, 1], _core.constant(blank, dtype="int32"))], axis=1)
    pos = _core.reshape(_core.range(states), [1, states])
    valid = _core.less(pos, _core.reshape(2 * label_length + 1, [batch, 1]))
    # A state may be entered from two back when it is a label differing from the label before it.
    prev2 = _core.concat([_core.fill([batch, 2], _core.constant(blank, dtype="int32")), ext[:, :-2]], axis=1)
    skip = _core.logical_and(
        _core.logical_and(_core.not_equal(ext, blank), _core.not_equal(ext, prev2)), _core.greater_equal(pos, 2)
    )
    negs = _core.fill([batch, states], neg)

    def emit(t: int) -> Tensor:
        return _core.where(valid, _core.gather(logp[t], ext, batch_dims=1), negs)

    first = emit(0) if steps > 0 else negs
    alpha = _core.where(_core.less(pos, 2), first, negs)
    for t in range(1, steps):
        from1 = _core.concat([negs[:, :1], alpha[:, :-1]], axis=1)
        from2 = _core.where(skip, _core.concat([negs[:, :2], alpha[:, :-2]], axis=1), negs)
        new = _lse(alpha, from1, from2) + emit(t)
        alpha = _core.where(_core.reshape(_core.less(t, logit_length), [batch, 1]), new, alpha)
    if steps == 0:
        alpha = _core.where(_core.equal(pos, 0), _core.zeros_like(negs), negs)
    last = _core.reshape(2 * label_length, [batch, 1])
    end_blank = _core.gather(alpha, last, batch_dims=1)[:, 0]
    end_label = _core.where(
        _core.greater(label_length, 0),
        _core.gather(alpha, _core.maximum(last - 1, 0), batch_dims=1)[:, 0],
        _core.fill([batch], neg),
    )
    ll = _lse(end_blank, end_label)
    impossible = _core.less(ll, _core.constant(_NEG / 2, dtype=dt))
    return _core.where(impossible, _core.fill([batch], _core.constant(float("inf"), dtype=dt)), -ll)


def _invalid(message: str) -> Exception:
    from .errors import InvalidArgumentError

    return InvalidArgumentError(None, None, message)
