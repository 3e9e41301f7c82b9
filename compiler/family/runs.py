"""A copy or slice of a view as copies of contiguous runs of bytes (plan.PlanCopy): what a
device's copy command (Vulkan's vkCmdCopyBuffer) does at memory speed where a shader copies
element by element. On lavapipe, a window cache[:, :, :t] of a float32 [4, 64, 200] cache (256
runs of 4t bytes) took about 50 us by one vkCmdCopyBuffer against about 140 us by the shader.

The output's elements, row-major, are those of a view of the input buffer (sizes, element
strides of any sign, offset): dimensions of size 1 dropped, dimensions that continue the one
inside them merged, the innermost of stride 1 is the run and the others index the runs."""
from __future__ import annotations

from typing import Any

from ..ir import Program
from ..plan import PlanCopy, PlanLimits
from .computed import computed_fields
from .registry import rules_of
from .tensor import TensorDesc

MAX_RUNS = 4096
"""Runs at most where the device is a CPU (target "cpu": a copy command is a memcpy per run,
each at memory speed however short)."""
GPU_RUNS = 1
"""Runs at most on a GPU (target "gpu"): one block, which its copy engine moves at full speed;
a shader copy of many short runs is as fast there and is kept."""


def copy_runs(source: str, view: TensorDesc, out: TensorDesc, target: str) -> PlanCopy | None:
    """The runs that copy `view` (a tensor of buffer `source`) to the packed `out`, or None
    where they are not one contiguous innermost run each, or more than `target` takes."""
    if out.offset or not out.is_packed or out.data_type != view.data_type:
        return None
    dims: list[tuple[int, int]] = []  # (size, stride) from the outermost, merged
    for n, st in zip(view.sizes, view.element_strides):
        if n == 1:
            continue
        if dims and dims[-1][1] == n * st:  # the one outside continues this one: merged
            dims[-1] = (dims[-1][0] * n, st)
        else:
            dims.append((n, st))
    run, step = dims.pop() if dims else (1, 1)
    if step != 1 and run > 1:
        return None
    size = view.data_type.itemsize
    runs = PlanCopy(source, tuple(n for n, _ in dims), tuple(st * size for _, st in dims),
                    view.offset * size, run * size)
    return runs if runs.count <= (MAX_RUNS if target == "cpu" else GPU_RUNS) else None


def program_runs(desc: Any, program: Program, target: str, limits: PlanLimits) -> PlanCopy | None:
    """The runs of a compiled program, where its descriptor copies a view of its one input
    (Rules.copy_of: a copy, a slice) into buffers that one binding holds each."""
    copy_of = rules_of(desc).copy_of
    if copy_of is None or len(program.inputs) != 1 or computed_fields(desc):
        return None
    found = copy_of(desc)
    bound = limits.maxStorageBufferRange
    if found is None or any(4 * b.words > bound for b in program.buffers if b.extent is None):
        return None
    return copy_runs(program.inputs[0], *found, target)
