"""Helpers shared by the Keras/Module tests: the reference fixture written by
tests/data/make_keras_layers_reference.py and the deterministic values it used."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

REF: dict[str, Any] = json.loads((Path(__file__).parent / "data" / "keras_layers_reference.json").read_text())


def fixed(shape: tuple[int, ...], k: int = 0) -> np.ndarray:
    """The reference script's deterministic weights/inputs: a scaled sine of the flat index."""
    n = int(np.prod(shape)) if len(shape) else 1
    return (0.5 * np.sin(np.arange(n, dtype=np.float64) * 0.7 + k)).reshape(shape).astype(np.float32)


def path(v: Any) -> str:
    """A tapers Variable's name without ``:0``: Keras 3's ``variable.path``."""
    return v.name[:-2] if v.name.endswith(":0") else v.name


def set_fixed(model: Any, k: int = 0) -> None:
    """Assigns the weights exactly as the reference script's ``set_fixed`` does."""
    for i, w in enumerate(model.weights):
        p = path(w)
        if "moving_variance" in p or p.endswith("gamma"):
            w.assign(1.0 + 0.1 * fixed(tuple(w.shape), k + i))
        elif "moving_mean" in p:
            w.assign(np.zeros(tuple(w.shape), np.float32))
        else:
            w.assign(fixed(tuple(w.shape), k + i))
