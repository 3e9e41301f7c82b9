"""The numbers the one-shot functions take, numpy's way: numpy integer scalars wherever an
integer goes and integer arrays wherever a list of them goes, turned into Python ints at the
boundary (numpy's uint64 mixed with a Python int gives a float64, which no shape takes); bools
never (True is no axis, no size). Anything else passes through unchanged, for validation to
name. Axes count from the end when negative, as in numpy, and their errors say so."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from ..errors import ValidationError
from ..family.checks import is_int


def as_int(value: Any) -> Any:
    """A numpy (or Python) integer as a Python int; anything else as it is."""
    return int(value) if is_int(value) else value


def as_ints(values: Any) -> Any:
    """A list, tuple or 1-d integer ndarray of integers as a tuple of Python ints; anything
    else (a bool among them, a bool array, a scalar) as it is."""
    if isinstance(values, np.ndarray):
        if values.ndim != 1 or values.dtype.kind not in "iu":
            return values
        return tuple(int(v) for v in values.tolist())
    if isinstance(values, Sequence) and not isinstance(values, (str, bytes)) and all(
            is_int(v) for v in values):
        return tuple(int(v) for v in values)
    return values


def is_int_list(values: Any) -> bool:
    """Whether as_ints made `values` a tuple of ints."""
    return isinstance(values, tuple) and all(type(v) is int for v in values)


def axis_of(op: str, axis: Any, rank: int, field: str = "Axis") -> int:
    """An axis in [-rank, rank), negative counting from the end, as an int in [0, rank)."""
    if not is_int(axis) or not -rank <= axis < rank:
        raise ValidationError(op, field, f"an integer in [{-rank}, {rank}) (negative counts "
                              "from the end)", repr(axis))
    return int(axis) % rank


def int_arguments(op: str, field: str, values: Any, rank: int | None) -> tuple[int, ...]:
    """An integer (`rank` of it), or a list of integers (a tuple or an integer ndarray)."""
    if is_int(values):
        return (int(values),) * (rank or 1)
    ints = as_ints(values)
    if not is_int_list(ints):
        raise ValidationError(op, field, f"an integer or {rank or 'a list of'} integers",
                              repr(values))
    return cast(tuple[int, ...], ints)
