"""What every one-shot function shares: arguments as arrays or device tensors, the tensor
an argument holds (a view keeps its layout), the buffer the kernel reads, and the call with
out= as numpy's ufuncs take it."""
from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import numpy as np

from ..artifact import is_device_tensor
from ..compiled import CompiledKernel
from ..dtypes import DataType, as_ndarray, data_type_of
from ..errors import IndexOutOfRangeError, ValidationError
from ..family.checks import MAX_RANK
from ..family.tensor import TensorDesc
from .empty import check_out


def as_array(op: str, field: str, value: Any) -> Any:
    """`value` as a numpy array (or the DeviceTensor it is) of a DirectML data type and 1 to 8
    dimensions. Empty lists of indices (numpy makes them float64) are int64, as numpy.take
    takes them."""
    if getattr(value, "computed_inputs", None) is not None:  # oneshot/computed.py's Computed
        data_type_of(op, f"{field}.dtype", value.dtype)
        if not 1 <= value.ndim <= MAX_RANK:
            raise ValidationError(op, f"{field}.ndim", f"1 to {MAX_RANK} (DimensionCount)",
                                  value.ndim)
        return value
    a = value if is_device_tensor(value) else as_ndarray(op, field, value)
    if field in ("indices", "IndicesTensor") and not isinstance(value, np.ndarray) \
            and not is_device_tensor(a) and a.size == 0 and a.dtype == np.float64:
        a = a.astype(np.int64)
    data_type_of(op, f"{field}.dtype", a.dtype)
    if not 1 <= a.ndim <= MAX_RANK:
        raise ValidationError(op, f"{field}.ndim", f"1 to {MAX_RANK} (DimensionCount)", a.ndim)
    return a


def same_ndim(op: str, **arrays: np.ndarray) -> None:
    (first, a), *rest = arrays.items()
    for name, b in rest:
        if b.ndim != a.ndim:
            raise ValidationError(op, f"{name}.ndim", f"{a.ndim} ({first}.ndim: one "
                                  "DimensionCount for all tensors)", b.ndim,
                                  f"pad {name} with leading 1s to {a.ndim} dimensions"
                                  + (" and set index_dimensions to the dimensions that count"
                                     if name == "indices" and op == "DML_GATHER" else ""))


def tensor_of(a: Any) -> TensorDesc:
    """The tensor an argument holds. A view keeps its layout: its strides (any sign) and offset
    fold into the kernel, which reads the memory it spans as it lies (see `buffer_of`): a
    numpy transpose, every n-th row, a reversal, a broadcast; a device tensor's view. An
    operand computed from others (oneshot/computed.py) is its ComputedTensor."""
    if getattr(a, "computed_inputs", None) is not None:
        return a.tensor
    if is_device_tensor(a):
        return TensorDesc.of_layout(DataType.of(a.dtype), a.shape) if a.is_whole \
            else view_tensor(a)
    layout = _numpy_layout(a)
    if layout is None:
        return TensorDesc.of_layout(DataType.of(a.dtype), a.shape)
    strides, offset, _ = layout
    return TensorDesc.of_layout(DataType.of(a.dtype), a.shape, strides, offset)


def _numpy_layout(a: np.ndarray) -> tuple[tuple[int, ...], int, int] | None:
    """A non-contiguous numpy view's element strides, the offset of its first element from
    the lowest one it touches, and the elements it spans; None for a contiguous array, and for
    a view too sparse to upload as it lies: one that spans more than twice its elements
    (`big[::1000]`) is compacted on the host instead, as the upload copies it anyway."""
    if a.flags.c_contiguous or a.size == 0 or any(st % a.itemsize for st in a.strides):
        return None
    strides = tuple(st // a.itemsize if n > 1 else 0 for st, n in zip(a.strides, a.shape))
    offset = -sum((n - 1) * st for st, n in zip(strides, a.shape) if st < 0)
    span = offset + sum((n - 1) * st for st, n in zip(strides, a.shape) if st > 0) + 1
    return (strides, offset, span) if span <= 2 * a.size else None


def buffer_of(a: Any) -> Any:
    """What the kernel reads for an argument: the array; for a strided numpy view the flat run
    of elements its strides span, from the lowest (the same memory, not a copy); for a device
    view, the tensor that owns its buffer."""
    if is_device_tensor(a):
        return a if a.is_whole else owner(a)
    if getattr(a, "computed_inputs", None) is not None:  # the kernel takes its inputs
        return a
    layout = _numpy_layout(a)
    if layout is None:
        return a
    lowest = a[tuple(builtins.slice(n - 1, n) if st < 0 else builtins.slice(0, 1)
                     for st, n in zip(a.strides, a.shape))]
    return np.lib.stride_tricks.as_strided(lowest, shape=(layout[2],), strides=(a.itemsize,),
                                           writeable=False)


def call(kernel: CompiledKernel, args: tuple[Any, ...], out: Any) -> Any:
    """Run a one-shot function's kernel, with out= as numpy's ufuncs take it: None, a new
    result; a DeviceTensor, written on the device (a scatter's data tensor: in place); a numpy
    array of the output's shape and dtype, written and returned."""
    if out is None:
        return kernel(*args)
    if is_device_tensor(out):
        return kernel(*args, out=out)
    want = kernel.output
    check_out(kernel.descriptor.operator, want.sizes, want.data_type.numpy, out)
    result = kernel(*args)
    np.copyto(out, result.numpy() if is_device_tensor(result) else result, casting="no")
    return out


def call_checked(kernel: CompiledKernel, args: tuple[Any, ...], out: Any,
                 position: Callable[[tuple[int, ...]], tuple[int, ...]]) -> Any:
    """call(), with a bad index (check_indices=True) reported at its position in the indices
    the caller gave: `position` maps one in the kernel's index tensor (the caller's reshaped,
    padded with leading 1s or broadcast) back."""
    try:
        return call(kernel, args, out)
    except IndexOutOfRangeError as e:
        raise IndexOutOfRangeError(e.operator, e.field, position(e.position), e.value,
                                   e.valid) from None


def trailing(ndim: int) -> Callable[[tuple[int, ...]], tuple[int, ...]]:
    """The position in indices of `ndim` dimensions padded with leading 1s."""
    return lambda pos: tuple(pos[len(pos) - ndim:]) if ndim else ()


def flag(op: str, field: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValidationError(op, field, "True or False", repr(value))
    return bool(value)


def view_tensor(a: Any) -> TensorDesc:
    """The TensorDesc that reads a view's elements where they lie in its owner's buffer (a
    size-1 dimension never moves: its stride is 0)."""
    return TensorDesc.of_layout(DataType.of(a.dtype), a.shape,
                                tuple(st if n > 1 else 0 for st, n in zip(a.strides, a.shape)),
                                a.offset)


def owner(a: Any) -> Any:
    """The device tensor that owns a view's buffer, of the view's dtype (a bool tensor's uint8
    view: the owner's bytes as uint8, oneshot/bools.py)."""
    base = a.base if a.base is not None else a
    return base if base.dtype == a.dtype else base.view(a.dtype)


def with_leading_ones(a: Any, rank: int) -> Any:
    """a with leading 1s up to `rank` dimensions (a view)."""
    return a.reshape((1,) * (rank - a.ndim) + tuple(a.shape))
