"""DML_TILE: one lowering, over sizes that are numbers or push constants (family/generic.py).
Output coordinate x along dimension d reads input coordinate x % n, n the input's size there; a
dimension repeated once reads x itself.

The specialized kernel (lower_tile) is the lowering with every size its number, what it leaves
pushed bound to the call's values (ir/specialize.py). A generic kernel (lower_tile_generic)
takes the input's sizes as push constants, the repeats fixed (n a PARAM >= 1 of a coordinate
>= 0: GLSL's % is exact). The output's sizes (n times the repeats) are PARAMs of their own, the
divisors that give the output coordinates: once per block of a row (family/rows.py) unless its
rows are shorter than a block, then once per element."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...family.generic import (
    GenericProgram,
    ParamTable,
    dynamic_limit,
    generic_layouts,
    layouts,
    lowered_variant,
    masked,
    offset_room,
    static_program,
    sym_buffer,
    sym_offset,
)
from ...family.lowering import Size, address_sym, clamped, sym_strides
from ...family.registry import PLAIN, LowerContext
from ...family.rows import BLOCK, output_kernel, row_block_kernel, size_of, vectors_of
from ...ir import Node, Program
from ...ir import build as b
from ...ir.kernel import vector_width
from .desc import TileDesc


def tiled(coords: Sequence[Node], sizes: Sequence[Size], repeats: Sequence[int]) -> list[Node]:
    """The input coordinates output `coords` reads: x % n along a dimension of input size n
    (a number or a PARAM), x itself where it is repeated once, 0 where n is 1."""
    return [b.const(0) if isinstance(n, int) and n == 1 else x if r == 1 else b.floormod(x, n)
            for x, n, r in zip(coords, sizes, repeats)]


def lower_tile(desc: TileDesc, ctx: LowerContext = PLAIN) -> Program:
    """The specialized kernel: the generic lowering with every size its number, what it leaves
    pushed bound to the call's values (ir/specialize.py)."""
    return static_program(lower_tile_generic(desc, (), static=True), desc)


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


def tile_variants(desc: TileDesc, dims: Sequence[int]) -> tuple[str, ...]:
    """The generic kernels this call may run, best first: "vector" (row blocks of 16-byte
    vectors: the input contiguous innermost, its other strides and offset multiples of the
    vector width and its innermost size too, so that output vector c of a row reads the
    input's aligned vector c % (size / width); a dynamic innermost size is admitted only as
    such a multiple, the host checking it: a guarded assumption; a static one makes output rows
    of BLOCK vectors or more, as family/rows.py's by_rows) and "scalar" (any sizes)."""
    inp = desc.input
    lanes = vector_width(inp.data_type)
    strides = inp.element_strides
    vector = (inp.rank > 0 and strides[-1] == 1
              and inp.sizes[-1] % lanes == 0
              and inp.offset % lanes == 0
              and all(st % lanes == 0 for st in strides[:-1]))
    if not vector:
        return ("scalar",)
    if inp.rank - 1 not in dims:  # static rows shorter than a block: one element an item
        out = desc.output
        assert out is not None
        return ("vector",) if out.sizes[-1] // lanes >= BLOCK else ("scalar",)
    return ("vector", "scalar")


def lower_tile_generic(desc: TileDesc, dims: Sequence[int], variant: str = "scalar",
                       static: bool = False) -> GenericProgram | None:
    """The tile of `desc` with the input's sizes at `dims` dynamic (an 8/16-bit output stored
    by words: family/words.py); None for a given output layout or TotalTensorSizeInBytes, a
    negative input stride, a variant this descriptor does not allow (tile_variants). The
    "vector" variant counts the innermost sizes in vectors (family/rows.py's row blocks of
    vectors): output vector c of a row reads the input's vector c % n (n its innermost size in
    vectors), each load clamped to the last vector of the input's runtime extent (exact: an
    aligned vector of elements). static: the specialized kernel's lowering (no dims; lower_tile
    binds it), one element an item, which takes every descriptor."""
    inp, out, repeats = desc.input, desc.output, desc.repeats
    assert out is not None, "validate() first"
    built = lowered_variant(variant, static, dims, lambda: tile_variants(desc, dims),
                            generic_layouts(out, inp))
    if built is None:
        return None
    variant = built
    lanes = vector_width(inp.data_type) if variant == "vector" else 1
    last = inp.rank - 1
    hi = 1  # (static: no size is pushed)
    if not static:
        fixed = offset_room(inp) + sum((s - 1) * st for i, (s, st) in
                                 enumerate(zip(inp.sizes, inp.element_strides)) if i not in dims)
        widest = max((repeats[i] for i in dims), default=1)
        hi = min(dynamic_limit([s for i, s in enumerate(out.sizes) if i not in dims],
                               len(dims)) // widest,
                 dynamic_limit([s for i, s in enumerate(inp.sizes) if i not in dims], len(dims),
                               [st for i, st in enumerate(inp.strides or ()) if i in dims], fixed))
        if hi < 2 * lanes:
            return None
    table = ParamTable(static)
    in_sizes: list[Size] = []
    out_sizes: list[Size] = []
    vin: list[Size] = []  # in vectors innermost
    vout: list[Size] = []
    for i, (n, m) in enumerate(zip(inp.sizes, out.sizes)):
        if i not in dims:
            in_sizes.append(n)
            out_sizes.append(m)
            vin.append(n // lanes if i == last else n)
            vout.append(m // lanes if i == last else m)
            continue
        if i == last and lanes > 1:  # counts of vectors: the host admits multiples only
            q = table.add(1, hi // lanes, vectors_of(size_of("input", i), lanes))
            in_sizes.append(b.mul(q, lanes))
            vin.append(q)
            vout.append(q if repeats[i] == 1 else table.add(
                repeats[i], hi // lanes * repeats[i], vectors_of(size_of("output", i), lanes)))
            out_sizes.append(vout[-1] if repeats[i] == 1 else b.mul(vout[-1], lanes))
            continue
        in_sizes.append(table.add(1, hi, size_of("input", i)))
        out_sizes.append(in_sizes[-1] if repeats[i] == 1 else
                         table.add(repeats[i], hi * repeats[i], size_of("output", i)))
        vin.append(in_sizes[-1])
        vout.append(out_sizes[-1])
    # a pushed offset: the vector variant's a PARAM times the width (aligned: guarded)
    offset = sym_offset(inp, table, lambda d: d.input.offset, lanes)
    b_in, extent = sym_buffer("input", inp, "input", in_sizes, table,
                              lambda d: d.input.buffer_elements, offset)
    strides = sym_strides(inp, in_sizes)

    def element(outer: list[Node], col: Node) -> Node:
        coords = tiled([*outer, col], in_sizes, repeats)
        return b.load(b_in, clamped(address_sym(coords, strides, offset), extent))

    def vector(outer: list[Node], col: Node) -> Node:
        coords = tiled([*outer, col], vin, repeats)
        row = b.floordiv(address_sym(coords[:-1], strides[:-1], offset), lanes)
        at = b.add(row, coords[-1])  # in vectors: the row's first element is aligned
        if extent is not None:
            at = b.minimum(at, b.floordiv(b.add(extent, -1), lanes))
        return b.vload("input", b.mul(at, lanes))
    if lanes > 1:
        kernel, b_out = row_block_kernel("tile", table, vout, out.data_type, vector,
                                         lanes=lanes)
    else:
        kernel, b_out = output_kernel("tile", table, out_sizes, out.data_type, element)
    program = Program("tile", (b_in, b_out), (kernel,), ("input",), "output", out.sizes,
                      params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))
