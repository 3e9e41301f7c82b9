"""DML_REVERSE_SUBSEQUENCES (ONNX ReverseSequence)."""
from __future__ import annotations

from ...family.registry import Family, Rules
from .api import reverse_subsequences
from .desc import ReverseSubsequencesDesc
from .lower import lower_reverse_subsequences
from .validate import validate_reverse_subsequences

__all__ = ['reverse_subsequences', 'ReverseSubsequencesDesc']

FAMILY = Family(
    "reverse",
    {
        ReverseSubsequencesDesc: Rules(validate_reverse_subsequences, lower_reverse_subsequences),
    },
    exports=tuple(__all__))
