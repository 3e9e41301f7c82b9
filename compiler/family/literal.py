"""A constant of a tensor expression (`where(..., X[i], -0.0)`) as the bits of an element.

Written as .dml data is: integers exactly (an int64 such as 9223372036854775807 never passes
through a float), decimal or hex, `inf`, `nan`; a float type rounds to nearest, as numpy does:
an integer once, straight into the type (int_to_float), never through a float64 first.
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
        whole = _integer(text) if _INT.fullmatch(text) else 0
        if whole:  # an integer rounds once, straight into the type
            element = int_to_float(whole, dtype)
        else:  # a decimal or a special value as numpy reads it; "-0" is -0.0
            with np.errstate(over="ignore"):
                element = np.asarray(0.0 if "x" in text.lower() else float(text)).astype(
                    dtype.numpy)
        if math.isinf(element) and "inf" not in text.lower():  # a finite value too large
            raise ValidationError(op, where, f"a value inside {dtype.name}'s range (largest "
                                  f"magnitude {np.finfo(dtype.numpy).max})", text)
        return int(element.reshape(1).view(dtype.bits_dtype)[0])
    if not _INT.fullmatch(text):
        raise ValidationError(op, where, f"an integer ({dtype.name} output)", text)
    value = _integer(text)
    info = np.iinfo(dtype.numpy)
    if not info.min <= value <= info.max:
        raise ValidationError(op, where, f"an integer in [{info.min}, {info.max}] "
                              f"({dtype.name} output)", text)
    return value & ((1 << dtype.bits) - 1)


def _integer(text: str) -> int:
    return int(text, 0) if "x" in text.lower() else int(text)  # int("007", 0) is an error


def int_to_float(value: int, dtype: DataType) -> np.ndarray:
    """The integer `value` as a 0-d array of float type `dtype`, rounded once to nearest, ties
    to even (what numpy's int64 -> float32 conversion does; float(value) then float32 rounds
    twice: 2**60 + 2**36 + 1 became 2**60, not 2**60 + 2**37). Beyond the largest finite
    value, after rounding: inf."""
    precision = np.finfo(dtype.numpy).nmant + 1
    magnitude = abs(value)
    shift = max(0, magnitude.bit_length() - precision)
    q, rest = magnitude >> shift, magnitude & ((1 << shift) - 1)
    half = (1 << shift) >> 1
    if shift and (rest > half or (rest == half and q & 1)):
        q += 1
    try:
        exact = float(q << shift)  # at most `precision` significant bits: exact in a float64
    except OverflowError:
        exact = math.inf
    with np.errstate(over="ignore"):
        return np.asarray(-exact if value < 0 else exact).astype(dtype.numpy)
