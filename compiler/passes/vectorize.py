"""Vectorization: move 16 bytes (a uvec4) per item where the IR proves it is the same copy.
(Values chosen by selects, as join and split choose their input: vector_select.py.)

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
from ..ir.ops import Op, toposort
from ..ir.rewrite import fold, substitute
from .lanes import aligned_run
from .vector_select import vector_value


def vectorize_kernel(k: Kernel, p: Program, rules: RuleSet) -> Kernel | None:
    if len(k.effects) != 1 or k.steps > 1:
        return None
    store = k.effects[0]
    if store.op is not Op.STORE or len(store.src) != 2 or store.src[0] is not k.gid:
        return None
    out = p.buffer(store.arg)  # type: ignore[arg-type]
    value = store.src[1]
    if out.count != k.items or not isinstance(value.dtype, DataType):
        return None
    width = b.vector_width(out.dtype)
    if k.items % width:
        return None
    g = b.item_id(k.items // width)
    if value.op is not Op.LOAD or value.src[0].op is Op.WHERE:
        selected = vector_value(value, p, k.gid, g, width, rules)
        if selected is None:
            return None
        return Kernel(k.name, k.items // width,
                      (b.vstore(out.name, fold(b.mul(g, width), rules), selected),))
    order = toposort([value.src[0]])
    lanes = [substitute([value.src[0]], {k.gid: b.add(b.mul(g, width), lane)}, rules, order)[0]
             for lane in range(width)]
    forward, backward = aligned_run(lanes, width, rules), aligned_run(lanes[::-1], width, rules)
    if forward is not None:
        vec = b.vload(value.arg, forward)  # type: ignore[arg-type]
    elif backward is not None:  # a reversed run: loaded forward, reversed in registers
        vec = b.reverse(b.vload(value.arg, backward), out.dtype.itemsize)  # type: ignore[arg-type]
    else:
        return None
    store = b.vstore(out.name, fold(b.mul(g, width), rules), vec)
    return Kernel(k.name, k.items // width, (store,))


def vectorize(p: Program, rules: RuleSet) -> Program:
    """Vectorize every kernel where it is proven equivalent; leave the others as they are."""
    return p.with_kernels(tuple(vectorize_kernel(k, p, rules) or k for k in p.kernels))
