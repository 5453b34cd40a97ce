"""Each rank's part of the data: sharding numpy arrays and splitting global batches.

A documented helper over numpy arrays (``tapers.data`` may offer
``Dataset.shard`` as well): the order of examples depends only on the seed and
the epoch, never on the rank count, so a run on N ranks at per-rank batch B/N
sees exactly the global batches a run on one rank at batch B sees.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Optional

import numpy as np

from ._world import _state


def _leaves(data: Any) -> tuple[list[np.ndarray], Any]:
    if isinstance(data, dict):
        keys = list(data)
        return [np.asarray(data[k]) for k in keys], lambda xs: dict(zip(keys, xs))
    if isinstance(data, (tuple, list)):
        kind = type(data)
        return [np.asarray(x) for x in data], lambda xs: kind(xs)
    return [np.asarray(data)], lambda xs: xs[0]


def _world(num_shards: Optional[int], index: Optional[int]) -> tuple[int, int]:
    n = _state.size if num_shards is None else int(num_shards)
    i = _state.rank if index is None else int(index)
    if n < 1 or not 0 <= i < n:
        raise ValueError(f"shard index {i} is not in [0, {n}) (num_shards {n})")
    return n, i


def _length(arrays: list[np.ndarray]) -> int:
    lengths = {a.shape[0] if a.ndim else -1 for a in arrays}
    if len(lengths) != 1 or -1 in lengths:
        raise ValueError(f"the arrays must share their first dimension; got shapes {[a.shape for a in arrays]}")
    return int(lengths.pop())


def shard(data: Any, num_shards: Optional[int] = None, index: Optional[int] = None) -> Any:
    """Every ``num_shards``-th example, starting at ``index`` (``tf.data.Dataset.shard``'s rule).

    Parameters
    ----------
    data : array, or a tuple, list or dict of arrays sharing their first dimension
        The examples along the first axis.
    num_shards : int, optional
        Default: ``size()`` (1 before ``init()``).
    index : int, optional
        Default: ``rank()``.

    Returns
    -------
    The same structure, each array cut to rows ``index, index + num_shards, ...``
    (views, no copy).
    """
    n, i = _world(num_shards, index)
    arrays, rebuild = _leaves(data)
    _length(arrays)
    return rebuild([a[i::n] for a in arrays])


def batches(
    data: Any,
    global_batch_size: int,
    *,
    seed: int = 0,
    epoch: int = 0,
    drop_remainder: bool = True,
    num_shards: Optional[int] = None,
    index: Optional[int] = None,
) -> Iterator[Any]:
    """This rank's part of each global batch of one epoch, in a shuffled order.

    The epoch's order is a permutation drawn from ``(seed, epoch)`` alone (the
    same on every rank and for every rank count); global batch ``k`` is the
    permutation's ``k``-th run of ``global_batch_size`` examples, and this
    rank takes its rows ``index, index + num_shards, ...``. Averaging the
    ranks' mean-loss gradients then equals one rank's gradient over the whole
    global batch; resuming at an epoch (and step) replays the same batches.

    Parameters
    ----------
    data : array, or a tuple, list or dict of arrays sharing their first dimension
    global_batch_size : int
        Examples per step over all ranks; a multiple of ``num_shards``.
    seed : int, default 0
    epoch : int, default 0
        Which epoch's order to draw.
    drop_remainder : bool, default True
        Skip the last, smaller global batch. Without it the last batch is split
        the same way, and ranks may get one row fewer than others (or none).
    num_shards, index : int, optional
        Default: ``size()`` and ``rank()``.

    Returns
    -------
    iterator
        Per step, the structure of ``data`` holding this rank's rows (copies,
        in batch order).
    """
    n, i = _world(num_shards, index)
    if global_batch_size < 1 or global_batch_size % n:
        raise ValueError(f"global_batch_size {global_batch_size} must be a positive multiple of num_shards {n}")
    arrays, rebuild = _leaves(data)
    length = _length(arrays)
    order = np.random.default_rng([seed, epoch]).permutation(length)
    stop = length - length % global_batch_size if drop_remainder else length
    for start in range(0, stop, global_batch_size):
        rows = order[start : start + global_batch_size][i::n]
        yield rebuild([a[rows] for a in arrays])
