"""Which runtime runs dmlc's kernels: the Vulkan backend (Kompute: device.py, executable.py) or
the WebGPU backend (wgpu-py: runtime/webgpu/), behind one API.

The backend is dmlc.set_backend(name)'s (or dmlc.use_backend(name) for a block), else
$DMLC_BACKEND ("vulkan" or "webgpu"), else the available one: Vulkan where kp is installed and
the Vulkan loader lists a device, else WebGPU where wgpu-py is installed and finds an adapter
(asked once per process; neither importing kp nor opening a device to ask). Each backend has
its own device, opened at first use; both may be open at once (a device tensor stays on its
own, and a kernel runs on the device of the backend chosen when it is called). The compiler
reaches the device only through this module's functions (get_device, device_kind, the limits
of the selected device, pool_info, Executable).
"""
from __future__ import annotations

import contextlib
import functools
import importlib.util
import sys
import threading
from collections.abc import Iterator
from typing import Any

from ..environment import env_value
from ..errors import DeviceError
from ..plan import LaunchPlan
from . import device as vulkan
from . import kompute
from .executable import Executable as VulkanExecutable
from .limits import Limits

BACKENDS = ("vulkan", "webgpu")

_chosen: str | None = None
"""set_backend()'s choice (None: $DMLC_BACKEND, else the default)."""
_default: str | None = None
"""The available backend, once asked (per process)."""
_lock = threading.Lock()


def _checked(name: object, field: str) -> str:
    if not isinstance(name, str) or name.strip().lower() not in BACKENDS:
        raise DeviceError(f"{field} must be one of {', '.join(BACKENDS)}, got {name!r}")
    return name.strip().lower()


def requested() -> str | None:
    """The backend asked for: set_backend()'s, else $DMLC_BACKEND's (None: the default)."""
    if _chosen is not None:
        return _chosen
    env = env_value("DMLC_BACKEND")
    return _from_environment(env) if env else None


@functools.lru_cache(maxsize=8)
def _from_environment(env: str) -> str | None:
    return _checked(env, "DMLC_BACKEND") if env.strip() else None


def known() -> str | None:
    """The backend, where it is known without asking the machine (requested, or the default
    asked before): what a compile takes to decide whether to make SPIR-V at once."""
    return requested() or _default


def name() -> str:
    """The backend kernels run on now: requested(), else the available one (every call asks:
    a few hundred nanoseconds)."""
    return _chosen or requested() or _default or default()


def default() -> str:
    """The available backend (module docstring), asked once."""
    global _default
    with _lock:
        if _default is None:
            _default = _available()
        return _default


def _available() -> str:
    if vulkan_problem() is None:
        return "vulkan"
    if webgpu_problem() is None:
        return "webgpu"
    # neither runs here: the backend whose package is installed says why (else Vulkan, whose
    # messages say how to install it)
    has_wgpu = importlib.util.find_spec("wgpu") is not None
    return "webgpu" if kompute.origin() is None and has_wgpu else "vulkan"


def vulkan_problem() -> str | None:
    """Why the Vulkan backend cannot run here (kp missing, no Vulkan device), or None."""
    if kompute.origin() is None:
        return ("the Vulkan binding (kp) is not installed: dmlc's pip install builds it where "
                "the Vulkan SDK is found (docs/install.md)")
    found = vulkan.probe()
    return f"no usable Vulkan device: {found.problem}" if found.problem else None


def webgpu_problem() -> str | None:
    """Why the WebGPU backend cannot run here (wgpu-py missing, no adapter), or None."""
    from .webgpu import device as webgpu
    return webgpu.problem()


def set_backend(backend: str) -> None:
    """Run kernels on `backend` ("vulkan" or "webgpu") from now on (overrides $DMLC_BACKEND).
    Device tensors made before stay on their own backend's device."""
    global _chosen
    _chosen = _checked(backend, "backend")


@contextlib.contextmanager
def use_backend(backend: str) -> Iterator[None]:
    """set_backend() for a block, the previous choice restored after it."""
    global _chosen
    before = _chosen
    set_backend(backend)
    try:
        yield
    finally:
        _chosen = before


def module(backend: str | None = None) -> Any:
    """The device module of `backend` (default: the current one): runtime.device or
    runtime.webgpu.device, which have the same functions."""
    if (backend or name()) == "vulkan":
        return vulkan
    from .webgpu import device as webgpu
    return webgpu


def get_device() -> Any:
    """The current backend's device, opened on first use."""
    return module().get_device()


def set_device(device: int | str) -> None:
    """Choose the current backend's device (its index, or a piece of its name)."""
    module().set_device(device)


def close_device() -> None:
    """Close every open device, of either backend."""
    vulkan.close_device()
    if _webgpu_loaded():
        module("webgpu").close_device()


def synchronize() -> None:
    """Wait for the work submitted to every open device, of either backend (a kernel call on
    device tensors returns once its work is submitted)."""
    vulkan.synchronize()
    if _webgpu_loaded():
        module("webgpu").synchronize()


def pool_info(clear: bool = False) -> dict[str, int] | None:
    """The current backend's buffer pool (pool.py), None with its device not open."""
    return module(known() or "vulkan").pool_info(clear)


def objects_info() -> dict[str, int] | None:
    """What the current backend's open device has made (device.objects_info), or None."""
    return module(known() or "vulkan").objects_info()


def device_kind() -> str | None:
    """"cpu" or "gpu": what the current backend's selected device is, without opening it."""
    return module().device_kind()


def selected_device() -> tuple[str | None, tuple[str, Limits] | None]:
    """(device_kind(), device_limits_of_selected()) in one ask: what every compile asks."""
    return module().selected_device()


def device_limits_of_selected() -> tuple[str, Limits] | None:
    """(name, Limits) of the current backend's selected device, without opening it."""
    return module().device_limits_of_selected()


def timing(backend: str | None = None) -> Any:
    """The bench's timing module of `backend` (default: the current one): runtime.timing or
    runtime.webgpu.timing (time_kernels, time_buffer_copy, RecordedDispatch)."""
    if (backend or name()) == "vulkan":
        from . import timing as vulkan_timing
        return vulkan_timing
    from .webgpu import timing as webgpu_timing
    return webgpu_timing


def Executable(device: Any, plan: LaunchPlan, like: Any = None) -> Any:
    """A launch plan bound to `device` (runtime.executable.Executable for Vulkan,
    runtime.webgpu.executable.Executable for WebGPU); `like`: an executable of the same
    kernels at other sizes (a generic kernel's), which Vulkan's derives this one from."""
    if getattr(device, "backend", "vulkan") == "webgpu":
        from .webgpu.executable import Executable as WebGPUExecutable
        return WebGPUExecutable(device, plan)
    if isinstance(like, VulkanExecutable) and like.device is device:
        return like.at(plan)
    return VulkanExecutable(device, plan)


def _webgpu_loaded() -> bool:
    """Whether the WebGPU backend's device module was imported (else it has no device open):
    a lookup, not a set of every module's name (synchronize() runs once per decode step)."""
    return "dmlc.runtime.webgpu.device" in sys.modules
