"""Executables on WebGPU: a launch plan (dmlc.plan) bound to wgpu buffers, its kernels'
pipelines made once, every call one submission.

As on Vulkan (runtime/executable.py; what both share is runtime/plan_buffers.py), an
executable owns no tensor-sized memory: each call takes its buffers from the device's pool or
uses the caller's device tensors; only the status buffers are its own (every buffer, between
guard regions, with plan.guard_words). What differs:
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

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...plan import LaunchPlan, PlanBuffer
from ..buffers import from_chunks, to_chunks
from ..plan_buffers import PlanBuffers, flat, guard_pattern
from ..pool import Slot
from .buffers import WgpuTensor
from .device import Device


class Binding:
    """The plan's kernels bound to one set of buffers: a bind group per kernel, the copies a
    kernel that reads a buffer it writes needs first, and what a run reads back."""

    __slots__ = ("tensors", "groups", "copies", "reads")

    def __init__(self, exe: Executable, tensors: dict[str, Any], host: bool,
                 uploads: tuple[str, ...] = ()) -> None:
        """uploads: none here (run_device writes staged inputs first, in queue order)."""
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


class Executable(PlanBuffers):
    """A launch plan ready to run on a WebGPU device: run() with host arrays, run_device()
    with device tensors (what both backends share: plan_buffers.py)."""

    binding_type = Binding

    def __init__(self, device: Device, plan: LaunchPlan) -> None:
        self._init_buffers(device, plan)
        g = self.guard
        for buf in plan.buffers:
            for words in buf.chunks:
                device.check_size(f"{plan.name}: buffer {buf.name}", 4 * (words + 2 * g))
        for k in plan.kernels:
            device.check_launch(plan.name, k.local_size, [
                (n, 4 * (c + 2 * g)) for n in k.buffers for c in plan.buffer(n).chunks])
        self._fits: set[tuple] = set()
        """The sizes of tensors run_device checked against the device's limits (unchanged)."""
        with device.use(plan.name):
            self.types = [k.binding_types for k in plan.kernels]
            self.pipelines = [device.pipeline(k.wgsl, t) for k, t in zip(plan.kernels, self.types)]
            self.uniforms = [device.uniform(k.push) if "uniform" in t else None
                             for k, t in zip(plan.kernels, self.types)]
            self.grids = [device.grid(k.invocations, k.local_size) for k in plan.kernels]
            self._share(tuple((k.wgsl, t) for k, t in zip(plan.kernels, self.types)),
                        self._new_slots)

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

    def _run(self, binding: Binding) -> None:
        """Every kernel in one submission; waits only for what the binding reads back."""
        encoder = self.device.device.create_command_encoder()
        binding.encode(self, encoder)
        self.device.submit(encoder, binding.reads)

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
            for slot in self.staged(inputs).values():  # queued writes: before the submission
                slot.sync(self.device, "up")
            with self.bound(self.given(inputs, out), host=False) as binding:
                self._run(binding)
                return out, self._take_status()
