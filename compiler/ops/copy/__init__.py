"""DML_ELEMENT_WISE_IDENTITY: a view made contiguous (copy), or written through (view[...] = x)."""
from __future__ import annotations

from ...family.generic import GenericRules
from ...family.registry import Family, Rules
from .api import copy
from .desc import IdentityDesc
from .lower import (
    identity_copy,
    identity_free,
    identity_key,
    identity_layouts,
    identity_sizes,
    identity_variants,
    lower_identity,
    lower_identity_generic,
)
from .validate import validate_identity

__all__ = ['copy', 'IdentityDesc']

FAMILY = Family(
    "copy",
    {
        IdentityDesc: Rules(validate_identity, lower_identity, generic=GenericRules(
            identity_sizes, identity_free, identity_key, lower_identity_generic, identity_layouts,
            identity_variants), copy_of=identity_copy),
    },
    exports=tuple(__all__))
