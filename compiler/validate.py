"""Complete validation of operator descriptors (SPEC.md), before anything is built.

One small check helper per property; each failure is a ValidationError naming the operator,
the field and expected versus actual. `validate(desc)` returns the descriptor with its
OutputTensor filled in, so later layers never re-derive shapes.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence

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
from .dtypes import INDEX_TYPES
from .errors import ValidationError
from .expression.validate import validate_expression
from .tensor_checks import (
    check_axis,
    check_int_list,
    check_same_type,
    check_sizes,
    check_tensor,
    fmt,
    is_int,
    resolve_output,
)
from .validate_join import validate_join, validate_split
from .validate_scatternd import check_reduction, validate_scatter_nd


def check_index_type(op: str, t: TensorDesc) -> None:
    if t.data_type not in INDEX_TYPES:
        raise ValidationError(op, "IndicesTensor.DataType",
                              " or ".join(d.name for d in INDEX_TYPES), t.data_type.name)


def check_sizes_except_axis(op: str, name: str, t: TensorDesc, ref: TensorDesc, axis: int) -> None:
    for d, (a, b) in enumerate(zip(t.sizes, ref.sizes)):
        if d != axis and a != b:
            raise ValidationError(op, f"{name}.Sizes[{d}]", f"{b} (InputTensor.Sizes[{d}], "
                                  f"every dimension but Axis {axis})", a)


def gather_output_sizes(op: str, inp: TensorDesc, idx: TensorDesc, axis: int,
                        k: int) -> tuple[int, ...]:
    """SPEC.md: input[0:axis] ++ indices[D-k:D] ++ input[axis+1:D], right-aligned to D."""
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


def slice_max_sizes(sizes: Sequence[int], strides: Sequence[int]) -> tuple[int, ...]:
    """The largest output each window allows: 1 + (size - 1) // |stride|."""
    return tuple(1 + (s - 1) // abs(st) for s, st in zip(sizes, strides))


def validate_slice(desc: Slice1Desc) -> Slice1Desc:
    op = desc.operator
    check_tensor(op, "InputTensor", desc.input)
    d = desc.input.rank
    offsets = check_int_list(op, "InputWindowOffsets", desc.offsets, d, minimum=0)
    sizes = check_int_list(op, "InputWindowSizes", desc.sizes, d, minimum=1)
    strides = check_int_list(op, "InputWindowStrides", desc.strides, d)
    for i, (o, s, st, n) in enumerate(zip(offsets, sizes, strides, desc.input.sizes)):
        if st == 0:
            raise ValidationError(op, f"InputWindowStrides[{i}]", "a non-zero integer", 0)
        if o + s > n:
            raise ValidationError(op, f"InputWindowSizes[{i}]",
                                  f"offset + size <= InputTensor.Sizes[{i}] = {n}",
                                  f"{o} + {s} = {o + s}", "the window leaves the input")
    limit = slice_max_sizes(sizes, strides)
    if desc.output is None:
        out_sizes = limit
    else:
        check_tensor(op, "OutputTensor", desc.output, d)
        out_sizes = desc.output.sizes
        for i, (o, m) in enumerate(zip(out_sizes, limit)):
            if o > m:
                raise ValidationError(op, f"OutputTensor.Sizes[{i}]", f"1 to {m} "
                                      f"(1 + (InputWindowSizes[{i}] - 1) // |stride|)", o)
    out = resolve_output(op, desc, out_sizes, desc.input.data_type)
    # A stride along an axis the output has one element of never moves: one beyond the shaders'
    # 32-bit arithmetic is normalized to +-1 (its sign still picks the window's first or last).
    strides = tuple(st if n > 1 or abs(st) < 2**31 else (1 if st > 0 else -1)
                    for n, st in zip(out.sizes, strides))
    return dataclasses.replace(desc, offsets=offsets, sizes=sizes, strides=strides, output=out)


_VALIDATORS = {GatherDesc: validate_gather, GatherElementsDesc: validate_gather_elements,
               ScatterDesc: validate_scatter, Slice1Desc: validate_slice,
               JoinDesc: validate_join, SplitDesc: validate_split,
               ExpressionDesc: validate_expression, ScatterNDDesc: validate_scatter_nd}


def validate(desc: OperatorDesc) -> OperatorDesc:
    """Check `desc` against every rule of SPEC.md; return it with OutputTensor inferred."""
    fn = _VALIDATORS.get(type(desc))
    if fn is None:
        raise ValidationError("dmlc.compile", "descriptor", "one of dmlc's descriptors ("
                              + ", ".join(cls.__name__ for cls in _VALIDATORS) + ")",
                              type(desc).__name__)
    return fn(desc)  # type: ignore[operator]
