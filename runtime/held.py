"""Holding a device for one piece of work (`with device.use(what):`), as a small object rather
than a generator-based context manager: every call takes the device a few times, and
contextlib's costs several microseconds each time."""
from __future__ import annotations

from typing import Any

from ..errors import DeviceError


class Held:
    """The device's lock held while the block runs; entering raises DeviceError where the
    device was closed (its objects must never be touched again: a use is a SIGSEGV)."""

    __slots__ = ("device", "what")

    def __init__(self, device: Any, what: str) -> None:
        self.device, self.what = device, what

    def __enter__(self) -> Any:
        device = self.device
        device._lock.acquire()
        if device.closed:
            device._lock.release()
            raise DeviceError(f"{self.what}: the {device.kind_name} device {device.name!r} was "
                              "closed (dmlc.close_device()); make new device tensors with "
                              "dmlc.to_device()")
        return device

    def __exit__(self, *exc: object) -> None:
        self.device._lock.release()
