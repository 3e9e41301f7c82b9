"""DML_PADDING1 and DML_PADDING."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...family.tensor import TensorDesc, as_tuple, hash_once

PADDING_MODES = ("DML_PADDING_MODE_CONSTANT", "DML_PADDING_MODE_EDGE",
                 "DML_PADDING_MODE_REFLECTION", "DML_PADDING_MODE_SYMMETRIC",
                 "DML_PADDING_MODE_WRAP")


@dataclass(frozen=True)
class ElementBits:
    """A PaddingValue given by its raw bits, as DML_SCALAR_UNION holds it: how a float NaN
    keeps its payload (numpy's np.float32 NaN becomes one in dmlc.pad; no Python float can)."""

    data_type: str
    """The element type the bits are of (a DataType's value: "float32")."""
    bits: int


@hash_once
@dataclass(frozen=True, kw_only=True)
class PaddingDesc:
    """DML_PADDING1_OPERATOR_DESC: the input with start_padding[d] elements before and
    end_padding[d] after it along each dimension d, filled as `mode` says: CONSTANT with
    `value`; EDGE repeats the border element; REFLECTION mirrors without repeating the border
    (numpy's "reflect"); SYMMETRIC mirrors repeating it; WRAP continues from the other side
    (feature level 6.4).

    Parameters
    ----------
    input : TensorDesc
        InputTensor.
    mode : str
        PaddingMode: "DML_PADDING_MODE_CONSTANT", "..._EDGE", "..._REFLECTION", "..._SYMMETRIC"
        or "..._WRAP" (the short names too).
    start_padding, end_padding : tuple of int
        StartPadding and EndPadding.
    value : int or float, default 0
        PaddingValue.
    value_type : str, optional
        PaddingValueDataType (default: the input's).
    output : TensorDesc, optional
        OutputTensor (inferred when None).

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.PaddingDesc(
    ...     input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(3,)), mode="DML_PADDING_MODE_EDGE",
    ...     start_padding=(1,), end_padding=(2,)))
    >>> print(kernel(np.array([1., 2., 3.], np.float32)))
    [1. 1. 2. 3. 3. 3.]
    """

    input: TensorDesc
    """InputTensor."""
    mode: str
    """PaddingMode: one of PADDING_MODES."""
    start_padding: tuple[int, ...]
    """StartPadding: elements before the input, per dimension (DimensionCount of them)."""
    end_padding: tuple[int, ...]
    """EndPadding: elements after it."""
    value: int | float | ElementBits = 0
    """PaddingValue (DML_SCALAR_UNION): the constant, as an element of the input's type;
    integers exactly (an int64 never passes through a float), floats rounded to nearest; or
    its raw bits (ElementBits: a NaN's payload, which no Python float keeps)."""
    value_type: str | None = None
    """PaddingValueDataType: must be the input's data type. None: the input's."""
    output: TensorDesc | None = None
    """OutputTensor: sizes[d] + start_padding[d] + end_padding[d]. None: inferred."""

    operator = "DML_PADDING1"
    has_indices: ClassVar[bool] = False
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "OutputTensor": "output", "PaddingMode": "mode",
        "PaddingValueDataType": "value_type", "PaddingValue": "value", "DimensionCount": None,
        "StartPadding": "start_padding", "EndPadding": "end_padding"}

    def __post_init__(self) -> None:
        for name, field in (("start_padding", "StartPadding"), ("end_padding", "EndPadding")):
            object.__setattr__(self, name, as_tuple(self.operator, field, getattr(self, name)))


@hash_once
@dataclass(frozen=True, kw_only=True)
class Padding0Desc(PaddingDesc):
    """DML_PADDING_OPERATOR_DESC: DML_PADDING1 with a FLOAT PaddingValue (converted to the
    input's type).

    Parameters
    ----------
    input : TensorDesc
        InputTensor.
    mode : str
        PaddingMode: "DML_PADDING_MODE_CONSTANT", "..._EDGE", "..._REFLECTION", "..._SYMMETRIC"
        or "..._WRAP" (the short names too).
    start_padding, end_padding : tuple of int
        StartPadding and EndPadding.
    value : int or float, default 0
        PaddingValue.
    value_type : str, optional
        PaddingValueDataType (default: the input's).
    output : TensorDesc, optional
        OutputTensor (inferred when None).

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.Padding0Desc(
    ...     input=dmlc.TensorDesc(data_type="INT32", sizes=(2,)), mode="DML_PADDING_MODE_CONSTANT",
    ...     start_padding=(1,), end_padding=(1,), value=7.0))
    >>> print(kernel(np.array([1, 2], np.int32)))
    [7 1 2 7]
    """

    operator = "DML_PADDING"
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "OutputTensor": "output", "PaddingMode": "mode",
        "PaddingValue": "value", "DimensionCount": None, "StartPadding": "start_padding",
        "EndPadding": "end_padding"}
