"""An operand computed from arrays, for the one-shot functions: what `dmlc.gather`,
`dmlc.scatter_nd`, ... take in place of an index array to fuse index arithmetic into their
kernel (family/computed.py says what it computes and how)."""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..artifact import is_device_tensor
from ..dtypes import DataType
from ..errors import ValidationError
from ..family.computed import (
    Arith,
    ComputedTensor,
    Const,
    Coord,
    Expr,
    Input,
    evaluate,
    rebuild,
    type_of,
)


class Computed:
    """Elements computed by `value` (a family/computed.py expression) from `inputs` (numpy
    arrays or DeviceTensors, broadcast to `shape`), read as a tensor of `sizes` (a reshape of
    `shape`; default `shape`). Nothing is computed until a kernel reads it (or numpy();
    dmlc.ops.copy.api.materialize computes it into a tensor of its own)."""

    def __init__(self, value: Expr, inputs: Sequence[Any], shape: Sequence[int],
                 sizes: Sequence[int] | None = None) -> None:
        from . import tensor_of  # (this module is imported by the package's own)
        self.value, self.inputs = value, tuple(inputs)
        self.native = tuple(int(s) for s in shape)
        self.shape = tuple(int(s) for s in (self.native if sizes is None else sizes))
        if math.prod(self.shape) != math.prod(self.native):
            raise ValidationError("computed operand", "sizes", f"{math.prod(self.native)} "
                                  f"elements ({self.native})", self.shape)
        descs = tuple(tensor_of(a) for a in self.inputs)
        self.dtype = np.dtype(type_of(value, descs))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def reshape(self, *shape: Any) -> Computed:
        """The same elements in the same order, read as another shape (nothing moves)."""
        want = tuple(shape[0]) if len(shape) == 1 and not isinstance(shape[0], int) else shape
        return Computed(self.value, self.inputs, self.native, want)

    @property
    def tensor(self) -> ComputedTensor:
        """Its descriptor: what a kernel that reads it is compiled with."""
        from . import tensor_of
        return ComputedTensor(data_type=DataType.of(self.dtype), sizes=self.shape or (1,),
                              value=self.value, shape=self.native or (1,),
                              inputs=tuple(tensor_of(a) for a in self.inputs))

    @property
    def computed_inputs(self) -> tuple[Any, ...]:
        """What a kernel compiled with `tensor` takes in its place: its inputs' buffers."""
        from . import buffer_of
        return tuple(buffer_of(a) for a in self.inputs)

    def numpy(self) -> np.ndarray:
        """The elements, computed on the host (device inputs are downloaded)."""
        arrays = [a.numpy() if is_device_tensor(a) else np.asarray(a) for a in self.inputs]
        return evaluate(self.value, self.native, arrays).astype(self.dtype).reshape(self.shape)

    # Views: the same elements, read another way, still computed where a kernel reads them.
    # Each returns None where the view cannot be expressed (the caller materializes first).

    def _full_inputs(self) -> list[Any]:
        """The inputs with leading 1s up to the computed rank (views)."""
        rank = len(self.native)
        return [a.reshape((1,) * (rank - a.ndim) + tuple(a.shape)) for a in self.inputs]

    def with_native(self) -> Computed | None:
        """The same elements computed over `shape` itself, where it differs from the shape they
        are computed over only by dimensions of 1 (Unsqueeze, Squeeze)."""
        if self.shape == self.native:
            return self
        old = [k for k, d in enumerate(self.native) if d != 1]
        new = [k for k, d in enumerate(self.shape) if d != 1]
        if [self.native[k] for k in old] != [self.shape[k] for k in new]:
            return None
        moved = dict(zip(old, new))
        value = rebuild(self.value, lambda e: (
            Coord(moved[e.axis]) if e.axis in moved else Const("int64", 0))
            if isinstance(e, Coord) else None)
        inputs = []
        for a in self._full_inputs():
            shape = [1] * len(self.shape)
            for o, n in moved.items():
                shape[n] = a.shape[o]
            inputs.append(a.reshape(tuple(shape)))
        return Computed(value, inputs, self.shape)

    def transpose(self, perm: Sequence[int]) -> Computed | None:
        c = self.with_native()
        if c is None:
            return None
        at = {p: k for k, p in enumerate(perm)}  # axis p moves to k
        value = rebuild(c.value, lambda e: Coord(at[e.axis]) if isinstance(e, Coord) else None)
        return Computed(value, [a.transpose(tuple(perm)) for a in c._full_inputs()],
                        tuple(c.native[p] for p in perm))

    def sliced(self, key: Sequence[slice]) -> Computed | None:
        """x[key], one slice per dimension (Python's rules)."""
        c = self.with_native()
        if c is None:
            return None
        ranges = [range(*k.indices(d)) for k, d in zip(key, c.native)]

        def coord(e: Expr) -> Expr | None:
            if not isinstance(e, Coord) or ranges[e.axis][:2] == range(2):
                return None
            r = ranges[e.axis]
            return Arith("add", Const("int64", r.start),
                         Arith("mul", e, Const("int64", r.step)))
        inputs = [a[tuple(k if a.shape[d] > 1 else slice(None) for d, k in enumerate(key))]
                  for a in c._full_inputs()]
        return Computed(rebuild(c.value, coord), inputs, tuple(len(r) for r in ranges))

    def broadcast_to(self, shape: Sequence[int]) -> Computed | None:
        """numpy's broadcast_to: new leading dimensions, dimensions of 1 repeated."""
        c = self.with_native()
        shape = tuple(shape)
        lead = len(shape) - len(self.shape)
        if c is None or lead < 0 or any(d not in (1, n) for d, n in zip(c.native,
                                                                         shape[lead:])):
            return None
        value = rebuild(c.value, lambda e: (
            Const("int64", 0) if c.native[e.axis] == 1 and shape[e.axis + lead] != 1
            else Coord(e.axis + lead)) if isinstance(e, Coord) else None)
        return Computed(value, c.inputs, shape)

    def __repr__(self) -> str:
        return f"Computed({self.value!r}, shape={self.shape}, dtype={self.dtype.name})"


def combine(build: Callable[..., Expr], operands: Sequence[Any],
            shape: Sequence[int]) -> Computed | None:
    """The elementwise `build(expr, ...)` of operands broadcast to `shape`: each a Computed,
    an array or a DeviceTensor (read as an input), or an expression already (a constant).
    None where a Computed operand cannot be broadcast so (materialize it first)."""
    shape = tuple(shape)
    inputs: list[Any] = []
    exprs = []
    for x in operands:
        if isinstance(x, Computed):
            c = x.broadcast_to(shape)
            if c is None:
                return None
            exprs.append(_renumbered(c.value, [_position(inputs, a) for a in c.inputs]))
        elif type(x).__module__ == Arith.__module__:  # an expression (family/computed.py)
            exprs.append(x)
        else:
            exprs.append(Input(_position(inputs, x)))
    return Computed(build(*exprs), inputs, shape)


def _renumbered(value: Expr, at: list[int]) -> Expr:
    """value reading input at[k] where it read input k."""
    return rebuild(value, lambda e: Input(at[e.k]) if isinstance(e, Input) else None)


def _position(inputs: list[Any], a: Any) -> int:
    """a's position among inputs (appended if new; the same object is one input)."""
    for k, x in enumerate(inputs):
        if x is a:
            return k
    inputs.append(a)
    return len(inputs) - 1
