"""DML_ELEMENT_WISE_IDENTITY: a view made contiguous (copy), or written through (view[...] = x)."""
from __future__ import annotations

from ...family.registry import Family, Rules
from .api import copy
from .desc import IdentityDesc
from .lower import lower_identity
from .validate import validate_identity

__all__ = ['copy', 'IdentityDesc']

FAMILY = Family(
    "copy",
    {
        IdentityDesc: Rules(validate_identity, lower_identity),
    },
    exports=tuple(__all__))
