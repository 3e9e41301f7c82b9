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
    dynamic_limit,
    masked,
    product,
    sym_buffer,
    sym_offset,
    sym_sizes,
    sym_strides,
    unflatten_sym,
    with_index_check,
)
from ...family.lowering import replace
from ...ir import Buffer, Kernel, Program
from ...ir import build as b
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


def lower_elements_generic(desc: GatherElementsDesc, dims: Sequence[int],
                           checked: bool = False) -> GenericProgram | None:
    """lower_gather_elements (lower.py) with the indices' sizes at `dims` dynamic (and the
    input's there, but on the axis); checked: with the index check's kernels in front."""
    inp, idx, out = desc.input, desc.indices, desc.output
    assert out is not None, "validate() first"
    d, axis = inp.rank, desc.axis
    if (out.strides is not None or out.offset or out.total_bytes is not None
            or out.data_type.bits < 32  # 8/16-bit stores go by words: legalize needs a size
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
    table = ParamTable()
    isizes = sym_sizes(idx, dims, table, hi, lambda i: lambda x: x.indices.sizes[i])
    insizes: list[Size] = [inp.sizes[axis] if j == axis else s for j, s in enumerate(isizes)]
    items = product([s if isinstance(s, int) else s.vmax for s in isizes])
    assert isinstance(items, int)
    count = table.add(1, items, lambda x: x.output.element_count)
    in_offset = sym_offset(inp, table, lambda x: x.input.offset)
    b_in, in_extent = sym_buffer("input", inp, "input", insizes, table,
                                 lambda x: x.input.buffer_elements, in_offset)
    offset = sym_offset(idx, table, lambda x: x.indices.offset)
    b_idx, extent = sym_buffer("indices", idx, "input", isizes, table,
                               lambda x: x.indices.buffer_elements, offset)
    b_out = Buffer("output", out.data_type, items, "output", count)
    gid = b.item_id(items)
    coords = unflatten_sym(gid, isizes)
    raw = b.load(b_idx, clamped(address_sym(coords, sym_strides(idx, isizes), offset), extent))
    i = b.index(raw, inp.sizes[axis], "clamp")
    at = address_sym(replace(coords, axis, i), sym_strides(inp, insizes), in_offset)
    value = b.load(b_in, clamped(at, in_extent))
    kernel = Kernel("gather_elements", items, (b.store(b_out, gid, value),), count=count)
    program = Program("gather_elements", (b_in, b_idx, b_out), (kernel,), ("input", "indices"),
                      "output", out.sizes, params=tuple(table.params))
    if checked:
        program = with_index_check(program, table, desc, idx, isizes, b_idx, extent, offset)
    return GenericProgram(program, tuple(table.recipes))
