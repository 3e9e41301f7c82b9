"""A generic program specialized: every PARAM bound to one call's value, the program static.

What Halide's `Func::specialize` and TVM's `tir.specialize` do: the lowering written over sizes
that are numbers or push constants, made into the kernel of one size by substitution, after
which the rule passes fold what the numbers decide (a clamp to a runtime extent that the
address never reaches, a division by a size that is a power of two). The result is what a
lowering with those numbers baked in builds; `tools/lowering_parity.py` says, per family, where
the two already agree after the pipeline (the road to one lowering per family: issue 36).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .interp import param_value
from .kernel import Kernel, Program, unbindable
from .ops import IRError, Node, const, item_id, step_id
from .rewrite import substitute


def specialize(p: Program, values: Sequence[int]) -> Program:
    """`p` (as lowered: no kernel planned yet) with each PARAM replaced by its value in
    `values` (push-word order, each in its declared range): buffers of runtime extent get that
    many elements, kernels of a runtime item or step count run that many, and the program takes
    no push constants. A program without PARAMs is returned as it is."""
    problem = unbindable(p, values)
    if problem is not None:
        raise IRError(problem)
    if not p.params:
        return p
    if any(k.plan is not None or k.schedule is not None for k in p.kernels):
        raise IRError(f"{p.name}: specialize a program as lowered, before the planner")
    bound: dict[Node, Node] = {q: const(v) for q, v in zip(p.params, values)}
    buffers = tuple(b if b.extent is None else
                    dataclasses.replace(b, count=param_value(b.extent, values), extent=None)
                    for b in p.buffers)
    return dataclasses.replace(p, buffers=buffers, params=(), divisors=(), kernels=tuple(
        _kernel(k, bound, values) for k in p.kernels))


def _kernel(k: Kernel, bound: dict[Node, Node], values: Sequence[int]) -> Kernel:
    """One kernel with its PARAMs bound, its item and step ids narrowed to the call's counts
    (their ranges are the counts' largest values in a generic kernel)."""
    items = k.items if k.count is None else param_value(k.count, values)
    steps = k.steps if k.step_count is None else param_value(k.step_count, values)
    mapping = dict(bound)
    if items != k.items:
        mapping[item_id(k.items)] = item_id(items)
    if steps != k.steps:
        mapping[step_id(k.steps)] = step_id(steps)
    effects = substitute(list(k.effects), mapping, frozenset())
    return dataclasses.replace(k, items=items, steps=steps, effects=tuple(effects), count=None,
                               step_count=None)
