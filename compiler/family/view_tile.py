"""The tile variants of the generic view copy (family/view_copy.py; docs/generic-kernels.md):
a view whose innermost dimension is strided while another dimension `a` steps less (a
transposed input, a slice of one) is copied in tiles of TILE_A x TILE_C elements, one tile per
invocation, over dimensions a and the innermost. Its loads walk along the input's dimension a
(16-byte vectors where a has stride 1 and the alignment is a static fact; the cache lines a tile
reads serve its TILE_A rows), its stores along the output's rows ("tilev": 16-byte vectors,
where the innermost size is a multiple of the vector width). Every size is exact: an edge
tile's coordinates are clamped to the last row and column (an invocation then stores the edge
elements again, with the same values: it owns every element its clamped coordinates reach; a
row past the edge of vector loads takes the row before's values by a select, or is not stored),
and every address is clamped to its buffer's runtime extent (verify.py's proof; exact, since
the coordinates are inside the view)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..ir import Buffer, Kernel, Program
from ..ir import build as b
from ..ir.kernel import vector_width
from ..ir.ops import Node
from .generic import GenericProgram, ParamTable, Recipe, pushes_offset, sym_buffer, sym_offset
from .lowering import (
    Size,
    address_sym,
    clamped,
    clamped_vector,
    int32_strides,
    largest,
    product,
    sym_strides,
    unflatten,
)
from .tensor import TensorDesc

ViewOf = Callable[[Any], tuple[TensorDesc, TensorDesc]]

TILE_A, TILE_C = 8, 16
"""Elements of a tile along dimension a and along the innermost. Measured on lavapipe (bench's
transpose f32 [4096, 4096] and slice of it rows::2, ratio to the specialized kernel, several
runs): 4 x 4 0.50-0.78, 8 x 8 0.47-0.81, 8 x 16 0.70-0.85, 16 x 8 0.67-0.95, 16 x 16
0.65-0.87."""


def tile_dim(inp: TensorDesc, dims: Sequence[int]) -> int | None:
    """The dimension a (not the innermost) a tile spans besides the innermost: the one of the
    smallest positive stride, where it steps less than the innermost (static facts of the key);
    None where no such dimension exists (the innermost steps least, or only broadcast
    dimensions, stride 0, step less: the other variants)."""
    if inp.rank < 2 or any(st < 0 for st in inp.element_strides):
        return None
    strides = inp.element_strides
    last = inp.rank - 1
    live = [i for i in range(last) if (i in dims or inp.sizes[i] > 1) and strides[i] > 0]
    if not live or not (last in dims or inp.sizes[last] > 1):
        return None
    a = min(live, key=lambda i: (strides[i], -i))
    return a if strides[a] < strides[last] else None


def tile_variants(inp: TensorDesc, dims: Sequence[int]) -> tuple[str, ...]:
    """The tile variants of a view tile_dim admits, best first: "tilev" (the output's rows
    stored as 16-byte vectors: a 32/64-bit type whose innermost size is a multiple of the
    vector width; where it is dynamic, the kernel takes only such sizes, which the host checks)
    and "tile" (any sizes; the last where the innermost size is dynamic). Their loads are
    16-byte vectors where _load_lanes allows; where only a pushed offset's alignment keeps
    them elements, the names end in "/e" (element loads: another kernel, since a vector-load
    kernel takes only aligned offsets, a guarded assumption)."""
    lanes = vector_width(inp.data_type)
    last = inp.rank - 1
    if inp.data_type.bits < 32 or TILE_C % lanes or inp.sizes[last] % lanes:
        names: tuple[str, ...] = ("tile",)
    else:
        names = ("tilev", "tile") if last in dims else ("tilev",)
    a = tile_dim(inp, dims)
    if (a is not None and pushes_offset(inp) and _load_lanes(inp, dims, a) == 1
            and _load_lanes(inp, dims, a, aligned=True) > 1):
        return tuple(f"{v}/e" for v in names)
    return names


def tile_copy(name: str, view_of: ViewOf, inp: TensorDesc, out: TensorDesc, table: ParamTable,
              sizes: list[Size], vsizes: list[Size], dims: Sequence[int], a: int,
              lanes_out: int, variant: str) -> GenericProgram:
    """A tile variant over symbolic `sizes` (the view's: PARAMs at the dynamic dimensions;
    `vsizes` the same with the innermost in vectors of lanes_out elements, the "tilev"
    variant's stores; a variant ending in "/e" loads elements)."""
    last = inp.rank - 1
    tsizes: list[Size] = []
    for i, s in enumerate(sizes):
        if i not in (a, last):
            tsizes.append(s)
        elif isinstance(s, int):
            tsizes.append(-(-s // (TILE_A if i == a else TILE_C)))
        else:
            t = TILE_A if i == a else TILE_C
            tsizes.append(table.add(1, -(-s.vmax // t), _tiles_of(view_of, i, t)))
    tiles_hi = product([largest(s) for s in tsizes])
    elems_hi = product([largest(s) for s in sizes])
    assert isinstance(tiles_hi, int) and isinstance(elems_hi, int)
    count = table.add(1, tiles_hi, lambda d: _tiles(view_of(d)[0], a))
    elements = table.add(1, elems_hi // lanes_out,
                         lambda d: view_of(d)[1].element_count // lanes_out)
    lanes = 1 if variant.endswith("/e") else _load_lanes(inp, dims, a, pushes_offset(inp))
    offset = sym_offset(inp, table, lambda d: view_of(d)[0].offset, lanes)
    b_in, extent = sym_buffer("input", inp, "input", sizes, table,
                              lambda d: view_of(d)[0].buffer_elements, offset)
    assert extent is not None  # some size or the offset is dynamic
    b_out = Buffer("output", out.data_type, elems_hi, "output",
                   elements if lanes_out == 1 else b.mul(elements, lanes_out))
    gid = b.item_id(tiles_hi)
    coords = unflatten(gid, tsizes)
    in_strides = int32_strides(sizes, sym_strides(inp, sizes))
    if lanes_out == 1:
        cols = [_edge(coords[last], j, sizes[last], TILE_C) for j in range(TILE_C)]
        groups: list[Node] = []
    else:  # whole vectors of the row, a group past its end moving the last one again
        per = TILE_C // lanes_out
        first = b.mul(coords[last], per)
        row_vectors = vsizes[last]
        last_group = row_vectors - 1 if isinstance(row_vectors, int) else b.add(row_vectors, -1)
        groups = [b.minimum(b.add(first, g) if g else first, last_group) for g in range(per)]
        cols = [b.add(b.mul(groups[j // lanes_out], lanes_out), j % lanes_out)
                if j % lanes_out else b.mul(groups[j // lanes_out], lanes_out)
                for j in range(TILE_C)]
    clamped_rows = [_edge(coords[a], i, sizes[a], TILE_A) for i in range(TILE_A)]
    preds: list[Node | None] = [None] * TILE_A
    if lanes == 1:
        rows = clamped_rows
        values = {(i, j): b.load(b_in, clamped(address_sym(_at(coords, a, r, c), in_strides,
                                                            offset), extent))
                  for i, r in enumerate(rows) for j, c in enumerate(cols)}
    else:  # vectors along dimension a (stride 1), clamped to the last holding an element
        start = b.mul(coords[a], TILE_A)
        rows = [b.add(start, i) if i else start for i in range(TILE_A)]
        values = {}
        for g in range(0, TILE_A, lanes):
            for j, c in enumerate(cols):
                addr = address_sym(_at(coords, a, rows[g], c), in_strides, offset)
                vec = b.vload("input", clamped_vector(addr, extent, lanes))
                for k in range(lanes):
                    values[g + k, j] = b.vextract(vec, inp.data_type, k)
        size_a = sizes[a]
        if not (isinstance(size_a, int) and size_a % TILE_A == 0):
            preds = [b.less(r, size_a) for r in rows]  # a row past the view's: not stored
        if lanes_out > 1 or isinstance(size_a, int):
            rows = clamped_rows  # a vector store takes no predicate: rows past the edge
            # store the last row's values again (a select chain, below)
    effects = []
    if lanes_out == 1:
        out_strides = sym_strides(out, sizes)
        for i, r in enumerate(rows):  # the output's rows: TILE_C stores of neighbours each
            for j, c in enumerate(cols):
                dst = clamped(address_sym(_at(coords, a, r, c), out_strides, 0), elements)
                effects.append(b.store(b_out, dst, values[i, j], pred=preds[i]))
    else:
        vstrides = sym_strides(out, vsizes)  # in vectors
        below: dict[int, Node] = {}  # group -> the vector stored in the row before
        for i, r in enumerate(rows):
            pred = preds[i]
            for k, grp in enumerate(groups):
                vec = b.vpack([values[i, j] for j in range(k * lanes_out, (k + 1) * lanes_out)])
                if pred is not None and i:  # past the edge: the row before's vector
                    vec = b.where(pred, vec, below[k])
                below[k] = vec
                x = b.minimum(address_sym(_at(coords, a, r, grp), vstrides, 0),
                              b.add(elements, -1))
                effects.append(b.vstore("output", b.mul(x, lanes_out), vec))
    kernel = Kernel(name, tiles_hi, tuple(effects), count=count)
    program = Program(name, (b_in, b_out), (kernel,), ("input",), "output", out.sizes,
                      params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))


def _at(coords: list[Node], a: int, r: Node, c: Node) -> list[Node]:
    last = len(coords) - 1
    return [r if i == a else c if i == last else x for i, x in enumerate(coords)]


def _load_lanes(inp: TensorDesc, dims: Sequence[int], a: int, aligned: bool = False) -> int:
    """Lanes of the vectors a tile loads along dimension a: the vector width where a has stride
    1 and every other stride that an access uses, and the offset, are multiples of it (static
    facts: every vector aligned; `aligned`: the offset taken as one, a pushed offset the kernel
    admits only aligned), else 1 (element loads)."""
    w = vector_width(inp.data_type)
    strides = inp.element_strides
    ok = (inp.data_type.bits >= 32 and strides[a] == 1 and TILE_A % w == 0
          and (aligned or inp.offset % w == 0) and all(st % w == 0 for i, st in enumerate(strides)
                                          if i != a and (i in dims or inp.sizes[i] > 1)))
    return w if ok else 1


def _edge(tile: Node, k: int, size: Size, tile_size: int) -> Node:
    """Coordinate tile * tile_size + k of a dimension of `size`, clamped to its last (an edge
    tile reads and writes its last row or column again); no clamp where a static size is whole
    tiles."""
    x = b.add(b.mul(tile, tile_size), k) if k else b.mul(tile, tile_size)
    if isinstance(size, int):
        return b.const(0) if size == 1 else x if size % tile_size == 0 else b.minimum(
            x, size - 1)
    return b.minimum(x, b.add(size, -1))


def _tiles(view: TensorDesc, a: int) -> int:
    """The tile variant's invocations: the view's sizes, dimensions a and the innermost in
    tiles."""
    n = 1
    for i, s in enumerate(view.sizes):
        n *= -(-s // TILE_A) if i == a else -(-s // TILE_C) if i == view.rank - 1 else s
    return n


def _tiles_of(view_of: ViewOf, i: int, t: int) -> Recipe:
    return lambda d: -(-view_of(d)[0].sizes[i] // t)

