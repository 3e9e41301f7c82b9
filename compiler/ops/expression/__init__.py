"""Tensor expressions: Y[i, j] = X[f(i, j)], index-arithmetic gathers (not a DirectML operator)."""
from __future__ import annotations

from ...family.generic import GenericRules
from ...family.registry import Family, Rules
from .desc import ExpressionDesc
from .lower import lower_expression, lower_expression_generic
from .sizes import expression_free, expression_key, expression_sizes
from .validate import validate_expression
from .vector_rows import expression_variants

__all__ = ['ExpressionDesc']

FAMILY = Family(
    "expression",
    {
        ExpressionDesc: Rules(validate_expression, lower_expression, directml=False,
                              generic=GenericRules(expression_sizes, expression_free,
                                                   expression_key, lower_expression_generic,
                                                   variants=expression_variants)),
    },
    exports=tuple(__all__))
