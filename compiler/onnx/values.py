"""Tensors between ONNX nodes: constants on the host, results on the device, and the element
types ONNX has beyond DirectML's eleven.

Data movement copies bits, so any element of 1, 2, 4 or 8 bytes moves as the unsigned integer of
its width: ONNX's bool, bfloat16, the float8 types and complex64 run through the same kernels
(`Value.logical` remembers what to call the bits on the way out; ml_dtypes' bfloat16 and float8
types are numpy dtypes of kind "V"). Constants (initializers,
Constant nodes, index operands) stay numpy arrays until a kernel needs them on the device.
"""
from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..dtypes import DataType
from ..errors import ValidationError
from ..family.computed import Cast
from ..oneshot.computed import Computed, combine
from ..ops.copy.api import materialize
from .resident import resident_tensor

_CARRIERS: dict[int, np.dtype] = {n: np.dtype(f"uint{8 * n}") for n in (1, 2, 4, 8)}


@dataclass
class Value:
    """A tensor of the graph: `data` is a numpy array, a DeviceTensor, or a Computed (index
    arithmetic not yet computed: onnx/arith.py) of `shape`, holding elements of `logical` dtype
    (as their bits, in a carrier type, when DirectML has no such type)."""

    data: Any
    logical: np.dtype
    given: np.ndarray | None = None
    """A graph input's array as the caller gave it (its device copy is `data`): what shape
    arithmetic reads of it, with no download."""
    input_name: str | None = None
    """The graph input it is (with `given`): host reads of its values are recorded (reads)."""

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape)

    @property
    def on_host(self) -> bool:
        return isinstance(self.data, np.ndarray)

    @property
    def computed(self) -> bool:
        return isinstance(self.data, Computed)

    def host(self) -> np.ndarray:
        """The elements as a numpy array of the logical type (the caller's array of a graph
        input; a computed value evaluated on the host; else one download)."""
        if self.given is not None:
            _record(self.input_name)
        a = self.data if self.on_host else self.given if self.given is not None else \
            self.data.numpy()
        return np.asarray(a).view(self.logical) if a.dtype != self.logical else np.asarray(a)


_READS: contextvars.ContextVar[set[str] | None] = contextvars.ContextVar("dmlc_onnx_reads",
                                                                       default=None)


def _record(name: str | None) -> None:
    reads = _READS.get()
    if reads is not None and name is not None:
        reads.add(name)


@contextlib.contextmanager
def input_reads() -> Iterator[set[str]]:
    """The graph inputs whose values the host read (shape arithmetic, an If's condition, a
    scalar's data movement) while the block ran: what a traced model bakes in."""
    reads: set[str] = set()
    token = _READS.set(reads)
    try:
        yield reads
    finally:
        _READS.reset(token)


def carrier(dtype: np.dtype, where: str) -> np.dtype:
    """The DirectML type the elements of `dtype` move as."""
    dtype = np.dtype(dtype)
    try:
        DataType.of(dtype)
        return dtype
    except ValueError:  # ValidationError is one too
        pass
    structured = dtype.fields is not None or dtype.subdtype is not None
    if dtype.kind in "OUS" or structured or dtype.itemsize not in _CARRIERS:
        raise ValidationError("onnx", where, "elements of 1, 2, 4 or 8 bytes (numbers, bool)",
                              str(dtype))
    return _CARRIERS[dtype.itemsize]


def value(array: Any, where: str) -> Value:
    """A host value from a numpy array (its elements' type kept as the logical type)."""
    a = np.asarray(array)
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("="))
    carrier(a.dtype, where)  # refuse strings and objects early
    return Value(a, a.dtype)


def device_data(v: Value) -> Any:
    """v's elements as a kernel argument: the device tensor; a constant's device copy, kept
    between runs (resident.py); the host array in its carrier type (a view: no copy); a
    computed value computed by its own kernel (as data: index operands take index_data)."""
    if v.computed:
        data = v.data
        if v.logical.kind == "b":  # a bool as its byte (broadcasting to its own shape holds)
            data = combine(lambda e: Cast(e, "uint8"), [data], v.shape)
            assert data is not None
        return materialize(data)
    if not v.on_host:
        return v.data
    c = carrier(v.logical, "input")
    kept = resident_tensor(v.data, c)
    if kept is not None:
        return kept
    a = v.data if v.data.flags.c_contiguous else v.data.copy()  # (ascontiguousarray: 1-d)
    return a.view(c) if c != a.dtype else a


def index_data(v: Value) -> Any:
    """An index operand as a kernel argument: as device_data, but a computed value stays a
    Computed, fused into the kernel that reads it (family/computed.py)."""
    return v.data if v.computed and v.logical.kind != "b" else device_data(v)


def uploaded(v: Value, name: str | None = None) -> Value:
    """v on the device (a graph input: the whole graph then runs there); empty ones stay on the
    host (nothing is dispatched for them)."""
    if not v.on_host or v.data.size == 0:
        return v
    from ..ops.copy.tensor import to_device
    return Value(to_device(device_data(v)), v.logical, given=v.data, input_name=name)


def finished(v: Value) -> Value:
    """A graph output: a view packed by its copy kernel (so that compiling shows it); a
    computed value computed by its own kernel."""
    if v.computed:
        return Value(device_data(v), v.logical)
    if v.on_host or v.data.is_packed:
        return v
    return Value(v.data.packed(), v.logical)


def index_array(v: Value, node: str, field: str) -> np.ndarray:
    """An operand the kernels need on the host (shape, pads, axes, split sizes...): integers."""
    if not v.on_host:
        v = Value(v.host(), v.logical)
    a = np.asarray(v.data)
    if a.dtype.kind not in "iu":
        raise ValidationError("onnx", f"{node}: {field}", "integers", str(a.dtype))
    return a.astype(np.int64)
