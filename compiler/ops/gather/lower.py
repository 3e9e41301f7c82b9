"""DML_GATHER and DML_GATHER_ELEMENTS: one read per output element, one kernel."""
from __future__ import annotations

from collections.abc import Sequence

from ...family.lowering import (
    Operand,
    Size,
    address,
    operand,
    replace,
    tensor_buffer,
    unflatten,
)
from ...family.registry import PLAIN, LowerContext
from ...ir import Kernel, Node, Program
from ...ir import build as b
from .desc import GatherDesc, GatherElementsDesc


def gathered(desc: GatherDesc, coords: Sequence[Node], indices: Operand,
             axis_size: Size) -> list[Node]:
    """The input coordinates that output `coords` reads: `coords` right-aligned to the output's
    coordinate list input[0:A] ++ indices[D-K:] ++ input[A+1:] (the DML_GATHER page), the index
    read at its indices coordinates (as `indices` reads: a specialized or generic kernel) and
    clamped to the axis of `axis_size` elements."""
    d, axis, k = desc.input.rank, desc.axis, desc.index_dimensions
    length = d + k - 1
    full = [b.const(0)] * (length - d) + list(coords) if length >= d else list(coords[d - length:])
    raw = indices.load([b.const(0)] * (d - k) + full[axis:axis + k])
    return full[:axis] + [b.index(raw, axis_size, "clamp")] + full[axis + k:]


def lower_gather(desc: GatherDesc, ctx: LowerContext = PLAIN) -> Program:
    """output[full] = input[full[:A], idx(indices[full[A:A+K]]), full[A+K:]], where `full` is the
    output coordinate list before it was right-aligned to D (the DML_GATHER page)."""
    inp, idx, out = desc.input, desc.indices, desc.output
    assert out is not None, "validate() first"
    b_in, b_idx = tensor_buffer("input", inp, "input"), tensor_buffer("indices", idx, "input")
    b_out = tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    source = gathered(desc, unflatten(gid, out.sizes), operand(idx, b_idx), inp.sizes[desc.axis])
    value = b.load(b_in, address(source, inp))
    kernel = Kernel("gather", out.element_count, (b.store(b_out, gid, value),))
    return Program("gather", (b_in, b_idx, b_out), (kernel,), ("input", "indices"), "output",
                   out.sizes)


def indexed(desc: GatherElementsDesc, coords: Sequence[Node], raw: Node, inp: Operand) -> Node:
    """input[coords], its axis coordinate the index `raw` clamped to the axis."""
    axis = desc.axis
    return inp.load(replace(coords, axis, b.index(raw, desc.input.sizes[axis], "clamp")))


def lower_gather_elements(desc: GatherElementsDesc, ctx: LowerContext = PLAIN) -> Program:
    """output[c] = input[c with c[axis] = idx(indices[c])]."""
    inp, idx, out = desc.input, desc.indices, desc.output
    assert out is not None, "validate() first"
    b_in, b_idx = tensor_buffer("input", inp, "input"), tensor_buffer("indices", idx, "input")
    b_out = tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    coords = unflatten(gid, out.sizes)
    value = indexed(desc, coords, operand(idx, b_idx).load(coords), operand(inp, b_in))
    kernel = Kernel("gather_elements", out.element_count, (b.store(b_out, gid, value),))
    return Program("gather_elements", (b_in, b_idx, b_out), (kernel,), ("input", "indices"),
                   "output", out.sizes)
