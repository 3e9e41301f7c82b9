"""DML_JOIN and DML_SPLIT."""
from __future__ import annotations

from ...family.generic import GenericRules
from ...family.registry import Family, Rules
from .api import join, split
from .desc import JoinDesc, SplitDesc
from .generic import (
    join_free,
    join_key,
    join_layouts,
    join_sizes,
    join_variants,
    lower_join_generic,
)
from .lower import lower_join, lower_split
from .split_generic import (
    lower_split_generic,
    split_free,
    split_key,
    split_layouts,
    split_sizes,
    split_variants,
)
from .validate import validate_join, validate_split

__all__ = ['join', 'split', 'JoinDesc', 'SplitDesc']

FAMILY = Family(
    "join",
    {
        JoinDesc: Rules(validate_join, lower_join, generic=GenericRules(
            join_sizes, join_free, join_key, lower_join_generic, join_layouts,
            join_variants)),
        SplitDesc: Rules(validate_split, lower_split, generic=GenericRules(
            split_sizes, split_free, split_key, lower_split_generic, split_layouts,
            split_variants)),
    },
    exports=tuple(__all__))
