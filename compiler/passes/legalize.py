"""Legalization for GLSL: 8/16-bit stores become whole 32-bit words.

A shader's buffers are arrays of 32-bit words, and two invocations must never write parts of one
word. So a kernel that stores 8/16-bit elements one at a time (element gid, which ir/verify.py
checks: kernel.packed_stores) runs one word per item instead: item g runs the lanes items
g*L ... g*L + L - 1 (L elements a word), and each such store becomes one WSTORE of the PACK of
its lanes. Where the items do not fill the last word, a lane past them reads the last item
(every address stays proven in range) and writes nothing: its element is 0 in the word (the
buffer's padding), its other stores are predicated off.
"""
from __future__ import annotations

import dataclasses

from ..ir import Kernel, Node, Program
from ..ir import build as b
from ..ir.algebra import RuleSet
from ..ir.kernel import packed_stores, word_lanes
from ..ir.ops import IRError, Op
from ..ir.rewrite import fold, substitute


def _predicated(e: Node, valid: Node) -> Node:
    """Effect `e` done only where `valid` holds."""
    if e.op not in (Op.STORE, Op.ATOMIC_MAX):
        raise IRError(f"{e.op.name} beside 8/16-bit stores in one kernel")
    return b.only_if(e, valid)


def legalize_kernel(k: Kernel, p: Program, rules: RuleSet) -> Kernel:
    packed = packed_stores(k, p)
    if not packed:
        return k
    if k.steps > 1:
        raise IRError(f"{p.name}/{k.name}: 8/16-bit stores in a kernel with steps")
    lanes = word_lanes(packed[0].dtype)  # verify.py: one sub-word width per kernel
    words = -(-k.items // lanes)
    g = b.item_id(words)
    items = [b.add(b.mul(g, lanes), j) for j in range(lanes)]
    valid = [fold(b.less(i, k.items), rules) for i in items]
    copies = [substitute(list(k.effects), {k.gid: b.minimum(i, k.items - 1)}, rules)
              for i in items]
    effects: list[Node] = []
    for n, e in enumerate(k.effects):
        copy = [c[n] for c in copies]
        buf = p.buffer(e.buffer)
        if e.op is Op.STORE and buf in packed:
            zero = b.const_data(buf.dtype, 0)
            values = [fold(b.where(ok, c.src[1], zero), rules) for ok, c in zip(valid, copy)]
            effects.append(b.wstore(buf, g, b.pack(values)))
        else:
            effects += [c if ok.is_const and ok.arg else fold(_predicated(c, ok), rules)
                        for ok, c in zip(valid, copy)]
    return dataclasses.replace(k, items=words, effects=tuple(effects))


def legalize(p: Program, rules: RuleSet) -> Program:
    """Every kernel with 8/16-bit stores moved to whole words (a required step: the shaders
    cannot store less than a word)."""
    return p.with_kernels(tuple(legalize_kernel(k, p, rules) for k in p.kernels))
