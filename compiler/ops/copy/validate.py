"""Validation of DML_ELEMENT_WISE_IDENTITY."""
from __future__ import annotations

import dataclasses

from ...errors import ValidationError
from ...family.checks import check_tensor, resolve_output
from .desc import IdentityDesc


def validate_identity(desc: IdentityDesc) -> IdentityDesc:
    op = desc.operator
    check_tensor(op, "InputTensor", desc.input)
    if desc.scale_bias is not None:
        raise ValidationError(op, "ScaleBias", "none (dmlc moves data; scale and bias compute)",
                              repr(desc.scale_bias))
    out = resolve_output(op, desc, desc.input.sizes, desc.input.data_type, strided=True)
    return dataclasses.replace(desc, output=out)
