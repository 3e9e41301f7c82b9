"""ONNX nodes as dmlc operators: one converter per op type.

A converter takes the node (its name, attributes and opset) and its input Values and returns its
output Values. Shape-only nodes (Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Slice,
Identity) are views: they cost no kernel, and the next kernel reads through them (their strides
and offset fold into its index arithmetic). Every other node is one dmlc kernel (a tree of them
for a join of many inputs).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import numpy_api
from ..compiled import cached_compile
from ..dtypes import DataType
from ..errors import ValidationError
from ..family.checks import MAX_RANK
from ..family.tensor import TensorDesc
from ..oneshot import tensor_of
from ..oneshot.bools import BOOL_REDUCTIONS
from ..oneshot.computed import Computed
from ..ops.copy import api as copy_ops
from ..ops.expression import tree as E
from ..ops.expression.desc import ExpressionDesc
from ..ops.gather import api as gather_ops
from ..ops.join import api as join_ops
from ..ops.scatter import api as scatter_ops
from .values import Value, device_data, index_array, index_data


@dataclass
class OnnxNode:
    """What a converter sees of a node."""

    name: str
    op_type: str
    opset: int
    attrs: dict[str, Any]
    inputs: list[Value | None]

    def error(self, field: str, expected: str, actual: object) -> ValidationError:
        return ValidationError(f"onnx {self.op_type} node {self.name!r} (opset {self.opset})",
                               field, expected, actual)

    def ints(self, k: int, field: str) -> list[int] | None:
        """Input k as a list of integers (a constant operand), or None when absent."""
        v = self.inputs[k] if k < len(self.inputs) else None
        return None if v is None else [int(x) for x in index_array(v, self.name, field).ravel()]

    def axis(self, axis: int, rank: int, field: str = "axis") -> int:
        if not -rank <= axis < rank:
            raise self.error(field, f"an axis in [{-rank}, {rank})", axis)
        return axis % rank


Converter = Callable[[OnnxNode], list[Value]]
OPS: dict[str, Converter] = {}


def op(*names: str) -> Callable[[Converter], Converter]:
    def register(fn: Converter) -> Converter:
        for n in names:
            OPS[n] = fn
        return fn
    return register


def like(v: Value, data: Any) -> Value:
    """A result holding v's kind of elements."""
    return Value(data, v.logical)


def empty(v: Value, shape: tuple[int, ...]) -> Value:
    """A zero-size result: nothing to dispatch (ONNX allows them; DirectML does not)."""
    return Value(np.empty(shape, v.logical), v.logical)


# Views ------------------------------------------------------------------------------------

@op("Identity")
def identity(n: OnnxNode) -> list[Value]:
    return [n.inputs[0]]  # type: ignore[list-item]


def reshaped(v: Value, shape: tuple[int, ...]) -> Value:
    if math.prod(shape) == 0:
        return empty(v, shape)
    return like(v, v.data.reshape(shape))


@op("Reshape")
def reshape(n: OnnxNode) -> list[Value]:
    x = n.inputs[0]
    assert x is not None
    target = n.ints(1, "shape") if n.opset >= 5 else list(n.attrs.get("shape", []))
    if target is None:
        raise n.error("shape", "a constant shape", "none")
    if not n.attrs.get("allowzero", 0):  # 0 copies the input's dimension
        target = [x.shape[k] if d == 0 else d for k, d in enumerate(target)]
    if target.count(-1) > 1:
        raise n.error("shape", "at most one -1", target)
    if -1 in target:
        known = math.prod(d for d in target if d != -1)
        target[target.index(-1)] = math.prod(x.shape) // known if known else 0
    if math.prod(target) != math.prod(x.shape):
        raise n.error("shape", f"{math.prod(x.shape)} elements ({x.shape})", target)
    return [reshaped(x, tuple(target))]


@op("Flatten")
def flatten(n: OnnxNode) -> list[Value]:
    x = n.inputs[0]
    assert x is not None
    a = n.attrs.get("axis", 1)
    if not -len(x.shape) <= a <= len(x.shape):
        raise n.error("axis", f"an axis in [{-len(x.shape)}, {len(x.shape)}]", a)
    a += len(x.shape) if a < 0 else 0
    return [reshaped(x, (math.prod(x.shape[:a]), math.prod(x.shape[a:])))]


@op("Squeeze", "Unsqueeze")
def squeeze(n: OnnxNode) -> list[Value]:
    x = n.inputs[0]
    assert x is not None
    axes = n.ints(1, "axes") if n.opset >= 13 else n.attrs.get("axes")
    shape = list(x.shape)
    if n.op_type == "Squeeze":
        rank = len(shape)
        drop = {n.axis(a, rank, "axes") for a in axes} if axes else {
            k for k, d in enumerate(shape) if d == 1}
        if any(shape[k] != 1 for k in drop):
            raise n.error("axes", "dimensions of size 1", [shape[k] for k in sorted(drop)])
        return [reshaped(x, tuple(d for k, d in enumerate(shape) if k not in drop))]
    if not axes:
        raise n.error("axes", "the axes to insert", axes)
    rank = len(shape) + len(axes)
    for a in sorted(n.axis(a, rank, "axes") for a in axes):
        shape.insert(a, 1)
    return [reshaped(x, tuple(shape))]


@op("Transpose")
def transpose(n: OnnxNode) -> list[Value]:
    x = n.inputs[0]
    assert x is not None
    perm = n.attrs.get("perm") or list(range(len(x.shape)))[::-1]
    if sorted(perm) != list(range(len(x.shape))):
        raise n.error("perm", f"a permutation of 0..{len(x.shape) - 1}", perm)
    if 0 in x.shape:
        return [empty(x, tuple(x.shape[p] for p in perm))]
    if x.computed:
        return [like(x, computed_view(x, lambda c: c.transpose(perm),
                                      lambda d: d.transpose(perm)))]
    return [like(x, x.data.transpose(perm))]


def computed_view(x: Value, view: Callable[[Any], Any], fallback: Callable[[Any], Any]) -> Any:
    """A view of a computed value: still computed (fused into its reader) where the view can
    be expressed so, else the value computed by its own kernel, then viewed."""
    out = view(x.data)
    return out if out is not None else fallback(device_data(x))


@op("Slice")
def slice_(n: OnnxNode) -> list[Value]:
    x = n.inputs[0]
    assert x is not None
    rank = len(x.shape)
    if n.opset >= 10:
        starts, ends = n.ints(1, "starts"), n.ints(2, "ends")
        axes, steps = n.ints(3, "axes"), n.ints(4, "steps")
    else:
        starts, ends = n.attrs.get("starts"), n.attrs.get("ends")
        axes, steps = n.attrs.get("axes"), None
    if starts is None or ends is None or len(starts) != len(ends):
        raise n.error("starts, ends", "constant lists of one length", (starts, ends))
    axes = axes or list(range(len(starts)))
    steps = steps or [1] * len(starts)
    key: list[slice] = [slice(None)] * rank
    for s, e, a, st in zip(starts, ends, axes, steps):
        if st == 0:
            raise n.error("steps", "non-zero steps", steps)
        key[n.axis(a, rank, "axes")] = slice(s, e, st)  # ONNX clamps as Python slices do
    shape = np.empty(x.shape, np.uint8)[tuple(key)].shape
    if math.prod(shape) == 0:
        return [empty(x, shape)]
    if x.computed:
        return [like(x, computed_view(x, lambda c: c.sliced(key), lambda d: d[tuple(key)]))]
    return [like(x, x.data[tuple(key)])]


# Kernels ----------------------------------------------------------------------------------

@op("Expand")
def expand(n: OnnxNode) -> list[Value]:
    x = n.inputs[0]
    assert x is not None
    target = n.ints(1, "shape")
    try:
        shape = np.broadcast_shapes(x.shape, tuple(target or ()))
    except ValueError:
        raise n.error("shape", f"a shape {x.shape} broadcasts to", target) from None
    if math.prod(shape) == 0:
        return [empty(x, shape)]
    if tuple(shape) == x.shape:  # nothing to broadcast
        return [x]
    if x.computed:
        c = x.data.broadcast_to(shape)
        if c is not None:
            return [like(x, c)]
        x = Value(device_data(x), x.logical)
    if x.on_host:
        return [like(x, np.broadcast_to(x.data, shape))]  # a stride-0 view, read in place
    return [like(x, broadcast_on_device(x.data, shape))]


def broadcast_on_device(data: Any, shape: tuple[int, ...]) -> Any:
    """A device tensor broadcast to `shape` (numpy's rules), by a tensor expression:
    Y[i0, i1, ...] = X[.., 0 where X's dimension is 1, ..]."""
    if data.ndim == 0:  # a scalar: one element, read as such
        data = data.reshape((1,))
    names = [f"i{k}" for k in range(len(shape))]
    lead = len(shape) - data.ndim
    subs = tuple(E.Const(0) if d == 1 and shape[lead + k] != 1 else E.Var(names[lead + k])
                 for k, d in enumerate(data.shape))
    desc = ExpressionDesc(name="Y", index_vars=tuple(names), body=E.Load("X", subs),
                          tensors=(("X", tensor_of(data.packed())),),
                          output=TensorDesc(data_type=DataType.of(data.dtype), sizes=shape))
    return cached_compile(desc)(data.packed())


@op("Gather")
def gather(n: OnnxNode) -> list[Value]:
    x, i = n.inputs[0], n.inputs[1]
    assert x is not None and i is not None
    axis = n.axis(n.attrs.get("axis", 0), len(x.shape))
    shape = x.shape[:axis] + i.shape + x.shape[axis + 1:]  # a 0-d index drops the axis
    if math.prod(shape) == 0:
        return [empty(x, shape)]
    if i.computed:
        return [like(x, _computed_gather(n, device_data(x), i.data, axis).reshape(shape))]
    return [like(x, numpy_api.take(device_data(x), index_data(i), axis=axis).reshape(shape))]


def _computed_gather(n: OnnxNode, data: Any, idx: Computed, axis: int) -> Any:
    """Gather with computed indices: DML_GATHER over data and indices padded to one rank
    (IndexDimensions counts the indices' own), the arithmetic fused into its kernel."""
    q = max(1, idx.ndim)
    rank = data.ndim + q - 1
    if rank > MAX_RANK:
        raise n.error("indices", f"data and indices of at most {MAX_RANK + 1} dimensions "
                      "together", f"{data.ndim} and {idx.ndim}")
    xk = data.reshape((1,) * (q - 1) + tuple(data.shape))
    ik = idx.reshape((1,) * (rank - q) + (tuple(idx.shape) or (1,)))
    return gather_ops.gather(xk, ik, axis=axis + q - 1, index_dimensions=q, check_indices=True)


@op("GatherElements")
def gather_elements(n: OnnxNode) -> list[Value]:
    x, i = n.inputs[0], n.inputs[1]
    assert x is not None and i is not None
    axis = n.axis(n.attrs.get("axis", 0), len(x.shape))
    if i.shape[:axis] + i.shape[axis + 1:] != tuple(
            min(a, b) for a, b in zip(i.shape, x.shape))[:axis] + tuple(
            min(a, b) for a, b in zip(i.shape, x.shape))[axis + 1:]:
        raise n.error("indices", f"no larger than data {x.shape} off the axis", i.shape)
    if 0 in i.shape:
        return [empty(x, i.shape)]
    data = device_data(x)
    if i.shape != x.shape:  # GatherElements reads a window of data; take_along_axis broadcasts
        window = tuple(slice(0, s) if k != axis else slice(None) for k, s in enumerate(i.shape))
        data = data[window]
    if i.computed:
        return [like(x, gather_ops.gather_elements(data, i.data, axis=axis,
                                                   check_indices=True))]
    return [like(x, numpy_api.take_along_axis(data, index_data(i), axis=axis))]


def reduction_of(n: OnnxNode, x: Value) -> str:
    """A scatter's reduction; of bools as numpy's (add is `or`, mul `and`: bools move as
    bytes)."""
    reduction = str(n.attrs.get("reduction", "none"))
    return BOOL_REDUCTIONS.get(reduction, reduction) if x.logical.kind == "b" else reduction


@op("ScatterElements", "Scatter")
def scatter_elements(n: OnnxNode) -> list[Value]:
    x, i, u = n.inputs
    assert x is not None and i is not None and u is not None
    axis = n.axis(n.attrs.get("axis", 0), len(x.shape))
    if 0 in i.shape:
        return [x]
    if any(a < b for k, (a, b) in enumerate(zip(i.shape, x.shape)) if k != axis):
        # indices smaller than the data off the axis update a window of it: in place, in a
        # copy of the data (DML_SCATTER takes indices of the data's sizes but on the axis)
        if any(a > b for k, (a, b) in enumerate(zip(i.shape, x.shape)) if k != axis):
            raise n.error("indices", f"no larger than data {x.shape} off the axis", i.shape)
        whole = copy_ops.copy(device_data(x))
        window = whole[tuple(slice(None) if k == axis else slice(0, a)
                             for k, a in enumerate(i.shape))]
        scatter_ops.scatter(window, index_data(i), device_data(u), axis=axis,
                            reduction=reduction_of(n, x), check_indices=True,
                            out=window)
        return [like(x, whole)]
    return [like(x, scatter_ops.scatter(device_data(x), index_data(i), device_data(u), axis=axis,
                                reduction=reduction_of(n, x),
                                check_indices=True))]


@op("ScatterND")
def scatter_nd(n: OnnxNode) -> list[Value]:
    x, i, u = n.inputs
    assert x is not None and i is not None and u is not None
    if 0 in i.shape[:-1] or 0 in x.shape:
        return [x]
    return [like(x, scatter_ops.scatter_nd(device_data(x), index_data(i), device_data(u),
                                             reduction=reduction_of(n, x),
                                             check_indices=True))]


@op("Concat")
def concat(n: OnnxNode) -> list[Value]:
    xs = [v for v in n.inputs if v is not None]
    rank = len(xs[0].shape)
    axis = n.axis(n.attrs["axis"], rank)
    parts = [v for v in xs if 0 not in v.shape]
    shape = list(xs[0].shape)
    shape[axis] = sum(v.shape[axis] for v in xs)
    if not parts or 0 in shape:
        return [empty(xs[0], tuple(shape))]
    return [like(xs[0], join_ops.join([device_data(v) for v in parts], axis=axis))]


@op("Split")
def split(n: OnnxNode) -> list[Value]:
    x = n.inputs[0]
    assert x is not None
    axis = n.axis(n.attrs.get("axis", 0), len(x.shape))
    sizes = n.ints(1, "split") if n.opset >= 13 else n.attrs.get("split")
    outputs = n.attrs["_outputs"]
    if sizes is None:
        count = n.attrs.get("num_outputs", outputs)
        whole = x.shape[axis]
        size = -(-whole // count)  # opset 18: the last piece may be smaller
        sizes = [min(size, whole - k * size) for k in range(count)]
    if sum(sizes) != x.shape[axis] or any(s < 0 for s in sizes):
        raise n.error("split", f"sizes >= 0 summing to {x.shape[axis]}", sizes)
    shapes = [tuple(s if k == axis else d for k, d in enumerate(x.shape)) for s in sizes]
    kept = [s for s in sizes if s]
    pieces = iter(join_ops.split(device_data(x), kept, axis=axis) if kept and 0 not in x.shape
                  else ())
    return [like(x, next(pieces)) if s and 0 not in x.shape else empty(x, shape)
            for s, shape in zip(sizes, shapes)]

