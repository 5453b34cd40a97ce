"""``tapers.config`` (``tf.config``): the devices tapers computes on, and whether
``tapers.function`` runs eagerly.

tapers runs every op on the host CPU (its kernels spread large work over the
cores), so there is one physical and one logical device, ``CPU:0``, and lists of
any other device type are empty, exactly what TensorFlow reports on a machine
without accelerators.
"""

from __future__ import annotations

from typing import NamedTuple

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
]
