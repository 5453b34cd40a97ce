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
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


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


class CancelledError(OpError, RuntimeError):
    """An operation or step was cancelled (``tf.errors.CancelledError``).

    tapers raises it for no op of its own; it exists so that code catching it ports unchanged.
    """

    error_code = CANCELLED


class DeadlineExceededError(OpError, TimeoutError):
    """A deadline expired before the operation could complete (``tf.errors.DeadlineExceededError``).

    tapers raises it for no op of its own; it exists so that code catching it ports unchanged.
    """

    error_code = DEADLINE_EXCEEDED


class AlreadyExistsError(OpError, FileExistsError):
    """An entity the operation tried to create (a file, a resource) already exists
    (``tf.errors.AlreadyExistsError``)."""

    error_code = ALREADY_EXISTS


class PermissionDeniedError(OpError, PermissionError):
    """The caller may not run the operation (``tf.errors.PermissionDeniedError``)."""

    error_code = PERMISSION_DENIED


class AbortedError(OpError, RuntimeError):
    """The operation was aborted, typically by a concurrent action (``tf.errors.AbortedError``)."""

    error_code = ABORTED


class UnavailableError(OpError, ConnectionError):
    """The runtime or a service is currently unavailable (``tf.errors.UnavailableError``)."""

    error_code = UNAVAILABLE


class UnauthenticatedError(OpError, PermissionError):
    """The request has no valid authentication credentials (``tf.errors.UnauthenticatedError``)."""

    error_code = UNAUTHENTICATED


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation on a symbolic tensor that a graph cannot express, such as iterating
    over it or using it as a Python ``bool`` inside a trace (``tf.errors.OperatorNotAllowedInGraphError``).

    As in TensorFlow it is a ``TypeError``, not an ``OpError``, and has no ``error_code``.
    """


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
    "AbortedError",
    "AlreadyExistsError",
    "CancelledError",
    "DeadlineExceededError",
    "PermissionDeniedError",
    "UnauthenticatedError",
    "UnavailableError",
    "OperatorNotAllowedInGraphError",
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
]
