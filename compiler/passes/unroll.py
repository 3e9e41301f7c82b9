"""Unrolling: one invocation runs several consecutive items, sharing what they have in common.

A kernel of N items becomes one of N / U items whose item g runs the effects of items
g*U, ..., g*U + U - 1 (substituting gid -> g*U + j). Three things then fall out:
- shared work is one node: for a row gather moving a uvec4 per item, `(g*4 + j) // 64` folds to
  `g // 16` for every j, so the index is loaded and normalized once per four vectors
  (hash-consing is the common-subexpression sharing; codegen names a node once per invocation);
- loads whose U copies read consecutive, aligned 32/64-bit elements become one 16-byte VLOAD per
  vector and a VEXTRACT per element (gather_elements' indices, scatter's winners);
- stores whose U copies write consecutive, aligned 32/64-bit elements become one VSTORE of a
  VPACK (gather_elements' output, scatter's output and its scratch reset).
Effects are emitted effect by effect (all copies of the first effect, then of the second, ...):
each item still runs its own effects in order, and items never read what other items write
(ir/kernel.py), so only the order between items changes, which nothing can observe.

Skipped where it cannot be proven the same: kernels whose items do not divide by U, and kernels
that store 8/16-bit elements one at a time (codegen already gives each invocation whole words).
"""
from __future__ import annotations

from typing import Optional

from ..dtypes import DataType
from ..ir import Kernel, Node, Program
from ..ir import build as b
from ..ir.ops import Op, toposort
from ..ir.rewrite import substitute
from ..ir.verify import IRError, verify_program
from .vectorize import aligned_run

FACTORS = (8, 4, 2)
"""Consecutive items per invocation, the first that divides the kernel's items. Measured on
lavapipe, full bench suite, ratio to the copy shader with 4 / 8 items per invocation:
gather_elements 0.49 / 0.56, f16 row gather 0.43 / 0.58, f32 row gather 0.55 / 0.57 (quick
suite, f32 row gather: 0.49 with one item per invocation, 0.65 with 4)."""
MIN_ITEMS = 1 << 14
"""Smaller kernels keep one item per invocation: they need every invocation they can get."""


def _run_start(addresses: list[Node], dtype: DataType) -> Optional[Node]:
    """addresses[0] when the list is consecutive 32/64-bit elements that split into aligned
    16-byte vectors (VEXTRACT and VPACK move whole words only)."""
    width = b.vector_width(dtype)
    if dtype.bits < 32 or len(addresses) % width:
        return None
    return aligned_run(addresses, width)


def _combined_loads(k: Kernel, order: list[Node], starts: list[Node]) -> list[dict[Node, Node]]:
    """Per copy j: each combinable LOAD of the kernel -> its lane of a shared VLOAD."""
    mappings: list[dict[Node, Node]] = [{k.gid: s} for s in starts]
    loads = [n for n in order if n.op is Op.LOAD and isinstance(n.dtype, DataType)]
    roots = [n.src[0] for n in loads]
    roots_order = toposort(roots)
    per_copy = [substitute(roots, {k.gid: s}, roots_order) for s in starts]
    for i, n in enumerate(loads):
        addresses = [copy[i] for copy in per_copy]
        if _run_start(addresses, n.dtype) is None:  # type: ignore[arg-type]
            continue
        width = b.vector_width(n.dtype)
        for j, m in enumerate(mappings):
            vec = b.vload(n.arg, addresses[j - j % width])  # type: ignore[arg-type]
            m[n] = b.vextract(vec, n.dtype, j % width)
    return mappings


def _combined(copies: list[Node], p: Program) -> list[Node]:
    """The U copies of one effect: VSTOREs of packed vectors where they write a whole aligned
    run of 32/64-bit elements, else the copies themselves."""
    e = copies[0]
    if e.op is not Op.STORE or len(e.src) > 2:
        return copies
    dtype = p.buffer(e.arg).dtype  # type: ignore[arg-type]
    if _run_start([c.src[0] for c in copies], dtype) is None:
        return copies
    width = b.vector_width(dtype)
    return [b.vstore(e.arg, copies[v].src[0],  # type: ignore[arg-type]
                     b.vpack([c.src[1] for c in copies[v:v + width]]))
            for v in range(0, len(copies), width)]


def unroll_kernel(k: Kernel, p: Program, factor: int) -> Optional[Kernel]:
    """`k` running `factor` consecutive items per item, or None where that is not proven the
    same."""
    if factor < 2 or k.items % factor or k.unrolled > 1:
        return None
    if any(e.op is Op.STORE and p.buffer(e.arg).dtype.bits < 32  # type: ignore[arg-type]
           for e in k.effects):
        return None
    g = b.item_id(k.items // factor)
    order = toposort(list(k.effects))
    mappings = _combined_loads(k, order, [b.add(b.mul(g, factor), j) for j in range(factor)])
    per_copy = [substitute(list(k.effects), m, order) for m in mappings]
    effects: list[Node] = []
    for i in range(len(k.effects)):
        effects += _combined([copy[i] for copy in per_copy], p)
    unrolled = Kernel(k.name, k.items // factor, tuple(effects), unrolled=factor)
    try:  # every address must still be proven inside its buffer from ranges alone
        verify_program(Program(p.name, p.buffers, (unrolled,), p.inputs, p.output))
    except IRError:
        return None
    return unrolled


def unroll(p: Program) -> Program:
    """Unroll every kernel of at least MIN_ITEMS items by the first of FACTORS that divides
    its items."""
    kernels = tuple(next((u for u in (unroll_kernel(k, p, f) for f in FACTORS) if u), k)
                    if k.items >= MIN_ITEMS else k for k in p.kernels)
    return Program(p.name, p.buffers, kernels, p.inputs, p.output, p.output_shape)
