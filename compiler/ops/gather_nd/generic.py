"""DML_GATHER_ND(1) as a generic kernel: a varying number of index tuples (ONNX GatherND of a
varying batch of coordinates) read from a fixed input (family/generic.py). The tuple length and
the batch dimensions (the input's) stay static."""
from __future__ import annotations

import math
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
    layouts,
    masked,
    product,
    sym_buffer,
    sym_offset,
    sym_sizes,
    sym_strides,
    unflatten_sym,
    with_index_check,
)
from ...family.lowering import address
from ...ir import Buffer, Kernel, Program
from ...ir import build as b
from ...ir.kernel import vector_width
from .desc import GatherND1Desc


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
    return (desc.operator, masked(desc.input, ()), masked(desc.indices, dims, offset=True),
            (out.data_type, out.strides, out.total_bytes, out.offset),
            desc.input_dimension_count, desc.indices_dimension_count,
            desc.batch_dimension_count)


def lower_gather_nd_checked(desc: GatherND1Desc, dims: Sequence[int]) -> GenericProgram | None:
    return lower_gather_nd_generic(desc, dims, checked=True)


def lower_gather_nd_generic(desc: GatherND1Desc, dims: Sequence[int],
                            checked: bool = False) -> GenericProgram | None:
    """lower_gather_nd (lower.py) with the indices' sizes at `dims` dynamic; checked: with the
    index check's kernels in front (with_index_check)."""
    inp, idx, out = desc.input, desc.indices, desc.output
    assert out is not None and desc.input_dimension_count and desc.indices_dimension_count
    d, r, q = inp.rank, desc.input_dimension_count, desc.indices_dimension_count
    bd, k = desc.batch_dimension_count, desc.tuple_size
    if (out.strides is not None or out.offset or out.total_bytes is not None
            or out.data_type.bits < 32  # 8/16-bit stores go by words: legalize needs a size
            or idx.total_bytes is not None or any(st < 0 for st in idx.element_strides)
            or not set(dims) <= set(gather_nd_free(desc))):
        return None
    tail = inp.sizes[d - r + bd + k:]
    others = [s for i, s in enumerate(idx.sizes) if i not in dims]
    # the index tensor's elements and the output's: the dynamic sizes' product times these
    hi = dynamic_limit([*others, math.prod(tail)], len(dims),
                       [st for i, st in enumerate(idx.strides or ()) if i in dims],
                       buffer_room(idx))
    if hi < 2:
        return None
    table = ParamTable()
    isizes = sym_sizes(idx, dims, table, hi, lambda i: lambda x: x.indices.sizes[i])
    real = (q - 1) + (r - bd - k)
    osizes: list[Size] = [1] * (d - real) + isizes[d - q:d - 1] + list(tail)
    lanes = vector_width(out.data_type) if _rows_of_vectors(desc) else 1
    vsizes = list(osizes)
    if lanes > 1:  # the innermost size is the input's (static), a multiple of the width
        inner = osizes[-1]
        assert isinstance(inner, int) and inner % lanes == 0
        vsizes[-1] = inner // lanes
    items = product([s if isinstance(s, int) else s.vmax for s in vsizes])
    assert isinstance(items, int)
    count = table.add(1, items, lambda x: x.output.element_count // lanes)
    b_in = Buffer("input", inp.data_type, inp.buffer_elements, "input")
    offset = sym_offset(idx, table, lambda x: x.indices.offset)
    b_idx, extent = sym_buffer("indices", idx, "input", isizes, table,
                               lambda x: x.indices.buffer_elements, offset)
    b_out = Buffer("output", out.data_type, items * lanes, "output",
                   count if lanes == 1 else b.mul(count, lanes))
    gid = b.item_id(items)
    coords = unflatten_sym(gid, vsizes)
    if lanes > 1 and not coords[-1].is_const:  # a vector's first element
        coords[-1] = b.mul(coords[-1], lanes)
    full = coords[d - real:]  # batch, rest (of the indices), tail
    zero = b.const(0)
    lead = [zero] * (d - q) + full[:q - 1]
    istrides = sym_strides(idx, isizes)
    tuple_ = [b.index(b.load(b_idx, clamped(address_sym(lead + [b.const(j)], istrides,
                                                        offset), extent)),
                      inp.sizes[d - r + bd + j], "clamp") for j in range(k)]
    src = [zero] * (d - r) + full[:bd] + tuple_ + full[q - 1:]
    if lanes == 1:
        effect = b.store(b_out, gid, b.load(b_in, address(src, inp)))
    else:  # one tuple read per vector; verify proves the vector inside the runtime extent
        effect = b.vstore("output", b.mul(gid, lanes), b.vload("input", address(src, inp)))
    kernel = Kernel("gather_nd", items, (effect,), count=count)
    program = Program("gather_nd", (b_in, b_idx, b_out), (kernel,), ("input", "indices"),
                      "output", out.sizes, params=tuple(table.params))
    if checked:
        program = with_index_check(program, table, desc, idx, isizes, b_idx, extent, offset)
    return GenericProgram(program, tuple(table.recipes))


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
