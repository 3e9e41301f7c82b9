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
import threading
from typing import Any

import numpy as np

from dmlc.errors import DeviceError

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
        self.kp_tensor = device.manager.tensor_t(np.zeros(words, np.uint32))
        self._lock = threading.Lock()

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def upload(self, array: np.ndarray) -> "DeviceTensor":
        kp = _import_kp()
        with self._lock:
            to_words(array, self.size, out=self.kp_tensor.data())
            self.device.manager.sequence().eval(kp.OpTensorSyncDevice([self.kp_tensor]))
        return self

    def numpy(self) -> np.ndarray:
        """A fresh host array with the tensor's current contents."""
        kp = _import_kp()
        with self._lock:
            self.device.manager.sequence().eval(kp.OpTensorSyncLocal([self.kp_tensor]))
            return from_words(self.kp_tensor.data(), self.dtype, self.shape)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __repr__(self) -> str:
        return f"DeviceTensor(shape={self.shape}, dtype={self.dtype.name}, device={self.device.name!r})"


def to_device(array: Any) -> DeviceTensor:
    """Upload an array (any of the 11 DirectML dtypes) to the process's Vulkan device."""
    a = np.asarray(array)
    return DeviceTensor(get_device(), a.shape, a.dtype).upload(a)


def empty(shape: tuple[int, ...], dtype: Any) -> DeviceTensor:
    """An uninitialized (zeroed) tensor on the device, e.g. for a kernel's `out=`."""
    return DeviceTensor(get_device(), shape, dtype)
