"""Argument handling for the numpy-compatible functions (functions.py): arrays and index
arrays checked the numpy way but refused with dmlc's errors, axes normalized, shapes broadcast,
and the position of a bad index mapped back from the kernel's tensor to the caller's.

Every failure is a ValidationError naming the numpy function and the argument (with numpy's
own wording as detail where a numpy user knows it), or an IndexOutOfRangeError.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from ..artifact import is_device_tensor
from ..dtypes import INDEX_TYPES, as_ndarray, data_type_of
from ..errors import IndexOutOfRangeError, ValidationError
from ..family.checks import MAX_RANK, is_int

Shape = tuple[int, ...]
T = TypeVar("T")

_INDEX_NAMES = ", ".join(t.value for t in INDEX_TYPES)


def as_data(fn: str, field: str, value: Any) -> Any:
    """`value` as a numpy array (or the DeviceTensor it is) of a DirectML data type."""
    a = value if is_device_tensor(value) else as_ndarray(fn, field, value)
    data_type_of(fn, f"{field}.dtype", a.dtype)
    return a


def as_indices(fn: str, value: Any, bools: bool = False) -> Any:
    """Index arrays as the operators take them. numpy's narrow integer types are widened to
    int32 on the host (a small copy; their values all fit), and so are bools where numpy
    takes them as 0 and 1 (`bools`: numpy.take does, take_along_axis refuses them); an empty
    list (numpy makes it float64) is an empty index array. Anything else that is not an
    integer type is refused, as numpy refuses it, at every size: an empty float array too."""
    if is_device_tensor(value):
        if value.dtype.name not in _INDEX_NAMES:
            raise ValidationError(fn, "indices.dtype", _INDEX_NAMES, value.dtype.name)
        return value
    i = as_ndarray(fn, "indices", value)
    if (i.dtype.kind in "iu" and i.dtype.itemsize < 4) or (bools and i.dtype.kind == "b"):
        return i.astype(np.int32)
    if i.size == 0 and i.dtype == np.float64 and not isinstance(value, np.ndarray):
        return i.astype(np.int64)  # [] or [[]]: an array says its dtype, a list does not
    if i.dtype.name not in _INDEX_NAMES:
        raise ValidationError(fn, "indices.dtype", f"an integer type ({_INDEX_NAMES}; int8, "
                              "int16, uint8 and uint16 are widened)", i.dtype.name,
                              "`indices` must be an integer array")
    return i


def norm_axis(fn: str, axis: Any, ndim: int) -> int:
    """numpy's normalize_axis_index: [-ndim, ndim) -> [0, ndim)."""
    if not is_int(axis):
        raise ValidationError(fn, "axis", "an integer or None", repr(axis))
    if not -ndim <= axis < ndim:
        raise ValidationError(fn, "axis", f"an integer in [{-ndim}, {ndim})", int(axis),
                              f"axis {axis} is out of bounds for array of dimension {ndim}")
    return int(axis) % ndim


def flat(fn: str, field: str, a: Any) -> Any:
    """axis=None: the array flattened (a view when numpy can make one)."""
    return a.reshape(-1)


def fixed_shape(fn: str, field: str, a: Any, shape: Shape) -> None:
    """A device tensor is not broadcast (it has no stride-0 views yet)."""
    if is_device_tensor(a) and tuple(a.shape) != tuple(shape):
        raise ValidationError(fn, f"{field}.shape", f"{shape} (a DeviceTensor is not broadcast; "
                              "pass a numpy array, or one of this shape)", tuple(a.shape))


def reshape(fn: str, field: str, a: Any, shape: Shape) -> Any:
    """Reshaped: a view for a contiguous numpy array or device tensor (else numpy copies on
    the host, and a device tensor's elements are packed on the device)."""
    return a.reshape(shape) if is_device_tensor(a) else np.reshape(a, shape)


def broadcast(fn: str, field: str, a: Any, shape: Shape) -> Any:
    """np.broadcast_to: a stride-0 view, which the kernel reads in place (api.tensor_of)."""
    fixed_shape(fn, field, a, shape)
    return a if is_device_tensor(a) else np.broadcast_to(a, shape)


def along_axis_shape(fn: str, arr: Shape, indices: Shape, axis: int) -> Shape:
    """The shape numpy's _make_along_axis_idx indexes with: indices broadcast against arr in
    every dimension but `axis`, which keeps the indices' size."""
    if len(indices) != len(arr):
        raise ValidationError(fn, "indices.ndim", f"{len(arr)} (arr.ndim)", len(indices),
                              "`indices` and `arr` must have the same number of dimensions")
    out = []
    for d, (n, m) in enumerate(zip(arr, indices)):
        if d != axis and n != m and 1 not in (n, m):
            raise ValidationError(fn, "indices.shape", f"a shape that broadcasts against "
                                  f"arr.shape {arr} in every dimension but axis {axis}",
                                  indices, "shape mismatch: indexing arrays could not be "
                                  "broadcast together")
        out.append(m if d == axis or n == 1 else n)
    return tuple(out)


def collapse(shape: Shape, axis: int) -> tuple[Shape, int]:
    """(outer, n, inner) around `axis`, for tensors of more than DirectML's 8 dimensions."""
    if len(shape) <= MAX_RANK:
        return shape, axis
    return (math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:])), 1


def empty_axis(fn: str, indices: Any) -> IndexOutOfRangeError:
    """Indices into an axis of size 0: every one is out of range (numpy: 'cannot do a
    non-empty take from an empty axes')."""
    first = np.asarray(indices).reshape(-1)[0] if not is_device_tensor(indices) else 0
    pos = (0,) * np.ndim(indices)
    return IndexOutOfRangeError(fn, "indices", pos, int(first), (0, -1))


def rethrow(fn: str, call: Callable[[], T], position: Callable[[Shape], Shape]) -> T:
    """Run a checked kernel; a bad index is reported in the caller's terms (the function and
    the position in the indices it was given), not the kernel's reshaped tensor's."""
    try:
        return call()
    except IndexOutOfRangeError as e:
        raise IndexOutOfRangeError(fn, "indices", position(e.position), e.value,
                                   e.valid) from None


def unravel(kernel_shape: Shape, shape: Shape) -> Callable[[Shape], Shape]:
    """A position in the kernel's indices as one in `shape`, the same elements in C order."""
    def position(pos: Shape) -> Shape:
        offset = int(np.ravel_multi_index(pos, kernel_shape))
        return tuple(int(p) for p in np.unravel_index(offset, shape))
    return position


def unbroadcast(pos: Sequence[int], shape: Shape) -> Shape:
    """A position in a broadcast of `shape` as one in `shape` itself."""
    return tuple(p if n > 1 else 0 for p, n in zip(pos, shape))


def check_take_out(fn: str, out: Any, shape: Shape, dtype: np.dtype) -> None:
    """numpy.take's out=: the result's shape exactly; a dtype `dtype` casts to safely from
    it (numpy's check, for the write-back it casts unsafely), writeable. A DeviceTensor (any
    view of one): the result's shape and dtype."""
    if is_device_tensor(out):
        if tuple(out.shape) != shape or out.dtype != dtype:
            raise ValidationError(fn, "out", f"a DeviceTensor of shape {shape} and dtype "
                                  f"{dtype.name}", repr(out))
        out.check_usable(f"{fn}: out")
        return
    if not isinstance(out, np.ndarray):
        raise ValidationError(fn, "out", "a numpy array or a dmlc DeviceTensor",
                              type(out).__name__)
    if out.shape != shape:
        raise ValidationError(fn, "out.shape", shape, out.shape,
                              "output array does not match result of ndarray.take")
    if not np.can_cast(out, dtype, "safe"):  # numpy's own test (numpy 1 values a 0-d out)
        raise ValidationError(fn, "out.dtype", f"a type that casts safely to {dtype.name}",
                              out.dtype.name, f"Cannot cast array data from dtype('{out.dtype}')"
                              f" to dtype('{dtype}') according to the rule 'safe'")
    if not out.flags.writeable:
        raise ValidationError(fn, "out", "a writeable array", "a read-only array",
                              "output array is read-only")
