"""The one-shot gather_nd, one_hot and reverse_subsequences: ONNX's GatherND, OneHot and
ReverseSequence with numpy-style arguments, on the device."""
from __future__ import annotations

from typing import Any

import numpy as np

from .api import as_array, buffer_of, call_checked, tensor_of, trailing
from .api_args import as_int, axis_of
from .api_empty import check_on_host, empty, empty_output, is_empty, validate_empty
from .compiled import cached_compile
from .descriptors import TensorDesc
from .descriptors.nd import GatherND1Desc, OneHotDesc, ReverseSubsequencesDesc
from .dtypes import DataType
from .errors import ValidationError
from .tensor_checks import MAX_RANK, fmt, is_int


def _lead(a: Any, rank: int) -> Any:
    """a with leading 1s up to `rank` dimensions (a view)."""
    return a.reshape((1,) * (rank - a.ndim) + tuple(a.shape))


def gather_nd(x: Any, indices: Any, batch_dims: int = 0, check_indices: bool = False,
              out: Any = None) -> Any:
    """DML_GATHER_ND1 (ONNX GatherND): out[b..., i...] = x[b..., *indices[b..., i..., :]],
    of shape indices.shape[:-1] + x.shape[batch_dims + indices.shape[-1]:]. Negative indices
    count from the end; others out of range are clamped (IndexOutOfRangeError with
    check_indices=True)."""
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
    a, i = _lead(a, d), _lead(i, d)
    desc = GatherND1Desc(input=tensor_of(a), indices=tensor_of(i), input_dimension_count=r,
                         indices_dimension_count=q, batch_dimension_count=int(batch_dims))
    shape = tuple(i.shape[d - q:d - 1]) + tuple(a.shape[d - r + batch_dims + i.shape[-1]:])
    shape = shape or (1,)
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
        return run(None).reshape(shape)
    if tuple(getattr(out, "shape", ())) == shape:
        # out= of the shape returned: the kernel writes it through a view with leading 1s
        run(out[(None,) * (d - len(shape))])
        return out
    if hasattr(out, "shape") and tuple(out.shape) != kernel.output.sizes:
        raise ValidationError(op, "out shape", fmt(shape), fmt(out.shape))
    return run(out)  # the kernel's padded shape


def one_hot(indices: Any, values: Any, depth: int, axis: int = -1,
            check_indices: bool = False, out: Any = None) -> Any:
    """DML_ONE_HOT (ONNX OneHot): indices.shape with `depth` classes inserted at `axis`;
    values[1] where the class is the index (negative counts from the end), else values[0]. An
    index outside [-depth, depth) selects no class."""
    op = OneHotDesc.operator
    i = as_array(op, "IndicesTensor", indices)
    v = as_array(op, "ValuesTensor", values)
    if v.size != 2:
        raise ValidationError(op, "ValuesTensor", "2 values (off, on)", f"{v.size}")
    depth = as_int(depth)
    if not is_int(depth) or depth < 1:
        raise ValidationError(op, "depth", "an integer >= 1", repr(depth))
    rank = i.ndim + 1
    ax = axis_of(op, axis, rank)
    shape = tuple(i.shape[:ax]) + (int(depth),) + tuple(i.shape[ax:])
    i = i.reshape(tuple(i.shape[:ax]) + (1,) + tuple(i.shape[ax:]))  # a view
    v = v.reshape((1,) * (rank - 1) + (2,))
    desc = OneHotDesc(indices=tensor_of(i), values=tensor_of(v), axis=ax,
                      output=TensorDesc(data_type=DataType.of(v.dtype), sizes=shape))
    if is_empty(i):
        return empty_output(desc, (i, v), out)
    return call_checked(cached_compile(desc, check_indices), (buffer_of(i), buffer_of(v)), out,
                        lambda pos: tuple(pos[:ax]) + tuple(pos[ax + 1:]))  # the 1 inserted


def reverse_subsequences(x: Any, lengths: Any, axis: int, check_indices: bool = False,
                         out: Any = None) -> Any:
    """DML_REVERSE_SUBSEQUENCES: along `axis`, the first lengths[...] elements of each
    sequence reversed. `lengths` has x's shape with 1 along `axis`, or broadcasts to it (ONNX
    ReverseSequence's [batch] lengths: reshape them to 1s but the batch axis). A length is a
    position in [0, n]: negative counts from the end, larger is clamped to n."""
    op = ReverseSubsequencesDesc.operator
    a, n = as_array(op, "InputTensor", x), as_array(op, "SequenceLengthsTensor", lengths)
    ax = axis_of(op, axis, a.ndim)
    want = tuple(1 if k == ax else s for k, s in enumerate(a.shape))
    given = tuple(n.shape)
    if given != want:
        if not isinstance(n, np.ndarray):
            raise ValidationError(op, "SequenceLengthsTensor", str(want), str(tuple(n.shape)))
        try:
            n = np.broadcast_to(_lead(n, a.ndim), want)  # a stride-0 view
        except ValueError:
            raise ValidationError(op, "SequenceLengthsTensor", f"a shape broadcasting to "
                                  f"{want}", str(tuple(n.shape))) from None
    desc = ReverseSubsequencesDesc(input=tensor_of(a), sequence_lengths=tensor_of(n), axis=ax)
    if is_empty(a):  # nothing to reverse; a length is a position in [0, n] (n + 1 of them)
        validate_empty(desc)
        if check_indices:
            check_on_host(op, "SequenceLengthsTensor", n, a.shape[ax] + 1)
        return empty_output(desc, (a, n), out)

    def position(pos: tuple[int, ...]) -> tuple[int, ...]:  # in the lengths broadcast
        return tuple(p if s > 1 else 0 for p, s in zip(trailing(len(given))(pos), given))
    return call_checked(cached_compile(desc, check_indices), (buffer_of(a), buffer_of(n)), out,
                        position)
