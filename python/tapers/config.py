"""``tapers.config`` (``tf.config``): the devices tapers computes on, and whether
``tapers.function`` runs eagerly.

tapers runs every op on the host CPU (its kernels spread large work over the
cores), so there is one physical and one logical device, ``CPU:0``, and lists of
any other device type are empty, exactly what TensorFlow reports on a machine
without accelerators.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Union

from . import _core


class PhysicalDevice(NamedTuple):
    """A device of the machine (``tf.config.PhysicalDevice``).

    Attributes
    ----------
    name : str
        ``/physical_device:CPU:0``.
    device_type : str
        ``CPU``.
    """

    name: str
    device_type: str


class LogicalDevice(NamedTuple):
    """A device ops can be placed on (``tf.config.LogicalDevice``).

    Attributes
    ----------
    name : str
        ``/device:CPU:0``.
    device_type : str
        ``CPU``.
    """

    name: str
    device_type: str


def _matches(device_type: str | None) -> bool:
    return device_type is None or device_type.upper() == "CPU"


def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The machine's devices of a type (``tf.config.list_physical_devices``).

    Parameters
    ----------
    device_type : str, optional
        ``"CPU"``, ``"GPU"``, ... (any case); ``None`` for all.

    Returns
    -------
    list of PhysicalDevice
        ``[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]`` for ``None``
        or ``"CPU"``; ``[]`` for any other type.
    """
    return [PhysicalDevice("/physical_device:CPU:0", "CPU")] if _matches(device_type) else []


def list_logical_devices(device_type: str | None = None) -> list[LogicalDevice]:
    """The devices ops can run on, of a type (``tf.config.list_logical_devices``).

    Parameters
    ----------
    device_type : str, optional
        ``"CPU"``, ``"GPU"``, ... (any case); ``None`` for all.

    Returns
    -------
    list of LogicalDevice
        ``[LogicalDevice(name='/device:CPU:0', device_type='CPU')]`` for ``None`` or
        ``"CPU"``; ``[]`` otherwise.
    """
    return [LogicalDevice("/device:CPU:0", "CPU")] if _matches(device_type) else []


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Makes every ``tapers.function`` call run its Python function eagerly (no trace, no
    graph; for debugging), or go back to tracing (``tf.config.run_functions_eagerly``).

    Parameters
    ----------
    run_eagerly : bool
        Whether functions run eagerly.

    Returns
    -------
    None
    """
    _core._set_run_functions_eagerly(bool(run_eagerly))


def functions_run_eagerly() -> bool:
    """Whether ``run_functions_eagerly(True)`` is in effect (``tf.config.functions_run_eagerly``).

    Returns
    -------
    bool
    """
    return _core._run_functions_eagerly()


def experimental_run_functions_eagerly(run_eagerly: bool) -> None:
    """The deprecated name of ``run_functions_eagerly`` (``tf.config.experimental_run_functions_eagerly``).

    Parameters
    ----------
    run_eagerly : bool
        Whether functions run eagerly.

    Returns
    -------
    None
    """
    run_functions_eagerly(run_eagerly)


def experimental_functions_run_eagerly() -> bool:
    """The deprecated name of ``functions_run_eagerly`` (``tf.config.experimental_functions_run_eagerly``).

    Returns
    -------
    bool
        Whether ``run_functions_eagerly(True)`` is in effect.
    """
    return functions_run_eagerly()


_CPU_PHYSICAL = PhysicalDevice("/physical_device:CPU:0", "CPU")


def _physical(device: Any) -> PhysicalDevice:
    if isinstance(device, PhysicalDevice) and device == _CPU_PHYSICAL:
        return device
    if isinstance(device, tuple) and tuple(device) == tuple(_CPU_PHYSICAL):
        return _CPU_PHYSICAL
    raise ValueError(f"Unrecognized device: {device!r}")


def get_visible_devices(device_type: Optional[str] = None) -> list[PhysicalDevice]:
    """The physical devices ops may run on (``tf.config.get_visible_devices``).

    Parameters
    ----------
    device_type : str, optional
        ``"CPU"``, ``"GPU"``, ... (any case); ``None`` for all.

    Returns
    -------
    list of PhysicalDevice
        The host CPU for ``None`` or ``"CPU"`` (tapers' only device, always visible); ``[]`` otherwise.
    """
    return list_physical_devices(device_type)


def set_visible_devices(devices: Any, device_type: Optional[str] = None) -> None:
    """Chooses the physical devices ops may run on (``tf.config.set_visible_devices``).

    tapers has one device, the host CPU, and it must stay visible: any list that keeps it
    (or an empty list of a type tapers has no devices of, such as ``[]`` for ``"GPU"``) is
    accepted and changes nothing.

    Parameters
    ----------
    devices : PhysicalDevice or list of PhysicalDevice
        The devices to keep visible (those of ``device_type`` when it is given).
    device_type : str, optional
        Restricts the change to devices of this type.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        For a device that is not one of ``list_physical_devices()``, or a call that would
        hide the CPU (TensorFlow accepts it, then fails at its first op with
        ``NotFoundError: No CPU devices are available in this process``).
    """
    chosen = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    for d in chosen:
        _physical(d)
    if _matches(device_type) and not chosen:
        raise ValueError(
            "tapers cannot hide its only device /physical_device:CPU:0: every op runs on the host CPU "
            f"(set_visible_devices([], device_type={device_type!r}))"
        )


class LogicalDeviceConfiguration(NamedTuple):
    """How one logical device is carved out of a physical one (``tf.config.LogicalDeviceConfiguration``).

    Attributes
    ----------
    memory_limit : int, optional
        Megabytes the logical device may allocate (TensorFlow allows it on GPUs only).
    experimental_priority : int, optional
        Stream priority (GPUs only).
    experimental_device_ordinal : int, optional
        Ordering of the logical devices (GPUs only).
    """

    memory_limit: Optional[int] = None
    experimental_priority: Optional[int] = None
    experimental_device_ordinal: Optional[int] = None


_logical_config: Optional[list[LogicalDeviceConfiguration]] = None


def set_logical_device_configuration(device: Any, logical_devices: Any) -> None:
    """Sets the logical devices of a physical device (``tf.config.set_logical_device_configuration``).

    tapers runs everything on one logical CPU, so it accepts exactly the configuration that
    describes it: one ``LogicalDeviceConfiguration()`` (no memory limit) for the CPU; the
    call is recorded and ``get_logical_device_configuration`` returns it.

    Parameters
    ----------
    device : PhysicalDevice
        ``list_physical_devices("CPU")[0]``.
    logical_devices : list of LogicalDeviceConfiguration
        One configuration with every field ``None``.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        For an unknown device, a CPU memory limit (TensorFlow's message), or a configuration
        of zero or several logical devices (TensorFlow would split the CPU into several;
        tapers has one).
    """
    global _logical_config
    _physical(device)
    configs = list(logical_devices)
    for c in configs:
        if not isinstance(c, LogicalDeviceConfiguration):
            raise ValueError(f"Expected a LogicalDeviceConfiguration, got {type(c).__name__}: {c!r}")
        if c.memory_limit is not None:
            raise ValueError("Setting memory limit on CPU virtual devices is currently not supported")
        if c.experimental_priority is not None:
            raise ValueError("Setting experimental_priority on CPU virtual devices is currently not supported")
        if c.experimental_device_ordinal is not None:
            raise ValueError("Setting experimental_device_ordinal on CPU virtual devices is currently not supported")
    if len(configs) != 1:
        raise ValueError(
            f"tapers has exactly one logical CPU device; got a configuration of {len(configs)} logical devices "
            "(splitting the CPU into several logical devices is not supported)"
        )
    _logical_config = configs


def get_logical_device_configuration(device: Any) -> Optional[list[LogicalDeviceConfiguration]]:
    """The configuration set with ``set_logical_device_configuration`` (``tf.config.get_logical_device_configuration``).

    Parameters
    ----------
    device : PhysicalDevice
        ``list_physical_devices("CPU")[0]``.

    Returns
    -------
    list of LogicalDeviceConfiguration or None
        ``None`` until one was set.

    Raises
    ------
    ValueError
        For a device that is not one of ``list_physical_devices()``.
    """
    _physical(device)
    return None if _logical_config is None else list(_logical_config)


_soft_placement = True


def set_soft_device_placement(enabled: bool) -> None:
    """Records whether ops may fall back to another device (``tf.config.set_soft_device_placement``).

    Every tapers op runs on the CPU, which has every kernel, so the setting has no effect;
    ``get_soft_device_placement`` returns it.

    Parameters
    ----------
    enabled : bool
        TensorFlow's soft-placement switch.

    Returns
    -------
    None
    """
    global _soft_placement
    _soft_placement = bool(enabled)


def get_soft_device_placement() -> bool:
    """The value set with ``set_soft_device_placement`` (``True`` by default, as in TensorFlow).

    Returns
    -------
    bool
        Whether soft device placement is recorded as on.
    """
    return _soft_placement


class _Optimizer:
    """``tf.config.optimizer``: Grappler and XLA switches. tapers has neither a graph rewriter nor
    XLA, so the switches are recorded and returned and have no effect on how ops run."""

    _options: dict[str, Any] = {}
    _jit: Union[bool, str] = False

    @classmethod
    def set_experimental_options(cls, options: dict[str, Any]) -> None:
        """Records Grappler options (``tf.config.optimizer.set_experimental_options``); no effect in tapers.

        Parameters
        ----------
        options : dict
            Option names (``"layout_optimizer"``, ``"constant_folding"``, ...) to values; merged
            into those recorded before.

        Returns
        -------
        None
        """
        if not isinstance(options, dict):
            raise TypeError(f"options must be a dict, got {type(options).__name__}")
        cls._options.update(options)

    @classmethod
    def get_experimental_options(cls) -> dict[str, Any]:
        """The recorded options (``tf.config.optimizer.get_experimental_options``).

        Returns
        -------
        dict
            The options set, plus TensorFlow's defaults ``disable_model_pruning`` and
            ``disable_meta_optimizer`` (``False``).
        """
        out = dict(cls._options)
        out.setdefault("disable_model_pruning", False)
        out.setdefault("disable_meta_optimizer", False)
        return out

    @classmethod
    def set_jit(cls, enabled: Union[bool, str]) -> None:
        """Records whether XLA auto-clustering is on (``tf.config.optimizer.set_jit``); tapers has no
        XLA, so it has no effect.

        Parameters
        ----------
        enabled : bool or str
            ``True`` or ``"autoclustering"`` to turn it on; ``False`` to turn it off.

        Returns
        -------
        None
        """
        cls._jit = enabled

    @classmethod
    def get_jit(cls) -> str:
        """The recorded JIT setting (``tf.config.optimizer.get_jit``).

        Returns
        -------
        str
            ``"autoclustering"`` when on, ``""`` when off (TensorFlow's values).
        """
        return "autoclustering" if cls._jit is True or cls._jit == "autoclustering" else ""


optimizer = _Optimizer()


class _Threading:
    """``tf.config.threading``: the kernels' thread pool (intra-op) and, accepted with no
    effect, the inter-op count (tapers runs each op on the calling thread)."""

    _inter_op = 0

    @staticmethod
    def set_intra_op_parallelism_threads(num_threads: int) -> None:
        """Sizes the pool the kernels split large work over (0: one thread per core, or
        ``RAYON_NUM_THREADS``). Only before the pool first runs: afterwards another
        size raises TensorFlow's ``RuntimeError``.

        Parameters
        ----------
        num_threads : int
            Threads of the pool.

        Returns
        -------
        None
        """
        _core._set_intra_op_threads(int(num_threads))

    @staticmethod
    def get_intra_op_parallelism_threads() -> int:
        """The count set with ``set_intra_op_parallelism_threads`` (0 when not set).

        Returns
        -------
        int
        """
        return _core._intra_op_threads()

    @classmethod
    def set_inter_op_parallelism_threads(cls, num_threads: int) -> None:
        """Records the count (TensorFlow's pool of ops run side by side); tapers runs
        each op on the calling thread, so it has no effect.

        Parameters
        ----------
        num_threads : int
            Threads TensorFlow would run independent ops on.

        Returns
        -------
        None
        """
        cls._inter_op = int(num_threads)

    @classmethod
    def get_inter_op_parallelism_threads(cls) -> int:
        """The count set with ``set_inter_op_parallelism_threads`` (0 when not set).

        Returns
        -------
        int
        """
        return cls._inter_op


threading = _Threading()

__all__ = [
    "LogicalDevice",
    "PhysicalDevice",
    "functions_run_eagerly",
    "list_logical_devices",
    "list_physical_devices",
    "run_functions_eagerly",
    "threading",
    "LogicalDeviceConfiguration",
    "experimental_functions_run_eagerly",
    "experimental_run_functions_eagerly",
    "get_logical_device_configuration",
    "get_soft_device_placement",
    "get_visible_devices",
    "optimizer",
    "set_logical_device_configuration",
    "set_soft_device_placement",
    "set_visible_devices",
]
