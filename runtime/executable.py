"""Executables: a launch plan (dmlc.plan, what the compiler hands over) bound to device buffers
and pre-recorded sequences.

An algorithm is bound to its tensors, so an Executable owns fixed "slot" tensors and its
recorded sequences, and a call rewrites the slots' data: pipelines are built once. Device
tensors get their own bindings (the last BINDINGS sets are kept). kp records no barrier between
dispatches in one sequence, so each kernel of a program gets its own sequence: separate eval()s
are ordered.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from dmlc.plan import LaunchPlan, PlanBuffer

from .buffers import from_words, to_words
from .device import Device, _import_kp, check_kp_size


def guard_pattern(words: int) -> np.ndarray:
    """Words no kernel writes by accident: distinct, and neither 0 nor small."""
    return (np.arange(words, dtype=np.uint32) * np.uint32(0x9E3779B1)) ^ np.uint32(0xA5C3E10F)


class Executable:
    """A launch plan bound to device buffers; call run() with the input arrays."""

    def __init__(self, device: Device, plan: LaunchPlan) -> None:
        """With plan.guard_words (tests only, with shaders generated for it), each buffer's
        data sits between two guard regions of that many words, filled with a known pattern
        that guard_damage() checks."""
        self.device, self.plan, self.guard = device, plan, plan.guard_words
        with device.use(plan.name):
            self._build()

    def _build(self) -> None:
        kp, device, plan, guard_words = _import_kp(), self.device, self.plan, self.guard
        for buf in plan.buffers:
            check_kp_size(f"{plan.name}: buffer {buf.name}", buf.nbytes)
        for k in plan.kernels:
            device.check_launch(plan.name, k.local_size, [
                (n, plan.buffer(n).nbytes + 8 * guard_words) for n in k.buffers])
        self.tensors = {b.name: device.tensor(self._initial_words(b)) for b in plan.buffers}
        bound = list(self.tensors.values())
        self.algorithms = self._algorithms(self.tensors)
        # Scratch buffers start zeroed on the device (and kernels leave them zeroed).
        device.run_op(kp.OpTensorSyncDevice(bound))
        self._bindings: OrderedDict[tuple[int, ...], tuple[list[Any], list[Any]]] = OrderedDict()
        inputs = [self.tensors[name] for name in plan.inputs]
        self._status = plan.status
        status = [self.tensors[b.name] for b in self._status]
        self._output = plan.buffer(plan.output)
        self._dtypes = {b.name: np.dtype(b.dtype) for b in plan.buffers}
        self._upload: Any = None
        self.sequences = []
        for i, algo in enumerate(self.algorithms):
            seq = device.sequence()
            if i == 0:
                seq.record(kp.OpTensorSyncDevice(inputs))
            seq.record(kp.OpAlgoDispatch(algo))
            if i == len(self.algorithms) - 1:
                back = bound if guard_words else [self.tensors[plan.output], *status]
                seq.record(kp.OpTensorSyncLocal(back))
            self.sequences.append(seq)

    def _algorithms(self, tensors: dict[str, Any]) -> list[Any]:
        """One kp algorithm per kernel, bound to its buffers' tensors."""
        return [self.device.algorithm([tensors[n] for n in k.buffers], k.spirv,
                                      self.device.grid(k.invocations, k.local_size))
                for k in self.plan.kernels]

    def _initial_words(self, buf: PlanBuffer) -> np.ndarray:
        """A buffer's first contents: zeros (unless the plan leaves them undefined), between
        the guard pattern when guarded."""
        g = self.guard
        init = guard_pattern(buf.words + 2 * g)
        if buf.zeroed:
            init[g:g + buf.words] = 0
        return init

    def _data(self, name: str) -> np.ndarray:
        """The host view of a buffer's words (past its front guard)."""
        return self.tensors[name].data()[self.guard:]

    def guard_damage(self) -> list[str]:
        """Guard words that differ from the pattern after the last run(), as 'buffer before[k]'
        or 'buffer after[k]' (k counts from the buffer's edge); empty when nothing strayed."""
        g, damage = self.guard, []
        for b in self.plan.buffers:
            data, pattern = self.tensors[b.name].data(), guard_pattern(b.words + 2 * g)
            for where, lo in (("before", 0), ("after", g + b.words)):
                bad = np.nonzero(data[lo:lo + g] != pattern[lo:lo + g])[0]
                edge = g - 1 - bad[::-1] if where == "before" else bad
                damage += [f"{b.name} {where}[{int(k)}]" for k in edge]
        return damage

    def _write_inputs(self, arrays: Sequence[np.ndarray]) -> None:
        """Copy each input's raw bytes into its slot tensor's host memory (caller holds the
        lock)."""
        for name, array in zip(self.plan.inputs, arrays):
            buf = self.plan.buffer(name)
            to_words(array, buf.count, out=self._data(name)[:buf.words])

    def upload(self, arrays: Sequence[np.ndarray]) -> None:
        """Write the inputs to the device without running anything (for timing)."""
        kp = _import_kp()
        with self.device.use(self.plan.name):
            self._write_inputs(arrays)
            if self._upload is None:
                self._upload = self.device.sequence()
                self._upload.record(kp.OpTensorSyncDevice(
                    [self.tensors[name] for name in self.plan.inputs]))
            self._upload.eval()

    def _take_status(self) -> dict[str, np.ndarray]:
        """The status buffers as read back by the last run (caller holds the lock); any that
        the run set are zeroed again on the device for the next call."""
        status = {b.name: from_words(self._data(b.name), self._dtypes[b.name], (b.count,))
                  for b in self._status}
        dirty = [b for b in self._status if status[b.name].view(np.uint8).any()]
        if dirty:
            kp = _import_kp()
            for b in dirty:
                self._data(b.name)[:b.words] = 0
            self.device.run_op(
                kp.OpTensorSyncDevice([self.tensors[b.name] for b in dirty]))
        return status

    def run(self, arrays: Sequence[np.ndarray]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Upload the input arrays' raw bytes, run every kernel in order, and return the output
        as a fresh array of its dtype and the program's output shape, with the status buffers
        (see PlanBuffer.role) by name."""
        with self.device.use(self.plan.name):
            self._write_inputs(arrays)
            for seq in self.sequences:
                seq.eval()
            out = self._output
            return (from_words(self._data(out.name), self._dtypes[out.name],
                               self.plan.output_shape), self._take_status())

    BINDINGS = 8
    """Device-tensor bindings kept per executable (each holds its tensors alive)."""

    def run_device(self, inputs: Sequence[Any], out: Any) -> tuple[Any, dict[str, np.ndarray]]:
        """Run every kernel on device tensors (DeviceTensor, in plan.inputs order) writing
        `out`; only the status buffers (if any) cross to the host. Each distinct set of tensors
        gets its own algorithms and recorded sequences (cheap: kp shares the pipeline's SPIR-V);
        the last BINDINGS sets are kept, so a repeated call is one eval per kernel."""
        kp = _import_kp()
        # Keyed on the kp tensors, which the entry holds, so their ids stay unique while it
        # lives. A pooled kp tensor (see Device.pool_take) keeps its bindings: a loop of one-shot
        # calls reuses one output buffer and creates no Vulkan objects.
        key = tuple(id(t.kp_tensor) for t in inputs) + (id(out.kp_tensor),)
        with self.device.use(self.plan.name):
            entry = self._bindings.get(key)
            if entry is None:
                given = dict(zip(self.plan.inputs, inputs))
                given[self.plan.output] = out
                for k in self.plan.kernels:
                    self.device.check_launch(self.plan.name, k.local_size, [
                        (n, given[n].words * 4) for n in k.buffers if n in given])
                tensors = {**self.tensors, **{n: t.kp_tensor for n, t in given.items()}}
                seqs = []
                for algo in self._algorithms(tensors):
                    seq = self.device.sequence()
                    seq.record(kp.OpAlgoDispatch(algo))
                    seqs.append(seq)
                if self._status:
                    seqs[-1].record(kp.OpTensorSyncLocal([self.tensors[b.name]
                                                          for b in self._status]))
                entry = ([t.kp_tensor for t in (*inputs, out)], seqs)
                for old in [k for k, (ts, _) in self._bindings.items()
                            if not all(t.is_init() for t in ts)]:  # released since
                    del self._bindings[old]
                self._bindings[key] = entry
                if len(self._bindings) > self.BINDINGS:
                    self._bindings.popitem(last=False)
            else:
                self._bindings.move_to_end(key)
            for seq in entry[1]:
                seq.eval()
            return out, self._take_status()
