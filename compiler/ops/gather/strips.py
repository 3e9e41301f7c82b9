"""The "strips" variant of the generic gather (ops/gather/lower.py; docs/generic-kernels.md):
an input whose innermost dimension steps more than its gathered axis (a transposed table) is
gathered in tiles of ROWS output rows x COLS columns per invocation, the invocations walking
down a strip of COLS columns over every row before the next strip (the cache lines of a strip's
columns then serve the rows that pass while they are cached, as the specialized kernels' STRIPS
maps do). One index read per row of a tile; the output's rows stored as 16-byte vectors where
the innermost size is a multiple of the vector width (a static fact: it is the input's). Every
size is exact: an edge tile's rows and column groups are clamped to the last (the invocation
stores those elements again, the same values), every output address is clamped to its runtime
extent (verify.py's proof)."""
from __future__ import annotations

from collections.abc import Callable

from ...family.generic import ParamTable
from ...family.lowering import Size, clamped, largest, product, unflatten
from ...ir import Buffer, Kernel, Program
from ...ir import build as b
from ...ir.kernel import vector_width
from ...ir.ops import Node
from .desc import GatherDesc

ROWS, COLS = 4, 16
"""A tile's output rows and columns (the specialized kernels' STRIP_TILE, passes/planner.py)."""

def strips_apply(desc: GatherDesc) -> bool:
    """Whether the strips variant serves this gather: the axis is not the input's innermost,
    which steps more than the axis and has two or more elements; 32/64-bit elements."""
    inp = desc.input
    strides = inp.element_strides
    return (inp.data_type.bits >= 32 and desc.axis < inp.rank - 1 and inp.sizes[-1] > 1
            and 0 <= strides[desc.axis] < strides[-1] and inp.sizes[desc.axis] > 1)


def gather_strips(desc: GatherDesc, table: ParamTable, osizes: list[Size], b_in: Buffer,
                  b_idx: Buffer, source: Callable[[list[Node]], Node]) -> Program:
    """The strips program over the output's symbolic sizes; source(output coords) is the
    input element those coordinates gather (its index load clamped to the indices' extent)."""
    out = desc.output
    assert out is not None
    inner = osizes[-1]
    assert isinstance(inner, int)  # the input's innermost size
    rows_hi = product([largest(s) for s in osizes[:-1]])
    assert isinstance(rows_hi, int)
    tiles_of_rows_hi = -(-rows_hi // ROWS)
    strips = -(-inner // COLS)
    rows = table.add(1, rows_hi, lambda x: x.output.element_count // x.output.sizes[-1])
    row_tiles = table.add(1, tiles_of_rows_hi,
                          lambda x: -(-(x.output.element_count // x.output.sizes[-1]) // ROWS))
    count = table.add(1, tiles_of_rows_hi * strips, lambda x: strips * -(
        -(x.output.element_count // x.output.sizes[-1]) // ROWS))
    lanes = vector_width(out.data_type)
    lanes = lanes if inner % lanes == 0 and COLS % lanes == 0 else 1
    elements = table.add(1, rows_hi * inner // lanes,
                         lambda x: x.output.element_count // lanes)
    b_out = Buffer("output", out.data_type, rows_hi * inner, "output",
                   elements if lanes == 1 else b.mul(elements, lanes))
    gid = b.item_id(tiles_of_rows_hi * strips)
    strip = b.minimum(b.floordiv(gid, row_tiles), strips - 1) if strips > 1 else b.const(0)
    tile = b.floormod(gid, row_tiles)
    per = COLS // lanes
    groups = [b.minimum(b.add(b.mul(strip, per), g), inner // lanes - 1) for g in range(per)]
    cols = [b.add(b.mul(groups[j // lanes], lanes), j % lanes) for j in range(COLS)]
    effects = []
    for i in range(ROWS):
        r = b.minimum(b.add(b.mul(tile, ROWS), i), b.add(rows, -1))
        coords = unflatten(r, osizes[:-1])
        values = [source([*coords, c]) for c in cols]
        if lanes > 1:
            for g, grp in enumerate(groups):
                x = b.minimum(b.add(b.mul(r, inner // lanes), grp), b.add(elements, -1))
                vec = b.vpack(values[g * lanes:(g + 1) * lanes])
                effects.append(b.vstore("output", b.mul(x, lanes), vec))
        else:
            for c, v in zip(cols, values):
                effects.append(b.store(b_out, clamped(b.add(b.mul(r, inner), c), elements), v))
    kernel = Kernel("gather", tiles_of_rows_hi * strips, tuple(effects), count=count)
    return Program("gather", (b_in, b_idx, b_out), (kernel,), ("input", "indices"), "output",
                   out.sizes, params=tuple(table.params))
