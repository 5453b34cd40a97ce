"""``tf.tuple``, alone in its module: defining a function named ``tuple`` would shadow the builtin
for everything else in a module."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from . import _core


def tuple(tensors: Sequence[Any], control_inputs: Any = None, name: Any = None) -> list[Any]:
    """``tf.tuple`` (exported as ``tapers.tuple``): the tensors, grouped; in eager execution
    each has already been computed.

    Parameters
    ----------
    tensors : sequence of Tensor-like or None
        The tensors; None entries stay None.
    control_inputs : list, optional
        Ops that already ran.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    list
        The same tensors, in order.
    """
    if isinstance(tensors, (str, bytes)) or not isinstance(tensors, (list, builtins.tuple)):
        raise TypeError("tensors must be a list or tuple")
    return [None if t is None else _core.convert_to_tensor(t) for t in tensors]
