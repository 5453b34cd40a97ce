"""``keras.mixed_precision``: Keras 3 dtype policies and loss scaling.

``LossScaleOptimizer`` is the optimizer of ``tapers.optimizers`` (dynamic loss scaling).
``DTypePolicy`` (also ``Policy``) describes a policy, mixed ones included. A *global*
policy must be honoured by the layers created after it, and tapers' layers compute in
one dtype (their weights'): ``set_dtype_policy`` (``set_global_policy``) therefore accepts
``"float32"`` and ``"float64"`` (it sets ``keras.backend.set_floatx``, which tapers'
layers read for their dtype) and raises ``NotImplementedError`` for ``"mixed_float16"``,
``"mixed_bfloat16"``, ``"float16"`` and ``"bfloat16"`` instead of silently computing in
float32.
"""

from __future__ import annotations

from typing import Any

from ..optimizers import LossScaleOptimizer
from . import backend

__all__ = [
    "DTypePolicy", "LossScaleOptimizer", "Policy", "dtype_policy", "global_policy", "set_dtype_policy",
    "set_global_policy",
]  # fmt: skip

_FLOATS = ("float16", "bfloat16", "float32", "float64")
_GLOBAL_OK = ("float32", "float64")


class DTypePolicy:
    """A dtype policy (``keras.mixed_precision.DTypePolicy``): the dtype layers compute in
    and the dtype of their variables.

    Parameters
    ----------
    name : str, optional
        ``"mixed_float16"`` (float16 compute, float32 variables), ``"mixed_bfloat16"``,
        or a float dtype name (both dtypes); default ``keras.backend.floatx()``.

    Raises
    ------
    ValueError
        Any other name (Keras' message).
    """

    def __init__(self, name: str | None = None) -> None:
        if name is None:
            name = backend.floatx()
        if not isinstance(name, str):
            raise TypeError(
                f"'name' must be a string, such as 'mixed_float16'. Received: name={name} (of type {type(name)})"
            )
        if name in ("mixed_float16", "mixed_bfloat16"):
            compute, variable = name.split("_", 1)[1], "float32"
        elif name in _FLOATS:
            compute = variable = name
        else:
            raise ValueError(
                f"Cannot convert '{name}' to a mixed precision DTypePolicy. Valid policies include 'mixed_float16', "
                "'mixed_bfloat16', and the name of any float dtype such as 'float32'."
            )
        self._name = name
        self._compute_dtype = compute
        self._variable_dtype = variable

    @property
    def name(self) -> str:
        """The policy's name."""
        return self._name

    @property
    def compute_dtype(self) -> str:
        """The dtype of layers' computations."""
        return self._compute_dtype

    @property
    def variable_dtype(self) -> str:
        """The dtype of layers' variables."""
        return self._variable_dtype

    @property
    def quantization_mode(self) -> None:
        """None: tapers has no quantized policies."""
        return None

    def get_config(self) -> dict[str, Any]:
        """The policy's config.

        Returns
        -------
        dict
            ``{"name": name}``.
        """
        return {"name": self._name}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> DTypePolicy:
        """A policy from :meth:`get_config`'s dictionary.

        Parameters
        ----------
        config : dict
            ``{"name": name}``.

        Returns
        -------
        DTypePolicy
        """
        return cls(**config)

    def __repr__(self) -> str:
        return f'<DTypePolicy "{self._name}">'

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DTypePolicy) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("DTypePolicy", self._name))


Policy = DTypePolicy

_global: DTypePolicy | None = None


def set_dtype_policy(policy: Any) -> None:
    """Sets the default policy of new layers (``keras.mixed_precision.set_dtype_policy``).

    Parameters
    ----------
    policy : str or DTypePolicy
        ``"float32"`` or ``"float64"`` (sets ``keras.backend.floatx``).

    Raises
    ------
    ValueError
        ``policy`` is neither a string nor a DTypePolicy (Keras' message).
    NotImplementedError
        A mixed, float16 or bfloat16 policy: tapers' layers compute in the dtype of their
        weights and cannot honour it.
    """
    global _global
    if isinstance(policy, str):
        policy = DTypePolicy(policy)
    if not isinstance(policy, DTypePolicy):
        raise ValueError(
            "Invalid `policy` argument. Expected the string name of a policy (such as 'mixed_float16') or a "
            f"`DTypePolicy` instance. Received: policy={policy} (of type {type(policy)})"
        )
    if policy.name not in _GLOBAL_OK:
        raise NotImplementedError(
            f"set_dtype_policy({policy.name!r}): tapers' layers compute in the dtype of their weights, so a global "
            f"policy with compute dtype {policy.compute_dtype} and variable dtype {policy.variable_dtype} is not "
            "supported; use 'float32' or 'float64', or pass dtype='float16' to individual layers."
        )
    backend.set_floatx(policy.name)
    _global = policy


def dtype_policy() -> DTypePolicy:
    """The default policy of new layers (``keras.mixed_precision.dtype_policy``).

    Returns
    -------
    DTypePolicy
        The policy set by :func:`set_dtype_policy`, else one named ``keras.backend.floatx()``.
    """
    if _global is not None and _global.name == backend.floatx():
        return _global
    return DTypePolicy(backend.floatx())


set_global_policy = set_dtype_policy
global_policy = dtype_policy
