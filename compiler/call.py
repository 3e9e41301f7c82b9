"""Calling a compiled program on the Vulkan device: the callable that dmlc.compile() returns.

A CompiledKernel wraps a device-free CompiledProgram (artifact.py). Its first call binds the
program's launch plan to the process's device (an Executable: buffers, pipelines, recorded
sequences, reused by later calls); every call checks its arguments first
(artifact.check_arguments). The runtime is imported at that first call, not before: compiling
needs no device.
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .artifact import (
    CompiledProgram,
    Stage,
    check_out,
    expand_computed,
    is_device_tensor,
    results,
    same_layout,
)
from .errors import DeviceError, ValidationError
from .family.index_check import raise_for_status
from .family.registry import OperatorDesc, updates_in_place
from .family.tensor import TensorDesc
from .ir import Program
from .plan import LaunchPlan, PlanLimits


class CompiledKernel:
    """A compiled operator. Call it with numpy arrays in the descriptor's order (input, indices,
    updates as the operator has them); it returns the output as a new numpy array. Device
    tensors in (or out=) keep the result on the device. Everything but the call itself (`ir`,
    `glsl`, `spirv`, `stages`, `reference()`, ...) is the wrapped CompiledProgram's.

    Parameters
    ----------
    compiled : CompiledProgram
        What the compiler made; dmlc.compile builds a CompiledKernel around it.
    in_place, replan : callable, optional
        Used by dmlc.compile: the kernel's in-place form, and a replanning for other limits.
    last : list, optional
        Used by dmlc.compile: where the kernels of one generic kernel's calls at other sizes
        keep the executable the last of them made (this one derives its own from it).

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.Slice1Desc(
    ...     input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(4,)),
    ...     offsets=(0,), sizes=(4,), strides=(-1,)))
    >>> isinstance(kernel, dmlc.CompiledKernel)
    True
    >>> x = dmlc.to_device(np.array([1., 2., 3., 4.], np.float32))
    >>> y = dmlc.empty((4,), np.float32)
    >>> _ = kernel(x, out=y)
    >>> print(y.numpy())
    [4. 3. 2. 1.]
    """

    def __init__(self, compiled: CompiledProgram,
                 in_place: Callable[[], CompiledKernel] | None = None,
                 replan: Callable[[PlanLimits], CompiledProgram] | None = None,
                 last: list[Any] | None = None) -> None:
        self.compiled = compiled
        """The device-free artifact: descriptor, IR, GLSL, SPIR-V, launch plan."""
        self._executable: Any = None
        self._in_place = in_place
        """A scatter's kernel that updates the data tensor itself (ops/scatter/lower.py)."""
        self._replan = replan
        """The same program planned within other limits (compiled.py), for a device whose
        limits this plan breaks."""
        self._last = last

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

    def executable(self, device: Any = None) -> Any:
        """The program bound to `device`'s buffers (default: the current backend's device;
        created on first use, then reused; again after the device was closed or for another
        device)."""
        exe = self._executable
        if device is None:
            if exe is not None and not exe.device.closed and \
                    exe.device.backend == _backend_name()():
                return exe
            from .runtime import get_device
            device = get_device()
        if exe is None or exe.device is not device:
            from .runtime.backend import Executable
            compiled, last = self.compiled, self._last
            plan = compiled.plan  # within the limits it was planned for (artifact.py)
            if self._replan is not None and compiled.limits != device.plan_limits \
                    and not plan.within(device.plan_limits):
                plan = self._replan(device.plan_limits).plan  # e.g. a narrower join tree
            self._executable = exe = Executable(device, plan, last[0] if last else None)
            if last is not None:
                last[:] = [exe]
        return exe

    def __call__(self, *arrays: Any, out: Any = None) -> Any:
        """Run on the device. With numpy arrays: returns a new numpy array. With any
        DeviceTensor argument, or out=: the result stays on the device (a DeviceTensor; `out`,
        of the output's shape and dtype, is written and returned, which makes a repeated call
        one pre-recorded dispatch per kernel). DML_SPLIT returns a tuple: views of the one
        buffer its outputs share."""
        # an operand computed from others (family/computed.py) is passed as those others; a
        # view's elements packed first, as numpy arrays are made contiguous for the upload
        arrays = tuple(a.packed() if is_device_tensor(a) else a for a in expand_computed(arrays))
        checked = self.compiled.arguments(arrays)
        if out is None and not self.output.is_packed:
            raise ValidationError(self.descriptor.operator, "out", "the buffer OutputTensor "
                                  "lies in (its strides write a view of it)", "none")
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
        goes to `out` (any view of a device tensor) or to a new device tensor, of the class of
        the device tensors given (dmlc's: their views pack and assign by its copy kernel)."""
        if out is not None:
            check_out(self.descriptor.operator, out, self.output)
        device = _device_of(self.descriptor.operator, [*checked, out])
        tensor = type(next(a for a in (*checked, out) if is_device_tensor(a)))
        checked = _on_device(tensor, device, checked)
        exe = self.executable(device)
        if out is None:
            return exe.run_device(checked, self._empty(tensor, device))
        if self._updates_in_place(checked, out):
            assert self._in_place is not None
            return out, self._in_place().run_in_place(checked[1:], out)
        if not self.output.is_packed:  # the kernel writes through its own layout: out's buffer
            return exe.run_device(self._unshared(checked, out), out)
        if out.is_whole and not any(a.kp_tensor is out.kp_tensor for a in checked):
            return exe.run_device(checked, out)
        # out= a view (part of a buffer: the kernel's whole-word stores would reach past it),
        # or memory an argument shares: computed into a temporary first, then written where
        # out's elements lie (numpy's semantics for out= that overlaps) by a copy kernel
        temp = self._empty(tensor, device)
        _, status = exe.run_device(checked, temp)
        if self.check_indices:
            raise_for_status(self.descriptor, status)  # before out is written
        out[...] = temp
        return out, status

    def run_in_place(self, arrays: tuple[Any, ...] | list[Any], data: Any) -> dict[str, Any]:
        """This kernel compiled in place (a scatter's: its inputs the indices and updates) run
        on its data tensor `data` (any view of it: the program writes through the view's own
        layout, so it binds the whole buffer). Returns the status buffers (checked mode: the
        caller raises)."""
        checked = self.compiled.arguments(tuple(arrays))
        tensor = type(data)
        device = _device_of(self.descriptor.operator, [*checked, data])
        checked = _on_device(tensor, device, checked)
        whole = data.base if data.base is not None else data
        # an index or update tensor in the data's own buffer is read as it was before the
        # call (numpy's semantics), not while the kernel writes it: a copy first
        _, status = self.executable(device).run_device(self._unshared(checked, whole), whole)
        return status

    def _empty(self, tensor: Any, device: Any) -> Any:
        """A new device tensor (of class `tensor`) for the output, its contents undefined."""
        return tensor.new(self.output.sizes, self.output.data_type.numpy, zeroed=False,
                          device=device)

    def _unshared(self, checked: list[Any], out: Any) -> list[Any]:
        """The arguments, with a copy of any that shares out's buffer."""
        unshared = []
        for a in checked:
            if a.kp_tensor is out.kp_tensor:
                copy = type(a).new(a.shape, a.dtype, zeroed=False, device=a.device)
                copy[...] = a
                a = copy
            unshared.append(a)
        return unshared

    def _updates_in_place(self, checked: list[Any], out: Any) -> bool:
        """A scatter whose out= is its data tensor, as it lies (a view of it too): only the
        updates are written (the copying form would also be right, at the cost of the whole
        tensor)."""
        desc = self.descriptor
        return (self._in_place is not None and updates_in_place(desc)
                and self.program.inputs[0] == "input" and checked[0].kp_tensor is out.kp_tensor
                and same_layout(getattr(desc, "input"), out))  # noqa: B009 (a scatter's)


def _on_device(tensor: Any, device: Any, arrays: list[Any]) -> list[Any]:
    """The arguments as device tensors: host arrays staged (written to staging memory, which
    the kernel's own submission uploads: DeviceTensor.staged)."""
    return [a if is_device_tensor(a) else tensor.staged(a, device) for a in arrays]


def _device_of(op: str, arrays: list[Any]) -> Any:
    """The one device the device tensors among `arrays` are on (a kernel runs there); tensors
    of two devices (two backends, or a device closed and opened again) are refused."""
    devices = {id(a.device): a.device for a in arrays if is_device_tensor(a)}
    if len(devices) > 1:
        names = ", ".join(sorted(f"{d.backend} {d.name!r}" for d in devices.values()))
        raise DeviceError(f"{op}: the device tensors of one call must be on one device, these "
                          f"are on {names} (dmlc.set_backend chooses where new tensors go)")
    return next(iter(devices.values()))


_BACKEND_NAME: Callable[[], str] | None = None


def _backend_name() -> Callable[[], str]:
    """runtime.backend.name, imported at the first call (compiling imports no runtime)."""
    global _BACKEND_NAME
    if _BACKEND_NAME is None:
        from .runtime.backend import name
        _BACKEND_NAME = name
    return _BACKEND_NAME


@dataclass(frozen=True)
class TracedCall:
    """One call of a kernel while tracing(): the arguments as the kernel took them, `out=`,
    and what it returned (what `dmlc compile model.onnx` wires into the model's manifest)."""

    kernel: CompiledKernel
    arguments: tuple[Any, ...]
    out: Any
    result: Any


TRACE: list[TracedCall] | None = None
"""While `tracing()`: every call of a kernel the one-shot functions use, in dispatch order."""


def traced(kernel: CompiledKernel) -> CompiledKernel:
    """The kernel, its calls recorded while tracing() runs (what cached_compile hands out)."""
    return kernel if TRACE is None else _Recorded(kernel, TRACE)


def is_tracing() -> bool:
    return TRACE is not None


class _Recorded(CompiledKernel):
    """A cached kernel whose calls are recorded, handed out while tracing()."""

    def __init__(self, kernel: CompiledKernel, log: list[TracedCall]) -> None:
        super().__init__(kernel.compiled)
        self._kernel, self._log = kernel, log

    def __call__(self, *arrays: Any, out: Any = None) -> Any:
        result = self._kernel(*arrays, out=out)
        self._log.append(TracedCall(self._kernel, arrays, out, result))
        return result


@contextlib.contextmanager
def tracing() -> Iterator[list[TracedCall]]:
    """The kernel calls a block of one-shot calls makes, in dispatch order (a call that a
    kernel makes itself, packing a view, comes before it)."""
    global TRACE
    outer, TRACE = TRACE, []
    try:
        yield TRACE
    finally:
        TRACE = outer
