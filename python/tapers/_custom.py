"""``custom_gradient``: define an op's gradient in Python."""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from . import _core, _nest
from ._core import Tensor, Variable
from ._tape import GradientTape


def _accepts_variables(grad_fn: Callable[..., Any]) -> bool:
    """Whether ``grad_fn`` takes a ``variables`` keyword (TF's check, on its signature)."""
    try:
        params = inspect.signature(grad_fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(
        p.name == "variables" and p.kind != inspect.Parameter.POSITIONAL_ONLY or p.kind == inspect.Parameter.VAR_KEYWORD
        for p in params
    )


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
    flow through ``grad_fn`` only). When ``f`` reads trainable Variables,
    ``grad_fn`` is called as ``grad_fn(*dy, variables=[...])`` and returns
    ``(input_grads, variable_grads)``, one gradient per variable; a
    ``grad_fn`` without a ``variables`` parameter is then a ``TypeError`` at
    the call, as in TensorFlow. Keyword arguments of ``f`` are passed through
    but are not differentiated.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        # A tape that watches what `f` reads finds the Variables it uses (TF's VariableWatcher).
        with GradientTape(watch_accessed_variables=True) as watcher:
            result, grad_fn = f(*args, **kwargs)
        variables = [v for v in watcher.watched_variables() if not any(v is a for a in args)]
        if variables and not _accepts_variables(grad_fn):
            raise TypeError(
                "@tf.custom_gradient grad_fn must accept keyword argument 'variables', since function uses "
                f"variables: {variables}"
            )
        inputs: list[Any] = [a if isinstance(a, (Tensor, Variable)) else _core.convert_to_tensor(a) for a in args]
        flat_result = _nest.flatten(result)

        def rule(*grads: Any) -> list[Any]:
            dy = _nest.pack_sequence_as(result, list(grads)) if len(grads) > 1 else grads[0]
            dys = list(dy) if isinstance(dy, (list, tuple)) and len(grads) > 1 else [dy]
            if not variables:
                r = grad_fn(*dys)
                return _nest.flatten(r) if isinstance(r, (list, tuple)) else [r]
            input_grads, variable_grads = grad_fn(*dys, variables=variables)
            flat_in = _nest.flatten(input_grads) if isinstance(input_grads, (list, tuple)) else [input_grads]
            variable_grads = list(variable_grads)
            if len(variable_grads) != len(variables):
                raise ValueError("Must return gradient for each variable from @custom_gradient grad_fn.")
            return flat_in + variable_grads

        inputs = inputs + variables

        recorded = _core._record_custom(inputs, flat_result, rule)
        return _nest.pack_sequence_as(result, recorded)

    return wrapped
