"""DML_SCATTER (ScatterElements: one index per element, along one axis) and DML_SCATTER_ND
(ONNX ScatterND: index tuples, each selecting a slice of the input)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...family.tensor import IndexBounds, TensorDesc, axis_bounds, hash_once


@hash_once
@dataclass(frozen=True, kw_only=True)
class ScatterNDDesc:
    """DML_SCATTER_ND_OPERATOR_DESC: output = input, then output[indices[b]] = updates[b] for
    every index tuple b (the last dimension of `indices` holds a tuple's k coordinates, which
    address the first k of the input's InputDimensionCount dimensions; the rest is the slice
    the update row fills). Collisions: the update last in row-major order of `updates` wins;
    an update whose tuple has an out-of-range coordinate is dropped.

    Parameters
    ----------
    input : TensorDesc
        InputTensor.
    indices : TensorDesc
        IndicesTensor.
    updates : TensorDesc
        UpdatesTensor.
    input_dimension_count : int
        InputDimensionCount.
    indices_dimension_count : int
        IndicesDimensionCount.
    output : TensorDesc, optional
        OutputTensor (inferred when None).
    reduction : {"none", "add", "mul", "max", "min"}, default "none"
        ONNX's reduction, dmlc's extension.

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.ScatterNDDesc(
    ...     input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 4)),
    ...     indices=dmlc.TensorDesc(data_type="INT32", sizes=(2, 1)),
    ...     updates=dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 2)),
    ...     input_dimension_count=1, indices_dimension_count=2))
    >>> print(kernel(np.zeros((1, 4), np.float32), np.array([[1], [3]], np.int32),
    ...              np.array([[5., 6.]], np.float32)))
    [[0. 5. 0. 6.]]
    """

    input: TensorDesc
    """InputTensor: the values the output starts from."""
    indices: TensorDesc
    """IndicesTensor: INT32, INT64, UINT32 or UINT64; its last dimension (k, the tuple size)
    is at most InputDimensionCount."""
    updates: TensorDesc
    """UpdatesTensor: indices.Sizes[D-IndicesDimensionCount : D-1] ++ the input's sizes after
    the k indexed dimensions, right-aligned to D with leading 1s; the input's type."""
    input_dimension_count: int
    """InputDimensionCount: the input's dimensions that count (after its leading 1s), in
    [1, DimensionCount]."""
    indices_dimension_count: int
    """IndicesDimensionCount: the indices' dimensions that count, in [1, DimensionCount]."""
    output: TensorDesc | None = None
    """OutputTensor: the input's sizes and type. None: inferred."""
    reduction: str = "none"
    """dmlc's, beyond DirectML (ONNX's attribute): "none", "add", "mul", "max" or "min", as
    ScatterDesc.reduction."""

    operator = "DML_SCATTER_ND"
    has_indices: ClassVar[bool] = True
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "IndicesTensor": "indices", "UpdatesTensor": "updates",
        "OutputTensor": "output", "InputDimensionCount": "input_dimension_count",
        "IndicesDimensionCount": "indices_dimension_count"}

    @property
    def first_indexed(self) -> int:
        """The input dimension a tuple's coordinate 0 indexes: D - InputDimensionCount."""
        return self.input.rank - self.input_dimension_count

    @property
    def tuple_size(self) -> int:
        """k: coordinates per index tuple (the indices' last size)."""
        return self.indices.sizes[-1]

    def index_bounds(self) -> IndexBounds:
        """Coordinate j of a tuple (indices' last axis) indexes input dimension
        first_indexed + j."""
        first, k = self.first_indexed, self.tuple_size
        return IndexBounds("IndicesTensor", self.indices, self.input.sizes[first:first + k],
                           dim_axis=self.indices.rank - 1)


@hash_once
@dataclass(frozen=True, kw_only=True)
class ScatterDesc:
    """DML_SCATTER_OPERATOR_DESC (ScatterElements): output = input, then
    output[indices[i,j,k], j, k] = updates[i,j,k] (axis 0). Collisions: the update last in
    row-major order of `updates` wins; out-of-range updates are dropped.

    Parameters
    ----------
    input : TensorDesc
        InputTensor.
    indices : TensorDesc
        IndicesTensor, of updates' sizes.
    updates : TensorDesc
        UpdatesTensor.
    axis : int
        Axis.
    output : TensorDesc, optional
        OutputTensor (inferred when None).
    reduction : {"none", "add", "mul", "max", "min"}, default "none"
        ONNX's reduction, dmlc's extension.

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.ScatterDesc(
    ...     input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 4)),
    ...     indices=dmlc.TensorDesc(data_type="INT32", sizes=(1, 2)),
    ...     updates=dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 2)), axis=1))
    >>> print(kernel(np.zeros((1, 4), np.float32), np.array([[3, 0]], np.int32),
    ...              np.array([[1., 2.]], np.float32)))
    [[2. 0. 0. 1.]]
    """

    input: TensorDesc
    """InputTensor: the values the output starts from."""
    indices: TensorDesc
    """IndicesTensor: the input's sizes on every dimension but `axis`."""
    updates: TensorDesc
    """UpdatesTensor: the indices' sizes, the input's type."""
    axis: int
    """Axis the indices select along, in [0, DimensionCount)."""
    output: TensorDesc | None = None
    """OutputTensor: the input's sizes and type. None: inferred."""
    reduction: str = "none"
    """dmlc's, beyond DirectML (ONNX's attribute): "none" (the last update wins), or "add",
    "mul", "max", "min": every update combined into its target in row-major order of
    `updates`, as numpy would one at a time (ops/scatter/reduce.py)."""

    operator = "DML_SCATTER"
    has_indices: ClassVar[bool] = True
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "IndicesTensor": "indices", "UpdatesTensor": "updates",
        "OutputTensor": "output", "Axis": "axis"}

    def index_bounds(self) -> IndexBounds:
        return axis_bounds(self)
