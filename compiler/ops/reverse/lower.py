"""DML_REVERSE_SUBSEQUENCES: one lowering, over sizes that are numbers or push constants
(family/generic.py). A length L is read as an index of the n + 1 positions [0, n] (negative from
the end, beyond clamped); coordinate x < L reads L - 1 - x, the others read themselves.

The specialized kernel (lower_reverse_subsequences) is the lowering with every size its number,
what it leaves pushed bound to the call's values (ir/specialize.py). A generic kernel
(lower_reverse_generic) takes the input's sizes (and so the lengths', which are the input's with
1 along the axis) as push constants, the axis's size fixed (the length's bound n + 1 and the
mirror's clamp to n - 1 stay constants). Its output coordinates come from family/rows.py's row
blocks (their divisions by push constants once per block, the length read once per row where
the axis is not the innermost), or one element (word of 8/16-bit elements) per item where the
rows are short."""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ...family.generic import (
    GenericProgram,
    ParamTable,
    explicit,
    generic_layouts,
    lowered_variant,
    masked,
    static_program,
    sym_buffer,
    sym_offset,
    sym_operand,
    tensor_limit,
    wild,
)
from ...family.index_check import with_index_check
from ...family.lowering import Operand, Size, address_sym, clamped, replace, sym_strides
from ...family.registry import PLAIN, LowerContext
from ...family.rows import BLOCK, output_kernel, row_block_kernel, size_of, vector_sizes
from ...ir import Node, Program
from ...ir import build as b
from ...ir.kernel import vector_width
from .desc import ReverseSubsequencesDesc


def reversed_coordinate(desc: ReverseSubsequencesDesc, coords: Sequence[Node],
                        lengths: Operand) -> Node:
    """The axis coordinate output `coords` reads: its subsequence's length (read where the
    lengths hold it, as `lengths` reads) taken as an index of [0, n], x < L mirrored to
    L - 1 - x (clamped into the axis), the others themselves."""
    axis, n = desc.axis, desc.input.sizes[desc.axis]
    x = coords[axis]
    length = b.index(lengths.load(replace(coords, axis, b.const(0))), n + 1, "clamp")
    mirrored = b.clamp(b.sub(b.sub(length, 1), x), 0, n - 1)
    return b.where(b.less(x, length), mirrored, x)


def lower_reverse_subsequences(desc: ReverseSubsequencesDesc, ctx: LowerContext = PLAIN) -> Program:
    """The specialized kernel: the generic lowering with every size its number, what it leaves
    pushed bound to the call's values (ir/specialize.py)."""
    return static_program(lower_reverse_generic(desc, (), static=True), desc)


def reverse_sizes(desc: ReverseSubsequencesDesc) -> tuple[int, ...]:
    """The sizes a generic reverse may take at dispatch: the input's."""
    return desc.input.sizes


def reverse_free(desc: ReverseSubsequencesDesc) -> tuple[int, ...]:
    """Every dimension but the axis (its size bounds the lengths)."""
    return tuple(i for i in range(desc.input.rank) if i != desc.axis)


def reverse_key(desc: ReverseSubsequencesDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    out = desc.output
    assert out is not None
    return (desc.operator, masked(desc.input, dims, offset=True),
            masked(desc.sequence_lengths, dims, offset=True), masked(out, dims), desc.axis)


def reverse_layouts(desc: ReverseSubsequencesDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    """Each strided tensor (the input, the lengths: often a broadcast view, stride 0) keyed and
    lowered by its explicit() layout, packed ones as they are; a dynamic dimension of size 1
    of a strided one looked up with a WILD stride too (family/generic.py: layouts)."""
    def each(how: Any) -> ReverseSubsequencesDesc:
        return dataclasses.replace(desc, **{f: how(getattr(desc, f), dims)
                                            for f in ("input", "sequence_lengths")
                                            if getattr(desc, f).strides is not None})
    forms: tuple[Any, ...] = (each(explicit),)
    if any(t.strides is not None and any(i in dims and n == 1 for i, n in enumerate(t.sizes))
           for t in (desc.input, desc.sequence_lengths)):
        forms += (each(wild),)
    return forms


def reverse_variants(desc: ReverseSubsequencesDesc, dims: Sequence[int]) -> tuple[str, ...]:
    """The generic kernels this call may run, best first: "vector" (family/rows.py's row
    blocks of 16-byte vectors, each a whole vector of the row it reads: the axis not the
    innermost and the lengths broadcast along the innermost (stride 0: one length a row), the
    input contiguous there with its other strides and offset multiples of the vector width
    and its innermost size too, a dynamic one admitted only as such, the host checking it: a
    guarded assumption; a static one makes rows of BLOCK vectors or more) and "scalar" (any
    sizes and lengths)."""
    inp, axis = desc.input, desc.axis
    lanes = vector_width(inp.data_type)
    last = inp.rank - 1
    strides = inp.element_strides
    if not (axis != last and desc.sequence_lengths.element_strides[-1] == 0
            and strides[-1] == 1 and inp.sizes[-1] % lanes == 0 and inp.offset % lanes == 0
            and all(st % lanes == 0 for st in strides[:-1])):
        return ("scalar",)
    if last not in dims:
        return ("vector",) if inp.sizes[-1] // lanes >= BLOCK else ("scalar",)
    return ("vector", "scalar")


def lower_reverse_checked(desc: ReverseSubsequencesDesc,
                          dims: Sequence[int]) -> GenericProgram | None:
    return lower_reverse_generic(desc, dims, checked=True)


def lower_reverse_generic(desc: ReverseSubsequencesDesc, dims: Sequence[int],
                          variant: str = "scalar", checked: bool = False, static: bool = False
                          ) -> GenericProgram | None:
    """The reverse_subsequences of `desc` with the input's sizes at `dims` dynamic (an
    8/16-bit output stored by words: family/words.py); variant: reverse_variants' ("vector":
    row r of vectors reads the whole vectors of the row its length maps r to); checked: the
    scalar kernel with the index check's kernels in front, over the lengths
    (with_index_check). None for a given output layout or TotalTensorSizeInBytes, a negative
    stride, the axis among `dims`, a variant this call does not allow. static: the
    specialized kernel's lowering (no dims; lower_reverse_subsequences binds it), one element
    an item, which takes every descriptor."""
    inp, lengths, out, axis = desc.input, desc.sequence_lengths, desc.output, desc.axis
    assert out is not None, "validate() first"
    built = lowered_variant("scalar" if checked else variant, static, dims,
                            lambda: reverse_variants(desc, dims),
                            generic_layouts(out, inp, lengths) and axis not in dims
                            and set(dims) <= set(range(inp.rank)))
    if built is None:
        return None
    variant = built
    lanes = vector_width(inp.data_type) if variant == "vector" else 1
    hi = 1 if static else min(tensor_limit(inp, dims), tensor_limit(lengths, dims))
    if hi < 2 * lanes and not static:
        return None
    table = ParamTable(static)
    # vsizes: the innermost counted in vectors (lanes > 1; the host admits multiples only)
    sizes, vsizes = vector_sizes(inp.sizes, dims, table, hi, lanes,
                                 lambda i: size_of("input", i))
    lsizes: list[Size] = [1 if i == axis else s for i, s in enumerate(sizes)]
    offset = sym_offset(inp, table, lambda d: d.input.offset, lanes)
    b_in, extent = sym_buffer("input", inp, "input", sizes, table,
                              lambda d: d.input.buffer_elements, offset)
    lengths_in = sym_operand("sequence_lengths", "sequence_lengths", lengths, "input", lsizes,
                             table)
    strides = sym_strides(inp, sizes)

    def source(coords: list[Node]) -> Node:
        """The axis coordinate output `coords` reads (the lengths' innermost coordinate, in
        vectors for "vector", has stride 0 there)."""
        return reversed_coordinate(desc, coords, lengths_in)

    def element(outer: list[Node], col: Node) -> Node:
        coords = [*outer, col]
        at = address_sym(replace(coords, axis, source(coords)), strides, offset)
        return b.load(b_in, clamped(at, extent))

    def vector(outer: list[Node], col: Node) -> Node:
        row = address_sym(replace(outer, axis, source([*outer, col])), strides[:-1], offset)
        at = b.add(b.floordiv(row, lanes), col)  # in vectors: the row's first is aligned
        if extent is not None:
            at = b.minimum(at, b.floordiv(b.add(extent, -1), lanes))
        return b.vload("input", b.mul(at, lanes))
    if lanes > 1:
        kernel, b_out = row_block_kernel("reverse_subsequences", table, vsizes, out.data_type,
                                         vector, lanes=lanes)
    else:
        kernel, b_out = output_kernel("reverse_subsequences", table, sizes, out.data_type,
                                      element)
    program = Program("reverse_subsequences", (b_in, lengths_in.buf, b_out), (kernel,),
                      ("input", "sequence_lengths"), "output", out.sizes,
                      params=tuple(table.params))
    if checked:
        program = with_index_check(program, table, desc, lengths, lsizes, lengths_in.buf,
                                   lengths_in.extent, lengths_in.offset)
    return GenericProgram(program, tuple(table.recipes))

