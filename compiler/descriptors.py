"""Operator descriptors: frozen mirrors of DirectML's DML_*_OPERATOR_DESC structures.

Descriptors are data, not IR. `validate.validate()` checks one completely (SPEC.md) and returns
it with its OutputTensor filled in; `lower.lower()` turns a validated descriptor into IR.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from .dtypes import DataType
from .errors import ValidationError
from .expression.tree import MAX_NESTING, Load, nesting_depth


def as_tuple(op: str, field: str, values: object) -> tuple[object, ...]:
    """A list field as a tuple (its items are checked by validate()); anything that is not a
    sequence is a ValidationError, not a TypeError."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ValidationError(op, field, "a list of integers", repr(values))
    try:
        return tuple(values)
    except Exception as e:
        raise ValidationError(op, field, "a list of integers", repr(values), str(e)) from None


@dataclass(frozen=True, kw_only=True)
class TensorDesc:
    """DML_BUFFER_TENSOR_DESC."""

    data_type: DataType
    """Element type; one of the 11 DataType members."""
    sizes: tuple[int, ...]
    """Size of each dimension, outermost first; 1 to 8 dimensions, each at least 1."""
    strides: tuple[int, ...] | None = None
    """Distance between neighbours of each dimension, in elements. None: packed row-major.
    0 broadcasts a dimension; a permutation describes a transposed layout."""
    total_bytes: int | None = None
    """TotalTensorSizeInBytes. None: the minimum the sizes and strides need (see min_bytes)."""
    offset: int = 0
    """dmlc's extension, not a DML_BUFFER_TENSOR_DESC field: elements of the buffer before
    element 0 (what a DML_BUFFER_BINDING.Offset of offset * element size does), baked into the
    kernel. With it, strides may be negative while every element stays in the buffer: how a
    view such as t[1:, ::-1] is read where it lies, without a copy."""

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "data_type", DataType.of(self.data_type))
        except ValueError:
            raise ValidationError("DML_BUFFER_TENSOR_DESC", "DataType",
                                  "one of " + ", ".join(DataType.__members__),
                                  repr(self.data_type)) from None
        object.__setattr__(self, "sizes", as_tuple("DML_BUFFER_TENSOR_DESC", "Sizes", self.sizes))
        if self.strides is not None:
            object.__setattr__(self, "strides",
                               as_tuple("DML_BUFFER_TENSOR_DESC", "Strides", self.strides))

    @property
    def rank(self) -> int:
        return len(self.sizes)

    @property
    def element_count(self) -> int:
        return math.prod(self.sizes)

    @property
    def packed_strides(self) -> tuple[int, ...]:
        """Row-major strides of a packed tensor of these sizes."""
        out, acc = [], 1
        for s in reversed(self.sizes):
            out.append(acc)
            acc *= s
        return tuple(reversed(out))

    @property
    def element_strides(self) -> tuple[int, ...]:
        return self.strides if self.strides is not None else self.packed_strides

    @property
    def is_packed(self) -> bool:
        return self.offset == 0 and (self.strides is None or all(
            st == p for st, p, sz in zip(self.strides, self.packed_strides, self.sizes) if sz > 1))

    @property
    def reach(self) -> tuple[int, int]:
        """The lowest and highest element the tensor touches, counted from the buffer's start:
        offset + the sum of each dimension's (size - 1) * stride where that is < 0, or > 0."""
        steps = [(s - 1) * st for s, st in zip(self.sizes, self.element_strides)]
        return (self.offset + sum(x for x in steps if x < 0),
                self.offset + sum(x for x in steps if x > 0))

    @property
    def buffer_elements(self) -> int:
        """Elements the buffer must hold: offset + sum((size - 1) * stride) + 1 (strides >= 0)."""
        return self.reach[1] + 1

    @property
    def min_bytes(self) -> int:
        """SPEC.md: bytes needed, rounded up to a multiple of 4."""
        return -(-self.buffer_elements * self.data_type.itemsize // 4) * 4


@dataclass(frozen=True)
class IndexBounds:
    """What checked mode (lower/checks.py) checks of an operator's indices: which tensor holds
    them and the size of the axis each of its elements indexes. Signed indices may count from
    the end once (SPEC.md): an element indexing an axis of size n is valid in [-n, n - 1]
    (signed) or [0, n - 1] (unsigned)."""

    field: str
    """The index tensor's DirectML field name (IndicesTensor), for the error."""
    tensor: TensorDesc
    dims: tuple[int, ...]
    """Axis sizes: one for every element, or one per coordinate along `dim_axis`."""
    dim_axis: int | None = None
    """None: every element indexes an axis of size dims[0]; else element c indexes
    dims[c[dim_axis]] (GatherND's index tuples: the last axis picks the input axis)."""

    def dim_at(self, position: tuple[int, ...]) -> int:
        return self.dims[0] if self.dim_axis is None else self.dims[position[self.dim_axis]]


def axis_bounds(desc: GatherDesc | GatherElementsDesc | ScatterDesc) -> IndexBounds:
    """Every index selects along the input's `axis`."""
    return IndexBounds("IndicesTensor", desc.indices, (desc.input.sizes[desc.axis],))


@dataclass(frozen=True, kw_only=True)
class GatherDesc:
    """DML_GATHER_OPERATOR_DESC: output[...] = input[..., indices[...], ...] along `axis`."""

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


@dataclass(frozen=True, kw_only=True)
class GatherElementsDesc:
    """DML_GATHER_ELEMENTS_OPERATOR_DESC: output[i,j,k] = input[indices[i,j,k], j, k] (axis 0)."""

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


@dataclass(frozen=True, kw_only=True)
class ScatterDesc:
    """DML_SCATTER_OPERATOR_DESC (ScatterElements): output = input, then
    output[indices[i,j,k], j, k] = updates[i,j,k] (axis 0). Collisions: the update last in
    row-major order of `updates` wins; out-of-range updates are dropped."""

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

    operator = "DML_SCATTER"
    has_indices: ClassVar[bool] = True
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "IndicesTensor": "indices", "UpdatesTensor": "updates",
        "OutputTensor": "output", "Axis": "axis"}

    def index_bounds(self) -> IndexBounds:
        return axis_bounds(self)


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
class ExpressionDesc:
    """A tensor expression, dmlc's own operator: output[index_vars] = body, one read per element.

    `body` is a Load from one of `tensors`, its subscripts affine in the index variables and in
    values loaded from index tensors (see dmlc.expression.tree). Operators compose into one
    expression, which
    is how dmlc fuses them: `W[i, j] = X[I[i // 2, j], 2 - j]` reads X once per element.
    """

    name: str
    """The output tensor's name (also its buffer's)."""
    index_vars: tuple[str, ...]
    """The output's index variables, outermost first: i, j in W[i, j]."""
    body: Load
    """What each output element reads."""
    tensors: tuple[tuple[str, TensorDesc], ...]
    """(name, tensor) of every input the body may read, in argument order."""
    output: TensorDesc | None = None
    """The output tensor. None: inferred (packed; sizes from the subscripts, the body's type)."""

    operator = "expression"
    has_indices: ClassVar[bool] = False
    """Index tensors are ordinary inputs of an expression: checked mode does not apply."""
    dml_fields: ClassVar[dict[str, str | None]] = {}

    def __post_init__(self) -> None:
        depth = nesting_depth(self.body)
        if depth > MAX_NESTING:
            raise ValidationError("expression", "body", f"at most {MAX_NESTING} levels of "
                                  "nesting", f"more than {MAX_NESTING}")
        object.__setattr__(self, "index_vars", as_tuple("expression", "indices", self.index_vars))
        object.__setattr__(self, "tensors", as_tuple("expression", "tensors", self.tensors))

    def tensor(self, name: str) -> TensorDesc:
        return dict(self.tensors)[name]


OperatorDesc = GatherDesc | GatherElementsDesc | ScatterDesc | Slice1Desc | ExpressionDesc

DIRECTML_OPERATORS = (GatherDesc, GatherElementsDesc, ScatterDesc, Slice1Desc)
"""The descriptors that mirror a DML_*_OPERATOR_DESC. Each class says, once, what the front end,
checked mode and error messages need to know of it: `operator` (its DirectML name),
`has_indices` (it has an IndicesTensor) and `dml_fields` (DirectML field name -> keyword
argument; None for a field that is only checked, such as DimensionCount)."""


def dml_field(desc: OperatorDesc, keyword: str) -> str:
    """How DirectML calls the field a keyword names (input -> InputTensor)."""
    for name, kw in type(desc).dml_fields.items():
        if kw == keyword:
            return name
    return keyword
