"""What both backends' executables do alike with a launch plan's buffers: find every buffer of a
call (the caller's device tensors, the executable's own, or the pool's, given back after), keep
a Binding per set of buffers (the last BINDINGS), check the caller's tensors, read the status
buffers and the guard words. runtime/executable.py (Vulkan: kp) and runtime/webgpu/executable.py
(wgpu) subclass PlanBuffers with their own Binding, buffer making and run."""
from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import DeviceError
from ..plan import LaunchPlan, PlanBuffer
from .buffers import from_words
from .pool import Slot


def guard_pattern(words: int) -> np.ndarray:
    """Words no kernel writes by accident: distinct, and neither 0 nor small."""
    return (np.arange(words, dtype=np.uint32) * np.uint32(0x9E3779B1)) ^ np.uint32(0xA5C3E10F)


def flat(values: Any) -> list[Any]:
    """Buffers in binding order: a chunked buffer's tuple is its chunks, in order."""
    out: list[Any] = []
    for v in values:
        out.extend(v if isinstance(v, tuple) else (v,))
    return out


class Shared:
    """What every executable of the same kernels shares on a device (its `kernels`, a
    SharedKernels): the last BINDINGS bindings, whichever executable made them (a generic
    kernel's calls at each size are executables of their own), the keys of those bound again
    lately, and the status buffers."""

    __slots__ = ("bindings", "status", "dropped", "born")

    def __init__(self, born: int = 0) -> None:
        self.bindings: OrderedDict[tuple, Any] = OrderedDict()
        self.status: dict[tuple, dict[str, list[Slot]]] = {}
        self.dropped: OrderedDict[tuple, None] = OrderedDict()
        """The keys of the last RECALLED bindings bound again to other tensors: one asked for
        again says the calls cycle through buffer sets (PlanBuffers.BINDINGS_CYCLE)."""
        self.born = born
        """The device's count of calls (SharedKernels.calls) at this kernel's first: it makes
        bindings for GROWS calls on the device from then (PlanBuffers.GROWS)."""

    RECALLED = 16

    def drop(self, key: tuple) -> None:
        self.dropped[key] = None
        if len(self.dropped) > self.RECALLED:
            self.dropped.popitem(last=False)


class SharedKernels:
    """A device's Shared per kernel code, the most recently used KERNELS of them (an
    executable keeps its own after that), and the signatures of executables as small ints
    (a binding's key hashes one int, not the plan's names), and the calls made so far."""

    KERNELS = 256

    def __init__(self) -> None:
        self.calls = 0
        """Calls on the device that asked for a binding (PlanBuffers.binding)."""
        self._shared: OrderedDict[tuple, Shared] = OrderedDict()
        self._signatures: dict[tuple, int] = {}
        self._numbers = itertools.count()

    def shared(self, code: tuple) -> Shared:
        found = self._shared.get(code)
        if found is None:
            found = self._shared[code] = Shared(self.calls)
            if len(self._shared) > self.KERNELS:
                self._shared.popitem(last=False)
        else:
            self._shared.move_to_end(code)
        return found

    def signature(self, names: tuple) -> int:
        found = self._signatures.get(names)
        if found is None:
            if len(self._signatures) > 64 * self.KERNELS:
                self._signatures.clear()  # later ones get new numbers: none is reused
            found = self._signatures[names] = next(self._numbers)
        return found


class Bound:
    """`with executable.bound(...) as binding:` the binding, with the buffers borrowed from
    the pool for it given back on leaving (a plain object: contextlib's context managers cost
    microseconds a call)."""

    __slots__ = ("exe", "binding", "taken")

    def __init__(self, exe: PlanBuffers, binding: Any, taken: list[tuple[Slot, bool]]) -> None:
        self.exe, self.binding, self.taken = exe, binding, taken

    def __enter__(self) -> Any:
        return self.binding

    def __exit__(self, *exc: object) -> None:
        give, name = self.exe.device.pool.give, self.exe.plan.name
        for slot, clean in self.taken:
            give(slot, clean, name)


class PlanBuffers:
    """The backend-neutral part of an Executable. A subclass sets `binding_type` (its Binding:
    made from the executable, a tensor per buffer by name, and host; with `tensors`, `alive()`
    and, where the backend can bind its objects again, `rebind()`), calls `_share` in its
    __init__ (after `_init_buffers`), and runs."""

    BINDINGS = 3
    """Bindings kept per kernel (each names its tensors; pooled ones keep theirs). A call on
    other tensors binds the least recently used one again where the backend can (a kp
    algorithm keeps its pipeline: Binding.rebind), so a kernel holds at most this many
    pipelines' worth of objects (BINDINGS_CYCLE where calls cycle), whatever sizes and buffers
    it meets."""
    BINDINGS_CYCLE = 8
    """Bindings kept per kernel once a call asks for a binding that was bound again to other
    tensors lately (Shared.dropped): calls that cycle through a few buffer sets (a gather of
    1-7 ids, each count its own output buffer) then replay theirs instead of binding one
    again at every call, while a window that grows by a row each step (never the same buffers
    twice) keeps BINDINGS and makes nothing once they exist."""
    GROWS = 64
    """A kernel makes bindings only within the first GROWS calls on its device from its own
    first (where the backend binds again): a loop's cycles show themselves by then, and later
    calls on other tensors bind the least recently used one again, so a warm loop makes no
    Vulkan object (the pool moves a buffer now and then: a kernel that met one buffer set for
    a hundred steps would make a binding). Counted on the device, not per kernel: a kernel
    called once every seven steps is warm when the loop is."""
    BINDINGS_NEW = 8
    """Bindings kept per kernel where the backend makes a new one for other buffers (WebGPU's
    bind groups, a kp without dmlc's patch): more, so that fewer calls make one."""

    binding_type: Any
    copies = False
    """The plan's kernels run as its copies of runs of bytes (a Vulkan executable's choice)."""

    def _init_buffers(self, device: Any, plan: LaunchPlan) -> None:
        self.device, self.plan, self.guard = device, plan, plan.guard_words
        self._dtypes = {b.name: np.dtype(b.dtype) for b in plan.buffers}
        self._own: dict[str, list[Slot]] = {}
        self._shared = Shared()
        self._code: tuple[Any, ...] = ()
        self._signature = 0

    def _share(self, code: tuple[Any, ...], own: Any) -> None:
        """Find this executable's kernels' Shared on the device (by their code), and its own
        buffers: status buffers shared with the executables of the same kernels (made by
        `own(buffer)` the first time), every buffer its own when guarded; then its binding
        signature (_signature_of)."""
        plan = self.plan
        self._shared = self.device.kernels.shared((self.guard, *code))
        if self.guard:
            self._own = {b.name: own(b) for b in plan.buffers}
        else:
            layout = tuple((b.name, b.chunks, b.zeroed) for b in plan.status)
            found = self._shared.status.get(layout)
            if found is None:
                found = self._shared.status[layout] = {b.name: own(b) for b in plan.status}
            self._own = found
        self._code = code
        self._signature = self._signature_of()

    def _signature_of(self) -> int:
        """The number of what a binding of this plan records beside its tensors: the plan's
        roles, grids and push words, and its copy of runs where it runs as one (`copies`)."""
        plan = self.plan
        return self.device.kernels.signature((
            self._code, plan.inputs, plan.output, tuple(b.name for b in plan.status),
            tuple((k.buffers, k.push, k.invocations, k.local_size) for k in plan.kernels),
            plan.copy if self.copies else None))

    @staticmethod
    def _tensor_of(slots: Sequence[Slot]) -> Any:
        """What a binding holds for a buffer: its tensor, or the tuple of a chunked one's."""
        return slots[0].tensor if len(slots) == 1 else tuple(s.tensor for s in slots)

    @property
    def owned_bytes(self) -> int:
        """Memory this executable holds between calls (status buffers; every buffer when
        guarded)."""
        return sum(s.nbytes for slots in self._own.values() for s in slots)

    def _chunk_data(self, tensors: Any, buf: PlanBuffer) -> list[np.ndarray]:
        """The host views of a buffer's words in its tensors (one per chunk), past the front
        guard."""
        g, each = self.guard, tensors if isinstance(tensors, tuple) else (tensors,)
        return [t.data()[g:g + words] for t, words in zip(each, buf.chunks)]

    def _slots(self, given: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[Slot, bool]]]:
        """Tensors for every buffer: those given, the executable's own, and the rest from the
        pool (scratch zeroed; output and temp buffers as the last user left them). Returns
        them with the pooled slots to give back, in the reverse order of taking (so the next
        call takes the same ones: same binding) and whether each is left zeroed (scratch: the
        kernels zero it again)."""
        tensors, taken = {}, []
        pool = self.device.pool
        for b in self.plan.buffers:
            if b.name in given:
                tensors[b.name] = given[b.name]
            elif b.name in self._own:
                tensors[b.name] = self._tensor_of(self._own[b.name])
            else:
                slots = [pool.take(words, zeroed=b.zeroed) for words in b.chunks]
                tensors[b.name] = self._tensor_of(slots)
                taken += [(slot, b.zeroed) for slot in slots]
        return tensors, taken[::-1]

    def bound(self, given: dict[str, Any], host: bool, uploads: tuple[str, ...] = ()) -> Bound:
        """The binding for the `given` tensors and the rest of the plan's buffers (its own, or
        borrowed from the pool and given back on leaving; caller holds the device); `uploads`:
        inputs its run uploads first (staged())."""
        tensors, taken = self._slots(given)
        try:
            return Bound(self, self.binding(tensors, host, uploads), taken)
        except BaseException:
            Bound(self, None, taken).__exit__()
            raise

    def staged(self, inputs: Sequence[Any]) -> dict[str, Slot]:
        """The inputs whose data waits in staging memory (DeviceTensor.staged), by buffer."""
        found = {}
        for name, t in zip(self.plan.inputs, inputs):
            slot = t.staged_slot
            if slot is not None:
                found[name] = slot
        return found

    def given(self, inputs: Sequence[Any], out: Any) -> dict[str, Any]:
        """The tensors of device tensors passed for the inputs and the output, by buffer."""
        return {n: self._fit(t, self.plan.buffer(n))
                for n, t in zip((*self.plan.inputs, self.plan.output), (*inputs, out))}

    def _fit(self, t: Any, buf: PlanBuffer) -> Any:
        """The tensors of device tensor `t` bound for `buf`: a chunked tensor's first chunks
        (a tensor may be larger than the plan's buffer), chunked as the plan's."""
        tensors = t.kp_tensor
        if not isinstance(tensors, tuple):
            if buf.chunk_words:
                raise DeviceError(f"{self.plan.name}: buffer {buf.name} was compiled as chunks "
                                  f"of {buf.chunk_words} words, but its tensor is one buffer: "
                                  "compile for this device's limits (the default)")
            return tensors
        if buf.chunk_words not in (0, t.chunk_words):
            raise DeviceError(f"{self.plan.name}: buffer {buf.name} was compiled as chunks of "
                              f"{buf.chunk_words} words, its tensor has chunks of "
                              f"{t.chunk_words}: compile for this device's limits (the default)")
        return tensors[0] if len(buf.chunks) == 1 else tensors[:len(buf.chunks)]

    def binding(self, tensors: dict[str, Any], host: bool, uploads: tuple[str, ...] = ()) -> Any:
        """The binding for these tensors (caller holds the device): the one recorded for them,
        else a new one while fewer than BINDINGS (BINDINGS_CYCLE) exist in the kernel's first
        GROWS calls on the device, else the least recently used one bound again
        (Binding.rebind, where the backend has it)."""
        shared, kernels = self._shared, self.device.kernels
        kernels.calls += 1
        bindings = shared.bindings
        key = (self._signature, host, uploads, *(id(t) for t in flat(tensors.values())))
        found = bindings.get(key)
        if found is not None and found.alive():
            bindings.move_to_end(key)
            return found
        # one whose tensor was destroyed since is never dispatched again: bound anew (others
        # are not looked through for one: a dead binding costs nothing until it is the least
        # recently used, and a scan of them all at every miss cost more than it saved)
        old = key if found is not None else None
        rebinds = self.device.rebinds
        kept = (self.BINDINGS_NEW if not rebinds else 1 if kernels.calls - shared.born > self.GROWS
                else self.BINDINGS_CYCLE if key in shared.dropped else self.BINDINGS)
        if old is None and len(bindings) >= kept:
            old = next(iter(bindings))
            shared.drop(old)
        if old is not None:
            found = bindings.pop(old)
            if rebinds:
                found.rebind(self, tensors, host, uploads)
                bindings[key] = found
                return found
        found = bindings[key] = self.binding_type(self, tensors, host, uploads)
        return found

    def _check(self, inputs: Sequence[Any], out: Any) -> None:
        """Refuse the caller's device tensors where the kernels cannot bind them on this device
        (they may be of any size), or where one is smaller than its plan buffer (a generic
        kernel's pushed extents too)."""
        names = (*self.plan.inputs, self.plan.output)
        for k in () if self.copies else self.plan.kernels:
            self.device.check_launch(self.plan.name, k.local_size, [
                (n, 4 * min(t.words, t.chunk_words or t.words))
                for n, t in zip(names, (*inputs, out)) if n in k.buffers])
        for n, t in zip(names, (*inputs, out)):
            if t.words < self.plan.buffer(n).words:
                raise DeviceError(f"{self.plan.name}: buffer {n} needs "
                                  f"{self.plan.buffer(n).words} words, the tensor bound "
                                  f"to it has {t.words}")

    def _take_status(self) -> dict[str, np.ndarray]:
        """The status buffers as the last run read them back (caller holds the device); any
        that it set are zeroed again on the device for the next call."""
        status: dict[str, np.ndarray] = {}
        if not self.plan.status:
            return status
        g = self.guard
        self.device.wait()
        for b in self.plan.status:
            slot = self._own[b.name][0]  # a few words: never chunked
            data = slot.tensor.data()[g:g + b.words]
            status[b.name] = from_words(data, self._dtypes[b.name], (b.count,))
            if data.any():
                data[:] = 0
                slot.sync(self.device, "up")
        return status

    def guard_damage(self) -> list[str]:
        """Guard words that differ from the pattern after the last run(), as 'buffer before[k]'
        or 'buffer after[k]' (k counts from the buffer's edge); empty when nothing strayed."""
        g, damage = self.guard, []
        self.device.wait()
        for b in self.plan.buffers:
            for j, (slot, words) in enumerate(zip(self._own[b.name], b.chunks)):
                data, pattern = slot.tensor.data(), guard_pattern(words + 2 * g)
                name = f"{b.name} chunk {j}" if b.chunk_words else b.name
                for where, lo in (("before", 0), ("after", g + words)):
                    bad = np.nonzero(data[lo:lo + g] != pattern[lo:lo + g])[0]
                    edge = g - 1 - bad[::-1] if where == "before" else bad
                    damage += [f"{name} {where}[{int(k)}]" for k in edge]
        return damage

    def slot_tensor(self, name: str) -> Any:
        """The tensor of an owned buffer (guarded executables: tests corrupt guards)."""
        return self._own[name][0].tensor
