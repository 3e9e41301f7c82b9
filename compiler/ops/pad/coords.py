"""DML_PADDING(1)'s coordinate mapping with sizes that may be PARAMs (shared by lower.py's
kernels and interior.py's): an output coordinate x maps to i = x - start, then through
where-chains with the input size n a constant or a PARAM (the constant's window start <= x <
start + n; the edge's clamp to n - 1; the mirrors' 2n - 2 - i and 2n - 1 - i, the wrap's i -/+ n:
additions and comparisons only, no division by n)."""
from __future__ import annotations

from collections.abc import Sequence

from ...family.generic import dynamic_limit, offset_room
from ...family.lowering import Operand, Size
from ...ir import Node
from ...ir import build as b
from .desc import PaddingDesc
from .validate import padding_bits

SMALLEST = {"DML_PADDING_MODE_REFLECTION": 1, "DML_PADDING_MODE_SYMMETRIC": 0,
            "DML_PADDING_MODE_WRAP": 0}
"""A mirror's or wrap's input size is at least its widest pad plus this (validation's rule)."""


def size_limit(desc: PaddingDesc, dims: Sequence[int]) -> int:
    """The largest size a dynamic dimension admits (dims: the input's dynamic ones): its output
    (the size plus the pads) and the input's addresses within int32 (family/generic.py's
    dynamic_limit, with room for a pushed offset)."""
    inp, out = desc.input, desc.output
    assert out is not None
    widest = max((desc.start_padding[i] + desc.end_padding[i] for i in dims), default=0)
    static_out = [m for i, m in enumerate(out.sizes) if i not in dims]
    fixed = offset_room(inp) + sum((n - 1) * st for i, (n, st) in
                                   enumerate(zip(inp.sizes, inp.element_strides))
                                   if i not in dims)
    return min(dynamic_limit(static_out, len(dims)) - widest,
               dynamic_limit([n for i, n in enumerate(inp.sizes) if i not in dims], len(dims),
                             [st for i, st in enumerate(inp.strides or ()) if i in dims], fixed))


def _minus_one(n: Size) -> Size:
    return n - 1 if isinstance(n, int) else b.add(n, -1)


def _twice_minus(n: Size, k: int) -> Size:
    return 2 * n - k if isinstance(n, int) else b.add(b.mul(n, 2), -k)


def padded_all(mode: str, xs: Sequence[Node], starts: Sequence[int], sizes: Sequence[Size]
               ) -> tuple[list[Node], Node | None]:
    """Output coordinates xs mapped by `padded` (the pads `starts`, the input sizes `sizes`),
    and the condition that every one is inside the input (None where the mode has none)."""
    mapped: list[Node] = []
    conds: list[Node] = []
    for x, start, n in zip(xs, starts, sizes):
        coord, inside = padded(mode, x, start, n)
        mapped.append(coord)
        if inside is not None:
            conds.append(inside)
    return mapped, b.all_of(conds) if conds else None


def padding_fill(desc: PaddingDesc) -> Node:
    """The constant mode's element (its bits, in the input's type)."""
    inp = desc.input
    return b.const_data(inp.data_type, padding_bits(desc.operator, desc.value, inp.data_type))


def padded_element(desc: PaddingDesc, coords: Sequence[Node], inp: Operand) -> Node:
    """Output element `coords`: the input element its coordinates map to (padded_all, over the
    sizes of `inp`, numbers or PARAMs), or the fill where the constant mode's window leaves
    it (the load stays in the buffer: every mapped coordinate is clamped into the input)."""
    mapped, inside = padded_all(desc.mode, coords, desc.start_padding, inp.sizes)
    value = inp.load(mapped)
    return value if inside is None else b.where(inside, value, padding_fill(desc))


def padded(mode: str, x: Node, start: int, n: Size) -> tuple[Node, Node | None]:
    """(input coordinate, inside condition or None) for output coordinate x along a dimension
    of input size n (a constant or a PARAM) padded by `start` before it."""
    i = b.sub(x, start)
    if mode == "DML_PADDING_MODE_CONSTANT":
        end = start + n if isinstance(n, int) else b.add(n, start)
        inside = b.logical_and(b.less(start - 1, x), b.less(x, end))
        return b.minimum(b.maximum(i, 0), _minus_one(n)), inside
    if mode == "DML_PADDING_MODE_EDGE":
        return b.minimum(b.maximum(i, 0), _minus_one(n)), None
    neg_n = -n if isinstance(n, int) else b.mul(n, -1)
    low, high = {"DML_PADDING_MODE_REFLECTION": (b.mul(i, -1), b.sub(_twice_minus(n, 2), i)),
                 "DML_PADDING_MODE_SYMMETRIC": (b.sub(-1, i), b.sub(_twice_minus(n, 1), i)),
                 "DML_PADDING_MODE_WRAP": (b.add(i, n), b.add(i, neg_n))}[mode]
    mapped = b.where(b.less(i, 0), low, b.where(b.less(i, n), i, high))
    return b.minimum(b.maximum(mapped, 0), _minus_one(n)), None
