"""``keras.layers.Layer``, symbolic tensors (``keras.Input``) and the nodes the functional API records.

A Layer is a ``tapers.Module`` whose weights are ``tapers.Variable``\\ s, so a
``GradientTape`` watches them and ``tapers.optimizers`` update them. As in
Keras 3, a layer builds itself (creates its weights) on its first call, from
the shape of its input; weights are named ``<scopes>/<layer>/<weight>:0``
(Keras' ``variable.path`` plus TensorFlow's ``:0``).
"""

from __future__ import annotations

import inspect
import re
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ... import _core
from ..._array_extra import init_scope
from ..._module import Module, _current_scope, name_scope
from ...dtypes import as_dtype
from .. import backend, constraints, regularizers
from .._lookup import to_config

__all__ = ["Input", "InputLayer", "InputSpec", "KerasTensor", "Layer", "Node", "Wrapper"]

Variable = _core.Variable
Tensor = _core.Tensor


# ----------------------------------------------------------------------------- nest helpers


def flatten(value: Any) -> list[Any]:
    """Leaves of nested lists, tuples and dicts (dicts in key order), as Keras' ``tree.flatten``."""
    if not isinstance(value, (list, tuple, dict, Mapping)):
        return [value]
    if isinstance(value, Mapping):
        return [leaf for k in sorted(value) for leaf in flatten(value[k])]
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in flatten(v)]
    return [value]


def map_structure(fn: Callable[[Any], Any], value: Any) -> Any:
    """Applies ``fn`` to every leaf, keeping the lists, tuples and dicts around them."""
    if isinstance(value, Mapping):
        return {k: map_structure(fn, v) for k, v in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(map_structure(fn, v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(map_structure(fn, v) for v in value)
    return fn(value)


def to_snake_case(name: str) -> str:
    """Keras' default layer names: ``AveragePooling2D`` -> ``average_pooling2d``, ``ReLU`` -> ``re_lu``."""
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def _dtype_name(dtype: Any) -> str:
    if isinstance(dtype, Mapping):  # a serialized DTypePolicy
        dtype = dtype.get("config", {}).get("name", "float32")
    if dtype is None:
        return backend.floatx()
    if not isinstance(dtype, str) and hasattr(dtype, "compute_dtype") and hasattr(dtype, "variable_dtype"):
        dtype = dtype.name  # a keras.mixed_precision.DTypePolicy
    if isinstance(dtype, str) and dtype.startswith("mixed_"):
        raise NotImplementedError(f"Mixed-precision policies are not supported by tapers.keras, got {dtype!r}")
    return as_dtype(dtype).name


def _is_float(dtype: Any) -> bool:
    return as_dtype(dtype).name in ("float16", "bfloat16", "float32", "float64")


def standardize_shape(shape: Any) -> tuple[int | None, ...]:
    """A shape as a tuple of ints and ``None``\\ s."""
    if shape is None:
        raise ValueError("Undefined shapes are not supported.")
    if isinstance(shape, int):
        return (shape,)
    out: list[int | None] = []
    for d in shape:
        if d is None:
            out.append(None)
        else:
            d = int(d)
            if d < 0:
                raise ValueError(f"Negative dimensions are not allowed. Received: input_shape={tuple(shape)}")
            out.append(d)
    return tuple(out)


# ----------------------------------------------------------------------------- symbolic tensors


class KerasTensor:
    """A symbolic tensor of the functional API: a shape (``None`` for unknown
    dimensions, such as the batch), a dtype, and the layer call that produces it.

    Only layers can be applied to a KerasTensor; arithmetic on it (Keras 3
    turns ``x + 1`` into an op layer) is not implemented by tapers and raises
    ``TypeError``.

    Parameters
    ----------
    shape : sequence of int or None
        With the batch dimension.
    dtype : str
        Default ``"float32"``.
    name : str, optional
        Default ``keras_tensor`` (numbered).
    """

    def __init__(self, shape: Sequence[int | None], dtype: Any = "float32", name: str | None = None) -> None:
        self.shape = standardize_shape(shape)
        self.dtype = _dtype_name(dtype)
        self.name = name if name is not None else backend.unique_name("keras_tensor")
        self._keras_history: tuple[Layer, int, int] | None = None
        self._keras_mask: Any = None  # the symbolic mask (Keras' ``_keras_mask``), set by masking layers

    @property
    def ndim(self) -> int:
        """The rank."""
        return len(self.shape)

    def __repr__(self) -> str:
        return f"<KerasTensor shape={self.shape}, dtype={self.dtype}, sparse=False, ragged=False, name={self.name}>"

    def _unsupported(self, *_: Any, **__: Any) -> Any:
        raise TypeError(
            "tapers.keras: a symbolic KerasTensor only goes into Keras layers; ops on it (arithmetic, "
            "tapers functions) are not supported. Wrap the computation in a Layer (or keras.layers.Activation)."
        )

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _unsupported
    __truediv__ = __rtruediv__ = __matmul__ = __rmatmul__ = __neg__ = __pow__ = _unsupported
    __array__ = _unsupported

    def __bool__(self) -> bool:
        raise TypeError("A symbolic KerasTensor has no truth value.")


class Node:
    """One call of a layer on KerasTensors: its arguments and its outputs."""

    def __init__(self, layer: Layer, call_args: tuple[Any, ...], call_kwargs: dict[str, Any], outputs: Any) -> None:
        self.operation = layer
        self.call_args = call_args
        self.call_kwargs = call_kwargs
        self.outputs = outputs
        self.input_tensors = [x for x in flatten((call_args, call_kwargs)) if isinstance(x, KerasTensor)]
        self.output_tensors = [x for x in flatten(outputs) if isinstance(x, KerasTensor)]
        self.is_input = isinstance(layer, InputLayer)
        node_index = len(layer._inbound_nodes)
        layer._inbound_nodes.append(self)
        for i, t in enumerate(self.output_tensors):
            t._keras_history = (layer, node_index, i)

    @property
    def parent_nodes(self) -> list[Node]:
        """The nodes that produced this node's inputs."""
        out = []
        for t in self.input_tensors:
            assert t._keras_history is not None
            layer, node_index, _ = t._keras_history
            out.append(layer._inbound_nodes[node_index])
        return out


# ----------------------------------------------------------------------------- masks


def get_keras_mask(x: Any) -> Any:
    """The Keras mask attached to ``x`` (Keras' ``x._keras_mask``), or None.

    tapers tensors take no attributes, so masks live in a side table keyed by the
    tensor (shared with ``keras.losses``, whose reductions read it).

    Parameters
    ----------
    x : Tensor or any
        A layer's output.

    Returns
    -------
    Tensor or None
        The boolean mask, or None when ``x`` carries none.
    """
    if isinstance(x, KerasTensor):
        return getattr(x, "_keras_mask", None)
    if not isinstance(x, Tensor):
        return None
    from ..losses import _get_mask  # the table keras.losses reads (imported late: losses imports layers' deps)

    return _get_mask(x)


def set_keras_mask(x: Any, mask: Any) -> None:
    """Attaches ``mask`` to the tensor ``x`` (Keras' ``backend.set_keras_mask``).

    Parameters
    ----------
    x : Tensor
        The tensor that carries the mask.
    mask : Tensor or None
        A boolean tensor (None leaves ``x`` without a mask).

    Returns
    -------
    None
    """
    if mask is None:
        return
    if isinstance(x, KerasTensor):
        x._keras_mask = mask
        return
    if isinstance(x, Tensor):
        from ..losses import _set_mask

        _set_mask(x, mask)


def _mask_of(x: Any) -> Any:
    """The masks of a nest (None when no leaf carries one)."""
    if isinstance(x, (list, tuple, Mapping)):
        masks = map_structure(get_keras_mask, x)
        return masks if any(m is not None for m in flatten(masks)) else None
    return get_keras_mask(x)


def _is_tensor_arg(x: Any) -> bool:
    return any(isinstance(v, (Tensor, Variable)) for v in flatten(x))


# ----------------------------------------------------------------------------- call context


class _CallContext(threading.local):
    def __init__(self) -> None:
        self.stack: list[tuple[Layer, bool | None]] = []


_context = _CallContext()


def _call_accepts(fn: Callable[..., Any], arg: str) -> tuple[bool, Any]:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False, None
    if arg in params:
        default = params[arg].default
        return True, None if default is inspect.Parameter.empty else default
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()), None


def _to_input_tensor(x: Any, dtype: str, autocast: bool) -> Any:
    """Keras converts numpy inputs to tensors and casts float inputs to the layer's compute dtype."""
    if isinstance(x, (Tensor, Variable)):
        t = x.value() if isinstance(x, Variable) else x
    elif isinstance(x, (np.ndarray, np.generic, list, float, int)) and not isinstance(x, bool):
        arr = np.asarray(x)
        if arr.dtype == object:
            return x
        t = _core.convert_to_tensor(arr)
    else:
        return x
    if autocast and _is_float(t.dtype) and t.dtype.name != dtype and _is_float(dtype):
        t = _core.cast(t, dtype)
    return t


def _is_number_nest(x: Any) -> bool:
    if isinstance(x, (list, tuple)):
        return len(x) > 0 and all(_is_number_nest(v) for v in x)
    return isinstance(x, (int, float, np.number)) and not isinstance(x, bool)


def _convert_inputs(x: Any, dtype: str, autocast: bool) -> Any:
    """A nested list of numbers (``layer([[2.0, 2.0]])``) is one tensor; other structures
    (a list of inputs) are converted leaf by leaf."""
    if _is_number_nest(x) and isinstance(x, (list, tuple)):
        t = _core.convert_to_tensor(np.asarray(x))
        return _to_input_tensor(t, dtype, autocast)
    return map_structure(lambda v: _to_input_tensor(v, dtype, autocast), x)


# ----------------------------------------------------------------------------- Layer


class InputSpec:
    """The rank, dtype and shape a layer accepts (``keras.layers.InputSpec``).

    A layer that sets ``self.input_spec`` (one spec, or a list with one per
    input) has each call's inputs checked against it before ``build`` and
    ``call``, eager and symbolic, with Keras 3's messages.

    Parameters
    ----------
    dtype : str, optional
        The dtype every input must have.
    shape : tuple, optional
        The full shape, batch included; ``None`` entries match any size. Sets ``ndim``.
    ndim, max_ndim, min_ndim : int, optional
        The exact, largest and smallest rank.
    axes : dict, optional
        ``{axis: size}`` for single axes (negative axes count from the end).
    allow_last_axis_squeeze : bool
        Whether a trailing axis of size 1 may be missing on either side when
        comparing ``shape`` (the rank is then not checked).
    name : str, optional
        The key of this input when inputs come as a dict.
    optional : bool
        Whether the input may be ``None``.
    """

    def __init__(
        self,
        dtype: Any = None,
        shape: Any = None,
        ndim: int | None = None,
        max_ndim: int | None = None,
        min_ndim: int | None = None,
        axes: Mapping[Any, int | None] | None = None,
        allow_last_axis_squeeze: bool = False,
        name: str | None = None,
        optional: bool = False,
    ) -> None:
        self.dtype = _dtype_name(dtype) if dtype is not None else None
        if shape is not None:
            self.shape: tuple[int | None, ...] | None = standardize_shape(shape)
            self.ndim: int | None = len(self.shape)
        else:
            self.shape = None
            self.ndim = ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.name = name
        self.optional = optional
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        try:
            given = axes or {}
            self.axes = {int(k): given[k] for k in given}
        except (ValueError, TypeError):
            raise TypeError(f"Argument `axes` must be a dict with integer keys. Received: axes={axes}") from None
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            max_dim = (self.ndim if self.ndim else self.max_ndim or 0) - 1
            max_axis = max(self.axes)
            if max_axis > max_dim:
                raise ValueError(f"Axis {max_axis} is greater than the maximum allowed value: {max_dim}")

    def __repr__(self) -> str:
        parts = [
            f"dtype={self.dtype}" if self.dtype else "",
            f"shape={self.shape}" if self.shape else "",
            f"ndim={self.ndim}" if self.ndim else "",
            f"max_ndim={self.max_ndim}" if self.max_ndim else "",
            f"min_ndim={self.min_ndim}" if self.min_ndim else "",
            f"axes={self.axes}" if self.axes else "",
        ]
        return f"InputSpec({', '.join(p for p in parts if p)})"

    def get_config(self) -> dict[str, Any]:
        """Keras 3's keys (``from_config`` recreates the spec)."""
        return {
            "dtype": self.dtype,
            "shape": self.shape,
            "ndim": self.ndim,
            "max_ndim": self.max_ndim,
            "min_ndim": self.min_ndim,
            "axes": self.axes,
            "optional": self.optional,
        }

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> InputSpec:
        """The spec ``get_config`` describes."""
        return cls(**config)


def assert_input_compatibility(input_spec: Any, inputs: Any, layer_name: str) -> None:
    """Raises Keras 3's ``ValueError`` when ``inputs`` do not meet ``input_spec`` (see :class:`InputSpec`).

    Parameters
    ----------
    input_spec : InputSpec, list of them, or None
        What the layer accepts (nothing is checked for None).
    inputs : tensor, KerasTensor or nest of them
        The first argument of the call.
    layer_name : str
        For the messages.

    Returns
    -------
    None
    """
    if not input_spec:
        return
    specs = flatten(input_spec)
    if isinstance(inputs, Mapping):
        names = [s.name if s is not None else None for s in specs]
        if all(names):
            for n in names:
                if n not in inputs:
                    raise ValueError(
                        f'Missing data for input "{n}". You passed a data dictionary with keys '
                        f"{list(inputs.keys())}. Expected the following keys: {names}"
                    )
            inputs = [inputs[n] for n in names]
    xs = flatten(inputs)
    if len(xs) != len(specs):
        raise ValueError(
            f'Layer "{layer_name}" expects {len(specs)} input(s), but it received {len(xs)} input tensors. '
            f"Inputs received: {xs}"
        )
    for i, (x, spec) in enumerate(zip(xs, specs)):
        if spec is None or (x is None and spec.optional):
            continue
        if not hasattr(x, "shape"):
            raise ValueError(
                f"Inputs to a layer should be tensors. Got '{x}' (of type {type(x)}) as input for layer "
                f"'{layer_name}'."
            )
        shape = standardize_shape(x.shape)
        ndim = len(shape)
        head = f"Input {i} with name '{spec.name}' of layer '{layer_name}' is incompatible with the layer: "
        if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
            raise ValueError(f"{head}expected ndim={spec.ndim}, found ndim={ndim}. Full shape received: {shape}")
        if spec.max_ndim is not None and ndim > spec.max_ndim:
            raise ValueError(f"{head}expected max_ndim={spec.max_ndim}, found ndim={ndim}")
        if spec.min_ndim is not None and ndim < spec.min_ndim:
            raise ValueError(
                f"{head}expected min_ndim={spec.min_ndim}, found ndim={ndim}. Full shape received: {shape}"
            )
        if spec.dtype is not None:
            dtype = _dtype_name(x.dtype)
            if dtype != spec.dtype:
                raise ValueError(f"{head}expected dtype={spec.dtype}, found dtype={dtype}")
        for axis, value in spec.axes.items():
            if value is not None and -ndim <= axis < ndim and shape[axis] not in (value, None):
                raise ValueError(
                    f"{head}expected axis {axis} of input shape to have value {value}, "
                    f"but received input with shape {shape}"
                )
        if spec.shape is not None:
            spec_shape: tuple[int | None, ...] = spec.shape
            got = shape
            if spec.allow_last_axis_squeeze:
                if got and got[-1] == 1:
                    got = got[:-1]
                if spec_shape and spec_shape[-1] == 1:
                    spec_shape = spec_shape[:-1]
            for want, have in zip(spec_shape, got):
                if want is not None and have is not None and want != have:
                    raise ValueError(f"{head}expected shape={spec.shape}, found shape={got}")


class Layer(Module):
    """The base class of Keras layers (``keras.layers.Layer``).

    Subclasses create weights in ``__init__`` or in ``build(input_shape)``
    (called once, on the first call, with the input's shape) through
    :meth:`add_weight`, and compute in ``call(inputs, ...)``; ``call`` may take
    ``training`` (passed down from the outer layer when not given) and add
    losses with :meth:`add_loss`.

    Parameters
    ----------
    trainable : bool
        Whether the layer's weights are trained (``trainable_weights``).
    name : str, optional
        Default: the class name in snake case, numbered (``dense``, ``dense_1``, ...).
    dtype : str, optional
        The weights' and computations' dtype (default ``"float32"``); float inputs are cast to it.
    """

    _TF_MODULE_IGNORED_PROPERTIES = frozenset(
        ("_inbound_nodes", "_call_spec_cache", "_losses", "_tracked_cache", "_weight_regularizers")
    )
    _attr_order: dict[str, None]  # attribute names in assignment order: sublayers are tracked in it
    #: What each call's first argument must look like (checked before build and call; see InputSpec).
    input_spec: Any = None

    def __init__(
        self,
        *,
        activity_regularizer: Any = None,
        trainable: bool = True,
        dtype: Any = None,
        autocast: bool = True,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        input_shape = kwargs.pop("input_shape", None)
        input_dim = kwargs.pop("input_dim", None)
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        kwargs.pop("input_length", None)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to {type(self).__name__}: {kwargs}")
        object.__setattr__(self, "_attr_order", {})
        if name is None:
            name = backend.unique_name(to_snake_case(type(self).__name__))
        if not isinstance(name, str) or "/" in name:
            raise ValueError(
                f"Argument `name` must be a string and cannot contain character `/`. Received: name={name}"
            )
        self._name = name
        self._name_scope = name_scope(name)
        self._scope_name = name + "/"
        self._trainable = bool(trainable)
        self._dtype_policy_name = _dtype_name(dtype)
        self.autocast = autocast
        self.built = False
        self._trainable_variables: list[Variable] = []
        self._non_trainable_variables: list[Variable] = []
        self._losses: list[Tensor] = []
        # (weight, regularizer) pairs of add_weight(regularizer=...).
        self._weight_regularizers: list[tuple[Variable, Any]] = []
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self._inbound_nodes: list[Node] = []
        self._explicit_layers: list[Layer] = []
        self._build_shapes: Any = None
        # Keras: a layer that overrides compute_mask supports masking.
        self.supports_masking = type(self).compute_mask is not Layer.compute_mask
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        if batch_input_shape is not None:
            self._input_shape_arg: tuple[int | None, ...] | None = standardize_shape(batch_input_shape)
        elif input_shape is not None:
            self._input_shape_arg = (None, *standardize_shape(input_shape))
        else:
            self._input_shape_arg = None
        call_fn = type(self).call
        self._call_has_training_arg, self._call_training_default = _call_accepts(call_fn, "training")
        self._call_has_mask_arg = _call_accepts(call_fn, "mask")[0]
        try:
            self._call_params: list[str] = list(inspect.signature(call_fn).parameters)[1:]
        except (TypeError, ValueError):
            self._call_params = []

    # -- attribute tracking -------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        try:
            order = object.__getattribute__(self, "_attr_order")
        except AttributeError:
            order = {}
            object.__setattr__(self, "_attr_order", order)
        # Only what can hold layers, weights or metrics is tracked (lists and dicts always: they
        # may be filled later), so walking a layer's tracked attributes stays cheap.
        if _may_track(value):
            order.pop(name, None)
            order[name] = None
        else:
            order.pop(name, None)
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self._attr_order.pop(name, None)
        object.__delattr__(self, name)

    def _tracked_values(self) -> list[Any]:
        """The leaves of the tracked attributes, in assignment order. Cached until an attribute
        is set or a tracked list/dict changes length (a training step walks them many times)."""
        d = self.__dict__
        ignored = self._TF_MODULE_IGNORED_PROPERTIES
        names = [n for n in self._attr_order if n not in ignored and n not in _OWN_LISTS and n in d]
        key = tuple((n, id(d[n]), len(d[n]) if isinstance(d[n], (list, dict)) else -1) for n in names)
        cache = d.get("_tracked_cache")
        if cache is not None and cache[0] == key:
            return cache[1]
        out = [leaf for n in names for leaf in flatten(d[n])]
        object.__setattr__(self, "_tracked_cache", (key, out))
        return out

    @property
    def _layers(self) -> list[Layer]:
        """Direct sublayers, in the order they were assigned."""
        out: list[Layer] = []
        seen: set[int] = {id(self)}
        for v in [*self._explicit_layers, *self._tracked_values()]:
            if isinstance(v, Layer) and id(v) not in seen:
                seen.add(id(v))
                out.append(v)
        return out

    def _flatten_layers(self, include_self: bool = True, recursive: bool = True) -> list[Layer]:
        out: list[Layer] = [self] if include_self else []
        seen = {id(self)}
        queue = list(self._layers)
        while queue:
            layer = queue.pop(0)
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            out.append(layer)
            if recursive:
                queue = list(layer._layers) + queue
        return out

    def _own_variables(self) -> list[Variable]:
        out = list(self._trainable_variables) + list(self._non_trainable_variables)
        seen = {id(v) for v in out}
        for v in self._tracked_values():
            if isinstance(v, Variable) and id(v) not in seen:
                seen.add(id(v))
                out.append(v)
        return out

    # -- properties ---------------------------------------------------------

    @property
    def name(self) -> str:
        """The layer's name."""
        return self._name

    @property
    def dtype(self) -> str:
        """The dtype of the layer's weights (``"float32"``)."""
        return self._dtype_policy_name

    @property
    def compute_dtype(self) -> str:
        """The dtype of the layer's computations: the same as ``dtype`` (no mixed precision)."""
        return self._dtype_policy_name

    @property
    def variable_dtype(self) -> str:
        """The dtype of the layer's weights."""
        return self._dtype_policy_name

    @property
    def trainable(self) -> bool:
        """Whether ``trainable_weights`` lists this layer's (and its sublayers') trainable weights."""
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._trainable = bool(value)
        for layer in self._layers:
            layer.trainable = value

    @property
    def weights(self) -> list[Variable]:
        """All weights: this layer's (trainable first), then each sublayer's, each once."""
        out: list[Variable] = []
        seen: set[int] = set()
        for v in self._own_variables():
            if id(v) not in seen:
                seen.add(id(v))
                out.append(v)
        for layer in self._layers:
            for v in layer.weights:
                if id(v) not in seen:
                    seen.add(id(v))
                    out.append(v)
        return out

    @property
    def trainable_weights(self) -> list[Variable]:
        """The weights the optimizer updates: empty when ``trainable`` is False."""
        if not self.trainable:
            return []
        out: list[Variable] = []
        seen: set[int] = set()
        for v in [*(v for v in self._own_variables() if v.trainable), *self._sublayer_weights("trainable_weights")]:
            if id(v) not in seen:
                seen.add(id(v))
                out.append(v)
        return out

    @property
    def non_trainable_weights(self) -> list[Variable]:
        """Weights not trained: Variables created with ``trainable=False`` (BatchNormalization's
        moving statistics), or all weights when ``trainable`` is False."""
        if not self.trainable:
            return self.weights
        out: list[Variable] = []
        seen: set[int] = set()
        own = [v for v in self._own_variables() if not v.trainable]
        for v in [*own, *self._sublayer_weights("non_trainable_weights")]:
            if id(v) not in seen:
                seen.add(id(v))
                out.append(v)
        return out

    def _sublayer_weights(self, attr: str) -> list[Variable]:
        return [v for layer in self._layers for v in getattr(layer, attr)]

    @property
    def variables(self) -> list[Variable]:  # type: ignore[override]
        """Keras' ``variables``: the same list as ``weights``."""
        return self.weights

    @property
    def trainable_variables(self) -> list[Variable]:  # type: ignore[override]
        """Keras' ``trainable_variables``: the same list as ``trainable_weights``."""
        return self.trainable_weights

    @property
    def non_trainable_variables(self) -> list[Variable]:  # type: ignore[override]
        """Keras' ``non_trainable_variables``: the same list as ``non_trainable_weights``."""
        return self.non_trainable_weights

    @property
    def losses(self) -> list[Tensor]:
        """Losses added with :meth:`add_loss` (and activity regularizers) during the last call, by this
        layer and its sublayers, then the penalties of the weights' regularizers on their current
        values (computed at each read, as Keras 3)."""
        out: list[Tensor] = []
        regularized: dict[int, Any] = {}
        for layer in self._flatten_layers():
            out.extend(layer._losses)
            for var, reg in layer._weight_regularizers:
                regularized[id(var)] = reg
        if regularized:
            for var in self.trainable_weights:
                reg = regularized.get(id(var))
                if reg is not None:
                    out.append(reg(var))
        return out

    @property
    def metrics(self) -> list[Any]:
        """Metric objects held as attributes of this layer and its sublayers."""
        out: list[Any] = []
        for layer in self._flatten_layers():
            for v in layer._tracked_values():
                if _is_metric(v) and v not in out:
                    out.append(v)
        return out

    @property
    def input(self) -> Any:
        """The KerasTensor(s) of the layer's first functional call."""
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} has never been called and thus has no defined input.")
        node = self._inbound_nodes[0]
        return node.outputs if node.is_input else node.call_args[0]

    @property
    def output(self) -> Any:
        """The KerasTensor(s) of the layer's first functional call."""
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} has never been called and thus has no defined output.")
        return self._inbound_nodes[0].outputs

    # -- weights ------------------------------------------------------------

    def add_weight(
        self,
        shape: Sequence[int] | None = None,
        initializer: Any = None,
        dtype: Any = None,
        trainable: bool = True,
        autocast: bool = True,
        regularizer: Any = None,
        constraint: Any = None,
        aggregation: str = "none",
        overwrite_with_gradient: bool = False,
        name: str | None = None,
    ) -> Variable:
        """Creates a weight (a ``tapers.Variable``) of this layer, named ``<layer>/<name>:0``.

        ``initializer`` is a name (``"glorot_uniform"``, ``"zeros"``, ...), an
        initializer object or a callable ``init(shape, dtype)``; the default is
        Glorot uniform for floats and zeros otherwise. Initial values come from
        tapers' own random streams, so they differ from Keras' numbers but follow
        Keras' formulas.
        """
        del autocast, aggregation, overwrite_with_gradient
        regularizer = regularizers.get(regularizer)
        constraint = constraints.get(constraint)
        given = standardize_shape(() if shape is None else shape)
        if any(d is None for d in given):
            raise ValueError(f"add_weight needs a fully defined shape, got {given}")
        full = tuple(int(d) for d in given if d is not None)
        dtype = _dtype_name(dtype if dtype is not None else self.variable_dtype)
        if initializer is None:
            initializer = "glorot_uniform" if _is_float(dtype) else "zeros"
        name = name if name is not None else backend.unique_name("variable")
        # Lifted out of a trace (a model built by the first call of a compiled step): the
        # initial value is drawn once, with no guard on the seed an unseeded initializer reads.
        with init_scope():
            value = _initial_value(initializer, full, dtype)
            if _current_scope().endswith(self._scope_name):
                var = Variable(value, trainable=trainable, name=name, dtype=dtype, constraint=constraint)
            else:
                with name_scope(self.name):
                    var = Variable(value, trainable=trainable, name=name, dtype=dtype, constraint=constraint)
        if regularizer is not None:
            self._weight_regularizers.append((var, regularizer))
        (self._trainable_variables if trainable else self._non_trainable_variables).append(var)
        return var

    def add_loss(self, loss: Any) -> None:
        """Adds a loss (a scalar tensor) computed in ``call``; ``losses`` lists it until the next call,
        and ``fit`` adds it to the compiled loss."""
        self._losses.append(_core.convert_to_tensor(loss))

    def count_params(self) -> int:
        """The number of scalars in the layer's weights."""
        if not self.built:
            raise ValueError(
                f"You tried to call `count_params` on layer '{self.name}', but the layer isn't built. "
                "You can build it manually via: `layer.build(input_shape)`."
            )
        return int(sum(int(np.prod(v.shape)) for v in self.weights))

    def get_weights(self) -> list[np.ndarray]:
        """The weights' values as numpy arrays, in ``weights`` order."""
        return [v.numpy() for v in self.weights]

    def set_weights(self, weights: Sequence[Any]) -> None:
        """Assigns numpy values to the weights, in ``weights`` order (shapes must match)."""
        own = self.weights
        if len(weights) != len(own):
            raise ValueError(
                f"Layer {self.name} weight shape mismatch: expected {len(own)} weights, received {len(weights)}"
            )
        for v, w in zip(own, weights):
            w = np.asarray(w)
            if tuple(v.shape) != w.shape:
                raise ValueError(
                    f"Layer {self.name} weight shape {tuple(v.shape)} is not compatible with provided weight "
                    f"shape {w.shape}."
                )
        for v, w in zip(own, weights):
            v.assign(np.asarray(w, dtype=v.dtype.as_numpy_dtype))

    # -- config -------------------------------------------------------------

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments that recreate this layer (``from_config``)."""
        config: dict[str, Any] = {
            "name": self.name,
            "trainable": self.trainable,
            "dtype": {
                "module": "keras",
                "class_name": "DTypePolicy",
                "config": {"name": self.dtype},
                "registered_name": None,
            },
        }
        if self.activity_regularizer is not None:
            config["activity_regularizer"] = _serialized(self.activity_regularizer)
        return config

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Layer:
        """Creates a layer from ``get_config``'s dictionary."""
        return cls(**config)

    # -- building and calling ----------------------------------------------

    def build(self, input_shape: Any = None) -> None:
        """Creates the weights; the default creates none. Called once, with the first input's shape."""
        del input_shape
        self.built = True

    def call(self, *args: Any, **kwargs: Any) -> Any:
        """The computation; subclasses override it."""
        raise NotImplementedError(f"Layer {type(self).__name__} does not have a `call()` method implemented.")

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The output shape for an input shape; by default found by running ``call`` on zeros."""
        raise NotImplementedError

    def get_build_config(self) -> dict[str, Any] | None:
        """Keras 3's record of how the layer was built: ``{"input_shape": ...}`` from its first call (or
        :meth:`build_from_config`); None before. Unlike Keras, a direct ``build(shape)`` call is not
        recorded.

        Returns
        -------
        dict or None
        """
        if not self.built or self._build_shapes is None:
            return None
        shapes = self._build_shapes
        return {"input_shape": tuple(shapes) if isinstance(shapes, list) else shapes}

    def build_from_config(self, config: Mapping[str, Any] | None) -> None:
        """Builds the layer from :meth:`get_build_config`'s dict (nothing for None).

        Parameters
        ----------
        config : dict or None

        Returns
        -------
        None
        """
        if not config:
            return
        if "input_shape" in config:
            shape = config["input_shape"]
            self._build_shapes = shape
            with self._scope():
                self.build(shape)
            self.built = True
        elif "shapes_dict" in config:
            with self._scope():
                self.build(**config["shapes_dict"])
            self.built = True

    @property
    def dtype_policy(self) -> Any:
        """The layer's ``keras.mixed_precision.DTypePolicy`` (compute and variable dtype: :attr:`dtype`)."""
        from ..mixed_precision import DTypePolicy

        return DTypePolicy(self.dtype)

    @property
    def input_dtype(self) -> str:
        """The dtype float inputs are cast to (the compute dtype)."""
        return self.compute_dtype

    def add_variable(
        self,
        shape: Sequence[int] | None = None,
        initializer: Any = None,
        dtype: Any = None,
        trainable: bool = True,
        autocast: bool = True,
        regularizer: Any = None,
        constraint: Any = None,
        name: str | None = None,
    ) -> Variable:
        """:meth:`add_weight` under Keras 3's other name (same arguments, minus aggregation).

        Parameters
        ----------
        shape, initializer, dtype, trainable, autocast, regularizer, constraint, name
            As :meth:`add_weight`.

        Returns
        -------
        Variable
        """
        return self.add_weight(
            shape=shape, initializer=initializer, dtype=dtype, trainable=trainable, autocast=autocast,
            regularizer=regularizer, constraint=constraint, name=name,
        )  # fmt: skip

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The mask of the output: by default the input's mask (used when ``supports_masking``).

        Parameters
        ----------
        inputs : Tensor or nest
            The call's first argument.
        mask : Tensor, nest or None
            The input's mask (Keras' ``previous_mask``: the ``mask`` argument of the call).

        Returns
        -------
        Tensor, nest or None
            The output's mask.
        """
        del inputs
        return mask

    def _populate_masks(self, args: tuple[Any, ...], kwargs: dict[str, Any], first_mask: Any) -> Any:
        """Keras 3's step 6 of ``__call__``: fills ``mask`` (or ``<arg>_mask``) from the inputs' masks when
        the caller gave none; returns the previous mask (the explicit ``mask``, else the first input's)."""
        params = self._call_params
        named: dict[str, Any] = {}
        for name, value in zip(params, args):
            named[name] = value
        for name, value in kwargs.items():
            if name not in ("mask", "training"):
                named[name] = value
        tensor_args = {k: v for k, v in named.items() if k not in ("mask", "training") and _is_tensor_arg(v)}
        if len(tensor_args) == 1:
            if self._call_has_mask_arg and kwargs.get("mask") is None and "mask" not in params[: len(args)]:
                (only,) = tensor_args.values()
                mask = first_mask if only is args[0] else _mask_of(only)
                if mask is not None:
                    kwargs["mask"] = mask
        elif len(tensor_args) > 1:
            for k, v in tensor_args.items():
                key = f"{k}_mask"
                if key in params and kwargs.get(key) is None and key not in params[: len(args)]:
                    mask = first_mask if v is args[0] else _mask_of(v)
                    if mask is not None:
                        kwargs[key] = mask
        explicit = kwargs.get("mask")
        if explicit is None and "mask" in params[: len(args)]:
            explicit = args[params.index("mask")]
        return explicit if explicit is not None else first_mask

    def _set_mask_metadata(self, inputs: Any, outputs: Any, previous_mask: Any) -> None:
        flat_outputs = flatten(outputs)
        if all(get_keras_mask(x) is not None for x in flat_outputs):
            return
        output_masks = self.compute_mask(inputs, previous_mask)
        if output_masks is None:
            return
        for tensor, mask in zip(flat_outputs, flatten(output_masks)):
            if get_keras_mask(tensor) is None and mask is not None:
                set_keras_mask(tensor, mask)

    def _scope(self) -> name_scope:
        return name_scope(self.name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not args and "inputs" in kwargs:
            args = (kwargs.pop("inputs"),)
        if any(isinstance(x, KerasTensor) for x in flatten((args, kwargs))):
            return self._symbolic_call(*args, **kwargs)
        if not args:
            raise ValueError(f"Layer {self.name} was called without inputs.")
        first_mask = _mask_of(args[0])
        inputs = _convert_inputs(args[0], self.compute_dtype, self.autocast)
        if first_mask is not None and inputs is not args[0]:  # Keras keeps the mask of a converted (cast) input
            if isinstance(inputs, Tensor) and not isinstance(first_mask, (list, tuple, Mapping)):
                set_keras_mask(inputs, first_mask)
            elif isinstance(inputs, (list, tuple)) and isinstance(first_mask, (list, tuple)):
                for t, m in zip(inputs, first_mask):
                    if get_keras_mask(t) is None:
                        set_keras_mask(t, m)
        args = (inputs, *args[1:])
        assert_input_compatibility(self.input_spec, inputs, self.name)
        previous_mask = self._populate_masks(args, kwargs, first_mask)
        training = kwargs.pop("training", None)
        outer = _context.stack[-1][1] if _context.stack else None
        if training is None:
            training = outer
        if training is None and self._call_has_training_arg:
            training = self._call_training_default
        if self._call_has_training_arg and training is not None:
            kwargs["training"] = bool(training)
        if not _context.stack:
            for layer in self._flatten_layers():
                layer._losses = []
        else:
            self._losses = []
        _context.stack.append((self, training))
        try:
            with self._scope():
                if not self.built:
                    shapes = map_structure(lambda x: tuple(x.shape) if isinstance(x, Tensor) else x, inputs)
                    self._build_shapes = shapes
                    self.build(shapes)
                    self.built = True
                try:
                    outputs = self.call(*args, **kwargs)
                except Exception as e:  # noqa: BLE001 - re-raised, with Keras' call context
                    _raise_with_call_info(e, self, args, kwargs)
                    raise
                if self.activity_regularizer is not None:
                    self._add_activity_losses(outputs)
        finally:
            _context.stack.pop()
        if self.supports_masking:
            self._set_mask_metadata(inputs, outputs, previous_mask)
        elif previous_mask is not None and any(m is not None for m in flatten(previous_mask)):
            warnings.warn(
                f"Layer '{self.name}' (of type {type(self).__name__}) was passed an input with a mask attached "
                "to it. However, this layer does not support masking and will therefore destroy the mask "
                "information. Downstream layers will not see the mask.",
                stacklevel=2,
            )
        return outputs

    def _add_activity_losses(self, outputs: Any) -> None:
        # Keras 3: the penalty of each output tensor, divided by its batch size
        # (0 for an empty batch).
        for out in flatten(outputs):
            if not isinstance(out, Tensor):
                continue
            loss = _core.convert_to_tensor(self.activity_regularizer(out))
            if len(out.shape) > 0:
                loss = _core.math.divide_no_nan(loss, _core.cast(out.shape[0], loss.dtype))
            self.add_loss(loss)

    def _symbolic_call(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.pop("training", None)
        inputs = args[0] if args else None
        assert_input_compatibility(self.input_spec, inputs, self.name)
        shapes = map_structure(lambda x: x.shape if isinstance(x, KerasTensor) else x, inputs)
        if not self.built:
            self._build_shapes = shapes
            with self._scope():
                self.build(shapes)
            self.built = True
        outputs = self.compute_output_spec(*args, **kwargs)
        Node(self, args, kwargs, outputs)
        if self.supports_masking:
            previous_mask = kwargs.get("mask")
            if previous_mask is None:
                previous_mask = _mask_of(inputs)
            try:  # symbolic masks are informative only: the model recomputes them on real tensors
                self._set_mask_metadata(inputs, outputs, previous_mask)
            except Exception:  # noqa: BLE001 - a compute_mask that needs real tensors leaves no symbolic mask
                pass
        return outputs

    def compute_output_spec(self, *args: Any, **kwargs: Any) -> Any:
        """KerasTensor(s) describing the output for KerasTensor inputs: from ``compute_output_shape``
        when the layer defines it, else by running ``call`` on zeros (unknown dimensions as 1)."""
        inputs = args[0]
        try:
            out_shape = self.compute_output_shape(map_structure(lambda x: x.shape, inputs))
        except NotImplementedError:
            return self._spec_by_running(*args, **kwargs)
        dtype = self.compute_dtype
        if isinstance(out_shape, tuple) and all(d is None or isinstance(d, int) for d in out_shape):
            return KerasTensor(out_shape, dtype)
        return map_structure(lambda s: KerasTensor(s, dtype), _shape_tree(out_shape))

    def _spec_by_running(self, *args: Any, **kwargs: Any) -> Any:
        def zeros(x: Any) -> Any:
            if isinstance(x, KerasTensor):
                return _core.zeros([1 if d is None else d for d in x.shape], dtype=x.dtype)
            return x

        first = flatten(args[0])[0]
        batch_unknown = isinstance(first, KerasTensor) and first.ndim > 0 and first.shape[0] is None
        cargs = map_structure(zeros, args)
        ckw = map_structure(zeros, kwargs)
        if self._call_has_training_arg:
            ckw["training"] = False
        with self._scope():
            out = self.call(*cargs, **ckw)
        self._losses = []

        def spec(t: Any) -> Any:
            shape = list(t.shape)
            if batch_unknown and shape:
                shape[0] = None
            return KerasTensor(shape, t.dtype.name)

        return map_structure(spec, out)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"



class Wrapper(Layer):
    """The base class of layers that wrap another layer (``keras.layers.Wrapper``): ``TimeDistributed``,
    ``Bidirectional``.

    Parameters
    ----------
    layer : Layer
        The wrapped layer (``self.layer``), built with the wrapper's input shape by default.
    **kwargs
        ``Layer``'s arguments.
    """

    def __init__(self, layer: Any, **kwargs: Any) -> None:
        if not isinstance(layer, Layer):
            raise ValueError(
                f"Layer {layer} supplied to Wrapper isn't a supported layer type. Please ensure wrapped layer is a "
                "valid Keras layer."
            )
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape: Any = None) -> None:
        """Builds the wrapped layer with ``input_shape`` (if not built)."""
        if not self.layer.built:
            self.layer.build(input_shape)
            self.layer.built = True
        self.built = True

    def get_config(self) -> dict[str, Any]:
        """``Layer``'s keys and ``layer``: the wrapped layer serialized."""
        from ._serialization import serialize

        return {**super().get_config(), "layer": serialize(self.layer)}

    @classmethod
    def from_config(cls, config: Mapping[str, Any], custom_objects: Mapping[str, Any] | None = None) -> Layer:
        """The wrapper ``get_config`` describes (the wrapped layer looked up in ``keras.layers``)."""
        from . import deserialize

        config = dict(config)
        layer = deserialize(config.pop("layer"), custom_objects=custom_objects)
        return cls(layer, **config)


def _shape_tree(value: Any) -> Any:
    """Marks shape tuples as leaves so ``map_structure`` does not walk into them."""
    if isinstance(value, (list, tuple)) and all(d is None or isinstance(d, int) for d in value):
        return _ShapeLeaf(value)
    if isinstance(value, Mapping):
        return {k: _shape_tree(v) for k, v in value.items()}
    return type(value)(_shape_tree(v) for v in value)


class _ShapeLeaf:
    def __init__(self, shape: Sequence[int | None]) -> None:
        self.shape = tuple(shape)


_OWN_LISTS = frozenset(("_trainable_variables", "_non_trainable_variables", "_tracked_cache"))


def _may_track(value: Any) -> bool:
    if value is None or isinstance(value, (str, int, float, bool, np.ndarray, Tensor)):
        return False
    if isinstance(value, (Layer, Variable, list, dict)):
        return True
    if isinstance(value, tuple):
        return any(_may_track(v) for v in value)
    return _is_metric(value)


def _is_metric(v: Any) -> bool:
    if isinstance(v, (Layer, Variable, Tensor, np.ndarray, str, int, float, list, tuple, dict)) or v is None:
        return False
    return all(hasattr(v, a) for a in ("update_state", "result", "reset_state"))


def _initial_value(initializer: Any, shape: tuple[int, ...], dtype: str) -> Any:
    from .. import initializers

    init = initializers.get(initializer) if not callable(initializer) or isinstance(initializer, str) else initializer
    if isinstance(init, type):
        init = init()
    value = init(shape, dtype=dtype)
    t = _core.convert_to_tensor(value)
    if t.dtype.name != dtype:
        t = _core.cast(t, dtype)
    if tuple(t.shape) != tuple(shape):
        raise ValueError(f"initializer returned shape {tuple(t.shape)} for a weight of shape {tuple(shape)}")
    return t


# ----------------------------------------------------------------------------- inputs


class InputLayer(Layer):
    """The layer behind ``keras.Input``: it holds the symbolic input tensor of a functional model.

    Parameters
    ----------
    shape : sequence of int or None, optional
        Without the batch dimension.
    batch_size : int, optional
        The batch dimension, unknown by default.
    dtype : str, optional
        Default ``"float32"``.
    batch_shape : sequence of int or None, optional
        The whole shape, instead of ``shape`` and ``batch_size``.
    name : str, optional
        Default ``input_layer`` (numbered).
    """

    def __init__(
        self,
        shape: Sequence[int | None] | None = None,
        batch_size: int | None = None,
        dtype: Any = None,
        sparse: bool | None = None,
        batch_shape: Sequence[int | None] | None = None,
        input_tensor: Any = None,
        optional: bool = False,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        if sparse:
            raise NotImplementedError("tapers.keras has no sparse inputs")
        if input_tensor is not None:
            raise NotImplementedError("tapers.keras.Input does not take an existing tensor")
        del optional
        if name is None:
            name = backend.unique_name("input_layer")
        super().__init__(name=name, dtype=dtype, **kwargs)
        if batch_shape is None:
            if shape is None:
                raise ValueError("You must pass a `shape` argument.")
            batch_shape = (batch_size, *standardize_shape(shape))
        self._batch_shape = standardize_shape(batch_shape)
        self.built = True
        self.output_tensor = KerasTensor(self._batch_shape, self.dtype, name=name)
        Node(self, (), {}, self.output_tensor)

    @property
    def batch_shape(self) -> tuple[int | None, ...]:
        """The input's shape with its batch dimension."""
        return self._batch_shape

    def call(self, *args: Any, **kwargs: Any) -> Any:
        """An InputLayer is never called."""
        raise RuntimeError("An InputLayer is not called; it stands for a model's input.")

    def get_config(self) -> dict[str, Any]:
        """``batch_shape``, ``dtype``, ``sparse``, ``ragged``, ``name`` (Keras 3's keys)."""
        return {
            "batch_shape": self._batch_shape,
            "dtype": self.dtype,
            "sparse": False,
            "ragged": False,
            "name": self.name,
        }


def Input(  # noqa: N802 - Keras' name
    shape: Sequence[int | None] | None = None,
    batch_size: int | None = None,
    dtype: Any = None,
    sparse: bool | None = None,
    batch_shape: Sequence[int | None] | None = None,
    name: str | None = None,
    tensor: Any = None,
    optional: bool = False,
) -> KerasTensor:
    """A symbolic input of a functional model (``keras.Input``): ``shape`` without the batch dimension.

    Parameters
    ----------
    shape : sequence of int or None
        The shape of one example (``None`` for an unknown size).
    batch_size : int, optional
        A fixed batch size.
    dtype : str, optional
        Default ``"float32"``.
    batch_shape : sequence of int or None, optional
        The whole shape, instead of ``shape`` and ``batch_size``.
    name : str, optional
        The input layer's name.

    Returns
    -------
    KerasTensor
        To call layers on, and to pass to ``keras.Model(inputs, outputs)``.

    Examples
    --------
    >>> inputs = tf.keras.Input(shape=(4,))
    >>> outputs = tf.keras.layers.Dense(2)(inputs)
    >>> model = tf.keras.Model(inputs, outputs)
    """
    layer = InputLayer(
        shape=shape,
        batch_size=batch_size,
        dtype=dtype,
        sparse=sparse,
        batch_shape=batch_shape,
        input_tensor=tensor,
        optional=optional,
        name=name,
    )
    return layer.output_tensor


def _format_argument(value: Any) -> str:
    if isinstance(value, Tensor):
        return f"tapers.Tensor(shape={tuple(value.shape)}, dtype={value.dtype.name})"
    return repr(value)


def _raise_with_call_info(e: Exception, layer: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Re-raise ``e`` as Keras 3 does from a layer's ``call``: same class, message prefixed with
    "Exception encountered when calling X.call()" and followed by the arguments it received (only the
    innermost layer adds this). Returns (so the caller re-raises ``e`` unchanged) when the arguments do
    not bind to ``call``'s signature or the context was added already."""
    from ...errors import OpError

    if getattr(e, "_keras_call_info_injected", False):
        return
    try:
        signature = inspect.signature(layer.call)
        bound = signature.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return
    context = []
    for param in signature.parameters.values():
        if param.name in bound.arguments:
            value = map_structure(_format_argument, bound.arguments[param.name])
        else:
            value = param.default
        context.append(f"  \u2022 {param.name}={value}")
    if not context:
        return
    if isinstance(e, OpError):
        message = e.message
    else:
        message = str(e.args[0]) if e.args else ""
    name = f"{type(layer).__name__}.call()"
    message = (
        f"Exception encountered when calling {name}.\n\n\x1b[1m{message}\x1b[0m\n\n"
        f"Arguments received by {name}:\n" + "\n".join(context)
    )
    new: BaseException
    if isinstance(e, OpError):
        new = type(e)(e.node_def, e.op, message)
    else:
        try:
            new = type(e)(message)
        except Exception:  # noqa: BLE001 - an exception class with another signature
            new = RuntimeError(message)
    new._keras_call_info_injected = True  # type: ignore[attr-defined]
    raise new.with_traceback(e.__traceback__) from None


def _serialized(obj: Any) -> Any:
    """A regularizer or constraint in a layer's config: ``{"class_name", "config"}``, None as is,
    or a plain function as is."""
    if obj is None or not hasattr(obj, "get_config"):
        return obj
    return to_config(obj)
