"""Validation of DML_GATHER_ND1 and DML_GATHER_ND."""
from __future__ import annotations

import dataclasses

from ...errors import ValidationError
from ...family.checks import check_index_type, check_tensor, fmt, is_int, resolve_output
from .desc import GatherND1Desc, GatherNDDesc


def _count(op: str, field: str, value: object, default: int, lo: int, hi: int) -> int:
    v = default if value is None else value
    if not is_int(v) or not lo <= v <= hi:
        raise ValidationError(op, field, f"an integer in [{lo}, {hi}]", repr(value))
    return int(v)


def _ones_before(op: str, name: str, sizes: tuple[int, ...], real: int) -> None:
    for d, s in enumerate(sizes[:len(sizes) - real]):
        if s != 1:
            raise ValidationError(op, f"{name}.Sizes[{d}]", f"1 (a leading dimension beyond "
                                  f"the {real} real ones)", s)


def validate_gather_nd(desc: GatherND1Desc) -> GatherND1Desc:
    op = desc.operator
    inp, idx = desc.input, desc.indices
    check_tensor(op, "InputTensor", inp)
    d = inp.rank
    check_tensor(op, "IndicesTensor", idx, d)
    check_index_type(op, idx)
    r = _count(op, "InputDimensionCount", desc.input_dimension_count, d, 1, d)
    q = _count(op, "IndicesDimensionCount", desc.indices_dimension_count, d, 1, d)
    b = 0 if isinstance(desc, GatherNDDesc) else _count(
        op, "BatchDimensionCount", desc.batch_dimension_count, 0, 0, min(r, q) - 1)
    _ones_before(op, "InputTensor", inp.sizes, r)
    _ones_before(op, "IndicesTensor", idx.sizes, q)
    k = idx.sizes[-1]
    if not 1 <= k <= r - b:
        raise ValidationError(op, "IndicesTensor.Sizes[last]", f"a tuple of 1 to "
                              f"InputDimensionCount - BatchDimensionCount = {r - b} coordinates",
                              k)
    batch_in, batch_idx = inp.sizes[d - r:d - r + b], idx.sizes[d - q:d - q + b]
    if batch_in != batch_idx:
        raise ValidationError(op, "IndicesTensor batch sizes", f"{fmt(batch_in)} (the input's "
                              f"first {b} real dimensions)", fmt(batch_idx))
    real = list(idx.sizes[d - q:d - 1]) + list(inp.sizes[d - r + b + k:])
    if len(real) > d:
        raise ValidationError(op, "OutputTensor.DimensionCount", f"at least {len(real)} (the "
                              f"indices' real sizes but the last, then the input's tail)", d)
    sizes = [1] * (d - len(real)) + real
    out = resolve_output(op, desc, sizes, inp.data_type)
    return dataclasses.replace(desc, input_dimension_count=r, indices_dimension_count=q,
                               batch_dimension_count=b, output=out)
