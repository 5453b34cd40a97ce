"""``tapers.data.Dataset``: TensorFlow's ``tf.data.Dataset`` input pipelines, eagerly in Python.

A dataset is a recipe; iterating it (``for x in ds``, ``iter``/``next``,
``as_numpy_iterator``) runs the recipe from the start, producing elements made
of tapers tensors with the structure the pipeline gives them (tuples, dicts,
nested). Each transformation returns a new dataset and prints as TensorFlow's
(``<_BatchDataset element_spec=...>``).

How it runs: every dataset's iterator is a Python generator pulling from its
input's. ``map(num_parallel_calls=n)`` runs the function on a thread pool of
``n`` threads (``AUTOTUNE``: one per core), keeping the input order; tapers
ops release the GIL for large tensors, so heavy maps run in parallel.
``prefetch`` fills a bounded queue from a background thread; the thread stops
and is joined when its iterator is exhausted, closed or garbage collected
(a ``for`` loop left with ``break`` included). ``shuffle`` keeps a buffer of
``buffer_size`` elements and draws from it, as TensorFlow's.

Differences from TensorFlow:

* Functions given to ``map``/``filter`` are called on eager tensors for every
  element (TensorFlow traces them once into a graph). Python side effects
  happen per element; errors raised by the function surface while iterating.
* ``element_spec`` after ``map`` (and ``flat_map``) is found by calling the
  function on two probes shaped like the input's spec, zeros with unknown
  dimensions of size 2 and ones with size 3: output dimensions that differ
  are unknown. When the function fails on them, the first real element is
  used. TensorFlow derives it by tracing.
* ``interleave`` reads its datasets in the calling thread, also with
  ``num_parallel_calls`` (TensorFlow's deterministic order either way).
* Seeded shuffles are deterministic, but the order is tapers' own (numpy's
  PCG64 stream): TensorFlow's exact order cannot be reproduced.
* No string tensors, so no file readers (``TextLineDataset``, ``TFRecordDataset``),
  and ``cache`` keeps elements in memory only.
"""

from __future__ import annotations

import collections
import os
import queue
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from .. import errors
from .._core import Tensor, constant, gather, ones_like, stack, zeros
from .._spec import TensorSpec, _UnknownShape
from ..dtypes import as_dtype, int64
from ..dtypes import bool as _bool
from . import _structure as st

__all__ = ["AUTOTUNE", "Dataset", "DatasetSpec", "NumpyIterator", "OwnedIterator"]

AUTOTUNE = -1
INFINITE = -1
UNKNOWN = -2

_INT64_MAX = 2**63 - 1
_MISSING = object()


def _spec_of(t: Any) -> Any:
    if isinstance(t, Dataset):
        return DatasetSpec(t.element_spec)
    return TensorSpec(tuple(t.shape), t.dtype)


def _element_spec(element: Any) -> Any:
    return st.map_structure(_spec_of, element)


def _call(fn: Callable[..., Any], element: Any) -> Any:
    """Calls `fn` as tf.data does: a tuple element is spread over the arguments."""
    if isinstance(element, tuple) and not st._is_namedtuple(element):
        return fn(*element)
    return fn(element)


def _normalize_output(out: Any) -> Any:
    # A function returning a list means a tuple of components, as in TensorFlow.
    if isinstance(out, list):
        out = tuple(out)
    # Components become tensors; a dataset stays a dataset (an element may hold one, as windows do).
    return st.map_structure(lambda x: x if isinstance(x, Dataset) else st.to_tensor(x), out)


def _threads(num_parallel_calls: int | None) -> int:
    if num_parallel_calls is None:
        return 0
    n = int(num_parallel_calls)
    if n == AUTOTUNE:
        return os.cpu_count() or 1
    if n <= 0:
        raise ValueError(f"num_parallel_calls must be positive or tapers.data.AUTOTUNE, got {n}")
    return n


class Dataset:
    """A sequence of elements and the transformations that make them (``tf.data.Dataset``).

    Build one with ``from_tensor_slices``, ``from_tensors``, ``range`` or
    ``zip``, transform it with ``map``, ``filter``, ``batch``, ``shuffle``,
    ``repeat``, ``take``, ... and iterate it with a ``for`` loop. See the module
    docstring for how it runs and where it differs from TensorFlow.

    Attributes
    ----------
    element_spec : TensorSpec or structure of them
        What every element looks like (shapes may have unknown dimensions).

    Methods
    -------
    cardinality()
        The element count, or -1 (infinite) / -2 (unknown).
    as_numpy_iterator()
        The elements as numpy values.
    """

    # ------------------------------------------------------------- subclass API
    def _iter(self) -> Iterator[Any]:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def _compute_spec(self) -> Any:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def _card(self) -> int:
        return UNKNOWN

    def _row_source(self) -> _TensorSliceDataset | None:
        """The ``from_tensor_slices`` dataset whose rows this one yields, reordered or subset by
        shuffle/repeat/take/skip/shard only; None for any other pipeline."""
        return None

    def _row_iter(self) -> Iterator[int]:  # pragma: no cover - only called when _row_source() is set
        """The row numbers this dataset yields, in order (with the same side effects as ``_iter``)."""
        raise NotImplementedError

    # ------------------------------------------------------------- inspection
    @property
    def element_spec(self) -> Any:
        """The structure of ``TensorSpec``s every element matches."""
        spec = self.__dict__.get("_spec_cache")
        if spec is None:
            spec = self._compute_spec()
            self.__dict__["_spec_cache"] = spec
        return spec

    def cardinality(self) -> Tensor:
        """The number of elements as an int64 scalar tensor; ``INFINITE_CARDINALITY`` (-1) or
        ``UNKNOWN_CARDINALITY`` (-2) when it is infinite or cannot be known without iterating."""
        return constant(self._card(), dtype=int64)

    def __len__(self) -> int:
        n = self._card()
        if n == INFINITE:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        name = getattr(self, "_tf_name", type(self).__name__)
        return f"<{name} element_spec={self.element_spec!r}>"

    # ------------------------------------------------------------- iteration
    def __iter__(self) -> OwnedIterator:
        return OwnedIterator(self)

    def as_numpy_iterator(self) -> NumpyIterator:
        """An iterator over the elements as numpy values (numpy scalars for scalars), same structure."""
        return NumpyIterator(self)

    # ------------------------------------------------------------- sources
    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> Dataset:
        """One element per row: slices every component along its first axis (all must agree)."""
        return _TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> Dataset:
        """One element: `tensors`, whole."""
        return _TensorDataset(tensors)

    @staticmethod
    def from_generator(
        generator: Callable[..., Any],
        output_types: Any = None,
        output_shapes: Any = None,
        args: Any = None,
        output_signature: Any = None,
        name: str | None = None,
    ) -> Dataset:
        """Elements yielded by ``generator(*args)``, called afresh for every iteration, converted to
        tensors as `output_signature` (a structure of ``TensorSpec``) or `output_types` /
        `output_shapes` describe them; an element of another dtype or shape raises."""
        return _GeneratorDataset(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def range(*args: int, output_type: Any = int64, name: str | None = None) -> Dataset:
        """``range(stop)``, ``range(start, stop[, step])``, as Python's ``range``; int64 scalars by default."""
        return _RangeDataset(*args, output_type=output_type)

    @staticmethod
    def zip(*args: Any, datasets: Any = None, name: str | None = None) -> Dataset:
        """Elements of several datasets side by side, in the structure given (tuple or dict, nested);
        as long as the shortest."""
        if datasets is not None and args:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
        if datasets is None:
            if not args:
                raise TypeError("Must pass at least one dataset to `zip`.")
            datasets = args[0] if len(args) == 1 else tuple(args)
        return _ZipDataset(datasets)

    # ------------------------------------------------------------- transformations
    def map(
        self,
        map_func: Callable[..., Any],
        num_parallel_calls: int | None = None,
        deterministic: bool | None = None,
        name: str | None = None,
    ) -> Dataset:
        """Applies `map_func` to every element (a tuple element is spread over its arguments).

        With `num_parallel_calls` (a count or ``AUTOTUNE``) the calls run on that many
        threads; the output keeps the input's order either way (TensorFlow's
        ``deterministic=False`` allows any order, so this order is one it allows).
        """
        n = _threads(num_parallel_calls)
        if n:
            return _ParallelMapDataset(self, map_func, n)
        return _MapDataset(self, map_func)

    def concatenate(self, dataset: Dataset, name: str | None = None) -> Dataset:
        """This dataset's elements, then `dataset`'s (same structure and dtypes)."""
        return _ConcatenateDataset(self, dataset)

    def flat_map(self, map_func: Callable[..., Dataset], name: str | None = None) -> Dataset:
        """The elements of the datasets `map_func` returns for each element, one dataset after another."""
        return _FlatMapDataset.of(self, map_func)

    def interleave(
        self,
        map_func: Callable[..., Dataset],
        cycle_length: int | None = None,
        block_length: int | None = None,
        num_parallel_calls: int | None = None,
        deterministic: bool | None = None,
        name: str | None = None,
    ) -> Dataset:
        """Like ``flat_map``, but `cycle_length` of the returned datasets are open at once and their
        elements alternate, `block_length` at a time (TensorFlow's order). `num_parallel_calls` is
        accepted and the datasets are read in this thread."""
        if cycle_length is None or cycle_length == AUTOTUNE:
            cycles = os.cpu_count() or 1
        else:
            cycles = int(cycle_length)
        block = 1 if block_length is None else int(block_length)
        if cycles <= 0:
            raise errors.InvalidArgumentError(None, None, "cycle_length must be > 0")
        if block <= 0:
            raise errors.InvalidArgumentError(None, None, "block_length must be > 0")
        if num_parallel_calls is not None:
            return _ParallelInterleaveDataset(self, map_func, cycles, block)
        return _InterleaveDataset(self, map_func, cycles, block)

    def window(
        self, size: int, shift: int | None = None, stride: int = 1, drop_remainder: bool = False,
        name: str | None = None,
    ) -> Dataset:  # fmt: skip
        """Windows of `size` elements, `stride` apart, a new one every `shift` elements (default `size`).

        Each window is the input's element structure with every component replaced by a dataset
        of that component's values (flatten them with ``flat_map(lambda w: w.batch(size))``).
        Windows at the end are shorter unless `drop_remainder`.
        """
        shift = size if shift is None else shift
        for what, v in (("size", size), ("shift", shift), ("stride", stride)):
            if int(v) <= 0:
                raise errors.InvalidArgumentError(None, None, f"Window {what} must be greater than zero.")
        return _WindowDataset(self, int(size), int(shift), int(stride), bool(drop_remainder))

    def take_while(self, predicate: Callable[..., Any], name: str | None = None) -> Dataset:
        """The elements up to (not including) the first for which `predicate` is False."""
        return _TakeWhileDataset(self, predicate)

    def padded_batch(
        self,
        batch_size: int,
        padded_shapes: Any = None,
        padding_values: Any = None,
        drop_remainder: bool = False,
        name: str | None = None,
    ) -> Dataset:
        """``batch`` for elements of different shapes: each component is padded (with
        `padding_values`, default 0) to `padded_shapes` (``None`` dimensions: the batch's longest)."""
        return _PaddedBatchDataset(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def get_single_element(self, name: str | None = None) -> Any:
        """The only element; ``InvalidArgumentError`` if the dataset is empty or has more than one."""
        it = self._iter()
        try:
            first = next(it, _MISSING)
            if first is _MISSING:
                raise errors.InvalidArgumentError(None, None, "Dataset was empty.")
            if next(it, _MISSING) is not _MISSING:
                raise errors.InvalidArgumentError(None, None, "Dataset had more than one element.")
        finally:
            it.close()  # type: ignore[attr-defined]
        return first

    def filter(self, predicate: Callable[..., Any], name: str | None = None) -> Dataset:
        """Keeps the elements for which `predicate` returns a scalar bool tensor that is True."""
        return _FilterDataset(self, predicate)

    def batch(
        self,
        batch_size: int,
        drop_remainder: bool = False,
        num_parallel_calls: int | None = None,
        deterministic: bool | None = None,
        name: str | None = None,
    ) -> Dataset:
        """Stacks `batch_size` consecutive elements component-wise; the last, smaller batch is kept
        unless `drop_remainder`."""
        return _BatchDataset(self, batch_size, drop_remainder)

    def unbatch(self, name: str | None = None) -> Dataset:
        """Splits every element along its first axis into as many elements (``batch``'s inverse)."""
        return _UnbatchDataset(self)

    def shuffle(
        self,
        buffer_size: int,
        seed: int | None = None,
        reshuffle_each_iteration: bool = True,
        name: str | None = None,
    ) -> Dataset:
        """Shuffles through a buffer of `buffer_size` elements (a full shuffle needs one as big as the
        dataset). With a `seed` (or a global seed from ``tapers.random.set_seed``) the orders are
        reproducible; each iteration reshuffles unless `reshuffle_each_iteration=False`."""
        return _ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count: int | None = None, name: str | None = None) -> Dataset:
        """Iterates the input `count` times (``None`` or -1: forever)."""
        return _RepeatDataset(self, count)

    def take(self, count: int, name: str | None = None) -> Dataset:
        """The first `count` elements (-1: all)."""
        return _TakeDataset(self, count)

    def skip(self, count: int, name: str | None = None) -> Dataset:
        """All but the first `count` elements (-1: none)."""
        return _SkipDataset(self, count)

    def shard(self, num_shards: int, index: int, name: str | None = None) -> Dataset:
        """Every `num_shards`-th element starting at `index` (one worker's share)."""
        return _ShardDataset(self, num_shards, index)

    def enumerate(self, start: int = 0, name: str | None = None) -> Dataset:
        """Pairs ``(i, element)`` with an int64 counter from `start` (a zip with a range, as TensorFlow's)."""
        return Dataset.zip((Dataset.range(start, _INT64_MAX), self))

    def cache(self, filename: str = "", name: str | None = None) -> Dataset:
        """Keeps the elements of the first complete iteration in memory and replays them afterwards."""
        if filename:
            raise errors.UnimplementedError(
                None, None, "tapers.data: cache(filename) is not supported; only the in-memory cache (filename='')"
            )
        return CacheDataset(self)

    def prefetch(self, buffer_size: int, name: str | None = None) -> Dataset:
        """Computes up to `buffer_size` elements ahead on a background thread (``AUTOTUNE``: 2)."""
        return _PrefetchDataset(self, buffer_size)

    def with_options(self, options: Any, name: str | None = None) -> Dataset:
        """This dataset with `options` (a ``tapers.data.Options``) merged into the pipeline's.

        The options are checked and kept as TensorFlow's are, but do not change how tapers runs
        the pipeline (see ``tapers.data.options``)."""
        from .options import Options

        if not isinstance(options, Options):
            raise TypeError(f"`options` must be a `tapers.data.Options`, got {type(options).__name__}.")
        return _OptionsDataset(self, options)

    def options(self) -> Any:
        """The pipeline's options: those given to ``with_options`` along it, merged (read-only)."""
        from .options import Options, merge_options

        found = [o for d in self._upstream() for o in d.__dict__.get("_own_options", [])]
        return merge_options(Options(), *found)._frozen()

    def _upstream(self) -> list[Dataset]:
        """This dataset and every dataset it reads, inputs first."""
        out: list[Dataset] = []
        for attr in ("_input", "_first", "_second"):
            d = self.__dict__.get(attr)
            if isinstance(d, Dataset):
                out.extend(d._upstream())
        for d in self.__dict__.get("_datasets", []):
            out.extend(d._upstream())
        out.append(self)
        return out

    def apply(self, transformation_func: Callable[[Dataset], Dataset]) -> Dataset:
        """``transformation_func(self)``: lets a pipeline read top to bottom."""
        return transformation_func(self)

    def reduce(self, initial_state: Any, reduce_func: Callable[[Any, Any], Any]) -> Any:
        """Folds the elements into `initial_state` with ``reduce_func(state, element)``."""
        state = st.normalize(initial_state)
        for element in self:
            state = st.normalize(reduce_func(state, element))
        return state


class OwnedIterator:
    """The iterator ``iter(dataset)`` returns (``tf.data.Iterator``).

    ``next()`` gives the next element and raises ``StopIteration`` at the end;
    ``get_next()`` raises ``tapers.errors.OutOfRangeError`` there instead.
    Dropping the iterator (or ``close()``) stops the background work it started:
    prefetch threads are joined, map thread pools shut down.

    Parameters
    ----------
    dataset : Dataset
        What to iterate, from its first element.
    """

    def __init__(self, dataset: Dataset) -> None:
        self._dataset = dataset
        self._gen: Iterator[Any] | None = dataset._iter()
        # Threads may share one iterator (TensorFlow's are thread-safe); a generator is not.
        self._lock = threading.Lock()

    @property
    def element_spec(self) -> Any:
        return self._dataset.element_spec

    def __iter__(self) -> OwnedIterator:
        return self

    def __next__(self) -> Any:
        with self._lock:
            if self._gen is None:
                raise StopIteration
            try:
                return next(self._gen)
            except StopIteration:
                self._gen = None
                raise

    def get_next(self) -> Any:
        """The next element; raises ``tapers.errors.OutOfRangeError`` at the end, as TensorFlow's."""
        try:
            return self.__next__()
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None

    next = __next__

    def close(self) -> None:
        """Stops the pipeline now (joins prefetch threads, shuts thread pools)."""
        with self._lock:
            gen, self._gen = self._gen, None
            if gen is not None:
                gen.close()  # type: ignore[attr-defined]

    def __del__(self) -> None:
        if "_lock" not in self.__dict__:
            return  # __init__ failed
        try:
            self.close()
        except Exception:  # noqa: BLE001 - finalizers must not raise
            pass


class NumpyIterator(OwnedIterator):
    """``as_numpy_iterator()``: the elements with every tensor replaced by its numpy value.

    Parameters
    ----------
    dataset : Dataset
        What to iterate.
    """

    def __next__(self) -> Any:
        return st.map_structure(lambda t: t.numpy(), super().__next__())

    next = __next__


# ----------------------------------------------------------------- sources
class _TensorSliceDataset(Dataset):
    def __init__(self, tensors: Any) -> None:
        self._structure = st.normalize(tensors)
        flat = st.flatten(self._structure)
        n = None
        for t in flat:
            if len(t.shape) == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            if n is not None and t.shape[0] != n:
                raise ValueError(f"Dimensions {n} and {t.shape[0]} are not compatible")
            n = t.shape[0]
        self._flat = flat
        self._n = n or 0

    def _iter(self) -> Iterator[Any]:
        for i in range(self._n):
            yield st.pack(self._structure, [t[i] for t in self._flat])

    def _row_source(self) -> _TensorSliceDataset | None:
        return self

    def _row_iter(self) -> Iterator[int]:
        return iter(range(self._n))

    def _gather(self, rows: list[int]) -> Any:
        idx = constant(rows, dtype=int64)
        return st.pack(self._structure, [gather(t, idx) for t in self._flat])

    def _compute_spec(self) -> Any:
        return st.map_structure(lambda t: TensorSpec(tuple(t.shape)[1:], t.dtype), self._structure)

    def _card(self) -> int:
        return self._n


class _TensorDataset(Dataset):
    def __init__(self, tensors: Any) -> None:
        self._element = st.normalize(tensors)

    def _iter(self) -> Iterator[Any]:
        yield self._element

    def _compute_spec(self) -> Any:
        return _element_spec(self._element)

    def _card(self) -> int:
        return 1


class _RangeDataset(Dataset):
    def __init__(self, *args: int, output_type: Any = int64) -> None:
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Invalid arguments to Dataset.range: expected 1 to 3 integers, got {len(args)}")
        self._range = range(*(int(a) for a in args))
        self._dtype = as_dtype(output_type)

    def _iter(self) -> Iterator[Any]:
        dtype = self._dtype
        for i in self._range:
            yield constant(i, dtype=dtype)

    def _compute_spec(self) -> Any:
        return TensorSpec((), self._dtype)

    def _card(self) -> int:
        return len(self._range)


class _ZipDataset(Dataset):
    def __init__(self, datasets: Any) -> None:
        if isinstance(datasets, Dataset):
            flat = [datasets]
        else:
            flat = st.flatten(datasets)
        for d in flat:
            if isinstance(d, list):
                raise TypeError(
                    "Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                    "`tapers.data.Dataset` objects. Python `list` is not supported and you should use "
                    "`tuple` instead."
                )
            if not isinstance(d, Dataset):
                raise TypeError(
                    "Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                    f"`tapers.data.Dataset` objects, got an object of type {type(d).__name__}."
                )
        self._structure = datasets
        self._datasets = flat

    def _iter(self) -> Iterator[Any]:
        its = [d._iter() for d in self._datasets]
        try:
            while True:
                items = []
                for it in its:
                    try:
                        items.append(next(it))
                    except StopIteration:
                        return
                yield items[0] if isinstance(self._structure, Dataset) else st.pack(self._structure, items)
        finally:
            for it in its:
                it.close()  # type: ignore[attr-defined]

    def _compute_spec(self) -> Any:
        if isinstance(self._structure, Dataset):
            return self._structure.element_spec
        return st.pack(self._structure, [d.element_spec for d in self._datasets])

    def _card(self) -> int:
        result = INFINITE
        for d in self._datasets:
            n = d._card()
            if n == UNKNOWN:
                return UNKNOWN
            if n != INFINITE and (result == INFINITE or n < result):
                result = n
        return result


def _structure_matches(a: Any, b: Any) -> bool:
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and sorted(a) == sorted(b)
            and all(_structure_matches(a[k], b[k]) for k in a)
        )
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
                and all(_structure_matches(x, y) for x, y in zip(a, b)))  # fmt: skip
    return True


def _most_specific_compatible(a: Any, b: Any) -> Any:
    if isinstance(a, DatasetSpec) or isinstance(b, DatasetSpec):
        return a
    if isinstance(a.shape, _UnknownShape) or isinstance(b.shape, _UnknownShape) or len(a.shape) != len(b.shape):
        return TensorSpec(None, a.dtype)
    return TensorSpec([x if x == y else None for x, y in zip(a.shape, b.shape)], a.dtype)


class _ConcatenateDataset(Dataset):
    def __init__(self, first: Dataset, second: Dataset) -> None:
        if not isinstance(second, Dataset):
            raise TypeError(f"`dataset` must be a `tapers.data.Dataset`, got {type(second).__name__}.")
        self._first, self._second = first, second
        self.element_spec  # noqa: B018 - incompatible inputs raise here, as in TensorFlow

    def _iter(self) -> Iterator[Any]:
        for d in (self._first, self._second):
            src = d._iter()
            try:
                yield from src
            finally:
                src.close()  # type: ignore[attr-defined]

    def _compute_spec(self) -> Any:
        a, b = self._first.element_spec, self._second.element_spec
        fa, fb = st.flatten(a), st.flatten(b)
        if not _structure_matches(a, b) or len(fa) != len(fb):
            raise TypeError(f"Incompatible dataset elements:\n  {a!r} vs.   {b!r}")
        for x, y in zip(fa, fb):
            if type(x) is not type(y) or getattr(x, "dtype", None) != getattr(y, "dtype", None):
                raise TypeError(f"Incompatible dataset elements:\n  {a!r} vs.   {b!r}")
        return st.pack(a, [_most_specific_compatible(x, y) for x, y in zip(fa, fb)])

    def _card(self) -> int:
        a, b = self._first._card(), self._second._card()
        if INFINITE in (a, b):
            return INFINITE
        if UNKNOWN in (a, b):
            return UNKNOWN
        return a + b


class _GeneratorDataset(Dataset):
    _tf_name = "_FlatMapDataset"  # TensorFlow builds it as a flat_map over a one-element dataset

    def __init__(self, generator: Callable[..., Any], output_types: Any, output_shapes: Any, args: Any,
                 output_signature: Any) -> None:  # fmt: skip
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        if output_signature is not None:
            if output_types is not None or output_shapes is not None:
                raise TypeError(
                    "The `output_types` and `output_shapes` arguments cannot be used together with the "
                    "`output_signature` argument."
                )
            for spec in st.flatten(output_signature):
                if not isinstance(spec, TensorSpec):
                    raise TypeError(
                        "`output_signature` must contain objects that are subclass of `tapers.TypeSpec` but "
                        f"found {type(spec)} which is not."
                    )
            self._spec = output_signature
        else:
            if output_types is None:
                raise TypeError("The `output_types` argument can not be None, or `output_signature` must be given.")
            types = st.flatten(output_types)
            if output_shapes is None:
                shapes: list[Any] = [None] * len(types)
            elif len(types) == 1 and not st.is_structure(output_types):
                shapes = [output_shapes]
            else:
                shapes = st.flatten(_shapes_as_tuples(output_shapes))
            self._spec = st.pack(output_types, [TensorSpec(sh, as_dtype(t)) for t, sh in zip(types, shapes)])
        self._generator = generator
        self._args = tuple(args) if args is not None else ()

    def _iter(self) -> Iterator[Any]:
        specs = st.flatten(self._spec)
        it = iter(self._generator(*self._args))
        try:
            for value in it:
                if isinstance(value, list) and st.is_structure(self._spec):
                    value = tuple(value)
                flat = st.flatten(value) if st.is_structure(self._spec) else [value]
                if len(flat) != len(specs) or not _structure_matches(value, self._spec):
                    raise errors.InvalidArgumentError(
                        None,
                        None,
                        "TypeError: `generator` yielded an element that did not match the expected structure. "
                        f"The expected structure was {self._spec!r}, but the yielded element was {value!r}.",
                    )
                out = []
                for v, spec in zip(flat, specs):
                    # Converted as TensorFlow's py_func does: numpy's conversion to the declared dtype.
                    t = constant(np.asarray(v, dtype=spec.dtype.as_numpy_dtype))
                    if not spec.shape.is_compatible_with(tuple(t.shape)):
                        raise errors.InvalidArgumentError(
                            None,
                            None,
                            f"TypeError: `generator` yielded an element of shape {tuple(t.shape)} where an element "
                            f"of shape {spec.shape} was expected.",
                        )
                    out.append(t)
                yield st.pack(self._spec, out) if st.is_structure(self._spec) else out[0]
        finally:
            close = getattr(it, "close", None)
            if close is not None:
                close()

    def _compute_spec(self) -> Any:
        return self._spec


def _shapes_as_tuples(shapes: Any) -> Any:
    # In `output_shapes`, lists and tuples of ints are shapes, not structure.
    if isinstance(shapes, dict):
        return {k: _shapes_as_tuples(v) for k, v in shapes.items()}
    if isinstance(shapes, (tuple, list)) and all(d is None or isinstance(d, int) for d in shapes):
        return _ShapeLeaf(shapes)
    if isinstance(shapes, (tuple, list)):
        return tuple(_shapes_as_tuples(v) for v in shapes)
    return shapes


class _ShapeLeaf(list):  # a shape kept whole by the structure functions (lists are leaves)
    pass


# ----------------------------------------------------------------- one input
class _UnaryDataset(Dataset):
    def __init__(self, input_dataset: Dataset) -> None:
        self._input = input_dataset

    def _compute_spec(self) -> Any:
        return self._input.element_spec

    def _card(self) -> int:
        return self._input._card()


class _MapDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, fn: Callable[..., Any]) -> None:
        super().__init__(input_dataset)
        self._fn = fn

    def _apply(self, element: Any) -> Any:
        return _normalize_output(_call(self._fn, element))

    def _iter(self) -> Iterator[Any]:
        src = self._input._iter()
        try:
            for element in src:
                yield self._apply(element)
        finally:
            src.close()  # type: ignore[attr-defined]

    def _compute_spec(self) -> Any:
        return _fn_spec(self._input, lambda out: _element_spec(_normalize_output(out)), self._fn)


def _dims(spec: TensorSpec) -> tuple[Any, ...]:
    return () if isinstance(spec.shape, _UnknownShape) else tuple(spec.shape)


class _ParallelMapDataset(_MapDataset):
    def __init__(self, input_dataset: Dataset, fn: Callable[..., Any], threads: int) -> None:
        super().__init__(input_dataset, fn)
        self._threads = threads

    def _iter(self) -> Iterator[Any]:
        src = self._input._iter()
        pool = ThreadPoolExecutor(self._threads, thread_name_prefix="tapers.data.map")
        pending: collections.deque[Future[Any]] = collections.deque()
        try:
            for element in src:
                pending.append(pool.submit(self._apply, element))
                if len(pending) >= 2 * self._threads:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for f in pending:
                f.cancel()
            pool.shutdown(wait=True)
            src.close()  # type: ignore[attr-defined]


def _probe(spec: Any, value: int, unknown: int) -> Any:
    if isinstance(spec, DatasetSpec):  # a window: a dataset of `unknown` probes
        inner = st.map_structure(lambda s: _probe(s, value, unknown), spec.element_spec)
        return _VariantDataset([inner] * unknown, spec.element_spec)
    if isinstance(spec.shape, _UnknownShape):
        raise ValueError("unknown rank")
    t = zeros([unknown if d is None else d for d in spec.shape], dtype=spec.dtype)
    return t if value == 0 else ones_like(t)


def _fn_spec(input_dataset: Dataset, spec_of_output: Callable[[Any], Any], fn: Callable[..., Any]) -> Any:
    """The element spec of what `fn` gives for the input's elements.

    TensorFlow traces `fn` symbolically; tapers calls it twice on probes shaped like the input's
    spec: zeros with unknown dimensions of size 2, then ones with size 3. Output dimensions that
    differ between the two (they follow an unknown input dimension or the values) are unknown.
    When `fn` fails on the probes, the first real element is used instead.
    """
    in_spec = input_dataset.element_spec
    try:
        a = spec_of_output(_call(fn, st.map_structure(lambda s: _probe(s, 0, 2), in_spec)))
        b = spec_of_output(_call(fn, st.map_structure(lambda s: _probe(s, 1, 3), in_spec)))
        fa, fb = st.flatten(a), st.flatten(b)
        if (
            len(fa) == len(fb)
            and _structure_matches(a, b)
            and all(
                type(x) is type(y) and getattr(x, "dtype", None) == getattr(y, "dtype", None) for x, y in zip(fa, fb)
            )
        ):
            return st.pack(a, [_most_specific_compatible(x, y) for x, y in zip(fa, fb)])
        return a
    except Exception as e:  # noqa: BLE001 - the function may not accept the probes; use a real element
        on_probes = e
    src = input_dataset._iter()
    try:
        first = next(src, _MISSING)
    finally:
        src.close()  # type: ignore[attr-defined]
    if first is _MISSING:
        raise on_probes
    out = spec_of_output(_call(fn, first))
    # Dimensions equal to the size an unknown input dimension had are taken to follow it.
    unknown_sizes = {
        n
        for s, t in zip(st.flatten(in_spec), st.flatten(first))
        if isinstance(s, TensorSpec) and isinstance(t, Tensor)
        for d, n in zip(_dims(s), t.shape)
        if d is None
    }
    return st.map_structure(
        lambda s: s if not isinstance(s, TensorSpec) or isinstance(s.shape, _UnknownShape)
        else TensorSpec([None if d in unknown_sizes else d for d in s.shape], s.dtype),
        out,
    )  # fmt: skip


def _dataset_of(out: Any) -> Dataset:
    if not isinstance(out, Dataset):
        raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got {type(out)!r}.")
    return out


class _FlatMapDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, fn: Callable[..., Any]) -> None:
        super().__init__(input_dataset)
        self._fn = fn

    @classmethod
    def of(cls, input_dataset: Dataset, fn: Callable[..., Any]) -> _FlatMapDataset:
        return cls(input_dataset, fn)

    def _iter(self) -> Iterator[Any]:
        src = self._input._iter()
        try:
            for element in src:
                inner = _dataset_of(_call(self._fn, element))._iter()
                try:
                    yield from inner
                finally:
                    inner.close()  # type: ignore[attr-defined]
        finally:
            src.close()  # type: ignore[attr-defined]

    def _compute_spec(self) -> Any:
        return _fn_spec(self._input, lambda out: _dataset_of(out).element_spec, self._fn)

    def _card(self) -> int:
        return UNKNOWN


class _InterleaveDataset(_FlatMapDataset):
    def __init__(self, input_dataset: Dataset, fn: Callable[..., Any], cycle_length: int, block_length: int) -> None:
        super().__init__(input_dataset, fn)
        self._cycle, self._block = cycle_length, block_length

    def _iter(self) -> Iterator[Any]:
        # TensorFlow's cycle: an empty slot is filled from the input and read at once; a slot whose
        # dataset ends is emptied and the cycle moves on; after `block_length` elements it moves on.
        src = self._input._iter()
        slots: list[Iterator[Any] | None] = [None] * self._cycle
        i = block_i = num_open = 0
        end_of_input = False
        try:
            while not end_of_input or num_open > 0:
                it = slots[i]
                if it is not None:
                    value = next(it, _MISSING)
                    if value is not _MISSING:
                        yield value
                        block_i += 1
                        if block_i == self._block:
                            block_i, i = 0, (i + 1) % self._cycle
                        continue
                    it.close()  # type: ignore[attr-defined]
                    slots[i] = None
                    num_open -= 1
                    block_i, i = 0, (i + 1) % self._cycle
                elif not end_of_input:
                    element = next(src, _MISSING)
                    if element is _MISSING:
                        end_of_input = True
                    else:
                        slots[i] = _dataset_of(_call(self._fn, element))._iter()
                        num_open += 1
                else:
                    i = (i + 1) % self._cycle
        finally:
            for it in slots:
                if it is not None:
                    it.close()  # type: ignore[attr-defined]
            src.close()  # type: ignore[attr-defined]


class _ParallelInterleaveDataset(_InterleaveDataset):
    """``interleave`` with ``num_parallel_calls``: the same (deterministic) order, read in this thread."""


class _TakeWhileDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, predicate: Callable[..., Any]) -> None:
        super().__init__(input_dataset)
        self._predicate = predicate

    def _iter(self) -> Iterator[Any]:
        src = self._input._iter()
        try:
            for element in src:
                if not bool(st.to_tensor(_call(self._predicate, element))):
                    return
                yield element
        finally:
            src.close()  # type: ignore[attr-defined]

    def _card(self) -> int:
        return UNKNOWN


class _PaddedBatchDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, batch_size: int, padded_shapes: Any, padding_values: Any,
                 drop_remainder: bool) -> None:  # fmt: skip
        super().__init__(input_dataset)
        self._batch_size = int(batch_size)
        if self._batch_size <= 0:
            raise errors.InvalidArgumentError(None, None, "Batch size must be greater than zero.")
        self._drop = bool(drop_remainder)
        spec = input_dataset.element_spec
        flat_spec = st.flatten(spec)
        if padded_shapes is None:
            # TensorFlow pads to the input's shapes: known dimensions stay, unknown ones take the batch's longest.
            shapes = [None if isinstance(s.shape, _UnknownShape) else list(s.shape) for s in flat_spec]
        elif len(flat_spec) == 1 and not st.is_structure(spec):
            shapes = [padded_shapes]
        else:
            shapes = st.flatten(_shapes_as_tuples(padded_shapes))
        if len(shapes) != len(flat_spec):
            raise ValueError("The padded_shapes structure does not match the dataset's element structure.")
        self._shapes = [None if sh is None else [None if d is None or d == -1 else int(d) for d in sh] for sh in shapes]
        if padding_values is None:
            values: list[Any] = [None] * len(flat_spec)
        elif len(flat_spec) == 1 and not st.is_structure(spec):
            values = [padding_values]
        else:
            values = st.flatten(padding_values)
        self._values = values

    def _pad(self, column: list[Tensor], shape: Any, value: Any, c: int) -> Tensor:
        arrays = [np.asarray(t) for t in column]
        rank = arrays[0].ndim
        if any(a.ndim != rank for a in arrays):
            raise errors.InvalidArgumentError(None, None, f"All elements in a batch must have the same rank as "
                                              f"the padded shape for component{c}: expected rank {rank}")  # fmt: skip
        target = [max(a.shape[d] for a in arrays) for d in range(rank)]
        if shape is not None:
            if len(shape) != rank:
                raise errors.InvalidArgumentError(
                    None, None, f"All elements in a batch must have the same rank as the padded shape for "
                    f"component{c}: expected rank {len(shape)} but got element with rank {rank}")  # fmt: skip
            for d, want in enumerate(shape):
                if want is not None:
                    if target[d] > want:
                        raise errors.DataLossError(
                            None, None, "Attempted to pad to a smaller size than the input element."
                        )
                    target[d] = want
        fill = np.zeros((), arrays[0].dtype) if value is None else np.asarray(value, arrays[0].dtype)
        out = np.full([len(arrays), *target], fill, dtype=arrays[0].dtype)
        for i, a in enumerate(arrays):
            index: tuple[Any, ...] = (i, *[slice(0, n) for n in a.shape])
            out[index] = a
        return constant(out)

    def _iter(self) -> Iterator[Any]:
        src = self._input._iter()
        try:
            buf: list[Any] = []
            for element in src:
                buf.append(element)
                if len(buf) == self._batch_size:
                    yield self._batch(buf)
                    buf = []
            if buf and not self._drop:
                yield self._batch(buf)
        finally:
            src.close()  # type: ignore[attr-defined]

    def _batch(self, elements: list[Any]) -> Any:
        columns = list(zip(*[st.flatten(e) for e in elements]))
        parts = zip(columns, self._shapes, self._values)
        out = [self._pad(list(col), sh, v, c) for c, (col, sh, v) in enumerate(parts)]
        return st.pack(elements[0], out)

    def _compute_spec(self) -> Any:
        lead = self._batch_size if self._drop else None
        flat = st.flatten(self._input.element_spec)
        specs = []
        for s, sh in zip(flat, self._shapes):
            specs.append(TensorSpec(None if sh is None else [lead, *sh], s.dtype))
        return st.pack(self._input.element_spec, specs)

    def _card(self) -> int:
        n = self._input._card()
        if n < 0:
            return n
        return n // self._batch_size + (0 if self._drop or n % self._batch_size == 0 else 1)


class _FilterDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, predicate: Callable[..., Any]) -> None:
        super().__init__(input_dataset)
        self._predicate = predicate

    def _iter(self) -> Iterator[Any]:
        src = self._input._iter()
        try:
            for element in src:
                keep = _call(self._predicate, element)
                keep = st.to_tensor(keep) if not isinstance(keep, tuple) else keep
                if not isinstance(keep, Tensor) or keep.dtype != _bool or len(keep.shape) != 0:
                    ret = _element_spec(st.normalize(keep))
                    raise ValueError(
                        "Invalid `predicate`. `predicate` must return a `tapers.bool` scalar tensor, "
                        f"but its return type is {ret!r}."
                    )
                if bool(keep):
                    yield element
        finally:
            src.close()  # type: ignore[attr-defined]

    def _card(self) -> int:
        return UNKNOWN


class _BatchDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, batch_size: int, drop_remainder: bool) -> None:
        super().__init__(input_dataset)
        self._batch_size = int(batch_size)
        if self._batch_size <= 0:
            raise errors.InvalidArgumentError(None, None, "Batch size must be greater than zero.")
        self._drop = bool(drop_remainder)

    def _iter(self) -> Iterator[Any]:
        inp = self._input
        if inp._row_source() is not None:
            yield from self._row_batches(inp)
            return
        src = inp._iter()
        try:
            buf: list[Any] = []
            for element in src:
                buf.append(element)
                if len(buf) == self._batch_size:
                    yield _stack(buf)
                    buf = []
            if buf and not self._drop:
                yield _stack(buf)
        finally:
            src.close()  # type: ignore[attr-defined]

    def _row_batches(self, inp: Dataset) -> Iterator[Any]:
        # `from_tensor_slices(...)` followed by shuffle/repeat/take/skip/shard, then batch (the
        # common pipelines): the same elements in the same order as stacking slices one by one
        # (each step runs its own logic, random draws included, over row numbers), but each
        # batch is one slice or one gather per component.
        source = inp._row_source()
        assert source is not None
        b = self._batch_size
        if inp is source:
            for start in range(0, source._n, b):
                stop = min(start + b, source._n)
                if stop - start < b and self._drop:
                    return
                yield st.pack(source._structure, [t[start:stop] for t in source._flat])
            return
        buf: list[int] = []
        for i in inp._row_iter():
            buf.append(i)
            if len(buf) == b:
                yield source._gather(buf)
                buf = []
        if buf and not self._drop:
            yield source._gather(buf)

    def _compute_spec(self) -> Any:
        lead = self._batch_size if self._drop else None
        return st.map_structure(lambda s: TensorSpec(_prepend(lead, s), s.dtype), self._input.element_spec)

    def _card(self) -> int:
        n = self._input._card()
        if n < 0:
            return n
        return n // self._batch_size + (0 if self._drop or n % self._batch_size == 0 else 1)


def _prepend(lead: int | None, spec: TensorSpec) -> Any:
    if isinstance(spec.shape, _UnknownShape):
        return None
    return (lead, *spec.shape)


def _stack(elements: list[Any]) -> Any:
    columns = list(zip(*[st.flatten(e) for e in elements]))
    out = []
    for c, column in enumerate(columns):
        first = tuple(column[0].shape)
        for i, t in enumerate(column):
            if tuple(t.shape) != first:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Cannot batch tensors with different shapes in component {c}. First element had shape "
                    f"[{','.join(map(str, first))}] and element {i} had shape [{','.join(map(str, t.shape))}].",
                )
        out.append(stack(list(column)))
    return st.pack(elements[0], out)


class _UnbatchDataset(_UnaryDataset):
    def _iter(self) -> Iterator[Any]:
        src = self._input._iter()
        try:
            for element in src:
                flat = st.flatten(element)
                n = None
                for t in flat:
                    if len(t.shape) == 0:
                        raise ValueError("Unbatching a dataset is only supported for rank >= 1")
                    if n is not None and t.shape[0] != n:
                        raise errors.InvalidArgumentError(
                            None, None, "Input element must have the same batch size in each component."
                        )
                    n = t.shape[0]
                for i in range(n or 0):
                    yield st.pack(element, [t[i] for t in flat])
        finally:
            src.close()  # type: ignore[attr-defined]

    def _compute_spec(self) -> Any:
        def drop(s: TensorSpec) -> TensorSpec:
            if isinstance(s.shape, _UnknownShape):
                return TensorSpec(None, s.dtype)
            if len(s.shape) == 0:
                raise ValueError("Unbatching a dataset is only supported for rank >= 1")
            return TensorSpec(tuple(s.shape)[1:], s.dtype)

        return st.map_structure(drop, self._input.element_spec)

    def _card(self) -> int:
        n = self._input._card()
        if n == INFINITE:
            return INFINITE
        if n < 0:
            return UNKNOWN
        leads = {None if isinstance(s.shape, _UnknownShape) or not s.shape else s.shape[0]
                 for s in st.flatten(self._input.element_spec)}  # fmt: skip
        if len(leads) != 1 or None in leads:
            return UNKNOWN
        return n * leads.pop()  # type: ignore[operator]


class _ShuffleDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, buffer_size: int, seed: int | None, reshuffle: bool) -> None:
        super().__init__(input_dataset)
        self._buffer_size = int(buffer_size)
        if self._buffer_size <= 0 and self._buffer_size != AUTOTUNE:
            raise errors.InvalidArgumentError(None, None, "buffer_size must be greater than zero.")
        if seed is None:
            # TensorFlow's rule: with a global seed set (tapers.random.set_seed) an unseeded shuffle
            # is reproducible too; without one it draws from the operating system's entropy.
            from .. import random as _random

            if _random._global_seed is not None:
                seed = int(float(_random._stream(None).uniform([], 0.0, 1.0, dtype="float64")) * 2**62)
        self._seed = seed
        self._reshuffle = bool(reshuffle)
        self._epoch = 0
        self._lock = threading.Lock()
        self._fixed_entropy = int(np.random.default_rng().integers(2**62))

    def _rng(self) -> np.random.Generator:
        with self._lock:
            epoch = self._epoch
            if self._reshuffle:
                self._epoch += 1
        if self._seed is not None:
            return np.random.default_rng([int(self._seed) & _INT64_MAX, epoch])
        if self._reshuffle:
            return np.random.default_rng()
        return np.random.default_rng([self._fixed_entropy, 0])

    def _row_source(self) -> _TensorSliceDataset | None:
        return self._input._row_source()

    def _row_iter(self) -> Iterator[int]:
        return self._shuffled(self._input._row_iter())

    def _shuffled(self, src: Iterator[Any]) -> Iterator[Any]:
        """`src`'s items through the shuffle buffer (one epoch's random stream)."""
        rng = self._rng()
        size = self._buffer_size if self._buffer_size > 0 else 1024
        buf: list[Any] = []
        for element in src:
            if len(buf) < size:
                buf.append(element)
                continue
            i = int(rng.integers(len(buf)))
            out, buf[i] = buf[i], element
            yield out
        while buf:
            i = int(rng.integers(len(buf)))
            buf[i], buf[-1] = buf[-1], buf[i]
            yield buf.pop()

    def _iter(self) -> Iterator[Any]:
        src = self._input._iter()
        try:
            yield from self._shuffled(src)
        finally:
            src.close()  # type: ignore[attr-defined]


class _RepeatDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, count: int | None) -> None:
        super().__init__(input_dataset)
        self._count = -1 if count is None else int(count)

    def _row_source(self) -> _TensorSliceDataset | None:
        return self._input._row_source()

    def _row_iter(self) -> Iterator[int]:
        epoch = 0
        while self._count < 0 or epoch < self._count:
            produced = False
            for i in self._input._row_iter():
                produced = True
                yield i
            if not produced:
                return
            epoch += 1

    def _iter(self) -> Iterator[Any]:
        epoch = 0
        while self._count < 0 or epoch < self._count:
            produced = False
            src = self._input._iter()
            try:
                for element in src:
                    produced = True
                    yield element
            finally:
                src.close()  # type: ignore[attr-defined]
            if not produced:
                return  # repeating an empty dataset ends, as in TensorFlow
            epoch += 1

    def _card(self) -> int:
        n = self._input._card()
        if self._count < 0:
            return 0 if n == 0 else (UNKNOWN if n == UNKNOWN else INFINITE)
        if n == UNKNOWN:
            return UNKNOWN
        if n == INFINITE:
            return 0 if self._count == 0 else INFINITE
        return n * self._count


class _TakeDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, count: int) -> None:
        super().__init__(input_dataset)
        self._count = int(count)

    def _row_source(self) -> _TensorSliceDataset | None:
        return self._input._row_source()

    def _row_iter(self) -> Iterator[int]:
        if self._count == 0:
            return
        for n, i in enumerate(self._input._row_iter()):
            yield i
            if n + 1 == self._count:
                return

    def _iter(self) -> Iterator[Any]:
        if self._count == 0:
            return
        src = self._input._iter()
        try:
            for i, element in enumerate(src):
                yield element
                if i + 1 == self._count:
                    return
        finally:
            src.close()  # type: ignore[attr-defined]

    def _card(self) -> int:
        n = self._input._card()
        if self._count < 0:
            return n
        if n == UNKNOWN:
            return UNKNOWN
        if n == INFINITE:
            return self._count
        return min(n, self._count)


class _SkipDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, count: int) -> None:
        super().__init__(input_dataset)
        self._count = int(count)

    def _row_source(self) -> _TensorSliceDataset | None:
        return self._input._row_source()

    def _row_iter(self) -> Iterator[int]:
        for n, i in enumerate(self._input._row_iter()):
            if self._count >= 0 and n >= self._count:
                yield i

    def _iter(self) -> Iterator[Any]:
        src = self._input._iter()
        try:
            for i, element in enumerate(src):
                if self._count >= 0 and i >= self._count:
                    yield element
        finally:
            src.close()  # type: ignore[attr-defined]

    def _card(self) -> int:
        n = self._input._card()
        if n < 0:
            return n
        if self._count < 0:
            return 0
        return max(0, n - self._count)


class _ShardDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, num_shards: int, index: int) -> None:
        super().__init__(input_dataset)
        self._n, self._index = int(num_shards), int(index)
        if self._n <= 0:
            raise errors.InvalidArgumentError(
                None, None, f"Number of shards must be greater than zero (currently num_shards = {self._n})."
            )
        if not 0 <= self._index < self._n:
            raise errors.InvalidArgumentError(
                None, None, f"Index must be between 0 and {self._n - 1} (currently index = {self._index})."
            )

    def _row_source(self) -> _TensorSliceDataset | None:
        return self._input._row_source()

    def _row_iter(self) -> Iterator[int]:
        for n, i in enumerate(self._input._row_iter()):
            if n % self._n == self._index:
                yield i

    def _iter(self) -> Iterator[Any]:
        src = self._input._iter()
        try:
            for i, element in enumerate(src):
                if i % self._n == self._index:
                    yield element
        finally:
            src.close()  # type: ignore[attr-defined]

    def _card(self) -> int:
        n = self._input._card()
        if n < 0:
            return n
        return n // self._n + (1 if self._index < n % self._n else 0)


class CacheDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset) -> None:
        super().__init__(input_dataset)
        self._cached: list[Any] | None = None
        self._lock = threading.Lock()

    def _iter(self) -> Iterator[Any]:
        with self._lock:
            cached = self._cached
        if cached is not None:
            yield from cached
            return
        collected = []
        src = self._input._iter()
        try:
            for element in src:
                collected.append(element)
                yield element
        finally:
            src.close()  # type: ignore[attr-defined]
        # Only a complete pass fills the cache; a pass stopped early leaves it to the next one.
        with self._lock:
            if self._cached is None:
                self._cached = collected


class _OptionsDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, options: Any) -> None:
        super().__init__(input_dataset)
        from .options import merge_options

        self._own_options = [merge_options(options)]

    def _iter(self) -> Iterator[Any]:
        src = self._input._iter()
        try:
            yield from src
        finally:
            src.close()  # type: ignore[attr-defined]


class DatasetSpec:
    """The spec of an element that is itself a dataset (``tf.data.DatasetSpec``), as ``window`` makes.

    Parameters
    ----------
    element_spec : TensorSpec or structure of them
        The inner dataset's element spec.
    dataset_shape : tuple, default ()
        TensorFlow's batch shape of datasets (always ``()`` here).
    """

    def __init__(self, element_spec: Any, dataset_shape: Any = ()) -> None:
        from .._shape import TensorShape

        self.element_spec = element_spec
        self.dataset_shape = TensorShape(dataset_shape)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DatasetSpec):
            return NotImplemented
        return (self.element_spec, self.dataset_shape) == (other.element_spec, other.dataset_shape)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"DatasetSpec({self.element_spec!r}, {self.dataset_shape!r})"


class _VariantDataset(Dataset):
    """A window: a few elements held in memory (TensorFlow's name for a dataset inside an element)."""

    def __init__(self, elements: list[Any], spec: Any) -> None:
        self._elements = elements
        self._spec = spec

    def _iter(self) -> Iterator[Any]:
        yield from self._elements

    def _compute_spec(self) -> Any:
        return self._spec

    def _card(self) -> int:
        return len(self._elements)


class _WindowDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, size: int, shift: int, stride: int, drop: bool) -> None:
        super().__init__(input_dataset)
        self._size, self._shift, self._stride, self._drop = size, shift, stride, drop

    def _window(self, elements: list[Any]) -> Any:
        in_spec = self._input.element_spec
        columns = list(zip(*[st.flatten(e) for e in elements]))
        return st.pack(in_spec, [_VariantDataset(list(c), s) for c, s in zip(columns, st.flatten(in_spec))])

    def _iter(self) -> Iterator[Any]:
        span = (self._size - 1) * self._stride
        buf: collections.deque[Any] = collections.deque()
        base = 0  # index of buf[0] in the input
        start = 0  # index of the next window's first element
        last = -1
        src = self._input._iter()
        try:
            for last, element in enumerate(src):
                buf.append(element)
                while buf and base < start:
                    buf.popleft()
                    base += 1
                while start + span <= last:
                    yield self._window([buf[start - base + k * self._stride] for k in range(self._size)])
                    start += self._shift
                    while buf and base < start:
                        buf.popleft()
                        base += 1
            if not self._drop:
                while start <= last:
                    n = (last - start) // self._stride + 1
                    yield self._window([buf[start - base + k * self._stride] for k in range(min(n, self._size))])
                    start += self._shift
                    while buf and base < start:
                        buf.popleft()
                        base += 1
        finally:
            src.close()  # type: ignore[attr-defined]

    def _compute_spec(self) -> Any:
        return st.map_structure(DatasetSpec, self._input.element_spec)

    def _card(self) -> int:
        n = self._input._card()
        if n < 0:
            return n
        if self._drop:
            span = (self._size - 1) * self._stride
            return 0 if n <= span else (n - span - 1) // self._shift + 1
        return (n + self._shift - 1) // self._shift


_END, _ITEM, _ERROR = 0, 1, 2


class _PrefetchDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, buffer_size: int) -> None:
        super().__init__(input_dataset)
        n = int(buffer_size)
        if n == AUTOTUNE:
            n = 2
        if n < 0:
            raise errors.InvalidArgumentError(None, None, f"buffer_size must be >= 0 or AUTOTUNE, got {n}.")
        self._buffer_size = n

    def _iter(self) -> Iterator[Any]:
        if self._buffer_size == 0:
            yield from self._input._iter()
            return
        q: queue.Queue[tuple[int, Any]] = queue.Queue(maxsize=self._buffer_size)
        stop = threading.Event()
        src = self._input._iter()
        # The worker closes over the queue, the event and the source only, never this generator,
        # so dropping the consumer's iterator finalizes this generator, which stops the worker.
        worker = threading.Thread(target=_prefetch_worker, args=(src, q, stop), name="tapers.data.prefetch")
        worker.daemon = True
        worker.start()
        try:
            while True:
                kind, value = q.get()
                if kind == _END:
                    return
                if kind == _ERROR:
                    raise value
                yield value
        finally:
            stop.set()
            while worker.is_alive():
                try:  # unblock a worker waiting on a full queue
                    q.get_nowait()
                except queue.Empty:
                    pass
                worker.join(0.01)


def _prefetch_worker(src: Iterator[Any], q: queue.Queue[tuple[int, Any]], stop: threading.Event) -> None:
    def put(item: tuple[int, Any]) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    try:
        for element in src:
            if not put((_ITEM, element)):
                return
        put((_END, None))
    except BaseException as e:  # noqa: BLE001 - handed to the consumer, raised there
        put((_ERROR, e))
    finally:
        src.close()  # type: ignore[attr-defined]
