"""DML_SLICE1 (a strided window), DML_SLICE (its first version, unsigned strides) and
DML_SLICE_GRAD (a slice's window written back into zeros)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...family.tensor import TensorDesc, as_tuple


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


@dataclass(frozen=True, kw_only=True)
class SliceDesc:
    """DML_SLICE_OPERATOR_DESC: output[c] = input[offsets + strides * c], with `sizes` the
    output's sizes and strides >= 1 (DML_SLICE1 generalizes it)."""

    input: TensorDesc
    """InputTensor."""
    offsets: tuple[int, ...]
    """Offsets: the first element copied, per dimension."""
    sizes: tuple[int, ...]
    """Sizes: the elements copied per dimension: the output's sizes."""
    strides: tuple[int, ...]
    """Strides: >= 1; every element read inside the input."""
    output: TensorDesc | None = None
    """OutputTensor: of `sizes`. None: inferred."""

    operator = "DML_SLICE"
    has_indices: ClassVar[bool] = False
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "OutputTensor": "output", "DimensionCount": None,
        "Offsets": "offsets", "Sizes": "sizes", "Strides": "strides"}

    def __post_init__(self) -> None:
        for name, field in (("offsets", "Offsets"), ("sizes", "Sizes"), ("strides", "Strides")):
            object.__setattr__(self, name, as_tuple(self.operator, field, getattr(self, name)))


@dataclass(frozen=True, kw_only=True)
class SliceGradDesc:
    """DML_SLICE_GRAD_OPERATOR_DESC: the gradient of a DML_SLICE1 with this window: zeros of the
    sliced tensor's sizes, with input_gradient written back where the slice read."""

    input_gradient: TensorDesc
    """InputGradientTensor: the slice's output sizes (the gradient arriving from it)."""
    output_gradient: TensorDesc
    """OutputGradientTensor: the sliced tensor's sizes and the gradient's type (required:
    nothing else gives the sizes)."""
    offsets: tuple[int, ...]
    """InputWindowOffsets, as DML_SLICE1's."""
    sizes: tuple[int, ...]
    """InputWindowSizes, as DML_SLICE1's."""
    strides: tuple[int, ...]
    """InputWindowStrides, as DML_SLICE1's: signed, non-zero."""

    operator = "DML_SLICE_GRAD"
    has_indices: ClassVar[bool] = False
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputGradientTensor": "input_gradient", "OutputGradientTensor": "output_gradient",
        "DimensionCount": None, "InputWindowOffsets": "offsets", "InputWindowSizes": "sizes",
        "InputWindowStrides": "strides"}

    def __post_init__(self) -> None:
        for name, field in (("offsets", "InputWindowOffsets"), ("sizes", "InputWindowSizes"),
                            ("strides", "InputWindowStrides")):
            object.__setattr__(self, name, as_tuple(self.operator, field, getattr(self, name)))

    @property
    def output(self) -> TensorDesc:
        return self.output_gradient
