"""DML_SPACE_TO_DEPTH1 and DML_DEPTH_TO_SPACE1 (and their first versions)."""
from __future__ import annotations

from ...family.generic import GenericRules
from ...family.registry import Family, Rules
from .api import depth_to_space, space_to_depth
from .desc import DepthToSpace0Desc, DepthToSpaceDesc, SpaceToDepth0Desc, SpaceToDepthDesc
from .lower import (
    depth_space_free,
    depth_space_key,
    depth_space_layouts,
    depth_space_sizes,
    depth_space_variants,
    lower_depth_space,
    lower_depth_space_generic,
)
from .validate import validate_depth_space

__all__ = ['space_to_depth', 'depth_to_space', 'SpaceToDepthDesc', 'DepthToSpaceDesc',
           'SpaceToDepth0Desc', 'DepthToSpace0Desc']

GENERIC = GenericRules(depth_space_sizes, depth_space_free, depth_space_key,
                       lower_depth_space_generic, depth_space_layouts, depth_space_variants)

FAMILY = Family(
    "space_depth",
    {
        SpaceToDepthDesc: Rules(validate_depth_space, lower_depth_space, generic=GENERIC),
        DepthToSpaceDesc: Rules(validate_depth_space, lower_depth_space, generic=GENERIC),
        SpaceToDepth0Desc: Rules(validate_depth_space, lower_depth_space, generic=GENERIC),
        DepthToSpace0Desc: Rules(validate_depth_space, lower_depth_space, generic=GENERIC),
    },
    exports=tuple(__all__))
