"""Executables: a compiled program bound to device buffers and pre-recorded sequences.

An algorithm is bound to its tensors, so an Executable owns fixed "slot" tensors and its
recorded sequences, and a call rewrites the slots' data: pipelines are built once. Device
tensors get their own bindings (the last BINDINGS sets are kept). kp records no barrier between
dispatches in one sequence, so each kernel of a program gets its own sequence: separate eval()s
are ordered.
"""
from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any, Sequence

import numpy as np

from dmlc.ir import Program

from .buffers import from_words, to_words
from .device import Device, _import_kp, check_kp_size


def time_op(device: Device, op: Any) -> float:
    """Seconds one kp operation takes on the device, in a sequence of its own."""
    if device.timestamps:
        seq = device.manager.sequence(0, 2)
        seq.record(op)
        seq.eval()
        start, end = seq.get_timestamps()[:2]
        return (end - start) * 1e-9
    seq = device.manager.sequence()
    seq.record(op)
    t0 = time.perf_counter()
    seq.eval()
    return time.perf_counter() - t0


def buffer_copy_op(exe: "Executable") -> Any:
    """kp's OpTensorCopy (vkCmdCopyBuffer) from an executable's first input to its output."""
    kp = _import_kp()
    return kp.OpTensorCopy([exe.tensors[exe.program.inputs[0]], exe.tensors[exe.program.output]])


def guard_pattern(words: int) -> np.ndarray:
    """Words no kernel writes by accident: distinct, and neither 0 nor small."""
    return (np.arange(words, dtype=np.uint32) * np.uint32(0x9E3779B1)) ^ np.uint32(0xA5C3E10F)


class Executable:
    """A program bound to device buffers; call run() with the input arrays' words."""

    def __init__(self, device: Device, program: Program, spirv: Sequence[bytes],
                 launches: Sequence[tuple[int, int]], bindings: Sequence[Sequence[str]],
                 guard_words: int = 0) -> None:
        """`launches`: (invocations, local size) of each kernel, in order; `bindings`: the
        buffer names bound to each kernel's bindings 0, 1, ... guard_words (tests only, with
        shaders generated for it): each buffer's data sits between two guard regions of that
        many words, filled with a known pattern that guard_damage() checks."""
        self.device, self.program, self.guard = device, program, guard_words
        with device.use(program.name):
            self._build(spirv, launches, bindings)

    def _build(self, spirv: Sequence[bytes], launches: Sequence[tuple[int, int]],
               bindings: Sequence[Sequence[str]]) -> None:
        kp, device, program, guard_words = _import_kp(), self.device, self.program, self.guard
        for buf in program.buffers:
            check_kp_size(f"{program.name}: buffer {buf.name}", buf.words * 4)
        self._spirv, self._launches = list(spirv), list(launches)
        self._stage_buffers = [tuple(names) for names in bindings]
        for (_, local), names in zip(launches, self._stage_buffers):
            device.check_launch(program.name, local, [
                (n, (program.buffer(n).words + 2 * guard_words) * 4) for n in names])
        self.tensors = {b.name: device.tensor(self._initial_words(b.words))
                        for b in program.buffers}
        bound = list(self.tensors.values())
        self.algorithms = self._algorithms(self.tensors)
        # Scratch buffers start zeroed on the device (and kernels leave them zeroed).
        device.run_op(kp.OpTensorSyncDevice(bound))
        self._bindings: "OrderedDict[tuple[int, ...], tuple[list[Any], list[Any]]]" = OrderedDict()
        inputs = [self.tensors[name] for name in program.inputs]
        self._status = [b for b in program.buffers if b.role == "status"]
        status = [self.tensors[b.name] for b in self._status]
        self._upload: Any = None
        self.sequences = []
        for i, algo in enumerate(self.algorithms):
            seq = device.sequence()
            if i == 0:
                seq.record(kp.OpTensorSyncDevice(inputs))
            seq.record(kp.OpAlgoDispatch(algo))
            if i == len(self.algorithms) - 1:
                back = bound if guard_words else [self.tensors[program.output], *status]
                seq.record(kp.OpTensorSyncLocal(back))
            self.sequences.append(seq)

    def _algorithms(self, tensors: dict[str, Any]) -> list[Any]:
        """One kp algorithm per kernel, bound to its buffers' tensors."""
        return [self.device.algorithm([tensors[n] for n in names], code,
                                      self.device.grid(count, local))
                for code, (count, local), names in zip(self._spirv, self._launches,
                                                       self._stage_buffers)]

    def _initial_words(self, words: int) -> np.ndarray:
        """A buffer's first contents: zeros, between the guard pattern when guarded."""
        g = self.guard
        init = guard_pattern(words + 2 * g)
        init[g:g + words] = 0
        return init

    def _data(self, name: str) -> np.ndarray:
        """The host view of a buffer's words (past its front guard)."""
        return self.tensors[name].data()[self.guard:]

    def guard_damage(self) -> list[str]:
        """Guard words that differ from the pattern after the last run(), as 'buffer before[k]'
        or 'buffer after[k]' (k counts from the buffer's edge); empty when nothing strayed."""
        g, damage = self.guard, []
        for b in self.program.buffers:
            data, pattern = self.tensors[b.name].data(), guard_pattern(b.words + 2 * g)
            for where, lo in (("before", 0), ("after", g + b.words)):
                bad = np.nonzero(data[lo:lo + g] != pattern[lo:lo + g])[0]
                edge = g - 1 - bad[::-1] if where == "before" else bad
                damage += [f"{b.name} {where}[{int(k)}]" for k in edge]
        return damage

    def _write_inputs(self, arrays: Sequence[np.ndarray]) -> None:
        """Copy each input's raw bytes into its slot tensor's host memory (caller holds the lock)."""
        for name, array in zip(self.program.inputs, arrays):
            buf = self.program.buffer(name)
            to_words(array, buf.count, out=self._data(name)[:buf.words])

    def upload(self, arrays: Sequence[np.ndarray]) -> None:
        """Write the inputs to the device without running anything (for timing)."""
        kp = _import_kp()
        with self.device.use(self.program.name):
            self._write_inputs(arrays)
            if self._upload is None:
                self._upload = self.device.sequence()
                self._upload.record(kp.OpTensorSyncDevice(
                    [self.tensors[name] for name in self.program.inputs]))
            self._upload.eval()

    def time_kernels(self) -> float:
        """Seconds of device time for one run of every kernel (no transfers): Vulkan
        timestamps where the device has them, else the wall time of the pre-recorded evals."""
        kp = _import_kp()
        with self.device.use(self.program.name):
            return sum(time_op(self.device, kp.OpAlgoDispatch(a)) for a in self.algorithms)

    def _take_status(self) -> dict[str, np.ndarray]:
        """The status buffers as read back by the last run (caller holds the lock); any that
        the run set are zeroed again on the device for the next call."""
        status = {b.name: from_words(self._data(b.name), b.dtype.numpy, (b.count,))
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
        (see ir.Buffer.role) by name."""
        with self.device.use(self.program.name):
            self._write_inputs(arrays)
            for seq in self.sequences:
                seq.eval()
            out = self.program.buffer(self.program.output)
            return (from_words(self._data(out.name), out.dtype.numpy,
                               self.program.output_shape), self._take_status())

    BINDINGS = 8
    """Device-tensor bindings kept per executable (each holds its tensors alive)."""

    def run_device(self, inputs: Sequence[Any], out: Any) -> tuple[Any, dict[str, np.ndarray]]:
        """Run every kernel on device tensors (DeviceTensor, in program.inputs order) writing
        `out`; only the status buffers (if any) cross to the host. Each distinct set of tensors
        gets its own algorithms and recorded sequences (cheap: kp shares the pipeline's SPIR-V);
        the last BINDINGS sets are kept, so a repeated call is one eval per kernel."""
        kp = _import_kp()
        # Keyed on the kp tensors, which the entry holds, so their ids stay unique while it
        # lives. A pooled kp tensor (see Device.pool_take) keeps its bindings: a loop of one-shot
        # calls reuses one output buffer and creates no Vulkan objects.
        key = tuple(id(t.kp_tensor) for t in inputs) + (id(out.kp_tensor),)
        with self.device.use(self.program.name):
            entry = self._bindings.get(key)
            if entry is None:
                given = dict(zip(self.program.inputs, inputs))
                given[self.program.output] = out
                for (_, local), names in zip(self._launches, self._stage_buffers):
                    self.device.check_launch(self.program.name, local, [
                        (n, given[n].words * 4) for n in names if n in given])
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
