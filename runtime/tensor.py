"""Device-resident tensors: data that stays on the device between kernel calls (the current
backend's device when made: Vulkan or WebGPU, runtime/backend.py).

    x = dmlc.to_device(array)          # one upload
    y = kernel(x, i)                   # runs on the device; y is a DeviceTensor
    z = kernel2(y, j, out=z)           # no host round trip; `out=` reuses a tensor (fastest)
    z.numpy()                          # one download

A tensor is a kp tensor (on WebGPU: a WgpuTensor, runtime/webgpu/buffers.py, which behaves as
one) of uint32 words (every dtype travels as raw bits), padded to whole
16-byte vectors like every dmlc buffer, with the dtype and shape it holds. Basic indexing,
`.T`, `transpose()` and `reshape()` give views as numpy's do: a shape, element strides (any
sign) and an offset into the same buffer (views.py). A view costs no copy: dmlc folds its
strides into the next kernel; `numpy()` of a view packs its elements on the device first, so
that only they cross to the host. Packing a view and writing through one take a copy kernel,
which the runtime does not compile: dmlc's DeviceTensor (dmlc.ops.copy.tensor, what
dmlc.to_device makes) subclasses this one with them (_pack, _assign).
"""
from __future__ import annotations

import functools
import math
import operator
from typing import Any, ClassVar

import numpy as np

from ..dtypes import as_ndarray, data_type_of, padded_words
from ..errors import DeviceError, ValidationError
from . import backend
from .buffers import from_chunks, to_chunks
from .device import Device
from .pool import Slot
from .views import Layout, index, is_c_contiguous, packed_strides, reshape, transpose


class DeviceTensor:
    """An array on the device. `numpy()` downloads it; kernels and the one-shot functions
    accept it wherever they accept an array, and then return a DeviceTensor."""

    is_dmlc_device_tensor: ClassVar[bool] = True
    """How the compiler recognizes a device tensor without importing the runtime."""

    def __init__(self, device: Device, shape: tuple[int, ...], dtype: Any,
                 zeroed: bool = True) -> None:
        """zeroed=False: the caller overwrites every element (an upload, a kernel's output), so
        a pooled buffer need not be cleared first."""
        self._released = True  # until it holds a buffer (for __del__)
        self.device, self.shape, self.dtype = device, tuple(int(s) for s in shape), np.dtype(dtype)
        self.size = math.prod(self.shape)
        self.words = words = padded_words(self.size, self.dtype.itemsize)
        self.strides, self.offset = packed_strides(self.shape), 0
        """The layout in the buffer, in elements (views: any strides, an offset)."""
        self.base: DeviceTensor | None = None
        """The tensor that owns the buffer, for a view (None: this one owns it)."""
        bound = device.limits.maxStorageBufferRange
        self.chunk_words = chunk = 0 if words * 4 <= bound else 1 << ((bound // 4).bit_length() - 1)
        """0: one device buffer. Else larger than one binding holds (maxStorageBufferRange): held
        as device buffers of this many words each, the last shorter (the chunks a compiled
        kernel binds, codegen/chunks.py)."""
        device.check_size(self._described, min(chunk or words, words) * 4)
        heap = device.limits.deviceLocalHeapSize
        if heap and words * 4 > heap:
            raise DeviceError(f"{self._described()} needs {words * 4} bytes, more than this "
                              f"device's largest memory heap holds ({heap} bytes; {device.name})")
        sizes = self._chunk_sizes(device) if chunk else [words]
        with device.use("dmlc.to_device"):
            self._chunks: list[Slot] = []
            try:
                for n in sizes:
                    self._chunks.append(device.pool.take(n, zeroed=zeroed))
            except BaseException:
                for slot in self._chunks:
                    device.pool.give(slot)
                raise
        self._slot = self._chunks[0]
        self._tensors: Any = (self._slot.tensor if not chunk
                              else tuple(c.tensor for c in self._chunks))
        """What kernels bind: the kp tensor, or the tuple of a chunked tensor's (one object per
        tensor, so that `a.kp_tensor is b.kp_tensor` says they share memory)."""
        self._released = False

    def _described(self) -> str:
        return f"a {self.shape} {self.dtype} tensor"

    def _chunk_sizes(self, device: Device) -> list[int]:
        """The words of each chunk of a tensor larger than one binding, once it is known that
        a kernel can bind them all (checked in arithmetic that does not grow with the size: a
        list of 2^35 chunk sizes for a 2^62-byte tensor never ends)."""
        words, chunk = self.words, self.chunk_words
        count = -(-words // chunk)
        most = device.limits.maxPerStageDescriptorStorageBuffers - 1  # and a kernel's output
        if count > most:  # no kernel could bind it: refused now, not at every later use
            raise DeviceError(f"{self._described()} needs {words * 4} bytes: {count} bindings of "
                              f"this device's maxStorageBufferRange = "
                              f"{device.limits.maxStorageBufferRange}, more than the {most} a "
                              f"kernel can bind beside its output "
                              f"(maxPerStageDescriptorStorageBuffers = {most + 1}; {device.name})")
        return [min(chunk, words - lo) for lo in range(0, words, chunk)]

    @classmethod
    def from_array(cls, array: Any, device: Device | None = None) -> DeviceTensor:
        """Upload an array (any of the 11 DirectML dtypes) to `device` (default: the current
        backend's device)."""
        a = as_ndarray("dmlc.to_device", "array", array)
        shape, dtype = _checked("dmlc.to_device", a.shape, a.dtype)
        return cls(device or backend.get_device(), shape, dtype, zeroed=False).upload(a)

    @classmethod
    def staged(cls, array: Any, device: Device) -> DeviceTensor:
        """from_array for a kernel's own input (a host array in a call on device tensors): the
        data waits in the buffer's staging memory, and the kernel's submission uploads it
        (one submission and one wait fewer; staged_slot). A tensor of several buffers is
        uploaded now."""
        a = as_ndarray("dmlc.to_device", "array", array)
        t = cls(device, *_checked("dmlc.to_device", a.shape, a.dtype), zeroed=False)
        if t.chunk_words:
            return t.upload(a)
        device.before_staging()  # (submitted work may upload from the pool's buffer)
        to_chunks(a, t.size, [t._slot.tensor.data()])
        t._slot.staged = True
        return t

    @property
    def staged_slot(self) -> Slot | None:
        """The buffer whose upload waits for the kernel that reads it (staged()), else None."""
        return self._slot if self._slot.staged else None

    @classmethod
    def new(cls, shape: Any, dtype: Any, zeroed: bool = True,
            device: Device | None = None) -> DeviceTensor:
        """A tensor on `device` (default: the current backend's), zeroed (zeroed=False:
        contents undefined, for a caller that overwrites every element)."""
        if isinstance(shape, (int, np.integer)):
            shape = (shape,)
        return cls(device or backend.get_device(), *_checked("dmlc.empty", shape, dtype),
                   zeroed=zeroed)

    def _pack(self) -> DeviceTensor:
        """A new tensor of this view's elements, packed: a copy kernel, which the runtime does
        not compile (dmlc's DeviceTensor, dmlc.ops.copy.tensor, provides it)."""
        raise DeviceError("a view of this tensor needs dmlc's copy kernels: make device "
                          "tensors with dmlc.to_device or dmlc.empty")

    def _assign(self, value: Any) -> None:
        """Write `value` where this view's elements lie (a copy kernel, as _pack)."""
        raise DeviceError("writing through this tensor needs dmlc's copy kernels: make device "
                          "tensors with dmlc.to_device or dmlc.empty")

    def _view(self, layout: Layout) -> DeviceTensor:
        """A tensor of `layout` over this tensor's buffer (of this tensor's class)."""
        owner = self.base if self.base is not None else self  # not `or`: len() may be 0
        view = object.__new__(type(owner))
        view.device, view.dtype, view.base = owner.device, self.dtype, owner  # a view(dtype)
        view._slot, view._chunks, view._tensors = owner._slot, owner._chunks, owner._tensors
        view.chunk_words = owner.chunk_words
        view.shape, view.strides, view.offset = layout
        view.size, view.words, view._released = math.prod(view.shape), owner.words, False
        return view

    @property
    def released(self) -> bool:
        return self._released or (self.base is not None and self.base.released)

    @property
    def kp_tensor(self) -> Any:
        """The kp tensor holding the data, a tuple of them for a chunked tensor (None once
        released)."""
        return None if self.released else self._tensors

    @functools.cached_property
    def is_contiguous(self) -> bool:
        """Its elements lie one after another in row-major order, as numpy's C_CONTIGUOUS
        (a view such as c[1] is contiguous at an offset into its buffer). Remembered: a
        tensor's layout is set once, where it is made (__init__, _view), and a call asks
        several times."""
        return is_c_contiguous(self.shape, self.strides)

    @property
    def is_whole(self) -> bool:
        """Packed and all of its buffer (a tensor, or a reshape of one): a kernel may write it
        by whole 32-bit words and 16-byte vectors, which a view of part of a buffer (c[0])
        shares with the elements after it."""
        return self.is_packed and (self.base is None or self.size == self.base.size)

    @property
    def is_packed(self) -> bool:
        """Contiguous from the buffer's start: its elements are the buffer's first `size`, so
        it reads as a tensor of its shape (what a compiled kernel binds)."""
        return self.offset == 0 and self.is_contiguous

    def __del__(self) -> None:
        if not self._released and self.base is None and not self.device.closed:
            for slot in self._chunks:
                self.device.pool.give(slot)  # its buffers go back to the pool

    def __getitem__(self, key: Any) -> DeviceTensor:
        """A view, as numpy's basic indexing gives one (integers, slices, ..., None)."""
        self.check_usable("DeviceTensor[...]")
        return self._view(index((self.shape, self.strides, self.offset), key))

    def __setitem__(self, key: Any, value: Any) -> None:
        """numpy's `t[key] = value` on the device: basic indexing picks the elements, `value`
        (a scalar, an array, a device tensor or view) is broadcast to them and written where
        they lie, by one copy kernel; the rest of the buffer is untouched."""
        self.check_usable("DeviceTensor.__setitem__")
        self._view(index((self.shape, self.strides, self.offset), key))._assign(value)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object (a 0-d DeviceTensor)")
        return self.shape[0]

    def astype(self, dtype: Any) -> DeviceTensor:
        """This tensor as another dtype: the same tensor for its own dtype (numpy's
        copy=False); other dtypes are refused, as dmlc moves bits and never converts values."""
        want = _dtype("DeviceTensor.astype", dtype)
        if want != self.dtype:
            raise ValidationError("DeviceTensor.astype", "dtype", f"{self.dtype.name} (dmlc "
                                  "moves data and converts no values; convert on the host "
                                  "with numpy() then to_device())", want.name)
        return self

    def view(self, dtype: Any) -> DeviceTensor:
        """The same elements' bits read as another dtype of their size (numpy's
        ndarray.view(dtype)), no copy: how bool tensors move, as the uint8 view of their bytes
        (`t.view(np.uint8)`, and the result's `.view(bool)`)."""
        self.check_usable("DeviceTensor.view")
        want = _dtype("DeviceTensor.view", dtype)
        if want.itemsize != self.dtype.itemsize:
            raise ValidationError("DeviceTensor.view", "dtype", f"a type of {self.dtype.name}'s "
                                  f"{self.dtype.itemsize} bytes", want.name)
        view = self._view((self.shape, self.strides, self.offset))
        view.dtype = want
        return view

    def transpose(self, *axes: Any) -> DeviceTensor:
        """A view with the axes permuted (reversed when none are given), as numpy's."""
        self.check_usable("DeviceTensor.transpose")
        order = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        return self._view(transpose((self.shape, self.strides, self.offset), order or None))

    @property
    def T(self) -> DeviceTensor:
        return self.transpose()

    def reshape(self, *shape: Any) -> DeviceTensor:
        """A view of another shape where the strides allow one (numpy's rule), else (as numpy)
        a packed copy reshaped."""
        self.check_usable("DeviceTensor.reshape")
        new = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) \
            else shape
        layout = reshape((self.shape, self.strides, self.offset), new)
        if layout is None:
            return self.packed().reshape(*new)
        return self._view(layout)

    def contiguous(self) -> DeviceTensor:
        """This tensor if it is contiguous (at any offset), else a new tensor with its elements
        packed (as torch's contiguous())."""
        return self if self.is_contiguous else self.packed()

    def packed(self) -> DeviceTensor:
        """This tensor if it is packed (is_packed), else a new tensor with its elements."""
        return self if self.is_packed else self._pack()

    def check_usable(self, what: str) -> None:
        """DeviceError if the tensor was released or its device closed (kp would crash)."""
        if self.released:
            raise DeviceError(f"{what}: this {self.shape} {self.dtype} tensor was released")
        if self.device.closed:
            raise DeviceError(f"{what}: this {self.shape} {self.dtype} tensor's device "
                              "was closed (dmlc.close_device())")

    def use(self, what: str) -> Any:
        """Hold the device for work on this tensor (see check_usable)."""
        self.check_usable(what)
        return self.device.use(what)

    def release(self) -> None:
        """Free the tensor's device memory now (idempotent); later uses raise DeviceError.
        Otherwise the buffer is pooled for reuse when the last reference goes."""
        with self.device._lock:
            if not self.released and self.base is None and not self.device.closed:
                self.device.wait()
                for slot in self._chunks:
                    slot.tensor.destroy()
            self._released = True

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
        """Write an array's bits into the tensor (of a view: where its elements lie)."""
        if not self.is_packed:
            self[...] = as_ndarray("DeviceTensor.upload", "array", array)
            return self
        with self.use("DeviceTensor.upload") as device:
            device.wait()
            to_chunks(array, self.size, [c.tensor.data() for c in self._chunks])
            for c in self._chunks:
                c.sync(device, "up")
        return self

    def numpy(self) -> np.ndarray:
        """A fresh host array with the tensor's current contents (of a view: its elements
        only, packed on the device first)."""
        if not self.is_packed:
            self.check_usable("DeviceTensor.numpy")
            return self.packed().numpy() if self.size else np.empty(self.shape, self.dtype)
        with self.use("DeviceTensor.numpy") as device:
            for c in self._chunks:
                c.sync(device, "down")
            return from_chunks([c.tensor.data() for c in self._chunks], self.dtype, self.shape)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __repr__(self) -> str:
        state = ", released" if self.released else (", device closed" if self.device.closed
                                                    else "")
        view = "" if self.is_packed else f", view strides={self.strides} offset={self.offset}"
        return (f"DeviceTensor(shape={self.shape}, dtype={self.dtype.name}{view}, "
                f"device={self.device.name!r}{state})")


def _dtype(what: str, dtype: Any) -> np.dtype:
    """One of the 11 DirectML types, or bool: a byte, held and moved as uint8 is."""
    try:
        if np.dtype(dtype) == np.bool_:
            return np.dtype(np.bool_)
    except TypeError:
        pass  # data_type_of names it
    return data_type_of(what, "dtype", dtype).numpy


def _checked(what: str, shape: Any, dtype: Any) -> tuple[tuple[int, ...], np.dtype]:
    dt = _dtype(what, dtype)
    try:
        dims = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise ValidationError(what, "shape", "a tuple of integers", repr(shape)) from None
    if any(s < 0 for s in dims):
        raise ValidationError(what, "shape", "sizes >= 0", dims)
    return dims, dt


def to_device(array: Any) -> DeviceTensor:
    """Upload an array to the process's Vulkan device (a runtime tensor: dmlc.to_device gives
    one whose views have the copy kernels)."""
    return DeviceTensor.from_array(array)


def empty(shape: tuple[int, ...], dtype: Any, zeroed: bool = True) -> DeviceTensor:
    """A zeroed tensor on the device (zeroed=False: contents undefined)."""
    return DeviceTensor.new(shape, dtype, zeroed)
