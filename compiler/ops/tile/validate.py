"""Validation of DML_TILE."""
from __future__ import annotations

import dataclasses

from ...family.checks import check_int_list, check_tensor, check_total, min_size, resolve_output
from .desc import TileDesc


def validate_tile(desc: TileDesc) -> TileDesc:
    op = desc.operator
    check_tensor(op, "InputTensor", desc.input)
    repeats = check_int_list(op, "Repeats", desc.repeats, desc.input.rank, minimum=min_size())
    sizes = [s * r for s, r in zip(desc.input.sizes, repeats)]
    check_total(op, sizes)
    out = resolve_output(op, desc, sizes, desc.input.data_type)
    return dataclasses.replace(desc, repeats=repeats, output=out)
