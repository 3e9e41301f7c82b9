"""Vectorization: move 16 bytes (a uvec4) per item where the IR proves it is the same copy.

A kernel `out[gid] = in[A(gid)]` becomes `out[V*g .. V*g+V) = in[A(V*g) .. A(V*g)+V)` with V the
elements per 16 bytes, when the folding constructors show, for every lane k < V, that
A(V*g + k) is exactly A(V*g) + k (or A(V*g) - k: a reversed run, loaded forward and reversed in
registers), and that the first address is a multiple of V (aligned). The proof is structural:
both sides are simplified under the pipeline's rules and must be the same interned node.
"""
from __future__ import annotations

from typing import Optional

from ..dtypes import DataType
from ..ir import Kernel, Node, Program
from ..ir import build as b
from ..ir.algebra import RuleSet, const_tail
from ..ir.ops import Op, toposort
from ..ir.rewrite import fold, substitute


def aligned_run(addresses: list[Node], width: int, rules: RuleSet) -> Optional[Node]:
    """addresses[0] when the addresses are addresses[0] + 0, 1, 2, ... and addresses[0] is a
    multiple of `width` (whole aligned vectors). The proof is structural: each address must be
    the very node that `rules` simplify addresses[0] + j to."""
    first = addresses[0]
    if first.divisor % width or any(a is not fold(b.add(first, j), rules)
                                    for j, a in enumerate(addresses)):
        return None
    return first


def vector_lane(address: Node, dtype: DataType, count: int,
                rules: RuleSet) -> Optional[tuple[Node, int]]:
    """(start, lane) when the 32/64-bit element at `address` is lane `lane` of the aligned
    16-byte vector at element `start`, proven from the address's form x + c (x a multiple of the
    vector width) and with the whole vector inside a binding of `count` elements (a buffer's
    elements and the padding of its last vector: ir.Buffer.words)."""
    width = b.vector_width(dtype)
    if dtype.bits < 32:
        return None
    x, c = const_tail(address) or (address, 0)
    if x.divisor % width:
        return None
    start = fold(b.add(x, c - c % width), rules)
    if start.vmin < 0 or start.vmax + width > count:
        return None
    return start, c % width


def vectorize_kernel(k: Kernel, p: Program, rules: RuleSet) -> Optional[Kernel]:
    if len(k.effects) != 1 or k.steps > 1:
        return None
    store = k.effects[0]
    if store.op is not Op.STORE or len(store.src) != 2 or store.src[0] is not k.gid:
        return None
    out = p.buffer(store.arg)  # type: ignore[arg-type]
    value = store.src[1]
    if out.count != k.items or value.op is not Op.LOAD or not isinstance(value.dtype, DataType):
        return None
    width = b.vector_width(out.dtype)
    if k.items % width:
        return None
    g = b.item_id(k.items // width)
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
