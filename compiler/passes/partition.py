"""Partitioning a row's columns (Halide's loop partitioning: prologue, steady state, epilogue),
so that vectors whose lanes would decide a condition differently run apart from the rest.

A kernel `out[gid] = value` whose conditions or clamps compare the output column (gid % R, R
the output's last dimension) with constants (padding's edges) has its columns cut at each
edge: a vector that an edge crosses becomes a part of its own, and between edges the columns
form parts in which every condition is decided for the whole range of columns. Each part is a
kernel over (row, vector of the part's columns); under its columns' ranges the simplifier folds
the decided conditions away, and what is left is vectorized as vectorize.py would (runs, runs
off a vector boundary, lane-uniform selects). The parts write disjoint vectors of the output.

A part at an edge needs the input's rows to be whole vectors too (its lanes come from the
aligned vectors of a run), and 32/64-bit elements: a join of pieces that are not whole vectors,
or 8/16-bit padding, stays one kernel (lanes selected one by one, vector_select.py).

Only where some edge falls inside a vector (where whole-vector selects cannot decide it), the
row holds whole vectors, the kernel has MIN_ELEMENTS or more, and there are at most MAX_PARTS
parts: each part is a dispatch.
"""
from __future__ import annotations

from ..ir import Kernel, Node, Program
from ..ir import build as b
from ..ir.algebra import RuleSet, const_tail
from ..ir.ops import Op, toposort
from ..ir.rewrite import fold
from .vector_select import vector_value

MIN_ELEMENTS = 1 << 14
"""Smaller kernels stay one dispatch (selects per lane, vector_select.py): there the dispatches
would cost more than the selects they save (unroll.py's threshold for the same reason)."""
MAX_PARTS = 5
"""Parts per kernel: a steady state and two edges on each side (padding's start and end)."""

RUN = (8, 7, 6, 5, 4, 3, 2)
"""Vectors of one row an invocation runs (the first that divides the part's columns), so that
neighbours share the vectors a run off a vector boundary reads: two loads for one vector alone,
nine for eight. Measured on lavapipe, pad reflect f32 [1, 64, 256, 256] by 2 on W only, ratio to
the copy shader: eight vectors that cross rows (unroll.py) 0.67."""
MIN_RUN_VECTORS = 1 << 12
"""Smaller parts run one vector per invocation: they need every invocation they can get."""

def column_edges(value: Node, column: Node) -> set[int]:
    """The columns c at which some condition `column + k < s` or `s < column + k` of value
    changes, or a clamp `max(column + k, s)` or `min(column + k, s)` starts or stops holding
    (the first column of the other side)."""
    edges = set()
    for n in toposort([value]):
        if n.op not in (Op.CMPLT, Op.MIN, Op.MAX):
            continue
        left, right = n.src
        for x, s, above in ((left, right, n.op is Op.MIN), (right, left, n.op is Op.CMPLT)):
            while x.op in (Op.MIN, Op.MAX) and x.src[1].is_const:  # a clamp's other side
                x = x.src[0]
            base, k = const_tail(x) or (x, 0)
            if s.is_const and base is column:
                edges.add(s.value - k + above)
    return edges


def partition_kernel(k: Kernel, p: Program, width: int,
                     rules: RuleSet) -> tuple[Kernel, ...] | None:
    """The parts of the element kernel k (one store of the whole output, element gid), or
    None where partitioning does not apply or some part does not vectorize."""
    store = k.effects[0]
    row = p.output_shape[-1] if p.output_shape else 0
    if (store.arg != p.output or not row or row % width or k.items % row
            or k.items < MIN_ELEMENTS):
        return None
    column = fold(b.floormod(k.gid, row), rules)
    edges = {e for e in column_edges(store.src[1], column) if 0 < e < row}
    if all(e % width == 0 for e in edges):
        return None  # every condition is lane-uniform: vectorize.py as it is
    cuts = sorted({0, row // width} | {e // width for e in edges}
                  | {-(-e // width) for e in edges})
    if len(cuts) - 1 > MAX_PARTS:
        return None
    rows, parts = k.items // row, []
    for lo, hi in zip(cuts, cuts[1:]):
        n = hi - lo
        run = next((u for u in RUN if n % u == 0), 1) if rows * n >= MIN_RUN_VECTORS else 1
        g = b.item_id(rows * n // run)
        row_start = b.mul(b.floordiv(g, n // run), row)
        stores = []
        for u in range(run):
            column = b.mul(b.add(b.mul(b.floormod(g, n // run), run), lo + u), width)
            first = fold(b.add(row_start, column), rules)
            vec = vector_value(store.src[1], p, k.gid, first, width, rules)
            if vec is None:
                return None
            stores.append(b.vstore(store.arg, first, vec))
        parts.append(Kernel(f"{k.name}_columns_{lo * width}_{hi * width}", rows * n // run,
                            tuple(stores), unrolled=run))
    return tuple(parts)
