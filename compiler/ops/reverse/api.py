"""The one-shot reverse_subsequences (ONNX ReverseSequence)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...compiled import cached_compile
from ...errors import ValidationError
from ...oneshot import as_array, buffer_of, call_checked, tensor_of, trailing, with_leading_ones
from ...oneshot.bools import moves_bools
from ...oneshot.empty import check_on_host, empty_output, is_empty, validate_empty
from ...oneshot.numbers import axis_of
from .desc import ReverseSubsequencesDesc


@moves_bools(ReverseSubsequencesDesc.operator, "x")
def reverse_subsequences(x: Any, lengths: Any, axis: int, check_indices: bool = False,
                         out: Any = None) -> Any:
    """DML_REVERSE_SUBSEQUENCES: along `axis`, the first lengths[...] elements of each
    sequence reversed. `lengths` has x's shape with 1 along `axis`, or broadcasts to it (ONNX
    ReverseSequence's [batch] lengths: reshape them to 1s but the batch axis). A length is a
    position in [0, n]: negative counts from the end, larger is clamped to n.

    Parameters
    ----------
    x : array_like or DeviceTensor
        The sequences.
    lengths : array_like or DeviceTensor
        Integer lengths, x's shape with 1 along `axis` (or broadcasting to it).
    axis : int
        The sequences' axis.
    check_indices : bool, default False
        Raise for a length outside [-n, n] instead of clamping it.
    out : ndarray or DeviceTensor, optional
        Written with the result and returned.

    Returns
    -------
    ndarray or DeviceTensor
        x's shape and dtype.

    Raises
    ------
    ValidationError
        Arguments that break DML_REVERSE_SUBSEQUENCES' rules.
    IndexOutOfRangeError
        A length out of range, with check_indices=True.

    Examples
    --------
    >>> x = np.array([[1., 2., 3., 4.], [5., 6., 7., 8.]], np.float32)
    >>> print(dmlc.reverse_subsequences(x, np.array([[3], [2]], np.int32), axis=1))
    [[3. 2. 1. 4.]
     [6. 5. 7. 8.]]
    """
    op = ReverseSubsequencesDesc.operator
    a, n = as_array(op, "InputTensor", x), as_array(op, "SequenceLengthsTensor", lengths)
    ax = axis_of(op, axis, a.ndim)
    want = tuple(1 if k == ax else s for k, s in enumerate(a.shape))
    given = tuple(n.shape)
    if given != want:
        if not isinstance(n, np.ndarray):
            raise ValidationError(op, "SequenceLengthsTensor", str(want), str(tuple(n.shape)))
        try:
            n = np.broadcast_to(with_leading_ones(n, a.ndim), want)  # a stride-0 view
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
