"""``tapers.data.Options`` (``tf.data.Options``): pipeline settings, as TensorFlow types and merges them.

Options are attached with ``Dataset.with_options`` and read back merged with
``Dataset.options()``, with TensorFlow's checks (unknown names raise
``AttributeError``, values of the wrong type ``TypeError``) and its merge rule
(a later setting wins). They do not change how tapers runs a pipeline: tapers'
pipelines are always deterministic, their thread counts come from
``num_parallel_calls``, and there is no graph for the optimization options to
rewrite or dataset service to distribute. Programs that set them run unchanged.
"""

from __future__ import annotations

import enum
import warnings
from typing import Any


class AutoShardPolicy(enum.IntEnum):
    """How a distributed input pipeline is split between workers (``tf.data.experimental.AutoShardPolicy``).

    Attributes
    ----------
    OFF, AUTO, FILE, DATA, HINT : int
        TensorFlow's values (-1, 0, 1, 2, 3).
    """

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class AutotuneAlgorithm(enum.Enum):
    """TensorFlow's autotuning algorithms (``tf.data.experimental.AutotuneAlgorithm``).

    Attributes
    ----------
    DEFAULT, HILL_CLIMB, GRADIENT_DESCENT, MAX_PARALLELISM, STAGE_BASED : int
    """

    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class ExternalStatePolicy(enum.Enum):
    """What to do with stateful functions when checkpointing (``tf.data.experimental.ExternalStatePolicy``).

    Attributes
    ----------
    WARN, IGNORE, FAIL : int
    """

    WARN = 0
    IGNORE = 1
    FAIL = 2


class OptionsBase:
    """A fixed set of typed settings, each ``None`` (unset) until assigned (``tf.data.experimental.OptionsBase``).

    Attributes
    ----------
    _fields : dict
        Each setting's name and its type (or, for a nested group, its class).
    """

    _fields: dict[str, Any] = {}

    def __init__(self) -> None:
        object.__setattr__(self, "_options", {})
        object.__setattr__(self, "_mutable", True)

    def __getattr__(self, name: str) -> Any:
        fields = type(self)._fields
        if name not in fields:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        options = self.__dict__["_options"]
        if name not in options:
            ty = fields[name]
            options[name] = ty() if isinstance(ty, type) and issubclass(ty, OptionsBase) else None
        return options[name]

    def __setattr__(self, name: str, value: Any) -> None:
        if not self.__dict__["_mutable"]:
            raise ValueError(
                "Mutating `tapers.data.Options()` returned by `tapers.data.Dataset.options()` has no effect. "
                "Use `tapers.data.Dataset.with_options(options)` to set or update dataset options."
            )
        fields = type(self)._fields
        if name not in fields:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        ty = fields[name]
        if value is not None and not isinstance(value, ty):
            raise TypeError(f'Property "{name}" must be of type {ty}, got: {value} (type: {type(value)})')
        self.__dict__["_options"][name] = value

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in type(self)._fields)

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]

    def _frozen(self) -> OptionsBase:
        for value in self.__dict__["_options"].values():
            if isinstance(value, OptionsBase):
                value._frozen()
        object.__setattr__(self, "_mutable", False)
        return self


class AutotuneOptions(OptionsBase):
    """``options.autotune``: autotuning settings (accepted; tapers does not autotune).

    Attributes
    ----------
    enabled, cpu_budget, ram_budget, autotune_algorithm, initial_parallelism, min_parallelism
    """

    _fields = {"enabled": bool, "cpu_budget": int, "ram_budget": int, "autotune_algorithm": AutotuneAlgorithm,
               "initial_parallelism": int, "min_parallelism": int}  # fmt: skip


class DistributeOptions(OptionsBase):
    """``options.experimental_distribute``: how a distributed pipeline is sharded.

    Attributes
    ----------
    auto_shard_policy : AutoShardPolicy
    num_devices : int
    """

    _fields = {"auto_shard_policy": AutoShardPolicy, "num_devices": int}


class OptimizationOptions(OptionsBase):
    """``options.experimental_optimization``: graph rewrites (accepted; tapers has no graph to rewrite).

    Attributes
    ----------
    apply_default_optimizations, filter_fusion, ..., shuffle_and_repeat_fusion : bool
    """

    _fields = {name: bool for name in (
        "apply_default_optimizations", "filter_fusion", "filter_parallelization", "inject_prefetch",
        "seq_interleave_prefetch", "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion",
        "map_parallelization", "noop_elimination", "parallel_batch", "shuffle_and_repeat_fusion")}  # fmt: skip


class ThreadingOptions(OptionsBase):
    """``options.threading``: thread pool sizes (accepted; tapers sizes pools by ``num_parallel_calls``).

    Attributes
    ----------
    max_intra_op_parallelism, private_threadpool_size : int
    """

    _fields = {"max_intra_op_parallelism": int, "private_threadpool_size": int}


class Options(OptionsBase):
    """Settings for a whole pipeline (``tf.data.Options``); see the module docstring for their effect.

    Attributes
    ----------
    deterministic : bool
    autotune : AutotuneOptions
    experimental_distribute : DistributeOptions
    experimental_optimization : OptimizationOptions
    threading : ThreadingOptions
    experimental_deterministic, experimental_external_state_policy, experimental_slack,
    experimental_symbolic_checkpoint, experimental_warm_start, dataset_name, framework_type
    """

    _fields = {"autotune": AutotuneOptions, "deterministic": bool, "experimental_deterministic": bool,
               "experimental_distribute": DistributeOptions, "experimental_external_state_policy": ExternalStatePolicy,
               "experimental_optimization": OptimizationOptions, "experimental_slack": bool,
               "experimental_symbolic_checkpoint": bool, "experimental_warm_start": bool, "dataset_name": str,
               "framework_type": list, "threading": ThreadingOptions,
               "experimental_threading": ThreadingOptions}  # fmt: skip


def merge_options(*options_list: OptionsBase) -> OptionsBase:
    """TensorFlow's merge: options set to non-default values are combined, the later one winning.

    Parameters
    ----------
    *options_list : OptionsBase
        Options of one type.

    Returns
    -------
    OptionsBase
        A new, mutable options object.
    """
    if not options_list:
        raise ValueError("At least one options should be provided")
    result_type = type(options_list[0])
    for options in options_list:
        if not isinstance(options, result_type):
            raise TypeError(f"Could not merge incompatible options of type {type(options)} and {result_type}.")
    default, result = result_type(), result_type()
    for options in options_list:
        for name in options.__dict__["_options"]:
            this, that, base = getattr(result, name), getattr(options, name), getattr(default, name)
            if that == base:
                continue
            if this == base:
                setattr(result, name, merge_options(that) if isinstance(that, OptionsBase) else that)
            elif isinstance(this, OptionsBase):
                setattr(result, name, merge_options(this, that))
            elif name == "framework_type":
                setattr(result, name, this + that)
            elif this != that:
                warnings.warn(f"Changing the value of option {name} from {this!r} to {that!r}.", stacklevel=3)
                setattr(result, name, that)
    return result


__all__ = ["AutoShardPolicy", "AutotuneAlgorithm", "AutotuneOptions", "DistributeOptions", "ExternalStatePolicy",
           "OptimizationOptions", "Options", "OptionsBase", "ThreadingOptions", "merge_options"]  # fmt: skip
