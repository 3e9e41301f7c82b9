"""DML_GATHER_ELEMENTS: one lowering, over sizes that are numbers or push constants
(family/generic.py): output[c] = input[c with c[axis] = idx(indices[c])].

The specialized kernel (lower_gather_elements) is the lowering with every size its number, what
it leaves pushed bound to the call's values (ir/specialize.py). A generic kernel
(lower_elements_generic) takes the indices' (= the output's) sizes at dispatch; the input shares
the indices' sizes off the axis, so those are dynamic in both; the input's axis (the bound each
index is clamped to) stays static."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...family.generic import (
    GenericProgram,
    ParamTable,
    buffer_room,
    dynamic_limit,
    generic_layouts,
    masked,
    static_program,
    sym_operand,
    sym_sizes,
)
from ...family.index_check import with_index_check
from ...family.lowering import (
    Operand,
    Size,
    address_sym,
    clamped_vector,
    largest,
    product,
    replace,
    unflatten,
)
from ...family.registry import PLAIN, LowerContext
from ...family.rows import BLOCK, row_block_kernel, size_of, vector_sizes
from ...family.words import element_kernel
from ...ir import Buffer, Node, Program
from ...ir import build as b
from ...ir.kernel import vector_width
from .desc import GatherElementsDesc


def indexed(desc: GatherElementsDesc, coords: Sequence[Node], raw: Node, inp: Operand) -> Node:
    """input[coords], its axis coordinate the index `raw` clamped to the axis."""
    axis = desc.axis
    return inp.load(replace(coords, axis, b.index(raw, desc.input.sizes[axis], "clamp")))


def lower_gather_elements(desc: GatherElementsDesc, ctx: LowerContext = PLAIN) -> Program:
    """output[c] = input[c with c[axis] = idx(indices[c])]: the generic lowering
    with every size its number, what it leaves pushed bound."""
    return static_program(lower_elements_generic(desc, (), static=True), desc)


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
                           variant: str = "elements", checked: bool = False,
                           static: bool = False) -> GenericProgram | None:
    """The gather_elements of `desc` with the indices' sizes at `dims` dynamic (and the
    input's there, but on the axis); checked: with the index check's kernels in front;
    variant: elements_variants'. static: the specialized kernel's lowering (no dims;
    lower_gather_elements binds it), one element an item, which takes every descriptor."""
    inp, idx, out = desc.input, desc.indices, desc.output
    assert out is not None, "validate() first"
    assert not (static and dims), "a specialized kernel's sizes are its numbers"
    d, axis = inp.rank, desc.axis
    hi = 1  # (static: no size is pushed)
    if static:
        variant = "elements"
    else:
        if not generic_layouts(out, inp, idx) or not set(dims) <= set(range(d)):
            return None
        # the indices' (and output's) elements: their static sizes' times H^n; the input's:
        # its static sizes' (its axis always) times H for each dynamic dimension but the axis
        static_sizes = [s for i, s in enumerate(idx.sizes) if i not in dims]
        in_static = [s for i, s in enumerate(inp.sizes) if i not in dims or i == axis]
        hi = min(dynamic_limit(in_static, len(dims) - (axis in dims),
                               [st for i, st in enumerate(inp.strides or ()) if i in dims
                                and i != axis], buffer_room(inp)),
                 dynamic_limit(static_sizes, len(dims),
                               [st for i, st in enumerate(idx.strides or ()) if i in dims],
                               buffer_room(idx)))
        if hi < 2:
            return None
        if variant not in elements_variants(desc, dims) and not checked:
            return None
    table = ParamTable(static)
    if variant == "vectors" and not checked:
        return _vectors(desc, dims, table, hi)
    isizes = sym_sizes(idx, dims, table, hi, lambda i: lambda x: x.indices.sizes[i])
    insizes: list[Size] = [inp.sizes[axis] if j == axis else s for j, s in enumerate(isizes)]
    if variant == "blocks" and not checked:
        table_in, indices = _operands(desc, table, insizes, isizes)

        def element(outer: list[Node], col: Node) -> Node:
            coords = [*outer, col]
            return indexed(desc, coords, indices.load(coords), table_in)
        kernel, b_out = row_block_kernel("gather_elements", table, isizes, out.data_type,
                                         element)
        program = Program("gather_elements", (table_in.buf, indices.buf, b_out), (kernel,),
                          ("input", "indices"), "output", out.sizes, params=tuple(table.params))
        return GenericProgram(program, tuple(table.recipes))
    items = product([largest(s) for s in isizes])
    assert isinstance(items, int)
    count = table.add(1, items, lambda x: x.output.element_count)
    table_in, indices = _operands(desc, table, insizes, isizes)
    b_out = Buffer("output", out.data_type, items, "output", count)

    def value_of(u: Node) -> Node:
        coords = unflatten(u, isizes)
        return indexed(desc, coords, indices.load(coords), table_in)
    kernel = element_kernel("gather_elements", table, count, b_out, value_of)
    program = Program("gather_elements", (table_in.buf, indices.buf, b_out), (kernel,),
                      ("input", "indices"), "output", out.sizes, params=tuple(table.params))
    if checked:
        program = with_index_check(program, table, desc, idx, isizes, indices.buf,
                                   indices.extent, indices.offset)
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
    table_in, indices = _operands(desc, table, insizes, isizes, ilanes)
    istrides, offset, extent = indices.strides, indices.offset, indices.extent

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
            elements.append(indexed(desc, coords, raw, table_in))
        return b.vpack(elements)
    kernel, b_out = row_block_kernel("gather_elements", table, vsizes, out.data_type, vector,
                                     lanes=lanes)
    program = Program("gather_elements", (table_in.buf, indices.buf, b_out), (kernel,),
                      ("input", "indices"), "output", out.sizes, params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))


def _operands(desc: GatherElementsDesc, table: ParamTable, insizes: Sequence[Size],
              isizes: Sequence[Size], ilanes: int = 1) -> tuple[Operand, Operand]:
    """The input and the indices as the kernel reads them (sym_operand's; the indices' offset
    a PARAM times `ilanes` where they are read as vectors)."""
    return (sym_operand("input", "input", desc.input, "input", insizes, table),
            sym_operand("indices", "indices", desc.indices, "input", isizes, table, ilanes))
