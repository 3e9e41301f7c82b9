"""A per-object value computed on first use, for the IR's hot node type (ops.Node)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class cached(Generic[T]):
    """A node's value computed on first use and kept in its __dict__: functools.cached_property
    without the lock Python 3.11 takes on each first use (nodes are built by the thousand, and
    what is cached is pure: a race computes it twice, alike)."""

    def __init__(self, fn: Callable[[Any], T]) -> None:
        self.fn, self.name, self.__doc__ = fn, fn.__name__, fn.__doc__

    @overload
    def __get__(self, obj: None, cls: type) -> cached[T]: ...
    @overload
    def __get__(self, obj: object, cls: type) -> T: ...

    def __get__(self, obj: object, cls: type) -> T | cached[T]:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value
