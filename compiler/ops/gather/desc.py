"""DML_GATHER and DML_GATHER_ELEMENTS: one index per element, along one axis."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...family.tensor import IndexBounds, TensorDesc, axis_bounds


@dataclass(frozen=True, kw_only=True)
class GatherDesc:
    """DML_GATHER_OPERATOR_DESC: output[...] = input[..., indices[...], ...] along `axis`."""

    input: TensorDesc
    """InputTensor: the tensor to read from."""
    indices: TensorDesc
    """IndicesTensor: INT32, INT64, UINT32 or UINT64, same DimensionCount as the input."""
    axis: int
    """Axis of the input to gather along, in [0, DimensionCount)."""
    index_dimensions: int
    """IndexDimensions: how many trailing dimensions of the indices count, in
    [0, DimensionCount]."""
    output: TensorDesc | None = None
    """OutputTensor. None: inferred (packed, the input's data type)."""

    operator = "DML_GATHER"
    has_indices: ClassVar[bool] = True
    """It has indices: checked mode applies, and index_bounds() says what it checks."""
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "IndicesTensor": "indices", "OutputTensor": "output",
        "Axis": "axis", "IndexDimensions": "index_dimensions"}

    def index_bounds(self) -> IndexBounds:
        return axis_bounds(self)


@dataclass(frozen=True, kw_only=True)
class GatherElementsDesc:
    """DML_GATHER_ELEMENTS_OPERATOR_DESC: output[i,j,k] = input[indices[i,j,k], j, k] (axis 0)."""

    input: TensorDesc
    """InputTensor: the tensor to read from."""
    indices: TensorDesc
    """IndicesTensor: the input's sizes on every dimension but `axis`."""
    axis: int
    """Axis the indices select along, in [0, DimensionCount)."""
    output: TensorDesc | None = None
    """OutputTensor: the indices' sizes, the input's type. None: inferred."""

    operator = "DML_GATHER_ELEMENTS"
    has_indices: ClassVar[bool] = True
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "IndicesTensor": "indices", "OutputTensor": "output",
        "Axis": "axis"}

    def index_bounds(self) -> IndexBounds:
        return axis_bounds(self)
