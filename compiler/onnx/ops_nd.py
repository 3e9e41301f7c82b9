"""ONNX nodes with index tensors beyond Gather's: GatherND, OneHot, ReverseSequence."""
from __future__ import annotations

import math

import numpy as np

from .. import api_nd
from .ops import Node, Value, device_data, empty, like, op


@op("GatherND")
def gather_nd(n: Node) -> list[Value]:
    x, i = n.inputs[0], n.inputs[1]
    assert x is not None and i is not None
    b = int(n.attrs.get("batch_dims", 0))
    shape = i.shape[:-1] + x.shape[b + i.shape[-1]:]
    if math.prod(shape) == 0:
        return [empty(x, shape)]
    return [like(x, api_nd.gather_nd(device_data(x), device_data(i), b,
                                     check_indices=True).reshape(shape))]


@op("OneHot")
def one_hot(n: Node) -> list[Value]:
    i, depth, values = n.inputs
    assert i is not None and depth is not None and values is not None
    (d,) = [int(v) for v in np.asarray(depth.host()).reshape(-1)[:1]]
    idx = i if i.logical.kind in "iu" else Value(i.host().astype(np.int64), np.dtype(np.int64))
    if idx.logical.kind == "u" and idx.logical.itemsize < 4 or idx.logical.kind == "i" and \
            idx.logical.itemsize < 4:
        idx = Value(idx.host().astype(np.int64), np.dtype(np.int64))
    axis = n.attrs.get("axis", -1)
    shape = list(i.shape)
    shape.insert(axis % (len(shape) + 1), d)
    if math.prod(shape) == 0:
        return [empty(values, tuple(shape))]
    return [like(values, api_nd.one_hot(device_data(idx), device_data(values), d, axis))]


@op("ReverseSequence")
def reverse_sequence(n: Node) -> list[Value]:
    x, lens = n.inputs
    assert x is not None and lens is not None
    batch, time = n.attrs.get("batch_axis", 1), n.attrs.get("time_axis", 0)
    shape = [1] * len(x.shape)
    shape[batch] = x.shape[batch]
    lengths = np.asarray(lens.host()).reshape(shape)  # small: [batch] lengths
    return [like(x, api_nd.reverse_subsequences(device_data(x), lengths, axis=time))]
