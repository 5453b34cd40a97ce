"""``keras.saving``: Keras 3's serialization registry (the same functions as ``keras.utils``) and its
model/weights entry points (``load_model``/``save_model`` refuse whole-model archives, as
``Model.save`` does in tapers; weights go through ``Model.save_weights``/``load_weights``)."""

from __future__ import annotations

import os
from typing import Any

from .models import load_model
from .utils import (
    CustomObjectScope,
    custom_object_scope,
    deserialize_keras_object,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    serialize_keras_object,
)

__all__ = [
    "CustomObjectScope", "custom_object_scope", "deserialize_keras_object", "get_custom_objects",
    "get_registered_name", "get_registered_object", "load_model", "load_weights", "register_keras_serializable",
    "save_model", "save_weights", "serialize_keras_object",
]  # fmt: skip


def save_model(model: Any, filepath: str | os.PathLike[str], overwrite: bool = True, **kwargs: Any) -> None:
    """``model.save(filepath)`` (``keras.saving.save_model``).

    Parameters
    ----------
    model : Model
    filepath : str or path
    overwrite : bool

    Returns
    -------
    None

    Raises
    ------
    ValueError, NotImplementedError
        As ``Model.save``: tapers does not write whole-model archives.
    """
    model.save(filepath, overwrite=overwrite, **kwargs)


def save_weights(model: Any, filepath: str | os.PathLike[str], overwrite: bool = True, **kwargs: Any) -> None:
    """``model.save_weights(filepath)`` (``keras.saving.save_weights``).

    Parameters
    ----------
    model : Model
    filepath : str or path
        Ending in ``.weights.h5`` (written as safetensors) or ``.safetensors``.
    overwrite : bool

    Returns
    -------
    None
    """
    model.save_weights(filepath, overwrite=overwrite)


def load_weights(model: Any, filepath: str | os.PathLike[str], skip_mismatch: bool = False, **kwargs: Any) -> None:
    """``model.load_weights(filepath)`` (``keras.saving.load_weights``).

    Parameters
    ----------
    model : Model
    filepath : str or path
    skip_mismatch : bool

    Returns
    -------
    None
    """
    model.load_weights(filepath, skip_mismatch=skip_mismatch)
