"""A constant of a tensor expression (`where(..., X[i], -0.0)`) as the bits of an element.

Written as .dml data is: integers exactly (an int64 such as 9223372036854775807 never passes
through a float), decimal or hex, `inf`, `nan`; a float type rounds to nearest, as numpy does.
"""
from __future__ import annotations

import math
import re

import numpy as np

from ..dtypes import DataType
from ..errors import ValidationError

_INT = re.compile(r"[+-]?(0[xX][0-9a-fA-F]+|[0-9]+)")
_FLOAT = re.compile(r"[+-]?(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|inf|nan)", re.I)
MAX_DIGITS = 400
"""Longer literals are refused before conversion (Python's int() limits its digits too)."""


def literal_bits(op: str, text: object, dtype: DataType) -> int:
    """The raw bits of constant `text` as an element of `dtype`."""
    where = f"constant {text!r}"
    if not isinstance(text, str) or len(text) > MAX_DIGITS or not (
            _INT.fullmatch(text) or _FLOAT.fullmatch(text)):
        raise ValidationError(op, where, "a number: 12, -3, 0x7F, 1.5e-3, -0.0, inf or nan",
                              repr(text)[:60])
    if dtype.value.startswith("float"):
        value = float(int(text, 0) if _INT.fullmatch(text) and "x" in text.lower() else text)
        with np.errstate(over="ignore"):
            element = np.asarray(value).astype(dtype.numpy)
        if math.isinf(element) and "inf" not in text.lower():  # a finite value too large
            raise ValidationError(op, where, f"a value inside {dtype.name}'s range (largest "
                                  f"magnitude {np.finfo(dtype.numpy).max})", text)
        return int(element.reshape(1).view(dtype.bits_dtype)[0])
    if not _INT.fullmatch(text):
        raise ValidationError(op, where, f"an integer ({dtype.name} output)", text)
    value = int(text, 0) if "x" in text.lower() else int(text)
    info = np.iinfo(dtype.numpy)
    if not info.min <= value <= info.max:
        raise ValidationError(op, where, f"an integer in [{info.min}, {info.max}] "
                              f"({dtype.name} output)", text)
    return value & ((1 << dtype.bits) - 1)
