"""DML_GATHER and DML_GATHER_ELEMENTS: one read per output element, one kernel."""
from __future__ import annotations

from ...family.lowering import address, replace, tensor_buffer, unflatten
from ...family.registry import PLAIN, LowerContext
from ...ir import Kernel, Program
from ...ir import build as b
from .desc import GatherDesc, GatherElementsDesc


def lower_gather(desc: GatherDesc, ctx: LowerContext = PLAIN) -> Program:
    """output[full] = input[full[:A], idx(indices[full[A:A+K]]), full[A+K:]], where `full` is the
    output coordinate list before it was right-aligned to D (the DML_GATHER page)."""
    inp, idx, out = desc.input, desc.indices, desc.output
    assert out is not None, "validate() first"
    d, axis, k = inp.rank, desc.axis, desc.index_dimensions
    b_in, b_idx = tensor_buffer("input", inp, "input"), tensor_buffer("indices", idx, "input")
    b_out = tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    coords = unflatten(gid, out.sizes)
    length = d + k - 1  # input[0:A] ++ indices[D-K:] ++ input[A+1:]
    full = [b.const(0)] * (length - d) + coords if length >= d else coords[d - length:]
    raw = b.load(b_idx, address([b.const(0)] * (d - k) + full[axis:axis + k], idx))
    i = b.index(raw, inp.sizes[axis], "clamp")
    value = b.load(b_in, address(full[:axis] + [i] + full[axis + k:], inp))
    kernel = Kernel("gather", out.element_count, (b.store(b_out, gid, value),))
    return Program("gather", (b_in, b_idx, b_out), (kernel,), ("input", "indices"), "output",
                   out.sizes)


def lower_gather_elements(desc: GatherElementsDesc, ctx: LowerContext = PLAIN) -> Program:
    """output[c] = input[c with c[axis] = idx(indices[c])]."""
    inp, idx, out = desc.input, desc.indices, desc.output
    assert out is not None, "validate() first"
    b_in, b_idx = tensor_buffer("input", inp, "input"), tensor_buffer("indices", idx, "input")
    b_out = tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    coords = unflatten(gid, out.sizes)
    i = b.index(b.load(b_idx, address(coords, idx)), inp.sizes[desc.axis], "clamp")
    value = b.load(b_in, address(replace(coords, desc.axis, i), inp))
    kernel = Kernel("gather_elements", out.element_count, (b.store(b_out, gid, value),))
    return Program("gather_elements", (b_in, b_idx, b_out), (kernel,), ("input", "indices"),
                   "output", out.sizes)
