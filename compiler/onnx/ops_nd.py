"""ONNX nodes with index tensors beyond Gather's: GatherND, OneHot, ReverseSequence."""
from __future__ import annotations

import math

import numpy as np

from ..ops.gather_nd import api as gather_nd_ops
from ..ops.one_hot import api as one_hot_ops
from ..ops.reverse import api as reverse_ops
from ..ops.scatter import api as scatter_ops
from .ops import OnnxNode, Value, device_data, empty, like, op
from .values import index_data


@op("GatherND")
def gather_nd(n: OnnxNode) -> list[Value]:
    x, i = n.inputs[0], n.inputs[1]
    assert x is not None and i is not None
    b = int(n.attrs.get("batch_dims", 0))
    shape = i.shape[:-1] + x.shape[b + i.shape[-1]:]
    if math.prod(shape) == 0:
        return [empty(x, shape)]
    return [like(x, gather_nd_ops.gather_nd(device_data(x), index_data(i), b,
                                     check_indices=True).reshape(shape))]


@op("OneHot")
def one_hot(n: OnnxNode) -> list[Value]:
    i, depth, values = n.inputs
    assert i is not None and depth is not None and values is not None
    (d,) = [int(v) for v in np.asarray(depth.host()).reshape(-1)[:1]]
    idx = i
    if i.logical.kind not in "iu" or i.logical.itemsize < 4:  # OneHot takes any number type
        idx = Value(np.trunc(i.host()).astype(np.int64), np.dtype(np.int64))
    axis = n.attrs.get("axis", -1)
    shape = list(i.shape)
    shape.insert(axis % (len(shape) + 1), d)
    if math.prod(shape) == 0:
        return [empty(values, tuple(shape))]
    if not i.shape:  # a 0-d index: one row of one-hot
        out = one_hot_ops.one_hot(index_data(Value(idx.data.reshape((1,)), idx.logical)),
                                  device_data(values), d, -1)
        return [like(values, out.reshape(tuple(shape)))]
    return [like(values, one_hot_ops.one_hot(index_data(idx), device_data(values), d, axis))]


@op("ReverseSequence")
def reverse_sequence(n: OnnxNode) -> list[Value]:
    x, lens = n.inputs
    assert x is not None and lens is not None
    batch, time = n.attrs.get("batch_axis", 1), n.attrs.get("time_axis", 0)
    shape = [1] * len(x.shape)
    shape[batch] = x.shape[batch]
    lengths = np.asarray(lens.host()).reshape(shape)  # small: [batch] lengths
    return [like(x, reverse_ops.reverse_subsequences(device_data(x), lengths, axis=time))]


@op("TensorScatter")
def tensor_scatter(n: OnnxNode) -> list[Value]:
    """Opset 24's KV-cache update: update written into past_cache along `axis` from each
    batch's write index on (mode "circular": modulo the cache's length). A scatter in row-major
    order of the update, its indices built on the host (the update's size)."""
    cache, update = n.inputs[0], n.inputs[1]
    assert cache is not None and update is not None
    where = n.inputs[2] if len(n.inputs) > 2 else None
    rank = len(cache.shape)
    axis = n.axis(n.attrs.get("axis", -2), rank)
    if axis == 0:
        raise n.error("axis", "an axis after the batch axis 0", n.attrs.get("axis", -2))
    mode = n.attrs.get("mode", "linear")
    if mode not in ("linear", "circular"):
        raise n.error("mode", "linear or circular", mode)
    starts = (np.zeros(cache.shape[0], np.int64) if where is None else
              np.asarray(where.host(), np.int64).reshape(-1))
    shape = [1] * rank
    shape[0] = cache.shape[0]
    steps = [1] * rank
    steps[axis] = update.shape[axis]
    idx = starts.reshape(shape) + np.arange(update.shape[axis]).reshape(steps)
    if mode == "circular":
        idx %= cache.shape[axis]
    idx = np.ascontiguousarray(np.broadcast_to(idx, update.shape))
    if 0 in update.shape:
        return [cache]
    return [like(cache, scatter_ops.scatter(device_data(cache), idx, device_data(update), axis=axis,
                                    check_indices=True))]
