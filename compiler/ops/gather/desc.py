"""DML_GATHER and DML_GATHER_ELEMENTS: one index per element, along one axis."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...family.tensor import IndexBounds, TensorDesc, axis_bounds, hash_once


@hash_once
@dataclass(frozen=True, kw_only=True)
class GatherDesc:
    """DML_GATHER_OPERATOR_DESC: output[...] = input[..., indices[...], ...] along `axis`.

    Parameters
    ----------
    input : TensorDesc
        InputTensor.
    indices : TensorDesc
        IndicesTensor.
    axis : int
        Axis.
    index_dimensions : int
        IndexDimensions.
    output : TensorDesc, optional
        OutputTensor (inferred when None).

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.GatherDesc(
    ...     input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 3)),
    ...     indices=dmlc.TensorDesc(data_type="INT32", sizes=(1, 2)),
    ...     axis=1, index_dimensions=1))
    >>> print(kernel(np.array([[10., 20., 30.]], np.float32), np.array([[2, 1]], np.int32)))
    [[30. 20.]]
    """

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


@hash_once
@dataclass(frozen=True, kw_only=True)
class GatherElementsDesc:
    """DML_GATHER_ELEMENTS_OPERATOR_DESC: output[i,j,k] = input[indices[i,j,k], j, k] (axis 0).

    Parameters
    ----------
    input : TensorDesc
        InputTensor.
    indices : TensorDesc
        IndicesTensor.
    axis : int
        Axis.
    output : TensorDesc, optional
        OutputTensor (inferred when None).

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.GatherElementsDesc(
    ...     input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(2, 2)),
    ...     indices=dmlc.TensorDesc(data_type="INT32", sizes=(1, 2)), axis=0))
    >>> print(kernel(np.array([[1., 2.], [3., 4.]], np.float32), np.array([[1, 0]], np.int32)))
    [[3. 2.]]
    """

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
