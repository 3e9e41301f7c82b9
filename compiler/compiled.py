"""dmlc.compile(): descriptor -> validated -> IR -> GLSL -> SPIR-V, and the callable result."""
from __future__ import annotations

import functools
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from . import toolchain
from .codegen import glsl
from .descriptors import ExpressionDesc, OperatorDesc, TensorDesc
from .dtypes import as_ndarray
from .errors import ValidationError
from .ir import Program, rules
from .ir.kernel import kernel_buffers
from .ir.printer import render_program
from .ir.verify import verify_program
from .lower import lower
from .lower.checks import CHECKABLE, add_index_check, raise_for_status
from .passes import run_pipeline
from .passes.pipeline import env_names
from .plan import LaunchPlan, PlanBuffer, PlanKernel
from .target import resolve as resolve_target
from .validate import fmt, validate
from dmlc.runtime.tensor import DeviceTensor, empty, to_device  # kp loads at first use only

_ARG_FIELDS = {"input": "InputTensor", "indices": "IndicesTensor", "updates": "UpdatesTensor"}


def is_device_tensor(a: Any) -> bool:
    return isinstance(a, DeviceTensor)


def check_device_tensor(op: str, field_name: str, a: Any, t: TensorDesc) -> None:
    """A DeviceTensor argument must hold exactly the tensor the kernel was compiled for."""
    if not is_device_tensor(a):
        raise ValidationError(op, field_name, "a dmlc DeviceTensor (dmlc.to_device / "
                              "dmlc.empty)", type(a).__name__)
    a.check_usable(f"{op}: {field_name}")
    if a.dtype != t.data_type.numpy:
        raise ValidationError(op, f"{field_name} dtype", t.data_type.numpy.name, a.dtype.name)
    want = t.sizes if t.is_packed else (t.buffer_elements,)
    if a.shape != want:
        raise ValidationError(op, f"{field_name} shape", fmt(want), fmt(a.shape))


def argument(desc: OperatorDesc, name: str) -> tuple[TensorDesc, str]:
    """The tensor behind the program input `name`, and how errors call it."""
    if isinstance(desc, ExpressionDesc):
        return desc.tensor(name), name
    return getattr(desc, name), _ARG_FIELDS[name]


@dataclass(frozen=True)
class Stage:
    """One kernel of a compiled program: its GLSL, SPIR-V and invocation count."""

    name: str
    glsl: str
    spirv: bytes
    invocations: int
    local_size: int
    buffers: tuple[str, ...] = ()
    """The program buffers bound to this kernel's bindings 0, 1, ..."""


@dataclass(eq=False)
class CompiledKernel:
    """A compiled operator. Call it with numpy arrays in the descriptor's order (input, indices,
    updates as the operator has them); it returns the output as a new numpy array."""

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
    _executable: Any = field(default=None, repr=False)

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

    def _arrays(self, arrays: tuple[Any, ...]) -> list[np.ndarray]:
        op = self.descriptor.operator
        names = self.program.inputs
        if len(arrays) != len(names):
            raise ValidationError(op, "arguments", f"{len(names)} arrays ({', '.join(names)})",
                                  len(arrays))
        out = []
        for name, a in zip(names, arrays):
            t, field_name = argument(self.descriptor, name)
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

    def executable(self) -> Any:
        """The program bound to device buffers (created on first use, then reused)."""
        if self._executable is None or self._executable.device.closed:
            from dmlc.runtime import Executable, get_device
            self._executable = Executable(get_device(), launch_plan(
                self.program, self.stages, self.guard_words))
        return self._executable

    def __call__(self, *arrays: Any, out: Any = None) -> Any:
        """Run on the device. With numpy arrays: returns a new numpy array. With any
        DeviceTensor argument, or out=: the result stays on the device (a DeviceTensor; `out`,
        of the output's shape and dtype, is written and returned, which makes a repeated call
        one pre-recorded dispatch per kernel)."""
        checked = self._arrays(arrays)
        if out is None and not any(is_device_tensor(a) for a in checked):
            result, status = self.executable().run(checked)
        elif self.guard_words:
            raise ValidationError(self.descriptor.operator, "arguments", "numpy arrays (a "
                                  "kernel compiled with guard_words runs on the host path)",
                                  "a DeviceTensor or out=")
        else:
            tensors = [a if is_device_tensor(a) else to_device(a) for a in checked]
            if out is None:
                out = empty(self.output.sizes, self.output.data_type.numpy, zeroed=False)
            else:
                check_device_tensor(self.descriptor.operator, "out", out, self.output)
            result, status = self.executable().run_device(tensors, out)
        if self.check_indices:
            raise_for_status(self.descriptor, status)  # type: ignore[arg-type]
        return result

    def reference(self, *arrays: Any) -> np.ndarray:
        """The same computation by the IR interpreter in numpy (no Vulkan)."""
        from .ir.interp import run_buffers
        bufs = run_buffers(self.program, *self._arrays(arrays))
        if self.check_indices:
            raise_for_status(self.descriptor, bufs)  # type: ignore[arg-type]
        raw = bufs[self.program.output]
        return raw.view(self.output.data_type.numpy).reshape(self.output.sizes).copy()


def launch_plan(program: Program, stages: tuple[Stage, ...], guard_words: int = 0) -> LaunchPlan:
    """The launch plan of `program`, whose kernels compiled to `stages`: every buffer starts
    zeroed, as lowering assumes of scratch and status buffers."""
    buffers = tuple(PlanBuffer(b.name, b.dtype.numpy.name, b.count, b.words, b.role)
                    for b in program.buffers)
    kernels = tuple(PlanKernel(s.name, s.spirv, s.invocations, s.local_size, s.buffers)
                    for s in stages)
    return LaunchPlan(program.name, buffers, kernels, program.inputs, program.output,
                      program.output_shape, guard_words)


def build_program(desc: OperatorDesc, dump_after: Optional[set[str]] = None,
                  check_indices: bool = False,
                  target: Optional[str] = None) -> tuple[OperatorDesc, Program]:
    """Validate, lower and optimize a descriptor; the IR is verified after every step.
    dump_after: pass names after which to print the IR (default: $DMLC_DUMP_AFTER).
    check_indices: add the kernels of checked mode (lower/checks.py).
    target: "cpu" or "gpu" (default: compiler/target.py's choice)."""
    checked = validate(desc)
    if check_indices and not isinstance(checked, CHECKABLE):
        raise ValidationError(checked.operator, "check_indices", "False (the operator has "
                              "no IndicesTensor)", True)
    program = lower(checked, resolve_target(target))
    if check_indices:
        with rules.only(set()):  # naive IR, like lower()
            program = add_index_check(program, checked)
    return checked, run_pipeline(verify_program(program), dump_after=dump_after)


def compile(desc: OperatorDesc, *,  # noqa: A001 - the public name
            dump_after: Optional[set[str]] = None, check_indices: bool = False,
            guard_words: int = 0, target: Optional[str] = None) -> CompiledKernel:
    """Validate, lower, generate and compile `desc` into a callable kernel. With
    check_indices=True the kernel raises IndexOutOfRangeError for an index outside its axis
    (found on the device) instead of clamping or dropping it. target: "cpu" or "gpu", what the
    kernels are tuned for (default: $DMLC_TARGET, else the selected device's kind)."""
    if not isinstance(check_indices, (bool, np.bool_)):
        raise ValidationError("dmlc.compile", "check_indices", "True or False", repr(check_indices))
    if not isinstance(guard_words, int) or guard_words < 0 or guard_words % 4:
        raise ValidationError("dmlc.compile", "guard_words", "a multiple of 4, >= 0",
                              repr(guard_words))
    target = resolve_target(target)
    dumping = bool(dump_after if dump_after is not None else env_names("DMLC_DUMP_AFTER"))
    key = None if dumping else _memo_key(desc, bool(check_indices), guard_words, target)
    with _MEMO_LOCK:
        hit = _MEMO.get(key) if key is not None else None
        if hit is not None:
            _MEMO.move_to_end(key)
    if hit is None:
        hit = _build(desc, dump_after, bool(check_indices), guard_words, target)
        if key is not None:
            with _MEMO_LOCK:
                _MEMO[key] = hit
                while len(_MEMO) > MEMO_SIZE:
                    _MEMO.popitem(last=False)
    checked, program, stages = hit
    return CompiledKernel(checked, program, stages, check_indices, guard_words, target)


def _build(desc: OperatorDesc, dump_after: Optional[set[str]], check_indices: bool,
           guard_words: int, target: str) -> tuple[OperatorDesc, Program, tuple[Stage, ...]]:
    checked, program = build_program(desc, dump_after, check_indices, target)
    scheds = [glsl.schedule(k, program) for k in program.kernels]
    sources = [glsl.render_glsl(k, program, s, guard_words)
               for k, s in zip(program.kernels, scheds)]
    spirv = toolchain.compile_many(sources)
    return checked, program, tuple(
        Stage(k.name, src, code, s.invocations, s.local_size,
              tuple(b.name for b in kernel_buffers(k, program)))
        for k, s, src, code in zip(program.kernels, scheds, sources, spirv))


MEMO_SIZE = 256
"""Compiled programs kept in memory: compile() of a descriptor seen before skips lowering, the
passes and codegen (the SPIR-V cache on disk then only serves new processes)."""
_MEMO: "OrderedDict[tuple, tuple[OperatorDesc, Program, tuple[Stage, ...]]]" = OrderedDict()
_MEMO_LOCK = threading.Lock()


def _memo_key(desc: OperatorDesc, check_indices: bool, guard_words: int,
              target: str) -> Optional[tuple]:
    """What decides the compiled result: the descriptor, the options and the passes disabled
    (None where the descriptor is unhashable: compile() then reports the bad field)."""
    key = (desc, check_indices, guard_words, target, os.environ.get("DMLC_DISABLE_PASSES", ""))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def clear_caches() -> None:
    """Forget every compiled program and rule rewrite kept in memory (tests that change pass
    settings; the bench's cold and disk compile latencies)."""
    with _MEMO_LOCK:
        _MEMO.clear()
    _cached_compile.cache_clear()
    rules.clear_memo()


def cached_compile(desc: OperatorDesc, check_indices: bool = False,
                   target: Optional[str] = None) -> CompiledKernel:
    """compile(), memoized per descriptor: the one-shot functions reuse kernels and pipelines."""
    try:
        return _cached_compile(desc, check_indices, resolve_target(target))
    except TypeError:
        try:
            hash(desc)
        except TypeError:  # a list where a number belongs: compile() says which field
            return compile(desc, check_indices=check_indices, target=target)
        raise


@functools.lru_cache(maxsize=128)
def _cached_compile(desc: OperatorDesc, check_indices: bool, target: str) -> CompiledKernel:
    return compile(desc, check_indices=check_indices, target=target)
