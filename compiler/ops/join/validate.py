"""Validation of DML_JOIN and DML_SPLIT: tensors that meet along one axis."""
from __future__ import annotations

import dataclasses

from ...errors import ValidationError
from ...family.checks import check_axis, check_same_type, check_tensor, fmt, resolve_output
from ...family.tensor import TensorDesc
from .desc import JoinDesc, SplitDesc

MAX_TENSORS = 256
"""Join's inputs and split's outputs: each is a buffer bound to the kernel, and the pieces a
kernel chooses between are a chain of comparisons, so their number is bounded (DirectML's own
limit is the device's)."""


def check_count(op: str, field: str, tensors: tuple[TensorDesc, ...]) -> None:
    if not 1 <= len(tensors) <= MAX_TENSORS:
        raise ValidationError(op, field, f"1 to {MAX_TENSORS} tensors", len(tensors))


def check_meeting(op: str, field: str, tensors: tuple[TensorDesc, ...], ref: TensorDesc,
                  ref_name: str, axis: int) -> None:
    """Each tensor: valid, the reference's data type and DimensionCount, and its sizes on every
    dimension but `axis`."""
    for k, t in enumerate(tensors):
        name = f"{field}[{k}]"
        check_tensor(op, name, t, ref.rank)
        check_same_type(op, name, t, ref.data_type)
        for d, (a, b) in enumerate(zip(t.sizes, ref.sizes)):
            if d != axis and a != b:
                raise ValidationError(op, f"{name}.Sizes[{d}]", f"{b} ({ref_name}.Sizes[{d}]: "
                                      f"every dimension but Axis {axis})", a)


def validate_join(desc: JoinDesc) -> JoinDesc:
    op = desc.operator
    check_count(op, "InputCount", desc.inputs)
    first = desc.inputs[0]
    check_tensor(op, "InputTensors[0]", first)
    axis = check_axis(op, desc.axis, first.rank)
    check_meeting(op, "InputTensors", desc.inputs, first, "InputTensors[0]", axis)
    sizes = list(first.sizes)
    sizes[axis] = sum(t.sizes[axis] for t in desc.inputs)
    out = resolve_output(op, desc, sizes, first.data_type)
    return dataclasses.replace(desc, axis=axis, output=out)


def validate_split(desc: SplitDesc) -> SplitDesc:
    op = desc.operator
    check_tensor(op, "InputTensor", desc.input)
    axis = check_axis(op, desc.axis, desc.input.rank)
    check_count(op, "OutputCount", desc.outputs)
    check_meeting(op, "OutputTensors", desc.outputs, desc.input, "InputTensor", axis)
    for k, t in enumerate(desc.outputs):
        if not t.is_packed:
            raise ValidationError(op, f"OutputTensors[{k}].Strides", f"packed "
                                  f"{fmt(t.packed_strides)}", fmt(t.element_strides),
                                  "strided outputs are not supported yet")
    total = sum(t.sizes[axis] for t in desc.outputs)
    if total != desc.input.sizes[axis]:
        raise ValidationError(op, f"OutputTensors Sizes[{axis}]", f"sizes summing to "
                              f"InputTensor.Sizes[{axis}] = {desc.input.sizes[axis]}",
                              " + ".join(str(t.sizes[axis]) for t in desc.outputs)
                              + f" = {total}")
    out = resolve_output(op, desc, (desc.input.element_count,), desc.input.data_type)
    return dataclasses.replace(desc, axis=axis, output=out)
