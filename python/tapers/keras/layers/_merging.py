"""Keras 3's merging layers: ``Add``, ``Subtract``, ``Multiply``, ``Average``, ``Maximum``,
``Minimum``, ``Concatenate`` and their functional forms (``keras.layers.add([a, b])``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import _core
from ._base import Layer

__all__ = [
    "Add", "Average", "Concatenate", "Maximum", "Minimum", "Multiply", "Subtract", "add", "average", "concatenate",
    "maximum", "minimum", "multiply", "subtract",
]  # fmt: skip

Tensor = _core.Tensor


def _broadcast_shapes(a: Sequence[int | None], b: Sequence[int | None]) -> tuple[int | None, ...]:
    a, b = tuple(a), tuple(b)
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + a
    b = (1,) * (n - len(b)) + b
    out: list[int | None] = []
    for x, y in zip(a, b):
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        else:
            raise ValueError(f"Inputs have incompatible shapes. Received shapes {a} and {b}")
    return tuple(out)


class _Merge(Layer):
    """Combines a list of at least two tensors elementwise (broadcasting as NumPy does).

    Parameters
    ----------
    **kwargs
        ``name``, ``dtype``, ``trainable`` as for every layer.
    """

    _min_inputs = 2

    def build(self, input_shape: Any = None) -> None:
        """Checks that the input is a list of enough shapes."""
        if not isinstance(input_shape, (list, tuple)) or not input_shape or not isinstance(input_shape[0], tuple):
            raise ValueError(
                f"A merge layer should be called on a list of inputs. Received: input_shape={input_shape} "
                "(not a list of shapes)"
            )
        if len(input_shape) < self._min_inputs:
            raise ValueError(
                f"A merge layer should be called on a list of at least {self._min_inputs} inputs. "
                f"Got {len(input_shape)} inputs. Full input_shape received: {input_shape}"
            )
        self.built = True

    def _merge(self, a: Tensor, b: Tensor) -> Tensor:
        raise NotImplementedError

    def call(self, inputs: Any) -> Tensor:
        """Folds the inputs with the layer's operation."""
        out = inputs[0]
        for x in inputs[1:]:
            out = self._merge(out, x)
        return out

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """The inputs' broadcast shape."""
        out = tuple(input_shape[0])
        for s in input_shape[1:]:
            out = _broadcast_shapes(out, s)
        return out


class Add(_Merge):
    """Sum of a list of tensors (``keras.layers.Add``).

    Parameters
    ----------
    **kwargs
        ``name``, ``dtype``, ``trainable`` as for every layer.
    """

    def _merge(self, a: Tensor, b: Tensor) -> Tensor:
        return _core.add(a, b)


class Subtract(_Merge):
    """Difference of exactly two tensors (``keras.layers.Subtract``).

    Parameters
    ----------
    **kwargs
        ``name``, ``dtype``, ``trainable`` as for every layer.
    """

    def build(self, input_shape: Any = None) -> None:
        """Checks that there are exactly two inputs."""
        super().build(input_shape)
        if len(input_shape) != 2:
            raise ValueError(
                f"A `Subtract` layer should be called on exactly 2 inputs. Received: input_shape={input_shape}"
            )

    def _merge(self, a: Tensor, b: Tensor) -> Tensor:
        return _core.subtract(a, b)


class Multiply(_Merge):
    """Elementwise product of a list of tensors (``keras.layers.Multiply``).

    Parameters
    ----------
    **kwargs
        ``name``, ``dtype``, ``trainable`` as for every layer.
    """

    def _merge(self, a: Tensor, b: Tensor) -> Tensor:
        return _core.multiply(a, b)


class Maximum(_Merge):
    """Elementwise maximum of a list of tensors (``keras.layers.Maximum``).

    Parameters
    ----------
    **kwargs
        ``name``, ``dtype``, ``trainable`` as for every layer.
    """

    def _merge(self, a: Tensor, b: Tensor) -> Tensor:
        return _core.maximum(a, b)


class Minimum(_Merge):
    """Elementwise minimum of a list of tensors (``keras.layers.Minimum``).

    Parameters
    ----------
    **kwargs
        ``name``, ``dtype``, ``trainable`` as for every layer.
    """

    def _merge(self, a: Tensor, b: Tensor) -> Tensor:
        return _core.minimum(a, b)


class Average(_Merge):
    """Elementwise mean of a list of tensors (``keras.layers.Average``).

    Parameters
    ----------
    **kwargs
        ``name``, ``dtype``, ``trainable`` as for every layer.
    """

    def call(self, inputs: Any) -> Tensor:
        """The sum divided by the number of inputs."""
        out = inputs[0]
        for x in inputs[1:]:
            out = _core.add(out, x)
        return out / float(len(inputs))


class Concatenate(Layer):
    """Joins a list of tensors along ``axis`` (``keras.layers.Concatenate``).

    Parameters
    ----------
    axis : int
        Default -1; the other dimensions must agree.
    **kwargs
        ``name``, ``dtype``, ``trainable`` as for every layer.
    """

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = int(axis)
        self.supports_masking = True

    def build(self, input_shape: Any = None) -> None:
        """Checks that all dimensions but ``axis`` agree."""
        if not isinstance(input_shape, (list, tuple)) or len(input_shape) < 1 or not isinstance(input_shape[0], tuple):
            raise ValueError(
                "A `Concatenate` layer should be called on a list of at least 1 input. "
                f"Received: input_shape={input_shape}"
            )
        rank = len(input_shape[0])
        axis = self.axis % rank if rank else 0
        for s in input_shape[1:]:
            if len(s) != rank or any(
                i != axis and a is not None and b is not None and a != b
                for i, (a, b) in enumerate(zip(s, input_shape[0]))
            ):
                raise ValueError(
                    "A `Concatenate` layer requires inputs with matching shapes except for the concatenation "
                    f"axis. Received: input_shape={list(input_shape)}"
                )
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        """``tapers.concat(inputs, axis)``."""
        return _core.concat(list(inputs), axis=self.axis)

    def compute_output_shape(self, input_shape: Any) -> tuple[int | None, ...]:
        """The first input's shape with the sizes along ``axis`` summed (``None`` if one is unknown)."""
        out = list(input_shape[0])
        axis = self.axis % len(out)
        sizes = [s[axis] for s in input_shape]
        out[axis] = None if any(d is None for d in sizes) else sum(sizes)
        return tuple(out)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys."""
        return {**super().get_config(), "axis": self.axis}


def add(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """``Add(**kwargs)(inputs)``.

    Parameters
    ----------
    inputs : list of tensors or KerasTensors
        At least two.

    Returns
    -------
    Tensor or KerasTensor
    """
    return Add(**kwargs)(inputs)


def subtract(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """``Subtract(**kwargs)(inputs)``.

    Parameters
    ----------
    inputs : list of two tensors or KerasTensors
        ``inputs[0] - inputs[1]``.

    Returns
    -------
    Tensor or KerasTensor
    """
    return Subtract(**kwargs)(inputs)


def multiply(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """``Multiply(**kwargs)(inputs)``.

    Parameters
    ----------
    inputs : list of tensors or KerasTensors
        At least two.

    Returns
    -------
    Tensor or KerasTensor
    """
    return Multiply(**kwargs)(inputs)


def average(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """``Average(**kwargs)(inputs)``.

    Parameters
    ----------
    inputs : list of tensors or KerasTensors
        At least two.

    Returns
    -------
    Tensor or KerasTensor
    """
    return Average(**kwargs)(inputs)


def maximum(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """``Maximum(**kwargs)(inputs)``.

    Parameters
    ----------
    inputs : list of tensors or KerasTensors
        At least two.

    Returns
    -------
    Tensor or KerasTensor
    """
    return Maximum(**kwargs)(inputs)


def minimum(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """``Minimum(**kwargs)(inputs)``.

    Parameters
    ----------
    inputs : list of tensors or KerasTensors
        At least two.

    Returns
    -------
    Tensor or KerasTensor
    """
    return Minimum(**kwargs)(inputs)


def concatenate(inputs: Sequence[Any], axis: int = -1, **kwargs: Any) -> Any:
    """``Concatenate(axis, **kwargs)(inputs)``.

    Parameters
    ----------
    inputs : list of tensors or KerasTensors
        Shapes agreeing except along ``axis``.
    axis : int
        Default -1.

    Returns
    -------
    Tensor or KerasTensor
    """
    return Concatenate(axis=axis, **kwargs)(inputs)
