"""``GradientTape``: TensorFlow's tape API over the Rust core tape.

The core does the recording and the backward pass; this layer adds what is
Python-specific: the context-manager protocol, nested structures of sources
and targets, TensorFlow's warnings, and argument validation.
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


class GradientTape:
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

    Examples
    --------
    >>> x = tf.constant(3.0)
    >>> with tf.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = x * x
    >>> print(tape.gradient(y, x))
    tapers.Tensor(6.0, shape=(), dtype=float32)
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent = bool(persistent)
        self._watch_accessed_variables = bool(watch_accessed_variables)
        self._tape = _core.Tape(self._persistent, self._watch_accessed_variables)

    def __enter__(self) -> GradientTape:
        self._tape.push()
        return self

    def __exit__(self, typ: Any, value: Any, traceback: Any) -> None:
        if self._tape.recording:
            self._tape.pop()

    @property
    def persistent(self) -> bool:
        return self._persistent

    def watch(self, tensor: Any) -> None:
        """Ensures ``tensor`` is traced by this tape.

        Parameters
        ----------
        tensor : Tensor, Variable, or a nested structure of them
            What to watch. Non-floating tensors are not watched (their
            gradients are always None), with TensorFlow's warning.

        Raises
        ------
        ValueError
            For objects that are not tensors or variables (TensorFlow's message).
        """
        if type(tensor) is Tensor or type(tensor) is Variable:  # fast path: one tensor
            if not self._tape.watch(tensor) and not tensor.dtype.is_floating:
                warnings.warn(
                    f"The dtype of the watched tensor must be floating (e.g. tapers.float32), got {tensor.dtype!r}",
                    stacklevel=2,
                )
            return
        for t in _extract_watchable(tensor):
            if not t.dtype.is_floating:
                warnings.warn(
                    f"The dtype of the watched tensor must be floating (e.g. tapers.float32), got {t.dtype!r}",
                    stacklevel=2,
                )
            self._tape.watch(t)

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Temporarily stops recording operations on this tape (a context manager).

        Raises
        ------
        RuntimeError
            If the tape holds no recording; ``ValueError`` if it is not
            recording now (TensorFlow's messages).
        """
        self._tape.pause()
        try:
            yield
        finally:
            self._tape.push()

    def reset(self) -> None:
        """Clears everything recorded; recording continues on a fresh tape.

        Raises
        ------
        ValueError
            If called outside the tape's ``with`` block.
        """
        self._tape.reset()

    def watched_variables(self) -> tuple:
        """The Variables this tape watches, in creation order.

        Returns
        -------
        tuple of Variable
            Also answered after a non-persistent tape was spent, as in TensorFlow.
        """
        return self._tape.watched_variables()

    def gradient(
        self,
        target: Any,
        sources: Any,
        output_gradients: Any = None,
        unconnected_gradients: UnconnectedGradients = UnconnectedGradients.NONE,
    ) -> Any:
        """Gradients of ``target`` with respect to ``sources``.

        Parameters
        ----------
        target : Tensor or nested structure of Tensors
            What to differentiate; lists and non-scalar tensors count as
            their sum.
        sources : Tensor, Variable, or nested structure of them
            What to differentiate with respect to.
        output_gradients : Tensor or nested structure, optional
            One per target, the seed instead of ones (shape and dtype of its target).
        unconnected_gradients : UnconnectedGradients, default NONE
            What an unconnected source gets: None, or zeros (``ZERO``).

        Returns
        -------
        Tensor, None, or a structure of them
            In the structure of ``sources``. ``tape.explain(target, source)``
            says why a gradient is None.

        Raises
        ------
        RuntimeError
            When a non-persistent tape is used a second time (TensorFlow's message).
        InvalidArgumentError
            When ``output_gradients`` do not match their targets.
        KeyboardInterrupt
            On Ctrl-C during a long pass (the tape stays usable).

        Notes
        -----
        Called inside a persistent tape's ``with`` block it warns, as
        TensorFlow does, and records the gradient ops (for higher derivatives).
        """
        if self._tape.recording and self._persistent:
            warnings.warn(
                "Calling GradientTape.gradient on a persistent tape inside its context is significantly "
                "less efficient than calling it outside the context (it causes the gradient ops to be "
                "recorded on the tape, leading to increased CPU and memory usage). Only call "
                "GradientTape.gradient inside the context if you actually want to trace the gradient in "
                "order to compute higher order derivatives.",
                stacklevel=2,
            )
        if unconnected_gradients is UnconnectedGradients.NONE:
            unconnected = UnconnectedGradients.NONE
        else:
            try:
                unconnected = UnconnectedGradients(unconnected_gradients)
            except ValueError:
                raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}") from None
        zero = unconnected is UnconnectedGradients.ZERO
        if type(target) is Tensor and type(sources) is Tensor and output_gradients is None:
            return self._tape.gradient([target], [sources], None, zero)[0]  # fast path: one of each
        flat_targets = _nest.flatten(target)
        flat_sources = _nest.flatten(sources)
        flat_og = None
        if output_gradients is not None:
            flat_og = _nest.flatten(output_gradients)
        flat_grads = self._tape.gradient(flat_targets, flat_sources, flat_og, unconnected is UnconnectedGradients.ZERO)
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
        return self._tape.explain(_nest.flatten(target), source)

    def describe(self) -> str:
        """The recording as text: one line per op with its inputs, outputs,
        dtypes and shapes; the watched tensors and variables; and where no
        gradient flows (``stop_gradient``, integer casts).

        Tensors are named ``t<N>`` by a process-wide counter. Not in
        TensorFlow: a debugging aid of tapers.
        """
        return self._tape.describe()

    def to_dot(self) -> str:
        """The recording as a Graphviz DOT digraph (``dot -Tsvg``): boxes for
        ops, ellipses for tensors (watched ones filled), dashed red edges where
        no gradient flows. Not in TensorFlow: a debugging aid of tapers.
        """
        return self._tape.to_dot()

    def jacobian(
        self,
        target: Any,
        sources: Any,
        unconnected_gradients: UnconnectedGradients = UnconnectedGradients.NONE,
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """Jacobian of ``target`` w.r.t. each source: shape ``target.shape + source.shape``.

        When every op between ``target`` and the sources vectorizes
        (elementwise arithmetic and math, ``matmul``, ``reshape``,
        ``transpose``, ``reduce_sum``/``reduce_mean``, ``broadcast_to``), one
        backward pass computes all rows at once, as TensorFlow's ``pfor``
        does. Otherwise it is one pass per row, in parallel
        (``parallel_iterations`` caps it; 1 runs them in order). Either way
        the result does not depend on ``parallel_iterations`` or the thread
        count. ``experimental_use_pfor`` is accepted and ignored.
        """
        try:
            unconnected = UnconnectedGradients(unconnected_gradients)
        except ValueError:
            raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}") from None
        flat_sources = _nest.flatten(sources)
        flat = self._tape.jacobian(target, flat_sources, unconnected is UnconnectedGradients.ZERO, parallel_iterations)
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
        return self._tape.batch_jacobian(target, source, parallel_iterations)


GradientTape.__module__ = "tapers"
UnconnectedGradients.__module__ = "tapers"
