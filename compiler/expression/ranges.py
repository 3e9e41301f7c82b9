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

from ..descriptors import ExpressionDesc
from ..ir import build as b
from ..ir.algebra import ALL_RULES
from ..ir.ops import Node
from ..ir.rewrite import fold
from . import tree as E

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


def affine_subscripts(body: E.Load) -> list[tuple[E.Load, int, E.Expr]]:
    """(load, dimension, subscript) of every subscript that is index arithmetic (not a loaded
    index), in the body and inside the subscripts of index loads."""
    return [(n, k, s) for n in E.walk(body) if isinstance(n, E.Load)
            for k, s in enumerate(n.subscripts) if not isinstance(s, E.IndexValue)]


def infer_extents(desc: ExpressionDesc, on_missing: Callable[[str], Exception]) -> dict[str, int]:
    """Each index variable's extent: the tightest bound among subscripts that use it alone."""
    tensors = dict(desc.tensors)
    best: dict[str, int] = {}
    for load, k, sub in affine_subscripts(desc.body):
        names = E.variables(sub)
        if len(names) != 1 or any(isinstance(n, (E.Load, E.IndexValue)) for n in E.walk(sub)):
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
                 ) -> tuple[E.Load, int, E.Expr, tuple[int, int]] | None:
    """The first subscript whose proven range leaves its dimension, with that range."""
    tensors = dict(desc.tensors)
    for load, k, sub in affine_subscripts(desc.body):
        lo, hi = bounds(sub, extents)
        if lo < 0 or hi >= tensors[load.tensor].sizes[k]:
            return load, k, sub, (lo, hi)
    return None
