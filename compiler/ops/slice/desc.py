"""DML_SLICE1 (a strided window), DML_SLICE (its first version, unsigned strides) and
DML_SLICE_GRAD (a slice's window written back into zeros)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...family.tensor import TensorDesc, as_tuple, hash_once


@hash_once
@dataclass(frozen=True, kw_only=True)
class Slice1Desc:
    """DML_SLICE1_OPERATOR_DESC: output[c] = input[start + stride * c] per dimension, where
    start = offset, or offset + size - 1 for a negative stride.

    Parameters
    ----------
    input : TensorDesc
        InputTensor.
    offsets, sizes, strides : tuple of int
        InputWindowOffsets, InputWindowSizes, InputWindowStrides.
    output : TensorDesc, optional
        OutputTensor (inferred when None).

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.Slice1Desc(
    ...     input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(5,)),
    ...     offsets=(1,), sizes=(4,), strides=(-2,)))
    >>> print(kernel(np.arange(5, dtype=np.float32)))
    [4. 2.]
    """

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


@hash_once
@dataclass(frozen=True, kw_only=True)
class SliceDesc:
    """DML_SLICE_OPERATOR_DESC: output[c] = input[offsets + strides * c], with `sizes` the
    output's sizes and strides >= 1 (DML_SLICE1 generalizes it).

    Parameters
    ----------
    input : TensorDesc
        InputTensor.
    offsets, sizes, strides : tuple of int
        Offsets, Sizes (the output's) and Strides (at least 1).
    output : TensorDesc, optional
        OutputTensor (inferred when None).

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.SliceDesc(
    ...     input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(5,)),
    ...     offsets=(1,), sizes=(2,), strides=(2,)))
    >>> print(kernel(np.arange(5, dtype=np.float32)))
    [1. 3.]
    """

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


@hash_once
@dataclass(frozen=True, kw_only=True)
class SliceGradDesc:
    """DML_SLICE_GRAD_OPERATOR_DESC: the gradient of a DML_SLICE1 with this window: zeros of the
    sliced tensor's sizes, with input_gradient written back where the slice read.

    Parameters
    ----------
    input_gradient : TensorDesc
        InputGradientTensor: the slice's output gradient.
    output_gradient : TensorDesc
        OutputGradientTensor: the sliced tensor's sizes.
    offsets, sizes, strides : tuple of int
        The slice's window, as Slice1Desc's.

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.SliceGradDesc(
    ...     input_gradient=dmlc.TensorDesc(data_type="FLOAT32", sizes=(2,)),
    ...     output_gradient=dmlc.TensorDesc(data_type="FLOAT32", sizes=(5,)),
    ...     offsets=(1,), sizes=(4,), strides=(2,)))
    >>> print(kernel(np.array([1., 2.], np.float32)))
    [0. 1. 0. 2. 0.]
    """

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
