"""The WebGPU device (through wgpu-py): choosing an adapter, its limits, its lock, its buffer
pool, pipelines, uploads and read-backs.

One device per process for this backend, opened at first use: the adapter wgpu-py prefers
(power_preference "high-performance"), or the one set_device(index or piece of a name) or
$DMLC_DEVICE picks from wgpu's list of adapters (`dmlc info` shows it). Its limits, as
WebGPU names them, are mapped onto the Vulkan names dmlc plans with (runtime/limits.py's
Limits, then dmlc.plan.PlanLimits), and every launch is checked against them. wgpu-py 0.32
traps this module works around (WEBGPU.md in the design notes):
- queue.on_submitted_work_done_sync() raises TypeError: a read-back waits by mapping a buffer
  (map_async("READ_NOSYNC"), as wgpu-py's own queue.read_buffer does);
- push constants: WGSL text has no immediates yet, so a generic kernel's push words are a
  uniform buffer (codegen/wgsl.py), made once per distinct words and kept.
"""
from __future__ import annotations

import collections
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...errors import DeviceError
from ...plan import PlanLimits
from ..held import Held
from ..limits import Limits, dispatch_grid
from ..plan_buffers import SharedKernels
from ..pool import BufferPool
from .adapters import adapter_limits, find_device, import_wgpu, open_adapter, probed
from .buffers import WgpuTensor

STAGING_KEPT = 1 << 20
"""Read-back buffers up to this size are kept for the next read-back (status words, small
outputs); larger ones are made for one read-back each."""
PIPELINES = 256
"""Compute pipelines kept per device (by WGSL and binding types), least recently used out."""

WEBGPU_LIMITS = {"maxComputeWorkGroupInvocations": "maxComputeInvocationsPerWorkgroup",
                 "maxComputeWorkGroupSize[0]": "maxComputeWorkgroupSizeX",
                 "maxPerStageDescriptorStorageBuffers": "maxStorageBuffersPerShaderStage",
                 "maxDescriptorSetStorageBuffers": "maxStorageBuffersPerShaderStage",
                 "maxStorageBufferRange": "maxStorageBufferBindingSize"}
"""WebGPU's names for the limits dmlc checks (Limits: Vulkan's names; adapters.py)."""

_device: Device | None = None
_device_index: int | None = None
_lock = threading.Lock()


def problem() -> str | None:
    """Why this backend cannot run here (wgpu-py missing, no adapter), or None."""
    try:
        probed(selected_index())
    except DeviceError as e:
        return str(e)
    return None


def selected_index() -> int | None:
    """set_device()'s adapter, else $DMLC_DEVICE's, else None (wgpu's preferred one)."""
    if _device_index is not None:
        return _device_index
    env = os.environ.get("DMLC_DEVICE", "")
    return find_device(env, "DMLC_DEVICE") if env else None


def set_device(device: int | str) -> None:
    """Choose the WebGPU adapter before first use: an index into wgpu's list of adapters, or a
    piece of an adapter's name. Overrides $DMLC_DEVICE."""
    global _device_index
    index = find_device(device, "set_device()")
    with _lock:
        if _device is not None and not _device.closed and _device.index != index:
            raise DeviceError(f"device {_device.index} ({_device.name}) is already in use; "
                              "set_device() must come before the first operator call")
        _device_index = index


def get_device() -> Device:
    global _device
    with _lock:
        if _device is None or _device.closed:
            _device = Device(selected_index())
        return _device


def synchronize() -> None:
    """Wait until the open device has run everything submitted (none open: nothing)."""
    with _lock:
        device = _device
    if device is not None and not device.closed:
        device.wait()


def close_device() -> None:
    global _device
    with _lock:
        if _device is not None:
            _device.close()
        _device = None


def pool_info(clear: bool = False) -> dict[str, int] | None:
    with _lock:
        if _device is None or _device.closed:
            return None
        with _device.use("dmlc.cache_info"):
            if clear:
                _device.pool.clear()
            return _device.pool.info()


def objects_info() -> dict[str, int] | None:
    """What the open device has made since it opened (None with none open): buffers
    ("tensors"), compute pipelines and bind groups."""
    with _lock:
        if _device is None or _device.closed:
            return None
        return {k: _device.created[k] for k in ("tensors", "pipelines", "bind_groups")}


def device_kind() -> str | None:
    """"cpu" or "gpu" (the adapter's type), asked without opening a device."""
    return selected_device()[0]


def selected_device() -> tuple[str | None, tuple[str, Limits] | None]:
    """(device_kind(), device_limits_of_selected()) in one ask."""
    try:
        name, kind, limits = probed(selected_index())
    except DeviceError:
        return None, None
    return kind, (name, limits)


def device_limits_of_selected() -> tuple[str, Limits] | None:
    return selected_device()[1]


class Device:
    """A wgpu device on one adapter, with the limits dmlc must respect."""

    backend = "webgpu"
    kind_name = "WebGPU"
    """How errors name it."""

    def __init__(self, index: int | None = None) -> None:
        wgpu = import_wgpu()
        adapter = open_adapter(index)
        features = [f for f in ("timestamp-query", "timestamp-query-inside-encoders")
                    if f in adapter.features]  # the bench's device times (timing.py)
        try:
            self.device = adapter.request_device_sync(required_features=features)
        except Exception as e:
            raise DeviceError(f"cannot open the WebGPU device: {e}") from e
        info = adapter.info
        self.index = index if index is not None else 0
        self.name: str = info["device"]
        self.adapter_info = {k: info[k] for k in ("vendor", "device", "description",
                                                  "adapter_type", "backend_type")}
        self.limits = adapter_limits(adapter, self.device.limits)
        self.plan_limits = PlanLimits.of(self.limits, self.name)
        self.max_group_count = self.limits.maxComputeWorkGroupCount
        self.max_group_invocations = self.limits.maxComputeWorkGroupInvocations
        self.max_buffer_size = int(self.device.limits["max-buffer-size"])
        self.wgpu_version = (f"wgpu-py {wgpu.__version__} (wgpu-native "
                             f"{wgpu.backends.wgpu_native.__version__})")
        self.timestamps = {"timestamp-query", "timestamp-query-inside-encoders"} <= set(
            self.device.features)
        self.queue = self.device.queue
        self.usage = (wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC
                      | wgpu.BufferUsage.COPY_DST)
        self.closed = False
        self._lock = threading.RLock()
        self.created: collections.Counter[str] = collections.Counter()
        self.kernels = SharedKernels()
        """Bindings and status buffers per kernel code (plan_buffers.py)."""
        self._pipelines: collections.OrderedDict[tuple[str, tuple[str, ...]], Any] = \
            collections.OrderedDict()
        self._uniforms: dict[tuple[int, ...], Any] = {}
        self._staged: list[Any] = []
        """Small mappable buffers of earlier read-backs, for the next ones."""
        self.pool = BufferPool(self)

    def use(self, what: str) -> Held:
        """Hold the device for one piece of work on it, or raise if it was closed."""
        return Held(self, what)

    def tensor(self, words: np.ndarray) -> WgpuTensor:
        """A buffer holding `words` (uint32), whose host copy is that array."""
        self.created["tensors"] += 1
        n = max(int(words.size), 1)
        self.check_size("a buffer", 4 * n)
        buffer = self.device.create_buffer(size=4 * n, usage=self.usage)
        t = WgpuTensor(buffer, n, words)
        if words.any():  # a new buffer is zeros already
            self.upload(t)
        return t

    def sync(self, tensor: WgpuTensor, direction: str) -> None:
        """Upload a tensor's host copy ("up") or read its buffer back ("down")."""
        if direction == "up":
            self.upload(tensor)
        else:
            self.download([tensor])

    rebinds = False
    """WebGPU binds buffers per bind group: a new buffer set makes a bind group (cheap)."""

    def upload(self, t: WgpuTensor) -> None:
        self.queue.write_buffer(t.buffer, 0, t.data())

    def download(self, tensors: Sequence[WgpuTensor]) -> None:
        """Read the tensors' buffers back into their host copies (waits for the queue)."""
        self.submit(self.device.create_command_encoder(), tensors)

    def submit(self, encoder: Any, reads: Sequence[WgpuTensor] = ()) -> None:
        """Submit the encoder's work; with `reads`, copy their buffers after it to a mappable
        buffer, and wait for them to land in their host copies. Without, nothing waits: the
        queue orders later work and read-backs after this."""
        if not reads:
            self.queue.submit([encoder.finish()])
            return
        total = sum(4 * t.words for t in reads)
        staging = self._staging(total)
        at = 0
        for t in reads:
            encoder.copy_buffer_to_buffer(t.buffer, 0, staging, at, 4 * t.words)
            at += 4 * t.words
        self.queue.submit([encoder.finish()])
        # wait here, then map: mapping while the queue runs leaves the wait to wgpu-py's poll
        # thread, 5 times slower on lavapipe (300 us against 55 us for a few words)
        self.wait()
        try:
            promise = staging.map_async("READ_NOSYNC", 0, total)
            self.wait()
            promise.sync_wait()
            raw = np.frombuffer(staging.read_mapped(0, total, copy=False), np.uint32)
            at = 0
            for t in reads:
                t.data()[:] = raw[at:at + t.words]
                at += t.words
            staging.unmap()
        except BaseException:
            staging.destroy()
            raise
        if staging.size > STAGING_KEPT:
            staging.destroy()
        else:
            self._staged.append(staging)

    def _staging(self, nbytes: int) -> Any:
        """A mappable buffer of at least `nbytes` for a read-back: a small one kept from before
        (the last STAGING_KEPT bytes' worth), else a new one."""
        for i, b in enumerate(self._staged):
            if b.size >= nbytes:
                return self._staged.pop(i)
        wgpu = import_wgpu()
        size = max(256, 1 << (nbytes - 1).bit_length()) if nbytes <= STAGING_KEPT else nbytes
        if len(self._staged) >= 8:
            self._staged.pop(0).destroy()
        return self.device.create_buffer(
            size=size, usage=wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST)

    def before_staging(self) -> None:
        """Before the host writes a staged input's host copy (as the Vulkan device's)."""
        self.wait()

    def wait(self) -> None:
        """Wait until the queue has run everything submitted."""
        self.device._poll_wait()  # wgpuDevicePoll(wait=True); on_submitted_work_done_sync fails

    def pipeline(self, wgsl: str, types: tuple[str, ...]) -> tuple[Any, Any]:
        """(compute pipeline, bind group layout) of a WGSL kernel, explicit layout from its
        binding types; made once per device."""
        key = (wgsl, types)
        found = self._pipelines.get(key)
        if found is not None:
            self._pipelines.move_to_end(key)
            return found
        wgpu = import_wgpu()
        self.created["pipelines"] += 1
        try:
            module = self.device.create_shader_module(code=wgsl)
            layout = self.device.create_bind_group_layout(entries=[
                {"binding": i, "visibility": wgpu.ShaderStage.COMPUTE, "buffer": {"type": t}}
                for i, t in enumerate(types)])
            pipeline = self.device.create_compute_pipeline(
                layout=self.device.create_pipeline_layout(bind_group_layouts=[layout]),
                compute={"module": module, "entry_point": "main"})
        except Exception as e:  # naga's refusal: a codegen bug
            raise DeviceError(f"WebGPU refused a kernel ({type(e).__name__}): {e}") from e
        found = self._pipelines[key] = (pipeline, layout)
        if len(self._pipelines) > PIPELINES:
            self._pipelines.popitem(last=False)
        return found

    def bind_group(self, layout: Any, entries: list[dict[str, Any]]) -> Any:
        """A bind group of a pipeline's layout (every one dmlc makes is made here: tests see
        what each kernel binds)."""
        self.created["bind_groups"] += 1
        return self.device.create_bind_group(layout=layout, entries=entries)

    def uniform(self, words: tuple[int, ...]) -> Any:
        """A uniform buffer holding push words (padded to whole vec4s), made once per words."""
        found = self._uniforms.get(words)
        if found is None:
            wgpu = import_wgpu()
            data = np.zeros(max(4, -(-len(words) // 4) * 4), np.uint32)
            data[:len(words)] = words
            found = self._uniforms[words] = self.device.create_buffer_with_data(
                data=data.tobytes(), usage=wgpu.BufferUsage.UNIFORM)
            if len(self._uniforms) > 4 * PIPELINES:
                self._uniforms.pop(next(iter(self._uniforms)))
        return found

    def close(self) -> None:
        with self._lock:
            if not self.closed:
                self.closed = True
                self._pipelines.clear()
                self._uniforms.clear()
                self._staged.clear()
                self.device.destroy()

    def info(self) -> dict[str, object]:
        return {"index": self.index, "name": self.name, "backend": "webgpu",
                "adapter": self.adapter_info,
                "max_work_group_count": self.max_group_count,
                "max_work_group_invocations": self.max_group_invocations,
                "max_buffer_size": self.max_buffer_size,
                "timestamps_supported": self.timestamps, "limits": self.limits.as_dict()}

    def check_size(self, what: str | Callable[[], str], nbytes: int) -> None:
        """Refuse a buffer larger than maxBufferSize; `what` may be made only then."""
        if nbytes > self.max_buffer_size:
            what = what() if callable(what) else what
            raise DeviceError(f"{what} needs {nbytes} bytes; this WebGPU device's buffers hold "
                              f"at most {self.max_buffer_size} (maxBufferSize; {self.name})")

    def check_launch(self, what: str, local_size: int, buffers: Sequence[tuple[str, int]]) -> None:
        """Refuse a kernel launch that breaks a limit of this device, named as dmlc's limits
        are (Vulkan's names) with WebGPU's beside."""
        problem = self.limits.launch_problem(local_size, buffers)
        if problem is not None:
            limit, allowed, needs = problem
            raise DeviceError(f"{what}: needs {needs}, more than this device's {limit} = "
                              f"{allowed} (WebGPU's {WEBGPU_LIMITS[limit]}; {self.name})")

    def grid(self, invocations: int, local_size: int) -> tuple[int, int, int]:
        return dispatch_grid(invocations, local_size, self.max_group_count)
