"""The one-shot join and split: numpy.concatenate and numpy.split by sizes, on the device."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .api import as_array, buffer_of, call, numpy_axis, same_ndim, tensor_of
from .compiled import cached_compile
from .descriptors import JoinDesc, SplitDesc, TensorDesc
from .dtypes import DataType
from .errors import ValidationError
from .tensor_checks import is_int


def join(tensors: Sequence[Any], axis: int = 0, out: Any = None) -> Any:
    """DML_JOIN: the tensors concatenated along `axis` (numpy.concatenate; a negative axis
    counts from the end). All share one data type and ndim, and their sizes but along `axis`."""
    op = JoinDesc.operator
    if isinstance(tensors, (str, bytes)) or not isinstance(tensors, Sequence):
        raise ValidationError(op, "InputTensors", "a list of arrays or device tensors",
                              type(tensors).__name__)
    xs = [as_array(op, f"InputTensors[{k}]", t) for k, t in enumerate(tensors)]
    if not xs:
        raise ValidationError(op, "InputCount", "at least 1 tensor", 0)
    same_ndim(op, **{f"InputTensors[{k}]": x for k, x in enumerate(xs)})
    kernel = cached_compile(JoinDesc(inputs=tuple(tensor_of(x) for x in xs),
                                     axis=numpy_axis(axis, xs[0].ndim)))
    return call(kernel, tuple(buffer_of(x) for x in xs), out)


def split(input: Any, sizes: int | Sequence[int], axis: int = 0) -> tuple[Any, ...]:
    """DML_SPLIT: `input` cut along `axis` into pieces of `sizes` (consecutive, summing to the
    axis), or into `sizes` equal pieces when it is an integer (numpy.split's rule: they must
    divide the axis). One kernel writes every piece; each returned array (or device-tensor view)
    is a region of the one buffer they share."""
    op = SplitDesc.operator
    x = as_array(op, "input", input)
    ax = numpy_axis(axis, x.ndim)
    if not is_int(ax) or not 0 <= ax < x.ndim:
        raise ValidationError(op, "Axis", f"an integer in [{-x.ndim}, {x.ndim})", repr(axis))
    n = x.shape[ax]
    if is_int(sizes):
        if not 1 <= sizes <= max(n, 1) or n % sizes:
            raise ValidationError(op, "sizes", f"a number of equal pieces (1 to {max(n, 1)}) "
                                  f"dividing InputTensor.Sizes[{ax}] = {n}", sizes)
        pieces = [n // sizes] * int(sizes)
    elif isinstance(sizes, Sequence) and not isinstance(sizes, (str, bytes)) \
            and all(is_int(s) and s >= 1 for s in sizes):
        pieces = [int(s) for s in sizes]
    else:
        raise ValidationError(op, "sizes", "an integer or a list of integers >= 1",
                              repr(sizes))
    dtype = DataType.of(x.dtype)
    outputs = tuple(TensorDesc(data_type=dtype, sizes=(*x.shape[:ax], s, *x.shape[ax + 1:]))
                    for s in pieces)
    kernel = cached_compile(SplitDesc(input=tensor_of(x), outputs=outputs, axis=ax))
    return kernel(buffer_of(x))
