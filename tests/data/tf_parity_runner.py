"""A tiny interpreter for TF-differential programs, run unchanged with ``tensorflow`` or ``tapers``.

A program is data (JSON), so the same program runs under both modules:

* ``inputs``: ``{name: {"value": V, "dtype": "float32" | None, "kind": "constant" | "variable" | "python"}}``
  (``python``: a plain Python scalar or list handed to the ops as is);
* ``watch``: names of constants both tapes watch (variables are watched when read);
* ``steps``: ``[out, op, args, kwargs]``, where ``op`` is a dotted name looked up in the module
  (``"nn.relu"``, ``"math.cumprod"``) or ``"op.<name>"`` for a Python operator (``op.mul`` is
  ``a * b``, so Python scalars can sit on either side) or ``"builtin.max"``; an argument
  ``{"$": name}`` refers to an input or an earlier step's output, ``{"dtype": "int32"}`` is a dtype;
* ``grad`` (optional): ``{"target": name, "sources": [names], "output_gradients": A,
  "second": bool}``: first-order gradients from a persistent inner tape, and the gradient of their
  sum from an outer tape (second order);
* ``jacobian`` (optional): ``{"target": name, "source": name, "experimental_use_pfor": bool,
  "persistent": bool}``;
* ``scenario`` (optional): the name of one of the few tape behaviours that need Python code
  (``custom_gradient`` with ``variables=``), run instead of the steps.

``run_program(module, program)`` returns what happened, encoded for JSON: each step's value,
dtype, shape and printed text, or its exception's class and message; the gradients likewise.
Floats are encoded so that NaN, infinities and negative zero survive JSON.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np


def enc(v: Any) -> Any:
    """Encodes a Python/numpy value for JSON (NaN, ±inf and -0.0 as strings)."""
    if isinstance(v, (list, tuple)):
        return [enc(x) for x in v]
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isnan(f):
            return "nan"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        if f == 0.0 and math.copysign(1.0, f) < 0:
            return "-0.0"
        return f
    return v


def dec(v: Any) -> Any:
    """Inverse of :func:`enc`."""
    if isinstance(v, list):
        return [dec(x) for x in v]
    if isinstance(v, str) and v in ("nan", "inf", "-inf", "-0.0"):
        return float(v)
    return v


def _dtype(tf: Any, name: str | None) -> Any:
    return None if name is None else getattr(tf, name)


def _lookup(tf: Any, name: str) -> Any:
    obj = tf
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


_OPERATORS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "truediv": lambda a, b: a / b,
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "pow": lambda a, b: a**b,
    "neg": lambda a: -a,
    "abs": lambda a: abs(a),
    "matmul": lambda a, b: a @ b,
    "lt": lambda a, b: a < b,
    "getitem": lambda a, i: a[tuple(i) if isinstance(i, list) else i],
}


def _resolve(tf: Any, env: dict[str, Any], a: Any) -> Any:
    if isinstance(a, dict):
        if "$" in a:
            return env[a["$"]]
        if "dtype" in a:
            return _dtype(tf, a["dtype"])
        if "slice" in a:
            return slice(*a["slice"])
        return {k: _resolve(tf, env, v) for k, v in a.items()}
    if isinstance(a, list):
        return [_resolve(tf, env, x) for x in a]
    return dec(a)


def describe(t: Any) -> Any:
    """A result (tensor, list of tensors, None, Python value) as JSON-ready data."""
    if t is None:
        return None
    if isinstance(t, (list, tuple)):
        return {"list": [describe(x) for x in t]}
    if hasattr(t, "numpy") and hasattr(t, "dtype"):
        a = np.asarray(t.numpy())
        text = str(t)
        for prefix in ("tf.Tensor", "tapers.Tensor", "tf.Variable", "tapers.Variable"):
            text = text.replace(prefix, prefix.split(".")[1])
        return {"value": enc(a.tolist()), "dtype": t.dtype.name, "shape": list(a.shape), "text": text}
    return {"python": enc(t)}


def describe_error(e: BaseException) -> dict[str, Any]:
    """The exception's class (TF's name, or the builtin) and message's first line."""
    msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return {"error": type(e).__name__, "message": msg}


def _make_inputs(tf: Any, prog: dict[str, Any]) -> dict[str, Any]:
    env: dict[str, Any] = {}
    for name, spec in prog.get("inputs", {}).items():
        value = dec(spec["value"])
        kind = spec.get("kind", "constant")
        if kind == "python":
            env[name] = value
        elif kind == "variable":
            env[name] = tf.Variable(value, dtype=_dtype(tf, spec.get("dtype")))
        else:
            env[name] = tf.constant(value, dtype=_dtype(tf, spec.get("dtype")))
    return env


def _run_steps(tf: Any, prog: dict[str, Any], env: dict[str, Any], out: dict[str, Any]) -> bool:
    for out_name, op, args, kwargs in prog["steps"]:
        try:
            a = _resolve(tf, env, args)
            k = {key: _resolve(tf, env, v) for key, v in kwargs.items()}
            if op.startswith("op."):
                fn = _OPERATORS[op[3:]]
            elif op == "builtin.max":
                fn = max
            else:
                fn = _lookup(tf, op)
            env[out_name] = fn(*a, **k)
        except Exception as e:  # noqa: BLE001 - the exception is the answer
            out["steps"][out_name] = describe_error(e)
            return False
        out["steps"][out_name] = describe(env[out_name])
    return True


def _grads(tf: Any, prog: dict[str, Any], out: dict[str, Any]) -> None:
    g = prog["grad"]
    env = _make_inputs(tf, prog)
    srcs = [env[s] for s in g["sources"]]
    watched = [env[w] for w in prog.get("watch", [])]
    warnings.filterwarnings("ignore", message="The dtype of the watched tensor must be floating")
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(watched)
        with tf.GradientTape(persistent=True) as inner:
            inner.watch(watched)
            if not _run_steps(tf, prog, env, {"steps": {}}):
                return
        og = g.get("output_gradients")
        try:
            kw = {} if og is None else {"output_gradients": _resolve(tf, env, og)}
            first = inner.gradient(env[g["target"]], srcs, **kw)
        except Exception as e:  # noqa: BLE001
            out["grad"] = describe_error(e)
            return
    out["grad"] = describe(first)
    if g.get("second", True):
        connected = [x for x in first if x is not None]
        if connected:
            try:
                out["grad2"] = describe(outer.gradient(connected, srcs))
            except Exception as e:  # noqa: BLE001
                out["grad2"] = describe_error(e)


def _jacobian(tf: Any, prog: dict[str, Any], out: dict[str, Any]) -> None:
    j = prog["jacobian"]
    env = _make_inputs(tf, prog)
    with tf.GradientTape(persistent=j.get("persistent", False)) as tape:
        tape.watch([env[w] for w in prog.get("watch", [])])
        if not _run_steps(tf, prog, env, {"steps": {}}):
            return
    kw = {} if "experimental_use_pfor" not in j else {"experimental_use_pfor": j["experimental_use_pfor"]}
    try:
        out["jacobian"] = describe(tape.jacobian(env[j["target"]], env[j["source"]], **kw))
    except Exception as e:  # noqa: BLE001
        out["jacobian"] = describe_error(e)


def _scenario_custom_gradient_variables(tf: Any, with_variables: bool) -> dict[str, Any]:
    v = tf.Variable([2.0, 3.0])
    x = tf.constant([1.0, 4.0])
    if with_variables:

        @tf.custom_gradient
        def f(x: Any) -> Any:
            def grad(dy: Any, variables: Any = None) -> Any:
                return dy * 10.0, [dy * 100.0 for _ in variables]

            return x * v, grad

    else:

        @tf.custom_gradient
        def f(x: Any) -> Any:
            def grad(dy: Any) -> Any:
                return dy * 10.0

            return x * v, grad

    try:
        with tf.GradientTape() as t:
            t.watch(x)
            y = f(x)
    except Exception as e:  # noqa: BLE001 - TF checks grad_fn's signature at the call
        return {"call": describe_error(e)}
    try:
        return {"value": describe(y), "grad": describe(t.gradient(y, [x, v]))}
    except Exception as e:  # noqa: BLE001
        return {"grad": describe_error(e)}


SCENARIOS = {
    "custom_gradient_variables": lambda tf: _scenario_custom_gradient_variables(tf, True),
    "custom_gradient_variables_missing_parameter": lambda tf: _scenario_custom_gradient_variables(tf, False),
}


def run_program(tf: Any, prog: dict[str, Any]) -> dict[str, Any]:
    """Runs one program with module ``tf`` (tensorflow or tapers) and returns its encoded outcome."""
    if "scenario" in prog:
        return SCENARIOS[prog["scenario"]](tf)
    out: dict[str, Any] = {"steps": {}}
    try:
        env = _make_inputs(tf, prog)
    except Exception as e:  # noqa: BLE001
        out["inputs"] = describe_error(e)
        return out
    if not _run_steps(tf, prog, env, out):
        return out
    if "grad" in prog:
        _grads(tf, prog, out)
    if "jacobian" in prog:
        _jacobian(tf, prog, out)
    return out
