"""Vectors through selects: `out[gid] = c ? in0[A0(gid)] : in1[A1(gid)]` (join, split, and any
piecewise lowering) moved 16 bytes per item.

A vector of lanes gid = V*g + j (j < V) may take a select's branch as a whole when its condition
is lane-uniform: `x < s` where every lane's x is lane 0's (the same node), or is lane 0's x + j
with lane 0's x a multiple of V and s one too (then x + j < s exactly when x < s). Inside the
branch the path's conditions bound x, and the address, simplified with x narrowed to those
bounds, loses the clamps the lowering put there to keep every lane in its buffer; that address
must then be an aligned run (alignment.aligned_start). The vector is loaded whichever branch is
taken, so its start is clamped into the buffer's binding (a no-op on the branch's own path, which is
proven in bounds there). A load through a select of addresses (split's) is a select of loads;
so is a load whose address selects inside it (padding's mirrors): the select is hoisted out.

Two uniform branches that differ only in where they load (a mirror's rows) become one vector
whose loads select their address: no branch, one load. Where lanes may decide a condition
differently (padding's columns, one-hot's classes), in this order:
- every lane's condition is a constant (a part of passes/partition.py at an edge): each lane
  comes from its own branch's vector;
- the element is one load whose address is index arithmetic of gid (padding's mirrors): each
  lane is picked from the two aligned vectors at the lowest lane address when every lane lies
  there (checked as it runs), else loaded on its own (window);
- one branch loads nothing (padding's constant): a select per lane between the two vectors, no
  branch (a lane whose condition holds reads its own element: the path's facts hold for it);
- else: all lanes true takes one branch's vector, all false the other's, and a vector whose
  lanes disagree computes each lane as the element it is.
A branch's load may be a run that starts off a vector boundary: its lanes come from the two
aligned vectors it spans, each loaded with its start clamped into the binding (a no-op for a
vector whose lanes are used: those lanes are in the buffer).
"""
from __future__ import annotations

from ..dtypes import DataType
from ..ir import Buffer, Node, Program
from ..ir import build as b
from ..ir.algebra import RuleSet
from ..ir.ops import Op, VType, const_bool, const_data, toposort, var
from ..ir.rewrite import fold, substitute
from ..ir.terms import const_tail
from .alignment import aligned_start

Path = tuple[tuple[Node, int, int], ...]
"""Facts (x, lo, hi): on this branch x lies in [lo, hi] (the conditions above it)."""


class VectorSelect:
    def __init__(self, p: Program, gid: Node, first: Node, width: int, rules: RuleSet) -> None:
        """first: the element (gid) of the vector's lane 0, a multiple of width."""
        self.p, self.gid, self.first, self.width, self.rules = p, gid, first, width, rules
        self.lane_cache: list[dict[Node, Node]] = [{} for _ in range(width)]
        """Per lane j: every node substituted so far -> that node in lane j (asked for again
        and again, and the nodes asked for share most of what they are built of)."""

    def lane(self, n: Node, j: int) -> Node:
        """n in the vector's lane j."""
        cache = self.lane_cache[j]
        found = cache.get(n)
        if found is None:
            found = substitute([n], {self.gid: b.add(self.first, j)}, self.rules,
                               memo=cache)[0]
        return found

    def facts(self, cond: Node) -> tuple[Path, Path, bool] | None:
        """What cond's being true, and false, tells of the values it compares, and whether
        every lane of a vector decides it as lane 0 does (None where cond is not `x < s` or
        `s < x` with s a constant, or an AND of such conditions)."""
        if cond.op is Op.AND:
            a, c = self.facts(cond.src[0]), self.facts(cond.src[1])
            return None if a is None or c is None else ((*a[0], *c[0]), (), a[2] and c[2])
        if cond.op is not Op.CMPLT:
            return None
        left, right = cond.src
        if right.is_const:  # x < s: true below s
            x, s = left, right.value
            edge, below, above = s, (x, x.vmin, s - 1), (x, s, x.vmax)
            true, false = below, above
        elif left.is_const:  # s < x: true from s + 1
            x, s = right, left.value
            edge, below, above = s + 1, (x, x.vmin, s), (x, s + 1, x.vmax)
            true, false = above, below
        else:
            return None
        lanes = [self.lane(x, j) for j in range(self.width)]
        same = all(x_j is lanes[0] for x_j in lanes)
        # x + j crosses the edge only between vectors when x (lane 0) and the edge are
        # multiples of the width.
        aligned = edge % self.width == 0 and lanes[0].divisor % self.width == 0 and all(
            x_j is fold(b.add(lanes[0], j), self.rules) for j, x_j in enumerate(lanes))
        return (true,), (false,), same or aligned

    def vector(self, n: Node, path: Path = ()) -> Node | None:
        """The VEC16 of lanes V*g .. V*g + V-1 of the element value n, or None."""
        if n.op is Op.WHERE:
            return self.select(n.src[0], n.src[1], n.src[2], path, n)
        if n.op is Op.CONST and isinstance(n.dtype, DataType):  # the same element in every lane
            if n.dtype.bits >= 32:
                return b.vpack([n] * self.width)
            bits = n.dtype.bits
            element = n.value & ((1 << bits) - 1)
            word = sum(element << (k * bits) for k in range(32 // bits))
            return b.vpack([const_data(DataType.UINT32, word)] * 4)
        if n.op is not Op.LOAD:
            return None
        buf, address = self.p.buffer(n.buffer), n.src[0]
        selects = [x for x in toposort([address]) if x.op is Op.WHERE]
        if selects:  # in[f(c ? a : d)] = c ? in[f(a)] : in[f(d)], the outermost select first
            c, a, d = selects[-1].src
            hoisted = [substitute([address], {selects[-1]: x}, self.rules)[0] for x in (a, d)]
            return self.select(c, b.load(buf, hoisted[0]), b.load(buf, hoisted[1]), path, n)
        address = self.narrowed(address, path)
        vec = self.contiguous_load(buf, address, clamped=bool(path))  # loaded on every branch
        if vec is not None:
            return vec
        return self.spanned(buf, [self.lane(address, j) for j in range(self.width)])

    def contiguous_load(self, buf: Buffer, address: Node, clamped: bool = False) -> Node | None:
        """The vector at `address` when its lanes read an aligned run, forward or reversed
        (loaded forward, reversed in registers); clamped: its start kept inside the binding."""
        lanes = [self.lane(address, j) for j in range(self.width)]
        forward = aligned_start(lanes, self.width, self.rules)
        backward = None if forward is not None else aligned_start(lanes[::-1], self.width,
                                                                  self.rules)
        first = forward if forward is not None else backward
        if first is None:
            return None
        if clamped:
            first = b.clamp(first, 0, buf.padded_count - self.width)
        vec = b.vload(buf.name, first)
        return vec if forward is not None else b.reverse(vec, buf.dtype.itemsize)

    def select(self, cond: Node, taken: Node, other: Node, path: Path,
               element: Node) -> Node | None:
        """The vector of `cond ? taken : other`, whose lanes are those of `element`."""
        conds = [self.lane(cond, j) for j in range(self.width)]
        if all(c.is_const for c in conds):  # each lane's branch known (a partition's edge)
            return self.known(cond, conds, taken, other, path)
        decided = self.facts(cond)
        if decided is None or not decided[2]:
            near = self.window(element)
            if near is not None:
                return near
        true, false = decided[:2] if decided else ((), ())
        vec_taken = self.vector(taken, (*path, *true))
        vec_other = self.vector(other, (*path, *false))
        if decided is not None and decided[2]:  # every lane decides as lane 0
            if vec_taken is None or vec_other is None:
                return None
            c = self.lane(cond, 0)
            return _same_shape(c, vec_taken, vec_other) or b.where(c, vec_taken, vec_other)
        mixed = self.packed([self.lane(element, j) for j in range(self.width)])
        if mixed is None:
            return None
        if not any(_loads_vectors(v) for v in (vec_taken, vec_other) if v):
            # no branch loads vectors: lane by lane, worth it where the lanes share loads
            # (one-hot's index) or load nothing
            loads = sum(x.op is Op.LOAD for x in toposort([element]))
            shared = sum(x.op is Op.LOAD for x in toposort([mixed]))
            return mixed if shared < self.width * loads or not loads else None
        dtype = element.dtype
        if (vec_taken is not None and vec_other is not None and isinstance(dtype, DataType)
                and dtype.bits >= 32
                and not (_loads_vectors(vec_taken) and _loads_vectors(vec_other))):
            # one side loads nothing (padding's constant): lane by lane from both vectors, no
            # branch (a lane whose condition holds reads its own element: the path's facts hold
            # for it)
            return b.vpack([fold(b.where(c, _lane(vec_taken, dtype, j), _lane(vec_other, dtype, j)),
                                 self.rules) for j, c in enumerate(conds)])
        if vec_other is not None:
            mixed = b.where(fold(b.all_of([_not(c) for c in conds]), self.rules), vec_other, mixed)
        if vec_taken is not None:
            mixed = b.where(fold(b.all_of(conds), self.rules), vec_taken, mixed)
        return fold(mixed, self.rules)

    def known(self, cond: Node, conds: list[Node], taken: Node, other: Node,
              path: Path) -> Node | None:
        """The vector of `cond ? taken : other` where each lane's condition is a constant."""
        decided = self.facts(cond)
        true, false = decided[:2] if decided else ((), ())
        if all(c.arg for c in conds):
            return self.vector(taken, (*path, *true))
        if not any(c.arg for c in conds):
            return self.vector(other, (*path, *false))
        vec_taken = self.vector(taken, (*path, *true))
        vec_other = self.vector(other, (*path, *false))
        dtype = taken.dtype
        if (vec_taken is None or vec_other is None or not isinstance(dtype, DataType)
                or dtype.bits < 32):
            return None
        return b.vpack([_lane(vec_taken if c.arg else vec_other, dtype, j)
                        for j, c in enumerate(conds)])

    def window(self, element: Node) -> Node | None:
        """A load whose lanes' addresses (index arithmetic of gid alone, each lane its own:
        padding's mirrors) are proven nothing about: where they all lie in the two aligned
        vectors from the lowest one (checked as it runs), each lane picked from those, else
        each loaded on its own. Only 32/64-bit elements."""
        if element.op is not Op.LOAD or element.data_type.bits < 32:
            return None
        if any(x.op in (Op.LOAD, Op.INDEX) for x in toposort([element.src[0]])):
            return None  # data-dependent addresses rarely meet: the check would only cost
        buf, w = self.p.buffer(element.buffer), self.width
        addresses = [self.lane(element.src[0], j) for j in range(w)]
        lowest = addresses[0]
        for a in addresses[1:]:
            lowest = b.minimum(lowest, a)
        base = fold(b.mul(b.floordiv(lowest, w), w), self.rules)
        # lanes at or past base + w exist only where base + w is in the buffer: the clamp never
        # moves a vector that is read
        second = fold(b.minimum(b.add(base, w), buf.padded_count - w), self.rules)
        elements = [b.vextract(v, buf.dtype, k) for v in (b.vload(buf.name, base),
                                                          b.vload(buf.name, second))
                    for k in range(w)]
        offsets = [fold(b.sub(a, base), self.rules) for a in addresses]
        inside = b.all_of([b.less(o, 2 * w) for o in offsets])
        picked = b.vpack([_pick(elements, o, 0, 2 * w) for o in offsets])
        alone = self.packed([self.lane(element, j) for j in range(w)])
        return None if alone is None else b.where(fold(inside, self.rules), picked, alone)

    def packed(self, elements: list[Node]) -> Node | None:
        """A vector of these lanes (8/16-bit elements packed into words)."""
        dtype = elements[0].dtype
        if not isinstance(dtype, DataType):
            return None
        return b.vpack_lanes(elements)

    def spanned(self, buf: Buffer, lanes: list[Node]) -> Node | None:
        """The vector of 32/64-bit elements at addresses `lanes`, when they lie in at most two
        aligned vectors (a run that starts off a vector boundary, or pairs of runs): x + c_j
        with one x, a multiple of the width. Each vector's start is clamped into the binding."""
        if buf.dtype.bits < 32:
            return None
        tails = [const_tail(a) or (a, 0) for a in lanes]
        x = tails[0][0]
        if x.divisor % self.width or any(t[0] is not x for t in tails):
            return None
        starts = sorted({c - c % self.width for _, c in tails})
        if len(starts) > 2:
            return None
        top = buf.padded_count - self.width
        vectors = {s: b.vload(buf.name, fold(b.clamp(b.add(x, s), 0, top), self.rules))
                   for s in starts}
        return b.vpack([b.vextract(vectors[c - c % self.width], buf.dtype, c % self.width)
                        for _, c in tails])

    def narrowed(self, address: Node, path: Path) -> Node:
        """`address` simplified with each x of the path bounded as the path says (all its
        facts about x at once), then written in x again: equal to `address` wherever the path
        holds. A fact about x = y + c is one about y too (an address may hold y, not x: a
        mirror's -x). Remembered: the parts of a row and the whole kernel narrow the same
        element's addresses (pad reflect: 15 narrowings, 9 of them distinct)."""
        key = (address, path, self.rules)
        hit = _NARROWED.get(key)
        if hit is None:
            hit = _NARROWED[key] = _narrowed(address, path, self.rules)
            if len(_NARROWED) >= 1024:
                _NARROWED.clear()
        return hit


_NARROWED: dict[tuple, Node] = {}
"""VectorSelect.narrowed's results by (address, path, rules) (nodes are interned and immutable,
and the key holds them)."""


def clear_memo() -> None:
    """Forget the narrowed addresses."""
    _NARROWED.clear()


def _narrowed(address: Node, path: Path, rules: RuleSet) -> Node:
    bounds: dict[Node, tuple[int, int]] = {}
    for x, lo, hi in path:
        while True:
            old = bounds.get(x, (x.vmin, x.vmax))
            bounds[x] = (max(old[0], lo), min(old[1], hi))
            tail = const_tail(x)
            if tail is None:
                break
            x, lo, hi = tail[0], lo - tail[1], hi - tail[1]
    for k, (x, (lo, hi)) in enumerate(bounds.items()):
        if (lo, hi) == (x.vmin, x.vmax) or lo > hi:
            continue
        t = var(f"narrowed{k}", lo, hi)
        inner = substitute([address], {x: t}, rules)[0]
        address = substitute([inner], {t: x}, rules)[0]
    return address


def _loads_vectors(vec: Node) -> bool:
    return any(x.op is Op.VLOAD for x in toposort([vec]))


def _lane(vec: Node, dtype: DataType, j: int) -> Node:
    return vec.src[j] if vec.op is Op.VPACK else b.vextract(vec, dtype, j)


def _same_shape(cond: Node, a: Node, d: Node) -> Node | None:
    """`cond ? a : d` as one vector whose loads select their address, where a and d are the
    same computation but for the addresses of their loads (a mirror's rows): no branch, and one
    load where there were two."""
    if a is d:
        return a
    if a.op is not d.op or a.arg != d.arg or len(a.src) != len(d.src):
        return None
    if a.op is Op.VLOAD:
        return b.vload(a.buffer, b.where(cond, a.src[0], d.src[0]))
    if a.op not in (Op.VPACK, Op.VEXTRACT, Op.REVERSE):
        return None
    srcs = []
    for x, y in zip(a.src, d.src):
        same = _same_shape(cond, x, y)
        if same is None:
            return None
        srcs.append(same)
    return Node(a.op, a.dtype, tuple(srcs), a.arg)


def _pick(elements: list[Node], offset: Node, lo: int, hi: int) -> Node:
    """elements[offset] for an offset in [lo, hi): a tree of selects."""
    if hi - lo == 1:
        return elements[lo]
    mid = (lo + hi) // 2
    return b.where(b.less(offset, mid), _pick(elements, offset, lo, mid),
                   _pick(elements, offset, mid, hi))


def _not(cond: Node) -> Node:
    return b.where(cond, const_bool(False), const_bool(True))


def vector_value(value: Node, p: Program, gid: Node, first: Node, width: int,
                 rules: RuleSet) -> Node | None:
    """The vector of lanes first .. first + width - 1 of an element value (loads, selects,
    constants), or None when any part is not proven. A load is first tried as a run of its
    whole address (selects in it may fold away in the lanes: a partition's steady part)."""
    if value.dtype is VType.VEC16:
        return None
    selector = VectorSelect(p, gid, first, width, rules)
    if value.op is Op.LOAD:
        vec = selector.contiguous_load(p.buffer(value.buffer), value.src[0])
        if vec is not None:
            return vec
    return selector.vector(value)
