"""Validation of DML_GATHER and DML_GATHER_ELEMENTS."""
from __future__ import annotations

import dataclasses

from ...errors import ValidationError
from ...family.checks import (
    check_input_indices_axis,
    check_sizes_except_axis,
    fmt,
    is_int,
    resolve_output,
)
from ...family.tensor import TensorDesc
from .desc import GatherDesc, GatherElementsDesc


def gather_output_sizes(op: str, inp: TensorDesc, idx: TensorDesc, axis: int,
                        k: int) -> tuple[int, ...]:
    """DML_GATHER: input[0:axis] ++ indices[D-k:D] ++ input[axis+1:D], right-aligned to D."""
    d = inp.rank
    full = list(inp.sizes[:axis]) + list(idx.sizes[d - k:]) + list(inp.sizes[axis + 1:])
    if len(full) > d:
        extra = full[:len(full) - d]
        if any(s != 1 for s in extra):
            raise ValidationError(op, "OutputTensor.Sizes", f"at most {d} dimensions that are "
                                  f"not 1", fmt(full),
                                  "input[0:Axis] ++ indices[D-IndexDimensions:]"
                                  " ++ input[Axis+1:] is too long")
        return tuple(full[len(full) - d:])
    return (1,) * (d - len(full)) + tuple(full)


def validate_gather(desc: GatherDesc) -> GatherDesc:
    op = desc.operator
    d, axis = check_input_indices_axis(desc)
    k = desc.index_dimensions
    if not is_int(k) or not 0 <= k <= d:
        raise ValidationError(op, "IndexDimensions", f"an integer in [0, {d}]", repr(k))
    k = int(k)  # a numpy uint64 and an int make a float
    lead = desc.indices.sizes[:d - k]
    if any(s != 1 for s in lead):
        raise ValidationError(op, "IndicesTensor.Sizes", f"1 on the leading {d - k} dimensions "
                              f"(IndexDimensions is {k})", fmt(desc.indices.sizes))
    in_rank = d - next((i for i, s in enumerate(desc.input.sizes) if s != 1), d - 1)
    if in_rank + k - 1 > d:
        raise ValidationError(op, "IndexDimensions", f"at most {d - in_rank + 1} (input rank "
                              f"{in_rank} + IndexDimensions - 1 <= DimensionCount {d})", k)
    sizes = gather_output_sizes(op, desc.input, desc.indices, axis, k)
    out = resolve_output(op, desc, sizes, desc.input.data_type)
    return dataclasses.replace(desc, axis=axis, index_dimensions=int(k), output=out)


def validate_gather_elements(desc: GatherElementsDesc) -> GatherElementsDesc:
    op = desc.operator
    d, axis = check_input_indices_axis(desc)
    check_sizes_except_axis(op, "IndicesTensor", desc.indices, desc.input, axis)
    out = resolve_output(op, desc, desc.indices.sizes, desc.input.data_type)
    return dataclasses.replace(desc, axis=axis, output=out)
