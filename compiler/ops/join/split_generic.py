"""DML_SPLIT as a generic kernel: the input cut along an axis whose other sizes (a batch) are
push constants (family/generic.py). The outputs' sizes along the axis stay fixed; they still
lie one after another in one buffer (output k from outer * inner * S_k, S_k the axis sizes of
the outputs before it), which a call's descriptor gives the host (output_regions()).

Element gid of that buffer: its inner coordinates (the dimensions after the axis) come from
gid itself, by `%` and `//` one size at a time (every region starts at a multiple of inner);
R = gid // inner lies in output k's rows [outer * S_k, outer * S_{k+1}), where
R - outer * S_k = o * m_k + a: the axis coordinate a + S_k and the outer index o, both by
constants. The comparisons of R pick o and a, and the picked o is unflattened over the
dimensions before the axis once (the divisions by push constants do not grow with the number
of outputs): one address, one load (clamped to the input's runtime extent)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...family.generic import (
    GenericProgram,
    ParamTable,
    dynamic_limit,
    generic_layouts,
    layouts,
    masked,
    offset_room,
    sym_buffer,
    sym_offset,
)
from ...family.lowering import (
    Size,
    address_sym,
    clamped,
    largest,
    product,
    sym_strides,
    unflatten,
)
from ...family.rows import size_of, vector_block, vector_sizes
from ...family.words import element_kernel
from ...ir import Buffer, Kernel, Node, Program
from ...ir import build as b
from ...ir.kernel import vector_width
from .desc import SplitDesc


def split_sizes(desc: SplitDesc) -> tuple[int, ...]:
    """The sizes a generic split may take at dispatch: the input's (the outputs share them off
    the axis)."""
    return desc.input.sizes


def split_free(desc: SplitDesc) -> tuple[int, ...]:
    """Every dimension but the axis."""
    return tuple(i for i in range(desc.input.rank) if i != desc.axis)


def split_key(desc: SplitDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    """Everything but the sizes at dims: the input's layout, the outputs' axis sizes, the
    shared buffer's layout fields (its one size follows the others)."""
    out = desc.output
    assert out is not None
    return (desc.operator, masked(desc.input, dims, offset=True),
            tuple(masked(t, dims) for t in desc.outputs), desc.axis,
            (out.data_type, out.strides, out.total_bytes, out.offset))


def split_layouts(desc: SplitDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    """family/generic.py's layouts of the input (a view of one row of a batch shares the kernel
    of the other batch sizes)."""
    return layouts(desc, "input", dims)


def split_variants(desc: SplitDesc, dims: Sequence[int]) -> tuple[str, ...]:
    """The generic kernels this call may run, best first: "vector" (blocks of BLOCK 16-byte
    vectors of one output row: the input contiguous innermost, its other strides and offset
    multiples of the vector width, and every output's rows whole vectors: along the axis when
    it is the innermost dimension (static sizes), else the innermost size, which a dynamic one
    is only admitted as, the host checking it: a guarded assumption) and "scalar" (any
    sizes)."""
    inp, axis = desc.input, desc.axis
    lanes = vector_width(inp.data_type)
    strides = inp.element_strides
    last = inp.rank - 1
    aligned = (inp.rank > 1 and strides[-1] == 1
               and all(st % lanes == 0 for st in strides[:-1]) and inp.offset % lanes == 0)
    if axis == last:
        whole = aligned and all(t.sizes[axis] % lanes == 0 for t in desc.outputs)
        return ("vector",) if whole else ("scalar",)
    if not (aligned and inp.sizes[-1] % lanes == 0):
        return ("scalar",)
    return ("vector", "scalar") if last in dims else ("vector",)


def lower_split_generic(desc: SplitDesc, dims: Sequence[int],
                        variant: str = "scalar") -> GenericProgram | None:
    """lower_split (lower.py) with the sizes at `dims` (never the axis) dynamic; None for a
    given output or TotalTensorSizeInBytes, a negative input stride, a variant this descriptor
    does not allow (split_variants). One kernel of two buffers whatever the number of outputs
    (the binding limits do not apply); 8/16-bit elements stored by words of the outputs' one
    buffer (family/words.py: a word whose lanes belong to two outputs is stored whole by one
    invocation)."""
    inp, out, axis = desc.input, desc.output, desc.axis
    assert out is not None, "validate() first"
    if axis in dims or not generic_layouts(out, inp):
        return None
    if variant != "scalar" and variant not in split_variants(desc, dims):
        return None
    lanes = vector_width(inp.data_type) if variant == "vector" else 1
    static = [s for i, s in enumerate(inp.sizes) if i not in dims]
    fixed = offset_room(inp) + sum((s - 1) * st for i, (s, st) in
                             enumerate(zip(inp.sizes, inp.element_strides)) if i not in dims)
    hi = dynamic_limit(static, len(dims), [st for i, st in enumerate(inp.strides or ())
                                           if i in dims], fixed)
    if hi < 2 * lanes:
        return None
    table = ParamTable()
    sizes, vsizes = vector_sizes(inp.sizes, dims, table, hi, lanes,
                                 lambda i: size_of("input", i))
    if lanes > 1:
        return _vector_split(desc, table, sizes, vsizes, lanes)
    items_hi = product([largest(s) for s in sizes])
    assert isinstance(items_hi, int)
    count = table.add(1, items_hi, lambda d: d.input.element_count)
    offset = sym_offset(inp, table, lambda d: d.input.offset)
    b_in, extent = sym_buffer("input", inp, "input", sizes, table,
                              lambda d: d.input.buffer_elements, offset)
    strides = sym_strides(inp, sizes)
    b_out = Buffer("output", out.data_type, items_hi, "output", count)

    def value_of(u: Node) -> Node:
        """Element u of the outputs' buffer: where the input holds it."""
        coords = _coords(u, sizes, axis, [t.sizes[axis] for t in desc.outputs])
        return b.load(b_in, clamped(address_sym(coords, strides, offset), extent))
    kernel = element_kernel("split", table, count, b_out, value_of)
    program = Program("split", (b_in, b_out), (kernel,), ("input",), "output", out.sizes,
                      params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))


BLOCK = 8
"""Vectors per invocation of the vector variant: consecutive ones of one output row."""


def _vector_split(desc: SplitDesc, table: ParamTable, sizes: list[Size], vsizes: list[Size],
                  lanes: int) -> GenericProgram:
    """The "vector" variant: invocation gid moves BLOCK consecutive 16-byte vectors of one row
    of an output (its innermost dimension), column c = min(BLOCK * block + j, row_vectors - 1)
    (a block past its row's end moves the row's last vector again), each read from the input's
    aligned vector (clamped to the last vector of its runtime extent) and stored at
    min(row_start + c, vectors - 1) (clamped, exact: verify proves it inside the outputs' whole
    vectors). The divisions that place a row run once per block. Axis innermost: output k's
    rows are R_k = m_k / lanes vectors long; its blocks start at outer * (q_0 + ... + q_{k-1}),
    q_k = ceil(R_k / BLOCK) blocks a row, outer the product of the sizes before the axis; the
    comparisons of gid pick the output, its row o = (gid - start) // q_k and the block, and o
    is unflattened once. Otherwise every row is the innermost size long (n vectors, q blocks):
    row R = gid // q of the outputs' buffer (the rows of a split along the axis of the
    dimensions before the innermost: _coords)."""
    inp, out, axis = desc.input, desc.output, desc.axis
    assert out is not None
    strides = sym_strides(inp, sizes)
    # a pushed offset: a PARAM times the width (aligned offsets only: a guarded assumption)
    offset = sym_offset(inp, table, lambda d: d.input.offset, lanes)
    his = [largest(s) for s in vsizes]
    vectors_hi = product(his)
    assert isinstance(vectors_hi, int)
    vectors = table.add(1, vectors_hi, lambda d: d.output.element_count // lanes)
    gid: Node
    if axis == inp.rank - 1:
        outer_sizes = sizes[:-1]
        outer = product(outer_sizes)
        outer_hi = product(his[:-1])
        assert isinstance(outer_hi, int)
        rows = [t.sizes[axis] // lanes for t in desc.outputs]
        per = [-(-r // BLOCK) for r in rows]
        items_hi = outer_hi * sum(per)
        count = table.add(1, items_hi, lambda d: d.input.element_count
                          // d.input.sizes[axis] * sum(per))
        gid = b.item_id(items_hi)
        bounds: list[Node | int] = []
        outs, blocks, firsts, at, shift = [], [], [], 0, 0
        for r, q in zip(rows, per):
            start = outer * at if isinstance(outer, int) else b.mul(outer, at)
            local = gid if at == 0 else b.maximum(b.sub(gid, start), 0)
            o = local if q == 1 else b.floordiv(local, q)
            outs.append(o)
            blocks.append(b.const(0) if q == 1 else b.floormod(local, q))
            region = outer * shift if isinstance(outer, int) else b.mul(outer, shift)
            firsts.append(b.add(region, b.mul(o, r)) if shift else b.mul(o, r))
            if at:
                bounds.append(start)
            at += q
            shift += r
        row_start = address_sym(unflatten(_pick(gid, bounds, outs), outer_sizes),
                                strides[:-1], offset)
        shifts = [sum(rows[:k]) for k in range(len(rows))]
        src = b.add(row_start, b.mul(_pick(gid, bounds, [b.const(x) for x in shifts]), lanes))
        block = _pick(gid, bounds, blocks)
        first = _pick(gid, bounds, firsts)
        last_col: Node = _pick(gid, bounds, [b.const(r - 1) for r in rows])
    else:
        inner = vsizes[-1]
        inner_hi = his[-1]
        rows_hi = vectors_hi // inner_hi
        per_row: Size = -(-inner // BLOCK) if isinstance(inner, int) else table.add(
            1, -(-inner_hi // BLOCK), lambda d: -(-(d.input.sizes[-1] // lanes) // BLOCK))
        per_row_hi = largest(per_row)
        items_hi = rows_hi * per_row_hi
        count = table.add(1, items_hi, lambda d: d.input.element_count // d.input.sizes[-1]
                          * -(-(d.input.sizes[-1] // lanes) // BLOCK))
        gid = b.item_id(items_hi)
        row = gid if per_row == 1 else b.floordiv(gid, per_row)
        row = b.minimum(row, rows_hi - 1)  # exact: gid < rows * per_row
        block = b.const(0) if per_row == 1 else b.floormod(gid, per_row)
        coords = _coords(row, sizes[:-1], axis, [t.sizes[axis] for t in desc.outputs])
        src = address_sym(coords, strides[:-1], offset)
        first = b.mul(row, inner)
        last_col = b.const(inner - 1) if isinstance(inner, int) else b.add(inner, -1)
    b_in, extent = sym_buffer("input", inp, "input", sizes, table,
                              lambda d: d.input.buffer_elements, offset)
    b_out = Buffer("output", out.data_type, vectors_hi * lanes, "output", b.mul(vectors, lanes))
    last = b.add(vectors, -1)
    effects = vector_block(block, BLOCK, src, first, last_col, last, extent, lanes)
    kernel = Kernel("split", items_hi, tuple(effects), count=count)
    program = Program("split", (b_in, b_out), (kernel,), ("input",), "output", out.sizes,
                      params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))


def _coords(gid: Node, sizes: Sequence[Size], axis: int, pieces: Sequence[int]) -> list[Node]:
    """The input coordinates of element `gid` of the outputs' buffer, the outputs of `pieces`
    along `axis` cut from a tensor of `sizes` (the module's docstring)."""
    inner: list[Node] = []  # innermost first
    rows = gid
    for k in range(len(sizes) - 1, axis, -1):
        s = sizes[k]
        if isinstance(s, int) and s == 1:
            inner.append(b.const(0))
            continue
        inner.append(b.floormod(rows, s))
        rows = b.floordiv(rows, s)
    outer_sizes = sizes[:axis]
    outer = product(outer_sizes)
    outs: list[Node] = []  # per output: its outer index o
    along: list[Node] = []  # and its axis coordinate in the input, a + S_k
    bounds: list[Node | int] = []
    shift = 0
    for m in pieces:
        start = outer * shift if isinstance(outer, int) else b.mul(outer, shift)
        local = rows if shift == 0 else b.maximum(b.sub(rows, start), 0)
        if axis == 0:  # no outer dimensions: local < m where this output is chosen
            outs.append(b.const(0))
            along.append(b.add(b.minimum(local, m - 1), shift) if m > 1 else b.const(shift))
        else:
            a = b.const(0) if m == 1 else b.floormod(local, m)
            outs.append(local if m == 1 else b.floordiv(local, m))
            along.append(a if shift == 0 else b.add(a, shift))
        if shift:
            bounds.append(start)
        shift += m
    o, a = _pick(rows, bounds, outs), _pick(rows, bounds, along)
    return [*unflatten(o, outer_sizes), a, *inner[::-1]]


def _pick(rows: Node, bounds: Sequence[Node | int], pieces: Sequence[Node]) -> Node:
    """pieces[k] where rows lies in output k's rows (bounds: where outputs 1, 2, ... start)."""
    value = pieces[-1]
    for bound, piece in zip(reversed(bounds), reversed(pieces[:-1])):
        value = b.where(b.less(rows, bound), piece, value)
    return value
