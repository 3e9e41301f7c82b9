"""Executables: a launch plan (dmlc.plan, what the compiler hands over) bound to device buffers
and pre-recorded sequences.

An Executable owns no tensor-sized memory: each call takes its input, output and scratch buffers
from the device's buffer pool (arena.py) or uses the caller's device tensors, and gives pooled
ones back afterwards; only the status buffers (a few words) are kept, shared by the executables
of the same kernels. A kp algorithm is bound to fixed tensors, so a set of buffers gets a
Binding (algorithms and recorded sequences), and the last BINDINGS of a kernel's are kept
(plan_buffers.py): the pool hands the same buffers back to a repeated call, which replays what
was recorded; a call on other buffers or at another size binds the least recently used one
again (Binding.rebind), so no call after the first few makes a Vulkan object.
Each kernel gets its own sequence. With dmlc's kp (Device.ordered: a global barrier begins each
dispatch and upload) a call's sequences are submitted without waiting for the work before them,
which the barriers order; with kp's own barriers (a dispatch after its tensors' uploads only)
each waits for the one before.

With plan.guard_words (tests only, with shaders generated for it) the executable instead owns
every buffer, each between two guard regions of known contents that guard_damage() checks.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..plan import LaunchPlan, PlanBuffer
from .buffers import from_chunks, to_chunks
from .device import Device, _import_kp, check_kp_size
from .plan_buffers import PlanBuffers, flat, guard_pattern
from .pool import Slot


class Binding:
    """The plan's kernels bound to one kp tensor per buffer: an algorithm per kernel and the
    sequences that run them (host=True: the first also uploads the inputs and the last
    downloads the output and status buffers; else the first uploads the inputs named in
    `uploads`, a call's host arrays: DeviceTensor.staged)."""

    __slots__ = ("tensors", "algorithms", "sequences")

    def __init__(self, exe: Executable, tensors: dict[str, Any], host: bool,
                 uploads: tuple[str, ...] = ()) -> None:
        device, plan = exe.device, exe.plan
        kernels = () if exe.copies else plan.kernels  # copies of runs: no algorithm
        self.algorithms = [device.algorithm(flat(tensors[n] for n in k.buffers), k.spirv,
                                            device.grid(k.invocations, k.local_size), k.push)
                           for k in kernels]
        self.sequences = [device.sequence() for _ in kernels or (plan.copy,)]
        self._record(exe, tensors, host, uploads)

    def rebind(self, exe: Executable, tensors: dict[str, Any], host: bool,
               uploads: tuple[str, ...] = ()) -> None:
        """The same kernels bound to other tensors, sizes and push words (another executable's
        of the same code: a generic kernel at another size), keeping their pipelines."""
        device = exe.device
        if any(device.runs(seq) for seq in self.sequences):
            device.wait()  # Vulkan forbids updating a descriptor set that submitted work uses
        for algo, k in zip(self.algorithms, exe.plan.kernels):
            device.rebind(algo, flat(tensors[n] for n in k.buffers),
                          device.grid(k.invocations, k.local_size), k.push)
        for seq in self.sequences:
            seq.clear()
        self._record(exe, tensors, host, uploads)

    def _record(self, exe: Executable, tensors: dict[str, Any], host: bool,
                uploads: tuple[str, ...]) -> None:
        kp, plan = _import_kp(), exe.plan
        self.tensors = tensors
        if exe.copies:  # one sequence: the uploads, the copy of runs, the download
            assert plan.copy is not None
            (seq,) = self.sequences
            ups = plan.inputs if host else uploads
            if ups:
                seq.record(kp.OpTensorSyncDevice([tensors[n] for n in ups]))
            seq.record(copy_runs_op(plan, tensors))
            if host:
                seq.record(kp.OpTensorSyncLocal([tensors[plan.output]]))
            return
        # guards are read back from the buffers a kernel binds: one none binds (an input no
        # kernel reads) was only uploaded, and reading it back in the same sequence, with no
        # dispatch's barrier between, is a read-after-write hazard of two copies
        bound = {n for k in plan.kernels for n in k.buffers}
        last = len(self.algorithms) - 1
        for i, (algo, seq) in enumerate(zip(self.algorithms, self.sequences)):
            if i == 0 and (host or uploads):
                seq.record(kp.OpTensorSyncDevice(flat(tensors[n] for n in
                                                      (plan.inputs if host else uploads))))
            seq.record(kp.OpAlgoDispatch(algo))
            if i == last:
                back = [b.name for b in plan.status]
                if host:
                    back = [b.name for b in plan.buffers if b.name in bound] if exe.guard \
                        else [plan.output, *back]
                if back:
                    seq.record(kp.OpTensorSyncLocal(flat(tensors[n] for n in back)))

    def alive(self) -> bool:
        """No tensor was destroyed since (a released device tensor, a pooled buffer dropped)."""
        return all(t.is_init() for t in flat(self.tensors.values()))

    def run(self, device: Device, wait: bool = True, staged: Sequence[Any] = ()) -> None:
        """Run the kernels in order, each after the one before: where kp orders submissions
        (Device.ordered) by its barriers, else by waiting for it. wait=False: submitted without
        waiting for the last (Device.submit), where kp can; wait=True: run to the end.
        `staged`: the staged inputs the first uploads from (kept while it is in flight)."""
        *first, last = self.sequences
        if device.ordered and not wait:  # kp's barriers order them: nothing waits
            for k, seq in enumerate(self.sequences):
                device.submit(seq, () if k else staged)
            return
        for seq in first:
            device.wait()
            seq.eval()
        if wait or not device.submits:
            device.wait()
            last.eval()
        else:
            device.submit(last, () if first else staged)


def copy_runs_op(plan: LaunchPlan, tensors: dict[str, Any]) -> Any:
    """kp's copy of a plan's runs (LaunchPlan.copy) between its bound tensors."""
    c = plan.copy
    assert c is not None
    return _import_kp().OpTensorCopyRuns(tensors[c.source], tensors[plan.output], c.offset,
                                         c.run, c.sizes, c.strides)


class Executable(PlanBuffers):
    """A launch plan ready to run on a device: run() with host arrays, run_device() with
    device tensors (what both backends share: plan_buffers.py)."""

    binding_type = Binding

    def __init__(self, device: Device, plan: LaunchPlan) -> None:
        self._init_buffers(device, plan)
        self.copies = device.copies and plan.copy is not None
        """The plan's kernels run as its copies of runs (one vkCmdCopyBuffer; no shader). A plan
        has runs only without guard words and with no buffer over one binding (artifact.runs,
        family/runs.py: program_runs)."""
        self._check_plan()
        with device.use(plan.name):
            if self.copies:  # every copy of this program shares bindings, recorded again
                self._share(("copies", plan.name), self._new_slots)
            else:
                self._share(tuple(k.spirv for k in plan.kernels), self._new_slots)

    def _check_plan(self) -> None:
        """Refuse a plan whose buffers or kernels this device cannot bind or launch."""
        plan, device = self.plan, self.device
        for buf in plan.buffers:
            check_kp_size(f"{plan.name}: buffer {buf.name}", 4 * max(buf.chunks))
        for k in () if self.copies else plan.kernels:
            device.check_launch(plan.name, k.local_size, [  # a binding per chunk
                (n, 4 * (c + 2 * self.guard)) for n in k.buffers for c in plan.buffer(n).chunks])

    def at(self, plan: LaunchPlan) -> Executable:
        """The executable of another plan of this one's kernels (a generic kernel's call at
        another size: other buffer sizes, grids, push words and runs): what __init__ makes,
        with what the kernels share on the device (bindings, status buffers) taken from this
        one instead of looked up again. Any other plan gets its own."""
        mine = self.plan
        if (self.guard or plan.guard_words or self.device.closed or plan.name != mine.name
                or (plan.copy is None) != (mine.copy is None) or plan.status != mine.status
                or len(plan.kernels) != len(mine.kernels)
                or any(a.code is not b.code for a, b in zip(plan.kernels, mine.kernels))):
            return Executable(self.device, plan)
        exe = object.__new__(Executable)
        exe.__dict__.update(self.__dict__)
        exe.plan = plan
        exe._check_plan()
        with self.device.use(plan.name):
            exe._signature = exe._signature_of()
        return exe

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

    def run(self, arrays: Sequence[np.ndarray]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Write the input arrays' raw bytes to the device, run every kernel in order, and
        return the output as a fresh array of its dtype and the program's output shape, with
        the status buffers (see PlanBuffer.role) by name."""
        plan = self.plan
        with self.device.use(plan.name), self.bound({}, host=True) as binding:
            self.device.wait()  # before the host writes buffers that submitted work may use
            for name, array in zip(plan.inputs, arrays):
                buf = plan.buffer(name)
                to_chunks(array, buf.count, self._chunk_data(binding.tensors[name], buf))
            binding.run(self.device)
            out = plan.buffer(plan.output)
            return (from_chunks(self._chunk_data(binding.tensors[out.name], out),
                                self._dtypes[out.name], plan.output_shape), self._take_status())

    def run_device(self, inputs: Sequence[Any], out: Any) -> tuple[Any, dict[str, np.ndarray]]:
        """Run every kernel on device tensors (DeviceTensor, in plan.inputs order) writing
        `out`; only the status buffers (if any) cross to the host."""
        with self.device.use(self.plan.name):
            self._check(inputs, out)
            staged = self.staged(inputs)
            with self.bound(self.given(inputs, out), False, tuple(staged)) as binding:
                binding.run(self.device, bool(self.plan.status),  # status: read now
                            [t for t in inputs if t.staged_slot is not None])
                for slot in staged.values():
                    slot.staged = False
                return out, self._take_status()
