"""DML_ELEMENT_WISE_IDENTITY (a strided view made contiguous), DML_SLICE (the first slice, with
unsigned strides) and DML_SLICE_GRAD (a slice's window written back into zeros)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .tensor import TensorDesc, as_tuple


@dataclass(frozen=True, kw_only=True)
class IdentityDesc:
    """DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC: output = input, element by element. The input's
    strides make it any view (a transpose, a broadcast with stride 0, NHWC read as NCHW). The
    output is packed by default (the view made contiguous); given with strides and an offset, it
    is a view written in place (each element at its own address), and the kernel then takes its
    whole buffer as `out=`."""

    input: TensorDesc
    """InputTensor."""
    output: TensorDesc | None = None
    """OutputTensor: the input's sizes and type. None: inferred."""
    scale_bias: Any = None
    """ScaleBias: must be absent (it would compute, and dmlc only moves data)."""

    operator = "DML_ELEMENT_WISE_IDENTITY"
    has_indices: ClassVar[bool] = False
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "OutputTensor": "output", "ScaleBias": "scale_bias"}


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
