"""Device timings for `dmlc bench --backend webgpu`: an executable's kernels, a buffer copy, a
bare dispatch (runtime/timing.py's twins for the WebGPU backend).

Device time is read from timestamps the command encoder writes before and after the work
(wgpu's timestamp-query-inside-encoders feature, requested where the adapter has it), else it
is the wall time of submitting and waiting.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .adapters import import_wgpu
from .buffers import WgpuTensor
from .device import Device
from .executable import Executable

WGSL_EMPTY = ("@group(0) @binding(0) var<storage, read_write> b: array<u32>;\n"
              "@compute @workgroup_size(64) fn main() {}\n")
"""A shader that does nothing, over one buffer: what a bare dispatch runs."""


def time_work(device: Device, encode: Callable[[Any], None]) -> float:
    """Seconds of device time for the work `encode(encoder)` records (caller holds the
    device)."""
    wgpu = import_wgpu()
    encoder = device.device.create_command_encoder()
    if not device.timestamps:
        encode(encoder)
        t0 = time.perf_counter()
        device.submit(encoder)
        device.wait()
        return time.perf_counter() - t0
    from wgpu.backends.wgpu_native.extras import write_timestamp
    queries = device.device.create_query_set(type="timestamp", count=2)
    resolved = device.device.create_buffer(
        size=16, usage=wgpu.BufferUsage.QUERY_RESOLVE | wgpu.BufferUsage.COPY_SRC)
    write_timestamp(encoder, queries, 0)
    encode(encoder)
    write_timestamp(encoder, queries, 1)
    encoder.resolve_query_set(queries, 0, 2, resolved, 0)
    stamps = WgpuTensor(resolved, 4, np.zeros(4, np.uint32))
    device.submit(encoder, [stamps])
    start, end = stamps.data().view(np.uint64)
    return int(end - start) * 1e-9


def time_kernels(exe: Executable, inputs: Sequence[Any], out: Any) -> float:
    """Seconds of device time for one run of every kernel of `exe` on device tensors (one
    submission, as a call makes it)."""
    with exe.device.use(exe.plan.name), exe.bound(exe.given(inputs, out), host=False) as binding:
        return time_work(exe.device, lambda encoder: binding.encode(exe, encoder))


def time_buffer_copy(device: Device, src: Any, dst: Any) -> float:
    """Seconds copy_buffer_to_buffer takes to copy device tensor `src` to `dst` (one buffer
    each, of the same size)."""
    with device.use("time_buffer_copy"):
        a, b = src.kp_tensor, dst.kp_tensor
        return time_work(device, lambda encoder: encoder.copy_buffer_to_buffer(
            a.buffer, 0, b.buffer, 0, 4 * min(a.words, b.words)))


def wait(device: Device) -> None:
    """Wait for the device's queue (a call returns once its work is submitted)."""
    with device.use("wait"):
        device.wait()


class RecordedDispatch:
    """One workgroup of a shader over one small buffer, its pipeline and bind group made once:
    `run()` encodes and submits it (what every WebGPU dispatch costs at least: a command
    buffer cannot be submitted twice), `run_and_wait()` also waits for it."""

    def __init__(self, device: Device, wgsl: str = WGSL_EMPTY, words: int = 4) -> None:
        with device.use("RecordedDispatch"):
            self._device = device
            self._buffer = device.tensor(np.zeros(words, np.uint32))
            self._pipeline, layout = device.pipeline(wgsl, ("storage",))
            self._group = device.device.create_bind_group(layout=layout, entries=[
                {"binding": 0, "resource": {"buffer": self._buffer.buffer, "offset": 0,
                                            "size": 4 * words}}])

    def run(self) -> None:
        encoder = self._device.device.create_command_encoder()
        compute = encoder.begin_compute_pass()
        compute.set_pipeline(self._pipeline)
        compute.set_bind_group(0, self._group)
        compute.dispatch_workgroups(1, 1, 1)
        compute.end()
        self._device.queue.submit([encoder.finish()])

    def run_and_wait(self) -> None:
        self.run()
        self._device.wait()
