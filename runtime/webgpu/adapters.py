"""WebGPU adapters: importing wgpu-py, wgpu's adapters (the preferred one, or one chosen by
index or name), and their limits under the Vulkan names dmlc plans with. Asked without opening a
device (what a compile asks of the selected device: its kind and limits)."""
from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ...errors import DeviceError
from ..limits import Limits
from ..validation_log import new_instance

INSTALL_HINT = "pip install wgpu (dmlc's webgpu extra), and a GPU driver (Vulkan, Metal or D3D12)"
NATIVE = ("Vulkan", "Metal", "D3D12")
"""The APIs wgpu offers WebGPU on in full; its OpenGL backend is "downlevel" (fewer limits and
features), taken only when named."""

_wgpu: Any = None


def import_wgpu() -> Any:
    global _wgpu
    if _wgpu is None:
        try:
            import wgpu
        except ImportError as e:
            raise DeviceError(f"wgpu-py is not installed ({e}): {INSTALL_HINT}") from e
        _wgpu = wgpu
    return _wgpu


@functools.cache
def adapter_list() -> tuple[Any, ...]:
    wgpu = import_wgpu()
    with new_instance():
        return tuple(wgpu.gpu.enumerate_adapters_sync())


def open_adapter(index: int | None) -> Any:
    """A new adapter: wgpu's preferred one (index None), or entry `index` of its list."""
    wgpu = import_wgpu()
    if index is None:
        try:  # wgpu's Vulkan instance, under tools/validation.sh: a log of its own
            with new_instance():
                adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
        except Exception as e:  # no driver at all: wgpu-native's RuntimeError
            raise DeviceError(f"WebGPU finds no adapter ({e}): {INSTALL_HINT}") from e
        if adapter is None:
            raise DeviceError(f"WebGPU finds no adapter: {INSTALL_HINT}")
        if adapter.info["backend_type"] not in NATIVE:
            raise DeviceError(f"WebGPU finds only an {adapter.info['backend_type']} adapter "
                              f"({adapter.info['device']}): wgpu's downlevel backend, which "
                              "dmlc uses only where DMLC_DEVICE or set_device() names it; "
                              f"{INSTALL_HINT}")
        return adapter
    adapters = adapter_list()
    if not 0 <= index < len(adapters):
        raise DeviceError(f"WebGPU adapter {index} does not exist (DMLC_DEVICE or "
                          f"set_device()); this machine has {listed(adapters)}")
    return adapters[index]


def listed(adapters: Sequence[Any]) -> str:
    return "; ".join(f"{i}: {a.info['device']} ({a.info['backend_type']})"
                     for i, a in enumerate(adapters)) or "no WebGPU adapter"


def webgpu_limits(limits: Any) -> Limits:
    """A device's (or adapter's) WebGPU limits under the Vulkan names dmlc plans with. Push
    words travel in a uniform buffer: up to 128 bytes, as Vulkan's guaranteed push constants;
    a binding holds at most the smaller of the binding and the buffer size limits."""
    per_axis = int(limits["max-compute-workgroups-per-dimension"])
    storage = int(limits["max-storage-buffers-per-shader-stage"])
    return Limits(
        maxStorageBufferRange=min(int(limits["max-storage-buffer-binding-size"]),
                                  int(limits["max-buffer-size"])) // 16 * 16,
        maxPushConstantsSize=min(128, int(limits["max-uniform-buffer-binding-size"])),
        maxPerStageDescriptorStorageBuffers=storage, maxDescriptorSetStorageBuffers=storage,
        maxComputeSharedMemorySize=int(limits["max-compute-workgroup-storage-size"]),
        maxComputeWorkGroupCount=(per_axis, per_axis, per_axis),
        maxComputeWorkGroupInvocations=int(limits["max-compute-invocations-per-workgroup"]),
        maxComputeWorkGroupSize=tuple(int(limits[f"max-compute-workgroup-size-{a}"])
                                      for a in "xyz"),  # type: ignore[arg-type]
        source="webgpu")


def _kind(adapter_type: str) -> str | None:
    kind = str(adapter_type).lower()
    return "cpu" if kind == "cpu" else "gpu" if "gpu" in kind else None


@functools.cache
def probed(index: int | None) -> tuple[str, str | None, Limits]:
    """(name, "cpu"/"gpu"/None, Limits) of the adapter `index` would open (asked once)."""
    adapter = open_adapter(index)
    info = adapter.info
    return info["device"], _kind(info["adapter_type"]), adapter_limits(adapter)


def adapter_limits(adapter: Any, limits: Any = None) -> Limits:
    """webgpu_limits of an adapter (or of `limits`, its device's), with the memory heap that
    WebGPU does not tell: on Vulkan, the Vulkan loader's for the device of the same name (a
    tensor larger is refused when made); elsewhere unknown (0)."""
    found = webgpu_limits(adapter.limits if limits is None else limits)
    info = adapter.info
    if info["backend_type"] == "Vulkan":
        from ..limits import probe
        heaps = [lim.deviceLocalHeapSize for name, lim in probe().devices
                 if name == info["device"]]
        if heaps:
            found = replace(found, deviceLocalHeapSize=heaps[0])
    return found


def find_device(device: int | str, field: str) -> int:
    """The index in wgpu's adapter list of a device given by index or piece of a name."""
    if isinstance(device, str) and device.strip().isdigit():
        device = int(device)
    if isinstance(device, bool) or not isinstance(device, (int, str)) or device == "":
        raise DeviceError(f"{field} must be a device index or a piece of a device's name, got "
                          f"{device!r}")
    if isinstance(device, int):
        if device < 0:
            raise DeviceError(f"{field} must be a device index >= 0, got {device}")
        return device
    adapters = adapter_list()
    for i, a in enumerate(adapters):
        if device.lower() in a.info["device"].lower():
            return i
    raise DeviceError(f"{field} = {device!r} names no WebGPU adapter; this machine has "
                      f"{listed(adapters)}")
