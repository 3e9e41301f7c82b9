"""bool data in the one-shot functions: a bool is a byte. numpy's masks (and device tensors of
dtype bool) move as the uint8 view of their bytes, which no copy makes, and the result is
viewed back as bool: the same bits, numpy's dtype. DirectML has no bool type, so descriptors
and compiled kernels stay uint8; only the functions that take arrays do this, for their data
operands (never for indices, which a bool is not, save numpy.take's 0 and 1).

    @moves_bools("DML_SCATTER", "input", "updates")
    def scatter(input, indices, updates, ...): ...

Data operands that are not all bool (a bool input with uint8 updates) are refused: viewing one
of them would hide the difference. Values that numpy casts to the data's dtype (`cast`:
put_along_axis's values) are cast to bool first, as numpy casts them (2 is True), and numbers
(`scalars`: pad's fill) become 0 or 1 the same way.
"""
from __future__ import annotations

import functools
import inspect
import numbers
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import numpy as np

from ..artifact import is_device_tensor
from ..errors import ValidationError

F = TypeVar("F", bound=Callable[..., Any])
BOOL, BYTE = np.dtype(np.bool_), np.dtype(np.uint8)
BOOL_REDUCTIONS = {"add": "max", "mul": "min"}
"""A scatter's reduction of bools, as numpy's: np.add of bools is `or` (True + True is True,
byte 1: the bytes' max), np.multiply `and` (their min)."""


def moves_bools(op: str, *data: str, cast_to: Sequence[str] = (), scalars: Sequence[str] = (),
                many: bool = False) -> Callable[[F], F]:
    """Decorate a one-shot function whose parameters `data` are arrays it moves (`many`: the
    first is a sequence of them, join's tensors), `cast_to` values numpy casts to their dtype,
    `scalars` numbers it fills with; `out` (if it has one) is viewed too."""
    def wrap(fn: F) -> F:
        signature = inspect.signature(fn)
        names = list(signature.parameters)
        where = [(names.index(n), n) for n in data]

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            given = [args[k] if k < len(args) else kwargs.get(n) for k, n in where]
            if not any(_maybe_bool(v, many and k == 0) for k, v in enumerate(given)):
                return fn(*args, **kwargs)  # the common case: one look at each data operand
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError:
                return fn(*args, **kwargs)  # the function says what is wrong
            values = bound.arguments
            operands = [(f"{data[0]}[{k}]", v) for k, v in enumerate(_sequence(values[data[0]]))] \
                if many else []
            operands += [(n, values[n]) for n in data[1 if many else 0:] if n in values]
            if not any(_is_bool(v) for _, v in operands):
                return fn(*args, **kwargs)
            for label, v in operands:
                if not _is_bool(v):
                    raise ValidationError(op, f"{label}.dtype", "bool, as the other data "
                                          "operands (a bool moves as a byte; viewing one of "
                                          "them alone would hide the difference)",
                                          _dtype_name(v))
            for n in data:
                if n in values:  # join's list item by item; an array (its rows) as a whole
                    values[n] = [_bytes(v) for v in values[n]] if many and n == data[0] \
                        and isinstance(values[n], (list, tuple)) else _bytes(values[n])
            for n in cast_to:
                if n in values:
                    values[n] = _cast_bytes(values[n])
            for n in scalars:
                if values.get(n) is not None:
                    values[n] = _bit(values[n])
            if values.get("reduction") in BOOL_REDUCTIONS:  # numpy's add of bools is `or`
                values["reduction"] = BOOL_REDUCTIONS[values["reduction"]]
            out = values.get("out")
            if out is not None and _is_bool(out):
                values["out"] = _bytes(out)
            result = fn(*bound.args, **bound.kwargs)
            if out is not None and result is values["out"]:
                return out  # out= itself, as given
            return _as_bools(result)
        return cast(F, run)
    return wrap


def _maybe_bool(value: Any, many: bool) -> bool:
    """Whether a data operand may hold bools (cheap: no conversion of an array)."""
    if many and isinstance(value, (list, tuple)):
        return any(_maybe_bool(v, False) for v in value)
    dtype = getattr(value, "dtype", None)
    if dtype is not None:
        return bool(dtype == BOOL)
    return isinstance(value, (bool, np.bool_, list, tuple))


def _sequence(value: Any) -> list[Any]:
    """join's tensors as a list (an array: one operand, the sequence of its rows)."""
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _is_bool(value: Any) -> bool:
    if getattr(value, "computed_inputs", None) is not None:
        return False  # an operand computed from others moves its own type
    dtype = getattr(value, "dtype", None)
    if dtype is None and isinstance(value, (bool, np.bool_, list, tuple)):
        try:
            dtype = np.asarray(value).dtype
        except (TypeError, ValueError):  # ragged: the function names it
            return False
    return dtype is not None and np.dtype(dtype) == BOOL


def _dtype_name(value: Any) -> str:
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        try:
            dtype = np.asarray(value).dtype
        except (TypeError, ValueError):
            return type(value).__name__
    return str(np.dtype(dtype).name)


def _bytes(value: Any) -> Any:
    """A bool operand as the uint8 view of its bytes (a device tensor's too): no copy."""
    if not _is_bool(value):
        return value
    if is_device_tensor(value):
        return value.view(BYTE)
    return np.asarray(value).view(BYTE)


def _cast_bytes(value: Any) -> Any:
    """Values numpy would cast to bool, cast (a device tensor is not cast: bool or refused by
    the function), as bytes."""
    if is_device_tensor(value):
        return value.view(BYTE) if value.dtype == BOOL else value
    try:
        return np.asarray(value).astype(BOOL).view(BYTE)
    except (TypeError, ValueError):
        return value  # the function names it


def _bit(value: Any) -> Any:
    """A fill number (or pairs of it) as numpy casts it to bool: 0 or 1."""
    if isinstance(value, numbers.Number):
        return int(bool(value))
    if not isinstance(value, (list, tuple, np.ndarray)):
        return value  # anything else (raw bits): the function takes or names it
    try:
        return np.asarray(value).astype(BOOL).astype(int).tolist()
    except (TypeError, ValueError):
        return value


def _as_bools(result: Any) -> Any:
    """A function's uint8 result viewed as bool (each of a tuple: split's pieces)."""
    if isinstance(result, tuple):
        return tuple(_as_bools(r) for r in result)
    if isinstance(result, np.generic) and result.dtype == BYTE:
        return np.bool_(result)
    if (isinstance(result, np.ndarray) or is_device_tensor(result)) and result.dtype == BYTE:
        return result.view(BOOL)
    return result
