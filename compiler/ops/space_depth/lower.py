"""DML_SPACE_TO_DEPTH(1) and DML_DEPTH_TO_SPACE(1): gather form, one invocation per output
element, whose input coordinates are index arithmetic of its own (DCR or CRD order)."""
from __future__ import annotations

from ...family.lowering import Size, gather_form, operand
from ...family.registry import PLAIN, LowerContext
from ...ir import Node, Program
from ...ir import build as b
from .desc import SpaceToDepthDesc


def source(desc: SpaceToDepthDesc, coords: list[Node], cin: Size, cout: Size) -> list[Node]:
    """The input coordinates of output element `coords`, index arithmetic of its own (DCR or
    CRD order); cin, cout the input's and output's channels (numbers, or in a generic kernel a
    PARAM or a PARAM times b * b where dynamic)."""
    n, ch, h, w = coords
    bs, dcr = desc.block_size, desc.order.endswith("DEPTH_COLUMN_ROW")
    if desc.to_depth:  # output channel -> (block row, block column, input channel)
        if dcr:
            block, src_c = b.floordiv(ch, cin), b.floormod(ch, cin)
        else:
            block, src_c = b.floormod(ch, bs * bs), b.floordiv(ch, bs * bs)
        return [n, src_c, b.add(b.mul(h, bs), b.floordiv(block, bs)),
                b.add(b.mul(w, bs), b.floormod(block, bs))]
    block = b.add(b.mul(b.floormod(h, bs), bs), b.floormod(w, bs))
    src_c = b.add(b.mul(block, cout), ch) if dcr else b.add(b.mul(ch, bs * bs), block)
    return [n, src_c, b.floordiv(h, bs), b.floordiv(w, bs)]


def lower_depth_space(desc: SpaceToDepthDesc, ctx: LowerContext = PLAIN) -> Program:
    inp, out = desc.input, desc.output
    assert out is not None, "validate() first"
    name = "space_to_depth" if desc.to_depth else "depth_to_space"
    return gather_form(name, inp, out, lambda c, buf: operand(inp, buf).load(
        source(desc, c, inp.sizes[1], out.sizes[1])))
