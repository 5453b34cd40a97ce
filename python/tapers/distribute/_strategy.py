"""TensorFlow's ``tf.distribute`` strategy API over tapers' devices and multi-process world.

TF 2 programs write ``strategy = tf.distribute.MirroredStrategy()``, build their model under
``with strategy.scope():``, step with ``strategy.run(step, args=...)`` and combine with
``strategy.reduce(...)``. tapers runs on one CPU device, so:

* the default strategy (``get_strategy()`` outside any scope), ``OneDeviceStrategy`` and
  ``MirroredStrategy`` have one replica, as TensorFlow's have on a one-CPU machine: ``run`` calls
  the function once, on the local values, and ``reduce``/``all_reduce`` are identities across
  replicas (tapers ops, so gradients flow and the code records under ``tapers.function``);
* ``MultiWorkerMirroredStrategy`` maps each process of tapers' multi-process world
  (``tapers.distribute.init()`` under ``mpiexec -n N``) to one replica: ``num_replicas_in_sync`` is
  ``size()``, ``reduce``, ``gather`` and ``ReplicaContext.all_reduce`` go through tapers'
  ``allreduce``/``allgather``, and ``experimental_distribute_dataset`` gives every process its part
  of each global batch (TensorFlow's auto-shard ``DATA`` policy with rebatching).

Variables created under ``scope()`` are plain ``tapers.Variable``s (every replica's copy is the
one variable), so Keras ``Model.fit`` under a scope runs as it does without one.

Differences from TensorFlow: ``cross_device_ops`` and ``communication_options`` are ignored
(one device; MPI does the communication); a ``cluster_resolver`` and ``InputOptions`` are not
supported (``NotImplementedError``); across processes the collectives read tensors into numpy,
so under ``tapers.function`` they run eagerly rather than as graph ops; a global batch that does
not divide evenly is split with the first processes taking one row more.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import threading
from collections.abc import Iterator
from typing import Any, Callable, Optional

import numpy as np

from ._collective import ReduceOp, allgather, allreduce
from ._world import _state, init

_LOCAL_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


def _tf() -> Any:
    return sys.modules["tapers"]


# ----------------------------------------------------------------------------- context stack


class _Contexts(threading.local):
    def __init__(self) -> None:
        # ("cross", strategy) for a scope() or merge_call; ("replica", ReplicaContext) inside run().
        self.stack: list[tuple[str, Any]] = []


_contexts = _Contexts()
_global_strategy: list[Optional[Strategy]] = [None]  # experimental_set_strategy's


def _top() -> Optional[tuple[str, Any]]:
    if _contexts.stack:
        return _contexts.stack[-1]
    if _global_strategy[0] is not None:
        return ("cross", _global_strategy[0])
    return None


@contextlib.contextmanager
def _pushed(kind: str, obj: Any) -> Iterator[None]:
    _contexts.stack.append((kind, obj))
    try:
        yield
    finally:
        _contexts.stack.pop()


def _reduce_kind(reduce_op: Any) -> str:
    """'sum' or 'mean' from TensorFlow's spellings (ReduceOp.SUM/AVERAGE, "SUM", "MEAN")."""
    if isinstance(reduce_op, ReduceOp):
        if reduce_op is ReduceOp.SUM:
            return "sum"
        if reduce_op is ReduceOp.AVERAGE:
            return "mean"
    elif isinstance(reduce_op, str) and reduce_op.upper() in ("SUM", "MEAN"):
        return reduce_op.lower()
    raise ValueError(
        f"reduce_op must be tapers.distribute.ReduceOp.SUM, ReduceOp.AVERAGE (TensorFlow's MEAN), "
        f'"SUM" or "MEAN"; got {reduce_op!r}'
    )


def _local(value: Any) -> Any:
    """This process's replica's value of a (structure of) DistributedValues."""
    tf = _tf()
    return tf.nest.map_structure(lambda v: v.values[0] if isinstance(v, DistributedValues) else v, value)


def _tensor(value: Any, what: str) -> Any:
    tf = _tf()
    if isinstance(value, DistributedValues):
        value = value.values[0]
    if isinstance(value, tf.Variable):
        return value.value()
    try:
        return tf.convert_to_tensor(value)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{what} takes tensors; got {type(value).__name__}: {e}") from None


def _check_axis(t: Any, axis: int, what: str) -> int:
    rank = len(t.shape)
    if not -rank <= axis < rank:
        raise ValueError(f"{what}: axis {axis} is out of range for a value of shape {list(t.shape)} (rank {rank})")
    return axis % rank


def _cross_sum(t: Any) -> Any:
    """The sum of ``t`` over every replica of the world, differentiable (the gradient is the sum
    of the replicas' upstream gradients)."""
    tf = _tf()
    if _state.size == 1:
        return tf.identity(t)

    @tf.custom_gradient
    def summed(x: Any) -> Any:
        def grad(dy: Any) -> Any:
            return allreduce(dy, op=ReduceOp.SUM)

        return allreduce(x, op=ReduceOp.SUM), grad

    return summed(t)


def _cross_reduce(kind: str, t: Any, n: int) -> Any:
    tf = _tf()
    total = _cross_sum(t)
    if kind == "sum" or n == 1:
        return total
    if t.dtype.is_floating or t.dtype.is_complex:
        return total / tf.cast(n, t.dtype)
    return total // tf.cast(n, t.dtype)


def _cross_gather(t: Any, axis: int) -> Any:
    tf = _tf()
    if _state.size == 1:
        return tf.identity(t)
    if len(t.shape) == 0:
        raise ValueError("gather: a scalar has no axis to gather along; give every replica a rank-1 or more value")
    perm = [axis, *[i for i in range(len(t.shape)) if i != axis]]
    moved = tf.transpose(t, perm) if axis else t
    got = tf.convert_to_tensor(allgather(moved))
    return tf.transpose(got, list(np.argsort(perm))) if axis else got


# ----------------------------------------------------------------------------- values


class DistributedValues:
    """Values with one component per local replica (``tf.distribute.DistributedValues``).

    tapers runs one replica per process, so a strategy's ``run`` returns the replica's value
    itself, as TensorFlow does with one replica; this class wraps values explicitly built per
    replica and is accepted wherever a strategy takes per-replica values.

    Parameters
    ----------
    values : sequence
        One value per local replica (tapers has one).

    Attributes
    ----------
    values : tuple
        The components, in replica order.
    """

    def __init__(self, values: Any) -> None:
        values = tuple(values)
        if len(values) != 1:
            raise ValueError(f"tapers has one local replica; got {len(values)} per-replica values")
        self._values = values

    @property
    def values(self) -> tuple[Any, ...]:
        """The components, one per local replica."""
        return self._values

    def __repr__(self) -> str:
        return f"{type(self).__name__}:{{{', '.join(f'{i}: {v!r}' for i, v in enumerate(self._values))}}}"


class PerReplica(DistributedValues):
    """Per-replica values that may differ between replicas (TensorFlow's ``PerReplica``).

    Parameters
    ----------
    values : sequence
        One value per local replica.
    """


class InputContext:
    """What ``distribute_datasets_from_function`` tells the dataset function (``tf.distribute.InputContext``).

    Parameters
    ----------
    num_input_pipelines : int, default 1
        How many input pipelines (processes) there are.
    input_pipeline_id : int, default 0
        This pipeline's index.
    num_replicas_in_sync : int, default 1
        Replicas over all pipelines.

    Attributes
    ----------
    num_input_pipelines, input_pipeline_id, num_replicas_in_sync : int
    """

    def __init__(self, num_input_pipelines: int = 1, input_pipeline_id: int = 0, num_replicas_in_sync: int = 1) -> None:
        self._num_input_pipelines = int(num_input_pipelines)
        self._input_pipeline_id = int(input_pipeline_id)
        self._num_replicas_in_sync = int(num_replicas_in_sync)

    @property
    def num_input_pipelines(self) -> int:
        """How many input pipelines there are."""
        return self._num_input_pipelines

    @property
    def input_pipeline_id(self) -> int:
        """This pipeline's index, 0 to ``num_input_pipelines - 1``."""
        return self._input_pipeline_id

    @property
    def num_replicas_in_sync(self) -> int:
        """Replicas over all pipelines."""
        return self._num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        """The batch each replica takes of a global batch.

        Parameters
        ----------
        global_batch_size : int
            A multiple of ``num_replicas_in_sync``.

        Returns
        -------
        int
        """
        if global_batch_size % self._num_replicas_in_sync:
            raise ValueError(
                f"The `global_batch_size` {global_batch_size} is not divisible by `num_replicas_in_sync` "
                f"{self._num_replicas_in_sync}"
            )
        return global_batch_size // self._num_replicas_in_sync

    def __repr__(self) -> str:
        return (
            f"tf.distribute.InputContext(input pipeline id {self._input_pipeline_id}, "
            f"total: {self._num_input_pipelines})"
        )


# ----------------------------------------------------------------------------- datasets


def _split_rows(n_rows: int, parts: int, index: int) -> tuple[int, int]:
    """Rows [start, stop) of part ``index`` when ``n_rows`` are cut in ``parts`` contiguous runs,
    the first ``n_rows % parts`` one longer."""
    base, extra = divmod(n_rows, parts)
    start = index * base + min(index, extra)
    return start, start + base + (1 if index < extra else 0)


class DistributedIterator:
    """An iterator over a ``DistributedDataset`` (``tf.distribute.DistributedIterator``).

    Parameters
    ----------
    dataset : DistributedDataset
        What it iterates.

    Attributes
    ----------
    element_spec : structure of TensorSpec
        The spec of the input dataset's elements.
    """

    def __init__(self, dataset: DistributedDataset) -> None:
        self._dataset = dataset
        self._it = iter(dataset._dataset)

    @property
    def element_spec(self) -> Any:
        """The spec of the input dataset's elements."""
        return self._dataset.element_spec

    def __iter__(self) -> DistributedIterator:
        return self

    def __next__(self) -> Any:
        element = next(self._it)
        if not self._dataset._split:
            return element
        tf = _tf()
        parts, index = _state.size, _state.rank
        leaves = tf.nest.flatten(element)
        for leaf in leaves:
            if len(leaf.shape) == 0:
                raise ValueError(
                    f"experimental_distribute_dataset over {parts} processes splits every element along its "
                    f"first axis, so the dataset must be batched; got a component of shape {list(leaf.shape)} "
                    "(call .batch(global_batch_size) first)"
                )
        start, stop = _split_rows(int(leaves[0].shape[0]), parts, index)
        return tf.nest.pack_sequence_as(element, [leaf[start:stop] for leaf in leaves])

    def get_next(self) -> Any:
        """The next element (this replica's part of the next global batch).

        Returns
        -------
        structure of Tensor

        Raises
        ------
        tapers.errors.OutOfRangeError
            At the end of the dataset.
        """
        try:
            return next(self)
        except StopIteration:
            from ..errors import OutOfRangeError

            raise OutOfRangeError(None, None, "End of sequence") from None


class DistributedDataset:
    """A dataset whose elements are this replica's inputs (``tf.distribute.DistributedDataset``).

    Made by ``Strategy.experimental_distribute_dataset`` or ``distribute_datasets_from_function``;
    iterate it with ``for`` or ``iter(...)`` and pass the elements to ``strategy.run``.

    Parameters
    ----------
    strategy : Strategy
        The strategy it distributes for.
    dataset : tapers.data.Dataset
        The input pipeline.
    split : bool
        Whether every element is a global batch to split between the processes.

    Attributes
    ----------
    element_spec : structure of TensorSpec
        The spec of the input dataset's elements.
    """

    def __init__(self, strategy: Strategy, dataset: Any, split: bool) -> None:
        self._strategy = strategy
        self._dataset = dataset
        self._split = split

    @property
    def element_spec(self) -> Any:
        """The spec of the input dataset's elements."""
        return self._dataset.element_spec

    def __iter__(self) -> DistributedIterator:
        return DistributedIterator(self)

    def __repr__(self) -> str:
        return f"<DistributedDataset of {self._dataset!r}>"


# ----------------------------------------------------------------------------- contexts


class ReplicaContext:
    """The context of one replica while ``Strategy.run`` runs its function (``tf.distribute.ReplicaContext``).

    Get it with ``tapers.distribute.get_replica_context()``.

    Parameters
    ----------
    strategy : Strategy
        The strategy running the replica.
    replica_id_in_sync_group : int
        The replica's index among all replicas.

    Attributes
    ----------
    strategy : Strategy
    num_replicas_in_sync : int
    replica_id_in_sync_group : Tensor
        An int32 scalar.
    devices : tuple of str
    """

    def __init__(self, strategy: Strategy, replica_id_in_sync_group: int) -> None:
        self._strategy = strategy
        self._replica_id = int(replica_id_in_sync_group)

    @property
    def strategy(self) -> Strategy:
        """The strategy running this replica."""
        return self._strategy

    @property
    def num_replicas_in_sync(self) -> int:
        """Replicas over all processes."""
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> Any:
        """This replica's index among all replicas, an int32 scalar tensor."""
        tf = _tf()
        return tf.constant(self._replica_id, dtype=tf.int32)

    @property
    def devices(self) -> tuple[str, ...]:
        """The devices this replica runs on."""
        return (self._strategy.extended.worker_devices[0],)

    def all_reduce(self, reduce_op: Any, value: Any, options: Any = None) -> Any:
        """Combines a (structure of) tensor(s) over all replicas; every replica gets the result.

        Parameters
        ----------
        reduce_op : ReduceOp or str
            ``ReduceOp.SUM``, ``ReduceOp.AVERAGE`` (TensorFlow's ``MEAN``), ``"SUM"`` or ``"MEAN"``.
        value : Tensor or structure of Tensor
            This replica's value(s); every replica passes the same shapes and dtypes.
        options : ignored
            TensorFlow's ``CommunicationOptions``.

        Returns
        -------
        The same structure of tensors, combined (differentiable).
        """
        kind = _reduce_kind(reduce_op)
        tf = _tf()
        n = self.num_replicas_in_sync
        return tf.nest.map_structure(lambda v: _cross_reduce(kind, _tensor(v, "all_reduce"), n), value)

    def all_gather(self, value: Any, axis: int, options: Any = None) -> Any:
        """Concatenates every replica's value along ``axis``, in replica order.

        Parameters
        ----------
        value : Tensor or structure of Tensor
            This replica's value(s); the dimensions other than ``axis`` must agree.
        axis : int
        options : ignored

        Returns
        -------
        The same structure of tensors, gathered.
        """
        tf = _tf()

        def one(v: Any) -> Any:
            t = _tensor(v, "all_gather")
            return _cross_gather(t, _check_axis(t, axis, "all_gather"))

        return tf.nest.map_structure(one, value)

    def merge_call(self, merge_fn: Callable[..., Any], args: Any = (), kwargs: Optional[dict[str, Any]] = None) -> Any:
        """Runs ``merge_fn(strategy, *args, **kwargs)`` once, in cross-replica context.

        Parameters
        ----------
        merge_fn : callable
            Takes the strategy first; inside it ``strategy.reduce`` combines the replicas' values.
        args : tuple, optional
        kwargs : dict, optional

        Returns
        -------
        What ``merge_fn`` returns.
        """
        with _pushed("cross", self._strategy):
            return merge_fn(self._strategy, *args, **(kwargs or {}))

    def __repr__(self) -> str:
        return f"<ReplicaContext replica {self._replica_id} of {self.num_replicas_in_sync}>"


class StrategyExtended:
    """The device-level side of a strategy (``strategy.extended``, ``tf.distribute.StrategyExtended``).

    Parameters
    ----------
    strategy : Strategy

    Attributes
    ----------
    worker_devices : tuple of str
        The devices this process's replicas run on.
    parameter_devices : tuple of str
        The devices variables live on.
    experimental_between_graph : bool
        Whether each process runs its own program (multi-worker).
    should_checkpoint, should_save_summary, experimental_should_init : bool
        Whether this process should (the chief, rank 0, for multi-worker).
    """

    def __init__(self, strategy: Strategy) -> None:
        self._strategy = strategy

    @property
    def worker_devices(self) -> tuple[str, ...]:
        """The devices this process's replicas run on."""
        return self._strategy._devices

    @property
    def parameter_devices(self) -> tuple[str, ...]:
        """The devices variables live on."""
        return self._strategy._devices

    @property
    def experimental_between_graph(self) -> bool:
        """Whether each process runs its own copy of the program."""
        return isinstance(self._strategy, MultiWorkerMirroredStrategy)

    @property
    def should_checkpoint(self) -> bool:
        """Whether this process should save checkpoints (the chief)."""
        return self._strategy._rank == 0

    @property
    def should_save_summary(self) -> bool:
        """Whether this process should write summaries (the chief)."""
        return self._strategy._rank == 0

    @property
    def experimental_should_init(self) -> bool:
        """Whether this process should initialize variables (every process: each builds its model)."""
        return True


# ----------------------------------------------------------------------------- strategies


_DEVICE_RE = re.compile(
    r"^(?:/job:(?P<job>[^/]+))?(?:/replica:(?P<replica>\d+))?(?:/task:(?P<task>\d+))?"
    r"/?(?:device:)?(?P<type>[A-Za-z_]+):(?P<index>\d+)$"
)


def _check_device(device: Any, who: str) -> str:
    name = getattr(device, "name", device)
    if not isinstance(name, str):
        raise TypeError(f"{who}: a device is a string such as '/cpu:0'; got {type(device).__name__}")
    m = _DEVICE_RE.match(name.strip())
    ok = (
        m is not None
        and m["type"].upper() == "CPU"
        and m["index"] == "0"
        and m["job"] in (None, "localhost")
        and m["replica"] in (None, "0")
        and m["task"] in (None, "0")
    )
    if not ok:
        have = [d.name for d in _tf().config.list_logical_devices()]
        raise ValueError(
            f"{who}: device {name!r} is not a device tapers has; tapers runs on one CPU device {have} "
            "(use MultiWorkerMirroredStrategy under `mpiexec -n N` for more replicas)"
        )
    return _LOCAL_DEVICE


class Strategy:
    """A way to run a computation over replicas (``tf.distribute.Strategy``).

    Use a subclass (``MirroredStrategy``, ``OneDeviceStrategy``, ``MultiWorkerMirroredStrategy``), or
    ``get_strategy()`` for the current one. See the module docstring for how tapers runs them.

    Parameters
    ----------
    devices : tuple of str
        The devices this process's replica runs on.
    num_replicas : int
        Replicas over all processes.
    rank : int
        This process's replica index.

    Attributes
    ----------
    num_replicas_in_sync : int
        Replicas over all processes (1, or ``tapers.distribute.size()`` for multi-worker).
    extended : StrategyExtended
    cluster_resolver : None
        tapers has no cluster resolvers.

    Methods
    -------
    scope()
        A context in which this is the current strategy.
    run(fn, args=(), kwargs=None)
        Runs ``fn`` on this process's replica.
    reduce(reduce_op, value, axis)
        Combines per-replica values into one.
    """

    def __init__(self, devices: tuple[str, ...] = (_LOCAL_DEVICE,), num_replicas: int = 1, rank: int = 0) -> None:
        self._devices = tuple(devices)
        self._num_replicas = int(num_replicas)
        self._rank = int(rank)
        self._extended = StrategyExtended(self)

    @property
    def num_replicas_in_sync(self) -> int:
        """Replicas over all processes."""
        return self._num_replicas

    @property
    def extended(self) -> StrategyExtended:
        """The device-level side of the strategy."""
        return self._extended

    @property
    def cluster_resolver(self) -> None:
        """None: tapers has no cluster resolvers."""
        return None

    # ------------------------------------------------------------------ contexts
    @contextlib.contextmanager
    def scope(self) -> Iterator[Strategy]:
        """A context in which this is the current strategy and code runs in cross-replica context.

        Variables and Keras models built inside are plain tapers objects; entering the scope of a
        different strategy while one is active raises ``ValueError``, as in TensorFlow.

        Returns
        -------
        context manager
            Yields this strategy.
        """
        top = _top()
        if top is not None:
            current = top[1] if top[0] == "cross" else top[1].strategy
            if current is not self:
                raise ValueError(f"Mixing different tf.distribute.Strategy objects: {self!r} is not {current!r}")
        with _pushed("cross", self):
            yield self

    def run(
        self, fn: Callable[..., Any], args: Any = (), kwargs: Optional[dict[str, Any]] = None, options: Any = None
    ) -> Any:
        """Runs ``fn(*args, **kwargs)`` on this process's replica, in replica context.

        Parameters
        ----------
        fn : callable
            The per-replica step; ``get_replica_context()`` inside it gives its ``ReplicaContext``.
        args : tuple, optional
            Tensors, per-replica values (``DistributedValues`` give this replica's component) or
            elements of a ``DistributedDataset``.
        kwargs : dict, optional
        options : ignored
            TensorFlow's ``RunOptions``.

        Returns
        -------
        What ``fn`` returns on this replica (one replica per process, so no ``PerReplica`` wrapper,
        as in TensorFlow with one replica).
        """
        ctx = ReplicaContext(self, self._rank)
        with _pushed("replica", ctx):
            return fn(*_local(tuple(args)), **_local(dict(kwargs or {})))

    # ------------------------------------------------------------------ cross-replica ops
    def reduce(self, reduce_op: Any, value: Any, axis: Optional[int] = None) -> Any:
        """Combines a per-replica value over all replicas (and along ``axis`` within each).

        Parameters
        ----------
        reduce_op : ReduceOp or str
            ``ReduceOp.SUM``, ``ReduceOp.AVERAGE`` (TensorFlow's ``MEAN``), ``"SUM"`` or ``"MEAN"``.
        value : Tensor, DistributedValues or array-like
            This replica's value (e.g. what ``run`` returned).
        axis : int, optional
            Also reduce along this axis of each replica's value; ``MEAN`` then divides by the
            number of elements along it over all replicas (uneven batches weigh by their size).

        Returns
        -------
        Tensor
        """
        tf = _tf()
        kind = _reduce_kind(reduce_op)
        t = _tensor(value, "reduce")
        n = self._num_replicas
        if axis is None:
            return _cross_reduce(kind, t, n)
        ax = _check_axis(t, axis, "reduce")
        total = _cross_sum(tf.reduce_sum(t, axis=ax))
        if kind == "sum":
            return total
        count = tf.constant(float(t.shape[ax]) if n == 1 else allreduce(np.float64(t.shape[ax]), ReduceOp.SUM))
        if t.dtype.is_floating or t.dtype.is_complex:
            return total / tf.cast(count, t.dtype)
        return total // tf.cast(count, t.dtype)

    def gather(self, value: Any, axis: int) -> Any:
        """Concatenates every replica's value along ``axis``, in replica order.

        Parameters
        ----------
        value : Tensor, DistributedValues or array-like
        axis : int

        Returns
        -------
        Tensor
        """
        t = _tensor(value, "gather")
        return _cross_gather(t, _check_axis(t, axis, "gather"))

    def experimental_local_results(self, value: Any) -> tuple[Any, ...]:
        """This process's replicas' components of ``value``.

        Parameters
        ----------
        value : DistributedValues, or a value of the one replica

        Returns
        -------
        tuple
            One component per local replica.
        """
        if isinstance(value, DistributedValues):
            return value.values
        return (value,)

    # ------------------------------------------------------------------ input
    def _input_context(self) -> InputContext:
        return InputContext(_state.size if self._num_replicas > 1 else 1, self._rank, self._num_replicas)

    def experimental_distribute_dataset(self, dataset: Any, options: Any = None) -> DistributedDataset:
        """This replica's inputs from a dataset of global batches.

        With one replica the elements are the dataset's; over N processes every process reads
        the whole dataset and takes its contiguous part of each global batch (TensorFlow's
        auto-shard ``DATA`` policy, the fallback of ``AUTO``).

        Parameters
        ----------
        dataset : tapers.data.Dataset
            Batched by the global batch size (over several processes).
        options : None
            ``tf.distribute.InputOptions`` are not supported.

        Returns
        -------
        DistributedDataset
        """
        from ..data import Dataset
        from ..data.options import AutoShardPolicy

        if not isinstance(dataset, Dataset):
            raise TypeError(
                f"experimental_distribute_dataset takes a tapers.data.Dataset; got {type(dataset).__name__}"
            )
        if options is not None:
            raise NotImplementedError("tapers does not support tf.distribute.InputOptions; pass options=None")
        split = self._num_replicas > 1
        if split:
            policy = dataset.options().experimental_distribute.auto_shard_policy
            if policy not in (None, AutoShardPolicy.AUTO, AutoShardPolicy.DATA):
                raise NotImplementedError(
                    f"experimental_distribute_dataset over {self._num_replicas} processes shards by DATA only; "
                    f"the dataset's auto_shard_policy is {policy!r}"
                )
        return DistributedDataset(self, dataset, split)

    def distribute_datasets_from_function(
        self, dataset_fn: Callable[[InputContext], Any], options: Any = None
    ) -> DistributedDataset:
        """Calls ``dataset_fn(InputContext)`` for this process's input pipeline.

        The function shards and batches by itself (per-replica batches, e.g.
        ``ctx.get_per_replica_batch_size(global_batch_size)``); its elements are used as they are.

        Parameters
        ----------
        dataset_fn : callable
            ``InputContext -> tapers.data.Dataset``.
        options : None
            ``tf.distribute.InputOptions`` are not supported.

        Returns
        -------
        DistributedDataset
        """
        from ..data import Dataset

        if options is not None:
            raise NotImplementedError("tapers does not support tf.distribute.InputOptions; pass options=None")
        dataset = dataset_fn(self._input_context())
        if not isinstance(dataset, Dataset):
            raise TypeError(f"dataset_fn must return a tapers.data.Dataset; it returned {type(dataset).__name__}")
        return DistributedDataset(self, dataset, False)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} replicas={self._num_replicas} devices={list(self._devices)}>"


class _DefaultStrategy(Strategy):
    """The strategy in effect outside any scope: one replica, the local CPU."""

    @contextlib.contextmanager
    def scope(self) -> Iterator[Strategy]:
        # As TensorFlow's: the default strategy's scope changes nothing (the code stays in the
        # default replica context and other strategies' scopes may open inside it).
        yield self


_DEFAULT = _DefaultStrategy()


class OneDeviceStrategy(Strategy):
    """One replica on one device (``tf.distribute.OneDeviceStrategy``).

    Parameters
    ----------
    device : str
        The device, which must be tapers' CPU (``"/cpu:0"``, ``"/device:CPU:0"``, ...); any other
        raises ``ValueError``.
    """

    def __init__(self, device: Any) -> None:
        super().__init__((_check_device(device, "OneDeviceStrategy"),))


class MirroredStrategy(Strategy):
    """Synchronous replicas on this machine's devices (``tf.distribute.MirroredStrategy``).

    tapers has one CPU device, so it has one replica, as TensorFlow's has on a one-CPU machine.

    Parameters
    ----------
    devices : list of str, optional
        Default: the local devices (tapers' CPU). Naming any other device raises ``ValueError``.
    cross_device_ops : ignored
        With one device nothing crosses devices.
    """

    def __init__(self, devices: Any = None, cross_device_ops: Any = None) -> None:
        if devices is None:
            chosen: tuple[str, ...] = (_LOCAL_DEVICE,)
        else:
            if isinstance(devices, str):
                devices = [devices]
            devices = list(devices)
            if not devices:
                raise ValueError("MirroredStrategy: `devices` cannot be empty")
            names = [_check_device(d, "MirroredStrategy") for d in devices]
            if len(set(names)) != len(names):
                raise ValueError(f"MirroredStrategy: no duplicates allowed in `devices`: {devices}")
            chosen = tuple(names)
        super().__init__(chosen)


def _tf_config_workers() -> int:
    raw = os.environ.get("TF_CONFIG")
    if not raw:
        return 0
    try:
        cluster = json.loads(raw).get("cluster", {})
    except (ValueError, AttributeError):
        raise ValueError(f"TF_CONFIG is not a JSON object: {raw!r}") from None
    return len(cluster.get("worker", ())) + len(cluster.get("chief", ()))


class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous replicas over processes (``tf.distribute.MultiWorkerMirroredStrategy``).

    Each process of tapers' multi-process world is one replica: launch the script with
    ``mpiexec -n N python train.py`` (the constructor calls ``tapers.distribute.init()``); run
    alone it is one replica. Collectives go through ``tapers.distribute.allreduce``/``allgather``.

    Parameters
    ----------
    cluster_resolver : None
        Not supported (``NotImplementedError``): the MPI launcher makes the cluster.
    communication_options : ignored
        MPI does the communication.
    """

    def __init__(self, cluster_resolver: Any = None, communication_options: Any = None) -> None:
        if cluster_resolver is not None:
            raise NotImplementedError(
                "tapers' MultiWorkerMirroredStrategy takes no cluster_resolver: launch the processes with "
                "`mpiexec -n N python script.py` and each becomes one worker"
            )
        init()
        workers = _tf_config_workers()
        if workers > 1 and workers != _state.size:
            raise ValueError(
                f"TF_CONFIG names {workers} workers but this process's tapers world has {_state.size}: tapers "
                f"does not connect through TF_CONFIG; launch with `mpiexec -n {workers} python script.py`"
            )
        device = _LOCAL_DEVICE if _state.size == 1 else f"/job:worker/replica:0/task:{_state.rank}/device:CPU:0"
        super().__init__((device,), num_replicas=_state.size, rank=_state.rank)


# ----------------------------------------------------------------------------- module functions


def get_strategy() -> Strategy:
    """The current strategy: the innermost ``scope()``'s, else the default (one replica).

    Returns
    -------
    Strategy
    """
    top = _top()
    if top is None:
        return _DEFAULT
    return top[1] if top[0] == "cross" else top[1].strategy


def has_strategy() -> bool:
    """Whether a strategy other than the default is current.

    Returns
    -------
    bool
    """
    return get_strategy() is not _DEFAULT


def in_cross_replica_context() -> bool:
    """Whether code runs in cross-replica context (inside a ``scope()`` or ``merge_call``, outside ``run``).

    Returns
    -------
    bool
        False outside any strategy, as in TensorFlow (the default replica context).
    """
    top = _top()
    return top is not None and top[0] == "cross"


def get_replica_context() -> Optional[ReplicaContext]:
    """The current ``ReplicaContext``: inside ``run`` that replica's; None in cross-replica context.

    Returns
    -------
    ReplicaContext or None
        Outside any strategy, the default strategy's replica context (one replica).
    """
    top = _top()
    if top is None:
        return ReplicaContext(_DEFAULT, 0)
    return top[1] if top[0] == "replica" else None


def get_cross_replica_context() -> Optional[Strategy]:
    """The strategy when in cross-replica context, the default strategy outside any, else None.

    Returns
    -------
    Strategy or None
    """
    top = _top()
    if top is None:
        return _DEFAULT
    return top[1] if top[0] == "cross" else None


def experimental_set_strategy(strategy: Optional[Strategy]) -> None:
    """Makes ``strategy`` current everywhere outside other scopes (``None`` restores the default).

    Parameters
    ----------
    strategy : Strategy or None

    Returns
    -------
    None
    """
    if strategy is not None and not isinstance(strategy, Strategy):
        raise TypeError(f"experimental_set_strategy takes a Strategy or None; got {type(strategy).__name__}")
    if _contexts.stack:
        raise RuntimeError("Must not be called inside a `tf.distribute.Strategy` scope.")
    _global_strategy[0] = strategy


__all__ = [
    "DistributedDataset", "DistributedIterator", "DistributedValues", "InputContext", "MirroredStrategy",
    "MultiWorkerMirroredStrategy", "OneDeviceStrategy", "PerReplica", "ReplicaContext", "Strategy",
    "StrategyExtended", "experimental_set_strategy", "get_cross_replica_context", "get_replica_context",
    "get_strategy", "has_strategy", "in_cross_replica_context",
]  # fmt: skip
