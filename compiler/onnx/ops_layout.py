"""ONNX nodes that reshape data by index arithmetic: Tile, Pad, DepthToSpace, SpaceToDepth,
and Shape (which reads no data)."""
from __future__ import annotations

import math

import numpy as np

from ..ops.pad import api as pad_ops
from ..ops.space_depth import api as space_depth_ops
from ..ops.tile import api as tile_ops
from .ops import OnnxNode, Value, device_data, empty, like, op


@op("Tile")
def tile(n: OnnxNode) -> list[Value]:
    x = n.inputs[0]
    assert x is not None
    reps = n.ints(1, "repeats")
    if reps is None or len(reps) != len(x.shape) or any(r < 0 for r in reps):
        raise n.error("repeats", f"{len(x.shape)} integers >= 0", reps)
    shape = tuple(d * r for d, r in zip(x.shape, reps))
    if math.prod(shape) == 0:
        return [empty(x, shape)]
    if not x.shape:  # a scalar tiled by no repeats: itself
        return [x]
    return [like(x, tile_ops.tile(device_data(x), reps))]


_PAD_MODES = {"constant": "constant", "edge": "edge", "reflect": "reflect", "wrap": "wrap"}


@op("Pad")
def pad(n: OnnxNode) -> list[Value]:
    x = n.inputs[0]
    assert x is not None
    rank = len(x.shape)
    if n.opset >= 11:
        pads, axes = n.ints(1, "pads"), n.ints(3, "axes")
        fill = n.inputs[2] if len(n.inputs) > 2 else None
        value = fill.host().reshape(-1)[0] if fill is not None and fill.shape != (0,) else 0
        if isinstance(value, np.generic) and not (isinstance(value, np.floating)
                                                  and np.isnan(value)):
            value = value.item()  # (a NaN stays numpy's scalar: dmlc.pad keeps its payload)
    else:
        pads, axes, value = n.attrs.get("pads"), None, n.attrs.get("value", 0.0)
    axes = [n.axis(a, rank, "axes") for a in axes] if axes else list(range(rank))
    if pads is None or len(pads) != 2 * len(axes):
        raise n.error("pads", f"{2 * len(axes)} integers (starts, then ends)", pads)
    start, end = [0] * rank, [0] * rank
    for k, a in enumerate(axes):
        start[a], end[a] = pads[k], pads[k + len(axes)]
    mode = n.attrs.get("mode", "constant")
    if mode not in _PAD_MODES:
        raise n.error("mode", " or ".join(_PAD_MODES), mode)
    if not rank:  # a scalar: nothing to pad
        return [x]
    # Negative pads crop: a view first, then the padding that remains.
    crop = tuple(slice(max(0, -s), d - max(0, -e)) for s, e, d in zip(start, end, x.shape))
    data = x.data[crop] if any(s < 0 or e < 0 for s, e in zip(start, end)) else x.data
    shape = tuple(d + max(0, s) + max(0, e) for d, s, e in zip(data.shape, start, end))
    if math.prod(shape) == 0 or 0 in data.shape:
        if math.prod(shape) and mode == "constant":
            return [Value(np.full(shape, value, x.logical), x.logical)]
        if math.prod(shape):
            raise n.error("data", f"elements to pad in mode {mode}", data.shape)
        return [empty(x, shape)]
    if isinstance(value, float) and x.logical.kind in "iub":
        value = int(value)
    if x.logical.kind == "b":
        value = int(bool(value))
    return [like(x, pad_ops.pad(device_data(like(x, data)), [max(0, s) for s in start],
                                   [max(0, e) for e in end], mode=_PAD_MODES[mode],
                                   value=value))]


@op("DepthToSpace", "SpaceToDepth")
def depth_space(n: OnnxNode) -> list[Value]:
    x = n.inputs[0]
    assert x is not None
    if len(x.shape) != 4:
        raise n.error("input", "4 dimensions (NCHW)", x.shape)
    block, order = int(n.attrs.get("blocksize", 0)), n.attrs.get("mode", "DCR")
    fn = space_depth_ops.space_to_depth if n.op_type == "SpaceToDepth" else \
        space_depth_ops.depth_to_space
    return [like(x, fn(device_data(x), block, order=order))]


@op("Shape")
def shape(n: OnnxNode) -> list[Value]:
    """The input's shape, on the host (no data is read): what shape subgraphs start from."""
    x = n.inputs[0]
    assert x is not None
    dims = np.array(x.shape, np.int64)
    start, end = n.attrs.get("start", 0), n.attrs.get("end", len(dims))
    return [Value(dims[start:end], np.dtype(np.int64))]
