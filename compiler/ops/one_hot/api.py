"""The one-shot one_hot (ONNX OneHot)."""
from __future__ import annotations

from typing import Any

from ...compiled import cached_compile
from ...dtypes import DataType
from ...errors import ValidationError
from ...family.checks import is_int
from ...family.tensor import TensorDesc
from ...oneshot import as_array, buffer_of, call_checked, tensor_of
from ...oneshot.bools import moves_bools
from ...oneshot.empty import empty_output, is_empty
from ...oneshot.numbers import as_int, axis_of
from .desc import OneHotDesc


@moves_bools(OneHotDesc.operator, "values")
def one_hot(indices: Any, values: Any, depth: int, axis: int = -1,
            check_indices: bool = False, out: Any = None) -> Any:
    """DML_ONE_HOT (ONNX OneHot): indices.shape with `depth` classes inserted at `axis`;
    values[1] where the class is the index (negative counts from the end), else values[0]. An
    index outside [-depth, depth) selects no class.

    Parameters
    ----------
    indices : array_like or DeviceTensor
        Integer class indices.
    values : array_like or DeviceTensor
        Two elements: the off value, then the on value.
    depth : int
        The number of classes.
    axis : int, default -1
        Where the classes' dimension goes in the output.
    check_indices : bool, default False
        Raise for an index outside [-depth, depth).
    out : ndarray or DeviceTensor, optional
        Written with the result and returned.

    Returns
    -------
    ndarray or DeviceTensor
        values' dtype, indices.shape with `depth` inserted at `axis`.

    Raises
    ------
    ValidationError
        Arguments that break DML_ONE_HOT's rules.
    IndexOutOfRangeError
        An index out of range, with check_indices=True.

    Examples
    --------
    >>> print(dmlc.one_hot(np.array([0, 2, -1], np.int32), np.array([0., 1.], np.float32), 3))
    [[1. 0. 0.]
     [0. 0. 1.]
     [0. 0. 1.]]
    """
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
