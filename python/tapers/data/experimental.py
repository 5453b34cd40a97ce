"""``tapers.data.experimental`` (``tf.data.experimental``): the cardinality constants, ``AUTOTUNE`` and the
transformations TensorFlow 2 moved onto ``Dataset`` (``scan``, ``group_by_window``, ...), as functions for
``dataset.apply`` or constructors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._core import Tensor
from ..dtypes import int64
from .dataset import AUTOTUNE, INFINITE, UNKNOWN, Dataset, _RandomDataset
from .options import (
    AutoShardPolicy,
    AutotuneAlgorithm,
    AutotuneOptions,
    DistributeOptions,
    ExternalStatePolicy,
    OptimizationOptions,
    OptionsBase,
    ThreadingOptions,
)

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN


def cardinality(dataset: Dataset) -> Tensor:
    """``dataset.cardinality()``.

    Parameters
    ----------
    dataset : Dataset

    Returns
    -------
    Tensor
        The element count as an int64 scalar, or ``INFINITE_CARDINALITY`` (-1) /
        ``UNKNOWN_CARDINALITY`` (-2).
    """
    return dataset.cardinality()


def Counter(start: Any = 0, step: Any = 1, dtype: Any = int64) -> Dataset:  # noqa: N802 - TensorFlow's name
    """``Dataset.counter(start, step, dtype)``: an infinite count.

    Parameters
    ----------
    start, step : int or float
        The first value and the increment.
    dtype : DType, default int64
        The elements' dtype.

    Returns
    -------
    Dataset
        ``start, start + step, ...``.
    """
    return Dataset.counter(start, step, dtype)


class RandomDataset(_RandomDataset):
    """``Dataset.random(seed)``: an infinite dataset of int64 random scalars in ``[0, 2**32)`` (tapers' stream).

    Parameters
    ----------
    seed : int, optional
        The random seed.
    rerandomize_each_iteration : bool, optional
        Draw a new stream on every iteration.
    name : str, optional
        Accepted for TensorFlow compatibility; unused.
    """

    def __init__(self, seed: int | None = None, rerandomize_each_iteration: bool | None = None,
                 name: str | None = None) -> None:  # fmt: skip
        super().__init__(seed, rerandomize_each_iteration)


def sample_from_datasets(datasets: Any, weights: Any = None, seed: int | None = None,
                         stop_on_empty_dataset: bool = False) -> Dataset:  # fmt: skip
    """``Dataset.sample_from_datasets`` (see there).

    Parameters
    ----------
    datasets : list of Dataset
        Inputs with compatible element specs.
    weights : list, Tensor or Dataset, optional
        Relative probabilities (default uniform).
    seed : int, optional
        The random seed.
    stop_on_empty_dataset : bool, default False
        End when a drawn dataset is exhausted.

    Returns
    -------
    Dataset
        The sampled elements.
    """
    return Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def choose_from_datasets(datasets: Any, choice_dataset: Dataset, stop_on_empty_dataset: bool = False) -> Dataset:
    """``Dataset.choose_from_datasets``, but with ``stop_on_empty_dataset=False`` by default (as TensorFlow's).

    Parameters
    ----------
    datasets : list of Dataset
        Inputs with compatible element specs.
    choice_dataset : Dataset
        Scalar int64 indices into `datasets`.
    stop_on_empty_dataset : bool, default False
        End when a chosen dataset is exhausted.

    Returns
    -------
    Dataset
        The chosen elements.
    """
    return Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


def scan(initial_state: Any, scan_func: Callable[[Any, Any], Any]) -> Callable[[Dataset], Dataset]:
    """``dataset.apply(scan(s, f))`` is ``dataset.scan(s, f)``.

    Parameters
    ----------
    initial_state : tensor or structure
        The first state.
    scan_func : callable
        ``(state, element) -> (new_state, output)``.

    Returns
    -------
    callable
        A transformation for ``Dataset.apply``.
    """
    return lambda dataset: dataset.scan(initial_state, scan_func)


def unique() -> Callable[[Dataset], Dataset]:
    """``dataset.apply(unique())`` is ``dataset.unique()``.

    Returns
    -------
    callable
        A transformation for ``Dataset.apply``.
    """
    return lambda dataset: dataset.unique()


def group_by_window(key_func: Callable[..., Any], reduce_func: Callable[[Any, Dataset], Dataset],
                    window_size: int | None = None,
                    window_size_func: Callable[[Any], Any] | None = None) -> Callable[[Dataset], Dataset]:  # fmt: skip
    """``dataset.apply(group_by_window(...))`` is ``dataset.group_by_window(...)``.

    Parameters
    ----------
    key_func : callable
        Element -> int64 scalar key.
    reduce_func : callable
        ``(key, window) -> Dataset``.
    window_size : int, optional
        The window size.
    window_size_func : callable, optional
        Key -> window size.

    Returns
    -------
    callable
        A transformation for ``Dataset.apply``.
    """
    return lambda dataset: dataset.group_by_window(key_func, reduce_func, window_size, window_size_func)


def bucket_by_sequence_length(element_length_func: Callable[..., Any], bucket_boundaries: Any,
                              bucket_batch_sizes: Any, padded_shapes: Any = None, padding_values: Any = None,
                              pad_to_bucket_boundary: bool = False, no_padding: bool = False,
                              drop_remainder: bool = False) -> Callable[[Dataset], Dataset]:  # fmt: skip
    """``dataset.apply(bucket_by_sequence_length(...))`` is ``dataset.bucket_by_sequence_length(...)``.

    Parameters
    ----------
    element_length_func : callable
        Element -> int scalar length.
    bucket_boundaries : list of int
        Increasing bucket upper bounds.
    bucket_batch_sizes : list of int
        One batch size per bucket.
    padded_shapes, padding_values
        As for ``padded_batch``.
    pad_to_bucket_boundary, no_padding, drop_remainder : bool
        As for ``Dataset.bucket_by_sequence_length``.

    Returns
    -------
    callable
        A transformation for ``Dataset.apply``.
    """
    return lambda dataset: dataset.bucket_by_sequence_length(
        element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes, padding_values,
        pad_to_bucket_boundary, no_padding, drop_remainder,
    )  # fmt: skip


def rejection_resample(class_func: Callable[..., Any], target_dist: Any, initial_dist: Any = None,
                       seed: int | None = None) -> Callable[[Dataset], Dataset]:  # fmt: skip
    """``dataset.apply(rejection_resample(...))`` is ``dataset.rejection_resample(...)``.

    Parameters
    ----------
    class_func : callable
        Element -> integer scalar class.
    target_dist : list or Tensor
        The wanted class probabilities.
    initial_dist : list or Tensor, optional
        The input's class probabilities.
    seed : int, optional
        The random seed.

    Returns
    -------
    callable
        A transformation for ``Dataset.apply``.
    """
    return lambda dataset: dataset.rejection_resample(class_func, target_dist, initial_dist, seed)


def ignore_errors(log_warning: bool = False) -> Callable[[Dataset], Dataset]:
    """``dataset.apply(ignore_errors())`` is ``dataset.ignore_errors()``.

    Parameters
    ----------
    log_warning : bool, default False
        Log each ignored error.

    Returns
    -------
    callable
        A transformation for ``Dataset.apply``.
    """
    return lambda dataset: dataset.ignore_errors(log_warning)


def save(dataset: Dataset, path: str, compression: str | None = None, shard_func: Any = None,
         checkpoint_args: Any = None) -> None:  # fmt: skip
    """``dataset.save(path, ...)`` (tapers' own on-disk format).

    Parameters
    ----------
    dataset : Dataset
        What to save.
    path : str
        Directory to write.
    compression : {None, 'GZIP'}
        Compress the arrays.
    shard_func, checkpoint_args
        Not supported.

    Returns
    -------
    None
    """
    dataset.save(path, compression, shard_func, checkpoint_args)


def load(path: str, element_spec: Any = None, compression: str | None = None, reader_func: Any = None) -> Dataset:
    """``Dataset.load(path, ...)``.

    Parameters
    ----------
    path : str
        The directory ``save`` wrote.
    element_spec : structure of TensorSpec, optional
        Checked against the saved spec.
    compression : str, optional
        Accepted.
    reader_func
        Not supported.

    Returns
    -------
    Dataset
        The saved elements.
    """
    return Dataset.load(path, element_spec, compression, reader_func)


__all__ = ["AUTOTUNE", "AutoShardPolicy", "AutotuneAlgorithm", "AutotuneOptions", "Counter", "DistributeOptions",
           "ExternalStatePolicy", "INFINITE_CARDINALITY", "OptimizationOptions", "OptionsBase", "RandomDataset",
           "ThreadingOptions", "UNKNOWN_CARDINALITY", "bucket_by_sequence_length", "cardinality",
           "choose_from_datasets", "group_by_window", "ignore_errors", "load", "rejection_resample",
           "sample_from_datasets", "save", "scan", "unique"]  # fmt: skip
