"""DLPack interop (``tf.experimental.dlpack``), on the CPU.

Exporting is zero-copy and read-only: ``np.from_dlpack(t)`` (numpy ≥ 2.1) and
``torch.from_dlpack(t)`` view the tensor's memory, flagged read-only where the
consumer speaks DLPack 1.0. A consumer of the legacy protocol cannot be told
the memory is read-only, so it gets a private copy instead: tapers tensors are
immutable, and no other library may write into one.

Importing copies: the producer may still write to its memory, and a tapers
tensor must never change under a recorded gradient.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core import Tensor, constant

__all__ = ["from_dlpack", "to_dlpack"]

_CPU = (1, 0)  # (kDLCPU, device 0)


def _export(arr: np.ndarray, stream: Any, max_version: Any, dl_device: Any, copy: bool | None) -> Any:
    """``Tensor.__dlpack__``: `arr` is the tensor's read-only numpy view."""
    if stream is not None and stream != -1:
        raise BufferError(f"tapers tensors live on the CPU, where DLPack takes no stream (got stream={stream!r})")
    if dl_device is not None and tuple(dl_device) != _CPU:
        raise BufferError(f"tapers tensors live on the CPU (kDLCPU, 0); cannot export to device {tuple(dl_device)}")
    kwargs: dict[str, Any] = {}
    if max_version is not None:
        kwargs["max_version"] = max_version
    if copy is not None:
        kwargs["copy"] = copy
    source = np.array(arr) if copy else arr
    try:
        return source.__dlpack__(**kwargs)
    except BufferError:
        if copy is False:
            raise BufferError(
                "a tapers tensor is read-only; a consumer of the legacy DLPack protocol cannot be told so, "
                "and copy=False forbids handing it a copy"
            ) from None
        # Legacy consumer (no read-only flag): a private, writable copy.
        return np.array(arr).__dlpack__(**kwargs)


class _Capsule:
    """Lets ``np.from_dlpack`` read a bare DLPack capsule (as TensorFlow's ``from_dlpack`` takes)."""

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __dlpack__(self, **_: Any) -> Any:
        return self._capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return _CPU


def from_dlpack(dlcapsule: Any) -> Tensor:
    """A tensor holding the values of a DLPack capsule or of any object with
    ``__dlpack__`` (a numpy array, a PyTorch CPU tensor, ...).

    Parameters
    ----------
    dlcapsule : PyCapsule or object with ``__dlpack__``
        The producer. CPU memory only.

    Returns
    -------
    Tensor
        A copy of the values (TensorFlow shares the memory instead; tapers
        copies because its tensors are immutable and the producer may still
        write to its memory). A capsule is consumed, as the protocol requires.
    """
    if isinstance(dlcapsule, Tensor):
        return dlcapsule
    producer = dlcapsule if hasattr(dlcapsule, "__dlpack__") else _Capsule(dlcapsule)
    return constant(np.from_dlpack(producer))


def to_dlpack(tf_tensor: Any) -> Any:
    """A legacy DLPack capsule (``"dltensor"``) holding the tensor's values.

    Parameters
    ----------
    tf_tensor : Tensor
        The tensor to export.

    Returns
    -------
    PyCapsule
        A capsule over a private copy: the legacy capsule cannot mark memory
        read-only (TensorFlow shares the memory). For zero-copy exchange, pass
        the tensor itself to the consumer: ``np.from_dlpack(t)`` or
        ``torch.from_dlpack(t)`` use ``Tensor.__dlpack__``, which is zero-copy.
    """
    if not isinstance(tf_tensor, Tensor):
        tf_tensor = constant(tf_tensor)
    return np.array(tf_tensor.numpy(), ndmin=0).__dlpack__()
