"""DML_ONE_HOT."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...family.tensor import IndexBounds, TensorDesc


@dataclass(frozen=True, kw_only=True)
class OneHotDesc:
    """DML_ONE_HOT_OPERATOR_DESC: output[c] = values[1] where indices (at c, with c[axis] = 0)
    equals c[axis], else values[0]."""

    indices: TensorDesc
    """IndicesTensor: int32/int64/uint32/uint64, the output's sizes but 1 along Axis."""
    values: TensorDesc
    """ValuesTensor: 2 elements, {off, on} (sizes 1 but the last, 2); the output's type."""
    output: TensorDesc
    """OutputTensor: its size along Axis is the depth (the number of classes). Required:
    nothing else gives the depth."""
    axis: int
    """Axis: the dimension of the classes."""

    operator = "DML_ONE_HOT"
    has_indices: ClassVar[bool] = True
    dml_fields: ClassVar[dict[str, str | None]] = {
        "IndicesTensor": "indices", "ValuesTensor": "values", "OutputTensor": "output",
        "Axis": "axis"}

    def index_bounds(self) -> IndexBounds:
        return IndexBounds("IndicesTensor", self.indices, (self.output.sizes[self.axis],))
