"""Generic gathers' output skeletons (ops/gather, ops/gather_nd; README "Generic kernels"):
rows of elements or of 16-byte vectors from a static input by indices of runtime sizes, one
element or vector an item (gather_rows) or blocks of a gathered row (gather_blocks); an
element an item of an 8/16-bit output is a word an item (family/words.py)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..ir import Buffer, Kernel
from ..ir import build as b
from ..ir.kernel import vector_width
from ..ir.ops import Node
from .generic import ParamTable, Size, product, sym_buffer, sym_offset, unflatten_sym
from .tensor import TensorDesc
from .words import element_kernel


@dataclass(frozen=True)
class GatherRows:
    """A generic gather's output kernel skeleton (ops/gather, ops/gather_nd): one element, or
    one 16-byte vector of a gathered row, per item; the three buffers, the item id and the
    output coordinates of the item's first element."""

    lanes: int
    """Elements per item: the vector width, or 1."""
    items: int
    count: Node
    b_in: Buffer
    b_idx: Buffer
    extent: Node | None
    """The indices' runtime extent (None: static)."""
    idx_offset: Size
    """The indices' element offset (sym_offset's: a PARAM where pushed)."""
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
        src_of(coordinates of the item's first element): effects() where the items are vectors
        or blocks, else an element an item, or a word of 8/16-bit elements each read at its own
        coordinates (family/words.py)."""
        if self.lanes > 1:
            return Kernel(name, self.items, self.effects(src_of(self.coords)), count=self.count)
        return element_kernel(name, table, self.count, self.b_out, lambda i: b.load(
            self.b_in, src_of(unflatten_sym(i, self.sizes))))

    def effects(self, src: Node) -> tuple[Node, ...]:
        """The item's stores (lanes > 1): its vector read at input address `src`, or a block's
        vectors read from the row at `src` (its first element's: one index read per block)."""
        if not self.stores:  # one index read per vector (verify proves it inside the extent)
            return (b.vstore("output", b.mul(self.gid, self.lanes), b.vload("input", src)),)
        return tuple(b.vstore("output", dst, b.vload("input", b.add(src, col)))
                     for dst, col in self.stores)


def gather_rows(inp: TensorDesc, idx: TensorDesc, out: TensorDesc, table: ParamTable,
                isizes: Sequence[Size], osizes: Sequence[Size], vectors: bool) -> GatherRows:
    """GatherRows of output sizes `osizes` (some PARAMs), gathering from the static `inp` by
    the indices `idx` of sizes `isizes`: by 16-byte vectors where `vectors` (the innermost
    output size, the input's and static, a multiple of the width; the input aligned: the
    caller's static facts), else by elements."""
    lanes = vector_width(out.data_type) if vectors else 1
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
    return GatherRows(lanes, items, count, b_in, b_idx, extent, offset, b_out, gid, coords,
                      vsizes)


BLOCK = 8
"""Vectors of one gathered row an item of gather_blocks moves at most."""


def gather_blocks(inp: TensorDesc, idx: TensorDesc, out: TensorDesc, table: ParamTable,
                  isizes: Sequence[Size], osizes: Sequence[Size]) -> GatherRows:
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
    rows_hi = product([s if isinstance(s, int) else s.vmax for s in osizes[:-1]])
    assert isinstance(rows_hi, int)
    items = rows_hi * nb
    vectors = table.add(1, rows_hi * v, lambda x: x.output.element_count // lanes)
    count = table.add(1, items, lambda x: x.output.element_count // inner * nb)
    b_in = Buffer("input", inp.data_type, inp.buffer_elements, "input")
    offset = sym_offset(idx, table, lambda x: x.indices.offset)
    b_idx, extent = sym_buffer("indices", idx, "input", isizes, table,
                               lambda x: x.indices.buffer_elements, offset)
    b_out = Buffer("output", out.data_type, rows_hi * v * lanes, "output",
                   b.mul(vectors, lanes))
    gid = b.item_id(items)
    row = gid if nb == 1 else b.floordiv(gid, nb)
    if row.vmax >= rows_hi:  # exact: gid < rows * nb
        row = b.minimum(row, rows_hi - 1)
    block = b.const(0) if nb == 1 else b.floormod(gid, nb)
    coords = [*unflatten_sym(row, osizes[:-1]), b.const(0)]
    first, last = b.mul(row, v), b.add(vectors, -1)
    stores = []
    for j in range(w):
        col = b.const(j) if nb == 1 else b.minimum(b.add(b.mul(block, w), j), v - 1)
        stores.append((b.mul(b.minimum(b.add(first, col), last), lanes), b.mul(col, lanes)))
    return GatherRows(lanes, items, count, b_in, b_idx, extent, offset, b_out, gid, coords,
                      osizes, tuple(stores))
