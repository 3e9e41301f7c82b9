"""Validation of DML_TILE, DML_PADDING(1) and DML_SPACE_TO_DEPTH / DEPTH_TO_SPACE (and 1)."""
from __future__ import annotations

import dataclasses
import math
import numbers

import numpy as np

from .descriptors.layout import (
    DEPTH_SPACE_ORDERS,
    PADDING_MODES,
    DepthToSpace0Desc,
    DepthToSpaceDesc,
    Padding0Desc,
    PaddingDesc,
    SpaceToDepth0Desc,
    SpaceToDepthDesc,
    TileDesc,
)
from .dtypes import DataType
from .errors import ValidationError
from .expression.literal import literal_bits
from .tensor_checks import (
    MAX_ELEMENTS,
    check_int_list,
    check_tensor,
    fmt,
    is_int,
    min_size,
    resolve_output,
)


def _total(op: str, sizes: list[int]) -> None:
    if math.prod(sizes) > MAX_ELEMENTS:
        raise ValidationError(op, "OutputTensor", f"at most {MAX_ELEMENTS} elements",
                              f"{fmt(sizes)} = {math.prod(sizes)}")


def validate_tile(desc: TileDesc) -> TileDesc:
    op = desc.operator
    check_tensor(op, "InputTensor", desc.input)
    repeats = check_int_list(op, "Repeats", desc.repeats, desc.input.rank, minimum=min_size())
    sizes = [s * r for s, r in zip(desc.input.sizes, repeats)]
    _total(op, sizes)
    out = resolve_output(op, desc, sizes, desc.input.data_type)
    return dataclasses.replace(desc, repeats=repeats, output=out)


def padding_bits(op: str, value: object, dtype: DataType) -> int:
    """PaddingValue as the raw bits of an element of `dtype`: an integer (numpy's too) exactly
    or rounded once into a float type, a float (numpy's too) rounded to nearest."""
    if is_int(value):
        value = int(value)
    elif isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        value = float(value)  # exact for every numpy float but float128
    else:
        raise ValidationError(op, "PaddingValue", f"a number ({dtype.name})", repr(value))
    if isinstance(value, float) and value.is_integer() and not dtype.value.startswith("float"):
        value = int(value)  # DML_PADDING's FLOAT value for an integer tensor
    return literal_bits(op, repr(value) if isinstance(value, float) else str(value), dtype)


def validate_padding(desc: PaddingDesc) -> PaddingDesc:
    op = desc.operator
    inp = desc.input
    check_tensor(op, "InputTensor", inp)
    if desc.mode not in PADDING_MODES:
        raise ValidationError(op, "PaddingMode", " or ".join(PADDING_MODES), repr(desc.mode))
    start = check_int_list(op, "StartPadding", desc.start_padding, inp.rank, minimum=0)
    end = check_int_list(op, "EndPadding", desc.end_padding, inp.rank, minimum=0)
    value_type = desc.value_type
    if not isinstance(desc, Padding0Desc) and value_type is not None and (
            not isinstance(value_type, str)
            or value_type.removeprefix("DML_TENSOR_DATA_TYPE_") != inp.data_type.name):
        raise ValidationError(op, "PaddingValueDataType", f"the input's, {inp.data_type.name}",
                              value_type)
    padding_bits(op, desc.value, inp.data_type)
    # A mirror reaches at most one input's width beyond the edge (DirectML's rule): further
    # would need several reflections, which DirectML leaves undefined.
    limit = {"DML_PADDING_MODE_REFLECTION": (-1, "the dimension's size - 1"),
             "DML_PADDING_MODE_SYMMETRIC": (0, "the dimension's size"),
             "DML_PADDING_MODE_WRAP": (0, "the dimension's size")}.get(desc.mode)
    for field, pads in (("StartPadding", start), ("EndPadding", end)):
        for d, (p, n) in enumerate(zip(pads, inp.sizes)):
            if p and not n and desc.mode != PADDING_MODES[0]:  # only inside zero_sizes()
                raise ValidationError(op, f"{field}[{d}]", f"0 (only {PADDING_MODES[0]} "
                                      "extends an empty dimension)", p)
    if limit is not None:
        for field, pads in (("StartPadding", start), ("EndPadding", end)):
            for d, (p, n) in enumerate(zip(pads, inp.sizes)):
                if p > n + limit[0] and n:
                    raise ValidationError(op, f"{field}[{d}]", f"at most {limit[1]} = "
                                          f"{n + limit[0]} ({desc.mode})", p)
    sizes = [n + s + e for n, s, e in zip(inp.sizes, start, end)]
    _total(op, sizes)
    out = resolve_output(op, desc, sizes, inp.data_type)
    return dataclasses.replace(desc, start_padding=start, end_padding=end, output=out)


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
    _total(op, sizes)
    out = resolve_output(op, desc, sizes, inp.data_type)
    return dataclasses.replace(desc, block_size=b, output=out)


LAYOUT_VALIDATORS = {TileDesc: validate_tile, PaddingDesc: validate_padding,
                     Padding0Desc: validate_padding, SpaceToDepthDesc: validate_depth_space,
                     DepthToSpaceDesc: validate_depth_space,
                     SpaceToDepth0Desc: validate_depth_space,
                     DepthToSpace0Desc: validate_depth_space}
