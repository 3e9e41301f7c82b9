"""Validation of DML_PADDING1 and DML_PADDING: modes, widths and the constant's bits."""
from __future__ import annotations

import dataclasses
import numbers
from decimal import Decimal

import numpy as np

from ...dtypes import DataType
from ...errors import ValidationError
from ...family.checks import check_int_list, check_tensor, check_total, is_int, resolve_output
from ...family.literal import float_bits, literal_bits
from .desc import PADDING_MODES, ElementBits, Padding0Desc, PaddingDesc


def padding_bits(op: str, value: object, dtype: DataType) -> int:
    """PaddingValue as the raw bits of an element of `dtype`: an integer (numpy's too) exactly
    or rounded once into a float type, a float (numpy's too) rounded to nearest."""
    if isinstance(value, ElementBits):
        if value.data_type != dtype.value or not 0 <= value.bits < 1 << dtype.bits:
            raise ValidationError(op, "PaddingValue", f"the bits of a {dtype.value}",
                                  f"{value.bits:#x} of a {value.data_type}")
        return value.bits
    if isinstance(value, Decimal) and value.is_finite() and value.adjusted() < 400 \
            and value.as_integer_ratio()[1] == 1 and not dtype.value.startswith("float"):
        value = int(value)  # a .dml decimal (lang: one no float64 holds) for an integer tensor
    if isinstance(value, Decimal):  # rounded once, from the decimal, into the type
        text = ("-" if value.is_signed() else "") + ("inf" if value.is_infinite() else "nan") \
            if not value.is_finite() else str(value)
        return literal_bits(op, text, dtype)
    if is_int(value):
        value = int(value)
    elif isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        value = float(value)  # exact for every numpy float but float128
    else:
        raise ValidationError(op, "PaddingValue", f"a number ({dtype.name})", repr(value))
    if isinstance(value, float) and value.is_integer() and not dtype.value.startswith("float"):
        value = int(value)  # DML_PADDING's FLOAT value for an integer tensor
    if isinstance(value, float) and dtype.value.startswith("float"):
        return float_bits(op, "PaddingValue", value, dtype)  # its own bits, rounded once
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
    bits = padding_bits(op, desc.value, inp.data_type)
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
    check_total(op, sizes)
    out = resolve_output(op, desc, sizes, inp.data_type)
    # the value as its bits: -0.0 == 0.0 (and Decimal("-0") == 0) would share one kernel
    return dataclasses.replace(desc, start_padding=start, end_padding=end, output=out,
                               value=ElementBits(inp.data_type.value, bits))
