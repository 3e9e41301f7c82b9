"""DML_TILE as a generic kernel: the input's sizes push constants, the repeats fixed
(family/generic.py). Output coordinate x along dimension d reads input coordinate x % n, n the
input's size there (a PARAM >= 1 of a coordinate >= 0: GLSL's % is exact); a dimension repeated
once reads x itself. The output's sizes (n times the repeats) are PARAMs of their own, the
divisors that give the output coordinates: once per block of a row (family/rows.py) unless
its rows are shorter than a block, then once per element."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...family.generic import (
    GenericProgram,
    ParamTable,
    Size,
    address_sym,
    clamped,
    dynamic_limit,
    layouts,
    masked,
    offset_room,
    sym_buffer,
    sym_offset,
    sym_strides,
)
from ...family.rows import output_kernel, size_of
from ...ir import Node, Program
from ...ir import build as b
from .desc import TileDesc


def tile_sizes(desc: TileDesc) -> tuple[int, ...]:
    """The sizes a generic tile may take at dispatch: the input's."""
    return desc.input.sizes


def tile_free(desc: TileDesc) -> tuple[int, ...]:
    return tuple(range(desc.input.rank))


def tile_key(desc: TileDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    out = desc.output
    assert out is not None
    return (desc.operator, masked(desc.input, dims, offset=True), masked(out, dims), desc.repeats)


def tile_layouts(desc: TileDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    return layouts(desc, "input", dims)


def lower_tile_generic(desc: TileDesc, dims: Sequence[int]) -> GenericProgram | None:
    """lower_tile (lower.py) with the input's sizes at `dims` dynamic; None for 8/16-bit
    elements, a given output layout or TotalTensorSizeInBytes, a negative input stride."""
    inp, out, repeats = desc.input, desc.output, desc.repeats
    assert out is not None, "validate() first"
    if (out.strides is not None or out.offset or out.total_bytes is not None
            or out.data_type.bits < 32 or inp.total_bytes is not None
            or any(st < 0 for st in inp.element_strides)):
        return None
    fixed = offset_room(inp) + sum((s - 1) * st for i, (s, st) in
                             enumerate(zip(inp.sizes, inp.element_strides)) if i not in dims)
    widest = max((repeats[i] for i in dims), default=1)
    hi = min(dynamic_limit([s for i, s in enumerate(out.sizes) if i not in dims],
                           len(dims)) // widest,
             dynamic_limit([s for i, s in enumerate(inp.sizes) if i not in dims], len(dims),
                           [st for i, st in enumerate(inp.strides or ()) if i in dims], fixed))
    if hi < 2:
        return None
    table = ParamTable()
    in_sizes: list[Size] = []
    out_sizes: list[Size] = []
    for i, (n, m) in enumerate(zip(inp.sizes, out.sizes)):
        if i not in dims:
            in_sizes.append(n)
            out_sizes.append(m)
            continue
        in_sizes.append(table.add(1, hi, size_of("input", i)))
        out_sizes.append(in_sizes[-1] if repeats[i] == 1 else
                         table.add(repeats[i], hi * repeats[i], size_of("output", i)))
    offset = sym_offset(inp, table, lambda d: d.input.offset)
    b_in, extent = sym_buffer("input", inp, "input", in_sizes, table,
                              lambda d: d.input.buffer_elements, offset)
    strides = sym_strides(inp, in_sizes)

    def element(outer: list[Node], col: Node) -> Node:
        coords = [b.const(0) if isinstance(size, int) and size == 1
                  else x if r == 1 else b.floormod(x, size)
                  for x, size, r in zip([*outer, col], in_sizes, repeats)]
        return b.load(b_in, clamped(address_sym(coords, strides, offset), extent))
    kernel, b_out = output_kernel("tile", table, out_sizes, out.data_type, element)
    program = Program("tile", (b_in, b_out), (kernel,), ("input",), "output", out.sizes,
                      params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))

