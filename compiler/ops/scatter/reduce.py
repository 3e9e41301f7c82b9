"""Scatter reductions (reduction="add" | "mul" | "max" | "min", DML_SCATTER and DML_SCATTER_ND):
deterministic, with no float or 64-bit atomics.

The lines of lower/scatter.py and lower/scatternd.py: every update that can reach an output
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

from ...family.lowering import address, replace, tensor_buffer, unflatten
from ...ir import Buffer, Kernel, Node, Program
from ...ir import build as b
from ...ir.verify import MAX_STEPS
from .desc import ScatterDesc, ScatterNDDesc
from .elements import in_place_layout
from .nd import rows_and_slice, target_of


def lines_and_steps(desc: ScatterDesc | ScatterNDDesc) -> tuple[int, int]:
    if isinstance(desc, ScatterNDDesc):
        rows, lines = rows_and_slice(desc)
        return lines, rows
    steps = desc.updates.sizes[desc.axis]
    return desc.updates.element_count // steps, steps


def _update(desc: ScatterDesc | ScatterNDDesc, b_idx: Buffer, b_upd: Buffer, line: Node,
            step: Node) -> tuple[Node, Node, Node]:
    """(target address, kept, update value) of `step` along `line`."""
    upd, out = desc.updates, desc.output
    assert out is not None, "validate() first"
    if isinstance(desc, ScatterNDDesc):
        lines = rows_and_slice(desc)[1]
        target, keep = target_of(desc, b_idx, step, line)
        at = address(unflatten(b.add(b.mul(step, lines), line), upd.sizes), upd)
        return target, keep, b.load(b_upd, at)
    axis = desc.axis
    line_sizes = tuple(1 if d == axis else n for d, n in enumerate(upd.sizes))
    uc = replace(unflatten(line, line_sizes), axis, step)
    i = b.index(b.load(b_idx, address(uc, desc.indices)), desc.input.sizes[axis], "mask")
    target = address(replace(uc, axis, b.maximum(i, 0)), out)
    return target, b.not_equal(i, -1), b.load(b_upd, address(uc, upd))


def lower_scatter_reduce(desc: ScatterDesc | ScatterNDDesc, in_place: bool = False) -> Program:
    if in_place:  # the data tensor, any view of it, is the output
        desc = in_place_layout(desc)
    inp, idx, upd, out = desc.input, desc.indices, desc.updates, desc.output
    assert out is not None, "validate() first"
    lines, steps = lines_and_steps(desc)
    b_in, b_idx = tensor_buffer("input", inp, "input"), tensor_buffer("indices", idx, "input")
    b_upd, b_out = tensor_buffer("updates", upd, "input"), tensor_buffer("output", out, "output")
    kernels = []
    for first in range(0, steps, MAX_STEPS):
        n = min(MAX_STEPS, steps - first)
        target, keep, value = _update(desc, b_idx, b_upd, b.item_id(lines),
                                      b.add(b.step_id(n), first))
        new = b.combine(desc.reduction, b.load(b_out, target), value)
        store = (b.atomic_store if out.data_type.bits < 32 else b.store)(b_out, target, new,
                                                                          pred=keep)
        kernels.append(Kernel(f"scatter_{desc.reduction}", lines, (store,), steps=n))
    name = "scatter_nd" if isinstance(desc, ScatterNDDesc) else "scatter"
    if in_place:
        return Program(f"{name}_in_place", (b_idx, b_upd, b_out), tuple(kernels),
                       ("indices", "updates"), "output", out.sizes)
    t = b.item_id(out.element_count)
    copy = b.store(b_out, t, b.load(b_in, address(unflatten(t, out.sizes), inp)))
    return Program(name, (b_in, b_idx, b_upd, b_out),
                   (Kernel(f"{name}_copy", out.element_count, (copy,)), *kernels),
                   ("input", "indices", "updates"), "output", out.sizes)
