"""Operator descriptors: frozen mirrors of DirectML's DML_*_OPERATOR_DESC structures, one module
per operator family.

Descriptors are data, not IR. `validate.validate()` checks one completely (against its DirectML
page) and returns it with its OutputTensor filled in; `lower.lower()` turns a validated
descriptor into IR.
"""
from __future__ import annotations

from .copy import IdentityDesc, SliceDesc, SliceGradDesc
from .expression import ExpressionDesc
from .indexed import GatherDesc, GatherElementsDesc, ScatterDesc, axis_bounds
from .join import JoinDesc, SplitDesc, list_argument
from .layout import (
    DepthToSpace0Desc,
    DepthToSpaceDesc,
    Padding0Desc,
    PaddingDesc,
    SpaceToDepth0Desc,
    SpaceToDepthDesc,
    TileDesc,
)
from .nd import GatherND1Desc, GatherNDDesc, OneHotDesc, ReverseSubsequencesDesc
from .scatternd import ScatterNDDesc
from .slice import Slice1Desc
from .tensor import IndexBounds, TensorDesc, as_tuple

__all__ = ["DIRECTML_OPERATORS", "DepthToSpace0Desc", "DepthToSpaceDesc", "ExpressionDesc",
           "GatherDesc", "GatherElementsDesc", "GatherND1Desc", "GatherNDDesc",
           "IN_PLACE_OPERATORS", "IdentityDesc", "IndexBounds", "JoinDesc", "OneHotDesc",
           "OperatorDesc", "Padding0Desc", "PaddingDesc", "ReverseSubsequencesDesc",
           "ScatterDesc", "ScatterNDDesc", "Slice1Desc", "SliceDesc", "SliceGradDesc",
           "SpaceToDepth0Desc", "SpaceToDepthDesc", "SplitDesc", "TensorDesc", "TileDesc",
           "as_tuple", "axis_bounds", "dml_field", "list_argument"]

OperatorDesc = (GatherDesc | GatherElementsDesc | ScatterDesc | Slice1Desc | JoinDesc | SplitDesc
                | TileDesc | PaddingDesc | SpaceToDepthDesc | GatherND1Desc | OneHotDesc
                | ReverseSubsequencesDesc | IdentityDesc | SliceDesc | SliceGradDesc
                | ScatterNDDesc | ExpressionDesc)

DIRECTML_OPERATORS = (GatherDesc, GatherElementsDesc, ScatterDesc, Slice1Desc, JoinDesc,
                      SplitDesc, TileDesc, PaddingDesc, Padding0Desc, SpaceToDepthDesc,
                      DepthToSpaceDesc, SpaceToDepth0Desc, DepthToSpace0Desc, GatherND1Desc,
                      GatherNDDesc, OneHotDesc, ReverseSubsequencesDesc, IdentityDesc, SliceDesc,
                      SliceGradDesc, ScatterNDDesc)
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
