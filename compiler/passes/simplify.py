"""The rule passes: simplify a program under one more group of rewrite rules (ir/algebra.py).

fold_constants, simplify_divmod and coalesce are each this function, run with their own group
plus the groups of the rule passes before them: every node is rewritten bottom-up to a fixed
point of those rules (ir/rewrite.py).
"""
from __future__ import annotations

import dataclasses

from ..ir import Program
from ..ir.algebra import RuleSet
from ..ir.rewrite import simplify


def simplify_program(p: Program, rules: RuleSet) -> Program:
    """`p` with every kernel simplified under `rules`."""
    return p.with_kernels(tuple(dataclasses.replace(k, effects=tuple(simplify(list(k.effects),
                                                                              rules)))
                                for k in p.kernels))
