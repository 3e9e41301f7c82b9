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
    (ONNX SpaceToDepth is order "DCR")."""
    return _depth_space(SpaceToDepthDesc, x, block, order, out)


@moves_bools(DepthToSpaceDesc.operator, "x")
def depth_to_space(x: Any, block: int, order: str = "DCR", out: Any = None) -> Any:
    """DML_DEPTH_TO_SPACE1: NCHW [N, C, H, W] -> [N, C/(block*block), H*block, W*block]
    (ONNX DepthToSpace's mode "DCR" or "CRD")."""
    return _depth_space(DepthToSpaceDesc, x, block, order, out)
