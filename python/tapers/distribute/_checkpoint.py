"""Checkpoints under data parallelism: rank 0 writes, every rank restores."""

from __future__ import annotations

import os
from typing import Any

from ._collective import barrier
from ._world import _need_init, _state


def save_checkpoint(checkpoint: Any, path: str | os.PathLike[str]) -> str:
    """Saves ``checkpoint`` (a ``tapers.train.Checkpoint``) from rank 0 only.

    Every rank holds the same values (the gradients were combined, the start
    was broadcast), so one file is enough. Rank 0 writes it atomically, as
    ``Checkpoint.save`` does; the other ranks advance their ``save_counter``
    to match and wait until the file is complete, so a restore right after
    sees it.

    Parameters
    ----------
    checkpoint : tapers.train.Checkpoint
    path : str or PathLike
        Where rank 0 writes.

    Returns
    -------
    str
        The path.
    """
    _need_init("save_checkpoint")
    if _state.rank == 0:
        checkpoint.save(path)
    else:
        checkpoint.save_counter.assign_add(1)
    barrier()
    return os.fspath(path)


def restore_checkpoint(checkpoint: Any, path: str | os.PathLike[str]) -> Any:
    """Every rank restores ``checkpoint`` from ``path`` (rank 0's file).

    The file must be readable by every rank: one host, or a shared file
    system across hosts. The ranks meet first, so none reads a file rank 0 is
    still writing.

    Parameters
    ----------
    checkpoint : tapers.train.Checkpoint
    path : str or PathLike

    Returns
    -------
    tapers.train.CheckpointLoadStatus
    """
    _need_init("restore_checkpoint")
    barrier()
    return checkpoint.restore(path)
