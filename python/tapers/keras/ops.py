"""``keras.ops``: Keras 3's backend-agnostic ops, written with tapers ops.

``tf.keras.ops.<name>`` after ``import tapers as tf`` (``from keras import ops``
in Keras 3). Names, argument conventions (numpy style: ``axis``, ``keepdims``,
``x1``/``x2``) and result dtypes follow Keras 3 with the TensorFlow backend,
including its type promotion (:func:`result_type`, JAX's lattice: Python scalars
are weakly typed, integers divided or averaged give ``float32``, 64-bit results
stay 64-bit as on TensorFlow). Every op works on tapers tensors, so gradients
flow through ``tf.GradientTape`` and the ops trace inside ``tapers.function``.

Differences from Keras (TensorFlow backend):

* Absent: ``eig`` (tapers has no general eigensolver). The ``nn``,
  ``linalg`` and ``numpy`` sub-namespaces hold the ops above
  (``ops.nn.relu is ops.relu``); ``ops.image`` holds a subset: ``resize`` (no
  antialiasing or Lanczos kernels), ``rgb_to_grayscale``, ``rgb_to_hsv``,
  ``hsv_to_rgb``, ``pad_images``, ``crop_images`` and ``extract_patches``.
  ``view`` reinterprets bytes through numpy (no gradient, as a bitcast has
  none).
* Not supported, with a clear error: ``sparse=True`` / ``ragged=True`` (no
  sparse tensors), ``ctc_decode(strategy="beam_search")``,
  ``vectorize(signature=...)``, ``flash_attention=True`` and
  ``attn_logits_soft_cap`` (Keras on TensorFlow rejects both too), 64-bit
  shifts and ``uint64`` bitwise ops.
* Bitwise ops are computed with integer arithmetic (tapers has no bitwise
  kernels); Fourier transforms (``fft``, ``fft2``, ``ifft2``, ``rfft``,
  ``irfft``, ``stft``, ``istft``) are exact DFTs computed as products with
  cosine/sine matrices, O(n^2) per axis instead of an FFT's O(n log n).
* Where Keras' TensorFlow backend fails only for lack of a TensorFlow kernel or
  by a bug, tapers gives numpy's answer: bool ``add``/``multiply``/``maximum``
  and bitwise ops, int ``reciprocal``, bool ``sign`` (``x`` itself), an int
  ``pad_width``, ``concatenate(axis=None)`` of mixed ranks, ``kaiser(0)``,
  channels_last adaptive pooling, batched ``lu_factor``, and ``rot90(k=2)``
  (Keras scrambles non-square planes).
* ``argpartition`` returns a full stable argsort (a valid partition; Keras
  leaves the order within each side unspecified too).
"""

from __future__ import annotations

import builtins
import functools
import inspect
import math as _pymath
import re
import types
from typing import Any, Callable

import numpy as np

_NAMES: list[str] = []


def _tf() -> Any:
    import tapers

    return tapers


# --------------------------------------------------------------------------- docstrings

_PARAM_DOCS = {
    "x": "Input tensor (or anything ``convert_to_tensor`` accepts).",
    "x1": "First input tensor or Python scalar.",
    "x2": "Second input tensor or Python scalar (broadcast against ``x1``).",
    "axis": "Axis or axes to work along (``None``: all axes / the flattened input).",
    "keepdims": "Keep reduced axes as size-1 dimensions.",
    "dtype": 'Result dtype (a string such as ``"float32"`` or a ``tapers.DType``); ``None`` picks Keras\' default.',
    "shape": "Shape of the result (tuple of ints).",
    "inputs": "Input tensor.",
    "xs": "Sequence of tensors.",
    "k": "Integer parameter of the op (see the summary).",
    "f": "Python callable.",
    "target": "Target (labels) tensor.",
    "output": "Predicted tensor.",
    "from_logits": "Whether ``output`` holds logits instead of probabilities.",
    "epsilon": "Small constant added for numerical stability.",
    "seed": "Integer seed or a ``SeedGenerator``.",
    "indices": "Integer index tensor.",
    "q": "Quantile(s) in ``[0, 1]`` (``quantile``) or percentile(s) in ``[0, 100]``.",
    "method": "Interpolation method: ``linear``, ``lower``, ``higher``, ``midpoint`` or ``nearest``.",
}


def _op(summary: str, returns: str = "Tensor") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Registers a public op and writes its numpy-style docstring from its signature."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        lines = [summary, "", "Parameters", "----------"]
        for p in inspect.signature(fn).parameters.values():
            star = "*" if p.kind is p.VAR_POSITIONAL else "**" if p.kind is p.VAR_KEYWORD else ""
            default = "" if p.default is p.empty else f", default {p.default!r}"
            lines.append(f"{star}{p.name} :{default}")
            lines.append("    " + _PARAM_DOCS.get(p.name, f"As ``keras.ops.{fn.__name__}``'s ``{p.name}``."))
        lines += [
            "",
            "Returns",
            "-------",
            returns,
            f"    The result, as ``keras.ops.{fn.__name__}`` (TensorFlow backend).",
        ]
        fn.__doc__ = "\n".join(lines) + "\n"
        _NAMES.append(fn.__name__)
        return fn

    return wrap


# --------------------------------------------------------------------------- dtypes (Keras' lattice)

_INT = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64")
_FLOAT = ("bfloat16", "float16", "float32", "float64")
_LATTICE = {
    "bool": ["int"],
    "uint8": ["int16", "uint16"],
    "uint16": ["int32", "uint32"],
    "uint32": ["int64", "uint64"],
    "uint64": ["float"],
    "int": ["uint8", "int8", "complex64"],
    "int8": ["int16"],
    "int16": ["int32"],
    "int32": ["int64"],
    "int64": ["float"],
    "float": ["bfloat16", "float16"],
    "bfloat16": ["float32"],
    "float16": ["float32"],
    "float32": ["float64", "complex64"],
    "float64": ["complex128"],
    "complex64": ["complex128"],
    "complex128": [],
}


def _upper_bounds() -> dict[str, set[str]]:
    ub = {n: {n} for n in _LATTICE}
    for n in _LATTICE:
        while True:
            new = set().union(*(_LATTICE[b] for b in ub[n]))
            if new <= ub[n]:
                break
            ub[n] |= new
    return ub


_UB = _upper_bounds()


def _lub(nodes: set[str]) -> str:
    cub = set.intersection(*(_UB[n] for n in nodes))
    lub = (cub & nodes) or {c for c in cub if cub <= _UB[c]}
    if len(lub) != 1:
        raise ValueError(f"Input dtypes {tuple(sorted(nodes))} have no available implicit dtype promotion path.")
    return lub.pop()


def standardize_dtype(dtype: Any) -> str:
    """Keras' name for a dtype.

    Parameters
    ----------
    dtype :
        A ``tapers.DType``, numpy dtype, string, or the Python types ``int`` / ``float`` / ``bool``.

    Returns
    -------
    str
        ``"float32"``, ``"int32"``, ... (``float`` gives ``"float32"``, ``int`` gives ``"int64"`` as in Keras on
        TensorFlow).
    """
    if dtype is None:
        return "float32"
    if dtype is bool:
        return "bool"
    if dtype is int:
        return "int64"
    if dtype is float:
        return "float32"
    if dtype is complex:
        return "complex128"
    name = getattr(dtype, "name", None)
    if isinstance(name, str):
        return name if name != "double" else "float64"
    if isinstance(dtype, str):
        return _tf().as_dtype(dtype).name
    return np.dtype(dtype).name


def result_type(*dtypes: Any) -> str:
    """The dtype Keras' type promotion gives to an op on inputs of these dtypes.

    Parameters
    ----------
    *dtypes :
        Dtypes; the Python types ``int`` and ``float`` stand for weakly typed Python scalars.

    Returns
    -------
    str
        The promoted dtype's name (``result_type("int32", float) == "float32"``).
    """
    if not dtypes:
        return "float32"
    names, weak = [], []
    for d in dtypes:
        w = d is int or d is float
        names.append(standardize_dtype("float32" if d is None else d))
        weak.append(w)
    if len(names) == 1:
        out, out_weak = names[0], weak[0]
    elif len(set(names)) == 1 and not builtins.all(weak):
        out, out_weak = names[0], False
    elif builtins.all(weak):
        out, out_weak = _lub(set(names)), True
    else:
        nodes = set()
        for n, w in zip(names, weak):
            if w and n != "bool":
                n = "float" if "float" in n else "int" if "int" in n else n
            nodes.add(n)
        out = _lub(nodes)
        out_weak = out in ("int", "float")
    out_weak = out != "bool" and out_weak
    if out_weak:
        out = {"b": "bool", "i": "int32", "u": "uint32"}.get(out[:1], "float32")
    return {"uint64": "uint32"}.get(out, out)


# --------------------------------------------------------------------------- helpers


def _is_tensor(x: Any) -> bool:
    return bool(_tf().is_tensor(x))


def _t(x: Any, dtype: Any = None) -> Any:
    """``x`` as a tapers tensor (cast to ``dtype`` when given)."""
    tf = _tf()
    if dtype is not None:
        dtype = standardize_dtype(dtype)
    if _is_tensor(x):
        x = tf.convert_to_tensor(x)
        if dtype is not None and x.dtype.name != dtype:
            x = tf.cast(x, dtype)
        return x
    if isinstance(x, (list, tuple)) and builtins.any(_is_tensor(e) for e in x):
        x = tf.stack([_t(e) for e in x])
        return x if dtype is None else _t(x, dtype)
    if dtype is None:
        return tf.convert_to_tensor(x)
    arr = np.asarray(x)
    if arr.dtype.kind in "fc" and dtype not in _FLOAT and not dtype.startswith("complex"):
        return tf.cast(tf.convert_to_tensor(arr), dtype)
    return tf.convert_to_tensor(arr.astype(dtype) if dtype != "bfloat16" else arr, dtype=dtype)


def _dt(x: Any) -> Any:
    """The dtype Keras promotes ``x`` as: ``int``/``float`` for Python scalars, else the tensor dtype."""
    if isinstance(x, bool):
        return "bool"
    if isinstance(x, (int, float)) and not isinstance(x, np.generic):
        return type(x)
    return _t(x).dtype.name


def _dtn(x: Any) -> str:
    return str(_t(x).dtype.name)


def _pair(x1: Any, x2: Any, *extra: Any) -> tuple[Any, Any]:
    dtype = result_type(_dt(x1), _dt(x2), *extra)
    return _t(x1, dtype), _t(x2, dtype)


def _float(x: Any) -> Any:
    """``x`` in a float dtype: ints and bools become ``float32`` (Keras' floatx)."""
    x = _t(x)
    name = x.dtype.name
    if name in _FLOAT or name.startswith("complex"):
        return x
    return _tf().cast(x, "float32")


def _shape(x: Any) -> tuple[Any, ...]:
    return tuple(_t(x).shape)


def _axes(axis: Any, ndim: int) -> list[int] | None:
    if axis is None:
        return None
    if isinstance(axis, int):
        axis = [axis]
    out = []
    for a in axis:
        a = int(a)
        if not -ndim <= a < builtins.max(ndim, 1):
            raise ValueError(f"axis {a} is out of bounds for a tensor of rank {ndim}")
        out.append(a % ndim if ndim else 0)
    return out


def _no_sparse(sparse: Any, name: str) -> None:
    if sparse:
        raise NotImplementedError(f"keras.ops.{name}: sparse=True is not supported by tapers (no sparse tensors)")


# --------------------------------------------------------------------------- core


@_op("Converts ``x`` to a tensor (numpy arrays keep their dtype; Python ints give int32, floats float32).")
def convert_to_tensor(x: Any, dtype: Any = None, sparse: Any = None, ragged: Any = None) -> Any:
    _no_sparse(sparse, "convert_to_tensor")
    if ragged:
        raise NotImplementedError("keras.ops.convert_to_tensor: ragged=True is not supported by tapers")
    return _t(x, dtype)


@_op("Converts ``x`` to a numpy array.", "numpy.ndarray")
def convert_to_numpy(x: Any) -> Any:
    return np.asarray(_t(x).numpy())


@_op("Whether ``x`` is a tapers tensor (or variable).", "bool")
def is_tensor(x: Any) -> bool:
    return _is_tensor(x)


@_op("Casts ``x`` to ``dtype``.")
def cast(x: Any, dtype: Any) -> Any:
    return _t(x, dtype)


@_op("Casts ``x`` to ``dtype``, clipping values to the target's range first.")
def saturate_cast(x: Any, dtype: Any) -> Any:
    return _tf().saturate_cast(_t(x), standardize_dtype(dtype))


@_op("The static shape of ``x``.", "tuple")
def shape(x: Any) -> tuple[Any, ...]:
    return _shape(x)


@_op("The dtype name of ``x``.", "str")
def dtype(x: Any) -> str:
    return _dtn(x)


@_op("The rank of ``x``.", "int")
def ndim(x: Any) -> int:
    return len(_shape(x))


@_op("The number of elements of ``x`` (an int32 scalar tensor).")
def size(x: Any) -> Any:
    return _tf().size(_t(x), out_type="int32")


@_op("``variable`` with gradients stopped.")
def stop_gradient(variable: Any) -> Any:
    return _tf().stop_gradient(_t(variable))


@_op("``true_fn()`` if ``pred`` else ``false_fn()`` (traced as a conditional inside ``tapers.function``).", "Any")
def cond(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any]) -> Any:
    return _tf().cond(pred, true_fn, false_fn)


@_op("Repeats ``body`` while ``cond`` holds; returns the final ``loop_vars`` (same structure).", "Any")
def while_loop(
    cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Any, maximum_iterations: Any = None
) -> Any:
    tf = _tf()
    single = not isinstance(loop_vars, (list, tuple))
    lv = (loop_vars,) if single else tuple(loop_vars)

    def _cond(*args: Any) -> Any:
        return cond(*args)

    def _body(*args: Any) -> Any:
        out = body(*args)
        return (out,) if single or not isinstance(out, (list, tuple)) else tuple(out)

    out = tf.while_loop(_cond, _body, lv, maximum_iterations=maximum_iterations)
    if single:
        return out[0] if isinstance(out, (list, tuple)) else out
    return type(loop_vars)(out) if isinstance(loop_vars, list) else tuple(out)


@_op("``body_fun(i, val)`` for ``i`` in ``range(lower, upper)``, starting from ``init_val``.", "Any")
def fori_loop(lower: Any, upper: Any, body_fun: Callable[[Any, Any], Any], init_val: Any) -> Any:
    tf = _tf()
    if isinstance(lower, int) and isinstance(upper, int):
        val = init_val
        for i in range(lower, upper):
            val = body_fun(_t(i), val)
        return val
    res = tf.while_loop(lambda i, v: i < upper, lambda i, v: (i + 1, body_fun(i, v)), (_t(lower), init_val))
    return res[1]


@_op("Scans ``f(carry, x) -> (carry, y)`` over the leading axis of ``xs``; returns ``(carry, stacked ys)``.", "tuple")
def scan(f: Callable[[Any, Any], Any], init: Any, xs: Any = None, length: Any = None, reverse: bool = False,
         unroll: Any = 1) -> tuple[Any, Any]:  # fmt: skip
    tf = _tf()
    nest = tf.nest
    if xs is None:
        if length is None:
            raise ValueError("keras.ops.scan: give `xs` or `length`")
        n = int(length)
        x_list: list[Any] = [None] * n
    else:
        flat = [_t(e) for e in nest.flatten(xs)]
        n = int(flat[0].shape[0])
        if length is not None and int(length) != n:
            raise ValueError(f"keras.ops.scan: length={length} but xs has leading dimension {n}")
        x_list = [nest.pack_sequence_as(xs, [e[i] for e in flat]) for i in range(n)]
    order = range(n - 1, -1, -1) if reverse else range(n)
    carry = init
    ys: list[Any] = [None] * n
    for i in order:
        carry, y = f(carry, x_list[i])
        ys[i] = y
    if n == 0 or ys[0] is None:
        return carry, None
    flat_ys = [nest.flatten(y) for y in ys]
    stacked = [tf.stack([fy[j] for fy in flat_ys]) for j in range(len(flat_ys[0]))]
    return carry, nest.pack_sequence_as(ys[0], stacked)


@_op("Applies ``f`` to each slice of ``xs`` along the leading axis and stacks the results.", "Any")
def map(f: Callable[[Any], Any], xs: Any) -> Any:
    tf = _tf()
    flat = [_t(e) for e in tf.nest.flatten(xs)]
    n = int(flat[0].shape[0])
    outs = [f(tf.nest.pack_sequence_as(xs, [e[i] for e in flat])) for i in range(n)]
    flat_out = [tf.nest.flatten(o) for o in outs]
    return tf.nest.pack_sequence_as(outs[0], [tf.stack([fo[j] for fo in flat_out]) for j in range(len(flat_out[0]))])


@_op("``function`` applied to each element along the leading axis of ``elements``, stacked.", "Any")
def vectorized_map(function: Callable[[Any], Any], elements: Any) -> Any:
    return _tf().vectorized_map(function, elements)


@_op("Calls ``branches[index](*operands)`` (``index`` clipped to the valid range, as Keras does).", "Any")
def switch(index: Any, branches: Any, *operands: Any) -> Any:
    tf = _tf()
    idx = tf.clip_by_value(_t(index, "int32"), 0, len(branches) - 1)
    return tf.switch_case(idx, [functools.partial(b, *operands) for b in branches])


@_op("Decorator: ``f`` returns ``(y, grad_fn)``; ``grad_fn(*upstream)`` gives the input gradients.", "Callable")
def custom_gradient(f: Callable[..., Any]) -> Any:
    return _tf().custom_gradient(f)


@_op("Inclusive scan of an associative ``f`` along ``axis`` of ``elems`` (sequential evaluation).", "Any")
def associative_scan(f: Callable[[Any, Any], Any], elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    tf = _tf()
    flat = [_t(e) for e in tf.nest.flatten(elems)]
    nd = len(flat[0].shape)
    ax = _axes(axis, nd)[0]  # type: ignore[index]
    n = int(flat[0].shape[ax])
    slices = [[tf.gather(e, i, axis=ax) for e in flat] for i in range(n)]
    order = list(range(n - 1, -1, -1)) if reverse else list(range(n))
    outs: list[Any] = [None] * n
    acc = None
    for i in order:
        cur = tf.nest.pack_sequence_as(elems, slices[i])
        acc = cur if acc is None else (f(cur, acc) if reverse else f(acc, cur))
        outs[i] = tf.nest.flatten(acc)
    return tf.nest.pack_sequence_as(elems, [tf.stack([o[j] for o in outs], axis=ax) for j in range(len(flat))])


@_op("A slice of ``inputs`` starting at ``start_indices`` with size ``shape``.")
def slice(inputs: Any, start_indices: Any, shape: Any) -> Any:
    return _tf().slice(_t(inputs), list(start_indices), list(shape))


@_op("``inputs`` with the block starting at ``start_indices`` replaced by ``updates``.")
def slice_update(inputs: Any, start_indices: Any, updates: Any) -> Any:
    tf = _tf()
    inputs = _t(inputs)
    updates = _t(updates, inputs.dtype.name)
    ushape = tuple(updates.shape)
    start = [int(s) for s in start_indices]
    grids = np.indices(ushape).reshape(len(ushape), -1).T + np.asarray(start)
    return tf.tensor_scatter_nd_update(inputs, grids.astype(np.int32), tf.reshape(updates, [-1]))


@_op("A zero tensor of ``shape`` with ``values`` scattered (summed) at ``indices``.")
def scatter(indices: Any, values: Any, shape: Any) -> Any:
    return _tf().scatter_nd(_t(indices), _t(values), list(shape))


@_op("``inputs`` with ``updates`` written at ``indices`` (``reduction``: None, ``add``, ``max``, ``min``).")
def scatter_update(inputs: Any, indices: Any, updates: Any, reduction: Any = None) -> Any:
    tf = _tf()
    inputs = _t(inputs)
    fn = {None: tf.tensor_scatter_nd_update, "add": tf.tensor_scatter_nd_add, "max": tf.tensor_scatter_nd_max,
          "min": tf.tensor_scatter_nd_min}.get(reduction)  # fmt: skip
    if fn is None:
        raise ValueError(f"keras.ops.scatter_update: unsupported reduction={reduction!r}")
    return fn(inputs, _t(indices), _t(updates, inputs.dtype.name))


@_op("Unpacks ``x`` along ``axis`` into a list of tensors.", "list")
def unstack(x: Any, num: Any = None, axis: int = 0) -> list[Any]:
    return list(_tf().unstack(_t(x), num=num, axis=axis))


# --------------------------------------------------------------------------- elementwise binary


def _lazy(attr: str) -> Callable[[Any, Any], Any]:
    def call(a: Any, b: Any) -> Any:
        obj: Any = _tf()
        for part in attr.split("."):
            obj = getattr(obj, part)
        return obj(a, b)

    return call


def _logical(fn_name: str) -> Callable[[Any, Any], Any]:
    def call(a: Any, b: Any) -> Any:
        tf = _tf()
        return getattr(tf.math, fn_name)(tf.cast(a, "bool"), tf.cast(b, "bool"))

    return call


def _bool_int(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def call(a: Any, b: Any) -> Any:
        tf = _tf()
        if a.dtype.name == "bool":
            return tf.cast(fn(tf.cast(a, "int32"), tf.cast(b, "int32")), "bool")
        return fn(a, b)

    return call


@_op("Elementwise ``add`` of ``x1`` and ``x2`` (broadcast, Keras promotion).")
def add(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return _bool_int(_lazy("add"))(a, b)


@_op("Elementwise ``subtract`` of ``x1`` and ``x2`` (broadcast, Keras promotion).")
def subtract(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return _lazy("subtract")(a, b)


@_op("Elementwise ``multiply`` of ``x1`` and ``x2`` (broadcast, Keras promotion).")
def multiply(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return _bool_int(_lazy("multiply"))(a, b)


@_op("Elementwise ``maximum`` of ``x1`` and ``x2`` (broadcast, Keras promotion).")
def maximum(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return _bool_int(_lazy("maximum"))(a, b)


@_op("Elementwise ``minimum`` of ``x1`` and ``x2`` (broadcast, Keras promotion).")
def minimum(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return _bool_int(_lazy("minimum"))(a, b)


@_op("Elementwise ``x1 / x2``; integer inputs give a float result.")
def divide(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2, float)
    return _lazy("divide")(a, b)


@_op("Elementwise ``x1 / x2`` (same as :func:`divide`).")
def true_divide(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2, float)
    return _lazy("divide")(a, b)


@_op("``x1 / x2``, 0 where ``x2 == 0``.")
def divide_no_nan(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2, float)
    return _lazy("math.divide_no_nan")(a, b)


@_op("Elementwise ``arctan(x1 / x2)`` in the right quadrant.")
def arctan2(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2, float)
    return _lazy("math.atan2")(a, b)


@_op("Elementwise logical AND (bool result).")
def logical_and(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return _logical("logical_and")(a, b)


@_op("Elementwise logical OR (bool result).")
def logical_or(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return _logical("logical_or")(a, b)


@_op("Elementwise logical XOR (bool result).")
def logical_xor(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return _logical("logical_xor")(a, b)


@_op("The next float after ``x1`` towards ``x2``.")
def nextafter(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2, float)
    return _lazy("math.nextafter")(a, b)


@_op("Elementwise ``equal`` comparison of ``x1`` and ``x2`` (bool result).")
def equal(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return _lazy("equal")(a, b)


@_op("Elementwise ``not_equal`` comparison of ``x1`` and ``x2`` (bool result).")
def not_equal(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return _lazy("not_equal")(a, b)


@_op("Elementwise ``greater`` comparison of ``x1`` and ``x2`` (bool result).")
def greater(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return _lazy("greater")(a, b)


@_op("Elementwise ``greater_equal`` comparison of ``x1`` and ``x2`` (bool result).")
def greater_equal(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return _lazy("greater_equal")(a, b)


@_op("Elementwise ``less`` comparison of ``x1`` and ``x2`` (bool result).")
def less(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return _lazy("less")(a, b)


@_op("Elementwise ``less_equal`` comparison of ``x1`` and ``x2`` (bool result).")
def less_equal(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return _lazy("less_equal")(a, b)


@_op("Elementwise ``x1 ** x2`` (Keras promotion).")
def power(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return _tf().pow(a, b)


@_op("Elementwise floor division ``x1 // x2``.")
def floor_divide(x1: Any, x2: Any) -> Any:
    tf = _tf()
    dtype = result_type(_dt(x1), _dt(x2))
    if dtype == "bool":
        dtype = "int32"
    a, b = _t(x1, dtype), _t(x2, dtype)
    return tf.math.floordiv(a, b)


@_op("Elementwise remainder with the sign of the divisor (numpy's ``mod``).")
def mod(x1: Any, x2: Any) -> Any:
    dtype = result_type(_dt(x1), _dt(x2))
    if dtype == "bool":
        dtype = "int32"
    return _tf().math.floormod(_t(x1, dtype), _t(x2, dtype))


@_op("Elementwise remainder with the sign of the dividend (C's ``fmod``).")
def fmod(x1: Any, x2: Any) -> Any:
    tf = _tf()
    dtype = result_type(_dt(x1), _dt(x2))
    if dtype == "bool":
        dtype = "int32"
    return tf.truncatemod(_t(x1, dtype), _t(x2, dtype))


@_op("Elementwise maximum, ignoring NaNs (NaN only where both are NaN).")
def fmax(x1: Any, x2: Any) -> Any:
    tf = _tf()
    a, b = _pair(x1, x2)
    if a.dtype.name not in _FLOAT:
        return tf.maximum(a, b)
    return tf.where(tf.math.is_nan(a), b, tf.where(tf.math.is_nan(b), a, tf.maximum(a, b)))


@_op("Elementwise minimum, ignoring NaNs (NaN only where both are NaN).")
def fmin(x1: Any, x2: Any) -> Any:
    tf = _tf()
    a, b = _pair(x1, x2)
    if a.dtype.name not in _FLOAT:
        return tf.minimum(a, b)
    return tf.where(tf.math.is_nan(a), b, tf.where(tf.math.is_nan(b), a, tf.minimum(a, b)))


@_op("``log(exp(x1) + exp(x2))``, computed stably.")
def logaddexp(x1: Any, x2: Any) -> Any:
    tf = _tf()
    a, b = _pair(x1, x2, float)
    delta = a - b
    return tf.where(tf.math.is_nan(delta), a + b, tf.maximum(a, b) + tf.math.log1p(tf.exp(-tf.abs(delta))))


@_op("``log2(2**x1 + 2**x2)``, computed stably.")
def logaddexp2(x1: Any, x2: Any) -> Any:
    tf = _tf()
    a, b = _pair(x1, x2, float)
    ln2 = tf.cast(_pymath.log(2.0), a.dtype)
    delta = a - b
    return tf.where(
        tf.math.is_nan(delta),
        a + b,
        tf.maximum(a, b) + tf.math.log1p(tf.pow(tf.cast(2.0, a.dtype), -tf.abs(delta))) / ln2,
    )


def _int_to_float(dtype: str) -> str:
    """Keras' rule for ``heaviside``/``hypot``: 32-bit-or-less ints give float32, int64 gives float64."""
    if dtype in ("int8", "int16", "int32", "uint8", "uint16", "uint32", "bool"):
        return "float32"
    return "float64" if dtype == "int64" else dtype


@_op("Heaviside step: 0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0``.")
def heaviside(x1: Any, x2: Any) -> Any:
    tf = _tf()
    dtype = _int_to_float(result_type(_dtn(x1), _dtn(x2)))
    a, b = _t(x1, dtype), _t(x2, dtype)
    shp = tf.shape(a + b)
    a, b = tf.broadcast_to(a, shp), tf.broadcast_to(b, shp)
    return tf.where(a < 0, tf.zeros_like(a), tf.where(a > 0, tf.ones_like(a), b))


@_op("Elementwise ``sqrt(x1**2 + x2**2)``, computed without overflow.")
def hypot(x1: Any, x2: Any) -> Any:
    tf = _tf()
    dtype = _int_to_float(result_type(_dtn(x1), _dtn(x2)))
    a, b = tf.abs(_t(x1, dtype)), tf.abs(_t(x2, dtype))
    hi, lo = tf.maximum(a, b), tf.minimum(a, b)
    ratio = tf.math.divide_no_nan(lo, hi)
    return hi * tf.sqrt(1.0 + tf.square(ratio))


@_op("Elementwise ``x1 * 2**x2`` (``x2`` must be an integer tensor).")
def ldexp(x1: Any, x2: Any) -> Any:
    tf = _tf()
    if _dtn(x2) not in _INT:
        raise TypeError(f"keras.ops.ldexp: x2 must be an integer tensor, got dtype {_dtn(x2)}")
    dtype = result_type(_dtn(x1), _dtn(x2), float)
    a = _t(x1, dtype)
    res = a * tf.pow(tf.cast(2.0, dtype), tf.cast(_t(x2), dtype))
    return tf.where(tf.logical_or(tf.math.is_inf(a), tf.equal(a, 0)), a + tf.zeros_like(res), res)


@_op("Elementwise greatest common divisor of integer tensors.")
def gcd(x1: Any, x2: Any) -> Any:
    tf = _tf()
    a, b = _pair(x1, x2)
    if a.dtype.name not in _INT:
        raise TypeError(f"keras.ops.gcd: integer inputs required, got dtype {a.dtype.name}")
    shp = tf.shape(a + b)
    a, b = tf.broadcast_to(tf.abs(a), shp), tf.broadcast_to(tf.abs(b), shp)

    def body(u: Any, v: Any) -> tuple[Any, Any]:
        safe = tf.where(tf.equal(v, 0), tf.ones_like(v), v)
        return tf.where(tf.equal(v, 0), u, v), tf.where(tf.equal(v, 0), v, tf.math.floormod(u, safe))

    return tf.while_loop(lambda u, v: tf.reduce_any(tf.not_equal(v, 0)), body, (a, b))[0]


@_op("Elementwise least common multiple of integer tensors.")
def lcm(x1: Any, x2: Any) -> Any:
    tf = _tf()
    a, b = _pair(x1, x2)
    g = gcd(a, b)
    safe = tf.where(g == 0, tf.ones_like(g), g)
    return tf.where(g == 0, tf.zeros_like(g), tf.abs(a // safe * b))


# --------------------------------------------------------------------------- elementwise unary


def _m(attr: str) -> Callable[[Any], Any]:
    def call(x: Any) -> Any:
        obj: Any = _tf()
        for part in attr.split("."):
            obj = getattr(obj, part)
        return obj(x)

    return call


@_op("Elementwise ``e**x`` (ints give float32).")
def exp(x: Any) -> Any:
    return _m("exp")(_float(x))


@_op("Elementwise ``2**x``.")
def exp2(x: Any) -> Any:
    return (lambda x: _tf().pow(_tf().cast(2.0, x.dtype), x))(_float(x))


@_op("Elementwise ``exp(x) - 1``.")
def expm1(x: Any) -> Any:
    return _m("math.expm1")(_float(x))


@_op("Elementwise natural logarithm.")
def log(x: Any) -> Any:
    return _m("math.log")(_float(x))


@_op("Elementwise ``log(1 + x)``.")
def log1p(x: Any) -> Any:
    return _m("math.log1p")(_float(x))


@_op("Elementwise base-2 log.")
def log2(x: Any) -> Any:
    return (lambda x: _tf().math.log(x) / _tf().math.log(_tf().cast(2.0, x.dtype)))(_float(x))


@_op("Elementwise base-10 log.")
def log10(x: Any) -> Any:
    return (lambda x: _tf().math.log(x) / _tf().math.log(_tf().cast(10.0, x.dtype)))(_float(x))


@_op("Elementwise square root.")
def sqrt(x: Any) -> Any:
    return _m("sqrt")(_float(x))


@_op("Elementwise ``1 / sqrt(x)``.")
def rsqrt(x: Any) -> Any:
    return _m("math.rsqrt")(_float(x))


@_op("Elementwise sine.")
def sin(x: Any) -> Any:
    return _m("sin")(_float(x))


@_op("Elementwise cosine.")
def cos(x: Any) -> Any:
    return _m("cos")(_float(x))


@_op("Elementwise tangent.")
def tan(x: Any) -> Any:
    return _m("tan")(_float(x))


@_op("Elementwise hyperbolic sine.")
def sinh(x: Any) -> Any:
    return _m("sinh")(_float(x))


@_op("Elementwise hyperbolic cosine.")
def cosh(x: Any) -> Any:
    return _m("cosh")(_float(x))


@_op("Elementwise inverse sine.")
def arcsin(x: Any) -> Any:
    return _m("asin")(_float(x))


@_op("Elementwise inverse cosine.")
def arccos(x: Any) -> Any:
    return _m("acos")(_float(x))


@_op("Elementwise inverse tangent.")
def arctan(x: Any) -> Any:
    return _m("atan")(_float(x))


@_op("Elementwise inverse hyperbolic sine.")
def arcsinh(x: Any) -> Any:
    return _m("asinh")(_float(x))


@_op("Elementwise inverse hyperbolic cosine.")
def arccosh(x: Any) -> Any:
    return _m("acosh")(_float(x))


@_op("Elementwise inverse hyperbolic tangent.")
def arctanh(x: Any) -> Any:
    return _m("atanh")(_float(x))


@_op("Elementwise error function.")
def erf(x: Any) -> Any:
    return _m("math.erf")(_float(x))


@_op("Elementwise complementary error function.")
def erfc(x: Any) -> Any:
    return _m("math.erfc")(_float(x))


@_op("Elementwise inverse error function.")
def erfinv(x: Any) -> Any:
    return _m("math.erfinv")(_float(x))


@_op("Elementwise modified Bessel function of the first kind, order 0.")
def i0(x: Any) -> Any:
    return _m("math.bessel_i0")(_float(x))


@_op("Elementwise absolute value as a float.")
def fabs(x: Any) -> Any:
    return _m("abs")(_float(x))


@_op("Elementwise floor (ints give float32).")
def floor(x: Any) -> Any:
    return _m("floor")(_float(x))


@_op("Elementwise ceiling (ints give float32).")
def ceil(x: Any) -> Any:
    return _m("math.ceil")(_float(x))


@_op("Normalized sinc: ``sin(pi x) / (pi x)``, 1 at 0.")
def sinc(x: Any) -> Any:
    return (lambda x: _tf().where(x == 0, _tf().ones_like(x), _tf().sin(x * np.pi) / (x * np.pi)))(_float(x))


@_op("Degrees to radians.")
def deg2rad(x: Any) -> Any:
    return (lambda x: x * _tf().cast(np.pi / 180.0, x.dtype))(_float(x))


@_op("Radians to degrees.")
def rad2deg(x: Any) -> Any:
    return (lambda x: x * _tf().cast(180.0 / np.pi, x.dtype))(_float(x))


@_op("Elementwise cube root.")
def cbrt(x: Any) -> Any:
    tf = _tf()
    x = _t(x)
    if x.dtype.name == "int64":
        x = tf.cast(x, "float64")
    x = _float(x)
    return tf.sign(x) * tf.pow(tf.abs(x), tf.cast(1.0 / 3.0, x.dtype))


@_op("Elementwise absolute value.")
def absolute(x: Any) -> Any:
    x = _t(x)
    if x.dtype.name == "bool" or x.dtype.name.startswith("uint"):
        return x
    return _tf().abs(x)


@_op("Elementwise absolute value (alias of :func:`absolute`).")
def abs(x: Any) -> Any:
    return absolute(x)


@_op("Elementwise negation.")
def negative(x: Any) -> Any:
    return _tf().negative(_t(x))


@_op("Elementwise square.")
def square(x: Any) -> Any:
    x = _t(x)
    if x.dtype.name == "bool":
        x = _tf().cast(x, "int32")
    return _tf().square(x)


@_op("Elementwise ``1 / x``.")
def reciprocal(x: Any) -> Any:
    return _tf().math.reciprocal(_float(x))


@_op("Elementwise sign (-1, 0 or 1).")
def sign(x: Any) -> Any:
    x = _t(x)
    name = x.dtype.name
    if name == "bool" or name.startswith("uint"):
        return x if name == "bool" else _tf().cast(_tf().sign(_tf().cast(x, "int64")), name)
    return _tf().sign(x)


@_op("Whether the sign bit of ``x`` is set (true for -0.0).")
def signbit(x: Any) -> Any:
    tf = _tf()
    x = _t(x)
    if x.dtype.name == "bool":
        return tf.zeros_like(x)
    if x.dtype.name in _INT:
        return x < 0
    neg_zero = tf.logical_and(tf.equal(x, 0), tf.math.is_inf(tf.math.reciprocal(x)))
    return tf.logical_or(x < 0, tf.logical_and(neg_zero, tf.math.reciprocal(x) < 0))


@_op("Elementwise rounding to ``decimals`` places (half to even).")
def round(x: Any, decimals: int = 0) -> Any:
    tf = _tf()
    x = _t(x)
    if decimals == 0:
        return tf.round(x)
    if x.dtype.name in _INT:
        if decimals > 0:
            return x
        factor = tf.cast(_pymath.pow(10, decimals), "float32")
        return tf.cast(tf.round(tf.cast(x, "float32") * factor) / factor, x.dtype.name)
    factor = tf.cast(_pymath.pow(10, decimals), x.dtype)
    return tf.round(x * factor) / factor


@_op("Elementwise truncation towards zero (keeps the dtype).")
def trunc(x: Any) -> Any:
    tf = _tf()
    x = _t(x)
    if x.dtype.name not in _FLOAT:
        return x
    return tf.where(x < 0, tf.math.ceil(x), tf.floor(x))


@_op("Elementwise logical NOT.")
def logical_not(x: Any) -> Any:
    return _tf().logical_not(_t(x, "bool"))


@_op("Whether each element is finite.")
def isfinite(x: Any) -> Any:
    x = _t(x)
    if x.dtype.name not in _FLOAT:
        return _tf().cast(_tf().ones_like(x), "bool")
    return _tf().math.is_finite(x)


@_op("Whether each element is infinite.")
def isinf(x: Any) -> Any:
    x = _t(x)
    if x.dtype.name not in _FLOAT:
        return _tf().cast(_tf().zeros_like(x), "bool")
    return _tf().math.is_inf(x)


@_op("Whether each element is NaN.")
def isnan(x: Any) -> Any:
    x = _t(x)
    if x.dtype.name not in _FLOAT:
        return _tf().cast(_tf().zeros_like(x), "bool")
    return _tf().math.is_nan(x)


@_op("Whether each element is negative infinity.")
def isneginf(x: Any) -> Any:
    x = _t(x)
    if x.dtype.name not in _FLOAT:
        return _tf().cast(_tf().zeros_like(x), "bool")
    return _tf().logical_and(_tf().math.is_inf(x), x < 0)


@_op("Whether each element is positive infinity.")
def isposinf(x: Any) -> Any:
    x = _t(x)
    if x.dtype.name not in _FLOAT:
        return _tf().cast(_tf().zeros_like(x), "bool")
    return _tf().logical_and(_tf().math.is_inf(x), x > 0)


@_op("Whether each element is real (true for every non-complex tensor).")
def isreal(x: Any) -> Any:
    tf = _tf()
    x = _t(x)
    if x.dtype.name.startswith("complex"):
        return tf.equal(tf.math.imag(x), 0)
    return tf.cast(tf.ones_like(x), "bool")


@_op("The real part of ``x``.")
def real(x: Any) -> Any:
    x = _t(x)
    return _tf().math.real(x) if x.dtype.name.startswith("complex") else x


@_op("The imaginary part of ``x`` (zeros for real tensors).")
def imag(x: Any) -> Any:
    x = _t(x)
    return _tf().math.imag(x) if x.dtype.name.startswith("complex") else _tf().zeros_like(x)


@_op("The complex conjugate of ``x`` (``x`` itself for real tensors).")
def conjugate(x: Any) -> Any:
    x = _t(x)
    return _tf().math.conj(x) if x.dtype.name.startswith("complex") else x


@_op("The complex conjugate of ``x`` (alias of :func:`conjugate`).")
def conj(x: Any) -> Any:
    return conjugate(x)


@_op("The argument (angle) of each element.")
def angle(x: Any) -> Any:
    x = _t(x)
    if x.dtype.name.startswith("complex"):
        return _tf().math.angle(x)
    x = _float(x)
    tf = _tf()
    return tf.where(x < 0, tf.cast(np.pi, x.dtype) * tf.ones_like(x), tf.zeros_like(x))


@_op("``x`` with NaN replaced by ``nan`` and infinities by ``posinf`` / ``neginf`` (default: the dtype's extremes).")
def nan_to_num(x: Any, nan: float = 0.0, posinf: Any = None, neginf: Any = None) -> Any:
    tf = _tf()
    x = _t(x)
    if x.dtype.name not in _FLOAT:
        return x
    info = np.finfo(x.dtype.name if x.dtype.name != "bfloat16" else "float32")
    pos = info.max if posinf is None else posinf
    neg = info.min if neginf is None else neginf
    x = tf.where(tf.math.is_nan(x), tf.cast(nan, x.dtype) * tf.ones_like(x), x)
    x = tf.where(tf.logical_and(tf.math.is_inf(x), x > 0), tf.cast(pos, x.dtype) * tf.ones_like(x), x)
    return tf.where(tf.logical_and(tf.math.is_inf(x), x < 0), tf.cast(neg, x.dtype) * tf.ones_like(x), x)


@_op("Clips ``x`` to ``[x_min, x_max]`` (bools are clipped as int32).")
def clip(x: Any, x_min: Any, x_max: Any) -> Any:
    tf = _tf()
    x = _t(x)
    if x.dtype.name == "bool":
        x = tf.cast(x, "int32")
    return tf.clip_by_value(x, tf.cast(x_min, x.dtype), tf.cast(x_max, x.dtype))


@_op("``x`` unchanged, as a new tensor.")
def copy(x: Any) -> Any:
    return _tf().identity(_t(x))


# --------------------------------------------------------------------------- reductions


def _red_axis(x: Any, axis: Any) -> Any:
    return None if axis is None else _axes(axis, len(x.shape))


@_op("Sum of ``x`` over ``axis`` (bool/int8/int16 sum in int32, as Keras).")
def sum(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    tf = _tf()
    x = _t(x)
    name = x.dtype.name
    if name in ("bool", "int8", "int16"):
        x = tf.cast(x, "int32")
    elif name in ("uint8", "uint16"):
        x = tf.cast(x, "uint32")
    return tf.reduce_sum(x, axis=_red_axis(x, axis), keepdims=keepdims)


@_op("Product of ``x`` over ``axis``.")
def prod(x: Any, axis: Any = None, keepdims: bool = False, dtype: Any = None) -> Any:
    tf = _tf()
    x = _t(x)
    if dtype is None:
        name = x.dtype.name
        dtype = {"bool": "int32", "int8": "int32", "int16": "int32", "uint8": "uint32", "uint16": "uint32"}.get(
            name, name
        )
    x = tf.cast(x, standardize_dtype(dtype))
    return tf.reduce_prod(x, axis=_red_axis(x, axis), keepdims=keepdims)


@_op("Mean of ``x`` over ``axis`` (integers give float32).")
def mean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    tf = _tf()
    x = _t(x)
    x = tf.cast(x, result_type(x.dtype.name, float))
    return tf.reduce_mean(x, axis=_red_axis(x, axis), keepdims=keepdims)


@_op("Variance of ``x`` over ``axis`` (population variance, ddof=0).")
def var(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    tf = _tf()
    x = _t(x)
    out_dtype = result_type(x.dtype.name, float)
    xc = tf.cast(x, result_type(x.dtype.name, "float32"))
    return tf.cast(tf.math.reduce_variance(xc, axis=_red_axis(x, axis), keepdims=keepdims), out_dtype)


@_op("Standard deviation of ``x`` over ``axis`` (ddof=0).")
def std(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    x = _float(x)
    return _tf().math.reduce_std(x, axis=_red_axis(x, axis), keepdims=keepdims)


def _minmax(x: Any, axis: Any, keepdims: bool, initial: Any, is_max: bool) -> Any:
    tf = _tf()
    x = _t(x)
    ax = _red_axis(x, axis)
    if x.dtype.name == "bool":
        out = (tf.reduce_any if is_max else tf.reduce_all)(x, axis=ax, keepdims=keepdims)
        if initial is not None:
            out = tf.cast((tf.maximum if is_max else tf.minimum)(tf.cast(out, "int32"), int(initial)), "bool")
        return out
    if initial is None and int(np.prod(tuple(x.shape))) == 0:
        raise ValueError(
            f"Cannot compute the {'max' if is_max else 'min'} of an empty tensor (shape {tuple(x.shape)})."
        )
    out = (tf.reduce_max if is_max else tf.reduce_min)(x, axis=ax, keepdims=keepdims)
    if initial is not None:
        out = (tf.maximum if is_max else tf.minimum)(out, tf.cast(initial, out.dtype))
    return out


@_op("Maximum of ``x`` over ``axis`` (``initial``: a lower bound included in the reduction).")
def max(x: Any, axis: Any = None, keepdims: bool = False, initial: Any = None) -> Any:
    return _minmax(x, axis, keepdims, initial, True)


@_op("Minimum of ``x`` over ``axis`` (``initial``: an upper bound included in the reduction).")
def min(x: Any, axis: Any = None, keepdims: bool = False, initial: Any = None) -> Any:
    return _minmax(x, axis, keepdims, initial, False)


@_op("Maximum of ``x`` over ``axis`` (alias of :func:`max`).")
def amax(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _minmax(x, axis, keepdims, None, True)


@_op("Minimum of ``x`` over ``axis`` (alias of :func:`min`).")
def amin(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _minmax(x, axis, keepdims, None, False)


@_op("Whether all elements over ``axis`` are true.")
def all(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    x = _t(x, "bool")
    return _tf().reduce_all(x, axis=_red_axis(x, axis), keepdims=keepdims)


@_op("Whether any element over ``axis`` is true.")
def any(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    x = _t(x, "bool")
    return _tf().reduce_any(x, axis=_red_axis(x, axis), keepdims=keepdims)


@_op("Range (max - min) of ``x`` over ``axis``.")
def ptp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    tf = _tf()
    x = _t(x)
    ax = _red_axis(x, axis)
    return tf.reduce_max(x, axis=ax, keepdims=keepdims) - tf.reduce_min(x, axis=ax, keepdims=keepdims)


@_op("``log(sum(exp(x)))`` over ``axis``, computed stably.")
def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    x = _float(x)
    return _tf().reduce_logsumexp(x, axis=_red_axis(x, axis), keepdims=keepdims)


@_op("Number of non-zero elements over ``axis`` (int32).")
def count_nonzero(x: Any, axis: Any = None) -> Any:
    x = _t(x)
    return _tf().math.count_nonzero(x, axis=_red_axis(x, axis), dtype="int32")


@_op("Weighted average of ``x`` over ``axis`` (``weights`` broadcast like numpy's).")
def average(x: Any, axis: Any = None, weights: Any = None) -> Any:
    tf = _tf()
    x = _t(x)
    if weights is None:
        x = tf.cast(x, result_type(x.dtype.name, float))
        return tf.reduce_mean(x, axis=axis)
    w = _t(weights)
    dtype = result_type(x.dtype.name, w.dtype.name, float)
    x, w = tf.cast(x, dtype), tf.cast(w, dtype)
    if axis is None:
        return tf.reduce_sum(x * w) / tf.reduce_sum(w)
    ax = _axes(axis, len(x.shape))[0]  # type: ignore[index]
    if len(w.shape) == 1 and len(x.shape) > 1:
        shp = [1] * len(x.shape)
        shp[ax] = int(w.shape[0])
        w_b = tf.reshape(w, shp)
        return tf.reduce_sum(x * w_b, axis=ax) / tf.reduce_sum(w)
    return tf.reduce_sum(x * w, axis=ax) / tf.reduce_sum(w, axis=ax)


def _keepdims_arg(x: Any, y: Any, axis: Any) -> Any:
    tf = _tf()
    if axis is None:
        return tf.reshape(y, [1] * len(x.shape))
    return tf.expand_dims(y, axis)


def _argext(x: Any, axis: Any, keepdims: bool, is_max: bool) -> Any:
    tf = _tf()
    x = _t(x)
    fn = tf.argmax if is_max else tf.argmin
    if x.dtype.name == "bool":
        x = tf.cast(x, "int32")
    if len(x.shape) == 0:
        return tf.constant(0, dtype="int32")
    flat = tf.reshape(x, [-1]) if axis is None else x
    y = fn(flat, axis=0 if axis is None else axis, output_type="int32")
    return _keepdims_arg(x, y, axis) if keepdims else y


@_op("Indices of the maxima along ``axis`` (``None``: of the flattened input), int32.")
def argmax(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _argext(x, axis, keepdims, True)


@_op("Indices of the minima along ``axis`` (``None``: of the flattened input), int32.")
def argmin(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _argext(x, axis, keepdims, False)


@_op("Indices that sort ``x`` along ``axis`` (stable), int32.")
def argsort(x: Any, axis: Any = -1) -> Any:
    tf = _tf()
    x = _t(x)
    if x.dtype.name == "bool":
        x = tf.cast(x, "int32")
    if len(x.shape) == 0:
        return tf.constant([0], dtype="int32")
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    return tf.cast(tf.argsort(x, axis=axis, stable=True), "int32")


@_op("``x`` sorted ascending along ``axis``.")
def sort(x: Any, axis: Any = -1) -> Any:
    tf = _tf()
    x = _t(x)
    name = x.dtype.name
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    if name == "bool":
        return tf.cast(tf.sort(tf.cast(x, "int32"), axis=axis), "bool")
    return tf.sort(x, axis=axis)


@_op("Indices that partition ``x`` around its ``kth`` smallest element along ``axis`` (int32).")
def argpartition(x: Any, kth: int, axis: int = -1) -> Any:
    # A full stable sort is a valid partition; Keras' TensorFlow backend orders the rest differently.
    return argsort(x, axis=axis)


@_op("The ``k`` largest values along the last axis and their int32 indices.", "tuple")
def top_k(x: Any, k: int, sorted: bool = True) -> tuple[Any, Any]:
    res = _tf().math.top_k(_t(x), k=k, sorted=sorted)
    return res[0], res[1]


@_op("Whether each target is among the ``k`` largest predictions of its row.")
def in_top_k(targets: Any, predictions: Any, k: int) -> Any:
    return _tf().math.in_top_k(_t(targets), _t(predictions), k)


def _quantile_impl(x: Any, q: Any, axis: Any, method: str, keepdims: bool, nan_aware: bool = False) -> Any:
    tf = _tf()
    x = _float(x)
    q_t = _t(q, x.dtype.name)
    nd = len(x.shape)
    ax = list(range(nd)) if axis is None else _axes(axis, nd)
    other = [i for i in range(nd) if i not in ax]  # type: ignore[operator]
    perm = other + list(ax)  # type: ignore[arg-type]
    xt = tf.transpose(x, perm) if nd else x
    kept_shape = [int(x.shape[i]) for i in other]
    flat = tf.reshape(xt, kept_shape + [-1])
    if nan_aware:
        isn = tf.math.is_nan(flat)
        big = tf.cast(np.inf, x.dtype) * tf.ones_like(flat)
        flat = tf.where(isn, big, flat)
        n = tf.cast(tf.reduce_sum(tf.cast(tf.logical_not(isn), "int32"), axis=-1, keepdims=True), x.dtype)
    else:
        n = tf.cast(int(flat.shape[-1]), x.dtype) * tf.ones_like(flat[..., :1])
    srt = tf.sort(flat, axis=-1)
    q_flat = tf.reshape(q_t, [-1])
    outs = []
    last = int(flat.shape[-1])
    for j in range(int(q_flat.shape[0])):
        pos = q_flat[j] * (n - 1)
        lo = tf.floor(pos)
        hi = tf.math.ceil(pos)
        if method == "lower":
            idx_f = lo
        elif method == "higher":
            idx_f = hi
        elif method == "nearest":
            idx_f = tf.round(pos)
        elif method in ("linear", "midpoint"):
            idx_f = None
        else:
            raise ValueError(f"keras.ops.quantile: unknown method={method!r}")
        clip = lambda t: tf.clip_by_value(tf.cast(t, "int32"), 0, builtins.max(last - 1, 0))  # noqa: E731
        if idx_f is not None:
            val = tf.gather(srt, clip(idx_f), batch_dims=len(kept_shape), axis=-1)
        else:
            vlo = tf.gather(srt, clip(lo), batch_dims=len(kept_shape), axis=-1)
            vhi = tf.gather(srt, clip(hi), batch_dims=len(kept_shape), axis=-1)
            frac = (pos - lo) if method == "linear" else tf.cast(0.5, x.dtype) * tf.cast(hi > lo, x.dtype)
            val = vlo + (vhi - vlo) * frac if method == "linear" else tf.where(hi > lo, (vlo + vhi) / 2, vlo)
        val = tf.squeeze(val, -1)
        if nan_aware:
            val = tf.where(tf.squeeze(n, -1) == 0, tf.cast(np.nan, x.dtype) * tf.ones_like(val), val)
        elif x.dtype.name in _FLOAT:
            has_nan = tf.reduce_any(tf.math.is_nan(flat), axis=-1)
            val = tf.where(has_nan, tf.cast(np.nan, x.dtype) * tf.ones_like(val), val)
        if keepdims:
            shp = [1 if i in ax else int(x.shape[i]) for i in range(nd)]  # type: ignore[operator]
            val = tf.reshape(val, shp)
        outs.append(val)
    if len(tuple(q_t.shape)) == 0:
        return outs[0]
    return tf.reshape(tf.stack(outs), list(q_t.shape) + list(outs[0].shape))


@_op("The ``q``-th quantile(s) of ``x`` over ``axis``.")
def quantile(x: Any, q: Any, axis: Any = None, method: str = "linear", keepdims: bool = False) -> Any:
    return _quantile_impl(x, q, axis, method, keepdims)


@_op("The ``q``-th percentile(s) of ``x`` over ``axis``.")
def percentile(x: Any, q: Any, axis: Any = None, method: str = "linear", keepdims: bool = False) -> Any:
    return _quantile_impl(x, np.asarray(q, dtype=np.float64) / 100.0, axis, method, keepdims)


@_op("Median of ``x`` over ``axis``.")
def median(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _quantile_impl(x, 0.5, axis, "linear", keepdims)


@_op("The ``q``-th quantile(s) ignoring NaNs.")
def nanquantile(x: Any, q: Any, axis: Any = None, method: str = "linear", keepdims: bool = False) -> Any:
    return _quantile_impl(x, q, axis, method, keepdims, nan_aware=True)


@_op("The ``q``-th percentile(s) ignoring NaNs.")
def nanpercentile(x: Any, q: Any, axis: Any = None, method: str = "linear", keepdims: bool = False) -> Any:
    return _quantile_impl(x, np.asarray(q, dtype=np.float64) / 100.0, axis, method, keepdims, nan_aware=True)


@_op("Median ignoring NaNs.")
def nanmedian(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _quantile_impl(x, 0.5, axis, "linear", keepdims, nan_aware=True)


def _nan_fill(x: Any, value: float) -> Any:
    tf = _tf()
    x = _t(x)
    if x.dtype.name not in _FLOAT:
        return x
    return tf.where(tf.math.is_nan(x), tf.cast(value, x.dtype) * tf.ones_like(x), x)


@_op("Sum ignoring NaNs.")
def nansum(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return sum(_nan_fill(x, 0.0), axis=axis, keepdims=keepdims)


@_op("Product ignoring NaNs.")
def nanprod(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return prod(_nan_fill(x, 1.0), axis=axis, keepdims=keepdims)


@_op("Mean ignoring NaNs (NaN where all are NaN).")
def nanmean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    tf = _tf()
    x = _float(x)
    valid = tf.cast(tf.logical_not(tf.math.is_nan(x)), x.dtype)
    return sum(_nan_fill(x, 0.0), axis, keepdims) / sum(valid, axis, keepdims)


@_op("Variance ignoring NaNs.")
def nanvar(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    tf = _tf()
    x = _float(x)
    m = nanmean(x, axis, True)
    valid = tf.cast(tf.logical_not(tf.math.is_nan(x)), x.dtype)
    return sum(_nan_fill(tf.square(x - m), 0.0), axis, keepdims) / sum(valid, axis, keepdims)


@_op("Standard deviation ignoring NaNs.")
def nanstd(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _tf().sqrt(nanvar(x, axis, keepdims))


@_op("Maximum ignoring NaNs.")
def nanmax(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    tf = _tf()
    x = _t(x)
    if x.dtype.name not in _FLOAT:
        return amax(x, axis, keepdims)
    allnan = all(tf.math.is_nan(x), axis, keepdims)
    out = amax(_nan_fill(x, -np.inf), axis, keepdims)
    return tf.where(allnan, tf.cast(np.nan, x.dtype) * tf.ones_like(out), out)


@_op("Minimum ignoring NaNs.")
def nanmin(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    tf = _tf()
    x = _t(x)
    if x.dtype.name not in _FLOAT:
        return amin(x, axis, keepdims)
    allnan = all(tf.math.is_nan(x), axis, keepdims)
    out = amin(_nan_fill(x, np.inf), axis, keepdims)
    return tf.where(allnan, tf.cast(np.nan, x.dtype) * tf.ones_like(out), out)


@_op("Index of the maximum ignoring NaNs.")
def nanargmax(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return argmax(_nan_fill(x, -np.inf), axis, keepdims)


@_op("Index of the minimum ignoring NaNs.")
def nanargmin(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return argmin(_nan_fill(x, np.inf), axis, keepdims)


@_op("Cumulative sum along ``axis`` (``None``: of the flattened input).")
def cumsum(x: Any, axis: Any = None, dtype: Any = None) -> Any:
    tf = _tf()
    x = _t(x, dtype)
    if x.dtype.name == "bool":
        x = tf.cast(x, "int32")
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    return tf.math.cumsum(x, axis=axis)


@_op("Cumulative product along ``axis`` (``None``: of the flattened input).")
def cumprod(x: Any, axis: Any = None, dtype: Any = None) -> Any:
    tf = _tf()
    x = _t(x, dtype)
    if x.dtype.name == "bool":
        x = tf.cast(x, "int32")
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    return tf.math.cumprod(x, axis=axis)


@_op("Cumulative sum treating NaNs as 0.")
def nancumsum(x: Any, axis: Any = None, dtype: Any = None) -> Any:
    return cumsum(_nan_fill(x, 0.0), axis, dtype)


@_op("Cumulative product treating NaNs as 1.")
def nancumprod(x: Any, axis: Any = None, dtype: Any = None) -> Any:
    return cumprod(_nan_fill(x, 1.0), axis, dtype)


# --------------------------------------------------------------------------- creation


def _shape_list(shape: Any) -> list[int]:
    if isinstance(shape, int):
        return [shape]
    return [int(s) for s in shape]


@_op("A tensor of zeros (default dtype float32).")
def zeros(shape: Any, dtype: Any = None) -> Any:
    return _tf().zeros(_shape_list(shape), dtype=standardize_dtype(dtype or "float32"))


@_op("A tensor of ones (default dtype float32).")
def ones(shape: Any, dtype: Any = None) -> Any:
    return _tf().ones(_shape_list(shape), dtype=standardize_dtype(dtype or "float32"))


@_op("An uninitialised tensor in numpy; zeros here (default dtype float32).")
def empty(shape: Any, dtype: Any = None) -> Any:
    return zeros(shape, dtype)


@_op("A tensor of ``shape`` filled with ``fill_value`` (default dtype float32).")
def full(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
    tf = _tf()
    return tf.broadcast_to(_t(fill_value, dtype or "float32"), _shape_list(shape))


@_op("Zeros shaped like ``x`` (its dtype unless ``dtype``).")
def zeros_like(x: Any, dtype: Any = None) -> Any:
    x = _t(x)
    return _tf().zeros(list(x.shape), dtype=standardize_dtype(dtype or x.dtype))


@_op("Ones shaped like ``x`` (its dtype unless ``dtype``).")
def ones_like(x: Any, dtype: Any = None) -> Any:
    x = _t(x)
    return _tf().ones(list(x.shape), dtype=standardize_dtype(dtype or x.dtype))


@_op("Zeros shaped like ``x`` (numpy's ``empty_like``; the values are unspecified there).")
def empty_like(x: Any, dtype: Any = None) -> Any:
    return zeros_like(x, dtype)


@_op("``fill_value`` broadcast to the shape of ``x`` (its dtype unless ``dtype``).")
def full_like(x: Any, fill_value: Any, dtype: Any = None) -> Any:
    x = _t(x)
    return _tf().broadcast_to(_t(fill_value, standardize_dtype(dtype or x.dtype)), list(x.shape))


@_op("A tensor from ``x`` (alias of :func:`convert_to_tensor`).")
def array(x: Any, dtype: Any = None) -> Any:
    return _t(x, dtype)


@_op("Evenly spaced values in ``[start, stop)`` (dtype from the arguments by Keras promotion).")
def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Any:
    tf = _tf()
    if dtype is None:
        parts = [_dt(start)] + ([_dt(stop)] if stop is not None else []) + ([_dt(step)] if step is not None else [])
        dtype = result_type(*parts)
    dtype = standardize_dtype(dtype)
    if step is None:
        step = 1
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ValueError("keras.ops.arange: step must not be 0")
    n = builtins.max(int(np.ceil((float(stop) - float(start)) / float(step))), 0)
    if dtype in _FLOAT:
        vals = tf.cast(start, dtype) + tf.cast(step, dtype) * tf.cast(tf.range(n), dtype)
        return vals
    return tf.cast(tf.range(int(start), int(start) + n * int(step), int(step)), dtype) if n else tf.zeros([0], dtype)


@_op(
    "``num`` evenly spaced values from ``start`` to ``stop`` (``retstep=True`` also returns the step).",
    "Tensor or tuple",
)
def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, retstep: bool = False, dtype: Any = None,
             axis: int = 0) -> Any:  # fmt: skip
    tf = _tf()
    if num < 0:
        raise ValueError(f"`num` must be a non-negative integer. Received: num={num}")
    out_dtype = result_type(_dt(start), _dt(stop), float) if dtype is None else standardize_dtype(dtype)
    calc = out_dtype if out_dtype in _FLOAT else "float32"
    a, b = _t(start, calc), _t(stop, calc)
    div = (num - 1) if endpoint else num
    step = (b - a) / tf.cast(div, calc) if div > 0 else tf.cast(np.nan, calc) * tf.ones_like(a)
    idx = tf.cast(tf.range(num), calc)
    nd = len(tf.shape(a + b).shape) and int(tf.shape(a + b).shape[0])
    idx = tf.reshape(idx, [num] + [1] * nd)
    vals = tf.expand_dims(a, 0) + idx * tf.expand_dims(step if div > 0 else tf.zeros_like(a), 0)
    if endpoint and num > 1:
        vals = tf.concat([vals[:-1], tf.expand_dims(b + tf.zeros_like(a), 0)], 0)
    if axis != 0 and nd:
        vals = moveaxis(vals, 0, axis)
    vals = tf.cast(vals, out_dtype)
    return (vals, step) if retstep else vals


@_op("``num`` values spaced evenly on a log scale: ``base ** linspace(start, stop)``.")
def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: Any = 10, dtype: Any = None,
             axis: int = 0) -> Any:  # fmt: skip
    tf = _tf()
    out_dtype = result_type(_dt(start), _dt(stop), float) if dtype is None else standardize_dtype(dtype)
    calc = out_dtype if out_dtype in _FLOAT else "float32"
    lin = linspace(start, stop, num, endpoint=endpoint, dtype=calc, axis=axis)
    return tf.cast(tf.pow(tf.cast(base, calc), lin), out_dtype)


@_op("``num`` values spaced evenly on a log scale between ``start`` and ``stop`` (both included).")
def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None, axis: int = 0) -> Any:
    tf = _tf()
    out_dtype = result_type(_dt(start), _dt(stop), float) if dtype is None else standardize_dtype(dtype)
    calc = out_dtype if out_dtype in _FLOAT else "float32"
    a, b = _t(start, calc), _t(stop, calc)
    if bool(tf.reduce_any(tf.equal(a, 0)).numpy()) or bool(tf.reduce_any(tf.equal(b, 0)).numpy()):
        raise ValueError("keras.ops.geomspace: start and stop must be non-zero")
    sgn = tf.sign(a)
    lin = linspace(tf.math.log(tf.abs(a)) / _pymath.log(10), tf.math.log(tf.abs(b)) / _pymath.log(10), num,
                   endpoint=endpoint, dtype=calc, axis=axis)  # fmt: skip
    out = sgn * tf.pow(tf.cast(10.0, calc), lin)
    if num > 1 and len(tuple(a.shape)) == 0 and len(tuple(b.shape)) == 0:
        # Scalar endpoints come out exactly (no round trip through log10).
        tail = [out[1:-1], tf.expand_dims(b, 0)] if endpoint else [out[1:]]
        out = tf.concat([tf.expand_dims(a, 0)] + tail, 0)
    return tf.cast(out, out_dtype)


@_op("The ``N x M`` matrix with ones on diagonal ``k``.")
def eye(N: int, M: Any = None, k: int = 0, dtype: Any = None) -> Any:
    return _t(np.eye(N, M, k), standardize_dtype(dtype or "float32"))


@_op("The ``n x n`` identity matrix.")
def identity(n: int, dtype: Any = None) -> Any:
    return eye(n, dtype=dtype)


@_op("The ``N x M`` matrix with ones at and below diagonal ``k``.")
def tri(N: int, M: Any = None, k: int = 0, dtype: Any = None) -> Any:
    return _t(np.tri(N, M, k), standardize_dtype(dtype or "float32"))


def _tri_mask(x: Any, k: int, lower: bool) -> Any:
    n, m = int(x.shape[-2]), int(x.shape[-1])
    mask = np.tri(n, m, k, dtype=bool) if lower else ~np.tri(n, m, k - 1, dtype=bool)
    return _tf().convert_to_tensor(mask)


@_op("``x`` with the elements above diagonal ``k`` set to zero.")
def tril(x: Any, k: int = 0) -> Any:
    tf = _tf()
    x = _t(x)
    return tf.where(_tri_mask(x, k, True), x, tf.zeros_like(x))


@_op("``x`` with the elements below diagonal ``k`` set to zero.")
def triu(x: Any, k: int = 0) -> Any:
    tf = _tf()
    x = _t(x)
    return tf.where(_tri_mask(x, k, False), x, tf.zeros_like(x))


@_op("Coordinate matrices from coordinate vectors (``indexing``: ``xy`` or ``ij``).", "list")
def meshgrid(*x: Any, indexing: str = "xy") -> list[Any]:
    if indexing not in ("xy", "ij"):
        raise ValueError(f"keras.ops.meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    return list(_tf().meshgrid(*[_t(e) for e in x], indexing=indexing))


# --------------------------------------------------------------------------- shape manipulation


@_op("``x`` with a new shape (one entry may be -1).")
def reshape(x: Any, newshape: Any) -> Any:
    return _tf().reshape(_t(x), _shape_list(newshape))


@_op("``x`` flattened to 1-D.")
def ravel(x: Any) -> Any:
    return _tf().reshape(_t(x), [-1])


@_op("``x`` with size-1 axes inserted at ``axis`` (int or tuple).")
def expand_dims(x: Any, axis: Any) -> Any:
    tf = _tf()
    x = _t(x)
    axes = [axis] if isinstance(axis, int) else list(axis)
    out_nd = len(x.shape) + len(axes)
    for a in sorted(_axes(axes, out_nd) or []):
        x = tf.expand_dims(x, a)
    return x


@_op("``x`` with size-1 axes removed (all of them, or those in ``axis``).")
def squeeze(x: Any, axis: Any = None) -> Any:
    tf = _tf()
    x = _t(x)
    if axis is None:
        return tf.squeeze(x)
    axes = _axes(axis, len(x.shape)) or []
    for a in axes:
        if int(x.shape[a]) != 1:
            raise ValueError(
                f"keras.ops.squeeze: cannot squeeze axis {a} of size {int(x.shape[a])} (shape {tuple(x.shape)})"
            )
    return tf.squeeze(x, axes)


@_op("``x`` with its axes permuted (reversed when ``axes`` is None).")
def transpose(x: Any, axes: Any = None) -> Any:
    return _tf().transpose(_t(x), None if axes is None else list(axes))


@_op("``x`` with axes ``source`` moved to positions ``destination``.")
def moveaxis(x: Any, source: Any, destination: Any) -> Any:
    x = _t(x)
    nd = len(x.shape)
    if not nd:
        return x
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise ValueError(f"keras.ops.moveaxis: source {source} and destination {destination} differ in length")
    src, dst = _axes(src, nd) or [], _axes(dst, nd) or []
    order = [n for n in range(nd) if n not in src]
    for d, sa in sorted(zip(dst, src)):
        order.insert(d, sa)
    return _tf().transpose(x, order)


@_op("``x`` with ``axis1`` and ``axis2`` swapped.")
def swapaxes(x: Any, axis1: int, axis2: int) -> Any:
    x = _t(x)
    perm = list(range(len(x.shape)))
    a, b = _axes([axis1, axis2], len(perm)) or [0, 0]
    perm[a], perm[b] = perm[b], perm[a]
    return _tf().transpose(x, perm)


@_op("``x`` broadcast to ``shape``.")
def broadcast_to(x: Any, shape: Any) -> Any:
    return _tf().broadcast_to(_t(x), _shape_list(shape))


@_op("Joins ``xs`` along an existing ``axis`` (Keras promotion across the inputs).")
def concatenate(xs: Any, axis: Any = 0) -> Any:
    tf = _tf()
    ts = [_t(e) for e in xs]
    dtype = result_type(*[t.dtype.name for t in ts])
    ts = [tf.cast(t, dtype) for t in ts]
    if axis is None:
        return tf.concat([tf.reshape(t, [-1]) for t in ts], 0)
    return tf.concat(ts, axis)


@_op("Stacks ``x`` (a sequence of tensors) along a new ``axis``.")
def stack(x: Any, axis: int = 0) -> Any:
    tf = _tf()
    ts = [_t(e) for e in x]
    dtype = result_type(*[t.dtype.name for t in ts])
    return tf.stack([tf.cast(t, dtype) for t in ts], axis=axis)


@_op("``x1`` with ``x2`` appended along ``axis`` (both flattened when ``axis`` is None).")
def append(x1: Any, x2: Any, axis: Any = None) -> Any:
    return concatenate([x1, x2], axis=axis)


def _atleast(x: Any, n: int) -> Any:
    tf = _tf()
    x = _t(x)
    nd = len(x.shape)
    if nd >= n:
        return x
    if n == 2:
        return tf.reshape(x, [1, -1] if nd == 1 else [1, 1])
    if nd == 0:
        return tf.reshape(x, [1, 1, 1])
    if nd == 1:
        return tf.reshape(x, [1, -1, 1])
    return tf.expand_dims(x, -1)


@_op("Stacks ``xs`` horizontally (along axis 1, or 0 for 1-D inputs).")
def hstack(xs: Any) -> Any:
    ts = [_t(e) for e in xs]
    return concatenate(ts, axis=0 if len(ts[0].shape) == 1 else 1)


@_op("Concatenates ``xs`` along axis 0 (as Keras on TensorFlow: 1-D inputs are joined, not stacked as rows).")
def vstack(xs: Any) -> Any:
    return concatenate(list(xs), axis=0)


@_op("Stacks ``xs`` along the third axis.")
def dstack(xs: Any) -> Any:
    return concatenate([_atleast(e, 3) for e in xs], axis=2)


@_op("Splits ``x`` into equal sections (an int) or at the given indices along ``axis``.", "list")
def split(x: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    tf = _tf()
    x = _t(x)
    ax = (_axes(axis, len(x.shape)) or [0])[0]
    n = int(x.shape[ax])
    if isinstance(indices_or_sections, int):
        if indices_or_sections <= 0 or n % indices_or_sections:
            raise ValueError(f"keras.ops.split: array of size {n} along axis {ax} does not split into "
                             f"{indices_or_sections} equal sections")  # fmt: skip
        return list(tf.split(x, indices_or_sections, axis=ax))
    bounds = [0] + [builtins.min(builtins.max(int(i), 0), n) for i in indices_or_sections] + [n]
    sizes = [builtins.max(b - a, 0) for a, b in zip(bounds[:-1], bounds[1:])]
    return list(tf.split(x, sizes, axis=ax))


@_op("Splits ``x`` into ``indices_or_sections`` nearly equal parts (the first ones one longer).", "list")
def array_split(x: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    x = _t(x)
    if not isinstance(indices_or_sections, int) or indices_or_sections <= 0:
        raise ValueError(
            f"keras.ops.array_split: indices_or_sections must be a positive int, got {indices_or_sections!r}"
        )
    ax = (_axes(axis, len(x.shape)) or [0])[0]
    n, k = int(x.shape[ax]), indices_or_sections
    sizes = [n // k + 1] * (n % k) + [n // k] * (k - n % k)
    return list(_tf().split(x, sizes, axis=ax))


@_op("Splits ``x`` along axis 1 (axis 0 for 1-D inputs).", "list")
def hsplit(x: Any, indices_or_sections: Any) -> list[Any]:
    return split(x, indices_or_sections, axis=0 if len(_shape(x)) == 1 else 1)


@_op("Splits ``x`` along axis 0.", "list")
def vsplit(x: Any, indices_or_sections: Any) -> list[Any]:
    return split(x, indices_or_sections, axis=0)


@_op("Splits ``x`` along axis 2.", "list")
def dsplit(x: Any, indices_or_sections: Any) -> list[Any]:
    return split(x, indices_or_sections, axis=2)


@_op("``x`` tiled ``repeats`` times along each axis (numpy semantics).")
def tile(x: Any, repeats: Any) -> Any:
    tf = _tf()
    x = _t(x)
    reps = [int(repeats)] if isinstance(repeats, int) else [int(r) for r in repeats]
    nd = len(x.shape)
    if len(reps) < nd:
        reps = [1] * (nd - len(reps)) + reps
    elif len(reps) > nd:
        x = tf.reshape(x, [1] * (len(reps) - nd) + list(x.shape))
    return tf.tile(x, reps)


@_op("Each element of ``x`` repeated ``repeats`` times along ``axis`` (flattened when None).")
def repeat(x: Any, repeats: Any, axis: Any = None) -> Any:
    return _tf().repeat(_t(x), repeats, axis=axis)


@_op("``x`` reversed along ``axis`` (all axes when None).")
def flip(x: Any, axis: Any = None) -> Any:
    x = _t(x)
    axes = list(range(len(x.shape))) if axis is None else _axes(axis, len(x.shape))
    return _tf().reverse(x, axes) if axes else x


@_op("``x`` reversed along axis 1.")
def fliplr(x: Any) -> Any:
    return flip(x, 1)


@_op("``x`` reversed along axis 0.")
def flipud(x: Any) -> Any:
    return flip(x, 0)


@_op("``x`` rolled by ``shift`` along ``axis`` (flattened when None).")
def roll(x: Any, shift: Any, axis: Any = None) -> Any:
    tf = _tf()
    x = _t(x)
    if axis is None:
        return tf.reshape(tf.roll(tf.reshape(x, [-1]), shift, 0), list(x.shape))
    return tf.roll(x, shift, axis)


@_op("``array`` rotated by 90 degrees ``k`` times in the plane of ``axes``.")
def rot90(array: Any, k: int = 1, axes: Any = (0, 1)) -> Any:
    x = _t(array)
    a0, a1 = _axes(list(axes), len(x.shape)) or [0, 1]
    if a0 == a1:
        raise ValueError("keras.ops.rot90: axes must be different")
    k = k % 4
    if k == 0:
        return x
    if k == 2:
        return flip(flip(x, a0), a1)
    if k == 1:
        return swapaxes(flip(x, a1), a0, a1)
    return flip(swapaxes(x, a0, a1), a1)


@_op("Pads ``x`` (``mode``: constant, reflect, symmetric).")
def pad(x: Any, pad_width: Any, mode: str = "constant", constant_values: Any = None) -> Any:
    tf = _tf()
    x = _t(x)
    pw = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (len(x.shape), 2)).tolist()
    if mode not in ("constant", "reflect", "symmetric"):
        raise ValueError(f"keras.ops.pad: unsupported mode={mode!r} (constant, reflect, symmetric)")
    if constant_values is not None and mode != "constant":
        raise ValueError("keras.ops.pad: constant_values requires mode='constant'")
    cv = 0 if constant_values is None else constant_values
    return tf.pad(x, pw, mode=mode.upper(), constant_values=tf.cast(cv, x.dtype))


@_op("Elements of ``x`` at ``indices`` along ``axis`` (flattened when None; negative indices wrap).")
def take(x: Any, indices: Any, axis: Any = None) -> Any:
    tf = _tf()
    x = _t(x)
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    ax = (_axes(axis, len(x.shape)) or [0])[0]
    idx = _t(indices)
    if idx.dtype.name not in _INT:
        idx = tf.cast(idx, "int32")
    idx = tf.where(idx < 0, idx + tf.cast(int(x.shape[ax]), idx.dtype), idx)
    return tf.gather(x, idx, axis=ax)


@_op("Elements of ``x`` picked by ``indices`` along ``axis`` (numpy's ``take_along_axis``).")
def take_along_axis(x: Any, indices: Any, axis: Any = None) -> Any:
    tf = _tf()
    x = _t(x)
    idx = _t(indices)
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
        idx = tf.reshape(idx, [-1])
    nd = len(x.shape)
    ax = (_axes(axis, nd) or [0])[0]
    idx = tf.where(idx < 0, idx + tf.cast(int(x.shape[ax]), idx.dtype), idx)
    xs, ishp = list(x.shape), list(idx.shape)
    if len(ishp) != nd:
        raise ValueError(f"keras.ops.take_along_axis: indices of rank {len(ishp)} for x of rank {nd}")
    bshape = [builtins.max(int(a), int(b)) for a, b in zip(xs, ishp)]
    bshape[ax] = int(ishp[ax])
    xshape = list(bshape)
    xshape[ax] = int(xs[ax])
    x = tf.broadcast_to(x, xshape)
    idx = tf.broadcast_to(idx, bshape)
    x = moveaxis(x, ax, -1)
    idx = moveaxis(idx, ax, -1)
    out = tf.gather(x, idx, batch_dims=nd - 1, axis=-1)
    return moveaxis(out, -1, ax)


@_op("``x[key]`` (numpy/TF indexing).")
def get_item(x: Any, key: Any) -> Any:
    return _t(x)[key]


@_op("Elements from ``x1`` where ``condition`` holds, else ``x2``; with only ``condition``, its non-zero indices.",
     "Tensor or tuple")  # fmt: skip
def where(condition: Any, x1: Any = None, x2: Any = None) -> Any:
    tf = _tf()
    c = _t(condition, "bool")
    if x1 is not None and x2 is not None:
        a, b = _pair(x1, x2)
        return tf.where(c, a, b)
    if x1 is None and x2 is None:
        return nonzero(c)
    raise ValueError("`x1` and `x2` either both should be `None` or both should have non-None value.")


@_op("Indices of the non-zero elements of ``x``, one int32 tensor per axis.", "tuple")
def nonzero(x: Any) -> tuple[Any, ...]:
    tf = _tf()
    x = _t(x)
    idx = tf.cast(tf.where(tf.not_equal(x, tf.zeros_like(x))), "int32")
    return tuple(idx[:, i] for i in range(len(x.shape)))


@_op("Elements chosen from ``choicelist`` by the first true condition in ``condlist`` (else ``default``).")
def select(condlist: Any, choicelist: Any, default: Any = 0) -> Any:
    tf = _tf()
    if len(condlist) != len(choicelist):
        raise ValueError(f"keras.ops.select: condlist has {len(condlist)} entries, choicelist {len(choicelist)}")
    choices = [_t(c) for c in choicelist]
    dtype = result_type(*[c.dtype.name for c in choices])
    out = _t(default, dtype)
    for c, v in reversed(list(zip(condlist, choices))):
        cond_t = _t(c, "bool")
        v = tf.cast(v, dtype)
        shp = tf.shape(tf.cast(cond_t, dtype) + v + out)
        out = tf.where(tf.broadcast_to(cond_t, shp), tf.broadcast_to(v, shp), tf.broadcast_to(out, shp))
    return out


@_op("The ``k``-th diagonal of a matrix, or a matrix with ``x`` (1-D) on its ``k``-th diagonal.")
def diag(x: Any, k: int = 0) -> Any:
    tf = _tf()
    x = _t(x)
    if len(x.shape) == 1:
        n = int(x.shape[0]) + builtins.abs(k)
        m = tf.linalg.diag(x)
        pads = [[builtins.max(-k, 0), builtins.max(k, 0)], [builtins.max(k, 0), builtins.max(-k, 0)]]
        return tf.reshape(tf.pad(m, pads), [n, n])
    if len(x.shape) == 2:
        return diagonal(x, offset=k)
    raise ValueError(f"keras.ops.diag: x must be 1-D or 2-D, got shape {tuple(x.shape)}")


@_op("A matrix with the flattened ``x`` on its ``k``-th diagonal.")
def diagflat(x: Any, k: int = 0) -> Any:
    return diag(ravel(x), k)


@_op("The diagonal at ``offset`` of the planes given by ``axis1`` and ``axis2`` (moved to the last axis).")
def diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    tf = _tf()
    x = _t(x)
    nd = len(x.shape)
    a1, a2 = _axes([axis1, axis2], nd) or [0, 1]
    rest = [i for i in range(nd) if i not in (a1, a2)]
    x = tf.transpose(x, rest + [a1, a2])
    n, m = int(x.shape[-2]), int(x.shape[-1])
    rows = np.arange(builtins.max(0, -offset), builtins.min(n, m - offset))
    if rows.size == 0:
        return tf.zeros(list(x.shape[:-2]) + [0], dtype=x.dtype)
    cols = rows + offset
    flat_idx = (rows * m + cols).astype(np.int32)
    flat = tf.reshape(x, list(x.shape[:-2]) + [n * m])
    return tf.gather(flat, flat_idx, axis=-1)


@_op("Sum along the diagonal at ``offset`` of the planes ``axis1``/``axis2``.")
def trace(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    x = _t(x)
    if x.dtype.name == "bool":
        x = _tf().cast(x, "int32")
    return sum(diagonal(x, offset, axis1, axis2), axis=-1)


@_op("The ``n``-th discrete difference along ``axis``.")
def diff(a: Any, n: int = 1, axis: int = -1) -> Any:
    tf = _tf()
    x = _t(a)
    ax = (_axes(axis, len(x.shape)) or [0])[0]
    for _ in range(n):
        size_ax = int(x.shape[ax])
        hi = tf.gather(x, np.arange(1, size_ax, dtype=np.int32), axis=ax)
        lo = tf.gather(x, np.arange(0, size_ax - 1, dtype=np.int32), axis=ax)
        x = tf.not_equal(hi, lo) if x.dtype.name == "bool" else hi - lo
    return x


@_op("The bin index of each element of ``x`` given increasing ``bins`` (int32).")
def digitize(x: Any, bins: Any) -> Any:
    tf = _tf()
    x = _t(x)
    b = _t(bins, x.dtype.name if x.dtype.name in _FLOAT else "float32")
    xv = tf.cast(x, b.dtype)
    flat = tf.reshape(xv, [-1])
    out = tf.searchsorted(b, flat, side="right", out_type="int32")
    return tf.reshape(out, list(x.shape))


@_op("Indices where ``values`` would be inserted to keep ``sorted_sequence`` sorted (int32).")
def searchsorted(sorted_sequence: Any, values: Any, side: str = "left") -> Any:
    tf = _tf()
    s = _t(sorted_sequence)
    if len(s.shape) != 1:
        raise ValueError(f"keras.ops.searchsorted: sorted_sequence must be 1-D, got shape {tuple(s.shape)}")
    v = _t(values)
    dtype = result_type(s.dtype.name, v.dtype.name)
    flat = tf.reshape(tf.cast(v, dtype), [-1])
    out = tf.searchsorted(tf.cast(s, dtype), flat, side=side, out_type="int32")
    return tf.reshape(out, list(v.shape))


@_op("Whether each element of ``x1`` is in ``x2`` (``invert=True`` negates).")
def isin(x1: Any, x2: Any, assume_unique: bool = False, invert: bool = False) -> Any:
    tf = _tf()
    a, b = _pair(x1, x2)
    eq = tf.equal(tf.expand_dims(a, -1), tf.reshape(b, [-1]))
    out = tf.reduce_any(eq, axis=-1)
    return tf.logical_not(out) if invert else out


@_op("Counts of each value of a non-negative int tensor, per row when 2-D (``weights`` are summed instead).")
def bincount(x: Any, weights: Any = None, minlength: int = 0, sparse: bool = False) -> Any:
    tf = _tf()
    _no_sparse(sparse, "bincount")
    x = _t(x)
    if len(x.shape) not in (1, 2):
        raise ValueError(f"keras.ops.bincount: x must be 1-D or 2-D (one count per row), got shape {tuple(x.shape)}")
    if x.dtype.name not in ("int32", "int64"):
        x = tf.cast(x, "int32")
    w = None
    dtype = "int32"
    if weights is not None:
        w = _t(weights)
        dtype = result_type(x.dtype.name, w.dtype.name)
        if w.dtype.name not in ("int32", "int64", "float32", "float64"):
            w = tf.cast(w, "int32" if "int" in w.dtype.name else "float32")
    if len(x.shape) == 1:
        out = tf.math.bincount(x, weights=w, minlength=minlength)
    else:
        out = tf.math.bincount(x, weights=w, minlength=minlength, axis=-1)
    return tf.cast(out, dtype)


@_op("Unique elements of ``x`` (sorted); optionally also indices, inverse indices and counts.", "Tensor or tuple")
def unique(x: Any, sorted: bool = True, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: Any = None, size: Any = None, fill_value: Any = None) -> Any:  # fmt: skip
    if axis is not None:
        raise NotImplementedError("keras.ops.unique: axis is not supported by tapers")
    tf = _tf()
    x = _t(x)
    flat = tf.reshape(x, [-1])
    y, inverse, counts = tf.unique_with_counts(flat)  # order of first appearance
    n_unique = int(y.shape[0])
    first = tf.math.unsorted_segment_min(tf.range(int(flat.shape[0])), inverse, n_unique)
    if sorted and n_unique:
        order = tf.argsort(y, stable=True)
        y, first, counts = tf.gather(y, order), tf.gather(first, order), tf.gather(counts, order)
        inverse = tf.gather(tf.math.invert_permutation(order), inverse)
    if size is not None:
        size = int(size)
        keep = builtins.min(n_unique, size)
        pad_n = builtins.max(size - n_unique, 0)
        fill = tf.cast(0 if fill_value is None else fill_value, y.dtype)
        y = tf.pad(y[:keep], [[0, pad_n]], constant_values=fill)
        first = tf.pad(first[:keep], [[0, pad_n]], constant_values=1)
        counts = tf.pad(counts[:keep], [[0, pad_n]], constant_values=0)
    out = [y]
    if return_index:
        out.append(tf.cast(first, "int32"))
    if return_inverse:
        out.append(tf.cast(tf.reshape(inverse, list(x.shape)), "int32"))
    if return_counts:
        out.append(tf.cast(counts, "int32"))
    return out[0] if len(out) == 1 else tuple(out)


@_op("Converts flat ``indices`` into a tuple of coordinate arrays for ``shape``.", "tuple")
def unravel_index(indices: Any, shape: Any) -> tuple[Any, ...]:
    tf = _tf()
    idx = _t(indices)
    out = []
    rem = idx
    for dim in reversed(_shape_list(shape)):
        out.append(tf.math.floormod(rem, tf.cast(dim, idx.dtype)))
        rem = tf.math.floordiv(rem, tf.cast(dim, idx.dtype))
    return tuple(reversed(out))


@_op("The Vandermonde matrix of ``x`` (``N`` columns; decreasing powers unless ``increasing``).")
def vander(x: Any, N: Any = None, increasing: bool = False) -> Any:
    tf = _tf()
    x = _t(x)
    if len(x.shape) != 1:
        raise ValueError(f"keras.ops.vander: x must be 1-D, got shape {tuple(x.shape)}")
    n = int(x.shape[0]) if N is None else int(N)
    powers = np.arange(n) if increasing else np.arange(n - 1, -1, -1)
    p = tf.convert_to_tensor(powers.astype(x.dtype.name if x.dtype.name != "bool" else "int32"))
    return tf.pow(tf.expand_dims(x, -1), tf.cast(p, x.dtype))


@_op("The trapezoidal-rule integral of ``y`` along ``axis`` (sample points ``x`` or spacing ``dx``).")
def trapezoid(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> Any:
    tf = _tf()
    y = _float(y)
    ax = (_axes(axis, len(y.shape)) or [0])[0]
    n = int(y.shape[ax])
    hi = tf.gather(y, np.arange(1, n, dtype=np.int32), axis=ax)
    lo = tf.gather(y, np.arange(0, n - 1, dtype=np.int32), axis=ax)
    if x is None:
        d = tf.cast(dx, y.dtype)
    else:
        xd = diff(_t(x, y.dtype.name), axis=-1 if len(_shape(x)) == 1 else ax)
        if len(tuple(xd.shape)) == 1 and len(y.shape) > 1:
            shp = [1] * len(y.shape)
            shp[ax] = n - 1
            xd = tf.reshape(xd, shp)
        d = xd
    return tf.reduce_sum((hi + lo) * d / 2, axis=ax)


# --------------------------------------------------------------------------- products / linalg-flavoured numpy


@_op("Matrix product of ``x1`` and ``x2`` (numpy ``matmul`` rules; int8 x int8 gives int32).")
def matmul(x1: Any, x2: Any) -> Any:
    tf = _tf()
    a, b = _t(x1), _t(x2)
    if a.dtype.name == "int8" and b.dtype.name == "int8":
        dtype = "int32"
    else:
        dtype = result_type(a.dtype.name, b.dtype.name)
    a, b = tf.cast(a, dtype), tf.cast(b, dtype)
    if dtype == "bool":
        a, b = tf.cast(a, "int32"), tf.cast(b, "int32")
    if len(a.shape) == 0 or len(b.shape) == 0:
        raise ValueError(
            f"keras.ops.matmul: inputs must be at least 1-D, got shapes {tuple(a.shape)} and {tuple(b.shape)}"
        )
    va, vb = len(a.shape) == 1, len(b.shape) == 1
    if va:
        a = tf.expand_dims(a, 0)
    if vb:
        b = tf.expand_dims(b, -1)
    if int(a.shape[-1]) != int(b.shape[-2]):
        raise ValueError(f"keras.ops.matmul: incompatible shapes {_shape(x1)} and {_shape(x2)}")
    out = tf.matmul(a, b)
    if va:
        out = tf.squeeze(out, -2)
    if vb:
        out = tf.squeeze(out, -1)
    return tf.cast(out, dtype) if dtype == "bool" else out


@_op("Dot product (numpy ``dot``: sum over the last axis of ``x1`` and the second-to-last of ``x2``).")
def dot(x1: Any, x2: Any) -> Any:
    tf = _tf()
    a, b = _t(x1), _t(x2)
    rdt = result_type(a.dtype.name, b.dtype.name)
    cdt = result_type(rdt, float)
    a, b = tf.cast(a, cdt), tf.cast(b, cdt)
    if len(a.shape) == 0 or len(b.shape) == 0:
        out = a * b
    elif len(b.shape) == 1:
        out = tf.tensordot(a, b, [[-1 % len(a.shape)], [0]])
    else:
        out = tf.tensordot(a, b, [[len(a.shape) - 1], [len(b.shape) - 2]])
    return tf.cast(out, rdt)


@_op("Tensor contraction over ``axes`` (an int or a pair of axis lists).")
def tensordot(x1: Any, x2: Any, axes: Any = 2) -> Any:
    a, b = _pair(_t(x1), _t(x2))
    return _tf().tensordot(a, b, axes)


@_op("Inner product over the last axes.")
def inner(x1: Any, x2: Any) -> Any:
    tf = _tf()
    a, b = _t(x1), _t(x2)
    rdt = result_type(a.dtype.name, b.dtype.name)
    cdt = result_type(rdt, float)
    a, b = tf.cast(a, cdt), tf.cast(b, cdt)
    if len(a.shape) == 0 or len(b.shape) == 0:
        out = a * b
    else:
        out = tf.tensordot(a, b, [[len(a.shape) - 1], [len(b.shape) - 1]])
    return tf.cast(out, rdt)


@_op("Outer product of the flattened inputs.")
def outer(x1: Any, x2: Any) -> Any:
    a, b = _pair(_t(x1), _t(x2))
    return _tf().reshape(a, [-1, 1]) * _tf().reshape(b, [1, -1])


@_op("Dot product of the flattened inputs (conjugating ``x1``).")
def vdot(x1: Any, x2: Any) -> Any:
    tf = _tf()
    a, b = _pair(_t(x1), _t(x2))
    return tf.reduce_sum(conjugate(tf.reshape(a, [-1])) * tf.reshape(b, [-1]))


@_op("Kronecker product.")
def kron(x1: Any, x2: Any) -> Any:
    tf = _tf()
    a, b = _pair(_t(x1), _t(x2))
    nd = builtins.max(len(a.shape), len(b.shape))
    a = tf.reshape(a, [1] * (nd - len(a.shape)) + list(a.shape))
    b = tf.reshape(b, [1] * (nd - len(b.shape)) + list(b.shape))
    sa, sb = list(a.shape), list(b.shape)
    inter_a, inter_b = [], []
    for d in range(nd):
        inter_a += [int(sa[d]), 1]
        inter_b += [1, int(sb[d])]
    out = tf.reshape(a, inter_a) * tf.reshape(b, inter_b)
    return tf.reshape(out, [int(sa[d]) * int(sb[d]) for d in range(nd)])


@_op("Cross product of 3-vectors (2-vectors are padded with a zero z) along the given axes.")
def cross(x1: Any, x2: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: Any = None) -> Any:
    tf = _tf()
    a, b = _pair(_t(x1), _t(x2))
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    for t in (a, b):
        if int(t.shape[-1]) not in (2, 3):
            raise ValueError(f"keras.ops.cross: vectors must have 2 or 3 components, got shape {tuple(t.shape)}")
    two = int(a.shape[-1]) == 2 and int(b.shape[-1]) == 2

    def pad3(t: Any) -> Any:
        if int(t.shape[-1]) == 3:
            return t
        return tf.pad(t, [[0, 0]] * (len(t.shape) - 1) + [[0, 1]])

    a, b = pad3(a), pad3(b)
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    if two:
        return a0 * b1 - a1 * b0
    out = tf.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return moveaxis(out, -1, axisc)


@_op("Einstein summation over ``operands`` as given by ``subscripts``.")
def einsum(subscripts: str, *operands: Any, **kwargs: Any) -> Any:
    tf = _tf()
    ts = [_t(o) for o in operands]
    dtype = result_type(*[t.dtype.name for t in ts])
    return tf.einsum(subscripts, *[tf.cast(t, dtype) for t in ts])


@_op("Pairwise Euclidean distances between the rows of ``x`` and ``y`` (batched over leading axes).")
def cdist(x: Any, y: Any) -> Any:
    tf = _tf()
    a, b = _pair(_float(x), _float(y))
    d = tf.expand_dims(a, -2) - tf.expand_dims(b, -3)
    return tf.sqrt(tf.reduce_sum(tf.square(d), axis=-1))


@_op("Pearson correlation coefficients between the rows of ``x``.")
def corrcoef(x: Any) -> Any:
    tf = _tf()
    x = _float(x)
    xc = x - tf.reduce_mean(x, axis=-1, keepdims=True)
    cov = tf.matmul(xc, xc, transpose_b=True)
    d = tf.sqrt(tf.linalg.diag_part(cov))
    return tf.clip_by_value(cov / (tf.expand_dims(d, -1) * tf.expand_dims(d, 0)), -1.0, 1.0)


@_op("Cross-correlation of 1-D sequences (``mode``: valid, same, full).")
def correlate(x1: Any, x2: Any, mode: str = "valid") -> Any:
    tf = _tf()
    dtype = result_type(_dtn(x1), _dtn(x2))
    cdt = dtype if dtype in _FLOAT else ("float64" if dtype == "int64" else "float32")
    a, b = _t(x1, cdt), _t(x2, cdt)
    n, m = int(a.shape[0]), int(b.shape[0])
    if mode == "valid":
        lo, hi = builtins.min(n, m) - 1, builtins.max(n, m) - 1
    elif mode == "same":
        lo = (n + m - 1 - builtins.max(n, m)) // 2  # Keras' centring (numpy's differs for n < m, even m)
        hi = lo + builtins.max(n, m) - 1
    elif mode == "full":
        lo, hi = 0, n + m - 2
    else:
        raise ValueError(f"keras.ops.correlate: mode must be valid, same or full, got {mode!r}")
    # full correlation c[k] = sum_i a[i] * b[i - k + m - 1], k in [0, n + m - 2]
    ap = tf.pad(a, [[m - 1, m - 1]])
    rows = np.arange(n + m - 1)[:, None] + np.arange(m)[None, :]
    windows = tf.gather(ap, rows.astype(np.int32))
    full_ = tf.reduce_sum(windows * tf.expand_dims(b, 0), axis=-1)
    return full_[lo : hi + 1]


# --------------------------------------------------------------------------- linear algebra


def _check_square(x: Any, name: str) -> Any:
    x = _float(x)
    if len(x.shape) < 2 or int(x.shape[-1]) != int(x.shape[-2]):
        raise ValueError(f"keras.ops.{name}: expected a (batch of) square matrices, got shape {tuple(x.shape)}")
    return x


@_op("Cholesky factor of ``x`` (lower, or upper when ``upper=True``).")
def cholesky(x: Any, upper: bool = False) -> Any:
    tf = _tf()
    x = _check_square(x, "cholesky")
    out = tf.linalg.cholesky(x)
    if tf.executing_eagerly() and bool(tf.reduce_any(tf.math.is_nan(out)).numpy()):
        raise ValueError("keras.ops.cholesky: the input is not symmetric positive definite")
    return tf.linalg.adjoint(out) if upper else out


@_op("Inverse of the matrix whose Cholesky factor is ``x``.")
def cholesky_inverse(x: Any, upper: bool = False) -> Any:
    tf = _tf()
    x = _check_square(x, "cholesky_inverse")
    a = tf.matmul(x, x, transpose_a=True) if upper else tf.matmul(x, x, transpose_b=True)
    return tf.linalg.inv(a)


@_op("Determinant of (a batch of) square matrices.")
def det(x: Any) -> Any:
    return _tf().linalg.det(_check_square(x, "det"))


@_op("Inverse of (a batch of) square matrices.")
def inv(x: Any) -> Any:
    return _tf().linalg.inv(_check_square(x, "inv"))


@_op("Eigenvalues (ascending) and eigenvectors of (a batch of) symmetric matrices.", "tuple")
def eigh(x: Any) -> tuple[Any, Any]:
    w, v = _tf().linalg.eigh(_check_square(x, "eigh"))
    return w, v


@_op("Log-determinant of (a batch of) symmetric positive definite matrices.")
def logdet(x: Any) -> Any:
    return _tf().linalg.logdet(_check_square(x, "logdet"))


@_op("Sign and log of the absolute determinant.", "tuple")
def slogdet(x: Any) -> tuple[Any, Any]:
    s, ld = _tf().linalg.slogdet(_check_square(x, "slogdet"))
    return s, ld


@_op("Solves ``a @ x = b`` for ``x``.")
def solve(a: Any, b: Any) -> Any:
    tf = _tf()
    a = _check_square(a, "solve")
    b = _t(b, a.dtype.name)
    vec = len(b.shape) == len(a.shape) - 1
    if vec:
        b = tf.expand_dims(b, -1)
    if int(b.shape[-2]) != int(a.shape[-1]):
        raise ValueError(f"keras.ops.solve: incompatible shapes a={_shape(a)} and b={_shape(b)}")
    out = tf.linalg.solve(a, b)
    return tf.squeeze(out, -1) if vec else out


@_op("Solves the triangular system ``a @ x = b`` (``lower`` picks which triangle of ``a`` is used).")
def solve_triangular(a: Any, b: Any, lower: bool = False) -> Any:
    tf = _tf()
    a = _check_square(a, "solve_triangular")
    b = _t(b, a.dtype.name)
    vec = len(b.shape) == len(a.shape) - 1
    if vec:
        b = tf.expand_dims(b, -1)
    out = tf.linalg.triangular_solve(a, b, lower=lower)
    return tf.squeeze(out, -1) if vec else out


@_op("QR decomposition (``mode``: ``reduced`` or ``complete``).", "tuple")
def qr(x: Any, mode: str = "reduced") -> tuple[Any, Any]:
    if mode not in ("reduced", "complete"):
        raise ValueError(
            f"`mode` argument value not supported. Expected one of {{'reduced', 'complete'}}. Received: mode={mode}"
        )
    q, r = _tf().linalg.qr(_float(x), full_matrices=mode == "complete")
    return q, r


@_op("Singular value decomposition ``(u, s, vh)`` (only ``s`` when ``compute_uv=False``).", "tuple or Tensor")
def svd(x: Any, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    tf = _tf()
    x = _float(x)
    if not compute_uv:
        return tf.linalg.svd(x, compute_uv=False)
    s, u, v = tf.linalg.svd(x, full_matrices=full_matrices)
    return u, s, tf.linalg.adjoint(v)


@_op("LU factorization with partial pivoting: ``(lu, p)`` with ``L`` (unit lower) and ``U`` packed in ``lu``, "
     "and ``(L @ U)[..., p, :] == x``.", "tuple")  # fmt: skip
def lu_factor(x: Any) -> tuple[Any, Any]:
    tf = _tf()
    a = _check_square(x, "lu_factor")
    n = int(a.shape[-1])
    batch = list(a.shape[:-2])
    nb = len(batch)
    rng = tf.range(n)
    perm = tf.broadcast_to(rng, batch + [n])
    rows = tf.reshape(rng, [1] * nb + [n, 1])
    cols = tf.reshape(rng, [1] * nb + [1, n])
    for k in range(n):
        col = tf.abs(a[..., :, k])
        col = tf.where(tf.reshape(rng, [1] * nb + [n]) >= k, col, -tf.ones_like(col))
        r = tf.argmax(col, axis=-1, output_type="int32")  # (batch,)
        r_ = tf.expand_dims(r, -1)
        swap = tf.where(tf.equal(rng, k), r_, tf.where(tf.equal(rng, r_), k, rng))  # (batch, n)
        a = tf.gather(a, swap, axis=nb, batch_dims=nb)
        perm = tf.gather(perm, swap, axis=nb, batch_dims=nb)
        pivot = a[..., k : k + 1, k : k + 1]
        factors = tf.where(rows > k, a[..., :, k : k + 1] / pivot, tf.zeros_like(a[..., :, k : k + 1]))
        update = factors * tf.where(cols > k, a[..., k : k + 1, :], tf.zeros_like(a[..., k : k + 1, :]))
        a = a - update
        a = tf.where(tf.logical_and(rows > k, tf.equal(cols, k)), factors + tf.zeros_like(a), a)
    inv = tf.argsort(perm, axis=-1)
    return a, tf.cast(inv, "int32")


@_op("Moore-Penrose pseudo-inverse.")
def pinv(x: Any, rcond: Any = None) -> Any:
    tf = _tf()
    x = _float(x)
    return tf.linalg.pinv(x) if rcond is None else tf.linalg.pinv(x, rcond=rcond)


@_op("Rank of (a batch of) matrices (singular values above ``tol``), int32.")
def matrix_rank(x: Any, tol: Any = None) -> Any:
    tf = _tf()
    x = _float(x)
    s = tf.linalg.svd(x, compute_uv=False)
    if tol is None:
        m, n = int(x.shape[-2]), int(x.shape[-1])
        tol = tf.reduce_max(s, axis=-1, keepdims=True) * builtins.max(m, n) * np.finfo(x.dtype.name).eps
    else:
        tol = tf.cast(tol, s.dtype)
    return tf.reduce_sum(tf.cast(s > tol, "int32"), axis=-1)


@_op("Least-squares solution of ``a @ x = b`` (singular values below ``rcond * max(s)`` are dropped).")
def lstsq(a: Any, b: Any, rcond: Any = None) -> Any:
    tf = _tf()
    a = _float(a)
    b = _t(b, a.dtype.name)
    if len(a.shape) != 2:
        raise ValueError(f"keras.ops.lstsq: a must be 2-D, got shape {tuple(a.shape)}")
    vec = len(b.shape) == 1
    if vec:
        b = tf.expand_dims(b, -1)
    if int(b.shape[0]) != int(a.shape[0]):
        raise ValueError(f"keras.ops.lstsq: incompatible shapes a={_shape(a)} and b={_shape(b)}")
    m, n = int(a.shape[0]), int(a.shape[1])
    if rcond is None:
        rcond = np.finfo(a.dtype.name).eps * builtins.max(m, n)
    s, u, v = tf.linalg.svd(a, full_matrices=False)
    cut = tf.cast(rcond, s.dtype) * tf.reduce_max(s)
    s_inv = tf.where(s > cut, 1.0 / tf.where(s > cut, s, tf.ones_like(s)), tf.zeros_like(s))
    x = tf.matmul(v, tf.expand_dims(s_inv, -1) * tf.matmul(u, b, transpose_a=True))
    return tf.squeeze(x, -1) if vec else x


@_op("Vector or matrix norm (numpy ``ord`` conventions; integer inputs give float32).")
def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    tf = _tf()
    x = _float(x)
    nd = len(x.shape)
    if axis is None:
        axes = list(range(nd))
    else:
        axes = _axes(axis, nd) or []
    if axis is None and ord is None:
        out = tf.sqrt(tf.reduce_sum(tf.square(tf.abs(x))))
        return tf.reshape(out, [1] * nd) if keepdims else out
    if axis is None and nd > 2:
        raise ValueError(f"keras.ops.norm: give `axis` for a tensor of rank {nd} when `ord` is set")
    ax: Any = axes
    ab = tf.abs(x)
    if len(axes) == 1:
        ax = axes[0]
        if ord is None or ord == 2:
            return tf.sqrt(tf.reduce_sum(tf.square(ab), axis=ax, keepdims=keepdims))
        if ord == np.inf:
            return tf.reduce_max(ab, axis=ax, keepdims=keepdims)
        if ord == -np.inf:
            return tf.reduce_min(ab, axis=ax, keepdims=keepdims)
        if ord == 0:
            return tf.cast(tf.reduce_sum(tf.cast(tf.not_equal(x, 0), "int32"), axis=ax, keepdims=keepdims), x.dtype)
        if isinstance(ord, str):
            raise ValueError(f"Invalid `ord` argument for vector norm. Received: ord={ord}")
        p = tf.cast(ord, x.dtype)
        return tf.pow(tf.reduce_sum(tf.pow(ab, p), axis=ax, keepdims=keepdims), 1.0 / p)
    if len(axes) != 2:
        raise ValueError(f"keras.ops.norm: axis must name 1 or 2 axes, got {axis}")
    r, c = axes
    if ord is None or ord == "fro":
        return tf.sqrt(tf.reduce_sum(tf.square(ab), axis=axes, keepdims=keepdims))
    if ord in (1, -1, np.inf, -np.inf):
        sum_ax, red_ax = (r, c) if ord in (1, -1) else (c, r)
        sums = tf.reduce_sum(ab, axis=sum_ax, keepdims=True)
        red = tf.reduce_max if ord in (1, np.inf) else tf.reduce_min
        out = red(sums, axis=red_ax, keepdims=True)
        return out if keepdims else tf.squeeze(out, sorted(axes))
    if ord in (2, -2, "nuc"):
        rest = [i for i in range(nd) if i not in axes]
        xt = tf.transpose(x, rest + [r, c])
        s = tf.linalg.svd(xt, compute_uv=False)
        out = tf.reduce_max(s, -1) if ord == 2 else tf.reduce_min(s, -1) if ord == -2 else tf.reduce_sum(s, -1)
        if keepdims:
            shp = [1 if i in axes else int(x.shape[i]) for i in range(nd)]
            out = tf.reshape(out, shp)
        return out
    raise ValueError(f"Invalid `ord` argument for matrix norm. Received: ord={ord}")


# --------------------------------------------------------------------------- math


def _segment(kind: str, data: Any, segment_ids: Any, num_segments: Any) -> Any:
    tf = _tf()
    data = _t(data)
    ids = _t(segment_ids, "int32")
    if num_segments is None:
        num_segments = int(tf.reduce_max(ids).numpy()) + 1 if int(np.prod(tuple(ids.shape))) else 0
    return getattr(tf.math, f"unsorted_segment_{kind}")(data, ids, int(num_segments))


@_op("Sums of ``data`` over segments given by ``segment_ids``.")
def segment_sum(data: Any, segment_ids: Any, num_segments: Any = None, sorted: bool = False) -> Any:
    return _segment("sum", data, segment_ids, num_segments)


@_op("Maxima of ``data`` over segments (the dtype's lowest value for empty segments).")
def segment_max(data: Any, segment_ids: Any, num_segments: Any = None, sorted: bool = False) -> Any:
    return _segment("max", data, segment_ids, num_segments)


@_op("Minima of ``data`` over segments (the dtype's highest value for empty segments).")
def segment_min(data: Any, segment_ids: Any, num_segments: Any = None, sorted: bool = False) -> Any:
    return _segment("min", data, segment_ids, num_segments)


@_op("Products of ``data`` over segments (1 for empty segments).")
def segment_prod(data: Any, segment_ids: Any, num_segments: Any = None, sorted: bool = False) -> Any:
    return _segment("prod", data, segment_ids, num_segments)


@_op("Frames of length ``sequence_length`` every ``sequence_stride`` along the last axis (a new axis -2).")
def extract_sequences(x: Any, sequence_length: int, sequence_stride: int) -> Any:
    tf = _tf()
    x = _t(x)
    n = int(x.shape[-1])
    if sequence_length > n:
        raise ValueError(f"keras.ops.extract_sequences: sequence_length={sequence_length} > last dimension {n}")
    frames = 1 + (n - sequence_length) // sequence_stride
    idx = (np.arange(frames)[:, None] * sequence_stride + np.arange(sequence_length)[None, :]).astype(np.int32)
    return tf.gather(x, idx, axis=len(x.shape) - 1)


@_op("Peak signal-to-noise ratio between ``x1`` and ``x2`` (in dB).")
def psnr(x1: Any, x2: Any, max_val: Any) -> Any:
    tf = _tf()
    a, b = _t(x1), _t(x2)
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"Input shapes {tuple(a.shape)} and {tuple(b.shape)} must match for PSNR calculation.")
    a, b = _float(a), _t(b, _float(a).dtype.name)
    mv = tf.cast(max_val, b.dtype)
    mse = tf.reduce_mean(tf.square(a - b))
    ln10 = tf.math.log(tf.cast(10.0, b.dtype))
    return 20.0 * tf.math.log(mv) / ln10 - 10.0 * tf.math.log(mse) / ln10


@_op("A complex tensor from magnitudes ``abs_`` and angles ``angle``.")
def polar(abs_: Any, angle: Any) -> Any:
    tf = _tf()
    m, a = _pair(_float(abs_), _float(angle))
    return tf.complex(m * tf.cos(a), m * tf.sin(a))


# --------------------------------------------------------------------------- nn: activations


def _acts() -> Any:
    from . import activations

    return activations


@_op("Rectified linear unit with Keras' options (``keras.activations.relu``).")
def relu(x: Any) -> Any:
    return _acts().relu(_t(x))


@_op("``min(max(x, 0), 6)``.")
def relu6(x: Any) -> Any:
    return _acts().relu6(_t(x))


@_op("``1 / (1 + exp(-x))``; remembers ``x`` as the logits for cross-entropy losses (as Keras).")
def sigmoid(x: Any) -> Any:
    return _acts().sigmoid(_t(x))


@_op("0 for ``x <= -1``, ``(x + 1) / 2`` for ``-1 < x < 1``, 1 for ``x >= 1``.")
def sparse_sigmoid(x: Any) -> Any:
    return _acts().sparse_sigmoid(_t(x))


@_op("``log(exp(x) + 1)``, computed without overflow.")
def softplus(x: Any) -> Any:
    return _acts().softplus(_t(x))


@_op("``x / (abs(x) + 1)``.")
def softsign(x: Any) -> Any:
    return _acts().softsign(_t(x))


@_op("``x - threshold`` above ``threshold``, ``x + threshold`` below ``-threshold``, 0 between.")
def soft_shrink(x: Any, threshold: Any = 0.5) -> Any:
    return _acts().soft_shrink(_t(x), threshold)


@_op("0 for ``x <= -1``, ``(x + 1)**2 / 4`` for ``-1 < x < 1``, ``x`` for ``x >= 1``.")
def sparse_plus(x: Any) -> Any:
    return _acts().sparse_plus(_t(x))


@_op("``x * sigmoid(x)`` (also called swish).")
def silu(x: Any) -> Any:
    return _acts().silu(_t(x))


@_op("``(x + sqrt(x**2 + b)) / 2``, a smooth ReLU.")
def squareplus(x: Any, b: Any = 4) -> Any:
    return _acts().squareplus(_t(x), b)


@_op("``log(sigmoid(x)) = -softplus(-x)``, stable for large ``|x|``.")
def log_sigmoid(x: Any) -> Any:
    return _acts().log_sigmoid(_t(x))


@_op("Leaky ReLU: ``x`` above 0, ``negative_slope * x`` below (Keras' default slope 0.2).")
def leaky_relu(x: Any, negative_slope: Any = 0.2) -> Any:
    return _acts().leaky_relu(_t(x), negative_slope)


@_op("Keras 3's piecewise-linear sigmoid: ``relu6(x + 3) / 6`` (0 below -3, 1 above 3).")
def hard_sigmoid(x: Any) -> Any:
    return _acts().hard_sigmoid(_t(x))


@_op("``x * hard_sigmoid(x)`` (also called hard swish).")
def hard_silu(x: Any) -> Any:
    return _acts().hard_silu(_t(x))


@_op("Exponential linear unit: ``x`` above 0, ``alpha * (exp(x) - 1)`` below.")
def elu(x: Any, alpha: Any = 1.0) -> Any:
    return _acts().elu(_t(x), alpha)


@_op("Scaled ELU with the self-normalizing constants (scale 1.0507..., alpha 1.6732...).")
def selu(x: Any) -> Any:
    return _acts().selu(_t(x))


@_op("Continuously differentiable ELU: ``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``.")
def celu(x: Any, alpha: Any = 1.0) -> Any:
    return _acts().celu(_t(x), alpha)


@_op("Gated linear unit: ``x`` split in halves ``a, b`` along ``axis``, then ``a * sigmoid(b)``.")
def glu(x: Any, axis: Any = -1) -> Any:
    return _acts().glu(_t(x), axis)


@_op("``x - tanh(x)``.")
def tanh_shrink(x: Any) -> Any:
    return _acts().tanh_shrink(_t(x))


@_op("``x`` clipped to ``[-1, 1]``.")
def hard_tanh(x: Any) -> Any:
    return _acts().hard_tanh(_t(x))


@_op("``x`` where ``|x| > threshold``, 0 elsewhere.")
def hard_shrink(x: Any, threshold: Any = 0.5) -> Any:
    return _acts().hard_shrink(_t(x), threshold)


@_op("``x`` where ``x > threshold``, ``default_value`` elsewhere.")
def threshold(x: Any, threshold: Any, default_value: Any) -> Any:
    return _acts().threshold(_t(x), threshold, default_value)


@_op("Softmax along ``axis`` (all elements when None); remembers ``x`` as the logits for cross-entropy losses.")
def softmax(x: Any, axis: Any = -1) -> Any:
    return _acts().softmax(_t(x), axis)


@_op("``x - logsumexp(x)`` along ``axis`` (all elements when None).")
def log_softmax(x: Any, axis: Any = -1) -> Any:
    return _acts().log_softmax(_t(x), axis)


@_op("Sparsemax along ``axis``: ``max(x - tau, 0)`` with ``tau`` computed as Keras 3 does.")
def sparsemax(x: Any, axis: Any = -1) -> Any:
    return _acts().sparsemax(_t(x), axis)


@_op("``x * sigmoid(x)`` (also called swish).")
def swish(x: Any) -> Any:
    return _acts().silu(_t(x))


@_op("``x * hard_sigmoid(x)`` (also called hard swish).")
def hard_swish(x: Any) -> Any:
    return _acts().hard_silu(_t(x))


@_op("Gaussian error linear unit; exact (erf) by default as in Keras, tanh approximation when asked.")
def gelu(x: Any, approximate: Any = True) -> Any:
    return _acts().gelu(_t(x), approximate)


@_op("Elementwise hyperbolic tangent.")
def tanh(x: Any) -> Any:
    return _tf().tanh(_float(x))


# --------------------------------------------------------------------------- nn: losses, encodings, normalization


@_op("Elementwise binary cross-entropy between ``target`` and ``output`` (probabilities, or logits).")
def binary_crossentropy(target: Any, output: Any, from_logits: bool = False) -> Any:
    from . import losses as _l

    output = _float(output)
    return _l._backend_binary_crossentropy(_t(target, output.dtype.name), output, from_logits)


@_op("Categorical cross-entropy along ``axis`` between one-hot ``target`` and ``output``.")
def categorical_crossentropy(target: Any, output: Any, from_logits: bool = False, axis: int = -1) -> Any:
    from . import losses as _l

    output = _float(output)
    return _l._backend_categorical_crossentropy(_t(target, output.dtype.name), output, from_logits, axis)


@_op("Categorical cross-entropy with integer class ``target``.")
def sparse_categorical_crossentropy(target: Any, output: Any, from_logits: bool = False, axis: int = -1) -> Any:
    from . import losses as _l

    return _l._backend_sparse_categorical_crossentropy(_t(target), _float(output), from_logits, axis)


@_op("One-hot encoding of integer ``x`` with ``num_classes`` classes (negative indices give zeros).")
def one_hot(x: Any, num_classes: int, axis: int = -1, dtype: Any = None, sparse: bool = False) -> Any:
    _no_sparse(sparse, "one_hot")
    tf = _tf()
    dtype = standardize_dtype(dtype or "float32")
    out = tf.one_hot(_t(x, "int64"), int(num_classes), axis=axis, dtype="float32")
    return tf.cast(out, dtype)


@_op("Multi-hot encoding: the classes present in each row of ``inputs``.")
def multi_hot(inputs: Any, num_classes: Any = None, axis: int = -1, dtype: Any = None, sparse: bool = False,
              **kwargs: Any) -> Any:  # fmt: skip
    _no_sparse(sparse, "multi_hot")
    if num_classes is None:
        num_classes = kwargs.pop("num_tokens", None)
    if num_classes is None or kwargs:
        raise ValueError(f"keras.ops.multi_hot: give num_classes (unexpected arguments: {sorted(kwargs)})")
    tf = _tf()
    x = _t(inputs)
    red = 1 if len(x.shape) > 1 else 0
    oh = one_hot(x, num_classes, axis=axis, dtype="float32")
    return tf.cast(tf.reduce_max(oh, axis=red), standardize_dtype(dtype or "float32"))


@_op("Mean and variance of ``x`` over ``axes`` (float16 inputs are computed in float32).", "tuple")
def moments(x: Any, axes: Any, keepdims: bool = False, synchronized: bool = False) -> tuple[Any, Any]:
    tf = _tf()
    x = _t(x)
    ori = x.dtype.name
    if ori in ("float16", "bfloat16"):
        x = tf.cast(x, "float32")
    ax = [axes] if isinstance(axes, int) else list(axes)
    mean_ = tf.reduce_mean(x, axis=ax, keepdims=True)
    variance = tf.reduce_mean(tf.square(x - mean_), axis=ax, keepdims=True)
    if not keepdims:
        mean_, variance = tf.squeeze(mean_, ax), tf.squeeze(variance, ax)
    if ori in ("float16", "bfloat16"):
        mean_, variance = tf.cast(mean_, ori), tf.cast(variance, ori)
    return mean_, variance


@_op("``(x - mean) / sqrt(variance + epsilon) * scale + offset`` with the statistics laid along ``axis``.")
def batch_normalization(x: Any, mean: Any, variance: Any, axis: int, offset: Any = None, scale: Any = None,
                        epsilon: float = 1e-3) -> Any:  # fmt: skip
    tf = _tf()
    x = _t(x)
    dt = x.dtype.name
    shp = [1] * len(x.shape)
    ax = (_axes(axis, len(x.shape)) or [0])[0]
    shp[ax] = int(x.shape[ax])

    def r(v: Any) -> Any:
        return None if v is None else tf.reshape(_t(v, dt), shp)

    inv = tf.math.rsqrt(r(variance) + tf.cast(epsilon, dt))
    if scale is not None:
        inv = inv * r(scale)
    res = -r(mean) * inv
    if offset is not None:
        res = res + r(offset)
    return x * inv + res


@_op("``x`` divided by its ``order``-norm along ``axis`` (at most ``1 / epsilon`` times).")
def normalize(x: Any, axis: int = -1, order: int = 2, epsilon: Any = None) -> Any:
    tf = _tf()
    if not isinstance(order, int) or order < 1:
        raise ValueError(f"Argument `order` must be an int >= 1. Received: order={order}")
    x = _t(x)
    if len(x.shape) == 0:
        x = tf.expand_dims(x, 0)
    eps = 1e-7 if epsilon is None else epsilon
    if order == 2:
        inv = tf.math.rsqrt(tf.reduce_sum(tf.square(x), axis=axis, keepdims=True))
        return x * tf.minimum(inv, tf.cast(1.0 / eps, x.dtype))
    n = norm(x, ord=order, axis=axis, keepdims=True)
    return x / tf.maximum(n, tf.cast(eps, n.dtype))


@_op("Layer normalization of ``x`` over ``axis`` with optional ``gamma`` (scale) and ``beta`` (offset).")
def layer_normalization(x: Any, gamma: Any = None, beta: Any = None, axis: Any = -1, epsilon: Any = None,
                        **kwargs: Any) -> Any:  # fmt: skip
    tf = _tf()
    rms_scaling = kwargs.pop("rms_scaling", False)
    if kwargs:
        raise TypeError(f"keras.ops.layer_normalization: unexpected arguments {sorted(kwargs)}")
    eps = 1e-7 if epsilon is None else epsilon
    x = _t(x)
    ori = x.dtype.name
    x = tf.cast(x, result_type(ori, "float32"))
    nd = len(x.shape)
    ax = sorted(_axes(axis, nd) or [])
    bshape = [1] * nd
    for d in ax:
        bshape[d] = int(x.shape[d])

    def bc(v: Any) -> Any:
        if v is None:
            return None
        v = _t(v, x.dtype.name)
        return tf.reshape(v, bshape) if len(v.shape) != nd and ax != [nd - 1] else v

    if rms_scaling:
        inv = tf.math.rsqrt(tf.math.reduce_variance(x, axis=ax, keepdims=True) + eps)
        out = x * inv
        if gamma is not None:
            out = out * bc(gamma)
    else:
        m, v = moments(x, ax, keepdims=True)
        inv = tf.math.rsqrt(v + eps)
        if gamma is not None:
            inv = inv * bc(gamma)
        res = -m * inv
        if beta is not None:
            res = res + bc(beta)
        out = x * inv + res
    return tf.cast(out, ori)


@_op("RMS normalization: ``x / sqrt(mean(x**2, axis) + epsilon) * scale``.")
def rms_normalization(x: Any, scale: Any = None, axis: Any = -1, epsilon: Any = None) -> Any:
    tf = _tf()
    eps = 1e-7 if epsilon is None else epsilon
    x = _t(x)
    ori = x.dtype.name
    x = tf.cast(x, result_type(ori, "float32"))
    if len(x.shape) == 0:
        x = tf.expand_dims(x, 0)
    ax = sorted(axis) if isinstance(axis, (list, tuple)) else axis
    out = x * tf.math.rsqrt(tf.reduce_mean(tf.square(x), axis=ax, keepdims=True) + eps)
    if scale is not None:
        out = out * _t(scale, x.dtype.name)
    return tf.cast(out, ori)


# --------------------------------------------------------------------------- nn: convolution and pooling


def _data_format(data_format: Any) -> str:
    data_format = data_format or "channels_last"
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"Invalid data_format: {data_format}. Expected 'channels_first' or 'channels_last'")
    return str(data_format)


def _to_last(x: Any, data_format: str) -> Any:
    if data_format == "channels_first":
        nd = len(x.shape)
        return _tf().transpose(x, [0] + list(range(2, nd)) + [1])
    return x


def _from_last(x: Any, data_format: str) -> Any:
    if data_format == "channels_first":
        nd = len(x.shape)
        return _tf().transpose(x, [0, nd - 1] + list(range(1, nd - 1)))
    return x


def _tuple(v: Any, n: int, name: str) -> list[int]:
    if isinstance(v, int):
        return [v] * n
    v = [int(e) for e in v]
    if len(v) != n:
        raise ValueError(f"`{name}` must have {n} entries, got {v}")
    return v


def _conv_prep(inputs: Any, kernel: Any, data_format: Any, name: str) -> tuple[Any, Any, str, int]:
    df = _data_format(data_format)
    x = _float(inputs)
    k = _t(kernel, x.dtype.name)
    nd = len(x.shape) - 2
    if nd not in (1, 2, 3):
        raise ValueError(f"keras.ops.{name}: inputs must have rank 3, 4 or 5, got shape {tuple(x.shape)}")
    if len(k.shape) != nd + 2:
        raise ValueError(
            f"keras.ops.{name}: kernel of shape {tuple(k.shape)} does not fit inputs of shape {tuple(x.shape)}"
        )
    return _to_last(x, df), k, df, nd


@_op("N-D convolution (kernel ``spatial + (in_channels, out_channels)``; ``padding``: valid or same).")
def conv(inputs: Any, kernel: Any, strides: Any = 1, padding: str = "valid", data_format: Any = None,
         dilation_rate: Any = 1) -> Any:  # fmt: skip
    tf = _tf()
    x, k, df, nd = _conv_prep(inputs, kernel, data_format, "conv")
    cin = int(x.shape[-1])
    if cin % int(k.shape[-2]):
        raise ValueError(f"The number of input channels must be evenly divisible by kernel.shape[-2]. Received: "
                         f"inputs.shape={_shape(inputs)}, kernel.shape={_shape(kernel)}")  # fmt: skip
    groups = cin // int(k.shape[-2])
    st, dl = _tuple(strides, nd, "strides"), _tuple(dilation_rate, nd, "dilation_rate")

    def one(a: Any, b: Any) -> Any:
        if nd == 3:
            return tf.nn.conv3d(a, b, [1] + st + [1], padding.upper(), dilations=[1] + dl + [1])
        return tf.nn.convolution(a, b, strides=st, padding=padding.upper(), dilations=dl)

    if groups == 1:
        out = one(x, k)
    else:
        out = tf.concat([one(a, b) for a, b in zip(tf.split(x, groups, axis=-1), tf.split(k, groups, axis=-1))], -1)
    if int(np.prod(tuple(out.shape))) == 0 and int(np.prod(tuple(x.shape))) != 0:
        raise ValueError(f"The convolution operation resulted in an empty output. Output shape: {tuple(out.shape)}.")
    return _from_last(out, df)


@_op("Depthwise convolution (kernel ``spatial + (in_channels, channel_multiplier)``), 1-D or 2-D.")
def depthwise_conv(inputs: Any, kernel: Any, strides: Any = 1, padding: str = "valid", data_format: Any = None,
                   dilation_rate: Any = 1) -> Any:  # fmt: skip
    tf = _tf()
    x, k, df, nd = _conv_prep(inputs, kernel, data_format, "depthwise_conv")
    if nd > 2:
        raise ValueError(f"`inputs` rank must be 3 (1D conv) or 4 (2D conv). Received: {nd + 2}.")
    st, dl = _tuple(strides, nd, "strides"), _tuple(dilation_rate, nd, "dilation_rate")
    if nd == 1:
        x, k, st, dl = tf.expand_dims(x, 1), tf.expand_dims(k, 0), [1] + st, [1] + dl
    out = tf.nn.depthwise_conv2d(x, k, [1] + st + [1], padding.upper(), dilations=dl)
    if nd == 1:
        out = tf.squeeze(out, 1)
    return _from_last(out, df)


@_op("Separable convolution: a depthwise convolution followed by a 1x1 pointwise one.")
def separable_conv(inputs: Any, depthwise_kernel: Any, pointwise_kernel: Any, strides: Any = 1, padding: str = "valid",
                   data_format: Any = None, dilation_rate: Any = 1) -> Any:  # fmt: skip
    df = _data_format(data_format)
    dw = depthwise_conv(inputs, depthwise_kernel, strides, padding, df, dilation_rate)
    return conv(dw, pointwise_kernel, 1, "valid", df, 1)


def _deconv_length(n: int, k: int, stride: int, padding: str, output_padding: Any, dilation: int) -> int:
    k = (k - 1) * dilation + 1
    if output_padding is None:
        if padding == "valid":
            return n * stride + builtins.max(k - stride, 0)
        return n * stride
    pad = 0 if padding == "valid" else k // 2
    return (n - 1) * stride + k - 2 * pad + int(output_padding)


@_op("Transposed convolution (kernel ``spatial + (out_channels, in_channels)``).")
def conv_transpose(inputs: Any, kernel: Any, strides: Any = 1, padding: str = "valid", output_padding: Any = None,
                   data_format: Any = None, dilation_rate: Any = 1) -> Any:  # fmt: skip
    tf = _tf()
    x, k, df, nd = _conv_prep(inputs, kernel, data_format, "conv_transpose")
    if int(k.shape[-1]) != int(x.shape[-1]):
        raise ValueError(f"keras.ops.conv_transpose: kernel.shape[-1]={int(k.shape[-1])} must equal the input channels "
                         f"{int(x.shape[-1])} (inputs.shape={_shape(inputs)})")  # fmt: skip
    st, dl = _tuple(strides, nd, "strides"), _tuple(dilation_rate, nd, "dilation_rate")
    op = [None] * nd if output_padding is None else _tuple(output_padding, nd, "output_padding")
    spatial = [_deconv_length(int(x.shape[1 + i]), int(k.shape[i]), st[i], padding.lower(), op[i], dl[i])
               for i in range(nd)]  # fmt: skip
    out_shape = [int(x.shape[0])] + spatial + [int(k.shape[-2])]
    out = tf.nn.conv_transpose(x, k, out_shape, st, padding=padding.upper(), dilations=dl)
    return _from_last(out, df)


def _pool(inputs: Any, pool_size: Any, strides: Any, padding: str, data_format: Any, kind: str) -> Any:
    tf = _tf()
    df = _data_format(data_format)
    x = _t(inputs)
    nd = len(x.shape) - 2
    if nd not in (1, 2, 3):
        raise ValueError(f"Pooling inputs's shape must be 3, 4 or 5, got shape {tuple(x.shape)}")
    ps = _tuple(pool_size, nd, "pool_size")
    st = ps if strides is None else _tuple(strides, nd, "strides")
    x = _to_last(x, df)
    fn = getattr(tf.nn, f"{kind}_pool{nd}d")
    out = fn(x, ps, st, padding.upper())
    return _from_last(out, df)


@_op("Max pooling over windows of ``pool_size`` (``strides`` default to ``pool_size``).")
def max_pool(inputs: Any, pool_size: Any, strides: Any = None, padding: str = "valid", data_format: Any = None) -> Any:
    return _pool(inputs, pool_size, strides, padding, data_format, "max")


@_op("Average pooling over windows of ``pool_size`` (``same`` padding averages only the valid entries).")
def average_pool(inputs: Any, pool_size: Any, strides: Any = None, padding: str = "valid",
                 data_format: Any = None) -> Any:  # fmt: skip
    return _pool(inputs, pool_size, strides, padding, data_format, "avg")


@_op("Rearranges depth into ``block_size x block_size`` spatial blocks.")
def depth_to_space(x: Any, block_size: int, data_format: str = "channels_last") -> Any:
    tf = _tf()
    df = _data_format(data_format)
    return _from_last(tf.nn.depth_to_space(_to_last(_t(x), df), block_size), df)


@_op("Rearranges ``block_size x block_size`` spatial blocks into depth.")
def space_to_depth(x: Any, block_size: int, data_format: str = "channels_last") -> Any:
    tf = _tf()
    df = _data_format(data_format)
    return _from_last(tf.nn.space_to_depth(_to_last(_t(x), df), block_size), df)


@_op("Scaled dot-product attention over ``(batch, seq, heads, head_dim)`` query/key/value (grouped-query allowed).")
def dot_product_attention(query: Any, key: Any, value: Any, bias: Any = None, mask: Any = None, scale: Any = None,
                          is_causal: bool = False, flash_attention: Any = None,
                          attn_logits_soft_cap: Any = None) -> Any:  # fmt: skip
    tf = _tf()
    if flash_attention:
        raise ValueError("Flash attention is not supported by tapers; pass flash_attention=None or False.")
    if attn_logits_soft_cap is not None:
        raise ValueError("attn_logits_soft_cap requires flash attention, which tapers (like Keras on TensorFlow) lacks")
    q = _float(query)
    dt = q.dtype.name
    k, v = _t(key, dt), _t(value, dt)
    if len(q.shape) != 4 or len(k.shape) != 4 or len(v.shape) != 4:
        raise ValueError(f"`query`, `key`, and `value` must be 4D (batch, seq, heads, head_dim): got shapes "
                         f"{_shape(query)}, {_shape(key)}, {_shape(value)}")  # fmt: skip
    n_heads, kv_heads, h = int(q.shape[2]), int(k.shape[2]), int(q.shape[3])
    if n_heads % kv_heads:
        raise ValueError(f"The number of query heads ({n_heads}) must be a multiple of the key heads ({kv_heads})")
    if n_heads != kv_heads:
        k = tf.repeat(k, n_heads // kv_heads, axis=2)
        v = tf.repeat(v, n_heads // kv_heads, axis=2)
    sc = 1.0 / _pymath.sqrt(h) if scale is None else scale
    logits = tf.einsum("btnh,bsnh->bnts", q, k) * tf.cast(sc, dt)
    if bias is not None:
        logits = logits + _t(bias, dt)
    t, s = int(q.shape[1]), int(k.shape[1])
    keep = None
    if mask is not None:
        keep = tf.broadcast_to(_t(mask, "bool"), tf.shape(logits))
    if is_causal:
        causal = tf.convert_to_tensor(np.tril(np.ones((t, s), dtype=bool)))
        causal = tf.broadcast_to(causal, tf.shape(logits))
        keep = causal if keep is None else tf.logical_and(keep, causal)
    cdt = result_type(dt, "float32")  # half precisions take the softmax in float32
    wide = tf.cast(logits, cdt)
    if keep is not None:
        wide = tf.where(keep, wide, tf.cast(-0.7 * np.finfo(np.float32).max, cdt) * tf.ones_like(wide))
    probs = tf.cast(tf.nn.softmax(wide, axis=-1), dt)
    out = tf.einsum("bnts,bsnh->btnh", probs, v)
    return out


@_op("Whether ``x1`` and ``x2`` are elementwise equal within ``atol + rtol * abs(x2)``.")
def isclose(x1: Any, x2: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> Any:
    tf = _tf()
    a, b = _pair(_t(x1), _t(x2))
    if a.dtype.name not in _FLOAT:
        return tf.equal(a, b)
    out = tf.abs(a - b) <= tf.cast(atol, a.dtype) + tf.cast(rtol, a.dtype) * tf.abs(b)
    out = tf.logical_or(out, tf.logical_and(tf.math.is_inf(a), tf.equal(a, b)))
    if equal_nan:
        out = tf.logical_or(out, tf.logical_and(tf.math.is_nan(a), tf.math.is_nan(b)))
    return out


@_op("Whether every element of ``x1`` and ``x2`` is close (see :func:`isclose`).")
def allclose(x1: Any, x2: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> Any:
    return _tf().reduce_all(isclose(x1, x2, rtol, atol, equal_nan))


# --------------------------------------------------------------------------- windows, histogram, patches, transforms


def _window_len(x: Any) -> int:
    n = int(np.asarray(_t(x).numpy()))
    if n < 0:
        raise ValueError(f"window length must be non-negative, got {n}")
    return n


@_op("The Bartlett (triangular) window of length ``x`` (float32).")
def bartlett(x: Any) -> Any:
    tf = _tf()
    n = _window_len(x)
    if n <= 1:
        return tf.ones([n], dtype="float32")
    k = tf.cast(tf.range(n), "float32")
    half = (n - 1) / 2.0
    return tf.where(k <= half, 2.0 * k / (n - 1), 2.0 - 2.0 * k / (n - 1))


def _cosine_window(x: Any, coeffs: tuple[float, ...]) -> Any:
    tf = _tf()
    n = _window_len(x)
    if n <= 1:
        return tf.ones([n], dtype="float32")
    k = tf.cast(tf.range(n), "float32") * (2.0 * np.pi / (n - 1))
    out = tf.zeros([n], dtype="float32") + coeffs[0]
    for j, c in enumerate(coeffs[1:], start=1):
        out = out + c * tf.cos(k * float(j))
    return out


@_op("The Blackman window of length ``x`` (float32).")
def blackman(x: Any) -> Any:
    return _cosine_window(x, (0.42, -0.5, 0.08))


@_op("The Hamming window of length ``x`` (float32).")
def hamming(x: Any) -> Any:
    return _cosine_window(x, (0.54, -0.46))


@_op("The Hann window of length ``x`` (float32).")
def hanning(x: Any) -> Any:
    return _cosine_window(x, (0.5, -0.5))


@_op("The Kaiser window of length ``x`` with shape parameter ``beta`` (float32).")
def kaiser(x: Any, beta: float) -> Any:
    tf = _tf()
    n = _window_len(x)
    if n <= 1:
        return tf.ones([n], dtype="float32")
    k = tf.cast(tf.range(n), "float32")
    r = 2.0 * k / (n - 1) - 1.0
    arg = tf.cast(beta, "float32") * tf.sqrt(tf.maximum(1.0 - r * r, 0.0))
    return tf.math.bessel_i0(arg) / tf.math.bessel_i0(tf.cast(beta, "float32"))


@_op(
    "Histogram of ``x``: ``(counts, bin_edges)`` over ``bins`` equal bins of ``range`` (default: min to max).", "tuple"
)
def histogram(x: Any, bins: int = 10, range: Any = None) -> tuple[Any, Any]:
    tf = _tf()
    x = _t(x)
    if len(x.shape) != 1:
        raise ValueError(f"Input tensor must be 1-dimensional. Received: input.shape={tuple(x.shape)}")
    if not isinstance(bins, int) or bins < 1:
        raise ValueError(f"Argument `bins` must be a positive integer. Received: bins={bins!r}")
    if range is None:
        lo, hi = tf.reduce_min(x), tf.reduce_max(x)
    else:
        lo, hi = tf.cast(range[0], x.dtype), tf.cast(range[1], x.dtype)
    calc = x.dtype.name if x.dtype.name in _FLOAT else "float32"
    lo_c, hi_c = tf.cast(lo, calc), tf.cast(hi, calc)
    edges = tf.cast(lo_c + (hi_c - lo_c) * tf.cast(tf.range(bins + 1), calc) / float(bins), x.dtype)
    inside = tf.logical_and(x >= lo, x <= hi)
    idx = tf.searchsorted(edges[1:-1], x, side="right", out_type="int32")
    counts = tf.math.unsorted_segment_sum(tf.cast(inside, x.dtype), idx, bins)
    return counts, edges


def _pair2(v: Any, name: str) -> list[int]:
    return _tuple(v, 2, name)


@_op("Sliding ``kernel_size`` blocks of an NCHW tensor as columns: ``(N, C * kH * kW, L)`` (PyTorch's unfold).")
def unfold(x: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Any:
    tf = _tf()
    x = _t(x)
    if len(x.shape) != 4:
        raise ValueError(f"keras.ops.unfold: input must be 4-D (N, C, H, W), got shape {tuple(x.shape)}")
    k, d, p, st = (_pair2(kernel_size, "kernel_size"), _pair2(dilation, "dilation"), _pair2(padding, "padding"),
                   _pair2(stride, "stride"))  # fmt: skip
    n, c = int(x.shape[0]), int(x.shape[1])
    x = tf.pad(x, [[0, 0], [0, 0], [p[0], p[0]], [p[1], p[1]]])
    h, w = int(x.shape[2]), int(x.shape[3])
    oh = (h - d[0] * (k[0] - 1) - 1) // st[0] + 1
    ow = (w - d[1] * (k[1] - 1) - 1) // st[1] + 1
    if oh <= 0 or ow <= 0:
        raise ValueError(f"keras.ops.unfold: kernel {k} with dilation {d} does not fit the padded input {(h, w)}")
    rows = (np.arange(k[0])[:, None] * d[0])[:, :, None, None] + (np.arange(oh) * st[0])[None, None, :, None]
    cols = (np.arange(k[1])[None, :] * d[1])[:, :, None, None] + (np.arange(ow) * st[1])[None, None, None, :]
    flat_idx = (rows * w + cols).reshape(-1).astype(np.int32)  # (kH, kW, oH, oW) flattened
    flat = tf.reshape(x, [n, c, h * w])
    patches = tf.gather(flat, flat_idx, axis=2)
    return tf.reshape(patches, [n, c * k[0] * k[1], oh * ow])


@_op("Sums columns of sliding blocks ``(N, C * kH * kW, L)`` back into an NCHW tensor (PyTorch's fold).")
def fold(x: Any, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Any:
    tf = _tf()
    x = _t(x)
    o, k, d, p, st = (_pair2(output_size, "output_size"), _pair2(kernel_size, "kernel_size"),
                      _pair2(dilation, "dilation"), _pair2(padding, "padding"), _pair2(stride, "stride"))  # fmt: skip
    if len(x.shape) != 3 or int(x.shape[1]) % (k[0] * k[1]):
        raise ValueError(f"keras.ops.fold: input must be (N, C * {k[0]} * {k[1]}, L), got shape {tuple(x.shape)}")
    n, c = int(x.shape[0]), int(x.shape[1]) // (k[0] * k[1])
    h, w = o[0] + 2 * p[0], o[1] + 2 * p[1]
    oh = (h - d[0] * (k[0] - 1) - 1) // st[0] + 1
    ow = (w - d[1] * (k[1] - 1) - 1) // st[1] + 1
    if oh * ow != int(x.shape[2]):
        raise ValueError(
            f"keras.ops.fold: expected L = {oh * ow} blocks for output_size {tuple(o)}, got {int(x.shape[2])}"
        )
    rows = (np.arange(k[0])[:, None] * d[0])[:, :, None, None] + (np.arange(oh) * st[0])[None, None, :, None]
    cols = (np.arange(k[1])[None, :] * d[1])[:, :, None, None] + (np.arange(ow) * st[1])[None, None, None, :]
    flat_idx = (rows * w + cols).reshape(-1).astype(np.int32)
    vals = tf.reshape(x, [n * c, k[0] * k[1] * oh * ow])
    out = tf.transpose(tf.math.unsorted_segment_sum(tf.transpose(vals), flat_idx, h * w))
    out = tf.reshape(out, [n, c, h, w])
    return out[:, :, p[0] : p[0] + o[0], p[1] : p[1] + o[1]]


def _adaptive(inputs: Any, output_size: Any, data_format: Any, kind: str) -> Any:
    tf = _tf()
    df = _data_format(data_format)
    x = _to_last(_t(inputs), df)
    nd = len(x.shape) - 2
    if nd not in (1, 2, 3):
        raise ValueError(f"Adaptive pooling inputs must have rank 3, 4 or 5, got shape {_shape(inputs)}")
    out_sizes = _tuple(output_size, nd, "output_size")
    for i, o in enumerate(out_sizes):
        ax = 1 + i
        length = int(x.shape[ax])
        if o < 1:
            raise ValueError(f"output_size must be positive, got {output_size}")
        pieces = []
        for j in range(o):
            start, end = (j * length) // o, -((-(j + 1) * length) // o)
            window = tf.gather(x, np.arange(start, end, dtype=np.int32), axis=ax)
            red = tf.reduce_max if kind == "max" else tf.reduce_mean
            pieces.append(red(window, axis=ax, keepdims=True))
        x = tf.concat(pieces, axis=ax)
    return _from_last(x, df)


@_op("Adaptive average pooling to ``output_size`` (PyTorch's windows: ``floor(i*L/o)`` to ``ceil((i+1)*L/o)``).")
def adaptive_average_pool(inputs: Any, output_size: Any, data_format: Any = None) -> Any:
    return _adaptive(inputs, output_size, data_format, "avg")


@_op("Adaptive max pooling to ``output_size`` (PyTorch's windows: ``floor(i*L/o)`` to ``ceil((i+1)*L/o)``).")
def adaptive_max_pool(inputs: Any, output_size: Any, data_format: Any = None) -> Any:
    return _adaptive(inputs, output_size, data_format, "max")


@_op("Forward-mode derivative: ``(fun(*primals), J @ tangents)`` (and ``aux`` when ``has_aux``).", "tuple")
def jvp(fun: Callable[..., Any], primals: Any, tangents: Any, has_aux: bool = False) -> tuple[Any, ...]:
    tf = _tf()
    p_flat = [_t(p) for p in tf.nest.flatten(primals)]
    t_flat = [_t(t, p.dtype.name) for t, p in zip(tf.nest.flatten(tangents), p_flat)]
    if len(p_flat) != len(t_flat):
        raise ValueError("keras.ops.jvp: primals and tangents must have the same structure")
    packed = tf.nest.pack_sequence_as(primals, p_flat)
    with tf.autodiff.ForwardAccumulator(p_flat, t_flat) as acc:
        if has_aux:
            out, aux = fun(*packed)
        else:
            out = fun(*packed)
        out_flat = tf.nest.flatten(out)
        tangents_out = [acc.jvp(o) for o in out_flat]
    tangents_out = [tf.zeros_like(o) if t is None else t for o, t in zip(out_flat, tangents_out)]
    result = (out, tf.nest.pack_sequence_as(out, tangents_out))
    return (*result, aux) if has_aux else result


@_op("Wraps ``pyfunc`` to map over the elements of its (broadcast) arguments, numpy's ``vectorize``.", "Callable")
def vectorize(pyfunc: Callable[..., Any], *, excluded: Any = None, signature: Any = None) -> Callable[..., Any]:
    if signature is not None:
        raise NotImplementedError("keras.ops.vectorize: `signature` is not supported by tapers")
    excluded = set(excluded or ())

    @functools.wraps(pyfunc)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        tf = _tf()
        mapped = [i for i in builtins.range(len(args)) if i not in excluded]
        ts = [_t(args[i]) for i in mapped]
        shp = tf.shape(ts[0])
        for t in ts[1:]:
            shp = tf.shape(tf.zeros(shp) + tf.zeros(tf.shape(t)))
        out_shape = [int(v) for v in np.asarray(shp.numpy())]
        flat = [tf.reshape(tf.broadcast_to(t, out_shape), [-1]) for t in ts]

        def one(elems: Any) -> Any:
            call = list(args)
            for i, e in zip(mapped, elems):
                call[i] = e
            return pyfunc(*call, **kwargs)

        res = tf.vectorized_map(one, tuple(flat))
        return tf.nest.map_structure(lambda r: tf.reshape(r, out_shape + list(r.shape[1:])), res)

    return wrapped


# --------------------------------------------------------------------------- bitwise (integer arithmetic)


def _int_bits(dtype: str, name: str) -> int:
    if dtype not in _INT or dtype == "uint64":
        raise TypeError(f"keras.ops.{name}: integer inputs of at most 64 bits (not uint64) required, got dtype {dtype}")
    return int(np.iinfo(dtype).bits)


def _bitwise(x: Any, y: Any, name: str, combine: Callable[[Any, Any], Any]) -> Any:
    """``combine`` applied to the bits of ``x`` and ``y`` (two's complement), computed with int64 arithmetic."""
    tf = _tf()
    a, b = _pair(_t(x), _t(y))
    dtype = a.dtype.name
    if dtype == "bool":
        return tf.cast(combine(tf.cast(a, "int64"), tf.cast(b, "int64")), "bool")
    bits = _int_bits(dtype, name)
    a64, b64 = tf.cast(a, "int64"), tf.cast(b, "int64")

    def halves(v: Any, width: int) -> Any:
        # The value's low `width` bits (two's complement) as a non-negative int64.
        return tf.math.floormod(v, tf.constant(2**width, dtype="int64"))

    def bitwise_u(u: Any, v: Any, width: int) -> Any:
        out = tf.zeros_like(u)
        for k in range(width):
            p = tf.constant(2**k, dtype="int64")
            bu = tf.math.floormod(tf.math.floordiv(u, p), 2)
            bv = tf.math.floormod(tf.math.floordiv(v, p), 2)
            out = out + combine(bu, bv) * p
        return out

    if bits <= 32:
        u, v = halves(a64, bits), halves(b64, bits)
        r = bitwise_u(u, v, bits)
        if not dtype.startswith("uint"):
            r = tf.where(r >= 2 ** (bits - 1), r - 2**bits, r)
        return tf.cast(r, dtype)
    two32 = tf.constant(2**32, dtype="int64")
    hi = bitwise_u(
        tf.math.floormod(tf.math.floordiv(a64, two32), two32), tf.math.floormod(tf.math.floordiv(b64, two32), two32), 32
    )
    lo = bitwise_u(tf.math.floormod(a64, two32), tf.math.floormod(b64, two32), 32)
    hi = tf.where(hi >= 2**31, hi - 2**32, hi)
    return hi * two32 + lo


@_op("Elementwise bitwise AND of integer (or bool) tensors.")
def bitwise_and(x: Any, y: Any) -> Any:
    return _bitwise(x, y, "bitwise_and", lambda p, q: p * q)


@_op("Elementwise bitwise OR of integer (or bool) tensors.")
def bitwise_or(x: Any, y: Any) -> Any:
    return _bitwise(x, y, "bitwise_or", lambda p, q: p + q - p * q)


@_op("Elementwise bitwise XOR of integer (or bool) tensors.")
def bitwise_xor(x: Any, y: Any) -> Any:
    return _bitwise(x, y, "bitwise_xor", lambda p, q: p + q - 2 * p * q)


@_op("Elementwise bitwise NOT (``~x``) of an integer tensor.")
def bitwise_invert(x: Any) -> Any:
    tf = _tf()
    x = _t(x)
    dtype = x.dtype.name
    if dtype == "bool":
        return tf.logical_not(x)
    bits = _int_bits(dtype, "bitwise_invert")
    if dtype.startswith("uint"):
        return tf.cast(tf.constant(2**bits - 1, dtype="int64") - tf.cast(x, "int64"), dtype)
    return -x - tf.ones_like(x)


@_op("Elementwise bitwise NOT (alias of :func:`bitwise_invert`).")
def bitwise_not(x: Any) -> Any:
    return bitwise_invert(x)


def _shift(x: Any, y: Any, name: str, left: bool) -> Any:
    tf = _tf()
    x = _t(x)
    if isinstance(y, int) and not isinstance(y, bool):
        y_t = tf.cast(y, x.dtype)
    else:
        x, y_t = _pair(x, _t(y))
    dtype = x.dtype.name
    bits = _int_bits(dtype, name)
    if bits > 32:
        raise TypeError(f"keras.ops.{name}: 64-bit shifts are not supported by tapers (dtype {dtype})")
    x64, y64 = tf.cast(x, "int64"), tf.cast(y_t, "int64")
    valid = tf.logical_and(y64 >= 0, y64 < bits)
    p = tf.pow(tf.constant(2, dtype="int64"), tf.where(valid, y64, tf.zeros_like(y64)))
    if left:
        r = tf.math.floormod(x64 * p, tf.constant(2**bits, dtype="int64"))
        if not dtype.startswith("uint"):
            r = tf.where(r >= 2 ** (bits - 1), r - 2**bits, r)
        r = tf.where(valid, r, tf.zeros_like(r))
    else:
        r = tf.math.floordiv(x64, p)  # arithmetic shift for signed types
        r = tf.where(valid, r, tf.where(x64 < 0, -tf.ones_like(r), tf.zeros_like(r)))
    return tf.cast(r, dtype)


@_op("Elementwise ``x << y`` (bits shifted out are dropped; ``y`` outside ``[0, bits)`` gives 0).")
def bitwise_left_shift(x: Any, y: Any) -> Any:
    return _shift(x, y, "bitwise_left_shift", True)


@_op("Elementwise ``x << y`` (alias of :func:`bitwise_left_shift`).")
def left_shift(x: Any, y: Any) -> Any:
    return _shift(x, y, "left_shift", True)


@_op("Elementwise arithmetic ``x >> y``.")
def bitwise_right_shift(x: Any, y: Any) -> Any:
    return _shift(x, y, "bitwise_right_shift", False)


@_op("Elementwise arithmetic ``x >> y`` (alias of :func:`bitwise_right_shift`).")
def right_shift(x: Any, y: Any) -> Any:
    return _shift(x, y, "right_shift", False)


# --------------------------------------------------------------------------- complex views and Fourier transforms
# The transforms are exact discrete Fourier transforms computed as products with cosine and sine
# matrices (O(n^2) per axis rather than an FFT's O(n log n)): differentiable, and as accurate as
# the matrix product.


@_op("A complex tensor from a real one whose last axis (of size 2) holds the real and imaginary parts.")
def view_as_complex(x: Any) -> Any:
    tf = _tf()
    x = _t(x)
    if len(x.shape) == 0 or int(x.shape[-1]) != 2:
        raise ValueError(f"Last dimension of input must be size 2 (real, imag). Received shape: {tuple(x.shape)}")
    if x.dtype.name not in ("float32", "float64"):
        raise ValueError(f"keras.ops.view_as_complex: float32 or float64 input required, got {x.dtype.name}")
    return tf.complex(x[..., 0], x[..., 1])


@_op("A real tensor with a new last axis holding the real and imaginary parts of complex ``x``.")
def view_as_real(x: Any) -> Any:
    tf = _tf()
    x = _t(x)
    if not x.dtype.name.startswith("complex"):
        raise ValueError(f"Input must be a complex tensor. Received dtype: {x.dtype.name}")
    return tf.stack([tf.math.real(x), tf.math.imag(x)], axis=-1)


def _complex_pair(x: Any, name: str) -> tuple[Any, Any]:
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError(f"keras.ops.{name}: input `x` should be a tuple of two tensors - real and imaginary.")
    re, im = _t(x[0]), _t(x[1])
    if tuple(re.shape) != tuple(im.shape):
        raise ValueError(
            f"keras.ops.{name}: real and imaginary parts differ in shape: {tuple(re.shape)} vs {tuple(im.shape)}"
        )
    if re.dtype.name not in _FLOAT or im.dtype.name not in _FLOAT:
        raise ValueError(f"keras.ops.{name}: at least one tensor in input `x` is not of type float.")
    im = _tf().cast(im, re.dtype)
    return re, im


def _dft_last(re: Any, im: Any, inverse: bool = False) -> tuple[Any, Any]:
    tf = _tf()
    n = int(re.shape[-1])
    ang = 2.0 * np.pi * np.outer(np.arange(n), np.arange(n)) / builtins.max(n, 1)
    c = tf.constant(np.cos(ang).astype(re.dtype.name))
    s = tf.constant((np.sin(ang) * (1.0 if inverse else -1.0)).astype(re.dtype.name))
    # (re + i im)(c + i s) summed over the last axis
    out_re = tf.tensordot(re, c, [[len(re.shape) - 1], [0]]) - tf.tensordot(im, s, [[len(im.shape) - 1], [0]])
    out_im = tf.tensordot(re, s, [[len(re.shape) - 1], [0]]) + tf.tensordot(im, c, [[len(im.shape) - 1], [0]])
    return out_re, out_im


@_op("Discrete Fourier transform over the last axis of ``x = (real, imag)``; returns ``(real, imag)``.", "tuple")
def fft(x: Any) -> tuple[Any, Any]:
    re, im = _complex_pair(x, "fft")
    return _dft_last(re, im)


@_op("2-D discrete Fourier transform over the last two axes of ``x = (real, imag)``.", "tuple")
def fft2(x: Any) -> tuple[Any, Any]:
    re, im = _complex_pair(x, "fft2")
    if len(re.shape) < 2:
        raise ValueError(f"keras.ops.fft2: input must be at least 2-D, got shape {tuple(re.shape)}")
    re, im = _dft_last(re, im)
    re, im = _dft_last(swapaxes(re, -1, -2), swapaxes(im, -1, -2))
    return swapaxes(re, -1, -2), swapaxes(im, -1, -2)


@_op("Inverse 2-D discrete Fourier transform over the last two axes of ``x = (real, imag)``.", "tuple")
def ifft2(x: Any) -> tuple[Any, Any]:
    re, im = _complex_pair(x, "ifft2")
    if len(re.shape) < 2:
        raise ValueError(f"keras.ops.ifft2: input must be at least 2-D, got shape {tuple(re.shape)}")
    hw = float(int(re.shape[-1]) * int(re.shape[-2]))
    re, im = _dft_last(re, im, inverse=True)
    re, im = _dft_last(swapaxes(re, -1, -2), swapaxes(im, -1, -2), inverse=True)
    return swapaxes(re, -1, -2) / hw, swapaxes(im, -1, -2) / hw


def _fit_last(x: Any, n: int) -> Any:
    tf = _tf()
    m = int(x.shape[-1])
    if m > n:
        return x[..., :n]
    if m < n:
        return tf.pad(x, [[0, 0]] * (len(x.shape) - 1) + [[0, n - m]])
    return x


@_op("Real-input DFT over the last axis (``fft_length`` pads or crops it); the ``n // 2 + 1`` bins.", "tuple")
def rfft(x: Any, fft_length: Any = None) -> tuple[Any, Any]:
    tf = _tf()
    x = _t(x)
    if x.dtype.name not in ("float32", "float64"):
        raise TypeError(f"keras.ops.rfft: float32 or float64 input required, got {x.dtype.name}")
    n = int(x.shape[-1]) if fft_length is None else int(fft_length)
    x = _fit_last(x, n)
    bins = n // 2 + 1
    ang = 2.0 * np.pi * np.outer(np.arange(n), np.arange(bins)) / builtins.max(n, 1)
    c = tf.constant(np.cos(ang).astype(x.dtype.name))
    s = tf.constant(-np.sin(ang).astype(x.dtype.name))
    ax = [[len(x.shape) - 1], [0]]
    return tf.tensordot(x, c, ax), tf.tensordot(x, s, ax)


@_op("Inverse of :func:`rfft`: a real signal of ``fft_length`` (default ``2 * (bins - 1)``) samples.")
def irfft(x: Any, fft_length: Any = None) -> Any:
    tf = _tf()
    re, im = _complex_pair(x, "irfft")
    n = 2 * (int(re.shape[-1]) - 1) if fft_length is None else int(fft_length)
    bins = n // 2 + 1
    re, im = _fit_last(re, bins), _fit_last(im, bins)
    w = np.full(bins, 2.0)
    w[0] = 1.0
    if n % 2 == 0 and bins > 1:
        w[-1] = 1.0
    ang = 2.0 * np.pi * np.outer(np.arange(bins), np.arange(n)) / builtins.max(n, 1)
    c = tf.constant((w[:, None] * np.cos(ang) / n).astype(re.dtype.name))
    s = tf.constant((w[:, None] * np.sin(ang) / n).astype(re.dtype.name))
    ax = [[len(re.shape) - 1], [0]]
    return tf.tensordot(re, c, ax) - tf.tensordot(im, s, ax)


def _stft_window(window: Any, sequence_length: int, fft_length: int, dtype: str) -> Any:
    tf = _tf()
    if window is None:
        return None
    if isinstance(window, str):
        if window not in ("hann", "hamming"):
            raise ValueError(
                f'If a string is passed to `window`, it must be one of "hann", "hamming". Received: {window}'
            )
        a0 = 0.5 if window == "hann" else 0.54
        k = np.arange(sequence_length)
        win = a0 - (1 - a0) * np.cos(2 * np.pi * k / builtins.max(sequence_length, 1))
        w = tf.constant(win.astype(dtype))
    else:
        w = _t(window, dtype)
    if len(w.shape) != 1 or int(w.shape[0]) != sequence_length:
        raise ValueError(f"The shape of `window` must be equal to [sequence_length]. Received: {_shape(w)}")
    l_pad = (fft_length - sequence_length) // 2
    return tf.pad(w, [[l_pad, fft_length - sequence_length - l_pad]])


@_op("Short-time Fourier transform along the last axis; returns ``(real, imag)`` of shape ``(..., frames, bins)``.",
     "tuple")  # fmt: skip
def stft(x: Any, sequence_length: int, sequence_stride: int, fft_length: int, window: Any = "hann",
         center: bool = True) -> tuple[Any, Any]:  # fmt: skip
    tf = _tf()
    x = _t(x)
    if x.dtype.name not in ("float32", "float64"):
        raise TypeError(f"Invalid input type. Expected `float32` or `float64`. Received: input type={x.dtype.name}")
    if fft_length < sequence_length:
        raise ValueError(f"`fft_length` must equal or larger than `sequence_length`. Received: "
                         f"sequence_length={sequence_length}, fft_length={fft_length}")  # fmt: skip
    win = _stft_window(window, sequence_length, fft_length, x.dtype.name)
    if center:
        x = tf.pad(x, [[0, 0]] * (len(x.shape) - 1) + [[fft_length // 2, fft_length // 2]], mode="REFLECT")
    frames = extract_sequences(x, fft_length, sequence_stride)
    if win is not None:
        frames = frames * win
    return rfft(frames, fft_length)


@_op("Inverse short-time Fourier transform of ``x = (real, imag)`` (overlap-add with the dual window).")
def istft(x: Any, sequence_length: int, sequence_stride: int, fft_length: int, length: Any = None,
          window: Any = "hann", center: bool = True) -> Any:  # fmt: skip
    tf = _tf()
    re, im = _complex_pair(x, "istft")
    dtype = re.dtype.name
    frames = irfft((re, im), fft_length)  # (..., n_frames, fft_length)
    win = _stft_window(window, sequence_length, fft_length, dtype)
    if win is not None:
        w = np.asarray(win.numpy(), dtype=np.float64)
        overlaps = -(-fft_length // sequence_stride)
        denom = np.pad(w * w, (0, overlaps * sequence_stride - fft_length)).reshape(overlaps, sequence_stride)
        denom = np.tile(denom.sum(0, keepdims=True), (overlaps, 1)).reshape(-1)[:fft_length]
        frames = frames * tf.constant((w / denom).astype(dtype))
    n_frames = int(frames.shape[-2])
    total = fft_length + sequence_stride * (n_frames - 1)
    idx = (np.arange(n_frames)[:, None] * sequence_stride + np.arange(fft_length)[None, :]).reshape(-1)
    lead = list(frames.shape[:-2])
    flat = tf.reshape(frames, [-1, n_frames * fft_length])
    out = tf.transpose(tf.math.unsorted_segment_sum(tf.transpose(flat), idx.astype(np.int32), total))
    out = tf.reshape(out, lead + [total])
    start = fft_length // 2 if center else 0
    if length is not None:
        end = start + int(length)
    elif center:
        end = total - fft_length // 2
    else:
        end = total
    return out[..., start:end]


@_op("``x``'s bytes reinterpreted as ``dtype`` (numpy's ``view``: the last axis scales by the size ratio).")
def view(x: Any, dtype: Any = None) -> Any:
    tf = _tf()
    x = _t(x)
    new = standardize_dtype(dtype or x.dtype)
    if new == "bfloat16" or x.dtype.name == "bfloat16":
        raise NotImplementedError("keras.ops.view: bfloat16 is not supported by tapers")
    old_size, new_size = np.dtype(x.dtype.name).itemsize, np.dtype(new).itemsize
    shp = _shape(x)
    last = shp[-1] if shp else -1
    if (last == -1 and old_size != new_size) or (last * old_size) % new_size:
        raise ValueError(f"Cannot view array of shape {shp} and dtype {x.dtype.name} as dtype {new} because the "
                         "total number of bytes is not divisible by the new itemsize.")  # fmt: skip
    arr = np.ascontiguousarray(np.asarray(x.numpy()))
    return tf.convert_to_tensor(arr.view(new))


# --------------------------------------------------------------------------- einops-style rearrange


def _einops_side(side: str, pattern: str) -> list[list[str]]:
    groups: list[list[str]] = []
    for tok in re.findall(r"\([^()]*\)|[^\s()]+|[()]", side):
        if tok.startswith("("):
            if not tok.endswith(")"):
                raise ValueError(f"keras.ops.rearrange: unbalanced parentheses in pattern {pattern!r}")
            names = tok[1:-1].split()
            groups.append(names)
        elif tok in ("(", ")"):
            raise ValueError(f"keras.ops.rearrange: unbalanced parentheses in pattern {pattern!r}")
        else:
            groups.append([tok])
    for g in groups:
        for n in g:
            if not n.isidentifier():
                raise ValueError(f"keras.ops.rearrange: bad axis name {n!r} in pattern {pattern!r}")
    return groups


@_op("Rearranges the axes of ``tensor`` by an einops pattern (``'b (h w) c -> b h w c'``, with ``h=...``).")
def rearrange(tensor: Any, pattern: str, **axes_lengths: Any) -> Any:
    tf = _tf()
    x = _t(tensor)
    if pattern.count("->") != 1:
        raise ValueError(f"keras.ops.rearrange: pattern must contain one '->', got {pattern!r}")
    left, right = pattern.split("->")
    ins, outs = _einops_side(left, pattern), _einops_side(right, pattern)
    flat_in = [n for g in ins for n in g]
    flat_out = [n for g in outs for n in g]
    if sorted(flat_in) != sorted(flat_out) or len(set(flat_in)) != len(flat_in):
        raise ValueError(f"keras.ops.rearrange: both sides must name the same axes once each: {pattern!r}")
    if len(ins) != len(x.shape):
        raise ValueError(
            f"keras.ops.rearrange: pattern {left.strip()!r} has {len(ins)} axes, tensor has shape {_shape(x)}"
        )
    sizes: dict[str, int] = {k: int(v) for k, v in axes_lengths.items()}
    for g, dim in zip(ins, _shape(x)):
        unknown = [n for n in g if n not in sizes]
        known = int(np.prod([sizes[n] for n in g if n in sizes]))
        if len(unknown) > 1:
            raise ValueError(f"keras.ops.rearrange: give the lengths of all but one of {g} (pattern {pattern!r})")
        if unknown:
            if known == 0 or int(dim) % known:
                raise ValueError(f"keras.ops.rearrange: axis of size {dim} does not split into {g} with {axes_lengths}")
            sizes[unknown[0]] = int(dim) // known
        elif known != int(dim):
            raise ValueError(f"keras.ops.rearrange: group {g} has size {known} but the axis has size {dim}")
    x = tf.reshape(x, [sizes[n] for n in flat_in])
    x = tf.transpose(x, [flat_in.index(n) for n in flat_out])
    return tf.reshape(x, [int(np.prod([sizes[n] for n in g])) for g in outs])


# --------------------------------------------------------------------------- CTC


@_op("CTC loss per batch element of ``output`` logits ``(batch, time, classes)`` against dense ``target`` labels.")
def ctc_loss(target: Any, output: Any, target_length: Any, output_length: Any, mask_index: int = 0) -> Any:
    tf = _tf()
    out = _float(output)
    result_dtype = out.dtype.name
    cdt = "float32" if result_dtype in ("float16", "bfloat16") else result_dtype
    logits = tf.cast(out, cdt)
    labels = _t(target, "int32")
    if len(logits.shape) != 3 or len(labels.shape) != 2 or int(labels.shape[0]) != int(logits.shape[0]):
        raise ValueError(f"keras.ops.ctc_loss: expected target (batch, max_label_length) and output (batch, time, "
                         f"classes), got {_shape(target)} and {_shape(output)}")  # fmt: skip
    b, t_steps, _ = (int(d) for d in logits.shape)
    n_lab = int(labels.shape[1])
    lab_len = tf.reshape(_t(target_length, "int32"), [b])
    out_len = tf.reshape(_t(output_length, "int32"), [b])
    s_len = 2 * n_lab + 1
    logp = tf.nn.log_softmax(logits, axis=-1)
    # Extended labels: blank, l1, blank, l2, ..., blank.
    blank = tf.fill([b, n_lab], mask_index)
    ext = tf.reshape(tf.stack([blank, labels], axis=-1), [b, 2 * n_lab])
    ext = tf.concat([ext, tf.fill([b, 1], mask_index)], axis=1)
    lp = tf.gather(logp, ext, axis=2, batch_dims=1)  # (b, t, s)
    neg = tf.cast(-1e30, cdt)
    prev2 = tf.concat([tf.fill([b, 2], -1), ext[:, :-2]], axis=1)
    skip_ok = tf.logical_and(tf.not_equal(ext, mask_index), tf.not_equal(ext, prev2))
    s_idx = tf.range(s_len)
    alpha = tf.where(tf.expand_dims(s_idx < 2, 0), lp[:, 0, :], neg * tf.ones_like(lp[:, 0, :]))

    def shift(a: Any, k: int) -> Any:
        return tf.concat([neg * tf.ones_like(a[:, :k]), a[:, :-k]], axis=1)

    for step in range(1, t_steps):
        a1, a2 = shift(alpha, 1), tf.where(skip_ok, shift(alpha, 2), neg * tf.ones_like(alpha))
        m = tf.maximum(tf.maximum(alpha, a1), a2)
        new = m + tf.math.log(tf.exp(alpha - m) + tf.exp(a1 - m) + tf.exp(a2 - m)) + lp[:, step, :]
        alpha = tf.where(tf.expand_dims(step < out_len, 1), new, alpha)
    last = 2 * lab_len
    end1 = tf.gather(alpha, tf.expand_dims(last, 1), axis=1, batch_dims=1)[:, 0]
    end2 = tf.gather(alpha, tf.expand_dims(tf.maximum(last - 1, 0), 1), axis=1, batch_dims=1)[:, 0]
    end2 = tf.where(lab_len > 0, end2, neg * tf.ones_like(end2))
    m = tf.maximum(end1, end2)
    loss = -(m + tf.math.log(tf.exp(end1 - m) + tf.exp(end2 - m)))
    return tf.cast(loss, result_dtype)


@_op("Greedy CTC decoding: ``([decoded (batch, time), -1 padded], scores (batch, 1))``.", "tuple")
def ctc_decode(inputs: Any, sequence_lengths: Any, strategy: str = "greedy", beam_width: int = 100, top_paths: int = 1,
               merge_repeated: bool = True, mask_index: int = 0) -> tuple[list[Any], Any]:  # fmt: skip
    tf = _tf()
    if strategy != "greedy":
        raise NotImplementedError(
            f"keras.ops.ctc_decode: strategy={strategy!r} is not supported by tapers (greedy only)"
        )
    x = _float(inputs)
    x = tf.cast(x, result_type(x.dtype.name, "float32"))
    if len(x.shape) != 3:
        raise ValueError(f"keras.ops.ctc_decode: inputs must be (batch, time, classes), got shape {_shape(inputs)}")
    b, t_steps = int(x.shape[0]), int(x.shape[1])
    lens = tf.reshape(_t(sequence_lengths, "int32"), [b])
    best = tf.argmax(x, axis=-1, output_type="int32")  # (b, t)
    valid = tf.expand_dims(tf.range(t_steps), 0) < tf.expand_dims(lens, 1)
    scores = -tf.reduce_sum(
        tf.where(valid, tf.reduce_max(x, axis=-1), tf.zeros_like(x[:, :, 0])), axis=1, keepdims=True
    )
    keep = tf.logical_and(valid, tf.not_equal(best, mask_index))
    if merge_repeated:
        prev = tf.concat([tf.fill([b, 1], -1), best[:, :-1]], axis=1)
        keep = tf.logical_and(keep, tf.not_equal(best, prev))
    pos = tf.cumsum(tf.cast(keep, "int32"), axis=1) - 1
    coords = tf.cast(tf.where(keep), "int32")  # (n, 2): batch, time
    rows = coords[:, 0]
    cols = tf.gather_nd(pos, coords)
    vals = tf.gather_nd(best, coords)
    dense = tf.tensor_scatter_nd_update(tf.fill([b, t_steps], -1), tf.stack([rows, cols], axis=1), vals)
    return [dense], scores


# --------------------------------------------------------------------------- keras.ops.image (a subset)


def _image_rank_check(images: Any) -> None:
    if len(images.shape) not in (3, 4):
        raise ValueError(
            "Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). "
            f"Received input with shape: images.shape={_shape(images)}"
        )


def _rgb_to_grayscale(images: Any, data_format: Any = None) -> Any:
    """Converts RGB images to grayscale with ITU-R 601 weights (``keras.ops.image.rgb_to_grayscale``).

    Parameters
    ----------
    images : Tensor
        Rank 3 or 4 images with 1 or 3 channels.
    data_format : str or None
        ``channels_last`` (default) or ``channels_first``.

    Returns
    -------
    Tensor
        One-channel images in the input dtype.
    """
    tf = _tf()
    x = _t(images)
    df = _data_format(data_format)
    _image_rank_check(x)
    axis = len(x.shape) - 1 if df == "channels_last" else len(x.shape) - 3
    if int(x.shape[axis]) not in (1, 3):
        raise ValueError(f"Invalid channel size: expected 3 (RGB) or 1 (Grayscale). Received: {_shape(x)}")
    if int(x.shape[axis]) == 1:
        return tf.identity(x)
    ori = x.dtype.name
    xf = tf.cast(x, result_type(ori, float))
    w = tf.constant(np.array([0.2989, 0.5870, 0.1140]).astype(xf.dtype.name))
    gray = tf.expand_dims(tf.tensordot(xf, w, [[axis], [0]]), axis)
    return tf.cast(gray, ori)


def _resize(images: Any, size: Any, interpolation: str = "bilinear", antialias: bool = False,
            crop_to_aspect_ratio: bool = False, pad_to_aspect_ratio: bool = False, fill_mode: str = "constant",
            fill_value: float = 0.0, data_format: Any = None) -> Any:  # fmt: skip
    """Resizes images to ``size`` (``keras.ops.image.resize``; TF 2's half-pixel-centre sampling).

    Parameters
    ----------
    images : Tensor
        Rank 3 or 4 images.
    size : tuple of 2 ints
        ``(height, width)``.
    interpolation : str
        ``bilinear``, ``nearest``, ``bicubic`` or ``area`` (the Lanczos kernels raise ValueError).
    antialias : bool
        Only False is supported.
    crop_to_aspect_ratio, pad_to_aspect_ratio : bool
        Centre-crop, or pad with ``fill_value``, to the target aspect ratio first.
    fill_mode : str
        Only ``constant``.
    fill_value : float
        The padding value.
    data_format : str or None
        ``channels_last`` (default) or ``channels_first``.

    Returns
    -------
    Tensor
        The resized images (float32, except ``nearest`` keeps the dtype, as TensorFlow).
    """
    tf = _tf()
    df = _data_format(data_format)
    if interpolation not in ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area"):
        raise ValueError(f"Invalid value for argument `interpolation`. Received: interpolation={interpolation}")
    if interpolation.startswith("lanczos"):
        raise ValueError(f"keras.ops.image.resize: interpolation={interpolation!r} is not supported by tapers")
    if antialias:
        raise ValueError("keras.ops.image.resize: antialias=True is not supported by tapers")
    if fill_mode != "constant":
        raise ValueError(
            f"Invalid value for argument `fill_mode`. Only `'constant'` is supported. Received: {fill_mode}"
        )
    if pad_to_aspect_ratio and crop_to_aspect_ratio:
        raise ValueError("Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be `True`.")
    if len(size) != 2:
        raise ValueError(f"Argument `size` must be a tuple of two elements (height, width). Received: size={size}")
    x = _t(images)
    _image_rank_check(x)
    batched = len(x.shape) == 4
    if df == "channels_first":
        x = tf.transpose(x, [0, 2, 3, 1] if batched else [1, 2, 0])
    th, tw = int(size[0]), int(size[1])
    h, w = int(x.shape[-3]), int(x.shape[-2])
    if crop_to_aspect_ratio:
        ch = builtins.max(builtins.min(h, int(np.float32(w * th) / np.float32(tw))), 1)
        cw = builtins.max(builtins.min(w, int(np.float32(h * tw) / np.float32(th))), 1)
        hs, ws = int(np.float32(h - ch) / 2), int(np.float32(w - cw) / 2)
        x = x[..., hs : hs + ch, ws : ws + cw, :]
    elif pad_to_aspect_ratio:
        ph = builtins.max(h, int(np.float32(w * th) / np.float32(tw)))
        pw = builtins.max(w, int(np.float32(h * tw) / np.float32(th)))
        hs, ws = int(np.float32(ph - h) / 2), int(np.float32(pw - w) / 2)
        pads = [[hs, hs], [ws, ws], [0, 0]]
        x = tf.pad(x, ([[0, 0]] if batched else []) + pads, constant_values=tf.cast(fill_value, x.dtype))
    out = tf.image.resize(x, [th, tw], method=interpolation)
    if df == "channels_first":
        out = tf.transpose(out, [0, 3, 1, 2] if batched else [2, 0, 1])
    return out


def _hsv_io(images: Any, data_format: Any, name: str) -> tuple[Any, str, bool]:
    tf = _tf()
    x = _t(images)
    df = _data_format(data_format)
    _image_rank_check(x)
    if x.dtype.name not in _FLOAT:
        raise ValueError(f"Invalid images dtype: expected float dtype. Received: images.dtype={x.dtype.name}")
    batched = len(x.shape) == 4
    if df == "channels_first":
        x = tf.transpose(x, [0, 2, 3, 1] if batched else [1, 2, 0])
    if int(x.shape[-1]) != 3:
        raise ValueError(f"keras.ops.image.{name}: images must have 3 channels, got shape {_shape(images)}")
    return x, df, batched


def _hsv_out(x: Any, df: str, batched: bool) -> Any:
    if df == "channels_first":
        return _tf().transpose(x, [0, 3, 1, 2] if batched else [2, 0, 1])
    return x


def _rgb_to_hsv(images: Any, data_format: Any = None) -> Any:
    """Converts RGB images (floats in ``[0, 1]``) to HSV (``keras.ops.image.rgb_to_hsv``).

    Parameters
    ----------
    images : Tensor
        Rank 3 or 4 float images with 3 channels.
    data_format : str or None
        ``channels_last`` (default) or ``channels_first``.

    Returns
    -------
    Tensor
        Hue, saturation and value, each in ``[0, 1]``.
    """
    from .._image_extra import _rgb_to_hsv_t  # tf.image.rgb_to_hsv's kernel, as Keras' TF backend

    x, df, batched = _hsv_io(images, data_format, "rgb_to_hsv")
    return _hsv_out(_rgb_to_hsv_t(x), df, batched)


def _hsv_to_rgb(images: Any, data_format: Any = None) -> Any:
    """Converts HSV images to RGB (``keras.ops.image.hsv_to_rgb``).

    Parameters
    ----------
    images : Tensor
        Rank 3 or 4 float images with 3 channels (hue, saturation, value).
    data_format : str or None
        ``channels_last`` (default) or ``channels_first``.

    Returns
    -------
    Tensor
        RGB images.
    """
    from .._image_extra import _hsv_to_rgb_t  # tf.image.hsv_to_rgb's kernel, as Keras' TF backend

    x, df, batched = _hsv_io(images, data_format, "hsv_to_rgb")
    return _hsv_out(_hsv_to_rgb_t(x), df, batched)


_rgb_to_hsv.__name__ = _rgb_to_hsv.__qualname__ = "rgb_to_hsv"
_hsv_to_rgb.__name__ = _hsv_to_rgb.__qualname__ = "hsv_to_rgb"


def _check_three(a: Any, b: Any, target: Any, names: str) -> None:
    if [a, b, target].count(None) != 1:
        raise ValueError(f"Must specify exactly two of {names}. Received: {a}, {b}, {target}")
    for v, n in zip((a, b, target), names.split(", ")):
        if v is not None and v < 0:
            raise ValueError(f"{n} must be >= 0. Received: {n}={v}")


def _hw(x: Any, df: str) -> tuple[int, int]:
    shp = _shape(x)
    return (int(shp[-3]), int(shp[-2])) if df == "channels_last" else (int(shp[-2]), int(shp[-1]))


def _pad_images(images: Any, top_padding: Any = None, left_padding: Any = None, bottom_padding: Any = None,
                right_padding: Any = None, target_height: Any = None, target_width: Any = None,
                data_format: Any = None) -> Any:  # fmt: skip
    """Zero-pads images (``keras.ops.image.pad_images``): give two of each top/bottom/height triple.

    Parameters
    ----------
    images : Tensor
        Rank 3 or 4 images.
    top_padding, left_padding, bottom_padding, right_padding : int or None
        Rows/columns of zeros to add.
    target_height, target_width : int or None
        The padded size.
    data_format : str or None
        ``channels_last`` (default) or ``channels_first``.

    Returns
    -------
    Tensor
        The padded images.
    """
    x = _t(images)
    df = _data_format(data_format)
    _image_rank_check(x)
    _check_three(top_padding, bottom_padding, target_height, "top_padding, bottom_padding, target_height")
    _check_three(left_padding, right_padding, target_width, "left_padding, right_padding, target_width")
    h, w = _hw(x, df)
    top = target_height - bottom_padding - h if top_padding is None else top_padding
    bottom = target_height - top - h if bottom_padding is None else bottom_padding
    left = target_width - right_padding - w if left_padding is None else left_padding
    right = target_width - left - w if right_padding is None else right_padding
    for v, n in ((top, "top_padding"), (bottom, "bottom_padding"), (left, "left_padding"), (right, "right_padding")):
        if v < 0:
            raise ValueError(f"{n} must be >= 0. Received: {n}={v}")
    pads = [[top, bottom], [left, right]]
    pads = pads + [[0, 0]] if df == "channels_last" else [[0, 0]] + pads
    if len(x.shape) == 4:
        pads = [[0, 0]] + pads
    return _tf().pad(x, pads)


def _crop_images(images: Any, top_cropping: Any = None, left_cropping: Any = None, bottom_cropping: Any = None,
                 right_cropping: Any = None, target_height: Any = None, target_width: Any = None,
                 data_format: Any = None) -> Any:  # fmt: skip
    """Crops images (``keras.ops.image.crop_images``): give two of each top/bottom/height triple.

    Parameters
    ----------
    images : Tensor
        Rank 3 or 4 images.
    top_cropping, left_cropping, bottom_cropping, right_cropping : int or None
        Rows/columns to remove.
    target_height, target_width : int or None
        The cropped size.
    data_format : str or None
        ``channels_last`` (default) or ``channels_first``.

    Returns
    -------
    Tensor
        The cropped images.
    """
    x = _t(images)
    df = _data_format(data_format)
    _image_rank_check(x)
    _check_three(top_cropping, bottom_cropping, target_height, "top_cropping, bottom_cropping, target_height")
    _check_three(left_cropping, right_cropping, target_width, "left_cropping, right_cropping, target_width")
    h, w = _hw(x, df)
    top = h - target_height - bottom_cropping if top_cropping is None else top_cropping
    th = h - bottom_cropping - top if target_height is None else target_height
    left = w - target_width - right_cropping if left_cropping is None else left_cropping
    tw = w - right_cropping - left if target_width is None else target_width
    for v, n in ((top, "top_cropping"), (th, "target_height"), (left, "left_cropping"), (tw, "target_width")):
        if v < 0:
            raise ValueError(f"{n} must be >= 0. Received: {n}={v}")
    if top + th > h or left + tw > w:
        raise ValueError(f"crop_images: the crop box exceeds images of size {(h, w)}")
    if df == "channels_last":
        return x[..., top : top + th, left : left + tw, :]
    return x[..., top : top + th, left : left + tw]


def _extract_patches(images: Any, size: Any, strides: Any = None, dilation_rate: Any = 1, padding: str = "valid",
                     data_format: Any = None) -> Any:  # fmt: skip
    """Patches of ``size`` flattened into the channel axis (``keras.ops.image.extract_patches``; 3-D for volumes).

    Parameters
    ----------
    images : Tensor
        Rank 3/4 images (``size`` of 2) or rank 4/5 volumes (``size`` of 3).
    size : int or tuple
        Patch size.
    strides : int, tuple or None
        Step between patches (default: ``size``).
    dilation_rate : int or tuple
        Dilation inside a patch.
    padding : str
        ``valid`` or ``same``.
    data_format : str or None
        ``channels_last`` (default) or ``channels_first``.

    Returns
    -------
    Tensor
        ``(..., out_h, out_w, patch_h * patch_w * channels)`` (channels_last).
    """
    tf = _tf()
    x = _t(images)
    df = _data_format(data_format)
    nd = 3 if not isinstance(size, int) and len(size) == 3 else 2
    if isinstance(size, int):
        psize = [size] * nd
    elif len(size) == nd:
        psize = [int(v) for v in size]
    else:
        raise TypeError(f"Invalid `size` argument. Expected an int or a tuple of length 2. Received: size={size}")
    channels = int(x.shape[-1] if df == "channels_last" else x.shape[-nd - 1])
    out_dim = int(np.prod(psize)) * channels
    kernel = tf.reshape(tf.eye(out_dim, dtype=x.dtype), psize + [channels, out_dim])
    unbatched = len(x.shape) == nd + 1
    if unbatched:
        x = tf.expand_dims(x, 0)
    out = conv(x, kernel, strides=psize if not strides else strides, padding=padding, data_format=df,
               dilation_rate=dilation_rate)  # fmt: skip
    return tf.squeeze(out, 0) if unbatched else out


_pad_images.__name__ = _pad_images.__qualname__ = "pad_images"
_crop_images.__name__ = _crop_images.__qualname__ = "crop_images"
_extract_patches.__name__ = _extract_patches.__qualname__ = "extract_patches"
_rgb_to_grayscale.__name__ = _rgb_to_grayscale.__qualname__ = "rgb_to_grayscale"
_resize.__name__ = _resize.__qualname__ = "resize"


image = types.ModuleType(f"{__name__}.image", "``keras.ops.image``: the image ops tapers implements (a subset).")
image.rgb_to_grayscale = _rgb_to_grayscale  # type: ignore[attr-defined]
image.resize = _resize  # type: ignore[attr-defined]
image.rgb_to_hsv = _rgb_to_hsv  # type: ignore[attr-defined]
image.hsv_to_rgb = _hsv_to_rgb  # type: ignore[attr-defined]
image.pad_images = _pad_images  # type: ignore[attr-defined]
image.crop_images = _crop_images  # type: ignore[attr-defined]
image.extract_patches = _extract_patches  # type: ignore[attr-defined]
image.__all__ = [  # type: ignore[attr-defined]
    "crop_images", "extract_patches", "hsv_to_rgb", "pad_images", "resize", "rgb_to_grayscale", "rgb_to_hsv",
]  # fmt: skip


def _namespace(name: str, names: list[str]) -> types.ModuleType:
    """A ``keras.ops.<name>`` sub-namespace holding the ops above (``ops.nn.relu is ops.relu``)."""
    mod = types.ModuleType(f"{__name__}.{name}", f"``keras.ops.{name}``: the {name} ops of :mod:`tapers.keras.ops`.")
    for n in names:
        setattr(mod, n, globals()[n])
    mod.__all__ = list(names)  # type: ignore[attr-defined]
    return mod


nn = _namespace(
    "nn",
    [
        "adaptive_average_pool",
        "adaptive_max_pool",
        "average_pool",
        "batch_normalization",
        "binary_crossentropy",
        "categorical_crossentropy",
        "celu",
        "conv",
        "conv_transpose",
        "ctc_decode",
        "ctc_loss",
        "depth_to_space",
        "depthwise_conv",
        "dot_product_attention",
        "elu",
        "fold",
        "gelu",
        "glu",
        "hard_shrink",
        "hard_sigmoid",
        "hard_silu",
        "hard_swish",
        "hard_tanh",
        "layer_normalization",
        "leaky_relu",
        "log_sigmoid",
        "log_softmax",
        "max_pool",
        "moments",
        "multi_hot",
        "normalize",
        "one_hot",
        "polar",
        "psnr",
        "relu",
        "relu6",
        "rms_normalization",
        "selu",
        "separable_conv",
        "sigmoid",
        "silu",
        "soft_shrink",
        "softmax",
        "softplus",
        "softsign",
        "space_to_depth",
        "sparse_categorical_crossentropy",
        "sparse_plus",
        "sparse_sigmoid",
        "sparsemax",
        "squareplus",
        "swish",
        "tanh_shrink",
        "threshold",
        "unfold",
    ],
)
linalg = _namespace(
    "linalg",
    [
        "cholesky",
        "cholesky_inverse",
        "det",
        "eigh",
        "inv",
        "jvp",
        "lstsq",
        "lu_factor",
        "matrix_rank",
        "norm",
        "pinv",
        "qr",
        "solve",
        "solve_triangular",
        "svd",
    ],
)
numpy = _namespace(
    "numpy",
    [
        "abs",
        "absolute",
        "add",
        "all",
        "allclose",
        "amax",
        "amin",
        "angle",
        "any",
        "append",
        "arange",
        "arccos",
        "arccosh",
        "arcsin",
        "arcsinh",
        "arctan",
        "arctan2",
        "arctanh",
        "argmax",
        "argmin",
        "argpartition",
        "argsort",
        "array",
        "array_split",
        "average",
        "bartlett",
        "bincount",
        "bitwise_and",
        "bitwise_invert",
        "bitwise_left_shift",
        "bitwise_not",
        "bitwise_or",
        "bitwise_right_shift",
        "bitwise_xor",
        "blackman",
        "broadcast_to",
        "cbrt",
        "ceil",
        "clip",
        "concatenate",
        "conj",
        "conjugate",
        "copy",
        "corrcoef",
        "correlate",
        "cos",
        "cosh",
        "count_nonzero",
        "cross",
        "cumprod",
        "cumsum",
        "deg2rad",
        "diag",
        "diagflat",
        "diagonal",
        "diff",
        "digitize",
        "divide",
        "divide_no_nan",
        "dot",
        "dsplit",
        "dstack",
        "einsum",
        "empty",
        "empty_like",
        "equal",
        "exp",
        "exp2",
        "expand_dims",
        "expm1",
        "eye",
        "fabs",
        "flip",
        "fliplr",
        "flipud",
        "floor",
        "floor_divide",
        "fmax",
        "fmin",
        "fmod",
        "full",
        "full_like",
        "gcd",
        "geomspace",
        "get_item",
        "greater",
        "greater_equal",
        "hamming",
        "hanning",
        "heaviside",
        "histogram",
        "hsplit",
        "hstack",
        "hypot",
        "i0",
        "identity",
        "imag",
        "inner",
        "isclose",
        "isfinite",
        "isin",
        "isinf",
        "isnan",
        "isneginf",
        "isposinf",
        "isreal",
        "kaiser",
        "kron",
        "lcm",
        "ldexp",
        "left_shift",
        "less",
        "less_equal",
        "linspace",
        "log",
        "log10",
        "log1p",
        "log2",
        "logaddexp",
        "logaddexp2",
        "logical_and",
        "logical_not",
        "logical_or",
        "logical_xor",
        "logspace",
        "matmul",
        "max",
        "maximum",
        "mean",
        "median",
        "meshgrid",
        "min",
        "minimum",
        "mod",
        "moveaxis",
        "multiply",
        "nan_to_num",
        "nanargmax",
        "nanargmin",
        "nancumprod",
        "nancumsum",
        "nanmax",
        "nanmean",
        "nanmedian",
        "nanmin",
        "nanpercentile",
        "nanprod",
        "nanquantile",
        "nanstd",
        "nansum",
        "nanvar",
        "ndim",
        "negative",
        "nextafter",
        "nonzero",
        "not_equal",
        "ones",
        "ones_like",
        "outer",
        "pad",
        "percentile",
        "power",
        "prod",
        "ptp",
        "quantile",
        "rad2deg",
        "ravel",
        "real",
        "reciprocal",
        "repeat",
        "reshape",
        "right_shift",
        "roll",
        "rot90",
        "round",
        "searchsorted",
        "select",
        "sign",
        "signbit",
        "sin",
        "sinc",
        "sinh",
        "size",
        "slogdet",
        "sort",
        "split",
        "sqrt",
        "square",
        "squeeze",
        "stack",
        "std",
        "subtract",
        "sum",
        "swapaxes",
        "take",
        "take_along_axis",
        "tan",
        "tanh",
        "tensordot",
        "tile",
        "trace",
        "transpose",
        "trapezoid",
        "tri",
        "tril",
        "triu",
        "true_divide",
        "trunc",
        "unique",
        "unravel_index",
        "vander",
        "var",
        "vdot",
        "vectorize",
        "view",
        "vsplit",
        "vstack",
        "where",
        "zeros",
        "zeros_like",
    ],
)

__all__ = [
    "abs",
    "absolute",
    "adaptive_average_pool",
    "adaptive_max_pool",
    "add",
    "all",
    "allclose",
    "amax",
    "amin",
    "angle",
    "any",
    "append",
    "arange",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "argmax",
    "argmin",
    "argpartition",
    "argsort",
    "array",
    "array_split",
    "associative_scan",
    "average",
    "average_pool",
    "bartlett",
    "batch_normalization",
    "binary_crossentropy",
    "bincount",
    "bitwise_and",
    "bitwise_invert",
    "bitwise_left_shift",
    "bitwise_not",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "blackman",
    "broadcast_to",
    "cast",
    "categorical_crossentropy",
    "cbrt",
    "cdist",
    "ceil",
    "celu",
    "cholesky",
    "cholesky_inverse",
    "clip",
    "concatenate",
    "cond",
    "conj",
    "conjugate",
    "conv",
    "conv_transpose",
    "convert_to_numpy",
    "convert_to_tensor",
    "copy",
    "corrcoef",
    "correlate",
    "cos",
    "cosh",
    "count_nonzero",
    "cross",
    "ctc_decode",
    "ctc_loss",
    "cumprod",
    "cumsum",
    "custom_gradient",
    "deg2rad",
    "depth_to_space",
    "depthwise_conv",
    "det",
    "diag",
    "diagflat",
    "diagonal",
    "diff",
    "digitize",
    "divide",
    "divide_no_nan",
    "dot",
    "dot_product_attention",
    "dsplit",
    "dstack",
    "dtype",
    "eigh",
    "einsum",
    "elu",
    "empty",
    "empty_like",
    "equal",
    "erf",
    "erfc",
    "erfinv",
    "exp",
    "exp2",
    "expand_dims",
    "expm1",
    "extract_sequences",
    "eye",
    "fabs",
    "fft",
    "fft2",
    "flip",
    "fliplr",
    "flipud",
    "floor",
    "floor_divide",
    "fmax",
    "fmin",
    "fmod",
    "fold",
    "fori_loop",
    "full",
    "full_like",
    "gcd",
    "gelu",
    "geomspace",
    "get_item",
    "glu",
    "greater",
    "greater_equal",
    "hamming",
    "hanning",
    "hard_shrink",
    "hard_sigmoid",
    "hard_silu",
    "hard_swish",
    "hard_tanh",
    "heaviside",
    "histogram",
    "hsplit",
    "hstack",
    "hypot",
    "i0",
    "identity",
    "ifft2",
    "imag",
    "in_top_k",
    "inner",
    "inv",
    "irfft",
    "is_tensor",
    "isclose",
    "isfinite",
    "isin",
    "isinf",
    "isnan",
    "isneginf",
    "isposinf",
    "isreal",
    "istft",
    "jvp",
    "kaiser",
    "kron",
    "layer_normalization",
    "lcm",
    "ldexp",
    "leaky_relu",
    "left_shift",
    "less",
    "less_equal",
    "linspace",
    "log",
    "log10",
    "log1p",
    "log2",
    "log_sigmoid",
    "log_softmax",
    "logaddexp",
    "logaddexp2",
    "logdet",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "logspace",
    "logsumexp",
    "lstsq",
    "lu_factor",
    "map",
    "matmul",
    "matrix_rank",
    "max",
    "max_pool",
    "maximum",
    "mean",
    "median",
    "meshgrid",
    "min",
    "minimum",
    "mod",
    "moments",
    "moveaxis",
    "multi_hot",
    "multiply",
    "nan_to_num",
    "nanargmax",
    "nanargmin",
    "nancumprod",
    "nancumsum",
    "nanmax",
    "nanmean",
    "nanmedian",
    "nanmin",
    "nanpercentile",
    "nanprod",
    "nanquantile",
    "nanstd",
    "nansum",
    "nanvar",
    "ndim",
    "negative",
    "nextafter",
    "nonzero",
    "norm",
    "normalize",
    "not_equal",
    "one_hot",
    "ones",
    "ones_like",
    "outer",
    "pad",
    "percentile",
    "pinv",
    "polar",
    "power",
    "prod",
    "psnr",
    "ptp",
    "qr",
    "quantile",
    "rad2deg",
    "ravel",
    "real",
    "rearrange",
    "reciprocal",
    "relu",
    "relu6",
    "repeat",
    "reshape",
    "result_type",
    "rfft",
    "right_shift",
    "rms_normalization",
    "roll",
    "rot90",
    "round",
    "rsqrt",
    "saturate_cast",
    "scan",
    "scatter",
    "scatter_update",
    "searchsorted",
    "segment_max",
    "segment_min",
    "segment_prod",
    "segment_sum",
    "select",
    "selu",
    "separable_conv",
    "shape",
    "sigmoid",
    "sign",
    "signbit",
    "silu",
    "sin",
    "sinc",
    "sinh",
    "size",
    "slice",
    "slice_update",
    "slogdet",
    "soft_shrink",
    "softmax",
    "softplus",
    "softsign",
    "solve",
    "solve_triangular",
    "sort",
    "space_to_depth",
    "sparse_categorical_crossentropy",
    "sparse_plus",
    "sparse_sigmoid",
    "sparsemax",
    "split",
    "sqrt",
    "square",
    "squareplus",
    "squeeze",
    "stack",
    "standardize_dtype",
    "std",
    "stft",
    "stop_gradient",
    "subtract",
    "sum",
    "svd",
    "swapaxes",
    "swish",
    "switch",
    "take",
    "take_along_axis",
    "tan",
    "tanh",
    "tanh_shrink",
    "tensordot",
    "threshold",
    "tile",
    "top_k",
    "trace",
    "transpose",
    "trapezoid",
    "tri",
    "tril",
    "triu",
    "true_divide",
    "trunc",
    "unfold",
    "unique",
    "unravel_index",
    "unstack",
    "vander",
    "var",
    "vdot",
    "vectorize",
    "vectorized_map",
    "view",
    "view_as_complex",
    "view_as_real",
    "vsplit",
    "vstack",
    "where",
    "while_loop",
    "zeros",
    "zeros_like",
]
