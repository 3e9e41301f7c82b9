"""The one-shot join and split: numpy.concatenate and numpy.split by sizes, on the device."""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...artifact import is_device_tensor
from ...compiled import cached_compile
from ...dtypes import DataType
from ...errors import ValidationError
from ...family.checks import is_int
from ...family.tensor import TensorDesc
from ...oneshot import as_array, buffer_of, call, same_ndim, tensor_of
from ...oneshot.bools import moves_bools
from ...oneshot.empty import empty, empty_output, is_empty, on_device_if, validate_empty
from ...oneshot.numbers import as_int, as_ints, axis_of, is_int_list
from .desc import JoinDesc, SplitDesc
from .validate import MAX_TENSORS


@moves_bools(JoinDesc.operator, "tensors", many=True)
def join(tensors: Sequence[Any], axis: int = 0, out: Any = None) -> Any:
    """DML_JOIN: the tensors concatenated along `axis` (numpy.concatenate; a negative axis
    counts from the end). All share one data type and ndim, and their sizes but along `axis`.
    An array (numpy's or a DeviceTensor) is the sequence of its rows, as numpy takes it.

    Parameters
    ----------
    tensors : sequence of array_like or DeviceTensor
        The tensors, in order.
    axis : int, default 0
        The axis they are joined along.
    out : ndarray or DeviceTensor, optional
        Written with the result and returned.

    Returns
    -------
    ndarray or DeviceTensor
        The tensors concatenated.

    Raises
    ------
    ValidationError
        Data types, ndims or sizes that differ.

    Examples
    --------
    >>> a, b = np.ones((1, 2), np.float32), np.zeros((2, 2), np.float32)
    >>> print(dmlc.join([a, b], axis=0))
    [[1. 1.]
     [0. 0.]
     [0. 0.]]
    """
    op = JoinDesc.operator
    if isinstance(tensors, np.ndarray) or is_device_tensor(tensors):
        rows: Any = tensors
        if rows.ndim < 2:  # rows of 0 dimensions (numpy refuses them too)
            raise ValidationError(op, "InputTensors", "a list of arrays, or an array of at "
                                  "least 2 dimensions (a sequence of its rows)",
                                  f"an array of {rows.ndim} dimensions")
        tensors = [rows[k] for k in range(rows.shape[0])]  # views, as numpy's
    if isinstance(tensors, (str, bytes)) or not isinstance(tensors, Sequence):
        raise ValidationError(op, "InputTensors", "a list of arrays or device tensors",
                              type(tensors).__name__)
    xs = [as_array(op, f"InputTensors[{k}]", t) for k, t in enumerate(tensors)]
    if not xs:
        raise ValidationError(op, "InputCount", "at least 1 tensor", 0)
    same_ndim(op, **{f"InputTensors[{k}]": x for k, x in enumerate(xs)})
    desc = JoinDesc(inputs=tuple(tensor_of(x) for x in xs), axis=axis_of(op, axis, xs[0].ndim))
    if is_empty(*xs):  # the empty tensors add nothing: the others are joined
        full = validate_empty(desc)
        given, xs = xs, [x for x in xs if not is_empty(x)]
        if not xs:
            return empty_output(full, tuple(given), out)
        desc = JoinDesc(inputs=tuple(tensor_of(x) for x in xs), axis=full.axis)
        return on_device_if(call(cached_compile(desc), tuple(buffer_of(x) for x in xs), out),
                            tuple(given))
    return call(cached_compile(desc), tuple(buffer_of(x) for x in xs), out)


@moves_bools(SplitDesc.operator, "input")
def split(input: Any, sizes: int | Sequence[int], axis: int = 0) -> tuple[Any, ...]:
    """DML_SPLIT: `input` cut along `axis` into pieces of `sizes` (consecutive, summing to the
    axis), or into `sizes` equal pieces when it is an integer (numpy.split's rule: they must
    divide the axis). One kernel writes every piece; each returned array (or device-tensor view)
    is a region of the one buffer they share.

    Parameters
    ----------
    input : array_like or DeviceTensor
        The tensor to cut.
    sizes : int or sequence of int
        The pieces' sizes along `axis`, or how many equal pieces.
    axis : int, default 0
        The axis to cut along.

    Returns
    -------
    tuple of ndarray or DeviceTensor
        The pieces, in order.

    Raises
    ------
    ValidationError
        Sizes that do not sum to the axis (or a count that does not divide it).

    Examples
    --------
    >>> x = np.arange(5, dtype=np.float32)
    >>> first, rest = dmlc.split(x, [2, 3])
    >>> print(first, rest)
    [0. 1.] [2. 3. 4.]
    >>> print(len(dmlc.split(np.zeros((4, 2), np.float32), 2)))
    2
    """
    op = SplitDesc.operator
    x = as_array(op, "input", input)
    ax = axis_of(op, axis, x.ndim)
    n = x.shape[ax]
    given: Any = as_ints(as_int(sizes))
    if is_int(given):  # an empty axis splits into any number of empty pieces, as numpy's
        most = min(n, MAX_TENSORS) if n else MAX_TENSORS  # DML_SPLIT's outputs are bounded
        if given < 1 or given > most or (n and n % given):
            raise ValidationError(op, "sizes", f"a number of equal pieces (1 to {most}) "
                                  f"dividing InputTensor.Sizes[{ax}] = {n}", given)
        pieces = [n // given] * given
    elif is_int_list(given) and all(s >= 0 for s in given):
        pieces = list(given)
    else:
        raise ValidationError(op, "sizes", "an integer or a list of integers >= 0",
                              repr(sizes))
    dtype = DataType.of(x.dtype)
    outputs = tuple(TensorDesc(data_type=dtype, sizes=(*x.shape[:ax], s, *x.shape[ax + 1:]))
                    for s in pieces)
    desc = SplitDesc(input=tensor_of(x), outputs=outputs, axis=ax)
    if not (is_empty(x) or 0 in pieces):
        return cached_compile(desc)(buffer_of(x))
    validate_empty(desc)  # pieces of size 0 are empty arrays; the kernel writes the others
    written = iter(()) if is_empty(x) else iter(cached_compile(dataclasses.replace(
        desc, outputs=tuple(t for t in outputs if t.element_count)))(buffer_of(x)))
    return tuple(next(written) if t.element_count else empty(op, t.sizes, dtype.numpy, (x,))
                 for t in outputs)
