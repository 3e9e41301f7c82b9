"""What kernels are tuned for: "cpu" (a Vulkan device that is a CPU, such as lavapipe) or "gpu".

A lowering differs by target where its fast design on one is slow on the other: scatter by lines
is a loop per line, fast on a CPU and hundreds of invocations too few for a GPU
(ops/scatter/lower.py). dmlc.compile(target=None) takes $DMLC_TARGET, else what the selected Vulkan
device is (asked of the loader without opening the device), else "gpu".
"""
from __future__ import annotations

import os

from .errors import ValidationError

TARGETS = ("cpu", "gpu")


def resolve(target: str | None) -> str:
    """The target to compile for: `target`, $DMLC_TARGET, or the selected device's kind."""
    field = "target"
    if target is None and os.environ.get("DMLC_TARGET"):
        target, field = os.environ["DMLC_TARGET"], "DMLC_TARGET"
    if target is None:
        return _device_kind() or "gpu"
    if target not in TARGETS:
        raise ValidationError("dmlc.compile", field, " or ".join(TARGETS), repr(target))
    return target


def _device_kind() -> str | None:
    from .errors import DeviceError
    from .runtime.device import device_kind  # the loader only: no kp, no device opened
    try:
        return device_kind()
    except DeviceError:  # a malformed DMLC_DEVICE: opening the device will say so
        return None
