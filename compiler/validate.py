"""Complete validation of operator descriptors (DirectML's operator pages, and dmlc's decisions
where they leave a choice: README "Decisions"), before anything is built.

One small check helper per property; each failure is a ValidationError naming the operator,
the field and expected versus actual. `validate(desc)` returns the descriptor with its
OutputTensor filled in, so later layers never re-derive shapes.
"""
from __future__ import annotations

import dataclasses

from .descriptors import (
    ExpressionDesc,
    GatherDesc,
    GatherElementsDesc,
    JoinDesc,
    OperatorDesc,
    ScatterDesc,
    ScatterNDDesc,
    Slice1Desc,
    SplitDesc,
    TensorDesc,
)
from .errors import ValidationError
from .expression.validate import validate_expression
from .tensor_checks import (
    check_axis,
    check_index_type,
    check_same_type,
    check_sizes,
    check_tensor,
    fmt,
    is_int,
    resolve_output,
)
from .validate_copy import COPY_VALIDATORS
from .validate_join import validate_join, validate_split
from .validate_layout import LAYOUT_VALIDATORS
from .validate_nd import ND_VALIDATORS
from .validate_scatternd import check_reduction, validate_scatter_nd
from .validate_slice import validate_slice


def check_sizes_except_axis(op: str, name: str, t: TensorDesc, ref: TensorDesc, axis: int) -> None:
    for d, (a, b) in enumerate(zip(t.sizes, ref.sizes)):
        if d != axis and a != b:
            raise ValidationError(op, f"{name}.Sizes[{d}]", f"{b} (InputTensor.Sizes[{d}], "
                                  f"every dimension but Axis {axis})", a)


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


def check_input_indices_axis(
        desc: GatherDesc | GatherElementsDesc | ScatterDesc) -> tuple[int, int]:
    """The checks every indexed operator shares; returns (DimensionCount, Axis)."""
    op = desc.operator
    check_tensor(op, "InputTensor", desc.input)
    d = desc.input.rank
    check_tensor(op, "IndicesTensor", desc.indices, d)
    check_index_type(op, desc.indices)
    return d, check_axis(op, desc.axis, d)


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


_VALIDATORS = {GatherDesc: validate_gather, GatherElementsDesc: validate_gather_elements,
               ScatterDesc: validate_scatter, Slice1Desc: validate_slice,
               JoinDesc: validate_join, SplitDesc: validate_split,
               ExpressionDesc: validate_expression, **LAYOUT_VALIDATORS, **ND_VALIDATORS,
               **COPY_VALIDATORS, ScatterNDDesc: validate_scatter_nd}


def validate(desc: OperatorDesc) -> OperatorDesc:
    """Check `desc` against every rule of its DirectML page (and README "Decisions"); return
    it with OutputTensor inferred."""
    fn = _VALIDATORS.get(type(desc))
    if fn is None:
        raise ValidationError("dmlc.compile", "descriptor", "one of dmlc's descriptors ("
                              + ", ".join(cls.__name__ for cls in _VALIDATORS) + ")",
                              type(desc).__name__)
    return fn(desc)  # type: ignore[operator]
