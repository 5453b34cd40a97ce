"""``custom_gradient``: define an op's gradient in Python."""

from __future__ import annotations

import functools
from typing import Any, Callable

from . import _core, _nest
from ._core import Tensor, Variable


def custom_gradient(f: Callable[..., Any] | None = None) -> Any:
    """Decorator: ``f(*x)`` returns ``(y, grad_fn)``; ``grad_fn(*dy)`` returns the
    gradients of the inputs (one per positional argument, a tensor or None).

    Usable as ``@custom_gradient`` or ``@custom_gradient()``.

    Parameters
    ----------
    f : callable
        ``f(*x) -> (y, grad_fn)``: the forward value (a tensor or a structure
        of tensors) and its gradient function.

    Returns
    -------
    callable
        ``f`` wrapped so that tapes see one op from ``x`` to ``y`` whose
        gradient is ``grad_fn``. ``grad_fn`` runs with the GIL taken only
        around itself, even when the backward pass runs on worker threads;
        an exception it raises (``KeyboardInterrupt`` included) comes out of
        ``gradient`` unchanged, and the tape keeps its recording.

    Notes
    -----
    As in TensorFlow, ``f`` runs normally (its ops are recorded, but gradients
    flow through ``grad_fn`` only). Differences from TensorFlow: ``grad_fn`` is
    not given the variables ``f`` read (no ``variables=`` argument); keyword
    arguments of ``f`` are passed through but are not differentiated.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        result, grad_fn = f(*args, **kwargs)
        inputs = [a if isinstance(a, (Tensor, Variable)) else _core.convert_to_tensor(a) for a in args]
        flat_result = _nest.flatten(result)

        def rule(*grads: Any) -> list[Any]:
            dy = _nest.pack_sequence_as(result, list(grads)) if len(grads) > 1 else grads[0]
            r = grad_fn(*dy) if isinstance(dy, (list, tuple)) and len(grads) > 1 else grad_fn(dy)
            flat = _nest.flatten(r) if isinstance(r, (list, tuple)) else [r]
            return flat

        recorded = _core._record_custom(inputs, flat_result, rule)
        return _nest.pack_sequence_as(result, recorded)

    return wrapped
