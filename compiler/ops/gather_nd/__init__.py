"""DML_GATHER_ND1 and DML_GATHER_ND (ONNX GatherND)."""
from __future__ import annotations

from ...family.generic import GenericRules
from ...family.registry import Family, Rules
from .api import gather_nd
from .desc import GatherND1Desc, GatherNDDesc
from .lower import (
    gather_nd_free,
    gather_nd_key,
    gather_nd_layouts,
    gather_nd_sizes,
    gather_nd_variants,
    lower_gather_nd,
    lower_gather_nd_checked,
    lower_gather_nd_generic,
)
from .validate import validate_gather_nd

__all__ = ['gather_nd', 'GatherND1Desc', 'GatherNDDesc']

GENERIC = GenericRules(gather_nd_sizes, gather_nd_free, gather_nd_key, lower_gather_nd_generic,
                       gather_nd_layouts, gather_nd_variants, checked=lower_gather_nd_checked)

FAMILY = Family(
    "gather_nd",
    {
        GatherND1Desc: Rules(validate_gather_nd, lower_gather_nd, generic=GENERIC),
        GatherNDDesc: Rules(validate_gather_nd, lower_gather_nd, generic=GENERIC),
    },
    exports=tuple(__all__))
