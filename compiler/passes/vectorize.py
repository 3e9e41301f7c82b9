"""Vectorization: move 16 bytes (a uvec4) per item where the IR proves it is the same copy.
(Values chosen by selects, as join and split choose their input: vector_select.py; rows whose
conditions change inside a vector, as padding's do, are cut into parts first: partition.py.)

A kernel `out[gid] = in[A(gid)]` becomes `out[V*g .. V*g+V) = in[A(V*g) .. A(V*g)+V)` with V the
elements per 16 bytes, when the folding constructors show, for every lane k < V, that
A(V*g + k) is exactly A(V*g) + k (or A(V*g) - k: a reversed run, loaded forward and reversed in
registers), and that the first address is a multiple of V (aligned). The proof is structural:
both sides are simplified under the pipeline's rules and must be the same interned node.
"""
from __future__ import annotations

from ..dtypes import DataType
from ..ir import Kernel, Program
from ..ir import build as b
from ..ir.algebra import RuleSet
from ..ir.ops import Op
from ..ir.rewrite import fold
from .partition import partition_kernel
from .vector_select import vector_value


def vectorize_kernel(k: Kernel, p: Program, rules: RuleSet) -> tuple[Kernel, ...] | None:
    """k as kernels of vectors (several: partition.py's parts), or None."""
    if len(k.effects) != 1 or k.steps > 1:
        return None
    store = k.effects[0]
    if store.op is not Op.STORE or len(store.src) != 2 or store.src[0] is not k.gid:
        return None
    out = p.buffer(store.buffer)
    value = store.src[1]
    if out.count != k.items or not isinstance(value.dtype, DataType):
        return None
    width = b.vector_width(out.dtype)
    if k.items % width:
        return None
    parts = partition_kernel(k, p, width, rules)
    if parts is not None:
        return parts
    first = fold(b.mul(b.item_id(k.items // width), width), rules)
    vec = vector_value(value, p, k.gid, first, width, rules)
    if vec is None:
        return None
    return (Kernel(k.name, k.items // width, (b.vstore(out.name, first, vec),)),)


def vectorize(p: Program, rules: RuleSet) -> Program:
    """Vectorize every kernel where it is proven equivalent; leave the others as they are."""
    return p.with_kernels(tuple(part for k in p.kernels
                                for part in vectorize_kernel(k, p, rules) or (k,)))
