"""DML_TILE: gather form, one invocation per output element, reading input[c % size]."""
from __future__ import annotations

from ...family.lowering import address, gather_form
from ...family.registry import PLAIN, LowerContext
from ...ir import Program
from ...ir import build as b
from .desc import TileDesc


def lower_tile(desc: TileDesc, ctx: LowerContext = PLAIN) -> Program:
    inp, out = desc.input, desc.output
    assert out is not None, "validate() first"
    return gather_form("tile", inp, out, lambda c, buf: b.load(buf, address(
        [b.floormod(x, n) for x, n in zip(c, inp.sizes)], inp)))
