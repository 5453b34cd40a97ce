"""``tapers.config`` (``tf.config``): the devices tapers computes on.

tapers runs every op on the host CPU (its kernels spread large work over the
cores), so there is one physical and one logical device, ``CPU:0``, and lists of
any other device type are empty, exactly what TensorFlow reports on a machine
without accelerators.
"""

from __future__ import annotations

from typing import NamedTuple


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


__all__ = ["LogicalDevice", "PhysicalDevice", "list_logical_devices", "list_physical_devices"]
