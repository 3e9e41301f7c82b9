"""DML_SPACE_TO_DEPTH(1) and DML_DEPTH_TO_SPACE(1): gather form, one invocation per output
element, whose input coordinates are index arithmetic of its own (DCR or CRD order)."""
from __future__ import annotations

from ...family.lowering import address, gather_form
from ...family.registry import PLAIN, LowerContext
from ...ir import Buffer, Node, Program
from ...ir import build as b
from .desc import SpaceToDepthDesc


def lower_depth_space(desc: SpaceToDepthDesc, ctx: LowerContext = PLAIN) -> Program:
    inp, out = desc.input, desc.output
    assert out is not None, "validate() first"
    bs, dcr = desc.block_size, desc.order.endswith("DEPTH_COLUMN_ROW")

    def coords_of(c: list[Node], buf: Buffer) -> Node:
        n, ch, h, w = c
        if desc.to_depth:  # output channel -> (block row, block column, input channel)
            cin = inp.sizes[1]
            if dcr:
                block, src_c = b.floordiv(ch, cin), b.floormod(ch, cin)
            else:
                block, src_c = b.floormod(ch, bs * bs), b.floordiv(ch, bs * bs)
            src = [n, src_c, b.add(b.mul(h, bs), b.floordiv(block, bs)),
                   b.add(b.mul(w, bs), b.floormod(block, bs))]
        else:  # output (channel, row, column) -> the input channel holding it
            cout = out.sizes[1]
            row, col = b.floormod(h, bs), b.floormod(w, bs)
            block = b.add(b.mul(row, bs), col)
            src_c = (b.add(b.mul(block, cout), ch) if dcr else
                     b.add(b.mul(ch, bs * bs), block))
            src = [n, src_c, b.floordiv(h, bs), b.floordiv(w, bs)]
        return b.load(buf, address(src, inp))
    name = "space_to_depth" if desc.to_depth else "depth_to_space"
    return gather_form(name, inp, out, coords_of)
