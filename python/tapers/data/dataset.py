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
* ``random``, ``sample_from_datasets`` and ``rejection_resample`` are seeded and reproducible
  like TensorFlow's, with TensorFlow's value range and algorithms, but their streams are tapers'
  own (numpy's PCG64).
* ``save``/``load`` use tapers' own format (a directory with an ``.npz`` of the values and a JSON
  element spec): it round-trips values, element spec and cardinality, but neither TensorFlow nor
  tapers reads the other's. ``snapshot``, ``fingerprint``, ``sparse_batch`` and ``ragged_batch``
  are not provided.
* ``ignore_errors`` skips elements whose ``map``/``filter`` function raises; an error in any
  other step ends the dataset there (a finished Python generator cannot resume), where
  TensorFlow skips that element and goes on.
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

    # ------------------------------------------------------------- TF 2.x additions
    @staticmethod
    def counter(start: Any = 0, step: Any = 1, dtype: Any = int64, name: str | None = None) -> Dataset:
        """An infinite dataset counting from `start` by `step`: ``start, start + step, ...`` (scalars of `dtype`).

        Parameters
        ----------
        start, step : int or float
            The first value and the increment.
        dtype : DType, default int64
            The elements' dtype.
        name : str, optional
            Accepted for TensorFlow compatibility; unused.

        Returns
        -------
        Dataset
            Infinite (cardinality ``INFINITE_CARDINALITY``).
        """
        return _CounterDataset(start, step, dtype)

    @staticmethod
    def random(seed: int | None = None, rerandomize_each_iteration: bool | None = None,
               name: str | None = None) -> Dataset:  # fmt: skip
        """An infinite dataset of int64 scalars uniformly distributed in ``[0, 2**32)`` (TensorFlow's range).

        With a `seed` (or a global seed) every iteration repeats the same stream unless
        `rerandomize_each_iteration`; the stream is tapers' own (numpy's PCG64), not TensorFlow's.

        Parameters
        ----------
        seed : int, optional
            The random seed.
        rerandomize_each_iteration : bool, optional
            Draw a new stream on every iteration.
        name : str, optional
            Accepted for TensorFlow compatibility; unused.

        Returns
        -------
        Dataset
            Infinite int64 scalars.
        """
        return _RandomDataset(seed, rerandomize_each_iteration)

    @staticmethod
    def choose_from_datasets(datasets: Any, choice_dataset: Dataset, stop_on_empty_dataset: bool = True) -> Dataset:
        """The element of ``datasets[i]`` for each ``i`` that `choice_dataset` yields (TensorFlow's order).

        Parameters
        ----------
        datasets : list of Dataset
            Inputs with compatible element specs.
        choice_dataset : Dataset
            Scalar int64 indices into `datasets`.
        stop_on_empty_dataset : bool, default True
            End when a chosen dataset is exhausted; otherwise skip choices of exhausted ones.

        Returns
        -------
        Dataset
            The chosen elements.
        """
        return _choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)

    @staticmethod
    def sample_from_datasets(datasets: Any, weights: Any = None, seed: int | None = None,
                             stop_on_empty_dataset: bool = False,
                             rerandomize_each_iteration: bool | None = None) -> Dataset:  # fmt: skip
        """Elements drawn at random from `datasets`, input ``i`` chosen with probability ``weights[i]``.

        The draws are reproducible with a `seed` but are tapers' own stream, not TensorFlow's.

        Parameters
        ----------
        datasets : list of Dataset
            Inputs with compatible element specs.
        weights : list, Tensor or Dataset, optional
            Relative probabilities (default uniform), or a dataset of one weight vector per draw.
        seed : int, optional
            The random seed.
        stop_on_empty_dataset : bool, default False
            End when a drawn dataset is exhausted; otherwise keep drawing from the others.
        rerandomize_each_iteration : bool, optional
            Draw a new stream on every iteration.

        Returns
        -------
        Dataset
            The sampled elements.
        """
        return _sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset, rerandomize_each_iteration)

    @staticmethod
    def load(path: str, element_spec: Any = None, compression: str | None = None, reader_func: Any = None,
             wait: bool = False) -> Dataset:  # fmt: skip
        """A dataset saved by ``Dataset.save`` (tapers' own on-disk format, not TensorFlow's).

        Parameters
        ----------
        path : str
            The directory ``save`` wrote.
        element_spec : structure of TensorSpec, optional
            Checked against the saved spec (and used for the loaded dataset's spec) when given.
        compression : str, optional
            Accepted; the files describe their own compression.
        reader_func, wait
            Not supported (``UnimplementedError`` when set).

        Returns
        -------
        Dataset
            The saved elements, with the saved element spec and cardinality.
        """
        _check_unsupported(reader_func=reader_func, wait=wait)
        return _LoadDataset(path, element_spec)

    def save(self, path: str, compression: str | None = None, shard_func: Any = None,
             checkpoint_args: Any = None) -> None:  # fmt: skip
        """Writes every element to the directory `path` for ``Dataset.load`` (tapers' own format: numpy ``.npz``
        plus a JSON element spec; TensorFlow cannot read it).

        Parameters
        ----------
        path : str
            Directory to write (created if needed).
        compression : {None, 'GZIP'}
            ``'GZIP'`` compresses the arrays.
        shard_func, checkpoint_args
            Not supported (``UnimplementedError`` when set).

        Returns
        -------
        None
        """
        _check_unsupported(shard_func=shard_func, checkpoint_args=checkpoint_args)
        _save(self, path, compression)

    def scan(self, initial_state: Any, scan_func: Callable[[Any, Any], Any], name: str | None = None) -> Dataset:
        """``map`` with a state: ``scan_func(state, element)`` returns ``(new_state, output)``.

        Parameters
        ----------
        initial_state : tensor or structure
            The first state; every new state keeps its structure and dtypes.
        scan_func : callable
            ``(state, element) -> (new_state, output)``.
        name : str, optional
            Accepted for TensorFlow compatibility; unused.

        Returns
        -------
        Dataset
            The outputs.
        """
        return _ScanDataset(self, initial_state, scan_func)

    def unique(self, name: str | None = None) -> Dataset:
        """The elements without repeats, first occurrences in order (single int32/int64 component).

        Parameters
        ----------
        name : str, optional
            Accepted for TensorFlow compatibility; unused.

        Returns
        -------
        Dataset
            The distinct elements.
        """
        return _UniqueDataset(self)

    def group_by_window(self, key_func: Callable[..., Any], reduce_func: Callable[[Any, Dataset], Dataset],
                        window_size: int | None = None, window_size_func: Callable[[Any], Any] | None = None,
                        name: str | None = None) -> Dataset:  # fmt: skip
        """Groups elements by ``key_func(element)`` (an int64 scalar) into windows of `window_size` (or
        ``window_size_func(key)``) and yields the elements of ``reduce_func(key, window_dataset)`` for each full
        window; the unfinished windows are reduced at the end, in key order (as TensorFlow).

        Parameters
        ----------
        key_func : callable
            Element -> int64 scalar key.
        reduce_func : callable
            ``(key, window) -> Dataset``.
        window_size : int, optional
            The window size (exactly one of `window_size` and `window_size_func`).
        window_size_func : callable, optional
            Key -> window size.
        name : str, optional
            Accepted for TensorFlow compatibility; unused.

        Returns
        -------
        Dataset
            The reduced windows' elements.
        """
        return _group_by_window(self, key_func, reduce_func, window_size, window_size_func)

    def bucket_by_sequence_length(
        self, element_length_func: Callable[..., Any], bucket_boundaries: Any, bucket_batch_sizes: Any,
        padded_shapes: Any = None, padding_values: Any = None, pad_to_bucket_boundary: bool = False,
        no_padding: bool = False, drop_remainder: bool = False, name: str | None = None,
    ) -> Dataset:  # fmt: skip
        """Batches elements of similar length together (TensorFlow's ``group_by_window`` recipe).

        Parameters
        ----------
        element_length_func : callable
            Element -> int scalar length.
        bucket_boundaries : list of int
            Increasing upper bounds (exclusive) of the buckets.
        bucket_batch_sizes : list of int
            One batch size per bucket (``len(bucket_boundaries) + 1``).
        padded_shapes, padding_values
            As for ``padded_batch``.
        pad_to_bucket_boundary : bool, default False
            Pad unknown dimensions to the bucket's boundary minus one.
        no_padding : bool, default False
            ``batch`` instead of ``padded_batch``.
        drop_remainder : bool, default False
            Drop each bucket's last smaller batch.
        name : str, optional
            Accepted for TensorFlow compatibility; unused.

        Returns
        -------
        Dataset
            The batches.
        """
        return _bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes,
                                          padded_shapes, padding_values, pad_to_bucket_boundary, no_padding,
                                          drop_remainder)  # fmt: skip

    def rejection_resample(self, class_func: Callable[..., Any], target_dist: Any, initial_dist: Any = None,
                           seed: int | None = None, name: str | None = None) -> Dataset:  # fmt: skip
        """``(class, element)`` pairs resampled towards `target_dist` (TensorFlow's algorithm: rejection sampling
        mixed with the original data; the class distribution is estimated on the fly without `initial_dist`).
        Random draws are tapers' own stream.

        Parameters
        ----------
        class_func : callable
            Element -> integer scalar class in ``[0, num_classes)``.
        target_dist : list or Tensor
            The wanted class probabilities.
        initial_dist : list or Tensor, optional
            The input's class probabilities.
        seed : int, optional
            The random seed.
        name : str, optional
            Accepted for TensorFlow compatibility; unused.

        Returns
        -------
        Dataset
            ``(class, element)`` pairs.
        """
        return _rejection_resample(self, class_func, target_dist, initial_dist, seed)

    def ignore_errors(self, log_warning: bool = False, name: str | None = None) -> Dataset:
        """Drops the elements whose computation raises.

        An error in a ``map`` or ``filter`` function skips that element; an error in any other step ends the
        dataset there (tapers' pipelines cannot resume those; TensorFlow skips and goes on).

        Parameters
        ----------
        log_warning : bool, default False
            Log each ignored error (logger ``tapers.data``).
        name : str, optional
            Accepted for TensorFlow compatibility; unused.

        Returns
        -------
        Dataset
            The elements computed without error.
        """
        return _IgnoreErrorsDataset(self, log_warning)

    def rebatch(self, batch_size: Any, drop_remainder: bool = False, name: str | None = None) -> Dataset:
        """Re-splits batched elements into batches of `batch_size` (``unbatch().batch(n)``, cycling through `n`
        when `batch_size` is a list).

        Parameters
        ----------
        batch_size : int or list of int
            The new batch size(s).
        drop_remainder : bool, default False
            Drop the last smaller batch.
        name : str, optional
            Accepted for TensorFlow compatibility; unused.

        Returns
        -------
        Dataset
            The rebatched elements.
        """
        return _RebatchDataset(self, batch_size, drop_remainder)



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
    # The first element the function accepts (a few are tried: a pipeline ending in ``ignore_errors`` may
    # fail on some).
    src = input_dataset._iter()
    first_error: Exception | None = None
    try:
        for _ in range(8):
            first = next(src, _MISSING)
            if first is _MISSING:
                break
            try:
                out = spec_of_output(_call(fn, first))
                break
            except Exception as e:  # noqa: BLE001 - raised below when no element is accepted
                first_error = first_error or e
                first = _MISSING
    finally:
        src.close()  # type: ignore[attr-defined]
    if first is _MISSING:
        raise first_error or on_probes
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


# ----------------------------------------------------------------- TF 2.x additions
def _seeded_rng(seed: int | None, rerandomize: bool, epoch: int, fixed_entropy: int) -> np.random.Generator:
    """One iteration's random stream, by ``shuffle``'s rules: a seed (given or from the global seed) makes the
    streams reproducible; `rerandomize` gives each iteration its own."""
    if seed is not None:
        return np.random.default_rng([int(seed) & _INT64_MAX, epoch if rerandomize else 0])
    if rerandomize:
        return np.random.default_rng()
    return np.random.default_rng([fixed_entropy, 0])


def _resolve_seed(seed: int | None) -> int | None:
    if seed is None:
        from .. import random as _random

        if _random._global_seed is not None:
            seed = int(float(_random._stream(None).uniform([], 0.0, 1.0, dtype="float64")) * 2**62)
    return None if seed is None else int(seed)


class _RandomStream:
    """The per-iteration random generators of a dataset (``random``, ``sample_from_datasets``)."""

    def __init__(self, seed: int | None, rerandomize_each_iteration: bool | None) -> None:
        self._seed = _resolve_seed(seed)
        self._rerandomize = bool(rerandomize_each_iteration)
        self._epoch = 0
        self._lock = threading.Lock()
        self._fixed_entropy = int(np.random.default_rng().integers(2**62))

    def rng(self) -> np.random.Generator:
        with self._lock:
            epoch = self._epoch
            self._epoch += 1
        if self._seed is None and not self._rerandomize:
            # TensorFlow without any seed: every iteration draws afresh.
            return np.random.default_rng()
        return _seeded_rng(self._seed, self._rerandomize, epoch, self._fixed_entropy)


class _CounterDataset(Dataset):
    _tf_name = "_CounterDataset"

    def __init__(self, start: Any, step: Any, dtype: Any) -> None:
        self._dtype = as_dtype(dtype)
        if not (self._dtype.is_integer or self._dtype.is_floating):
            raise TypeError(f"Dataset.counter: `dtype` must be an integer or floating dtype, got {self._dtype.name}.")
        self._start = st.to_tensor(constant(start, dtype=self._dtype))
        self._step = st.to_tensor(constant(step, dtype=self._dtype))
        for what, t in (("start", self._start), ("step", self._step)):
            if len(t.shape) != 0:
                raise ValueError(f"Dataset.counter: `{what}` must be a scalar, got shape {tuple(t.shape)}.")

    def _iter(self) -> Iterator[Any]:
        value = self._start
        while True:
            yield value
            value = value + self._step

    def _compute_spec(self) -> Any:
        return TensorSpec((), self._dtype)

    def _card(self) -> int:
        return INFINITE


class _RandomDataset(Dataset):
    _tf_name = "_RandomDataset"

    def __init__(self, seed: int | None, rerandomize_each_iteration: bool | None) -> None:
        self._stream = _RandomStream(seed, rerandomize_each_iteration)

    def _iter(self) -> Iterator[Any]:
        rng = self._stream.rng()
        while True:
            block = rng.integers(0, 2**32, size=256, dtype=np.int64)  # TensorFlow's range: uint32 values
            for v in block:
                yield constant(v, dtype=int64)

    def _compute_spec(self) -> Any:
        return TensorSpec((), int64)

    def _card(self) -> int:
        return INFINITE


def _compatible_specs(specs: list[Any], what: str) -> Any:
    first = specs[0]
    out = first
    for other in specs[1:]:
        fa, fb = st.flatten(out), st.flatten(other)
        if not _structure_matches(out, other) or len(fa) != len(fb) or any(
            type(x) is not type(y) or getattr(x, "dtype", None) != getattr(y, "dtype", None) for x, y in zip(fa, fb)
        ):
            raise TypeError(f"Invalid `{what}`. All datasets must have compatible element specs, but got "
                            f"{first!r} and {other!r}.")  # fmt: skip
        out = st.pack(out, [_most_specific_compatible(x, y) for x, y in zip(fa, fb)])
    return out


class _DirectedInterleaveDataset(Dataset):
    """Elements of `datasets`, each taken from the one the selector names (TensorFlow's directed interleave)."""

    _tf_name = "_DirectedInterleaveDataset"

    def __init__(self, datasets: list[Dataset], stop_on_empty: bool) -> None:
        self._datasets = list(datasets)
        self._stop_on_empty = bool(stop_on_empty)
        self.element_spec  # noqa: B018 - incompatible inputs raise here, as in TensorFlow

    def _selections(self) -> Iterator[int]:  # pragma: no cover - subclasses override
        raise NotImplementedError

    def _iter(self) -> Iterator[Any]:
        its: list[Iterator[Any] | None] = [d._iter() for d in self._datasets]
        active = len(its)
        selections = self._selections()
        try:
            for i in selections:
                if not 0 <= i < len(its):
                    raise errors.InvalidArgumentError(
                        None, None, f"Selector index out of range: {i} >= {len(its)} (and must be >= 0)."
                    )
                it = its[i]
                if it is None:
                    continue  # an exhausted input is skipped, as TensorFlow's
                value = next(it, _MISSING)
                if value is not _MISSING:
                    yield value
                    continue
                if self._stop_on_empty:
                    return
                it.close()  # type: ignore[attr-defined]
                its[i] = None
                active -= 1
                if active == 0:
                    return
        finally:
            selections.close()  # type: ignore[attr-defined]
            for it in its:
                if it is not None:
                    it.close()  # type: ignore[attr-defined]

    def _compute_spec(self) -> Any:
        return _compatible_specs([d.element_spec for d in self._datasets], "datasets")

    def _card(self) -> int:
        # TensorFlow's rule: infinite when an input is, whatever the selector; otherwise unknown.
        if any(d._card() == INFINITE for d in self._datasets):
            return INFINITE
        return UNKNOWN


class _ChooseDataset(_DirectedInterleaveDataset):
    def __init__(self, datasets: list[Dataset], choice_dataset: Dataset, stop_on_empty: bool) -> None:
        self._choice = choice_dataset
        super().__init__(datasets, stop_on_empty)

    def _selections(self) -> Iterator[int]:
        src = self._choice._iter()
        try:
            for c in src:
                yield int(c)
        finally:
            src.close()  # type: ignore[attr-defined]

    def _upstream(self) -> list[Dataset]:
        return [*self._choice._upstream(), *super()._upstream()]


class _SampleDataset(_DirectedInterleaveDataset):
    def __init__(self, datasets: list[Dataset], weights: Any, seed: int | None, stop_on_empty: bool,
                 rerandomize: bool | None) -> None:  # fmt: skip
        self._weights = weights  # a numpy vector of probabilities, or a dataset of weight vectors
        self._stream = _RandomStream(seed, rerandomize)
        super().__init__(datasets, stop_on_empty)

    def _selections(self) -> Iterator[int]:
        rng = self._stream.rng()
        n = len(self._datasets)
        if not isinstance(self._weights, Dataset):
            p = self._weights
            while True:
                for c in rng.choice(n, size=256, p=p):
                    yield int(c)
        src = self._weights._iter()
        try:
            for w in src:
                yield int(rng.choice(n, p=_probabilities(np.asarray(w, dtype=np.float64), n)))
        finally:
            src.close()  # type: ignore[attr-defined]



def _probabilities(w: np.ndarray, n: int) -> np.ndarray:
    if w.shape != (n,):
        raise errors.InvalidArgumentError(
            None, None, f"Invalid `weights`: expected shape ({n},), the number of datasets, got {w.shape}."
        )
    if np.any(w < 0) or not np.all(np.isfinite(w)) or w.sum() <= 0:
        raise errors.InvalidArgumentError(
            None, None, f"Invalid `weights`: they must be finite, non-negative and not all zero, got {w.tolist()}."
        )
    return w / w.sum()


def _as_dataset_list(datasets: Any) -> list[Dataset]:
    if isinstance(datasets, Dataset):
        raise TypeError("Invalid `datasets`. `datasets` should be a list of `tapers.data.Dataset` objects, "
                        "not a single dataset.")  # fmt: skip
    out = list(datasets)
    if not out:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    for d in out:
        if not isinstance(d, Dataset):
            raise TypeError(f"Invalid `datasets`. Every item must be a `tapers.data.Dataset`, got {type(d).__name__}.")
    return out


def _choose_from_datasets(datasets: Any, choice_dataset: Any, stop_on_empty_dataset: bool) -> Dataset:
    ds = _as_dataset_list(datasets)
    if not isinstance(choice_dataset, Dataset):
        raise TypeError("Invalid `choice_dataset`. `choice_dataset` should be a `tapers.data.Dataset` but is "
                        f"{type(choice_dataset)}.")  # fmt: skip
    spec = choice_dataset.element_spec
    if not (isinstance(spec, TensorSpec) and spec.dtype == int64 and spec.shape.is_compatible_with(())):
        raise TypeError("Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tapers.int64` "
                        f"tensors but are {spec!r}.")  # fmt: skip
    return _ChooseDataset(ds, choice_dataset, stop_on_empty_dataset)


def _sample_from_datasets(datasets: Any, weights: Any, seed: int | None, stop_on_empty_dataset: bool,
                          rerandomize_each_iteration: bool | None) -> Dataset:  # fmt: skip
    ds = _as_dataset_list(datasets)
    if isinstance(weights, Dataset):
        spec = weights.element_spec
        flat = st.flatten(spec)
        if not all(isinstance(s, TensorSpec) and s.dtype.is_floating for s in flat):
            raise TypeError(f"Invalid `weights`. The elements of a `weights` dataset must be float tensors, "
                            f"got {spec!r}.")  # fmt: skip
        return _SampleDataset(ds, weights, seed, stop_on_empty_dataset, rerandomize_each_iteration)
    if weights is None:
        w = np.ones(len(ds))
    else:
        is_tensor = isinstance(weights, Tensor)
        if is_tensor and weights.dtype not in (as_dtype("float32"), as_dtype("float64")):
            raise TypeError(f"Invalid `weights`. `weights` type must be either `tapers.float32` or "
                            f"`tapers.float64` but is {weights.dtype.name}.")  # fmt: skip
        w = np.asarray(weights.numpy() if is_tensor else weights, dtype=np.float64)
        if w.ndim != 1 or len(w) != len(ds):
            raise ValueError(f"Invalid `weights`. `weights` should have the same length as `datasets` but got "
                             f"`len(weights)={w.shape}` vs. `len(datasets)={len(ds)}`.")  # fmt: skip
        if not is_tensor:
            keep = [i for i in range(len(ds)) if w[i] > 0]
            if not keep:
                return ds[0].take(0)
            ds, w = [ds[i] for i in keep], w[keep]
    p = _probabilities(w, len(ds))
    if len(ds) == 1:
        return ds[0]
    return _SampleDataset(ds, p, seed, stop_on_empty_dataset, rerandomize_each_iteration)


class _ScanDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, initial_state: Any, fn: Callable[..., Any]) -> None:
        super().__init__(input_dataset)
        self._state0 = st.normalize(initial_state.copy() if isinstance(initial_state, list) else initial_state)
        if isinstance(self._state0, list):
            self._state0 = tuple(self._state0)
        self._fn = fn
        self._state_spec = _element_spec(self._state0)
        self.element_spec  # noqa: B018 - a bad `scan_func` raises here, as TensorFlow's tracing does

    def _step(self, state: Any, element: Any) -> tuple[Any, Any]:
        out = self._fn(state, element)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError("Invalid `scan_func`. `scan_func` should return a pair consisting of new state and the "
                            f"output value but its return type is {type(out).__name__}.")  # fmt: skip
        new_state = _normalize_output(out[0])
        spec = _element_spec(new_state)
        fa, fb = st.flatten(self._state_spec), st.flatten(spec)
        if not _structure_matches(self._state_spec, spec) or len(fa) != len(fb):
            raise TypeError(f"Invalid `scan_func`. The new state must have the initial state's structure. "
                            f"Expected {self._state_spec!r}, got {spec!r}.")  # fmt: skip
        if any(x.dtype != y.dtype for x, y in zip(fa, fb)):
            raise TypeError("Invalid `scan_func`. The element types for the new state must match the initial "
                            f"state. Expected {self._state_spec!r}, got {spec!r}.")  # fmt: skip
        return new_state, _normalize_output(out[1])

    def _iter(self) -> Iterator[Any]:
        state = self._state0
        src = self._input._iter()
        try:
            for element in src:
                state, output = self._step(state, element)
                yield output
        finally:
            src.close()  # type: ignore[attr-defined]

    def _compute_spec(self) -> Any:
        in_spec = self._input.element_spec
        spread = isinstance(in_spec, tuple) and not st._is_namedtuple(in_spec)

        def output_of(*args: Any) -> Any:
            return self._step(self._state0, tuple(args) if spread else args[0])[1]

        return _fn_spec(self._input, _element_spec, output_of)


class _UniqueDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset) -> None:
        super().__init__(input_dataset)
        spec = input_dataset.element_spec
        for s in st.flatten(spec):
            if not isinstance(s, TensorSpec) or s.dtype not in (as_dtype("int32"), int64):
                what = s.dtype.name if isinstance(s, TensorSpec) else type(s).__name__
                raise TypeError(f"`tapers.data.Dataset.unique` does not support type {what} -- only `int32` and "
                                "`int64` are supported (tapers has no strings).")  # fmt: skip
        if len(st.flatten(spec)) != 1:
            raise errors.InvalidArgumentError(
                None, None, f"UniqueDataset only supports inputs with a single component, got {spec!r}."
            )

    def _iter(self) -> Iterator[Any]:
        seen: set[tuple[Any, ...]] = set()
        src = self._input._iter()
        try:
            for element in src:
                a = np.asarray(st.flatten(element)[0])
                key = (a.shape, a.tobytes())
                if key not in seen:
                    seen.add(key)
                    yield element
        finally:
            src.close()  # type: ignore[attr-defined]

    def _card(self) -> int:
        return UNKNOWN


def _int64_scalar(value: Any, what: str) -> int:
    t = value if isinstance(value, Tensor) else st.to_tensor(value)
    if len(t.shape) != 0 or not t.dtype.is_integer:
        raise ValueError(f"Invalid `{what}`. `{what}` must return a single `tapers.int64` scalar tensor but its "
                         f"return type is {TensorSpec(tuple(t.shape), t.dtype)!r}.")  # fmt: skip
    return int(t)


class _GroupByWindowDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, key_func: Callable[..., Any], reduce_func: Callable[..., Any],
                 window_size_func: Callable[[Any], Any], spec: Any = None) -> None:  # fmt: skip
        super().__init__(input_dataset)
        self._key_func, self._reduce_func, self._window_size_func = key_func, reduce_func, window_size_func
        if spec is not None:
            self.__dict__["_spec_cache"] = spec
        self.element_spec  # noqa: B018 - a reduce_func not returning a dataset raises here, as in TensorFlow

    def _reduce(self, key: int, elements: list[Any]) -> Iterator[Any]:
        out = self._reduce_func(constant(key, dtype=int64), _VariantDataset(elements, self._input.element_spec))
        if not isinstance(out, Dataset):
            raise TypeError("Invalid `reduce_func`. `reduce_func` must return a single `tapers.data.Dataset` object "
                            f"but its return type is {type(out).__name__}.")  # fmt: skip
        return out._iter()

    def _iter(self) -> Iterator[Any]:
        groups: dict[int, list[Any]] = {}
        sizes: dict[int, int] = {}
        src = self._input._iter()
        try:
            for element in src:
                key = _int64_scalar(_call(self._key_func, element), "key_func")
                if key not in sizes:
                    size = _int64_scalar(self._window_size_func(constant(key, dtype=int64)), "window_size_func")
                    if size <= 0:
                        raise errors.InvalidArgumentError(
                            None, None, f"Window size must be greater than zero, but got {size}."
                        )
                    sizes[key] = size
                group = groups.setdefault(key, [])
                group.append(element)
                if len(group) == sizes[key]:
                    del groups[key], sizes[key]
                    inner = self._reduce(key, group)
                    try:
                        yield from inner
                    finally:
                        inner.close()  # type: ignore[attr-defined]
            for key in sorted(groups):  # TensorFlow flushes the remaining groups in key order
                inner = self._reduce(key, groups[key])
                try:
                    yield from inner
                finally:
                    inner.close()  # type: ignore[attr-defined]
        finally:
            src.close()  # type: ignore[attr-defined]

    def _compute_spec(self) -> Any:
        in_spec = self._input.element_spec

        def spec_of(n: int, value: int) -> Any:
            window = [st.map_structure(lambda s: _probe(s, value, n), in_spec)] * n
            out = self._reduce_func(constant(0, dtype=int64), _VariantDataset(window, in_spec))
            if not isinstance(out, Dataset):
                raise TypeError("Invalid `reduce_func`. `reduce_func` must return a single `tapers.data.Dataset` "
                                f"object but its return type is {type(out).__name__}.")  # fmt: skip
            return out.element_spec

        a = spec_of(2, 0)
        b = spec_of(3, 1)
        fa, fb = st.flatten(a), st.flatten(b)
        if len(fa) == len(fb) and _structure_matches(a, b):
            return st.pack(a, [_most_specific_compatible(x, y) for x, y in zip(fa, fb)])
        return a

    def _card(self) -> int:
        return UNKNOWN


def _group_by_window(dataset: Dataset, key_func: Callable[..., Any], reduce_func: Callable[..., Any],
                     window_size: Any, window_size_func: Callable[[Any], Any] | None) -> Dataset:  # fmt: skip
    if (window_size is not None and window_size_func) or not (window_size is not None or window_size_func):
        raise ValueError("Either the `window_size` argument or the `window_size_func` argument must be specified.")
    if window_size is not None:
        size = int(window_size)

        def window_size_func(_key: Any) -> Any:
            return size

    assert window_size_func is not None
    return _GroupByWindowDataset(dataset, key_func, reduce_func, window_size_func)


def _bucket_by_sequence_length(
    dataset: Dataset, element_length_func: Callable[..., Any], bucket_boundaries: Any, bucket_batch_sizes: Any,
    padded_shapes: Any, padding_values: Any, pad_to_bucket_boundary: bool, no_padding: bool, drop_remainder: bool,
) -> Dataset:  # fmt: skip
    boundaries = [int(b) for b in bucket_boundaries]
    batch_sizes = [int(b) for b in bucket_batch_sizes]
    if len(batch_sizes) != len(boundaries) + 1:
        raise ValueError(f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
                         f"`len(bucket_batch_sizes)={len(batch_sizes)}` and "
                         f"`len(bucket_boundaries)={len(boundaries)}`.")  # fmt: skip
    if boundaries != sorted(boundaries):
        raise ValueError(f"`bucket_boundaries` must be sorted in increasing order, got {boundaries}.")
    lows = [np.iinfo(np.int32).min, *boundaries]
    highs = [*boundaries, np.iinfo(np.int32).max]

    def bucket_id(*args: Any) -> Any:
        length = _int64_scalar(element_length_func(*args), "element_length_func")
        for i, (lo, hi) in enumerate(zip(lows, highs)):
            if lo <= length < hi:
                return constant(i, dtype=int64)
        raise errors.InvalidArgumentError(None, None, f"Sequence length {length} falls in no bucket.")

    def window_size(key: Any) -> Any:
        return batch_sizes[int(key)]

    def batching(key: Any, grouped: Dataset) -> Dataset:
        batch_size = batch_sizes[int(key)]
        if no_padding:
            return grouped.batch(batch_size, drop_remainder=drop_remainder)
        filler = None
        if pad_to_bucket_boundary:
            if int(key) >= len(batch_sizes) - 1:
                raise errors.InvalidArgumentError(
                    None, None, "When pad_to_bucket_boundary=True, elements must have length < max(bucket_boundaries)."
                )
            filler = boundaries[int(key)] - 1
        shapes = padded_shapes if padded_shapes is not None else st.map_structure(
            lambda s: None if isinstance(s.shape, _UnknownShape) else _ShapeLeaf(s.shape), grouped.element_spec
        )  # fmt: skip
        flat = [None if sh is None else _ShapeLeaf([filler if d is None else d for d in sh])
                for sh in st.flatten(_shapes_as_tuples(shapes))]  # fmt: skip
        structured = st.pack(grouped.element_spec, flat) if st.is_structure(grouped.element_spec) else flat[0]
        return grouped.padded_batch(batch_size, structured, padding_values, drop_remainder=drop_remainder)

    # TensorFlow's batch sizes and paddings are tensors picked by the bucket: every batch dimension is unknown,
    # and so is every padded one not given in `padded_shapes`.
    in_spec = dataset.element_spec
    if no_padding:
        spec = st.map_structure(lambda s: TensorSpec(_prepend(None, s), s.dtype), in_spec)
    else:
        given = ([None] * len(st.flatten(in_spec)) if padded_shapes is None
                 else st.flatten(_shapes_as_tuples(padded_shapes)) if st.is_structure(in_spec) else [padded_shapes])
        specs = []
        for s, sh in zip(st.flatten(in_spec), given):
            dims: list[int | None] | None
            if sh is None:
                dims = None if isinstance(s.shape, _UnknownShape) else [None] * len(s.shape)
            else:
                dims = [None if d is None or int(d) == -1 else int(d) for d in sh]
            specs.append(TensorSpec(None if dims is None else [None, *dims], s.dtype))
        spec = st.pack(in_spec, specs)
    return _GroupByWindowDataset(dataset, bucket_id, batching, window_size, spec)


class _RebatchDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, batch_size: Any, drop_remainder: bool) -> None:
        super().__init__(input_dataset)
        sizes = np.asarray(batch_size.numpy() if isinstance(batch_size, Tensor) else batch_size)
        if sizes.ndim > 1:
            raise ValueError("Invalid `batch_sizes`. Expected `batch_sizes` to be a scalar or a vector. Received "
                             f"`batch_sizes` of rank {sizes.ndim}.")  # fmt: skip
        if sizes.size == 0 or not np.issubdtype(sizes.dtype, np.integer) or np.any(sizes <= 0):
            raise errors.InvalidArgumentError(
                None, None, f"Invalid `batch_size`: expected positive integers, got {sizes.tolist()}."
            )
        self._sizes = [int(s) for s in sizes.reshape(-1)]
        self._drop = bool(drop_remainder)
        dims = []
        for s in st.flatten(input_dataset.element_spec):
            if isinstance(s.shape, _UnknownShape):
                continue
            if len(s.shape) < 1:
                raise ValueError("Invalid `batch_sizes`. Expected dataset with rank of >= 1 but found a dataset with "
                                 "scalar elements. Fix the issue by adding the `batch` transformation to the "
                                 "dataset.")  # fmt: skip
            dims.append(s.shape[0])
        known = [d for d in dims if d is not None]
        if known and any(d != known[0] for d in known):
            raise ValueError(f"Invalid `input_dataset.` The batch dimension of component 0 is {known[0]}, while the "
                             f"batch dimension of component i is {known}.")  # fmt: skip
        lead: int | None = self._sizes[0] if all(s == self._sizes[0] for s in self._sizes) else None
        if lead is not None and not self._drop and (not known or known[0] % lead != 0):
            lead = None
        self._lead = lead

    def _iter(self) -> Iterator[Any]:
        src = _UnbatchDataset(self._input)._iter()
        k = 0
        try:
            buf: list[Any] = []
            for element in src:
                buf.append(element)
                if len(buf) == self._sizes[k % len(self._sizes)]:
                    yield _stack(buf)
                    buf = []
                    k += 1
            if buf and not self._drop:
                yield _stack(buf)
        finally:
            src.close()  # type: ignore[attr-defined]

    def _compute_spec(self) -> Any:
        return st.map_structure(
            lambda s: TensorSpec(None if isinstance(s.shape, _UnknownShape) else (self._lead, *tuple(s.shape)[1:]),
                                 s.dtype),
            self._input.element_spec,
        )  # fmt: skip

    def _card(self) -> int:
        return UNKNOWN



def _iter_skipping(dataset: Dataset, log_warning: bool) -> Iterator[Any]:
    """`dataset`'s elements, leaving out those whose computation raises.

    Element-wise steps (``map``, ``filter``) skip a failing element and go on; any other dataset
    cannot resume after an error (its iterator is a finished generator) and ends there instead.
    """
    if isinstance(dataset, (_MapDataset, _FilterDataset)):
        src = _iter_skipping(dataset._input, log_warning)
        try:
            for element in src:
                try:
                    if isinstance(dataset, _MapDataset):
                        yield dataset._apply(element)
                    elif bool(st.to_tensor(_call(dataset._predicate, element))):
                        yield element
                except Exception as e:  # noqa: BLE001 - ignore_errors drops failing elements, whatever the error
                    _log_ignored(e, log_warning)
        finally:
            src.close()  # type: ignore[attr-defined]
        return
    it = dataset._iter()
    try:
        while True:
            try:
                value = next(it)
            except StopIteration:
                return
            except Exception as e:  # noqa: BLE001 - the input cannot resume after an error: it ends here
                _log_ignored(e, log_warning)
                return
            yield value
    finally:
        it.close()  # type: ignore[attr-defined]


def _log_ignored(e: Exception, log_warning: bool) -> None:
    if log_warning:
        import logging

        logging.getLogger("tapers.data").warning("Ignoring error: %s: %s", type(e).__name__, e)


class _IgnoreErrorsDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, log_warning: bool) -> None:
        super().__init__(input_dataset)
        self._log_warning = bool(log_warning)

    def _iter(self) -> Iterator[Any]:
        return _iter_skipping(self._input, self._log_warning)

    def _card(self) -> int:
        return UNKNOWN


# ----------------------------------------------------------------- save / load (tapers' own format)
_SAVE_FORMAT = "tapers.data.save/1"


def _encode_spec(spec: Any) -> Any:
    if isinstance(spec, DatasetSpec):
        raise TypeError("tapers.data: `save` does not support elements holding datasets (as `window` makes); "
                        f"got {spec!r}.")  # fmt: skip
    if isinstance(spec, dict):
        return {"dict": [[k, _encode_spec(v)] for k, v in spec.items()]}
    if st._is_namedtuple(spec):
        return {"namedtuple": type(spec).__name__, "fields": list(spec._fields),
                "items": [_encode_spec(v) for v in spec]}  # fmt: skip
    if isinstance(spec, tuple):
        return {"tuple": [_encode_spec(v) for v in spec]}
    shape = None if isinstance(spec.shape, _UnknownShape) else list(spec.shape)
    return {"shape": shape, "dtype": spec.dtype.name}


def _decode_spec(d: Any) -> Any:
    if "dict" in d:
        return {k: _decode_spec(v) for k, v in d["dict"]}
    if "namedtuple" in d:
        return collections.namedtuple(d["namedtuple"], d["fields"])(*[_decode_spec(v) for v in d["items"]])  # type: ignore[misc]
    if "tuple" in d:
        return tuple(_decode_spec(v) for v in d["tuple"])
    return TensorSpec(d["shape"], as_dtype(d["dtype"]))


def _check_unsupported(**kwargs: Any) -> None:
    for k, v in kwargs.items():
        if v is not None and v is not False:
            raise errors.UnimplementedError(None, None, f"tapers.data: the `{k}` argument is not supported.")


def _save(dataset: Dataset, path: str, compression: str | None) -> None:
    import json

    if compression not in (None, "", "GZIP", "NONE"):
        raise ValueError(f"tapers.data.save: `compression` must be None or 'GZIP', got {compression!r}.")
    spec = dataset.element_spec
    encoded = _encode_spec(spec)
    if dataset._card() == INFINITE:
        raise errors.InvalidArgumentError(None, None, "tapers.data.save: cannot save an infinite dataset.")
    arrays: dict[str, np.ndarray] = {}
    n = 0
    for element in dataset:
        for j, t in enumerate(st.flatten(element)):
            a = np.asarray(t.numpy())
            if a.dtype.kind not in "biufc":  # bfloat16 and other extension dtypes: their bits
                a = a.view(np.dtype(f"u{a.dtype.itemsize}"))
            arrays[f"e{n}_c{j}"] = a
        n += 1
    os.makedirs(path, exist_ok=True)
    saver = np.savez_compressed if compression == "GZIP" else np.savez
    saver(os.path.join(path, "elements.npz"), **arrays)  # type: ignore[arg-type]
    meta = {"format": _SAVE_FORMAT, "element_spec": encoded, "cardinality": n, "compression": compression}
    with open(os.path.join(path, "dataset_spec.json"), "w") as f:
        json.dump(meta, f)


class _LoadDataset(Dataset):
    _tf_name = "_LoadDataset"

    def __init__(self, path: str, element_spec: Any) -> None:
        import json

        meta_path = os.path.join(path, "dataset_spec.json")
        if not os.path.isfile(meta_path):
            raise errors.NotFoundError(None, None, f"tapers.data.load: no dataset saved by tapers at {path!r}.")
        with open(meta_path) as f:
            meta = json.load(f)
        if meta.get("format") != _SAVE_FORMAT:
            raise errors.InvalidArgumentError(None, None, f"tapers.data.load: unknown format {meta.get('format')!r}.")
        saved = _decode_spec(meta["element_spec"])
        if element_spec is not None:
            fa, fb = st.flatten(saved), st.flatten(element_spec)
            if not _structure_matches(saved, element_spec) or len(fa) != len(fb) or any(
                not isinstance(y, TensorSpec) or x.dtype != y.dtype or not y.shape.is_compatible_with(x.shape)
                for x, y in zip(fa, fb)
            ):
                raise ValueError(f"tapers.data.load: `element_spec` {element_spec!r} does not match the saved "
                                 f"dataset's {saved!r}.")  # fmt: skip
            saved = element_spec
        self._path, self._spec, self._n = path, saved, int(meta["cardinality"])

    def _iter(self) -> Iterator[Any]:
        specs = st.flatten(self._spec)
        with np.load(os.path.join(self._path, "elements.npz"), allow_pickle=False) as data:
            for k in range(self._n):
                parts = []
                for j, s in enumerate(specs):
                    a = data[f"e{k}_c{j}"]
                    want = np.dtype(s.dtype.as_numpy_dtype)
                    if a.dtype != want:
                        a = a.view(want)
                    parts.append(constant(a))
                yield st.pack(self._spec, parts) if st.is_structure(self._spec) else parts[0]

    def _compute_spec(self) -> Any:
        return self._spec

    def _card(self) -> int:
        return self._n


# ----------------------------------------------------------------- rejection_resample (TensorFlow's algorithm)
def _acceptance_with_mixing(initial: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, float]:
    """TensorFlow's per-class acceptance probabilities and the probability of drawing from the original data."""
    ratio = target / (initial + np.finfo(np.float32).tiny)
    m, top = float(ratio.min()), float(ratio.max())
    with np.errstate(invalid="ignore", divide="ignore"):
        return (ratio - m) / (top - m), m


class _ResampleDataset(_UnaryDataset):
    """Pieces of ``rejection_resample``: with ``weights=False`` the ``(class, element)`` pairs that pass the
    per-class rejection test; with ``weights=True`` one ``[m, 1 - m]`` mixing weight pair per input element.
    Without a given initial distribution it is estimated as TensorFlow does: class counts starting at 10,
    updated every 32 elements."""

    def __init__(self, input_dataset: Dataset, class_func: Callable[..., Any], target: np.ndarray,
                 initial: np.ndarray | None, seed: int | None, weights: bool) -> None:  # fmt: skip
        super().__init__(input_dataset)
        self._class_func, self._target, self._initial = class_func, target, initial
        self._weights = weights
        self._stream = _RandomStream(seed, None)

    def _class_of(self, element: Any) -> tuple[Any, int]:
        c = st.to_tensor(_call(self._class_func, element))
        if len(c.shape) != 0 or not c.dtype.is_integer:
            raise errors.InvalidArgumentError(None, None, "rejection_resample: `class_func` must return an integer "
                                              f"scalar, got {TensorSpec(tuple(c.shape), c.dtype)!r}.")  # fmt: skip
        k = int(c)
        if not 0 <= k < len(self._target):
            raise errors.InvalidArgumentError(
                None, None, f"rejection_resample: class {k} is out of range [0, {len(self._target)})."
            )
        return c, k

    def _blocks(self) -> Iterator[tuple[Any, Any, int, np.ndarray]]:
        """(element, class tensor, class, initial distribution in force) for every element."""
        counts = np.full(len(self._target), 10, dtype=np.int64)
        src = self._input._iter()
        try:
            while True:
                block = []
                for element in src:
                    block.append((element, *self._class_of(element)))
                    if len(block) == 32 or self._initial is not None:
                        break
                if not block:
                    return
                if self._initial is not None:
                    dist = self._initial
                else:
                    for _, _, k in block:
                        counts[k] += 1
                    dist = (counts / counts.sum()).astype(np.float32)
                for element, c, k in block:
                    yield element, c, k, dist
        finally:
            src.close()  # type: ignore[attr-defined]

    def _iter(self) -> Iterator[Any]:
        rng = self._stream.rng()
        blocks = self._blocks()
        try:
            for element, c, k, dist in blocks:
                accept, m = _acceptance_with_mixing(dist, self._target)
                if self._weights:
                    yield constant([m, 1.0 - m], dtype="float32")
                elif rng.random() < accept[k]:
                    yield (c, element)
        finally:
            blocks.close()  # type: ignore[attr-defined]

    def _compute_spec(self) -> Any:
        if self._weights:
            return TensorSpec((2,), as_dtype("float32"))
        return (_fn_spec(self._input, _element_spec, lambda *x: st.to_tensor(self._class_func(*x))),
                self._input.element_spec)  # fmt: skip

    def _card(self) -> int:
        return self._input._card() if self._weights else UNKNOWN


def _rejection_resample(dataset: Dataset, class_func: Callable[..., Any], target_dist: Any, initial_dist: Any,
                        seed: int | None) -> Dataset:  # fmt: skip
    def as_dist(v: Any, what: str) -> np.ndarray:
        a = np.asarray(v.numpy() if isinstance(v, Tensor) else v, dtype=np.float32)
        if a.ndim != 1 or a.size == 0:
            raise ValueError(f"rejection_resample: `{what}` must be a non-empty vector, got shape {a.shape}.")
        return a

    target = as_dist(target_dist, "target_dist")
    initial = None if initial_dist is None else as_dist(initial_dist, "initial_dist")
    if initial is not None and initial.shape != target.shape:
        raise ValueError(f"rejection_resample: `initial_dist` has shape {initial.shape} but `target_dist` has "
                         f"shape {target.shape}.")  # fmt: skip

    def add_class_value(*x: Any) -> Any:
        return class_func(*x), (x[0] if len(x) == 1 else x)

    filtered = _ResampleDataset(dataset, class_func, target, initial, seed, weights=False)
    if initial is not None:
        static_m = float(np.min(target / initial)) if np.all(initial > 0) else None
        if static_m == 1:
            return dataset.map(add_class_value)
        if static_m == 0:
            return filtered
        _, m = _acceptance_with_mixing(initial, target)
        weights: Dataset = Dataset.from_tensors(constant([m, 1.0 - m], dtype="float32")).repeat()
    else:
        weights = _ResampleDataset(dataset, class_func, target, initial, seed, weights=True)
    return _SampleDataset([dataset.map(add_class_value), filtered], weights, seed, True, None)
