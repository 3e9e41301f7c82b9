"""The descriptors validated so far, so that a one-shot function called again with the same
arguments (a decode loop's every step) does not check its descriptor's rules again.

A descriptor is found only where it is *exactly* one validated before: equal, and every value
in it of the same exact type, each float of the same bits. Equality alone would not do:
axis=0.0 equals axis=0, True equals 1 and -0.0 equals 0.0, and validation refuses the first
two and keeps the last's sign. A descriptor holding anything else (a bool, a numpy integer, a
list) is validated every time. zero_sizes(), which changes the rules (and so is part of the
key), lives here too."""
from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

from ..dtypes import DataType
from .tensor import TensorDesc

ENTRIES = 1024
"""Descriptors kept (all forgotten at once when full: a loop of new shapes must not grow it)."""

_found: dict[tuple[Any, ...], Any] = {}
_fields: dict[type, tuple[str, ...]] = {}


def memoized(validate: Callable[[Any], Any], desc: Any) -> Any:
    """validate(desc), or what it returned for a descriptor exactly like it."""
    floats: list[str] = []
    if not _exact(desc, floats):
        return validate(desc)
    key = (desc, tuple(floats), min_size())  # zero_sizes() changes the rules
    found = _found.get(key)
    if found is None:
        found = validate(desc)
        if len(_found) >= ENTRIES:
            _found.clear()
        _found[key] = found
    return found


_ZERO_SIZES: ContextVar[bool] = ContextVar("dmlc_zero_sizes", default=False)


@contextlib.contextmanager
def zero_sizes() -> Iterator[None]:
    """Inside, the validators take sizes of 0 (and tile's repeats of 0, slice's empty windows):
    how the one-shot functions check an empty tensor with every other rule before they return
    numpy's empty result, running no kernel (DirectML's sizes are >= 1, and so are every
    compiled kernel's)."""
    token = _ZERO_SIZES.set(True)
    try:
        yield
    finally:
        _ZERO_SIZES.reset(token)


def min_size() -> int:
    """The smallest size a dimension may have: 1, or 0 inside zero_sizes()."""
    return 0 if _ZERO_SIZES.get() else 1


def clear() -> None:
    _found.clear()


def _exact(value: Any, floats: list[str]) -> bool:
    """Whether `value` holds only ints, strings, None, DataTypes and floats (whose bits are
    appended to `floats`), in tuples and frozen dataclasses."""
    kind = type(value)
    if kind is int or kind is str or value is None or kind is DataType:
        return True
    if kind is TensorDesc:  # the commonest, in one look (its data_type is a DataType)
        strides, total = value.strides, value.total_bytes
        return (type(value.offset) is int and (total is None or type(total) is int)
                and all(type(v) is int for v in value.sizes)
                and (strides is None or all(type(v) is int for v in strides)))
    if kind is tuple:
        return all(type(v) is int or _exact(v, floats) for v in value)
    if kind is float:
        floats.append(value.hex())  # -0.0 and 0.0 differ here; a NaN never equals itself
        return True
    names = _fields.get(kind)
    if names is None:
        params = getattr(kind, "__dataclass_params__", None)
        if params is None or not params.frozen:
            return False
        names = _fields[kind] = tuple(f.name for f in dataclasses.fields(kind))
    return all(_exact(getattr(value, n), floats) for n in names)
