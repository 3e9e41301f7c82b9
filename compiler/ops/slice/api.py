"""The one-shot slice and slice_grad."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from ...compiled import cached_compile
from ...dtypes import DataType
from ...errors import ValidationError
from ...family.tensor import TensorDesc, as_tuple
from ...oneshot import as_array, buffer_of, call, tensor_of
from ...oneshot.bools import moves_bools
from ...oneshot.empty import empty_output, has_zero, is_empty, result, validate_empty
from ...oneshot.numbers import as_ints, is_int_list
from .desc import Slice1Desc, SliceGradDesc


@moves_bools(Slice1Desc.operator, "input")
def slice(input: Any, offsets: Sequence[int], sizes: Sequence[int], strides: Sequence[int],
          output_sizes: Sequence[int] | None = None, out: Any = None) -> Any:
    """DML_SLICE1: per dimension, the window [offset, offset + size) read with a signed stride
    (negative: from the window's end). output_sizes=None takes the most each window allows.

    Parameters
    ----------
    input : array_like or DeviceTensor
        The tensor to read from.
    offsets, sizes : sequence of int
        Each dimension's window.
    strides : sequence of int
        Each dimension's step, negative to read from the window's end.
    output_sizes : sequence of int, optional
        The output's sizes (by default the most each window allows).
    out : ndarray or DeviceTensor, optional
        Written with the result and returned.

    Returns
    -------
    ndarray or DeviceTensor
        The elements read, input's dtype.

    Raises
    ------
    ValidationError
        A window outside the input, a stride of 0.

    Examples
    --------
    >>> x = np.arange(8, dtype=np.float32).reshape(2, 4)
    >>> print(dmlc.slice(x, offsets=[0, 1], sizes=[2, 3], strides=[1, -2]))
    [[3. 1.]
     [7. 5.]]
    """
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


@moves_bools(SliceGradDesc.operator, "dy")
def slice_grad(dy: Any, input_shape: Sequence[int], offsets: Sequence[int],
               sizes: Sequence[int], strides: Sequence[int], out: Any = None) -> Any:
    """DML_SLICE_GRAD: zeros of `input_shape` with `dy` written where dmlc.slice(x, offsets,
    sizes, strides) read x (the same window arguments; a window of size 0 reads nothing).

    Parameters
    ----------
    dy : array_like or DeviceTensor
        The slice's output gradient.
    input_shape : sequence of int
        The sliced tensor's shape.
    offsets, sizes, strides : sequence of int
        The slice's window, as dmlc.slice takes it.
    out : ndarray or DeviceTensor, optional
        Written with the result and returned.

    Returns
    -------
    ndarray or DeviceTensor
        Of `input_shape`, dy's dtype.

    Raises
    ------
    ValidationError
        A window outside `input_shape`, a dy of the wrong shape.

    Examples
    --------
    >>> dy = np.array([[1., 2.]], np.float32)
    >>> print(dmlc.slice_grad(dy, (2, 4), offsets=[1, 0], sizes=[1, 4], strides=[1, 2]))
    [[0. 0. 0. 0.]
     [1. 0. 2. 0.]]
    """
    op = SliceGradDesc.operator
    g = as_array(op, "InputGradientTensor", dy)
    shape = as_ints(input_shape)
    if not is_int_list(shape):
        raise ValidationError(op, "input_shape", "a list of sizes", repr(input_shape))
    window: dict[str, Any] = {"offsets": as_ints(offsets), "sizes": as_ints(sizes),
                              "strides": as_ints(strides)}
    desc = SliceGradDesc(input_gradient=tensor_of(g), output_gradient=TensorDesc(
        data_type=DataType.of(g.dtype), sizes=shape), **window)  # as_tuple checks each
    if is_empty(g) or 0 in shape or has_zero(desc.sizes):  # an empty window: zeros
        validate_empty(desc)
        return result(op, np.zeros(shape, g.dtype), (g,), out)
    return call(cached_compile(desc), (buffer_of(g),), out)
