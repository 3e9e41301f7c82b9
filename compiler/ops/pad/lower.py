"""DML_PADDING(1): gather form, one invocation per output element. The constant is a select
between the load and the element (every load's coordinates are clamped into the input, so the
select's other side stays in the buffer too); the mirrors and the wrap are where-chains on each
coordinate, clamped for the proof (idle where validation's limits hold)."""
from __future__ import annotations

from ...family.lowering import gather_form, operand
from ...family.registry import PLAIN, LowerContext
from ...ir import Program
from .coords import padded_element
from .desc import PaddingDesc


def lower_padding(desc: PaddingDesc, ctx: LowerContext = PLAIN) -> Program:
    inp, out = desc.input, desc.output
    assert out is not None, "validate() first"
    return gather_form("padding", inp, out,
                       lambda c, buf: padded_element(desc, c, operand(inp, buf)))
