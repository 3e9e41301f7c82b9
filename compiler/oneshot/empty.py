"""Zero-size tensors in the one-shot functions, as numpy has them: an empty input (or empty
indices, a window of size 0, a repeat of 0) gives numpy's result, of its shape and dtype,
and runs no kernel (DirectML's sizes are >= 1, and kp cannot bind an empty buffer). The
descriptor is still validated, with sizes of 0 allowed (family.checks.zero_sizes), so every
other mistake raises the error it would raise with data. A DeviceTensor argument gives a
DeviceTensor result (dmlc.empty), as it does with data; out= is checked and returned.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..artifact import is_device_tensor
from ..call import check_out as check_device_out
from ..dtypes import DataType
from ..errors import IndexOutOfRangeError, ValidationError
from ..family.checks import fmt, is_int, zero_sizes
from ..family.registry import OperatorDesc, validate
from ..family.tensor import TensorDesc

Shape = tuple[int, ...]


def is_empty(*arrays: Any) -> bool:
    """Whether any of the arrays (numpy's or device tensors) has no element."""
    return any(math.prod(a.shape) == 0 for a in arrays)


def has_zero(values: Any) -> bool:
    """Whether a list field (as its descriptor holds it, items unchecked) has a 0 in it."""
    return any(is_int(v) and v == 0 for v in values)


def validate_empty(desc: OperatorDesc) -> Any:
    """`desc` validated with sizes of 0 allowed: its OutputTensor filled in."""
    with zero_sizes():
        return validate(desc)


def check_out(op: str, sizes: Shape, dtype: np.dtype, out: Any) -> None:
    """out= as numpy's ufuncs take it: a DeviceTensor or a writeable numpy array of the
    output's shape and dtype."""
    if is_device_tensor(out):  # any view of a device tensor
        check_device_out(op, out, TensorDesc(data_type=DataType.of(dtype), sizes=sizes))
        return
    if not isinstance(out, np.ndarray):
        raise ValidationError(op, "out", "a numpy array or a dmlc DeviceTensor",
                              type(out).__name__)
    if out.dtype != dtype:
        raise ValidationError(op, "out dtype", dtype.name, out.dtype.name)
    if out.shape != tuple(sizes):
        raise ValidationError(op, "out shape", fmt(sizes), fmt(out.shape))
    if not out.flags.writeable:
        raise ValidationError(op, "out", "a writeable array", "a read-only array")


def result(op: str, values: np.ndarray, args: tuple[Any, ...], out: Any) -> Any:
    """`values` (computed on the host: nothing, zeros, a constant) as the function's result:
    a numpy array, a DeviceTensor when an argument is one, or written into out=."""
    device = next((a for a in args if is_device_tensor(a)), None)
    if out is not None:
        check_out(op, values.shape, values.dtype, out)
        if is_device_tensor(out):
            if values.size:
                out[...] = values  # where its elements lie (a view's too)
        else:
            np.copyto(out, values, casting="no")
        return out
    if device is None:
        return values
    # a device tensor of the argument's class (dmlc's: views with copy kernels)
    cls = type(device)
    return cls.from_array(values, device.device) if values.size else \
        cls.new(values.shape, values.dtype, device=device.device)


def on_device_if(value: Any, args: tuple[Any, ...]) -> Any:
    """A kernel's numpy result as a DeviceTensor when one of the function's arguments was one
    (an empty one the kernel did not need: join's, scatter's indices)."""
    device = next((a for a in args if is_device_tensor(a)), None)
    if isinstance(value, np.ndarray) and device is not None:
        return type(device).from_array(value, device.device)
    return value


def unchanged(op: str, x: Any, args: tuple[Any, ...], out: Any) -> Any:
    """`x` itself as the result (a scatter with nothing to scatter): a copy of it, written into
    out= (nothing to write where out= is x as it lies: in place), by the copy kernel for a
    device tensor."""
    if is_device_tensor(out) and is_device_tensor(x) and out.kp_tensor is x.kp_tensor \
            and (out.shape, out.strides, out.offset) == (x.shape, x.strides, x.offset):
        return out
    if not is_device_tensor(x):
        return result(op, np.array(x), args, out)
    if out is None:
        out = type(x).new(x.shape, x.dtype, zeroed=False, device=x.device)
    if not is_device_tensor(out):
        return result(op, x.numpy(), args, out)
    check_out(op, x.shape, x.dtype, out)
    out[...] = x
    return out


def empty(op: str, shape: Shape, dtype: Any, args: tuple[Any, ...], out: Any = None) -> Any:
    """An empty result (numpy's shape and dtype), no kernel run."""
    try:
        array = np.empty(shape, np.dtype(dtype))
    except ValueError as e:  # a size past numpy's intp (np.tile refuses the same shape)
        raise ValidationError(op, "output sizes", "sizes numpy can make (each below 2^63, "
                              "the product of them and the element size too)", tuple(shape),
                              str(e)) from None
    return result(op, array, args, out)


def empty_output(desc: OperatorDesc, args: tuple[Any, ...], out: Any) -> Any:
    """The empty result of `desc` (validated with sizes of 0), whose output has no element."""
    t = validate_empty(desc).output
    assert t is not None and t.element_count == 0, t
    return empty(desc.operator, t.sizes, t.data_type.numpy, args, out)


def check_on_host(op: str, field: str, indices: Any, dim: Any) -> None:
    """Checked mode where no kernel runs (an empty input): the first index outside an axis of
    `dim` elements ([-dim, dim - 1] signed, [0, dim - 1] unsigned; `dim` an int, or one per
    coordinate of gather_nd's index tuples) raises IndexOutOfRangeError, as the checking
    kernel would. Into an empty axis, every index is out of range."""
    if math.prod(indices.shape) == 0:
        return
    values = indices.numpy() if is_device_tensor(indices) else np.asarray(indices)
    dims = np.broadcast_to(np.asarray(dim, np.int64), values.shape)
    signed = values.dtype.kind == "i"
    wide = values.astype(np.int64) if signed else values.astype(np.uint64)
    bad = ((wide < -dims) | (wide >= dims)) if signed else wide >= dims.astype(np.uint64)
    if bad.any():
        pos = tuple(int(p) for p in np.unravel_index(int(np.argmax(bad)), bad.shape))
        n = int(dims[pos])
        raise IndexOutOfRangeError(op, field, pos, int(values[pos]), (-n if signed else 0,
                                                                       n - 1))
