# Records Keras 3.15's Adafactor, Lamb, Muon, ScheduleFreeAdamW and LossScaleOptimizer trajectories
# (variables, and LossScaleOptimizer's scale/counter/iterations, after each step) on fixed variables and
# per-step gradients, plus their get_config(), into keras_optimizers_more_reference.json.
# Not run by the tests; regenerate with (TensorFlow 2.21 + Keras 3.15):
#   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_optimizers_more_reference.py
"""Keras reference values for tests/test_optimizers_more.py."""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["KERAS_BACKEND"] = "tensorflow"
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 5

# Variables: name -> shape (names matter to Muon's embedding/exclude_layers rules).
SHAPES = {"kernel": (3, 4), "tall": (5, 3), "bias": (4,), "cube": (2, 3, 4), "scalar": ()}


def initial(name: str, shape: tuple[int, ...]) -> np.ndarray:
    rng = np.random.default_rng(len(name) * 7 + len(shape))
    return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def grads_at(step: int, name: str, shape: tuple[int, ...]) -> np.ndarray:
    rng = np.random.default_rng(1000 + 31 * step + len(name) * 3 + len(shape))
    return rng.normal(0.0, 1.0, size=shape).astype(np.float32)


def run_case(make: Any, names: list[str], steps: int = STEPS, zero: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    variables = [
        keras.Variable(np.zeros(SHAPES[n], np.float32) if n in zero else initial(n, SHAPES[n]), name=n) for n in names
    ]
    opt = make()
    out = []
    for s in range(steps):
        grads = [tf.constant(grads_at(s, n, SHAPES[n])) for n in names]
        opt.apply_gradients(zip(grads, variables))
        out.append({n: np.asarray(v.numpy()).astype(float).reshape(-1).tolist() for n, v in zip(names, variables)})
    return out


ALL = ["kernel", "tall", "bias", "cube", "scalar"]
SCHED = keras.optimizers.schedules.ExponentialDecay(0.05, decay_steps=2, decay_rate=0.5)

CASES: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "adafactor_default": ("Adafactor", {}, ALL),
    "adafactor_lr_big": ("Adafactor", {"learning_rate": 0.5}, ALL),
    "adafactor_no_relative": ("Adafactor", {"learning_rate": 0.5, "relative_step": False}, ALL),
    "adafactor_clip": (
        "Adafactor",
        {"learning_rate": 0.3, "clip_threshold": 0.1, "epsilon_2": 0.5, "beta_2_decay": -0.5},
        ALL,
    ),
    "adafactor_wd": ("Adafactor", {"learning_rate": 0.2, "weight_decay": 0.1, "epsilon_1": 1e-3}, ALL),
    "adafactor_clipnorm": ("Adafactor", {"learning_rate": 0.2, "clipnorm": 0.5}, ALL),
    "lamb_default": ("Lamb", {}, ALL),
    "lamb_wd": ("Lamb", {"learning_rate": 0.05, "weight_decay": 0.1}, ALL),
    "lamb_betas": ("Lamb", {"learning_rate": 0.02, "beta_1": 0.5, "beta_2": 0.9, "epsilon": 1e-3}, ALL),
    "lamb_global_clip": ("Lamb", {"learning_rate": 0.02, "global_clipnorm": 1.0}, ALL),
    "muon_default": ("Muon", {}, ALL),
    "muon_lr": ("Muon", {"learning_rate": 0.02, "weight_decay": 0.1, "adam_weight_decay": 0.05}, ALL),
    "muon_options": (
        "Muon",
        {
            "learning_rate": 0.01,
            "nesterov": False,
            "ns_steps": 3,
            "rms_rate": None,
            "momentum": 0.8,
            "adam_lr_ratio": 0.5,
            "exclude_layers": ["tall"],
        },
        ALL,
    ),  # fmt: skip
    "sfadamw_default": ("ScheduleFreeAdamW", {}, ALL),
    "sfadamw_warmup": ("ScheduleFreeAdamW", {"learning_rate": 0.05, "warmup_steps": 3, "beta_1": 0.8}, ALL),
    "sfadamw_wd": ("ScheduleFreeAdamW", {"learning_rate": 0.05, "weight_decay": 0.2, "epsilon": 1e-3}, ALL),
}


def lamb_zero() -> list[dict[str, Any]]:
    # A variable of zeros: w_norm = 0, so Lamb's trust ratio is 1.
    return run_case(lambda: keras.optimizers.Lamb(learning_rate=0.1), ["kernel", "bias"], zero=("kernel",))


def schedule_cases() -> dict[str, Any]:
    out = {}
    for cls in ("Adafactor", "Lamb", "ScheduleFreeAdamW"):
        out[cls] = run_case(lambda c=cls: getattr(keras.optimizers, c)(learning_rate=SCHED), ALL)
    return out


def muon_embedding() -> list[dict[str, Any]]:
    # A 2-D variable whose name holds "embedding" takes the AdamW step (exclude_embeddings).
    SHAPES["token_embedding"] = (4, 3)
    return run_case(lambda: keras.optimizers.Muon(learning_rate=0.01), ["token_embedding", "kernel"])


# LossScaleOptimizer: gradients per step, some non-finite.
LSO_STEPS = 8
BAD = {2: "inf", 5: "nan"}


def lso_grads(step: int, name: str) -> np.ndarray:
    g = grads_at(step, name, SHAPES[name]) * 8.0
    if step in BAD and name == "kernel":
        g = g.copy()
        g.reshape(-1)[1] = np.inf if BAD[step] == "inf" else np.nan
    return g


def lso_case(inner: str, inner_kwargs: dict[str, Any], initial_scale: float, growth: int) -> list[dict[str, Any]]:
    names = ["kernel", "bias"]
    variables = [keras.Variable(initial(n, SHAPES[n]), name=n) for n in names]
    opt = keras.optimizers.LossScaleOptimizer(
        getattr(keras.optimizers, inner)(**inner_kwargs), initial_scale=initial_scale, dynamic_growth_steps=growth
    )
    out = []
    for s in range(LSO_STEPS):
        grads = [tf.constant(lso_grads(s, n)) for n in names]
        opt.apply_gradients(zip(grads, variables))
        rec = {n: np.asarray(v.numpy()).astype(float).reshape(-1).tolist() for n, v in zip(names, variables)}
        rec["scale"] = float(opt.dynamic_scale.numpy())
        rec["counter"] = int(opt.step_counter.numpy())
        rec["iterations"] = int(opt.iterations.numpy())
        rec["scaled_loss"] = float(opt.scale_loss(tf.constant(1.5)).numpy())
        out.append(rec)
    return out


def configs() -> dict[str, Any]:
    out = {}
    for key, (cls, kwargs, _) in CASES.items():
        cfg = getattr(keras.optimizers, cls)(**kwargs).get_config()
        out[key] = {k: v for k, v in cfg.items() if isinstance(v, (int, float, str, bool, list, type(None)))}
    lso = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.1), initial_scale=4.0, dynamic_growth_steps=3)
    cfg = lso.get_config()
    out["lso"] = {k: v for k, v in cfg.items() if k != "inner_optimizer"}
    return out


# IndexedSlices cases: key -> (class, kwargs, variable name). Keras' TensorFlow backend squares
# (and divides) each slice before summing a repeated row, which the clipped Adafactor and the
# AdamW step of Muon's embedding show.
SLICES = {
    "Adafactor": ("Adafactor", {"learning_rate": 0.3}, "table"),
    "Adafactor_clip": ("Adafactor", {"learning_rate": 0.3, "clip_threshold": 0.05}, "table"),
    "Lamb": ("Lamb", {"learning_rate": 0.05}, "table"),
    "ScheduleFreeAdamW": ("ScheduleFreeAdamW", {"learning_rate": 0.05}, "table"),
    "Muon": ("Muon", {"learning_rate": 0.02}, "table"),
    "Muon_embedding": ("Muon", {"learning_rate": 0.02}, "embedding_table"),
}


def indexed_slices() -> dict[str, Any]:
    # Gradients of tf.gather (IndexedSlices, row 0 twice) on a (5, 3) table.
    out: dict[str, Any] = {}
    for key, (cls, kwargs, name) in SLICES.items():
        var = keras.Variable(initial("tall", (5, 3)), name=name)
        opt = getattr(keras.optimizers, cls)(**kwargs)
        traj = []
        try:
            for s in range(3):
                vals = tf.constant(grads_at(s, "rows", (3, 3)))
                g = tf.IndexedSlices(vals, tf.constant([0, 3, 0]), tf.constant([5, 3]))
                opt.apply_gradients([(g, var)])
                traj.append(np.asarray(var.numpy()).astype(float).reshape(-1).tolist())
            out[key] = {"cls": cls, "kwargs": kwargs, "name": name, "traj": traj}
        except Exception as e:  # recorded: Keras refuses
            out[key] = {"error": type(e).__name__, "message": str(e)[:300]}
    return out


def main() -> None:
    ref: dict[str, Any] = {
        "versions": {"tensorflow": tf.__version__, "keras": keras.__version__},
        "steps": STEPS,
        "shapes": {k: list(v) for k, v in SHAPES.items()},
        "initial": {n: initial(n, s).astype(float).reshape(-1).tolist() for n, s in SHAPES.items()},
        "grads": [
            {n: grads_at(st, n, s).astype(float).reshape(-1).tolist() for n, s in SHAPES.items()} for st in range(STEPS)
        ],  # fmt: skip
        "cases": {},
    }
    for key, (cls, kwargs, names) in CASES.items():
        traj = run_case(lambda c=cls, k=kwargs: getattr(keras.optimizers, c)(**k), names)
        ref["cases"][key] = {"cls": cls, "kwargs": kwargs, "names": names, "traj": traj}
    ref["lamb_zero"] = lamb_zero()
    ref["schedule"] = schedule_cases()
    ref["muon_embedding"] = muon_embedding()
    ref["lso"] = {
        "sgd": lso_case("SGD", {"learning_rate": 0.1}, 8.0, 2),
        "adam": lso_case("Adam", {"learning_rate": 0.05}, 2.0**15, 3),
        "lamb": lso_case("Lamb", {"learning_rate": 0.05}, 4.0, 1),
    }
    ref["configs"] = configs()
    ref["indexed_slices"] = indexed_slices()
    ref["mixed_precision_names"] = sorted(n for n in dir(keras.mixed_precision) if not n.startswith("_"))
    ref["tf_mixed_precision_names"] = sorted(n for n in dir(tf.keras.mixed_precision) if not n.startswith("_"))
    with open(os.path.join(HERE, "keras_optimizers_more_reference.json"), "w") as f:
        json.dump(ref, f)


if __name__ == "__main__":
    main()
