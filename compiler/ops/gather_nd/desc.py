"""DML_GATHER_ND1 and DML_GATHER_ND: index tuples, each selecting a slice of the input."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...family.tensor import IndexBounds, TensorDesc, hash_once


@hash_once
@dataclass(frozen=True, kw_only=True)
class GatherND1Desc:
    """DML_GATHER_ND1_OPERATOR_DESC (ONNX GatherND):
    output[batch, ..., tail] = input[batch, indices[batch, ..., :], tail].

    The three tensors share one DimensionCount D (leading 1s pad the smaller ranks).

    Parameters
    ----------
    input : TensorDesc
        InputTensor.
    indices : TensorDesc
        IndicesTensor.
    input_dimension_count, indices_dimension_count : int, optional
        InputDimensionCount and IndicesDimensionCount (default: the DimensionCount).
    batch_dimension_count : int, default 0
        BatchDimensionCount.
    output : TensorDesc, optional
        OutputTensor (inferred when None).

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.GatherND1Desc(
    ...     input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(2, 2)),
    ...     indices=dmlc.TensorDesc(data_type="INT32", sizes=(2, 2))))
    >>> x = np.array([[1., 2.], [3., 4.]], np.float32)
    >>> print(kernel(x, np.array([[1, 1], [0, 1]], np.int32)))
    [[4. 2.]]
    """

    input: TensorDesc
    """InputTensor: its last input_dimension_count dimensions are real."""
    indices: TensorDesc
    """IndicesTensor: int32/int64/uint32/uint64, D dimensions; its last
    indices_dimension_count are real, and the last of those holds the coordinate tuples (k
    coordinates, k <= input_dimension_count - batch_dimension_count)."""
    input_dimension_count: int | None = None
    """InputDimensionCount. None: D."""
    indices_dimension_count: int | None = None
    """IndicesDimensionCount. None: D."""
    batch_dimension_count: int = 0
    """BatchDimensionCount: leading real dimensions input and indices share."""
    output: TensorDesc | None = None
    """OutputTensor: D dimensions, right-aligned: the indices' real sizes but the last, then
    the input's after the batch and indexed ones. None: inferred."""

    operator = "DML_GATHER_ND1"
    has_indices: ClassVar[bool] = True
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "IndicesTensor": "indices", "OutputTensor": "output",
        "InputDimensionCount": "input_dimension_count",
        "IndicesDimensionCount": "indices_dimension_count",
        "BatchDimensionCount": "batch_dimension_count"}

    @property
    def tuple_size(self) -> int:
        return self.indices.sizes[-1]

    def index_bounds(self) -> IndexBounds:
        """Coordinate j of each tuple indexes the input's dimension after the batch ones."""
        d, r = self.input.rank, self.input_dimension_count or self.input.rank
        first = d - r + self.batch_dimension_count
        return IndexBounds("IndicesTensor", self.indices,
                           self.input.sizes[first:first + self.tuple_size],
                           self.indices.rank - 1)


@hash_once
@dataclass(frozen=True, kw_only=True)
class GatherNDDesc(GatherND1Desc):
    """DML_GATHER_ND_OPERATOR_DESC: DML_GATHER_ND1 without batch dimensions.

    Parameters
    ----------
    input : TensorDesc
        InputTensor.
    indices : TensorDesc
        IndicesTensor.
    input_dimension_count, indices_dimension_count : int, optional
        InputDimensionCount and IndicesDimensionCount (default: the DimensionCount).
    batch_dimension_count : int, default 0
        0: DML_GATHER_ND has no batch dimensions.
    output : TensorDesc, optional
        OutputTensor (inferred when None).

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.GatherNDDesc(
    ...     input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(2, 2)),
    ...     indices=dmlc.TensorDesc(data_type="INT32", sizes=(2, 1))))
    >>> print(kernel(np.array([[1., 2.], [3., 4.]], np.float32), np.array([[1], [0]], np.int32)))
    [[3. 4.]
     [1. 2.]]
    """

    operator = "DML_GATHER_ND"
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "IndicesTensor": "indices", "OutputTensor": "output",
        "InputDimensionCount": "input_dimension_count",
        "IndicesDimensionCount": "indices_dimension_count"}
