"""Address and lane analysis shared by vectorize and unroll: which addresses form an aligned
run of a 16-byte vector, which lane of which vector an address is, and where a kernel's loads
read for given items. Every proof is structural, under the rule set the caller names:
an address must be the very node those rules simplify the claimed form to.
"""
from __future__ import annotations

from ..dtypes import DataType
from ..ir import Node, Program
from ..ir import build as b
from ..ir.algebra import RuleSet
from ..ir.ops import toposort
from ..ir.rewrite import fold, substitute
from ..ir.terms import const_tail


def aligned_start(addresses: list[Node], width: int, rules: RuleSet) -> Node | None:
    """addresses[0] when the addresses are addresses[0] + 0, 1, 2, ... and addresses[0] is a
    multiple of `width` (whole aligned vectors). The proof is structural: each address must be
    the very node that `rules` simplify addresses[0] + j to."""
    first = addresses[0]
    if first.divisor % width or any(a is not fold(b.add(first, j), rules)
                                    for j, a in enumerate(addresses)):
        return None
    return first


def vector_lane(address: Node, dtype: DataType, count: int,
                rules: RuleSet) -> tuple[Node, int] | None:
    """(start, lane) when the 32/64-bit element at `address` is lane `lane` of the aligned
    16-byte vector at element `start`, proven from the address's form x + c (x a multiple of the
    vector width) and with the whole vector inside a binding of `count` elements (a buffer's
    elements and the padding of its last vector: ir.Buffer.words)."""
    width = b.vector_width(dtype)
    if dtype.bits < 32:
        return None
    x, c = const_tail(address) or (address, 0)
    if x.divisor % width:
        return None
    start = fold(b.add(x, c - c % width), rules)
    if start.vmin < 0 or start.vmax + width > count:
        return None
    return start, c % width


def load_lanes(load: Node, gid: Node, starts: list[Node], memos: list[dict[Node, Node]],
               p: Program, rules: RuleSet) -> list[tuple[Node, int]] | None:
    """(vector start, lane) of a LOAD's address at each item of `starts` (its gid replaced by
    each, simplified under `rules`), or None unless every one is a lane of an aligned vector
    inside the buffer's binding (vector_lane). The addresses are built item by item, up to the
    first that is not a lane; memos: per item, substitute's memo (shared by the loads)."""
    count = p.buffer(load.buffer).padded_count
    order = toposort([load.src[0]])  # one walk for every item (what a memo holds is skipped)
    lanes = []
    for s, memo in zip(starts, memos):
        address = substitute([load.src[0]], {gid: s}, rules, order, memo)[0]
        lane = vector_lane(address, load.data_type, count, rules)
        if lane is None:
            return None
        lanes.append(lane)
    return lanes
