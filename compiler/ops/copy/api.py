"""The one-shot copy."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...compiled import cached_compile
from ...oneshot import as_array, buffer_of, call, tensor_of
from ...oneshot.bools import moves_bools
from ...oneshot.computed import Computed
from ...oneshot.empty import empty_output, is_empty
from .desc import IdentityDesc


@moves_bools(IdentityDesc.operator, "x")
def copy(x: Any, out: Any = None) -> Any:
    """DML_ELEMENT_WISE_IDENTITY: `x` made contiguous. A strided numpy view (x.T,
    x.transpose(0, 3, 1, 2), np.broadcast_to(...), x[::2]) or a device-tensor view is read in
    place, its strides folded into the kernel: one pass, no host copy.

    Parameters
    ----------
    x : array_like or DeviceTensor
        Any view.
    out : ndarray or DeviceTensor, optional
        Written with the result and returned (any view of a device tensor).

    Returns
    -------
    ndarray or DeviceTensor
        x's elements, contiguous.

    Raises
    ------
    ValidationError
        An `out` of another shape or dtype.

    Examples
    --------
    >>> x = np.arange(6, dtype=np.float32).reshape(2, 3)
    >>> y = dmlc.copy(x.T)
    >>> print(y, y.flags["C_CONTIGUOUS"])
    [[0. 3.]
     [1. 4.]
     [2. 5.]] True
    """
    a = as_array(IdentityDesc.operator, "InputTensor", x)
    desc = IdentityDesc(input=tensor_of(a))
    if is_empty(a):
        return empty_output(desc, (a,), out)
    return call(cached_compile(desc), (buffer_of(a),), out)


def materialize(c: Computed) -> Any:
    """A computed operand's elements, computed by one kernel into a tensor of their own (a
    DeviceTensor when one of its inputs is one, else a numpy array)."""
    if not c.size:
        return np.empty(c.shape, c.dtype)
    return call(cached_compile(IdentityDesc(input=c.tensor)), (c,), None).reshape(c.shape)
