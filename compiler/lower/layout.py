"""DML_TILE, DML_PADDING(1), DML_SPACE_TO_DEPTH(1), DML_DEPTH_TO_SPACE(1): gather form, one
invocation per output element, whose input coordinates are index arithmetic of its own.

Padding's constant is a select between the load and the element (every load's coordinates are
clamped into the input, so the select's other side stays in the buffer too); the mirrors and
the wrap are where-chains on each coordinate, clamped for the proof (idle where validation's
limits hold).
"""
from __future__ import annotations

from collections.abc import Callable

from ..descriptors import TensorDesc
from ..descriptors.layout import (
    DepthToSpace0Desc,
    DepthToSpaceDesc,
    Padding0Desc,
    PaddingDesc,
    SpaceToDepth0Desc,
    SpaceToDepthDesc,
    TileDesc,
)
from ..ir import Buffer, Kernel, Node, Program
from ..ir import build as b
from ..validate_layout import padding_bits
from .common import address, tensor_buffer, unflatten


def _gather_form(name: str, inp: TensorDesc, out: TensorDesc,
                 coords_of: Callable[[list[Node], Buffer], Node]) -> Program:
    """output[c] = input[coords_of(c)] (or what coords_of returns as the value itself)."""
    b_in, b_out = tensor_buffer("input", inp, "input"), tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    coords = unflatten(gid, out.sizes)
    value = coords_of(coords, b_in)
    kernel = Kernel(name, out.element_count, (b.store(b_out, gid, value),))
    return Program(name, (b_in, b_out), (kernel,), ("input",), "output", out.sizes)


def lower_tile(desc: TileDesc) -> Program:
    inp, out = desc.input, desc.output
    assert out is not None, "validate() first"
    return _gather_form("tile", inp, out, lambda c, buf: b.load(buf, address(
        [b.floormod(x, n) for x, n in zip(c, inp.sizes)], inp)))


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


def lower_padding(desc: PaddingDesc) -> Program:
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
        if not conds:
            return value
        inside = conds[0]
        for more in conds[1:]:
            inside = b.logical_and(inside, more)
        return b.where(inside, value, fill)
    return _gather_form("padding", inp, out, coords_of)


def lower_depth_space(desc: SpaceToDepthDesc) -> Program:
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
    return _gather_form(name, inp, out, coords_of)


LAYOUT_LOWERINGS = {TileDesc: lower_tile, PaddingDesc: lower_padding, Padding0Desc: lower_padding,
                    SpaceToDepthDesc: lower_depth_space, DepthToSpaceDesc: lower_depth_space,
                    SpaceToDepth0Desc: lower_depth_space, DepthToSpace0Desc: lower_depth_space}
