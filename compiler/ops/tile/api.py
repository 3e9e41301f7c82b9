"""The one-shot tile (numpy.tile)."""
from __future__ import annotations

from typing import Any

from ...compiled import cached_compile
from ...oneshot import as_array, buffer_of, call, tensor_of
from ...oneshot.bools import moves_bools
from ...oneshot.empty import empty_output, is_empty
from ...oneshot.numbers import int_arguments
from .desc import TileDesc


@moves_bools(TileDesc.operator, "x")
def tile(x: Any, repeats: Any, out: Any = None) -> Any:
    """DML_TILE: `x` repeated `repeats[d]` times along each dimension, as numpy.tile: fewer
    repeats than dimensions apply to the last ones (an integer: the last dimension), more add
    leading dimensions to x.

    Parameters
    ----------
    x : array_like or DeviceTensor
        The tensor to repeat.
    repeats : int or sequence of int
        Repeats per dimension, as numpy.tile's `reps`.
    out : ndarray or DeviceTensor, optional
        Written with the result and returned.

    Returns
    -------
    ndarray or DeviceTensor
        x tiled, x's dtype.

    Raises
    ------
    ValidationError
        A negative repeat.

    Examples
    --------
    >>> print(dmlc.tile(np.array([[1., 2.]], np.float32), (2, 2)))
    [[1. 2. 1. 2.]
     [1. 2. 1. 2.]]
    """
    op = TileDesc.operator
    a = as_array(op, "InputTensor", x)
    reps = int_arguments(op, "Repeats", repeats, None)
    rank = max(a.ndim, len(reps))
    a = a.reshape((1,) * (rank - a.ndim) + tuple(a.shape))  # a view
    reps = (1,) * (rank - len(reps)) + reps
    desc = TileDesc(input=tensor_of(a), repeats=reps)
    if is_empty(a) or 0 in reps:
        return empty_output(desc, (a,), out)
    return call(cached_compile(desc), (buffer_of(a),), out)
