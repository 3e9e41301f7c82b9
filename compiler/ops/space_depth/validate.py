"""Validation of DML_SPACE_TO_DEPTH(1) and DML_DEPTH_TO_SPACE(1)."""
from __future__ import annotations

import dataclasses

from ...errors import ValidationError
from ...family.checks import check_tensor, check_total, is_int, resolve_output
from .desc import DEPTH_SPACE_ORDERS, SpaceToDepthDesc


def validate_depth_space(desc: SpaceToDepthDesc) -> SpaceToDepthDesc:
    op = desc.operator
    inp = desc.input
    check_tensor(op, "InputTensor", inp, 4)
    b = desc.block_size
    if not is_int(b) or b < 1:
        raise ValidationError(op, "BlockSize", "an integer >= 1", repr(b))
    b = int(b)
    if desc.order not in DEPTH_SPACE_ORDERS:
        raise ValidationError(op, "Order", " or ".join(DEPTH_SPACE_ORDERS), repr(desc.order))
    n, c, h, w = inp.sizes
    if desc.to_depth:
        for k, name in ((2, "height"), (3, "width")):
            if inp.sizes[k] % b:
                raise ValidationError(op, f"InputTensor.Sizes[{k}]", f"a multiple of BlockSize "
                                      f"{b} (the {name})", inp.sizes[k])
        sizes = [n, c * b * b, h // b, w // b]
    else:
        if c % (b * b):
            raise ValidationError(op, "InputTensor.Sizes[1]", f"a multiple of BlockSize^2 = "
                                  f"{b * b} (the channels)", c)
        sizes = [n, c // (b * b), h * b, w * b]
    check_total(op, sizes)
    out = resolve_output(op, desc, sizes, inp.data_type)
    return dataclasses.replace(desc, block_size=b, output=out)
