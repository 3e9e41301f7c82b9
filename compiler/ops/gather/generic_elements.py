"""DML_GATHER_ELEMENTS as a generic kernel: the indices' (= the output's) sizes at dispatch
(family/generic.py). The input shares the indices' sizes off the axis, so those are dynamic in
both; the input's axis (the bound each index is clamped to) stays static."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...family.generic import (
    GenericProgram,
    ParamTable,
    Size,
    address_sym,
    buffer_room,
    clamped,
    clamped_vector,
    dynamic_limit,
    masked,
    product,
    sym_buffer,
    sym_offset,
    sym_sizes,
    sym_strides,
    unflatten_sym,
)
from ...family.index_check import with_index_check
from ...family.lowering import replace
from ...family.rows import BLOCK, row_block_kernel, size_of, vector_sizes
from ...family.words import element_kernel
from ...ir import Buffer, Node, Program
from ...ir import build as b
from ...ir.kernel import vector_width
from .desc import GatherElementsDesc


def elements_sizes(desc: GatherElementsDesc) -> tuple[int, ...]:
    """The sizes a generic gather_elements may take at dispatch: the indices'."""
    return desc.indices.sizes


def elements_free(desc: GatherElementsDesc) -> tuple[int, ...]:
    return tuple(range(desc.indices.rank))


def elements_key(desc: GatherElementsDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    out = desc.output
    assert out is not None
    return (desc.operator, masked(desc.input, [i for i in dims if i != desc.axis], offset=True),
            masked(desc.indices, dims, offset=True), (out.data_type, out.strides, out.total_bytes,
                                         out.offset), desc.axis)


def lower_elements_checked(desc: GatherElementsDesc,
                           dims: Sequence[int]) -> GenericProgram | None:
    return lower_elements_generic(desc, dims, checked=True)


def elements_variants(desc: GatherElementsDesc, dims: Sequence[int]) -> tuple[str, ...]:
    """The generic kernels this call may run, best first: "vectors" (row blocks of 16-byte
    vectors of the output, each from whole vectors of the indices, family/rows.py: the indices
    contiguous innermost with their other strides and offset multiples of their vector width,
    an index no narrower than an element, the innermost size a multiple of the output's vector
    width, a dynamic one only admitted as such, the host checking it: a guarded assumption),
    "blocks" (8 elements of an output row an item; 32/64-bit) where the rows are not known to
    be shorter than a block, and "elements" (one an item, or a word of 8/16-bit ones: any
    sizes)."""
    idx, out = desc.indices, desc.output
    assert out is not None
    if idx.rank == 0:
        return ("elements",)
    last = idx.rank - 1
    inner = idx.sizes[-1]
    ilanes, lanes = vector_width(idx.data_type), vector_width(out.data_type)
    strides = idx.element_strides
    # row blocks store elements: an 8/16-bit output goes by words ("elements": family/words.py)
    long = out.data_type.bits >= 32 and (last in dims or inner >= BLOCK)
    vector = (out.data_type.bits >= 32 and lanes >= ilanes and inner % lanes == 0
              and strides[-1] == 1 and all(st % ilanes == 0 for st in strides[:-1])
              and idx.offset % ilanes == 0 and (last in dims or inner // lanes >= BLOCK))
    return (("vectors",) if vector else ()) + (("blocks",) if long else ()) + ("elements",)


def lower_elements_generic(desc: GatherElementsDesc, dims: Sequence[int],
                           variant: str = "elements",
                           checked: bool = False) -> GenericProgram | None:
    """lower_gather_elements (lower.py) with the indices' sizes at `dims` dynamic (and the
    input's there, but on the axis); checked: with the index check's kernels in front;
    variant: elements_variants'."""
    inp, idx, out = desc.input, desc.indices, desc.output
    assert out is not None, "validate() first"
    d, axis = inp.rank, desc.axis
    if (out.strides is not None or out.offset or out.total_bytes is not None
            or inp.total_bytes is not None or idx.total_bytes is not None
            or any(st < 0 for t in (inp, idx) for st in t.element_strides)
            or not set(dims) <= set(range(d))):
        return None
    # the indices' (and output's) elements: their static sizes' times H^n; the input's: its
    # static sizes' (its axis always) times H for each dynamic dimension but the axis
    static = [s for i, s in enumerate(idx.sizes) if i not in dims]
    in_static = [s for i, s in enumerate(inp.sizes) if i not in dims or i == axis]
    hi = min(dynamic_limit(in_static, len(dims) - (axis in dims),
                           [st for i, st in enumerate(inp.strides or ()) if i in dims
                            and i != axis], buffer_room(inp)),
             dynamic_limit(static, len(dims), [st for i, st in enumerate(idx.strides or ())
                                               if i in dims], buffer_room(idx)))
    if hi < 2:
        return None
    if variant not in elements_variants(desc, dims) and not checked:
        return None
    table = ParamTable()
    if variant == "vectors" and not checked:
        return _vectors(desc, dims, table, hi)
    isizes = sym_sizes(idx, dims, table, hi, lambda i: lambda x: x.indices.sizes[i])
    insizes: list[Size] = [inp.sizes[axis] if j == axis else s for j, s in enumerate(isizes)]
    if variant == "blocks" and not checked:
        b_in, in_extent, in_offset, b_idx, extent, offset = _buffers(desc, table, insizes,
                                                                     isizes)
        istrides, strides = sym_strides(idx, isizes), sym_strides(inp, insizes)

        def element(outer: list[Node], col: Node) -> Node:
            coords = [*outer, col]
            raw = b.load(b_idx, clamped(address_sym(coords, istrides, offset), extent))
            at = address_sym(replace(coords, axis, b.index(raw, inp.sizes[axis], "clamp")),
                             strides, in_offset)
            return b.load(b_in, clamped(at, in_extent))
        kernel, b_out = row_block_kernel("gather_elements", table, isizes, out.data_type,
                                         element)
        program = Program("gather_elements", (b_in, b_idx, b_out), (kernel,),
                          ("input", "indices"), "output", out.sizes, params=tuple(table.params))
        return GenericProgram(program, tuple(table.recipes))
    items = product([s if isinstance(s, int) else s.vmax for s in isizes])
    assert isinstance(items, int)
    count = table.add(1, items, lambda x: x.output.element_count)
    b_in, in_extent, in_offset, b_idx, extent, offset = _buffers(desc, table, insizes, isizes)
    b_out = Buffer("output", out.data_type, items, "output", count)

    def value_of(u: Node) -> Node:
        coords = unflatten_sym(u, isizes)
        raw = b.load(b_idx, clamped(address_sym(coords, sym_strides(idx, isizes), offset),
                                    extent))
        i = b.index(raw, inp.sizes[axis], "clamp")
        at = address_sym(replace(coords, axis, i), sym_strides(inp, insizes), in_offset)
        return b.load(b_in, clamped(at, in_extent))
    kernel = element_kernel("gather_elements", table, count, b_out, value_of)
    program = Program("gather_elements", (b_in, b_idx, b_out), (kernel,), ("input", "indices"),
                      "output", out.sizes, params=tuple(table.params))
    if checked:
        program = with_index_check(program, table, desc, idx, isizes, b_idx, extent, offset)
    return GenericProgram(program, tuple(table.recipes))


def _vectors(desc: GatherElementsDesc, dims: Sequence[int], table: ParamTable,
             hi: int) -> GenericProgram | None:
    """The "vectors" variant: family/rows.py's row blocks of the output's 16-byte vectors; the
    vector at output element c (c a multiple of the width) takes the indices' vectors from c
    (whole ones: the indices contiguous and aligned, an index no narrower than an element),
    each load clamped to the last vector of the indices' runtime extent (exact); each lane's
    index is clamped to the axis and read from the input (clamped to its runtime extent), and
    the lanes packed into the stored vector."""
    inp, idx, out = desc.input, desc.indices, desc.output
    assert out is not None
    axis = desc.axis
    lanes, ilanes = vector_width(out.data_type), vector_width(idx.data_type)
    if hi < 2 * lanes:
        return None
    # vsizes: the output's, in vectors innermost
    isizes, vsizes = vector_sizes(idx.sizes, dims, table, hi, lanes,
                                  lambda i: size_of("indices", i))
    insizes: list[Size] = [inp.sizes[axis] if j == axis else s for j, s in enumerate(isizes)]
    # the indices read as vectors: a pushed offset is a PARAM times their width (aligned
    # offsets only: a guarded assumption)
    b_in, in_extent, in_offset, b_idx, extent, offset = _buffers(desc, table, insizes, isizes,
                                                                 ilanes)
    istrides, strides = sym_strides(idx, isizes), sym_strides(inp, insizes)

    def vector(outer: list[Node], col: Node) -> Node:
        first = b.mul(col, lanes)  # the vector's first element along the row
        start = address_sym([*outer, first], istrides, offset)
        vecs = []
        for m in range(lanes // ilanes):
            at = b.add(start, m * ilanes) if m else start
            vecs.append(b.vload("indices", clamped_vector(at, extent, ilanes)))
        elements = []
        for lane in range(lanes):
            raw = b.vextract(vecs[lane // ilanes], idx.data_type, lane % ilanes)
            coords = [*outer, b.add(first, lane) if lane else first]
            coords[axis] = b.index(raw, inp.sizes[axis], "clamp")
            elements.append(b.load(b_in, clamped(address_sym(coords, strides, in_offset),
                                                 in_extent)))
        return b.vpack(elements)
    kernel, b_out = row_block_kernel("gather_elements", table, vsizes, out.data_type, vector,
                                     lanes=lanes)
    program = Program("gather_elements", (b_in, b_idx, b_out), (kernel,), ("input", "indices"),
                      "output", out.sizes, params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))


def _buffers(desc: GatherElementsDesc, table: ParamTable, insizes: Sequence[Size],
             isizes: Sequence[Size], ilanes: int = 1
             ) -> tuple[Buffer, Node | None, Size, Buffer, Node | None, Size]:
    """The input's and the indices' buffers, runtime extents and offsets (sym_offset's; the
    indices' a PARAM times `ilanes` where read as vectors)."""
    inp, idx = desc.input, desc.indices
    in_offset = sym_offset(inp, table, lambda x: x.input.offset)
    b_in, in_extent = sym_buffer("input", inp, "input", insizes, table,
                                 lambda x: x.input.buffer_elements, in_offset)
    offset = sym_offset(idx, table, lambda x: x.indices.offset, ilanes)
    b_idx, extent = sym_buffer("indices", idx, "input", isizes, table,
                               lambda x: x.indices.buffer_elements, offset)
    return b_in, in_extent, in_offset, b_idx, extent, offset
