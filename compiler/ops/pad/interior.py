"""DML_PADDING(1)'s generic "interior" variant (docs/generic-kernels.md): the output's rows
split into column parts as the specialized plan splits them, the interior moved as whole input
vectors, the borders packed by lanes (lower.py's "vector" kernel's per-lane mapping)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...family.generic import GenericProgram, ParamTable, sym_operand
from ...family.lowering import Size, address_sym, largest, product, unflatten
from ...family.rows import BLOCK, size_of, vectors_of
from ...ir import Buffer, Kernel, Node, Program
from ...ir import build as b
from ...ir.kernel import vector_width
from .coords import SMALLEST, padded_all, padded_element, padding_fill, size_limit
from .desc import PaddingDesc

BORDER = 16
"""The most border vectors of a row the "interior" variant unrolls in one invocation."""


def interior_fits(desc: PaddingDesc) -> bool:
    """Whether the "interior" variant serves this call (an output whose rows are whole vectors,
    checked by padding_variants; 32/64-bit: it shifts lanes between vectors by vextract): the
    input contiguous innermost, its rows starting
    on a vector (the offset and every outer stride multiples of the width, the innermost size a
    whole number of vectors: the pads of the innermost dimension together whole vectors), an
    interior of at least BLOCK whole output vectors, at most BORDER border vectors a row."""
    inp = desc.input
    lanes = vector_width(inp.data_type)
    strides = inp.element_strides
    s, e = desc.start_padding[-1], desc.end_padding[-1]
    vectors = inp.sizes[-1] // lanes
    return (inp.data_type.bits >= 32 and strides[-1] == 1 and inp.offset % lanes == 0
            and inp.sizes[-1] % lanes == 0
            and (s + e) % lanes == 0 and all(st % lanes == 0 for st in strides[:-1])
            and vectors - (1 if s % lanes else 0) >= BLOCK
            and (s + e) // lanes + (1 if s % lanes else 0) <= BORDER)


def lower_interior(desc: PaddingDesc, dims: Sequence[int]) -> GenericProgram | None:
    """The "interior" variant: the output's rows split into column parts as the specialized
    kernel's plan splits them, two kernels of one program. "padding" moves the interior: the
    output vectors c0 + k, k in [0, K), whose lanes all lie in [s, s + n) (s the innermost start
    pad, c0 = ceil(s / w), K = n / w less one where s is off a vector), in row blocks of BLOCK
    vectors (family/rows.py's), each read as whole aligned input vectors (the row's start is
    one: _interior's static facts; the innermost size n = w * P, P a PARAM the host admits
    only for a multiple of the width: a guarded assumption), lane j of the shifted case from
    vector k's lane w - s % w + j or vector k + 1's lane j - s % w; the row's outer coordinates
    mapped as the scalar kernel maps them (the constant mode's fill where the row is outside).
    "padding_border" writes the row's other vectors, a static number of them (s + e) / w
    (plus one where s is off a vector), one row an invocation, each vector packed from its
    lanes as the "vector" variant packs them. Every load clamped to the input's last vector,
    every store to the output's (verify.py)."""
    inp, out = desc.input, desc.output
    assert out is not None
    lanes = vector_width(out.data_type)
    last = out.rank - 1
    starts, ends = desc.start_padding, desc.end_padding
    s, e = starts[-1], ends[-1]
    shift = s % lanes
    c0 = -(-s // lanes)
    pads_v = (s + e) // lanes
    border = pads_v + (1 if shift else 0)
    hi = size_limit(desc, dims)
    table = ParamTable()
    in_sizes: list[Size] = []
    out_sizes: list[Size] = []  # the innermost in vectors
    vectors: Size = 0  # the input's innermost size in vectors
    for i, (n, m) in enumerate(zip(inp.sizes, out.sizes)):
        extra = SMALLEST.get(desc.mode)
        lo = max(1, starts[i] + extra, ends[i] + extra) if extra is not None else 1
        if i == last:
            if i not in dims:
                vectors = n // lanes
                in_sizes.append(n)
                out_sizes.append(m // lanes)
                continue
            least = max(-(-lo // lanes), BLOCK + (1 if shift else 0))
            if hi // lanes < least + 1:
                return None
            vectors = table.add(least, hi // lanes, vectors_of(size_of("input", i), lanes))
            in_sizes.append(b.mul(vectors, lanes))
            out_sizes.append(b.add(vectors, pads_v) if pads_v else vectors)
            continue
        if i not in dims:
            in_sizes.append(n)
            out_sizes.append(m)
            continue
        if hi < lo + 1:
            return None
        in_sizes.append(table.add(lo, hi, size_of("input", i)))
        out_sizes.append(table.add(lo + starts[i] + ends[i], hi + starts[i] + ends[i],
                                   size_of("output", i)))
    # a pushed offset: a PARAM times the width (aligned offsets only: a guarded assumption)
    source = sym_operand("input", "input", inp, "input", in_sizes, table, lanes)
    b_in, extent, offset, strides = source.buf, source.extent, source.offset, source.strides
    fill = padding_fill(desc)
    his = [largest(x) for x in out_sizes]
    width_hi = his[-1]
    rows_hi = product(his[:-1]) if len(his) > 1 else 1
    assert isinstance(rows_hi, int)
    total = table.add(1, rows_hi * width_hi, lambda d: d.output.element_count // lanes)
    b_out = Buffer("output", out.data_type, rows_hi * width_hi * lanes, "output",
                   b.mul(total, lanes))
    last_vec = b.add(total, -1)
    width = out_sizes[-1]
    per = vectors - 1 if shift and isinstance(vectors, int) else (
        b.add(vectors, -1) if shift else vectors)

    def rows_of(row: Node) -> list[Node]:
        if row.vmax >= rows_hi:  # a row not clamped yet (exact: row < rows)
            row = b.minimum(row, rows_hi - 1)
        return unflatten(row, out_sizes[:-1])

    def store(row: Node, col: Node, value: Node) -> Node:
        at = b.minimum(b.add(b.mul(row, width), col), last_vec)
        return b.vstore("output", b.mul(at, lanes), value)

    def element(outer: list[Node], col: Node) -> Node:
        return padded_element(desc, [*outer, col], source)

    # the interior: row blocks of BLOCK vectors
    per_hi = largest(per)
    blocks: Size = -(-per // BLOCK) if isinstance(per, int) else table.add(
        1, -(-per_hi // BLOCK), lambda d: -(-_interior_vectors(d, lanes, shift) // BLOCK))
    blocks_hi = largest(blocks)
    count = table.add(1, rows_hi * blocks_hi,
                      lambda d: _rows(d) * -(-_interior_vectors(d, lanes, shift) // BLOCK))
    gid = b.item_id(rows_hi * blocks_hi)
    row = gid if blocks == 1 else b.floordiv(gid, blocks)
    block = b.const(0) if blocks == 1 else b.floormod(gid, blocks)
    row = b.minimum(row, rows_hi - 1)  # exact: gid < rows * blocks
    outer = rows_of(row)
    mapped_outer, inside = padded_all(desc.mode, outer, starts, in_sizes)
    first = b.floordiv(address_sym(mapped_outer, strides[:-1], offset), lanes)
    last_in = vectors - 1 if isinstance(vectors, int) else b.add(vectors, -1)
    top = None if extent is None else b.floordiv(b.add(extent, -1), lanes)

    def vec_at(q: Node) -> Node:
        at = b.add(first, b.minimum(q, last_in))
        return b.vload("input", b.mul(at if top is None else b.minimum(at, top), lanes))
    # the last block of a row steps back to end at the row's end (its vectors written again,
    # the same values): each input vector is read once, shared by the two it feeds
    back = per - BLOCK if isinstance(per, int) else b.add(per, -BLOCK)
    begin = b.minimum(b.mul(block, BLOCK), back)
    ins = [vec_at(b.add(begin, j) if j else begin) for j in range(BLOCK + (1 if shift else 0))]
    effects = []
    for j in range(BLOCK):
        k = b.add(begin, j) if j else begin
        here = ins[j]
        if shift:
            there = ins[j + 1]
            lanes_of = [b.vextract(here, inp.data_type, lanes - shift + t) if t < shift else
                        b.vextract(there, inp.data_type, t - shift) for t in range(lanes)]
        elif inside is not None:
            lanes_of = [b.vextract(here, inp.data_type, t) for t in range(lanes)]
        else:
            lanes_of = []
        if inside is not None:
            lanes_of = [b.where(inside, v, fill) for v in lanes_of]
        value = b.vpack_lanes(lanes_of) if lanes_of else here
        effects.append(store(row, b.add(k, c0), value))
    interior = Kernel("padding", rows_hi * blocks_hi, tuple(effects), count=count)

    kernels = [interior]
    if border:  # the border, one row an invocation (none where the innermost pads are 0)
        rows = table.add(1, rows_hi, _rows)
        gid = b.item_id(rows_hi)
        outer = rows_of(gid)
        effects = []
        for t in range(border):
            col = b.const(t) if t < c0 else b.add(per, t) if not isinstance(per, int) else (
                b.const(per + t))
            first_col = b.mul(col, lanes)
            value = b.vpack_lanes([element(outer, b.add(first_col, j) if j else first_col)
                                   for j in range(lanes)])
            effects.append(store(gid, col, value))
        kernels.append(Kernel("padding_border", rows_hi, tuple(effects), count=rows))
    program = Program("padding", (b_in, b_out), tuple(kernels), ("input",), "output",
                      out.sizes, params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))


def _rows(d: Any) -> int:
    """A call's output rows."""
    return d.output.element_count // d.output.sizes[-1]


def _interior_vectors(d: Any, lanes: int, shift: int) -> int:
    """A call's interior output vectors a row: its input's vectors a row, less one where the
    start pad is off a vector."""
    return d.input.sizes[-1] // lanes - (1 if shift else 0)
