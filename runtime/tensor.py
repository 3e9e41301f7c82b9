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

from dmlc.dtypes import as_ndarray, data_type_of, padded_words
from dmlc.errors import DeviceError, ValidationError

from .buffers import from_words, to_words
from .device import Device, check_kp_size, get_device
from .pool import Slot


class DeviceTensor:
    """An array on the Vulkan device. `numpy()` downloads it; kernels and the one-shot functions
    accept it wherever they accept an array, and then return a DeviceTensor."""

    def __init__(self, device: Device, shape: tuple[int, ...], dtype: Any,
                 zeroed: bool = True) -> None:
        """zeroed=False: the caller overwrites every element (an upload, a kernel's output), so
        a pooled buffer need not be cleared first."""
        self.released = True  # until it holds a buffer (for __del__)
        self.device, self.shape, self.dtype = device, tuple(int(s) for s in shape), np.dtype(dtype)
        self.size = math.prod(self.shape)
        self.words = words = padded_words(self.size, self.dtype.itemsize)
        check_kp_size(f"a {self.shape} {self.dtype} tensor", words * 4)
        with device.use("dmlc.to_device"):
            self._slot: Slot = device.pool.take(words, zeroed=zeroed)
        self.released = False

    @property
    def kp_tensor(self) -> Any:
        """The kp tensor holding the data (None once released)."""
        return None if self.released else self._slot.tensor

    def __del__(self) -> None:
        if not self.released and not self.device.closed:  # its buffer goes back to the pool
            self.device.pool.give(self._slot)

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
        Otherwise the buffer is pooled for reuse when the last reference goes."""
        with self.device._lock:
            if not self.released and not self.device.closed:
                self._slot.tensor.destroy()
            self.released = True

    def __enter__(self) -> DeviceTensor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def upload(self, array: np.ndarray) -> DeviceTensor:
        with self.use("DeviceTensor.upload") as device:
            to_words(array, self.size, out=self._slot.tensor.data())
            self._slot.sync(device, "up")
        return self

    def numpy(self) -> np.ndarray:
        """A fresh host array with the tensor's current contents."""
        with self.use("DeviceTensor.numpy") as device:
            self._slot.sync(device, "down")
            return from_words(self._slot.tensor.data(), self.dtype, self.shape)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __repr__(self) -> str:
        state = ", released" if self.released else (", device closed" if self.device.closed
                                                    else "")
        return (f"DeviceTensor(shape={self.shape}, dtype={self.dtype.name}, "
                f"device={self.device.name!r}{state})")


def _checked(what: str, shape: Any, dtype: Any) -> tuple[tuple[int, ...], np.dtype]:
    dt = data_type_of(what, "dtype", dtype).numpy
    try:
        dims = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise ValidationError(what, "shape", "a tuple of integers", repr(shape)) from None
    if any(s < 0 for s in dims):
        raise ValidationError(what, "shape", "sizes >= 0", dims)
    return dims, dt


def to_device(array: Any) -> DeviceTensor:
    """Upload an array (any of the 11 DirectML dtypes) to the process's Vulkan device."""
    a = as_ndarray("dmlc.to_device", "array", array)
    shape, dtype = _checked("dmlc.to_device", a.shape, a.dtype)
    return DeviceTensor(get_device(), shape, dtype, zeroed=False).upload(a)


def empty(shape: tuple[int, ...], dtype: Any, zeroed: bool = True) -> DeviceTensor:
    """A zeroed tensor on the device, e.g. for a kernel's `out=` (zeroed=False: contents
    undefined, for a caller that overwrites every element)."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    return DeviceTensor(get_device(), *_checked("dmlc.empty", shape, dtype), zeroed=zeroed)
