"""Exceptions, under TensorFlow's names.

Each class also subclasses the Python builtin that fits it, so code written
for either TensorFlow (``except tf.errors.InvalidArgumentError``) or plain
Python (``except ValueError``) catches it. The Rust core has one error enum;
the binding maps each variant to one of these classes in one place.
"""

from __future__ import annotations

from typing import Any

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
NOT_FOUND = 5
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
DATA_LOSS = 15


class OpError(Exception):
    """Base class of errors raised by a failing op (as ``tf.errors.OpError``)."""

    error_code = UNKNOWN

    def __init__(self, node_def: Any = None, op: Any = None, message: str | None = None, *args: Any) -> None:
        if message is None and isinstance(node_def, str) and op is None:
            # Allow OpError("message") as a convenience.
            node_def, message = None, node_def
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message or ""

    @property
    def message(self) -> str:
        return self._message

    @property
    def op(self) -> Any:
        return self._op

    @property
    def node_def(self) -> Any:
        return self._node_def

    def __str__(self) -> str:
        return self._message


class InvalidArgumentError(OpError, ValueError):
    """An op got an invalid argument: incompatible shapes, mismatched dtypes, bad axes."""

    error_code = INVALID_ARGUMENT


class NotFoundError(OpError, LookupError):
    """Something requested (a file, a checkpoint entry) does not exist."""

    error_code = NOT_FOUND


class DataLossError(OpError, ValueError):
    """A file is corrupt or truncated (a checkpoint that cannot be read)."""

    error_code = DATA_LOSS


class FailedPreconditionError(OpError, RuntimeError):
    """The system is not in a state to run the operation (for example a spent tape)."""

    error_code = FAILED_PRECONDITION


class ResourceExhaustedError(OpError, MemoryError):
    """An allocation could not be satisfied."""

    error_code = RESOURCE_EXHAUSTED


class OutOfRangeError(OpError):
    """Iteration went past the end (``tapers.data`` iterators' ``get_next()`` at the end of a dataset)."""

    error_code = OUT_OF_RANGE


class UnimplementedError(OpError, NotImplementedError):
    """The operation is not implemented by tapers."""

    error_code = UNIMPLEMENTED


class InternalError(OpError, RuntimeError):
    """An invariant of tapers broke: please report it."""

    error_code = INTERNAL


class UnknownError(OpError, RuntimeError):
    """An error of no other class."""

    error_code = UNKNOWN


__all__ = [
    "OpError",
    "InvalidArgumentError",
    "NotFoundError",
    "DataLossError",
    "FailedPreconditionError",
    "ResourceExhaustedError",
    "OutOfRangeError",
    "UnimplementedError",
    "InternalError",
    "UnknownError",
]
