"""Operator descriptors: frozen mirrors of DirectML's DML_*_OPERATOR_DESC structures, one module
per operator family.

Descriptors are data, not IR. `validate.validate()` checks one completely (SPEC.md) and returns
it with its OutputTensor filled in; `lower.lower()` turns a validated descriptor into IR.
"""
from __future__ import annotations

from .expression import ExpressionDesc
from .indexed import GatherDesc, GatherElementsDesc, ScatterDesc, axis_bounds
from .join import JoinDesc, SplitDesc, list_argument
from .scatternd import ScatterNDDesc
from .slice import Slice1Desc
from .tensor import IndexBounds, TensorDesc, as_tuple

__all__ = ["DIRECTML_OPERATORS", "ExpressionDesc", "GatherDesc", "GatherElementsDesc",
           "IN_PLACE_OPERATORS", "IndexBounds", "JoinDesc", "OperatorDesc", "ScatterDesc",
           "ScatterNDDesc", "Slice1Desc", "SplitDesc",
           "TensorDesc", "as_tuple", "axis_bounds", "dml_field", "list_argument"]

OperatorDesc = (GatherDesc | GatherElementsDesc | ScatterDesc | Slice1Desc | JoinDesc | SplitDesc
                | ExpressionDesc | ScatterNDDesc)

DIRECTML_OPERATORS = (GatherDesc, GatherElementsDesc, ScatterDesc, Slice1Desc, JoinDesc,
                      SplitDesc, ScatterNDDesc)
"""The descriptors that mirror a DML_*_OPERATOR_DESC. Each class says, once, what the front end,
checked mode and error messages need to know of it: `operator` (its DirectML name),
`has_indices` (it has an IndicesTensor) and `dml_fields` (DirectML field name -> keyword
argument; None for a field that is only checked, such as DimensionCount)."""


IN_PLACE_OPERATORS = (ScatterDesc, ScatterNDDesc)
"""The scatters: out= their data tensor updates it in place (only the updates are written)."""


def dml_field(desc: OperatorDesc, keyword: str) -> str:
    """How DirectML calls the field a keyword names (input -> InputTensor)."""
    for name, kw in type(desc).dml_fields.items():
        if kw == keyword:
            return name
    return keyword
