"""Data-parallel training over MPI, with Horovod's names (``tapers.distribute``).

Launch the same script on N processes with ``mpiexec -n N python train.py``
(one host) or ``mpiexec -hosts a,b -n N python train.py`` (several). Each rank
trains on its own part of every batch; ``DistributedGradientTape`` averages
the gradients over the ranks with MPI allreduce (mpi4py over MPICH, both from
PyPI: ``pip install 'tapers[distributed]'``), so every rank applies the same
update and the models stay identical. Run alone (no ``mpiexec``) or without
mpi4py, it is a world of one and the same script trains on one process.

Typical loop::

    import tapers as tf
    import tapers.distribute as dist

    dist.init()
    model = ...
    dist.broadcast_variables(model.variables, root_rank=0)
    for xb, yb in dist.batches((x, y), global_batch_size=256, seed=0, epoch=epoch):
        with tf.GradientTape() as tape:
            loss = ...
        tape = dist.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.variables)
        opt.apply_gradients(zip(grads, model.variables))
    if dist.rank() == 0:
        print(...)
"""

from __future__ import annotations

from ._checkpoint import restore_checkpoint, save_checkpoint
from ._collective import (
    Average,
    Max,
    Min,
    Product,
    ReduceOp,
    Sum,
    allgather,
    allreduce,
    barrier,
    broadcast,
    broadcast_variables,
)
from ._data import batches, shard
from ._strategy import (
    DistributedDataset,
    DistributedIterator,
    DistributedValues,
    InputContext,
    MirroredStrategy,
    MultiWorkerMirroredStrategy,
    OneDeviceStrategy,
    PerReplica,
    ReplicaContext,
    Strategy,
    StrategyExtended,
    experimental_set_strategy,
    get_cross_replica_context,
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)
from ._tape import DEFAULT_BUCKET_BYTES, DistributedGradientTape
from ._world import StallError, init, is_initialized, local_rank, local_size, rank, size

__all__ = [
    "DEFAULT_BUCKET_BYTES", "Average", "DistributedGradientTape", "Max", "Min", "Product", "ReduceOp", "StallError",
    "DistributedDataset", "DistributedIterator", "DistributedValues", "InputContext", "MirroredStrategy",
    "MultiWorkerMirroredStrategy", "OneDeviceStrategy", "PerReplica", "ReplicaContext", "Strategy",
    "StrategyExtended", "experimental_set_strategy", "get_cross_replica_context", "get_replica_context",
    "get_strategy", "has_strategy", "in_cross_replica_context",
    "Sum", "allgather", "allreduce", "barrier", "batches", "broadcast", "broadcast_variables", "init",
    "is_initialized", "local_rank", "local_size", "rank", "restore_checkpoint", "save_checkpoint", "shard", "size",
]  # fmt: skip
