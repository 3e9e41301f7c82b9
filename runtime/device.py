"""The Vulkan device (through kp): opening it, its limits, its lock, its buffer pool.

One device per process, chosen by `set_device(index or name)` before first use or by the
environment variable DMLC_DEVICE (an index, or a piece of a device's name; default 0). kp traps
this module works around (PLATFORM.md):
- `import kp` calls logging.basicConfig(); the root logger's handlers are restored afterwards.
- Constants given as lists become float32: spec and push constants go as empty uint32 arrays.
- No barrier between dispatches in one sequence, and an algorithm bound to fixed tensors: see
  executable.py.
- lavapipe ignores limits: the dispatch grid is 2-D within the device's per-axis group limit,
  and every launch is checked against the limits read from Vulkan (limits.py).
- A destroyed tensor or manager used again is a SIGSEGV: all work goes through Device.use(),
  which refuses a closed device, and released tensors refuse before that.
- A new tensor, algorithm or sequence per call grows kp's bookkeeping: buffers are views of a
  few arenas (arena.py), a kernel's algorithms are bound again to other buffers and sizes
  (plan_buffers.py), and sequences are recorded again (dmlc's patch to kp: tools/kompute.py).
"""
from __future__ import annotations

import atexit
import collections
import functools
import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..environment import env_value
from ..errors import DeviceError
from ..plan import PlanLimits
from . import kompute
from .arena import ArenaPool
from .held import Held
from .limits import CPU_TYPE, Limits, device_limits, dispatch_grid, probe
from .plan_buffers import SharedKernels
from .pool import BufferPool
from .submissions import Submissions
from .validation_log import new_instance

MAX_TENSOR_BYTES = 2**32 - 4  # kp computes byte sizes in uint32
def check_kp_size(what: str | Callable[[], str], nbytes: int) -> None:
    """kp computes a tensor's byte size in uint32: refuse what would wrap (a crash, or a
    "zero-sized buffer"). `what` may be made only then (a call's tensors ask on the hot path)."""
    if nbytes > MAX_TENSOR_BYTES:
        what = what() if callable(what) else what
        raise DeviceError(f"{what} needs {nbytes} bytes; Kompute tensors hold at most "
                          f"{MAX_TENSOR_BYTES}")


INSTALL_HINT = ("install a Vulkan driver and loader: on Debian `apt-get install "
                "mesa-vulkan-drivers libvulkan1` (lavapipe runs on the CPU), or run `make install`")

_kp: Any = None
_device: Device | None = None
_device_index: int | None = None
_lock = threading.Lock()


def _import_kp() -> Any:
    global _kp
    if _kp is None:
        root = logging.getLogger()
        handlers, level = list(root.handlers), root.level
        try:
            kp = kompute.load()
        except ImportError as e:
            if "vulkan" in str(e).lower():
                raise DeviceError(f"the Vulkan loader is missing ({e}): apt-get install "
                                  "libvulkan1") from e
            raise DeviceError(f"the Vulkan binding (kp) is not installed ({e}): dmlc's pip "
                              "install builds it where the Vulkan SDK is found (docs/install.md); "
                              "dmlc's webgpu extra runs the WebGPU backend; or run `make install`"
                              ) from e
        finally:
            root.handlers[:], root.level = handlers, level
        _kp = kp
    return _kp


def set_device(device: int | str) -> None:
    """Choose the Vulkan device before dmlc first uses one: an index into the loader's list
    (`dmlc info` shows it), or a piece of a device's name ("llvmpipe", "swiftshader"; the first
    device whose name holds it, ignoring case). Overrides $DMLC_DEVICE."""
    global _device_index
    index = find_device(device, "set_device()")
    with _lock:
        if _device is not None and _device.index != index:
            raise DeviceError(f"device {_device.index} ({_device.name}) is already in use; "
                              "set_device() must come before the first operator call")
        _device_index = index


def find_device(device: int | str, field: str) -> int:
    """The index of a device given by index or by a piece of its name (see set_device)."""
    if isinstance(device, str) and device.strip().isdigit():
        device = int(device)
    if isinstance(device, bool) or not isinstance(device, (int, str)) or device == "":
        raise DeviceError(f"{field} must be a device index or a piece of a device's name, got "
                          f"{device!r}")
    if isinstance(device, int):
        if device < 0:
            raise DeviceError(f"{field} must be a device index >= 0, got {device}")
        return device
    return _index_named(device, field)


@functools.cache
def _index_named(text: str, field: str) -> int:
    names = [name for name, _ in probe().devices]
    for i, name in enumerate(names):
        if text.lower() in name.lower():
            return i
    listed = "; ".join(f"{i}: {n}" for i, n in enumerate(names)) or "no Vulkan device"
    raise DeviceError(f"{field} = {text!r} names no Vulkan device; this machine has {listed}")


def selected_index() -> int:
    """The device index get_device() opens: set_device()'s, else $DMLC_DEVICE (an index or a
    piece of a device's name), else 0."""
    if _device_index is not None:
        return _device_index
    value = env_value("DMLC_DEVICE", "0")
    # every compile asks: an index is read here as find_device would read it
    return int(value) if value.isdigit() else find_device(value, "DMLC_DEVICE")


def get_device() -> Device:
    """The process's device, created on first use (and again after close_device())."""
    global _device
    with _lock:
        if _device is None or _device.closed:
            _device = Device(selected_index())
        return _device


def device_kind() -> str | None:
    """"cpu" or "gpu": what the selected device is, asked of the Vulkan loader without opening
    it (None where the loader cannot say). Remembered per device index."""
    return selected_device()[0]


def selected_device() -> tuple[str | None, tuple[str, Limits] | None]:
    """(device_kind(), device_limits_of_selected()) in one ask."""
    return _probed(selected_index())


def device_limits_of_selected() -> tuple[str, Limits] | None:
    """(deviceName, Limits) of the selected device, asked of the Vulkan loader without opening
    it (None where the loader cannot say): what a compile that asks the device plans within."""
    return selected_device()[1]


@functools.cache  # a compile's target asks at every call: answered without the lock
def _probed(index: int) -> tuple[str | None, tuple[str, Limits] | None]:
    with _probing:  # threads whose first calls meet here probe the loader once between them
        return _probed_once(index)


_probing = threading.Lock()


@functools.cache
def _probed_once(index: int) -> tuple[str | None, tuple[str, Limits] | None]:
    found = probe()
    if not 0 <= index < len(found.types):
        return None, None
    return "cpu" if found.types[index] == CPU_TYPE else "gpu", found.devices[index]


@atexit.register  # kp frees its command buffers at exit, which must not be running then
def synchronize() -> None:
    """Wait until the open device has run everything submitted (none open: nothing)."""
    with _lock:
        device = _device
    if device is not None and not device.closed:
        device.wait()


def close_device() -> None:
    """Release the process's Vulkan device and everything on it. Device tensors made before
    raise DeviceError when used; compiled kernels rebind to a new device on their next call."""
    global _device
    with _lock:
        if _device is not None:
            _device.close()
        _device = None


def pool_info(clear: bool = False) -> dict[str, int] | None:
    """The open device's buffer pool (pool.py): what it holds (None with no device open);
    clear=True destroys its idle buffers first."""
    with _lock:
        if _device is None or _device.closed:
            return None
        with _device.use("dmlc.cache_info"):
            if clear:
                _device.pool.clear()
                _device.clear_syncs()
            return _device.pool.info()


def objects_info() -> dict[str, int] | None:
    """What the open device has made since it opened (None with none open): kp tensors (a
    device buffer and its staging buffer each), algorithms (a pipeline and a descriptor set
    each: kp binds an algorithm's tensors when it makes it) and sequences (command buffers)."""
    with _lock:
        if _device is None or _device.closed:
            return None
        return {k: _device.created[k] for k in ("tensors", "algorithms", "sequences")}


class Device(Submissions):
    """A kp Manager on one physical device, with the limits dmlc must respect, and its queue of
    submitted work (Submissions)."""

    backend = "vulkan"
    """Which runtime backend (runtime/backend.py) this device is."""
    kind_name = "Vulkan"
    """How errors name it."""

    def __init__(self, index: int = 0) -> None:
        kp = _import_kp()
        found = probe()  # before kp: without a driver, kp.Manager() aborts the process
        if found.problem:
            raise DeviceError(f"no usable Vulkan device: {found.problem}")
        if not 0 <= index < len(found.devices):
            names = "; ".join(f"{i}: {name}" for i, (name, _) in enumerate(found.devices))
            raise DeviceError(f"Vulkan device {index} does not exist (DMLC_DEVICE or "
                              f"set_device()); this machine has {names}")
        try:
            with new_instance():  # kp's instance would truncate what the probe's logged
                self.manager = kp.Manager(index)
        except RuntimeError as e:
            raise DeviceError(f"cannot open Vulkan device {index}: {e}; {INSTALL_HINT}") from e
        props = self.manager.get_device_properties()
        self.index = index
        self.name: str = props["device_name"]
        self.max_group_count: tuple[int, int, int] = tuple(props["max_work_group_count"])
        self.max_group_invocations: int = props["max_work_group_invocations"]
        self.timestamps: bool = bool(props.get("timestamps_supported", False))
        self.limits = device_limits(found.devices[index], self.name, self.max_group_count,
                                    self.max_group_invocations)
        self.plan_limits = PlanLimits.of(self.limits, self.name)
        """What a program must be planned within to run here (call.py re-plans one that is
        not)."""
        self.closed = False
        self._lock = threading.RLock()
        self.created: collections.Counter[str] = collections.Counter()
        self.rebinds = hasattr(kp.Algorithm, "rebind") and hasattr(kp.Tensor, "view")
        """kp has dmlc's patch (tools/kompute.py): views of arenas, algorithms bound again,
        sequences recorded again. Without it (a kp from elsewhere) every buffer is a kp tensor
        of its own, and a new buffer set or size makes an algorithm."""
        self.submits = self.rebinds and hasattr(kp.Sequence, "submit")
        """kp has dmlc's Sequence.submit: a call on device tensors returns once its last
        kernel is submitted, and the host prepares the next call while the device runs it
        (wait())."""
        self.ordered = self.submits and getattr(kp, "ordered_submissions", False) is True
        """kp orders each dispatch and upload after every earlier submission (dmlc's patch): a
        submission need not wait for those before it (QUEUED of them at most). Without, each
        waits for the one before."""
        self.copies = self.ordered and hasattr(kp, "OpTensorCopyRuns")
        """kp copies runs of bytes between tensors in one command (dmlc's patch): a plan that
        copies a view (LaunchPlan.copy) runs so, not by its kernels."""
        self._pending: list[Any] = []
        """The sequences submitted and not yet waited for, in order (Submissions)."""
        self._staged: list[Any] = []
        self.pool: ArenaPool | BufferPool = ArenaPool(self) if self.rebinds else BufferPool(self)
        """Buffers shared by every kernel and device tensor (arena.py, pool.py)."""
        self.kernels = SharedKernels()
        """Bindings and status buffers per kernel code (plan_buffers.py)."""
        self._syncs: collections.OrderedDict[tuple[int, str], tuple[Any, Any]] = \
            collections.OrderedDict()

    def use(self, what: str) -> Held:
        """Hold the device for one piece of work on it, or raise if it was closed: kp calls run
        one at a time (they hold the GIL, and a Vulkan queue needs external synchronization),
        and a closed device's objects must never be touched again (a use is a SIGSEGV)."""
        return Held(self, what)

    # Every Vulkan object dmlc makes is made here and counted (the leak tests read `created`).
    def tensor(self, words: np.ndarray) -> Any:
        self.created["tensors"] += 1
        return self.manager.tensor_t(words)

    def algorithm(self, tensors: list[Any], spirv: bytes, grid: tuple[int, int, int],
                  push: Sequence[int] = ()) -> Any:
        """push: a generic kernel's push-constant words (its sizes for these tensors)."""
        self.created["algorithms"] += 1
        no_consts = np.zeros(0, np.uint32)  # uint32, not a list: kp's constant trap
        # spec constants a uint32 array (even empty) and push constants uint32: anything else
        # reaches the shader as float bits or garbage (PLATFORM.md)
        words = np.array(push, dtype=np.uint32) if push else no_consts
        return self.manager.algorithm(tensors, spirv, grid, no_consts, words)

    def sequence(self, timestamps: int = 0) -> Any:
        """A kp sequence; with room for `timestamps` Vulkan timestamps (timing.py) if given."""
        self.created["sequences"] += 1
        return self.manager.sequence(0, timestamps) if timestamps else self.manager.sequence()

    SYNCS = 16
    """Recorded upload and download sequences kept (the most recently used)."""

    def sync(self, tensor: Any, direction: str) -> None:
        """Copy a tensor's staging memory to the device ("up") or back ("down") (caller holds
        the device): by the sequence recorded for it, else the least recently used one
        recorded again once SYNCS exist."""
        self.wait()
        key = (id(tensor), direction)
        found = self._syncs.get(key)
        if found is not None and found[0] is tensor:
            self._syncs.move_to_end(key)
            found[1].eval()
            return
        if found is not None:
            del self._syncs[key]
        kp = _import_kp()
        if len(self._syncs) >= self.SYNCS and self.rebinds:
            _, (_, seq) = self._syncs.popitem(last=False)
            seq.clear()
        else:
            if len(self._syncs) >= self.SYNCS:
                self._syncs.popitem(last=False)
            seq = self.sequence()
        seq.record((kp.OpTensorSyncDevice if direction == "up" else kp.OpTensorSyncLocal)(
            [tensor]))
        self._syncs[key] = (tensor, seq)
        seq.eval()

    def clear_syncs(self) -> None:
        """Drop the recorded sync sequences (and the buffers they name)."""
        self._syncs.clear()

    def rebind(self, algorithm: Any, tensors: list[Any], grid: tuple[int, int, int],
               push: Sequence[int] = ()) -> None:
        """Bind an algorithm to other tensors, grid and push words, keeping its pipeline
        (dmlc's patch to kp); the sequences that record it must be recorded again."""
        algorithm.rebind(tensors, grid, np.array(push, dtype=np.uint32))

    def run_op(self, op: Any) -> None:
        """Evaluate one kp operation now, in a new sequence: for one-off work only (a reused
        sequence would be re-begun without a reset, which Vulkan forbids; paths that repeat
        keep pre-recorded sequences instead)."""
        self.wait()
        self.sequence().eval(op)

    def close(self) -> None:
        """Destroy every Vulkan object of this device (idempotent)."""
        with self._lock:
            if not self.closed:
                self.wait()
                self.closed = True
                self.manager.destroy()

    def info(self) -> dict[str, object]:
        return {"index": self.index, "name": self.name,
                "max_work_group_count": self.max_group_count,
                "max_work_group_invocations": self.max_group_invocations,
                "timestamps_supported": self.timestamps, "limits": self.limits.as_dict()}

    def check_launch(self, what: str, local_size: int, buffers: Sequence[tuple[str, int]]) -> None:
        """Refuse a kernel launch that breaks a limit of this device (lavapipe would run it; a
        GPU would not): `buffers` are the (name, bytes) bound to it."""
        problem = self.limits.launch_problem(local_size, buffers)
        if problem is not None:
            limit, allowed, needs = problem
            raise DeviceError(f"{what}: needs {needs}, more than this device's {limit} = "
                              f"{allowed} ({self.name})")

    def grid(self, invocations: int, local_size: int) -> tuple[int, int, int]:
        return dispatch_grid(invocations, local_size, self.max_group_count)

    def check_size(self, what: str | Callable[[], str], nbytes: int) -> None:
        """Refuse a buffer kp cannot make (check_kp_size)."""
        check_kp_size(what, nbytes)
