"""dmlc's device tensors: the runtime's DeviceTensor (a buffer with numpy's views) with the
copy kernels its views need, to pack their elements (`numpy()` of a view, a compiled kernel's
argument, a reshape numpy would copy) and to write through them (`view[...] = value`, out= a
view). This module imports the runtime: it is loaded when a device tensor is first made
(dmlc.to_device, dmlc.empty), never by compiling."""
from __future__ import annotations

from typing import Any

import numpy as np

from dmlc.runtime.tensor import DeviceTensor as RuntimeTensor

from ...artifact import is_device_tensor
from ...compiled import cached_compile
from ...dtypes import DataType, as_ndarray
from ...errors import DeviceError, ValidationError
from ...family.checks import MAX_RANK
from ...family.tensor import TensorDesc
from ...oneshot import owner, view_tensor
from .desc import IdentityDesc


class DeviceTensor(RuntimeTensor):
    """An array on the Vulkan device (dmlc.to_device, dmlc.empty, and every kernel's device
    output): the runtime's tensor, whose views pack and assign by dmlc's copy kernel."""

    def _pack(self) -> RuntimeTensor:
        return pack(self)

    def _assign(self, value: Any) -> None:
        assign(self, value)


def to_device(array: Any) -> DeviceTensor:
    """Upload an array (any of the 11 DirectML dtypes) to the process's Vulkan device."""
    return DeviceTensor.from_array(array)


def empty(shape: Any, dtype: Any, zeroed: bool = True) -> DeviceTensor:
    """A zeroed tensor on the device, e.g. for a kernel's `out=` (zeroed=False: contents
    undefined, for a caller that overwrites every element)."""
    return DeviceTensor.new(shape, dtype, zeroed)


def pack(view: Any) -> Any:
    """A new device tensor holding a view's elements, packed, by one copy kernel that reads
    the view's layout."""
    if view.size == 0:
        return type(view).new(view.shape, view.dtype, device=view.device)
    if view.dtype == np.bool_:  # a byte: packed as uint8
        return pack(view.view(np.uint8)).view(np.bool_)
    shape = view.shape or (1,)
    if len(shape) > MAX_RANK:
        raise ValidationError("DeviceTensor", "ndim", f"at most {MAX_RANK} dimensions (a view "
                              "that is not contiguous is packed by a kernel)", view.ndim)
    desc = view_tensor(view[None] if not view.shape else view)
    return cached_compile(IdentityDesc(input=desc))(owner(view)).reshape(view.shape)
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
    if view.dtype == np.bool_:  # a byte: numpy's cast to bool, then written as uint8
        if is_device_tensor(value):
            value = value.view(np.uint8) if value.dtype == np.bool_ else value
        else:
            value = _host_bools(op, value)
        assign(view.view(np.uint8), value)
        return
    if is_device_tensor(value):
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
    if not is_device_tensor(buffer):
        buffer = type(view).from_array(buffer, view.device)
    elif buffer.device is not view.device:
        raise DeviceError(f"{op}: the value is on {buffer.device.backend} device "
                          f"{buffer.device.name!r}, the tensor on {view.device.backend} device "
                          f"{view.device.name!r}")
    kernel.executable(view.device).run_device([buffer], owner(view))


def _host_bools(op: str, value: Any) -> np.ndarray:
    """A host value cast to bool as numpy casts it, as the uint8 view of its bytes."""
    try:
        return np.asarray(as_ndarray(op, "value", value)).astype(np.bool_).view(np.uint8)
    except (TypeError, ValueError) as e:
        raise ValidationError(op, "value", "a value that numpy casts to bool",
                              type(value).__name__, str(e)) from None


def clone(t: Any) -> Any:
    """A new packed device tensor with the elements of a packed one (one copy kernel)."""
    if t.dtype == np.bool_:
        return clone(t.view(np.uint8)).view(np.bool_)
    flat = t.reshape(-1) if t.ndim != 1 else t
    kernel = cached_compile(IdentityDesc(input=TensorDesc(data_type=DataType.of(t.dtype),
                                                          sizes=flat.shape)))
    return kernel(flat).reshape(t.shape)



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
