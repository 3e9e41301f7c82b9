"""Executables on WebGPU: a launch plan (dmlc.plan) bound to wgpu buffers, its kernels'
pipelines made once, every call one submission.

As on Vulkan (runtime/executable.py, whose structure this follows), an executable owns no
tensor-sized memory: each call takes its buffers from the device's pool or uses the caller's
device tensors; only the status buffers are its own (every buffer, between guard regions, with
plan.guard_words). What differs:
- a kernel is its WGSL (PlanKernel.wgsl, rendered by the compiler at the first ask) in a
  pipeline with an explicit layout from its binding types, made once per device;
- a generic kernel's push words are a uniform buffer after its storage buffers;
- bind groups are made once per set of buffers (a Binding, up to BINDINGS kept, as kp
  algorithms are);
- all kernels of a call are encoded into one command buffer, in order (WebGPU orders a
  dispatch's storage writes before the next dispatch's reads), and submitted once; nothing
  waits unless something is read back: the output on the host path, the status buffers of
  checked mode (copied to one mappable buffer at the end of the same submission);
- WebGPU forbids a buffer bound writable to be bound again in the same dispatch (Vulkan
  allows it): a read-only binding of a buffer the kernel also writes reads a copy of it, made
  just before that kernel (the values the kernel starts from, as a temporary would hold).
"""
from __future__ import annotations

import contextlib
from collections import Counter, OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ...errors import DeviceError
from ...plan import LaunchPlan, PlanBuffer
from ..buffers import from_chunks, from_words, to_chunks
from ..executable import flat, guard_pattern
from ..pool import Slot
from .buffers import WgpuTensor
from .device import Device


class Binding:
    """The plan's kernels bound to one set of buffers: a bind group per kernel, the copies a
    kernel that reads a buffer it writes needs first, and what a run reads back."""

    __slots__ = ("tensors", "groups", "copies", "reads")

    def __init__(self, exe: Executable, tensors: dict[str, Any], host: bool) -> None:
        device, plan = exe.device, exe.plan
        self.tensors = tensors
        self.groups: list[Any] = []
        self.copies: list[list[tuple[WgpuTensor, WgpuTensor]]] = []
        for k, (_, layout), types, uniform in zip(plan.kernels, exe.pipelines, exe.types,
                                                  exe.uniforms):
            bound: list[WgpuTensor] = flat(tensors[n] for n in k.buffers)
            written = {id(t) for t, kind in zip(bound, types) if kind == "storage"}
            uses = Counter(id(t) for t in bound)
            entries, copies = [], []
            for i, (t, kind) in enumerate(zip(bound, types)):
                if uses[id(t)] > 1 and id(t) in written and kind != "storage":
                    copy = device.tensor(np.zeros(t.words, np.uint32))
                    copies.append((t, copy))
                    t = copy
                entries.append({"binding": i, "resource": {"buffer": t.buffer, "offset": 0,
                                                           "size": 4 * t.words}})
            if uniform is not None:
                entries.append({"binding": len(entries), "resource": {
                    "buffer": uniform, "offset": 0, "size": uniform.size}})
            self.groups.append(device.bind_group(layout, entries))
            self.copies.append(copies)
        back = [b.name for b in plan.status]
        if host:
            used = {n for k in plan.kernels for n in k.buffers}
            back = [b.name for b in plan.buffers if b.name in used] if exe.guard \
                else [plan.output, *back]
        self.reads: list[WgpuTensor] = flat(tensors[n] for n in back)

    def alive(self) -> bool:
        """No buffer was destroyed since (a released device tensor, a pooled buffer dropped)."""
        return all(t.is_init() for t in flat(self.tensors.values()))

    def encode(self, exe: Executable, encoder: Any) -> None:
        """Every kernel, in order: one compute pass for the kernels between copies."""
        compute = None
        for group, copies, (pipeline, _), grid in zip(self.groups, self.copies, exe.pipelines,
                                                      exe.grids):
            if copies and compute is not None:
                compute.end()
                compute = None
            for src, dst in copies:
                encoder.copy_buffer_to_buffer(src.buffer, 0, dst.buffer, 0, 4 * src.words)
            if compute is None:
                compute = encoder.begin_compute_pass()
            compute.set_pipeline(pipeline)
            compute.set_bind_group(0, group)
            compute.dispatch_workgroups(*grid)
        if compute is not None:
            compute.end()


class Executable:
    """A launch plan ready to run on a WebGPU device: run() with host arrays, run_device()
    with device tensors."""

    BINDINGS = 8
    """Bindings kept per executable."""

    def __init__(self, device: Device, plan: LaunchPlan) -> None:
        self.device, self.plan, self.guard = device, plan, plan.guard_words
        g = self.guard
        for buf in plan.buffers:
            for words in buf.chunks:
                device.check_size(f"{plan.name}: buffer {buf.name}", 4 * (words + 2 * g))
        for k in plan.kernels:
            device.check_launch(plan.name, k.local_size, [
                (n, 4 * (c + 2 * g)) for n in k.buffers for c in plan.buffer(n).chunks])
        self._dtypes = {b.name: np.dtype(b.dtype) for b in plan.buffers}
        self._bindings: OrderedDict[tuple, Binding] = OrderedDict()
        self._fits: set[tuple] = set()
        """The sizes of tensors run_device checked against the device's limits (unchanged)."""
        with device.use(plan.name):
            self.types = [k.binding_types for k in plan.kernels]
            self.pipelines = [device.pipeline(k.wgsl, t) for k, t in zip(plan.kernels, self.types)]
            self.uniforms = [device.uniform(k.push) if "uniform" in t else None
                             for k, t in zip(plan.kernels, self.types)]
            self.grids = [device.grid(k.invocations, k.local_size) for k in plan.kernels]
            own = plan.buffers if self.guard else plan.status
            self._own = {b.name: self._new_slots(b) for b in own}

    def _new_slots(self, buf: PlanBuffer) -> list[Slot]:
        """A buffer of the executable's own (one Slot per chunk), zeroed (status, scratch) or
        undefined, each chunk between the guard pattern when guarded."""
        g, slots = self.guard, []
        for words in buf.chunks:
            init = guard_pattern(words + 2 * g) if g else np.zeros(words, np.uint32)
            if buf.zeroed:
                init[g:g + words] = 0
            slots.append(Slot(self.device.tensor(init), words + 2 * g))
        return slots

    @staticmethod
    def _tensor_of(slots: Sequence[Slot]) -> Any:
        return slots[0].tensor if len(slots) == 1 else tuple(s.tensor for s in slots)

    @property
    def owned_bytes(self) -> int:
        return sum(s.nbytes for slots in self._own.values() for s in slots)

    def _chunk_data(self, tensors: Any, buf: PlanBuffer) -> list[np.ndarray]:
        """The host copies of a buffer's words (one per chunk), past the front guard."""
        g, each = self.guard, tensors if isinstance(tensors, tuple) else (tensors,)
        return [t.data()[g:g + words] for t, words in zip(each, buf.chunks)]

    def _slots(self, given: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[Slot, bool]]]:
        """Buffers for every plan buffer: given, owned, or from the pool (runtime/executable.py
        says why in this order)."""
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
        """The binding for the `given` buffers and the rest (caller holds the device)."""
        tensors, taken = self._slots(given)
        try:
            yield self.binding(tensors, host)
        finally:
            for slot, clean in taken:
                self.device.pool.give(slot, clean, self.plan.name)

    def given(self, inputs: Sequence[Any], out: Any) -> dict[str, Any]:
        return {n: self._fit(t, self.plan.buffer(n))
                for n, t in zip((*self.plan.inputs, self.plan.output), (*inputs, out))}

    def _fit(self, t: Any, buf: PlanBuffer) -> Any:
        """The buffers of device tensor `t` bound for `buf` (see runtime/executable.py)."""
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
        key = (host, *(id(t) for t in flat(tensors.values())))
        found = self._bindings.get(key)
        if found is not None and found.alive():
            self._bindings.move_to_end(key)
            return found
        for old in [k for k, b in self._bindings.items() if not b.alive()]:
            del self._bindings[old]
        found = self._bindings[key] = Binding(self, tensors, host)
        if len(self._bindings) > self.BINDINGS:
            self._bindings.popitem(last=False)
        return found

    def _run(self, binding: Binding) -> None:
        """Every kernel in one submission; waits only for what the binding reads back."""
        encoder = self.device.device.create_command_encoder()
        binding.encode(self, encoder)
        self.device.submit(encoder, binding.reads)

    def _take_status(self) -> dict[str, np.ndarray]:
        """The status buffers as the last run read them back; any that it set are zeroed
        again on the device (queue.write_buffer: before the next call's kernels)."""
        status = {}
        g = self.guard
        for b in self.plan.status:
            slot = self._own[b.name][0]
            data = slot.tensor.data()[g:g + b.words]
            status[b.name] = from_words(data, self._dtypes[b.name], (b.count,))
            if data.any():
                data[:] = 0
                slot.sync(self.device, "up")
        return status

    def run(self, arrays: Sequence[np.ndarray]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Upload the input arrays' raw bytes, run every kernel, return the output (a fresh
        array of its dtype and the output shape) and the status buffers by name."""
        plan = self.plan
        with self.device.use(plan.name), self.bound({}, host=True) as binding:
            for name, array in zip(plan.inputs, arrays):
                buf, tensors = plan.buffer(name), binding.tensors[name]
                to_chunks(array, buf.count, self._chunk_data(tensors, buf))
                for t in flat([tensors]):
                    self.device.upload(t)
            self._run(binding)
            out = plan.buffer(plan.output)
            return (from_chunks(self._chunk_data(binding.tensors[out.name], out),
                                self._dtypes[out.name], plan.output_shape), self._take_status())

    def run_device(self, inputs: Sequence[Any], out: Any) -> tuple[Any, dict[str, np.ndarray]]:
        """Run every kernel on device tensors (in plan.inputs order) writing `out`; only the
        status buffers (if any) come back to the host."""
        with self.device.use(self.plan.name):
            fits = (id(self.device.limits), *((t.words, t.chunk_words) for t in (*inputs, out)))
            if fits not in self._fits:  # the checks depend on the sizes and limits alone
                self._check(inputs, out)
                if len(self._fits) >= self.BINDINGS:
                    self._fits.clear()
                self._fits.add(fits)
            with self.bound(self.given(inputs, out), host=False) as binding:
                self._run(binding)
                return out, self._take_status()

    def _check(self, inputs: Sequence[Any], out: Any) -> None:
        """Refuse tensors the kernels cannot bind on this device, or too small for the plan."""
        names = (*self.plan.inputs, self.plan.output)
        for k in self.plan.kernels:
            self.device.check_launch(self.plan.name, k.local_size, [
                (n, 4 * min(t.words, t.chunk_words or t.words))
                for n, t in zip(names, (*inputs, out)) if n in k.buffers])
        for n, t in zip(names, (*inputs, out)):
            if t.words < self.plan.buffer(n).words:
                raise DeviceError(f"{self.plan.name}: buffer {n} needs "
                                  f"{self.plan.buffer(n).words} words, the tensor bound "
                                  f"to it has {t.words}")

    def guard_damage(self) -> list[str]:
        """Guard words that differ from the pattern after the last run() (see
        runtime/executable.py)."""
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
        """The buffer of an owned plan buffer (guarded executables: tests corrupt guards)."""
        return self._own[name][0].tensor
