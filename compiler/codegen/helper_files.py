"""The hand-written shader helpers (shaders/, a .glsl and a .wgsl twin of each) as both codegens
use them: which a kernel calls, pasted in this order after its declarations, and a division by
a runtime divisor, which GLSL and WGSL spell alike."""
from __future__ import annotations

from ..ir import Kernel, Node, Op, Program
from ..ir.kernel import effects_order


def helper_files(k: Kernel, p: Program) -> list[str]:
    """The helpers' base names: dmlc_helpers always; dmlc_reduce for scatter reductions;
    dmlc_int for index values computed from loaded ones; dmlc_divide for a program with pushed
    divisors (passes/divisors.py)."""
    ops = {n.op for n in effects_order(k)}
    return ["dmlc_helpers", *(["dmlc_reduce"] if Op.COMBINE in ops else []),
            *(["dmlc_int"] if Op.ARITH in ops or Op.COMPARE in ops else []),
            *(["dmlc_divide"] if p.divisors else [])]


def runtime_division(n: Node, a: list[str], magic: dict[Node, str]) -> str:
    """n, a // or % by a runtime divisor >= 1 of a dividend >= 0 (verify.py) whose operands are
    named `a`: plain / and % (exact there), or dmlc_divide by the divisor's pushed magic words
    (`magic`: each divisor's two words as the language names them; passes/divisors.py)."""
    words = magic.get(n.src[1])
    if words is None:
        return f"{a[0]} {'/' if n.op is Op.FLOORDIV else '%'} {a[1]}"
    q = f"dmlc_divide({a[0]}, {words})"
    return q if n.op is Op.FLOORDIV else f"{a[0]} - {q} * {a[1]}"
