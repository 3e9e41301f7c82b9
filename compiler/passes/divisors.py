"""Runtime divisors by magic numbers: a generic kernel's divisions by a PARAM (a size pushed per
call) become a multiply-high, an add and a shift by two words the host pushes beside the
divisor (ir/kernel.py: division_magic, push_values), as a compiler does for a constant divisor.

An integer divide is slow on GPUs (a sequence of some twenty instructions) and on llvmpipe one
scalar instruction per SIMD lane; row-blocked generic kernels divide by two to four sizes per
invocation. The IR keeps its FLOORDIV / FLOORMOD (every rule, range and proof stays as it
was): this pass only names the divisors, in word order, as many as fit the push-constant
words Vulkan guarantees (MAX_PARAMS); codegen spells the others as plain / and %. WGSL has
no multiply-high: its dmlc_divide builds one from 16-bit halves.
"""
from __future__ import annotations

import dataclasses

from ..ir import Program
from ..ir.algebra import RuleSet
from ..ir.kernel import effects_order
from ..ir.ops import Op
from ..ir.verify import MAX_PARAMS


def divisor_words(p: Program) -> tuple[int, ...]:
    """The PARAM words some kernel of p divides by, in word order."""
    words = {n.src[1].param for k in p.kernels for n in effects_order(k)
             if n.op in (Op.FLOORDIV, Op.FLOORMOD) and n.src[1].op is Op.PARAM}
    return tuple(sorted(words))


def magic_divisors(p: Program, rules: RuleSet) -> Program:
    """p with its divisors named (Program.divisors), those that fit the push words."""
    room = (MAX_PARAMS - len(p.params)) // 2
    return dataclasses.replace(p, divisors=divisor_words(p)[:room]) if p.params else p
