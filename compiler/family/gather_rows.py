"""Generic gathers' output skeletons (ops/gather, ops/gather_nd; docs/generic-kernels.md):
rows of elements or of 16-byte vectors from an input (its sizes static, or some pushed: a
table that grows) by indices of runtime sizes, one element or vector an item (gather_rows) or
blocks of a gathered row (gather_blocks); an element an item of an 8/16-bit output is a word
an item (family/words.py). The input (the table) is read at a pushed element offset where it
is a view (GatherTable): one kernel serves every layer of a cache sliced from one buffer."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..ir import Buffer, Kernel
from ..ir import build as b
from ..ir.kernel import vector_width
from ..ir.ops import INT32_MAX, Node
from .generic import (
    OFFSET_MAX,
    ParamTable,
    Recipe,
    dynamic_limit,
    offset_room,
    pushes_offset,
    sym_buffer,
    sym_offset,
    sym_operand,
)
from .lowering import (
    Operand,
    Size,
    address_sym,
    block_column,
    clamped,
    clamped_vector,
    int32_strides,
    largest,
    product,
    sym_strides,
    unflatten,
)
from .tensor import TensorDesc
from .words import element_kernel


def stride_bound(t: TensorDesc, dims: Sequence[int], hi: int) -> tuple[int, int]:
    """(the largest size its dims admit, the largest pushed stride: pushed_strides') for a
    view `t` whose sizes at `dims` are pushed in [1, hi]: its strides may grow 64x (or 8x,
    or not at all, what int32 addresses allow with sizes up to twice this call's; a view's
    strides grow with the batch of the tensor it views), the sizes' bound then what leaves
    every address from offset_room within int32."""
    widest = max(t.strides or (1,), default=1) or 1
    static = [n for i, n in enumerate(t.sizes) if i not in dims]
    for room in (64, 8, 1):
        s_hi = widest * room
        fixed = offset_room(t) + sum((n - 1) * s_hi for n in static)
        limit = min(hi, dynamic_limit(static, len(dims), [s_hi] * len(dims), fixed))
        if limit >= 2 * max((t.sizes[i] for i in dims), default=1):
            break
    return limit, s_hi


def pushed_strides(t: TensorDesc, table: ParamTable, recipe: Callable[[Any], TensorDesc],
                   hi: int, lanes: int = 1) -> list[Size]:
    """A view's element strides as PARAMs in [0, hi] (stride_bound's: a transposed view's
    strides are its viewed tensor's sizes, which vary with it). With lanes > 1 (a vector
    variant) each but the innermost is a count of `lanes` and the innermost is 1, both
    guarded assumptions the host checks as sym_offset's (a PARAM in [1, 1] guards the
    innermost). recipe: a call's descriptor -> this tensor."""
    assert t.strides is not None and all(st >= 0 for st in t.strides)

    def stride(j: int, unit: int) -> Recipe:
        def value(d: Any) -> int:
            st = recipe(d).element_strides[j]
            return st // unit if st % unit == 0 else -1  # outside the range: not admitted
        return value
    if lanes == 1:
        return [table.add(0, hi, stride(j, 1)) for j in range(t.rank)]
    out: list[Size] = [b.mul(table.add(0, max(hi // lanes, 1), stride(j, lanes)), lanes)
                       for j in range(t.rank - 1)]
    table.add(1, 1, stride(t.rank - 1, 1))
    return [*out, 1]


@dataclass(frozen=True)
class GatherTable:
    """The input a generic gather reads (its sizes static or pushed): its buffer, and its
    element offset, a PARAM where pushes_offset (a view: a layer of a cache, a window of a
    table), every load then clamped to the buffer's runtime extent (verify.py's proof); else
    static, the addresses those of the specialized lowering."""

    t: TensorDesc
    buf: Buffer
    offset: Size
    extent: Node | None
    lanes: int
    """The vector width the offset is a multiple of (1: any offset)."""
    strides: tuple[Size, ...]
    """Its element strides (a packed input's products of its sizes, some PARAMs)."""

    def address(self, coords: Sequence[Node]) -> Node:
        """The element address of input `coords` (clamped to the runtime extent)."""
        return clamped(address_sym(coords, int32_strides(self.t.sizes, self.strides),
                                   self.offset), self.extent)

    def vload(self, at: Node) -> Node:
        """The 16-byte vector at element address `at` (aligned: the caller's static facts and
        the offset's width), clamped to the last vector of the runtime extent."""
        return b.vload("input", clamped_vector(at, self.extent, self.lanes))


def table_fits(inp: TensorDesc) -> bool:
    """Whether a generic gather may read `inp` at a pushed offset (where pushes_offset): its
    strides not negative (a reversed view's addresses fall below a pushed offset of 0) and
    every address from an offset up to OFFSET_MAX fits int32 with room (else no generic
    kernel: the offset is not in its key)."""
    return not pushes_offset(inp) or (
        all(st >= 0 for st in inp.element_strides)
        and OFFSET_MAX + inp.buffer_elements - inp.offset <= INT32_MAX // 2)


def gather_table(inp: TensorDesc, table: ParamTable, lanes: int = 1,
                 sizes: Sequence[Size] | None = None, stride_hi: int = 0) -> GatherTable:
    """The GatherTable of `inp` (table_fits: the caller checked) of `sizes` (some PARAMs: a
    table that grows; default its own), a view's strides pushed in [0, stride_hi] where that
    is not 0 (pushed_strides), its offset a PARAM times `lanes` where pushed (a vector
    variant admits aligned offsets and strides only)."""
    sizes = list(inp.sizes) if sizes is None else list(sizes)
    offset = sym_offset(inp, table, lambda x: x.input.offset, lanes)
    strides = (pushed_strides(inp, table, lambda x: x.input, stride_hi, lanes)
               if stride_hi and inp.strides is not None else sym_strides(inp, sizes))
    buf, extent = sym_buffer("input", inp, "input", sizes, table,
                             lambda x: x.input.buffer_elements, offset, strides)
    return GatherTable(inp, buf, offset, extent, lanes, tuple(strides))


@dataclass(frozen=True)
class GatherRows:
    """A generic gather's output kernel skeleton (ops/gather, ops/gather_nd): one element, or
    one 16-byte vector of a gathered row, per item; the three buffers, the item id and the
    output coordinates of the item's first element."""

    lanes: int
    """Elements per item: the vector width, or 1."""
    items: int
    count: Node
    input: GatherTable
    indices: Operand
    """The indices as the kernel reads them (sym_operand's: a view's offset pushed, a runtime
    extent where their sizes are pushed)."""
    b_out: Buffer
    gid: Node
    coords: list[Node]
    sizes: Sequence[Size]
    """The items' sizes: the output's (its innermost in vectors where lanes > 1)."""

    stores: tuple[tuple[Node, Node], ...] = ()
    """Blocks (gather_blocks): per vector of the item's block, its output address and its
    offset in elements from the row's first."""

    def kernel(self, name: str, table: ParamTable,
               src_of: Callable[[list[Node]], Node]) -> Kernel:
        """The kernel `name` storing each item's elements, read from the input address
        src_of(coordinates of the item's first element) (self.input.address's): effects() where
        the items are vectors or blocks, else an element an item, or a word of 8/16-bit elements
        each read at its own coordinates (family/words.py)."""
        if self.lanes > 1:
            return Kernel(name, self.items, self.effects(src_of(self.coords)), count=self.count)
        return element_kernel(name, table, self.count, self.b_out, lambda i: b.load(
            self.b_in, src_of(unflatten(i, self.sizes))))

    @property
    def b_in(self) -> Buffer:
        return self.input.buf

    def effects(self, src: Node) -> tuple[Node, ...]:
        """The item's stores (lanes > 1): its vector read at input address `src`, or a block's
        vectors read from the row at `src` (its first element's: one index read per block)."""
        if not self.stores:  # one index read per vector (verify proves it inside the extent)
            return (b.vstore("output", b.mul(self.gid, self.lanes), self.input.vload(src)),)
        return tuple(b.vstore("output", dst, self.input.vload(b.add(src, col)))
                     for dst, col in self.stores)


def gather_rows(inp: TensorDesc, idx: TensorDesc, out: TensorDesc, table: ParamTable,
                isizes: Sequence[Size], osizes: Sequence[Size], vectors: bool,
                tsizes: Sequence[Size] | None = None, stride_hi: int = 0) -> GatherRows:
    """GatherRows of output sizes `osizes` (some PARAMs), gathering from `inp` (of sizes
    `tsizes`, strides pushed up to `stride_hi`: gather_table's) by the indices `idx` of sizes
    `isizes`: by 16-byte vectors where `vectors` (the innermost output size, the input's and
    static, a multiple of the width; the input aligned: the caller's static facts), else by
    elements."""
    lanes = vector_width(out.data_type) if vectors else 1
    vsizes = list(osizes)
    if lanes > 1:  # the innermost size is the input's (static), a multiple of the width
        inner = osizes[-1]
        assert isinstance(inner, int) and inner % lanes == 0
        vsizes[-1] = inner // lanes
    items = product([largest(s) for s in vsizes])
    assert isinstance(items, int)
    count = table.add(1, items, lambda x: x.output.element_count // lanes)
    source = gather_table(inp, table, lanes, tsizes, stride_hi)
    indices = sym_operand("indices", "indices", idx, "input", isizes, table)
    b_out = Buffer("output", out.data_type, items * lanes, "output",
                   count if lanes == 1 else b.mul(count, lanes))
    gid = b.item_id(items)
    coords = unflatten(gid, vsizes)
    if lanes > 1 and not coords[-1].is_const:  # a vector's first element
        coords[-1] = b.mul(coords[-1], lanes)
    return GatherRows(lanes, items, count, source, indices, b_out, gid, coords,
                      vsizes)


BLOCK = 8
"""Vectors of one gathered row an item of gather_blocks moves at most."""


def gather_blocks(inp: TensorDesc, idx: TensorDesc, out: TensorDesc, table: ParamTable,
                  isizes: Sequence[Size], osizes: Sequence[Size],
                  tsizes: Sequence[Size] | None = None, stride_hi: int = 0) -> GatherRows:
    """GatherRows moving blocks of consecutive 16-byte vectors of one gathered row: a row of
    V vectors (the innermost output size, the input's: static, a multiple of the width, the
    input aligned: the caller's static facts) in nb = ceil(V / BLOCK) blocks of
    w = ceil(V / nb), the block's columns c = min(w * block + j, V - 1) (a block past the row's
    end moves its last vector again), each stored at min(row * V + c, vectors - 1) (clamped to
    the output's whole vectors: verify.py's proof; exact). The item's coordinates are its
    row's first element's: the indices are read, and the row placed, once per block."""
    lanes = vector_width(out.data_type)
    inner = osizes[-1]
    assert isinstance(inner, int) and inner % lanes == 0
    v = inner // lanes
    nb = -(-v // BLOCK)
    w = -(-v // nb)
    rows_hi = product([largest(s) for s in osizes[:-1]])
    assert isinstance(rows_hi, int)
    items = rows_hi * nb
    vectors = table.add(1, rows_hi * v, lambda x: x.output.element_count // lanes)
    count = table.add(1, items, lambda x: x.output.element_count // inner * nb)
    source = gather_table(inp, table, lanes, tsizes, stride_hi)
    indices = sym_operand("indices", "indices", idx, "input", isizes, table)
    b_out = Buffer("output", out.data_type, rows_hi * v * lanes, "output",
                   b.mul(vectors, lanes))
    gid = b.item_id(items)
    row = gid if nb == 1 else b.floordiv(gid, nb)
    row = b.minimum(row, rows_hi - 1)  # exact: gid < rows * nb
    block = b.const(0) if nb == 1 else b.floormod(gid, nb)
    coords = [*unflatten(row, osizes[:-1]), b.const(0)]
    first, last = b.mul(row, v), b.add(vectors, -1)
    stores = []
    for j in range(w):
        col = b.const(j) if nb == 1 else block_column(block, w, j, v - 1)
        stores.append((b.mul(b.minimum(b.add(first, col), last), lanes), b.mul(col, lanes)))
    return GatherRows(lanes, items, count, source, indices, b_out, gid, coords,
                      osizes, tuple(stores))
