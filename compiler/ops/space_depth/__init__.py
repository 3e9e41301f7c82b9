"""DML_SPACE_TO_DEPTH1 and DML_DEPTH_TO_SPACE1 (and their first versions)."""
from __future__ import annotations

from ...family.registry import Family, Rules
from .api import depth_to_space, space_to_depth
from .desc import DepthToSpace0Desc, DepthToSpaceDesc, SpaceToDepth0Desc, SpaceToDepthDesc
from .lower import lower_depth_space
from .validate import validate_depth_space

__all__ = ['space_to_depth', 'depth_to_space', 'SpaceToDepthDesc', 'DepthToSpaceDesc',
           'SpaceToDepth0Desc', 'DepthToSpace0Desc']

FAMILY = Family(
    "space_depth",
    {
        SpaceToDepthDesc: Rules(validate_depth_space, lower_depth_space),
        DepthToSpaceDesc: Rules(validate_depth_space, lower_depth_space),
        SpaceToDepth0Desc: Rules(validate_depth_space, lower_depth_space),
        DepthToSpace0Desc: Rules(validate_depth_space, lower_depth_space),
    },
    exports=tuple(__all__))
