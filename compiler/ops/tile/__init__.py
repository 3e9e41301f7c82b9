"""DML_TILE (numpy.tile)."""
from __future__ import annotations

from ...family.registry import Family, Rules
from .api import tile
from .desc import TileDesc
from .lower import lower_tile
from .validate import validate_tile

__all__ = ['tile', 'TileDesc']

FAMILY = Family(
    "tile",
    {
        TileDesc: Rules(validate_tile, lower_tile),
    },
    exports=tuple(__all__))
