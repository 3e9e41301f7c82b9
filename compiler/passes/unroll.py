"""Unrolling: one invocation runs several consecutive items, sharing what they have in common.

A kernel of N items becomes one of N / U items whose item g runs the effects of items
g*U, g*U + 1, ..., g*U + U - 1 in order (substituting gid -> g*U + j). The folding rules then
make the work the U items share a single node: for a row gather moving one uvec4 per item,
`(g*4 + j) // 64` folds to `g // 16` for every j, so the index is loaded and normalized once per
four vectors instead of once per vector. Hash-consing is the common-subexpression sharing, and
codegen names each node once per invocation.

Skipped where it cannot be proven the same: kernels whose items do not divide by U, and kernels
that store 8/16-bit elements one at a time (codegen already gives each invocation whole words).
"""
from __future__ import annotations

from typing import Optional

from ..ir import Kernel, Program
from ..ir import build as b
from ..ir.ops import Op
from ..ir.rewrite import substitute

FACTORS = (4, 2)
"""Consecutive items per invocation, the first that divides the kernel's items. On lavapipe 4
uvec4s per invocation measured best for a row gather (0.65 of the copy shader against 0.50 with
one item and 0.53 with 16)."""
MIN_ITEMS = 1 << 14
"""Smaller kernels keep one item per invocation: they need every invocation they can get."""


def unroll_kernel(k: Kernel, p: Program, factor: int) -> Optional[Kernel]:
    """`k` running `factor` consecutive items per item, or None where that is not proven the
    same."""
    if factor < 2 or k.items % factor or k.unrolled > 1:
        return None
    if any(e.op is Op.STORE and p.buffer(e.arg).dtype.bits < 32  # type: ignore[arg-type]
           for e in k.effects):
        return None
    g = b.item_id(k.items // factor)
    effects: list = []
    for j in range(factor):
        effects += substitute(list(k.effects), {k.gid: b.add(b.mul(g, factor), j)})
    return Kernel(k.name, k.items // factor, tuple(effects), unrolled=factor)


def unroll(p: Program) -> Program:
    """Unroll every kernel of at least MIN_ITEMS items by the first of FACTORS that divides
    its items."""
    kernels = tuple(next((u for u in (unroll_kernel(k, p, f) for f in FACTORS) if u), k)
                    if k.items >= MIN_ITEMS else k for k in p.kernels)
    return Program(p.name, p.buffers, kernels, p.inputs, p.output, p.output_shape)
