"""A constant of a tensor expression (`where(..., X[i], -0.0)`) as the bits of an element.

Written as .dml data is: integers exactly (an int64 such as 9223372036854775807 never passes
through a float), decimal or hex, `inf`, `nan`; a float type rounds to nearest, as numpy does:
an integer once, straight into the type (int_to_float), never through a float64 first.
"""
from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

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
        else:  # a decimal rounds once too (C's strtof); "-0" is -0.0; inf and nan as written
            value = 0.0 if "x" in text.lower() else decimal_to_float(text, dtype)
            with np.errstate(over="ignore"):
                element = np.asarray(value).astype(dtype.numpy)  # exact: a value of the type
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


def float_bits(op: str, field: str, value: float, dtype: DataType) -> int:
    """The raw bits of the binary float `value` (a Python or numpy float, not a decimal: its
    own bits) rounded once into float type `dtype`, as numpy's astype; a finite value that
    rounds to inf is refused."""
    with np.errstate(over="ignore"):
        element = np.asarray(float(value)).astype(dtype.numpy)
    if math.isinf(element) and math.isfinite(value):
        raise ValidationError(op, field, f"a value inside {dtype.name}'s range (largest "
                              f"magnitude {np.finfo(dtype.numpy).max})", repr(value))
    return int(element.reshape(1).view(dtype.bits_dtype)[0])


def decimal_to_float(text: str, dtype: DataType) -> float:
    """The decimal literal `text` rounded once, from its exact value, to the nearest value of
    float type `dtype` (float16, float32 or float64): ties to even, subnormals below the
    smallest normal, IEEE's overflow to inf (from the largest finite value plus half an ulp),
    the sign of a zero kept; `inf` and `nan` as written. As C's strtof rounds: through a
    float64 first, 1.0384594336039675e+34 became float32 0x78000000, not 0x78000001. The
    result is a Python float (every float16 and float32 value is one exactly)."""
    low = text.strip().lower()
    if "inf" in low or "nan" in low:
        return float(low)
    try:
        exact = Decimal(text)
    except InvalidOperation:
        raise ValueError(f"not a decimal number: {text!r}") from None
    negative = exact.is_signed()
    info = np.finfo(dtype.numpy)
    precision, emin, emax = int(info.nmant) + 1, int(info.minexp), int(info.maxexp) - 1
    if exact.is_zero() or exact.adjusted() < -400:  # below every type's least half-subnormal
        return -0.0 if negative else 0.0
    if exact.adjusted() > 400:  # beyond every type's range: no 10**huge is ever built
        return -math.inf if negative else math.inf
    x = Fraction(exact.copy_abs())  # (abs() would round to the context's 28 digits)
    n, d = x.numerator, x.denominator
    e = n.bit_length() - d.bit_length()  # floor(log2(x)) is e or e - 1
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    q = max(e, emin) - (precision - 1)  # the exponent of an ulp (fixed below the normals)
    scaled = x / Fraction(2) ** q
    m, rest = divmod(scaled.numerator, scaled.denominator)
    twice = 2 * rest
    if twice > scaled.denominator or (twice == scaled.denominator and m & 1):
        m += 1
    largest = (2 ** precision - 1) * Fraction(2) ** (emax - precision + 1)
    if m * Fraction(2) ** q > largest:
        return -math.inf if negative else math.inf
    value = math.ldexp(m, q)  # m has at most `precision` bits: exact
    return -value if negative else value


def exact_number(text: str) -> float | Decimal:
    """A decimal literal of a descriptor field (.dml's PaddingValue) as a float where a
    float64 holds it exactly (1.5, -0.0, inf, nan), else as the exact Decimal, which the
    field's type rounds once (padding_bits): through a float64 it would round twice."""
    if "inf" in text.lower() or "nan" in text.lower():
        return float(text)
    value = float(text)  # inf where it overflows a float64: the Decimal, which the type refuses
    return value if math.isfinite(value) and Decimal(value) == Decimal(text) else Decimal(text)


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
