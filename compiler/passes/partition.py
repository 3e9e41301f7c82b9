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
row holds whole vectors and there are at most MAX_PARTS parts; whether a kernel is worth its
dispatches, and how many of a part's vectors an invocation runs, the planner decides
(passes/planner.py).
"""
from __future__ import annotations

from ..ir import Kernel, Node, Program
from ..ir import build as b
from ..ir.algebra import RuleSet
from ..ir.ops import Op, toposort
from ..ir.rewrite import fold
from ..ir.terms import const_tail
from .vector_select import vector_value

MAX_PARTS = 5
"""Parts per kernel: a steady state and two edges on each side (padding's start and end)."""


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


def row_length(k: Kernel, p: Program, width: int) -> int:
    """The output's row (last dimension) where k is one store of the whole output, element gid,
    and rows are whole vectors of `width`; else 0."""
    store = k.effects[0]
    row = p.output_shape[-1] if p.output_shape else 0
    if store.buffer != p.output or not row or row % width or k.items % row:
        return 0
    return row


def cuts(k: Kernel, p: Program, width: int, rules: RuleSet) -> list[tuple[int, int]] | None:
    """The parts of the element kernel k (one store of the whole output, element gid) as
    columns [lo, hi) of every row, or None where partitioning does not apply."""
    row = row_length(k, p, width)
    if not row:
        return None
    column = fold(b.floormod(k.gid, row), rules)
    edges = {e for e in column_edges(k.effects[0].src[1], column) if 0 < e < row}
    if all(e % width == 0 for e in edges):
        return None  # every condition is lane-uniform: vectorize.py as it is
    at = sorted({0, row // width} | {e // width for e in edges} | {-(-e // width) for e in edges})
    if len(at) - 1 > MAX_PARTS:
        return None
    return [(lo * width, hi * width) for lo, hi in zip(at, at[1:])]


def part_kernel(k: Kernel, p: Program, width: int, columns: tuple[int, int],
                rules: RuleSet) -> Kernel | None:
    """The part of k that writes `columns` of every row, one vector per item, or None where
    it does not vectorize."""
    store, row = k.effects[0], row_length(k, p, width)
    lo, hi = columns[0] // width, columns[1] // width
    n, rows = hi - lo, k.items // row
    g = b.item_id(rows * n)
    row_start = b.mul(b.floordiv(g, n), row)
    column = b.mul(b.add(b.mul(b.floormod(g, n), 1), lo), width)
    first = fold(b.add(row_start, column), rules)
    vec = vector_value(store.src[1], p, k.gid, first, width, rules)
    if vec is None:
        return None
    return Kernel(f"{k.name}_columns_{columns[0]}_{columns[1]}", rows * n,
                  (b.vstore(store.buffer, first, vec),))
