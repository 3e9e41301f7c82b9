"""DML_ONE_HOT (ONNX OneHot)."""
from __future__ import annotations

from ...family.generic import GenericRules, indices_offset
from ...family.registry import Family, Rules
from .api import one_hot
from .desc import OneHotDesc
from .lower import (
    lower_one_hot,
    lower_one_hot_checked,
    lower_one_hot_generic,
    one_hot_free,
    one_hot_key,
    one_hot_layouts,
    one_hot_sizes,
    one_hot_variants,
)
from .validate import validate_one_hot

__all__ = ['one_hot', 'OneHotDesc']

FAMILY = Family(
    "one_hot",
    {
        OneHotDesc: Rules(validate_one_hot, lower_one_hot, generic=GenericRules(
            one_hot_sizes, one_hot_free, one_hot_key, lower_one_hot_generic, one_hot_layouts,
            one_hot_variants, checked=lower_one_hot_checked, offsets=indices_offset)),
    },
    exports=tuple(__all__))
