"""The one-shot gather_nd (ONNX GatherND)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...compiled import cached_compile
from ...errors import ValidationError
from ...family.checks import MAX_RANK, fmt, is_int
from ...oneshot import (
    as_array,
    buffer_of,
    call_checked,
    flag,
    tensor_of,
    trailing,
    with_leading_ones,
)
from ...oneshot.bools import moves_bools
from ...oneshot.empty import check_on_host, empty, is_empty, validate_empty
from ...oneshot.numbers import as_int
from .desc import GatherND1Desc


@moves_bools(GatherND1Desc.operator, "x")
def gather_nd(x: Any, indices: Any, batch_dims: int = 0, check_indices: bool = False,
              out: Any = None) -> Any:
    """DML_GATHER_ND1 (ONNX GatherND): out[b..., i...] = x[b..., *indices[b..., i..., :]],
    of shape indices.shape[:-1] + x.shape[batch_dims + indices.shape[-1]:]. Negative indices
    count from the end; others out of range are clamped (IndexOutOfRangeError with
    check_indices=True).

    Parameters
    ----------
    x : array_like or DeviceTensor
        The tensor to read from.
    indices : array_like or DeviceTensor
        Integer index tuples along its last axis.
    batch_dims : int, default 0
        Leading dimensions that x and indices share.
    check_indices : bool, default False
        Raise for an out-of-range index instead of clamping it.
    out : ndarray or DeviceTensor, optional
        Written with the result and returned.

    Returns
    -------
    ndarray or DeviceTensor
        Of shape indices.shape[:-1] + x.shape[batch_dims + indices.shape[-1]:].

    Raises
    ------
    ValidationError
        Arguments that break DML_GATHER_ND1's rules.
    IndexOutOfRangeError
        An index out of range, with check_indices=True.

    Examples
    --------
    >>> x = np.array([[1., 2.], [3., 4.]], np.float32)
    >>> print(dmlc.gather_nd(x, np.array([[1, 0], [0, 1]], np.int64)))
    [3. 2.]
    >>> print(dmlc.gather_nd(x, np.array([[1], [-2]], np.int64)))
    [[3. 4.]
     [1. 2.]]
    """
    op = GatherND1Desc.operator
    a, i = as_array(op, "InputTensor", x), as_array(op, "IndicesTensor", indices)
    batch_dims = as_int(batch_dims)
    if not is_int(batch_dims) or batch_dims < 0:
        raise ValidationError(op, "BatchDimensionCount", "an integer >= 0", repr(batch_dims))
    r, q = a.ndim, i.ndim
    out_rank = (q - 1) + (r - batch_dims - (i.shape[-1] if q else 0))
    d = max(r, q, out_rank, 1)
    if d > MAX_RANK:
        raise ValidationError(op, "DimensionCount", f"at most {MAX_RANK}", d)
    given = i
    a, i = with_leading_ones(a, d), with_leading_ones(i, d)
    desc = GatherND1Desc(input=tensor_of(a), indices=tensor_of(i), input_dimension_count=r,
                         indices_dimension_count=q, batch_dimension_count=int(batch_dims))
    check_indices = flag(op, "check_indices", check_indices)
    shape = tuple(i.shape[d - q:d - 1]) + tuple(a.shape[d - r + batch_dims + i.shape[-1]:])
    if is_empty(a, i):  # no index tuples, or an empty input (no tuple may index into it)
        validate_empty(desc)
        first = d - r + batch_dims
        dims = np.array(a.shape[first:first + i.shape[-1]])
        if check_indices or not dims.all():  # clamping needs an element to clamp to
            check_on_host(op, "IndicesTensor", given, dims)
        return empty(op, shape, a.dtype, (a, i), out)
    kernel = cached_compile(desc, check_indices)

    def run(target: Any) -> Any:
        return call_checked(kernel, (buffer_of(a), buffer_of(i)), target, trailing(q))
    if out is None:
        return run(None).reshape(shape)  # () for one tuple that names one element
    if tuple(getattr(out, "shape", ())) == shape:
        # out= of the shape returned: the kernel writes it through a view with leading 1s
        run(out.reshape((1,) * d) if not shape else out[(None,) * (d - len(shape))])
        return out
    if hasattr(out, "shape") and tuple(out.shape) != kernel.output.sizes:
        raise ValidationError(op, "out shape", fmt(shape), fmt(out.shape))
    return run(out)  # the kernel's padded shape
