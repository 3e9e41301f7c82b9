"""Rebuilding IR through the folding constructors: substitution, the basis of passes."""
from __future__ import annotations

from typing import Callable, Mapping, Optional

from . import build as b
from .ops import Node, Op, toposort

_REBUILD: dict[Op, Callable[[Node, tuple[Node, ...]], Node]] = {
    Op.ADD: lambda n, s: b.add(s[0], s[1]),
    Op.MUL: lambda n, s: b.mul(s[0], s[1]),
    Op.FLOORDIV: lambda n, s: b.floordiv(s[0], s[1].arg),  # type: ignore[arg-type]
    Op.FLOORMOD: lambda n, s: b.floormod(s[0], s[1].arg),  # type: ignore[arg-type]
    Op.MIN: lambda n, s: b.minimum(s[0], s[1]),
    Op.MAX: lambda n, s: b.maximum(s[0], s[1]),
    Op.CMPLT: lambda n, s: b.less(s[0], s[1]),
    Op.CMPNE: lambda n, s: b.not_equal(s[0], s[1]),
    Op.AND: lambda n, s: b.logical_and(s[0], s[1]),
    Op.WHERE: lambda n, s: b.where(s[0], s[1], s[2]),
}


def rebuild(n: Node, src: tuple[Node, ...], force: bool = False) -> Node:
    """`n` with new sources, folded again where its op has a folding constructor (force: also
    when the sources are the same, so that rules turned on since `n` was built apply)."""
    if src == n.src and not force:
        return n
    fn = _REBUILD.get(n.op)
    return fn(n, src) if fn else Node(n.op, n.dtype, src, n.arg)


def substitute(roots: list[Node], mapping: Mapping[Node, Node],
               order: Optional[list[Node]] = None) -> list[Node]:
    """`roots` with every occurrence of each key replaced by its value, refolded bottom-up.
    order: toposort(roots), when the caller substitutes into the same roots several times."""
    new: dict[Node, Node] = dict(mapping)
    for n in order if order is not None else toposort(roots):
        if n not in new:
            new[n] = rebuild(n, tuple(new[s] for s in n.src))
    return [new[r] for r in roots]


def rebuild_all(roots: list[Node]) -> list[Node]:
    """`roots` with every node rebuilt bottom-up through its constructor, so that the rules
    enabled now (ir/rules.py) apply everywhere, also where no source changed."""
    new: dict[Node, Node] = {}
    for n in toposort(roots):
        new[n] = rebuild(n, tuple(new[s] for s in n.src), force=True)
    return [new[r] for r in roots]
