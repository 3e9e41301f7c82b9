"""Lowering: validated operator descriptors -> IR programs, one module per operator family."""
from __future__ import annotations

from ..descriptors import (
    ExpressionDesc,
    GatherDesc,
    GatherElementsDesc,
    JoinDesc,
    OperatorDesc,
    ScatterDesc,
    ScatterNDDesc,
    Slice1Desc,
    SplitDesc,
)
from ..expression.lower import lower_expression
from ..ir import Program
from .copy import COPY_LOWERINGS
from .gather import lower_gather, lower_gather_elements
from .join import lower_join, lower_split
from .layout import LAYOUT_LOWERINGS
from .nd import ND_LOWERINGS
from .scatter import lower_scatter, lower_scatter_in_place
from .scatter_reduce import lower_scatter_reduce
from .scatternd import lower_scatter_nd, lower_scatter_nd_in_place
from .slice import lower_slice

_LOWER = {GatherDesc: lower_gather, GatherElementsDesc: lower_gather_elements,
          Slice1Desc: lower_slice, JoinDesc: lower_join, SplitDesc: lower_split,
          ExpressionDesc: lower_expression, **LAYOUT_LOWERINGS, **ND_LOWERINGS,
          **COPY_LOWERINGS}


def lower(desc: OperatorDesc, target: str = "gpu", in_place: bool = False) -> Program:
    """Lower a descriptor that `validate()` returned (its OutputTensor is filled in) to naive
    IR (the IR builders are pure: the pipeline's rule passes do the simplifying).
    target: "cpu" or "gpu" (compiler/target.py), for the lowerings that differ.
    in_place: the scatter that updates its data tensor, given as the output (scatter.py)."""
    if isinstance(desc, (ScatterDesc, ScatterNDDesc)) and desc.reduction != "none":
        return lower_scatter_reduce(desc, in_place)
    if isinstance(desc, ScatterDesc):
        return lower_scatter_in_place(desc) if in_place else lower_scatter(desc, target)
    if isinstance(desc, ScatterNDDesc):
        return lower_scatter_nd_in_place(desc) if in_place else lower_scatter_nd(desc, target)
    assert not in_place, "only scatter updates in place"
    return _LOWER[type(desc)](desc)  # type: ignore[operator]
