"""Device-tensor views meet kernels: a view's layout as a TensorDesc (folded into the next
kernel, so a view costs no copy), and the copy kernel that packs a view's elements when they
must stand alone (numpy(), a compiled kernel's argument, a reshape numpy would copy).

The runtime compiles nothing itself: `runtime_tensor()` is how the compiler layer reaches
dmlc.runtime.tensor, and it installs `pack` there as DeviceTensor.packer on the way.
"""
from __future__ import annotations

from types import ModuleType
from typing import Any

from .compiled import cached_compile
from .descriptors import Slice1Desc, TensorDesc
from .dtypes import DataType
from .errors import ValidationError
from .tensor_checks import MAX_RANK


def runtime_tensor() -> ModuleType:
    """dmlc.runtime.tensor (imported on first use: compiling needs no device), with the
    packing kernel installed."""
    import dmlc.runtime.tensor as tensor
    tensor.DeviceTensor.packer = pack
    return tensor


def view_tensor(a: Any) -> TensorDesc:
    """The TensorDesc that reads a view's elements where they lie in its owner's buffer (a
    size-1 dimension never moves: its stride is 0)."""
    return TensorDesc(data_type=DataType.of(a.dtype), sizes=a.shape,
                      strides=tuple(st if n > 1 else 0 for st, n in zip(a.strides, a.shape)),
                      offset=a.offset)


def owner(a: Any) -> Any:
    """The device tensor that owns a view's buffer."""
    return a.base if a.base is not None else a


def pack(view: Any) -> Any:
    """A new device tensor holding a view's elements, packed, by one copy kernel (a slice
    that takes every element, reading the view's layout)."""
    tensor = runtime_tensor()
    if view.size == 0:
        return tensor.empty(view.shape, view.dtype)
    shape = view.shape or (1,)
    if len(shape) > MAX_RANK:
        raise ValidationError("DeviceTensor", "ndim", f"at most {MAX_RANK} dimensions (a view "
                              "that is not contiguous is packed by a kernel)", view.ndim)
    desc = view_tensor(view[None] if not view.shape else view)
    kernel = cached_compile(Slice1Desc(input=desc, offsets=(0,) * len(shape), sizes=shape,
                                       strides=(1,) * len(shape)))
    return kernel(owner(view)).reshape(view.shape)
