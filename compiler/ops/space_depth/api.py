"""The one-shot space_to_depth and depth_to_space (DCR and CRD)."""
from __future__ import annotations

from typing import Any

from ...compiled import cached_compile
from ...errors import ValidationError
from ...oneshot import as_array, buffer_of, call, tensor_of
from ...oneshot.bools import moves_bools
from ...oneshot.empty import empty_output, is_empty
from ...oneshot.numbers import as_int
from .desc import DEPTH_SPACE_ORDERS, DepthToSpaceDesc, SpaceToDepthDesc

_ORDERS = {"DCR": DEPTH_SPACE_ORDERS[0], "CRD": DEPTH_SPACE_ORDERS[1]}


def _depth_space(cls: type, x: Any, block: int, order: str, out: Any) -> Any:
    op = cls.operator  # type: ignore[attr-defined]
    a = as_array(op, "InputTensor", x)
    if order not in _ORDERS:
        raise ValidationError(op, "order", "'DCR' or 'CRD'", repr(order))
    desc = cls(input=tensor_of(a), block_size=as_int(block), order=_ORDERS[order])
    if is_empty(a):
        return empty_output(desc, (a,), out)
    return call(cached_compile(desc), (buffer_of(a),), out)


@moves_bools(SpaceToDepthDesc.operator, "x")
def space_to_depth(x: Any, block: int, order: str = "DCR", out: Any = None) -> Any:
    """DML_SPACE_TO_DEPTH1: NCHW [N, C, H, W] -> [N, C*block*block, H/block, W/block]
    (ONNX SpaceToDepth is order "DCR").

    Parameters
    ----------
    x : array_like or DeviceTensor
        An NCHW tensor.
    block : int
        The block's side; it divides H and W.
    order : {"DCR", "CRD"}, default "DCR"
        The order blocks move into channels.
    out : ndarray or DeviceTensor, optional
        Written with the result and returned.

    Returns
    -------
    ndarray or DeviceTensor
        [N, C*block*block, H/block, W/block].

    Raises
    ------
    ValidationError
        A block that does not divide H or W, an ndim other than 4.

    Examples
    --------
    >>> x = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
    >>> print(dmlc.space_to_depth(x, 2).reshape(-1))
    [0. 1. 2. 3.]
    """
    return _depth_space(SpaceToDepthDesc, x, block, order, out)


@moves_bools(DepthToSpaceDesc.operator, "x")
def depth_to_space(x: Any, block: int, order: str = "DCR", out: Any = None) -> Any:
    """DML_DEPTH_TO_SPACE1: NCHW [N, C, H, W] -> [N, C/(block*block), H*block, W*block]
    (ONNX DepthToSpace's mode "DCR" or "CRD").

    Parameters
    ----------
    x : array_like or DeviceTensor
        An NCHW tensor.
    block : int
        The block's side; block * block divides C.
    order : {"DCR", "CRD"}, default "DCR"
        The order channels move into blocks.
    out : ndarray or DeviceTensor, optional
        Written with the result and returned.

    Returns
    -------
    ndarray or DeviceTensor
        [N, C/(block*block), H*block, W*block].

    Raises
    ------
    ValidationError
        A block whose square does not divide C, an ndim other than 4.

    Examples
    --------
    >>> x = np.arange(4, dtype=np.float32).reshape(1, 4, 1, 1)
    >>> print(dmlc.depth_to_space(x, 2)[0, 0])
    [[0. 1.]
     [2. 3.]]
    """
    return _depth_space(DepthToSpaceDesc, x, block, order, out)
