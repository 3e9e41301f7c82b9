"""Validation of DML_ELEMENT_WISE_IDENTITY, DML_SLICE and DML_SLICE_GRAD."""
from __future__ import annotations

import dataclasses

from .descriptors import Slice1Desc
from .descriptors.copy import IdentityDesc, SliceDesc, SliceGradDesc
from .errors import ValidationError
from .tensor_checks import (
    check_int_list,
    check_same_type,
    check_sizes,
    check_tensor,
    fmt,
    resolve_output,
)
from .validate_slice import validate_slice


def validate_identity(desc: IdentityDesc) -> IdentityDesc:
    op = desc.operator
    check_tensor(op, "InputTensor", desc.input)
    if desc.scale_bias is not None:
        raise ValidationError(op, "ScaleBias", "none (dmlc moves data; scale and bias compute)",
                              repr(desc.scale_bias))
    out = resolve_output(op, desc, desc.input.sizes, desc.input.data_type, strided=True)
    return dataclasses.replace(desc, output=out)


def validate_slice0(desc: SliceDesc) -> SliceDesc:
    op = desc.operator
    check_tensor(op, "InputTensor", desc.input)
    d = desc.input.rank
    offsets = check_int_list(op, "Offsets", desc.offsets, d, minimum=0)
    sizes = check_int_list(op, "Sizes", desc.sizes, d, minimum=1)
    strides = check_int_list(op, "Strides", desc.strides, d, minimum=1)
    for i, (o, s, st, n) in enumerate(zip(offsets, sizes, strides, desc.input.sizes)):
        last = o + st * (s - 1)
        if last >= n:
            raise ValidationError(op, f"Sizes[{i}]", f"elements inside InputTensor.Sizes[{i}] "
                                  f"= {n}: offset + stride * (size - 1) < {n}",
                                  f"{o} + {st} * {s - 1} = {last}")
    out = resolve_output(op, desc, sizes, desc.input.data_type)
    return dataclasses.replace(desc, offsets=offsets, sizes=sizes, strides=strides, output=out)


def as_slice1(desc: SliceDesc) -> Slice1Desc:
    """The DML_SLICE1 that reads what a validated DML_SLICE reads."""
    assert desc.output is not None
    windows = tuple(st * (s - 1) + 1 for s, st in zip(desc.sizes, desc.strides))
    return Slice1Desc(input=desc.input, offsets=desc.offsets, sizes=windows,
                      strides=desc.strides, output=desc.output)


def validate_slice_grad(desc: SliceGradDesc) -> SliceGradDesc:
    op = desc.operator
    dy, out = desc.input_gradient, desc.output_gradient
    check_tensor(op, "OutputGradientTensor", out)
    check_tensor(op, "InputGradientTensor", dy, out.rank)
    check_same_type(op, "InputGradientTensor", dy, out.data_type)
    if not out.is_packed:
        raise ValidationError(op, "OutputGradientTensor.Strides", "packed", fmt(out.sizes))
    try:
        window = validate_slice(Slice1Desc(input=out, offsets=desc.offsets, sizes=desc.sizes,
                                           strides=desc.strides))
    except ValidationError as e:
        raise ValidationError(op, e.field.replace("InputTensor", "OutputGradientTensor"),
                              e.expected, e.actual) from None
    assert window.output is not None
    check_sizes(op, "InputGradientTensor", dy.sizes, window.output.sizes,
                "the slice's output sizes")
    return dataclasses.replace(desc, offsets=window.offsets, sizes=window.sizes,
                               strides=window.strides)


COPY_VALIDATORS = {IdentityDesc: validate_identity, SliceDesc: validate_slice0,
                   SliceGradDesc: validate_slice_grad}
