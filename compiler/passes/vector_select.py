"""Vectors through selects: `out[gid] = c ? in0[A0(gid)] : in1[A1(gid)]` (join, split, and any
piecewise lowering) moved 16 bytes per item.

A vector of lanes gid = V*g + j (j < V) may take a select's branch as a whole when its condition
is lane-uniform: `x < s` where every lane's x is lane 0's (the same node), or is lane 0's x + j
with lane 0's x a multiple of V and s one too (then x + j < s exactly when x < s). Inside the
branch the path's conditions bound x, and the address, simplified with x narrowed to those
bounds, loses the clamps the lowering put there to keep every lane in its buffer; that address
must then be an aligned run (lanes.aligned_run). The vector is loaded whichever branch is taken,
so its start is clamped into the buffer's binding (a no-op on the branch's own path, which is
proven in bounds there). A load through a select of addresses (split's) is a select of loads.
"""
from __future__ import annotations

from ..dtypes import DataType
from ..ir import Node, Program
from ..ir import build as b
from ..ir.algebra import RuleSet
from ..ir.ops import Op, VType, const_data, var
from ..ir.rewrite import fold, substitute
from .lanes import aligned_run

Path = tuple[tuple[Node, int, int], ...]
"""Facts (x, lo, hi): on this branch x lies in [lo, hi] (the conditions above it)."""


class VectorSelect:
    def __init__(self, p: Program, gid: Node, g: Node, width: int, rules: RuleSet) -> None:
        self.p, self.gid, self.g, self.width, self.rules = p, gid, g, width, rules

    def lane(self, n: Node, j: int) -> Node:
        return substitute([n], {self.gid: b.add(b.mul(self.g, self.width), j)}, self.rules)[0]

    def facts(self, cond: Node) -> tuple[Path, Path] | None:
        """What cond's being true, and false, tells of the values it compares, when every lane
        of a vector decides it as lane 0 does (None otherwise): `x < s` or `s < x` with s a
        constant, or an AND of such conditions."""
        if cond.op is Op.AND:
            a, c = self.facts(cond.src[0]), self.facts(cond.src[1])
            return None if a is None or c is None else ((*a[0], *c[0]), ())
        if cond.op is not Op.CMPLT:
            return None
        left, right = cond.src
        if right.is_const:  # x < s: true below s
            x, s = left, int(right.arg)  # type: ignore[call-overload]
            edge, below, above = s, (x, x.vmin, s - 1), (x, s, x.vmax)
            true, false = below, above
        elif left.is_const:  # s < x: true from s + 1
            x, s = right, int(left.arg)  # type: ignore[call-overload]
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
        return ((true,), (false,)) if same or aligned else None

    def vector(self, n: Node, path: Path = ()) -> Node | None:
        """The VEC16 of lanes V*g .. V*g + V-1 of the element value n, or None."""
        if n.op is Op.WHERE:
            decided = self.facts(n.src[0])
            if decided is None:
                return None
            taken = self.vector(n.src[1], (*path, *decided[0]))
            other = self.vector(n.src[2], (*path, *decided[1]))
            if taken is None or other is None:
                return None
            return b.where(self.lane(n.src[0], 0), taken, other)
        if n.op is Op.CONST and isinstance(n.dtype, DataType):  # the same element in every lane
            if n.dtype.bits >= 32:
                return b.vpack([n] * self.width)
            bits = n.dtype.bits
            element = int(n.arg) & ((1 << bits) - 1)  # type: ignore[call-overload]
            word = sum(element << (k * bits) for k in range(32 // bits))
            return b.vpack([const_data(DataType.UINT32, word)] * 4)
        if n.op is not Op.LOAD:
            return None
        buf, address = self.p.buffer(n.arg), n.src[0]  # type: ignore[arg-type]
        if address.op is Op.WHERE:  # in[c ? a : d] = c ? in[a] : in[d]
            return self.vector(b.where(address.src[0], b.load(buf, address.src[1]),
                                       b.load(buf, address.src[2])), path)
        address = self.narrowed(address, path)
        lanes = [self.lane(address, j) for j in range(self.width)]
        forward = aligned_run(lanes, self.width, self.rules)
        backward = None if forward is not None else aligned_run(lanes[::-1], self.width,
                                                                  self.rules)
        first = forward if forward is not None else backward
        if first is None:
            return None
        if path:  # loaded on every branch: kept inside the binding
            first = b.clamp(first, 0, buf.padded_count - self.width)
        vec = b.vload(buf.name, first)
        return vec if forward is not None else b.reverse(vec, buf.dtype.itemsize)

    def narrowed(self, address: Node, path: Path) -> Node:
        """`address` simplified with each x of the path bounded as the path says (all its
        facts about x at once), then written in x again: equal to `address` wherever the path
        holds."""
        bounds: dict[Node, tuple[int, int]] = {}
        for x, lo, hi in path:
            old = bounds.get(x, (x.vmin, x.vmax))
            bounds[x] = (max(old[0], lo), min(old[1], hi))
        for k, (x, (lo, hi)) in enumerate(bounds.items()):
            if (lo, hi) == (x.vmin, x.vmax) or lo > hi:
                continue
            t = var(f"narrowed{k}", lo, hi)
            inner = substitute([address], {x: t}, self.rules)[0]
            address = substitute([inner], {t: x}, self.rules)[0]
        return address


def vector_value(value: Node, p: Program, gid: Node, g: Node, width: int,
                 rules: RuleSet) -> Node | None:
    """The vectorized value of a select of loads, or None when any part is not proven."""
    if value.dtype is VType.VEC16 or value.op is not Op.WHERE and not (
            value.op is Op.LOAD and value.src[0].op is Op.WHERE):
        return None
    return VectorSelect(p, gid, g, width, rules).vector(value)
