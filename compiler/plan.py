"""The launch plan: everything the runtime needs to run a compiled program, and nothing more.

The compiler hands the runtime this instead of its IR `Program`: the buffers (with their padded
sizes and roles), which buffers the caller passes and gets back, and the kernels in dispatch
order with their SPIR-V, invocation counts and bindings. It holds plain values only (no IR, no
numpy, no kp), so the runtime depends on this one module of the compiler and not on dmlc.ir, and
a plan can be built by hand for a shader dmlc did not generate (the bench's copy shader).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PlanBuffer:
    """One buffer of the program, as the device holds it: raw 32-bit words."""

    name: str
    dtype: str
    """The numpy name of the element type ("float16", "int64", ...): how the caller's arrays
    are read into the words and the output read out of them."""
    count: int
    """Elements the program uses."""
    words: int
    """32-bit words the buffer occupies: `count` elements rounded up to whole 16-byte vectors
    (shaders may read any buffer as uvec4s). Guard words (LaunchPlan.guard_words) come on top."""
    role: str
    """'input' (written by each call), 'output' (read back by each call), 'scratch' (device
    only; zeroed before its first call, and the kernels leave it zeroed again), 'temp' (device
    only; undefined until a kernel of the call writes it) or 'status' (read back after every
    call and zeroed again by the runtime when a call set it)."""

    @property
    def zeroed(self) -> bool:
        """The kernels rely on the buffer holding zeros when a call starts (scratch and status
        buffers); every other buffer's contents are undefined until written."""
        return self.role in ("scratch", "status")

    @property
    def nbytes(self) -> int:
        return self.words * 4


@dataclass(frozen=True)
class PlanKernel:
    """One dispatch: a compute shader run over `invocations` invocations (rounded up to whole
    workgroups of `local_size`; the runtime picks a grid within the device's limits)."""

    name: str
    spirv: bytes = field(repr=False)
    invocations: int
    local_size: int
    buffers: tuple[str, ...]
    """The buffers bound at bindings 0, 1, ... of the shader's descriptor set."""
    push: tuple[int, ...] = ()
    """A generic kernel's push constants (uint32 words: its sizes for this call), given to
    its algorithm; empty for a kernel whose sizes are baked in."""


@dataclass(frozen=True)
class LaunchPlan:
    """A program ready to bind to a device: buffers, then kernels dispatched in order (each sees
    every write of the ones before it)."""

    name: str
    buffers: tuple[PlanBuffer, ...]
    kernels: tuple[PlanKernel, ...]
    inputs: tuple[str, ...]
    """The input buffers, in the order the caller passes arrays."""
    output: str
    output_shape: tuple[int, ...]
    """The shape the output buffer's first elements are returned in."""
    guard_words: int = 0
    """Tests only: the shaders were generated for buffers that sit between two guard regions of
    this many words each (see Executable.guard_damage)."""

    def buffer(self, name: str) -> PlanBuffer:
        for b in self.buffers:
            if b.name == name:
                return b
        raise KeyError(name)

    @property
    def status(self) -> tuple[PlanBuffer, ...]:
        """The status buffers, read back after every call."""
        return tuple(b for b in self.buffers if b.role == "status")
