"""The range facts of tensor expressions: what a subscript's values can be.

A subscript that is index arithmetic becomes IR over the index variables (each in [0, extent)),
simplified under SUBSCRIPT_RULES; its node's value range is what validation proves in range and
what infers the output's shape (the largest extent of each index for which its subscripts stay
in range). Lowering builds each subscript with the same function, then puts the output's
coordinates (of the same ranges) in place of the variables, so every range validation proved is
the range the verifier sees.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

from ...ir import build as b
from ...ir.algebra import ALL_RULES
from ...ir.ops import Node
from ...ir.rewrite import fold
from . import tree as E
from .desc import ExpressionDesc

MAX_EXTENT = 2**31 - 1
SUBSCRIPT_RULES = ALL_RULES
"""The rules under which validation proves a subscript in range and lowering builds it."""


def subscript(e: E.Expr, env: Mapping[str, Node]) -> Node:
    """The IR of index arithmetic `e` (no loads), its variables bound to the nodes in env,
    simplified under SUBSCRIPT_RULES."""
    def go(x: E.Expr) -> Node:
        if isinstance(x, E.Const):
            return b.const(x.value)
        if isinstance(x, E.Var):
            return env[x.name]
        if isinstance(x, E.Add):
            return b.add(go(x.a), go(x.b))
        if isinstance(x, E.Mul):
            return b.mul(go(x.a), x.factor)
        if isinstance(x, E.FloorDiv):
            return b.floordiv(go(x.a), x.divisor)
        if isinstance(x, E.Mod):
            return b.floormod(go(x.a), x.divisor)
        raise TypeError(f"not index arithmetic: {E.render(x)}")
    return fold(go(e), SUBSCRIPT_RULES)


def index_variables(extents: Mapping[str, int]) -> dict[str, Node]:
    """Each index variable as an IR variable over [0, extent)."""
    return {v: b.var(v, 0, n - 1) for v, n in extents.items()}


def bounds(e: E.Expr, extents: Mapping[str, int]) -> tuple[int, int]:
    """The range of subscript `e` for index variables over [0, extent)."""
    return subscript(e, index_variables(extents)).bounds


def largest_extent(e: E.Expr, var: str, size: int) -> int:
    """The largest n such that e stays in [0, size) for var in [0, n); 0 if none."""
    def fits(n: int) -> bool:
        lo, hi = bounds(e, {var: n})
        return lo >= 0 and hi < size
    if not fits(1):
        return 0
    lo, hi = 1, MAX_EXTENT  # fits(lo) holds; find the largest
    if fits(hi):
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


Facts = dict[str, tuple[int, int]]
"""What the conditions above a read say of index variables: v in [lo, hi]."""
UNREACHABLE = "<unreachable>"
"""The fact of a condition no element meets (an empty range: the read is never made)."""


def facts(cond: E.Expr, holds: bool) -> Facts:
    """The bounds on index variables that `cond` holding (or not) implies: from comparisons
    whose two sides differ by m*v + c (one variable, affine: `2*j + 1 < 7`, `i >= 2`), and
    from every part of an && that holds. Other conditions imply nothing here (the reads under
    them must then be in range everywhere)."""
    if isinstance(cond, E.And):
        if not holds:
            return {}
        return meet(facts(cond.a, True), facts(cond.b, True))
    if not isinstance(cond, E.Compare):
        return {}
    op = cond.op if holds else {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=",
                                "!=": "=="}[cond.op]
    diff = E.Add(cond.a, E.Mul(cond.b, -1))  # cond is `diff op 0`
    names = E.variables(diff)
    if not names and not any(isinstance(n, (E.Load, E.IndexValue)) for n in E.walk(diff)):
        value = subscript(diff, {}).vmin  # decided: a side no element takes is unreachable
        decided = {"<": value < 0, "<=": value <= 0, ">": value > 0, ">=": value >= 0,
                   "==": value == 0, "!=": value != 0}[op]
        return {} if decided else {UNREACHABLE: (1, 0)}
    if len(names) != 1 or any(isinstance(n, (E.FloorDiv, E.Mod, E.Load, E.IndexValue))
                              for n in E.walk(diff)):
        return {}
    (v,) = names
    c = subscript(diff, {v: b.const(0)}).vmin
    m = subscript(diff, {v: b.const(1)}).vmin - c
    if m == 0:
        return {}
    # m*v + c <= t  or  >= t, for integers
    below = {"<": -1, "<=": 0, "==": 0}.get(op)
    above = {">": 1, ">=": 0, "==": 0}.get(op)
    lo, hi = -MAX_EXTENT, MAX_EXTENT
    for t, is_upper in ((below, True), (above, False)):
        if t is None:
            continue
        q = t - c  # m*v <= q (upper) or m*v >= q
        floor_, ceil_ = q // m, -(-q // m)
        if (m > 0) == is_upper:
            hi = min(hi, floor_)
        else:
            lo = max(lo, ceil_)
    return {v: (lo, hi)}


def meet(a: Facts, b: Facts) -> Facts:
    out = dict(a)
    for v, (lo, hi) in b.items():
        old = out.get(v, (lo, hi))
        out[v] = (max(old[0], lo), min(old[1], hi))
    return out


def guarded_loads(body: E.Expr, known: Facts | None = None) -> list[tuple[E.Load, Facts]]:
    """Every read of the body (index reads inside subscripts too), with what the conditions
    of the selects above it say of the index variables."""
    known = known or {}
    if isinstance(body, E.Select):  # a condition's reads happen whichever side it picks
        return ([(n, known) for n in E.walk(body.cond) if isinstance(n, E.Load)]
                + guarded_loads(body.then, meet(known, facts(body.cond, True)))
                + guarded_loads(body.other, meet(known, facts(body.cond, False))))
    return [(n, known) for n in E.walk(body) if isinstance(n, E.Load)]


def affine_subscripts(body: E.Expr) -> list[tuple[E.Load, int, E.Expr, Facts]]:
    """(load, dimension, subscript, facts) of every subscript that is index arithmetic (not a
    loaded index), in the body and inside the subscripts of index loads."""
    return [(n, k, s, known) for n, known in guarded_loads(body)
            for k, s in enumerate(n.subscripts) if not isinstance(s, E.IndexValue)]


def infer_extents(desc: ExpressionDesc, on_missing: Callable[[str], Exception]) -> dict[str, int]:
    """Each index variable's extent: the tightest bound among subscripts that use it alone
    (outside any where(): a read on one side of a choice need not span the output)."""
    tensors = dict(desc.tensors)
    best: dict[str, int] = {}
    for load, k, sub, known in affine_subscripts(desc.body):
        names = E.variables(sub)
        if known or isinstance(desc.body, E.Select) or len(names) != 1 or any(
                isinstance(n, (E.Load, E.IndexValue)) for n in E.walk(sub)):
            continue
        (v,) = names
        n = largest_extent(sub, v, tensors[load.tensor].sizes[k])
        if n > 0:
            best[v] = min(best.get(v, n), n)
    for v in desc.index_vars:
        if v not in best:
            raise on_missing(v)
    return {v: best[v] for v in desc.index_vars}


def out_of_range(desc: ExpressionDesc, extents: Mapping[str, int]
                 ) -> tuple[E.Load, int, E.Expr, tuple[int, int], Facts] | None:
    """The first subscript whose proven range leaves its dimension, with that range and the
    index variables' ranges it was proven over (narrowed by the selects above it). A read that
    no element can reach (its conditions contradict) is not checked."""
    tensors = dict(desc.tensors)
    for load, k, sub, known in affine_subscripts(desc.body):
        ranges = meet({v: (0, n - 1) for v, n in extents.items()}, known)
        if any(lo > hi for lo, hi in ranges.values()):
            continue
        lo, hi = subscript(sub, {v: b.var(v, lo_, hi_) for v, (lo_, hi_)
                                 in ranges.items()}).bounds
        if lo < 0 or hi >= tensors[load.tensor].sizes[k]:
            return load, k, sub, (lo, hi), ranges
    return None
