"""DML_TILE: gather form, one invocation per output element, reading input[c % size]."""
from __future__ import annotations

from collections.abc import Sequence

from ...family.lowering import Size, gather_form, operand
from ...family.registry import PLAIN, LowerContext
from ...ir import Node, Program
from ...ir import build as b
from .desc import TileDesc


def tiled(coords: Sequence[Node], sizes: Sequence[Size], repeats: Sequence[int]) -> list[Node]:
    """The input coordinates output `coords` reads: x % n along a dimension of input size n
    (a number or a PARAM), x itself where it is repeated once, 0 where n is 1."""
    return [b.const(0) if isinstance(n, int) and n == 1 else x if r == 1 else b.floormod(x, n)
            for x, n, r in zip(coords, sizes, repeats)]


def lower_tile(desc: TileDesc, ctx: LowerContext = PLAIN) -> Program:
    inp, out = desc.input, desc.output
    assert out is not None, "validate() first"
    return gather_form("tile", inp, out, lambda c, buf: operand(inp, buf).load(
        tiled(c, inp.sizes, desc.repeats)))
