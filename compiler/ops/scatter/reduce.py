"""Scatter reductions (reduction="add" | "mul" | "max" | "min", DML_SCATTER and DML_SCATTER_ND):
deterministic, with no float or 64-bit atomics.

The lines of kernels.py: every update that can reach an output
element lies on one line (ScatterElements: the element's line along the axis; ScatterND: its
slice position), so one invocation per line walks its updates in row-major order and does
  output[target] = combine(output[target], update)
for each kept one (COMBINE: shaders/dmlc_reduce.glsl, integer-only soft float for f16/f32/f64).
That is numpy applying the updates one at a time, in order; lines own disjoint elements, so
nothing races (8/16-bit elements: an atomic store of the element into its shared word).
Cost: O(updates) work over `lines` invocations; a line longer than one kernel's loop
(ir/verify.MAX_STEPS) runs as consecutive kernels over its parts. Few long lines (ScatterND
with whole-element tuples: one line) serialize; a parallel scheme (sort by target, segmented
combine in order) would lift that, at the cost of scratch buffers.
"""
from __future__ import annotations

from ...ir import Kernel, Program
from ...ir import build as b
from ...ir.verify import MAX_STEPS
from .desc import ScatterDesc, ScatterNDDesc
from .kernels import buffers, copy_kernel, lines_and_steps, prefix, program, update


def lower_scatter_reduce(desc: ScatterDesc | ScatterNDDesc, in_place: bool = False) -> Program:
    """The reduction's kernels (in place: `desc` has the data tensor's layout as its output)."""
    out = desc.output
    assert out is not None, "validate() first"
    lines, steps = lines_and_steps(desc)
    b_in, b_idx, b_upd, b_out = buffers(desc)
    kernels = []
    for first in range(0, steps, MAX_STEPS):
        n = min(MAX_STEPS, steps - first)
        target, keep, value = update(desc, b_idx, b_upd, b.item_id(lines),
                                     b.add(b.step_id(n), first))
        new = b.combine(desc.reduction, b.load(b_out, target), value)
        store = (b.atomic_store if out.data_type.bits < 32 else b.store)(b_out, target, new,
                                                                          pred=keep)
        kernels.append(Kernel(f"scatter_{desc.reduction}", lines, (store,), steps=n))
    if not in_place:
        kernels.insert(0, copy_kernel(desc, b_in, b_out))
    return program(desc, prefix(desc), (b_in, b_idx, b_upd, b_out), tuple(kernels), in_place)
