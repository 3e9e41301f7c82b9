"""The buffer pool: device buffers held between uses, shared by every kernel and device tensor.

A compiled kernel owns no tensor-sized memory between calls. A call takes the buffers it needs
here (host arrays are written into a buffer's staging memory and synced; outputs and scratch
come from here too) and gives them back when done; a device tensor's buffer comes back when its
last reference goes. So memory follows the work in flight, not the number of shapes seen.

This is the WebGPU backend's pool, and the Vulkan backend's with a kp that lacks dmlc's views
(the Vulkan backend suballocates arenas instead: arena.py, whose buffers follow the same rules).
A pooled buffer keeps its staging memory. Idle buffers are kept per exact size, the most recently
used first, up to LIMIT bytes in all, and dropped after IDLE_SECONDS unused: dropped buffers are
destroyed at once (their memory freed even where a binding still names them; bindings check
is_init() before use).

Nothing here assumes fresh memory is zero (on a GPU it is not): a buffer is zeroed when a
taker asks for zeros, unless it is known to hold them. DMLC_POISON=1 (tests: `make
test-poison`) checks that nobody relies on more: every buffer taken without zeros is filled with
POISON_WORD first, and a buffer given back as zeroed is read back and refused if it is not.
"""
from __future__ import annotations

import collections
import time
from typing import Any, Protocol

import numpy as np

from ..environment import env_value
from ..errors import DeviceError


class Device(Protocol):
    """What the pool needs of device.Device (which owns the pool: no import back)."""

    def tensor(self, words: np.ndarray) -> Any: ...
    def sync(self, tensor: Any, direction: str) -> None: ...
    def wait(self) -> None: ...


POISON_WORD = 0xA5A5A5A5
"""What a buffer taken without zeros holds under DMLC_POISON: a NaN in float16/32/64, a
large negative in signed integers, never an index in range."""


def poisoning() -> bool:
    """Whether DMLC_POISON asks for poisoned buffers (read on every take: tests switch it)."""
    return env_value("DMLC_POISON") not in ("", "0")


class Slot:
    """A device buffer (a kp tensor, or a view of an arena's: arena.py) with its staging
    memory. Synced by the device's recorded sequences (Device.sync)."""

    __slots__ = ("tensor", "words", "clean", "staged", "idle_since", "home")

    def __init__(self, tensor: Any, words: int) -> None:
        self.tensor, self.words = tensor, words
        self.clean = False
        """The device copy is known to hold zeros (scratch given back by kernels that leave
        it zeroed)."""
        self.staged = False
        """The staging memory holds data the device copy lacks (DeviceTensor.staged: the
        kernel that reads it uploads it in its own submission)."""
        self.idle_since = 0.0
        self.home: Any = None
        """(arena, block) of a view (arena.py)."""

    @property
    def nbytes(self) -> int:
        """Memory held: the device buffer and its staging buffer."""
        return 2 * 4 * self.words

    def sync(self, device: Device, direction: str) -> None:
        """"up": staging to device; "down": device to staging (caller holds the device)."""
        if self.staged:  # its upload first: a download would overwrite it
            self.staged = False
            if direction == "down":
                device.sync(self.tensor, "up")
        device.sync(self.tensor, direction)
        if direction == "up":
            self.clean = False

    def zero(self, device: Device) -> None:
        """Zero the device copy (unless known zero)."""
        if not self.clean:
            device.wait()  # submitted work may still read the staging memory
            self.tensor.data()[:] = 0
            self.sync(device, "up")
            self.clean = True

    def poison(self, device: Device) -> None:
        """Fill the device copy with POISON_WORD (DMLC_POISON)."""
        device.wait()
        self.tensor.data()[:] = POISON_WORD
        self.sync(device, "up")

    def holds_zeros(self, device: Device) -> bool:
        """Whether the device copy is all zeros (read back: DMLC_POISON's check)."""
        self.sync(device, "down")
        return not self.tensor.data().any()


class Pooled:
    """What both pools (this one, arena.py's) do alike with a buffer given back or taken."""

    device: Device
    _returned: collections.deque[Slot]

    def give(self, slot: Slot, clean: bool = False, what: str = "") -> None:
        """Return a buffer nobody uses any more; clean: its device copy holds zeros (`what`
        left it so: checked under DMLC_POISON, with the device held)."""
        if clean and poisoning() and not slot.holds_zeros(self.device):
            raise DeviceError(f"{what}: gave back a buffer of {slot.words} words as zeroed, "
                              "but it holds non-zero words (a kernel did not clear its scratch)")
        slot.clean, slot.staged = clean, False
        self._returned.append(slot)  # atomic: safe from __del__ without the lock

    def _ready(self, slot: Slot, zeroed: bool) -> Slot:
        """A taken buffer, zeroed if asked (else poisoned under DMLC_POISON)."""
        if zeroed:
            slot.zero(self.device)
            return slot
        if poisoning():
            slot.poison(self.device)
        slot.clean = False  # the taker writes it
        return slot


class BufferPool(Pooled):
    """Idle buffers by size, for one device. take() and trim() run under the device's lock;
    give() may run in a finalizer and only appends to a queue."""

    LIMIT = 256 * 2**20
    """Bytes of idle buffers kept at most (device and staging memory together)."""
    IDLE_SECONDS = 10.0
    """An idle buffer unused this long is dropped at the next take()."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self._idle: dict[int, list[Slot]] = {}
        """Per size, oldest first (buffers are filed in the order they come back)."""
        self._idle_bytes = 0
        self._returned: collections.deque[Slot] = collections.deque()
        self.created = 0
        self.reused = 0

    def take(self, words: int, zeroed: bool = False) -> Slot:
        """A buffer of exactly `words` words, idle or new; zeroed: its device copy holds
        zeros (else its contents are whatever the last user left)."""
        self._settle()
        same = self._idle.get(words)
        while same and not same[-1].tensor.is_init():  # freed meanwhile (WgpuTensor.is_init)
            self._idle_bytes -= same.pop().nbytes
        if same:
            slot = same.pop()
            self._idle_bytes -= slot.nbytes
            self.reused += 1
        else:
            slot = Slot(self.device.tensor(np.zeros(words, np.uint32)), words)
            self.created += 1
        return self._ready(slot, zeroed)

    def _settle(self) -> None:
        """File the buffers given back since, then drop what is past the limits (checked
        without sorting: each size's oldest idle buffer comes first)."""
        now = time.monotonic()
        while self._returned:
            slot = self._returned.popleft()
            slot.idle_since = now
            self._idle.setdefault(slot.words, []).append(slot)
            self._idle_bytes += slot.nbytes
        cutoff = now - self.IDLE_SECONDS
        if self._idle_bytes > self.LIMIT or any(same and same[0].idle_since < cutoff
                                                for same in self._idle.values()):
            self.trim(self.LIMIT, cutoff)

    def trim(self, limit: int, older_than: float = float("-inf")) -> None:
        """Destroy idle buffers, least recently used first, while more than `limit` bytes are
        idle or the oldest has been idle since before `older_than`."""
        self.device.wait()  # submitted work may still use an idle buffer
        slots = sorted((s for same in self._idle.values() for s in same),
                       key=lambda s: s.idle_since)
        for s in slots:
            if self._idle_bytes <= limit and s.idle_since >= older_than:
                break
            self._idle[s.words].remove(s)
            self._idle_bytes -= s.nbytes
            s.tensor.destroy()
        self._idle = {w: same for w, same in self._idle.items() if same}

    def clear(self) -> None:
        """Destroy every idle buffer."""
        self._settle()
        self.trim(0)

    def info(self) -> dict[str, int]:
        self._settle()
        return {"idle_buffers": sum(len(same) for same in self._idle.values()),
                "idle_bytes": self._idle_bytes,
                "limit_bytes": self.LIMIT, "created": self.created, "reused": self.reused}
