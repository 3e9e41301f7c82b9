"""Checks every validator shares: tensors, integer lists, shapes, the output tensor.

Every family's validate.py builds on these (the families import no other family). Each failure
is a ValidationError naming the operator, the field, and expected versus actual.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import TypeGuard

from ..dtypes import INDEX_TYPES, DataType
from ..errors import ValidationError
from .registry import OperatorDesc
from .tensor import AxisIndexed, TensorDesc
from .validated import min_size, zero_sizes  # noqa: F401 (the validators' import place)

MAX_RANK = 8
# Index arithmetic is 32-bit signed in the shaders; every tensor stays below 2**31 elements.
MAX_ELEMENTS = 2**31 - 1


def fmt(sizes: Sequence[int]) -> str:
    """DirectML's brace notation: {2, 3}."""
    return "{" + ", ".join(str(s) for s in sizes) + "}"


def is_int(x: object) -> TypeGuard[int]:  # numpy integers too: they act as ints here
    return type(x) is int or (isinstance(x, numbers.Integral) and not isinstance(x, bool))


def check_axis(op: str, axis: object, rank: int, field: str = "Axis") -> int:
    if not is_int(axis) or not 0 <= axis < rank:
        raise ValidationError(op, field, f"an integer in [0, {rank})", repr(axis))
    return int(axis)


def check_int_list(op: str, field: str, values: object, length: int | None = None,
                   minimum: int | None = None) -> tuple[int, ...]:
    if not isinstance(values, (tuple, list)) or not all(is_int(v) for v in values):
        raise ValidationError(op, field, "a list of integers", repr(values))
    if length is not None and len(values) != length:
        raise ValidationError(op, f"{field} length", length, len(values))
    for i, v in enumerate(values):
        if minimum is not None and v < minimum:
            raise ValidationError(op, f"{field}[{i}]", f">= {minimum}", v)
    return tuple(int(v) for v in values)


def check_tensor(op: str, name: str, t: TensorDesc, rank: int | None = None) -> None:
    """Sizes, strides, element counts and TotalTensorSizeInBytes of one tensor."""
    if not isinstance(t, TensorDesc):
        raise ValidationError(op, name, "a TensorDesc", type(t).__name__)
    if not 1 <= len(t.sizes) <= MAX_RANK:
        raise ValidationError(op, f"{name}.DimensionCount", f"1 to {MAX_RANK}", len(t.sizes))
    check_int_list(op, f"{name}.Sizes", t.sizes, minimum=min_size())
    if rank is not None and t.rank != rank:
        raise ValidationError(op, f"{name}.DimensionCount", f"{rank} (InputTensor's)", t.rank)
    if not is_int(t.offset) or t.offset < 0:
        raise ValidationError(op, f"{name}.offset", "an integer >= 0", repr(t.offset))
    if t.strides is not None and t.offset == 0:
        check_int_list(op, f"{name}.Strides", t.strides, length=t.rank, minimum=0)
    if t.strides is not None and t.offset:
        check_int_list(op, f"{name}.Strides", t.strides, length=t.rank)
        if t.reach[0] < 0:
            raise ValidationError(op, f"{name}.offset", f">= {t.offset - t.reach[0]} (the "
                                  f"negative strides {fmt(t.strides)} reach that far back)",
                                  t.offset)
    if t.element_count > MAX_ELEMENTS:
        raise ValidationError(op, f"{name}.Sizes", f"at most {MAX_ELEMENTS} elements",
                              f"{fmt(t.sizes)} = {t.element_count} elements")
    if t.buffer_elements > MAX_ELEMENTS:
        raise ValidationError(op, f"{name}.Strides", f"a buffer of at most {MAX_ELEMENTS} elements",
                              f"{t.buffer_elements} elements")
    if t.total_bytes is not None:
        if not is_int(t.total_bytes) or t.total_bytes % 4:
            raise ValidationError(op, f"{name}.TotalTensorSizeInBytes", "a multiple of 4",
                                  t.total_bytes)
        if t.total_bytes < t.min_bytes:
            raise ValidationError(op, f"{name}.TotalTensorSizeInBytes",
                                  f">= {t.min_bytes} (sizes {fmt(t.sizes)}, strides "
                                  f"{fmt(t.element_strides)})", t.total_bytes)


def check_same_type(op: str, name: str, t: TensorDesc, dtype: DataType) -> None:
    if t.data_type != dtype:
        raise ValidationError(op, f"{name}.DataType", f"{dtype.name} (InputTensor's)",
                              t.data_type.name)


def check_index_type(op: str, t: TensorDesc, field: str = "IndicesTensor") -> None:
    if t.data_type not in INDEX_TYPES:
        raise ValidationError(op, f"{field}.DataType",
                              " or ".join(d.name for d in INDEX_TYPES), t.data_type.name)


def check_sizes(op: str, name: str, actual: Sequence[int], expected: Sequence[int],
                why: str = "") -> None:
    if tuple(actual) != tuple(expected):
        raise ValidationError(op, f"{name}.Sizes", fmt(expected), fmt(actual), why)


def check_distinct(op: str, name: str, t: TensorDesc) -> None:
    """Every element of `t` at its own address (a tensor that is written): ordered by stride,
    each dimension must step past everything the smaller ones reach (true of any view that
    slicing, transposing and reshaping make; a stride-0 broadcast is refused)."""
    reach = 0
    for size, stride in sorted(((n, abs(st)) for n, st in zip(t.sizes, t.element_strides)
                                if n > 1), key=lambda d: d[1]):
        if stride <= reach:
            raise ValidationError(op, f"{name}.Strides", "strides that give every element its "
                                  "own address (a written tensor cannot broadcast or overlap "
                                  "itself)", f"{fmt(t.element_strides)} for sizes "
                                  f"{fmt(t.sizes)}")
        reach += (size - 1) * stride
    return None


def resolve_output(op: str, desc: OperatorDesc, sizes: Sequence[int],
                   dtype: DataType, strided: bool = False) -> TensorDesc:
    """Check a given OutputTensor against the inferred one, or infer it. strided: the operator
    writes through any layout whose elements have distinct addresses (else: packed only)."""
    out = desc.output
    if out is None:
        return TensorDesc(data_type=dtype, sizes=tuple(sizes))
    check_tensor(op, "OutputTensor", out, len(sizes))
    check_same_type(op, "OutputTensor", out, dtype)
    check_sizes(op, "OutputTensor", out.sizes, sizes)
    if strided:
        check_distinct(op, "OutputTensor", out)
    elif not out.is_packed:
        raise ValidationError(op, "OutputTensor.Strides", f"packed {fmt(out.packed_strides)}",
                              fmt(out.element_strides), "strided outputs are not supported yet")
    return out


def check_sizes_except_axis(op: str, name: str, t: TensorDesc, ref: TensorDesc, axis: int) -> None:
    for d, (a, b) in enumerate(zip(t.sizes, ref.sizes)):
        if d != axis and a != b:
            raise ValidationError(op, f"{name}.Sizes[{d}]", f"{b} (InputTensor.Sizes[{d}], "
                                  f"every dimension but Axis {axis})", a)


def check_input_indices_axis(
        desc: AxisIndexed) -> tuple[int, int]:
    """The checks every indexed operator shares; returns (DimensionCount, Axis)."""
    op = desc.operator
    check_tensor(op, "InputTensor", desc.input)
    d = desc.input.rank
    check_tensor(op, "IndicesTensor", desc.indices, d)
    check_index_type(op, desc.indices)
    return d, check_axis(op, desc.axis, d)


def check_total(op: str, sizes: list[int]) -> None:
    if math.prod(sizes) > MAX_ELEMENTS:
        raise ValidationError(op, "OutputTensor", f"at most {MAX_ELEMENTS} elements",
                              f"{fmt(sizes)} = {math.prod(sizes)}")
