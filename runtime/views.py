"""The arithmetic of device-tensor views, as numpy defines it for basic indexing, transposes and
reshapes: a view is a shape, element strides (any sign) and an element offset into a buffer.

Pure arithmetic (no kp): runtime/tensor.py applies it to device tensors, and dmlc folds a view's
strides and offset into the next kernel's TensorDesc, so a view costs no copy.
"""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from ..errors import IndexOutOfRangeError, ValidationError

Layout = tuple[tuple[int, ...], tuple[int, ...], int]
"""(shape, element strides, element offset)."""


def packed_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    out, acc = [], 1
    for s in reversed(shape):
        out.append(acc)
        acc *= s
    return tuple(reversed(out))


def is_c_contiguous(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """Elements in row-major order, one apart (size-1 dimensions' strides do not matter)."""
    return all(st == p for st, p, n in zip(strides, packed_strides(shape), shape) if n > 1)


def index(layout: Layout, key: Any) -> Layout:
    """numpy's basic indexing: integers, slices, Ellipsis and None (anything else refused:
    advanced indexing gathers, which dmlc.take and dmlc.gather do)."""
    shape, strides, offset = layout
    keys = key if isinstance(key, tuple) else (key,)
    for k in keys:
        if not (k is None or k is Ellipsis or isinstance(k, slice)):
            _integer(k)  # refuses arrays, lists and masks before they are compared
    if sum(k is Ellipsis for k in keys) > 1:
        raise ValidationError("DeviceTensor[...]", "index", "at most one Ellipsis", repr(key))
    taken = sum(k is not None and k is not Ellipsis for k in keys)
    if taken > len(shape):
        raise ValidationError("DeviceTensor[...]", "index", f"at most {len(shape)} indices "
                              f"for a {len(shape)}-D tensor", taken)
    if not any(k is Ellipsis for k in keys):
        keys = (*keys, Ellipsis)
    out_shape: list[int] = []
    out_strides: list[int] = []
    dim = 0
    for k in keys:
        if k is Ellipsis:
            rest = len(shape) - taken
            out_shape += shape[dim:dim + rest]
            out_strides += strides[dim:dim + rest]
            taken += rest
            dim += rest
        elif k is None:
            out_shape.append(1)
            out_strides.append(0)
        elif isinstance(k, slice):
            start, stop, step = k.indices(shape[dim])
            n = len(range(start, stop, step))
            offset += start * strides[dim] if n else 0
            out_shape.append(n)
            out_strides.append(step * strides[dim])
            dim += 1
        else:
            i = _integer(k)
            n = shape[dim]
            if not -n <= i < n:
                raise IndexOutOfRangeError("DeviceTensor[...]", "index", (dim,), i, (-n, n - 1))
            offset += (i + n if i < 0 else i) * strides[dim]
            dim += 1
    return tuple(out_shape), tuple(out_strides), offset


def _integer(k: Any) -> int:
    if isinstance(k, (bool, np.bool_)):
        k = None  # numpy treats a bool as a mask: advanced indexing
    try:
        if isinstance(k, np.ndarray) and k.ndim:
            raise TypeError  # operator.index takes a 1-element array
        return operator.index(k)
    except TypeError:
        raise ValidationError("DeviceTensor[...]", "index", "integers, slices, ... or None "
                              "(basic indexing; for an array or list of indices use "
                              "dmlc.take / dmlc.gather, and dmlc.put_along_axis / "
                              "dmlc.scatter to write)", type(k).__name__) from None


def transpose(layout: Layout, axes: Any) -> Layout:
    shape, strides, offset = layout
    rank = len(shape)
    order = tuple(reversed(range(rank)))
    if axes is not None:
        order = tuple(a + rank if -rank <= a < 0 else a for a in map(_integer, axes))
    if sorted(order) != list(range(rank)):
        raise ValidationError("DeviceTensor.transpose", "axes", f"a permutation of "
                              f"0..{rank - 1}", axes)
    return tuple(shape[a] for a in order), tuple(strides[a] for a in order), offset


def reshape(layout: Layout, new: tuple[Any, ...]) -> Layout | None:
    """The layout of a view reshaped, where its strides allow one without moving elements
    (numpy's rule: dimensions that merge must be contiguous with each other; size-1 dimensions
    come and go freely), else None: numpy copies there, and so does the caller."""
    shape, strides, offset = layout
    size = math.prod(shape)
    dims = [_integer(s) for s in new]
    if dims.count(-1) > 1 or any(d < -1 for d in dims):
        raise ValidationError("DeviceTensor.reshape", "shape", "sizes >= 0 and at most one -1",
                              tuple(dims))
    if -1 in dims:
        known = math.prod(d for d in dims if d != -1)
        if known == 0 or size % known:
            raise ValidationError("DeviceTensor.reshape", "shape", f"a shape of {size} "
                                  "elements", tuple(dims))
        dims[dims.index(-1)] = size // known
    if math.prod(dims) != size:
        raise ValidationError("DeviceTensor.reshape", "shape", f"a shape of {size} elements",
                              tuple(dims))
    found = _strides_without_copy(shape, strides, tuple(dims))
    return None if found is None else (tuple(dims), found, offset)


def _strides_without_copy(shape: tuple[int, ...], strides: tuple[int, ...],
                          new: tuple[int, ...]) -> tuple[int, ...] | None:
    """Strides that read the elements of (shape, strides) in row-major order as `new`, or None
    where none exist (numpy's _attempt_nocopy_reshape: runs of old dimensions that multiply to
    runs of new ones, each old run contiguous within itself)."""
    if 0 in shape:
        return packed_strides(new)
    old = [(n, st) for n, st in zip(shape, strides) if n != 1]
    out = [0] * len(new)
    oi = ni = 0
    while ni < len(new) and oi < len(old):
        oj, nj = oi + 1, ni + 1
        np_, op = new[ni], old[oi][0]
        while np_ != op:
            if np_ < op:
                np_ *= new[nj]
                nj += 1
            else:
                op *= old[oj][0]
                oj += 1
        if any(old[k][1] != old[k + 1][0] * old[k + 1][1] for k in range(oi, oj - 1)):
            return None
        out[nj - 1] = old[oj - 1][1]
        for k in range(nj - 1, ni, -1):
            out[k - 1] = out[k] * new[k]
        ni, oi = nj, oj
    for k in range(ni, len(new)):  # trailing 1s
        out[k] = 1
    return tuple(out)
