"""Unrolling and tiling: one invocation runs several items, sharing what they have in common.

A kernel of N items becomes one of N / U items whose item g runs the effects of U items
(substituting gid -> each of them): g*U, ..., g*U + U - 1 (consecutive), or, for a copy whose
input runs down the output's columns (a transposed input), a rows x cols block of the output
seen as rows (tile_kernel). Three things then fall out:
- shared work is one node: for a row gather moving a uvec4 per item, `(g*4 + j) // 64` folds to
  `g // 16` for every j, so the index is loaded and normalized once per four vectors
  (hash-consing is the common-subexpression sharing; codegen names a node once per invocation);
- a load whose U copies read several lanes of one aligned 16-byte vector (addresses x + c with
  x a multiple of the vector width) becomes one VLOAD per vector and a VEXTRACT per element
  (gather_elements' indices, scatter's winners, the input columns of a tiled transpose);
- stores whose copies write whole aligned vectors of 32/64-bit elements become VSTOREs of
  VPACKs (gather_elements' output, scatter's output and its scratch reset, a block's rows).
Effects are emitted effect by effect (all copies of the first effect, then of the second, ...):
each item still runs its own effects in order, and items never read what other items write
(ir/kernel.py), so only the order between items changes, which nothing can observe.

Skipped where it cannot be proven the same: kernels whose items do not divide by U, and kernels
that store 8/16-bit elements one at a time (codegen already gives each invocation whole words).
"""
from __future__ import annotations

from typing import Optional

from ..dtypes import DataType
from ..ir import Buffer, Kernel, Node, Program
from ..ir import build as b
from ..ir.ops import Op, toposort
from ..ir.rewrite import substitute
from ..ir.verify import IRError, verify_program
from .vectorize import aligned_run

FACTORS = (8, 4, 2)
"""Consecutive items per invocation, the first that divides the kernel's items. Measured on
lavapipe, full bench suite, ratio to the copy shader with 4 / 8 items per invocation:
gather_elements 0.49 / 0.56, f16 row gather 0.43 / 0.58, f32 row gather 0.55 / 0.57 (quick
suite, f32 row gather: 0.49 with one item per invocation, 0.65 with 4)."""
MIN_ITEMS = 1 << 14
"""Smaller kernels keep one item per invocation: they need every invocation they can get."""
TILE = (8, 16)
"""Rows x columns of a tiled kernel's block (tile_kernel). Measured on lavapipe with
hand-written shaders, slice of a transposed f32 [4096, 4096], rows::2, ratio to the copy
shader: one row of 8 items per invocation 0.12, blocks of 8 x 8 0.14-0.15, 8 x 16 0.18-0.20,
8 x 32 0.21 (twice the code for little more); in dmlc, 4 x 16 0.20-0.21, 8 x 16 0.24-0.25."""
STRIP_TILE = (4, 16)
"""Rows x columns of a block that goes down a strip of columns (tile_kernel). Measured in dmlc on
lavapipe, gather of a transposed f32 [4096, 4096], ratio to the copy shader, two runs each:
4 x 16 0.20 and 0.20, 8 x 16 0.19 and 0.18 (16 x 16 0.20, 8 x 32 0.18, one run each)."""


def _vector_lane(address: Node, dtype: DataType, count: int) -> Optional[tuple[Node, int]]:
    """(start, lane) when the 32/64-bit element at `address` is lane `lane` of the aligned
    16-byte vector at element `start`, proven from the address's form x + c (x a multiple of the
    vector width) and with the whole vector inside a binding of `count` elements (a buffer's
    elements and the padding of its last vector: ir.Buffer.words)."""
    width = b.vector_width(dtype)
    if dtype.bits < 32:
        return None
    x, c = b.const_tail(address) or (address, 0)
    if x.divisor % width:
        return None
    start = b.add(x, c - c % width)
    if start.vmin < 0 or start.vmax + width > count:
        return None
    return start, c % width


def _padded_count(buf: Buffer) -> int:
    return buf.words * 4 // buf.dtype.itemsize


def _combined_loads(k: Kernel, p: Program, order: list[Node],
                    starts: list[Node]) -> list[dict[Node, Node]]:
    """Per copy j (item starts[j]): each LOAD of the kernel whose copies read at least two
    different lanes of one aligned 16-byte vector -> its lane of that vector's shared VLOAD."""
    gid = k.gid
    mappings: list[dict[Node, Node]] = [{gid: s} for s in starts]
    loads = [n for n in order if n.op is Op.LOAD and isinstance(n.dtype, DataType)]
    roots = [n.src[0] for n in loads]
    roots_order = toposort(roots)
    per_copy = [substitute(roots, {gid: s}, roots_order) for s in starts]
    for i, n in enumerate(loads):
        count = _padded_count(p.buffer(n.arg))  # type: ignore[arg-type]
        lanes = [_vector_lane(copy[i], n.dtype, count) for copy in per_copy]  # type: ignore[arg-type]
        if any(lane is None for lane in lanes):
            continue
        used: dict[Node, set[int]] = {}
        for start, lane in lanes:  # type: ignore[misc]
            used.setdefault(start, set()).add(lane)
        if all(len(v) < 2 for v in used.values()):
            continue  # no vector would serve two lanes: scalar loads move fewer bytes
        for m, (start, lane) in zip(mappings, lanes):  # type: ignore[misc]
            m[n] = b.vextract(b.vload(n.arg, start), n.dtype, lane)  # type: ignore[arg-type]
    return mappings


def _combined(copies: list[Node], p: Program) -> list[Node]:
    """The copies of one effect: VSTOREs of packed vectors where each run of vector-width
    copies writes one whole aligned vector of 32/64-bit elements, else the copies themselves."""
    e = copies[0]
    if e.op is not Op.STORE or len(e.src) > 2:
        return copies
    dtype = p.buffer(e.arg).dtype  # type: ignore[arg-type]
    width = b.vector_width(dtype)
    if dtype.bits < 32 or len(copies) % width:
        return copies
    runs = [copies[v:v + width] for v in range(0, len(copies), width)]
    if any(aligned_run([c.src[0] for c in run], width) is None for run in runs):
        return copies
    return [b.vstore(e.arg, run[0].src[0], b.vpack([c.src[1] for c in run]))  # type: ignore[arg-type]
            for run in runs]


def unroll_kernel(k: Kernel, p: Program, factor: int,
                  tile: Optional[tuple[int, int, int, int]] = None) -> Optional[Kernel]:
    """`k` running `factor` consecutive items per item, or None where that is not proven the
    same. tile=(rows, cols, row_length, bands): instead, each item runs a rows x cols block of
    the items seen as rows of row_length (factor == rows * cols; _tile_starts)."""
    if factor < 2 or k.items % factor or k.unrolled > 1:
        return None
    if any(e.op is Op.STORE and p.buffer(e.arg).dtype.bits < 32  # type: ignore[arg-type]
           for e in k.effects):
        return None
    g = b.item_id(k.items // factor)
    if tile is None:
        starts = [b.add(b.mul(g, factor), j) for j in range(factor)]
    else:
        starts = _tile_starts(g, *tile)
    order = toposort(list(k.effects))
    mappings = _combined_loads(k, p, order, starts)
    live = toposort(list(k.effects), stop=set(mappings[0]))  # a combined load's address is dead
    per_copy = [substitute(list(k.effects), m, live) for m in mappings]
    effects: list[Node] = []
    for i in range(len(k.effects)):
        effects += _combined([copy[i] for copy in per_copy], p)
    unrolled = Kernel(k.name, k.items // factor, tuple(effects), unrolled=factor)
    try:  # every address must still be proven inside its buffer from ranges alone
        verify_program(Program(p.name, p.buffers, (unrolled,), p.inputs, p.output))
    except IRError:
        return None
    return unrolled


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


def _scalar_loads(k: Kernel) -> int:
    return sum(n.op is Op.LOAD for n in toposort(list(k.effects)))


def tile_kernel(k: Kernel, p: Program) -> Optional[Kernel]:
    """A copy whose input runs down the output's columns (a transposed input: some load steps a
    cache line or more from one column to the next), each item running a TILE block:
    - where the input's runs down a block's rows share aligned vectors (a transposed slice),
      blocks go left to right, and every load must come from a vector (a register transpose);
    - else (a gather from a transposed input: rows are data-dependent), STRIP_TILE blocks go
      down strips of columns, so that the strip's input lines stay in cache while the rows
      that share them pass.
    The block's rows store as vectors either way."""
    rows, cols = TILE
    width = p.output_shape[-1] if p.output_shape else 0
    if (len(k.effects) != 1 or k.effects[0].arg != p.output or not width or width % cols
            or k.items % (rows * width) or k.items != p.buffer(p.output).count
            or any(n.op in (Op.VLOAD, Op.VSTORE) for n in toposort(list(k.effects)))):
        return None
    column = _tile_starts(b.item_id(k.items // (rows * cols)), rows, cols, width,
                          first_column=True)
    loads, (here, right, below) = _loads_at(k, [column[0], b.add(column[0], 1), column[1]])
    far = [_far(n, a, c) for n, a, c in zip(loads, here, right)]
    if not any(far):
        return None
    if _rows_share_vectors(k, p, column):  # cheap tests first: a block is 128 substitutions
        tiled = unroll_kernel(k, p, rows * cols, (rows, cols, width, 0))
        return tiled if tiled is not None and _scalar_loads(tiled) == 0 else None
    if any(f and _far(n, a, c) for n, a, c, f in zip(loads, here, below, far)):
        return None  # rows a line or more apart (a strided slice): no line serves two rows
    rows, cols = STRIP_TILE
    if width % cols or k.items % (rows * width):
        return None
    return unroll_kernel(k, p, rows * cols, (rows, cols, width, k.items // (rows * width)))


def _loads_at(k: Kernel, starts: list[Node]) -> tuple[list[Node], list[list[Node]]]:
    """The kernel's scalar loads, and their addresses for the items at each of `starts`."""
    loads = [n for n in toposort(list(k.effects)) if n.op is Op.LOAD]
    roots, gid = [n.src[0] for n in loads], k.gid
    order = toposort(roots)
    return loads, [substitute(roots, {gid: s}, order) for s in starts]


def _far(load: Node, a: Node, c: Node) -> Optional[bool]:
    """Whether address c is a constant step of a cache line (64 bytes) or more from a; None
    where the step is not a constant (it depends on index values)."""
    (x, i), (y, j) = b.const_tail(a) or (a, 0), b.const_tail(c) or (c, 0)
    return abs(j - i) * load.dtype.itemsize >= 64 if x is y else None  # type: ignore[union-attr]


def _rows_share_vectors(k: Kernel, p: Program, starts: list[Node]) -> bool:
    """Whether every load of the items at `starts` (one column of a block) reads aligned
    vectors, some vector serving two of the rows."""
    loads, copies = _loads_at(k, starts)
    for i, n in enumerate(loads):
        count = _padded_count(p.buffer(n.arg))  # type: ignore[arg-type]
        lanes = [_vector_lane(copy[i], n.dtype, count) for copy in copies]  # type: ignore[arg-type]
        if any(lane is None for lane in lanes) or len({lane[0] for lane in lanes}) == len(lanes):  # type: ignore[index]
            return False
    return True


def _unrolled(k: Kernel, p: Program) -> Kernel:
    if k.items < MIN_ITEMS:
        return k
    tiled = tile_kernel(k, p)
    if tiled is not None:
        return tiled
    unrolled = next((u for u in (unroll_kernel(k, p, f) for f in FACTORS) if u), k)
    return unrolled if _gains(k, unrolled) else k


def _gains(k: Kernel, unrolled: Kernel) -> bool:
    """Whether the items of an invocation share a load or read whole vectors. Unrolling only
    scattered scalar loads costs: a slice reading every 16th float32 measured 0.15 of the copy
    shader unrolled, 0.22 not (one item per invocation, codegen's strided items)."""
    nodes = toposort(list(unrolled.effects))
    return (any(n.op is Op.VLOAD for n in nodes)
            or sum(n.op is Op.LOAD for n in nodes) < unrolled.unrolled * _scalar_loads(k))


def unroll(p: Program) -> Program:
    """Tile, else unroll by the first of FACTORS that divides its items, every kernel of at
    least MIN_ITEMS items."""
    kernels = tuple(_unrolled(k, p) for k in p.kernels)
    return Program(p.name, p.buffers, kernels, p.inputs, p.output, p.output_shape)
