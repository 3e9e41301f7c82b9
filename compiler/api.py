"""The one-shot operator functions: numpy arrays in, a new numpy array out (device tensors in: a
device tensor out, nothing crossing to the host); out= as numpy's ufuncs take it.

Each builds a descriptor from its arguments, compiles it once (kernels are memoized per
descriptor, so a repeated call reuses its pipelines) and runs it on the process's Vulkan device.
Input arrays are never modified.
"""
from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from .api_args import as_int, as_ints, axis_of
from .api_empty import (
    check_on_host,
    check_out,
    empty_output,
    has_zero,
    is_empty,
    on_device_if,
    validate_empty,
)
from .arguments import is_device_tensor
from .compiled import CompiledKernel, cached_compile
from .descriptors import (
    GatherDesc,
    GatherElementsDesc,
    ScatterDesc,
    Slice1Desc,
    TensorDesc,
    as_tuple,
)
from .descriptors.copy import IdentityDesc
from .dtypes import DataType, as_ndarray, data_type_of
from .errors import IndexOutOfRangeError, ValidationError
from .tensor_checks import MAX_RANK
from .views import owner, view_tensor


def as_array(op: str, field: str, value: Any) -> Any:
    """`value` as a numpy array (or the DeviceTensor it is) of a DirectML data type and 1 to 8
    dimensions. Empty lists of indices (numpy makes them float64) are int64, as numpy.take
    takes them."""
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
    numpy transpose, every n-th row, a reversal, a broadcast; a device tensor's view."""
    if is_device_tensor(a):
        return TensorDesc(data_type=DataType.of(a.dtype), sizes=a.shape) if a.is_whole \
            else view_tensor(a)
    layout = _numpy_layout(a)
    if layout is None:
        return TensorDesc(data_type=DataType.of(a.dtype), sizes=a.shape)
    strides, offset, _ = layout
    return TensorDesc(data_type=DataType.of(a.dtype), sizes=a.shape, strides=strides,
                      offset=offset)


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
    layout = _numpy_layout(a)
    if layout is None:
        return a
    lowest = a[tuple(builtins.slice(n - 1, n) if st < 0 else builtins.slice(0, 1)
                     for st, n in zip(a.strides, a.shape))]
    return np.lib.stride_tricks.as_strided(lowest, shape=(layout[2],), strides=(a.itemsize,),
                                           writeable=False)


def significant_dimensions(shape: tuple[int, ...]) -> int:
    """The trailing dimensions of a shape after its leading 1s (at least one)."""
    lead = next((k for k, s in enumerate(shape) if s != 1), len(shape) - 1)
    return max(1, len(shape) - lead)


def gather(input: Any, indices: Any, *, axis: int, index_dimensions: int | None = None,
           check_indices: bool = False, out: Any = None) -> Any:
    """DML_GATHER: output[...] = input[..., indices[...], ...] along `axis` (negative counts
    from the end, as in numpy).

    All arrays share one ndim (DirectML's DimensionCount); pad lower ranks with leading 1s.
    index_dimensions says how many trailing dimensions of `indices` count (default: all but
    its leading 1s, so indices of shape (1, n) are n rows). Out-of-range indices are clamped,
    or raise IndexOutOfRangeError with check_indices=True.
    """
    op = GatherDesc.operator
    x, i = as_array(op, "input", input), as_array(op, "indices", indices)
    same_ndim(op, input=x, indices=i)
    ax = axis_of(op, axis, x.ndim)
    dims = significant_dimensions(i.shape) if index_dimensions is None else as_int(
        index_dimensions)
    desc = GatherDesc(input=tensor_of(x), indices=tensor_of(i), axis=ax, index_dimensions=dims)
    check = _flag(op, "check_indices", check_indices)
    if is_empty(x, i):  # no ids, or an empty input (no id may index an empty axis)
        validate_empty(desc)
        if check or not x.shape[ax]:  # clamping needs an element to clamp to
            check_on_host(op, "IndicesTensor", i, x.shape[ax])
        return empty_output(desc, (x, i), out)
    return call(cached_compile(desc, check), (buffer_of(x), buffer_of(i)), out)


def gather_elements(input: Any, indices: Any, *, axis: int,
                    check_indices: bool = False, out: Any = None) -> Any:
    """DML_GATHER_ELEMENTS: output[i,j,k] = input[indices[i,j,k], j, k] for axis 0, etc.
    (negative axes count from the end, as in numpy)."""
    op = GatherElementsDesc.operator
    x, i = as_array(op, "input", input), as_array(op, "indices", indices)
    same_ndim(op, input=x, indices=i)
    ax = axis_of(op, axis, x.ndim)
    desc = GatherElementsDesc(input=tensor_of(x), indices=tensor_of(i), axis=ax)
    check = _flag(op, "check_indices", check_indices)
    if is_empty(x, i):
        validate_empty(desc)
        if check or not x.shape[ax]:  # clamping needs an element to clamp to
            check_on_host(op, "IndicesTensor", i, x.shape[ax])
        return empty_output(desc, (x, i), out)
    return call(cached_compile(desc, check), (buffer_of(x), buffer_of(i)), out)


def scatter(input: Any, indices: Any, updates: Any, *, axis: int, reduction: str = "none",
            check_indices: bool = False, out: Any = None) -> Any:
    """DML_SCATTER (ScatterElements): a copy of `input` with
    output[indices[i,j,k], j, k] = updates[i,j,k] for axis 0, etc. When several updates hit one
    element, the last in row-major order of `updates` wins; out-of-range updates are dropped
    (or raise IndexOutOfRangeError with check_indices=True). Negative axes count from the end.
    out= the data tensor (a DeviceTensor) updates it in place: only the updates are written.
    reduction (ONNX's): "add", "mul", "max" or "min" combine each update into its target, in
    row-major order of `updates`, as numpy would one at a time (the same bits on any device)."""
    op = ScatterDesc.operator
    x, i = as_array(op, "input", input), as_array(op, "indices", indices)
    u = as_array(op, "updates", updates)
    same_ndim(op, input=x, indices=i, updates=u)
    ax = axis_of(op, axis, x.ndim)
    desc = ScatterDesc(input=tensor_of(x), indices=tensor_of(i), updates=tensor_of(u), axis=ax,
                       reduction=reduction)
    check = _flag(op, "check_indices", check_indices)
    if is_empty(x, i):  # an empty input; or no updates: a copy of the input
        validate_empty(desc)
        if check:  # into an empty axis, every index is out of range (else dropped)
            check_on_host(op, "IndicesTensor", i, x.shape[ax])
        if is_empty(x):
            return empty_output(desc, (x, i, u), out)
        if is_device_tensor(out) and is_device_tensor(x) and out.kp_tensor is x.kp_tensor \
                and (out.shape, out.strides, out.offset) == (x.shape, x.strides, x.offset):
            return out  # in place: nothing to write
        copied = call(cached_compile(IdentityDesc(input=tensor_of(x))), (buffer_of(x),), out)
        return on_device_if(copied, (x, i, u))
    return call(cached_compile(desc, check), (buffer_of(x), buffer_of(i), buffer_of(u)), out)


scatter_elements = scatter


def slice(input: Any, offsets: Sequence[int], sizes: Sequence[int], strides: Sequence[int],
          output_sizes: Sequence[int] | None = None, out: Any = None) -> Any:
    """DML_SLICE1: per dimension, the window [offset, offset + size) read with a signed stride
    (negative: from the window's end). output_sizes=None takes the most each window allows."""
    op = Slice1Desc.operator
    x = as_array(op, "input", input)
    output = None
    if output_sizes is not None:
        output = TensorDesc(data_type=DataType.of(x.dtype),
                            sizes=cast(tuple[int, ...],
                                       as_tuple(op, "OutputTensor.Sizes", as_ints(output_sizes))))
    # Slice1Desc turns any sequence into a tuple (or a ValidationError naming the field)
    desc = Slice1Desc(input=tensor_of(x), offsets=as_ints(offsets), sizes=as_ints(sizes),
                      strides=as_ints(strides), output=output)
    if is_empty(x) or has_zero(desc.sizes) or (output is not None and has_zero(output.sizes)):
        return empty_output(desc, (x,), out)  # numpy's x[2:2]: an empty window
    return call(cached_compile(desc), (buffer_of(x),), out)


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


def _flag(op: str, field: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValidationError(op, field, "True or False", repr(value))
    return bool(value)
