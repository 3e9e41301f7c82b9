"""DML_MIRROR's rules: a tensor, an axis in range, the output the input's sizes and type."""
from __future__ import annotations

import dataclasses

from dmlc.family.checks import check_axis, check_tensor, resolve_output

from .desc import MirrorDesc


def validate_mirror(desc: MirrorDesc) -> MirrorDesc:
    check_tensor(desc.operator, "InputTensor", desc.input)
    axis = check_axis(desc.operator, desc.axis, desc.input.rank)
    out = resolve_output(desc.operator, desc, desc.input.sizes, desc.input.data_type)
    return dataclasses.replace(desc, axis=axis, output=out)
