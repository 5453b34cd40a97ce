"""``GradientTape``: TensorFlow's tape API over the Rust core tape.

The core does the recording and the backward pass. The binding's base class
(``_core._GradientTape``) runs the per-iteration calls of a training loop (entering,
watching, differentiating single tensors) without a Python frame; this
subclass adds nested structures of sources and targets, argument validation,
and the rest of TensorFlow's API.
"""

from __future__ import annotations

import contextlib
import enum
import warnings
from typing import Any, Iterator

from . import _core, _nest
from ._core import Tensor, Variable


class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source no path connects to the target.

    Attributes
    ----------
    NONE
        ``None`` (the default).
    ZERO
        Zeros of the source's shape and dtype.
    """

    NONE = "none"
    ZERO = "zero"


def _extract_watchable(x: Any) -> list[Any]:
    out = []
    for t in _nest.flatten(x):
        if not isinstance(t, (Tensor, Variable)):
            raise ValueError(
                f"Passed in object {t!r} of type {type(t).__name__!r}, not tf.Tensor or tf.Variable or ExtensionType."
            )
        out.append(t)
    return out


class GradientTape(_core._GradientTape):
    """Record operations for automatic differentiation (``tf.GradientTape``).

    Operations run inside ``with GradientTape() as tape:`` on watched tensors
    (or trainable variables, watched automatically when read) are recorded;
    ``tape.gradient(target, sources)`` then computes gradients. A tape records
    the ops of the thread that entered it; the object itself may be shared
    between threads.

    Parameters
    ----------
    persistent : bool, default False
        Whether ``gradient`` may be called more than once. A non-persistent
        tape frees what it saved at its first ``gradient`` call.
    watch_accessed_variables : bool, default True
        Whether trainable Variables read while recording are watched
        automatically.

    Notes
    -----
    Differences from TensorFlow: none in behaviour. Gradients are computed by
    the Rust core with the GIL released (large ones in parallel, with results
    independent of the thread count); a long ``gradient`` on the main thread
    stops on Ctrl-C. ``explain``, ``describe`` and ``to_dot`` are tapers'
    own debugging aids.

    ``__enter__``, ``__exit__``, ``watch`` and ``gradient`` are implemented
    in the Rust base class, so a training loop's iteration runs no Python
    frame of this module when it watches and differentiates single tensors
    or variables; structures of them come back here (``_watch_nested``,
    ``_gradient_args``, ``_gradient_pack``).

    Examples
    --------
    >>> x = tf.constant(3.0)
    >>> with tf.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = x * x
    >>> print(tape.gradient(y, x))
    tapers.Tensor(6.0, shape=(), dtype=float32)
    """

    __slots__ = ()

    def _watch_nested(self, tensor: Any) -> None:
        # `watch` of anything but a single Tensor or Variable.
        for t in _extract_watchable(tensor):
            if not (t.dtype.is_floating or t.dtype.is_complex):
                warnings.warn(
                    f"The dtype of the watched tensor must be floating (e.g. tapers.float32), got {t.dtype!r}",
                    stacklevel=2,
                )
            self._watch_one(t)

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Temporarily stops recording operations on this tape (a context manager).

        Raises
        ------
        RuntimeError
            If the tape holds no recording; ``ValueError`` if it is not
            recording now (TensorFlow's messages).
        """
        self._pause()
        try:
            yield
        finally:
            self._push()

    def _gradient_args(
        self, target: Any, sources: Any, output_gradients: Any, unconnected_gradients: Any
    ) -> tuple[list[Any], list[Any], list[Any] | None, bool]:
        # `gradient` of structures, or with `output_gradients` or
        # `unconnected_gradients` given (the base class has warned already):
        # the flat targets, sources and output gradients, and whether
        # unconnected sources get zeros. The base class runs the pass, packs
        # the gradients with `_gradient_pack`, and only then spends the tape
        # (a KeyboardInterrupt raised here or there leaves it usable).
        if unconnected_gradients is None:
            unconnected = UnconnectedGradients.NONE
        else:
            try:
                unconnected = UnconnectedGradients(unconnected_gradients)
            except ValueError:
                raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}") from None
        flat_og = None
        if output_gradients is not None:
            flat_og = _nest.flatten(output_gradients)
        zero = unconnected is UnconnectedGradients.ZERO
        return _nest.flatten(target), _nest.flatten(sources), flat_og, zero

    def _gradient_pack(self, sources: Any, flat_grads: list[Any]) -> Any:
        # The gradients in the structure of `sources`.
        return _nest.pack_sequence_as(sources, flat_grads)

    def explain(self, target: Any, source: Any) -> str:
        """Says why ``gradient(target, source)`` is (or is not) ``None``.

        One of: connected; the source was never watched; the path is cut by
        ``stop_gradient``; an integer value is on the path; the target was
        computed outside this tape; the source is not floating point; nothing
        connects them; or the tape holds no recording. After a non-persistent
        tape was spent by ``gradient``, it answers for the sources that call
        returned ``None`` for.

        Not in TensorFlow: a debugging aid of tapers.

        Parameters
        ----------
        target : Tensor or nested structure of Tensors
            What would be differentiated (summed, as in ``gradient``).
        source : Tensor or Variable
            One source.

        Returns
        -------
        str
            A one-line explanation.
        """
        return self._explain(_nest.flatten(target), source)

    def jacobian(
        self,
        target: Any,
        sources: Any,
        unconnected_gradients: UnconnectedGradients = UnconnectedGradients.NONE,
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """Jacobian of ``target`` w.r.t. each source: shape ``target.shape + source.shape``.

        When every op between ``target`` and the sources has a gradient rule
        that carries leading row dims (each op's description in the core says
        whether it does), one backward pass computes all rows at once, as
        TensorFlow's ``pfor`` does; ``last_pass_stats()`` reports it. Otherwise it is one pass per row, in parallel
        (``parallel_iterations`` caps it; 1 runs them in order). Either way
        the result does not depend on ``parallel_iterations`` or the thread
        count. ``experimental_use_pfor=False`` changes nothing in how it is
        computed, but as in TensorFlow it needs a persistent tape
        (``RuntimeError`` otherwise). An empty target gives an empty Jacobian
        (shape ``target.shape + source.shape``), as TensorFlow's.
        """
        try:
            unconnected = UnconnectedGradients(unconnected_gradients)
        except ValueError:
            raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}") from None
        if not experimental_use_pfor and not self.persistent:
            raise RuntimeError(
                "GradientTape must be created with persistent=True to compute the jacobian with eager execution "
                "enabled and with  experimental_use_pfor set to False."
            )
        flat_sources = _nest.flatten(sources)
        if isinstance(target, (Tensor, Variable)) and 0 in tuple(target.shape):
            # No rows: TF's pfor stacks zero per-row gradients into an empty tensor.
            flat = [
                _core.zeros(tuple(target.shape) + tuple(s.shape), dtype=s.dtype)
                if s.dtype.is_floating or s.dtype.is_complex
                else None
                for s in flat_sources
            ]
            return _nest.pack_sequence_as(sources, flat)
        flat = self._jacobian(target, flat_sources, unconnected is UnconnectedGradients.ZERO, parallel_iterations)
        return _nest.pack_sequence_as(sources, flat)

    def batch_jacobian(
        self,
        target: Any,
        source: Any,
        unconnected_gradients: UnconnectedGradients = UnconnectedGradients.NONE,
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
    ) -> Tensor:
        """Per-example Jacobians: ``[B, *target.shape[1:], *source.shape[1:]]``.

        Assumes example ``b`` of ``target`` depends only on example ``b`` of
        ``source``. As in TensorFlow, an unconnected source gives zeros.
        """
        try:
            UnconnectedGradients(unconnected_gradients)
        except ValueError:
            raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}") from None
        return self._batch_jacobian(target, source, parallel_iterations)


GradientTape.__module__ = "tapers"
UnconnectedGradients.__module__ = "tapers"
