"""Validation of DML_ONE_HOT."""
from __future__ import annotations

import dataclasses

from ...errors import ValidationError
from ...family.checks import (
    check_axis,
    check_index_type,
    check_same_type,
    check_sizes,
    check_tensor,
    resolve_output,
)
from .desc import OneHotDesc


def validate_one_hot(desc: OneHotDesc) -> OneHotDesc:
    op = desc.operator
    out = desc.output
    if out is None:
        raise ValidationError(op, "OutputTensor", "a tensor (its size along Axis is the depth)",
                              "none")
    check_tensor(op, "OutputTensor", out)
    axis = check_axis(op, desc.axis, out.rank)
    check_tensor(op, "IndicesTensor", desc.indices, out.rank)
    check_index_type(op, desc.indices)
    check_sizes(op, "IndicesTensor", desc.indices.sizes,
                tuple(1 if k == axis else s for k, s in enumerate(out.sizes)))
    check_tensor(op, "ValuesTensor", desc.values, out.rank)
    check_sizes(op, "ValuesTensor", desc.values.sizes, (1,) * (out.rank - 1) + (2,))
    check_same_type(op, "OutputTensor", out, desc.values.data_type)
    resolve_output(op, desc, out.sizes, desc.values.data_type)  # packed, as every output
    return dataclasses.replace(desc, axis=axis)
