"""An operand computed from arrays, for the one-shot functions: what `dmlc.gather`,
`dmlc.scatter_nd`, ... take in place of an index array to fuse index arithmetic into their
kernel (family/computed.py says what it computes and how)."""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..artifact import is_device_tensor
from ..compiled import cached_compile
from ..dtypes import DataType
from ..errors import ValidationError
from ..family.computed import ComputedTensor, Expr, evaluate, type_of
from ..ops.copy.desc import IdentityDesc


class Computed:
    """Elements computed by `value` (a family/computed.py expression) from `inputs` (numpy
    arrays or DeviceTensors, broadcast to `shape`), read as a tensor of `sizes` (a reshape of
    `shape`; default `shape`). Nothing is computed until a kernel reads it (or numpy())."""

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
        return evaluate(self.tensor, arrays).reshape(self.shape)

    def materialize(self) -> Any:
        """The elements, computed by one kernel into a tensor of their own (a DeviceTensor when
        an input is one, else a numpy array)."""
        from . import call
        if not self.size:
            return np.empty(self.shape, self.dtype)
        kernel = cached_compile(IdentityDesc(input=self.tensor))
        return call(kernel, (self,), None).reshape(self.shape)

    def __repr__(self) -> str:
        return f"Computed({self.value!r}, shape={self.shape}, dtype={self.dtype.name})"
