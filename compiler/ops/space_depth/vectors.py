"""The "vector" variant of the generic space_to_depth and depth_to_space: groups of 16-byte
vectors, b loaded and b stored, their lanes shuffled by constants (the specialized kernel's
moves, after its vectorizing pass). An item walks the rows of the side whose rows are b times
longer (depth_to_space's output, space_to_depth's input) by blocks of G groups, its rows' outer
coordinates divided out by push constants once per item:
- depth_to_space, output row (n, c, h), group u: the input vectors u of the b channels holding
  block row h % b (input row h // b), x_0..x_{b-1}; output vector u * b + m, lane j, is
  element (m * L + j) // b of x_{(m * L + j) % b} (L lanes);
- space_to_depth, input row (n, c, h), group u: its vectors u * b + i, y_0..y_{b-1}; output
  vector u of the row (n, channel of block (h % b, k), h // b) takes lane j from element
  (j * b + k) % L of y_{(j * b + k) // L}.
Exact for every size: a group past its row's end (u = min(block * G + g, q - 1)) moves the
row's last group again, the same values; loads are clamped to the last vector of the input's
runtime extent and stores to the output's last whole vector (verify.py's proofs), both exact
since the input's rows are whole aligned vectors (variants: a guarded assumption)."""
from __future__ import annotations

from collections.abc import Sequence

from ...family.generic import ParamTable
from ...family.lowering import Size, address_sym, block_column, largest, product, unflatten
from ...family.rows import BLOCK
from ...ir import Buffer, Kernel, Node
from ...ir import build as b
from .desc import SpaceToDepthDesc


def vector_kernel(desc: SpaceToDepthDesc, table: ParamTable, in_sizes: Sequence[Size],
                  out_sizes: Sequence[Size], strides: Sequence[Size], offset: Size,
                  extent: Node | None, lanes: int, q: Size) -> tuple[Kernel, Buffer]:
    """The kernel and its output buffer (runtime extent: the output's vectors times lanes); q
    the smaller side's W in vectors (the groups of a row)."""
    out = desc.output
    assert out is not None
    bs, dcr, to_depth = desc.block_size, desc.order.endswith("DEPTH_COLUMN_ROW"), desc.to_depth
    rows_of = in_sizes if to_depth else out_sizes  # the rows walked, their W b groups
    his = [largest(s) for s in out_sizes]
    vectors_hi = largest(product(his)) // lanes
    total = table.add(1, vectors_hi, lambda d: d.output.element_count // lanes)
    b_out = Buffer("output", out.data_type, vectors_hi * lanes, "output", b.mul(total, lanes))
    # groups an item: about BLOCK vectors stored (passes/planner.py: moves_blocks), fewer
    # where a static row has fewer
    size = max(1, min(BLOCK // bs, q if isinstance(q, int) else BLOCK))
    per_row: Size = -(-q // size) if isinstance(q, int) else table.add(
        1, -(-largest(q) // size), lambda d: -(-_groups(d, lanes) // size))
    rows_hi = largest(product([largest(s) for s in rows_of[:3]]))
    items_hi = rows_hi * largest(per_row)
    count = table.add(1, items_hi, lambda d: _rows(d) * -(-_groups(d, lanes) // size))
    gid = b.item_id(items_hi)
    row = gid if per_row == 1 else b.floordiv(gid, per_row)
    row = b.minimum(row, rows_hi - 1)  # exact: gid < rows * per_row
    block = b.const(0) if per_row == 1 else b.floormod(gid, per_row)
    n, c, h = unflatten(row, rows_of[:3])
    last_group = q - 1 if isinstance(q, int) else b.add(q, -1)
    last = b.add(total, -1)
    wide: Size = q if to_depth or bs == 1 else q * bs if isinstance(q, int) else b.mul(q, bs)
    vstrides = [product([*out_sizes[i + 1:3], wide]) for i in range(3)] + [1]  # in vectors
    r = b.floormod(h, bs)  # the row's block row

    def load(coords: list[Node]) -> Node:
        at = b.floordiv(address_sym(coords, strides, offset), lanes)
        if extent is not None:
            at = b.minimum(at, b.floordiv(b.add(extent, -1), lanes))
        return b.vload("input", b.mul(at, lanes))

    def store(vector: Node, coords: list[Node]) -> Node:
        at = address_sym(coords, vstrides, 0)  # in vectors (coords' W too)
        return b.vstore("output", b.mul(b.minimum(at, last), lanes), vector)
    effects = []
    for g in range(size):
        u = block_column(block, size, g, last_group)
        if to_depth:
            ys = [load([n, c, h, b.mul(b.add(b.mul(u, bs), i), lanes)]) for i in range(bs)]
            for k in range(bs):
                block_id = b.add(b.mul(r, bs), k)
                ch = (b.add(b.mul(block_id, in_sizes[1]), c) if dcr else
                      b.add(b.mul(c, bs * bs), block_id))
                lanes_of = [b.vextract(ys[(j * bs + k) // lanes], out.data_type,
                                       (j * bs + k) % lanes) for j in range(lanes)]
                effects.append(store(b.vpack(lanes_of), [n, ch, b.floordiv(h, bs), u]))
        else:
            xs = []
            for k in range(bs):
                block_id = b.add(b.mul(r, bs), k)
                src_c = (b.add(b.mul(block_id, out_sizes[1]), c) if dcr else
                         b.add(b.mul(c, bs * bs), block_id))
                xs.append(load([n, src_c, b.floordiv(h, bs), b.mul(u, lanes)]))
            for m in range(bs):
                lanes_of = [b.vextract(xs[(m * lanes + j) % bs], out.data_type,
                                       (m * lanes + j) // bs) for j in range(lanes)]
                effects.append(store(b.vpack(lanes_of), [n, c, h, b.add(b.mul(u, bs), m)]))
    name = "space_to_depth" if to_depth else "depth_to_space"
    return Kernel(name, items_hi, tuple(effects), count=count), b_out



def _rows(d: SpaceToDepthDesc) -> int:
    t = d.input if d.to_depth else d.output
    assert t is not None
    return t.element_count // t.sizes[3]


def _groups(d: SpaceToDepthDesc, lanes: int) -> int:
    """Groups in a row: the smaller side's W in vectors."""
    t = d.output if d.to_depth else d.input
    assert t is not None
    return t.sizes[3] // lanes
