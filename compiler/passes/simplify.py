"""The rule passes: rebuild a program with one more group of rewrite rules on (ir/rules.py).

fold_constants, simplify_divmod and coalesce are each this function run under their own group
(plus the groups of the rule passes before them): every node is rebuilt bottom-up through its
constructor, which applies the first enabled rule of its op's table.
"""
from __future__ import annotations

import dataclasses

from ..ir import Program
from ..ir.rewrite import rebuild_all


def simplify(p: Program) -> Program:
    """`p` with every kernel rebuilt under the rules enabled now."""
    kernels = tuple(dataclasses.replace(k, effects=tuple(rebuild_all(list(k.effects))))
                    for k in p.kernels)
    return Program(p.name, p.buffers, kernels, p.inputs, p.output, p.output_shape)
