"""DML_JOIN as a generic kernel: the inputs concatenated along an axis whose other sizes (a
batch) are push constants (family/generic.py). The axis sizes stay fixed."""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ...family.generic import (
    GenericProgram,
    ParamTable,
    dynamic_limit,
    explicit,
    generic_layouts,
    masked,
    offset_room,
    sym_buffer,
    sym_offset,
    wild,
)
from ...family.lowering import (
    Operand,
    Size,
    address_sym,
    block_column,
    clamped,
    clamped_vector,
    largest,
    product,
    replace,
    sym_strides,
    unflatten,
)
from ...family.rows import BLOCK, size_of, vector_sizes
from ...family.tensor import TensorDesc, list_argument
from ...family.words import element_kernel
from ...ir import Buffer, Kernel, Program
from ...ir import build as b
from ...ir.kernel import vector_width
from ...ir.ops import Node
from .desc import JoinDesc
from .lower import GROUP, joined


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


def join_variants(desc: JoinDesc, dims: Sequence[int]) -> tuple[str, ...]:
    """The generic kernels this call may run, best first: "vector" (blocks of BLOCK 16-byte
    vectors of one output row, each read from the one input that holds it: every input
    contiguous innermost, its other strides and offset multiples of the vector width, and
    every input's rows whole vectors: along the axis when it is the innermost dimension
    (static sizes), else the innermost size, which a dynamic one is only admitted as, the host
    checking it: a guarded assumption) and "scalar" (any sizes)."""
    out, axis, inputs = desc.output, desc.axis, desc.inputs
    assert out is not None
    lanes = vector_width(out.data_type)
    last = out.rank - 1
    aligned = out.rank > 1 and all(
        t.element_strides[-1] == 1 and all(st % lanes == 0 for st in t.element_strides[:-1])
        and t.offset % lanes == 0 for t in inputs)
    if axis == last:
        whole = aligned and all(t.sizes[axis] % lanes == 0 for t in inputs)
        return ("vector",) if whole else ("scalar",)
    if not (aligned and out.sizes[-1] % lanes == 0):
        return ("scalar",)
    return ("vector", "scalar") if last in dims else ("vector",)


def lower_join_generic(desc: JoinDesc, dims: Sequence[int],
                       variant: str = "scalar") -> GenericProgram | None:
    """lower_join (lower.py) with the sizes at `dims` (never the axis) dynamic, one kernel of
    at most GROUP inputs (an 8/16-bit output stored by words: family/words.py), a kernel per
    GROUP inputs where there are more (_grouped_join: 32/64-bit outputs), or for the "vector"
    variant (join_variants) one kernel per input; None otherwise (an output view, a negative
    stride, a given TotalTensorSizeInBytes, a variant this descriptor does not allow)."""
    out, axis, inputs = desc.output, desc.axis, desc.inputs
    assert out is not None, "validate() first"
    if axis in dims or not generic_layouts(out, *inputs):
        return None
    if variant != "scalar" and variant not in join_variants(desc, dims):
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
    if variant == "vector":
        return _vector_join(desc, dims, hi)
    if len(inputs) > GROUP:
        return _grouped_join(desc, dims, hi)
    table = ParamTable()
    sizes, items_hi, count = _output_sizes(out, dims, table, hi)
    names = [list_argument("inputs", k) for k in range(len(inputs))]
    parts = [_part(desc, k, sizes, table) for k in range(len(inputs))]
    b_out = Buffer("output", out.data_type, items_hi, "output", count)
    kernel = element_kernel("join", table, count, b_out,
                            lambda u: joined(unflatten(u, sizes), axis, parts))
    program = Program("join", (*(p.buf for p in parts), b_out), (kernel,), tuple(names),
                      "output", out.sizes, params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))


def _grouped_join(desc: JoinDesc, dims: Sequence[int], hi: int) -> GenericProgram | None:
    """The "scalar" variant of a join of more than GROUP inputs (a shader binds at most GROUP
    inputs and the output): a kernel per GROUP consecutive inputs, over the output elements
    they fill (their axis sizes' sum along the axis, the other sizes the output's), each
    element stored at its output address (clamped to the output's runtime count: exact).
    32/64-bit outputs: an 8/16-bit word may hold elements of two groups (None: specialized)."""
    out, axis, inputs = desc.output, desc.axis, desc.inputs
    assert out is not None
    if out.data_type.bits < 32:
        return None
    table = ParamTable()
    sizes, items_hi, count = _output_sizes(out, dims, table, hi)
    names = [list_argument("inputs", k) for k in range(len(inputs))]
    out_strides = sym_strides(out, sizes)
    b_out = Buffer("output", out.data_type, items_hi, "output", count)
    bufs: list[Buffer] = []
    kernels: list[Kernel] = []
    start = 0
    for g in range(0, len(inputs), GROUP):
        members = range(g, min(g + GROUP, len(inputs)))
        length = sum(inputs[k].sizes[axis] for k in members)
        gsizes = replace_size(sizes, axis, length)
        g_hi = product([largest(s) for s in gsizes])
        assert isinstance(g_hi, int)
        g_count = table.add(1, g_hi, _group_count(axis, length))
        gid = b.item_id(g_hi)
        coords = unflatten(gid, gsizes)
        parts = [_part(desc, k, sizes, table) for k in members]
        bufs += [p.buf for p in parts]
        placed = replace(coords, axis, b.add(coords[axis], start)) if start else coords
        dst = clamped(address_sym(placed, out_strides, 0), count)
        kernels.append(Kernel(f"join_{g // GROUP}", g_hi,
                              (b.store(b_out, dst, joined(coords, axis, parts)),),
                              count=g_count))
        start += length
    program = Program("join", (*bufs, b_out), tuple(kernels), tuple(names), "output",
                      out.sizes, params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))


def _part(desc: JoinDesc, k: int, sizes: Sequence[Size], table: ParamTable) -> Operand:
    """Input k as the kernel reads it: the output's `sizes` but its own along the axis, a
    view's offset pushed (sym_offset), its buffer of runtime extent where any is."""
    t = desc.inputs[k]
    isizes = replace_size(sizes, desc.axis, t.sizes[desc.axis])
    offset = sym_offset(t, table, _offset_of(k))
    buf, extent = sym_buffer(list_argument("inputs", k), t, "input", isizes, table,
                             _elements_of(k), offset)
    return Operand(buf, isizes, sym_strides(t, isizes), offset, extent)


def _output_sizes(out: TensorDesc, dims: Sequence[int], table: ParamTable,
                  hi: int) -> tuple[list[Size], int, Node]:
    """The output's sizes with those at `dims` PARAMs in [1, hi], its largest element count,
    and the PARAM holding a call's."""
    sizes: list[Size] = [table.add(1, hi, _size_of(i)) if i in dims else s
                         for i, s in enumerate(out.sizes)]
    items_hi = product([largest(s) for s in sizes])
    assert isinstance(items_hi, int)
    return sizes, items_hi, table.add(1, items_hi, lambda d: d.output.element_count)


def _group_count(axis: int, length: int) -> Any:
    """Items of a group's kernel: the output's elements over its axis size, times the group's
    axis sizes' sum."""
    return lambda d: d.output.element_count // d.output.sizes[axis] * length


def _vector_join(desc: JoinDesc, dims: Sequence[int], hi: int) -> GenericProgram | None:
    """The "vector" variant: one kernel per input, invocation gid of kernel k moving BLOCK
    consecutive 16-byte vectors of one row of input k (its innermost dimension), column
    c = min(BLOCK * block + j, row_vectors - 1) (a block past its row's end moves the row's
    last vector again), each read from the input's aligned vector (clamped to the last vector
    of its runtime extent) and stored at min(first + c, vectors - 1) of the output (clamped,
    exact). The divisions that place a row (unflattened over input k's sizes before the
    innermost) run once per block; the row's place in the output is the same coordinates
    with the axis one shifted by the axis sizes of the inputs before k (axis innermost: the
    shift is in vectors along the row, input k's rows being m_k / lanes vectors long)."""
    out, axis, inputs = desc.output, desc.axis, desc.inputs
    assert out is not None
    lanes = vector_width(out.data_type)
    if hi < 2 * lanes:
        return None
    table = ParamTable()
    sizes, vsizes = vector_sizes(out.sizes, dims, table, hi, lanes,
                                 lambda i: size_of("output", i))
    his = [largest(s) for s in vsizes]
    vectors_hi = product(his)
    assert isinstance(vectors_hi, int)
    vectors = table.add(1, vectors_hi, lambda d: d.output.element_count // lanes)
    last = out.rank - 1
    out_strides = [product(vsizes[i + 1:]) for i in range(len(vsizes))]  # in vectors
    per_row: Size = 1
    if axis != last:
        inner = vsizes[-1]
        per_row = -(-inner // BLOCK) if isinstance(inner, int) else table.add(
            1, -(-his[-1] // BLOCK), lambda d: -(-(d.output.sizes[-1] // lanes) // BLOCK))
    names = [list_argument("inputs", k) for k in range(len(inputs))]
    bufs, kernels, shift = [], [], 0
    for k, (name, t) in enumerate(zip(names, inputs)):
        m = t.sizes[axis]
        isizes = replace_size(sizes, axis, m)
        ivsizes = replace_size(vsizes, axis, m // lanes if axis == last else m)
        ihis = replace_size(his, axis, m // lanes if axis == last else m)
        offset = sym_offset(t, table, _offset_of(k), lanes)
        buf, extent = sym_buffer(name, t, "input", isizes, table, _elements_of(k), offset)
        bufs.append(buf)
        strides = sym_strides(t, isizes)
        row_len: Size = ivsizes[-1]
        q: Size = -(-m // lanes // BLOCK) if axis == last else per_row
        rows_hi = product(ihis[:-1])
        q_hi = largest(q)
        assert isinstance(rows_hi, int) and isinstance(q_hi, int)
        items_hi = rows_hi * q_hi
        count = table.add(1, items_hi, _count_of(k, lanes, axis == last))
        gid = b.item_id(items_hi)
        row = gid if isinstance(q, int) and q == 1 else b.floordiv(gid, q)
        row = b.minimum(row, rows_hi - 1)  # exact: gid < rows * q
        block = b.const(0) if isinstance(q, int) and q == 1 else b.floormod(gid, q)
        coords = unflatten(row, isizes[:-1])
        src = address_sym(coords, strides[:-1], offset)
        if axis == last:
            first = address_sym([*coords, b.const(shift)], out_strides, 0)
            shift += m // lanes
        else:
            moved = replace(coords, axis, b.add(coords[axis], shift)) if shift else coords
            first = address_sym([*moved, b.const(0)], out_strides, 0)
            shift += m
        last_col = b.const(row_len - 1) if isinstance(row_len, int) else b.add(row_len, -1)
        effects = []
        for j in range(min(BLOCK, row_len) if isinstance(row_len, int) else BLOCK):
            col = block_column(block, BLOCK, j, last_col)
            addr = clamped_vector(b.add(src, b.mul(col, lanes)), extent, lanes)
            dst = b.mul(b.minimum(b.add(first, col), b.add(vectors, -1)), lanes)
            effects.append(b.vstore("output", dst, b.vload(name, addr)))
        kernels.append(Kernel(f"join_{k}", items_hi, tuple(effects), count=count))
    b_out = Buffer("output", out.data_type, vectors_hi * lanes, "output", b.mul(vectors, lanes))
    program = Program("join", (*bufs, b_out), tuple(kernels), tuple(names), "output",
                      out.sizes, params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))


def _count_of(k: int, lanes: int, along: bool) -> Any:
    """Invocations of input k's kernel: its rows times the blocks of a row."""
    def recipe(d: Any) -> int:
        t = d.inputs[k]
        n = t.sizes[-1] // lanes if along else d.output.sizes[-1] // lanes
        return t.element_count // t.sizes[-1] * -(-n // BLOCK)
    return recipe


def replace_size(sizes: Sequence[Any], axis: int, size: int) -> list[Any]:
    out = list(sizes)
    out[axis] = size
    return out


def _size_of(i: int) -> Any:
    return lambda d: d.output.sizes[i]


def _elements_of(k: int) -> Any:
    return lambda d: d.inputs[k].buffer_elements


def _offset_of(k: int) -> Any:
    return lambda d: d.inputs[k].offset
