"""DML_PADDING1 and DML_PADDING (numpy.pad's constant, edge, reflect, symmetric and wrap)."""
from __future__ import annotations

from ...family.generic import GenericRules
from ...family.registry import Family, Rules
from .api import pad
from .desc import Padding0Desc, PaddingDesc
from .lower import (
    lower_padding,
    lower_padding_generic,
    padding_free,
    padding_key,
    padding_layouts,
    padding_sizes,
    padding_variants,
)
from .validate import validate_padding

__all__ = ['pad', 'PaddingDesc', 'Padding0Desc']

GENERIC = GenericRules(padding_sizes, padding_free, padding_key, lower_padding_generic,
                       padding_layouts, padding_variants)

FAMILY = Family(
    "pad",
    {
        PaddingDesc: Rules(validate_padding, lower_padding, generic=GENERIC),
        Padding0Desc: Rules(validate_padding, lower_padding, generic=GENERIC),
    },
    exports=tuple(__all__))
