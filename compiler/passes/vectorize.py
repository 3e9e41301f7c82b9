"""Vectorization: move 16 bytes (a uvec4) per item where the IR proves it is the same copy.
(Values chosen by selects, as join and split choose their input: vector_select.py; rows whose
conditions change inside a vector, as padding's do, are cut into parts first: partition.py.)

A kernel `out[gid] = in[A(gid)]` becomes `out[V*g .. V*g+V) = in[A(V*g) .. A(V*g)+V)` with V the
elements per 16 bytes, when the folding constructors show, for every lane k < V, that
A(V*g + k) is exactly A(V*g) + k (or A(V*g) - k: a reversed run, loaded forward and reversed in
registers), and that the first address is a multiple of V (aligned). The proof is structural:
both sides are simplified under the pipeline's rules and must be the same interned node.

Which kernels move vectors, whole or in parts, the planner decides (passes/planner.py); this
pass carries its plan out.
"""
from __future__ import annotations

import dataclasses

from ..dtypes import DataType
from ..ir import Kernel, Program
from ..ir import build as b
from ..ir.algebra import RuleSet
from ..ir.ops import IRError, Op
from ..ir.rewrite import fold
from .partition import part_kernel
from .vector_select import vector_value


def vector_width(k: Kernel, p: Program) -> int:
    """The elements of k's 16-byte vectors where k may move vectors (one store of element gid
    of a buffer of `items` elements, of data, items a multiple of the vector width); else 0."""
    if len(k.effects) != 1 or k.steps > 1:
        return 0
    store = k.effects[0]
    if store.op is not Op.STORE or len(store.src) != 2 or store.src[0] is not k.gid:
        return 0
    out = p.buffer(store.buffer)
    if out.count != k.items or not isinstance(store.src[1].dtype, DataType):
        return 0
    width = b.vector_width(out.dtype)
    return 0 if k.items % width else width


def vector_kernel(k: Kernel, p: Program, rules: RuleSet) -> Kernel | None:
    """k moving one vector per item, or None where that is not proven."""
    width = vector_width(k, p)
    if not width:
        return None
    first = fold(b.mul(b.item_id(k.items // width), width), rules)
    vec = vector_value(k.effects[0].src[1], p, k.gid, first, width, rules)
    if vec is None:
        return None
    return Kernel(k.name, k.items // width, (b.vstore(k.effects[0].buffer, first, vec),))


_BUILT: dict[tuple, tuple[Kernel | None]] = {}
"""vectors()'s results (the planner builds each candidate, then this pass its winner again)."""


def clear_memo() -> None:
    """Forget vectors()' results."""
    _BUILT.clear()


def vectors(k: Kernel, p: Program, width: int, columns: tuple[int, int] | None,
            rules: RuleSet) -> Kernel | None:
    """k moving vectors of `width`: the whole kernel, or the part of its rows' `columns`
    (partition.py); None where that is not proven."""
    key = (k.name, k.effects, k.items, k.steps, width, columns, rules, p.buffers, p.output,
           p.output_shape)
    hit = _BUILT.get(key)  # one lookup: another thread may clear it meanwhile
    if hit is not None:
        return hit[0]
    built = (vector_kernel(k, p, rules) if columns is None else
             part_kernel(k, p, width, columns, rules))
    if len(_BUILT) >= 256:
        _BUILT.clear()
    _BUILT[key] = (built,)
    return built


def vectorize(p: Program, rules: RuleSet) -> Program:
    """Every kernel whose plan moves vectors as vectors: one kernel, or one per part."""
    out: list[Kernel] = []
    for k in p.kernels:
        plan = k.plan
        if plan is None or plan.chosen.vector == 1:
            out.append(k)
            continue
        for i, piece in enumerate(plan.chosen.pieces):
            built = vectors(k, p, plan.chosen.vector, piece.columns, rules)
            if built is None:  # the planner proved this very kernel: a bug
                raise IRError(f"{p.name}/{k.name}: its plan's vectors are not proven")
            out.append(dataclasses.replace(built, plan=plan, piece=i))
    return p.with_kernels(tuple(out))
