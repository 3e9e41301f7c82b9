"""DML_SCATTER (ScatterElements) and DML_SCATTER_ND, deterministic, with ONNX's reductions and an
in-place form."""
from __future__ import annotations

from ...family.generic import GenericRules
from ...family.registry import Family, Rules
from .api import scatter, scatter_elements, scatter_nd
from .desc import ScatterDesc, ScatterNDDesc
from .generic import (
    lower_scatter_checked,
    lower_scatter_checked_in_place,
    lower_scatter_generic,
    lower_scatter_in_place,
    scatter_free,
    scatter_key,
    scatter_layouts,
    scatter_sizes,
)
from .lower import lower_scatter_family
from .validate import validate_scatter, validate_scatter_nd

__all__ = ['scatter', 'scatter_elements', 'scatter_nd', 'ScatterDesc', 'ScatterNDDesc']

GENERIC = GenericRules(scatter_sizes, scatter_free, scatter_key, lower_scatter_generic,
                       scatter_layouts, in_place=lower_scatter_in_place, targets=("cpu",),
                       checked=lower_scatter_checked,
                       checked_in_place=lower_scatter_checked_in_place)

FAMILY = Family(
    "scatter",
    {
        ScatterDesc: Rules(validate_scatter, lower_scatter_family, in_place=True,
                            generic=GENERIC),
        ScatterNDDesc: Rules(validate_scatter_nd, lower_scatter_family, in_place=True,
                            generic=GENERIC),
    },
    exports=tuple(__all__))
