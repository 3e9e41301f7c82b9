"""DML_GATHER: one lowering, over sizes that are numbers or push constants (family/generic.py),
one read per output element (DML_GATHER_ELEMENTS': elements.py). The specialized kernel
(lower_gather) is it with every size its number, what it leaves pushed bound to the call's
values (ir/specialize.py); a generic kernel (lower_gather_generic) takes a varying number of
indices (the ids of a decode step) at dispatch, from an input whose sizes are fixed or pushed
too (a beam search's cache, reordered by beams as the batch and the sequence grow), a view's
at a pushed offset (one kernel for every layer of a cache sliced from one buffer:
family/gather_rows.py's GatherTable)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...family.gather_rows import (
    gather_blocks,
    gather_rows,
    gather_table,
    stride_bound,
    table_fits,
)
from ...family.generic import (
    GenericProgram,
    ParamTable,
    buffer_room,
    dynamic_limit,
    generic_layouts,
    layouts,
    masked,
    static_program,
    sym_operand,
    sym_sizes,
    tensor_limit,
)
from ...family.index_check import with_index_check
from ...family.lowering import (
    Operand,
    Size,
)
from ...family.registry import PLAIN, LowerContext
from ...ir import Node, Program
from ...ir import build as b
from ...ir.kernel import vector_width
from ...plan import MIN_STORAGE_BUFFER_RANGE
from .desc import GatherDesc
from .strips import gather_strips, strips_apply


def gathered(desc: GatherDesc, coords: Sequence[Node], indices: Operand,
             axis_size: Size) -> list[Node]:
    """The input coordinates that output `coords` reads: `coords` right-aligned to the output's
    coordinate list input[0:A] ++ indices[D-K:] ++ input[A+1:] (the DML_GATHER page), the index
    read at its indices coordinates (as `indices` reads: a specialized or generic kernel) and
    clamped to the axis of `axis_size` elements."""
    d, axis, k = desc.input.rank, desc.axis, desc.index_dimensions
    length = d + k - 1
    full = [b.const(0)] * (length - d) + list(coords) if length >= d else list(coords[d - length:])
    raw = indices.load([b.const(0)] * (d - k) + full[axis:axis + k])
    return full[:axis] + [b.index(raw, axis_size, "clamp")] + full[axis + k:]


def lower_gather(desc: GatherDesc, ctx: LowerContext = PLAIN) -> Program:
    """output[full] = input[full[:A], idx(indices[full[A:A+K]]), full[A+K:]], where `full` is the
    output coordinate list before it was right-aligned to D (the DML_GATHER page): the generic
    lowering with every size its number, what it leaves pushed bound (ir/specialize.py)."""
    return static_program(lower_gather_generic(desc, (), static=True), desc)


def gather_sizes(desc: GatherDesc) -> tuple[int, ...]:
    """The sizes a generic gather may take at dispatch: the indices', then the input's (a table
    that grows: a beam search's cache reordered by its beams, a window of a cache)."""
    return (*desc.indices.sizes, *desc.input.sizes)


def gather_free(desc: GatherDesc) -> tuple[int, ...]:
    """The indices' dimensions that count (the leading ones are 1s), and the input's but its
    leading IndexDimensions - 1 (1s where the axis is not among them: validation's rule)."""
    d, k = desc.input.rank, desc.index_dimensions
    return (*range(d - k, d), *range(d + max(k - 1, 0), 2 * d))


def gather_always(desc: GatherDesc) -> tuple[int, ...]:
    """gather_free but the input's innermost off the axis (a row's width, which the vector
    variants need static: dynamic only once it varies), and none of the input's where it is
    larger than Vulkan's smallest binding range (a table of pushed sizes has a runtime extent,
    which is never split into chunks: dynamic.py's extents_fit)."""
    free, inp = gather_free(desc), desc.input
    if inp.buffer_elements * inp.data_type.itemsize > MIN_STORAGE_BUFFER_RANGE:
        return tuple(i for i in free if i < inp.rank)
    return free if desc.axis == inp.rank - 1 else free[:-1]


def _split(desc: GatherDesc, dims: Sequence[int]) -> tuple[list[int], list[int]]:
    """gather_sizes' positions `dims` as the indices' dimensions and the input's."""
    d = desc.input.rank
    return [i for i in dims if i < d], [i - d for i in dims if i >= d]


def gather_layouts(desc: GatherDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    return layouts(desc, "indices", _split(desc, dims)[0])


def gather_key(desc: GatherDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    out = desc.output
    assert out is not None
    idx_dims, in_dims = _split(desc, dims)
    return (desc.operator, masked(desc.input, in_dims, offset=True, strides=bool(in_dims)),
            masked(desc.indices, idx_dims, offset=True),
            (out.data_type, out.strides, out.total_bytes, out.offset), desc.axis,
            desc.index_dimensions)


def gather_variants(desc: GatherDesc, dims: Sequence[int]) -> tuple[str, ...]:
    """"strips" where the input steps more along its innermost dimension than along the axis
    (ops/gather/strips.py: tiles walking down strips of columns), else "rows" (one element or
    16-byte vector per invocation); either serves every size. A table that moves no vectors
    (_rows_of_vectors: its offset misaligned among them, or its innermost size pushed) runs
    "rows/e", elements: a kernel of its own, so that a kernel of vectors (whose pushed offset
    admits aligned values only) and one of elements never share a key (auto compiled a
    specialized kernel per misaligned offset once the vector one held it)."""
    if 2 * desc.input.rank - 1 in dims:  # the row's width pushed: no vectors, no strips
        return ("rows/e",)
    if strips_apply(desc):
        return ("strips",)
    return ("blocks", "rows") if _rows_of_vectors(desc) else ("rows/e",)


def lower_gather_checked(desc: GatherDesc, dims: Sequence[int]) -> GenericProgram | None:
    return lower_gather_generic(desc, dims, checked=True)


def lower_gather_generic(desc: GatherDesc, dims: Sequence[int], variant: str | None = None,
                         checked: bool = False, static: bool = False) -> GenericProgram | None:
    """The gather of `desc` with the sizes at `dims` dynamic; checked: with the index check's
    kernels in front (with_index_check); variant: gather_variants'. static: the specialized
    kernel's lowering (no dims; lower_gather binds it): one element an item (the planner maps
    and vectorizes it), and every descriptor taken (nothing is pushed but the counts its
    binding fixes)."""
    if static:
        assert not dims, "a specialized kernel's sizes are its numbers"
        variant = "rows/e"
    elif variant is None:  # the most general
        variant = gather_variants(desc, dims)[-1]
    inp, idx, out = desc.input, desc.indices, desc.output
    assert out is not None, "validate() first"
    d, axis, k = inp.rank, desc.axis, desc.index_dimensions
    idx_dims, in_dims = _split(desc, dims)
    stride_hi = 0  # a view's strides pushed (they grow with the tensor it views)
    hi = 1  # (static: no size is pushed)
    if not static:  # what a kernel of pushed sizes and offsets cannot take
        if (not generic_layouts(out, idx)
                or any(i < d - k for i in idx_dims)  # leading index dims are 1s: not dynamic
                or (in_dims and any(st < 0 for st in inp.element_strides))
                or not table_fits(inp)):
            return None
        others = [s for i, s in enumerate(idx.sizes) if i not in idx_dims]
        off_axis = [n for j, n in enumerate(inp.sizes) if j != axis and j not in in_dims]
        # the output's elements: the indices' times the input's off the axis
        hi = dynamic_limit([*others, *off_axis], len(idx_dims) + len(set(in_dims) - {axis}),
                           [st for i, st in enumerate(idx.strides or ()) if i in idx_dims],
                           buffer_room(idx))
        if in_dims and inp.strides is not None:
            hi, stride_hi = stride_bound(inp, in_dims, hi)
        elif in_dims:
            hi = min(hi, tensor_limit(inp, in_dims))
        if hi < 2:
            return None
    table = ParamTable(static)
    isizes = sym_sizes(idx, idx_dims, table, hi, lambda i: lambda x: x.indices.sizes[i])
    tsizes = sym_sizes(inp, in_dims, table, hi, lambda j: lambda x: x.input.sizes[j])
    full: list[Size] = [*tsizes[:axis], *isizes[d - k:], *tsizes[axis + 1:]]
    if len(full) > d and any(not isinstance(s, int) for s in full[:len(full) - d]):
        return None
    pad: list[Size] = [1] * (d - len(full))
    osizes = full[len(full) - d:] if len(full) >= d else pad + full
    if variant == "strips" and not checked:
        if not strips_apply(desc):
            return None
        tab = gather_table(inp, table, sizes=tsizes, stride_hi=stride_hi)
        indices = sym_operand("indices", "indices", idx, "input", isizes, table)

        def source(coords: list[Node]) -> Node:
            return b.load(tab.buf, tab.address(gathered(desc, coords, indices, tsizes[axis])))
        program = gather_strips(desc, table, osizes, tab.buf, indices.buf, source)
        return GenericProgram(program, tuple(table.recipes))
    if variant not in gather_variants(desc, dims) and not checked and not static:
        return None
    vectors = variant != "rows/e" and _rows_of_vectors(desc)
    rows = (gather_blocks(inp, idx, out, table, isizes, osizes, tsizes, stride_hi)
            if variant == "blocks" and not checked else
            gather_rows(inp, idx, out, table, isizes, osizes, vectors, tsizes, stride_hi))
    indices = rows.indices
    kernel = rows.kernel("gather", table, lambda coords: rows.input.address(
        gathered(desc, coords, indices, tsizes[axis])))
    program = Program("gather", (rows.b_in, indices.buf, rows.b_out), (kernel,),
                      ("input", "indices"), "output", out.sizes, params=tuple(table.params))
    if checked:
        program = with_index_check(program, table, desc, idx, isizes, indices.buf,
                                   indices.extent, indices.offset, (tsizes[axis],))
    return GenericProgram(program, tuple(table.recipes))


def _rows_of_vectors(desc: GatherDesc) -> bool:
    """Whether the output moves in whole 16-byte vectors, each inside one gathered slice: the
    axis is not the innermost, whose size is a multiple of the vector width, and the input is
    contiguous there with every stride and its offset multiples of it (static facts of the
    input: the vector loads are aligned for every size the indices take)."""
    inp = desc.input
    lanes = vector_width(inp.data_type)
    strides = inp.element_strides
    return (desc.axis < inp.rank - 1 and inp.sizes[-1] % lanes == 0 and strides[-1] == 1
            and all(st % lanes == 0 for st in strides[:-1]) and inp.offset % lanes == 0)
