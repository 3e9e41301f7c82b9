"""Scheduling, the pipeline's last step: how each kernel's items map onto invocations.

The one place that decides it (codegen only prints what it says): the workgroup size, and how
many items an invocation runs, a workgroup apart. Items that an invocation runs consecutively
(passes/unroll.py, passes/tile.py) are already one item of the IR.
"""
from __future__ import annotations

import dataclasses

from ..ir import Kernel, Program
from ..ir.algebra import RuleSet
from ..ir.kernel import Schedule
from ..ir.ops import Op

LOCAL_SIZE = 64
"""Invocations per workgroup, where the kernel has enough of them (local_size): on lavapipe 256
measured the same as 64."""
MIN_LOCAL_SIZE = 8       # llvmpipe runs 8 invocations per SIMD instruction (256-bit)
MIN_GROUPS = 16
"""Workgroups a kernel should have at least, so that every thread (lavapipe) or compute unit
gets work: a smaller kernel takes smaller workgroups. Measured on lavapipe, scatter f32
[2048, 1024] by lines (64 invocations, each a loop): 0.17 of the copy shader in one workgroup
of 64, 0.30 in eight of 8."""
STRIDE = 4               # items per invocation, a workgroup apart, for large kernels
STRIDE_MIN_ITEMS = 1 << 16


def local_size(invocations: int) -> int:
    """LOCAL_SIZE, or for a kernel of fewer than MIN_GROUPS such workgroups the power of two
    (at least MIN_LOCAL_SIZE) that makes about MIN_GROUPS of them."""
    size = LOCAL_SIZE
    while size > MIN_LOCAL_SIZE and invocations < size * MIN_GROUPS:
        size //= 2
    return size


def schedule_kernel(k: Kernel) -> Schedule:
    """STRIDE items per invocation for a large kernel whose items are single (not unrolled),
    else one; a kernel of packed words (passes/legalize.py) keeps one word per invocation."""
    words = any(e.op is Op.WSTORE for e in k.effects)
    stride = STRIDE if k.items >= STRIDE_MIN_ITEMS and k.unrolled == 1 and not words else 1
    return Schedule(local_size(-(-k.items // stride)), stride, k.items)


def schedule(p: Program, rules: RuleSet) -> Program:
    """Every kernel with its schedule (a required step: codegen prints from it)."""
    return p.with_kernels(tuple(dataclasses.replace(k, schedule=schedule_kernel(k))
                                for k in p.kernels))
