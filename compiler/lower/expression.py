"""Tensor expressions -> IR, and the range facts their validation rests on.

Subscripts become IR index arithmetic, so the same value ranges that let the verifier prove every
address inside its buffer also infer the output's shape (the largest extent of each index for
which its subscripts stay in range) and find subscripts that can leave their tensor.

Validation and lowering build each subscript alike: over the index variables (each in
[0, extent)), simplified under SUBSCRIPT_RULES. Lowering then puts the output's coordinates in
place of the variables; their ranges are the variables' ranges, so every range validation proved
is the range the verifier sees.
"""
from __future__ import annotations

from typing import Callable, Optional

from .. import expr as E
from ..descriptors import ExpressionDesc, TensorDesc
from ..ir import Buffer, Kernel, Program
from ..ir import build as b
from ..ir.algebra import ALL_RULES, NO_RULES
from ..ir.ops import Node
from ..ir.rewrite import fold, substitute
from .common import address, tensor_buffer, unflatten

MAX_EXTENT = 2**31 - 1
SUBSCRIPT_RULES = ALL_RULES
"""The rules under which validation proves a subscript in range and lowering builds it."""


def emit(e: E.Expr, env: dict[str, Node], buffers: dict[str, Buffer],
         tensors: dict[str, TensorDesc]) -> Node:
    """The IR of `e`, its index variables bound to the nodes in env; every subscript that is
    index arithmetic simplified under SUBSCRIPT_RULES (addresses are left naive)."""
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
        if isinstance(x, E.IndexValue):
            return b.index(go(x.load), x.size, "clamp")
        if isinstance(x, E.Load):
            coords = [go(s) if isinstance(s, E.IndexValue) else fold(go(s), SUBSCRIPT_RULES)
                      for s in x.subscripts]
            return b.load(buffers[x.tensor], address(coords, tensors[x.tensor]))
        raise TypeError(x)
    return go(e)


def affine_subscripts(body: E.Load) -> list[tuple[E.Load, int, E.Expr]]:
    """(load, dimension, subscript) of every subscript that is index arithmetic (not a loaded
    index), in the body and inside the subscripts of index loads."""
    return [(n, k, s) for n in E.walk(body) if isinstance(n, E.Load)
            for k, s in enumerate(n.subscripts) if not isinstance(s, E.IndexValue)]


class RangeFacts:
    """Bounds of subscripts for index variables ranging over [0, extent)."""

    def __init__(self, desc: ExpressionDesc) -> None:
        self.tensors = dict(desc.tensors)
        self.buffers = {n: tensor_buffer(n, t, "input") for n, t in desc.tensors}

    def bounds(self, e: E.Expr, extents: dict[str, int]) -> tuple[int, int]:
        env = {v: b.var(v, 0, n - 1) for v, n in extents.items()}
        return fold(emit(e, env, self.buffers, self.tensors), SUBSCRIPT_RULES).bounds

    def largest_extent(self, e: E.Expr, var: str, size: int) -> int:
        """The largest n such that e stays in [0, size) for var in [0, n); 0 if none."""
        def fits(n: int) -> bool:
            lo, hi = self.bounds(e, {var: n})
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


def infer_extents(desc: ExpressionDesc, on_missing: Callable[[str], Exception]) -> dict[str, int]:
    """Each index variable's extent: the tightest bound among subscripts that use it alone."""
    facts = RangeFacts(desc)
    best: dict[str, int] = {}
    for load, k, sub in affine_subscripts(desc.body):
        names = E.variables(sub)
        if len(names) != 1 or any(isinstance(n, (E.Load, E.IndexValue)) for n in E.walk(sub)):
            continue
        (v,) = names
        n = facts.largest_extent(sub, v, facts.tensors[load.tensor].sizes[k])
        if n > 0:
            best[v] = min(best.get(v, n), n)
    for v in desc.index_vars:
        if v not in best:
            raise on_missing(v)
    return {v: best[v] for v in desc.index_vars}


def out_of_range(desc: ExpressionDesc, extents: dict[str, int]
                 ) -> Optional[tuple[E.Load, int, E.Expr, tuple[int, int]]]:
    """The first subscript whose proven range leaves its dimension, with that range."""
    facts = RangeFacts(desc)
    for load, k, sub in affine_subscripts(desc.body):
        lo, hi = facts.bounds(sub, extents)
        if lo < 0 or hi >= facts.tensors[load.tensor].sizes[k]:
            return load, k, sub, (lo, hi)
    return None


def lower_expression(desc: ExpressionDesc) -> Program:
    out = desc.output
    assert out is not None, "validate() first"
    used = {n.tensor for n in E.walk(desc.body) if isinstance(n, E.Load)}
    tensors = {n: t for n, t in desc.tensors if n in used}
    buffers = {n: tensor_buffer(n, t, "input") for n, t in tensors.items()}
    b_out = tensor_buffer(desc.name, out, "output")
    gid = b.item_id(out.element_count)
    env = {v: b.var(v, 0, n - 1) for v, n in zip(desc.index_vars, out.sizes)}
    coords = dict(zip(env.values(), unflatten(gid, out.sizes)))
    value = substitute([emit(desc.body, env, buffers, tensors)], coords, NO_RULES)[0]
    kernel = Kernel(desc.name, out.element_count, (b.store(b_out, gid, value),))
    return Program(desc.name, (*buffers.values(), b_out), (kernel,), tuple(buffers), desc.name,
                   out.sizes)
