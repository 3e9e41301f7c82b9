"""A loaded model's constants kept on the device between runs.

A model's initializers (and Constant nodes) are numpy arrays. A kernel given a numpy array
uploads it on every call, so without this a model holding a 50k x 512 embedding table would
upload the whole table on each run. Instead, the first kernel of a run that reads a constant
(or a view of one: a Reshape, Transpose or Slice of an initializer is a numpy view of it) gets
a device copy, and later runs reuse it; `OnnxProgram.release()` (or garbage collection of the
program) frees them.

Only nodes with an input already on the device read the device copies: a node of constants
alone keeps running on host arrays, so that what it returns stays on the host for the shape
arithmetic that may follow (graph.HOST_OPS read host values only).
"""
from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

_ACTIVE: contextvars.ContextVar[Resident | None] = contextvars.ContextVar("dmlc_onnx_resident",
                                                                          default=None)


def _root(a: np.ndarray) -> np.ndarray:
    """The array that owns a view's memory (the last ndarray down its chain of bases)."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _address(a: np.ndarray) -> int:
    return int(a.__array_interface__["data"][0])


class Resident:
    """Device copies of one model's constants, by the constant and the view of it a kernel
    reads (its offset, shape, strides and type)."""

    def __init__(self, constants: Iterable[np.ndarray]) -> None:
        self._roots = {id(r): r for r in (_root(c) for c in constants)}
        """The constants' own arrays, by id (held here, so that ids stay theirs)."""
        self._tensors: dict[tuple, Any] = {}
        self._arrays: dict[tuple, tuple[np.ndarray, np.dtype]] = {}
        """What each device copy holds: the host array and the type its elements move as."""
        self._lock = threading.Lock()
        self.uploads = 0
        """Device copies made so far (a second run of the same inputs' shapes adds none)."""

    def key(self, a: np.ndarray) -> tuple | None:
        """Where `a` lies in a constant, or None when it is no view of one (or a broadcast
        larger than its constant, which stays a strided host view)."""
        root = _root(a)
        if self._roots.get(id(root)) is not root or a.size == 0 or a.size > root.size:
            return None
        return (id(root), _address(a) - _address(root), a.shape, a.strides, a.dtype.str)

    def tensor(self, a: np.ndarray, as_type: np.dtype) -> Any:
        """The device copy of `a`, a constant or a view of one, its elements moved as `as_type`
        (values.carrier), made on first use; None for any other array."""
        key = self.key(a)
        if key is None:
            return None
        with self._lock:
            t = self._tensors.get(key)
            if t is not None and not t.released and not t.device.closed:
                return t
            from ..ops.copy.tensor import to_device
            data = np.ascontiguousarray(a)
            t = to_device(data.view(as_type) if as_type != data.dtype else data)
            self._tensors[key], self._arrays[key] = t, (a, as_type)
            self.uploads += 1
            return t

    def held(self) -> list[tuple[Any, np.ndarray, np.ndarray]]:
        """(device copy, the constant's array it copies, its elements as moved) of each copy
        held."""
        with self._lock:
            return [(t, _root(self._arrays[k][0]),
                     np.ascontiguousarray(self._arrays[k][0]).view(self._arrays[k][1]))
                    for k, t in self._tensors.items() if not t.released]

    @property
    def nbytes(self) -> int:
        """Bytes of the device copies held."""
        with self._lock:
            return sum(t.nbytes for t in self._tensors.values() if not t.released)

    def release(self) -> None:
        """Free every device copy now (a later run makes them again)."""
        with self._lock:
            tensors, self._tensors, self._arrays = list(self._tensors.values()), {}, {}
        for t in tensors:
            if not t.device.closed:
                t.release()


@contextlib.contextmanager
def reading(store: Resident | None) -> Iterator[None]:
    """While converting one node: device_data() takes constants' device copies from `store`
    (None: host arrays, uploaded by each kernel call)."""
    token = _ACTIVE.set(store)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def resident_tensor(a: np.ndarray, as_type: np.dtype) -> Any:
    """The device copy of a constant (or a view of one) for the node being converted, or
    None (not a constant, or a node that runs on host arrays)."""
    store = _ACTIVE.get()
    return None if store is None else store.tensor(a, as_type)
