"""DML_ONE_HOT."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...family.tensor import IndexBounds, TensorDesc, hash_once


@hash_once
@dataclass(frozen=True, kw_only=True)
class OneHotDesc:
    """DML_ONE_HOT_OPERATOR_DESC: output[c] = values[1] where indices (at c, with c[axis] = 0)
    equals c[axis], else values[0].

    Parameters
    ----------
    indices : TensorDesc
        IndicesTensor.
    values : TensorDesc
        ValuesTensor: two elements, off then on.
    output : TensorDesc
        OutputTensor (required: its size along `axis` is the depth).
    axis : int
        Axis.

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.OneHotDesc(
    ...     indices=dmlc.TensorDesc(data_type="INT32", sizes=(2, 1)),
    ...     values=dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 2)),
    ...     output=dmlc.TensorDesc(data_type="FLOAT32", sizes=(2, 3)), axis=1))
    >>> print(kernel(np.array([[1], [2]], np.int32), np.array([[0., 1.]], np.float32)))
    [[0. 1. 0.]
     [0. 0. 1.]]
    """

    indices: TensorDesc
    """IndicesTensor: int32/int64/uint32/uint64, the output's sizes but 1 along Axis."""
    values: TensorDesc
    """ValuesTensor: 2 elements, {off, on} (sizes 1 but the last, 2); the output's type."""
    output: TensorDesc
    """OutputTensor: its size along Axis is the depth (the number of classes). Required:
    nothing else gives the depth."""
    axis: int
    """Axis: the dimension of the classes."""

    operator = "DML_ONE_HOT"
    has_indices: ClassVar[bool] = True
    dml_fields: ClassVar[dict[str, str | None]] = {
        "IndicesTensor": "indices", "ValuesTensor": "values", "OutputTensor": "output",
        "Axis": "axis"}

    def index_bounds(self) -> IndexBounds:
        return IndexBounds("IndicesTensor", self.indices, (self.output.sizes[self.axis],))
