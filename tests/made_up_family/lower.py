"""DML_MIRROR in gather form: each output element reads the input at its mirrored coordinate."""
from __future__ import annotations

from dmlc.family.lowering import address, gather_form
from dmlc.family.registry import PLAIN, LowerContext
from dmlc.ir import Program
from dmlc.ir import build as b

from .desc import MirrorDesc


def lower_mirror(desc: MirrorDesc, ctx: LowerContext = PLAIN) -> Program:
    assert desc.output is not None, "validate() first"
    n = desc.input.sizes[desc.axis]

    def coords_of(c, b_in):
        c = list(c)
        c[desc.axis] = b.sub(n - 1, c[desc.axis])
        return b.load(b_in, address(c, desc.input))
    return gather_form("mirror", desc.input, desc.output, coords_of)
