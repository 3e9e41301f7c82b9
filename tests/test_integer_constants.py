"""An integer constant in a float tensor rounds once, to nearest even, straight into the
tensor's type (float16, float32, float64), as numpy's int64 -> float conversion does: never
through a float64 first (2**60 + 2**36 + 1 rounded twice is 2**60; once, 2**60 + 2**37).
Padding values, expression constants and .dml data all take this path."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dmlc.dtypes import DataType
from dmlc.family.literal import int_to_float, literal_bits
from dmlc.lang import parse_module
from dmlc.ops.pad.validate import padding_bits

FLOATS = [DataType.FLOAT16, DataType.FLOAT32, DataType.FLOAT64]
HARD = [2**60 + 2**36 + 1, 2**60 + 2**36, 2**60 + 3 * 2**36, -(2**60 + 2**36 + 1), 2**24 + 1,
        2**24 + 3, 2**53 + 1, 2**63 - 1, -(2**63), 65519, 65520, 2049, 2051, 1]


def numpy_value(n: int, dtype: DataType) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.array(n, np.int64).astype(dtype.numpy)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("n", HARD)
def test_hard_cases_round_as_numpy_does(n, dtype):
    assert int_to_float(n, dtype).tobytes() == numpy_value(n, dtype).tobytes()


@given(st.sampled_from(FLOATS), st.integers(-(2**63), 2**63 - 1))
def test_every_int64_rounds_as_numpy_does(dtype, n):
    assert int_to_float(n, dtype).tobytes() == numpy_value(n, dtype).tobytes()


@given(st.sampled_from(FLOATS), st.integers(1, 62), st.integers(-3, 3), st.booleans())
def test_near_ties_round_as_numpy_does(dtype, e, delta, negative):
    """Halfway between two floats, and one either side: where double rounding goes wrong."""
    ulp = 2 ** max(0, e - np.finfo(dtype.numpy).nmant)
    n = (2**e + ulp // 2 + delta) * (-1 if negative else 1)
    assert int_to_float(n, dtype).tobytes() == numpy_value(n, dtype).tobytes()


def test_beyond_int64_and_beyond_the_range():
    assert int_to_float(2**64 + 1, DataType.FLOAT32) == np.float32(2**64)
    assert np.isinf(int_to_float(10**400, DataType.FLOAT64))


def bits(value: float, dtype: DataType) -> int:
    return int(np.array(value, dtype.numpy).view(dtype.bits_dtype))


def test_padding_and_expression_constants_round_once():
    n = 2**60 + 2**36 + 1
    want = bits(2**60 + 2**37, DataType.FLOAT32)
    assert padding_bits("DML_PADDING1", n, DataType.FLOAT32) == want
    assert padding_bits("DML_PADDING1", np.int64(n), DataType.FLOAT32) == want
    assert literal_bits("expression", str(n), DataType.FLOAT32) == want
    assert literal_bits("expression", hex(n), DataType.FLOAT32) == want
    assert literal_bits("expression", "-0", DataType.FLOAT32) == bits(-0.0, DataType.FLOAT32)


def test_dml_data_rounds_once():
    m = parse_module("X: float32[2] = [1152921573326323713, -1152921573326323713]\n"
                     "Y[i] = X[i]")
    (unit,) = m.units
    assert unit.data["X"].tolist() == [2**60 + 2**37, -(2**60 + 2**37)]
