"""Small top-level TensorFlow names: the variable enums, ``AggregationMethod``, the TF 2 initializer
aliases, ``inside_function``, ``is_symbolic_tensor``, ``guarantee_const`` and ``type_spec_from_value``."""

from __future__ import annotations

import enum
from typing import Any

from . import _core

__all__ = [
    "AggregationMethod", "VariableAggregation", "VariableSynchronization", "guarantee_const", "inside_function",
    "is_symbolic_tensor", "type_spec_from_value",
]  # fmt: skip


class VariableSynchronization(enum.Enum):
    """When a distributed variable is aggregated (``tf.VariableSynchronization``); tapers has one replica
    per process, so every value describes the same variable.

    Attributes
    ----------
    AUTO, NONE, ON_WRITE, ON_READ
        TensorFlow's members and values.
    """

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How a distributed variable's updates combine (``tf.VariableAggregation``).

    Attributes
    ----------
    NONE, SUM, MEAN, ONLY_FIRST_REPLICA
        TensorFlow's members and values.
    """

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3

    def __hash__(self) -> int:
        return hash(self.value)


class AggregationMethod:
    """How gradients of one tensor are summed (``tf.AggregationMethod``): tapers always adds them in
    recording order, which each of these names is accepted as.

    Attributes
    ----------
    ADD_N, DEFAULT, EXPERIMENTAL_TREE, EXPERIMENTAL_ACCUMULATE_N
        TensorFlow's constants.
    """

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def inside_function() -> bool:
    """Whether a ``tapers.function`` is tracing its Python function now (``tf.inside_function``).

    Returns
    -------
    bool
    """
    return bool(_core._is_tracing())


def is_symbolic_tensor(tensor: Any) -> bool:
    """Whether ``tensor`` is a graph tensor without a value (``tf.is_symbolic_tensor``).

    Parameters
    ----------
    tensor : object

    Returns
    -------
    bool
        Always False: tapers traces on real values, so every tensor holds one.
    """
    return False


def guarantee_const(input: Any, name: Any = None) -> Any:  # noqa: A002 - TensorFlow's name
    """``input`` itself (``tf.guarantee_const`` is a promise to TensorFlow's graph optimizer).

    Parameters
    ----------
    input : Tensor-like

    Returns
    -------
    Tensor
    """
    return _core.identity(input)


def type_spec_from_value(value: Any) -> Any:
    """The ``TensorSpec`` describing a tensor (``tf.type_spec_from_value``).

    Parameters
    ----------
    value : Tensor-like

    Returns
    -------
    TensorSpec
    """
    from ._spec import TensorSpec

    t = _core.convert_to_tensor(value)
    return TensorSpec(t.shape, t.dtype)
