"""DML_SPACE_TO_DEPTH1, DML_DEPTH_TO_SPACE1 and their first versions."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...family.tensor import TensorDesc, hash_once

DEPTH_SPACE_ORDERS = ("DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW",
                      "DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH")
"""DCR (depth, then column, then row: ONNX's default) and CRD."""


@hash_once
@dataclass(frozen=True, kw_only=True)
class SpaceToDepthDesc:
    """DML_SPACE_TO_DEPTH1_OPERATOR_DESC: NCHW [N, C, H, W] -> [N, C*b*b, H/b, W/b], each
    b x b block of space moved into channels in `order`.

    Parameters
    ----------
    input : TensorDesc
        InputTensor, NCHW.
    block_size : int
        BlockSize.
    order : str, default "DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW"
        Order (DCR; or "DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH", CRD).
    output : TensorDesc, optional
        OutputTensor (inferred when None).

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.SpaceToDepthDesc(
    ...     input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 1, 2, 2)), block_size=2))
    >>> print(kernel(np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)).shape)
    (1, 4, 1, 1)
    """

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


@hash_once
@dataclass(frozen=True, kw_only=True)
class DepthToSpaceDesc(SpaceToDepthDesc):
    """DML_DEPTH_TO_SPACE1_OPERATOR_DESC: NCHW [N, C, H, W] -> [N, C/(b*b), H*b, W*b], the
    inverse of SPACE_TO_DEPTH1 of the same order.

    Parameters
    ----------
    input : TensorDesc
        InputTensor, NCHW.
    block_size : int
        BlockSize.
    order : str, default "DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW"
        Order (DCR; or "DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH", CRD).
    output : TensorDesc, optional
        OutputTensor (inferred when None).

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.DepthToSpaceDesc(
    ...     input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 4, 1, 1)), block_size=2))
    >>> print(kernel(np.arange(4, dtype=np.float32).reshape(1, 4, 1, 1))[0, 0])
    [[0. 1.]
     [2. 3.]]
    """

    operator = "DML_DEPTH_TO_SPACE1"
    to_depth: ClassVar[bool] = False


_V0_FIELDS: dict[str, str | None] = {"InputTensor": "input", "OutputTensor": "output",
                                     "BlockSize": "block_size"}


@hash_once
@dataclass(frozen=True, kw_only=True)
class SpaceToDepth0Desc(SpaceToDepthDesc):
    """DML_SPACE_TO_DEPTH_OPERATOR_DESC: SPACE_TO_DEPTH1 in DCR order.

    Parameters
    ----------
    input : TensorDesc
        InputTensor, NCHW.
    block_size : int
        BlockSize.
    order : str, default "DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW"
        DCR, the only order of DML_SPACE_TO_DEPTH.
    output : TensorDesc, optional
        OutputTensor (inferred when None).

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.SpaceToDepth0Desc(
    ...     input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 1, 2, 2)), block_size=2))
    >>> print(kernel(np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)).reshape(-1))
    [0. 1. 2. 3.]
    """

    operator = "DML_SPACE_TO_DEPTH"
    dml_fields: ClassVar[dict[str, str | None]] = _V0_FIELDS


@hash_once
@dataclass(frozen=True, kw_only=True)
class DepthToSpace0Desc(DepthToSpaceDesc):
    """DML_DEPTH_TO_SPACE_OPERATOR_DESC: DEPTH_TO_SPACE1 in DCR order.

    Parameters
    ----------
    input : TensorDesc
        InputTensor, NCHW.
    block_size : int
        BlockSize.
    order : str, default "DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW"
        DCR, the only order of DML_DEPTH_TO_SPACE.
    output : TensorDesc, optional
        OutputTensor (inferred when None).

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.DepthToSpace0Desc(
    ...     input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 4, 1, 1)), block_size=2))
    >>> print(kernel(np.arange(4, dtype=np.float32).reshape(1, 4, 1, 1))[0, 0])
    [[0. 1.]
     [2. 3.]]
    """

    operator = "DML_DEPTH_TO_SPACE"
    dml_fields: ClassVar[dict[str, str | None]] = _V0_FIELDS
