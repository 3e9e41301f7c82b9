"""Which of the hand-written shader helpers (shaders/, a .glsl and a .wgsl twin of each) a kernel
calls, pasted in this order after its declarations: both codegens take the same."""
from __future__ import annotations

from ..ir import Kernel, Op, Program
from ..ir.kernel import effects_order


def helper_files(k: Kernel, p: Program) -> list[str]:
    """The helpers' base names: dmlc_helpers always; dmlc_reduce for scatter reductions;
    dmlc_int for index values computed from loaded ones; dmlc_divide for a program with pushed
    divisors (passes/divisors.py)."""
    ops = {n.op for n in effects_order(k)}
    return ["dmlc_helpers", *(["dmlc_reduce"] if Op.COMBINE in ops else []),
            *(["dmlc_int"] if Op.ARITH in ops or Op.COMPARE in ops else []),
            *(["dmlc_divide"] if p.divisors else [])]
