"""DML_ONE_HOT (ONNX OneHot)."""
from __future__ import annotations

from ...family.registry import Family, Rules
from .api import one_hot
from .desc import OneHotDesc
from .lower import lower_one_hot
from .validate import validate_one_hot

__all__ = ['one_hot', 'OneHotDesc']

FAMILY = Family(
    "one_hot",
    {
        OneHotDesc: Rules(validate_one_hot, lower_one_hot),
    },
    exports=tuple(__all__))
