"""Structural helpers the rewrite rules (ir/algebra.py) and the passes' address proofs share:
a sum's constant tail, a product's constant factor, and the offsets a division by a constant
may peel off."""
from __future__ import annotations

import math

from .build import add
from .ops import Node, Op


def const_tail(n: Node) -> tuple[Node, int] | None:
    """(x, c) when n is x + c with a constant c (canonical sums keep constants outermost)."""
    if n.op is Op.ADD and n.src[1].is_const:
        return n.src[0], n.src[1].value
    return None


def scaled(n: Node) -> tuple[Node, int]:
    """(u, k) with n == u * k for a constant k (k = 1 when n is not a product)."""
    if n.op is Op.MUL and n.src[1].is_const:
        return n.src[0], n.src[1].value
    return n, 1


def mul_by(a: Node) -> int:
    """a's positive constant factor when a = x * c, else 0."""
    if a.op is Op.MUL and a.src[1].is_const and a.src[1].value > 0:
        return a.src[1].value
    return 0


def small_offset(a: Node, d: int) -> tuple[Node, int] | None:
    """(x, c) when a = x + c with m | x, m | d and 0 <= c < m for some m."""
    t = const_tail(a)
    return t if t and 0 <= t[1] < math.gcd(t[0].divisor, d) else None


def negative_offset(a: Node, d: int) -> tuple[Node, int] | None:
    """(x + (c - r), r) when a = x + c with c < 0, m | x, m | d, r = c mod m > 0: the remainder
    that never carries, peeled off (vector lanes x + c + j then share x + (c - r))."""
    t = const_tail(a)
    if not t or t[1] >= 0:
        return None
    r = t[1] % math.gcd(t[0].divisor, d)
    return (add(t[0], t[1] - r), r) if r else None


def big_offset(a: Node, d: int) -> tuple[Node, int] | None:
    """(x, c) when a = x + c with c >= d: whole multiples of d leave the division (a tile's
    items sit whole rows apart, so their offsets outgrow the row length)."""
    t = const_tail(a)
    return t if t and t[1] >= d else None
