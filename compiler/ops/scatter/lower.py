"""DML_SCATTER and DML_SCATTER_ND lowered: which kernels a scatter becomes (elements.py, nd.py:
lines or vote; reduce.py: reductions), by its reduction, its target and whether it updates its
data tensor in place."""
from __future__ import annotations

from ...family.registry import LowerContext
from ...ir import Program
from .desc import ScatterDesc, ScatterNDDesc
from .elements import lower_scatter, lower_scatter_in_place
from .nd import lower_scatter_nd, lower_scatter_nd_in_place
from .reduce import lower_scatter_reduce


def lower_scatter_family(desc: ScatterDesc | ScatterNDDesc, ctx: LowerContext) -> Program:
    if desc.reduction != "none":
        return lower_scatter_reduce(desc, ctx.in_place)
    if isinstance(desc, ScatterDesc):
        return lower_scatter_in_place(desc) if ctx.in_place else lower_scatter(desc, ctx.target)
    return lower_scatter_nd_in_place(desc) if ctx.in_place else lower_scatter_nd(desc, ctx.target)
