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
    """What ``gradient`` returns for a source no path connects to the target."""

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

    Differences from TensorFlow: none in behaviour; gradients are computed by
    the Rust core with the GIL released.
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
        """Ensures ``tensor`` (a tensor, variable, or nested structure of them) is traced."""
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
        """Temporarily stops recording operations on this tape."""
        self._tape.pause()
        try:
            yield
        finally:
            self._tape.push()

    def reset(self) -> None:
        """Clears everything recorded; recording continues on a fresh tape."""
        self._tape.reset()

    def watched_variables(self) -> tuple:
        """Variables watched by this tape, in creation order."""
        return self._tape.watched_variables()

    def gradient(
        self,
        target: Any,
        sources: Any,
        output_gradients: Any = None,
        unconnected_gradients: UnconnectedGradients = UnconnectedGradients.NONE,
    ) -> Any:
        """Gradient of ``target`` (summed if a list or non-scalar) w.r.t. ``sources``.

        Returns the gradients in the structure of ``sources``, with ``None``
        for unconnected sources (or zeros for ``UnconnectedGradients.ZERO``).
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

        Rows are computed in parallel (``parallel_iterations`` caps it; 1 runs
        them in order). ``experimental_use_pfor`` is accepted and ignored.
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
