"""An independent oracle of integer element arithmetic (family/computed.py, the IR's ARITH,
COMPARE and CONVERT): Python's unbounded integers, wrapped into the type by hand. Nothing of
dmlc or numpy's integer ufuncs is used, so that a rule both get wrong shows up.
"""
from __future__ import annotations

import numpy as np

INTEGER_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
KINDS = ("add", "sub", "mul", "floordiv", "floormod", "truncdiv", "truncmod", "min", "max")


def wrap(value: int, dtype: str) -> int:
    """value modulo 2^bits, as the type reads those bits."""
    bits = np.dtype(dtype).itemsize * 8
    v = value % (1 << bits)
    return v - (1 << bits) if dtype.startswith("int") and v >= 1 << (bits - 1) else v


def _trunc(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


def arith(kind: str, a: int, b: int, dtype: str) -> int:
    """a `kind` b in `dtype`: +, -, * wrap; floor and truncating division and modulo; a zero
    divisor gives 0."""
    if kind in ("floordiv", "floormod", "truncdiv", "truncmod") and b == 0:
        return 0
    value = {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b,
             "floordiv": lambda: a // b, "floormod": lambda: a % b,
             "truncdiv": lambda: _trunc(a, b), "truncmod": lambda: a - b * _trunc(a, b),
             "min": lambda: min(a, b), "max": lambda: max(a, b)}[kind]()
    return wrap(value, dtype)


def edge_values(dtype: str) -> list[int]:
    """The values where integer arithmetic goes wrong: 0, +-1, +-2, small primes, the type's
    extremes and their neighbours, and a few in between."""
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    values = {0, 1, 2, 3, 7, 13, hi, hi - 1, hi // 2, hi // 3 + 1}
    if lo < 0:
        values |= {-1, -2, -3, -7, -13, lo, lo + 1, lo // 2}
    else:
        values |= {hi - 6, 1 << (np.dtype(dtype).itemsize * 8 - 1)}
    return sorted(values)
