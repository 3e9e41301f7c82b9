"""Validation of DML_SCATTER and DML_SCATTER_ND (DML_SCATTER's rules, with index tuples), and
of the reduction both take."""
from __future__ import annotations

import dataclasses

from ...dtypes import INDEX_TYPES
from ...errors import ValidationError
from ...family.checks import (
    check_input_indices_axis,
    check_same_type,
    check_sizes,
    check_sizes_except_axis,
    check_tensor,
    fmt,
    is_int,
    resolve_output,
)
from ...family.tensor import TensorDesc
from .desc import ScatterDesc, ScatterNDDesc

REDUCTIONS = ("none", "add", "mul", "max", "min")


def check_reduction(op: str, value: object) -> str:
    """ONNX's reduction attribute: none, add, mul, max or min (any case)."""
    if not isinstance(value, str) or value.lower() not in REDUCTIONS:
        raise ValidationError(op, "reduction", " or ".join(REDUCTIONS), repr(value))
    return value.lower()


def check_dimension_count(op: str, field: str, value: object, t: TensorDesc,
                          name: str) -> int:
    """A ...DimensionCount in [1, D] with the tensor's sizes before it all 1."""
    d = t.rank
    if not is_int(value) or not 1 <= value <= d:
        raise ValidationError(op, field, f"an integer in [1, {d}]", repr(value))
    value = int(value)  # a numpy uint64 and an int make a float
    if any(s != 1 for s in t.sizes[:d - value]):
        raise ValidationError(op, f"{name}.Sizes", f"1 on the leading {d - value} dimensions "
                              f"({field} is {value})", fmt(t.sizes))
    return int(value)


def scatter_nd_updates_sizes(op: str, inp: TensorDesc, idx: TensorDesc, input_dims: int,
                             indices_dims: int) -> tuple[int, ...]:
    """indices[D-IndicesDimensionCount : D-1] ++ input[D-InputDimensionCount+k : D],
    right-aligned to D (DirectML's page writes input[D-k : D], which its own example
    contradicts: the tuple indexes the first k counted dimensions, ONNX's rule)."""
    d, k = inp.rank, idx.sizes[-1]
    full = list(idx.sizes[d - indices_dims:d - 1]) + list(inp.sizes[d - input_dims + k:])
    if len(full) > d:
        if any(s != 1 for s in full[:len(full) - d]):
            raise ValidationError(op, "UpdatesTensor.Sizes", f"at most {d} dimensions that "
                                  "are not 1", fmt(full), "indices[:-1] ++ input[k:] is too long")
        return tuple(full[len(full) - d:])
    return (1,) * (d - len(full)) + tuple(full)


def validate_scatter_nd(desc: ScatterNDDesc) -> ScatterNDDesc:
    op = desc.operator
    check_tensor(op, "InputTensor", desc.input)
    d = desc.input.rank
    check_tensor(op, "IndicesTensor", desc.indices, d)
    if desc.indices.data_type not in INDEX_TYPES:
        raise ValidationError(op, "IndicesTensor.DataType",
                              " or ".join(t.name for t in INDEX_TYPES),
                              desc.indices.data_type.name)
    check_tensor(op, "UpdatesTensor", desc.updates, d)
    check_same_type(op, "UpdatesTensor", desc.updates, desc.input.data_type)
    input_dims = check_dimension_count(op, "InputDimensionCount", desc.input_dimension_count,
                                       desc.input, "InputTensor")
    indices_dims = check_dimension_count(op, "IndicesDimensionCount",
                                         desc.indices_dimension_count, desc.indices,
                                         "IndicesTensor")
    k = desc.indices.sizes[-1]
    if k > input_dims:
        raise ValidationError(op, f"IndicesTensor.Sizes[{d - 1}]", f"at most "
                              f"InputDimensionCount = {input_dims} (coordinates per tuple)", k)
    want = scatter_nd_updates_sizes(op, desc.input, desc.indices, input_dims, indices_dims)
    check_sizes(op, "UpdatesTensor", desc.updates.sizes, want,
                "indices.Sizes[:-1] ++ input.Sizes[k:], right-aligned")
    out = resolve_output(op, desc, desc.input.sizes, desc.input.data_type)
    return dataclasses.replace(desc, input_dimension_count=input_dims,
                               indices_dimension_count=indices_dims, output=out,
                               reduction=check_reduction(op, desc.reduction))


def validate_scatter(desc: ScatterDesc) -> ScatterDesc:
    op = desc.operator
    d, axis = check_input_indices_axis(desc)
    check_tensor(op, "UpdatesTensor", desc.updates, d)
    check_same_type(op, "UpdatesTensor", desc.updates, desc.input.data_type)
    check_sizes_except_axis(op, "IndicesTensor", desc.indices, desc.input, axis)
    check_sizes(op, "UpdatesTensor", desc.updates.sizes, desc.indices.sizes,
                "UpdatesTensor has the IndicesTensor's sizes")
    out = resolve_output(op, desc, desc.input.sizes, desc.input.data_type)
    return dataclasses.replace(desc, axis=axis, output=out,
                               reduction=check_reduction(op, desc.reduction))
