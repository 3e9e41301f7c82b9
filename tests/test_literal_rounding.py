"""A float literal of a .dml file rounds once, from its decimal, into its type (float16,
float32, float64), as C's strtof does: nearest, ties to even, subnormals, overflow to inf per
IEEE, -0.0 kept. Through a float64 first it rounded twice (`PaddingValue:
1.0384594336039675e+34` into float32 gave 0x78000000; the decimal's nearest float32 is
0x78000001). Checked against two oracles that share no code with dmlc: an exact Fraction
comparison of the neighbours written here, and the C library's strtof (float32) through
ctypes. Every way a literal becomes bits: tensor data, a descriptor field (PaddingValue) and
an expression's constant."""
from __future__ import annotations

import ctypes
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import budget

from dmlc.dtypes import DataType
from dmlc.family.literal import literal_bits
from dmlc.lang import parse_module

TYPES = {"float16": np.float16, "float32": np.float32, "float64": np.float64}
BITS = {"float16": np.uint16, "float32": np.uint32, "float64": np.uint64}
REPORTED = "1.0384594336039675e+34"


def nearest_bits(text: str, name: str) -> int:
    """The oracle: of the values next to numpy's (possibly twice rounded) guess, the one
    nearest the decimal's exact value, ties to the even significand; past the largest finite
    value by half an ulp or more, inf."""
    t, bits = TYPES[name], BITS[name]
    exact = Fraction(Decimal(text))
    negative = text.strip().startswith("-")
    with np.errstate(over="ignore"):
        guess = t(abs(float(Decimal(text))))
    big = np.finfo(t).max
    with np.errstate(over="ignore"):
        candidates = {guess, np.nextafter(guess, t(0)), np.nextafter(guess, t(np.inf))}
    finite = sorted(c for c in candidates if np.isfinite(c))
    if not finite:
        finite = [big]
    best = min(finite, key=lambda c: (abs(Fraction(float(c)) - abs(exact)),
                                      int(np.array(c, t).view(bits)) & 1))
    ulp = Fraction(float(big)) - Fraction(float(np.nextafter(big, t(0))))
    if abs(exact) >= Fraction(float(big)) + ulp / 2:
        best = t(np.inf)
    value = np.array(-best if negative else best, t)
    return int(value.view(bits))


def strtof_bits(text: str) -> int:
    strtof = ctypes.CDLL(None).strtof
    strtof.restype, strtof.argtypes = ctypes.c_float, [ctypes.c_char_p, ctypes.c_void_p]
    return int(np.array(strtof(text.encode(), None), np.float32).view(np.uint32))


def data_bits(text: str, name: str) -> int:
    """The literal as .dml tensor data."""
    (unit,) = parse_module(f"X: {name}[1] = [{text}]\nY[i] = X[i]\n").units
    return int(unit.data["X"].view(BITS[name])[0])


def padding_bits(text: str, name: str) -> int:
    """The literal as DML_PADDING1's PaddingValue field (and the output's expected data)."""
    src = (f"DML_PADDING1_OPERATOR_DESC\nInputTensor: (Sizes:{{1}}, DataType:{name}) [0]\n"
           f"PaddingMode: DML_PADDING_MODE_CONSTANT\nPaddingValue: {text}\n"
           "StartPadding: {1}\nEndPadding: {0}\n")
    (unit,) = parse_module(src).units
    from dmlc.ops.pad.validate import padding_bits as bits_of
    return bits_of("DML_PADDING1", unit.descriptor.value, DataType(name))


def expression_bits(text: str, name: str) -> int:
    return literal_bits("expression", text, DataType(name))


WAYS = [data_bits, padding_bits, expression_bits]


@pytest.mark.parametrize("way", WAYS)
def test_the_reported_literal_rounds_once(way):
    assert strtof_bits(REPORTED) == nearest_bits(REPORTED, "float32") == 0x78000001
    assert way(REPORTED, "float32") == 0x78000001


def _tie(draw, name: str) -> str:
    """The exact decimal of the midpoint between two neighbouring values of the type (where
    a float64 on the way rounds it off the tie), or a decimal a hair off it either side."""
    t, bits = TYPES[name], BITS[name]
    width = 8 * np.dtype(t).itemsize
    raw = draw(st.integers(0, (1 << (width - 1)) - 2 - (1 << (np.finfo(t).nmant + 1))))
    a = np.array(raw, bits).view(t)
    b = np.nextafter(a, t(np.inf))
    mid = (Fraction(float(a)) + Fraction(float(b))) / 2
    with localcontext() as ctx:
        ctx.prec = 1200
        text = Decimal(mid.numerator) / Decimal(mid.denominator)
        nudge = draw(st.sampled_from([0, 1, -1]))
        if nudge:
            text += nudge * Decimal(10) ** (text.adjusted() - draw(st.integers(17, 60)))
        text = format(text.normalize(), "e")
        if len(text) > 300:  # float64's far ties: 80 digits, a hair off the tie
            ctx.prec = 80
            text = format(+Decimal(text), "e")
    return ("-" if draw(st.booleans()) else "") + text


@st.composite
def decimals(draw, name: str) -> str:
    if draw(st.integers(0, 2)) == 0:
        return _tie(draw, name)
    digits = draw(st.text("0123456789", min_size=1, max_size=25))
    exponent = draw(st.integers(-340, 320))
    sign = draw(st.sampled_from(["", "-", "+"]))
    point = draw(st.integers(0, len(digits)))
    return f"{sign}{digits[:point]}.{digits[point:]}e{exponent}".replace(".e", ".0e")


def _within_range(text: str, name: str) -> bool:
    """A finite literal that rounds to inf is refused (tests/test_bad_input.py); here the
    accepted ones."""
    return nearest_bits(text, name) & ~(1 << (8 * np.dtype(TYPES[name]).itemsize - 1)) != int(
        np.array(np.inf, TYPES[name]).view(BITS[name]))


def _check(text: str, name: str) -> None:
    want = nearest_bits(text, name)
    if name == "float32":
        assert strtof_bits(text) == want, text  # the two oracles agree
    if not _within_range(text, name):
        return
    for way in WAYS:
        got = way(text, name)
        assert got == want, (way.__name__, text, hex(got), hex(want))


EDGES = [REPORTED, "-0.0", "0.0", "1e-46", "7.006e-46", "7.0064923216240854e-46", "1.4e-45",
         "65519.99", "65520", "6.0e-8", "2.98e-8", "2.9802322387695312e-08",
         "3.4028235677973366e38", "340282356779733661637539395458142568447.9",
         "1.7976931348623158e308", "4.9406564584124654e-324", "2.4703282292062328e-324",
         "2.4703282292062327e-324", "1.00000005960464477539062500001", "1.000000059604644775390625",
         "-1.0000001788139343261718750"]


@pytest.mark.parametrize("name", list(TYPES))
@pytest.mark.parametrize("text", EDGES)
def test_edges_round_once_into_each_type(name, text):
    """Subnormal thresholds, ties (float32's 1 + 2^-24: to even), the largest finite value
    and the half ulp past it, signed zeros."""
    _check(text, name)


@pytest.mark.parametrize("name", list(TYPES))
@settings(deadline=None, max_examples=budget(300))
@given(data=st.data())
def test_random_decimals_round_once_into_each_type(name, data):
    _check(data.draw(decimals(name)), name)


def test_a_python_float_is_its_own_binary_value_rounded_once():
    """A Python float given to dmlc.pad is a float64 already: it rounds from its own bits
    (numpy's astype), not from its shortest decimal (which can sit across a float32 tie)."""
    import dmlc
    x = float(np.nextafter(np.float64(float.fromhex("0x1.0000010000000p+0")), 0))
    want = int(np.array(x).astype(np.float32).view(np.uint32))
    got = dmlc.PaddingDesc(input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(1,)),
                           mode="DML_PADDING_MODE_CONSTANT", start_padding=(1,),
                           end_padding=(0,), value=x)
    from dmlc.ops.pad.validate import padding_bits as bits_of
    assert bits_of("DML_PADDING1", got.value, DataType.FLOAT32) == want == 0x3F800000
