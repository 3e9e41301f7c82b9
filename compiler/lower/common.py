"""Shared lowering helpers: tensors as buffers, and linear index <-> coordinates <-> address."""
from __future__ import annotations

import math
from collections.abc import Sequence

from ..descriptors import TensorDesc
from ..ir import Buffer
from ..ir import build as b
from ..ir.ops import INT32_MAX, INT32_MIN, Node


def tensor_buffer(name: str, t: TensorDesc, role: str) -> Buffer:
    """The buffer behind a tensor: as many elements as its sizes and strides reach."""
    return Buffer(name, t.data_type, t.buffer_elements, role)


def unflatten(linear: Node, sizes: Sequence[int]) -> list[Node]:
    """Row-major coordinates of `linear` in a tensor of `sizes`: (linear // inner) % size."""
    coords = []
    for k, size in enumerate(sizes):
        inner = math.prod(sizes[k + 1:])
        coords.append(b.floormod(b.floordiv(linear, inner), size))
    return coords


def address(coords: Sequence[Node], t: TensorDesc) -> Node:
    """Element offset of `coords` in t's buffer: offset + sum(coord * stride). A size-1 dimension's
    coordinate is always 0, so a stride there that no 32-bit int holds counts as 0 (the rules
    fold the others away)."""
    acc = b.const(t.offset)
    for c, stride, size in zip(coords, t.element_strides, t.sizes):
        if size == 1 and not INT32_MIN <= stride <= INT32_MAX:
            stride = 0
        acc = b.add(acc, b.mul(c, stride))
    return acc


def replace(coords: Sequence[Node], axis: int, value: Node) -> list[Node]:
    out = list(coords)
    out[axis] = value
    return out
