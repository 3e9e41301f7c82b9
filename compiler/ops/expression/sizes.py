"""Which sizes of a tensor expression a generic kernel takes at dispatch (GenericRules): the
output's, then each tensor's in argument order, one position each (an ONNX Expand over a
symbolic batch: the output's batch and the input's; a transpose of a growing window: both
tensors' sizes), and the key of the kernel that serves a call.

The body holds sizes too: a loaded index normalized against the dimension it selects
(IndexValue.size, validation's copy of that dimension's size). Where that dimension is
dynamic, the kernel normalizes against the pushed size (lower.py: index_size) and the key holds
DYNAMIC there; an IndexValue of any other size (an intermediate tensor's clamping) stays a
constant of the kernel and of its key."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...family.generic import masked
from . import tree as E
from .desc import ExpressionDesc

DYNAMIC = -1
"""An IndexValue's size in a key where the kernel pushes it."""


def expression_sizes(desc: ExpressionDesc) -> tuple[int, ...]:
    out = desc.output
    assert out is not None, "validate() first"
    return (*out.sizes, *(s for _, t in desc.tensors for s in t.sizes))


def expression_free(desc: ExpressionDesc) -> tuple[int, ...]:
    """Every position: the kernel is exact for any sizes the call validates with."""
    return tuple(range(len(expression_sizes(desc))))


def position_spans(desc: ExpressionDesc) -> list[Callable[[Sequence[int]], list[int]]]:
    """For the output, then each tensor: dims (positions of expression_sizes) -> its own
    dimensions among them."""
    out = desc.output
    assert out is not None, "validate() first"
    ranks = [out.rank, *(t.rank for _, t in desc.tensors)]
    starts = [sum(ranks[:k]) for k in range(len(ranks))]

    def span(start: int, rank: int) -> Callable[[Sequence[int]], list[int]]:
        return lambda dims: [i - start for i in dims if start <= i < start + rank]
    return [span(s, r) for s, r in zip(starts, ranks)]


def expression_key(desc: ExpressionDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    out = desc.output
    assert out is not None, "validate() first"
    spans = position_spans(desc)
    tensors = tuple((name, masked(t, spans[k + 1](dims), offset=True))
                    for k, (name, t) in enumerate(desc.tensors))
    return (desc.operator, desc.name, desc.index_vars, _body_key(desc, dims, spans),
            masked(out, spans[0](dims)), tensors)


def _body_key(desc: ExpressionDesc, dims: Sequence[int],
              spans: list[Callable[[Sequence[int]], list[int]]]) -> E.Expr:
    """The body with DYNAMIC for each IndexValue size the kernel pushes (module docstring)."""
    position = {name: k for k, (name, _) in enumerate(desc.tensors)}
    tensors = dict(desc.tensors)

    def mark(n: E.Expr) -> E.Expr | None:
        if not isinstance(n, E.Load) or not any(isinstance(s, E.IndexValue)
                                                for s in n.subscripts):
            return None
        at = spans[position[n.tensor] + 1](dims)
        sizes = tensors[n.tensor].sizes
        return E.Load(n.tensor, tuple(
            E.IndexValue(s.load, DYNAMIC) if isinstance(s, E.IndexValue) and k in at
            and s.size == sizes[k] else s for k, s in enumerate(n.subscripts)))
    return E.transform(desc.body, mark)
