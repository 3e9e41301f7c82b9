"""Item maps carried out: one invocation runs several items, sharing what they have in common.

A kernel of N items becomes one of N / U items whose item g runs the effects of U items
(substituting gid -> each of them): the items of its plan's item map (ir/mapping.py; which map,
passes/planner.py decides). Three things then fall out:
- shared work is one node: for a row gather moving a uvec4 per item, `(g*4 + j) // 64` folds to
  `g // 16` for every j, so the index is loaded and normalized once per four vectors
  (hash-consing is the common-subexpression sharing; codegen names a node once per invocation);
- a load whose U copies read several lanes of one aligned 16-byte vector (addresses x + c with
  x a multiple of the vector width) becomes one VLOAD per vector and a VEXTRACT per element
  (gather_elements' indices, scatter's winners and lines, the input columns of a tiled
  transpose);
- stores whose copies write whole aligned vectors of 32/64-bit elements become VSTOREs of
  VPACKs (gather_elements' output, scatter's output and its scratch reset, a block's rows).
Effects are emitted effect by effect (all copies of the first effect, then of the second, ...):
each item still runs its own effects in order, and items never read what other items write
(ir/kernel.py), so only the order between items changes, which nothing can observe.

Refused where it cannot be proven the same: kernels whose items do not divide by U, kernels
that store 8/16-bit elements one at a time (passes/legalize.py gives each invocation whole words
of those, and needs each such store to write element gid: ir/kernel.py's packed_stores), and
results whose addresses the verifier cannot prove inside their buffers.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ..ir import Kernel, Node, Program
from ..ir import build as b
from ..ir.algebra import RuleSet
from ..ir.kernel import effects_order, packed_stores
from ..ir.mapping import BANDS, CONSECUTIVE, INTERLEAVED, ONE, STRIPS, ItemMap
from ..ir.ops import IRError, Op, toposort
from ..ir.rewrite import fold, substitute
from ..ir.verify import verify_program
from .alignment import aligned_start, load_lanes
from .cost import Floor


def item_starts(m: ItemMap, g: Node) -> list[Node]:
    """The items that item g of the mapped kernel runs, in order (ir/mapping.py's ItemMap)."""
    if m.kind == ONE:
        return [g]
    if m.kind == CONSECUTIVE:
        return [b.add(b.mul(g, m.count), j) for j in range(m.count)]
    if m.kind == INTERLEAVED:
        run, blocks, apart = m.shape
        block, inner = b.floordiv(g, apart // run), b.floormod(g, apart // run)
        base = b.add(b.mul(block, blocks * apart), b.mul(inner, run))
        return [b.add(base, v * apart + j) for v in range(blocks) for j in range(run)]
    rows, cols, row_length, *bands = m.shape
    return block_starts(g, rows, cols, row_length, bands[0] if m.kind == STRIPS else 0)


def block_starts(g: Node, rows: int, cols: int, row_length: int, bands: int = 0) -> list[Node]:
    """The items of block g, row by row. Blocks tile each band of `rows` rows left to right
    (BANDS); bands > 0: instead each strip of `cols` columns top to bottom, over that many bands
    (STRIPS)."""
    per_band = row_length // cols
    band, col = ((b.floormod(g, bands), b.floordiv(g, bands)) if bands else
                 (b.floordiv(g, per_band), b.floormod(g, per_band)))
    base = b.add(b.mul(band, rows * row_length), b.mul(col, cols))
    return [b.add(base, r * row_length + c) for r in range(rows) for c in range(cols)]


def _combined_loads(k: Kernel, p: Program, order: list[Node], starts: list[Node],
                    rules: RuleSet) -> list[dict[Node, Node]]:
    """Per copy j (item starts[j]): each LOAD of the kernel whose copies read at least two
    different lanes of one aligned 16-byte vector -> its lane of that vector's shared VLOAD."""
    mappings: list[dict[Node, Node]] = [{k.gid: s} for s in starts]
    memos: list[dict[Node, Node]] = [{} for _ in starts]
    for n in order:
        if n.op is not Op.LOAD:
            continue
        lanes = load_lanes(n, k.gid, starts, memos, p, rules)
        if lanes is None:
            continue
        used: dict[Node, set[int]] = {}
        for start, lane in lanes:
            used.setdefault(start, set()).add(lane)
        if all(len(v) < 2 for v in used.values()):
            continue  # no vector would serve two lanes: scalar loads move fewer bytes
        for m, (start, lane) in zip(mappings, lanes):
            m[n] = b.vextract(b.vload(n.buffer, start), n.data_type, lane)
    return mappings


def _pack(elements: list[Node]) -> Node:
    """A vector of these lanes; the vector itself where they are its lanes 0, 1, ... in order
    (a load's vector stored back whole)."""
    vec = elements[0].src[0] if elements[0].op is Op.VEXTRACT else None
    if vec is not None and all(e.op is Op.VEXTRACT and e.src[0] is vec and e.arg == i
                               for i, e in enumerate(elements)):
        return vec
    return b.vpack(elements)


def _combined(copies: list[Node], p: Program, rules: RuleSet) -> list[Node]:
    """The copies of one effect: VSTOREs of packed vectors where each run of vector-width
    copies writes one whole aligned vector of 32/64-bit elements, else the copies themselves."""
    e = copies[0]
    if e.op is not Op.STORE or len(e.src) > 2:
        return copies
    dtype = p.buffer(e.buffer).dtype
    width = b.vector_width(dtype)
    if dtype.bits < 32 or len(copies) % width:
        return copies
    runs = [copies[v:v + width] for v in range(0, len(copies), width)]
    if any(aligned_start([c.src[0] for c in run], width, rules) is None for run in runs):
        return copies
    return [b.vstore(e.buffer, run[0].src[0], _pack([c.src[1] for c in run])) for run in runs]


_BUILT: dict[tuple, tuple[tuple[Node, ...] | None]] = {}
"""unrolled()'s results (the planner builds each candidate, then a pass its winner again)."""


def clear_memo() -> None:
    """Forget unrolled()'s results."""
    _BUILT.clear()


def unroll_kernel(k: Kernel, p: Program, items: ItemMap, rules: RuleSet) -> Kernel | None:
    """`k` running the items of `items` per item, or None where that is not proven the same
    (the items of all g together must be each item of k once: item_starts' maps are)."""
    built = unrolled(k, p, items, rules)
    return None if built is None or not proven(built, p) else built


def proven(k: Kernel, p: Program) -> bool:
    """Whether every address of k is still proven inside its buffer from ranges alone."""
    try:
        verify_program(p.with_kernels((k,)))
    except IRError:
        return False
    return True


class Exceeded(Exception):
    """unrolled() stopped: its copies built so far cost what `over` refuses."""

    def __init__(self, floor: float) -> None:
        super().__init__(floor)
        self.floor = floor


def unrolled(k: Kernel, p: Program, items: ItemMap, rules: RuleSet,
             over: Callable[[float], bool] | None = None) -> Kernel | None:
    """unroll_kernel's kernel before it is verified (proven): the planner verifies only the
    candidates that could win; None where the map does not apply. over: given a lower bound
    of the built kernel's cost per item beyond what its item map alone decides (cost.Floor),
    after each copy, whether to stop: then Exceeded (with that bound), and nothing is
    remembered."""
    key = (k.effects, k.items, k.steps, k.unrolled, items, rules, p.buffers)
    hit = _BUILT.get(key)  # one lookup: another thread may clear it meanwhile
    if hit is None:
        built = _unrolled(k, p, items, rules, over)
        hit = (None if built is None else built.effects,)
        if len(_BUILT) >= 256:
            _BUILT.clear()
        _BUILT[key] = hit
    effects = hit[0]
    return None if effects is None else dataclasses.replace(
        k, items=k.items // items.count, effects=effects, unrolled=items.count)


def _kept(e: Node) -> Node:
    """What the built kernel keeps of copy e of an effect whatever _combined makes of it: a
    STORE's value (the vector it is a lane of), else e itself."""
    if e.op is not Op.STORE or len(e.src) > 2:
        return e
    value = e.src[1]
    return value.src[0] if value.op is Op.VEXTRACT else value


def _unrolled(k: Kernel, p: Program, items: ItemMap, rules: RuleSet,
              over: Callable[[float], bool] | None = None) -> Kernel | None:
    factor = items.count
    if factor < 2 or k.items % factor or packed_stores(k, p):
        return None
    g = b.item_id(k.items // factor)
    starts = [fold(s, rules) for s in item_starts(items, g)]
    order = effects_order(k)
    mappings = _combined_loads(k, p, order, starts, rules)
    live = toposort(list(k.effects), stop=set(mappings[0]))  # a combined load's address is dead
    floor = Floor() if over is not None else None
    per_copy = []
    for m in mappings:
        per_copy.append(substitute(list(k.effects), m, rules, live))
        if floor is not None and over is not None:
            x = floor.add([_kept(e) for e in per_copy[-1]])
            if over(x):
                raise Exceeded(x)
    effects: list[Node] = []
    for i in range(len(k.effects)):
        effects += _combined([copy[i] for copy in per_copy], p, rules)
    return dataclasses.replace(k, items=k.items // factor, effects=tuple(effects),
                               unrolled=factor)


def unroll(p: Program, rules: RuleSet) -> Program:
    """Every kernel whose plan runs consecutive or interleaved items per invocation, so."""
    return _carry_out(p, rules, (CONSECUTIVE, INTERLEAVED))


def tile(p: Program, rules: RuleSet) -> Program:
    """Every kernel whose plan runs a block of a 2-D output per invocation (bands or strips:
    a transposed input), so."""
    return _carry_out(p, rules, (BANDS, STRIPS))


def _carry_out(p: Program, rules: RuleSet, kinds: tuple[str, ...]) -> Program:
    out = []
    for k in p.kernels:
        piece = k.planned
        if piece is None or piece.items.kind not in kinds:
            out.append(k)
            continue
        mapped = unroll_kernel(k, p, piece.items, rules)
        if mapped is None:  # the planner proved this very kernel: a bug
            raise IRError(f"{p.name}/{k.name}: its plan's {piece.items} is not proven")
        out.append(mapped)
    return p.with_kernels(tuple(out))
