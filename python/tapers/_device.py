"""``tapers.device`` (``tf.device``): a context naming where ops should run.

Every tapers op runs on the CPU, so the context changes nothing; what it does
is check the name as TensorFlow does on entering: ``"CPU:0"``, ``"/cpu:0"``,
``"/device:CPU:0"``, ``"/job:localhost/replica:0/task:0/device:CPU:0"`` and
``None`` are accepted; a malformed name raises TensorFlow's ``ValueError``. A
well-formed name of a device the machine lacks (``"GPU:0"``) is accepted and
ops run on the CPU, as TensorFlow's soft device placement does on a machine
without a GPU.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

_VALID_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})


def _parse(spec: str) -> tuple[Any, ...]:
    """TensorFlow's ``DeviceSpec`` parsing: (job, replica, task, device_type, device_index)."""
    job = replica = task = device_type = device_index = None
    for y in (part.split(":") for part in spec.split("/")):
        ly = len(y)
        if ly == 2 and y[0] == "job":
            job = y[1]
        elif ly == 2 and y[0] == "replica":
            replica = y[1]
        elif ly == 2 and y[0] == "task":
            task = y[1]
        elif ly in (1, 2) and y[0].upper() in _VALID_DEVICE_TYPES:
            if device_type is not None:
                raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {spec}.")
            device_type = y[0].upper()
            if ly == 2 and y[1] != "*":
                device_index = int(y[1])
        elif ly == 3 and y[0] == "device":
            if device_type is not None:
                raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {spec}.")
            device_type = y[1]
            if y[2] != "*":
                device_index = int(y[2])
        elif ly and y[0] != "":
            raise ValueError(f"Unknown attribute '{y[0]}' is encountered while parsing the device spec: '{spec}'.")
    return job, replica, task, device_type, device_index


class device:  # noqa: N801 - TensorFlow's name
    """``with tapers.device("CPU:0"): ...``: checks the device name on entry; ops run on the CPU.

    Parameters
    ----------
    device_name : str or None
        A TensorFlow device name (``"CPU:0"``, ``"/device:GPU:0"``, ...) or ``None``.
    """

    def __init__(self, device_name: str | None) -> None:
        self._device_name = device_name

    def __enter__(self) -> None:
        name = self._device_name
        if name is not None:
            if not isinstance(name, str):
                raise ValueError(f"Expecting a string device name. Got {type(name)}({name})")
            _parse(name)

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None
