"""What compiling produces, before any device: the validated descriptor, the IR program, each
kernel's GLSL and SPIR-V with its launch size, and the launch plan the runtime runs.

Nothing here touches Vulkan. The IR interpreter gives the same results in numpy (`reference`),
and call.py binds a compiled program to the device to run it.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from .arguments import check_arguments
from .descriptors import OperatorDesc, SplitDesc, TensorDesc
from .ir import Program
from .ir.printer import render_program
from .lower.checks import raise_for_status
from .plan import LaunchPlan, PlanBuffer, PlanKernel


@dataclass(frozen=True)
class Stage:
    """One kernel of a compiled program: its GLSL, SPIR-V and launch size."""

    name: str
    glsl: str
    spirv: bytes
    invocations: int
    local_size: int
    buffers: tuple[str, ...] = ()
    """The program buffers bound to this kernel's bindings 0, 1, ..."""


@dataclass(frozen=True, eq=False)
class CompiledProgram:
    """A compiled operator, device-free: what dmlc.compile() built (a CompiledKernel wraps it to
    run it on the device)."""

    descriptor: OperatorDesc
    """The validated descriptor (its OutputTensor filled in)."""
    program: Program
    stages: tuple[Stage, ...]
    """Every kernel the program dispatches, in order (scatter has two)."""
    check_indices: bool = False
    """Checked mode: the device looks for out-of-range indices and the call raises
    IndexOutOfRangeError for the first one (in row-major order) instead of clamping."""
    guard_words: int = 0
    """Tests only: every buffer sits between guard regions of this many words (see
    codegen.glsl._declarations and Executable.guard_damage); numpy arguments only."""
    target: str = "gpu"
    """What the kernels are tuned for: "cpu" or "gpu" (compiler/target.py)."""
    in_place: bool = False
    """A scatter that updates its data tensor: the program's inputs are the indices and
    updates, and its output is the data tensor (lower/scatter.py)."""

    @property
    def ir(self) -> str:
        """The IR program as text."""
        return render_program(self.program)

    @property
    def glsl(self) -> str:
        """GLSL source of every stage, in dispatch order."""
        return "\n".join(s.glsl for s in self.stages)

    @property
    def spirv(self) -> bytes:
        """SPIR-V of the stage that writes the output (the last one; see `stages` for all)."""
        return self.stages[-1].spirv

    @property
    def output(self) -> TensorDesc:
        assert self.descriptor.output is not None
        return self.descriptor.output

    @property
    def nbytes(self) -> int:
        """Bytes of the artifact's text and code (GLSL and SPIR-V of every stage)."""
        return sum(len(s.glsl) + len(s.spirv) for s in self.stages)

    @functools.cached_property
    def plan(self) -> LaunchPlan:
        """What the runtime needs to run the program (built once)."""
        return launch_plan(self.program, self.stages, self.guard_words)

    def arguments(self, arrays: tuple[Any, ...]) -> list[Any]:
        """The call's arguments checked against the program inputs (arguments.py)."""
        return check_arguments(self.descriptor, self.program.inputs, arrays)

    def reference(self, *arrays: Any) -> np.ndarray:
        """The same computation by the IR interpreter in numpy (no Vulkan)."""
        from .ir.interp import run_buffers  # numpy work, loaded only by who asks for it
        bufs = run_buffers(self.program, *self.arguments(arrays))
        if self.check_indices:
            raise_for_status(self.descriptor, bufs)
        raw = bufs[self.program.output]
        return results(self.descriptor,
                       raw.view(self.output.data_type.numpy).reshape(self.output.sizes).copy())


def results(desc: OperatorDesc, output: Any) -> Any:
    """What a call returns for the program's output (a numpy array or a DeviceTensor): the
    output itself, or for DML_SPLIT the tuple of its outputs, each a view of its region of the
    shared buffer (no copy)."""
    if not isinstance(desc, SplitDesc):
        return output
    flat = output.reshape(-1)
    return tuple(flat[start:start + t.element_count].reshape(t.sizes)
                 for start, t in zip(desc.output_starts, desc.outputs))


def launch_plan(program: Program, stages: tuple[Stage, ...], guard_words: int = 0) -> LaunchPlan:
    """The launch plan of `program`, whose kernels compiled to `stages`."""
    buffers = tuple(PlanBuffer(b.name, b.dtype.numpy.name, b.count, b.words, b.role)
                    for b in program.buffers)
    kernels = tuple(PlanKernel(s.name, s.spirv, s.invocations, s.local_size, s.buffers)
                    for s in stages)
    return LaunchPlan(program.name, buffers, kernels, program.inputs, program.output,
                      program.output_shape, guard_words)
