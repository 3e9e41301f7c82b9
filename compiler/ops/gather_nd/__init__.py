"""DML_GATHER_ND1 and DML_GATHER_ND (ONNX GatherND)."""
from __future__ import annotations

from ...family.registry import Family, Rules
from .api import gather_nd
from .desc import GatherND1Desc, GatherNDDesc
from .lower import lower_gather_nd
from .validate import validate_gather_nd

__all__ = ['gather_nd', 'GatherND1Desc', 'GatherNDDesc']

FAMILY = Family(
    "gather_nd",
    {
        GatherND1Desc: Rules(validate_gather_nd, lower_gather_nd),
        GatherNDDesc: Rules(validate_gather_nd, lower_gather_nd),
    },
    exports=tuple(__all__))
