"""DML_REVERSE_SUBSEQUENCES (ONNX ReverseSequence)."""
from __future__ import annotations

from ...family.generic import GenericRules
from ...family.registry import Family, Rules
from .api import reverse_subsequences
from .desc import ReverseSubsequencesDesc
from .lower import (
    lower_reverse_checked,
    lower_reverse_generic,
    lower_reverse_subsequences,
    reverse_free,
    reverse_key,
    reverse_layouts,
    reverse_sizes,
    reverse_variants,
)
from .validate import validate_reverse_subsequences

__all__ = ['reverse_subsequences', 'ReverseSubsequencesDesc']

FAMILY = Family(
    "reverse",
    {
        ReverseSubsequencesDesc: Rules(
            validate_reverse_subsequences, lower_reverse_subsequences, generic=GenericRules(
                reverse_sizes, reverse_free, reverse_key, lower_reverse_generic,
                reverse_layouts, reverse_variants, checked=lower_reverse_checked)),
    },
    exports=tuple(__all__))
