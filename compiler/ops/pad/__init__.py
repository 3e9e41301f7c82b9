"""DML_PADDING1 and DML_PADDING (numpy.pad's constant, edge, reflect, symmetric and wrap)."""
from __future__ import annotations

from ...family.registry import Family, Rules
from .api import pad
from .desc import Padding0Desc, PaddingDesc
from .lower import lower_padding
from .validate import validate_padding

__all__ = ['pad', 'PaddingDesc', 'Padding0Desc']

FAMILY = Family(
    "pad",
    {
        PaddingDesc: Rules(validate_padding, lower_padding),
        Padding0Desc: Rules(validate_padding, lower_padding),
    },
    exports=tuple(__all__))
