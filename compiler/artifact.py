"""What compiling produces, before any device: the validated descriptor, the IR program, each
kernel's GLSL and SPIR-V with its launch size, and the launch plan the runtime runs.

Nothing here touches Vulkan. The IR interpreter gives the same results in numpy (`reference`),
and call.py binds a compiled program to the device to run it.
"""
from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from .codegen.glsl import chunk_words
from .dtypes import as_ndarray, padded_words
from .errors import ValidationError
from .family.checks import fmt
from .family.computed import computed_argument
from .family.generic import GenericProgram
from .family.index_check import raise_for_status
from .family.registry import OperatorDesc, dml_field, output_regions
from .family.runs import program_runs
from .family.tensor import TensorDesc
from .ir import Program
from .ir.interp import param_value
from .ir.kernel import kernel_buffers, push_values, unbindable
from .ir.printer import render_program
from .plan import DEFAULT, LaunchPlan, PlanBuffer, PlanCopy, PlanKernel, PlanLimits


class ProgramCode:
    """The code of a program's kernels for each backend, made at the first ask and kept: SPIR-V
    (the Vulkan backend's: glslang, every kernel at once, through the disk cache) from their
    GLSL, and WGSL (the WebGPU backend's) rendered from the IR. A compile for Vulkan asks for
    the SPIR-V at once (compiled.py); one for WebGPU never does, so it needs no glslang."""

    def __init__(self, program: Program, glsl: Sequence[str], guard_words: int,
                 binding_bytes: int, cache: bool = True) -> None:
        self.program, self.glsl = program, tuple(glsl)
        self.guard_words, self.binding_bytes, self.cache = guard_words, binding_bytes, cache
        self._spirv: tuple[bytes, ...] | None = None
        self._wgsl: tuple[tuple[str, tuple[str, ...]], ...] | None = None
        self._lock = threading.Lock()

    def spirv(self) -> tuple[bytes, ...]:
        with self._lock:
            if self._spirv is None:
                from . import toolchain
                self._spirv = tuple(toolchain.compile_many(list(self.glsl), cache=self.cache))
            return self._spirv

    def wgsl(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """Each kernel's WGSL and binding types (codegen.wgsl)."""
        with self._lock:
            if self._wgsl is None:
                from .codegen.wgsl import binding_types, render_wgsl
                p, g, bound = self.program, self.guard_words, self.binding_bytes
                self._wgsl = tuple((render_wgsl(k, p, g, bound), binding_types(k, p, g, bound))
                                   for k in p.kernels)
            return self._wgsl

    @property
    def nbytes(self) -> int:
        """Bytes of the code made so far."""
        return sum(map(len, self._spirv or ())) + sum(len(w) for w, _ in self._wgsl or ())


@dataclass(frozen=True)
class KernelCode:
    """Kernel `index` of a ProgramCode (dmlc.plan.KernelCode: what a launch plan carries)."""

    program: ProgramCode = field(repr=False, compare=False)
    index: int

    def spirv(self) -> bytes:
        return self.program.spirv()[self.index]

    def wgsl(self) -> str:
        return self.program.wgsl()[self.index][0]

    def binding_types(self) -> tuple[str, ...]:
        return self.program.wgsl()[self.index][1]


@dataclass(frozen=True)
class Stage:
    """One kernel of a compiled program: its GLSL, its code for each backend (SPIR-V, WGSL)
    and launch size."""

    name: str
    glsl: str
    code: bytes | KernelCode = field(repr=False)
    """SPIR-V, or the kernel's code made on demand (ProgramCode)."""
    invocations: int
    local_size: int
    buffers: tuple[str, ...] = ()
    """The program buffers bound to this kernel's bindings 0, 1, ..."""
    stride: int = 1
    """Items per invocation (the schedule's stride)."""
    count: int | None = None
    """A generic kernel: the push word holding its item count (its launch is sized per call
    from that word; `invocations` is then for the largest count)."""

    @property
    def spirv(self) -> bytes:
        """Its SPIR-V (glslang runs at the first ask, for every kernel of the program)."""
        return self.code if isinstance(self.code, bytes) else self.code.spirv()

    @property
    def wgsl(self) -> str:
        """Its WGSL (codegen.wgsl, rendered at the first ask)."""
        assert isinstance(self.code, KernelCode), "a stage built as SPIR-V only"
        return self.code.wgsl()


def stages_of(program: Program, glsl: Sequence[str], guard_words: int, binding_bytes: int,
              spirv_now: bool, cache: bool = True, wgsl_now: bool = False) -> tuple[Stage, ...]:
    """The program's stages, their code made on demand (ProgramCode): the SPIR-V at once with
    spirv_now (where the Vulkan backend may run it: target.wants_spirv), the WGSL with
    wgsl_now (the WebGPU backend's), else each when asked."""
    code = ProgramCode(program, glsl, guard_words, binding_bytes, cache)
    if spirv_now:
        code.spirv()
    if wgsl_now:
        code.wgsl()
    stages = []
    for i, (k, source) in enumerate(zip(program.kernels, glsl)):
        assert k.schedule is not None, "the pipeline schedules every kernel"
        stages.append(Stage(k.name, source, KernelCode(code, i), k.schedule.invocations,
                            k.schedule.local_size,
                            tuple(b.name for b in kernel_buffers(k, program)),
                            k.schedule.stride, None if k.count is None else k.count.param))
    return tuple(stages)


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
    updates, and its output is the data tensor (ops/scatter/lower.py)."""
    limits: PlanLimits = DEFAULT
    """The device limits the program was planned within (dmlc.plan)."""
    params: tuple[int, ...] = ()
    """A generic program (program.params) bound to one call's sizes: the push-constant words
    (compiler/dynamic.py); the descriptor is then that call's, and `program`, `stages` are
    shared by every size."""
    generic: GenericProgram | None = field(default=None, repr=False)
    """A generic program's lowering: its form (variant) and its push words' recipes."""

    @property
    def variant(self) -> str:
        """A generic program's form (family/generic.py: GenericProgram.variant)."""
        return "" if self.generic is None else self.generic.variant

    @property
    def push(self) -> tuple[int, ...]:
        """The push-constant words of this call: `params`, then each divisor's magic words
        (ir/kernel.py: push_values)."""
        return push_values(self.program, self.params)

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
        """Bytes of the artifact's text and code (GLSL of every stage, and the SPIR-V and WGSL
        made so far)."""
        made = {id(s.code.program): s.code.program.nbytes for s in self.stages
                if isinstance(s.code, KernelCode)}
        return sum(len(s.glsl) + (len(s.code) if isinstance(s.code, bytes) else 0)
                   for s in self.stages) + sum(made.values())

    @functools.cached_property
    def plan(self) -> LaunchPlan:
        """What the runtime needs to run the program (built once)."""
        return launch_plan(self.program, self.stages, self.guard_words, self.limits, self.params,
                           self.output.sizes if self.params else None,  # generic: the call's
                           self.runs())

    def runs(self) -> PlanCopy | None:
        """The program as copies of runs of bytes, where it is one (family/runs.py)."""
        return None if self.guard_words else program_runs(self.descriptor, self.program,
                                                         self.target, self.limits)

    @functools.cached_property
    def input_tensors(self) -> tuple[tuple[TensorDesc, str], ...]:
        """The tensor behind each program input, and how errors call it (argument(), below:
        found once, not at every call)."""
        return tuple(argument(self.descriptor, name) for name in self.program.inputs)

    def arguments(self, arrays: tuple[Any, ...]) -> list[Any]:
        """The call's arguments checked against the program inputs (check_arguments, below)."""
        return check_arguments(self.descriptor.operator, self.program.inputs,
                               self.input_tensors, expand_computed(arrays))

    def reference(self, *arrays: Any) -> np.ndarray:
        """The same computation by the IR interpreter in numpy (no Vulkan)."""
        from .ir.interp import run_buffers  # numpy work, loaded only by who asks for it
        bufs = run_buffers(self.program, *self.arguments(arrays), params=self.params)
        if self.check_indices:
            raise_for_status(self.descriptor, bufs)
        raw = bufs[self.program.output]
        if self.program.buffer(self.program.output).extent is not None:
            raw = raw[:self.output.element_count]  # a generic output of whole vectors
        return results(self.descriptor,
                       raw.view(self.output.data_type.numpy).reshape(self.output.sizes).copy())


def results(desc: OperatorDesc, output: Any) -> Any:
    """What a call returns for the program's output (a numpy array or a DeviceTensor): the
    output itself, or where the descriptor has several outputs in one buffer (DML_SPLIT's
    output_regions()) the tuple of them, each a view of its region of it (no copy)."""
    regions = output_regions(desc)
    if regions is None:
        return output
    flat = output.reshape(-1)
    return tuple(flat[start:start + t.element_count].reshape(t.sizes) for start, t in regions)


def launch_plan(program: Program, stages: tuple[Stage, ...], guard_words: int = 0,
                limits: PlanLimits = DEFAULT, params: tuple[int, ...] = (),
                output_shape: tuple[int, ...] | None = None,
                copy: PlanCopy | None = None) -> LaunchPlan:
    """The launch plan of `program`, whose kernels compiled to `stages` (for `limits`: a buffer
    larger than one binding is chunked as codegen chunked it); a generic program's for the
    sizes its push words `params` give (each checked against its declared range; its buffers of
    runtime extent are never chunked: dynamic.py compiles a call they would not fit specialized)
    and the call's `output_shape` (default: the program's)."""
    problem = unbindable(program, params)
    if problem is not None:
        raise ValueError(problem)
    bound = limits.maxStorageBufferRange
    buffers = []
    for b in program.buffers:
        if b.extent is None:
            buffers.append(PlanBuffer(b.name, b.dtype.value, b.count, b.words, b.role,
                                      chunk_words(b.words, guard_words, bound)))
            continue
        count = param_value(b.extent, params)
        buffers.append(PlanBuffer(b.name, b.dtype.value, count,
                                  padded_words(count, b.dtype.itemsize), b.role))
    kernels, push = [], push_values(program, params)
    for s in stages:
        invocations = s.invocations
        if s.count is not None:
            per_group = s.local_size * s.stride
            invocations = -(-params[s.count] // per_group) * s.local_size
        kernels.append(PlanKernel(s.name, s.code, invocations, s.local_size, s.buffers,
                                  push))
    return LaunchPlan(program.name, tuple(buffers), tuple(kernels), program.inputs, program.output,
                      program.output_shape if output_shape is None else output_shape, guard_words,
                      copy)


def expand_computed(arrays: Sequence[Any]) -> tuple[Any, ...]:
    """The arguments, an operand computed from others (oneshot/computed.py) replaced by those
    others: the program's inputs in its place (family/computed.py)."""
    return tuple(x for a in arrays for x in getattr(a, "computed_inputs", (a,)))


def is_device_tensor(a: Any) -> bool:
    """Whether `a` is a dmlc DeviceTensor: its class says so (runtime.tensor's
    is_dmlc_device_tensor), so nothing of the runtime is imported to ask."""
    return getattr(type(a), "is_dmlc_device_tensor", False) is True


def check_device_tensor(op: str, field_name: str, a: Any, t: TensorDesc) -> None:
    """A DeviceTensor argument must hold the tensor the kernel was compiled for, as a numpy
    argument must: its shape, or for a tensor with explicit strides any buffer of at least the
    elements they span (a flat one, say)."""
    if not is_device_tensor(a):
        raise ValidationError(op, field_name, "a dmlc DeviceTensor (dmlc.to_device / "
                              "dmlc.empty)", type(a).__name__)
    a.check_usable(f"{op}: {field_name}")
    if not a.is_packed:  # CompiledKernel.__call__ packs views before this
        raise ValidationError(op, field_name, "a packed tensor (its elements first in its "
                              "buffer, in order)", f"a view with strides {fmt(a.strides)} at "
                              f"offset {a.offset}")
    if a.dtype != t.data_type.numpy:
        raise ValidationError(op, f"{field_name} dtype", t.data_type.numpy.name, a.dtype.name)
    if t.strides is None and a.shape != t.sizes:
        raise ValidationError(op, f"{field_name} shape", fmt(t.sizes), fmt(a.shape))
    if t.strides is not None and a.size < t.buffer_elements:
        raise ValidationError(op, f"{field_name} buffer", f">= {t.buffer_elements} elements "
                              f"for strides {fmt(t.strides)}", a.size)


def same_layout(t: TensorDesc, view: Any) -> bool:
    """Whether a kernel's tensor `t` lies where the device view does in its buffer: the same
    sizes, offset and strides (those of size-1 dimensions never matter)."""
    return t.sizes == view.shape and t.offset == view.offset and all(
        a == b for a, b, n in zip(t.element_strides, view.strides, t.sizes) if n > 1)


def check_out(op: str, out: Any, t: TensorDesc) -> None:
    """out= must be a device tensor of the output's dtype and shape: any view of one (the
    result is written where its elements lie). An output with strides of its own is the
    flat buffer it lies in (as an input with strides is)."""
    if not is_device_tensor(out):
        raise ValidationError(op, "out", "a dmlc DeviceTensor (dmlc.to_device / dmlc.empty; "
                              "a compiled kernel writes no numpy array: the one-shot "
                              "functions, dmlc.gather(..., out=array), do)", type(out).__name__)
    out.check_usable(f"{op}: out")
    if out.dtype != t.data_type.numpy:
        raise ValidationError(op, "out dtype", t.data_type.numpy.name, out.dtype.name)
    if t.is_packed and out.shape != t.sizes:
        raise ValidationError(op, "out shape", fmt(t.sizes), fmt(out.shape))
    if not t.is_packed and not (out.is_packed and out.size >= t.buffer_elements):
        raise ValidationError(op, "out", f"the tensor OutputTensor's strides lie in: a "
                              f"buffer of >= {t.buffer_elements} elements",
                              f"{fmt(out.shape)} at offset {out.offset}" if not out.is_packed
                              else out.size)


def argument(desc: OperatorDesc, name: str) -> tuple[TensorDesc, str]:
    """The tensor behind the program input `name`, and how errors call it (a descriptor whose
    inputs are not its fields says so itself: ExpressionDesc.argument)."""
    own = getattr(desc, "argument", None)
    if own is not None:
        return cast(tuple[TensorDesc, str], own(name))
    computed = computed_argument(desc, name)  # an input of a computed operand: indices_in0
    if computed is not None:
        keyword, _, k = name.rpartition("_in")
        return computed, f"{dml_field(desc, keyword)} input {k}"
    field, _, k = name.rpartition("_")  # an item of a tensor list (descriptors.list_argument)
    if k.isdigit() and isinstance(getattr(desc, field, None), tuple):
        return getattr(desc, field)[int(k)], f"{dml_field(desc, field)}[{k}]"
    return getattr(desc, name), dml_field(desc, name)


def check_arguments(op: str, names: Sequence[str], tensors: Sequence[tuple[TensorDesc, str]],
                    arrays: Sequence[Any]) -> list[Any]:
    """The call's arguments for the program inputs `names` (their tensors and field names:
    argument()), each checked against its tensor: device tensors as they are, anything else as
    a numpy array of the tensor's dtype and shape (or, for a strided tensor, at least the
    elements its strides span)."""
    if len(arrays) != len(names):
        raise ValidationError(op, "arguments", f"{len(names)} arrays ({', '.join(names)})",
                              len(arrays))
    out = []
    for (t, field_name), a in zip(tensors, arrays):
        if is_device_tensor(a):
            check_device_tensor(op, field_name, a, t)
            out.append(a)
            continue
        a = as_ndarray(op, field_name, a)
        if a.dtype != t.data_type.numpy:
            raise ValidationError(op, f"{field_name} array dtype", t.data_type.numpy.name,
                                  a.dtype.name)
        if t.strides is None and a.shape != t.sizes:
            raise ValidationError(op, f"{field_name} array shape", fmt(t.sizes), fmt(a.shape))
        if t.strides is not None and a.size < t.buffer_elements:
            raise ValidationError(op, f"{field_name} buffer", f">= {t.buffer_elements} "
                                  f"elements for strides {fmt(t.strides)}", a.size)
        out.append(a)
    return out
