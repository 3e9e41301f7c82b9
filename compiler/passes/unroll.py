"""Unrolling: one invocation runs several items, sharing what they have in common.

A kernel of N items becomes one of N / U items whose item g runs the effects of U items
(substituting gid -> each of them): g*U, ..., g*U + U - 1 (consecutive), or the blocks of
passes/tile.py. Three things then fall out:
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

Skipped where it cannot be proven the same: kernels whose items do not divide by U, and kernels
that store 8/16-bit elements one at a time (passes/legalize.py gives each invocation whole words
of those, and needs each such store to write element gid: ir/kernel.py's packed_stores).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator

from ..ir import Kernel, Node, Program
from ..ir import build as b
from ..ir.algebra import RuleSet
from ..ir.kernel import packed_stores
from ..ir.ops import IRError, Op, toposort
from ..ir.rewrite import fold, substitute
from ..ir.verify import verify_program
from .lanes import aligned_run, loads_at, scalar_loads, vector_lanes

FACTORS = (8, 4, 2)
"""Consecutive items per invocation, the first that divides the kernel's items. Measured on
lavapipe, full bench suite, ratio to the copy shader with 4 / 8 items per invocation:
gather_elements 0.49 / 0.56, f16 row gather 0.43 / 0.58, f32 row gather 0.55 / 0.57 (quick
suite, f32 row gather: 0.49 with one item per invocation, 0.65 with 4)."""
STEP_FACTORS = (16, 8, 4, 2)
"""The same for kernels with steps (scatter's lines): hand-written on lavapipe, scatter f32
[2048, 2048] axis 0, 16 / 4 lines per invocation: 0.26 / 0.19 of the copy shader unique,
0.47 / 0.37 colliding."""
RUN, MAX_INTERLEAVED = 8, 4
"""_interleavings: consecutive items per block, and the most blocks of a coordinate taken
together. Measured on lavapipe, space_to_depth f32 [1, 64, 256, 256] block 2, ratio to the copy
shader: one item per invocation 0.32."""
MIN_ITEMS = 1 << 14
"""Smaller kernels (items x steps) keep one item per invocation: they need every invocation
they can get."""


def _combined_loads(k: Kernel, p: Program, order: list[Node], starts: list[Node],
                    rules: RuleSet) -> list[dict[Node, Node]]:
    """Per copy j (item starts[j]): each LOAD of the kernel whose copies read at least two
    different lanes of one aligned 16-byte vector -> its lane of that vector's shared VLOAD."""
    mappings: list[dict[Node, Node]] = [{k.gid: s} for s in starts]
    loads, per_copy = loads_at(k, starts, rules, order)
    for i, n in enumerate(loads):
        lanes = vector_lanes(n, [copy[i] for copy in per_copy], p, rules)
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
    if any(aligned_run([c.src[0] for c in run], width, rules) is None for run in runs):
        return copies
    return [b.vstore(e.buffer, run[0].src[0], _pack([c.src[1] for c in run])) for run in runs]


def unroll_kernel(k: Kernel, p: Program, factor: int, rules: RuleSet,
                  items: Callable[[Node], list[Node]] | None = None) -> Kernel | None:
    """`k` running `factor` consecutive items per item, or None where that is not proven the
    same. items: instead, the `factor` items that item g runs (a permutation of all items
    when g takes every value; passes/tile.py's blocks)."""
    if factor < 2 or k.items % factor or k.unrolled > 1:
        return None
    if packed_stores(k, p):
        return None
    g = b.item_id(k.items // factor)
    starts = [fold(s, rules) for s in (items(g) if items else
                                       [b.add(b.mul(g, factor), j) for j in range(factor)])]
    order = toposort(list(k.effects))
    mappings = _combined_loads(k, p, order, starts, rules)
    live = toposort(list(k.effects), stop=set(mappings[0]))  # a combined load's address is dead
    per_copy = [substitute(list(k.effects), m, rules, live) for m in mappings]
    effects: list[Node] = []
    for i in range(len(k.effects)):
        effects += _combined([copy[i] for copy in per_copy], p, rules)
    unrolled = Kernel(k.name, k.items // factor, tuple(effects), unrolled=factor, steps=k.steps)
    try:  # every address must still be proven inside its buffer from ranges alone
        verify_program(p.with_kernels((unrolled,)))
    except IRError:
        return None
    return unrolled


def _unrolled(k: Kernel, p: Program, rules: RuleSet) -> Kernel:
    if k.items * k.steps < MIN_ITEMS or k.unrolled > 1:  # small, or tiled (passes/tile.py)
        return k
    factors = STEP_FACTORS if k.steps > 1 else FACTORS
    unrolled = next((u for u in (unroll_kernel(k, p, f, rules) for f in factors) if u), k)
    if unrolled is not k and scalar_loads(unrolled) == 0:
        return unrolled
    for interleaved in _interleavings(k, p, rules):
        if scalar_loads(interleaved) == 0:
            return interleaved
    return unrolled if _gains(k, unrolled) else k


def _interleavings(k: Kernel, p: Program, rules: RuleSet) -> Iterator[Kernel]:
    """k unrolled over RUN consecutive items in each of the M blocks of a small coordinate
    (gid // D) % M, for each such coordinate of k: space_to_depth's block column picks which
    lanes of an input vector an output reads, so the outputs of both block columns together
    read whole vectors. Built one at a time: the caller stops at the first that serves."""
    if k.steps > 1:
        return
    for n in toposort(list(k.effects)):
        if not (n.op is Op.FLOORMOD and n.src[0].op is Op.FLOORDIV and n.src[0].src[0] is k.gid):
            continue
        d, m = n.src[0].src[1].value, n.src[1].value
        if m > MAX_INTERLEAVED or d % RUN or k.items % (m * d):
            continue

        def items(g: Node, d: int = d, m: int = m) -> list[Node]:
            block, inner = b.floordiv(g, d // RUN), b.floormod(g, d // RUN)
            base = b.add(b.mul(block, m * d), b.mul(inner, RUN))
            return [b.add(base, v * d + j) for v in range(m) for j in range(RUN)]
        unrolled = unroll_kernel(k, p, m * RUN, rules, items)
        if unrolled is not None:
            yield unrolled


def _gains(k: Kernel, unrolled: Kernel) -> bool:
    """Whether the items of an invocation share a load or read whole vectors. Unrolling only
    scattered scalar loads costs: a slice reading every 16th float32 measured 0.15 of the copy
    shader unrolled, 0.22 not (one item per invocation, passes/schedule.py's strided items)."""
    nodes = toposort(list(unrolled.effects))
    return (any(n.op is Op.VLOAD for n in nodes)
            or sum(n.op is Op.LOAD for n in nodes) < unrolled.unrolled * scalar_loads(k))


def unroll(p: Program, rules: RuleSet) -> Program:
    """Unroll by the first of FACTORS that divides its items every kernel of at least MIN_ITEMS
    items, where its items then share a load or read vectors."""
    return p.with_kernels(tuple(_unrolled(k, p, rules) for k in p.kernels))
