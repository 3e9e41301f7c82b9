"""Device-tensor views meet kernels: a view's layout as a TensorDesc (folded into the next
kernel, so a view costs no copy), the copy kernel that packs a view's elements when they
must stand alone (numpy(), a compiled kernel's argument, a reshape numpy would copy), and the
one that writes a value through a view (`view[...] = value`, out= a view).

The runtime compiles nothing itself: `runtime_tensor()` is how the compiler layer reaches
dmlc.runtime.tensor, and it installs `pack` and `assign` there on the way.
"""
from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from .compiled import cached_compile
from .descriptors import Slice1Desc, TensorDesc
from .descriptors.copy import IdentityDesc
from .dtypes import DataType, as_ndarray
from .errors import ValidationError
from .tensor_checks import MAX_RANK


def runtime_tensor() -> ModuleType:
    """dmlc.runtime.tensor (imported on first use: compiling needs no device), with the
    packing kernel installed."""
    import dmlc.runtime.tensor as tensor
    tensor.DeviceTensor.packer = pack
    tensor.DeviceTensor.assigner = assign
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


def assign(view: Any, value: Any) -> None:
    """Write `value` through a device view, as numpy's `view[...] = value`: a scalar, an array
    or a device tensor (any view of one) broadcast to the view's shape, numpy's casting for host
    values (a device tensor must have the view's dtype). One copy kernel reads the value where
    it lies and writes each element where the view puts it; the rest of the buffer is left as
    it was. A value that shares the view's buffer is copied first (numpy's semantics for
    overlapping assignment)."""
    op = "DeviceTensor.__setitem__"
    view.check_usable(op)
    if view.size == 0:
        return
    if is_device(value):
        if value.dtype != view.dtype:
            raise ValidationError(op, "value.dtype", f"{view.dtype.name} (the tensor's; device "
                                  "tensors are not cast)", value.dtype.name)
        if value.kp_tensor is view.kp_tensor:
            value = value.packed() if not value.is_packed else clone(value)
        source = _broadcast_desc(op, value, view.shape)
        buffer = owner(value)
    else:
        try:
            host = np.asarray(as_ndarray(op, "value", value)).astype(view.dtype, copy=False)
            host = np.broadcast_to(host, view.shape)
        except (TypeError, ValueError) as e:
            raise ValidationError(op, "value", f"a value that numpy casts to {view.dtype.name} "
                                  f"and broadcasts to {view.shape}", type(value).__name__,
                                  str(e)) from None
        source, buffer = _host_desc(host)
    shape = view.shape or (1,)
    if len(shape) > MAX_RANK:
        raise ValidationError(op, "ndim", f"at most {MAX_RANK} dimensions", view.ndim)
    source = _ranked(source, shape)
    if view.is_whole:  # all of its buffer: an ordinary copy, by whole words and vectors
        cached_compile(IdentityDesc(input=source))(buffer, out=view.reshape(shape))
        return
    # part of a buffer: written element by element where the view's layout puts them (8/16-bit
    # elements atomically), the kernel bound to the whole buffer
    kernel = cached_compile(IdentityDesc(input=source, output=view_tensor(
        view if view.shape else view[None])))
    if not is_device(buffer):
        buffer = runtime_tensor().to_device(buffer)
    kernel.executable().run_device([buffer], owner(view))


def clone(t: Any) -> Any:
    """A new packed device tensor with the elements of a packed one (one copy kernel)."""
    flat = t.reshape(-1) if t.ndim != 1 else t
    kernel = cached_compile(IdentityDesc(input=TensorDesc(data_type=DataType.of(t.dtype),
                                                          sizes=flat.shape)))
    return kernel(flat).reshape(t.shape)


def is_device(a: Any) -> bool:
    from .arguments import is_device_tensor
    return is_device_tensor(a)


def _broadcast_desc(op: str, value: Any, shape: tuple[int, ...]) -> TensorDesc:
    """The TensorDesc that reads a device tensor (any view) broadcast to `shape`, numpy's
    rules: leading dimensions added, size-1 dimensions stretched (stride 0)."""
    if value.ndim > len(shape) or any(m not in (1, n) for m, n in
                                      zip(value.shape[::-1], shape[::-1])):
        raise ValidationError(op, "value.shape", f"a shape that broadcasts to {shape}",
                              value.shape)
    lead = len(shape) - value.ndim
    strides = (0,) * lead + tuple(st if m > 1 else 0 for st, m in zip(value.strides,
                                                                     value.shape))
    return TensorDesc(data_type=DataType.of(value.dtype), sizes=shape, strides=strides,
                      offset=value.offset)


def _host_desc(host: np.ndarray) -> tuple[TensorDesc, np.ndarray]:
    """A broadcast host value: its distinct elements uploaded once, read with stride 0 where
    numpy broadcast them."""
    base = np.ascontiguousarray(host[tuple(slice(0, 1) if st == 0 else slice(None)
                                           for st in host.strides)])
    strides, acc = [], 1
    for n, st in reversed(list(zip(host.shape, host.strides))):
        strides.append(0 if st == 0 or n == 1 else acc)
        acc *= 1 if st == 0 else n
    desc = TensorDesc(data_type=DataType.of(host.dtype), sizes=host.shape,
                      strides=tuple(reversed(strides)))
    return desc, base.reshape(-1) if base.size else base


def _ranked(t: TensorDesc, shape: tuple[int, ...]) -> TensorDesc:
    """`t` (of the view's shape) for a 0-d view, which the kernel sees as one element."""
    if t.sizes == shape:
        return t
    return TensorDesc(data_type=t.data_type, sizes=shape, strides=(0,) * len(shape),
                      offset=t.offset)
