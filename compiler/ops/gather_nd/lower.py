"""DML_GATHER_ND(1) and DML_GATHER_ND (ONNX GatherND): one lowering, over sizes that are numbers
or push constants (family/generic.py). The output's real coordinates are F = [batch, rest,
tail]; the tuple indices[batch, rest, :] gives the coordinates after the batch ones, each
normalized against its dimension (negative from the end, then clamped: docs/decisions.md).

The specialized kernel (lower_gather_nd) is the lowering with every size its number, what it
leaves pushed bound to the call's values (ir/specialize.py); a generic kernel
(lower_gather_nd_generic) takes the indices' sizes at some dimensions at dispatch: a varying
number of index tuples (ONNX GatherND of a varying batch of coordinates) read from a fixed
input. The tuple length and the batch dimensions (the input's) stay static."""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ...family.gather_rows import gather_blocks, gather_rows, table_fits
from ...family.generic import (
    GenericProgram,
    ParamTable,
    buffer_room,
    dynamic_limit,
    generic_layouts,
    layouts,
    masked,
    static_program,
    sym_sizes,
)
from ...family.index_check import with_index_check
from ...family.lowering import Operand, Size
from ...family.registry import PLAIN, LowerContext
from ...family.tensor import TensorDesc, derived
from ...ir import Node, Program
from ...ir import build as b
from ...ir.kernel import vector_width
from .desc import GatherND1Desc


def nd_source(desc: GatherND1Desc, coords: Sequence[Node], indices: Operand) -> list[Node]:
    """The input coordinates output `coords` reads: its real coordinates [batch, rest, tail],
    the tuple indices[batch, rest, :] (read as `indices` reads) between the batch and the
    tail, each index clamped to its dimension."""
    inp = desc.input
    d, r, q = inp.rank, desc.input_dimension_count, desc.indices_dimension_count
    bd, k = desc.batch_dimension_count, desc.tuple_size
    assert r and q, "validate() first"
    real = (q - 1) + (r - bd - k)
    full = list(coords[d - real:])  # batch, rest (of the indices), tail (of the input)
    zero = b.const(0)
    lead = [zero] * (d - q) + full[:q - 1]
    tuple_ = [b.index(indices.load(lead + [b.const(j)]), inp.sizes[d - r + bd + j], "clamp")
              for j in range(k)]
    return [zero] * (d - r) + full[:bd] + tuple_ + full[q - 1:]


def lower_gather_nd(desc: GatherND1Desc, ctx: LowerContext = PLAIN) -> Program:
    """The specialized kernel: lower_gather_nd_generic with every size its number, what it
    leaves pushed (the counts) bound to the call's values (ir/specialize.py)."""
    return static_program(lower_gather_nd_generic(desc, (), static=True), desc)


def gather_nd_sizes(desc: GatherND1Desc) -> tuple[int, ...]:
    """The sizes a generic gather_nd may take at dispatch: the indices'."""
    return desc.indices.sizes


def gather_nd_free(desc: GatherND1Desc) -> tuple[int, ...]:
    """The indices' real dimensions after the batch ones, but the tuple's (its length picks
    the input's dimensions; the batch sizes are the input's, which is fixed)."""
    d, q = desc.indices.rank, desc.indices_dimension_count or desc.indices.rank
    return tuple(range(d - q + desc.batch_dimension_count, d - 1))


def gather_nd_layouts(desc: GatherND1Desc, dims: Sequence[int]) -> tuple[Any, ...]:
    return layouts(desc, "indices", dims)


def gather_nd_key(desc: GatherND1Desc, dims: Sequence[int]) -> tuple[Any, ...]:
    out = desc.output
    assert out is not None
    return (desc.operator, masked(desc.input, (), offset=True),
            masked(desc.indices, dims, offset=True),
            (out.data_type, out.strides, out.total_bytes, out.offset),
            desc.input_dimension_count, desc.indices_dimension_count,
            desc.batch_dimension_count)


def lower_gather_nd_checked(desc: GatherND1Desc, dims: Sequence[int]) -> GenericProgram | None:
    return lower_gather_nd_generic(desc, dims, checked=True)


def gather_nd_variants(desc: GatherND1Desc, dims: Sequence[int]) -> tuple[str, ...]:
    """"blocks" where the gathered slices are rows of whole 16-byte vectors (up to 8 of one row
    an item, its tuple read once: family/generic.py's gather_blocks), then "rows" (one element
    or vector an item; "rows/e" where it moves no vectors: gather_variants); either serves
    every size."""
    return ("blocks", "rows") if _rows_of_vectors(_merged_tail(desc)) else ("rows/e",)


def lower_gather_nd_generic(desc: GatherND1Desc, dims: Sequence[int], variant: str | None = None,
                            checked: bool = False, static: bool = False) -> GenericProgram | None:
    """The gather_nd of `desc` with the indices' sizes at `dims` dynamic; checked: with the
    index check's kernels in front (with_index_check); variant: gather_nd_variants'. static:
    the specialized kernel's lowering (no dims; lower_gather_nd binds it), which takes every
    descriptor: nothing is pushed but the counts its binding fixes, one element an item (the
    planner maps and vectorizes it)."""
    assert desc.output is not None, "validate() first"
    assert not (static and dims), "a specialized kernel's sizes are its numbers"
    if static:
        variant = "rows/e"
    elif variant is None:  # the most general
        variant = gather_nd_variants(desc, dims)[-1]
    shape = desc.output.sizes  # the call's (a merged tail's sizes are the lowering's only)
    desc = desc if static else _merged_tail(desc)
    inp, idx, out = desc.input, desc.indices, desc.output
    assert out is not None and desc.input_dimension_count and desc.indices_dimension_count
    d, r, q = inp.rank, desc.input_dimension_count, desc.indices_dimension_count
    bd, k = desc.batch_dimension_count, desc.tuple_size
    tail = inp.sizes[d - r + bd + k:]
    if not static:  # what a kernel of pushed sizes and offsets cannot take
        if (not generic_layouts(out, idx) or not set(dims) <= set(gather_nd_free(desc))
                or not table_fits(inp)):
            return None
        others = [s for i, s in enumerate(idx.sizes) if i not in dims]
        # the index tensor's elements and the output's: the dynamic sizes' product times these
        hi = dynamic_limit([*others, math.prod(tail)], len(dims),
                           [st for i, st in enumerate(idx.strides or ()) if i in dims],
                           buffer_room(idx))
        if hi < 2:
            return None
    else:
        hi = 1  # no size is pushed
    table = ParamTable(static)
    isizes = sym_sizes(idx, dims, table, hi, lambda i: lambda x: x.indices.sizes[i])
    real = (q - 1) + (r - bd - k)
    osizes: list[Size] = [1] * (d - real) + isizes[d - q:d - 1] + list(tail)
    if variant not in gather_nd_variants(desc, dims) and not static:
        return None
    rows = (gather_blocks(inp, idx, out, table, isizes, osizes) if variant == "blocks" else
            gather_rows(inp, idx, out, table, isizes, osizes,
                        not static and _rows_of_vectors(desc)))
    indices = rows.indices
    kernel = rows.kernel("gather_nd", table,
                         lambda coords: rows.input.address(nd_source(desc, coords, indices)))
    program = Program("gather_nd", (rows.b_in, indices.buf, rows.b_out), (kernel,),
                      ("input", "indices"), "output", shape, params=tuple(table.params))
    if checked:
        program = with_index_check(program, table, desc, idx, isizes, indices.buf,
                                   indices.extent, indices.offset)
    return GenericProgram(program, tuple(table.recipes))


def _merged_tail(desc: GatherND1Desc) -> GatherND1Desc:
    """`desc` with the gathered slices' contiguous tail read as one run where that makes them
    rows of whole vectors (_rows_of_vectors): a [1, 2, 4] float16 slice, packed in the input, is
    one row of 8 (sizes [1, 1, 8], in the input and the output alike), the vector copy the
    specialized lowering's passes make of it. The same elements at the same addresses: the
    call's push words (recipes of the call's own descriptor) are unchanged."""
    inp, out = desc.input, desc.output
    assert out is not None and desc.input_dimension_count is not None
    tail = desc.input_dimension_count - desc.batch_dimension_count - desc.tuple_size
    if tail < 2 or out.strides is not None or _rows_of_vectors(desc):
        return desc  # (an output view keeps its layout: no generic kernel writes one)
    sizes, strides = inp.sizes, inp.element_strides
    first = inp.rank - 1
    while first > inp.rank - tail and strides[first - 1] == strides[first] * sizes[first]:
        first -= 1
    if first == inp.rank - 1:
        return desc
    run = math.prod(sizes[first:])
    ones = inp.rank - 1 - first

    def merged(t: TensorDesc, element_strides: tuple[int, ...] | None) -> TensorDesc:
        keep = None if element_strides is None else (*element_strides[:first], *(run,) * ones, 1)
        return derived(t, sizes=(*t.sizes[:first], *(1,) * ones, run), strides=keep)
    wider = derived(desc, input=merged(inp, strides if inp.strides is not None else None),
                    output=merged(out, None))
    return wider if _rows_of_vectors(wider) else desc


def _rows_of_vectors(desc: GatherND1Desc) -> bool:
    """Whether the output moves in whole 16-byte vectors, each inside one gathered slice: the
    slices have a tail whose innermost size is a multiple of the vector width, and the input is
    contiguous there with every stride and its offset multiples of it (static facts of the
    input: the vector loads are aligned for every number of tuples)."""
    inp = desc.input
    assert desc.input_dimension_count is not None
    lanes = vector_width(inp.data_type)
    strides = inp.element_strides
    tail = desc.input_dimension_count - desc.batch_dimension_count - desc.tuple_size
    return (tail >= 1 and inp.sizes[-1] % lanes == 0 and strides[-1] == 1
            and all(st % lanes == 0 for st in strides[:-1]) and inp.offset % lanes == 0)
