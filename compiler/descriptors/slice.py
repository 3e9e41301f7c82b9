"""DML_SLICE1: a strided window."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .tensor import TensorDesc, as_tuple


@dataclass(frozen=True, kw_only=True)
class Slice1Desc:
    """DML_SLICE1_OPERATOR_DESC: output[c] = input[start + stride * c] per dimension, where
    start = offset, or offset + size - 1 for a negative stride."""

    input: TensorDesc
    """InputTensor: the tensor to read from."""
    offsets: tuple[int, ...]
    """InputWindowOffsets: where each dimension's window starts, >= 0."""
    sizes: tuple[int, ...]
    """InputWindowSizes: each window's extent, >= 1, inside the input."""
    strides: tuple[int, ...]
    """InputWindowStrides: signed, non-zero; negative walks the window backwards."""
    output: TensorDesc | None = None
    """OutputTensor. None: the largest output, 1 + (size - 1) // |stride| per dimension."""

    operator = "DML_SLICE1"
    has_indices: ClassVar[bool] = False
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "OutputTensor": "output", "DimensionCount": None,
        "InputWindowOffsets": "offsets", "InputWindowSizes": "sizes",
        "InputWindowStrides": "strides"}

    def __post_init__(self) -> None:
        for name, field in (("offsets", "InputWindowOffsets"), ("sizes", "InputWindowSizes"),
                            ("strides", "InputWindowStrides")):
            object.__setattr__(self, name, as_tuple(self.operator, field, getattr(self, name)))
