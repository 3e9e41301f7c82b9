"""The planner's cost model: one estimate of a candidate's time, from the kernels it builds.

A candidate (ir/mapping.py) is costed on the kernels it builds, once its vectors and item map
are carried out: `features` counts what each dispatch runs, over all its items and steps (where a
select branches, only its condition and first side, the expected path: vector_select.py builds
the common case first), and `cost` weighs the counts (WEIGHTS) and sums them:
- dispatches: one per kernel (a partition's parts each cost a launch);
- invocations, items, loop: an invocation's own work (its ids); each item's (its bounds check:
  the STRIDE items of one invocation each pay it, consecutive ones once); each further step of
  a kernel with steps (its loop);
- loads, stores: each memory access, a load or store of one element or one vector (a store
  costs less: nothing waits for it);
- lines: a scalar load whose neighbouring items along a row are a cache line or more apart (a
  transposed input, a strided slice) moves a whole line for its element, unless the invocations
  walk down strips of columns whose rows are not a line apart: the strip's lines then serve the
  rows that pass while they are cached;
- gathers: such a load again where the invocation runs several items (it waits on each in turn,
  where one item per invocation lets the neighbouring invocations' loads overlap);
- branches, ops: each select that branches, each other op.
The unit is one load. The weights reproduce every choice that the measurements behind
planner.py's constants made, the choice of each bench case of tools/ir_snapshot.py, and these
measured on lavapipe (ratio to the copy shader, medians of 4 to 8 interleaved runs, 2026-11-25):
gather of a transposed f32 [4096, 4096], 4 x 16 strips 0.38, 8 x 16 bands 0.09, 8 consecutive
0.09; space_to_depth CRD f32 [1, 64, 256, 256], 8 x 4 interleaved 0.99, 8 x 2 0.93; a slice of
every 16th float32, one item per invocation 0.26, 8 consecutive 0.15; a padding of 204120
floats that does not vectorize, 8 consecutive 0.68-0.77, one item 0.49-0.57. Each weight can
move by a factor of 2 either way before one of them changes. Not modelled: a slice of a
transposed f32 [4096, 4096] rows::2 runs 4 x 16 strips at 0.56-0.62, its 8 x 16 bands at
0.34-0.38 (a transpose's strips measured 0.68 against bands 0.61 alone, but 0.51 against 0.60
within the whole bench): both keep bands.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..dtypes import DataType
from ..ir import Kernel, Node
from ..ir.kernel import effects_order
from ..ir.mapping import STRIPS, Cost, Piece
from ..ir.ops import BUFFER_OPS, Op, VType, toposort
from .schedule import vector_selects

WEIGHTS = {"dispatches": 256, "invocations": 4, "items": 1, "loop": 16, "loads": 1,
           "stores": 0.5, "gathers": 4, "lines": 32, "branches": 1, "ops": 0.02}
"""Each feature's cost, in loads."""
SAMPLES = 4
"""Places of a kernel at which its loads' neighbouring addresses are evaluated (locality)."""
LINE = 64

_INT: dict[Op, Callable[[Any, Any], Any]] = {
    Op.ADD: np.add, Op.MUL: np.multiply, Op.FLOORDIV: np.floor_divide, Op.FLOORMOD: np.mod,
    Op.MIN: np.minimum, Op.MAX: np.maximum, Op.CMPLT: np.less, Op.CMPNE: np.not_equal,
    Op.AND: np.logical_and}


@dataclass(frozen=True)
class Locality:
    """Per buffer, whether a kernel's loads read a cache line or more away from the same load of
    the item to the right, and of the item below (index values taken as 0)."""

    far: dict[str, tuple[bool, bool]]
    counted: dict[tuple, dict[str, int]] = field(default_factory=dict, compare=False, repr=False)
    """features' per-item counts, by (effects, unrolled, branches, strips): the planner costs a
    built candidate with and without a stride, which changes none of them."""

    def line(self, buffer: str, strips: bool) -> bool:
        """Whether a scalar load of `buffer` moves a line per element when invocations walk
        along rows (strips: down columns)."""
        row, column = self.far.get(buffer, (False, False))
        return row and not (strips and not column)

    @property
    def any_far(self) -> bool:
        return any(row for row, _ in self.far.values())


def locality(k: Kernel, row_length: int, cols: int) -> Locality:
    """The locality of k's loads along its output's rows of `row_length` items, at the first
    item of a few blocks of `cols` items."""
    blocks = max(1, k.items // cols)
    starts = np.array(sorted({blocks * i // SAMPLES * cols for i in range(SAMPLES)}), np.int64)
    below = np.minimum(starts + row_length, k.items - 1)
    loads = [n for n in effects_order(k) if n.op is Op.LOAD]
    vals = _values(toposort([n.src[0] for n in loads]),
                   np.concatenate([starts, starts + 1, below]))
    far: dict[str, tuple[bool, bool]] = {}
    for n in loads:
        here, right, down = vals[n.src[0]].reshape(3, len(starts)) * n.data_type.itemsize
        old = far.get(n.buffer, (False, False))
        far[n.buffer] = (old[0] or bool(np.all(np.abs(right - here) >= LINE)),
                         old[1] or bool(np.all(np.abs(down - here) >= LINE)))
    return Locality(far)


def _values(nodes: list[Node], gid: np.ndarray) -> dict[Node, np.ndarray]:
    """The integer values of nodes (in topological order) for these item ids, with every value
    loaded from memory, and the step, taken as 0."""
    vals: dict[Node, np.ndarray] = {}
    zero = np.zeros_like(gid)
    for n in nodes:
        s = [vals.get(x, zero) for x in n.src]
        if n.op is Op.CONST and not isinstance(n.dtype, DataType):
            vals[n] = np.full_like(gid, n.value)
        elif n.op is Op.VAR:
            vals[n] = gid if n.variable[0] == "gid" else zero
        elif n.op is Op.PARAM:  # a generic kernel's size: taken as its largest
            vals[n] = np.full_like(gid, n.vmax)
        elif n.op in _INT:
            vals[n] = _INT[n.op](s[0], s[1]).astype(np.int64)
        elif n.op is Op.WHERE:
            vals[n] = np.where(s[0], s[1], s[2])
        else:  # loaded: an index value, a lane of one, its normalized form
            vals[n] = zero
    return vals


def executed(k: Kernel, branches: frozenset[Node]) -> list[Node]:
    """The nodes one item of k runs on its expected path: a select that branches runs its
    condition and its first side."""
    seen: set[Node] = set()
    stack = list(k.effects)
    while stack:
        n = stack.pop()
        if n not in seen:
            seen.add(n)
            stack.extend(n.src[:2] if n in branches else n.src)
    return list(seen)


def features(k: Kernel, piece: Piece, where: Locality) -> dict[str, float]:
    """What dispatch k (built as `piece` says) runs, counted as WEIGHTS names it."""
    strips = piece.items.kind == STRIPS
    key = (k.effects, k.unrolled, piece.branches, strips)
    per_item = where.counted.get(key)
    if per_item is None:
        per_item = where.counted[key] = _per_item(k, piece.branches, strips, where)
    invocations = -(-k.items // piece.stride)
    return {"dispatches": 1.0, "invocations": float(invocations), "items": float(k.items),
            "loop": float(k.items * (k.steps - 1)),
            **{name: x * k.items * k.steps for name, x in per_item.items()}}


_KIND = {id(op): ("load" if op in (Op.LOAD, Op.VLOAD) else "store" if op in BUFFER_OPS else
                  "" if op in (Op.CONST, Op.VAR) else "op") for op in Op}
"""What _per_item counts a node of each op (by id: an enum's hash is Python-level) as."""


def _per_item(k: Kernel, branches: bool, strips: bool, where: Locality) -> dict[str, int]:
    """What one item of k runs: memory accesses, lines, branches and other ops."""
    selects = vector_selects(effects_order(k)) if branches else frozenset()
    counts = dict.fromkeys(("load", "store", "op", ""), 0)
    lines = taken = 0
    # (one pass, each node's kind looked up once; with no select branching, every node runs)
    for n in executed(k, selects) if selects else effects_order(k):
        kind = _KIND[id(n.op)]
        if n in selects:
            taken += 1
            kind = ""
        counts[kind] += 1
        if n.op is Op.LOAD:
            lines += where.line(n.buffer, strips)
    return {"loads": counts["load"], "stores": counts["store"],
            "gathers": lines if k.unrolled > 1 else 0, "lines": lines,
            "branches": taken, "ops": counts["op"]}


def bound(k: Kernel, piece: Piece) -> Cost:
    """A lower bound of the cost of dispatch k (not yet mapped) run as `piece` says: what its
    item map alone decides (dispatches, invocations, items, loop), before it is built."""
    items = k.items // piece.items.count
    invocations = -(-items // piece.stride)
    counted = {"dispatches": 1.0, "invocations": float(invocations), "items": float(items),
               "loop": float(items * (k.steps - 1))}
    terms = {name: WEIGHTS[name] * x for name, x in counted.items()}
    return Cost(sum(terms.values()), tuple(terms.items()))


def cost(kernels: list[tuple[Kernel, Piece]], where: Locality) -> Cost:
    """The cost of a candidate's dispatches: each built kernel with the piece it carries out
    (its IR before legalize; its stride and branches are the piece's)."""
    terms = dict.fromkeys(WEIGHTS, 0.0)
    for k, piece in kernels:
        for name, x in features(k, piece, where).items():
            terms[name] += WEIGHTS[name] * x
    return Cost(sum(terms.values()), tuple(terms.items()))


_WEIGHT = {key: {"load": WEIGHTS["loads"], "store": WEIGHTS["stores"], "op": WEIGHTS["ops"],
                  "": 0.0}[kind] for key, kind in _KIND.items()}
"""The weight of a node of each op (by id) as Floor counts it (no lines, no branches)."""


class Floor:
    """A lower bound of what a kernel that unroll.py builds copy by copy costs per item
    (features' loads, stores, branches and ops, weighted), from the copies built so far: `add`
    each copy's roots, the nodes it keeps whatever happens to the rest (unroll.py: a store
    value, not the store nor its address, which a combined vector store drops). The built
    kernel's nodes include the ones counted, so its counts are no less, with or without
    branches (a select between loaded vectors is one by its own operands: vector_selects).
    Lines and gathers are left out (they are >= 0)."""

    def __init__(self) -> None:
        self._all: set[Node] = set()
        self._run: set[Node] = set()
        self._loaded: dict[Node, bool] = {}
        self._every = 0.0  # no select branches: every node runs
        self._taken = 0.0  # selects between loaded vectors branch: the expected path

    def add(self, roots: list[Node]) -> float:
        """Count these roots' nodes too; the bound per item so far."""
        weight = _WEIGHT
        seen, stack = self._all, list(roots)
        every = self._every
        while stack:
            n = stack.pop()
            if n not in seen:
                seen.add(n)
                every += weight[id(n.op)]
                stack.extend(n.src)
        self._every = every
        seen, stack = self._run, list(roots)
        taken, where, vec16 = self._taken, Op.WHERE, VType.VEC16
        while stack:
            n = stack.pop()
            if n not in seen:
                seen.add(n)
                if n.op is where and n.dtype is vec16 and self._loads(n):
                    taken += WEIGHTS["branches"]
                    stack.extend(n.src[:2])
                else:
                    taken += weight[id(n.op)]
                    stack.extend(n.src)
        self._taken = taken
        return min(every, taken)

    def _loads(self, root: Node) -> bool:
        """Whether root depends on a loaded value (vector_selects' `loaded`)."""
        memo = self._loaded
        stack = [root]
        while stack:
            n = stack[-1]
            if n in memo:
                stack.pop()
                continue
            if n.op in (Op.LOAD, Op.VLOAD):
                memo[n] = True
                stack.pop()
                continue
            todo = [s for s in n.src if s not in memo]
            if todo:
                stack.extend(todo)
                continue
            memo[n] = any(memo[s] for s in n.src)
            stack.pop()
        return memo[root]
