"""DML_JOIN as a generic kernel: the inputs concatenated along an axis whose other sizes (a
batch) are push constants (family/generic.py). The axis sizes stay fixed."""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ...family.generic import (
    GenericProgram,
    ParamTable,
    Size,
    address_sym,
    clamped,
    dynamic_limit,
    explicit,
    masked,
    offset_room,
    product,
    sym_buffer,
    sym_offset,
    sym_strides,
    unflatten_sym,
    wild,
)
from ...family.lowering import replace
from ...family.tensor import list_argument
from ...family.words import element_kernel
from ...ir import Buffer, Program
from ...ir import build as b
from ...ir.ops import Node
from .desc import JoinDesc
from .lower import GROUP, piecewise


def join_sizes(desc: JoinDesc) -> tuple[int, ...]:
    """The sizes a generic join may take at dispatch: the output's (the inputs share them off
    the axis)."""
    out = desc.output
    assert out is not None
    return out.sizes


def join_free(desc: JoinDesc) -> tuple[int, ...]:
    """Every dimension but the axis."""
    return tuple(i for i in range(len(desc.inputs[0].sizes)) if i != desc.axis)


def join_key(desc: JoinDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    out = desc.output
    assert out is not None
    return (desc.operator, tuple(masked(t, dims, offset=True) for t in desc.inputs),
            masked(out, dims), desc.axis)


def join_layouts(desc: JoinDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    """Each strided input keyed and lowered by its explicit() layout (a view of one row of a
    batch shares the kernel of the other batch sizes); packed ones as they are."""
    inputs = tuple(t if t.strides is None else explicit(t, dims) for t in desc.inputs)
    forms: tuple[JoinDesc, ...] = (dataclasses.replace(desc, inputs=inputs),)
    if any(t.strides is not None and any(i in dims and n == 1 for i, n in enumerate(t.sizes))
           for t in desc.inputs):  # a batch of 1 of a view: looked up with WILD strides too
        forms += (dataclasses.replace(desc, inputs=tuple(
            t if t.strides is None else wild(t, dims) for t in desc.inputs)),)
    return forms


def lower_join_generic(desc: JoinDesc, dims: Sequence[int]) -> GenericProgram | None:
    """lower_join (lower.py) with the sizes at `dims` (never the axis) dynamic, one kernel of
    at most GROUP inputs (an 8/16-bit output stored by words: family/words.py); None otherwise
    (more inputs, an output view, a negative stride, a given TotalTensorSizeInBytes)."""
    out, axis, inputs = desc.output, desc.axis, desc.inputs
    assert out is not None, "validate() first"
    if (axis in dims or len(inputs) > GROUP or out.strides is not None or out.offset
            or out.total_bytes is not None
            or any(t.total_bytes is not None or any(st < 0 for st in t.element_strides)
                   for t in inputs)):
        return None
    static = [s for i, s in enumerate(out.sizes) if i not in dims]
    hi = dynamic_limit(static, len(dims))
    for t in inputs:  # each input's farthest address fits too
        fixed = offset_room(t) + sum((s - 1) * st for i, (s, st) in
                               enumerate(zip(t.sizes, t.element_strides)) if i not in dims)
        hi = min(hi, dynamic_limit([s for i, s in enumerate(t.sizes) if i not in dims],
                                   len(dims), [st for i, st in enumerate(t.strides or ())
                                               if i in dims], fixed))
    if hi < 2:
        return None
    table = ParamTable()
    sizes: list[Size] = [table.add(1, hi, _size_of(i)) if i in dims else s
                         for i, s in enumerate(out.sizes)]
    items_hi = product([s if isinstance(s, int) else s.vmax for s in sizes])
    assert isinstance(items_hi, int)
    count = table.add(1, items_hi, lambda d: d.output.element_count)
    names = [list_argument("inputs", k) for k in range(len(inputs))]
    bufs, extents, starts, at = [], [], [], 0
    for k, (name, t) in enumerate(zip(names, inputs)):
        isizes = replace_size(sizes, axis, t.sizes[axis])
        offset = sym_offset(t, table, _offset_of(k))
        buf, extent = sym_buffer(name, t, "input", isizes, table, _elements_of(k), offset)
        bufs.append(buf)
        extents.append((extent, isizes, offset))
        starts.append(at)
        at += t.sizes[axis]

    def value_of(u: Node) -> Node:
        coords = unflatten_sym(u, sizes)
        loads = []
        for t, buf, (extent, isizes, offset), start in zip(inputs, bufs, extents, starts):
            local = b.clamp(b.sub(coords[axis], start), 0, t.sizes[axis] - 1)
            addr = address_sym(replace(coords, axis, local), sym_strides(t, isizes), offset)
            loads.append(b.load(buf, clamped(addr, extent)))
        return piecewise(coords[axis], starts, loads)
    b_out = Buffer("output", out.data_type, items_hi, "output", count)
    kernel = element_kernel("join", table, count, b_out, value_of)
    program = Program("join", (*bufs, b_out), (kernel,), tuple(names), "output", out.sizes,
                      params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))


def replace_size(sizes: Sequence[Size], axis: int, size: int) -> list[Size]:
    out = list(sizes)
    out[axis] = size
    return out


def _size_of(i: int) -> Any:
    return lambda d: d.output.sizes[i]


def _elements_of(k: int) -> Any:
    return lambda d: d.inputs[k].buffer_elements


def _offset_of(k: int) -> Any:
    return lambda d: d.inputs[k].offset
