"""Scheduling, the pipeline's last step: each kernel's launch, from its plan.

The workgroup size; the items an invocation runs a workgroup apart (the plan's stride); and
which selects between vectors run as if/else (the plan's branches): codegen only prints what
this says. Items that an invocation runs consecutively (passes/unroll.py) are already one item
of the IR.
"""
from __future__ import annotations

import dataclasses

from ..ir import Kernel, Node, Program
from ..ir.algebra import RuleSet
from ..ir.kernel import Schedule, effects_order
from ..ir.ops import Op, VType

LOCAL_SIZE = 64
"""Invocations per workgroup, where the kernel has enough of them (local_size): on lavapipe 256
measured the same as 64."""
MIN_LOCAL_SIZE = 8       # llvmpipe runs 8 invocations per SIMD instruction (256-bit)
MIN_GROUPS = 16
"""Workgroups a kernel should have at least, so that every thread (lavapipe) or compute unit
gets work: a smaller kernel takes smaller workgroups. Measured on lavapipe, scatter f32
[2048, 1024] by lines (64 invocations, each a loop): 0.17 of the copy shader in one workgroup
of 64, 0.30 in eight of 8."""


def local_size(invocations: int) -> int:
    """LOCAL_SIZE, or for a kernel of fewer than MIN_GROUPS such workgroups the power of two
    (at least MIN_LOCAL_SIZE) that makes about MIN_GROUPS of them."""
    size = LOCAL_SIZE
    while size > MIN_LOCAL_SIZE and invocations < size * MIN_GROUPS:
        size //= 2
    return size


def vector_selects(nodes: list[Node]) -> frozenset[Node]:
    """The selects between vectors that depend on a loaded value (nodes: in topological order):
    selects between vector loads (passes/vector_select.py), which can branch. A branch loads
    only the side it takes, where a select loads both (more memory traffic), and lavapipe skips
    a branch its SIMD lanes agree on; whether they branch, the plan says (its cost: cost.py)."""
    loaded: set[Node] = set()
    loads, where, vec16 = (Op.LOAD, Op.VLOAD), Op.WHERE, VType.VEC16
    for n in nodes:
        if n.op in loads:
            loaded.add(n)
            continue
        for s in n.src:  # (a loop: no generator per node)
            if s in loaded:
                loaded.add(n)
                break
    return frozenset(n for n in loaded if n.op is where and n.dtype is vec16)


def schedule_kernel(k: Kernel) -> Schedule:
    """The launch of k as its plan says (an unplanned kernel: one item per invocation, no
    branches)."""
    piece = k.planned
    stride = piece.stride if piece else 1
    branches = (vector_selects(effects_order(k)) if piece and piece.branches
                else frozenset())
    if k.count is not None and k.steps > 1:  # a generic kernel's loops (its calls' counts
        return Schedule(MIN_LOCAL_SIZE, stride, k.items, branches)  # may be few): small groups
    return Schedule(local_size(-(-k.items // stride)), stride, k.items, branches)


def schedule(p: Program, rules: RuleSet) -> Program:
    """Every kernel with its schedule (a required step: codegen prints from it)."""
    return p.with_kernels(tuple(dataclasses.replace(k, schedule=schedule_kernel(k))
                                for k in p.kernels))
