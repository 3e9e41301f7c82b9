"""Tiling: a copy whose input runs down the output's columns (a transposed input) runs a block
of the output per invocation, through passes/unroll.py's machinery (shared nodes, combined
vector loads and stores).

Two orders, chosen from the addresses of a block's first column (tile_kernel):
- a register transpose: where the input's runs down the block's rows share aligned vectors (a
  slice of a transposed input), TILE blocks go left to right along bands of rows, every load
  comes from a vector and every row of the block stores as vectors;
- column strips: where rows are data-dependent (a gather from a transposed input), STRIP_TILE
  blocks go down strips of columns, so that the strip's input lines stay in cache while the
  rows that share them pass.
Kernels it tiles run several items each; the unroll pass then leaves them alone.
"""
from __future__ import annotations

from ..ir import Kernel, Node, Program
from ..ir import build as b
from ..ir.algebra import RuleSet, const_tail
from ..ir.ops import Op, toposort
from . import unroll
from .lanes import loads_at, scalar_loads, vector_lanes
from .unroll import unroll_kernel

TILE = (8, 16)
"""Rows x columns of a tiled kernel's block (tile_kernel). Measured on lavapipe with
hand-written shaders, slice of a transposed f32 [4096, 4096], rows::2, ratio to the copy
shader: one row of 8 items per invocation 0.12, blocks of 8 x 8 0.14-0.15, 8 x 16 0.18-0.20,
8 x 32 0.21 (twice the code for little more); in dmlc, 4 x 16 0.20-0.21, 8 x 16 0.24-0.25."""
STRIP_TILE = (4, 16)
"""Rows x columns of a block that goes down a strip of columns (tile_kernel). Measured in dmlc on
lavapipe, gather of a transposed f32 [4096, 4096], ratio to the copy shader, two runs each:
4 x 16 0.20 and 0.20, 8 x 16 0.19 and 0.18 (16 x 16 0.20, 8 x 32 0.18, one run each)."""


def _tile_starts(g: Node, rows: int, cols: int, row_length: int, bands: int = 0,
                 first_column: bool = False) -> list[Node]:
    """The items of block g, row by row (first_column: only the first of each row). Blocks
    tile each band of `rows` rows left to right; bands > 0: instead each strip of `cols`
    columns top to bottom (that many bands)."""
    per_band = row_length // cols
    band, col = ((b.floormod(g, bands), b.floordiv(g, bands)) if bands else
                 (b.floordiv(g, per_band), b.floormod(g, per_band)))
    base = b.add(b.mul(band, rows * row_length), b.mul(col, cols))
    return [b.add(base, r * row_length + c) for r in range(rows)
            for c in range(1 if first_column else cols)]


def tile_kernel(k: Kernel, p: Program, rules: RuleSet) -> Kernel | None:
    """`k` tiled (module docstring), or None. Only a single store of the whole output, not
    vectorized, whose item's load steps a cache line or more from one column to the next; the
    register transpose is kept only where no scalar load is left, and column strips not where
    rows are a constant line or more apart (a strided slice: no line serves two rows)."""
    rows, cols = TILE
    width = p.output_shape[-1] if p.output_shape else 0
    if (len(k.effects) != 1 or k.effects[0].arg != p.output or not width or width % cols
            or k.items % (rows * width) or k.items != p.buffer(p.output).count
            or any(n.op in (Op.VLOAD, Op.VSTORE) for n in toposort(list(k.effects)))):
        return None
    column = _tile_starts(b.item_id(k.items // (rows * cols)), rows, cols, width,
                          first_column=True)
    loads, (here, right, below) = loads_at(k, [column[0], b.add(column[0], 1), column[1]], rules)
    far = [_far(n, a, c) for n, a, c in zip(loads, here, right)]
    if not any(far) or _consecutive_reads_vectors(k, p, rules):
        return None
    if _rows_share_vectors(k, p, column, rules):  # cheap tests first: a block is 128 items
        tiled = unroll_kernel(k, p, rows * cols, rules,
                              lambda g: _tile_starts(g, rows, cols, width))
        return tiled if tiled is not None and scalar_loads(tiled) == 0 else None
    if any(f and _far(n, a, c) for n, a, c, f in zip(loads, here, below, far)):
        return None  # rows a line or more apart (a strided slice): no line serves two rows
    rows, cols = STRIP_TILE
    if width % cols or k.items % (rows * width):
        return None
    bands = k.items // (rows * width)
    return unroll_kernel(k, p, rows * cols, rules,
                         lambda g: _tile_starts(g, rows, cols, width, bands))


def _consecutive_reads_vectors(k: Kernel, p: Program, rules: RuleSet) -> bool:
    """Whether plain unrolling (consecutive items) already reads every load as whole vectors:
    a far step between neighbouring columns that comes back within a vector's width
    (depth_to_space alternates channels, each run in pairs). Measured on lavapipe,
    depth_to_space f32 [1, 256, 128, 128] block 2, ratio to the copy shader: tiled as strips
    0.36, unrolled 1.37."""
    factor = next((f for f in unroll.FACTORS if k.items % f == 0), 0)
    unrolled = unroll_kernel(k, p, factor, rules) if factor else None
    return unrolled is not None and scalar_loads(unrolled) == 0


def _far(load: Node, a: Node, c: Node) -> bool | None:
    """Whether address c is a constant step of a cache line (64 bytes) or more from a; None
    where the step is not a constant (it depends on index values)."""
    (x, i), (y, j) = const_tail(a) or (a, 0), const_tail(c) or (c, 0)
    return abs(j - i) * load.data_type.itemsize >= 64 if x is y else None


def _rows_share_vectors(k: Kernel, p: Program, starts: list[Node], rules: RuleSet) -> bool:
    """Whether every load of the items at `starts` (one column of a block) reads aligned
    vectors, some vector serving two of the rows."""
    loads, copies = loads_at(k, starts, rules)
    for i, n in enumerate(loads):
        lanes = vector_lanes(n, [copy[i] for copy in copies], p, rules)
        if lanes is None or len({start for start, _ in lanes}) == len(lanes):
            return False
    return True


def tile(p: Program, rules: RuleSet) -> Program:
    """Tile every kernel of at least unroll.MIN_ITEMS items where tile_kernel proves it."""
    return p.with_kernels(tuple((tile_kernel(k, p, rules) if k.items >= unroll.MIN_ITEMS
                                 else None) or k for k in p.kernels))
