"""``tapers.autodiff`` (``tf.autodiff``): forward-mode differentiation with ``ForwardAccumulator``.

``ForwardAccumulator(primals, tangents)`` records, while its ``with`` block runs,
the ops that depend on `primals`; ``acc.jvp(y)`` then gives the Jacobian-vector
product J(y) · tangents, as TensorFlow's.

How: tapers records gradients as ops, so forward mode is reverse mode twice.
The accumulator holds a persistent tape watching the primals. For a target y,
``g(u) = vjp(y, primals, u) = uᵀ J`` is computed under a second tape watching a
placeholder cotangent ``u``; ``g`` is linear in ``u``, and differentiating
``⟨g(u), tangents⟩`` with respect to ``u`` gives ``J · tangents``, whatever value
``u`` holds (zeros here). Because both passes are ordinary recorded ops, a
``GradientTape`` around the accumulator differentiates the jvp (a gradient of a
jvp), and an accumulator around a tape gives the jvp of a gradient (a
Hessian-vector product), as in TensorFlow's advanced autodiff guide. The cost is
two backward passes per ``jvp`` call instead of TensorFlow's one forward pass.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

from . import _nest
from ._core import Tensor, Variable, convert_to_tensor, zeros_like
from ._indexed_slices import IndexedSlices
from ._tape import GradientTape, UnconnectedGradients

__all__ = ["ForwardAccumulator"]


def _zero_policy(unconnected_gradients: Any) -> bool:
    try:
        return UnconnectedGradients(unconnected_gradients) is UnconnectedGradients.ZERO
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}") from None


class ForwardAccumulator:
    """Computes Jacobian-vector products of the ops run inside it (``tf.autodiff.ForwardAccumulator``).

    Parameters
    ----------
    primals : tensor, variable, or nested structure of them
        The values whose perturbation is followed.
    tangents : same structure as `primals`
        The direction of the perturbation, one tensor per primal, of its shape.

    Examples
    --------
    >>> x = tf.constant(2.0)
    >>> with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as acc:
    ...     y = x ** 3
    >>> print(acc.jvp(y))
    tapers.Tensor(12.0, shape=(), dtype=float32)
    """

    def __init__(self, primals: Any, tangents: Any) -> None:
        flat_p = _nest.flatten(primals)
        flat_t = _nest.flatten(tangents)
        if len(flat_p) != len(flat_t):
            raise ValueError(
                f"primals and tangents must have the same structure: got {len(flat_p)} primals "
                f"and {len(flat_t)} tangents"
            )
        self._primals: list[Any] = []
        self._tangents: list[Tensor] = []
        for p, t in zip(flat_p, flat_t):
            if not isinstance(p, (Tensor, Variable)):
                p = convert_to_tensor(p)
            t = convert_to_tensor(t, dtype=p.dtype)
            if tuple(t.shape) != tuple(p.shape):
                raise ValueError(
                    f"Tangent shape {tuple(t.shape)} does not match primal shape {tuple(p.shape)} "
                    f"(dtype {p.dtype.name})"
                )
            self._primals.append(p)
            self._tangents.append(t)
        self._tape = GradientTape(persistent=True, watch_accessed_variables=False)
        self._recording = False

    def __enter__(self) -> ForwardAccumulator:
        self._tape.__enter__()
        self._recording = True
        self._tape.watch(self._primals)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._recording = False
        self._tape.__exit__(exc_type, exc, tb)

    def jvp(self, primals: Any, unconnected_gradients: Any = UnconnectedGradients.NONE) -> Any:
        """The Jacobian-vector product of each tensor in `primals` (computed inside the accumulator).

        Parameters
        ----------
        primals : tensor or nested structure of tensors
            Targets: values computed from the accumulator's primals inside its ``with`` block.
        unconnected_gradients : UnconnectedGradients or str, default NONE
            What a target not computed from the primals gets: ``None`` or zeros.

        Returns
        -------
        The jvps, in the structure of `primals`.
        """
        zero = _zero_policy(unconnected_gradients)
        flat = _nest.flatten(primals)
        return _nest.pack_sequence_as(primals, [self._jvp_one(t, zero) for t in flat])

    def _jvp_one(self, target: Any, zero: bool) -> Tensor | None:
        if isinstance(target, Variable):
            target = target.read_value()
        if self._recording:
            with self._tape.stop_recording():
                out = self._double_vjp(target)
        else:
            out = self._double_vjp(target)
        if out is None and zero:
            return zeros_like(target)
        return out

    def _double_vjp(self, target: Tensor) -> Tensor | None:
        if not (target.dtype.is_floating or target.dtype.is_complex):
            return None
        u = zeros_like(target)
        with GradientTape(watch_accessed_variables=False) as outer:
            outer.watch(u)
            vjps = self._tape.gradient(target, self._primals, output_gradients=u)
            # A primal read through a gather has a sparse VJP: its dense form,
            # recorded on `outer`, is what the second VJP differentiates.
            vjps = [convert_to_tensor(g) if isinstance(g, IndexedSlices) else g for g in vjps]
        pairs = [(g, v) for g, v in zip(vjps, self._tangents) if g is not None]
        if not pairs:
            return None
        return outer.gradient([g for g, _ in pairs], u, output_gradients=[v for _, v in pairs])
