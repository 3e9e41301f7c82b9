"""The device limits dmlc must respect, read from Vulkan itself.

kp exposes only the workgroup limits, and lavapipe enforces none of them (PLATFORM.md), so code
that breaks a limit passes here and fails on a real GPU. This module asks the Vulkan loader
directly (ctypes: vkCreateInstance, vkEnumeratePhysicalDevices, vkGetPhysicalDeviceProperties)
for the limits kp hides. Where that fails, it assumes the minimums every Vulkan device
guarantees, which is always safe.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import glob
import json
import os
import struct
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace

from ..errors import DeviceError
from .validation_log import new_instance


@dataclass(frozen=True)
class Limits:
    """VkPhysicalDeviceLimits fields dmlc checks (names as in the Vulkan spec)."""

    maxStorageBufferRange: int
    maxPushConstantsSize: int
    maxPerStageDescriptorStorageBuffers: int
    maxDescriptorSetStorageBuffers: int
    maxComputeSharedMemorySize: int
    maxComputeWorkGroupCount: tuple[int, int, int]
    maxComputeWorkGroupInvocations: int
    maxComputeWorkGroupSize: tuple[int, int, int]
    source: str = "vulkan"
    """'vulkan' (read from the device) or 'guaranteed' (the spec's minimums)."""
    deviceLocalHeapSize: int = 0
    """Bytes of the device's largest DEVICE_LOCAL memory heap (vkGetPhysicalDeviceMemoryProperties;
    not a VkPhysicalDeviceLimits field): no tensor larger fits. 0: unknown."""

    def as_dict(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def launch_problem(self, local_size: int,
                       buffers: Sequence[tuple[str, int]]) -> tuple[str, int, str] | None:
        """The first limit a kernel launch breaks, as (the limit, its value, what the launch
        needs), or None: `buffers` are the (name, bytes) bound to it. Checked at every call
        (a device tensor may be of any size), so nothing is formatted unless one is broken."""
        if local_size > self.maxComputeWorkGroupInvocations:
            return ("maxComputeWorkGroupInvocations", self.maxComputeWorkGroupInvocations,
                    f"a workgroup of {local_size} invocations")
        if local_size > self.maxComputeWorkGroupSize[0]:
            return ("maxComputeWorkGroupSize[0]", self.maxComputeWorkGroupSize[0],
                    f"a workgroup of {local_size} invocations in x")
        for limit in ("maxPerStageDescriptorStorageBuffers", "maxDescriptorSetStorageBuffers"):
            if len(buffers) > getattr(self, limit):
                return limit, getattr(self, limit), f"{len(buffers)} storage buffers"
        for name, size in buffers:
            if size > self.maxStorageBufferRange:
                return ("maxStorageBufferRange", self.maxStorageBufferRange,
                        f"buffer {name} of {size} bytes")
        return None


# Vulkan 1.0's required minimums (the spec's "Required Limits" table).
GUARANTEED = Limits(maxStorageBufferRange=2**27, maxPushConstantsSize=128,
                    maxPerStageDescriptorStorageBuffers=4, maxDescriptorSetStorageBuffers=24,
                    maxComputeSharedMemorySize=16384,
                    maxComputeWorkGroupCount=(65535, 65535, 65535),
                    maxComputeWorkGroupInvocations=128, maxComputeWorkGroupSize=(128, 128, 64),
                    source="guaranteed")

# Byte offsets in VkPhysicalDeviceProperties (x86-64 and every 64-bit ABI Vulkan runs on):
# 5 uint32, char[256] name, uint8[16] UUID, then VkPhysicalDeviceLimits aligned to 8.
_TYPE = 16
_NAME = 20
_LIMITS = 296
CPU_TYPE = 4  # VK_PHYSICAL_DEVICE_TYPE_CPU
_U32 = {  # offsets inside VkPhysicalDeviceLimits
    "maxStorageBufferRange": 28, "maxPushConstantsSize": 32,
    "maxPerStageDescriptorStorageBuffers": 76, "maxDescriptorSetStorageBuffers": 108,
    "maxComputeSharedMemorySize": 216, "maxComputeWorkGroupInvocations": 232,
}
_U32X3 = {"maxComputeWorkGroupCount": 220, "maxComputeWorkGroupSize": 236}
_PROPERTIES_BYTES = 1024  # sizeof(VkPhysicalDeviceProperties) is 824
# VkPhysicalDeviceMemoryProperties: uint32 count, 32 VkMemoryType (8 bytes), uint32 count, then
# 16 VkMemoryHeap (VkDeviceSize size, uint32 flags, padding: 16 bytes) from offset 264.
_MEMORY_BYTES, _HEAPS, _HEAP_COUNT = 1024, 264, 260
_DEVICE_LOCAL = 1


def local_heap(raw: bytes) -> int:
    """The size of the largest DEVICE_LOCAL heap in a VkPhysicalDeviceMemoryProperties."""
    count = min(struct.unpack_from("<I", raw, _HEAP_COUNT)[0], 16)
    heaps = [struct.unpack_from("<QI", raw, _HEAPS + 16 * i) for i in range(count)]
    return max((size for size, flags in heaps if flags & _DEVICE_LOCAL), default=0)


class _AppInfo(ctypes.Structure):
    _fields_ = [("sType", ctypes.c_int), ("pNext", ctypes.c_void_p),
                ("pApplicationName", ctypes.c_char_p), ("applicationVersion", ctypes.c_uint32),
                ("pEngineName", ctypes.c_char_p), ("engineVersion", ctypes.c_uint32),
                ("apiVersion", ctypes.c_uint32)]


class _InstanceInfo(ctypes.Structure):
    _fields_ = [("sType", ctypes.c_int), ("pNext", ctypes.c_void_p), ("flags", ctypes.c_uint32),
                ("pApplicationInfo", ctypes.POINTER(_AppInfo)),
                ("enabledLayerCount", ctypes.c_uint32), ("ppEnabledLayerNames", ctypes.c_void_p),
                ("enabledExtensionCount", ctypes.c_uint32),
                ("ppEnabledExtensionNames", ctypes.c_void_p)]


def parse_properties(raw: bytes) -> tuple[str, Limits]:
    """(deviceName, Limits) from the bytes of a VkPhysicalDeviceProperties."""
    name = raw[_NAME:_NAME + 256].split(b"\0", 1)[0].decode(errors="replace")
    values: dict[str, object] = {
        k: struct.unpack_from("<I", raw, _LIMITS + off)[0] for k, off in _U32.items()}
    values.update({k: struct.unpack_from("<3I", raw, _LIMITS + off) for k, off in _U32X3.items()})
    return name, Limits(**values)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Probe:
    """What the Vulkan loader sees, asked directly (kp aborts the process when there is no
    driver at all, so dmlc asks first)."""

    loader: str | None
    """The loader library opened, or None if there is none."""
    devices: tuple[tuple[str, Limits], ...] = ()
    """(deviceName, Limits) of each physical device, in the loader's (and kp's) order."""
    types: tuple[int, ...] = ()
    """VkPhysicalDeviceType of each device (4: a CPU, such as lavapipe)."""
    problem: str = ""
    """Why no device can be used ("" when there are devices)."""


LOADER_HINT = ("the Vulkan loader: Debian/Ubuntu apt-get install libvulkan1; Fedora dnf install "
               "vulkan-loader; macOS brew install vulkan-loader molten-vk (or the LunarG SDK); "
               "Windows: the GPU driver or the LunarG SDK")
DRIVER_HINT = ("a Vulkan driver: your GPU vendor's; or on the CPU, Mesa's lavapipe (Debian/Ubuntu "
               "apt-get install mesa-vulkan-drivers, Fedora dnf install mesa-vulkan-drivers); "
               "macOS brew install molten-vk; VK_ICD_FILENAMES / VK_DRIVER_FILES select drivers")


PORTABILITY = b"VK_KHR_portability_enumeration"
"""Since loader 1.3.216, a portability driver (MoltenVK) is listed only to an instance that
enables this extension with VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR (kp is built so
too: tools/kp_wheel.py)."""
_ENUMERATE_PORTABILITY = 0x1


def instance_extensions(vk: ctypes.CDLL) -> set[bytes]:
    """The instance extensions the loader offers."""
    count = ctypes.c_uint32(0)
    if vk.vkEnumerateInstanceExtensionProperties(None, ctypes.byref(count), None) != 0:
        return set()
    raw = ctypes.create_string_buffer(260 * count.value)  # VkExtensionProperties: 256 + 4
    if vk.vkEnumerateInstanceExtensionProperties(None, ctypes.byref(count), raw) != 0:
        return set()
    return {raw.raw[260 * i:260 * i + 256].split(b"\0", 1)[0] for i in range(count.value)}


def portability_drivers() -> list[str]:
    """The driver manifests that declare a portability driver (MoltenVK's does)."""
    found = []
    for f in driver_files():
        try:
            with open(f) as fh:
                icd = json.load(fh).get("ICD", {})
        except (OSError, ValueError, AttributeError):
            continue
        if icd.get("is_portability_driver"):
            found.append(f)
    return found


def probe() -> Probe:
    """Open the loader, create an instance (one that lists portability drivers where the loader
    can) and list the physical devices with their limits."""
    path = ctypes.util.find_library("vulkan") or "libvulkan.so.1"
    try:
        vk = ctypes.CDLL(path)
    except OSError as e:
        return Probe(None, problem=f"no Vulkan loader ({e}): {LOADER_HINT}")
    app = _AppInfo(0, None, b"dmlc-limits", 0, b"dmlc", 0, (1 << 22))  # Vulkan 1.0
    portable = PORTABILITY in instance_extensions(vk)
    names = (ctypes.c_char_p * 1)(PORTABILITY)
    info = _InstanceInfo(1, None, _ENUMERATE_PORTABILITY if portable else 0, ctypes.pointer(app),
                         0, None, 1 if portable else 0,
                         ctypes.cast(names, ctypes.c_void_p) if portable else None)
    instance = ctypes.c_void_p()
    with new_instance():
        result = vk.vkCreateInstance(ctypes.byref(info), None, ctypes.byref(instance))
    if result != 0:
        why = "no Vulkan driver found" if result == -9 else f"vkCreateInstance failed ({result})"
        return Probe(path, problem=f"{why}: {_no_driver_hint(portable)}")
    try:
        count = ctypes.c_uint32(0)
        vk.vkEnumeratePhysicalDevices(instance, ctypes.byref(count), None)
        handles = (ctypes.c_void_p * count.value)()
        vk.vkEnumeratePhysicalDevices(instance, ctypes.byref(count), handles)
        devices, types = [], []
        for h in handles[:count.value]:
            raw = ctypes.create_string_buffer(_PROPERTIES_BYTES)
            vk.vkGetPhysicalDeviceProperties(ctypes.c_void_p(h), raw)
            name, limits = parse_properties(raw.raw)
            memory = ctypes.create_string_buffer(_MEMORY_BYTES)
            vk.vkGetPhysicalDeviceMemoryProperties(ctypes.c_void_p(h), memory)
            devices.append((name, replace(limits, deviceLocalHeapSize=local_heap(memory.raw))))
            types.append(struct.unpack_from("<I", raw.raw, _TYPE)[0])
    finally:
        vk.vkDestroyInstance(instance, None)
    if not devices:
        return Probe(path, problem=f"the Vulkan driver reports no devices: "
                                   f"{_no_driver_hint(portable)}")
    return Probe(path, tuple(devices), tuple(types))


def _no_driver_hint(portable: bool) -> str:
    """What to do where no device is listed: a portability driver (MoltenVK) this loader
    cannot list says so (its loader predates VK_KHR_portability_enumeration); else how to get
    a driver, per platform."""
    held = portability_drivers()
    if held and not portable:
        return (f"{', '.join(held)} declare a portability driver (MoltenVK), which only a "
                "loader with VK_KHR_portability_enumeration (1.3.216 or newer) lists: update "
                "the Vulkan loader (macOS: brew upgrade vulkan-loader, or the LunarG SDK)")
    if held:
        return (f"the portability driver(s) {', '.join(held)} were asked for and list no "
                "device: check the driver's library_path and its install")
    return DRIVER_HINT


def driver_files() -> list[str]:
    """The Vulkan driver manifests (ICD JSON files) the loader would consider."""
    chosen = os.environ.get("VK_DRIVER_FILES") or os.environ.get("VK_ICD_FILENAMES")
    if chosen:
        return [f for f in chosen.split(os.pathsep) if f]
    dirs = ["/etc/vulkan/icd.d", "/usr/local/share/vulkan/icd.d", "/usr/share/vulkan/icd.d"]
    return sorted(f for d in dirs for f in glob.glob(os.path.join(d, "*.json")))


def query(index: int) -> tuple[str, Limits] | None:
    """(deviceName, Limits) of physical device `index`, or None if the loader cannot say."""
    found = probe()
    return found.devices[index] if 0 <= index < len(found.devices) else None


def device_limits(found: tuple[str, Limits] | None, name: str,
                  group_count: tuple[int, int, int], group_invocations: int) -> Limits:
    """The limits the loader reported for a device (`found`: its query() entry), cross-checked
    against what kp reported for it (name and workgroup limits): on any disagreement, or with
    nothing found, the guaranteed minimums."""
    if found is None:
        return GUARANTEED
    vk_name, limits = found
    if (vk_name != name or limits.maxComputeWorkGroupCount != tuple(group_count)
            or limits.maxComputeWorkGroupInvocations != group_invocations):
        return GUARANTEED
    return limits


def dispatch_grid(invocations: int, local_size: int,
                  max_groups: Sequence[int]) -> tuple[int, int, int]:
    """A 2-D grid of at least `invocations` invocations within the per-axis group limits
    (kernels linearize the group id, so any shape works)."""
    groups = max(1, -(-invocations // local_size))
    gx = min(groups, max_groups[0])
    gy = -(-groups // gx)
    if gy > max_groups[1]:
        raise DeviceError(f"{invocations} invocations need {gy} workgroups in y, more than "
                          f"this device's maxComputeWorkGroupCount[1] = {max_groups[1]}")
    return gx, gy, 1
