"""Tensor expressions: Y[i, j] = X[f(i, j)], index-arithmetic gathers (not a DirectML operator)."""
from __future__ import annotations

from ...family.registry import Family, Rules
from .desc import ExpressionDesc
from .lower import lower_expression
from .validate import validate_expression

__all__ = ['ExpressionDesc']

FAMILY = Family(
    "expression",
    {
        ExpressionDesc: Rules(validate_expression, lower_expression, directml=False),
    },
    exports=tuple(__all__))
