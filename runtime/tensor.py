"""Device-resident tensors: data that stays on the Vulkan device between kernel calls.

    x = dmlc.to_device(array)          # one upload
    y = kernel(x, i)                   # runs on the device; y is a DeviceTensor
    z = kernel2(y, j, out=z)           # no host round trip; `out=` reuses a tensor (fastest)
    z.numpy()                          # one download

A tensor is a kp tensor of uint32 words (every dtype travels as raw bits), padded to whole
16-byte vectors like every dmlc buffer, with the dtype and shape it holds.
"""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from dmlc.dtypes import DataType
from dmlc.errors import DeviceError, ValidationError

from .buffers import from_words, to_words
from .device import MAX_TENSOR_BYTES, Device, _import_kp, get_device


def padded_words(count: int, itemsize: int) -> int:
    """uint32 words for `count` elements, rounded up to whole 16-byte vectors (as ir.Buffer)."""
    return max(4, -(-count * itemsize // 16) * 4)


class DeviceTensor:
    """An array on the Vulkan device. `numpy()` downloads it; kernels and the one-shot functions
    accept it wherever they accept an array, and then return a DeviceTensor."""

    def __init__(self, device: Device, shape: tuple[int, ...], dtype: Any) -> None:
        self.device, self.shape, self.dtype = device, tuple(int(s) for s in shape), np.dtype(dtype)
        self.size = math.prod(self.shape)
        self.words = words = padded_words(self.size, self.dtype.itemsize)
        if words * 4 > MAX_TENSOR_BYTES:
            raise DeviceError(f"a {self.shape} {self.dtype} tensor needs {words * 4} bytes; "
                              f"Kompute tensors hold at most {MAX_TENSOR_BYTES}")
        with device.use("dmlc.to_device") as mgr:
            self.kp_tensor = mgr.tensor_t(np.zeros(words, np.uint32))
        self.released = False

    def check_usable(self, what: str) -> None:
        """DeviceError if the tensor was released or its device closed (kp would crash)."""
        if self.released:
            raise DeviceError(f"{what}: this {self.shape} {self.dtype} tensor was released")
        if self.device.closed:
            raise DeviceError(f"{what}: this {self.shape} {self.dtype} tensor's Vulkan device "
                              "was closed (dmlc.close_device())")

    def use(self, what: str) -> Any:
        """Hold the device for work on this tensor (see check_usable)."""
        self.check_usable(what)
        return self.device.use(what)

    def release(self) -> None:
        """Free the tensor's device memory now (idempotent); later uses raise DeviceError.
        Otherwise memory is freed when the last reference goes."""
        with self.device._lock:
            if not self.released and not self.device.closed:
                self.kp_tensor.destroy()
            self.released = True
            self.kp_tensor = None

    def __enter__(self) -> "DeviceTensor":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def upload(self, array: np.ndarray) -> "DeviceTensor":
        kp = _import_kp()
        with self.use("DeviceTensor.upload") as mgr:
            to_words(array, self.size, out=self.kp_tensor.data())
            mgr.sequence().eval(kp.OpTensorSyncDevice([self.kp_tensor]))
        return self

    def numpy(self) -> np.ndarray:
        """A fresh host array with the tensor's current contents."""
        kp = _import_kp()
        with self.use("DeviceTensor.numpy") as mgr:
            mgr.sequence().eval(kp.OpTensorSyncLocal([self.kp_tensor]))
            return from_words(self.kp_tensor.data(), self.dtype, self.shape)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __repr__(self) -> str:
        state = ", released" if self.released else (", device closed" if self.device.closed
                                                    else "")
        return (f"DeviceTensor(shape={self.shape}, dtype={self.dtype.name}, "
                f"device={self.device.name!r}{state})")


def _checked(what: str, shape: Any, dtype: Any) -> tuple[tuple[int, ...], np.dtype]:
    try:
        dt = np.dtype(dtype)
        DataType.of(dt)
    except (TypeError, ValueError):
        raise ValidationError(what, "dtype", "one of " + ", ".join(d.value for d in DataType),
                              repr(dtype)) from None
    try:
        dims = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise ValidationError(what, "shape", "a tuple of integers", repr(shape)) from None
    if any(s < 0 for s in dims):
        raise ValidationError(what, "shape", "sizes >= 0", dims)
    return dims, dt


def to_device(array: Any) -> DeviceTensor:
    """Upload an array (any of the 11 DirectML dtypes) to the process's Vulkan device."""
    try:
        a = np.asarray(array)
    except Exception as e:  # noqa: BLE001 - ragged lists and other things numpy refuses
        raise ValidationError("dmlc.to_device", "array", "an array", type(array).__name__,
                              str(e)) from None
    shape, dtype = _checked("dmlc.to_device", a.shape, a.dtype)
    return DeviceTensor(get_device(), shape, dtype).upload(a)


def empty(shape: tuple[int, ...], dtype: Any) -> DeviceTensor:
    """An uninitialized (zeroed) tensor on the device, e.g. for a kernel's `out=`."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    return DeviceTensor(get_device(), *_checked("dmlc.empty", shape, dtype))
