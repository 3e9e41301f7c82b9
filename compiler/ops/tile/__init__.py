"""DML_TILE (numpy.tile)."""
from __future__ import annotations

from ...family.generic import GenericRules
from ...family.registry import Family, Rules
from .api import tile
from .desc import TileDesc
from .lower import (
    lower_tile,
    lower_tile_generic,
    tile_free,
    tile_key,
    tile_layouts,
    tile_sizes,
    tile_variants,
)
from .validate import validate_tile

__all__ = ['tile', 'TileDesc']

FAMILY = Family(
    "tile",
    {
        TileDesc: Rules(validate_tile, lower_tile, generic=GenericRules(
            tile_sizes, tile_free, tile_key, lower_tile_generic, tile_layouts, tile_variants)),
    },
    exports=tuple(__all__))
