"""Executables: a launch plan (dmlc.plan, what the compiler hands over) bound to device buffers
and pre-recorded sequences.

An Executable owns no tensor-sized memory: each call takes its input, output and scratch buffers
from the device's buffer pool (pool.py) or uses the caller's device tensors, and gives pooled
ones back afterwards; only the status buffers (a few words) are its own. A kp algorithm is bound
to fixed tensors, so each distinct set of buffers gets a Binding (algorithms and recorded
sequences, cheap: kp shares the pipeline's SPIR-V), and the last BINDINGS are kept: the pool
hands the same buffers back to a repeated call, so a repeated call creates no Vulkan object.
kp records no barrier between dispatches in one sequence, so each kernel gets its own sequence:
separate eval()s are ordered.

With plan.guard_words (tests only, with shaders generated for it) the executable instead owns
every buffer, each between two guard regions of known contents that guard_damage() checks.
"""
from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ..errors import DeviceError
from ..plan import LaunchPlan, PlanBuffer
from .buffers import from_chunks, from_words, to_chunks
from .device import Device, _import_kp, check_kp_size
from .pool import Slot


def guard_pattern(words: int) -> np.ndarray:
    """Words no kernel writes by accident: distinct, and neither 0 nor small."""
    return (np.arange(words, dtype=np.uint32) * np.uint32(0x9E3779B1)) ^ np.uint32(0xA5C3E10F)


def flat(values: Any) -> list[Any]:
    """kp tensors in binding order: a chunked buffer's tuple is its chunks, in order."""
    out: list[Any] = []
    for v in values:
        out.extend(v if isinstance(v, tuple) else (v,))
    return out


class Binding:
    """The plan's kernels bound to one kp tensor per buffer: an algorithm per kernel and the
    sequences that run them (host=True: the first also uploads the inputs and the last
    downloads the output and status buffers)."""

    __slots__ = ("tensors", "algorithms", "sequences")

    def __init__(self, exe: Executable, tensors: dict[str, Any], host: bool) -> None:
        kp, device, plan = _import_kp(), exe.device, exe.plan
        self.tensors = tensors
        self.algorithms = [device.algorithm(flat(tensors[n] for n in k.buffers), k.spirv,
                                            device.grid(k.invocations, k.local_size), k.push)
                           for k in plan.kernels]
        # guards are read back from the buffers a kernel binds: one none binds (an input no
        # kernel reads) was only uploaded, and reading it back in the same sequence, with no
        # dispatch's barrier between, is a read-after-write hazard of two copies
        bound = {n for k in plan.kernels for n in k.buffers}
        self.sequences = []
        for i, algo in enumerate(self.algorithms):
            seq = device.sequence()
            if host and i == 0:
                seq.record(kp.OpTensorSyncDevice(flat(tensors[n] for n in plan.inputs)))
            seq.record(kp.OpAlgoDispatch(algo))
            if i == len(self.algorithms) - 1:
                back = [b.name for b in plan.status]
                if host:
                    back = [b.name for b in plan.buffers if b.name in bound] if exe.guard \
                        else [plan.output, *back]
                if back:
                    seq.record(kp.OpTensorSyncLocal(flat(tensors[n] for n in back)))
            self.sequences.append(seq)

    def alive(self) -> bool:
        """No tensor was destroyed since (a released device tensor, a pooled buffer dropped)."""
        return all(t.is_init() for t in flat(self.tensors.values()))

    def run(self) -> None:
        for seq in self.sequences:
            seq.eval()


class Executable:
    """A launch plan ready to run on a device: run() with host arrays, run_device() with
    device tensors."""

    BINDINGS = 8
    """Bindings kept per executable (each names its tensors; pooled ones keep theirs)."""

    def __init__(self, device: Device, plan: LaunchPlan) -> None:
        self.device, self.plan, self.guard = device, plan, plan.guard_words
        for buf in plan.buffers:
            check_kp_size(f"{plan.name}: buffer {buf.name}", 4 * max(buf.chunks))
        for k in plan.kernels:
            device.check_launch(plan.name, k.local_size, [  # a binding per chunk
                (n, 4 * (c + 2 * self.guard)) for n in k.buffers for c in plan.buffer(n).chunks])
        self._dtypes = {b.name: np.dtype(b.dtype) for b in plan.buffers}
        self._bindings: OrderedDict[tuple, Binding] = OrderedDict()
        with device.use(plan.name):
            own = plan.buffers if self.guard else plan.status
            self._own = {b.name: self._new_slots(b) for b in own}

    def _new_slots(self, buf: PlanBuffer) -> list[Slot]:
        """A buffer of the executable's own (one Slot per chunk), zeroed (status, scratch) or
        undefined, each chunk between the guard pattern when guarded."""
        g, slots = self.guard, []
        for words in buf.chunks:
            init = guard_pattern(words + 2 * g)
            if buf.zeroed:
                init[g:g + words] = 0
            slot = Slot(self.device.tensor(init), words + 2 * g)
            slot.sync(self.device, "up")
            slots.append(slot)
        return slots

    def _tensor_of(self, slots: Sequence[Slot]) -> Any:
        """What a binding holds for a buffer: its kp tensor, or the tuple of a chunked one's."""
        return slots[0].tensor if len(slots) == 1 else tuple(s.tensor for s in slots)

    @property
    def owned_bytes(self) -> int:
        """Memory this executable holds between calls (status buffers; every buffer when
        guarded)."""
        return sum(s.nbytes for slots in self._own.values() for s in slots)

    def _data(self, tensor: Any, buf: PlanBuffer) -> np.ndarray:
        """The host view of a buffer's words in its kp tensor (past its front guard)."""
        return tensor.data()[self.guard:self.guard + buf.words]

    def _chunk_data(self, tensors: Any, buf: PlanBuffer) -> list[np.ndarray]:
        """The host views of a buffer's words in its kp tensors (one per chunk)."""
        g, each = self.guard, tensors if isinstance(tensors, tuple) else (tensors,)
        return [t.data()[g:g + words] for t, words in zip(each, buf.chunks)]

    def _slots(self, given: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[Slot, bool]]]:
        """kp tensors for every buffer: those given, the executable's own, and the rest from
        the pool (scratch zeroed; output and temp buffers as the last user left them). Returns
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

    @contextlib.contextmanager
    def bound(self, given: dict[str, Any], host: bool) -> Iterator[Binding]:
        """The binding for the `given` kp tensors and the rest of the plan's buffers (its own,
        or borrowed from the pool and given back on leaving; caller holds the device)."""
        tensors, taken = self._slots(given)
        try:
            yield self.binding(tensors, host)
        finally:
            for slot, clean in taken:
                self.device.pool.give(slot, clean, self.plan.name)

    def given(self, inputs: Sequence[Any], out: Any) -> dict[str, Any]:
        """The kp tensors of device tensors passed for the inputs and the output, by buffer."""
        return {n: self._fit(t, self.plan.buffer(n))
                for n, t in zip((*self.plan.inputs, self.plan.output), (*inputs, out))}

    def _fit(self, t: Any, buf: PlanBuffer) -> Any:
        """The kp tensors of device tensor `t` bound for `buf`: a chunked tensor's first chunks
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

    def binding(self, tensors: dict[str, Any], host: bool) -> Binding:
        """The binding for these tensors, made on first use (caller holds the device)."""
        key = (host, *(id(t) for t in flat(tensors.values())))
        found = self._bindings.get(key)
        if found is not None and found.alive():
            self._bindings.move_to_end(key)
            return found
        for old in [k for k, b in self._bindings.items() if not b.alive()]:
            del self._bindings[old]  # a tensor destroyed since: never dispatch it again
        found = self._bindings[key] = Binding(self, tensors, host)
        if len(self._bindings) > self.BINDINGS:
            self._bindings.popitem(last=False)
        return found

    def _take_status(self) -> dict[str, np.ndarray]:
        """The status buffers as read back by the last run (caller holds the device); any that
        the run set are zeroed again on the device for the next call."""
        status = {}
        for b in self.plan.status:
            slot = self._own[b.name][0]  # a few words: never chunked
            data = self._data(slot.tensor, b)
            status[b.name] = from_words(data, self._dtypes[b.name], (b.count,))
            if data.any():
                data[:] = 0
                slot.sync(self.device, "up")
        return status

    def run(self, arrays: Sequence[np.ndarray]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Write the input arrays' raw bytes to the device, run every kernel in order, and
        return the output as a fresh array of its dtype and the program's output shape, with
        the status buffers (see PlanBuffer.role) by name."""
        plan = self.plan
        with self.device.use(plan.name), self.bound({}, host=True) as binding:
            for name, array in zip(plan.inputs, arrays):
                buf = plan.buffer(name)
                to_chunks(array, buf.count, self._chunk_data(binding.tensors[name], buf))
            binding.run()
            out = plan.buffer(plan.output)
            return (from_chunks(self._chunk_data(binding.tensors[out.name], out),
                                self._dtypes[out.name], plan.output_shape), self._take_status())

    def run_device(self, inputs: Sequence[Any], out: Any) -> tuple[Any, dict[str, np.ndarray]]:
        """Run every kernel on device tensors (DeviceTensor, in plan.inputs order) writing
        `out`; only the status buffers (if any) cross to the host."""
        names = (*self.plan.inputs, self.plan.output)
        with self.device.use(self.plan.name):
            for k in self.plan.kernels:  # the caller's tensors may be of any size
                self.device.check_launch(self.plan.name, k.local_size, [
                    (n, 4 * min(t.words, t.chunk_words or t.words))
                    for n, t in zip(names, (*inputs, out)) if n in k.buffers])
            for n, t in zip(names, (*inputs, out)):  # a generic kernel's pushed extents too
                if t.words < self.plan.buffer(n).words:
                    raise DeviceError(f"{self.plan.name}: buffer {n} needs "
                                      f"{self.plan.buffer(n).words} words, the tensor bound "
                                      f"to it has {t.words}")
            with self.bound(self.given(inputs, out), host=False) as binding:
                binding.run()
                return out, self._take_status()

    def guard_damage(self) -> list[str]:
        """Guard words that differ from the pattern after the last run(), as 'buffer before[k]'
        or 'buffer after[k]' (k counts from the buffer's edge); empty when nothing strayed."""
        g, damage = self.guard, []
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
        """The kp tensor of an owned buffer (guarded executables: tests corrupt guards)."""
        return self._own[name][0].tensor
