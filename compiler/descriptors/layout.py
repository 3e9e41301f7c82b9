"""DML_TILE, DML_PADDING(1), DML_SPACE_TO_DEPTH(1) and DML_DEPTH_TO_SPACE(1): operators where
each output element reads one input element found by index arithmetic alone (no indices)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .tensor import TensorDesc, as_tuple


@dataclass(frozen=True, kw_only=True)
class TileDesc:
    """DML_TILE_OPERATOR_DESC: the input repeated `repeats[d]` times along each dimension d
    (ONNX Tile, numpy.tile)."""

    input: TensorDesc
    """InputTensor."""
    repeats: tuple[int, ...]
    """Repeats (RepeatsCount of them: one per dimension, each >= 1)."""
    output: TensorDesc | None = None
    """OutputTensor: sizes[d] * repeats[d]. None: inferred."""

    operator = "DML_TILE"
    has_indices: ClassVar[bool] = False
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "OutputTensor": "output", "RepeatsCount": None,
        "Repeats": "repeats"}

    def __post_init__(self) -> None:
        object.__setattr__(self, "repeats", as_tuple(self.operator, "Repeats", self.repeats))


PADDING_MODES = ("DML_PADDING_MODE_CONSTANT", "DML_PADDING_MODE_EDGE",
                 "DML_PADDING_MODE_REFLECTION", "DML_PADDING_MODE_SYMMETRIC",
                 "DML_PADDING_MODE_WRAP")


@dataclass(frozen=True, kw_only=True)
class PaddingDesc:
    """DML_PADDING1_OPERATOR_DESC: the input with start_padding[d] elements before and
    end_padding[d] after it along each dimension d, filled as `mode` says: CONSTANT with
    `value`; EDGE repeats the border element; REFLECTION mirrors without repeating the border
    (numpy's "reflect"); SYMMETRIC mirrors repeating it; WRAP continues from the other side
    (feature level 6.4)."""

    input: TensorDesc
    """InputTensor."""
    mode: str
    """PaddingMode: one of PADDING_MODES."""
    start_padding: tuple[int, ...]
    """StartPadding: elements before the input, per dimension (DimensionCount of them)."""
    end_padding: tuple[int, ...]
    """EndPadding: elements after it."""
    value: int | float = 0
    """PaddingValue (DML_SCALAR_UNION): the constant, as an element of the input's type;
    integers exactly (an int64 never passes through a float), floats rounded to nearest."""
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


@dataclass(frozen=True, kw_only=True)
class Padding0Desc(PaddingDesc):
    """DML_PADDING_OPERATOR_DESC: DML_PADDING1 with a FLOAT PaddingValue (converted to the
    input's type)."""

    operator = "DML_PADDING"
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "OutputTensor": "output", "PaddingMode": "mode",
        "PaddingValue": "value", "DimensionCount": None, "StartPadding": "start_padding",
        "EndPadding": "end_padding"}


DEPTH_SPACE_ORDERS = ("DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW",
                      "DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH")
"""DCR (depth, then column, then row: ONNX's default) and CRD."""


@dataclass(frozen=True, kw_only=True)
class SpaceToDepthDesc:
    """DML_SPACE_TO_DEPTH1_OPERATOR_DESC: NCHW [N, C, H, W] -> [N, C*b*b, H/b, W/b], each
    b x b block of space moved into channels in `order`."""

    input: TensorDesc
    """InputTensor: 4 dimensions, H and W multiples of block_size."""
    block_size: int
    """BlockSize: >= 1."""
    order: str = DEPTH_SPACE_ORDERS[0]
    """Order: one of DEPTH_SPACE_ORDERS."""
    output: TensorDesc | None = None
    """OutputTensor. None: inferred."""

    operator = "DML_SPACE_TO_DEPTH1"
    has_indices: ClassVar[bool] = False
    to_depth: ClassVar[bool] = True
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "OutputTensor": "output", "BlockSize": "block_size",
        "Order": "order"}


@dataclass(frozen=True, kw_only=True)
class DepthToSpaceDesc(SpaceToDepthDesc):
    """DML_DEPTH_TO_SPACE1_OPERATOR_DESC: NCHW [N, C, H, W] -> [N, C/(b*b), H*b, W*b], the
    inverse of SPACE_TO_DEPTH1 of the same order."""

    operator = "DML_DEPTH_TO_SPACE1"
    to_depth: ClassVar[bool] = False


_V0_FIELDS: dict[str, str | None] = {"InputTensor": "input", "OutputTensor": "output",
                                     "BlockSize": "block_size"}


@dataclass(frozen=True, kw_only=True)
class SpaceToDepth0Desc(SpaceToDepthDesc):
    """DML_SPACE_TO_DEPTH_OPERATOR_DESC: SPACE_TO_DEPTH1 in DCR order."""

    operator = "DML_SPACE_TO_DEPTH"
    dml_fields: ClassVar[dict[str, str | None]] = _V0_FIELDS


@dataclass(frozen=True, kw_only=True)
class DepthToSpace0Desc(DepthToSpaceDesc):
    """DML_DEPTH_TO_SPACE_OPERATOR_DESC: DEPTH_TO_SPACE1 in DCR order."""

    operator = "DML_DEPTH_TO_SPACE"
    dml_fields: ClassVar[dict[str, str | None]] = _V0_FIELDS
