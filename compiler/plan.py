"""The launch plan: everything the runtime needs to run a compiled program, and nothing more.

The compiler hands the runtime this instead of its IR `Program`: the buffers (with their padded
sizes and roles), which buffers the caller passes and gets back, and the kernels in dispatch
order with their code (SPIR-V for Vulkan, WGSL for WebGPU, each made when a backend asks),
invocation counts and bindings. It holds plain values (and each kernel's code, behind
KernelCode: no IR, no numpy, no kp), so the runtime depends on this one module of the compiler
and not on dmlc.ir, and a plan can be built by hand for a shader dmlc did not generate (the
bench's copy shader).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Protocol

from .errors import DmlcError

MIN_STORAGE_BUFFER_RANGE = 2**27
"""Vulkan's smallest maxStorageBufferRange (128 MiB): what every device binds at once."""


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

    chunk_words: int = 0
    """0: one binding. Else the buffer is larger than one binding may be (the plan's
    maxStorageBufferRange) and is stored as several device buffers ("chunks") of this many
    words each (a power of two; the last one shorter), bound at consecutive bindings: word w
    lies in chunk w // chunk_words (codegen.glsl: chunked buffers)."""

    @property
    def nbytes(self) -> int:
        return self.words * 4

    @property
    def chunks(self) -> tuple[int, ...]:
        """The words of each device buffer holding this one (one entry when not chunked)."""
        if not self.chunk_words:
            return (self.words,)
        c = self.chunk_words
        return tuple(min(c, self.words - lo) for lo in range(0, self.words, c))


class KernelCode(Protocol):
    """A kernel's code for each backend, made when a backend first asks for it (the compiler's
    artifact.KernelCode): the Vulkan backend's SPIR-V (glslang), the WebGPU backend's WGSL."""

    def spirv(self) -> bytes: ...
    def wgsl(self) -> str: ...
    def binding_types(self) -> tuple[str, ...]:
        """WebGPU's buffer binding type of each binding ("read-only-storage", "storage", then
        "uniform" for a generic kernel's push words)."""
        ...


@dataclass(frozen=True)
class PlanKernel:
    """One dispatch: a compute shader run over `invocations` invocations (rounded up to whole
    workgroups of `local_size`; the runtime picks a grid within the device's limits)."""

    name: str
    code: bytes | KernelCode = field(repr=False)
    """Its code: SPIR-V (a plan built by hand for Vulkan), or each backend's, made on demand."""
    invocations: int
    local_size: int
    buffers: tuple[str, ...]
    """The buffers bound at bindings 0, 1, ... of the shader's descriptor set."""
    push: tuple[int, ...] = ()
    """A generic kernel's push constants (uint32 words: its sizes for this call), given to
    its algorithm; empty for a kernel whose sizes are baked in."""

    @property
    def spirv(self) -> bytes:
        """The Vulkan backend's SPIR-V (compiled by glslang at the first ask)."""
        return self.code if isinstance(self.code, bytes) else self.code.spirv()

    @property
    def wgsl(self) -> str:
        """The WebGPU backend's WGSL (rendered at the first ask)."""
        if isinstance(self.code, bytes):
            raise DmlcError(f"kernel {self.name} was built as SPIR-V only: it has no WGSL")
        return self.code.wgsl()

    @property
    def binding_types(self) -> tuple[str, ...]:
        """WebGPU's binding type of each binding (KernelCode.binding_types)."""
        if isinstance(self.code, bytes):
            raise DmlcError(f"kernel {self.name} was built as SPIR-V only: it has no WGSL")
        return self.code.binding_types()


@dataclass(frozen=True)
class PlanCopy:
    """What the kernels do, as copies of contiguous runs of bytes from one input buffer to the
    output (a copy or slice of a view whose innermost elements lie together): a backend with a
    copy command (Vulkan's vkCmdCopyBuffer) may run these instead of the kernels. One run of
    `run` bytes per index of `sizes` (row-major), read at byte offset + sum(index * strides)
    of `source` and written right after the one before in the output, from its start."""

    source: str
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    """Bytes between runs along each of `sizes` (any sign)."""
    offset: int
    run: int

    @property
    def count(self) -> int:
        return math.prod(self.sizes)


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
    copy: PlanCopy | None = None
    """The kernels' work as copies of runs of bytes, where the program is one (PlanCopy)."""

    def buffer(self, name: str) -> PlanBuffer:
        for b in self.buffers:
            if b.name == name:
                return b
        raise KeyError(name)

    @functools.cached_property
    def status(self) -> tuple[PlanBuffer, ...]:
        """The status buffers, read back after every call (found once: every call asks)."""
        return tuple(b for b in self.buffers if b.role == "status")

    def within(self, limits: PlanLimits) -> bool:
        """Whether every kernel binds and launches within `limits` (the planner's choices; the
        runtime checks buffer sizes and grids against its device at every launch)."""
        return all(self.chunked_for(b, limits.maxStorageBufferRange) for b in self.buffers) and all(
            self.bindings(k) <= limits.maxPerStageDescriptorStorageBuffers
            and k.local_size <= limits.maxComputeWorkGroupInvocations for k in self.kernels)

    def chunked_for(self, b: PlanBuffer, binding_bytes: int) -> bool:
        """Whether `b` is chunked as a device whose bindings hold `binding_bytes` needs, and as
        its device tensors are (codegen.chunks.chunk_words): whole when it fits, else in chunks
        of the largest power of two that fits."""
        g = self.guard_words
        if not b.chunk_words:
            return 4 * (b.words + 2 * g) <= binding_bytes
        return 4 * (b.chunk_words + 2 * g) <= binding_bytes < 4 * (2 * b.chunk_words + 2 * g) \
            and 4 * (b.words + 2 * g) > binding_bytes

    def bindings(self, k: PlanKernel) -> int:
        """Storage buffers kernel `k` binds: one per buffer, one per chunk of a chunked one."""
        return sum(len(self.buffer(n).chunks) for n in k.buffers)

    def check(self, operator: str, limits: PlanLimits) -> None:
        """Raise DmlcError unless every kernel is within the limits it was planned for (a
        planner that broke them is a bug: said at compile time rather than by the device). A
        chunked buffer takes a binding per chunk."""
        gx, gy, _ = limits.maxComputeWorkGroupCount
        for k in self.kernels:
            groups = -(-k.invocations // k.local_size)  # the runtime's grid is 2-D
            bindings = self.bindings(k)
            if bindings > limits.maxPerStageDescriptorStorageBuffers and bindings > len(k.buffers):
                raise DmlcError(f"{operator}: kernel {k.name} binds {bindings} storage buffers "
                                f"(its tensors over maxStorageBufferRange = "
                                f"{limits.maxStorageBufferRange} take one per chunk), more than "
                                "the maxPerStageDescriptorStorageBuffers = "
                                f"{limits.maxPerStageDescriptorStorageBuffers} of {limits.source}")
            for value, limit, allowed in (
                    (bindings, "maxPerStageDescriptorStorageBuffers",
                     limits.maxPerStageDescriptorStorageBuffers),
                    (k.local_size, "maxComputeWorkGroupInvocations",
                     limits.maxComputeWorkGroupInvocations),
                    (groups, "maxComputeWorkGroupCount[0] * [1]", gx * gy)):
                if value > allowed:
                    raise DmlcError(f"{operator}: kernel {k.name} needs {limit} >= {value}, more "
                                    f"than the {allowed} of {limits.source} (a planner bug: "
                                    "please report it)")


@dataclass(frozen=True)
class PlanLimits:
    """The device limits a program is planned within (VkPhysicalDeviceLimits' names), carried
    as data so that compiling needs no device: filled from the selected device's limits when a
    compile asks the device (compiler/target.py), else DEFAULT. Every value is at least Vulkan's
    required minimum (MINIMUM), which every device meets.

    What each decides: maxPerStageDescriptorStorageBuffers, the inputs one join kernel reads
    (ops/join/lower.py: a tree of narrower joins under 8); maxComputeWorkGroupInvocations, the
    workgroup size (passes/schedule.py: at most 64, under every device's 128); the dispatch grid
    is the runtime's, within its device's maxComputeWorkGroupCount (2-D, so 65,535 per axis
    covers any buffer); maxPushConstantsSize bounds the push constants a kernel may take.

    Parameters
    ----------
    maxPerStageDescriptorStorageBuffers, maxComputeWorkGroupInvocations : int
        Vulkan's limits of those names.
    maxComputeWorkGroupCount : tuple of int
        Vulkan's limit, three axes.
    maxPushConstantsSize : int
        Vulkan's limit, bytes.
    source : str, default ""
        Where the values came from.
    maxStorageBufferRange : int, default 134217728
        Vulkan's limit, bytes.

    Raises
    ------
    ValidationError
        From dmlc.compile given these limits: a value under Vulkan's required minimum.

    Examples
    --------
    >>> limits = dmlc.PlanLimits(maxPerStageDescriptorStorageBuffers=4,
    ...                          maxComputeWorkGroupInvocations=128,
    ...                          maxComputeWorkGroupCount=(65535, 65535, 65535),
    ...                          maxPushConstantsSize=128)
    >>> t = dmlc.TensorDesc(data_type="FLOAT32", sizes=(1,))
    >>> kernel = dmlc.compile(dmlc.JoinDesc(inputs=(t,) * 6, axis=0), limits=limits)
    >>> print(kernel(*[np.full(1, k, np.float32) for k in range(6)]))
    [0. 1. 2. 3. 4. 5.]
    """

    maxPerStageDescriptorStorageBuffers: int
    maxComputeWorkGroupInvocations: int
    maxComputeWorkGroupCount: tuple[int, int, int]
    maxPushConstantsSize: int
    source: str = field(default="", compare=False)
    """Where the values come from (a device's name, or which table); not part of the key."""
    maxStorageBufferRange: int = MIN_STORAGE_BUFFER_RANGE
    """The most bytes one binding holds: a buffer larger is bound as several chunks
    (codegen.glsl.chunk_words). Vulkan's minimum, 128 MiB, by default."""

    FIELDS = ("maxPerStageDescriptorStorageBuffers", "maxComputeWorkGroupInvocations",
              "maxComputeWorkGroupCount", "maxPushConstantsSize")

    @classmethod
    def of(cls, limits: object, source: str) -> PlanLimits:
        """The plan's fields of any object with VkPhysicalDeviceLimits' names (runtime Limits)."""
        values = {f: getattr(limits, f) for f in cls.FIELDS}
        values["maxComputeWorkGroupCount"] = tuple(values["maxComputeWorkGroupCount"])
        return cls(**values, source=source,
                   maxStorageBufferRange=getattr(limits, "maxStorageBufferRange",
                                                 MIN_STORAGE_BUFFER_RANGE))

    def below_minimum(self) -> tuple[str, object, object] | None:
        """(field, minimum, value) of the first value under Vulkan's minimum (or not an int),
        None when every one meets it."""
        for name in self.FIELDS:
            least, value = getattr(MINIMUM, name), getattr(self, name)
            pairs = (zip(least, value) if isinstance(least, tuple) and isinstance(value, tuple)
                     and len(value) == 3 else [(least, value)])
            for lo, v in pairs:
                if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                    return name, least, value
        return None


MINIMUM = PlanLimits(maxPerStageDescriptorStorageBuffers=4, maxComputeWorkGroupInvocations=128,
                     maxComputeWorkGroupCount=(65535, 65535, 65535), maxPushConstantsSize=128,
                     source="Vulkan's required minimums")
"""What every Vulkan device offers (the spec's Required Limits; the mock ICD reports these): a
program planned within them runs on any device."""

DEFAULT = PlanLimits(maxPerStageDescriptorStorageBuffers=32, maxComputeWorkGroupInvocations=1024,
                     maxComputeWorkGroupCount=(65535, 65535, 65535), maxPushConstantsSize=128,
                     source="lavapipe's (the device-free default)")
"""The limits of a compile that asks no device (a target named), or whose loader cannot say:
lavapipe's.
dmlc's planner stays under 8 storage buffers and 64 invocations per kernel by itself, so these
plan exactly as MINIMUM does except joins of 4 or more inputs (7 per kernel here, 3 there), and
they are what most devices offer (current GPUs have at least 16 storage buffers per stage). A
kernel whose plan breaks its device's limits is planned again for that device at its first
call (call.py); limits="minimum" makes an artifact that runs unchanged everywhere."""
