"""``keras.utils``: Keras 3's utilities over tapers.

* Arrays: :func:`to_categorical`, :func:`normalize` and :func:`pad_sequences` follow Keras exactly,
  NumPy in and NumPy out (``to_categorical`` of a NumPy array is float64, as in Keras); a tapers
  tensor goes through tapers ops (float32 one-hot, differentiable normalization).
* Data: :func:`timeseries_dataset_from_array` and :func:`split_dataset` return
  ``tapers.data.Dataset``\\ s; :class:`PyDataset` (``Sequence``) is a base class ``Model.fit`` iterates.
* Serialization: :func:`register_keras_serializable`, :func:`get_custom_objects`,
  :class:`CustomObjectScope`, :func:`serialize_keras_object` and :func:`deserialize_keras_object`
  use Keras 3's dict format (``module``, ``class_name``, ``config``, ``registered_name``), with
  ``keras.*`` modules resolved to ``tapers.keras``.
"""

from __future__ import annotations

import inspect
import random as _py_random
import threading
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .. import _core
from .. import random as _tapers_random
from ..data import Dataset
from ..dtypes import DType
from . import backend as _backend
from .backend import clear_session, is_keras_tensor, standardize_dtype
from .callbacks import Progbar
from .config import disable_interactive_logging, enable_interactive_logging, is_interactive_logging_enabled

__all__ = [
    "CustomObjectScope", "Progbar", "PyDataset", "Sequence", "clear_session", "custom_object_scope",
    "deserialize_keras_object", "get_custom_objects", "get_registered_name", "get_registered_object", "img_to_array",
    "is_keras_tensor", "model_to_dot", "normalize", "pack_x_y_sample_weight", "pad_sequences", "plot_model",
    "register_keras_serializable", "serialize_keras_object", "set_random_seed", "split_dataset", "standardize_dtype",
    "timeseries_dataset_from_array", "to_categorical", "unpack_x_y_sample_weight",
    "disable_interactive_logging", "enable_interactive_logging", "is_interactive_logging_enabled",
]  # fmt: skip

Tensor = _core.Tensor
Variable = _core.Variable


def _is_tensor(x: Any) -> bool:
    return isinstance(x, (Tensor, Variable))


# ----------------------------------------------------------------------------- arrays


def to_categorical(x: Any, num_classes: int | None = None) -> Any:
    """Converts a class vector (integers) to a one-hot matrix (``keras.utils.to_categorical``).

    Parameters
    ----------
    x : array-like or Tensor
        Class indices, ``0`` to ``num_classes - 1``. A trailing axis of size 1 is dropped
        (``(n, 1)`` gives ``(n, num_classes)``).
    num_classes : int, optional
        Number of classes; ``max(x) + 1`` when omitted (NumPy input only).

    Returns
    -------
    numpy.ndarray or Tensor
        For array-like input, a float64 NumPy array of shape ``x.shape + (num_classes,)`` (Keras
        3's dtype). For a tapers tensor, a float32 tensor from ``tapers.one_hot`` (a negative index
        gives a row of zeros, as in Keras' TensorFlow backend).

    Raises
    ------
    ValueError
        For a tensor without ``num_classes``.
    IndexError
        For NumPy input with an index ``>= num_classes`` (NumPy's error, as in Keras).
    """
    if _is_tensor(x):
        if not num_classes:
            raise ValueError(
                f"to_categorical of a tensor needs `num_classes` (got num_classes={num_classes}); "
                "pass it, or convert the labels to a NumPy array first"
            )
        t = x.value() if isinstance(x, Variable) else x
        shape = list(t.shape)
        if len(shape) > 1 and shape[-1] == 1:
            t = _core.reshape(t, [-1 if d is None else d for d in shape[:-1]])
        return _core.one_hot(_core.cast(t, "int64"), int(num_classes), dtype="float32")
    a = np.array(x, dtype="int64")
    input_shape = a.shape
    if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
        input_shape = tuple(input_shape[:-1])
    a = a.reshape(-1)
    if not num_classes:
        if a.size == 0:
            raise ValueError("to_categorical of an empty array needs `num_classes`")
        num_classes = int(np.max(a)) + 1
    categorical = np.zeros((a.shape[0], int(num_classes)))
    categorical[np.arange(a.shape[0]), a] = 1
    return np.reshape(categorical, (*input_shape, int(num_classes)))


def normalize(x: Any, axis: int = -1, order: int = 2) -> Any:
    """Normalizes an array along one axis (``keras.utils.normalize``).

    Parameters
    ----------
    x : numpy.ndarray or Tensor
        The array.
    axis : int, default -1
        The axis along which to normalize.
    order : int, default 2
        The norm's order (``2``: L2).

    Returns
    -------
    numpy.ndarray or Tensor
        A NumPy array for NumPy input (``x / norm``, a zero norm taken as 1; dtype kept). Anything
        else is converted to a tensor and normalized with tapers ops, Keras'
        ``ops.nn.normalize``: ``x * min(rsqrt(sum(x**2)), 1/eps)`` for ``order=2``, else
        ``x / max(norm, eps)`` (``eps`` is ``keras.backend.epsilon()``, 1e-7); gradients flow.

    Raises
    ------
    ValueError
        For a tensor with ``order`` not an int ``>= 1`` (Keras' check).

    Notes
    -----
    Differences from Keras: for NumPy input Keras computes the norm along ``axis`` but divides by it
    expanded on the last axis when ``axis=0`` (``axis or -1``), which is wrong or raises; tapers
    expands it on ``axis``.
    """
    if isinstance(x, np.ndarray):
        norm = np.atleast_1d(np.linalg.norm(x, order, axis))
        norm[norm == 0] = 1
        return x / np.expand_dims(norm, axis)
    if not isinstance(order, int) or isinstance(order, bool) or order < 1:
        raise ValueError(f"Argument `order` must be an int >= 1. Received: order={order}")
    t = x.value() if isinstance(x, Variable) else _core.convert_to_tensor(x)
    if len(t.shape) == 0:
        t = _core.expand_dims(t, 0)
    eps = float(_backend.epsilon())
    if order == 2:
        inv = _core.math.rsqrt(_core.reduce_sum(_core.square(t), axis=axis, keepdims=True))
        return t * _core.minimum(inv, _core.cast(1.0 / eps, t.dtype))
    tnorm = _core.norm(t, ord=order, axis=axis, keepdims=True)
    return t / _core.maximum(tnorm, _core.cast(eps, t.dtype))


def pad_sequences(
    sequences: Any,
    maxlen: int | None = None,
    dtype: Any = "int32",
    padding: str = "pre",
    truncating: str = "pre",
    value: Any = 0.0,
) -> np.ndarray:
    """Pads sequences to one length (``keras.utils.pad_sequences``).

    Parameters
    ----------
    sequences : list of sequences
        Each a list or array of timesteps (scalars, or arrays of one shape).
    maxlen : int, optional
        The output length; the longest sequence's when omitted.
    dtype : str or dtype, default "int32"
        The output dtype (``object`` for variable-length strings).
    padding : {"pre", "post"}
        Where to pad.
    truncating : {"pre", "post"}
        Where to cut sequences longer than ``maxlen``.
    value : float or str, default 0.0
        The padding value.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(sequences), maxlen) + sample_shape``.

    Raises
    ------
    ValueError
        Keras' errors: ``sequences`` or an element not iterable, an unknown ``padding`` or
        ``truncating``, a string ``value`` with a non-string ``dtype``, samples of different shapes.
    """
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    num_samples = len(sequences)
    lengths = []
    sample_shape: tuple[int, ...] = ()
    flag = True
    for s in sequences:
        try:
            lengths.append(len(s))
            if flag and len(s):
                sample_shape = np.asarray(s).shape[1:]
                flag = False
        except TypeError as e:
            raise ValueError(f"`sequences` must be a list of iterables. Found non-iterable: {s}") from e
    if maxlen is None:
        maxlen = int(np.max(lengths)) if lengths else 0
    is_dtype_str = np.issubdtype(dtype, np.str_) or np.issubdtype(dtype, np.bytes_)
    if isinstance(value, str) and dtype is not object and not is_dtype_str:
        raise ValueError(
            f"`dtype` {dtype} is not compatible with `value`'s type: {type(value)}\n"
            "You should set `dtype=object` for variable length strings."
        )
    out = np.full((num_samples, maxlen, *sample_shape), value, dtype=dtype)
    for idx, s in enumerate(sequences):
        if not len(s):
            continue
        if truncating == "pre":
            trunc = s[-maxlen:] if maxlen else s[:0]
        elif truncating == "post":
            trunc = s[:maxlen]
        else:
            raise ValueError(f'Truncating type "{truncating}" not understood')
        trunc = np.asarray(trunc, dtype=dtype)
        if trunc.shape[1:] != sample_shape:
            raise ValueError(
                f"Shape of sample {trunc.shape[1:]} of sequence at position {idx} is different from expected "
                f"shape {sample_shape}"
            )
        if padding == "post":
            out[idx, : len(trunc)] = trunc
        elif padding == "pre":
            if len(trunc):
                out[idx, -len(trunc) :] = trunc
        else:
            raise ValueError(f'Padding type "{padding}" not understood')
    return out


def img_to_array(img: Any, data_format: str | None = None, dtype: Any = None) -> np.ndarray:
    """An image (array-like, tensor or PIL image) as a 3-D NumPy array (``keras.utils.img_to_array``).

    Parameters
    ----------
    img : array-like
        A ``(height, width)`` or ``(height, width, channels)`` image; anything ``numpy.asarray`` reads.
    data_format : {"channels_last", "channels_first"}, optional
        Layout of the result; ``keras.backend.image_data_format()`` by default.
    dtype : str or dtype, optional
        The result's dtype; ``keras.backend.floatx()`` by default.

    Returns
    -------
    numpy.ndarray
        ``(height, width, channels)`` (or ``(channels, height, width)``); a 2-D image gets one channel.

    Raises
    ------
    ValueError
        For another ``data_format``, or an image that is not 2-D or 3-D (Keras' messages).
    """
    fmt = _backend.image_data_format() if data_format is None else str(data_format).lower()
    if fmt not in ("channels_first", "channels_last"):
        raise ValueError(
            f"The `data_format` argument must be one of {{'channels_first', 'channels_last'}}. "
            f"Received: data_format={data_format}"
        )
    a = np.asarray(img.numpy() if _is_tensor(img) else img, dtype=_backend.floatx() if dtype is None else dtype)
    if a.ndim == 3:
        return a.transpose(2, 0, 1) if fmt == "channels_first" else a
    if a.ndim == 2:
        return a.reshape((1, *a.shape)) if fmt == "channels_first" else a.reshape((*a.shape, 1))
    raise ValueError(f"Unsupported image shape: {a.shape}")


# ----------------------------------------------------------------------------- seeds and batches


def set_random_seed(seed: int) -> None:
    """Seeds Python's ``random``, NumPy's global generator and tapers' (``keras.utils.set_random_seed``).

    Parameters
    ----------
    seed : int
        The seed.

    Raises
    ------
    ValueError
        When ``seed`` is not an int (Keras' check and message).

    Notes
    -----
    Python's and NumPy's draws then match Keras' exactly; tapers' own streams
    (``tapers.random.set_seed``) are reproducible but differ from TensorFlow's numbers.
    """
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed} (of type {type(seed)})")
    _py_random.seed(seed)
    np.random.seed(seed)
    _tapers_random.set_seed(seed)


def pack_x_y_sample_weight(x: Any, y: Any = None, sample_weight: Any = None) -> Any:
    """Packs user data into a batch (``keras.utils.pack_x_y_sample_weight``).

    Parameters
    ----------
    x : object
        Features.
    y : object, optional
        Targets.
    sample_weight : object, optional
        Sample weights.

    Returns
    -------
    object or tuple
        ``x`` alone (``(x,)`` when ``x`` is itself a tuple or list), ``(x, y)`` or
        ``(x, y, sample_weight)``.
    """
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def unpack_x_y_sample_weight(data: Any) -> tuple[Any, Any, Any]:
    """Unpacks a batch into ``(x, y, sample_weight)`` (``keras.utils.unpack_x_y_sample_weight``).

    Parameters
    ----------
    data : object
        ``x``, or a tuple or list of 1 to 3 items.

    Returns
    -------
    tuple
        ``(x, y, sample_weight)``, missing items as ``None``.

    Raises
    ------
    ValueError
        For a tuple or list of more than 3 items (Keras' message).
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return (data, None, None)
    if len(data) == 1:
        return (data[0], None, None)
    if len(data) == 2:
        return (data[0], data[1], None)
    if len(data) == 3:
        return (data[0], data[1], data[2])
    raise ValueError(
        f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, found: {data}"
    )


# ----------------------------------------------------------------------------- datasets


def _as_tensor(x: Any) -> Any:
    if isinstance(x, Variable):
        return x.value()
    return x if isinstance(x, Tensor) else _core.convert_to_tensor(np.asarray(x))


def _length(data: Any) -> int:
    if _is_tensor(data):
        return int(data.shape[0])
    return len(data)


def timeseries_dataset_from_array(
    data: Any,
    targets: Any,
    sequence_length: int,
    sequence_stride: int = 1,
    sampling_rate: int = 1,
    batch_size: int | None = 128,
    shuffle: bool = False,
    seed: int | None = None,
    start_index: int | None = None,
    end_index: int | None = None,
    format: str = "tf",  # noqa: A002
) -> Dataset:
    """Sliding windows over a timeseries (``keras.utils.timeseries_dataset_from_array``).

    Parameters
    ----------
    data : array-like or Tensor
        Timesteps along axis 0.
    targets : array-like or Tensor or None
        ``targets[i]`` is the target of the window starting at ``i``; ``None`` yields windows only.
    sequence_length : int
        Timesteps per window.
    sequence_stride : int, default 1
        Steps between the starts of successive windows.
    sampling_rate : int, default 1
        Steps between successive timesteps within a window.
    batch_size : int or None, default 128
        Windows per batch; ``None`` yields single windows.
    shuffle : bool, default False
        Shuffle the windows.
    seed : int, optional
        The shuffling seed.
    start_index, end_index : int, optional
        Only timesteps in ``[start_index, end_index)`` are used.
    format : {"tf"}
        Only ``"tf"`` (a ``tapers.data.Dataset``); ``"grain"`` raises.

    Returns
    -------
    tapers.data.Dataset
        Of ``(windows, targets)`` or of windows: windows are ``tapers.gather`` of ``data`` (dtype
        kept), shape ``(batch, sequence_length) + data.shape[1:]``, gathered batch by batch as the
        dataset is iterated (the windows are never all held at once).

    Raises
    ------
    ValueError
        Keras' checks on ``start_index``, ``end_index``, ``sampling_rate``, ``sequence_stride`` and
        ``format``.

    Notes
    -----
    The window starts are shuffled with ``numpy.random.RandomState(seed)`` as in Keras, then (as
    Keras) batches are drawn through a ``Dataset.shuffle`` buffer of ``8 * batch_size``: that second
    shuffle is tapers' stream, so a shuffled order differs from Keras' (the windows are the same).
    """
    n = _length(data)
    if start_index:
        if start_index < 0:
            raise ValueError(f"`start_index` must be 0 or greater. Received: start_index={start_index}")
        if start_index >= n:
            raise ValueError(
                f"`start_index` must be lower than the length of the data. Received: start_index={start_index}, "
                f"for data of length {n}"
            )
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError(
                "`end_index` must be higher than `start_index`. "
                f"Received: start_index={start_index}, and end_index={end_index} "
            )
        if end_index >= n:
            raise ValueError(
                f"`end_index` must be lower than the length of the data. Received: end_index={end_index}, "
                f"for data of length {n}"
            )
        if end_index <= 0:
            raise ValueError(f"`end_index` must be higher than 0. Received: end_index={end_index}")
    if sampling_rate <= 0:
        raise ValueError(f"`sampling_rate` must be higher than 0. Received: sampling_rate={sampling_rate}")
    if sampling_rate >= n:
        raise ValueError(
            f"`sampling_rate` must be lower than the length of the data. Received: sampling_rate={sampling_rate}, "
            f"for data of length {n}"
        )
    if sequence_stride <= 0:
        raise ValueError(f"`sequence_stride` must be higher than 0. Received: sequence_stride={sequence_stride}")
    if sequence_stride >= n:
        raise ValueError(
            "`sequence_stride` must be lower than the length of the data. "
            f"Received: sequence_stride={sequence_stride}, for data of length {n}"
        )
    if format != "tf":
        if format == "grain":
            raise ValueError('tapers: `format="grain"` is not supported; use format="tf" (a tapers.data.Dataset)')
        raise ValueError(f'`format` should be either "tf" or "grain". Received: format={format}')
    start = 0 if start_index is None else int(start_index)
    end = n if end_index is None else int(end_index)
    num_seqs = end - start - (int(sequence_length) - 1) * int(sampling_rate)
    if targets is not None:
        num_seqs = min(num_seqs, _length(targets))
    starts = np.arange(0, max(num_seqs, 0), sequence_stride, dtype=np.int32 if num_seqs < 2**31 - 1 else np.int64)
    if shuffle:
        if seed is None:
            seed = np.random.randint(int(1e6))
        np.random.RandomState(seed).shuffle(starts)
    window = np.arange(0, int(sequence_length) * int(sampling_rate), int(sampling_rate), dtype=np.int64)
    values = _as_tensor(data)
    tvals = None if targets is None else _as_tensor(targets)
    offsets = _core.constant(window + start)
    first = start

    def take(s: Any) -> Any:
        # Windows are gathered per element (or per batch of starts), never all at once.
        w = _core.gather(values, _core.expand_dims(s, -1) + offsets)
        return w if tvals is None else (w, _core.gather(tvals, s + first))

    ds = Dataset.from_tensor_slices(_core.constant(starts.astype(np.int64)))
    if batch_size is not None:
        if shuffle:
            ds = ds.shuffle(buffer_size=batch_size * 8, seed=seed)
        ds = ds.batch(batch_size)
    elif shuffle:
        ds = ds.shuffle(buffer_size=1024, seed=seed)
    return ds.map(take)


def _rescale_split_sizes(left_size: Any, right_size: Any, total: int) -> tuple[int, int]:
    lt, rt = type(left_size), type(right_size)
    if (left_size is not None and lt not in (int, float)) and (right_size is not None and rt not in (int, float)):
        raise TypeError(
            "Invalid `left_size` and `right_size` Types. Expected: integer or float or None, "
            f"Received: type(left_size)={lt} and type(right_size)={rt}"
        )
    if left_size is not None and lt not in (int, float):
        raise TypeError(f"Invalid `left_size` Type. Expected: int or float or None, Received: type(left_size)={lt}.")
    if right_size is not None and rt not in (int, float):
        raise TypeError(f"Invalid `right_size` Type. Expected: int or float or None, Received: type(right_size)={rt}.")
    if left_size == 0 and right_size == 0:
        raise ValueError(
            "Both `left_size` and `right_size` are zero. At least one of the split sizes must be non-zero."
        )
    if (lt is int and (left_size <= 0 or left_size >= total)) or (lt is float and (left_size <= 0 or left_size >= 1)):
        raise ValueError(
            f"`left_size` should be either a positive integer smaller than {total}, or a float within the range "
            f"`[0, 1]`. Received: left_size={left_size}"
        )
    if (rt is int and (right_size <= 0 or right_size >= total)) or (
        rt is float and (right_size <= 0 or right_size >= 1)
    ):
        raise ValueError(
            f"`right_size` should be either a positive integer and smaller than {total} or a float within the "
            f"range `[0, 1]`. Received: right_size={right_size}"
        )
    if rt is lt is float and right_size + left_size > 1:
        raise ValueError(
            "The sum of `left_size` and `right_size` is greater than 1. It must be less than or equal to 1."
        )
    left = None if left_size is None else (round(left_size * total) if lt is float else float(left_size))
    right = None if right_size is None else (round(right_size * total) if rt is float else float(right_size))
    if left is None:
        left = total - (right or 0)
    elif right is None:
        right = total - left
    assert right is not None
    if left + right > total:
        raise ValueError(
            f"The sum of `left_size` and `right_size` should be smaller than the {total}. "
            f"Received: left_size + right_size = {left + right} and total_length = {total}"
        )
    for split, side in ((left, "left"), (right, "right")):
        if split == 0:
            raise ValueError(
                f"With `dataset` of length={total}, `left_size`={left} and `right_size`={right}. Resulting {side} "
                "side dataset split will be empty. Adjust any of the aforementioned parameters"
            )
    return int(left), int(right)


def split_dataset(
    dataset: Any,
    left_size: int | float | None = None,
    right_size: int | float | None = None,
    shuffle: bool = False,
    seed: int | None = None,
    preferred_backend: str | None = None,
) -> tuple[Dataset, Dataset]:
    """Splits a dataset into a left and a right part (``keras.utils.split_dataset``).

    Parameters
    ----------
    dataset : numpy.ndarray, tuple or list of arrays, or tapers.data.Dataset
        The samples (rows of arrays, or a dataset's elements; a batched dataset is unbatched and
        both parts are re-batched with its batch size).
    left_size, right_size : int or float, optional
        A count, or a fraction in ``(0, 1)``; at least one is required, the other is the rest.
    shuffle : bool, default False
        Shuffle before splitting, with Python's ``random.seed(seed)`` (Keras' generator, so
        the same split as Keras).
    seed : int, optional
        The shuffling seed.
    preferred_backend : str, optional
        Only ``None`` or ``"tensorflow"``.

    Returns
    -------
    tuple of tapers.data.Dataset
        ``(left, right)``: the first ``left_size`` and the last ``right_size`` samples.

    Raises
    ------
    TypeError
        For another kind of ``dataset`` or a size that is not an int, float or None.
    ValueError
        For missing, out-of-range or overlapping sizes, and arrays of different lengths.
    """
    if preferred_backend not in (None, "tensorflow"):
        raise ValueError(
            f"tapers: split_dataset only supports preferred_backend='tensorflow', got {preferred_backend!r}"
        )
    batch: int | None = None
    if isinstance(dataset, np.ndarray):
        samples: list[Any] = list(dataset)
        kind = "array"
    elif isinstance(dataset, (tuple, list)):
        if len(dataset) == 0:
            raise ValueError("Received an empty list dataset. Please provide a non-empty list of arrays.")
        arrays = [np.asarray(a.numpy() if _is_tensor(a) else a) if _is_tensor(a) or isinstance(a, np.ndarray) else a
                  for a in dataset]  # fmt: skip
        for i, a in enumerate(arrays):
            if not isinstance(a, np.ndarray):
                raise ValueError(f"Expected a list of `numpy.ndarray` objects, Received: {type(a)} at index {i}.")
            if a.shape[0] != arrays[0].shape[0]:
                raise ValueError(
                    f"Received a list of NumPy arrays with different lengths. Mismatch found at index {i}, "
                    f"Expected shape={arrays[0].shape} Received shape={a.shape}. Please provide a list of NumPy "
                    "arrays of the same length."
                )
        samples = list(zip(*arrays))
        kind = "tuple"
    elif isinstance(dataset, Dataset):
        batch = getattr(dataset, "_batch_size", None)
        source = dataset.unbatch() if batch is not None else dataset
        samples = list(source.as_numpy_iterator())
        kind = "dataset"
    else:
        raise TypeError(
            "The `dataset` argument must be either a `tf.data.Dataset` object, or a list/tuple of arrays. "
            f"Received: dataset={dataset} of type {type(dataset)}"
        )
    if right_size is None and left_size is None:
        raise ValueError(
            "At least one of the `left_size` or `right_size` must be specified. Received: left_size=None and "
            "right_size=None"
        )
    if shuffle:
        if seed is None:
            seed = _py_random.randint(0, int(1e6))
        _py_random.seed(seed)
        _py_random.shuffle(samples)
    total = len(samples)
    left, right = _rescale_split_sizes(left_size, right_size, total)

    def restore(part: list[Any]) -> Dataset:
        if kind == "array":
            ds = Dataset.from_tensor_slices(np.stack(part))
        else:
            first = part[0]
            if isinstance(first, (tuple, list)):
                ds = Dataset.from_tensor_slices(tuple(np.stack([s[i] for s in part]) for i in range(len(first))))
            elif isinstance(first, dict):
                ds = Dataset.from_tensor_slices({k: np.stack([s[k] for s in part]) for k in first})
            else:
                ds = Dataset.from_tensor_slices(np.stack(part))
        return ds.batch(batch) if batch is not None else ds

    return restore(samples[:left]), restore(samples[-right:])


class PyDataset:
    """Base class of Python data sources that ``Model.fit`` iterates (``keras.utils.PyDataset``).

    Subclasses implement ``__getitem__(index)`` returning a batch (``x``, ``(x, y)`` or
    ``(x, y, sample_weight)``) and ``__len__`` (the number of batches), and may override
    ``on_epoch_begin``/``on_epoch_end``.

    Parameters
    ----------
    workers : int, default 1
        Accepted for Keras compatibility; batches are produced in order in the calling thread.
    use_multiprocessing : bool, default False
        ``True`` raises ``NotImplementedError``.
    max_queue_size : int, default 10
        Accepted for Keras compatibility.

    Notes
    -----
    Iterating yields ``self[0] .. self[len(self) - 1]``, calling ``on_epoch_begin`` first and
    ``on_epoch_end`` once a pass completes (``fit`` iterates once per epoch, so the hooks run per
    epoch as in Keras; with ``steps_per_epoch`` smaller than the length a pass spans epochs).
    """

    def __init__(self, workers: int = 1, use_multiprocessing: bool = False, max_queue_size: int = 10) -> None:
        if use_multiprocessing:
            raise NotImplementedError("tapers: PyDataset(use_multiprocessing=True) is not supported")
        self._workers = int(workers)
        self._use_multiprocessing = bool(use_multiprocessing)
        self._max_queue_size = int(max_queue_size)

    def _warn_if_super_not_called(self) -> None:
        """Keras' check: a no-op here (every attribute has a default)."""

    @property
    def workers(self) -> int:
        """Number of workers (accepted, not used).

        Returns
        -------
        int
            The ``workers`` given.
        """
        return getattr(self, "_workers", 1)

    @workers.setter
    def workers(self, value: int) -> None:
        self._workers = int(value)

    @property
    def use_multiprocessing(self) -> bool:
        """Whether multiprocessing was requested (always ``False``).

        Returns
        -------
        bool
            ``False``.
        """
        return getattr(self, "_use_multiprocessing", False)

    @property
    def max_queue_size(self) -> int:
        """Queue size (accepted, not used).

        Returns
        -------
        int
            The ``max_queue_size`` given.
        """
        return getattr(self, "_max_queue_size", 10)

    def __getitem__(self, index: int) -> Any:
        """Batch number ``index``.

        Parameters
        ----------
        index : int
            Position of the batch, ``0 <= index < len(self)``.

        Returns
        -------
        object
            The batch.

        Raises
        ------
        NotImplementedError
            Subclasses implement it.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement `__getitem__(index)`")

    def __len__(self) -> int:
        """Number of batches; subclasses implement it (or ``num_batches``).

        Returns
        -------
        int
            The number of batches.

        Raises
        ------
        NotImplementedError
            When neither ``__len__`` nor ``num_batches`` is overridden.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement `__len__()` or the `num_batches` property")

    @property
    def num_batches(self) -> int | None:
        """Number of batches (``len(self)``); ``None`` means unbounded.

        Returns
        -------
        int or None
            The count.
        """
        if type(self).__len__ is PyDataset.__len__:
            return None
        return len(self)

    def on_epoch_begin(self) -> None:
        """Called before each pass; override it."""

    def on_epoch_end(self) -> None:
        """Called after each complete pass; override it (to reshuffle, say)."""

    def __iter__(self) -> Iterator[Any]:
        """One pass over the batches, in order.

        Returns
        -------
        iterator
            ``self[0]``, ``self[1]``, ... (forever when ``num_batches`` is ``None``).
        """
        n = self.num_batches
        if n is None and type(self).__len__ is PyDataset.__len__:
            raise NotImplementedError(f"{type(self).__name__} must implement `__len__()` or the `num_batches` property")
        self.on_epoch_begin()
        i = 0
        while n is None or i < n:
            yield self[i]
            i += 1
        self.on_epoch_end()


Sequence = PyDataset


# ----------------------------------------------------------------------------- custom objects

_GLOBAL_CUSTOM_OBJECTS: dict[str, Any] = {}
_GLOBAL_CUSTOM_NAMES: dict[Any, str] = {}
_scope = threading.local()


def _scope_dict() -> dict[str, Any]:
    d: dict[str, Any] | None = getattr(_scope, "objects", None)
    return {} if d is None else d


def _visible_custom_objects(custom_objects: dict[str, Any] | None = None) -> dict[str, Any]:
    """Everything deserialization should see, in Keras' precedence: ``custom_objects``, then the
    active scope, then the global registry (the later wins, as in ``deserialize_keras_object``).
    ``_lookup``, ``layers.deserialize``, the RNN wrappers and ``activations.deserialize`` consult it."""
    return {**(custom_objects or {}), **_scope_dict(), **_GLOBAL_CUSTOM_OBJECTS}


class CustomObjectScope:
    """Makes custom objects visible to deserialization inside a ``with`` block (``keras.utils.custom_object_scope``).

    Parameters
    ----------
    custom_objects : dict
        ``{name: object}``; within the block it replaces the enclosing scope's dict (as Keras).

    Notes
    -----
    The scope is per thread. The per-module ``deserialize``/``get`` functions
    (``keras.losses.deserialize``, ``keras.layers.deserialize`` and the like) and
    :func:`deserialize_keras_object` consult it and the registry.
    """

    def __init__(self, custom_objects: dict[str, Any] | None) -> None:
        self.custom_objects = dict(custom_objects or {})
        self.backup: dict[str, Any] | None = None

    def __enter__(self) -> CustomObjectScope:
        """Installs the scope.

        Returns
        -------
        CustomObjectScope
            ``self``.
        """
        self.backup = _scope_dict().copy()
        _scope.objects = self.custom_objects.copy()
        return self

    def __exit__(self, *args: Any) -> None:
        """Restores the enclosing scope.

        Parameters
        ----------
        *args : object
            The exception triple (ignored).
        """
        _scope.objects = (self.backup or {}).copy()


custom_object_scope = CustomObjectScope


def get_custom_objects() -> dict[str, Any]:
    """The live global dict of custom objects (``keras.utils.get_custom_objects``).

    Returns
    -------
    dict
        ``{name: object}``; :func:`register_keras_serializable` adds ``"package>name"`` entries,
        and entries set by hand are found by :func:`deserialize_keras_object` too.
    """
    return _GLOBAL_CUSTOM_OBJECTS


def register_keras_serializable(package: str = "Custom", name: str | None = None) -> Callable[[Any], Any]:
    """A decorator registering a class or function as ``"package>name"`` (``keras.utils.register_keras_serializable``).

    Parameters
    ----------
    package : str, default "Custom"
        The package part of the key.
    name : str, optional
        The name part; the object's ``__name__`` by default.

    Returns
    -------
    callable
        The decorator, which returns its argument unchanged.

    Raises
    ------
    ValueError
        (From the decorator) for a class without ``get_config``.
    """

    def decorator(arg: Any) -> Any:
        class_name = name if name is not None else arg.__name__
        registered = f"{package}>{class_name}"
        if inspect.isclass(arg) and not hasattr(arg, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() method.")
        _GLOBAL_CUSTOM_OBJECTS[registered] = arg
        _GLOBAL_CUSTOM_NAMES[arg] = registered
        return arg

    return decorator


def get_registered_name(obj: Any) -> str:
    """The name ``obj`` is registered under, else its ``__name__`` (``keras.utils.get_registered_name``).

    Parameters
    ----------
    obj : class or function
        The object.

    Returns
    -------
    str
        ``"package>name"`` or ``obj.__name__``.
    """
    try:
        if obj in _GLOBAL_CUSTOM_NAMES:
            return _GLOBAL_CUSTOM_NAMES[obj]
    except TypeError:  # unhashable
        pass
    return str(obj.__name__)


def get_registered_object(
    name: str, custom_objects: dict[str, Any] | None = None, module_objects: dict[str, Any] | None = None
) -> Any:
    """The object registered as ``name`` (``keras.utils.get_registered_object``).

    Parameters
    ----------
    name : str
        The name to look up.
    custom_objects : dict, optional
        Consulted after the scope and the global registry.
    module_objects : dict, optional
        Consulted last.

    Returns
    -------
    object or None
        The first match in the active :class:`CustomObjectScope`, the global dict,
        ``custom_objects`` and ``module_objects``, else ``None``.
    """
    scoped = _scope_dict()
    if name in scoped:
        return scoped[name]
    if name in _GLOBAL_CUSTOM_OBJECTS:
        return _GLOBAL_CUSTOM_OBJECTS[name]
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if module_objects and name in module_objects:
        return module_objects[name]
    return None


# ----------------------------------------------------------------------------- serialization

_BUILTIN_MODULES = ("activations", "constraints", "initializers", "losses", "metrics", "optimizers", "regularizers")
_PUBLIC_MODULES = ("layers", *_BUILTIN_MODULES)


def _keras_module(suffix: str) -> Any:
    from .. import keras as k

    return k if suffix == "" else getattr(k, suffix, None)


def _public_name(obj: Any) -> tuple[str, str] | None:
    """Keras' public path of a tapers.keras class: ``("keras.layers", "Dense")``, or ``None``."""
    name = getattr(obj, "__name__", None)
    if not isinstance(name, str):
        return None
    top = _keras_module("")
    if name in ("Model", "Sequential", "Layer", "Input", "Functional") and getattr(top, name, None) is obj:
        return ("keras", name)
    for mod in _PUBLIC_MODULES:
        m = _keras_module(mod)
        if m is not None and getattr(m, name, None) is obj:
            return (f"keras.{mod}", name)
    if getattr(top, name, None) is obj:
        return ("keras", name)
    return None


def _serialize_dict(obj: dict[Any, Any]) -> dict[Any, Any]:
    return {k: serialize_keras_object(v) for k, v in obj.items()}


def serialize_keras_object(obj: Any) -> Any:
    """Keras 3's JSON-ready form of an object (``keras.utils.serialize_keras_object``).

    Parameters
    ----------
    obj : object
        ``None``, a plain value, a list/tuple/dict of such, bytes, a slice, ``Ellipsis``, a tensor
        or NumPy value, a dtype, a function, or an object with ``get_config``.

    Returns
    -------
    object
        Plain values as is; containers element-wise; an object as
        ``{"module", "class_name", "config", "registered_name"}`` (``module`` is Keras' public one,
        such as ``"keras.layers"``, for tapers.keras classes, the defining module otherwise); a
        function as ``{"module": "builtins", "class_name": "function", "config": name, ...}``.

    Raises
    ------
    TypeError
        For an object without ``get_config`` or ``__name__``, or a ``get_config`` not returning a dict.
    NotImplementedError
        For a ``lambda`` (Keras stores its bytecode; tapers does not).
    """
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if isinstance(obj, (list, tuple)):
        items = [serialize_keras_object(x) for x in obj]
        return tuple(items) if isinstance(obj, tuple) else items
    if isinstance(obj, dict):
        return _serialize_dict(obj)
    if isinstance(obj, bytes):
        return {"class_name": "__bytes__", "config": {"value": obj.decode("utf-8")}}
    if isinstance(obj, slice):
        return {
            "class_name": "__slice__",
            "config": {
                "start": serialize_keras_object(obj.start),
                "stop": serialize_keras_object(obj.stop),
                "step": serialize_keras_object(obj.step),
            },
        }
    if obj is Ellipsis:
        return {"class_name": "__ellipsis__", "config": {}}
    if _is_tensor(obj):
        return {"class_name": "__tensor__", "config": {"value": obj.numpy().tolist(), "dtype": obj.dtype.name}}
    if isinstance(obj, (np.ndarray, np.generic)):
        if isinstance(obj, np.ndarray) and obj.ndim > 0:
            return {"class_name": "__numpy__", "config": {"value": obj.tolist(), "dtype": str(obj.dtype)}}
        return obj.item()
    if isinstance(obj, DType):
        return obj.name
    if isinstance(obj, types.FunctionType) and obj.__name__ == "<lambda>":
        raise NotImplementedError("tapers: serializing a `lambda` is not supported; use a named, registered function")
    if callable(obj) and not inspect.isclass(obj) and not hasattr(obj, "get_config") and hasattr(obj, "__name__"):
        return {"module": "builtins", "class_name": "function", "config": get_registered_name(obj),
                "registered_name": "function"}  # fmt: skip
    if hasattr(obj, "get_config"):
        config = obj.get_config()
        if not isinstance(config, dict):
            raise TypeError(f"The `get_config()` method of {obj} should return a dict. It returned: {config}")
        inner: Any = _serialize_dict(config)
    elif hasattr(obj, "__name__"):
        inner = get_registered_name(obj)
    else:
        raise TypeError(
            f"Cannot serialize object {obj} of type {type(obj)}. To be serializable, a class must implement the "
            "`get_config()` method."
        )
    cls = type(obj)
    public = _public_name(cls)
    out: dict[str, Any]
    if public is not None:
        out = {"module": public[0], "class_name": public[1], "config": inner, "registered_name": None}
    else:
        module = cls.__module__
        out = {"module": None if module == "__main__" else module, "class_name": cls.__name__, "config": inner,
               "registered_name": get_registered_name(cls)}  # fmt: skip
    build = getattr(obj, "get_build_config", None)
    if callable(build):
        bc = build()
        if bc is not None:
            out["build_config"] = _serialize_dict(bc)
    compile_cfg = getattr(obj, "get_compile_config", None)
    if callable(compile_cfg):
        cc = compile_cfg()
        if cc is not None:
            out["compile_config"] = _serialize_dict(cc)
    return out


def _retrieve(name: str, registered_name: Any, module: Any, kind: str, full: Any, custom: dict[str, Any]) -> Any:
    found = get_registered_object(name if kind == "function" else registered_name, custom_objects=custom)
    if found is not None:
        return found
    if isinstance(module, str):
        if module == "keras" or module.startswith("keras."):
            suffix = module[len("keras.") :] if module != "keras" else ""
            if suffix in ("", *_PUBLIC_MODULES, "models"):
                mod = _keras_module(suffix)
                obj = getattr(mod, name, None) if mod is not None else None
                if obj is not None and (suffix != "" or name in ("Model", "Sequential", "Layer", "Input")):
                    return obj
        if kind == "function" and module == "builtins":
            for m in _BUILTIN_MODULES:
                obj = getattr(_keras_module(m), name, None)
                if obj is not None and not inspect.isclass(obj):
                    return obj
            if ">" not in name:
                for key, value in custom.items():
                    if key.endswith(f">{name}"):
                        return value
    raise TypeError(
        f"Could not locate {kind} '{name}'. Make sure custom classes and functions are decorated with "
        "`@keras.saving.register_keras_serializable()`. If they are already decorated, make sure they are all "
        f"imported so that the decorator is run before trying to load them. Full object config: {full}"
    )


def deserialize_keras_object(
    config: Any, custom_objects: dict[str, Any] | None = None, safe_mode: bool = True, **kwargs: Any
) -> Any:
    """Rebuilds an object from :func:`serialize_keras_object`'s form (``keras.utils.deserialize_keras_object``).

    Parameters
    ----------
    config : object
        The serialized form (also a registered or custom object's name).
    custom_objects : dict, optional
        Extra ``{name: object}``; the active :class:`CustomObjectScope` and the global registry
        are consulted too.
    safe_mode : bool, default True
        Accepted for Keras compatibility (tapers never deserializes code).
    **kwargs
        ``module_objects`` (a dict of names to look a bare name or a ``class_name`` up in).

    Returns
    -------
    object
        The object: ``cls.from_config(config["config"])`` for a class (inside a
        :class:`CustomObjectScope` of the custom objects), the function for a function, containers
        element-wise.

    Raises
    ------
    TypeError
        When a class or function cannot be located, or ``config`` cannot be parsed.
    """
    del safe_mode
    module_objects = kwargs.pop("module_objects", None)
    if kwargs:
        raise TypeError(f"deserialize_keras_object got unexpected keyword arguments {sorted(kwargs)}")
    custom = _visible_custom_objects(custom_objects)
    if config is None:
        return None
    if isinstance(config, str) and custom.get(config) is not None:
        return custom[config]
    if isinstance(config, (list, tuple)):
        return [deserialize_keras_object(x, custom_objects=custom) for x in config]
    if module_objects is not None:
        lookup: Any = config
        inner_cfg: Any = None
        if isinstance(config, dict):
            if "class_name" not in config:
                raise ValueError(f"Unknown `config` as a `dict`, config={config}")
            inner_cfg = config.get("config")
            if config["class_name"] in custom or config.get("registered_name") in custom:
                lookup = None
            elif config["class_name"] == "function":
                lookup = config["config"] if config.get("module") == "builtins" else config.get("registered_name")
            else:
                lookup = config["class_name"]
        if lookup is not None:
            if lookup not in module_objects:
                return lookup
            found: Any = module_objects[lookup]
            if inspect.isclass(found):
                made: Any = found  # (not narrowed to `type`, which has no from_config)
                return made.from_config(inner_cfg or {})
            return found
    if isinstance(config, (str, int, float, bool)):
        return config
    if not isinstance(config, dict):
        raise TypeError(f"Could not parse config: {config}")
    if "class_name" not in config or "config" not in config:
        return {k: deserialize_keras_object(v, custom_objects=custom) for k, v in config.items()}
    class_name = config["class_name"]
    inner = config["config"] if config["config"] is not None else {}
    if class_name == "__tensor__":
        return _core.constant(np.asarray(inner["value"], dtype=inner["dtype"]))
    if class_name == "__numpy__":
        return np.array(inner["value"], dtype=inner["dtype"])
    if class_name == "__bytes__":
        return inner["value"].encode("utf-8")
    if class_name == "__ellipsis__":
        return Ellipsis
    if class_name == "__slice__":
        return slice(*(deserialize_keras_object(inner[k], custom_objects=custom) for k in ("start", "stop", "step")))
    if class_name in ("__lambda__", "__keras_tensor__", "__typespec__"):
        raise NotImplementedError(f"tapers: deserializing a {class_name!r} entry is not supported")
    module = config.get("module")
    registered_name = config.get("registered_name", class_name)
    if class_name == "function":
        if not isinstance(inner, str):
            raise TypeError(
                f"Expected 'config' to be a non-null str for a function classname,\ninstead got {type(inner)}\n"
                f"Full config: {config}"
            )
        return _retrieve(inner, registered_name, module, "function", config, custom)
    if not isinstance(inner, dict):
        raise TypeError(
            f"Expected 'config' to be a dict for {class_name},\ninstead got {type(inner)}\nFull config: {config}"
        )
    if module is None and get_registered_object(str(registered_name), custom_objects=custom) is None:
        raise TypeError(
            f"Cannot deserialize object of type `{class_name}`. If `{class_name}` is a custom class, please register "
            "it using the `@keras.saving.register_keras_serializable()` decorator."
        )
    cls = _retrieve(class_name, registered_name, module, "class", config, custom)
    if isinstance(cls, types.FunctionType):
        return cls
    if not hasattr(cls, "from_config"):
        raise TypeError(
            f"Unable to reconstruct an instance of '{class_name}' because the class is missing a `from_config()` "
            f"method. Full object config: {config}"
        )
    with CustomObjectScope(custom):
        instance = cls.from_config(inner)
        build_config = config.get("build_config")
        if build_config and hasattr(instance, "build_from_config") and not getattr(instance, "built", False):
            instance.build_from_config(build_config)
        compile_config = config.get("compile_config")
        if compile_config and hasattr(instance, "compile_from_config"):
            instance.compile_from_config(compile_config)
    return instance


# ----------------------------------------------------------------------------- visualization


def model_to_dot(model: Any, *args: Any, **kwargs: Any) -> Any:
    """Keras' ``model_to_dot`` needs pydot, which tapers does not use: always raises.

    Parameters
    ----------
    model : Model
        The model.
    *args, **kwargs : object
        Keras' other arguments.

    Returns
    -------
    None
        Never returns.

    Raises
    ------
    ImportError
        Keras' error when pydot is not installed.
    """
    raise ImportError("You must install pydot (`pip install pydot`) for model_to_dot to work.")


def plot_model(model: Any, *args: Any, **kwargs: Any) -> Any:
    """Keras' ``plot_model`` needs pydot and graphviz, which tapers does not use: always raises.

    Parameters
    ----------
    model : Model
        The model.
    *args, **kwargs : object
        Keras' other arguments (``to_file``, ``show_shapes``, ...).

    Returns
    -------
    None
        Never returns.

    Raises
    ------
    ImportError
        Keras' error when pydot is not installed.
    """
    raise ImportError("You must install pydot (`pip install pydot`) for `plot_model` to work.")
