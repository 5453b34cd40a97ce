"""``keras.Model``, ``keras.Sequential`` and functional models, with ``compile``/``fit``/``evaluate``/``predict``.

``fit`` is a plain loop over batches calling :meth:`Model.train_step`, which
runs the model under a ``tapers.GradientTape`` and applies the gradients with a
``tapers.optimizers`` optimizer: the same tape and optimizers a hand-written
loop uses. ``train_step`` can be overridden as Keras documents ("customizing
what happens in fit").
"""

from __future__ import annotations

import itertools
import math
import os
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from .. import _core
from .._function import function as _compiled
from .._module import name_scope
from .._tape import GradientTape
from . import backend
from . import callbacks as callbacks_module
from . import optimizers as optimizers_module
from .layers._base import (
    InputLayer,
    KerasTensor,
    Layer,
    Node,
    _is_metric,
    flatten,
    map_structure,
    set_keras_mask,
)
from .losses import _divide_no_nan

__all__ = ["Functional", "Model", "Sequential", "load_model"]

Tensor = _core.Tensor
Variable = _core.Variable


# ----------------------------------------------------------------------------- data


def unpack_x_y_sample_weight(data: Any) -> tuple[Any, Any, Any]:
    """``(x, y, sample_weight)`` from a batch: a tuple of 1 to 3 items, or ``x`` alone."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data[0], data[1], data[2]
    raise ValueError(
        f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, found: {data}"
    )


def pack_x_y_sample_weight(x: Any, y: Any = None, sample_weight: Any = None) -> Any:
    """The batch tuple ``train_step`` receives: ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``."""
    if y is None:
        return (x,)
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def _is_array(x: Any) -> bool:
    return isinstance(x, (np.ndarray, Tensor, Variable))


def _is_array_structure(x: Any) -> bool:
    if x is None:
        return True
    leaves = flatten(x)
    return bool(leaves) and all(_is_array(v) or v is None for v in leaves)


def _to_numpy(x: Any) -> Any:
    def conv(v: Any) -> Any:
        if v is None:
            return None
        a = v.numpy() if isinstance(v, (Tensor, Variable)) else np.asarray(v)
        if a.dtype == np.float64:
            a = a.astype(backend.floatx())
        return a

    return map_structure(conv, x)


def _to_tensor(x: Any) -> Any:
    def conv(v: Any) -> Any:
        if v is None or isinstance(v, Tensor):
            return v
        if isinstance(v, Variable):
            return v.value()
        if isinstance(v, (np.ndarray, np.generic, int, float, list)):
            a = np.asarray(v)
            if a.dtype == np.float64:
                a = a.astype(backend.floatx())
            return _core.convert_to_tensor(a)
        return v

    return map_structure(conv, x)


def _num_samples(x: Any) -> int:
    sizes = {int(v.shape[0]) for v in flatten(x) if v is not None}
    if len(sizes) != 1:
        raise ValueError(f"Data cardinality is ambiguous: the arrays have different first dimensions {sorted(sizes)}.")
    return sizes.pop()


def _with_mask(t: Any, mask: Any) -> Any:
    """A new handle on ``t`` carrying the Keras mask ``mask`` (the caller's tensor keeps none)."""
    t = _core.identity(t)
    set_keras_mask(t, mask if isinstance(mask, Tensor) else _core.convert_to_tensor(np.asarray(mask)))
    return t


class _EpochData:
    """Batches for one pass: from arrays (sliced, optionally shuffled) or any iterable of batches
    (such as a ``tapers.data.Dataset``), iterated again each epoch."""

    def __init__(
        self,
        x: Any,
        y: Any = None,
        sample_weight: Any = None,
        batch_size: int | None = None,
        shuffle: bool = False,
        steps: int | None = None,
        class_weight: Mapping[int, float] | None = None,
    ) -> None:
        steps = backend._capped_steps(steps)
        self.steps_limit = steps
        self.shuffle = shuffle
        self.class_weight = dict(class_weight) if class_weight is not None else None
        if _is_array_structure(x) and x is not None:
            if self.class_weight is not None:
                if sample_weight is not None:
                    raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
                if isinstance(y, (list, tuple, dict)):
                    raise ValueError("`class_weight` is only supported for Models with a single output.")
                if y is not None:
                    sample_weight = _class_weights(_to_numpy(y), self.class_weight)
            self.arrays: tuple[Any, Any, Any] | None = (_to_numpy(x), _to_numpy(y), _to_numpy(sample_weight))
            self.n = _num_samples(tuple(a for a in self.arrays if a is not None))
            self.batch_size = 32 if batch_size is None else int(batch_size)
            if self.batch_size <= 0:
                raise ValueError(f"batch_size must be positive, got {batch_size}")
            self.num_batches: int | None = math.ceil(self.n / self.batch_size)
            self.source = None
        else:
            if y is not None:
                raise ValueError(
                    "When providing `x` as a dataset or an iterable of batches, `y` should not be passed: "
                    "the batches hold the targets."
                )
            if sample_weight is not None:
                raise ValueError("`sample_weight` cannot be passed with a dataset; put it in the batches.")
            if x is None or not hasattr(x, "__iter__"):
                raise TypeError(
                    f"Unrecognized data type: x={x!r} (of type {type(x).__name__}); expected numpy arrays, "
                    "tensors, or an iterable of batches such as a tapers.data.Dataset"
                )
            self.arrays = None
            self.source = x
            self.num_batches = _cardinality(x)
        self._total = self.num_batches
        self._iterator: Any = None
        self._seen = 0
        if steps is not None:
            self.num_batches = steps if self.num_batches is None else min(steps, self.num_batches)

    def _all_batches(self) -> Any:
        """One full pass: array slices (a new order each pass when shuffling) or the source's batches."""
        if self.arrays is not None:
            order = np.random.permutation(self.n) if self.shuffle else np.arange(self.n)
            xa, ya, wa = self.arrays
            for start in range(0, self.n, self.batch_size):
                idx = order[start : start + self.batch_size]
                take = lambda a, idx=idx: None if a is None else a[idx]  # noqa: E731
                yield pack_x_y_sample_weight(
                    _to_tensor(map_structure(take, xa)),
                    None if ya is None else _to_tensor(map_structure(take, ya)),
                    None if wa is None else _to_tensor(map_structure(take, wa)),
                )
        else:
            for batch in self.source:  # type: ignore[union-attr]
                if self.class_weight is not None:
                    bx, by, bw = unpack_x_y_sample_weight(batch)
                    if bw is not None:
                        raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
                    if isinstance(by, (list, tuple, dict)):
                        raise ValueError("`class_weight` is only supported for Models with a single output.")
                    batch = (bx, by, _class_weights(_to_numpy(by), self.class_weight))
                yield _to_tensor(batch)

    def __iter__(self) -> Any:
        """One epoch's batches. With ``steps``, as in Keras, the pass continues across epochs
        (a repeated dataset is not restarted) and starts over once the data is used up."""
        if self.steps_limit is None:
            yield from self._all_batches()
            return
        if self._iterator is None:
            self._iterator = iter(self._all_batches())
            self._seen = 0
        for _ in range(self.steps_limit):
            try:
                batch = next(self._iterator)
            except StopIteration:
                self._iterator = None
                return
            self._seen += 1
            yield batch
        if self._total is not None and self._seen >= self._total:
            self._iterator = None


class _CompiledStep:
    """A model's step method compiled as Keras compiles it (a ``tapers.function`` with
    ``reduce_retracing=True``), called with one batch.

    A batch that is a tuple of tensors (``(x, y)``, ``(x, y, sample_weight)``) is passed as
    that many tensor arguments, one function per tuple length, so that a call with the
    shapes of the previous one replays through ``tapers.function``'s fast path (no
    signature computed in Python); any other batch (dicts, nested inputs) goes through one
    function taking the batch as it is."""

    def __init__(self, model: Model, step: str) -> None:
        self._model = model
        self._step = step
        self._flat: dict[int, Any] = {}
        self._nested: Any = None

    def _run(self, data: Any) -> Any:
        return getattr(self._model, self._step)(data)

    def __call__(self, data: Any) -> Any:
        if type(data) is tuple and all(type(v) is Tensor for v in data):
            f = self._flat.get(len(data))
            if f is None:
                f = self._flat[len(data)] = _compiled(lambda *batch: self._run(batch), reduce_retracing=True)
            return f(*data)
        if self._nested is None:
            self._nested = _compiled(self._run, reduce_retracing=True)
        return self._nested(data)

    def _functions(self) -> list[Any]:
        return [*self._flat.values(), *([self._nested] if self._nested is not None else [])]

    def experimental_get_tracing_count(self) -> int:
        """The traces of all its functions (TensorFlow's count: see ``tapers.function``)."""
        return sum(f.experimental_get_tracing_count() for f in self._functions())


def _executions(batches: Iterable[Any], steps_per_execution: int) -> Iterable[tuple[int, int, list[Any]]]:
    """Keras' executions of ``steps_per_execution`` batches: ``(begin, end, batches)``, where
    ``begin`` and ``end = begin + steps_per_execution - 1`` are the batch indices the callbacks
    get (``end`` as Keras gives it even when the last execution has fewer batches)."""
    it = iter(batches)
    begin = 0
    while group := list(itertools.islice(it, steps_per_execution)):
        yield begin, begin + steps_per_execution - 1, group
        begin += steps_per_execution


def _class_weights(y: Any, class_weight: Mapping[int, float]) -> np.ndarray:
    """Keras' per-sample weights from ``class_weight``: each sample's class is ``y`` rounded (rank 1 or a
    trailing axis of 1) or its argmax (one-hot rows); classes not in the map weigh 1."""
    y = np.asarray(y)
    if y.ndim > 1:
        y = np.argmax(y, axis=-1) if y.shape[-1] != 1 else np.squeeze(y, axis=-1)
    classes = np.round(y).astype("int32").reshape(-1)
    return np.array([class_weight.get(int(c), 1.0) for c in classes], dtype=backend.floatx())


def _cardinality(x: Any) -> int | None:
    try:
        return len(x)
    except TypeError:
        pass
    card = getattr(x, "cardinality", None)
    if callable(card):
        try:
            n = int(np.asarray(card()))
        except Exception:  # noqa: BLE001 - an unknown size is fine
            return None
        return n if n >= 0 else None
    return None


def pythonify_logs(logs: Mapping[str, Any] | None) -> dict[str, Any]:
    """Logs as Keras reports them: nested dicts flattened, keys sorted, values as Python floats.

    While a ``tapers.function`` traces (a step ``fit`` compiled), tensors stay tensors, as
    under TensorFlow's graph mode: reading them into Python would guard the graph on
    their values. ``fit`` converts the replay's results."""
    out: dict[str, Any] = {}
    tracing = _core._is_tracing()
    for key, value in sorted((logs or {}).items()):
        if isinstance(value, Mapping):
            out.update(pythonify_logs(value))
        elif tracing and isinstance(value, Tensor):
            out[key] = value
        else:
            try:
                value = float(np.asarray(value))
            except (TypeError, ValueError):
                pass
            out[key] = value
    return out


# ----------------------------------------------------------------------------- compile helpers


class _LossTracker:
    """The ``loss`` entry of ``model.metrics``: the mean of the batch losses, weighted by batch size.

    Its state is two float32 Variables, so a training step compiled by ``fit`` (a
    ``tapers.function``) updates it at every replay."""

    def __init__(self, name: str = "loss") -> None:
        self.name = name
        self._total = _core.Variable(np.float32(0.0), trainable=False, name="total")
        self._count = _core.Variable(np.float32(0.0), trainable=False, name="count")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        """Adds a (scalar) loss with weight ``sample_weight`` (default 1)."""
        v = _core.cast(_core.convert_to_tensor(values), "float32")
        w = np.float32(1.0) if sample_weight is None else np.float32(np.asarray(sample_weight))
        if len(v.shape):
            self._total.assign_add(_core.reduce_sum(v * w))
            self._count.assign_add(np.float32(w * float(np.prod(v.shape))))
        else:
            self._total.assign_add(v * w)
            self._count.assign_add(w)

    def result(self) -> Tensor:
        """The weighted mean so far (0 before any update)."""
        return _divide_no_nan(self._total.value(), self._count.value())

    def reset_state(self) -> None:
        """Forgets every update."""
        self._total.assign(np.float32(0.0))
        self._count.assign(np.float32(0.0))


class CompileMetrics:
    """The metrics given to ``compile``, resolved on the first batch (``"accuracy"`` becomes binary,
    sparse categorical or categorical accuracy from the shapes of ``y`` and ``y_pred``).

    ``result()`` is a dict of their values; ``fit``'s logs flatten it.
    """

    def __init__(self, metrics: Any, name: str = "compile_metrics") -> None:
        if metrics is None:
            metrics = []
        if isinstance(metrics, (str, Mapping)) or callable(metrics):
            metrics = [metrics]
        if isinstance(metrics, Mapping):
            raise NotImplementedError("tapers.keras: per-output metric dicts are not implemented")
        self._identifiers = list(metrics)
        self.name = name
        self.built = False
        self._metrics: list[Any] = []

    @property
    def metrics(self) -> list[Any]:
        """The resolved metric objects (empty before the first batch)."""
        return list(self._metrics)

    def build(self, y_true: Any, y_pred: Any) -> None:
        """Resolves each identifier for these targets and predictions."""
        from . import metrics as metrics_module

        for ident in self._identifiers:
            if hasattr(metrics_module, "get_metric"):
                m = metrics_module.get_metric(ident, y_true, y_pred)
            else:
                m = metrics_module.get(ident)
            self._metrics.append(m)
        self.built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Updates every metric with the batch."""
        if not self.built:
            self.build(y_true, y_pred)
        for m in self._metrics:
            m.update_state(y_true, y_pred, sample_weight=sample_weight)

    def result(self) -> dict[str, Any]:
        """``{name: value}`` for each metric."""
        return {m.name: m.result() for m in self._metrics}

    def reset_state(self) -> None:
        """Resets every metric."""
        for m in self._metrics:
            m.reset_state()


def _resolve_loss(loss: Any) -> Any:
    """A Loss object for ``compile(loss=...)``: names and functions are wrapped as Keras does
    (``sum_over_batch_size`` reduction)."""
    from . import losses as losses_module

    if loss is None:
        return None
    if isinstance(loss, (list, tuple, Mapping)):
        raise NotImplementedError("tapers.keras: one loss per output (a list or dict of losses) is not implemented")
    obj = losses_module.get(loss) if isinstance(loss, (str, Mapping)) else loss
    if isinstance(obj, type):
        obj = obj()
    if not hasattr(obj, "reduction"):
        if not callable(obj):
            raise ValueError(f"Could not interpret loss identifier: {loss}")
        name = loss if isinstance(loss, str) else getattr(obj, "__name__", None)
        obj = losses_module.LossFunctionWrapper(obj, name=name)
    return obj


# ----------------------------------------------------------------------------- summary


def _ratio_reduce(total: int, ratios: list[int], maximums: list[int], values: list[int]) -> list[int]:
    ratios = [r if m else 0 for r, m in zip(ratios, maximums)]
    total_ratio = sum(ratios)
    if not total_ratio:
        return values[:]
    remaining = total
    out = []
    for ratio, maximum, value in zip(ratios, maximums, values):
        if ratio and total_ratio > 0:
            d = min(maximum, round(ratio * remaining / total_ratio))
            out.append(value - d)
            remaining -= d
            total_ratio -= ratio
        else:
            out.append(value)
    return out


def _ratio_distribute(total: int, ratios: list[int]) -> list[int]:
    total_ratio = sum(ratios)
    remaining = total
    out = []
    for ratio in ratios:
        d = math.ceil(ratio * remaining / total_ratio) if total_ratio > 0 else remaining
        out.append(d)
        total_ratio -= ratio
        remaining -= d
    return out


def _wrap(text: str, width: int) -> list[str]:
    """Word-wraps a cell's text; a word longer than the cell ends in an ellipsis."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        if len(word) > width:
            word = word[: width - 1] + "…"
        candidate = word if not current else f"{current} {word}"
        if len(candidate) <= width:
            current = candidate
        else:
            lines.append(current)
            current = word
    lines.append(current)
    return lines


def _render_table(header: list[str], rows: list[list[str]], widths: list[int], align: list[str], line: int) -> str:
    """Keras' summary table as rich draws it (heavy head, a rule between rows)."""
    cells = [w + 2 for w in widths]
    max_width = line - (len(widths) + 1)
    total = sum(cells)
    if total > max_width:
        cells = _ratio_reduce(total - max_width, [1] * len(cells), cells, cells)
    elif total < max_width:
        cells = [c + p for c, p in zip(cells, _ratio_distribute(max_width - total, cells))]
    inner = [c - 2 for c in cells]

    def border(left: str, fill: str, mid: str, right: str) -> str:
        return left + mid.join(fill * c for c in cells) + right

    def row_lines(values: list[str], bar: str) -> list[str]:
        wrapped = [_wrap(v, w) for v, w in zip(values, inner)]
        height = max(len(w) for w in wrapped)
        out = []
        for i in range(height):
            parts = []
            for col, w in enumerate(inner):
                text = wrapped[col][i] if i < len(wrapped[col]) else ""
                text = text.rjust(w) if align[col] == "right" else text.ljust(w)
                parts.append(f" {text} ")
            out.append(bar + bar.join(parts) + bar)
        return out

    lines = [border("┏", "━", "┳", "┓"), *row_lines(header, "┃"), border("┡", "━", "╇", "┩")]
    for i, r in enumerate(rows):
        if i:
            lines.append(border("├", "─", "┼", "┤"))
        lines.extend(row_lines(r, "│"))
    lines.append(border("└", "─", "┴", "┘"))
    return "\n".join(lines)


def _readable_memory_size(size: float) -> str:
    for unit in ["B", "KB", "MB", "GB", "TB", "PB"]:
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def _weights_size(weights: Sequence[Variable]) -> tuple[int, int]:
    seen: set[int] = set()
    count = 0
    nbytes = 0
    for w in weights:
        if id(w) in seen:
            continue
        seen.add(id(w))
        n = int(np.prod(w.shape))
        count += n
        nbytes += n * np.dtype(w.dtype.as_numpy_dtype).itemsize
    return count, nbytes


def _format_shape(shape: Sequence[int | None]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _layer_shape_text(layer: Layer) -> str:
    if layer._inbound_nodes:
        outputs = layer._inbound_nodes[-1].output_tensors
        shapes = [_format_shape(t.shape) for t in outputs]
        return shapes[0] if len(shapes) == 1 else str(shapes).replace("'", "")
    if layer._build_shapes is None:
        return "?"
    try:
        out = layer.compute_output_shape(layer._build_shapes)
    except NotImplementedError:
        return "?"
    except Exception:  # noqa: BLE001 - a summary never fails on a shape
        return "?"
    if isinstance(out, tuple) and all(d is None or isinstance(d, int) for d in out):
        return _format_shape(out)
    return "?"


# ----------------------------------------------------------------------------- Model


class Model(Layer):
    """A layer with training: ``compile``, ``fit``, ``evaluate``, ``predict``, ``summary`` and weights files.

    Three ways to make one, as in Keras 3:

    * subclass it, create layers in ``__init__`` and write ``call``;
    * ``keras.Model(inputs, outputs)`` from ``keras.Input`` and layer calls (functional);
    * ``keras.Sequential([...])``.

    Parameters
    ----------
    inputs, outputs : KerasTensor or list/dict of KerasTensors, optional
        Given together, they make a functional model (also for a subclass).
    name : str, optional
        Default: the class name in snake case (``my_model``), ``functional`` or ``sequential``.
    trainable : bool
        Whether ``trainable_weights`` lists the weights.

    Attributes
    ----------
    optimizer, loss
        What ``compile`` was given (the optimizer resolved from its name).
    history : keras.callbacks.History
        The last ``fit``'s record.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if _functional_arguments(args, kwargs) and not issubclass(cls, (Functional, Sequential)):
            return super().__new__(Functional if cls is Model else _with_functional(cls))
        return super().__new__(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if _functional_arguments(args, kwargs) and not isinstance(self, Functional):
            # A subclass whose __init__ calls super().__init__(inputs, outputs).
            object.__setattr__(self, "__class__", _with_functional(type(self)))
        if isinstance(self, Functional):
            Functional.__init__(self, *args, **kwargs)
            return
        trainable = kwargs.pop("trainable", True)
        name = kwargs.pop("name", None)
        dtype = kwargs.pop("dtype", None)
        if args or kwargs:
            raise TypeError(f"Model.__init__ got unexpected arguments {args} {sorted(kwargs)}")
        super().__init__(trainable=trainable, name=name, dtype=dtype)
        self._init_trainer()

    _compiled: bool

    def _init_trainer(self) -> None:
        object.__setattr__(self, "_compiled", False)
        self.optimizer: Any = None
        self.loss: Any = None
        self._compile_loss: Any = None
        self._compile_metrics: CompileMetrics | None = None
        self._loss_tracker: _LossTracker | None = None
        self.stop_training = False
        self.history: callbacks_module.History | None = None
        self._run_eagerly = False
        self._jit_compile: Any = None
        self.steps_per_execution = 1
        self.train_function: Any = None
        self.test_function: Any = None
        self.predict_function: Any = None

    _TF_MODULE_IGNORED_PROPERTIES = Layer._TF_MODULE_IGNORED_PROPERTIES | frozenset(
        (
            "_compile_metrics",
            "_loss_tracker",
            "_compile_loss",
            "history",
            "optimizer",
            "loss",
            "train_function",
            "test_function",
            "predict_function",
        )
    )

    @property
    def compiled(self) -> bool:
        """Whether ``compile`` was called."""
        return self._compiled

    @property
    def layers(self) -> list[Layer]:
        """The model's direct sublayers."""
        return self._layers

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """A sublayer by name or by index in ``layers``."""
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(f"Was asked to retrieve layer at index {index} but model only has "
                                 f"{len(self.layers)} layers.")  # fmt: skip
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}. Existing layers are: {[layer.name for layer in self.layers]}.")

    # -- compile ------------------------------------------------------------

    def compile(
        self,
        optimizer: Any = "rmsprop",
        loss: Any = None,
        loss_weights: Any = None,
        metrics: Any = None,
        weighted_metrics: Any = None,
        run_eagerly: bool = False,
        steps_per_execution: int = 1,
        jit_compile: Any = "auto",
        auto_scale_loss: bool = True,
    ) -> None:
        """Sets the optimizer (an instance or a name such as ``"adam"``), the loss (a name, a
        ``keras.losses`` object or a function ``f(y_true, y_pred)``) and metrics for ``fit``.

        As in Keras, ``fit``, ``evaluate`` and ``predict`` then run their steps compiled (each a
        ``tapers.function`` with ``reduce_retracing=True``, traced on its first batch and on a
        batch of a new shape, replayed in Rust after that) unless ``run_eagerly=True``.
        ``jit_compile`` is kept (``"auto"`` resolves to ``False``, TensorFlow's choice on a
        CPU-only machine) and has no effect. ``steps_per_execution`` groups the batches as Keras
        does: callbacks get each group's first and (nominal) last batch index and the last
        step's logs."""
        del auto_scale_loss
        if jit_compile == "auto" or run_eagerly:
            jit_compile = False
        if loss_weights is not None or weighted_metrics is not None:
            raise NotImplementedError("tapers.keras: loss_weights and weighted_metrics are not implemented")
        if isinstance(steps_per_execution, bool) or not isinstance(steps_per_execution, int) or steps_per_execution < 1:
            raise ValueError(f"steps_per_execution must be a positive integer, got {steps_per_execution!r}")
        self.optimizer = optimizers_module.get(optimizer)
        self.loss = loss
        self._compile_loss = _resolve_loss(loss)
        self._compile_metrics = CompileMetrics(metrics) if metrics is not None else None
        self._loss_tracker = _LossTracker("loss")
        self.jit_compile = jit_compile
        self.run_eagerly = run_eagerly
        self.steps_per_execution = steps_per_execution
        # Steps compiled for the previous configuration are dropped (Keras' rule: trainable
        # variables are fixed when a step is first traced, so a change takes a new compile).
        self.train_function = None
        self.test_function = None
        self.predict_function = None
        object.__setattr__(self, "_compiled", True)

    @property
    def run_eagerly(self) -> bool:
        """Whether ``fit``/``evaluate``/``predict`` run their steps eagerly instead of compiled."""
        return self._run_eagerly

    @run_eagerly.setter
    def run_eagerly(self, value: bool) -> None:
        value = bool(value)
        if value != getattr(self, "_run_eagerly", False):
            self.train_function = self.test_function = self.predict_function = None
        self._run_eagerly = value

    @property
    def jit_compile(self) -> Any:
        """Keras' ``jit_compile`` (kept, no effect: compiled steps replay the recorded kernels)."""
        return False if self._jit_compile is None else self._jit_compile

    @jit_compile.setter
    def jit_compile(self, value: Any) -> None:
        self._jit_compile = value

    def _step_function(self, attr: str, step: str, force: bool) -> Callable[[Any], Any]:
        """The function kept in ``attr`` that calls the method ``step`` on a batch: compiled
        (a ``_CompiledStep``) unless ``run_eagerly``; made again when missing or ``force``.
        ``tapers.config.run_functions_eagerly(True)`` also runs a compiled one eagerly."""
        if getattr(self, attr) is None or force:
            if self.run_eagerly:

                def one_step_on_data(data: Any) -> Any:
                    return getattr(self, step)(data)

                setattr(self, attr, one_step_on_data)
            else:
                setattr(self, attr, _CompiledStep(self, step))
        return getattr(self, attr)

    def make_train_function(self, force: bool = False) -> Callable[[Any], Any]:
        """The function ``fit`` calls on each batch: ``train_step``, compiled unless ``run_eagerly``
        (kept in ``train_function`` until ``compile`` or ``force``)."""
        return self._step_function("train_function", "train_step", force)

    def make_test_function(self, force: bool = False) -> Callable[[Any], Any]:
        """The function ``evaluate`` calls on each batch: ``test_step``, compiled unless ``run_eagerly``."""
        return self._step_function("test_function", "test_step", force)

    def make_predict_function(self, force: bool = False) -> Callable[[Any], Any]:
        """The function ``predict`` calls on each batch: ``predict_step``, compiled unless ``run_eagerly``."""
        return self._step_function("predict_function", "predict_step", force)

    @property
    def metrics(self) -> list[Any]:
        """The loss tracker (named ``loss``), the compiled metrics, then metrics held by the model and its layers."""
        out: list[Any] = []
        if self.compiled:
            if self._loss_tracker is not None:
                out.append(self._loss_tracker)
            if self._compile_metrics is not None:
                out.append(self._compile_metrics)
        for layer in self._flatten_layers():
            if layer is not self and isinstance(layer, Model):
                continue
            for v in layer._tracked_values():
                if _is_metric_obj(v) and v not in out:
                    out.append(v)
        return out

    @property
    def metrics_names(self) -> list[str]:
        """The names of ``metrics``."""
        return [m.name for m in self.metrics]

    def reset_metrics(self) -> None:
        """Resets every metric in ``metrics``."""
        for m in self.metrics:
            m.reset_state()

    def compute_loss(
        self, x: Any = None, y: Any = None, y_pred: Any = None, sample_weight: Any = None, training: bool = True
    ) -> Tensor:
        """The compiled loss of ``(y, y_pred)`` plus the losses layers added with ``add_loss``."""
        del x, training
        losses = []
        if self._compile_loss is not None:
            loss = self._compile_loss(y, y_pred, sample_weight=sample_weight)
            if loss is not None:
                losses.append(loss)
        for extra in self.losses:
            losses.append(_core.cast(extra, "float32") if extra.dtype.name != "float32" else extra)
        if not losses:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        if len(losses) == 1:
            return losses[0]
        return _core.add_n([_core.reduce_sum(v) if len(v.shape) else v for v in losses])

    def compute_metrics(self, x: Any, y: Any, y_pred: Any, sample_weight: Any = None) -> dict[str, Any]:
        """Updates the compiled metrics and returns every metric's value."""
        del x
        if self._compile_metrics is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self) -> dict[str, Any]:
        """``{name: value}`` for every metric (dict results are merged in)."""
        out: dict[str, Any] = {}
        for m in self.metrics:
            r = m.result()
            if isinstance(r, Mapping):
                out.update(r)
            else:
                out[m.name] = r
        return pythonify_logs(out)

    # -- steps --------------------------------------------------------------

    def _model_call(self, x: Any, training: bool) -> Any:
        if self._call_has_training_arg:
            return self(x, training=training)
        return self(x)

    def train_step(self, data: Any) -> dict[str, Any]:
        """One training step: forward under a GradientTape, loss, gradients, optimizer update, metrics.

        Override it to customize ``fit``; ``data`` is the batch (``(x, y)`` or
        ``(x, y, sample_weight)``) and the returned dict is what ``fit`` logs.
        """
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self._model_call(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=True)
            # As Keras 3: the optimizer may scale the loss (LossScaleOptimizer), and unscales the gradients.
            scaled = self.optimizer.scale_loss(loss) if hasattr(self.optimizer, "scale_loss") else loss
        if self._loss_tracker is not None:
            self._loss_tracker.update_state(loss, sample_weight=_batch_size(x))
        weights = self.trainable_weights
        if weights:
            grads = tape.gradient(scaled, weights)
            self.optimizer.apply_gradients(zip(grads, weights))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def test_step(self, data: Any) -> dict[str, Any]:
        """One evaluation step: forward in inference mode, loss and metrics."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self._model_call(x, training=False)
        loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=False)
        if self._loss_tracker is not None:
            self._loss_tracker.update_state(loss, sample_weight=_batch_size(x))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def predict_step(self, data: Any) -> Any:
        """One prediction step: the model's output in inference mode."""
        x, _, _ = unpack_x_y_sample_weight(data)
        return self._model_call(x, training=False)

    def _metrics_or_logs(self, logs: Any) -> dict[str, Any]:
        metric_logs = self.get_metrics_result()
        if isinstance(logs, Mapping) and set(logs) == set(metric_logs):
            return metric_logs
        return pythonify_logs(logs)

    def _assert_compiled(self) -> None:
        if not self.compiled:
            raise ValueError("You must call `compile()` before using the model.")

    # -- fit / evaluate / predict ------------------------------------------

    def fit(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        epochs: int = 1,
        verbose: Any = "auto",
        callbacks: Iterable[callbacks_module.Callback] | None = None,
        validation_split: float = 0.0,
        validation_data: Any = None,
        shuffle: bool = True,
        class_weight: Any = None,
        sample_weight: Any = None,
        initial_epoch: int = 0,
        steps_per_epoch: int | None = None,
        validation_steps: int | None = None,
        validation_batch_size: int | None = None,
        validation_freq: int = 1,
    ) -> callbacks_module.History:
        """Trains for ``epochs`` passes over the data; returns the ``History`` of each epoch's logs.

        ``x``/``y`` are numpy arrays or tensors (sliced into ``batch_size``
        batches, default 32, reshuffled each epoch with numpy's global
        generator when ``shuffle``), or ``x`` is an iterable of batches such as
        a ``tapers.data.Dataset``. ``validation_data`` is ``(x_val, y_val)`` or
        an iterable; its results are logged with a ``val_`` prefix. ``class_weight``
        (``{class: weight}``) weighs each sample by its class (``y`` rounded, or its
        argmax for one-hot rows), as Keras does, for arrays and datasets alike.
        ``keras.config.set_max_epochs`` / ``set_max_steps_per_epoch`` cap the run.
        """
        self._assert_compiled()
        epochs = backend._capped_epochs(epochs)
        if validation_split and validation_data is None:
            if not _is_array_structure(x):
                raise ValueError("`validation_split` is only supported for numpy arrays and tensors.")
            x_np, y_np, w_np = _to_numpy(x), _to_numpy(y), _to_numpy(sample_weight)
            n = _num_samples(tuple(a for a in (x_np, y_np, w_np) if a is not None))
            split = int(n * (1.0 - validation_split))

            def head(a: Any) -> Any:
                return None if a is None else map_structure(lambda v: v[:split], a)

            def tail(a: Any) -> Any:
                return None if a is None else map_structure(lambda v: v[split:], a)

            validation_data = (tail(x_np), tail(y_np)) if w_np is None else (tail(x_np), tail(y_np), tail(w_np))
            x, y, sample_weight = head(x_np), head(y_np), head(w_np)
        data = _EpochData(
            x, y, sample_weight, batch_size, shuffle=shuffle, steps=steps_per_epoch, class_weight=class_weight
        )
        val_data = None
        if validation_data is not None:
            vx, vy, vw = unpack_x_y_sample_weight(validation_data)
            if _is_array_structure(vx) and vx is not None:
                val_data = _EpochData(vx, vy, vw, validation_batch_size or batch_size, steps=validation_steps)
            else:
                val_data = _EpochData(validation_data, steps=validation_steps)
        verbose = 1 if verbose == "auto" else int(verbose)
        history = callbacks_module.History()
        cbs = list(callbacks or [])
        all_cbs = [*cbs, history]
        if verbose:
            all_cbs.append(callbacks_module.ProgbarLogger())
        cb = callbacks_module.CallbackList(all_cbs, self, epochs=epochs, steps=data.num_batches, verbose=verbose)
        self.stop_training = False
        cb.on_train_begin()
        # BackupAndRestore sets Keras' `_initial_epoch` hook in on_train_begin to resume a run.
        initial_epoch = getattr(self, "_initial_epoch", None) or initial_epoch
        logs: Any = {}
        train_function = self.make_train_function()
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            cb.on_epoch_begin(epoch)
            ran = False
            for begin, end, group in _executions(data, self.steps_per_execution):
                ran = True
                cb.on_train_batch_begin(begin)
                for batch in group:
                    out = train_function(batch)
                logs = pythonify_logs(out)
                cb.on_train_batch_end(end, logs)
                if self.stop_training:
                    break
            if not ran:
                raise ValueError("The training data produced no batch: is it empty?")
            epoch_logs = dict(self._metrics_or_logs(logs))
            if val_data is not None and (epoch + 1) % validation_freq == 0:
                val_logs = self._evaluate_data(val_data, cb)
                epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
            cb.on_epoch_end(epoch, epoch_logs)
            if self.stop_training:
                break
        cb.on_train_end(logs)
        self.history = history
        return history

    def _evaluate_data(self, data: _EpochData, cb: Any) -> dict[str, Any]:
        """The test loop (``evaluate``, and validation inside ``fit``): as in Keras 3, the
        callbacks' test hooks run in both (a progress bar prints only for ``evaluate``)."""
        self.reset_metrics()
        cb.on_test_begin()
        logs: Any = {}
        test_function = self.make_test_function()
        for begin, end, group in _executions(data, self.steps_per_execution):
            cb.on_test_batch_begin(begin)
            for batch in group:
                out = test_function(batch)
            logs = pythonify_logs(out)
            cb.on_test_batch_end(end, logs)
        logs = self._metrics_or_logs(logs)
        cb.on_test_end(logs)
        return logs

    def evaluate(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        verbose: Any = "auto",
        sample_weight: Any = None,
        steps: int | None = None,
        callbacks: Iterable[callbacks_module.Callback] | None = None,
        return_dict: bool = False,
    ) -> Any:
        """The loss and metrics over the data, in inference mode: a float when there is only the
        loss, else a list in ``metrics_names`` order (or a dict with ``return_dict``)."""
        self._assert_compiled()
        data = _EpochData(x, y, sample_weight, batch_size, steps=steps)
        verbose = 1 if verbose == "auto" else int(verbose)
        all_cbs = list(callbacks or [])
        if verbose:
            all_cbs.append(callbacks_module.ProgbarLogger())
        cb = callbacks_module.CallbackList(all_cbs, self, epochs=1, steps=data.num_batches, verbose=verbose)
        logs = self._evaluate_data(data, cb)
        if return_dict:
            return logs
        values = [logs[k] for k in self._flat_metric_names() if k in logs]
        values += [v for k, v in logs.items() if k not in self._flat_metric_names()]
        return values[0] if len(values) == 1 else values

    def _flat_metric_names(self) -> list[str]:
        names: list[str] = []
        for m in self.metrics:
            if isinstance(m, CompileMetrics):
                names.extend(sub.name for sub in m.metrics)
            else:
                names.append(m.name)
        return names

    def predict(
        self,
        x: Any,
        batch_size: int | None = None,
        verbose: Any = "auto",
        steps: int | None = None,
        callbacks: Iterable[callbacks_module.Callback] | None = None,
    ) -> Any:
        """The model's outputs over the data, batch by batch, in inference mode, as numpy arrays."""
        data = _EpochData(x, None, None, batch_size, steps=steps)
        verbose = 1 if verbose == "auto" else int(verbose)
        all_cbs = list(callbacks or [])
        if verbose:
            all_cbs.append(callbacks_module.ProgbarLogger())
        cb = callbacks_module.CallbackList(all_cbs, self, epochs=1, steps=data.num_batches, verbose=verbose)
        cb.on_predict_begin()
        outputs: list[Any] = []
        predict_function = self.make_predict_function()
        for begin, end, group in _executions(data, self.steps_per_execution):
            cb.on_predict_batch_begin(begin)
            for batch in group:
                out = predict_function(batch)
                outputs.append(map_structure(lambda t: t.numpy() if hasattr(t, "numpy") else np.asarray(t), out))
            cb.on_predict_batch_end(end, {"outputs": out})
        cb.on_predict_end()
        if not outputs:
            raise ValueError("Unexpected result of `predict_function` (Empty batch_outputs).")
        first = outputs[0]
        if isinstance(first, np.ndarray):
            return np.concatenate(outputs, axis=0)
        return _concat_structure(outputs)

    def train_on_batch(
        self, x: Any, y: Any = None, sample_weight: Any = None, class_weight: Any = None, return_dict: bool = False
    ) -> Any:
        """One ``train_step`` on one batch; returns its logs as ``evaluate`` does."""
        self._assert_compiled()
        if class_weight is not None:
            if sample_weight is not None:
                raise ValueError(
                    "Arguments `sample_weight` and `class_weight` cannot be specified at the same time. "
                    f"Received: sample_weight={sample_weight}, class_weight={class_weight}"
                )
            sample_weight = _class_weights(_to_numpy(y), class_weight)
        self.reset_metrics()
        logs = pythonify_logs(
            self.make_train_function()(pack_x_y_sample_weight(_to_tensor(x), _to_tensor(y), _to_tensor(sample_weight)))
        )
        if return_dict:
            return logs
        values = list(logs.values())
        return values[0] if len(values) == 1 else values

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None, return_dict: bool = False) -> Any:
        """One ``test_step`` on one batch."""
        self._assert_compiled()
        self.reset_metrics()
        logs = pythonify_logs(
            self.make_test_function()(pack_x_y_sample_weight(_to_tensor(x), _to_tensor(y), _to_tensor(sample_weight)))
        )
        if return_dict:
            return logs
        values = list(logs.values())
        return values[0] if len(values) == 1 else values

    def predict_on_batch(self, x: Any) -> Any:
        """The model's output on one batch, as numpy."""
        out = self.make_predict_function()((_to_tensor(x),))
        return map_structure(lambda t: t.numpy(), out)

    # -- summary and weights ------------------------------------------------

    def _summary_layers(self) -> list[Layer]:
        return self.layers

    def _sequential_like(self) -> bool:
        return True

    def summary(
        self,
        line_length: int | None = None,
        positions: Sequence[float] | None = None,
        print_fn: Callable[..., Any] | None = None,
        expand_nested: bool = False,
        show_trainable: bool = False,
        layer_range: Any = None,
    ) -> None:
        """Prints Keras 3's summary table: each layer's name and type, output shape and parameter count,
        then the totals (``print_fn`` receives the whole text instead)."""
        if expand_nested or show_trainable or layer_range is not None:
            raise NotImplementedError("tapers.keras: summary's expand_nested, show_trainable and layer_range")
        seq = self._sequential_like()
        if seq:
            default_line, positions = 88, list(positions or [0.45, 0.80, 1.0])
            header, align = ["Layer (type)", "Output Shape", "Param #"], ["left", "left", "right"]
        else:
            default_line, positions = 108, list(positions or [0.3, 0.56, 0.74, 1.0])
            header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
            align = ["left", "left", "right", "left"]
        default_line = min(default_line, shutil.get_terminal_size().columns - 4)
        line_length = line_length or default_line
        widths = []
        current = 0
        for pos in positions:
            w = int(pos * line_length) - current if pos <= 1 else int(pos) - current
            if w < 4:
                raise ValueError("Insufficient console width to print summary.")
            widths.append(w)
            current += w
        rows = []
        for layer in self._summary_layers():
            if not layer.built:
                params = "0 (unbuilt)"
            else:
                params = f"{layer.count_params():,}"
            row = [f"{layer.name} ({type(layer).__name__})", _layer_shape_text(layer), params]
            if not seq:
                row.append(self._connections(layer))
            rows.append(row)
        trainable_count, trainable_bytes = _weights_size(self.trainable_weights)
        non_count, non_bytes = _weights_size(self.non_trainable_weights)
        total_count, total_bytes = trainable_count + non_count, trainable_bytes + non_bytes
        opt = self.optimizer if self.compiled else None
        opt_built = opt is not None and (bool(getattr(opt, "_slots", None)) or int(opt.iterations.numpy()) > 0)
        text = [f'Model: "{self.name}"', _render_table(header, rows, widths, align, line_length)]
        if opt_built:
            opt_count, opt_bytes = _weights_size(_optimizer_variables(opt))
            # Keras keeps the learning rate in a float32 variable and counts it.
            opt_count, opt_bytes = opt_count + 1, opt_bytes + 4
            total_count += opt_count
            total_bytes += opt_bytes
        text.append(f" Total params: {total_count:,} ({_readable_memory_size(total_bytes)})")
        text.append(f" Trainable params: {trainable_count:,} ({_readable_memory_size(trainable_bytes)})")
        text.append(f" Non-trainable params: {non_count:,} ({_readable_memory_size(non_bytes)})")
        if opt_built:
            text.append(f" Optimizer params: {opt_count:,} ({_readable_memory_size(opt_bytes)})")
        out = "\n".join(text) + "\n"
        if print_fn is None:
            print(out, end="")
        else:
            print_fn(out)

    def _connections(self, layer: Layer) -> str:
        return "-"

    def save(self, filepath: Any, overwrite: bool = True, **kwargs: Any) -> None:
        """Whole-model saving (Keras' ``.keras`` archives) is not implemented by tapers.

        Raises
        ------
        ValueError
            For a path without a ``.keras`` or ``.h5`` extension (Keras 3's check and message, which a
            user porting TF 2 code that saved a SavedModel directory meets first).
        NotImplementedError
            Otherwise: save the weights with :meth:`save_weights` and rebuild the model in code.
        """
        path = os.fspath(filepath) if isinstance(filepath, (str, os.PathLike)) else str(filepath)
        if not path.endswith((".keras", ".h5")):
            raise ValueError(
                "Invalid filepath extension for saving. Please add either a `.keras` extension for the native "
                "Keras format (recommended) or a `.h5` extension. Use `model.export(filepath)` if you want to export "
                f"a SavedModel for use with TFLite/TFServing/etc. Received: filepath={path}."
            )
        raise NotImplementedError(
            "tapers.keras does not save whole models (.keras archives or SavedModel); use "
            "model.save_weights(path) and load_weights after rebuilding the model in code"
        )

    def save_weights(self, filepath: str | os.PathLike[str], overwrite: bool = True) -> None:
        """Writes every weight to a safetensors file (names are the weights' paths, such as
        ``sequential/dense/kernel``; Keras 3 requires the ``.weights.h5`` suffix and HDF5, tapers
        writes safetensors to ``.safetensors`` or ``.weights.h5`` paths alike, and raises Keras'
        ``ValueError`` for any other name)."""
        path = os.fspath(filepath)
        if not path.endswith((".weights.h5", ".safetensors")):
            # Keras 3's check, made before anything else (so TF guides that pass a bare name fail alike).
            raise ValueError(f"The filename must end in `.weights.h5`. Received: filepath={path}")
        if not overwrite and os.path.exists(path):
            raise FileExistsError(f"{path} exists and overwrite=False")
        if not self.built:
            raise ValueError("You are calling `save_weights()` on a model that is not built yet.")
        items = [(f"{i:04d}:{_weight_path(v)}", v.value()) for i, v in enumerate(self.weights)]
        _core._save_safetensors(path, items, {"format": "tapers.keras.Model.save_weights/1"})

    def load_weights(self, filepath: str | os.PathLike[str], skip_mismatch: bool = False) -> None:
        """Loads weights written by :meth:`save_weights`, matched by position in ``weights``; every
        shape is checked before any weight changes."""
        from ..errors import InvalidArgumentError

        path = os.fspath(filepath)
        items, _meta = _core._load_safetensors(path)
        items = sorted(items, key=lambda kv: kv[0])
        own = self.weights
        if len(items) != len(own) and not skip_mismatch:
            raise ValueError(f"A total of {len(items)} objects could not be loaded: the file {path} holds {len(items)} "
                             f"weights, the model {self.name} has {len(own)}.")  # fmt: skip
        pairs = []
        for (name, value), var in zip(items, own):
            if tuple(value.shape) != tuple(var.shape) or value.dtype != var.dtype:
                if skip_mismatch:
                    continue
                raise InvalidArgumentError(
                    None,
                    None,
                    f"{path}: weight {name} has shape {tuple(value.shape)} and dtype {value.dtype.name}, but "
                    f"{_weight_path(var)} has shape {tuple(var.shape)} and dtype {var.dtype.name}",
                )
            pairs.append((var, value))
        for var, value in pairs:
            var.assign(value)


def _functional_arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    return len(args) >= 2 or "inputs" in kwargs or "outputs" in kwargs or (len(args) == 1 and "outputs" in kwargs)


_FUNCTIONAL_SUBCLASSES: dict[type, type] = {}


def _with_functional(cls: type) -> type:
    """``cls`` with ``Functional`` among its bases, for a Model subclass built from inputs and
    outputs (Keras 3 does the same): its own methods (``train_step``) over the functional call."""
    made = _FUNCTIONAL_SUBCLASSES.get(cls)
    if made is None:
        made = type(cls.__name__, (cls, Functional), {"__module__": cls.__module__, "__qualname__": cls.__qualname__})
        _FUNCTIONAL_SUBCLASSES[cls] = made
    return made


def load_model(filepath: Any, custom_objects: Any = None, compile: bool = True, safe_mode: bool = True) -> Model:  # noqa: A002
    """Loading whole models (Keras' ``.keras`` archives) is not implemented by tapers.

    Parameters
    ----------
    filepath : str or path
        Keras' archive path.

    Raises
    ------
    ValueError
        For a path without a ``.keras`` or ``.h5`` extension (Keras 3's check and message: a TF 2
        SavedModel directory is not loadable by ``load_model`` there either).
    NotImplementedError
        Otherwise: rebuild the model in code and use ``Model.load_weights``.
    """
    path = os.fspath(filepath) if isinstance(filepath, (str, os.PathLike)) else str(filepath)
    if not path.endswith((".keras", ".h5")):
        raise ValueError(
            f"File format not supported: filepath={path}. Keras 3 only supports V3 `.keras` files, legacy H5 format "
            "files (`.h5` extension). Note that the legacy SavedModel format is not supported by `load_model()` in "
            "Keras 3. In order to reload a TensorFlow SavedModel as an inference-only layer in Keras 3, use "
            f"`keras.layers.TFSMLayer({path}, call_endpoint='serving_default')` (note that your `call_endpoint` "
            "might have a different name)."
        )
    raise NotImplementedError(
        "tapers.keras does not load whole models (.keras archives or SavedModel); rebuild the model in code "
        "and call model.load_weights(path)"
    )


def _weight_path(v: Variable) -> str:
    name = v.name
    return name[:-2] if name.endswith(":0") else name


def _optimizer_variables(opt: Any) -> list[Variable]:
    """The optimizer's state as Keras counts it in ``summary``: its slots and ``iterations``."""
    out = []
    for _var, slots in list(getattr(opt, "_slots", {}).values()):
        out.extend(slots)
    out.append(opt.iterations)
    return out


def _is_metric_obj(v: Any) -> bool:
    return _is_metric(v)


def _batch_size(x: Any) -> int:
    for leaf in flatten(x):
        if leaf is not None and hasattr(leaf, "shape") and len(leaf.shape):
            return int(leaf.shape[0])
    return 1


def _concat_structure(outputs: list[Any]) -> Any:
    first = outputs[0]
    if isinstance(first, Mapping):
        return {k: _concat_structure([o[k] for o in outputs]) for k in first}
    if isinstance(first, (list, tuple)):
        return type(first)(_concat_structure([o[i] for o in outputs]) for i in range(len(first)))
    return np.concatenate(outputs, axis=0)


# ----------------------------------------------------------------------------- Functional


class Functional(Model):
    """A model defined by calling layers on ``keras.Input``\\ s: ``keras.Model(inputs, outputs)``.

    Calling it runs the recorded layer calls, deepest first as Keras orders
    them, on real tensors.

    Parameters
    ----------
    inputs : KerasTensor or list/dict of KerasTensors
        From ``keras.Input``.
    outputs : KerasTensor or list/dict of KerasTensors
        Results of layer calls on ``inputs``.
    name : str, optional
        Default ``functional`` (numbered).
    trainable : bool
        Whether the weights are trained.
    """

    def __init__(
        self, inputs: Any, outputs: Any, name: str | None = None, trainable: bool = True, **kwargs: Any
    ) -> None:
        if kwargs:
            raise TypeError(f"Functional model got unexpected arguments {sorted(kwargs)}")
        Layer.__init__(self, trainable=trainable, name=name or backend.unique_name("functional"))
        self._init_trainer()
        for t in flatten(inputs):
            if not isinstance(t, KerasTensor):
                raise ValueError(f"All `inputs` values must be KerasTensors. Received: inputs={inputs} "
                                 f"including invalid value {t} of type {type(t)}")  # fmt: skip
        for t in flatten(outputs):
            if not isinstance(t, KerasTensor):
                raise ValueError(f"All `outputs` values must be KerasTensors. Received: outputs={outputs} "
                                 f"including invalid value {t} of type {type(t)}")  # fmt: skip
        self._functional_inputs = inputs
        self._functional_outputs = outputs
        self._map_graph()
        self._explicit_layers = self._operations()
        self.built = True
        self._call_has_training_arg = True

    _TF_MODULE_IGNORED_PROPERTIES = Model._TF_MODULE_IGNORED_PROPERTIES | frozenset(
        ("_functional_inputs", "_functional_outputs", "_nodes", "_nodes_by_depth", "_ordered_layers")
    )

    @property
    def inputs(self) -> list[KerasTensor]:
        """The model's input KerasTensors."""
        return flatten(self._functional_inputs)

    @property
    def outputs(self) -> list[KerasTensor]:
        """The model's output KerasTensors."""
        return flatten(self._functional_outputs)

    @property
    def input(self) -> Any:
        """The inputs as given to the constructor."""
        return self._functional_inputs

    @property
    def output(self) -> Any:
        """The outputs as given to the constructor."""
        return self._functional_outputs

    def _map_graph(self) -> None:
        """Keras' ``map_graph``: each node's depth (0 at the outputs), the layers ordered by
        decreasing depth (ties in the order a walk from the outputs meets them), and the nodes
        to run, deepest first."""
        inputs = flatten(self._functional_inputs)
        input_ids = {id(t) for t in inputs}
        finished: set[int] = set()
        in_progress: set[int] = set()
        decreasing: list[Node] = []
        op_index: dict[int, int] = {}

        def walk(t: KerasTensor) -> None:
            if t._keras_history is None:
                raise ValueError(f"{t} was not produced by a Keras layer call")
            layer, node_index, _ = t._keras_history
            node = layer._inbound_nodes[node_index]
            if id(node) in finished:
                return
            if id(node) in in_progress:
                raise ValueError(f"Tensor {t} from operation '{layer.name}' is part of a cycle.")
            op_index.setdefault(id(layer), len(op_index))
            in_progress.add(id(node))
            if node.is_input:
                if id(t) not in input_ids:
                    raise ValueError(
                        f"Graph disconnected: cannot find parent for KerasTensor {t.name}: it comes from an "
                        "Input that is not among the model's `inputs`."
                    )
            elif id(t) not in input_ids:
                for parent in node.input_tensors:
                    walk(parent)
            finished.add(id(node))
            in_progress.discard(id(node))
            decreasing.append(node)

        for t in flatten(self._functional_outputs):
            walk(t)
        node_depth: dict[int, int] = {}
        nodes: dict[int, Node] = {}
        layer_depth: dict[int, int] = {}
        layers: dict[int, Layer] = {}
        for node in reversed(decreasing):
            depth = node_depth.setdefault(id(node), 0)
            nodes[id(node)] = node
            depth = max(depth, layer_depth.get(id(node.operation), 0))
            layer_depth[id(node.operation)] = depth
            layers[id(node.operation)] = node.operation
            node_depth[id(node)] = depth
            for parent in node.parent_nodes:
                node_depth[id(parent)] = max(depth + 1, node_depth.get(id(parent), 0))
                nodes[id(parent)] = parent
        for t in inputs:
            assert t._keras_history is not None
            layer = t._keras_history[0]
            if id(layer) not in layer_depth:
                layer_depth[id(layer)] = 0
                layers[id(layer)] = layer
                op_index[id(layer)] = -1
                node_depth[id(layer._inbound_nodes[0])] = 0
                nodes[id(layer._inbound_nodes[0])] = layer._inbound_nodes[0]
        self._nodes_by_depth: dict[int, list[Node]] = {}
        for key, depth in node_depth.items():
            self._nodes_by_depth.setdefault(depth, []).append(nodes[key])
        by_depth: dict[int, list[Layer]] = {}
        for key, depth in layer_depth.items():
            by_depth.setdefault(depth, []).append(layers[key])
        ordered: list[Layer] = []
        for depth in sorted(by_depth, reverse=True):
            ordered.extend(sorted(by_depth[depth], key=lambda op: op_index[id(op)]))
        self._ordered_layers = ordered
        self._nodes = [n for d in sorted(self._nodes_by_depth, reverse=True) for n in self._nodes_by_depth[d]]

    def _operations(self) -> list[Layer]:
        return list(self._ordered_layers)

    @property
    def layers(self) -> list[Layer]:
        """Every layer of the graph, input layers included, in the order they run."""
        return self._operations()

    def call(self, inputs: Any, training: bool | None = None, mask: Any = None) -> Any:
        """Runs the graph's layer calls on ``inputs`` (structured like the model's ``inputs``).

        ``mask`` (one per input, structured like them) is attached to the inputs, as
        Keras does, so masking layers downstream see it."""
        flat_masks = flatten(mask) if mask is not None else []
        values: dict[int, Any] = {}
        given = self._functional_inputs
        if isinstance(given, Mapping) and isinstance(inputs, Mapping):
            pairs = [(given[k], inputs[k]) for k in given]
        elif isinstance(inputs, Mapping):
            # A dict keyed by the inputs' names (the names given to keras.Input).
            missing = [kt.name for kt in flatten(given) if kt.name not in inputs]
            if missing:
                raise ValueError(f"Model {self.name}: the input dict has no entry for the input(s) {missing}; "
                                 f"it has {sorted(inputs)}")  # fmt: skip
            pairs = [(kt, inputs[kt.name]) for kt in flatten(given)]
        else:
            flat_in = flatten(inputs) if isinstance(inputs, (list, tuple, Mapping)) else [inputs]
            flat_kt = flatten(given)
            if len(flat_in) != len(flat_kt):
                raise ValueError(f"Model {self.name} expects {len(flat_kt)} input(s), but it received "
                                 f"{len(flat_in)} input tensors.")  # fmt: skip
            pairs = list(zip(flat_kt, flat_in))
        for k, (kt, value) in enumerate(pairs):
            t = value
            if not isinstance(t, Tensor):
                t = _core.convert_to_tensor(np.asarray(t.numpy() if isinstance(t, Variable) else t))
            if t.dtype.name != kt.dtype and kt.dtype.startswith("float") and t.dtype.name.startswith("float"):
                t = _core.cast(t, kt.dtype)
            expect = kt.shape
            if len(t.shape) != len(expect) or any(e is not None and e != d for e, d in zip(expect, t.shape)):
                raise ValueError(
                    f'Input 0 of layer "{self.name}" is incompatible with the layer: expected shape={expect}, '
                    f"found shape={tuple(t.shape)}"
                )
            if k < len(flat_masks) and flat_masks[k] is not None:
                t = _with_mask(t, flat_masks[k])
            values[id(kt)] = t
        for node in self._nodes:
            if node.is_input:
                continue

            def fetch(v: Any) -> Any:
                return values[id(v)] if isinstance(v, KerasTensor) else v

            args = map_structure(fetch, node.call_args)
            kwargs = map_structure(fetch, node.call_kwargs)
            if training is not None:
                kwargs["training"] = training
            out = node.operation(*args, **kwargs)
            for kt, value in zip(node.output_tensors, flatten(out)):
                values[id(kt)] = value
        return map_structure(lambda kt: values[id(kt)], self._functional_outputs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The outputs' shapes (batch dimension from ``input_shape``)."""
        outs = map_structure(lambda kt: kt.shape, self._functional_outputs)
        return outs

    def _sequential_like(self) -> bool:
        nodes: list[Node] = []
        for v in self._nodes_by_depth.values():
            if len(v) > 1 or (len(v) == 1 and len(v[0].input_tensors) > 1):
                return False
            nodes += v
        for layer in self.layers:
            if sum(1 for n in layer._inbound_nodes if n in nodes) > 1:
                return False
        return True

    def _connections(self, layer: Layer) -> str:
        parts = []
        for node in layer._inbound_nodes:
            if node not in self._nodes:
                continue
            for kt in node.input_tensors:
                assert kt._keras_history is not None
                inbound, node_index, tensor_index = kt._keras_history
                parts.append(f"{inbound.name}[{node_index}][{tensor_index}]")
        return ", ".join(parts) if parts else "-"

    def get_config(self) -> dict[str, Any]:
        """Functional models' configs (layer graphs) are not serialized by tapers."""
        raise NotImplementedError("tapers.keras does not serialize functional models' configs")


# ----------------------------------------------------------------------------- Sequential


class Sequential(Model):
    """A stack of layers, each called on the previous one's output (``keras.Sequential``).

    With a ``keras.Input`` first (or ``input_shape=`` on the first layer) the
    model is built at once and ``summary`` shows output shapes; otherwise it
    builds on its first call.

    Parameters
    ----------
    layers : list of Layer, optional
        The stack, optionally starting with a ``keras.Input``.
    trainable : bool
        Whether the weights are trained.
    name : str, optional
        Default ``sequential`` (numbered).
    """

    def __init__(self, layers: Sequence[Any] | None = None, trainable: bool = True, name: str | None = None) -> None:
        Layer.__init__(self, trainable=trainable, name=name or backend.unique_name("sequential"))
        self._init_trainer()
        self._sequential_layers: list[Layer] = []
        self._input_tensor: KerasTensor | None = None
        self._graph: Functional | None = None
        for layer in layers or []:
            self.add(layer, rebuild=False)
        self._maybe_rebuild()

    _TF_MODULE_IGNORED_PROPERTIES = Model._TF_MODULE_IGNORED_PROPERTIES | frozenset(
        ("_input_tensor", "_graph", "_outputs")
    )

    def add(self, layer: Any, rebuild: bool = True) -> None:
        """Appends a layer (or a ``keras.Input``, allowed only first)."""
        if isinstance(layer, KerasTensor):
            if self._sequential_layers or self._input_tensor is not None:
                raise ValueError("A keras.Input can only be the first element of a Sequential model.")
            self._input_tensor = layer
        elif isinstance(layer, InputLayer):
            if self._sequential_layers or self._input_tensor is not None:
                raise ValueError("An InputLayer can only be the first element of a Sequential model.")
            self._input_tensor = layer.output_tensor
        elif isinstance(layer, Layer):
            if not self._sequential_layers and self._input_tensor is None and layer._input_shape_arg is not None:
                il = InputLayer(batch_shape=layer._input_shape_arg, dtype=layer.dtype)
                self._input_tensor = il.output_tensor
            names = {x.name for x in self._sequential_layers}
            if layer.name in names:
                raise ValueError(f"All layers added to a Sequential model should have unique names. Name "
                                 f"'{layer.name}' is already the name of a layer in this model.")  # fmt: skip
            self._sequential_layers.append(layer)
        else:
            raise ValueError(f"Only instances of `keras.Layer` can be added to a Sequential model. Received: {layer} "
                             f"(of type {type(layer)})")  # fmt: skip
        if rebuild:
            self._maybe_rebuild()

    def pop(self, rebuild: bool = True) -> Layer:
        """Removes and returns the last layer."""
        if not self._sequential_layers:
            raise IndexError("There are no layers in the model.")
        layer = self._sequential_layers.pop()
        self.built = False
        self._graph = None
        if rebuild:
            self._maybe_rebuild()
        return layer

    def _maybe_rebuild(self) -> None:
        self.built = False
        self._graph = None
        if self._input_tensor is not None and self._sequential_layers:
            self.build(self._input_tensor.shape)

    @property
    def layers(self) -> list[Layer]:
        """The stacked layers (without an input layer)."""
        return list(self._sequential_layers)

    @property
    def _layers(self) -> list[Layer]:
        return list(self._sequential_layers)

    def build(self, input_shape: Any = None) -> None:
        """Calls the layers on a symbolic input of ``input_shape`` (batch dimension included)."""
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        if self._input_tensor is None or tuple(self._input_tensor.shape) != tuple(input_shape):
            il = InputLayer(batch_shape=tuple(input_shape))
            self._input_tensor = il.output_tensor
        x: Any = self._input_tensor
        with name_scope(self.name):
            for layer in self._sequential_layers:
                x = layer(x)
        self._outputs = x
        self.built = True

    def call(self, inputs: Any, training: bool | None = None, mask: Any = None) -> Any:
        """Each layer on the previous output (``mask``, if given, attached to the input first)."""
        x = inputs if mask is None else _with_mask(_core.convert_to_tensor(inputs), mask)
        for layer in self._sequential_layers:
            if training is not None and layer._call_has_training_arg:
                x = layer(x, training=training)
            else:
                x = layer(x)
        return x

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if (
            not self.built
            and args
            and not isinstance(args[0], KerasTensor)
            and not any(isinstance(v, KerasTensor) for v in flatten(args))
        ):
            first = flatten(args[0])[0]
            shape = tuple(first.shape) if hasattr(first, "shape") else np.asarray(first).shape
            self.build((None, *shape[1:]))
        return super().__call__(*args, **kwargs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Each layer's output shape in turn."""
        shape = input_shape
        for layer in self._sequential_layers:
            shape = layer.compute_output_shape(shape)
        return shape

    def get_config(self) -> dict[str, Any]:
        """``name``, ``trainable`` and the layers' class names and configs."""
        return {
            "name": self.name,
            "trainable": self.trainable,
            "layers": [{"class_name": type(x).__name__, "config": x.get_config()} for x in self._sequential_layers],
        }
