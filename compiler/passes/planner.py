"""The planner: how each kernel's items map onto invocations, chosen among candidates by one
cost model (Halide's split of algorithm and schedule; the schedule is ir/mapping.py's data).

For each kernel (after the rule passes) it enumerates what the enabled passes can carry out:
- vectors: none (element by element); 16-byte vectors over the whole kernel (vectorize.py);
  or the parts of a row cut at its edges (partition.py), each moving vectors;
- for each dispatch of those, an item map: one item per invocation (STRIDE of them a workgroup
  apart in a large kernel); CONSECUTIVE items; INTERLEAVED runs in each block of a small
  coordinate; a block of a 2-D output, along BANDS or down STRIPS of columns, where some load
  steps a cache line or more along the output's rows (a transposed input);
- where a kernel selects between loaded vectors: as branches, or as selects.
It builds each candidate with the rewriting passes' own functions (a candidate they do not prove,
or the verifier refuses, is dropped), costs it (passes/cost.py) and keeps the cheapest as the
kernel's Plan, with everything it weighed; vectorize, tile, unroll and schedule then carry the
plan out, and `describe` prints it (`dmlc compile --emit plan`).

Two rules bound the search. A kernel of fewer than MIN_ITEMS items (times its steps) keeps one
item per invocation, and an element kernel of fewer is not partitioned: they need every
invocation they can get (a part runs several vectors of one row whatever its size: its kernel
had MIN_ITEMS elements). And a kernel whose vectors are proven moves vectors: its element by
element way is not weighed (a vector moves what its lanes would in one load and one store).
Within a dispatch the maps are tried cheapest bound first (cost.bound: what the map alone
costs), and one whose bound is no better than the best so far is not built; one that is
built several items per invocation (unroll.py, copy by copy) stops once the copies built so far
cost that much (cost.Floor: the nodes they keep are the built kernel's). The blocks
(interleaved maps, bands, strips) come last, and only where consecutive items leave a scalar
load: they serve to read loads as whole vectors (or lines while cached), and where consecutive
items already do, more items per invocation measured slower (depth_to_space f32
[1, 256, 128, 128] block 2, ratio to the copy shader: 8 consecutive 1.16, 8 x 2 interleaved
1.07, 8 x 16 bands 0.96, 4 x 16 strips 0.5), though the cost model would rank them first.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

from ..ir import Kernel, Program
from ..ir.algebra import RuleSet
from ..ir.kernel import SOFT_FLOAT_COPIES, effects_order, packed_stores, soft_float_copies
from ..ir.mapping import (
    BANDS,
    CONSECUTIVE,
    INTERLEAVED,
    ONE_ITEM,
    STRIPS,
    Candidate,
    Cost,
    ItemMap,
    Option,
    Piece,
    Plan,
)
from ..ir.ops import Op
from ..ir.printer import render_push_words
from .cost import Locality, bound, cost, locality
from .partition import cuts
from .schedule import vector_selects
from .unroll import Exceeded, proven, unrolled
from .vectorize import vector_width, vectors

MIN_ITEMS = 1 << 14
"""Smaller kernels (items x steps) keep one item per invocation and one dispatch."""
FACTORS = (8, 4, 2)
"""Consecutive items per invocation. Measured on lavapipe, full bench suite, ratio to the copy
shader with 4 / 8 items per invocation: gather_elements 0.49 / 0.56, f16 row gather 0.43 /
0.58, f32 row gather 0.55 / 0.57 (quick suite, f32 row gather: 0.49 with one item per
invocation, 0.65 with 4)."""
STEP_FACTORS = (16, 8, 4, 2)
"""The same for kernels with steps (scatter's lines): hand-written on lavapipe, scatter f32
[2048, 2048] axis 0, 16 / 4 lines per invocation: 0.26 / 0.19 of the copy shader unique,
0.47 / 0.37 colliding."""
ROW_FACTORS = (8, 7, 6, 5, 4, 3, 2)
"""Vectors of one row of a part (partition.py) an invocation runs (factors of the part's
vectors per row), so that neighbours share the vectors a run off a vector boundary reads: two
loads for one vector alone, nine for eight. Measured on lavapipe, pad reflect f32
[1, 64, 256, 256] by 2 on W only, ratio to the copy shader: eight vectors that cross rows
0.67."""
BLOCK_RUN, MAX_INTERLEAVED = 8, 4
"""INTERLEAVED maps, BLOCK_RUN consecutive items in each of the M <= MAX_INTERLEAVED blocks of a
small coordinate (gid // D) % M: space_to_depth's block column picks which lanes of an input vector
an output reads, so the outputs of both block columns together read whole vectors. Measured on
lavapipe, space_to_depth f32 [1, 64, 256, 256] block 2, ratio to the copy shader: one item per
invocation 0.32."""
TILE = (8, 16)
"""Rows x columns of a BANDS block. Measured on lavapipe with hand-written shaders, slice of a
transposed f32 [4096, 4096], rows::2, ratio to the copy shader: one row of 8 items per
invocation 0.12, blocks of 8 x 8 0.14-0.15, 8 x 16 0.18-0.20, 8 x 32 0.21 (twice the code for
little more); in dmlc, 4 x 16 0.20-0.21, 8 x 16 0.24-0.25."""
STRIP_TILE = (4, 16)
"""Rows x columns of a STRIPS block. Measured in dmlc on lavapipe, gather of a transposed f32
[4096, 4096], ratio to the copy shader, two runs each: 4 x 16 0.20 and 0.20, 8 x 16 0.19 and
0.18 (16 x 16 0.20, 8 x 32 0.18, one run each)."""
STRIDE, STRIDE_MIN_ITEMS = 4, 1 << 16
"""Items a workgroup apart per invocation, for kernels of STRIDE_MIN_ITEMS items or more that
run one item each (not 8/16-bit stores: those run one word per invocation, legalize.py)."""

BLOCK_VECTORS = 8
"""A kernel whose item stores this many 16-byte vectors or more (a generic kernel's blocks of a
row and tiles: family/view_copy.py, family/view_tile.py, ops/join/split_generic.py) runs one
item per invocation: with a stride its blocks, a workgroup apart, ran at about half the speed.
Measured 2026-11-26 on lavapipe (load about 3 on 2 cores), generic against specialized kernel
(`dmlc bench --only`), two runs each, stride 4 -> 1: split f32 [4096,4096] into 3 0.80-0.83 ->
0.99-1.02, copy of a row-broadcast 0.53-0.66 -> 0.88, copy of x.T 0.79-0.82 -> 0.90-1.02. A
gather of rows, one vector an item, keeps its stride (0.80-0.90; 0.58-0.59 without)."""


def moves_blocks(k: Kernel) -> bool:
    """Whether each item of k stores BLOCK_VECTORS vectors or more."""
    return sum(e.op is Op.VSTORE for e in k.effects) >= BLOCK_VECTORS


CARRIERS = ("vectorize", "tile", "unroll")
"""The passes that carry plans out: a disabled one's candidates are not considered."""
TIE = 1 + 1e-9
"""A way whose cost comes this close to the best candidate's could still win by rounding."""
BOUNDED = "not built: its item map alone costs more than the best so far"
PRUNED = "not built in full: the copies it built already cost more than the best so far"
CANNOT_WIN = "candidate, cannot win: of its maps, the cheapest built in full"
WHOLE = "not weighed: consecutive items read whole vectors already"


def plan(p: Program, rules: RuleSet, passes: frozenset[str] = frozenset(CARRIERS)) -> Program:
    """Every kernel with its plan, among the candidates `passes` can carry out."""
    return p.with_kernels(tuple(dataclasses.replace(k, plan=plan_kernel(k, p, rules, passes))
                                for k in p.kernels))


def plan_kernel(k: Kernel, p: Program, rules: RuleSet, passes: frozenset[str]) -> Plan:
    """The cheapest candidate for k (module docstring), with everything weighed."""
    options: list[Option] = []
    ways: list[tuple[int, list[tuple[int, int] | None], list[Kernel]]] = []
    width = vector_width(k, p) if "vectorize" in passes else 0
    if width:
        cut = cuts(k, p, width, rules) if k.items >= MIN_ITEMS else None
        parts = [vectors(k, p, width, c, rules) for c in cut or []]
        if cut and all(parts):
            ways.append((width, list(cut), [x for x in parts if x]))
        elif cut:
            options.append(Option(f"vectors of {width} in parts {cut}", None, "not proven"))
        whole = vectors(k, p, width, None, rules)
        if whole is not None:
            ways.append((width, [None], [whole]))
        else:
            options.append(Option(f"vectors of {width}", None, "not proven"))
    if ways:
        options.append(Option("elements", None, "not weighed: vectors are proven"))
    else:
        ways.append((1, [None], [k]))
    if k.items * k.steps < MIN_ITEMS:
        options.append(Option("several items per invocation, or parts", None,
                              f"not weighed: fewer than MIN_ITEMS = {MIN_ITEMS} items"))
    where = locality(k, p.output_shape[-1] if p.output_shape else k.items, TILE[1])
    best: tuple[Candidate, Cost] | None = None
    for vector, columns_of, kernels in ways:
        start = len(options)
        pieces: list[tuple[Piece, Cost]] = []
        for d, columns in zip(kernels, columns_of):
            spent = sum(x.total for _, x in pieces)
            pieces.append(_best_piece(d, p, rules, passes, columns, vector, where,
                                      (spent, best[1].total if best else math.inf), options))
        total = Cost(sum(x.total for _, x in pieces), _summed([x for _, x in pieces]))
        candidate = Candidate(vector, tuple(piece for piece, _ in pieces))
        if best is None or total.total < best[1].total:
            options.append(Option(str(candidate), total, "candidate"))
            best = candidate, total
        else:  # its cheapest map may be one not built: no less than the best, or of its budget
            options.append(Option(str(candidate), total, CANNOT_WIN if any(
                o.note == PRUNED for o in options[start:]) else "candidate"))
    assert best is not None
    return Plan(k.name, k.items, best[0], best[1], tuple(options))


def _best_piece(d: Kernel, p: Program, rules: RuleSet, passes: frozenset[str],
                columns: tuple[int, int] | None, vector: int, where: Locality,
                way: tuple[float, float], options: list[Option]) -> tuple[Piece, Cost]:
    """The cheapest way to run dispatch d (an element kernel, a vector kernel or a part). way:
    what its way's pieces before it cost, and the best candidate so far (its budget is the
    difference): a map that cannot cost less than the budget or than the best so far is not
    built, and a built one that cannot win is not verified (unroll.proven), only costed."""
    spent, limit = way
    budget = limit - spent
    maps = [ONE_ITEM]
    packed = bool(packed_stores(d, p))
    if not packed and (columns is not None or d.items * d.steps >= MIN_ITEMS):
        maps += _runs(d, p, columns, vector) if "unroll" in passes else []
        maps += _tiles(d, p, where) if "tile" in passes else []
    label = f"vectors of {vector}" if vector > 1 else "elements"
    strided = not packed and d.items >= STRIDE_MIN_ITEMS and not moves_blocks(d)
    bounds = {m: min((bound(d, Piece(columns, m, stride))
                      for stride in ([1, STRIDE] if strided and m.count == 1 else [1])),
                     key=lambda x: x.total) for m in maps}
    best: tuple[Piece, Cost] | None = None
    vectors_only = False  # some consecutive map reads every load as whole vectors
    blocks = [m for m in maps if m.kind in (INTERLEAVED, BANDS, STRIPS)]
    for m in sorted(maps, key=lambda m: (m in blocks, bounds[m].total)):
        if m in blocks and vectors_only:
            options.append(Option(f"{label}: {Piece(columns, m)}", None, WHOLE))
            continue
        strides = [1, STRIDE] if strided and m.count == 1 else [1]
        least = bounds[m]
        if least.total >= min(budget, best[1].total if best else math.inf):
            options.append(Option(f"{label}: {Piece(columns, m)}", least, BOUNDED))
            continue
        try:
            built = d if m.count == 1 else unrolled(d, p, m, rules, _over(
                (d.items // m.count) * d.steps, least, spent, limit,
                best[1].total if best else math.inf, m.kind == CONSECUTIVE and bool(blocks)))
        except Exceeded as stop:
            so_far = stop.floor * ((d.items // m.count) * d.steps)
            options.append(Option(f"{label}: {Piece(columns, m)}", Cost(
                least.total + so_far, least.terms + (("built so far", so_far),)), PRUNED))
            continue
        if built is None:
            options.append(Option(f"{label}: {Piece(columns, m)}", None, "not proven"))
            continue
        nodes = effects_order(built)
        whole = m.kind == CONSECUTIVE and not any(n.op is Op.LOAD for n in nodes)
        selects = bool(vector_selects(nodes))
        costed = [(piece, cost([(built, piece)], where))
                  for stride in strides for branches in ((True, False) if selects else (False,))
                  for piece in [Piece(columns, m, stride, branches)]]
        # Verified only where it matters: where it decides `vectors_only`, or where it would be
        # the best so far and its way could win: what its pieces so far and this one cost is
        # below the best candidate's (or within rounding of it: costs are >= 0, so the way's
        # total is no less).
        if built is not d and ((whole and blocks) or any(
                spent + x.total < limit * TIE and (best is None or x.total < best[1].total)
                for _, x in costed)) and not proven(built, p):
            options.append(Option(f"{label}: {Piece(columns, m)}", None, "not proven"))
            continue
        vectors_only |= whole
        for piece, x in costed:
            options.append(Option(f"{label}: {piece}", x))
            if best is None or x.total < best[1].total:
                best = piece, x
    if best is None:  # every map bounded out: the way cannot win; cost its first map anyway
        piece = Piece(columns)
        return piece, cost([(d, piece)], where)
    return best


def _over(items: int, least: Cost, spent: float, limit: float, best: float,
          decides: bool) -> Callable[[float], bool] | None:
    """unrolled()'s `over` for a map whose built kernel runs `items` items (times its steps)
    and whose item map alone costs `least`: whether
    the copies built so far (a lower bound per item of the rest of its cost, cost.Floor) already
    cost too much to win, within rounding (TIE): no less than the best map so far (`best`), or
    than the way's budget (`limit`, the best candidate's total, less `spent`, its pieces so
    far). None (build it whole) where the build decides `vectors_only` (a consecutive map,
    blocks to weigh), or where nothing bounds it."""
    if decides or (best == math.inf and limit == math.inf):
        return None

    def over(floor: float) -> bool:
        total = least.total + floor * items
        return total >= best * TIE or spent + total >= limit * TIE
    return over


def _runs(d: Kernel, p: Program, columns: tuple[int, int] | None, vector: int) -> list[ItemMap]:
    """The CONSECUTIVE and INTERLEAVED maps of dispatch d (of MIN_ITEMS items or a part)."""
    factors: list[int] = []
    if columns is not None:
        n = (columns[1] - columns[0]) // vector
        factors += [f for f in ROW_FACTORS if n % f == 0]
    if d.items * d.steps >= MIN_ITEMS:
        factors += [f for f in (STEP_FACTORS if d.steps > 1 else FACTORS) if d.items % f == 0]
    copies = soft_float_copies(d)  # per item: f items an invocation repeat them f times
    if copies:
        factors = [f for f in factors if f * copies <= SOFT_FLOAT_COPIES]
    maps = [ItemMap(CONSECUTIVE, f) for f in dict.fromkeys(factors)]
    if d.steps > 1 or d.items < MIN_ITEMS:
        return maps
    for x in effects_order(d):  # (gid // D) % M: M blocks of a small coordinate
        if not (x.op is Op.FLOORMOD and x.src[0].op is Op.FLOORDIV and x.src[0].src[0] is d.gid):
            continue
        apart, blocks = x.src[0].src[1].value, x.src[1].value
        if blocks <= MAX_INTERLEAVED and apart % BLOCK_RUN == 0 and d.items % (blocks * apart) == 0:
            m = ItemMap(INTERLEAVED, blocks * BLOCK_RUN, (BLOCK_RUN, blocks, apart))
            if m not in maps:
                maps.append(m)
    return maps


def _tileable(k: Kernel, p: Program, row_length: int) -> bool:
    """Whether k is one store of the whole 2-D output, element gid, in bands of TILE rows."""
    rows, cols = TILE
    return (len(k.effects) == 1 and k.effects[0].op is Op.STORE and k.steps == 1
            and k.effects[0].src[0] is k.gid and k.effects[0].buffer == p.output
            and k.items == p.buffer(p.output).count and row_length > 0
            and row_length % cols == 0 and k.items % (rows * row_length) == 0)


def _tiles(d: Kernel, p: Program, where: Locality) -> list[ItemMap]:
    """The BANDS and STRIPS maps of an element kernel that stores the whole 2-D output, where
    some load reads a cache line or more from its right neighbour's (a transposed input)."""
    row_length = p.output_shape[-1] if p.output_shape else 0
    if not where.any_far or not _tileable(d, p, row_length):
        return []
    rows, cols = TILE
    maps = [ItemMap(BANDS, rows * cols, (rows, cols, row_length))]
    rows, cols = STRIP_TILE
    if row_length % cols == 0 and d.items % (rows * row_length) == 0:
        maps.append(ItemMap(STRIPS, rows * cols,
                            (rows, cols, row_length, d.items // (rows * row_length))))
    return maps


def _summed(costs: list[Cost]) -> tuple[tuple[str, float], ...]:
    names = dict.fromkeys(name for c in costs for name, _ in c.terms)
    return tuple((name, sum(dict(c.terms).get(name, 0.0) for c in costs)) for name in names)


def describe(p: Program, form: str = "") -> str:
    """The plan of each planned kernel of p: every candidate weighed, its cost per item of the
    kernel (in loads or stores, passes/cost.py) and what makes it up; the winner first. A
    generic program's first: its `form` (the variant that runs) and its push-constant words
    (docs/generic-kernels.md)."""
    lines: list[str] = []
    if p.params:
        lines += [f"generic kernel ({form}): its sizes are push constants, {p.push_words} "
                  "uint32 words in order", *render_push_words(p)]
    seen: set[int] = set()
    for k in p.kernels:
        plan = k.plan
        if plan is None or id(plan) in seen:
            continue
        seen.add(id(plan))
        lines += [f"kernel {plan.kernel} ({plan.items} items): {plan.chosen}",
                  f"  cost per item {plan.cost.per(plan.items)}", "  considered:"]
        for o in plan.considered:
            at_least = ">=" if o.note in (BOUNDED, PRUNED) else ""
            cost = f"{at_least}{o.cost.per(plan.items).total:.3f}" if o.cost else "-"
            note = f"  ({o.note})" if o.note else ""
            lines.append(f"    {cost:>10}  {o.what}{note}")
    return "\n".join(lines) + "\n"
