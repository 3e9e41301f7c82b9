"""The copy of a view (docs/generic-kernels.md): output = a tensor of the input buffer, over
sizes that are numbers or push constants. A generic kernel takes a view of non-negative
strides at any offset into a packed output, some sizes push constants; a specialized kernel's
lowering (static) takes any strides and any output layout. Shared by DML_ELEMENT_WISE_IDENTITY
(the view is its input) and DML_SLICE1 (the window of its input as a view): `view_of(call
descriptor)` gives (view, output), for the lowering and every recipe."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..ir import Buffer, Kernel, Program
from ..ir import build as b
from ..ir.kernel import vector_width
from ..ir.ops import Node
from .generic import (
    GenericProgram,
    ParamTable,
    Recipe,
    dynamic_limit,
    generic_layouts,
    lowered_variant,
    offset_room,
    sym_buffer,
    sym_offset,
)
from .lowering import (
    Size,
    address_sym,
    clamped,
    int32_strides,
    largest,
    product,
    store_at,
    sym_strides,
    unflatten,
)
from .rows import BLOCK as ROW_BLOCK
from .rows import row_block_kernel, vector_block, vector_sizes
from .tensor import TensorDesc
from .view_tile import tile_copy, tile_dim, tile_variants
from .words import element_kernel

ViewOf = Callable[[Any], tuple[TensorDesc, TensorDesc]]
"""A call's validated descriptor -> (the view copied, the packed output)."""


def view_variants(inp: TensorDesc, dims: Sequence[int]) -> tuple[str, ...]:
    """The generic kernels this call may run, best first: "vector" (16-byte vectors: the input
    contiguous innermost, its innermost size, other strides and offset multiples of the vector
    width; when the innermost size is dynamic, the kernel takes only such sizes, and a pushed
    offset only such offsets, which the host checks: guarded assumptions), "tile" (any sizes:
    tiles of elements over the innermost dimension and one that steps less,
    family/view_tile.py; 32/64-bit types), "rows" (any sizes and offsets, 32/64-bit types whose
    rows are not known to be shorter than a block: family/rows.py's row blocks, the divisions
    by push constants once per block of elements) and "scalar" (any sizes; 8/16-bit elements
    by words, family/words.py)."""
    if tile_dim(inp, dims) is not None:  # 8/16-bit elements: words (family/words.py)
        return tile_variants(inp, dims) if inp.data_type.bits >= 32 else ("scalar",)
    lanes = vector_width(inp.data_type)
    strides = inp.element_strides
    vector = (inp.rank > 0 and inp.sizes[-1] % lanes == 0
              and strides[-1] == 1 and all(st % lanes == 0 for st in strides[:-1])
              and inp.offset % lanes == 0)
    rows = ("rows",) if inp.data_type.bits >= 32 and inp.rank and (
        inp.rank - 1 in dims or inp.sizes[-1] >= ROW_BLOCK) else ("scalar",)
    if not vector:
        return rows
    return ("vector", *rows) if inp.rank - 1 in dims else ("vector",)


def lower_view_copy(name: str, view_of: ViewOf, desc: Any, dims: Sequence[int],
                    variant: str = "scalar", static: bool = False,
                    source: TensorDesc | None = None) -> GenericProgram | None:
    """output = the view view_of(desc) gives (a tensor of the input buffer, packed output) with
    the sizes at `dims` dynamic, as program `name`; every recipe reads view_of(call). None
    where no generic form exists (an output written through a view, a negative stride, a given
    TotalTensorSizeInBytes). The "vector" variant (view_variants) moves 16-byte vectors: the
    output's vector gid (verify proves it inside count vectors), the input's aligned vector
    whose address is clamped to the last vector holding an element of the runtime extent
    (only the clamp keeps a vector in the binding, as 16-byte padding does; exact for every
    element of the view). An 8/16-bit output is stored by words (family/words.py). static: the
    specialized kernel's lowering (no dims; static_program binds it): one element an item,
    which takes every descriptor: any strides, an output written where its layout puts each
    element (store_at: a device tensor's `__setitem__`), a given TotalTensorSizeInBytes; its
    input binding is the whole of `source`'s buffer (the tensor the view reads: a slice's
    input; default the view), a generic kernel's the view's reach at a runtime extent."""
    inp, out = view_of(desc)
    built = lowered_variant(variant, static, dims, lambda: view_variants(inp, dims),
                            generic_layouts(out, inp))
    if built is None:
        return None
    variant = built
    written = out.strides is not None or out.offset or out.total_bytes is not None
    lanes = vector_width(out.data_type) if variant.split("/")[0] in ("vector", "tilev") else 1
    hi = 1  # (static: no size is pushed)
    if not static:
        fixed = offset_room(inp) + sum((s - 1) * st for i, (s, st) in
                                 enumerate(zip(inp.sizes, inp.element_strides)) if i not in dims)
        hi = dynamic_limit([s for i, s in enumerate(inp.sizes) if i not in dims], len(dims),
                           [st for i, st in enumerate(inp.strides or ()) if i in dims], fixed)
        if hi < 2 * lanes:
            return None
    table = ParamTable(static)
    sizes, vsizes = vector_sizes(inp.sizes, dims, table, hi, lanes,
                                 lambda i: lambda d: view_of(d)[0].sizes[i])
    if variant.startswith("tile"):
        a = tile_dim(inp, dims)
        assert a is not None
        return tile_copy(name, view_of, inp, out, table, sizes, vsizes, dims, a, lanes, variant)
    items_hi = product([largest(s) for s in vsizes])
    assert isinstance(items_hi, int)
    if lanes > 1:
        return _vector_copy(name, view_of, inp, out, table, sizes, vsizes, items_hi, lanes)
    # scalar: one element (word) an item; rows: row blocks, a block's divisions once
    count = None if variant == "rows" else table.add(
        1, items_hi, lambda d: view_of(d)[1].element_count)
    offset = sym_offset(inp, table, offset_of(view_of))
    if static and source is not None:  # the whole of the tensor the view reads
        b_in, extent = Buffer("input", inp.data_type, source.buffer_elements, "input"), None
    else:
        b_in, extent = sym_buffer("input", inp, "input", sizes, table,
                                  lambda d: view_of(d)[0].buffer_elements, offset)
    strides = int32_strides(sizes, sym_strides(inp, sizes))

    def value_at(coords: list[Node]) -> Node:
        return b.load(b_in, clamped(address_sym(coords, strides, offset), extent))
    if count is None:
        kernel, b_out = row_block_kernel(name, table, sizes, out.data_type,
                                         lambda outer, col: value_at([*outer, col]),
                                         out_of=lambda d: view_of(d)[1])
    elif written:  # static: element gid stored where the output's layout puts it
        b_out = Buffer("output", out.data_type, out.buffer_elements, "output")
        gid = b.item_id(count.vmax)
        kernel = Kernel(name, count.vmax, (store_at(out, b_out, gid, value_at(unflatten(
            gid, vsizes))),), count=count)
    else:
        b_out = Buffer("output", out.data_type, items_hi, "output", count)
        kernel = element_kernel(name, table, count, b_out,
                                lambda i: value_at(unflatten(i, vsizes)))
    program = Program(name, (b_in, b_out), (kernel,), ("input",), "output", out.sizes,
                      params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))


BLOCK = 8
"""Vectors per invocation of the vector variant: consecutive ones of one row (the specialized
kernels' block run); a block past its row's last vector moves that vector again."""


def _vector_copy(name: str, view_of: ViewOf, inp: TensorDesc, out: TensorDesc,
                 table: ParamTable, sizes: list[Size], vsizes: list[Size], vectors_hi: int,
                 lanes: int) -> GenericProgram:
    """The "vector" variant: invocation gid moves block gid % blocks_per_row of row
    gid // blocks_per_row, BLOCK consecutive 16-byte vectors, column c = min(BLOCK * block + j,
    row_vectors - 1) (clamped to its row: the divisions are per block, not per vector); each
    read from the input's aligned vector (clamped to the last vector of its runtime extent)
    and stored at min(row * row_vectors + c, vectors - 1) (clamped, exact: verify proves it
    inside the output's whole vectors)."""
    inner = vsizes[-1]
    inner_hi = largest(inner)
    rows_hi = vectors_hi // inner_hi
    vectors = table.add(1, vectors_hi, lambda d: view_of(d)[1].element_count // lanes)
    per_row: Size = -(-inner // BLOCK) if isinstance(inner, int) else table.add(
        1, -(-inner_hi // BLOCK), lambda d: -(-(view_of(d)[0].sizes[-1] // lanes) // BLOCK))
    per_row_hi = largest(per_row)
    blocks_hi = rows_hi * per_row_hi
    count = table.add(1, blocks_hi, lambda d: _blocks(view_of(d)[0], lanes))
    offset = sym_offset(inp, table, offset_of(view_of), lanes)  # aligned: a guarded assumption
    b_in, extent = sym_buffer("input", inp, "input", sizes, table,
                              lambda d: view_of(d)[0].buffer_elements, offset)
    b_out = Buffer("output", out.data_type, vectors_hi * lanes, "output", b.mul(vectors, lanes))
    gid = b.item_id(blocks_hi)
    row = gid if per_row == 1 else b.floordiv(gid, per_row)
    # exact: gid < rows * per_row (ranges know no product of PARAMs)
    row = b.minimum(row, rows_hi - 1)
    block = b.const(0) if per_row == 1 else b.floormod(gid, per_row)
    outer = unflatten(row, vsizes[:-1])
    strides = int32_strides(sizes, sym_strides(inp, sizes))
    start = address_sym(outer, strides[:-1], offset)  # the row's first element
    last_col = inner - 1 if isinstance(inner, int) else b.add(inner, -1)
    last = b.add(vectors, -1)
    first = b.mul(row, inner)
    effects = vector_block(block, BLOCK, start, first, last_col, last, extent, lanes)
    kernel = Kernel(name, blocks_hi, tuple(effects), count=count)
    program = Program(name, (b_in, b_out), (kernel,), ("input",), "output", out.sizes,
                      params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))


def _blocks(view: TensorDesc, lanes: int) -> int:
    """The vector variant's invocations: rows times blocks per row."""
    inner = view.sizes[-1]
    return view.element_count // inner * -(-(inner // lanes) // BLOCK)


def offset_of(view_of: ViewOf) -> Recipe:
    """The recipe of the view's element offset (sym_offset's, where pushed)."""
    return lambda d: view_of(d)[0].offset
