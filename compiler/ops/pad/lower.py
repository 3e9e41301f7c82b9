"""DML_PADDING(1): gather form, one invocation per output element. The constant is a select
between the load and the element (every load's coordinates are clamped into the input, so the
select's other side stays in the buffer too); the mirrors and the wrap are where-chains on each
coordinate, clamped for the proof (idle where validation's limits hold)."""
from __future__ import annotations

from ...family.lowering import address, gather_form
from ...family.registry import PLAIN, LowerContext
from ...ir import Buffer, Node, Program
from ...ir import build as b
from .desc import PaddingDesc
from .validate import padding_bits


def _padded(mode: str, x: Node, start: int, n: int) -> tuple[Node, Node | None]:
    """(input coordinate, inside condition or None) for output coordinate x along a padded
    dimension: i = x - start, mapped into [0, n) as the mode says."""
    i = b.sub(x, start)
    if mode == "DML_PADDING_MODE_CONSTANT":
        inside = b.logical_and(b.less(start - 1, x), b.less(x, start + n))
        return b.clamp(i, 0, n - 1), inside
    if mode == "DML_PADDING_MODE_EDGE":
        return b.clamp(i, 0, n - 1), None
    low, high = {"DML_PADDING_MODE_REFLECTION": (b.mul(i, -1), b.sub(2 * n - 2, i)),
                 "DML_PADDING_MODE_SYMMETRIC": (b.sub(-1, i), b.sub(2 * n - 1, i)),
                 "DML_PADDING_MODE_WRAP": (b.add(i, n), b.sub(i, n))}[mode]
    mapped = b.where(b.less(i, 0), low, b.where(b.less(i, n), i, high))
    return b.clamp(mapped, 0, n - 1), None


def lower_padding(desc: PaddingDesc, ctx: LowerContext = PLAIN) -> Program:
    inp, out = desc.input, desc.output
    assert out is not None, "validate() first"
    fill = b.const_data(inp.data_type, padding_bits(desc.operator, desc.value, inp.data_type))

    def coords_of(c: list[Node], buf: Buffer) -> Node:
        mapped, conds = [], []
        for x, start, n in zip(c, desc.start_padding, inp.sizes):
            i, inside = _padded(desc.mode, x, start, n)
            mapped.append(i)
            if inside is not None:
                conds.append(inside)
        value = b.load(buf, address(mapped, inp))
        return b.where(b.all_of(conds), value, fill) if conds else value
    return gather_form("padding", inp, out, coords_of)
