"""DML_SCATTER (ScatterElements) and DML_SCATTER_ND, deterministic, with ONNX's reductions and an
in-place form."""
from __future__ import annotations

from ...family.registry import Family, Rules
from .api import scatter, scatter_elements, scatter_nd
from .desc import ScatterDesc, ScatterNDDesc
from .lower import lower_scatter_family
from .validate import validate_scatter, validate_scatter_nd

__all__ = ['scatter', 'scatter_elements', 'scatter_nd', 'ScatterDesc', 'ScatterNDDesc']

FAMILY = Family(
    "scatter",
    {
        ScatterDesc: Rules(validate_scatter, lower_scatter_family, in_place=True),
        ScatterNDDesc: Rules(validate_scatter_nd, lower_scatter_family, in_place=True),
    },
    exports=tuple(__all__))
