"""DML_ONE_HOT: gather form, one invocation per output element: values[1] where the element's
label (normalized against the depth; one outside it matches no class) equals its coordinate
along the axis, else values[0]."""
from __future__ import annotations

from ...family.lowering import address, replace, tensor_buffer, unflatten
from ...family.registry import PLAIN, LowerContext
from ...ir import Kernel, Program
from ...ir import build as b
from .desc import OneHotDesc


def lower_one_hot(desc: OneHotDesc, ctx: LowerContext = PLAIN) -> Program:
    idx, values, out, axis = desc.indices, desc.values, desc.output, desc.axis
    b_idx = tensor_buffer("indices", idx, "input")
    b_val = tensor_buffer("values", values, "input")
    b_out = tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    coords = unflatten(gid, out.sizes)
    depth = out.sizes[axis]
    label = b.index(b.load(b_idx, address(replace(coords, axis, b.const(0)), idx)), depth,
                    "mask")  # -1 outside [-depth, depth): no class
    zeros = [b.const(0)] * (values.rank - 1)
    on = b.load(b_val, address(zeros + [b.const(1)], values))
    off = b.load(b_val, address(zeros + [b.const(0)], values))
    hit = b.logical_and(b.less(label, b.add(coords[axis], 1)),
                        b.less(coords[axis], b.add(label, 1)))  # label == coordinate
    kernel = Kernel("one_hot", out.element_count, (b.store(b_out, gid, b.where(hit, on, off)),))
    return Program("one_hot", (b_idx, b_val, b_out), (kernel,), ("indices", "values"),
                   "output", out.sizes)
