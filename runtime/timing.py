"""Device timings for `dmlc bench`: an executable's kernels, a buffer copy, a bare dispatch.

The bench compares dmlc's kernels with references moving the same bytes on the same device. The
kp work that takes lives here, so that kp stays inside the runtime and every Vulkan object is
made through the Device (and counted in Device.created like any other).
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from .device import Device, _import_kp
from .executable import Executable, copy_runs_op


def time_op(device: Device, op: Any) -> float:
    """Seconds one kp operation takes on the device, in a sequence of its own: Vulkan
    timestamps where the device has them, else the wall time of the eval (caller holds the
    device)."""
    device.wait()
    if device.timestamps:
        seq = device.sequence(timestamps=2)
        seq.record(op)
        seq.eval()
        start, end = seq.get_timestamps()[:2]
        return (end - start) * 1e-9
    seq = device.sequence()
    seq.record(op)
    t0 = time.perf_counter()
    seq.eval()
    return time.perf_counter() - t0


def time_kernels(exe: Executable, inputs: Sequence[Any], out: Any) -> float:
    """Seconds of device time for one run of every kernel of `exe` on device tensors (no
    transfers), each kernel timed in a sequence of its own; an executable that runs its plan as
    copies of runs (Executable.copies), that one copy."""
    kp = _import_kp()
    with exe.device.use(exe.plan.name), exe.bound(exe.given(inputs, out), host=False) as binding:
        if exe.copies:
            return time_op(exe.device, copy_runs_op(exe.plan, binding.tensors))
        return sum(time_op(exe.device, kp.OpAlgoDispatch(a)) for a in binding.algorithms)


def time_buffer_copy(device: Device, src: Any, dst: Any) -> float:
    """Seconds vkCmdCopyBuffer (kp's OpTensorCopy) takes to copy device tensor `src` to `dst`
    (of the same size)."""
    kp = _import_kp()
    with device.use("time_buffer_copy"):
        return time_op(device, kp.OpTensorCopy([src.kp_tensor, dst.kp_tensor]))


class RecordedDispatch:
    """One workgroup of a shader over one small buffer, recorded once: `run()` is the bare cost
    of evaluating a pre-recorded dispatch, which a kernel call is measured against. Evaluated
    without the device's lock, like a bare kp call."""

    def __init__(self, device: Device, spirv: bytes, words: int = 4) -> None:
        kp = _import_kp()
        with device.use("RecordedDispatch"):
            self._slot = device.tensor(np.zeros(words, np.uint32))
            self._algorithm = device.algorithm([self._slot], spirv, (1, 1, 1))
            self._sequence = device.sequence()
            self._sequence.record(kp.OpAlgoDispatch(self._algorithm))
        self.run = self._sequence.eval
