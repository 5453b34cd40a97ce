"""``DistributedGradientTape``: a tape whose ``gradient`` averages over ranks.

The gradients are grouped into buckets of at most ``bucket_bytes`` (one dtype
per bucket, in source order; a tensor of at least half that size is a bucket
of its own, sent from its own buffer). Each bucket's allreduce is started (non-blocking) as soon as the
bucket is packed, so packing the next bucket and unpacking the previous one
overlap with the transfers in flight.

Copies: a bucket of one tensor is sent straight from the tensor's buffer (no
copy of ours; MPI's out-of-place allreduce copies it into the receive buffer
itself); a bucket of several is packed into one contiguous buffer (one copy)
and reduced in place. Each result is copied once into a new tensor. The
``last_stats`` of a tape count all three.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Optional

import numpy as np

from .. import _core, _nest
from .._indexed_slices import IndexedSlices
from ..errors import InvalidArgumentError
from ._collective import Average, ReduceOp, _check_op, _mpi_op, allgather
from ._world import _check_same, _fingerprint, _need_init, _state, _wait

# Horovod's default fusion threshold. Measured on two ranks of one host (benches/distribute_scaling.py
# --buckets, README): one packed bucket reduced in place beats several buckets, and a large tensor sent
# from its own buffer costs MPICH the same copy as packing it.
DEFAULT_BUCKET_BYTES = 64 << 20

_WHAT = "DistributedGradientTape.gradient"


class _Bucket:
    def __init__(self, indices: list[int], shapes: list[tuple[int, ...]], dtype: np.dtype) -> None:
        self.indices = indices
        self.shapes = shapes
        self.sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes)]).tolist()
        self.dtype = dtype
        n = self.offsets[-1]
        # Reused every step: the previous step's results were copied out before it returned.
        self.buffer = np.empty(n, dtype=dtype)
        self.nbytes = n * dtype.itemsize


class _Plan:
    """The buckets for one layout (the gradients' shapes and dtypes, None marked)."""

    def __init__(self, layout: tuple[Any, ...], bucket_bytes: int) -> None:
        layout = tuple(None if e is None else (e[0], np.dtype(e[1]).name) for e in layout)
        self.layout = layout
        self.fingerprint = _fingerprint((_WHAT, layout))
        self.buckets: list[_Bucket] = []
        current: list[int] = []
        current_bytes = 0
        current_dtype: Optional[np.dtype] = None

        def close() -> None:
            if current:
                assert current_dtype is not None
                self.buckets.append(_Bucket(list(current), [layout[i][0] for i in current], current_dtype))

        for i, entry in enumerate(layout):
            if entry is None or entry[0] == "sparse":  # no gradient, or gathered rather than reduced
                continue
            shape, dtype_name = entry
            dtype = np.dtype(dtype_name)
            nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
            if nbytes >= bucket_bytes // 2:
                # Large enough to amortize an allreduce's latency alone: sent from its own buffer, uncopied.
                self.buckets.append(_Bucket([i], [shape], dtype))
                continue
            if current and (dtype != current_dtype or current_bytes + nbytes > bucket_bytes):
                close()
                current, current_bytes = [], 0
            current.append(i)
            current_bytes += nbytes
            current_dtype = dtype
        close()


class _Plans(threading.local):
    """Each thread's plans by (layout, bucket size). A training loop makes a new
    ``DistributedGradientTape`` every step, so the plans (and their buffers,
    whose pages are then touched once, not every step) outlive the tapes; per
    thread, because a plan's buffers are in use until its ``gradient`` returns."""

    LIMIT = 16

    def __init__(self) -> None:
        self.by_key: dict[tuple[Any, ...], _Plan] = {}
        self.built = 0

    def get(self, layout: tuple[Any, ...], bucket_bytes: int) -> _Plan:
        key = (layout, bucket_bytes)
        plan = self.by_key.get(key)
        if plan is None:
            if len(self.by_key) >= self.LIMIT:  # a program whose shapes keep changing: drop the oldest
                del self.by_key[next(iter(self.by_key))]
            plan = self.by_key[key] = _Plan(layout, bucket_bytes)
            self.built += 1
        return plan


_plans = _Plans()


class DistributedGradientTape:
    """Wraps a ``GradientTape`` so that ``gradient`` returns gradients combined
    over all ranks (``hvd.DistributedGradientTape``).

    Use it as Horovod's: record with a plain tape, wrap it, ask for gradients::

        with tf.GradientTape() as tape:
            loss = ...
        tape = tapers.distribute.DistributedGradientTape(tape)
        grads = tape.gradient(loss, variables)

    Every rank must call ``gradient`` the same number of times with gradients
    of the same shapes and dtypes. A handshake (one 16-byte allreduce per
    call, of a fingerprint of the shapes and dtypes) checks that before any
    gradient moves: ranks that disagree all raise ``InvalidArgumentError``
    naming each rank's shapes. A rank that skipped a call is caught when it
    meets the others in a different collective (at the latest at the end of
    its script, where ``init`` makes the ranks meet once more), with an
    ``InvalidArgumentError`` saying where each rank is. What MPI cannot
    reveal is a rank that simply stops calling (stuck in a loop, waiting on
    input): the others wait for the stall timeout
    (``TAPERS_DISTRIBUTE_TIMEOUT``, default 300 s), then raise ``StallError``,
    which ends the job.

    Parameters
    ----------
    tape : GradientTape
        The tape that recorded the loss (used after its ``with`` block).
    op : ReduceOp, default Average
        ``Average`` (the mean gradient: each rank's loss is a mean over its
        part of the batch) or ``Sum``.
    bucket_bytes : int, default 64 MiB (Horovod's fusion threshold)
        The most bytes one allreduce of several tensors carries; a tensor of
        at least half of it is reduced alone, straight from its buffer.
    sparse_as_dense : bool, default False
        What to do with sparse gradients (``IndexedSlices``, from a gather or
        an embedding lookup), as Horovod's: by default every rank's rows are
        gathered (``allgather`` of the values and of the indices; the result
        is an ``IndexedSlices`` holding all ranks' rows, values divided by the
        number of ranks for ``Average``), so no rank materializes the table;
        ``True`` converts them to dense tensors, reduced with the others.

    Attributes
    ----------
    last_stats : dict
        For the last ``gradient`` call: ``buckets``, ``bytes_reduced`` (the
        gradients' bytes), ``bytes_copied_in`` (packed into buckets; a bucket
        of one tensor is sent from the tensor's own buffer),
        ``bytes_copied_by_mpi`` (such a send is out of place, and MPICH
        copies the send buffer into the receive buffer before reducing),
        ``bytes_copied_out`` (results copied into new tensors),
        ``seconds_handshake``, ``seconds_waiting`` (blocked on transfers, after
        the overlapped packing and unpacking), ``seconds_sync`` (the whole
        combination, after the local backward pass) and ``plans_built`` (bucket
        plans this thread has built so far: one per layout, reused by later
        tapes along with their buffers).

    Notes
    -----
    Differences from Horovod: no compression, and buckets are formed per call in source order
    rather than by a background thread's timing, so every run is the same.
    Other attributes (``watch``, ``jacobian``...) are the wrapped tape's.
    """

    def __init__(
        self,
        tape: Any,
        op: ReduceOp = Average,
        bucket_bytes: int = DEFAULT_BUCKET_BYTES,
        sparse_as_dense: bool = False,
    ) -> None:
        _need_init("DistributedGradientTape")
        self._op = _check_op(op)
        if self._op not in (ReduceOp.AVERAGE, ReduceOp.SUM):
            raise ValueError(f"DistributedGradientTape combines gradients with Average or Sum; got {op}")
        if bucket_bytes <= 0:
            raise ValueError(f"bucket_bytes must be positive; got {bucket_bytes}")
        self._tape = tape
        self._bucket_bytes = int(bucket_bytes)
        self._sparse_as_dense = bool(sparse_as_dense)
        self.last_stats: dict[str, float] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tape, name)

    def __enter__(self) -> DistributedGradientTape:
        self._tape.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._tape.__exit__(*exc)

    def gradient(
        self, target: Any, sources: Any, output_gradients: Any = None, unconnected_gradients: Any = None
    ) -> Any:
        """The wrapped tape's gradients, averaged (or summed) over all ranks.

        Parameters
        ----------
        target, sources, output_gradients, unconnected_gradients
            As ``GradientTape.gradient``.

        Returns
        -------
        The same structure as ``sources``: combined gradients; ``None`` where
        the tape gives ``None`` (which must be so on every rank).
        """
        kwargs: dict[str, Any] = {}
        if output_gradients is not None:
            kwargs["output_gradients"] = output_gradients
        if unconnected_gradients is not None:
            kwargs["unconnected_gradients"] = unconnected_gradients
        grads = self._tape.gradient(target, sources, **kwargs)
        if _state.comm is None:
            return grads
        flat = _nest.flatten(grads)
        return _nest.pack_sequence_as(grads, self._combine(flat))

    def _combine(self, flat: list[Any]) -> list[Any]:
        t0 = time.perf_counter()
        sparse = [i for i, g in enumerate(flat) if isinstance(g, IndexedSlices)]
        if sparse and self._sparse_as_dense:
            flat = [_core.convert_to_tensor(g) if isinstance(g, IndexedSlices) else g for g in flat]
            sparse = []
        # Sparse gradients are marked in the layout (their row counts may differ between ranks) and
        # gathered after the dense ones are reduced.
        arrays: list[Any] = [None if g is None or isinstance(g, IndexedSlices) else g.numpy() for g in flat]
        layout = tuple(
            ("sparse", g.dtype.name) if isinstance(g, IndexedSlices) else None if a is None else (a.shape, a.dtype)
            for g, a in zip(flat, arrays)
        )
        plan = _plans.get(layout, self._bucket_bytes)
        _state.gradient_calls += 1
        call = _state.gradient_calls
        _check_same(_WHAT, plan.layout, _layout_mismatch, fp=plan.fingerprint)
        t1 = time.perf_counter()
        comm, MPI = _state.comm, _state.mpi
        mpi_op = _mpi_op(self._op)
        copied_in = copied_by_mpi = 0
        requests = []
        for b in plan.buckets:
            if len(b.indices) == 1:
                send = np.ascontiguousarray(arrays[b.indices[0]]).reshape(-1)  # the tensor's buffer: no copy
                if not np.shares_memory(send, arrays[b.indices[0]]):
                    copied_in += b.nbytes
                # Out of place: MPICH's algorithms first copy the send buffer into the receive buffer.
                copied_by_mpi += b.nbytes
                requests.append(comm.Iallreduce(send, b.buffer, op=mpi_op))
            else:
                for i, a, z in zip(b.indices, b.offsets[:-1], b.offsets[1:]):
                    np.copyto(b.buffer[a:z], arrays[i].reshape(-1))
                copied_in += b.nbytes
                requests.append(comm.Iallreduce(MPI.IN_PLACE, b.buffer, op=mpi_op))
        out: list[Any] = [None] * len(flat)
        waited = 0.0
        copied_out = 0
        for b, req in zip(plan.buckets, requests):
            w0 = time.perf_counter()
            _wait(req, f"DistributedGradientTape.gradient (gradient sync {call})")
            waited += time.perf_counter() - w0
            buf = b.buffer
            if self._op is ReduceOp.AVERAGE:
                np.divide(buf, _state.size, out=buf)
            for i, shape, a, z in zip(b.indices, b.shapes, b.offsets[:-1], b.offsets[1:]):
                out[i] = _core.convert_to_tensor(buf[a:z].reshape(shape))  # the one copy out
            copied_out += b.nbytes
        for i in sparse:
            out[i] = self._gather_slices(flat[i])
        t2 = time.perf_counter()
        self.last_stats = {
            "buckets": len(plan.buckets),
            "bytes_reduced": sum(b.nbytes for b in plan.buckets),
            "bytes_copied_in": copied_in,
            "bytes_copied_out": copied_out,
            "bytes_copied_by_mpi": copied_by_mpi,
            "seconds_handshake": t1 - t0,
            "seconds_waiting": waited,
            "seconds_sync": t2 - t0,
            "plans_built": _plans.built,
        }
        return out

    def _gather_slices(self, g: IndexedSlices) -> IndexedSlices:
        """Every rank's rows of a sparse gradient, in rank order (Horovod's allgather of slices)."""
        values = allgather(g.values)
        if self._op is ReduceOp.AVERAGE:
            rows = values.numpy()
            values = _core.convert_to_tensor(rows / np.asarray(_state.size, rows.dtype))
        return IndexedSlices(values, allgather(g.indices), g.dense_shape)


def _layout_mismatch(layouts: list[Any]) -> Exception:
    def describe(layout: tuple[Any, ...]) -> str:
        def entry(e: Any) -> str:
            if e is None:
                return "None"
            if e[0] == "sparse":
                return f"IndexedSlices {e[1]}"
            return f"{list(e[0])} {e[1]}"

        return "[" + ", ".join(entry(e) for e in layout) + "]"

    rows = "; ".join(f"rank {r}: {describe(lay)}" for r, lay in enumerate(layouts))
    return InvalidArgumentError(
        None,
        None,
        f"tapers.distribute.{_WHAT}: the ranks' gradients differ in number, shape or dtype, so they cannot be "
        f"combined: {rows}",
    )
