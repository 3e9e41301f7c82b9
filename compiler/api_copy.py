"""The one-shot copy and slice_grad."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .api import as_array, buffer_of, call, tensor_of
from .api_args import as_ints, is_int_list
from .api_empty import empty_output, has_zero, is_empty, result, validate_empty
from .compiled import cached_compile
from .descriptors import TensorDesc
from .descriptors.copy import IdentityDesc, SliceGradDesc
from .dtypes import DataType
from .errors import ValidationError


def copy(x: Any, out: Any = None) -> Any:
    """DML_ELEMENT_WISE_IDENTITY: `x` made contiguous. A strided numpy view (x.T,
    x.transpose(0, 3, 1, 2), np.broadcast_to(...), x[::2]) or a device-tensor view is read in
    place, its strides folded into the kernel: one pass, no host copy."""
    a = as_array(IdentityDesc.operator, "InputTensor", x)
    desc = IdentityDesc(input=tensor_of(a))
    if is_empty(a):
        return empty_output(desc, (a,), out)
    return call(cached_compile(desc), (buffer_of(a),), out)


def slice_grad(dy: Any, input_shape: Sequence[int], offsets: Sequence[int],
               sizes: Sequence[int], strides: Sequence[int], out: Any = None) -> Any:
    """DML_SLICE_GRAD: zeros of `input_shape` with `dy` written where dmlc.slice(x, offsets,
    sizes, strides) read x (the same window arguments; a window of size 0 reads nothing)."""
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
