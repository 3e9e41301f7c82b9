"""numpy's take, take_along_axis and put_along_axis on the Vulkan device, with numpy's exact
semantics (numpy 1.26), each mapped onto one DirectML operator:

    take(a, indices, axis)              -> DML_GATHER           (api.gather)
    take_along_axis(arr, indices, axis) -> DML_GATHER_ELEMENTS  (api.gather_elements)
    put_along_axis(arr, indices, ...)   -> DML_SCATTER          (ScatterDesc, in place)

DirectML wants every tensor of an operator at one rank of at most 8 dimensions and indices
that match the input outside the axis; numpy has neither rule. The arrays are therefore
reshaped (leading 1s, or (outer, n, inner) around the axis) and broadcast before the kernel,
and its output is reshaped back to numpy's result. For numpy arrays this costs nothing: a
reshape of a contiguous array and np.broadcast_to are views, and a view's strides fold into the
kernel's tensor (api.tensor_of), so the kernel reads the caller's memory as it lies. A
DeviceTensor is reshaped as a view too (runtime/views.py); broadcasting one is refused
(numpy_args.fixed_shape).

Index checking uses the operators' checked mode: an out-of-range index raises
IndexOutOfRangeError (an IndexError) naming the function and the position in the caller's
`indices`. Negative indices count from the end, as in numpy (DirectML's rule too).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..artifact import is_device_tensor
from ..compiled import cached_compile
from ..errors import ValidationError
from ..family.checks import MAX_RANK, is_int
from ..oneshot import buffer_of, tensor_of
from ..oneshot.bools import moves_bools
from ..oneshot.empty import check_on_host, empty
from ..ops.gather.api import gather, gather_elements
from ..ops.scatter.desc import ScatterDesc
from .args import (
    Shape,
    along_axis_shape,
    as_data,
    as_indices,
    broadcast,
    check_take_out,
    collapse,
    empty_axis,
    flat,
    norm_axis,
    reshape,
    rethrow,
    unbroadcast,
    unravel,
)

__all__ = ["take", "take_along_axis", "put_along_axis"]

_MODES = ("raise", "wrap", "clip")


@moves_bools("take", "a")
def take(a: Any, indices: Any, axis: int | None = None, out: Any = None,
         mode: str = "raise") -> Any:
    """numpy.take: elements of `a` at `indices` along `axis` (None: of `a` flattened). The
    result has shape a.shape[:axis] + indices.shape + a.shape[axis + 1:].

    mode="raise": an index outside [-n, n) raises IndexOutOfRangeError; "wrap": indices are
    taken modulo n; "clip": clipped to [0, n - 1] (negative ones become 0, as in numpy).
    wrap and clip rewrite the indices on the host, so they need numpy indices.

    out=, as numpy's: a numpy array of the result's shape, of a dtype `a`'s casts to safely
    from it (numpy's rule; the values are then cast as numpy casts them), or a DeviceTensor
    (any view of one) of the result's shape and dtype, written on the device; written and
    returned, and left as it was when an index raises (numpy buffers its out= so too).

    Parameters
    ----------
    a : array_like or DeviceTensor
        The source.
    indices : array_like or DeviceTensor
        Integer indices, any shape.
    axis : int, optional
        The axis to take along (None: a flattened).
    out : ndarray or DeviceTensor, optional
        Written with the result and returned.
    mode : {"raise", "wrap", "clip"}, default "raise"
        What an out-of-range index does.

    Returns
    -------
    ndarray or DeviceTensor
        a.shape[:axis] + indices.shape + a.shape[axis + 1:].

    Raises
    ------
    IndexOutOfRangeError
        An index out of range, with mode="raise".

    Examples
    --------
    >>> x = np.arange(6, dtype=np.float32).reshape(2, 3)
    >>> print(dmlc.take(x, [[2, -1]], axis=1))
    [[[2. 2.]]
    <BLANKLINE>
     [[5. 5.]]]
    >>> print(dmlc.take(x, [7], mode="wrap"))
    [1.]
    """
    fn = "take"
    if not isinstance(mode, str) or mode not in _MODES:
        raise ValidationError(fn, "mode", "'raise', 'wrap' or 'clip'", repr(mode),
                              "clipmode must be one of 'clip', 'raise', or 'wrap'")
    x, i = as_data(fn, "a", a), as_indices(fn, indices, bools=True)  # numpy's 0 and 1
    if axis is not None and x.ndim == 0 and is_int(axis) and axis in (0, -1):
        axis = None  # numpy takes axis 0 (or -1) of a 0-d array as of its one element
    x, ax = (flat(fn, "a", x), 0) if axis is None else (x, norm_axis(fn, axis, x.ndim))
    n, ishape = x.shape[ax], tuple(i.shape)
    shape = tuple(x.shape[:ax]) + ishape + tuple(x.shape[ax + 1:])
    if n == 0 and math.prod(shape):  # numpy: "cannot do a non-empty take from an empty axes"
        raise empty_axis(fn, i)
    if mode != "raise":
        i = _wrap_or_clip(fn, i, n, mode)
    if out is not None:
        check_take_out(fn, out, shape, x.dtype)
    if math.prod(shape) == 0:  # no kernel; a DeviceTensor for one in
        if mode == "raise" and math.prod(x.shape[:ax]):  # numpy checks each index it visits:
            check_on_host(fn, "indices", i, n)  # all of them, once per row before the axis
        return out if out is not None else empty(fn, shape, x.dtype, (x, i))
    xk, ik, kax, k = _gather_layout(fn, x, i, ax)
    result = rethrow(fn, lambda: gather(xk, ik, axis=kax, index_dimensions=k,
                                        check_indices=mode == "raise"),
                     unravel(tuple(ik.shape), ishape))
    if is_device_tensor(out) and out.ndim == 0:  # one element; runtime views of a 0-d
        out.upload(np.asarray(result).reshape(()))  # tensor fail (bool(base) calls len())
        return out
    if is_device_tensor(out):  # written where its elements lie (any view), by a copy kernel
        out[...] = result.reshape(shape)
        return out
    if out is not None:
        np.copyto(out, np.asarray(result).reshape(shape), casting="unsafe")
        return out
    result = result.reshape(shape)
    if is_device_tensor(result):
        return result
    return result[()] if result.ndim == 0 else result  # numpy returns a scalar for 0-d


@moves_bools("take_along_axis", "arr")
def take_along_axis(arr: Any, indices: Any, axis: int | None) -> Any:
    """numpy.take_along_axis: out[..., j, ...] = arr[..., indices[..., j, ...], ...] along
    `axis` (None: of arr flattened, with 1-D indices). indices and arr broadcast against each
    other in every dimension but `axis`, as in numpy.

    Parameters
    ----------
    arr : array_like or DeviceTensor
        The source.
    indices : array_like or DeviceTensor
        Integer indices, broadcasting against arr but along `axis`.
    axis : int or None
        The axis to take along (None: arr flattened).

    Returns
    -------
    ndarray or DeviceTensor
        As numpy.take_along_axis returns it.

    Raises
    ------
    IndexOutOfRangeError
        An index outside [-n, n).

    Examples
    --------
    >>> x = np.array([[10., 30., 20.], [60., 40., 50.]], np.float32)
    >>> print(dmlc.take_along_axis(x, np.argsort(x, axis=1), axis=1))
    [[10. 20. 30.]
     [40. 50. 60.]]
    """
    fn = "take_along_axis"
    x, i = as_data(fn, "arr", arr), as_indices(fn, indices)
    x, ax = (flat(fn, "arr", x), 0) if axis is None else (x, norm_axis(fn, axis, x.ndim))
    b = along_axis_shape(fn, tuple(x.shape), tuple(i.shape), ax)
    xb = broadcast(fn, "arr", x, b[:ax] + (x.shape[ax],) + b[ax + 1:])  # at every size, the
    ib = broadcast(fn, "indices", i, b)  # empty too: a DeviceTensor is not broadcast
    if x.shape[ax] == 0 and math.prod(b):  # numpy checks the indices it takes: none if b is
        raise empty_axis(fn, i)  # empty
    if math.prod(b) == 0:
        return empty(fn, b, x.dtype, (x, i))
    kshape, kax = collapse(b, ax)
    if kshape != b:  # more than 8 dimensions: (outer, n, inner), a copy of broadcast views
        xb = reshape(fn, "arr", xb, (kshape[0], x.shape[ax], kshape[2]))
        ib = reshape(fn, "indices", ib, kshape)
    result = rethrow(fn, lambda: gather_elements(xb, ib, axis=kax, check_indices=True),
                     lambda pos: unbroadcast(unravel(kshape, b)(pos), tuple(i.shape)))
    return result.reshape(b)


@moves_bools("put_along_axis", "arr", cast_to=("values",))
def put_along_axis(arr: Any, indices: Any, values: Any, axis: int | None) -> None:
    """numpy.put_along_axis: arr[..., indices[..., j, ...], ...] = values[..., j, ...] along
    `axis`, in place (arr: a writeable numpy array or a DeviceTensor); returns None. indices
    broadcast against arr as in take_along_axis, values to the result of that; when several
    indices hit one element, the last in C order wins (numpy's rule and DML_SCATTER's).

    An out-of-range index raises IndexOutOfRangeError and leaves arr unchanged (a DeviceTensor
    too: the in-place scatter writes nothing when its check finds a bad index).

    Parameters
    ----------
    arr : ndarray or DeviceTensor
        Written in place.
    indices : array_like or DeviceTensor
        Integer indices, broadcasting against arr but along `axis`.
    values : array_like or DeviceTensor
        The values written, broadcasting to the indices' result.
    axis : int or None
        The axis to put along (None: arr flattened).

    Returns
    -------
    None

    Raises
    ------
    IndexOutOfRangeError
        An index outside [-n, n); arr is left unchanged.

    Examples
    --------
    >>> x = np.zeros((2, 3), np.float32)
    >>> dmlc.put_along_axis(x, np.array([[2], [0]]), 5.0, axis=1)
    >>> print(x)
    [[0. 0. 5.]
     [5. 0. 0.]]
    """
    fn = "put_along_axis"
    target = _target(fn, arr)
    i = as_indices(fn, indices)
    x, ax = (flat(fn, "arr", target), 0) if axis is None else (target,
                                                             norm_axis(fn, axis, target.ndim))
    b = along_axis_shape(fn, tuple(x.shape), tuple(i.shape), ax)
    v = _values(fn, values, x.dtype, b)
    ib = broadcast(fn, "indices", i, b)  # at every size (a DeviceTensor is not broadcast)
    if math.prod(b) == 0:
        return None
    if x.shape[ax] == 0:
        raise empty_axis(fn, i)
    # Dimensions where arr has 1 element but the indices more: their updates all land on the
    # same row of arr, so they join the axis: scatter's indices match arr outside the axis.
    # The merged block takes the axis's place, in C order, which keeps last-wins right.
    merged = [d for d in range(x.ndim) if d == ax or (x.shape[d] == 1 and b[d] > 1)]
    before = [d for d in range(ax) if d not in merged]
    after = [d for d in range(ax + 1, x.ndim) if d not in merged]
    perm, kax = before + merged + after, len(before)
    kb = tuple(b[d] for d in before) + (math.prod(b[d] for d in merged),) + tuple(
        b[d] for d in after)
    kx = kb[:kax] + (x.shape[ax],) + kb[kax + 1:]
    kshape, kax = collapse(kb, kax)
    kx = kx if kshape == kb else (kshape[0], x.shape[ax], kshape[2])
    xk = reshape(fn, "arr", x, kx)  # only 1s of arr moved: a reshape, not a transpose
    ik = _permuted(fn, "indices", ib, perm, kshape)
    vk = _permuted(fn, "values", v, perm, kshape)
    kernel = cached_compile(ScatterDesc(input=tensor_of(xk), indices=tensor_of(ik),
                                        updates=tensor_of(vk), axis=kax), True)
    permuted = tuple(b[d] for d in perm)
    inverse = np.argsort(perm)

    def position(pos: Shape) -> Shape:
        p = unravel(kshape, permuted)(pos)
        return unbroadcast([p[k] for k in inverse], tuple(i.shape))

    out = xk if is_device_tensor(xk) else None
    args = (buffer_of(xk), buffer_of(ik), buffer_of(vk))
    result = rethrow(fn, lambda: kernel(*args, out=out), position)
    if out is None:  # a DeviceTensor result (device indices or values) is downloaded
        target[...] = np.asarray(result).reshape(target.shape)
    return None


def _gather_layout(fn: str, x: Any, i: Any, ax: int) -> tuple[Any, Any, int, int]:
    """(input, indices, axis, IndexDimensions) for DML_GATHER. A contiguous numpy `a` (or one
    of more than 8 dimensions with its indices) becomes (outer, n, inner) with flat indices
    (1, 1, m): free views, one small kernel. Otherwise `a` keeps its rank and strides (a
    transposed view is not copied; a DeviceTensor is used as is) under leading 1s, and the
    indices keep their shape under leading 1s, all counted by IndexDimensions."""
    q = max(1, i.ndim)
    rank = x.ndim + q - 1
    contiguous = not is_device_tensor(x) and x.flags.c_contiguous
    if contiguous or rank > MAX_RANK:
        n = x.shape[ax]
        outer, inner = math.prod(x.shape[:ax]), math.prod(x.shape[ax + 1:])
        return (reshape(fn, "a", x, (outer, n, inner)),
                reshape(fn, "indices", i, (1, 1, max(1, i.size))), 1, 1)
    xk = reshape(fn, "a", x, (1,) * (q - 1) + tuple(x.shape))
    ik = reshape(fn, "indices", i, (1,) * (rank - q) + (tuple(i.shape) or (1,)))
    return xk, ik, ax + q - 1, q


def _wrap_or_clip(fn: str, i: Any, n: int, mode: str) -> Any:
    """numpy's wrap (modulo n) and clip ([0, n - 1]) modes, on the host: afterwards every
    index is in range."""
    if is_device_tensor(i):
        raise ValidationError(fn, "mode", "'raise' for DeviceTensor indices", repr(mode),
                              "wrap and clip rewrite the indices on the host; pass numpy "
                              "indices")
    if n == 0:
        return i
    if mode == "wrap":
        return np.mod(i, i.dtype.type(n))
    return np.clip(i, i.dtype.type(0), i.dtype.type(n - 1))


def _target(fn: str, arr: Any) -> Any:
    """put_along_axis writes `arr`: a writeable numpy array or a DeviceTensor."""
    if is_device_tensor(arr):
        return as_data(fn, "arr", arr)
    if not isinstance(arr, np.ndarray):
        raise ValidationError(fn, "arr", "a numpy array or a dmlc DeviceTensor",
                              type(arr).__name__)
    if not arr.flags.writeable:
        raise ValidationError(fn, "arr", "a writeable array", "a read-only array",
                              "assignment destination is read-only")
    return as_data(fn, "arr", arr)


def _values(fn: str, values: Any, dtype: np.dtype, shape: Shape) -> Any:
    """values cast to arr's dtype (numpy's assignment casting) and broadcast to `shape`."""
    if is_device_tensor(values):
        if values.dtype != dtype:
            raise ValidationError(fn, "values.dtype", f"{dtype.name} (arr's)", values.dtype.name)
        return broadcast(fn, "values", values, shape)
    try:
        v = np.asarray(values).astype(dtype, copy=False)
    except (TypeError, ValueError) as e:
        raise ValidationError(fn, "values", f"values that numpy casts to {dtype.name}",
                              type(values).__name__, str(e)) from None
    try:
        return np.broadcast_to(v, shape)
    except ValueError:
        raise ValidationError(fn, "values.shape", f"a shape that broadcasts to {shape}",
                              v.shape, f"shape mismatch: value array of shape {v.shape} could "
                              f"not be broadcast to indexing result of shape {shape}") from None


def _permuted(fn: str, field: str, a: Any, perm: list[int], shape: Shape) -> Any:
    """An array (or device tensor) transposed by `perm` then reshaped: views, and a copy only
    where dimensions merged across strides, as numpy's."""
    if is_device_tensor(a):
        return a.transpose(perm).reshape(shape)
    return np.reshape(np.transpose(a, perm), shape)
