"""The one-shot gather and gather_elements."""
from __future__ import annotations

from typing import Any

from ...compiled import cached_compile
from ...oneshot import as_array, buffer_of, call, flag, same_ndim, tensor_of
from ...oneshot.bools import moves_bools
from ...oneshot.empty import check_on_host, empty_output, is_empty, validate_empty
from ...oneshot.numbers import as_int, axis_of
from .desc import GatherDesc, GatherElementsDesc


def significant_dimensions(shape: tuple[int, ...]) -> int:
    """The trailing dimensions of a shape after its leading 1s (at least one)."""
    lead = next((k for k, s in enumerate(shape) if s != 1), len(shape) - 1)
    return max(1, len(shape) - lead)


@moves_bools(GatherDesc.operator, "input")
def gather(input: Any, indices: Any, *, axis: int, index_dimensions: int | None = None,
           check_indices: bool = False, out: Any = None) -> Any:
    """DML_GATHER: output[...] = input[..., indices[...], ...] along `axis` (negative counts
    from the end, as in numpy).

    All arrays share one ndim (DirectML's DimensionCount); pad lower ranks with leading 1s.
    index_dimensions says how many trailing dimensions of `indices` count (default: all but
    its leading 1s, so indices of shape (1, n) are n rows). Out-of-range indices are clamped,
    or raise IndexOutOfRangeError with check_indices=True.

    Parameters
    ----------
    input : array_like or DeviceTensor
        The tensor to read from.
    indices : array_like or DeviceTensor
        Integer indices (int32, int64, uint32 or uint64), of the input's ndim.
    axis : int
        The axis of `input` the indices select along.
    index_dimensions : int, optional
        How many trailing dimensions of `indices` count.
    check_indices : bool, default False
        Raise for an out-of-range index instead of clamping it.
    out : ndarray or DeviceTensor, optional
        Written with the result and returned.

    Returns
    -------
    ndarray or DeviceTensor
        A DeviceTensor when an argument is one, else a numpy array.

    Raises
    ------
    ValidationError
        Arguments that break DML_GATHER's rules (ndims that differ, an axis out of range).
    IndexOutOfRangeError
        An index out of range, with check_indices=True.

    Examples
    --------
    >>> x = np.array([[10., 20., 30.]], np.float32)
    >>> print(dmlc.gather(x, np.array([[2, 0, 2]], np.int32), axis=1))
    [[30. 10. 30.]]
    >>> try:
    ...     dmlc.gather(x, np.array([[5]], np.int32), axis=1, check_indices=True)
    ... except dmlc.IndexOutOfRangeError:
    ...     print("index out of range")
    index out of range
    """
    op = GatherDesc.operator
    x, i = as_array(op, "input", input), as_array(op, "indices", indices)
    same_ndim(op, input=x, indices=i)
    ax = axis_of(op, axis, x.ndim)
    dims = significant_dimensions(i.shape) if index_dimensions is None else as_int(
        index_dimensions)
    desc = GatherDesc(input=tensor_of(x), indices=tensor_of(i), axis=ax, index_dimensions=dims)
    check = flag(op, "check_indices", check_indices)
    if is_empty(x, i):  # no ids, or an empty input (no id may index an empty axis)
        validate_empty(desc)
        if check or not x.shape[ax]:  # clamping needs an element to clamp to
            check_on_host(op, "IndicesTensor", i, x.shape[ax])
        return empty_output(desc, (x, i), out)
    return call(cached_compile(desc, check), (buffer_of(x), buffer_of(i)), out)


@moves_bools(GatherElementsDesc.operator, "input")
def gather_elements(input: Any, indices: Any, *, axis: int,
                    check_indices: bool = False, out: Any = None) -> Any:
    """DML_GATHER_ELEMENTS: output[i,j,k] = input[indices[i,j,k], j, k] for axis 0, etc.
    (negative axes count from the end, as in numpy).

    Parameters
    ----------
    input : array_like or DeviceTensor
        The tensor to read from.
    indices : array_like or DeviceTensor
        Integer indices, of the input's ndim and its sizes on every dimension but `axis`.
    axis : int
        The axis the indices select along.
    check_indices : bool, default False
        Raise for an out-of-range index instead of clamping it.
    out : ndarray or DeviceTensor, optional
        Written with the result and returned.

    Returns
    -------
    ndarray or DeviceTensor
        The indices' shape, the input's dtype.

    Raises
    ------
    ValidationError
        Arguments that break DML_GATHER_ELEMENTS' rules.
    IndexOutOfRangeError
        An index out of range, with check_indices=True.

    Examples
    --------
    >>> x = np.array([[1., 2.], [3., 4.]], np.float32)
    >>> print(dmlc.gather_elements(x, np.array([[1, 0], [0, 0]], np.int32), axis=0))
    [[3. 2.]
     [1. 2.]]
    """
    op = GatherElementsDesc.operator
    x, i = as_array(op, "input", input), as_array(op, "indices", indices)
    same_ndim(op, input=x, indices=i)
    ax = axis_of(op, axis, x.ndim)
    desc = GatherElementsDesc(input=tensor_of(x), indices=tensor_of(i), axis=ax)
    check = flag(op, "check_indices", check_indices)
    if is_empty(x, i):
        validate_empty(desc)
        if check or not x.shape[ax]:  # clamping needs an element to clamp to
            check_on_host(op, "IndicesTensor", i, x.shape[ax])
        return empty_output(desc, (x, i), out)
    return call(cached_compile(desc, check), (buffer_of(x), buffer_of(i)), out)
