"""Collectives over tensors: allreduce, allgather, broadcast, barrier, and
broadcasting Variables.

Tensors reach MPI without a copy: ``Tensor.numpy()`` is a read-only view of
the tensor's own buffer, and MPI reads send buffers in place. Results come
back with one copy, from MPI's receive buffer into a new tensor (tapers
tensors own their memory and are immutable, so they cannot adopt a buffer
MPI wrote).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Any

import numpy as np

from .. import _core
from .._core import Tensor, Variable
from ._world import _check_same, _exchange, _need_init, _state, _wait


class ReduceOp(enum.Enum):
    """How ``allreduce`` combines the ranks' values (Horovod's ``hvd.Average``, ``hvd.Sum``, ...).

    Attributes
    ----------
    AVERAGE, MEAN
        The sum divided by the number of ranks (``MEAN`` is ``tf.distribute.ReduceOp``'s name).
    SUM
        The elementwise sum.
    MIN, MAX, PRODUCT
        The elementwise minimum, maximum, product.
    """

    AVERAGE = "average"
    MEAN = "average"  # tf.distribute.ReduceOp's name for the same reduction (an alias of AVERAGE)
    SUM = "sum"
    MIN = "min"
    MAX = "max"
    PRODUCT = "product"


Average = ReduceOp.AVERAGE
Sum = ReduceOp.SUM
Min = ReduceOp.MIN
Max = ReduceOp.MAX
Product = ReduceOp.PRODUCT


def _mpi_op(op: ReduceOp) -> Any:
    MPI = _state.mpi
    return {
        ReduceOp.AVERAGE: MPI.SUM,
        ReduceOp.SUM: MPI.SUM,
        ReduceOp.MIN: MPI.MIN,
        ReduceOp.MAX: MPI.MAX,
        ReduceOp.PRODUCT: MPI.PROD,
    }[op]


def _check_op(op: Any) -> ReduceOp:
    if not isinstance(op, ReduceOp):
        raise TypeError(f"op must be tapers.distribute.Average, Sum, Min, Max or Product; got {op!r}")
    return op


def _as_array(value: Any) -> np.ndarray:
    """A C-contiguous numpy view of a tensor or variable (no copy for tensors)."""
    if isinstance(value, Variable):
        value = value.value()
    if not isinstance(value, Tensor):
        value = _core.convert_to_tensor(value)
    return np.ascontiguousarray(value.numpy())


def _check_root(root_rank: int) -> int:
    if not 0 <= root_rank < _state.size:
        raise ValueError(f"root_rank {root_rank} is not a rank of this world of {_state.size}")
    return root_rank


def _mismatch(what: str, metas: list[Any]) -> Exception:
    from ..errors import InvalidArgumentError

    described = "; ".join(f"rank {r}: shape {list(m[0])} dtype {m[1]}" for r, m in enumerate(metas))
    return InvalidArgumentError(
        None, None, f"tapers.distribute.{what}: the ranks passed tensors that disagree: {described}"
    )


def allreduce(tensor: Any, op: ReduceOp = Average, name: Any = None) -> Tensor:
    """Combines a tensor over all ranks (``hvd.allreduce``): every rank gets the result.

    Every rank must call it with a tensor of the same shape and dtype; that is
    checked (a mismatch raises ``InvalidArgumentError`` on every rank naming
    each rank's shape and dtype).

    Parameters
    ----------
    tensor : Tensor, Variable or array-like
        This rank's value.
    op : ReduceOp, default Average
        ``Average``, ``Sum``, ``Min``, ``Max`` or ``Product``. ``Average`` of
        an integer tensor divides with floor, as Horovod's.
    name : ignored
        Kept for Horovod's signature.

    Returns
    -------
    Tensor
        The combined value, same shape and dtype.
    """
    _need_init("allreduce")
    op = _check_op(op)
    send = _as_array(tensor)
    if _state.comm is None:
        return _core.convert_to_tensor(send) if not isinstance(tensor, Tensor) else tensor
    _check_same("allreduce", (send.shape, send.dtype.name), lambda metas: _mismatch("allreduce", metas))
    recv = np.empty_like(send)
    _wait(_state.comm.Iallreduce(send, recv, op=_mpi_op(op)), "allreduce")
    if op is ReduceOp.AVERAGE:
        if np.issubdtype(recv.dtype, np.floating):
            np.divide(recv, _state.size, out=recv)
        else:
            np.floor_divide(recv, _state.size, out=recv)
    return _core.convert_to_tensor(recv)


def allgather(tensor: Any, name: Any = None) -> Tensor:
    """Concatenates every rank's tensor along the first axis, in rank order (``hvd.allgather``).

    The first dimension may differ between ranks; the other dimensions and the
    dtype must agree (checked: ``InvalidArgumentError`` otherwise).

    Parameters
    ----------
    tensor : Tensor, Variable or array-like
        This rank's part; rank 0 or more (a scalar counts as one row).
    name : ignored
        Kept for Horovod's signature.

    Returns
    -------
    Tensor
        Shape ``[sum of first dims, *rest]``.
    """
    _need_init("allgather")
    send = _as_array(tensor)
    if send.ndim == 0:
        send = send.reshape(1)
    if _state.comm is None:
        return _core.convert_to_tensor(send)
    metas = _exchange((send.shape, send.dtype.name), "allgather")
    if any(m[0][1:] != metas[0][0][1:] or m[1] != metas[0][1] for m in metas):
        raise _mismatch("allgather", metas)
    rows = [m[0][0] for m in metas]
    row = int(np.prod(send.shape[1:], dtype=np.int64))
    counts = [r * row for r in rows]
    recv = np.empty((sum(rows), *send.shape[1:]), dtype=send.dtype)
    _wait(_state.comm.Iallgatherv(send, [recv, counts]), "allgather")
    return _core.convert_to_tensor(recv)


def broadcast(tensor: Any, root_rank: int = 0, name: Any = None) -> Tensor:
    """Every rank gets ``root_rank``'s tensor (``hvd.broadcast``).

    Parameters
    ----------
    tensor : Tensor, Variable or array-like
        The value on the root; on the other ranks, a tensor of the same shape
        and dtype (checked: ``InvalidArgumentError`` otherwise).
    root_rank : int, default 0
        The rank whose value everyone gets.
    name : ignored
        Kept for Horovod's signature.

    Returns
    -------
    Tensor
    """
    _need_init("broadcast")
    _check_root(root_rank)
    send = _as_array(tensor)
    if _state.comm is None:
        return _core.convert_to_tensor(send) if not isinstance(tensor, Tensor) else tensor
    _check_same("broadcast", (send.shape, send.dtype.name), lambda metas: _mismatch("broadcast", metas))
    buf = send if _state.rank == root_rank else np.empty_like(send)
    _wait(_state.comm.Ibcast(buf, root=root_rank), "broadcast")
    if _state.rank == root_rank and isinstance(tensor, Tensor):
        return tensor
    return _core.convert_to_tensor(buf)


def barrier() -> None:
    """Returns once every rank has called it (``hvd.barrier``).

    Returns
    -------
    None
    """
    _need_init("barrier")
    if _state.comm is not None:
        _wait(_state.comm.Ibarrier(), "barrier")


def broadcast_variables(variables: Iterable[Variable], root_rank: int = 0) -> None:
    """Assigns ``root_rank``'s values to the Variables on every rank (``hvd.broadcast_variables``).

    Call it once after building the model (and, for optimizer slots, with
    ``optimizer.variables()`` once they exist) so every rank starts from the
    same weights. The variables' names, shapes and dtypes must agree between
    ranks, in the same order (checked: ``InvalidArgumentError`` names the
    first that differs).

    Parameters
    ----------
    variables : iterable of Variable
    root_rank : int, default 0

    Returns
    -------
    None
    """
    _need_init("broadcast_variables")
    _check_root(root_rank)
    variables = list(variables)
    for v in variables:
        if not isinstance(v, Variable):
            raise TypeError(f"broadcast_variables takes Variables; got {type(v).__name__}")
    if _state.comm is None:
        return
    layout = tuple((tuple(v.shape), v.dtype.name) for v in variables)

    def mismatch(layouts: list[Any]) -> Exception:
        from ..errors import InvalidArgumentError

        bad = next(r for r, lay in enumerate(layouts) if lay != layouts[0])
        return InvalidArgumentError(
            None,
            None,
            f"tapers.distribute.broadcast_variables: rank {bad} passed {len(layouts[bad])} variables "
            f"{[list(s) for s, _ in layouts[bad]]} but rank 0 passed {len(layouts[0])} "
            f"{[list(s) for s, _ in layouts[0]]} (shapes; the dtypes must agree too)",
        )

    _check_same("broadcast_variables", layout, mismatch)
    root = _state.rank == root_rank
    bufs = [_as_array(v) if root else np.empty(tuple(v.shape), dtype=v.dtype.name) for v in variables]
    reqs = [_state.comm.Ibcast(b, root=root_rank) for b in bufs]
    _wait(reqs, "broadcast_variables")
    if not root:
        for v, b in zip(variables, bufs):
            v.assign(b)
