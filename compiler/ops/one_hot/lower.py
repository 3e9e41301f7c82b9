"""DML_ONE_HOT: gather form, one invocation per output element: values[1] where the element's
label (normalized against the depth; one outside it matches no class) equals its coordinate
along the axis, else values[0]."""
from __future__ import annotations

from collections.abc import Sequence

from ...family.lowering import Operand, address, operand, replace, tensor_buffer, unflatten
from ...family.registry import PLAIN, LowerContext
from ...ir import Kernel, Node, Program
from ...ir import build as b
from .desc import OneHotDesc


def label_of(desc: OneHotDesc, coords: Sequence[Node], indices: Operand) -> Node:
    """The label of output element `coords` (read as `indices` reads), normalized against the
    depth: -1 outside [-depth, depth), no class."""
    axis = desc.axis
    depth = desc.output.sizes[axis]
    return b.index(indices.load(replace(coords, axis, b.const(0))), depth, "mask")


def is_class(label: Node, x: Node, after: Node | None = None) -> Node:
    """label == x (for coordinates x >= 0 along the axis; `after`: x + 1 as the caller spells
    it, a generic kernel's vector lanes first + (k + 1))."""
    after = b.add(x, 1) if after is None else after
    return b.logical_and(b.less(label, after), b.less(x, b.add(label, 1)))


def lower_one_hot(desc: OneHotDesc, ctx: LowerContext = PLAIN) -> Program:
    idx, values, out, axis = desc.indices, desc.values, desc.output, desc.axis
    b_idx = tensor_buffer("indices", idx, "input")
    b_val = tensor_buffer("values", values, "input")
    b_out = tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    coords = unflatten(gid, out.sizes)
    label = label_of(desc, coords, operand(idx, b_idx))
    zeros = [b.const(0)] * (values.rank - 1)
    on = b.load(b_val, address(zeros + [b.const(1)], values))
    off = b.load(b_val, address(zeros + [b.const(0)], values))
    value = b.where(is_class(label, coords[axis]), on, off)
    kernel = Kernel("one_hot", out.element_count, (b.store(b_out, gid, value),))
    return Program("one_hot", (b_idx, b_val, b_out), (kernel,), ("indices", "values"),
                   "output", out.sizes)
