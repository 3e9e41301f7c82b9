"""Calling a compiled program on the Vulkan device: the callable that dmlc.compile() returns.

A CompiledKernel wraps a device-free CompiledProgram (artifact.py). Its first call binds the
program's launch plan to the process's device (an Executable: buffers, pipelines, recorded
sequences, reused by later calls); every call checks its arguments first (arguments.py). The
runtime is imported at that first call, not before: compiling needs no device.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .arguments import check_device_tensor, check_out_overlap, is_device_tensor
from .artifact import CompiledProgram, Stage, results
from .descriptors import OperatorDesc, TensorDesc
from .errors import ValidationError
from .ir import Program
from .lower.checks import raise_for_status
from .plan import LaunchPlan


class CompiledKernel:
    """A compiled operator. Call it with numpy arrays in the descriptor's order (input, indices,
    updates as the operator has them); it returns the output as a new numpy array. Device
    tensors in (or out=) keep the result on the device. Everything but the call itself (`ir`,
    `glsl`, `spirv`, `stages`, `reference()`, ...) is the wrapped CompiledProgram's."""

    def __init__(self, compiled: CompiledProgram,
                 in_place: Callable[[], CompiledKernel] | None = None) -> None:
        self.compiled = compiled
        """The device-free artifact: descriptor, IR, GLSL, SPIR-V, launch plan."""
        self._executable: Any = None
        self._in_place = in_place
        """A scatter's kernel that updates the data tensor itself (lower/scatter.py)."""

    def __repr__(self) -> str:
        return f"CompiledKernel({self.compiled!r})"

    @property
    def descriptor(self) -> OperatorDesc:
        """The validated descriptor (its OutputTensor filled in)."""
        return self.compiled.descriptor

    @property
    def program(self) -> Program:
        return self.compiled.program

    @property
    def stages(self) -> tuple[Stage, ...]:
        """Every kernel the program dispatches, in order (scatter has two)."""
        return self.compiled.stages

    @property
    def check_indices(self) -> bool:
        return self.compiled.check_indices

    @property
    def guard_words(self) -> int:
        return self.compiled.guard_words

    @property
    def target(self) -> str:
        return self.compiled.target

    @property
    def ir(self) -> str:
        return self.compiled.ir

    @property
    def glsl(self) -> str:
        return self.compiled.glsl

    @property
    def spirv(self) -> bytes:
        return self.compiled.spirv

    @property
    def output(self) -> TensorDesc:
        return self.compiled.output

    @property
    def plan(self) -> LaunchPlan:
        return self.compiled.plan

    def reference(self, *arrays: Any) -> np.ndarray:
        """The same computation by the IR interpreter in numpy (no Vulkan)."""
        return self.compiled.reference(*arrays)

    @property
    def held_bytes(self) -> int:
        """Memory the kernel holds between calls: its artifact, and what its executable owns
        on the device (status buffers only: calls take the rest from the buffer pool)."""
        exe = self._executable
        return self.compiled.nbytes + (exe.owned_bytes if exe is not None else 0)

    def executable(self) -> Any:
        """The program bound to device buffers (created on first use, then reused; again after
        the device was closed)."""
        if self._executable is None or self._executable.device.closed:
            from dmlc.runtime import Executable, get_device
            self._executable = Executable(get_device(), self.compiled.plan)
        return self._executable

    def __call__(self, *arrays: Any, out: Any = None) -> Any:
        """Run on the device. With numpy arrays: returns a new numpy array. With any
        DeviceTensor argument, or out=: the result stays on the device (a DeviceTensor; `out`,
        of the output's shape and dtype, is written and returned, which makes a repeated call
        one pre-recorded dispatch per kernel). DML_SPLIT returns a tuple: views of the one
        buffer its outputs share."""
        # a view's elements packed first, as numpy arrays are made contiguous for the upload
        arrays = tuple(a.contiguous() if is_device_tensor(a) else a for a in arrays)
        checked = self.compiled.arguments(arrays)
        if out is None and not any(is_device_tensor(a) for a in checked):
            result, status = self.executable().run(checked)
        elif self.guard_words:
            raise ValidationError(self.descriptor.operator, "arguments", "numpy arrays (a "
                                  "kernel compiled with guard_words runs on the host path)",
                                  "a DeviceTensor or out=")
        else:
            result, status = self._run_device(checked, out)
        if self.check_indices:
            raise_for_status(self.descriptor, status)
        return results(self.descriptor, result)

    def _run_device(self, checked: list[Any], out: Any) -> tuple[Any, dict[str, np.ndarray]]:
        """The device-tensor path: host arrays among the arguments are uploaded, and the output
        goes to `out` or to a new device tensor."""
        if not all(is_device_tensor(a) for a in checked):
            from dmlc.runtime.tensor import to_device
            checked = [a if is_device_tensor(a) else to_device(a) for a in checked]
        if out is None:
            from dmlc.runtime.tensor import empty
            out = empty(self.output.sizes, self.output.data_type.numpy, zeroed=False)
        else:
            check_device_tensor(self.descriptor.operator, "out", out, self.output)
            check_out_overlap(self.descriptor, self.program.inputs, checked, out)
            if self._updates_in_place(checked, out):
                assert self._in_place is not None
                return self._in_place().executable().run_device(checked[1:], out)
        return self.executable().run_device(checked, out)

    def _updates_in_place(self, checked: list[Any], out: Any) -> bool:
        """A scatter whose out= is its data tensor: only the updates are written (the copying
        form would also be right, at the cost of the whole tensor)."""
        return (self._in_place is not None and self.program.inputs[0] == "input"
                and checked[0].kp_tensor is out.kp_tensor)
