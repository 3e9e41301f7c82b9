"""The one-shot scatter (ONNX ScatterElements, DML_SCATTER) and scatter_nd (ONNX ScatterND,
DML_SCATTER_ND), in place with out= the data tensor."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...artifact import is_device_tensor, same_layout
from ...call import is_tracing
from ...compiled import cached_compile
from ...dtypes import as_ndarray
from ...errors import IndexOutOfRangeError, ValidationError
from ...family.checks import check_index_type
from ...family.index_check import raise_for_status
from ...oneshot import as_array, buffer_of, call, flag, same_ndim, tensor_of, trailing
from ...oneshot.bools import moves_bools
from ...oneshot.empty import (
    check_on_host,
    empty,
    empty_output,
    is_empty,
    unchanged,
    validate_empty,
)
from ...oneshot.numbers import axis_of
from .desc import ScatterDesc, ScatterNDDesc


def _padded(a: Any, rank: int) -> Any:
    """`a` with leading 1s up to `rank` dimensions (a view: numpy's, or a device tensor's)."""
    return a if a.ndim == rank else a.reshape((1,) * (rank - a.ndim) + tuple(a.shape))


def _call_padded_out(kernel: Any, args: tuple[Any, ...], out: Any, rank: int) -> Any:
    """out= in the data's shape, for a kernel whose output is padded to `rank` dimensions:
    written through a padded view of it (leading 1s: a view of any view, never a copy)."""
    op = ScatterNDDesc.operator
    if is_device_tensor(out):  # any view: leading 1s added to it are a view of it too
        call(kernel, args, _padded(out, rank))
        return out
    if isinstance(out, np.ndarray) and not out.flags.c_contiguous:
        if not out.flags.writeable:
            raise ValidationError(op, "out", "a writeable array", "a read-only array")
        staged = np.empty((1,) * (rank - out.ndim) + out.shape, out.dtype)
        call(kernel, args, staged)
        np.copyto(out, staged.reshape(out.shape), casting="no")
        return out
    call(kernel, args, _padded(out, rank))
    return out


@moves_bools(ScatterNDDesc.operator, "input", "updates")
def scatter_nd(input: Any, indices: Any, updates: Any, *,
               input_dimension_count: int | None = None,
               indices_dimension_count: int | None = None, reduction: str = "none",
               check_indices: bool = False, out: Any = None) -> Any:
    """DML_SCATTER_ND (ONNX ScatterND): a copy of `input` with input[indices[b]] = updates[b]
    for every index tuple b (the last axis of `indices` holds tuples of k coordinates into the
    input's first k axes; updates has shape indices.shape[:-1] + input.shape[k:]). Ranks may
    differ, as in ONNX: all are padded with leading 1s to one DimensionCount, and
    input_dimension_count / indices_dimension_count default to input.ndim / indices.ndim.
    Negative indices count from the end; a tuple with a coordinate out of range is dropped
    (or raises IndexOutOfRangeError with check_indices=True); when tuples repeat, the update
    last in row-major order wins. out= the data tensor (a DeviceTensor) updates it in place.
    reduction (ONNX's): "add", "mul", "max" or "min" combine colliding updates in row-major
    order, as numpy would one at a time (the same bits on any device).

    Parameters
    ----------
    input : array_like or DeviceTensor
        The data tensor.
    indices : array_like or DeviceTensor
        Integer index tuples along its last axis.
    updates : array_like or DeviceTensor
        Of shape indices.shape[:-1] + input.shape[k:].
    input_dimension_count, indices_dimension_count : int, optional
        DirectML's InputDimensionCount and IndicesDimensionCount.
    reduction : {"none", "add", "mul", "max", "min"}, default "none"
        How colliding updates combine.
    check_indices : bool, default False
        Raise for an out-of-range coordinate instead of dropping its update.
    out : ndarray or DeviceTensor, optional
        Written with the result and returned.

    Returns
    -------
    ndarray or DeviceTensor
        The input's shape and dtype.

    Raises
    ------
    ValidationError
        Arguments that break DML_SCATTER_ND's rules.
    IndexOutOfRangeError
        A coordinate out of range, with check_indices=True.

    Examples
    --------
    >>> x = np.zeros((3, 2), np.float32)
    >>> print(dmlc.scatter_nd(x, np.array([[2], [0]], np.int64), np.array([[1., 2.], [3., 4.]],
    ...                                                                  np.float32)))
    [[3. 4.]
     [0. 0.]
     [1. 2.]]
    """
    op = ScatterNDDesc.operator
    x, i = as_array(op, "input", input), as_array(op, "indices", indices)
    u = _updates(op, updates)
    rank = max(x.ndim, i.ndim, u.ndim)
    in_dims = x.ndim if input_dimension_count is None else input_dimension_count
    idx_dims = i.ndim if indices_dimension_count is None else indices_dimension_count
    xp, ip, up = _padded(x, rank), _padded(i, rank), _padded(u, rank)
    desc = ScatterNDDesc(input=tensor_of(xp), indices=tensor_of(ip), updates=tensor_of(up),
                         input_dimension_count=in_dims, indices_dimension_count=idx_dims,
                         reduction=reduction)
    check = flag(op, "check_indices", check_indices)
    if i.ndim and i.shape[-1] == 0 and not is_empty(x, u) and math.prod(i.shape[:-1]):
        # tuples of no coordinate each name the whole input (ONNX): a scatter into a leading
        # axis of 1, every tuple (0,), in row-major order as ever (of indices of an index
        # type: the tuples it makes stand for them)
        check_index_type(op, desc.indices)
        lead = (1, *x.shape)
        whole = scatter_nd(x.reshape(lead), np.zeros((*i.shape[:-1], 1), np.int64), u,
                           reduction=reduction, check_indices=check,
                           out=None if out is None else out.reshape(lead))
        return out if out is not None else whole.reshape(x.shape)
    if is_empty(x, i, u):
        return _empty(desc, x, i, u, check, out)
    args = (buffer_of(xp), buffer_of(ip), buffer_of(up))
    try:
        if _ran_in_place(desc, check, x, args, out):
            return out
        kernel = cached_compile(desc, check)
        if out is not None and x.ndim != rank and tuple(getattr(out, "shape", ())) == x.shape:
            return _call_padded_out(kernel, args, out, rank)
        result = call(kernel, args, out)
    except IndexOutOfRangeError as e:  # at its position in the caller's indices, not padded
        raise IndexOutOfRangeError(e.operator, e.field, trailing(i.ndim)(e.position), e.value,
                                   e.valid) from None
    if x.ndim != rank and out is None:
        return result.reshape(x.shape)
    return result


def _ran_in_place(desc: ScatterDesc | ScatterNDDesc, check: bool, x: Any,
                  args: tuple[Any, ...], out: Any) -> bool:
    """out= the data tensor itself, as it lies: runs the in-place kernel alone, compiling only
    it (the copying kernel, which such a call never runs, was compiled first: a decode loop's
    'DML_SCATTER_ND: 2'). False otherwise, and while tracing (call.tracing records the
    copying kernel's calls)."""
    if (is_tracing() or not is_device_tensor(x) or not is_device_tensor(out)
            or x.kp_tensor is not out.kp_tensor or not same_layout(tensor_of(x), out)):
        return False
    kernel = cached_compile(desc, check, in_place=True)
    status = kernel.run_in_place(args[1:], out)
    if check:
        raise_for_status(kernel.descriptor, status)
    return True


def _updates(op: str, updates: Any) -> Any:
    """The updates; a 0-d one (ONNX's, where each tuple indexes every axis of the input) as
    one element."""
    if is_device_tensor(updates):
        return updates.reshape(1) if updates.ndim == 0 else updates
    a = as_ndarray(op, "updates", updates)  # a ragged list: a ValidationError, as elsewhere
    return as_array(op, "updates", a.reshape(1) if a.ndim == 0 else a)


def _empty(desc: ScatterNDDesc, x: Any, i: Any, u: Any, check: bool, out: Any) -> Any:
    """No kernel: an empty input gives an empty output; no index tuples (or empty rows) leave
    the input as it was: a copy, or nothing to write where out= is the data tensor itself."""
    op = desc.operator
    checked = validate_empty(desc)
    if check:  # the axes each coordinate of a tuple indexes (an empty one: none is valid)
        first, k = checked.first_indexed, checked.tuple_size
        check_on_host(op, "IndicesTensor", i, list(checked.input.sizes[first:first + k]))
    if is_empty(x):  # the data's shape, as a kernel's result is reshaped to (or out='s:
        padded = checked.input.sizes  # the padded one too, as a kernel writes it)
        shape = padded if tuple(getattr(out, "shape", ())) == padded else x.shape
        return empty(op, shape, x.dtype, (x, i, u), out)
    return unchanged(desc.operator, x, (x, i, u), out)


@moves_bools(ScatterDesc.operator, "input", "updates")
def scatter(input: Any, indices: Any, updates: Any, *, axis: int, reduction: str = "none",
            check_indices: bool = False, out: Any = None) -> Any:
    """DML_SCATTER (ScatterElements): a copy of `input` with
    output[indices[i,j,k], j, k] = updates[i,j,k] for axis 0, etc. When several updates hit one
    element, the last in row-major order of `updates` wins; out-of-range updates are dropped
    (or raise IndexOutOfRangeError with check_indices=True). Negative axes count from the end.
    out= the data tensor (a DeviceTensor) updates it in place: only the updates are written.
    reduction (ONNX's): "add", "mul", "max" or "min" combine each update into its target, in
    row-major order of `updates`, as numpy would one at a time (the same bits on any device).

    Parameters
    ----------
    input : array_like or DeviceTensor
        The data tensor.
    indices : array_like or DeviceTensor
        Integer indices, of updates' shape.
    updates : array_like or DeviceTensor
        The values written.
    axis : int
        The axis the indices address.
    reduction : {"none", "add", "mul", "max", "min"}, default "none"
        How an update combines with its target.
    check_indices : bool, default False
        Raise for an out-of-range index instead of dropping its update.
    out : ndarray or DeviceTensor, optional
        Written with the result and returned (the data tensor itself: updated in place).

    Returns
    -------
    ndarray or DeviceTensor
        The input's shape and dtype.

    Raises
    ------
    ValidationError
        Arguments that break DML_SCATTER's rules.
    IndexOutOfRangeError
        An index out of range, with check_indices=True.

    Examples
    --------
    >>> x = np.zeros((2, 3), np.float32)
    >>> print(dmlc.scatter(x, np.array([[1, 0, 1]], np.int32), np.array([[5., 6., 7.]], np.float32),
    ...                    axis=0))
    [[0. 6. 0.]
     [5. 0. 7.]]
    >>> print(dmlc.scatter(x, np.array([[0, 0], [2, 2]], np.int32),
    ...                    np.array([[1., 2.], [3., 4.]], np.float32), axis=1, reduction="add"))
    [[3. 0. 0.]
     [0. 0. 7.]]
    """
    op = ScatterDesc.operator
    x, i = as_array(op, "input", input), as_array(op, "indices", indices)
    u = as_array(op, "updates", updates)
    same_ndim(op, input=x, indices=i, updates=u)
    ax = axis_of(op, axis, x.ndim)
    desc = ScatterDesc(input=tensor_of(x), indices=tensor_of(i), updates=tensor_of(u), axis=ax,
                       reduction=reduction)
    check = flag(op, "check_indices", check_indices)
    if is_empty(x, i):  # an empty input; or no updates: a copy of the input
        validate_empty(desc)
        if check:  # into an empty axis, every index is out of range (else dropped)
            check_on_host(op, "IndicesTensor", i, x.shape[ax])
        if is_empty(x):
            return empty_output(desc, (x, i, u), out)
        return unchanged(op, x, (x, i, u), out)
    args = (buffer_of(x), buffer_of(i), buffer_of(u))
    if _ran_in_place(desc, check, x, args, out):
        return out
    return call(cached_compile(desc, check), args, out)


scatter_elements = scatter
"""dmlc.scatter under ONNX's name, ScatterElements: the same function (its parameters, returns
and raises are scatter's).

Examples
--------
>>> dmlc.scatter_elements is dmlc.scatter
True
>>> x = np.zeros((1, 3), np.int32)
>>> print(dmlc.scatter_elements(x, np.array([[2]], np.int32), np.array([[9]], np.int32), axis=1))
[[0 0 9]]
"""
